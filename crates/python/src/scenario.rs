//! A scenario as its TOML text and the checked [`Scenario`] it loads to.
//!
//! Edits go through the one dotted-path setter, [`spikelab_scenario::set_path`], so
//! `flow.0.tcp.recovery` means here what it means in experiment grids; the edited
//! document is written back to TOML and checked again, so an edit can never leave a
//! scenario the CLI would refuse.

use crate::convert::{py_to_table, py_to_toml, scenario_error, table_to_py};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use spikelab_scenario::{Scenario, ScenarioError};

/// A checked scenario: its text, the name it was loaded under, and what it resolved to.
#[pyclass(module = "spikelab._native", frozen)]
pub struct NativeScenario {
    text: String,
    name: String,
    pub(crate) scenario: Scenario,
}

impl NativeScenario {
    fn check(py: Python<'_>, text: String, name: String) -> PyResult<NativeScenario> {
        let scenario =
            spikelab_scenario::parse(&text, &name).map_err(|e| scenario_error(py, &e))?;
        Ok(NativeScenario {
            text,
            name,
            scenario,
        })
    }

    /// An error about the whole document of this scenario (no line inside it).
    fn whole_file_error(&self, field: Option<String>, message: String) -> ScenarioError {
        ScenarioError {
            file: self.name.clone(),
            line: 0,
            col: 0,
            field,
            message,
        }
    }

    fn table(&self) -> toml::Table {
        self.text
            .parse()
            .expect("the text of a checked scenario is valid TOML")
    }
}

#[pymethods]
impl NativeScenario {
    /// Checks scenario `text` read from `name` (messages, default run name, base of
    /// relative paths).
    #[staticmethod]
    fn parse(py: Python<'_>, text: String, name: String) -> PyResult<NativeScenario> {
        NativeScenario::check(py, text, name)
    }

    /// Checks the scenario whose TOML document is the dict `d`.
    #[staticmethod]
    fn from_dict(py: Python<'_>, d: &Bound<'_, PyDict>, name: String) -> PyResult<NativeScenario> {
        let table = py_to_table(d)?;
        let text = toml::to_string(&table).map_err(|e| {
            let err = ScenarioError {
                file: name.clone(),
                line: 0,
                col: 0,
                field: None,
                message: format!("not expressible as TOML: {e}"),
            };
            scenario_error(py, &err)
        })?;
        NativeScenario::check(py, text, name)
    }

    /// This scenario with `value` set at each dotted `path`, in order.
    fn with_values(
        &self,
        py: Python<'_>,
        values: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<NativeScenario> {
        let mut table = self.table();
        for (path, value) in values {
            spikelab_scenario::set_path(&mut table, &path, py_to_toml(&value)?)
                .map_err(|e| scenario_error(py, &self.whole_file_error(Some(path), e)))?;
        }
        let text = toml::to_string(&table).map_err(|e| {
            scenario_error(
                py,
                &self.whole_file_error(None, format!("not expressible as TOML: {e}")),
            )
        })?;
        NativeScenario::check(py, text, self.name.clone())
    }

    /// The TOML text.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// The name the scenario was loaded under.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The TOML document as nested dicts and lists.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_py(py, &self.table())
    }

    /// `[run] name`.
    #[getter]
    fn run_name(&self) -> &str {
        &self.scenario.run().name
    }

    /// `[run] seed`.
    #[getter]
    fn run_seed(&self) -> u64 {
        self.scenario.run().seed
    }

    /// `[run] reps`.
    #[getter]
    fn run_reps(&self) -> u32 {
        self.scenario.run().reps
    }

    /// Resolved flow names in engine order (`name#i` for replicas).
    #[getter]
    fn flow_names(&self) -> Vec<String> {
        self.scenario
            .flow_names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }
}
