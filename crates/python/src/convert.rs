//! Python values to TOML values and back, and scenario errors to `ScenarioError`.

use crate::ScenarioError;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A TOML value as Python: tables become dicts, arrays lists, datetimes strings.
pub fn toml_to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => PyString::new(py, s).into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => f.into_pyobject(py)?.into_any(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        toml::Value::Datetime(d) => PyString::new(py, &d.to_string()).into_any(),
        toml::Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(toml_to_py(py, x)?)?;
            }
            list.into_any()
        }
        toml::Value::Table(t) => table_to_py(py, t)?.into_any(),
    })
}

/// A TOML table as a Python dict, keys in document order.
pub fn table_to_py<'py>(py: Python<'py>, t: &toml::Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        d.set_item(k, toml_to_py(py, v)?)?;
    }
    Ok(d)
}

/// A Python value as TOML: bool, int, float, str, list/tuple, dict with str keys, and
/// numpy scalars (through their `.item()`).
pub fn py_to_toml(obj: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if let Ok(b) = obj.downcast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(obj.extract()?));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(obj.extract()?));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(obj.extract()?));
    }
    if let Ok(d) = obj.downcast::<PyDict>() {
        return Ok(toml::Value::Table(py_to_table(d)?));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<_>> = obj.try_iter()?.map(|x| py_to_toml(&x?)).collect();
        return Ok(toml::Value::Array(items?));
    }
    if obj.hasattr("item")? && obj.hasattr("dtype")? {
        return py_to_toml(&obj.call_method0("item")?);
    }
    Err(PyTypeError::new_err(format!(
        "a scenario value must be a bool, int, float, str, list or dict, not {}",
        obj.get_type().name()?
    )))
}

/// A Python dict with str keys as a TOML table.
pub fn py_to_table(d: &Bound<'_, PyDict>) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("scenario keys must be str, not {k}")))?;
        t.insert(key, py_to_toml(&v)?);
    }
    Ok(t)
}

/// The Python `ScenarioError` for `e`: its message is the CLI's, its attributes the parts.
pub fn scenario_error(py: Python<'_>, e: &spikelab_scenario::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    let parts = || -> PyResult<()> {
        v.setattr("file", &e.file)?;
        v.setattr("line", e.line)?;
        v.setattr("column", e.col)?;
        v.setattr("field", &e.field)?;
        v.setattr("reason", &e.message)
    };
    match parts() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}
