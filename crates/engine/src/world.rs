//! The world loop: links, flows and the event queue, driven until every TCP flow has
//! finished or the stop time is reached.
//!
//! Routing is by source route: a flow's forward packets (data, SYN, datagrams) cross its
//! hops in order; its reverse packets (ACKs) cross them backwards in the opposite
//! direction. `Packet::hop` indexes the packet's route.

use crate::config::{DropRule, FlowKind, FlowSpec, Hop, SimConfig, StartTime, Workload};
use crate::events::{Event, EventQueue, FlowTimer, TimerSlot};
use crate::results::{
    Captured, DetectorVerdict, Endpoint, FlowResult, LinkResult, RtoSample, RunResult,
    TimeoutRecord, Truth,
};
use crate::route::{self, AfterBox};
use crate::trace::Tracer;
use crate::watchdog::{Bark, Watchdog};
use rand::Rng;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{Dur, FlowId, Packet, PacketKind, RngStreams, SimRng, Time};
use spikelab_net::streams::dir_index;
use spikelab_net::{
    Dir, LinkControl, LinkDir, Mb, MbEventKind, MbOutput, Middlebox, MiddleboxConfig, Schedule,
};
use spikelab_tcp::rto::Rto;
use spikelab_tcp::spurious::{DetectorKind, Verdict};
use spikelab_tcp::{Phase, TcpReceiver, TcpSender};

/// A broken invariant: the run is wrong and must not be reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantViolation {
    pub time: Time,
    pub what: String,
}

impl std::fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invariant violated at {}: {}", self.time, self.what)
    }
}

impl std::error::Error for InvariantViolation {}

struct LinkState {
    name: String,
    dirs: [LinkDir; 2],
    wake: [TimerSlot; 2],
    spikes: Vec<SpikeRun>,
}

/// A link's spike schedule with its random stream and the control due next.
struct SpikeRun {
    schedule: Schedule,
    rng: SimRng,
    pending: Option<LinkControl>,
}

struct TcpFlow {
    sender: TcpSender<Rto>,
    receiver: TcpReceiver,
    workload: Workload,
    rto_slot: TimerSlot,
    delack_slot: TimerSlot,
    messages_written: u64,
    last_ack_sent: u64,
}

struct CbrFlow {
    interval: Dur,
    payload: u32,
    stop: Option<Time>,
    slot: TimerSlot,
    next_send: Option<Time>,
}

enum FlowState {
    Tcp(Box<TcpFlow>),
    Cbr(CbrFlow),
}

struct Flow {
    route: Vec<Hop>,
    state: FlowState,
    result: FlowResult,
}

/// One simulation run.
pub struct World {
    now: Time,
    q: EventQueue,
    links: Vec<LinkState>,
    flows: Vec<Flow>,
    next_uid: u64,
    out: Vec<Packet>,
    delivered: Vec<Packet>,
    dropped: Vec<Packet>,
    timeouts: Vec<TimeoutRecord>,
    tracer: Tracer,
    captures: Option<Vec<Vec<Captured>>>,
    stop_at: Time,
    unfinished_tcp: usize,
    data_packets_delivered: u64,
    seed: u64,
    drops: Vec<DropRule>,
    record_rto: bool,
    boxes: Vec<BoxState>,
    /// Per link, the index of the middlebox at its first endpoint.
    box_at: Vec<Option<usize>>,
    /// Links with an STD proxy (its verdicts are scored like a detector's).
    std_proxy_links: Vec<usize>,
    mb_out: MbOutput,
    /// (flow, time, spurious) verdicts reached by STD proxies.
    box_verdicts: Vec<(usize, Time, bool)>,
    watchdog: Watchdog,
}

/// A middlebox placed at the first endpoint of `link`.
struct BoxState {
    link: usize,
    mb: Mb,
    slot: TimerSlot,
}

