//! spikelab-engine: the deterministic discrete-event engine.
//!
//! * [`arena`]: the packets in the network, moved through links by 8-byte handles.
//! * [`events`]: the event queue ordered by (time, insertion order) and cancellable
//!   timer slots.
//! * [`world`]: links, flows and the loop that drives them; invariant checks on every
//!   run. It knows no particular middlebox.
//! * [`transport`]: the transport family, the one interface through which the world
//!   drives a flow's endpoints (TCP is its first member).
//! * [`facts`]: what ground truth classifies a timeout by (a leaf module).
//! * [`truth`]: ground truth for every retransmission timeout, and the verdicts of
//!   detectors and boxes attached to it by timeout identity.
//! * [`results`]: what a run produces.
//! * [`route`]: source routing and link/middlebox placement, shared with the emulator.
//! * [`watchdog`]: ends a run whose clock stops advancing (or that exceeds a budget).
//!
//! A run is a pure function of its [`SimConfig`] and seed: no wall clock, no hashing
//! order, one random stream per component.

pub mod arena;
pub mod config;
pub mod events;
pub mod facts;
mod prefetch;
pub mod results;
pub mod route;
pub mod trace;
pub mod transport;
pub mod truth;
pub mod watchdog;
pub mod world;

spikelab_core::built_from!();

pub use config::{
    DropRule, DropTarget, DropWhich, FlowKind, FlowSpec, Hop, MiddleboxSpec, SimConfig, StartTime,
    Workload,
};
pub use results::{
    score_detectors, Captured, DeclarationCounts, DetectorScore, DetectorVerdict, Endpoint,
    FlowResult, LinkResult, RunResult, TimeoutRecord, Truth,
};
pub use spikelab_core::trace::TraceKinds;
pub use world::{InvariantViolation, World};

/// Runs `cfg` once with `seed`.
pub fn run(cfg: &SimConfig, seed: u64) -> Result<RunResult, InvariantViolation> {
    World::new(cfg, seed).run()
}
