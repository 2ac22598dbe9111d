//! Per-flow state of the STD proxy and its state machine ([Kim & Cho 2003] III.A-D).
//!
//! ```text
//!            unanticipated retransmission (III.A)
//!   Normal ─────────────────────────────────────► Investigating
//!     ▲  ▲                                          │ first delayed ACK starts T (III.B)
//!     │  └──── T expires: genuine (III.B) ──────────┤
//!     │                                             │ new ACK before T: spurious
//!     │                                             ▼
//!     │                                         Responding: buffer, release, local
//!     │                                             │       retransmission (III.B)
//!     │                                             │ full ACK
//!     │   count removed, or a new ACK               ▼
//!     └──────────────────────────────────────── RemovingDupAcks (III.D)
//! ```
//!
//! A new timeout (an unanticipated retransmission that goes back below the highest
//! retransmission of the episode) while responding or removing starts a new episode.

use super::ack_clock::AckClock;
use super::ack_clock::Period;
use super::buffer::RetxBuffer;
use super::wrtt::{self, Wrtt};
use super::StdProxyConfig;
use crate::middlebox::{MbEventKind, MbOutput};
use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time};

/// Where a flow is in the STD algorithm ([Kim & Cho 2003] III).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdPhase {
    /// No timeout under way.
    Normal,
    /// A timeout was detected (III.A); the verdict is pending (III.B).
    Investigating,
    /// The timeout was spurious: retransmissions are buffered (III.B).
    Responding,
    /// The full ACK arrived: duplicate ACKs are removed (III.D).
    RemovingDupAcks,
}

/// A snapshot of the proxy's state for one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowView {
    /// One past the highest data byte seen (footnote 1).
    pub max_seq_end: u64,
    /// The highest cumulative ACK seen (footnote 2).
    pub acked_seq: u64,
    /// Consecutive duplicates of `acked_seq` seen.
    pub dupacks: u32,
    /// Where the flow is in the algorithm.
    pub phase: StdPhase,
    /// max_seq_end copied at the spurious verdict, while responding.
    pub sp_tout_max_seq_end: Option<u64>,
    /// Segments in the retransmission buffer.
    pub buffered: usize,
    /// The average ACK inter-arrival time (III.C).
    pub ack_interarrival: Option<Dur>,
    /// Which filter samples the next ACK (III.C).
    pub period: Period,
    /// The measured wRTT (III.C).
    pub wrtt: Option<Dur>,
}

/// What a box call needs besides the flow: the time, the parameters, the output.
pub(super) struct Io<'a> {
    pub now: Time,
    pub flow: FlowId,
    pub cfg: &'a StdProxyConfig,
    pub out: &'a mut MbOutput,
}

impl Io<'_> {
    /// A packet the proxy held (or a copy of one) continues.
    fn forward(&mut self, pkt: Packet) {
        self.out.forward.push(pkt);
    }
    /// The packet just received continues unchanged.
    fn pass(&mut self) {
        self.out.pass();
    }
    fn event(&mut self, kind: MbEventKind) {
        self.out.event(self.now, self.flow, kind);
    }
}

/// A run of retransmissions the proxy expects: the recovery a fast retransmission opens
/// (NewReno partial ACKs, SACK), or the rest of a go-back-N after an episode ended.
/// Retransmissions that go forward from `retx_high` and stay below `point` belong to it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Recovery {
    /// max_seq_end when the run started.
    point: u64,
    /// Highest end of a retransmission in this run.
    retx_high: u64,
    /// The run is the go-back-N of a spurious timeout: its retransmissions of data the
    /// receiver acknowledged are unnecessary (III.B, IV: "These segments are filtered").
    after_spurious: bool,
    /// The cumulative ACK whose duplicates anticipated the fast retransmission that
    /// started the run (None for a run started otherwise).
    dup_series: Option<u64>,
}

/// A retransmission the response acts on: the one just received (which continues in
/// place when forwarded) or one held while the verdict was pending.
#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Received(&'a Packet),
    Held(Packet),
}

impl Seg<'_> {
    fn packet(&self) -> &Packet {
        match self {
            Seg::Received(p) => p,
            Seg::Held(p) => p,
        }
    }
}

