//! The real-time forwarder: crates/net's links, spike schedules and middleboxes,
//! driven by a monotonic clock instead of the engine's event queue, carrying the real
//! packets that the namespaces' TUN devices hand it.
//!
//! It follows the engine's driving rules (`spikelab_engine` `world.rs`) step by step,
//! building and routing with the engine's own functions ([`spikelab_engine::route`]):
//! the same links and random streams per link, spike schedule and box, so a seed gives
//! the same spike times as `spikelab run`; the same source routing (forward packets
//! cross the route in order, ACKs backwards); a box at a link's first endpoint sees
//! packets just before they enter the link forward and just after they leave it in
//! reverse (`route::after_box`); due
//! work is done in time order, each piece at its own scheduled time (so crates/net sees
//! exactly the times the model asks for), and a packet read from a TUN device enters
//! at the moment it was read. The only difference is that the loop may run late: the
//! lateness of each packet written out (actual minus scheduled release) is recorded.

use crate::host::{ReadWait, ReceivingApp};
use crate::truth::{ack_owed, classify, RangeSet, RetxTruth};
use crate::wire::{self, FlowSeq, Side};
use spikelab_core::{FlowId, Packet, PacketKind, RngStreams, SimRng, Time};
use spikelab_engine::route::{self, AfterBox};
use spikelab_engine::{DropRule, FlowKind, Hop, LinkResult, SimConfig};
use spikelab_net::control;
use spikelab_net::streams::dir_index;
use spikelab_net::{Dir, LinkControl, LinkDir, Mb, MbEventKind, MbOutput, Middlebox, Schedule};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The smallest [`Forwarder::forget_departed`] threshold, packets.
const MIN_RAW_LIMIT: usize = 256;

/// One flow's two TUN descriptors: where its sender's and receiver's packets appear.
#[derive(Clone, Copy, Debug)]
pub struct FlowFds {
    pub sender: i32,
    pub receiver: i32,
}

/// A retransmission the forwarder saw, with its ground truth.
#[derive(Clone, Copy, Debug)]
pub struct RetxRecord {
    pub time: Time,
    pub seq: u64,
    pub truth: RetxTruth,
}

/// What the forwarder counted for one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowCounts {
    pub data_segments_sent: u64,
    pub retransmissions: u64,
    pub unnecessary_retransmissions: u64,
    pub delivered: u64,
    pub retx: Vec<RetxRecord>,
}

/// Forward packets' passages through the path (recorded with
/// [`Forwarder::record_transits`]): every packet read from the sender's device, and
/// every one delivered at the far end, so the path can be replayed through the link
/// model offline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transits {
    /// (uid, IP packet bytes, when it was read).
    pub arrivals: Vec<(u64, u32, Time)>,
    /// (uid, when the model released it, when it was actually written out).
    pub deliveries: Vec<(u64, Time, Time)>,
}

/// A raw packet as captured, for pcap files.
#[derive(Clone, Debug)]
pub struct Captured {
    pub time: Time,
    pub bytes: Vec<u8>,
}

/// Decisions of the middleboxes, counted per kind (for tests and meta.json).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct BoxCounts {
    pub timeouts_detected: u64,
    pub verdicts_spurious: u64,
    pub verdicts_genuine: u64,
    pub buffered: u64,
    pub discarded: u64,
    pub local_retransmits: u64,
    pub acks_removed: u64,
    pub delayed: u64,
    pub held_behind: u64,
}

struct SpikeRun {
    schedule: Schedule,
    rng: SimRng,
    pending: Option<(Time, LinkControl)>,
}

struct LinkRt {
    name: String,
    dirs: [LinkDir; 2],
    spikes: Vec<SpikeRun>,
}

struct BoxRt {
    link: usize,
    mb: Mb,
}

struct FlowRt {
    route: Vec<Hop>,
    fds: FlowFds,
    seq: FlowSeq,
    sent_high: u64,
    /// The highest ACK the receiver has sent (read from its device).
    receiver_acked: u64,
    delivered_bytes: RangeSet,
    counts: FlowCounts,
    /// Keep raw bytes after delivery: a box on the route may emit copies later.
    keep_raw: bool,
    /// A CBR flow: UDP datagrams from the sender, nothing modelled back.
    datagrams: bool,
    /// (sender-side, receiver-side) captures.
    capture: Option<(Vec<Captured>, Vec<Captured>)>,
    /// Forward packets' passages, when recorded.
    transits: Option<Transits>,
    /// The flow's start, until its sender's first packet is read
    /// ([`Forwarder::start_at`]).
    start: Option<Time>,
    /// How far the host's clock ran ahead of the model's when the forwarder last
    /// wrote into each end's device, sender's then receiver's (ns): that end's kernel
    /// read this much more than the model's time of the delivery it processed
    /// ([`Forwarder::model_time_of`]).
    lag: [u64; 2],
}

/// The index of an end in per-end arrays: the sender's 0, the receiver's 1.
fn side_index(side: Side) -> usize {
    match side {
        Side::Sender => 0,
        Side::Receiver => 1,
    }
}

/// A raw packet waiting inside the model, with the numbers it was read with.
struct Raw {
    bytes: Vec<u8>,
    seq: u64,
    ack: u64,
}

