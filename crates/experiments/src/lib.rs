//! spikelab-experiments: the papers' experiments as plain data.
//!
//! * [`delay_injection`]: the RTT-trace mode of delay-injection.md section IV: the
//!   paper's RTO equations (1)-(3) over a vector of RTT samples, with and without
//!   FTFD / RTFD / RTRD injection, user traces, a synthetic GPRS-like ping trace, and
//!   the data of the paper's Figs. 1-3.
//!
//! Nothing here plots or writes files; the reproduction code turns the returned data
//! into figures (with `spikelab_output::plot`).

#![warn(missing_docs)]

pub mod delay_injection;
