//! spikelab-experiments: the papers' experiments as plain data.
//!
//! * [`delay_injection`]: the RTT-trace mode of delay-injection.md section IV: the
//!   paper's RTO equations (1)-(3) over a vector of RTT samples, with and without
//!   FTFD / RTFD / RTRD injection, user traces, a synthetic GPRS-like ping trace, and
//!   the data of the paper's Figs. 1-3.
//!
//! * [`std_proxy`]: std-proxy.md V (STD proxy vs. Eifel and F-RTO, Figs. 8 and 9).
//! * [`artifacts`]: CSV files, figures and confidence intervals the reproductions share.
//!
//! * [`reproduction`]: the trait each paper's reproduction implements, and the registry
//!   `spikelab reproduce` runs.
//! * [`runner`]: many simulations in parallel, deterministically, with progress.
//! * [`report`]: sections of tables, figures and comparisons with the papers, rendered
//!   as Markdown and HTML.

pub mod artifacts;
pub mod delay_injection;
pub mod eifel;
pub mod embedded;
pub mod grid;
pub mod report;
pub mod reproduction;
pub mod runner;
pub mod std_proxy;