impl World {
    /// Builds the world for `cfg` with run seed `seed`.
    pub fn new(cfg: &SimConfig, seed: u64) -> World {
        let streams = RngStreams::new(seed);
        let links = cfg
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| build_link(l, i, &streams))
            .collect();
        let mut world = World {
            now: Time::ZERO,
            q: EventQueue::new(),
            links,
            flows: Vec::with_capacity(cfg.flows.len()),
            next_uid: 0,
            out: Vec::new(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            timeouts: Vec::new(),
            tracer: Tracer::new(cfg.trace),
            captures: cfg.pcap.then(|| vec![Vec::new(); cfg.flows.len()]),
            stop_at: Time::ZERO + cfg.stop_at,
            unfinished_tcp: 0,
            data_packets_delivered: 0,
            seed,
            drops: cfg.drops.clone(),
            record_rto: cfg.record_rto,
            boxes: Vec::new(),
            std_proxy_links: cfg
                .middleboxes
                .iter()
                .filter(|m| matches!(m.config, MiddleboxConfig::StdProxy(_)))
                .map(|m| m.link)
                .collect(),
            box_at: route::box_placement(cfg.links.len(), &cfg.middleboxes),
            mb_out: MbOutput::new(),
            box_verdicts: Vec::new(),
            watchdog: Watchdog::default(),
        };
        for (i, spec) in cfg.middleboxes.iter().enumerate() {
            let mb = Mb::new(&spec.config, streams.stream("middlebox", i as u64));
            world.boxes.push(BoxState {
                link: spec.link,
                mb,
                slot: TimerSlot::default(),
            });
        }
        for (i, spec) in cfg.flows.iter().enumerate() {
            world.add_flow(i, spec, &streams);
        }
        for l in 0..world.links.len() {
            for s in 0..world.links[l].spikes.len() {
                world.schedule_next_control(l, s);
            }
        }
        world
    }

    fn add_flow(&mut self, i: usize, spec: &FlowSpec, streams: &RngStreams) {
        let start = match spec.start {
            StartTime::At(d) => Time::ZERO + d,
            StartTime::Uniform { min, max } => {
                let mut rng = streams.stream("flow-start", i as u64);
                Time(rng.random_range(min.0..max.0.max(min.0 + 1)))
            }
        };
        let flow = FlowId(i as u32);
        let (state, bytes, min_segments) = match &spec.kind {
            FlowKind::Tcp { tcp, workload } => {
                self.unfinished_tcp += 1;
                let bytes = match workload {
                    Workload::Bulk { bytes } => bytes.0,
                    Workload::PingPong { packets, bytes } => packets * bytes.0,
                };
                let mss = tcp.mss as u64;
                let min_segments = match workload {
                    Workload::Bulk { bytes } => bytes.0.div_ceil(mss),
                    Workload::PingPong { packets, bytes } => packets * bytes.0.div_ceil(mss),
                };
                let t = TcpFlow {
                    sender: TcpSender::new(flow, tcp, Rto::new(&tcp.rto)),
                    receiver: TcpReceiver::new(flow, tcp),
                    workload: *workload,
                    rto_slot: TimerSlot::default(),
                    delack_slot: TimerSlot::default(),
                    messages_written: 0,
                    last_ack_sent: 0,
                };
                (FlowState::Tcp(Box::new(t)), bytes, min_segments)
            }
            FlowKind::Cbr {
                rate,
                payload_bytes,
                stop,
            } => {
                let wire = *payload_bytes as u64 + 28;
                let c = CbrFlow {
                    interval: Dur::transmission(wire, rate.0),
                    payload: *payload_bytes,
                    stop: stop.map(|d| Time::ZERO + d),
                    slot: TimerSlot::default(),
                    next_send: None,
                };
                (FlowState::Cbr(c), 0, 0)
            }
        };
        let mut detectors: Vec<DetectorKind> = match &spec.kind {
            FlowKind::Tcp { tcp, .. } => {
                let s = &tcp.spurious;
                s.driver.iter().chain(&s.observe).copied().collect()
            }
            FlowKind::Cbr { .. } => Vec::new(),
        };
        if spec
            .route
            .iter()
            .any(|h| self.std_proxy_links.contains(&h.link))
        {
            detectors.push(DetectorKind::StdProxy);
        }
        let result = FlowResult {
            name: spec.name.clone(),
            start,
            bytes,
            min_segments,
            detectors,
            ..FlowResult::default()
        };
        self.flows.push(Flow {
            route: spec.route.clone(),
            state,
            result,
        });
        self.q.push(start, Event::FlowStart { flow: i as u32 });
    }

    /// Ends the run with an error after `budget` events (a guard for tests and fuzzing;
    /// by default a run has no budget, only the stall watchdog).
    pub fn with_event_budget(mut self, budget: u64) -> World {
        self.watchdog = Watchdog::new(Some(budget));
        self
    }

