//! A grid's results as the blocks drawn from them read them: per cell its labels, every
//! collected metric per repetition and the grid's values ([`Stat`]); every grid's
//! results by name ([`Grids`]), and the blocks a paper computes from them in Rust.

use crate::context::Context;
use crate::report::Block;
use spikelab_output::stats::Summary;
use std::collections::BTreeMap;

/// One grid value of one cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub mean: f64,
    /// 95% confidence half-width (NaN for sums, counts and ratios).
    pub ci95: f64,
    /// Repetitions it was computed from.
    pub n: usize,
    /// A paired difference's test (`diff_over`); none for other values.
    pub test: Option<Test>,
}

/// The test of a paired difference against 0 (`crate::compare`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Test {
    /// The effect size d_z (mean difference over the differences' standard deviation).
    pub dz: f64,
    /// The two-sided paired t test's p-value.
    pub p: f64,
    /// `p` adjusted by Holm's step-down procedure over every cell of the value that is
    /// compared with another.
    pub p_holm: f64,
}

impl Stat {
    /// The statistic `name` (`mean`, `ci95`, `n`; a paired difference's `dz`, `p` and
    /// `p_holm`, NaN for other values).
    pub fn get(&self, name: &str) -> f64 {
        let test = |f: fn(&Test) -> f64| self.test.as_ref().map_or(f64::NAN, f);
        match name {
            "ci95" => self.ci95,
            "n" => self.n as f64,
            "dz" => test(|t| t.dz),
            "p" => test(|t| t.p),
            "p_holm" => test(|t| t.p_holm),
            _ => self.mean,
        }
    }
}

/// A run's samples, each a row of its run series' columns (`run_series`).
pub type Samples = Vec<Vec<f64>>;

/// Per cell, each run series of its first repetition.
pub type FirstRuns = Vec<BTreeMap<String, Samples>>;

/// A grid's results: per cell, a summary of every flow metric over the repetitions
/// (for `[[table]]`), every collected metric per repetition, and the grid's values.
pub struct GridResult {
    /// Per cell, its labels and every flow metric's summary (`[[table]]`).
    pub(super) cells: Vec<(BTreeMap<String, String>, Vec<Summary>)>,
    /// Per cell, its labels.
    pub labels: Vec<BTreeMap<String, String>>,
    /// The metrics collected per repetition: [`crate::metrics::NAMES`], then the others the
    /// experiment names for this grid.
    pub names: Vec<String>,
    /// `raw[cell][rep][metric]`, in the order of `names`.
    pub raw: Vec<Vec<Vec<f64>>>,
    /// Per cell, the grid's `[[grid.value]]`s.
    pub values: Vec<BTreeMap<String, Stat>>,
    /// Cells per simulated cell: its groups with `group_axis`, else 1
    /// (`pooled::unfold`).
    pub group_rows: usize,
    /// Per cell, its distribution metrics merged over its repetitions.
    pub dists: crate::metrics::distributions::Merged,
    /// Per cell, the run series of its first repetition (`run_series`).
    pub first_runs: FirstRuns,
}

impl GridResult {
    /// A grid without cells (for text that reads no values).
    pub fn empty() -> GridResult {
        GridResult::of_runs(vec![], vec![], vec![])
    }

    /// Cells with their per-repetition metrics and no grid values.
    pub fn of_runs(
        labels: Vec<BTreeMap<String, String>>,
        names: Vec<String>,
        raw: Vec<Vec<Vec<f64>>>,
    ) -> GridResult {
        GridResult {
            cells: vec![],
            values: vec![BTreeMap::new(); labels.len()],
            dists: vec![BTreeMap::new(); labels.len()],
            first_runs: vec![BTreeMap::new(); labels.len()],
            labels,
            names,
            raw,
            group_rows: 1,
        }
    }
}

/// Every grid's results, by name.
pub type Grids<'s> = BTreeMap<&'s str, GridResult>;

/// A block computed in Rust from the run's context and the grids' results.
pub type RustBlock = fn(&Context, &Grids) -> anyhow::Result<Vec<Block>>;

/// The blocks computed in Rust where the grid cannot express them yet, by name: layout
/// item `rust:<name>`. The grid knows none: a paper registers its own
/// (`ExperimentSpec::with_rust_blocks`), and a user's file may name any paper's.
pub type RustBlocks = &'static [(&'static str, RustBlock)];
