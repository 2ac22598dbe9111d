//! `spikelab.advise(...)`: the answer of `spikelab advise` as the text of its
//! advise.csv, which the Python half reads into a DataFrame (so the DataFrame holds
//! exactly what the CLI's CSV holds for the same seed and repetitions).

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use spikelab_experiments::advise::answer::answer;
use spikelab_experiments::advise::fixes::Side;
use spikelab_experiments::advise::input::{self, TraceKind};
use spikelab_experiments::advise::report::{notes, write_csv};
use spikelab_experiments::advise::{self as adv, Objective, Options, Reps};
use spikelab_experiments::runner::Counter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// A scratch folder for a wrapped trace (removed when the call ends).
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        Scratch(std::env::temp_dir().join(format!("spikelab-advise-{}-{n}", std::process::id())))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn bad(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Options from the keyword arguments, or the ValueError a bad one raises.
#[allow(clippy::too_many_arguments)]
fn options(
    objective: &str,
    reps: Option<u32>,
    budget: Option<f64>,
    only: Option<&str>,
    seed: Option<u64>,
    jobs: Option<usize>,
    flow: Option<String>,
    fixes: Vec<String>,
    combine: bool,
) -> PyResult<Options> {
    let objective = Objective::from_name(objective).ok_or_else(|| {
        bad(format!(
            "objective `{objective}`: expected one of {}",
            Objective::NAMES.join(", ")
        ))
    })?;
    let only = match only {
        None => None,
        Some("sender") => Some(Side::Sender),
        Some("network") => Some(Side::Network),
        Some(o) => return Err(bad(format!("only `{o}`: expected sender or network"))),
    };
    if reps.is_some_and(|r| !(2..=adv::MAX_REPS).contains(&r)) {
        return Err(bad(format!("reps: expected 2 to {}", adv::MAX_REPS)));
    }
    if budget.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
        return Err(bad("budget: expected a positive number of seconds"));
    }
    let reps = match (reps, budget) {
        (Some(n), _) => Reps::Fixed(n),
        (None, Some(s)) => Reps::Budget(s),
        (None, None) => Reps::Until {
            max: adv::DEFAULT_MAX_REPS,
        },
    };
    Ok(Options {
        objective,
        reps,
        only,
        seed,
        jobs: jobs.unwrap_or_else(spikelab_experiments::runner::default_jobs),
        flow,
        fixes,
        combine,
        ..Options::default()
    })
}

/// Runs the advice on `path`; returns (advise.csv text, repetitions, seed, the answer
/// paragraph followed by the notes).
#[pyfunction]
#[pyo3(signature = (path, objective="time", reps=None, budget=None, only=None, seed=None, jobs=None, flow=None, fixes=Vec::new(), trace_kind="auto", combine=true))]
#[allow(clippy::too_many_arguments)]
pub fn advise(
    py: Python<'_>,
    path: PathBuf,
    objective: &str,
    reps: Option<u32>,
    budget: Option<f64>,
    only: Option<&str>,
    seed: Option<u64>,
    jobs: Option<usize>,
    flow: Option<String>,
    fixes: Vec<String>,
    trace_kind: &str,
    combine: bool,
) -> PyResult<(String, u32, u64, Vec<String>)> {
    let opts = options(
        objective, reps, budget, only, seed, jobs, flow, fixes, combine,
    )?;
    let kind = TraceKind::from_name(trace_kind).ok_or_else(|| {
        bad(format!(
            "trace_kind `{trace_kind}`: expected one of {}",
            TraceKind::NAMES.join(", ")
        ))
    })?;
    let scratch = Scratch::new();
    let input = input::read(&path, kind, &scratch.0)
        .map_err(|e| crate::ScenarioError::new_err(e.to_string()))?;
    let plan = adv::plan(&input, &opts).map_err(bad)?;
    if plan.candidates.len() < 2 {
        return Err(bad("no fix to compare on this path"));
    }
    let advice = py
        .allow_threads(|| adv::run(&input, plan, &opts, &Counter::default()))
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let mut csv = Vec::new();
    write_csv(&advice, &mut csv).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let text = String::from_utf8(csv).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let invocation = format!("spikelab advise {}", path.display());
    let mut said = vec![answer(&advice)];
    said.extend(notes(&advice, &invocation));
    Ok((text, advice.reps, advice.seed, said))
}
