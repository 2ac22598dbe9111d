//! Running repetitions with the GIL released, and their outcomes as tables.
//!
//! Repetitions run on a rayon pool in a helper thread while the calling thread waits
//! with the GIL released; it wakes when the work is done, and every [`TICK`] between,
//! to report progress and to check for signals (Ctrl-C), which only the main thread
//! can see. On an interrupt no new repetition starts, the running ones finish, and
//! `KeyboardInterrupt` is raised: nothing half-done is returned.

use crate::scenario::NativeScenario;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use spikelab_core::RngStreams;
use spikelab_engine::SimConfig;
use spikelab_results::{Column, Columns, RepOutcome, RunInfo};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How often the waiting thread reports progress and checks for Ctrl-C.
const TICK: Duration = Duration::from_millis(100);

/// What the worker threads share with the waiting thread.
struct Shared {
    /// Set on an interrupt: start no more repetitions.
    cancel: AtomicBool,
    /// Repetitions ended so far.
    ended: AtomicUsize,
}

/// Runs repetitions `start..end` of `scenario` from base `seed` on `jobs` threads
/// (default: every core); `progress(n)` is called as repetitions end.
#[pyfunction]
#[pyo3(signature = (scenario, seed, start, end, jobs=None, progress=None))]
pub fn run_reps(
    py: Python<'_>,
    scenario: &NativeScenario,
    seed: u64,
    start: u32,
    end: u32,
    jobs: Option<usize>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<Outcomes> {
    let sim = scenario.scenario.sim();
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the worker threads: {e}")))?;
    let shared = &Shared {
        cancel: AtomicBool::new(false),
        ended: AtomicUsize::new(0),
    };
    let pool = &pool;
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let results = std::thread::scope(|scope| -> PyResult<_> {
        // The worker owns the sender: when it ends, even by a panic, `wait` wakes up.
        let worker = scope.spawn(move || {
            let out = pool.install(|| run_range(sim, seed, start..end, shared));
            drop(done_tx);
            out
        });
        let interrupted = wait(py, done_rx, shared, progress.as_ref());
        let results = worker
            .join()
            .map_err(|_| PyRuntimeError::new_err("a simulation thread panicked"))?;
        match interrupted {
            Some(e) => Err(e),
            None => Ok(results),
        }
    })?;
    let reps: Result<Vec<RepOutcome>, String> = results.into_iter().flatten().collect();
    Ok(Outcomes {
        reps: reps.map_err(PyRuntimeError::new_err)?,
    })
}

/// Runs repetitions `reps` in parallel, skipping those not started before `cancel`.
fn run_range(
    sim: &SimConfig,
    seed: u64,
    reps: std::ops::Range<u32>,
    shared: &Shared,
) -> Vec<Option<Result<RepOutcome, String>>> {
    reps.into_par_iter()
        .map(|rep| {
            if shared.cancel.load(Ordering::Relaxed) {
                return None;
            }
            let seed = RngStreams::repetition_seed(seed, rep as u64);
            let r = spikelab_engine::run(sim, seed)
                .map(|r| RepOutcome::from_result(rep, seed, r))
                .map_err(|e| format!("repetition {rep} (seed {seed}): {e}"));
            shared.ended.fetch_add(1, Ordering::Relaxed);
            Some(r)
        })
        .collect()
}

/// Waits, GIL released, until the worker closes `done`; every [`TICK`] and at the end
/// reports progress and checks signals. Returns the interrupt, if one came.
fn wait(
    py: Python<'_>,
    mut done: mpsc::Receiver<()>,
    shared: &Shared,
    progress: Option<&Bound<'_, PyAny>>,
) -> Option<PyErr> {
    let mut interrupted = None;
    let mut reported = 0;
    loop {
        let (r, back) = py.allow_threads(move || (done.recv_timeout(TICK), done));
        done = back;
        let finished = r == Err(mpsc::RecvTimeoutError::Disconnected);
        let ended = shared.ended.load(Ordering::Relaxed);
        if let (Some(p), true) = (progress, ended > reported) {
            if let Err(e) = p.call1((ended - reported,)) {
                interrupted.get_or_insert(e);
            }
            reported = ended;
        }
        if interrupted.is_none() {
            interrupted = py.check_signals().err();
        }
        if interrupted.is_some() {
            shared.cancel.store(true, Ordering::Relaxed);
        }
        if finished {
            return interrupted;
        }
    }
}

/// The outcomes of some repetitions of one scenario, in repetition order. Picklable
/// (as JSON), so chunks run on other machines come back exactly.
#[pyclass(module = "spikelab._native", frozen)]
pub struct Outcomes {
    reps: Vec<RepOutcome>,
}

#[pymethods]
impl Outcomes {
    fn __len__(&self) -> usize {
        self.reps.len()
    }

    /// The repetition numbers held, in order.
    #[getter]
    fn reps(&self) -> Vec<u32> {
        self.reps.iter().map(|o| o.rep).collect()
    }

    /// The outcomes as JSON (exact: every number in them is an integer).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.reps).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Outcomes from [`Outcomes::to_json`].
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Outcomes> {
        let reps = serde_json::from_str(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Outcomes { reps })
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = py
            .import("spikelab._native")?
            .getattr("Outcomes")?
            .getattr("from_json")?;
        Ok((from_json, (self.to_json()?,)))
    }

    /// Several parts as one, in repetition order; a repetition held twice is an error.
    #[staticmethod]
    fn concat(parts: Vec<PyRef<'_, Outcomes>>) -> PyResult<Outcomes> {
        let mut reps: Vec<RepOutcome> = parts.iter().flat_map(|p| p.reps.clone()).collect();
        reps.sort_by_key(|o| o.rep);
        if let Some(w) = reps.windows(2).find(|w| w[0].rep == w[1].rep) {
            return Err(PyValueError::new_err(format!(
                "repetition {} is held twice",
                w[0].rep
            )));
        }
        Ok(Outcomes { reps })
    }

    /// The table `name` (runs, summary, timeouts, detectors, links) as
    /// `(column, kind, values)` triples; kind is u64, f64, str, bool or missing.
    fn table<'py>(
        &self,
        py: Python<'py>,
        scenario: &NativeScenario,
        name: &str,
    ) -> PyResult<Vec<(String, &'static str, Bound<'py, PyAny>)>> {
        let build = spikelab_results::builder::<Columns>(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "no table `{name}`; the tables are {}",
                spikelab_results::TABLES.join(", ")
            ))
        })?;
        let mut cols = Columns::default();
        build(&mut cols, scenario.scenario.sim(), &self.reps)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        cols.names
            .into_iter()
            .zip(cols.columns)
            .map(|(n, c)| {
                let (kind, values) = column_to_py(py, c)?;
                Ok((n, kind, values))
            })
            .collect()
    }

    /// `meta.json` of these repetitions as run from base `seed`.
    fn meta_json(&self, scenario: &NativeScenario, seed: u64) -> PyResult<String> {
        let s = &scenario.scenario;
        let info = RunInfo::new(seed, self.reps.len() as u32);
        spikelab_results::meta_json(s.source(), s.record(), &info, &self.reps)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }
}

