//! spikelab-net: sans-I/O links, queues, service models and path-event schedules.
//!
//! Nothing here reads a clock or owns an event loop: every method takes `now` and the
//! engine drives it. The pieces, one concern per module:
//!
//! * [`link`]: [`LinkDir`], one direction of a point-to-point link (queue, transmitter,
//!   propagation; suspend/resume for delay spikes; rate changes).
//! * [`queue`]: drop-tail (packets or bytes, drop-from-front).
//! * [`service`]: how a packet occupies the transmitter (serialisation at the link rate).
//! * [`spike`]: schedules of hiccups, outages and bandwidth changes producing
//!   [`LinkControl`]s.
//! * [`distribution`]: the random durations those schedules draw.
//! * [`config`]: the serde configuration of links.

pub mod config;
pub mod distribution;
pub mod link;
pub mod queue;
pub mod service;
pub mod spike;

pub use config::{DirOverride, LinkConfig, LinkDirConfig};
pub use distribution::Distribution;
pub use link::{LinkCounters, LinkDir, PacketBytes};
pub use queue::{DropTailConfig, Queue, QueueConfig, QueueLimit};
pub use service::{Service, ServiceConfig};
pub use spike::{Dir, Dirs, LinkControl, Schedule, SpikeConfig};