/// What the proxy makes of a retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anticipation {
    /// Not announced by duplicate ACKs nor part of an expected run: a timeout (III.A).
    Unanticipated,
    /// A fast retransmission or part of an expected run.
    Expected,
    /// Part of a spurious timeout's go-back-N, of data already acknowledged.
    Unneeded,
}

/// A detected timeout awaiting its verdict.
#[derive(Clone, Debug, PartialEq)]
struct Investigation {
    /// max_seq_end when the timeout was detected: the go-back-N's extent.
    point: u64,
    /// Highest end of a retransmission of this episode.
    retx_high: u64,
    /// Retransmissions of this episode forwarded to the receiver.
    forwarded: u32,
    /// Further retransmissions held until the verdict.
    held: Vec<Packet>,
    /// Started by the first delayed ACK: the deadline.
    deadline: Option<Time>,
}

/// A spurious timeout being responded to.
#[derive(Clone, Debug, PartialEq)]
struct Response {
    sp_tout_max_seq_end: u64,
    retx_high: u64,
    forwarded: u32,
    buffer: RetxBuffer,
    /// The hole (acked_seq) already retransmitted locally: once per hole.
    local_retx_for: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Normal,
    Investigating(Investigation),
    Responding(Response),
    RemovingDupAcks { remaining: u32 },
}

/// How an ACK relates to what the proxy has seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckClass {
    /// Advances acked_seq.
    New,
    /// Repeats acked_seq.
    Dup,
    /// Below acked_seq (reordered).
    Old,
}

/// Everything the proxy knows about one flow (III: "PEP maintains per flow state").
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Flow {
    /// "the maximum DATA sequence number which traversed PEP" (footnote 1), as one past
    /// the last byte.
    max_seq_end: u64,
    /// "the maximum ACK sequence number that traversed PEP" (footnote 2).
    acked_seq: u64,
    seen_ack: bool,
    /// Consecutive duplicates of acked_seq.
    dupacks: u32,
    recovery: Option<Recovery>,
    clock: AckClock,
    wrtt: Wrtt,
    phase: Phase,
}

impl Default for Flow {
    fn default() -> Self {
        Flow {
            max_seq_end: 0,
            acked_seq: 0,
            seen_ack: false,
            dupacks: 0,
            recovery: None,
            clock: AckClock::default(),
            wrtt: Wrtt::default(),
            phase: Phase::Normal,
        }
    }
}

impl Flow {
    /// What the proxy knows of this flow, for traces and tests.
    pub fn view(&self) -> FlowView {
        FlowView {
            max_seq_end: self.max_seq_end,
            acked_seq: self.acked_seq,
            dupacks: self.dupacks,
            phase: match &self.phase {
                Phase::Normal => StdPhase::Normal,
                Phase::Investigating(_) => StdPhase::Investigating,
                Phase::Responding(_) => StdPhase::Responding,
                Phase::RemovingDupAcks { .. } => StdPhase::RemovingDupAcks,
            },
            sp_tout_max_seq_end: match &self.phase {
                Phase::Responding(r) => Some(r.sp_tout_max_seq_end),
                _ => None,
            },
            buffered: match &self.phase {
                Phase::Responding(r) => r.buffer.len(),
                _ => 0,
            },
            ack_interarrival: self.clock.average(),
            period: self.clock.period(),
            wrtt: self.wrtt.value_measured(),
        }
    }

    /// A packet of this flow reached the proxy.
    pub fn on_packet(&mut self, io: &mut Io, pkt: &Packet) {
        self.expire(io);
        match pkt.kind {
            PacketKind::Data if pkt.len > 0 => self.on_data(io, pkt),
            PacketKind::Ack => self.on_ack(io, pkt),
            _ => io.pass(),
        }
    }

    /// When the verdict timer expires, if it runs.
    pub fn deadline(&self) -> Option<Time> {
        match &self.phase {
            Phase::Investigating(inv) => inv.deadline,
            _ => None,
        }
    }

    /// Every packet the proxy holds for this flow.
    pub fn for_each_held(&self, f: &mut dyn FnMut(&Packet)) {
        match &self.phase {
            Phase::Investigating(inv) => inv.held.iter().for_each(f),
            Phase::Responding(r) => r.buffer.iter().for_each(f),
            _ => {}
        }
    }

