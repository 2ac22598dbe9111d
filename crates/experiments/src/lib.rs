//! spikelab-experiments: the papers' experiments as plain data.
//!
//! * [`advise`]: `spikelab advise`, a generated grid over the fix space on the user's
//!   path, ranked with paired confidence intervals.
//! * [`delay_injection`]: the RTT-trace mode of [Klein et al. 2004] section IV: the
//!   paper's RTO equations (1)-(3) over a vector of RTT samples, with and without
//!   FTFD / RTFD / RTRD injection, user traces, a synthetic GPRS-like ping trace, and
//!   the data of the paper's Figs. 1-3.
//!
//! * [`std_proxy`]: condition (3) of [Kim & Cho 2003], the one metric of
//!   `experiments/std-proxy.toml` (STD proxy vs. Eifel and F-RTO, Figs. 8 and 9) that
//!   is not generic.
//! * [`artifacts`]: CSV files, figures and confidence intervals the reproductions share.
//! * [`timer_metrics`]: the retransmission-timer metrics of [Ekström & Ludwig 2004] IV.C
//!   (B_norm, W, W_95, P), fast timeouts, outages that caused a spurious timeout and the
//!   RTO half-life after a spike, as pure functions over run results.
//! * [`peak_hopper`]: the reproduction of [Ekström & Ludwig 2004], all of it
//!   `experiments/peak-hopper.toml`: its registration and its reduction for tests.
//!
//! * [`reproduction`]: the trait each paper's reproduction implements, and the registry
//!   `spikelab reproduce` runs.
//! * [`runner`]: many simulations in parallel, deterministically, with progress.
//! * [`report`]: sections of tables, figures and comparisons with the papers, rendered
//!   as Markdown and HTML.

pub mod advise;
pub mod artifacts;
pub mod context;
pub mod embedded;

/// The path the CLI names a user's experiment file by (`eifel::OnDisk`), from when it
/// lived beside the Eifel papers' registration; it is [`reproduction::on_disk`].
pub mod eifel {
    pub use crate::reproduction::on_disk::OnDisk;
}
pub mod grid;
pub mod metrics;
pub mod papers;
pub mod report;
pub mod reproduction;
pub mod runner;
pub mod shared_runs;