    /// Runs to completion and returns the results, or the first broken invariant
    /// (a stalled clock or an exhausted event budget included, see [`crate::watchdog`]).
    pub fn run(mut self) -> Result<RunResult, InvariantViolation> {
        while let Some((t, ev)) = self.q.pop() {
            if t > self.stop_at {
                break;
            }
            if let Some(bark) = self.watchdog.on_event(t) {
                return Err(self.bark(bark, ev));
            }
            self.now = t;
            self.handle(ev)?;
            if self.unfinished_tcp == 0 && self.has_tcp() {
                break;
            }
        }
        self.finish()
    }

    /// The error ending a run the watchdog stopped, naming the source of event `ev`.
    fn bark(&self, bark: Bark, ev: Event) -> InvariantViolation {
        let source = match ev {
            Event::LinkControl { link, sched } => {
                let name = &self.links[link as usize].name;
                format!("spike schedule spikes[{sched}] of link `{name}`")
            }
            Event::LinkWake { link, dir, .. } => {
                let d = if dir == 0 { "forward" } else { "reverse" };
                format!(
                    "the {d} direction of link `{}`",
                    self.links[link as usize].name
                )
            }
            Event::FlowStart { flow } | Event::Timer { flow, .. } => {
                format!("flow `{}`", self.flows[flow as usize].result.name)
            }
            Event::MiddleboxWake { mb, .. } => {
                let link = self.boxes[mb as usize].link;
                format!("the middlebox on link `{}`", self.links[link].name)
            }
        };
        let what = match bark {
            Bark::Stalled { at } => format!(
                "simulated time stopped advancing: {} events at {at}, the last from {source}",
                crate::watchdog::STALL_EVENTS
            ),
            Bark::BudgetExhausted { budget } => {
                format!("event budget of {budget} exhausted, the last event from {source}")
            }
        };
        InvariantViolation {
            time: self.now,
            what,
        }
    }

    fn has_tcp(&self) -> bool {
        self.flows
            .iter()
            .any(|f| matches!(f.state, FlowState::Tcp(_)))
    }

    fn handle(&mut self, ev: Event) -> Result<(), InvariantViolation> {
        match ev {
            Event::FlowStart { flow } => self.on_flow_start(flow as usize),
            Event::Timer { flow, timer, gen } => self.on_flow_timer(flow as usize, timer, gen),
            Event::LinkWake { link, dir, gen } => {
                self.on_link_wake(link as usize, dir as usize, gen)
            }
            Event::LinkControl { link, sched } => {
                self.on_link_control(link as usize, sched as usize);
                Ok(())
            }
            Event::MiddleboxWake { mb, gen } => self.on_box_wake(mb as usize, gen),
        }
    }

    // ----- flows -----------------------------------------------------------------

    fn on_flow_start(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        match &mut self.flows[f].state {
            FlowState::Tcp(t) => {
                t.sender.on_start(now, &mut out);
                let first = match t.workload {
                    Workload::Bulk { bytes } => bytes.0,
                    Workload::PingPong { bytes, .. } => bytes.0,
                };
                t.messages_written = 1;
                t.sender.on_app_data(now, first, &mut out);
            }
            FlowState::Cbr(c) => c.next_send = Some(now),
        }
        self.out = out;
        self.after_flow_event(f)
    }

    fn on_flow_timer(
        &mut self,
        f: usize,
        timer: FlowTimer,
        gen: u32,
    ) -> Result<(), InvariantViolation> {
        let now = self.now;
        let live = match (&mut self.flows[f].state, timer) {
            (FlowState::Tcp(t), FlowTimer::Rto) => t.rto_slot.fire(gen),
            (FlowState::Tcp(t), FlowTimer::DelayedAck) => t.delack_slot.fire(gen),
            (FlowState::Cbr(c), FlowTimer::CbrSend) => c.slot.fire(gen),
            _ => false,
        };
        if !live {
            return Ok(());
        }
        match timer {
            FlowTimer::Rto => self.on_rto(f),
            FlowTimer::DelayedAck => {
                let mut acks = std::mem::take(&mut self.out);
                if let FlowState::Tcp(t) = &mut self.flows[f].state {
                    t.receiver.on_timer(now, &mut acks);
                }
                self.out = acks;
            }
            FlowTimer::CbrSend => self.on_cbr_send(f),
        }
        self.after_flow_event(f)
    }

