//! Middleboxes: sans-I/O boxes that sit at one point of a path (e.g. the base station in
//! front of the wireless link), see every packet of every flow crossing that point in
//! both directions, and decide what continues.
//!
//! * [`std_proxy`]: the STD proxy of [Kim & Cho 2003] section III (spurious-timeout
//!   detection at a PEP, buffering of go-back-N retransmissions, local retransmission,
//!   duplicate-ACK removal).
//! * [`delay_injection`]: the delay jitter algorithm of [Klein et al. 2004] section III
//!   (FTFD, RTFD, RTRD).
//!
//! # Hosting a box (what the engine does)
//!
//! 1. Build it once per run with [`Mb::new`] from a [`MiddleboxConfig`] and its own RNG
//!    stream.
//! 2. Every packet that reaches the box's position is handed to
//!    [`Middlebox::on_packet`] instead of continuing. Everything the box pushes into
//!    [`MbOutput::forward`] continues in its own natural direction
//!    ([`PacketKind::is_forward`](spikelab_core::PacketKind::is_forward): data towards
//!    the receiver, ACKs towards the sender), in push order, from the box's position at
//!    `now`; the packet handed in continues unchanged, at its place in that order, when
//!    the box calls [`MbOutput::pass`] (the engine then moves it on without copying it;
//!    [`Middlebox::on_owned_packet`] puts it into [`MbOutput::forward`] instead, for
//!    hosts that hold packets by value). A packet neither pushed nor passed is absorbed
//!    by the box (the engine counts it as such; it may come back later from a wake-up,
//!    or never).
//! 3. After every call, the engine (re)schedules a wake-up at [`Middlebox::next_wakeup`]
//!    (if any) and calls [`Middlebox::on_wakeup`] then; a stale wake-up is harmless
//!    (the box checks its own deadlines). Packets pushed by a wake-up continue as above.
//! 4. Packets created by the box (local retransmissions) are copies of packets it saw,
//!    all fields kept, `uid` included: the engine re-assigns uids to them.
//! 5. For ground truth ("is the timed-out segment still alive?") the engine also
//!    counts every packet reported by [`Middlebox::for_each_held`] as alive.
//! 6. [`MbOutput::events`] are the box's decisions, for traces and metrics; the engine
//!    drains them after each call ([`MbOutput::clear`] empties both vectors).

#![warn(missing_docs)]

pub mod delay_injection;
pub mod std_proxy;

pub use delay_injection::{
    DelayInjectionConfig, DelayInjector, InjectDirection, InjectionMethod, InjectionOrder,
    Injector, Selection,
};
pub use std_proxy::{StdProxy, StdProxyConfig};

use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{Bounded, Check, FieldPath};
use spikelab_core::{Dur, FlowId, Packet, SimRng, Time};

/// The interface between a middlebox and the engine that hosts it (see the module docs).
pub trait Middlebox {
    /// A packet reaches the box. Push what continues on its way (possibly nothing,
    /// possibly other packets: buffered segments released, local retransmissions) into
    /// `out.forward`, and call [`MbOutput::pass`] where `pkt` itself continues
    /// unchanged; each packet continues in its own natural direction (data towards the
    /// receiver, ACKs towards the sender).
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut MbOutput);
    /// [`Self::on_packet`] for a host holding the packet by value: a passed packet is
    /// put into `out.forward` at its place.
    fn on_owned_packet(&mut self, now: Time, pkt: Packet, out: &mut MbOutput) {
        self.on_packet(now, &pkt, out);
        out.resolve_pass(pkt);
    }
    /// Earliest time the box needs [`Middlebox::on_wakeup`] (a timer, a held packet due).
    fn next_wakeup(&self) -> Option<Time>;
    /// The time given by [`Middlebox::next_wakeup`] has come: fire what is due.
    fn on_wakeup(&mut self, now: Time, out: &mut MbOutput);
    /// Every packet the box currently holds (ground truth: held packets are still
    /// "alive").
    fn for_each_held(&self, f: &mut dyn FnMut(&Packet));
    /// The spurious-timeout detector this box runs, by its registered name (a
    /// `network` detector of `spikelab_tcp::spurious`), if any. The engine scores the
    /// box's [`MbEventKind::Verdict`]s under that name for every flow crossing it.
    fn detector(&self) -> Option<&'static str> {
        None
    }
}

