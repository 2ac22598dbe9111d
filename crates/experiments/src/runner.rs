//! Running many simulations in parallel, deterministically.
//!
//! Every (cell, repetition) pair of an experiment is one job; jobs run on a local rayon
//! pool of `jobs` threads, each reduced at once to a small summary so memory stays flat,
//! and the summaries come back ordered by cell and repetition whatever the thread
//! count. Repetition r of every cell uses `RngStreams::repetition_seed(seed, r)`, so a
//! cell's repetition can be replayed alone with `spikelab run --seed`.

use rayon::prelude::*;
use spikelab_core::RngStreams;
use spikelab_engine::{InvariantViolation, RunResult, SimConfig};
use std::sync::atomic::{AtomicU64, Ordering};

/// Progress reporting for long runs; the CLI draws a bar, tests ignore it.
pub trait Progress: Sync {
    /// `n` more jobs are planned.
    fn add_total(&self, n: u64);
    /// `n` more jobs are done.
    fn inc(&self, n: u64);
}

/// A progress sink that only counts (for tests and non-terminal output).
#[derive(Debug, Default)]
pub struct Counter {
    pub total: AtomicU64,
    pub done: AtomicU64,
}

impl Progress for Counter {
    fn add_total(&self, n: u64) {
        self.total.fetch_add(n, Ordering::Relaxed);
    }
    fn inc(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }
}

/// How to run a batch of simulations.
#[derive(Clone, Copy)]
pub struct Batch<'a> {
    pub reps: u32,
    pub seed: u64,
    pub jobs: usize,
    pub progress: &'a dyn Progress,
}

/// Runs `reps` repetitions of every configuration and summarises each run with
/// `summarize(cell, rep, result)`; returns the summaries per cell in repetition order.
pub fn run_cells<T, F>(
    cells: &[SimConfig],
    batch: Batch,
    summarize: F,
) -> Result<Vec<Vec<T>>, InvariantViolation>
where
    T: Send,
    F: Fn(usize, u32, &RunResult) -> T + Sync,
{
    run_cells_from(cells, batch, 0, summarize)
}

/// [`run_cells`] for repetitions `first..batch.reps` only (more repetitions of cells
/// already run: `spikelab advise` adds them within its time budget); repetition r still
/// runs with `RngStreams::repetition_seed(seed, r)`.
pub fn run_cells_from<T, F>(
    cells: &[SimConfig],
    batch: Batch,
    first: u32,
    summarize: F,
) -> Result<Vec<Vec<T>>, InvariantViolation>
where
    T: Send,
    F: Fn(usize, u32, &RunResult) -> T + Sync,
{
    let reps = batch.reps.max(1).saturating_sub(first);
    let jobs: Vec<(usize, u32)> = (0..cells.len())
        .flat_map(|c| (first..first + reps).map(move |r| (c, r)))
        .collect();
    batch.progress.add_total(jobs.len() as u64);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(batch.jobs.max(1))
        .build()
        .expect("a rayon thread pool");
    let flat: Result<Vec<T>, InvariantViolation> = pool.install(|| {
        jobs.par_iter()
            .map(|&(c, r)| {
                let seed = RngStreams::repetition_seed(batch.seed, r as u64);
                let result = spikelab_engine::run(&cells[c], seed)?;
                batch.progress.inc(1);
                Ok(summarize(c, r, &result))
            })
            .collect()
    });
    let mut flat = flat?.into_iter();
    Ok((0..cells.len())
        .map(|_| flat.by_ref().take(reps as usize).collect())
        .collect())
}

/// The number of cores, the default for `jobs`.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