    fn on_rto(&mut self, f: usize) {
        let now = self.now;
        let due = match &self.flows[f].state {
            FlowState::Tcp(t) => {
                let w = t.sender.window();
                let outstanding = w.snd_una < w.snd_max || !t.sender.established();
                let runs = outstanding || t.sender.timer_runs_idle();
                runs && t.sender.next_deadline().is_some_and(|d| d <= now)
            }
            FlowState::Cbr(_) => false,
        };
        if !due {
            return;
        }
        // A Tail Loss Probe's timer (the `linux` profile) is no retransmission timeout.
        let probe = matches!(&self.flows[f].state, FlowState::Tcp(t) if t.sender.probe_armed());
        // A timer running with nothing outstanding (ns-2 FACK) retransmits nothing.
        let idle = matches!(&self.flows[f].state, FlowState::Tcp(t) if t.sender.timer_runs_idle()
            && t.sender.window().snd_una >= t.sender.window().snd_max);
        if !probe && !idle {
            self.record_timeout(f);
        }
        let mut out = std::mem::take(&mut self.out);
        if let FlowState::Tcp(t) = &mut self.flows[f].state {
            t.sender.on_timer(now, &mut out);
        }
        self.out = out;
    }

    fn on_cbr_send(&mut self, f: usize) {
        let now = self.now;
        let FlowState::Cbr(c) = &mut self.flows[f].state else {
            return;
        };
        if c.next_send.is_none_or(|t| t > now) {
            return;
        }
        if c.stop.is_some_and(|s| now >= s) {
            c.next_send = None;
            return;
        }
        let mut p = Packet::new(0, FlowId(f as u32), PacketKind::Datagram, now);
        p.len = c.payload;
        c.next_send = Some(now + c.interval);
        self.flows[f].result.bytes += p.len as u64;
        self.flows[f].result.data_segments_sent += 1;
        self.out.push(p);
    }

    /// Sends what the flow's endpoints produced, re-arms its timers, checks its
    /// invariants, and notes completion.
    fn after_flow_event(&mut self, f: usize) -> Result<(), InvariantViolation> {
        self.maybe_write_next_message(f);
        let mut out = std::mem::take(&mut self.out);
        // Packets are large: they are stamped in place and copied only into a queue.
        let mut result = Ok(());
        for p in out.iter_mut() {
            result = self.inject(f, p);
            if result.is_err() {
                break;
            }
        }
        out.clear();
        self.out = out;
        result?;
        self.sync_flow_timers(f);
        if let FlowState::Tcp(t) = &self.flows[f].state {
            self.tracer
                .on_sender_state(self.now, FlowId(f as u32), &t.sender);
        }
        self.check_flow(f)
    }

    /// Ping-pong: the next message goes out when the previous one is acknowledged.
    fn maybe_write_next_message(&mut self, f: usize) {
        let now = self.now;
        let FlowState::Tcp(t) = &mut self.flows[f].state else {
            return;
        };
        if let Workload::PingPong { packets, bytes } = t.workload {
            if t.sender.all_acked() && t.messages_written > 0 && t.messages_written < packets {
                t.messages_written += 1;
                t.sender.on_app_data(now, bytes.0, &mut self.out);
            }
        }
    }

    fn sync_flow_timers(&mut self, f: usize) {
        let q = &mut self.q;
        let id = f as u32;
        match &mut self.flows[f].state {
            FlowState::Tcp(t) => {
                let d = t.sender.next_deadline();
                t.rto_slot.want(d, |at, gen| {
                    q.push(
                        at,
                        Event::Timer {
                            flow: id,
                            timer: FlowTimer::Rto,
                            gen,
                        },
                    )
                });
                let d = t.receiver.next_deadline();
                t.delack_slot.want(d, |at, gen| {
                    q.push(
                        at,
                        Event::Timer {
                            flow: id,
                            timer: FlowTimer::DelayedAck,
                            gen,
                        },
                    )
                });
            }
            FlowState::Cbr(c) => {
                c.slot.want(c.next_send, |at, gen| {
                    q.push(
                        at,
                        Event::Timer {
                            flow: id,
                            timer: FlowTimer::CbrSend,
                            gen,
                        },
                    )
                });
            }
        }
    }

    fn check_flow(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let flow = &mut self.flows[f];
        let FlowState::Tcp(t) = &flow.state else {
            return Ok(());
        };
        t.sender
            .check_invariants()
            .map_err(|what| InvariantViolation {
                time: now,
                what: format!("flow {f}: {what}"),
            })?;
        if flow.result.completed.is_none()
            && t.sender.all_acked()
            && t.sender.app_end() == flow.result.bytes
        {
            flow.result.completed = Some(now);
            self.unfinished_tcp -= 1;
        }
        Ok(())
    }

    // ----- packets ---------------------------------------------------------------

