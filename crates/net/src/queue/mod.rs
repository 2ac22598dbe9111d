//! The queue in front of a link's transmitter.
//!
//! Each discipline implements [`QueueDiscipline`]; [`Queue`] is the enum over them (no
//! `Box<dyn>`): the link calls it once per arrival and once per departure, so static
//! dispatch matters. Both [`Queue`] and [`QueueConfig`] are generated from the one list
//! in `disciplines!`: a new discipline is one file, its `mod`/`use` line and one line
//! there. Every variant stores its packets in one
//! [`PacketFifo`] (a `VecDeque` ring buffer that grows to the largest backlog seen and
//! then never allocates again).
//!
//! ## What a queue limit counts
//!
//! A limit counts the packets (or wire bytes) *waiting*, not the one the transmitter is
//! sending: the transmitter takes its packet out of the queue, as in ns-2, where the
//! link's `Queue::recv` dequeues before transmitting. An arriving packet that finds the
//! transmitter idle still passes through the queue (so RED sees it and a limit of 0
//! drops everything).
//!
//! ns-2's `DropTail::enque` drops when `length + 1 >= qlim_` (drop-tail.cc), i.e. its
//! `queue-limit N` keeps at most N-1 packets waiting plus one on the wire. To reproduce an
//! ns-2 script with `queue-limit N`, write `limit = { packets = N-1 }` here. (The
//! "10 KB" / "100 KB" buffers of [Gurtov & Ludwig 2002] are ns-2 limits of 10 and 100 packets,
//! see docs/src/ns2-2002-defaults.md.)

mod droptail;
mod red;

pub use droptail::{DropTail, DropTailConfig, QueueLimit};
pub use red::{base_prob, ewma, spread_prob, AdaptiveRedConfig, Red, RedConfig};

use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{fail, int, Bounded, Check, FieldPath};
use spikelab_core::{BitRate, Packet, SimRng, Time, Wire};
use std::collections::VecDeque;

/// The hooks of a queue discipline: the link calls [`QueueDiscipline::on_enqueue`] once
/// per arrival and [`QueueDiscipline::on_dequeue`] once per departure. `P` is what the
/// queue holds: a [`Packet`], or a handle to one (see [`Wire`]).
pub trait QueueDiscipline<P: Wire = Packet> {
    /// Offers `pkt` arriving at `now`; returns the packet dropped, if any (the arrival,
    /// or the head with drop-from-front).
    fn on_enqueue(&mut self, now: Time, pkt: P, rng: &mut SimRng) -> Option<P>;
    /// The transmitter takes the head at `now` (None: the queue is empty and the link
    /// goes idle at `now`).
    fn on_dequeue(&mut self, now: Time) -> Option<P>;
    /// The link rate changed.
    fn on_rate_change(&mut self, _rate: BitRate) {}
    /// The waiting packets.
    fn fifo(&self) -> &PacketFifo<P>;
}

