//! One run and one cell of [Klein et al. 2004] IV's TCP simulation reduced to the
//! numbers the fit and the tests read (timeouts, fast retransmissions, throughput).
//! The sweep itself (Figs. 4-8, oracle vs. blind) is `experiments/delay-injection.toml`.

use super::tcp::Injection;
use crate::artifacts::mean_ci;
use spikelab_engine::RunResult;

/// One run of the transfer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// The transfer finished before the run's time limit.
    pub completed: bool,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmissions.
    pub fast_retransmits: u64,
    /// kbit/s (NaN if unfinished).
    pub throughput_kbps: f64,
}

/// Reduces a run.
pub fn summarize(r: &RunResult) -> Run {
    let f = &r.flows[0];
    Run {
        completed: f.completed.is_some(),
        timeouts: f.timeouts,
        fast_retransmits: f.fast_retransmits,
        throughput_kbps: f.throughput_bps().map_or(f64::NAN, |b| b / 1000.0),
    }
}

/// One cell over its repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// The injection (None: no jitter).
    pub inj: Option<Injection>,
    /// Repetitions.
    pub n: usize,
    /// Repetitions that finished.
    pub completed: usize,
    /// Timeouts per transfer: mean and 95% half-width.
    pub timeouts: (f64, f64),
    /// Fast retransmissions per transfer: mean and 95% half-width.
    pub fast_retransmits: (f64, f64),
    /// Throughput of finished transfers, kbit/s: mean and 95% half-width.
    pub throughput: (f64, f64),
}

/// Aggregates one cell.
pub fn point(inj: Option<Injection>, runs: &[Run]) -> Point {
    let of = |f: fn(&Run) -> f64| mean_ci(&runs.iter().map(f).collect::<Vec<_>>());
    let done: Vec<f64> = runs
        .iter()
        .filter(|r| r.completed)
        .map(|r| r.throughput_kbps)
        .collect();
    Point {
        inj,
        n: runs.len(),
        completed: done.len(),
        timeouts: of(|r| r.timeouts as f64),
        fast_retransmits: of(|r| r.fast_retransmits as f64),
        throughput: mean_ci(&done),
    }
}