    /// Hands a packet from an endpoint of flow `f` to the first link of its route.
    fn inject(&mut self, f: usize, p: &mut Packet) -> Result<(), InvariantViolation> {
        p.uid = self.next_uid;
        self.next_uid += 1;
        p.hop = 0;
        p.sent_at = self.now;
        p.seal();
        self.note_sent(f, p)?;
        self.forward(p)
    }

    /// Bookkeeping for a packet leaving an endpoint: traces, captures, ACK monotonicity.
    fn note_sent(&mut self, f: usize, p: &Packet) -> Result<(), InvariantViolation> {
        let flow = FlowId(f as u32);
        match p.kind {
            PacketKind::Data => {
                self.tracer.record(
                    self.now,
                    flow,
                    TraceEvent::Send {
                        seq: p.seq,
                        len: p.len,
                        retx: p.retx,
                    },
                );
            }
            PacketKind::Ack => {
                if let FlowState::Tcp(t) = &mut self.flows[f].state {
                    if p.ack < t.last_ack_sent {
                        let what = format!(
                            "flow {f}: cumulative ACK went back from {} to {}",
                            t.last_ack_sent, p.ack
                        );
                        return Err(InvariantViolation {
                            time: self.now,
                            what,
                        });
                    }
                    t.last_ack_sent = p.ack;
                }
            }
            PacketKind::Syn | PacketKind::SynAck | PacketKind::Datagram => {}
        }
        self.capture(f, p, true);
        Ok(())
    }

    /// Records `p` for pcap files as seen now by the endpoint of flow `f` that sends it
    /// (`sending`) or receives it.
    fn capture(&mut self, f: usize, p: &Packet, sending: bool) {
        if let Some(c) = &mut self.captures {
            let at = if p.kind.is_forward() == sending {
                Endpoint::Sender
            } else {
                Endpoint::Receiver
            };
            c[f].push(Captured {
                time: self.now,
                packet: *p,
                at,
            });
        }
    }

    /// The link and direction packet `p` crosses next.
    fn next_hop(&self, p: &Packet) -> Option<(usize, Dir)> {
        route::next_hop(
            &self.flows[p.flow.index()].route,
            p.kind.is_forward(),
            p.hop,
        )
    }

    /// Puts `p` on its next link, or hands it to the endpoint at the route's end.
    fn forward(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
        let Some((l, dir)) = self.next_hop(p) else {
            return self.deliver(p);
        };
        match self.box_at[l] {
            Some(b) if dir == Dir::Forward => self.through_box(b, *p),
            _ => {
                self.enter_link(l, dir, p);
                Ok(())
            }
        }
    }

    /// Offers `p` to link `l` in direction `dir` (after any deterministic drop rule).
    fn enter_link(&mut self, l: usize, dir: Dir, p: &Packet) {
        let d = dir_index(dir);
        if self.dropped_by_rule(l, p) {
            self.note_drop(l, p);
            return;
        }
        if let Some(lost) = self.links[l].dirs[d].enqueue(self.now, *p) {
            self.note_drop(l, &lost);
        }
        self.sync_link(l, d);
    }

    /// Does a deterministic [`DropRule`] remove `p` as it enters link `l`?
    fn dropped_by_rule(&self, l: usize, p: &Packet) -> bool {
        if self.drops.is_empty() {
            return false;
        }
        let FlowState::Tcp(t) = &self.flows[p.flow.index()].state else {
            return false;
        };
        let mss = t.sender.window().mss;
        self.drops.iter().any(|r| r.matches(l, p, mss, self.now))
    }

    fn sync_link(&mut self, l: usize, d: usize) {
        let q = &mut self.q;
        let link = &mut self.links[l];
        let wake = link.dirs[d].next_wakeup();
        link.wake[d].want(wake, |at, gen| {
            q.push(
                at,
                Event::LinkWake {
                    link: l as u32,
                    dir: d as u8,
                    gen,
                },
            )
        });
    }

    fn on_link_wake(&mut self, l: usize, d: usize, gen: u32) -> Result<(), InvariantViolation> {
        if !self.links[l].wake[d].fire(gen) {
            return Ok(());
        }
        let mut delivered = std::mem::take(&mut self.delivered);
        let mut dropped = std::mem::take(&mut self.dropped);
        self.links[l].dirs[d].poll(self.now, &mut delivered, &mut dropped);
        for p in dropped.drain(..) {
            self.note_drop(l, &p);
        }
        self.sync_link(l, d);
        self.check_link(l, d)?;
        self.dropped = dropped;
        let mut result = Ok(());
        for mut p in delivered.drain(..) {
            p.hop += 1;
            if result.is_ok() {
                result = match self.box_at[l] {
                    // Leaving the link in reverse: the box at its first endpoint sees it.
                    Some(b) if d == 1 => self.through_box(b, p),
                    _ => self.forward(&p),
                };
            }
        }
        self.delivered = delivered;
        result
    }