/// The registration macro: from one list, one line per discipline, it generates
/// [`QueueConfig`] (the scenario's `kind` tag names), [`QueueConfig::KINDS`], [`Queue`]
/// with its [`QueueDiscipline`] forwarding, [`Queue::new`], and the range checks of
/// [`QueueConfig`] through each configuration's [`Bounded`] hook. A line reads
/// `"kind" => Variant(ConfigType): Type = |config, rate| constructor,` where `Type` is
/// the variant's payload, generic over what the queue holds (`Type<P>`). A discipline
/// with a large state (RED's parameters and averages, 176 bytes) is boxed
/// (`Box<Type<P>>`): the enum is as large as its largest variant, and the queue sits
/// inline in every link direction, whose hot fields should share few cache lines. A
/// large configuration is boxed likewise (RED's, about 100 bytes): every link keeps its
/// `QueueConfig` for the whole run, and drop-tail's takes 24. The forwarding is written here rather
/// than by `spikelab_core::dispatch_enum!` because the queue enum is generic.
macro_rules! disciplines {
    ($( $(#[$doc:meta])* $name:literal => $V:ident($Cfg:ty): $T:ty = |$c:ident, $r:ident| $new:expr, )*) => {
        /// Which queue discipline sits in front of a link direction, as written in a
        /// scenario (`kind =` one of [`QueueConfig::KINDS`]).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum QueueConfig {
            $( $(#[$doc])* #[serde(rename = $name)] $V($Cfg), )*
        }

        impl QueueConfig {
            /// Every discipline's `kind` name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$($name),*];
        }

        impl Bounded for QueueConfig {
            /// The discipline's own checks ([`Bounded`] on its configuration type).
            fn bounds(&self, at: &FieldPath) -> Check {
                match self { $( QueueConfig::$V(c) => c.bounds(at), )* }
            }
        }

        /// A queue discipline with its packets, built from a [`QueueConfig`] (enum
        /// dispatch: the link calls it once per arrival and departure).
        #[derive(Clone, Debug)]
        pub enum Queue<P = Packet> {
            $( $(#[$doc])* $V($T), )*
        }

        impl<P: Wire> QueueDiscipline<P> for Queue<P> {
            fn on_enqueue(&mut self, now: Time, pkt: P, rng: &mut SimRng) -> Option<P> {
                match self { $( Queue::$V(q) => q.on_enqueue(now, pkt, rng), )* }
            }
            // Always inlined: once per packet per hop, and kept out of line by the
            // optimiser otherwise (see `LinkDir`'s transmitter loop).
            #[inline(always)]
            fn on_dequeue(&mut self, now: Time) -> Option<P> {
                match self { $( Queue::$V(q) => q.on_dequeue(now), )* }
            }
            fn on_rate_change(&mut self, rate: BitRate) {
                match self { $( Queue::$V(q) => q.on_rate_change(rate), )* }
            }
            fn fifo(&self) -> &PacketFifo<P> {
                match self { $( Queue::$V(q) => q.fifo(), )* }
            }
        }

        impl<P: Wire> Queue<P> {
            /// Builds the queue. `rate` is the link rate, which RED needs to age its
            /// average over idle periods (and adaptive RED to choose its parameters).
            pub fn new(cfg: &QueueConfig, rate: BitRate) -> Queue<P> {
                match cfg {
                    $( QueueConfig::$V($c) => {
                        let $r = rate;
                        Queue::$V($new)
                    } )*
                }
            }
        }
    };
}

disciplines! {
    /// First in, first out; drops arrivals (or the head) beyond a packet or byte limit.
    "drop-tail" => DropTail(DropTailConfig): DropTail<P> = |c, _rate| DropTail::new(c),
    /// Random Early Detection (Floyd & Jacobson 1993) as in ns-2's red.cc.
    "red" => Red(Box<RedConfig>): Box<Red<P>> = |c, rate| Box::new(Red::new(c, rate)),
    /// Adaptive RED (Floyd, Gummadi & Shenker 2001): RED whose max_p adapts every
    /// `interval`, with thresholds and weight derived from the link rate.
    "adaptive-red" => AdaptiveRed(Box<AdaptiveRedConfig>): Box<Red<P>> = |c, rate| Box::new(Red::adaptive(c, rate)),
}

/// A queue limit of 1 to `hi` (packets or bytes, `unit`).
pub(crate) fn queue_limit(p: &FieldPath, n: u64, hi: u64, unit: &str) -> Check {
    if n == 0 {
        return fail(p, "a queue limit of 0 drops every packet: allow at least 1");
    }
    int(p, n, 1, hi, unit)
}

impl Default for QueueConfig {
    /// Drop-tail with ns-2's default `limit_` of 50 packets (see the module docs for
    /// how ns-2 counts).
    fn default() -> Self {
        QueueConfig::DropTail(DropTailConfig::default())
    }
}

/// A FIFO of packets (or of handles to packets, see [`Wire`]) that also keeps its total
/// wire bytes.
#[derive(Clone, Debug)]
pub struct PacketFifo<P = Packet> {
    packets: VecDeque<P>,
    bytes: u64,
}

impl<P> Default for PacketFifo<P> {
    fn default() -> Self {
        PacketFifo {
            packets: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<P: Wire> PacketFifo<P> {
    /// An empty FIFO.
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends at the tail.
    pub fn push(&mut self, pkt: P) {
        self.bytes += pkt.wire_bytes() as u64;
        self.packets.push_back(pkt);
    }
    /// Removes the head.
    pub fn pop(&mut self) -> Option<P> {
        let pkt = self.packets.pop_front()?;
        self.bytes -= pkt.wire_bytes() as u64;
        Some(pkt)
    }
    /// The head, without removing it.
    pub fn front(&self) -> Option<&P> {
        self.packets.front()
    }
    /// Packets waiting.
    pub fn len(&self) -> usize {
        self.packets.len()
    }
    /// No packet waiting?
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
    /// Wire bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Packets from head to tail.
    pub fn iter(&self) -> impl Iterator<Item = &P> {
        self.packets.iter()
    }
}

impl<P: Wire> Queue<P> {
    /// Offers `pkt` arriving at `now`; returns the packet dropped, if any.
    pub fn enqueue(&mut self, now: Time, pkt: P, rng: &mut SimRng) -> Option<P> {
        self.on_enqueue(now, pkt, rng)
    }

    /// The transmitter takes the head at `now`.
    #[inline(always)]
    pub fn dequeue(&mut self, now: Time) -> Option<P> {
        self.on_dequeue(now)
    }

    /// The link rate changed (RED's idle aging depends on it).
    pub fn set_rate(&mut self, rate: BitRate) {
        self.on_rate_change(rate)
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &PacketFifo<P> {
        QueueDiscipline::fifo(self)
    }
}