/// The next piece of due work.
#[derive(Clone, Copy, Debug)]
enum Due {
    Link(usize, usize),
    Box(usize),
    Spike(usize, usize),
}

/// The forwarder of one run.
pub struct Forwarder {
    origin: Instant,
    /// The model's clock: never decreases (crates/net requires it).
    mclock: Time,
    links: Vec<LinkRt>,
    boxes: Vec<BoxRt>,
    box_at: Vec<Option<usize>>,
    flows: Vec<FlowRt>,
    drops: Vec<DropRule>,
    mss: Vec<u64>,
    raw: HashMap<u64, Raw>,
    bypass: HashSet<u64>,
    /// When `raw` holds this many packets, those no longer inside the path are
    /// forgotten ([`Forwarder::forget_departed`]).
    raw_limit: usize,
    /// The most raw packets held at once.
    pub raw_peak: usize,
    next_uid: u64,
    mb_out: MbOutput,
    delivered: Vec<Packet>,
    dropped: Vec<Packet>,
    /// Lateness of every packet written out, nanoseconds.
    pub lateness_ns: Vec<u64>,
    /// Packets read that were not IPv4/TCP of a known flow.
    pub ignored: u64,
    /// TUN writes that failed.
    pub write_errors: u64,
    pub box_counts: BoxCounts,
    /// Per flow, its receiving application ([`Forwarder::watch_receivers`]), and
    /// whether the kernel has replaced its clamp yet.
    receivers: Vec<Option<(ReceivingApp, bool)>>,
    /// How often a delivery found the receiver's clamp replaced and set it again.
    pub clamp_resets: u64,
    /// Data deliveries that waited for the receiving application's `accept`.
    pub accept_waits: u64,
    /// Data deliveries after which the forwarder waited for the application's read.
    pub read_waits: u64,
    /// Of those, the waits that ran out (5 ms) before the read returned.
    pub read_wait_timeouts: u64,
    /// Packets the kernel sent while a write was processed, read at once
    /// ([`Forwarder::take_responses`]).
    pub responses: u64,
    /// A packet's worth of buffer for [`Forwarder::take_responses`].
    scratch: Vec<u8>,
    /// Per flow, its sending application's first write, until it has returned
    /// ([`Forwarder::watch_writers`]).
    first_writes: Vec<Option<Arc<AtomicBool>>>,
    /// Deliveries to a sender that waited for its application's first write.
    pub write_waits: u64,
    /// A packet the forwarding loop read and lets in once the work due before it is
    /// done ([`Forwarder::on_read`]): (flow, side, bytes).
    held: Option<(usize, Side, Vec<u8>)>,
}

impl Forwarder {
    /// The forwarder for `cfg` with run seed `seed`; time zero is `origin`. `fds[i]`
    /// are flow i's devices; `mss[i]` its segment size (for `[[drop]]` rules).
    pub fn new(
        cfg: &SimConfig,
        seed: u64,
        origin: Instant,
        fds: &[FlowFds],
        mss: Vec<u64>,
        pcap: bool,
    ) -> Forwarder {
        let streams = RngStreams::new(seed);
        let links: Vec<LinkRt> = cfg
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| build_link(l, i, &streams))
            .collect();
        let box_at = route::box_placement(cfg.links.len(), &cfg.middleboxes);
        let boxes = cfg
            .middleboxes
            .iter()
            .enumerate()
            .map(|(i, m)| BoxRt {
                link: m.link,
                mb: Mb::new(&m.config, streams.stream("middlebox", i as u64)),
            })
            .collect();
        let flows = cfg
            .flows
            .iter()
            .zip(fds)
            .map(|(f, &fds)| FlowRt {
                keep_raw: f.route.iter().any(|h| box_at[h.link].is_some()),
                datagrams: matches!(f.kind, FlowKind::Cbr { .. }),
                route: f.route.clone(),
                fds,
                seq: FlowSeq::default(),
                sent_high: 0,
                receiver_acked: 0,
                delivered_bytes: RangeSet::default(),
                counts: FlowCounts::default(),
                capture: pcap.then(|| (Vec::new(), Vec::new())),
                transits: None,
                start: None,
                lag: [0; 2],
            })
            .collect();
        let mut fw = Forwarder {
            origin,
            mclock: Time::ZERO,
            links,
            boxes,
            box_at,
            flows,
            drops: cfg.drops.clone(),
            mss,
            raw: HashMap::new(),
            bypass: HashSet::new(),
            raw_limit: MIN_RAW_LIMIT,
            raw_peak: 0,
            next_uid: 0,
            mb_out: MbOutput::new(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            lateness_ns: Vec::new(),
            ignored: 0,
            write_errors: 0,
            box_counts: BoxCounts::default(),
            receivers: Vec::new(),
            clamp_resets: 0,
            accept_waits: 0,
            read_waits: 0,
            read_wait_timeouts: 0,
            responses: 0,
            scratch: vec![0; 65_536],
            first_writes: Vec::new(),
            write_waits: 0,
            held: None,
        };
        for l in 0..fw.links.len() {
            for s in 0..fw.links[l].spikes.len() {
                fw.next_control(l, s);
            }
        }
        fw
    }