/// What a box call produced: packets that continue, and the decisions taken.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MbOutput {
    /// Packets continuing from the box, in order.
    pub forward: Vec<Packet>,
    /// Decisions, in the order they were taken.
    pub events: Vec<MbEvent>,
    /// Where among `forward` the packet handed to [`Middlebox::on_packet`] continues
    /// unchanged ([`Self::pass`]): before `forward[i]`, or last when `i` is its length.
    passed: Option<usize>,
}

impl MbOutput {
    /// An empty output.
    pub fn new() -> MbOutput {
        MbOutput::default()
    }

    /// Empties both vectors (keeping their allocations) and forgets a pass.
    pub fn clear(&mut self) {
        self.forward.clear();
        self.events.clear();
        self.passed = None;
    }

    /// The packet handed to [`Middlebox::on_packet`] continues unchanged, after the
    /// packets pushed so far. At most once per call.
    pub fn pass(&mut self) {
        debug_assert!(self.passed.is_none(), "a packet passed twice");
        self.passed = Some(self.forward.len());
    }

    /// Where the packet handed in continues among [`Self::forward`] (see
    /// [`Self::pass`]), forgetting it; `None` if the box did not pass it.
    pub fn take_pass(&mut self) -> Option<usize> {
        self.passed.take()
    }

    /// Did the box only pass the packet handed in: no packet of its own released, no
    /// decision taken?
    pub fn only_passed(&self) -> bool {
        self.passed.is_some() && self.forward.is_empty() && self.events.is_empty()
    }

    /// Puts a passed `pkt` into [`Self::forward`] at its place.
    pub fn resolve_pass(&mut self, pkt: Packet) {
        if let Some(i) = self.passed.take() {
            self.forward.insert(i, pkt);
        }
    }

    /// Records a decision.
    pub fn event(&mut self, time: Time, flow: FlowId, kind: MbEventKind) {
        self.events.push(MbEvent { time, flow, kind });
    }
}

/// One decision of a box, for traces and metrics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MbEvent {
    /// When it was taken.
    pub time: Time,
    /// The flow it concerns.
    pub flow: FlowId,
    /// What was decided.
    pub kind: MbEventKind,
}

/// The decisions boxes report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MbEventKind {
    /// STD ([Kim & Cho 2003] III.A): an unanticipated retransmission of `seq` revealed a
    /// timeout at the sender. `repeat` is true for a further timeout of the same episode
    /// (a backed-off retransmission before the verdict).
    TimeoutDetected {
        /// First byte of the retransmitted segment.
        seq: u64,
        /// A further timeout within an episode already under investigation.
        repeat: bool,
    },
    /// STD (III.B, III.C): the first delayed ACK after a timeout started the timer T.
    TimerStarted {
        /// The timer value T = G * average ACK inter-arrival time.
        t: Dur,
    },
    /// The verdict of the detector the box runs ([`Middlebox::detector`]; STD: III.B)
    /// on the flow's timeouts since its previous verdict.
    Verdict {
        /// True when a new ACK arrived before T expired.
        spurious: bool,
    },
    /// STD: a retransmission held while the verdict is pending (released on a genuine
    /// verdict, buffered on a spurious one).
    HeldPendingVerdict {
        /// First byte of the segment.
        seq: u64,
    },
    /// STD (III.B): a go-back-N retransmission between `acked_seq` and
    /// `sp_tout_max_seq_end` was stored instead of forwarded.
    Buffered {
        /// First byte of the segment.
        seq: u64,
    },
    /// STD: a go-back-N retransmission of data the receiver already acknowledged was
    /// absorbed without being stored.
    Discarded {
        /// First byte of the segment.
        seq: u64,
    },
    /// STD (III.B): buffered segments acknowledged by a new ACK were removed.
    Released {
        /// The cumulative ACK that covered them.
        ack: u64,
        /// How many segments were removed.
        count: u32,
    },
    /// STD (III.B): a buffered segment was retransmitted locally after
    /// `dup_ack_thresh` duplicate ACKs.
    LocalRetransmit {
        /// First byte of the segment.
        seq: u64,
    },
    /// STD (III.B): the full ACK arrived; duplicate-ACK removal starts.
    FullAck {
        /// The full ACK's value.
        ack: u64,
        /// How many duplicate ACKs the box will remove at most.
        to_remove: u32,
    },
    /// STD (III.D): a duplicate ACK caused by the timeout's retransmissions was removed.
    AckRemoved {
        /// The duplicate ACK's value.
        ack: u64,
    },
    /// Delay injection ([Klein et al. 2004] III): the packet was delayed by `by`.
    Delayed {
        /// The injected delay D\[k\].
        by: Dur,
    },
    /// Delay injection in FIFO order: the packet waited `by` behind a delayed one.
    HeldBehind {
        /// How long it waits.
        by: Dur,
    },
}

