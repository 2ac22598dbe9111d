//! spikelab-net: sans-I/O links, queues, service models and path-event schedules.
//!
//! Nothing here reads a clock or owns an event loop: every method takes `now` and the
//! engine drives it. The pieces, one concern per module:
//!
//! * [`link`]: [`LinkDir`], one direction of a point-to-point link (queue, transmitter,
//!   propagation; suspend/resume for delay spikes; rate changes).
//! * [`queue`]: drop-tail (packets or bytes, drop-from-front), RED (gentle,
//!   drop-from-front) and Adaptive RED.
//! * [`service`]: how a packet occupies the transmitter: serialisation at the link rate,
//!   a WCDMA bearer with RLC retransmissions, or Mahimahi delivery-trace replay.
//! * [`delay`]: extra one-way delay replayed from a `(time, delay)` trace;
//!   [`delay_source`]: a trace file or a generated trace ([`ping_trace`]).
//! * [`freeze`]: the switches of how a hiccup or outage freezes a link.
//! * [`spike`]: schedules of hiccups, outages and bandwidth changes producing
//!   [`LinkControl`]s; [`control`]: applying one to a link (the engine's and the
//!   emulator's one way).
//! * [`distribution`]: the random durations those schedules draw.
//! * [`middlebox`]: boxes that see both directions of every flow at one point and
//!   decide (the STD proxy, delay injection).
//! * [`config`]: the serde configuration of links; [`trace`]: loading the trace files
//!   it references (the only file I/O in the crate).

pub mod config;
pub mod control;
pub mod delay;
pub mod delay_source;
pub mod distribution;
pub mod freeze;
pub mod leo_trace;
pub mod link;
pub mod middlebox;
pub mod ping_trace;
pub mod queue;
pub mod service;
pub mod spike;
pub mod streams;
pub mod trace;
pub mod trace_ref;

spikelab_core::built_from!();

pub use config::{DirOverride, LinkConfig, LinkDirConfig, Overrides};
pub use delay::{DelaySampling, DelayTrace};
pub use delay_source::{DelayGenerator, DelaySource};
pub use distribution::Distribution;
pub use freeze::{FreezeMode, FreezePoint, FrozenArrivals, FrozenWire};
pub use link::{LinkCounters, LinkDir, PacketBytes};
pub use middlebox::{Mb, MbEvent, MbEventKind, MbOutput, Middlebox, MiddleboxConfig};
pub use queue::{AdaptiveRedConfig, DropTailConfig, Queue, QueueConfig, QueueLimit, RedConfig};
pub use service::{MahimahiConfig, MahimahiTrace, Service, ServiceConfig, WcdmaConfig};
pub use spike::{Dir, Dirs, LinkControl, Schedule, SpikeConfig, SpikeError};
pub use trace::{load_link_traces, TraceError, TraceLoadError, TraceRef};

/// A fixed test generator (tests only).
#[cfg(test)]
pub(crate) fn tests_rng(seed: u64) -> spikelab_core::SimRng {
    spikelab_core::RngStreams::new(seed).stream("test", 0)
}