    // ----- middleboxes -------------------------------------------------------------

    fn through_box(&mut self, b: usize, p: Packet) -> Result<(), InvariantViolation> {
        let mut out = std::mem::take(&mut self.mb_out);
        self.boxes[b].mb.on_packet(self.now, p, &mut out);
        self.after_box(b, out)
    }

    fn on_box_wake(&mut self, b: usize, gen: u32) -> Result<(), InvariantViolation> {
        if !self.boxes[b].slot.fire(gen) {
            return Ok(());
        }
        let mut out = std::mem::take(&mut self.mb_out);
        self.boxes[b].mb.on_wakeup(self.now, &mut out);
        self.after_box(b, out)
    }

    /// Sends on what box `b` released, notes its verdicts, re-arms its wake-up.
    fn after_box(&mut self, b: usize, mut out: MbOutput) -> Result<(), InvariantViolation> {
        for e in &out.events {
            if let MbEventKind::Verdict { spurious } = e.kind {
                self.box_verdicts.push((e.flow.index(), e.time, spurious));
            }
        }
        let mut result = Ok(());
        for q in out.forward.drain(..) {
            if result.is_ok() {
                result = self.leave_box(b, q);
            }
        }
        out.clear();
        self.mb_out = out;
        let q = &mut self.q;
        let wake = self.boxes[b].mb.next_wakeup();
        let slot = &mut self.boxes[b].slot;
        slot.want(wake, |at, gen| {
            q.push(at, Event::MiddleboxWake { mb: b as u32, gen })
        });
        result
    }

    /// A packet continues from box `b` at the first endpoint of its link: into the link
    /// if it crosses it forward, on along its route if it just crossed it in reverse.
    fn leave_box(&mut self, b: usize, mut q: Packet) -> Result<(), InvariantViolation> {
        let l = self.boxes[b].link;
        let r = &self.flows[q.flow.index()].route;
        match route::after_box(r, l, q.kind.is_forward()) {
            None => Ok(()),
            Some(AfterBox::Enter(hop)) => {
                q.hop = hop;
                self.enter_link(l, Dir::Forward, &q);
                Ok(())
            }
            Some(AfterBox::Continue(hop)) => {
                q.hop = hop;
                self.forward(&q)
            }
        }
    }

    fn check_link(&self, l: usize, d: usize) -> Result<(), InvariantViolation> {
        let c = self.links[l].dirs[d].counters();
        if c.offered.packets != c.delivered.packets + c.dropped.packets + c.in_network.packets {
            let what = format!(
                "link {} dir {d}: offered {:?} != delivered + dropped + in network",
                self.links[l].name, c
            );
            return Err(InvariantViolation {
                time: self.now,
                what,
            });
        }
        Ok(())
    }

    fn note_drop(&mut self, l: usize, p: &Packet) {
        let is_ack = !p.kind.is_forward();
        let ev = TraceEvent::Drop {
            seq: if is_ack { p.ack } else { p.seq },
            len: p.len,
            is_ack,
            link: l as u32,
        };
        self.tracer.record(self.now, p.flow, ev);
    }

    /// A packet reached the end of its route.
    fn deliver(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
        let f = p.flow.index();
        self.capture(f, p, false);
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let flow = &mut self.flows[f];
        match (&mut flow.state, p.kind) {
            (FlowState::Tcp(t), PacketKind::Data) => {
                self.data_packets_delivered += 1;
                flow.result.delivered += 1;
                let o = t.receiver.on_data(now, p, &mut out);
                if p.retx && o.duplicate {
                    flow.result.unnecessary_retransmissions += 1;
                }
                self.tracer.record(
                    now,
                    p.flow,
                    TraceEvent::Deliver {
                        seq: p.seq,
                        len: p.len,
                    },
                );
            }
            (FlowState::Tcp(t), PacketKind::Syn) => t.receiver.on_syn(now, p, &mut out),
            (FlowState::Tcp(t), PacketKind::Ack | PacketKind::SynAck) => {
                let info = t.sender.on_ack(now, p, &mut out);
                if let Some(rtt) = info.rtt_sample.filter(|_| self.record_rto) {
                    let rto = t.sender.current_rto();
                    flow.result.rto_samples.push(RtoSample {
                        time: now,
                        rtt,
                        rto,
                    });
                }
                self.tracer.on_ack(now, p.flow, p, &info);
            }
            (FlowState::Cbr(_), PacketKind::Datagram) => flow.result.delivered += 1,
            _ => {}
        }
        self.out = out;
        self.after_flow_event(f)
    }