    /// Watches each TCP flow's receiving application from here: after every data
    /// segment written into a receiver's device, the clamp the kernel may have
    /// replaced is set again and the application's read awaited (see
    /// [`ReceivingApp`]).
    pub fn watch_receivers(&mut self, apps: Vec<Option<ReceivingApp>>) {
        self.receivers = apps.into_iter().map(|k| k.map(|k| (k, false))).collect();
    }

    /// Watches each TCP flow's sending application's first write: a delivery to the
    /// sender (the SYN-ACK) waits for it (at most 5 ms) before the kernel's answers
    /// are read, so that the data the application writes as `connect` returns enters
    /// the path at the SYN-ACK's time, as the model's host writes at once. The
    /// application's thread woke 0.25 ms after the SYN-ACK.
    pub fn watch_writers(&mut self, writers: Vec<Option<Arc<AtomicBool>>>) {
        self.first_writes = writers;
    }

    /// After a delivery to flow `f`'s sender: its application's first write awaited.
    fn await_first_write(&mut self, f: usize) {
        let Some(w) = self.first_writes.get(f).and_then(Option::as_ref) else {
            return;
        };
        if !w.load(Ordering::SeqCst) {
            self.write_waits += 1;
            let until = Instant::now() + std::time::Duration::from_millis(5);
            while !w.load(Ordering::SeqCst) && Instant::now() < until {
                std::thread::yield_now();
            }
        }
        self.first_writes[f] = None;
    }

    /// A data segment for a connection the receiving application has not accepted
    /// yet waits for it (at most 20 ms), so that its clamp can be held.
    fn wait_for_accept(&mut self, f: usize) {
        let Some((k, _)) = self.receivers.get(f).and_then(Option::as_ref) else {
            return;
        };
        if k.accepted() {
            return;
        }
        self.accept_waits += 1;
        let until = Instant::now() + std::time::Duration::from_millis(20);
        while !k.accepted() && Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }

