//! The papers' own code, one module per paper: each registers its reproduction (most of
//! it the paper's file under `experiments/`, run by the grid language, [`crate::grid`],
//! which knows no paper) and holds what the files cannot express yet.
//!
//! * [`gprs_eifel`]: [Gurtov & Ludwig 2002], all data.
//! * [`eifel_response`]: [Gurtov & Ludwig 2003], all data.
//! * [`peak_hopper`]: [Ekström & Ludwig 2004], all data; a reduction of it for tests.
//! * [`std_proxy`]: [Kim & Cho 2003], data and its condition-(3) metric.
//! * [`delay_injection`]: [Klein et al. 2004], data and the RTT-trace mode (Figs. 1-3)
//!   as a Rust block, with its input fit.
//! * [`quic_spikes`]: not a paper: the QUIC-under-delay-spikes study of issue 42, all
//!   data, outside the default set.
//! * [`real_paths`]: not a paper: the five papers' fixes on the real-path library
//!   (issue 41), all data, in the default set.
//!
//! The registry `spikelab reproduce` runs sits above this module and names each one.

pub mod delay_injection;
pub mod eifel_response;
pub mod gprs_eifel;
pub mod peak_hopper;
pub mod quic_spikes;
pub mod real_paths;
pub mod std_proxy;

use crate::grid::result::RustBlocks;

/// Every Rust block a paper registers, which a user's own experiment file may name
/// too (only [Klein et al. 2004] has one).
pub const RUST_BLOCKS: RustBlocks = delay_injection::reproduction::RUST_BLOCKS;