    // ----- ground truth ------------------------------------------------------------

    /// Classifies the timeout about to fire for flow `f` against the network's state.
    fn record_timeout(&mut self, f: usize) {
        let FlowState::Tcp(t) = &self.flows[f].state else {
            return;
        };
        if !t.sender.established() {
            self.flows[f].result.syn_timeouts += 1;
            return;
        }
        let una = t.sender.window().snd_una;
        let fid = FlowId(f as u32);
        let data_alive = self.any_in_network(f, |p| {
            p.flow == fid && p.kind == PacketKind::Data && p.seq <= una && una < p.end_seq()
        });
        let truth = if t.receiver.holds(una) {
            let ack_alive = t.receiver.ack_pending()
                || self.any_in_network(f, |p| {
                    p.flow == fid && p.kind == PacketKind::Ack && p.ack > una
                });
            if ack_alive {
                Truth::SpuriousAckDelayed
            } else {
                Truth::GenuineAckLost
            }
        } else if data_alive {
            Truth::SpuriousDataDelayed
        } else {
            Truth::GenuineDataLost
        };
        let rec = TimeoutRecord {
            time: self.now,
            flow: f as u32,
            seq: una,
            rto: t.sender.armed_rto(),
            last_rtt: t.sender.last_rtt(),
            backoff: t.sender.consecutive_timeouts(),
            truth,
            in_fast_recovery: matches!(t.sender.phase(), Phase::Recovery { .. }),
            fast: false,
            verdicts: Vec::new(),
        };
        let r = &mut self.flows[f].result;
        r.timeouts += 1;
        if truth.is_spurious() {
            r.spurious_timeouts += 1;
        } else {
            r.genuine_timeouts += 1;
        }
        if rec.starts_episode() {
            r.timeout_episodes += 1;
            if truth.is_spurious() {
                r.spurious_timeout_episodes += 1;
            } else {
                r.genuine_timeout_episodes += 1;
            }
        }
        self.tracer.record(
            self.now,
            fid,
            TraceEvent::Timeout {
                seq: una,
                spurious: truth.is_spurious(),
            },
        );
        self.timeouts.push(rec);
    }

    fn any_in_network(&self, f: usize, pred: impl Fn(&Packet) -> bool) -> bool {
        let mut found = false;
        for hop in &self.flows[f].route {
            for dir in &self.links[hop.link].dirs {
                dir.for_each_in_network(|p| found |= pred(p));
            }
            if let Some(b) = self.box_at[hop.link] {
                self.boxes[b].mb.for_each_held(&mut |p| found |= pred(p));
            }
        }
        found
    }

    // ----- path events -------------------------------------------------------------

    /// Asks schedule `s` of link `l` for its next control and queues it.
    fn schedule_next_control(&mut self, l: usize, s: usize) {
        let run = &mut self.links[l].spikes[s];
        let next = run.schedule.next(&mut run.rng);
        run.pending = next.map(|(_, c)| c);
        if let Some((t, _)) = next {
            self.q.push(
                t.max(self.now),
                Event::LinkControl {
                    link: l as u32,
                    sched: s as u32,
                },
            );
        }
    }

    fn on_link_control(&mut self, l: usize, s: usize) {
        let Some(control) = self.links[l].spikes[s].pending.take() else {
            return;
        };
        let now = self.now;
        for d in [Dir::Forward, Dir::Reverse] {
            let i = dir_index(d);
            let dir = &mut self.links[l].dirs[i];
            let thaw_drops = match control {
                LinkControl::Suspend(ds, mode) if ds.includes(d) => {
                    dir.suspend(now, mode);
                    Vec::new()
                }
                LinkControl::Resume(ds) if ds.includes(d) => dir.resume(now),
                LinkControl::SetRate(ds, rate) if ds.includes(d) => {
                    dir.set_rate(now, rate);
                    Vec::new()
                }
                _ => continue,
            };
            for p in &thaw_drops {
                self.note_drop(l, p);
            }
            self.sync_link(l, i);
        }
        let start = matches!(control, LinkControl::Suspend(..));
        if matches!(control, LinkControl::Suspend(..) | LinkControl::Resume(_)) {
            self.tracer.record(
                now,
                FlowId(0),
                TraceEvent::Spike {
                    start,
                    link: l as u32,
                },
            );
        }
        self.schedule_next_control(l, s);
    }

