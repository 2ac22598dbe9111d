//! Running many simulations in parallel, deterministically.
//!
//! Every (cell, repetition) pair of an experiment is one job; jobs run on a local rayon
//! pool of `jobs` threads, each reduced at once to a small summary so memory stays flat,
//! and the summaries come back ordered by cell and repetition whatever the thread
//! count. Repetition r of every cell uses `RngStreams::repetition_seed(seed, r)`, so a
//! cell's repetition can be replayed alone with `spikelab run --seed`.

use crate::shared_runs::SharedRuns;
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
    run_cells_sharing(cells, batch, first, (&SharedRuns::none(), 0), summarize)
}

/// [`run_cells_from`] for grid `shared.1` of an experiment whose cells share runs
/// (`shared.0`): a cell that shares a repetition reads the one run of it.
pub fn run_cells_sharing<T, F>(
    cells: &[SimConfig],
    batch: Batch,
    first: u32,
    shared: (&SharedRuns, usize),
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
    let (runs, grid) = shared;
    let flat: Result<Vec<T>, InvariantViolation> = on_pool(batch.jobs, || {
        jobs.par_iter()
            .map(|&(c, r)| {
                let seed = RngStreams::repetition_seed(batch.seed, r as u64);
                let summary = match runs.run(grid, c, r, seed) {
                    Some(ran) => summarize(c, r, &*ran?),
                    None => summarize(c, r, &spikelab_engine::run(&cells[c], seed)?),
                };
                batch.progress.inc(1);
                Ok(summary)
            })
            .collect()
    });
    let mut flat = flat?.into_iter();
    Ok((0..cells.len())
        .map(|_| flat.by_ref().take(reps as usize).collect())
        .collect())
}

/// Runs `op` on a rayon pool of `jobs` threads: the one the caller already runs on
/// when it has that many threads, else a new one. `spikelab reproduce` runs its papers,
/// and an experiment its grids, as tasks of one pool, so that while one grid's last
/// runs finish the other thread takes runs of the next grid instead of idling; each
/// result is still collected in its own order, so the output does not depend on which
/// thread ran what.
pub fn on_pool<R: Send>(jobs: usize, op: impl FnOnce() -> R + Send) -> R {
    let jobs = jobs.max(1);
    if rayon::current_thread_index().is_some() && rayon::current_num_threads() == jobs {
        return op();
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .expect("a rayon thread pool")
        .install(op)
}

/// The number of cores, the default for `jobs`.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_of_the_asked_size_is_reused_and_another_size_gets_its_own() {
        let outer = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let (same, other) = outer.install(|| {
            let here = std::thread::current().id();
            let same = on_pool(3, || {
                (rayon::current_num_threads(), std::thread::current().id())
            });
            let other = on_pool(2, || {
                (rayon::current_num_threads(), std::thread::current().id())
            });
            assert_eq!(same.1, here, "reused: run on the calling worker itself");
            assert_ne!(other.1, here, "a pool of its own: another thread");
            (same.0, other.0)
        });
        assert_eq!((same, other), (3, 2));
        assert_eq!(on_pool(1, rayon::current_num_threads), 1);
    }

    #[test]
    fn runs_in_a_shared_pool_come_back_as_on_one_thread() {
        let cells: Vec<SimConfig> = ["gprs-eifel.toml", "gprs-eifel-100kb.toml"]
            .iter()
            .map(|n| {
                let text = crate::embedded::scenario(n).unwrap();
                spikelab_scenario::parse(text, n).unwrap().to_sim()
            })
            .collect();
        let counter = Counter::default();
        let batch = |jobs| Batch {
            reps: 3,
            seed: 7,
            jobs,
            progress: &counter,
        };
        let summary = |c: usize, r: u32, res: &RunResult| (c, r, res.events, res.end);
        let alone = run_cells(&cells, batch(1), summary).unwrap();
        // Two grids at once in one pool of two threads, as `spikelab reproduce` runs them.
        let (a, b) = on_pool(2, || {
            rayon::join(
                || run_cells(&cells, batch(2), summary).unwrap(),
                || run_cells(&cells, batch(2), summary).unwrap(),
            )
        });
        assert_eq!(a, alone);
        assert_eq!(b, alone);
        assert_eq!(alone[1][2].0, 1);
        assert_eq!(alone[1][2].1, 2);
    }
}