/// The registration macro: from one list, one line per box, it generates
/// [`MiddleboxConfig`] (the scenario's `kind` tag names), [`MiddleboxConfig::KINDS`],
/// [`Mb`] with its [`Middlebox`] forwarding and [`Mb::new`]. A line reads
/// `"kind" => Variant(ConfigType): Type = |config, rng| constructor,`.
macro_rules! boxes {
    ($( $(#[$doc:meta])* $name:literal => $V:ident($Cfg:ty): $T:ty = |$c:ident, $r:ident| $new:expr, )*) => {
        /// Which middlebox sits at a point, with its parameters; read from scenario files as a
        /// table tagged by `kind`. Omitted fields take the defaults documented on each struct.
        ///
        /// ```toml
        /// kind = "std-proxy"       # [Kim & Cho 2003] III; every field optional, paper defaults
        /// dup_ack_thresh = 3
        /// gain = 2.0               # G: T = G * average ACK inter-arrival time
        /// s = 20.0
        /// alpha_n = 0.9
        /// alpha_s = 0.9
        /// x_th_factor = 0.5        # X_th = 0.5 wRTT
        /// wrtt = "600ms"           # omit to measure wRTT (gain wrtt_gain = 0.125)
        /// remove_dup_acks = true
        /// ```
        ///
        /// ```toml
        /// kind = "delay-injection" # [Klein et al. 2004] III; defaults: FTFD, 100 ms, N = 3
        /// method = "ftfd"          # ftfd | rtfd | rtrd
        /// d0 = "100ms"
        /// n = 3                    # p = 1/N for rtfd / rtrd unless p = 0.25 is given
        /// direction = "data"       # data | ack
        /// select = "oracle"        # oracle | every-nth (select_every = 1) | probability (select_p = 1.0)
        /// order = "reorder"        # reorder | fifo
        /// ```
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind", deny_unknown_fields)]
        pub enum MiddleboxConfig {
            $( $(#[$doc])* #[serde(rename = $name)] $V($Cfg), )*
        }

        impl Bounded for MiddleboxConfig {
            /// The box's own checks ([`Bounded`] on its configuration type).
            fn bounds(&self, at: &FieldPath) -> Check {
                match self { $( MiddleboxConfig::$V(c) => c.bounds(at), )* }
            }
        }

        impl MiddleboxConfig {
            /// Every box's `kind` name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$($name),*];
        }

        spikelab_core::dispatch_enum! {
            /// The box selected by a [`MiddleboxConfig`]; dispatches by `match`.
            #[derive(Clone, Debug)]
            pub enum Mb: Middlebox { $( $(#[$doc])* $V($T) ),* }
            methods {
                fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut MbOutput);
                fn next_wakeup(&self) -> Option<Time>;
                fn on_wakeup(&mut self, now: Time, out: &mut MbOutput);
                fn for_each_held(&self, f: &mut dyn FnMut(&Packet));
                fn detector(&self) -> Option<&'static str>;
            }
        }

        impl Mb {
            /// A fresh box. `rng` is the box's own stream (only boxes that draw use it).
            pub fn new(config: &MiddleboxConfig, rng: SimRng) -> Mb {
                match config {
                    $( MiddleboxConfig::$V($c) => {
                        let $r = rng;
                        Mb::$V($new)
                    } )*
                }
            }
        }
    };
}

boxes! {
    /// The STD proxy of [Kim & Cho 2003] section III.
    "std-proxy" => StdProxy(StdProxyConfig): StdProxy = |c, _rng| StdProxy::new(c.clone()),
    /// The delay jitter algorithm of [Klein et al. 2004] section III (boxed: it carries
    /// its own RNG state).
    "delay-injection" => DelayInjection(DelayInjectionConfig): Box<DelayInjector> =
        |c, rng| Box::new(DelayInjector::new(c.clone(), rng)),
}

#[cfg(test)]
mod tests;