    // ----- results -----------------------------------------------------------------

    fn finish(self) -> Result<RunResult, InvariantViolation> {
        let mut links = Vec::new();
        for (l, link) in self.links.iter().enumerate() {
            for (d, name) in [(0, "forward"), (1, "reverse")] {
                self.check_link(l, d)?;
                let c = link.dirs[d].counters();
                links.push(LinkResult {
                    name: link.name.clone(),
                    dir: name,
                    offered: c.offered.packets,
                    delivered: c.delivered.packets,
                    dropped: c.dropped.packets,
                    in_network: c.in_network.packets,
                });
            }
        }
        let mut timeouts = self.timeouts;
        attach_verdicts(&self.flows, &mut timeouts);
        attach_box_verdicts(&self.box_verdicts, &mut timeouts);
        let flows = self.flows.into_iter().map(finish_flow).collect();
        Ok(RunResult {
            seed: self.seed,
            end: self.now,
            flows,
            timeouts,
            links,
            events: self.q.popped(),
            data_packets_delivered: self.data_packets_delivered,
            trace: self.tracer.into_records(),
            captures: self.captures.unwrap_or_default(),
        })
    }
}

fn finish_flow(f: Flow) -> FlowResult {
    let mut r = f.result;
    if let FlowState::Tcp(t) = &f.state {
        let s = t.sender.stats();
        r.data_segments_sent = s.data_segments_sent;
        r.retransmissions = s.retransmissions;
        r.fast_retransmits = s.fast_retransmits;
        r.spurious_responses = s.spurious_responses;
    }
    r
}

/// Gives the STD proxies' verdicts to the timeouts they judged: each verdict covers the
/// flow's timeouts since its previous verdict.
fn attach_box_verdicts(verdicts: &[(usize, Time, bool)], records: &mut [TimeoutRecord]) {
    for &(f, at, spurious) in verdicts {
        let verdict = if spurious {
            Verdict::Spurious
        } else {
            Verdict::Genuine
        };
        let judged = |r: &&mut TimeoutRecord| {
            r.verdicts
                .iter()
                .any(|v| v.detector == DetectorKind::StdProxy)
        };
        for rec in records
            .iter_mut()
            .filter(|r| r.flow as usize == f && r.time <= at)
        {
            if !judged(&rec) {
                rec.verdicts.push(DetectorVerdict {
                    detector: DetectorKind::StdProxy,
                    verdict,
                    at,
                    drove: false,
                });
            }
        }
    }
}

/// Gives each timeout record the verdicts its sender's detectors reached on it. The
/// sender numbers its data timeouts 0, 1, ... in the same order as the records.
fn attach_verdicts(flows: &[Flow], records: &mut [TimeoutRecord]) {
    for (f, flow) in flows.iter().enumerate() {
        let FlowState::Tcp(t) = &flow.state else {
            continue;
        };
        let mine: Vec<&mut TimeoutRecord> = records
            .iter_mut()
            .filter(|r| r.flow as usize == f)
            .collect();
        let mut mine = mine;
        for &k in t.sender.fast_timeouts() {
            if let Some(rec) = mine.get_mut(k as usize) {
                rec.fast = true;
            }
        }
        for v in t.sender.verdicts() {
            for k in v.from_timeout..=v.to_timeout {
                if let Some(rec) = mine.get_mut(k as usize) {
                    rec.verdicts.push(DetectorVerdict {
                        detector: v.detector,
                        verdict: v.verdict,
                        at: v.at,
                        drove: v.drove,
                    });
                }
            }
        }
    }
}

fn build_link(cfg: &spikelab_net::LinkConfig, i: usize, streams: &RngStreams) -> LinkState {
    let spikes = route::spike_schedules(cfg, i, streams)
        .into_iter()
        .map(|(schedule, rng)| SpikeRun {
            schedule,
            rng,
            pending: None,
        })
        .collect();
    LinkState {
        name: cfg.name.clone(),
        dirs: route::link_dirs(cfg, i, streams),
        wake: [TimerSlot::default(); 2],
        spikes,
    }
}