    /// After a data segment's delivery: the clamp set again if the kernel moved it.
    /// Until the kernel has replaced it once, a delivery of `len` >= 536 payload
    /// bytes (`TCP_MSS_DEFAULT`: one that can re-measure the ratio) waits for the
    /// replacement (at most 5 ms): when the reading thread owned the socket at the
    /// write, the kernel processes the segment from the socket's backlog at
    /// `release_sock`, after the write returned, and the next delivery must not
    /// come first.
    fn hold_clamp(&mut self, f: usize, len: u64) {
        let Some((k, replaced)) = self.receivers.get_mut(f).and_then(Option::as_mut) else {
            return;
        };
        let first = !*replaced && len >= 536;
        let until = Instant::now() + std::time::Duration::from_millis(5);
        loop {
            if k.hold_clamp() {
                *replaced = true;
                self.clamp_resets += 1;
                return;
            }
            if !first || Instant::now() >= until {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
    }

    /// After a data segment's delivery (and its clamp): the next packet waits until
    /// the receiving application has read every byte received in order (at most
    /// 5 ms), so that an ACK Linux sends from the read leaves before it.
    fn await_read(&mut self, f: usize) {
        let Some((k, _)) = self.receivers.get(f).and_then(Option::as_ref) else {
            return;
        };
        match k.wait_read(Instant::now() + std::time::Duration::from_millis(5)) {
            ReadWait::Nothing => {}
            ReadWait::Read => self.read_waits += 1,
            ReadWait::TimedOut => {
                self.read_waits += 1;
                self.read_wait_timeouts += 1;
            }
        }
    }

    /// Records every forward packet's [`Transits`] from now on (for comparing the
    /// emulated path with the link model offline).
    pub fn record_transits(&mut self) {
        for f in &mut self.flows {
            f.transits = Some(Transits::default());
        }
    }

    /// Takes flow `f`'s recorded transits.
    pub fn take_transits(&mut self, f: usize) -> Transits {
        self.flows[f].transits.take().unwrap_or_default()
    }

    /// Time since the origin on the monotonic clock.
    pub fn now(&self) -> Time {
        Time(self.origin.elapsed().as_nanos() as u64)
    }

    /// The earliest scheduled work.
    pub fn next_due(&self) -> Option<Time> {
        self.pick_due().map(|(t, _)| t)
    }

    fn pick_due(&self) -> Option<(Time, Due)> {
        let links = self.links.iter().enumerate().flat_map(|(l, lk)| {
            let dirs =
                (0..2).filter_map(move |d| lk.dirs[d].next_wakeup().map(|t| (t, Due::Link(l, d))));
            let spikes = lk
                .spikes
                .iter()
                .enumerate()
                .filter_map(move |(s, r)| r.pending.map(|(t, _)| (t, Due::Spike(l, s))));
            dirs.chain(spikes)
        });
        let boxes = self
            .boxes
            .iter()
            .enumerate()
            .filter_map(|(b, x)| x.mb.next_wakeup().map(|t| (t, Due::Box(b))));
        links.chain(boxes).min_by_key(|(t, _)| *t)
    }

    /// Does every piece of work due at or before `until`, in time order, each at its
    /// scheduled time (or the model clock, if that is later).
    pub fn run_due(&mut self, until: Time) {
        // Bounded, so that a component that kept asking for the same past instant
        // could not stall the loop (its signal checks and TUN reads).
        for _ in 0..100_000 {
            let Some((t, due)) = self.pick_due().filter(|(t, _)| *t <= until) else {
                break;
            };
            self.mclock = self.mclock.max(t);
            match due {
                Due::Link(l, d) => self.on_link_wake(l, d, t),
                Due::Box(b) => self.on_box_wake(b, t),
                Due::Spike(l, s) => self.on_control(l, s),
            }
        }
    }

    /// Flow `i`'s sender makes its first packet (a SYN, or a CBR flow's first
    /// datagram) at `starts[i]`: the application's `connect` or first `send` at its
    /// start emits it in the call (`tcp_v4_connect` -> `tcp_connect`), as the model's
    /// sender does at the flow's start. Read with the host's clock it came 1.2 ms
    /// late (the application thread's set-up before its `connect`), which on a trace
    /// path of sparse delivery opportunities moved the whole connection by one
    /// opportunity or more: 11 ms and 50 ms at two offsets of the AT&T drive.
    pub fn start_at(&mut self, starts: &[Time]) {
        for (f, &s) in self.flows.iter_mut().zip(starts) {
            f.start = Some(s);
        }
    }

    /// The model's time of a packet flow `f`'s `side` sent by itself (from a timer:
    /// pacing, retransmission, delayed ACK, TSQ) and the forwarder read at host time
    /// `read`. That end's kernel set the timer by its own clock while it processed a
    /// delivery into its own device, when its clock read the model's time of that
    /// delivery plus the forwarder's lag at that write; the lag is taken off, as
    /// [`Forwarder::take_responses`] takes it off the packets the delivery itself
    /// caused, so that a paced burst keeps its spacing behind the segment its ACK
    /// released at once. The lag of a write into the other end's device says nothing
    /// of this end's timers (a burst of deliveries to the receiver, each write later
    /// than the last, took up to 0.36 ms off the sender's paced segments). Never
    /// before the model's clock.
    pub fn model_time_of(&self, f: usize, side: Side, read: Time) -> Time {
        let lag = self.flows[f].lag[side_index(side)];
        Time(read.0.saturating_sub(lag)).max(self.mclock)
    }

    /// A packet the forwarding loop read from flow `f`'s device on `side` at host time
    /// `read`: the work due by then is done first (deliveries the forwarder is late
    /// with), then the packet goes in at its model time. It is held meanwhile, so
    /// that if that work writes into the same device, the packet precedes the
    /// kernel's answers ([`Forwarder::take_responses`]) as it did on the device.
    pub fn on_read(&mut self, f: usize, side: Side, bytes: &[u8], read: Time) {
        self.held = Some((f, side, bytes.to_vec()));
        self.run_due(read);
        if let Some((f, side, bytes)) = self.held.take() {
            let at = self.model_time_of(f, side, read);
            self.on_tun_packet(f, side, &bytes, at);
        }
    }

    /// A raw packet read from flow `f`'s device on `side` at `at`.
    pub fn on_tun_packet(&mut self, f: usize, side: Side, bytes: &[u8], at: Time) {
        let at = match side {
            Side::Sender => self.flows[f].start.take().map_or(at, |s| s.min(at)),
            Side::Receiver => at,
        };
        self.mclock = self.mclock.max(at);
        let now = self.mclock;
        let Some((mut p, box_eligible)) = self.model(f, side, bytes, now) else {
            self.ignored += 1;
            return;
        };
        // The purge keeps the packets inside the path; this one enters it below
        // (`forward`), so it runs before the packet's bytes and bypass mark are stored.
        // Run after them, it threw this packet's bytes away, and `write_out` then found
        // none: one packet the path never lost vanished at each purge (the data segment
        // read when 256 packets were first inside, about the 615th of every BBR
        // recording on the 100 Mbit/s outage path, 0.32 s into its startup).
        if self.raw.len() + 1 >= self.raw_limit {
            self.forget_departed();
        }
        p.uid = self.next_uid;
        self.next_uid += 1;
        if !box_eligible {
            self.bypass.insert(p.uid);
        }
        self.capture(f, side, now, bytes);
        if let (Some(t), true) = (&mut self.flows[f].transits, p.kind.is_forward()) {
            t.arrivals.push((p.uid, bytes.len() as u32, now));
        }
        if p.kind == PacketKind::Ack {
            let flow = &mut self.flows[f];
            flow.receiver_acked = flow.receiver_acked.max(p.ack);
        }
        if p.kind == PacketKind::Datagram {
            self.flows[f].counts.data_segments_sent += 1;
        } else if side == Side::Sender && p.len > 0 {
            self.note_data_sent(f, &mut p);
        }
        self.raw.insert(
            p.uid,
            Raw {
                bytes: bytes.to_vec(),
                seq: p.seq,
                ack: p.ack,
            },
        );
        self.raw_peak = self.raw_peak.max(self.raw.len());
        self.forward(p, now);
    }

    /// The model packet for raw `bytes` from flow `f`'s `side`, and whether a box may
    /// see it. A CBR flow carries its sender's UDP datagrams only (the engine's CBR
    /// sink sends nothing back), which every box on the route sees as the engine's do.
    fn model(&mut self, f: usize, side: Side, bytes: &[u8], now: Time) -> Option<(Packet, bool)> {
        let id = FlowId(f as u32);
        if self.flows[f].datagrams {
            return (side == Side::Sender)
                .then(|| wire::datagram(bytes, id, now))
                .flatten()
                .map(|p| (p, true));
        }
        let seg = wire::parse(bytes)?;
        let m = self.flows[f].seq.model(&seg, side, id, now)?;
        Some((m.pkt, m.box_eligible))
    }

    fn capture(&mut self, f: usize, side: Side, time: Time, bytes: &[u8]) {
        if let Some((s, r)) = &mut self.flows[f].capture {
            let c = Captured {
                time,
                bytes: bytes.to_vec(),
            };
            match side {
                Side::Sender => s.push(c),
                Side::Receiver => r.push(c),
            }
        }
    }

    /// Counts a data segment; a retransmission (bytes below the highest sent) gets its
    /// ground truth before it enters the network.
    fn note_data_sent(&mut self, f: usize, p: &mut Packet) {
        let flow = &mut self.flows[f];
        flow.counts.data_segments_sent += 1;
        if p.seq >= flow.sent_high {
            flow.sent_high = p.end_seq();
            return;
        }
        flow.sent_high = flow.sent_high.max(p.end_seq());
        p.retx = true;
        let (alive, ack_alive) = self.alive_copies(f, p.seq);
        let flow = &mut self.flows[f];
        let owed = ack_owed(p.seq, flow.receiver_acked, &flow.delivered_bytes);
        let truth = classify(
            p.seq,
            p.end_seq(),
            &flow.delivered_bytes,
            &alive,
            ack_alive || owed,
        );
        flow.counts.retransmissions += 1;
        flow.counts.unnecessary_retransmissions += truth.unnecessary as u64;
        flow.counts.retx.push(RetxRecord {
            time: self.mclock,
            seq: p.seq,
            truth,
        });
    }

    /// Flow `f`'s data still inside the network (queues, transmitters, pipes, boxes),
    /// and whether an ACK above `seq` is on its way back.
    fn alive_copies(&self, f: usize, seq: u64) -> (RangeSet, bool) {
        let fid = FlowId(f as u32);
        let mut alive = RangeSet::default();
        let mut ack_alive = false;
        let mut see = |p: &Packet| {
            if p.flow != fid {
                return;
            }
            if p.kind.is_forward() && p.len > 0 {
                alive.insert(p.seq, p.end_seq());
            } else if !p.kind.is_forward() && p.ack > seq {
                ack_alive = true;
            }
        };
        for hop in &self.flows[f].route {
            for dir in &self.links[hop.link].dirs {
                dir.for_each_in_network(&mut see);
            }
            if let Some(b) = self.box_at[hop.link] {
                self.boxes[b].mb.for_each_held(&mut see);
            }
        }
        (alive, ack_alive)
    }

    fn next_hop(&self, p: &Packet) -> Option<(usize, Dir)> {
        route::next_hop(
            &self.flows[p.flow.index()].route,
            p.kind.is_forward(),
            p.hop,
        )
    }

    /// Sends `p` on from where it is; `sched` is when the model releases it.
    fn forward(&mut self, p: Packet, sched: Time) {
        let Some((l, dir)) = self.next_hop(&p) else {
            self.write_out(p, sched);
            return;
        };
        match self.box_at[l] {
            Some(b) if dir == Dir::Forward && !self.bypass.contains(&p.uid) => {
                self.through_box(b, p)
            }
            _ => self.enter_link(l, dir, p),
        }
    }

    fn enter_link(&mut self, l: usize, dir: Dir, p: Packet) {
        let f = p.flow.index();
        let now = self.mclock;
        if self
            .drops
            .iter()
            .any(|r| r.matches(l, &p, self.mss[f], now))
        {
            self.forget(&p);
            return;
        }
        if let Some(lost) = self.links[l].dirs[dir_index(dir)].enqueue(now, p) {
            self.forget(&lost);
        }
    }

    /// A dropped packet's bytes are no longer needed (unless a box may copy it).
    fn forget(&mut self, p: &Packet) {
        if !self.flows[p.flow.index()].keep_raw {
            self.raw.remove(&p.uid);
            self.bypass.remove(&p.uid);
        }
    }

    fn on_link_wake(&mut self, l: usize, d: usize, t: Time) {
        let mut delivered = std::mem::take(&mut self.delivered);
        let mut dropped = std::mem::take(&mut self.dropped);
        self.links[l].dirs[d].poll(self.mclock, &mut delivered, &mut dropped);
        for p in dropped.drain(..) {
            self.forget(&p);
        }
        self.dropped = dropped;
        for mut p in delivered.drain(..) {
            p.hop += 1;
            match self.box_at[l] {
                Some(b) if d == 1 && !self.bypass.contains(&p.uid) => self.through_box(b, p),
                _ => self.forward(p, t),
            }
        }
        self.delivered = delivered;
    }

    fn through_box(&mut self, b: usize, p: Packet) {
        let mut out = std::mem::take(&mut self.mb_out);
        self.boxes[b].mb.on_owned_packet(self.mclock, p, &mut out);
        self.after_box(b, out, self.mclock);
    }

    fn on_box_wake(&mut self, b: usize, t: Time) {
        let mut out = std::mem::take(&mut self.mb_out);
        self.boxes[b].mb.on_wakeup(self.mclock, &mut out);
        self.after_box(b, out, t);
    }

    fn after_box(&mut self, b: usize, mut out: MbOutput, sched: Time) {
        for e in &out.events {
            self.count_event(e.kind);
        }
        for q in std::mem::take(&mut out.forward) {
            self.leave_box(b, q, sched);
        }
        out.clear();
        self.mb_out = out;
    }

    fn count_event(&mut self, kind: MbEventKind) {
        let c = &mut self.box_counts;
        match kind {
            MbEventKind::TimeoutDetected { .. } => c.timeouts_detected += 1,
            MbEventKind::Verdict { spurious: true } => c.verdicts_spurious += 1,
            MbEventKind::Verdict { spurious: false } => c.verdicts_genuine += 1,
            MbEventKind::Buffered { .. } => c.buffered += 1,
            MbEventKind::Discarded { .. } => c.discarded += 1,
            MbEventKind::LocalRetransmit { .. } => c.local_retransmits += 1,
            MbEventKind::AckRemoved { .. } => c.acks_removed += 1,
            MbEventKind::Delayed { .. } => c.delayed += 1,
            MbEventKind::HeldBehind { .. } => c.held_behind += 1,
            _ => {}
        }
    }

    /// The engine's `leave_box`: forward packets enter the box's link, reverse packets
    /// continue past it.
    fn leave_box(&mut self, b: usize, mut q: Packet, sched: Time) {
        let l = self.boxes[b].link;
        let r = &self.flows[q.flow.index()].route;
        match route::after_box(r, l, q.kind.is_forward()) {
            None => {}
            Some(AfterBox::Enter(hop)) => {
                q.hop = hop;
                self.enter_link(l, Dir::Forward, q);
            }
            Some(AfterBox::Continue(hop)) => {
                q.hop = hop;
                self.forward(q, sched);
            }
        }
    }

    /// `p` has crossed its whole route: its real bytes go into the far end's device.
    fn write_out(&mut self, p: Packet, sched: Time) {
        let f = p.flow.index();
        let keep = self.flows[f].keep_raw;
        let bytes = match (keep, self.raw.get(&p.uid)) {
            (true, Some(r)) => self.restamp(f, &p, r),
            (false, Some(_)) => self.raw.remove(&p.uid).map(|r| r.bytes),
            (_, None) => None,
        };
        if !keep {
            self.bypass.remove(&p.uid);
        }
        let Some(bytes) = bytes else {
            self.ignored += 1;
            return;
        };
        let flow = &mut self.flows[f];
        let (fd, side) = if p.kind.is_forward() {
            (flow.fds.receiver, Side::Receiver)
        } else {
            (flow.fds.sender, Side::Sender)
        };
        if p.kind == PacketKind::Datagram {
            flow.counts.delivered += 1;
        } else if p.kind.is_forward() && p.len > 0 {
            flow.delivered_bytes.insert(p.seq, p.end_seq());
            flow.counts.delivered += 1;
        }
        let data = p.kind.is_forward() && p.len > 0 && p.kind != PacketKind::Datagram;
        if data {
            self.wait_for_accept(f);
        }
        if crate::sys::write_packet(fd, &bytes).is_err() {
            self.write_errors += 1;
        }
        // The kernel processed the packet in the write (`tun_get_user`), its timers
        // armed by then: the lag is read before the waits for the applications.
        let written = self.now();
        self.flows[f].lag[side_index(side)] = written.0.saturating_sub(self.mclock.0);
        if data {
            self.hold_clamp(f, p.len as u64);
            self.await_read(f);
        } else if side == Side::Sender {
            self.await_first_write(f);
        }
        let now = self.now();
        self.lateness_ns.push(now.0.saturating_sub(sched.0));
        self.capture(f, side, self.mclock, &bytes);
        if let (Some(t), true) = (&mut self.flows[f].transits, p.kind.is_forward()) {
            t.deliveries.push((p.uid, sched, now));
        }
        self.take_responses(f, side, fd);
    }

    /// Reads what the kernel sent while it processed the packet just written into
    /// `fd` (flow `f`'s `side`), and lets it into the path at the model's time of
    /// that delivery, as a model host answers at the instant a packet reaches it.
    ///
    /// A write into a TUN device is processed in the writer's context
    /// (drivers/net/tun.c `tun_get_user` -> `tun_rx_batched` ->
    /// `netif_receive_skb`): `tcp_ack` and the `tcp_write_xmit` it calls, or a
    /// receiver's immediate ACK, have queued their packets on the device when
    /// `write` returns; an ACK sent from the application's read is there once
    /// [`Forwarder::await_read`] returns. Read later by the forwarding loop, they
    /// were stamped with the host's clock: each packet a few microseconds after the
    /// last, a burst released by a batch of ACKs spread over a quarter of a
    /// millisecond behind the batch, and each round trip longer than the model's by
    /// the host's processing (2.9 ms over 44 ACKs on Table 2's path) — the CPU's
    /// time, not the kernel's decisions, deciding which packet a full queue drops.
    /// Packets the kernel sends from its timers (retransmission, delayed ACK,
    /// pacing, TSQ's tasklet) are still read by the loop and stamped when read.
    fn take_responses(&mut self, f: usize, side: Side, fd: i32) {
        // A packet the loop read from this device before the write came first.
        if self.held.as_ref().is_some_and(|h| (h.0, h.1) == (f, side)) {
            let (hf, hs, bytes) = self.held.take().expect("checked");
            let at = self.mclock;
            self.on_tun_packet(hf, hs, &bytes, at);
        }
        let mut buf = std::mem::take(&mut self.scratch);
        while let Ok(Some(n)) = crate::sys::read_packet(fd, &mut buf) {
            self.responses += 1;
            let at = self.mclock;
            self.on_tun_packet(f, side, &buf[..n], at);
        }
        self.scratch = buf;
    }

    /// The bytes for `p`: the stored packet, rewritten if a box changed its numbers.
    fn restamp(&self, f: usize, p: &Packet, r: &Raw) -> Option<Vec<u8>> {
        if p.seq == r.seq && p.ack == r.ack {
            return Some(r.bytes.clone());
        }
        let (seq, ack) = self.flows[f].seq.wire_numbers(p)?;
        wire::rewrite(&r.bytes, seq, ack)
    }

    /// Keeps the raw bytes of the packets still inside the path only. A flow with a
    /// middlebox on its route keeps its packets' bytes past delivery or loss, since a
    /// box may emit a packet again later; but a box can only emit what it is handed or
    /// holds (`Middlebox::for_each_held`, the list the engine's ground truth uses
    /// too), so every packet neither in a link nor held by a box is gone for good.
    /// Run when the packet being read would bring `raw` to `raw_limit` (before it is
    /// stored: it is not inside the path yet), which then doubles the survivors, so the
    /// bytes held stay within twice the path's contents (and the work per packet is
    /// constant on average).
    fn forget_departed(&mut self) {
        let mut live = HashSet::new();
        for link in &self.links {
            for dir in &link.dirs {
                dir.for_each_in_network(&mut |p: &Packet| {
                    live.insert(p.uid);
                });
            }
        }
        for b in &self.boxes {
            b.mb.for_each_held(&mut |p: &Packet| {
                live.insert(p.uid);
            });
        }
        self.raw.retain(|uid, _| live.contains(uid));
        self.bypass.retain(|uid| live.contains(uid));
        self.raw_limit = (2 * self.raw.len()).max(MIN_RAW_LIMIT);
    }

    fn next_control(&mut self, l: usize, s: usize) {
        let run = &mut self.links[l].spikes[s];
        run.pending = run.schedule.next(&mut run.rng);
    }

    /// The engine's `on_link_control`.
    fn on_control(&mut self, l: usize, s: usize) {
        let Some((_, control)) = self.links[l].spikes[s].pending.take() else {
            return;
        };
        let now = self.mclock;
        for d in [Dir::Forward, Dir::Reverse] {
            let dir = &mut self.links[l].dirs[dir_index(d)];
            let thaw_drops = control::apply(control, d, dir, now).unwrap_or_default();
            // Packets a before-queue freeze held, dropped at the thaw, as the engine does.
            for p in &thaw_drops {
                self.forget(p);
            }
        }
        self.next_control(l, s);
    }

    /// Per-link-direction counters, as the engine reports them.
    pub fn link_results(&self) -> Vec<LinkResult> {
        let mut out = Vec::new();
        for link in &self.links {
            for (d, name) in LinkResult::DIRS {
                let c = link.dirs[d].counters();
                out.push(LinkResult::from_counters(&link.name, name, &c));
            }
        }
        out
    }

    /// Flow `f`'s counts.
    pub fn flow_counts(&self, f: usize) -> &FlowCounts {
        &self.flows[f].counts
    }

    /// Takes flow `f`'s captures (sender side, receiver side).
    pub fn take_captures(&mut self, f: usize) -> Option<(Vec<Captured>, Vec<Captured>)> {
        self.flows[f].capture.take()
    }
}

/// The engine's `build_link`, from the same shared pieces ([`route::link_dirs`],
/// [`route::spike_schedules`]): the same random streams, so the same seed draws the
/// same RED drops and spike schedules as `spikelab run`.
fn build_link(cfg: &spikelab_net::LinkConfig, i: usize, streams: &RngStreams) -> LinkRt {
    let spikes = route::spike_schedules(cfg, i, streams)
        .into_iter()
        .map(|(schedule, rng)| SpikeRun {
            schedule,
            rng,
            pending: None,
        })
        .collect();
    LinkRt {
        name: cfg.name.clone(),
        dirs: route::link_dirs(cfg, i, streams),
        spikes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;
    use spikelab_engine::Truth;

    /// One 10 Mbit/s, 10 ms link; descriptors -1, so writes fail (and are counted)
    /// while the model runs as usual.
    fn forwarder() -> Forwarder {
        forwarder_with_latency("10ms")
    }

    /// [`forwarder`] with another latency.
    fn forwarder_with_latency(latency: &str) -> Forwarder {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.toml");
        std::fs::write(
            &path,
            format!(
                "[[link]]\nname = \"l\"\nrate = \"10Mbit/s\"\nlatency = \"{latency}\"\n\
                 [[flow]]\nname = \"f\"\nroute = [\"l\"]\nworkload = {{ kind = \"bulk\", bytes = \"1MB\" }}\n"
            ),
        )
        .unwrap();
        let s = spikelab_scenario::load(&path).unwrap();
        let fds = [FlowFds {
            sender: -1,
            receiver: -1,
        }];
        Forwarder::new(s.sim(), 1, Instant::now(), &fds, vec![1000], false)
    }

    fn packet(from_sender: bool, seq: u32, ack: u32, syn: bool, len: usize) -> Vec<u8> {
        let (a, b) = ([10, 0, 0, 1], [10, 0, 0, 2]);
        let (src, dst) = if from_sender { (a, b) } else { (b, a) };
        let mut t = PacketBuilder::ipv4(src, dst, 64).tcp(1, 2, seq, 1000);
        if syn {
            t = t.syn();
        }
        let mut out = Vec::new();
        t.ack(ack).write(&mut out, &vec![0u8; len]).unwrap();
        out
    }

    /// Handshake at 0 ms and one 1000-byte segment at 1 ms, delivered by 100 ms.
    fn one_segment_delivered(fw: &mut Forwarder) {
        fw.on_tun_packet(0, Side::Sender, &packet(true, 100, 0, true, 0), Time(0));
        fw.on_tun_packet(
            0,
            Side::Receiver,
            &packet(false, 500, 101, true, 0),
            Time(0),
        );
        fw.on_tun_packet(
            0,
            Side::Sender,
            &packet(true, 101, 501, false, 1000),
            Time(1_000_000),
        );
        fw.run_due(Time(100_000_000));
        assert_eq!(fw.flow_counts(0).delivered, 1);
    }

    /// 300 segments a millisecond apart into a 1 s link: the 254th is read with 255
    /// packets inside the path (the handshake's two and 253 segments), and with it the
    /// store would hold `MIN_RAW_LIMIT`: the first purge. Each is written out; before,
    /// the packet read at each purge lost its bytes and vanished.
    #[test]
    fn the_packet_read_when_the_raw_store_is_purged_is_delivered() {
        let mut fw = forwarder_with_latency("1s");
        fw.on_tun_packet(0, Side::Sender, &packet(true, 100, 0, true, 0), Time(0));
        let syn_ack = packet(false, 500, 101, true, 0);
        fw.on_tun_packet(0, Side::Receiver, &syn_ack, Time(0));
        for i in 0..300u32 {
            let seg = packet(true, 101 + 1000 * i, 501, false, 1000);
            fw.on_tun_packet(0, Side::Sender, &seg, Time(1_000_000 * (1 + i as u64)));
        }
        assert!(fw.raw_peak >= MIN_RAW_LIMIT, "the store was purged");
        fw.run_due(Time(3_000_000_000));
        assert_eq!(fw.ignored, 0);
        assert_eq!(fw.flow_counts(0).delivered, 300);
    }

    /// A timer packet is stamped less the lag of the last write into its own end's
    /// device: the receiver's deliveries, however late, do not move the sender's.
    #[test]
    fn a_timer_packet_is_stamped_less_its_own_ends_lag() {
        let mut fw = forwarder();
        fw.flows[0].lag = [30_000, 360_000];
        let read = Time(540_380_000);
        assert_eq!(fw.model_time_of(0, Side::Sender, read), Time(540_350_000));
        assert_eq!(fw.model_time_of(0, Side::Receiver, read), Time(540_020_000));
        fw.mclock = Time(540_200_000);
        let clamped = fw.model_time_of(0, Side::Receiver, read);
        assert_eq!(clamped, Time(540_200_000), "never before the model's clock");
    }

    #[test]
    fn a_retransmission_while_the_receiver_owes_its_ack_is_ack_delayed() {
        let mut fw = forwarder();
        one_segment_delivered(&mut fw);
        // The receiver kernel has not acknowledged the segment yet (its delayed-ACK
        // timer holds the ACK) when the sender's timer sends it again.
        let retx = packet(true, 101, 501, false, 1000);
        fw.on_tun_packet(0, Side::Sender, &retx, Time(200_000_000));
        let r = fw.flow_counts(0).retx[0];
        assert_eq!(r.truth.class, Truth::SpuriousAckDelayed);
        assert!(r.truth.unnecessary);
    }

    #[test]
    fn a_retransmission_after_the_receivers_ack_left_and_vanished_is_ack_lost() {
        let mut fw = forwarder();
        one_segment_delivered(&mut fw);
        // The receiver's ACK of the segment is read, crosses the link and reaches the
        // sender's side; nothing of it is left in the network.
        let ack = packet(false, 501, 1101, false, 0);
        fw.on_tun_packet(0, Side::Receiver, &ack, Time(101_000_000));
        fw.run_due(Time(200_000_000));
        let retx = packet(true, 101, 501, false, 1000);
        fw.on_tun_packet(0, Side::Sender, &retx, Time(300_000_000));
        assert_eq!(fw.flow_counts(0).retx[0].truth.class, Truth::GenuineAckLost);
    }
}
