//! `spikelab._native`: the Rust half of the `spikelab` Python package.
//!
//! It loads and edits scenarios ([`scenario`]), runs repetitions with the GIL released
//! ([`run`]) and hands out the tables of `spikelab_results` as typed columns, which the
//! pure-Python half (`python/spikelab`) turns into pandas DataFrames. Every table comes
//! from the same row builders as the CLI's CSV files, and repetition r always runs with
//! `RngStreams::repetition_seed(seed, r)`, so a DataFrame holds what the CSV file holds.

mod advise;
mod convert;
mod run;
mod scenario;

use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    ScenarioError,
    pyo3::exceptions::PyValueError,
    "A bad scenario: `file`, `line`, `column` (0 when not inside the file), `field` and `reason`; str() is the CLI's one-line message."
);

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<scenario::NativeScenario>()?;
    m.add_class::<run::Outcomes>()?;
    m.add_function(wrap_pyfunction!(run::run_reps, m)?)?;
    m.add_function(wrap_pyfunction!(run::trace_csv, m)?)?;
    m.add_function(wrap_pyfunction!(advise::advise, m)?)?;
    Ok(())
}