    /// III.B: "Otherwise [no new ACK before the timer expires], the new ACK is treated as
    /// a response to a retransmission and therefore the STD algorithm stops
    /// investigating." The held retransmissions continue.
    ///
    /// The test is inlined and the expiry out of line: asked at every packet and
    /// wake-up, it is almost always false.
    #[inline]
    pub fn expire(&mut self, io: &mut Io) {
        if self.deadline().is_none_or(|d| d > io.now) {
            return;
        }
        self.expire_now(io);
    }

    /// [`Self::expire`] once the timer T has run out.
    #[inline(never)]
    fn expire_now(&mut self, io: &mut Io) {
        if let Phase::Investigating(inv) = std::mem::replace(&mut self.phase, Phase::Normal) {
            io.event(MbEventKind::Verdict { spurious: false });
            self.expect_run(inv.point, inv.retx_high, false, None);
            inv.held.into_iter().for_each(|p| io.forward(p));
        }
        self.clock.leave_std();
    }

    fn on_data(&mut self, io: &mut Io, pkt: &Packet) {
        // III.A: "By comparing the sequence numbers of the received DATA, PEP can
        // categorize a received segment as new transmission or retransmission."
        if pkt.seq >= self.max_seq_end {
            self.max_seq_end = pkt.end_seq();
            self.wrtt.on_new_data(io.now, pkt.end_seq());
            return io.pass();
        }
        self.max_seq_end = self.max_seq_end.max(pkt.end_seq());
        let anticipation = self.anticipate(pkt, io.cfg);
        self.on_retransmission(io, pkt, anticipation);
    }

    /// III.A: "A data segment retransmitted by fast retransmission can be anticipated
    /// easily because it follows 3 duplicate acknowledgements." Within the run a fast
    /// retransmission or an ended episode starts, retransmissions that go forward are
    /// expected too; one that goes back is not.
    fn anticipate(&mut self, pkt: &Packet, cfg: &StdProxyConfig) -> Anticipation {
        let in_run = |r: &Recovery| pkt.seq >= r.retx_high && pkt.seq < r.point;
        if let Some(r) = self.recovery.as_mut().filter(|r| in_run(r)) {
            r.retx_high = pkt.end_seq();
            if r.after_spurious && pkt.end_seq() <= self.acked_seq {
                return Anticipation::Unneeded;
            }
            return Anticipation::Expected;
        }
        if self.dupacks >= cfg.dup_ack_thresh && !self.repeats_fast_retransmit(pkt) {
            let series = Some(self.acked_seq);
            self.expect_run(self.max_seq_end, pkt.end_seq(), false, series);
            return Anticipation::Expected;
        }
        Anticipation::Unanticipated
    }

    /// One series of duplicate ACKs anticipates one fast retransmission (III.A): a
    /// segment sent again below the run that retransmission started, with no new ACK
    /// since, comes from a timeout ("If the delay is large, multiple timeouts can
    /// occur", III.D), not from another fast retransmission.
    fn repeats_fast_retransmit(&self, pkt: &Packet) -> bool {
        self.recovery
            .as_ref()
            .is_some_and(|r| r.dup_series == Some(self.acked_seq) && pkt.seq < r.retx_high)
    }

    /// Retransmissions forward from `retx_high` up to `point` are expected
    /// (`dup_series`: [`Recovery::dup_series`]).
    fn expect_run(
        &mut self,
        point: u64,
        retx_high: u64,
        after_spurious: bool,
        dup_series: Option<u64>,
    ) {
        self.recovery = Some(Recovery {
            point,
            retx_high,
            after_spurious,
            dup_series,
        });
    }

    /// The retransmission `pkt` was just received.
    fn on_retransmission(&mut self, io: &mut Io, pkt: &Packet, a: Anticipation) {
        let anticipated = a != Anticipation::Unanticipated;
        match &mut self.phase {
            _ if a == Anticipation::Unneeded => {
                io.event(MbEventKind::Discarded { seq: pkt.seq });
            }
            Phase::Normal | Phase::RemovingDupAcks { .. } if anticipated => io.pass(),
            Phase::Normal | Phase::RemovingDupAcks { .. } => self.start_episode(io, pkt),
            Phase::Investigating(inv) if !anticipated && pkt.seq < inv.retx_high => {
                // "If the delay is large, multiple timeouts can occur" (III.D).
                inv.forwarded += 1;
                io.event(MbEventKind::TimeoutDetected {
                    seq: pkt.seq,
                    repeat: true,
                });
                io.pass();
            }
            Phase::Investigating(inv) => {
                inv.retx_high = inv.retx_high.max(pkt.end_seq());
                io.event(MbEventKind::HeldPendingVerdict { seq: pkt.seq });
                inv.held.push(*pkt);
            }
            Phase::Responding(r) if !anticipated && pkt.seq < r.retx_high => {
                self.start_episode(io, pkt)
            }
            Phase::Responding(r) => {
                r.on_retransmission(io, Seg::Received(pkt), self.acked_seq, self.dupacks)
            }
        }
    }