fn column_to_py(py: Python<'_>, c: Column) -> PyResult<(&'static str, Bound<'_, PyAny>)> {
    Ok(match c {
        Column::Missing(n) => ("missing", vec![f64::NAN; n].into_pyobject(py)?),
        Column::U64(v) => ("u64", v.into_pyobject(py)?),
        Column::F64(v) => ("f64", v.into_pyobject(py)?),
        Column::Str(v) => ("str", v.into_pyobject(py)?),
        Column::Bool(v) => ("bool", v.into_pyobject(py)?),
    })
}

/// The trace CSV (the CLI's `trace/rep<r>.csv` format) of repetition `rep` from base
/// `seed`, simulated again with tracing on: the run is a function of its seed, so it
/// is the repetition the tables describe.
#[pyfunction]
pub fn trace_csv<'py>(
    py: Python<'py>,
    scenario: &NativeScenario,
    seed: u64,
    rep: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut sim = scenario.scenario.to_sim();
    sim.trace = spikelab_engine::TraceKinds::ALL;
    let seed = RngStreams::repetition_seed(seed, rep as u64);
    let bytes = py.allow_threads(|| -> Result<Vec<u8>, String> {
        let r = spikelab_engine::run(&sim, seed)
            .map_err(|e| format!("repetition {rep} (seed {seed}): {e}"))?;
        let mut out = Vec::new();
        spikelab_output::csv::write_trace(&mut out, &r.trace).map_err(|e| e.to_string())?;
        Ok(out)
    });
    Ok(PyBytes::new(py, &bytes.map_err(PyRuntimeError::new_err)?))
}
