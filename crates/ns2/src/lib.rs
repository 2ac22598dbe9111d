//! spikelab-ns2: ns-2.35 as the oracle of the `ns2-2002` profile.
//!
//! * [`export`]: a scenario repetition as an ns-2.35 Tcl script (`spikelab export ns2`).
//! * [`ns2run`]: run a script in `ns` and read its traces.
//! * [`compare`]: run both simulators and compare them flow by flow, packet by packet.
//! * [`cases`]: the differential suite's matrix and its Markdown table.

pub mod cases;
pub mod compare;
pub mod export;
pub mod ns2run;

pub use export::{export, Refused, Script};