    /// III.A: "PEP detects timeout by unanticipated retransmission." The retransmission
    /// itself (just received) continues: the verdict is not known yet.
    fn start_episode(&mut self, io: &mut Io, pkt: &Packet) {
        io.event(MbEventKind::TimeoutDetected {
            seq: pkt.seq,
            repeat: false,
        });
        self.phase = Phase::Investigating(Investigation {
            point: self.max_seq_end,
            retx_high: pkt.end_seq(),
            forwarded: 1,
            held: Vec::new(),
            deadline: None,
        });
        self.recovery = None;
        self.clock.enter_std();
        self.wrtt.on_timeout();
        io.pass();
    }

    fn classify(&self, ack: u64) -> AckClass {
        if !self.seen_ack || ack > self.acked_seq {
            AckClass::New
        } else if ack == self.acked_seq {
            AckClass::Dup
        } else {
            AckClass::Old
        }
    }

    fn on_ack(&mut self, io: &mut Io, pkt: &Packet) {
        // X_th of the wRTT before this ACK's sample, computed only where it is read.
        let (wrtt, cfg) = (self.wrtt.value(io.cfg), io.cfg);
        let x_th = move || wrtt::x_th_of(wrtt, cfg);
        self.wrtt.on_ack(io.now, pkt.ack, io.cfg);
        let class = self.classify(pkt.ack);
        // III.C: "Whenever PEP receives an ACK, it samples the inter-arrival time". The
        // sample is taken after the ACK's own decisions, which use T as it was.
        if self.remove_dup_ack(io, pkt, class) {
            return self.clock.on_ack(io.now, io.cfg, x_th);
        }
        let removing = matches!(self.phase, Phase::RemovingDupAcks { .. });
        self.count_ack(class, pkt.ack);
        self.investigate(io, class, x_th);
        self.respond_to_ack(io, class);
        if removing && class == AckClass::New {
            self.end_std();
        }
        self.clock.on_ack(io.now, io.cfg, x_th);
        io.pass();
    }

    fn count_ack(&mut self, class: AckClass, ack: u64) {
        match class {
            AckClass::New => {
                self.seen_ack = true;
                self.acked_seq = ack;
                self.dupacks = 0;
            }
            AckClass::Dup => self.dupacks += 1,
            AckClass::Old => {}
        }
    }

    /// III.B: "the arrival of first delayed ACK initiates the process of investigating
    /// whether the timeout is spurious or not ... PEP sets a timer, which expires in time
    /// T ... If the new ACK arrives before timer expires, it indicates that the timeout
    /// was spurious."
    fn investigate(&mut self, io: &mut Io, class: AckClass, x_th: impl FnOnce() -> Option<Dur>) {
        let Phase::Investigating(inv) = &mut self.phase else {
            return;
        };
        if inv.deadline.is_none() {
            let t = self.clock.timer(io.cfg, x_th);
            inv.deadline = Some(io.now + t);
            return io.event(MbEventKind::TimerStarted { t });
        }
        if class == AckClass::New {
            self.on_spurious(io);
        }
    }

    /// III.B: "When spurious timeout is detected, PEP copies the value of max_seq_end to
    /// variable sp_tout_max_seq_end." Retransmissions held so far go through the
    /// response's rules.
    fn on_spurious(&mut self, io: &mut Io) {
        let Phase::Investigating(inv) = std::mem::replace(&mut self.phase, Phase::Normal) else {
            return;
        };
        io.event(MbEventKind::Verdict { spurious: true });
        let mut r = Response {
            sp_tout_max_seq_end: self.max_seq_end,
            retx_high: inv.retx_high,
            forwarded: inv.forwarded,
            buffer: RetxBuffer::default(),
            local_retx_for: None,
        };
        for p in inv.held {
            r.on_retransmission(io, Seg::Held(p), self.acked_seq, self.dupacks);
        }
        self.phase = Phase::Responding(r);
    }

