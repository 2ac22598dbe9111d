//! The TCP sweep of [Klein et al. 2004] IV: timeouts against the jitter period N for
//! D0 = 40, 60, 80, 100 ms and the three methods (Figs. 4-7), FTFD throughput against N
//! (Fig. 8), and the same timeout sweep with blind packet selection and with FIFO
//! holding; the cells are `experiments/delay-injection.toml`'s grids, read back here
//! as points.

use super::tcp::{Injection, Pick};
use crate::artifacts::mean_ci;
use spikelab_engine::RunResult;
use spikelab_net::middlebox::InjectionMethod;

/// The three methods of section III.
pub const METHODS: [InjectionMethod; 3] = [
    InjectionMethod::Ftfd,
    InjectionMethod::Rtfd,
    InjectionMethod::Rtrd,
];

/// A method's label.
pub fn method_label(m: InjectionMethod) -> &'static str {
    match m {
        InjectionMethod::Ftfd => "FTFD",
        InjectionMethod::Rtfd => "RTFD",
        InjectionMethod::Rtrd => "RTRD",
    }
}

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

/// All points, looked up by injection.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// One per cell, in sweep order.
    pub points: Vec<Point>,
}

impl Results {
    /// The point without injection.
    pub fn none(&self) -> &Point {
        self.get(None)
            .expect("the sweep always runs without injection")
    }

    /// The point of `inj`, if swept.
    pub fn get(&self, inj: Option<Injection>) -> Option<&Point> {
        self.points.iter().find(|p| p.inj == inj)
    }

    /// The point of (method, D0, N, pick); panics if not swept.
    pub fn at(&self, method: InjectionMethod, d0_ms: u64, n: u32, pick: Pick) -> &Point {
        self.get(Some(Injection {
            method,
            d0_ms,
            n,
            pick,
        }))
        .expect("a swept cell")
    }

    /// The injected points with `pick` (and `method` if given), in sweep order.
    pub fn with(&self, pick: Pick, method: Option<InjectionMethod>) -> Vec<&Point> {
        self.points
            .iter()
            .filter(|p| {
                p.inj
                    .is_some_and(|i| i.pick == pick && method.is_none_or(|m| i.method == m))
            })
            .collect()
    }

    /// The point with the fewest mean timeouts (ties: higher throughput), or the most
    /// throughput, among `pts`.
    pub fn best<'a>(pts: &[&'a Point], by_throughput: bool) -> Option<&'a Point> {
        let key = |p: &Point| {
            if by_throughput {
                (p.throughput.0, 0.0)
            } else {
                (-p.timeouts.0, p.throughput.0)
            }
        };
        pts.iter().copied().max_by(|a, b| {
            key(a)
                .partial_cmp(&key(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    }
}
