//! Real quinn in simulated time (issue 42, item 2).
//!
//! `quinn-proto`, quinn's sans-I/O QUIC state machine, runs a client and a server whose
//! datagrams the caller carries through its own network and whose clocks are the
//! simulation's ([`pair`]). Everything quinn would take from the operating system comes
//! from the run's seed or is fixed ([`seed`], [`tls`]); quinn's probe timeouts, which its
//! public API does not count, are read from its tracing events ([`observe`]). [`pipe`]
//! drives a pair over a small deterministic path for tests; [`flow`] is a pair as a
//! spikelab flow, what the engine's transport for quinn wraps.

pub mod app;
pub mod config;
pub mod flow;
pub mod observe;
pub mod pair;
pub mod pipe;
pub mod seed;
pub mod tls;

pub use config::{Controller, QuinnConfig};
pub use pair::{Arrived, Carried, Datagram, Decision, End, Fate, QuinnPair};
pub use seed::PairSeeds;