    fn respond_to_ack(&mut self, io: &mut Io, class: AckClass) {
        let Phase::Responding(r) = &mut self.phase else {
            return;
        };
        match class {
            AckClass::New => {
                let count = r.buffer.release_acked(self.acked_seq);
                if count > 0 {
                    let ack = self.acked_seq;
                    io.event(MbEventKind::Released { ack, count });
                }
                if self.acked_seq >= r.sp_tout_max_seq_end {
                    self.on_full_ack(io);
                }
            }
            AckClass::Dup => r.local_retransmit(io, self.acked_seq, self.dupacks),
            AckClass::Old => {}
        }
    }

    /// III.B: "ACK with sequence number larger than sp_tout_max_seq_end is called a full
    /// ACK ... When full ACK is received, PEP performs a duplicate ACK removal as a next
    /// step."
    fn on_full_ack(&mut self, io: &mut Io) {
        let Phase::Responding(r) = &self.phase else {
            return;
        };
        let to_remove = if io.cfg.remove_dup_acks {
            r.forwarded
        } else {
            0
        };
        io.event(MbEventKind::FullAck {
            ack: self.acked_seq,
            to_remove,
        });
        let (point, retx_high) = (r.sp_tout_max_seq_end, r.retx_high);
        self.expect_run(point, retx_high, true, None);
        self.phase = Phase::RemovingDupAcks {
            remaining: to_remove,
        };
        if to_remove == 0 {
            self.end_std();
        }
    }

    /// III.D: "PEP removes incoming duplicate ACKs that are triggered from retransmission
    /// timeout." Returns whether the ACK was removed.
    fn remove_dup_ack(&mut self, io: &mut Io, pkt: &Packet, class: AckClass) -> bool {
        let Phase::RemovingDupAcks { remaining } = &mut self.phase else {
            return false;
        };
        if class != AckClass::Dup {
            return false;
        }
        *remaining -= 1;
        let done = *remaining == 0;
        io.event(MbEventKind::AckRemoved { ack: pkt.ack });
        if done {
            self.end_std();
        }
        true
    }

    fn end_std(&mut self) {
        self.phase = Phase::Normal;
        self.clock.leave_std();
    }
}

impl Response {
    /// III.B: "DATAs with sequence number larger than acked_seq but less than
    /// sp_tout_max_seq_end are stored temporarily in PEP ... However DATAs with sequence
    /// number larger than sp_tout_max_seq_end are forwarded". Retransmissions of data
    /// already acknowledged are absorbed: the receiver has them.
    fn on_retransmission(&mut self, io: &mut Io, seg: Seg, acked_seq: u64, dupacks: u32) {
        let pkt = seg.packet();
        self.retx_high = self.retx_high.max(pkt.end_seq());
        if pkt.end_seq() <= acked_seq {
            io.event(MbEventKind::Discarded { seq: pkt.seq });
        } else if pkt.seq < self.sp_tout_max_seq_end {
            io.event(MbEventKind::Buffered { seq: pkt.seq });
            self.buffer.store(*pkt);
            self.local_retransmit(io, acked_seq, dupacks);
        } else {
            match seg {
                Seg::Received(_) => io.pass(),
                Seg::Held(p) => io.forward(p),
            }
        }
    }

    /// III.B: "PEP locally retransmits buffered DATA which is requested by duplicate ACKs
    /// if the number of received duplicate ACK reaches dup_ack_thresh." Once per hole;
    /// also when the requested segment is buffered after the duplicates arrived.
    fn local_retransmit(&mut self, io: &mut Io, acked_seq: u64, dupacks: u32) {
        if dupacks < io.cfg.dup_ack_thresh || self.local_retx_for == Some(acked_seq) {
            return;
        }
        if let Some(p) = self.buffer.covering(acked_seq).copied() {
            self.local_retx_for = Some(acked_seq);
            io.event(MbEventKind::LocalRetransmit { seq: p.seq });
            io.forward(p);
        }
    }
}
