//! The RTT-trace mode of [Klein et al. 2004], section
//! IV: "we provide some evidence that this methodology can indeed reduce the number of
//! timeouts by applying the FTFD method to the vector of collected RTT measurements".
//!
//! One concern per file:
//!
//! * [`spikelab_tcp::rto::klein`]: equations (1)-(3) over a vector of samples, and
//!   what counts as a timeout (with the other RTO estimators).
//! * [`mod@inject`]: RTT_new\[k\] = RTT\[k\] + D\[k\] (section III) with the injector of
//!   [`spikelab_net::middlebox::Injector`] (the one implementation of FTFD / RTFD /
//!   RTRD), and timeout counts per method and per jitter period.
//! * [`trace`]: reading user RTT traces (one value per line, or a CSV column).
//! * [`spikelab_net::ping_trace`] (the scenario's `delay_trace` generator): a seeded
//!   GPRS-like ping trace standing in for the authors' own.
//! * [`fit`]: the paper mode's spike rate and size, fitted to the paper's no-jitter
//!   baseline (the one fitted input).
//! * [`figures`]: the data of Figs. 1-3 (RTT and RTO over a window; histograms).
//! * [`sweep`]: one run and one cell of the TCP simulation reduced (for the fit and
//!   the tests; the sweep itself is `experiments/delay-injection.toml`).
//! * [`reproduction`]: the `delay-injection` reproduction: `experiments/delay-injection.toml`
//!   run by the grid, with the trace mode (Figs. 1-3) as its one Rust block.
//! * [`tcp`]: the TCP simulation's two scenario files (Figs. 4-8): realistic
//!   (`scenarios/delay-injection.toml`) and the paper's simulator
//!   (`scenarios/delay-injection-paper.toml`).
//! * [`path`]: the ping trace as a delay-trace file (for `spikelab advise`; the
//!   reproduction's `path-delay.csv` is a `[[trace_file]]`).
//!
//! Units: RTT samples are `f64` milliseconds, as the paper reports them. This is an
//! offline analysis of a list of numbers, not the simulator, so the integer-time rule
//! does not apply; injected delays come from the simulator's injector as integer
//! nanoseconds and are converted once, in [`inject::inject`].

#![warn(missing_docs)]

pub mod figures;
pub mod fit;
pub mod inject;
pub mod path;
pub mod reproduction;
pub mod sweep;
pub mod tcp;
pub mod trace;

pub use figures::{fig1, fig2, fig3, histogram, Fig3, Histogram, RttRtoWindow};
pub use inject::{
    count_timeouts, inject, timeouts_by_method, timeouts_vs_period, InjectionSpec, TimeoutCounts,
};
pub use trace::{load_rtt_trace, parse_rtt_trace};
