//! spikelab-core: the vocabulary every other crate speaks.
//!
//! * [`time`]: simulated time as integer nanoseconds ([`Time`] instants, [`Dur`] spans).
//! * [`packet`]: the one packet type that crosses links, with honest header sizes.
//! * [`rng`]: per-component random streams derived from the run seed.
//! * [`ids`]: small typed indices for flows, links and nodes.
//! * [`bounds`]: range checks of configuration values and the [`bounds::Bounded`] hook.
//! * [`registry`]: [`dispatch_enum!`], the one way an algorithm family dispatches.
//! * [`round`]: rounding to a whole number without the runtime's `round` call.
//!
//! Sequence numbers are absolute `u64` byte offsets from the flow's initial sequence
//! number: a simulated flow never sends 2^64 bytes, so wrap-around arithmetic
//! (RFC 793 "modulo 2^32" comparisons) is only needed when writing pcap files, where
//! the low 32 bits are emitted.

pub mod bounds;
pub mod ids;
pub mod packet;
pub mod registry;
pub mod rng;
pub mod round;
pub mod time;
pub mod trace;
pub mod units;

/// Defines `BUILT_FROM` in the calling crate: the directory that crate was compiled
/// from. A target directory shared between work trees can link another tree's build of
/// a crate (cargo judges freshness by file times);
/// crates/scenario/tests/built_here.rs checks every suite links this checkout's.
#[macro_export]
macro_rules! built_from {
    () => {
        #[doc(hidden)]
        pub const BUILT_FROM: &str = env!("CARGO_MANIFEST_DIR");
    };
}

built_from!();

pub use ids::{FlowId, LinkId};
pub use packet::{Packet, PacketKind, SackBlocks, Timestamps, Wire, WireModel};
pub use rng::{RngState, RngStreams, SimRng};
pub use time::{Dur, Time};
pub use units::{BitRate, ByteSize};
