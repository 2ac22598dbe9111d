//! spikelab-experiments: the papers' experiments as plain data.
//!
//! From the bottom up (a module imports from those above it; the two registries name
//! what registers with them):
//!
//! * [`context`], [`report`], [`runner`], [`shared_runs`], [`embedded`], [`artifacts`]:
//!   what a run is given, the report's blocks, many simulations in parallel
//!   deterministically, the built-in files, CSV files and figures.
//! * [`compare`]: paired comparisons on common seeds (mean difference, interval, effect
//!   size, p-value) and Holm's correction over many of them, for grid values and advise.
//! * [`metrics`]: the metric family the experiment files name: its interface
//!   ([`metrics::view`]), its registry, and the timer metrics of [Ekström & Ludwig 2004]
//!   IV.C ([`metrics::timer`]), over flow groups, outages and distributions.
//! * [`grid`]: the experiment-file language (a base scenario, grids of overrides,
//!   tables, charts, comparisons, text); it names no paper.
//! * [`papers`]: one module per paper: its registration and what its file cannot
//!   express yet (delay injection's RTT-trace mode, std-proxy's condition (3)).
//! * [`reproduction`]: the trait each paper's reproduction implements, the registry
//!   `spikelab reproduce` runs, and a user's own experiment file.
//! * [`advise`]: `spikelab advise`, a generated grid over the fix space on the user's
//!   path, ranked with paired confidence intervals.

pub mod advise;
pub mod artifacts;
pub mod compare;
pub mod context;
pub mod embedded;

pub mod grid;
pub mod metrics;
pub mod papers;
pub mod report;
pub mod reproduction;
pub mod runner;
pub mod shared_runs;
