//! Loading a scenario with `--set KEY=VALUE` overrides.
//!
//! KEY is a dotted path as in the experiment grids (`flow.0.tcp.recovery`), applied with
//! the shared setter [`spikelab_scenario::set_path`]; VALUE is read as a TOML value
//! (`3`, `true`, `[1, 2]`, `{ dist = "uniform", min = "1s", max = "2s" }`, `"text"`) and
//! taken as a string when it is not one (`new-reno`, `300KB`, `5s`). The overrides are
//! applied in order to the file's document, which is then checked like a file.
//!
//! Errors keep the usual one-line form and name the key: a problem in a field an
//! override set (or inside it) is reported as `--set KEY=VALUE: field `…`: why`; a
//! problem the file has by itself keeps its file:line:col; any other problem the
//! combination causes names the file and the overrides, without a line (the checked
//! text is not the file's).

use crate::exit::Failure;
use anyhow::anyhow;
use spikelab_scenario::{Scenario, ScenarioError};
use std::path::Path;

/// One `--set` override.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// The dotted path.
    pub key: String,
    /// The value as typed.
    pub raw: String,
    /// The value as set.
    pub value: toml::Value,
}

/// Parses `KEY=VALUE`.
pub fn parse_override(s: &str) -> anyhow::Result<Override> {
    let bad = || {
        anyhow!(
            "--set `{s}`: expected KEY=VALUE with a dotted KEY, e.g. flow.0.tcp.recovery=new-reno"
        )
    };
    let (key, raw) = s.split_once('=').ok_or_else(bad)?;
    let key = key.trim();
    if key.is_empty() || key.split('.').any(str::is_empty) {
        return Err(bad());
    }
    let raw = raw.trim();
    Ok(Override {
        key: key.to_owned(),
        raw: raw.to_owned(),
        value: parse_value(raw),
    })
}

/// `raw` as a TOML value, or as a string when it is not one.
pub fn parse_value(raw: &str) -> toml::Value {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .filter(|t| t.len() == 1)
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_owned()))
}

/// Loads the scenario at `path` with the overrides `sets` (`KEY=VALUE` each).
pub fn load(path: &Path, sets: &[String]) -> Result<Scenario, Failure> {
    if sets.is_empty() {
        return spikelab_scenario::load(path).map_err(Failure::usage);
    }
    let overrides: Vec<Override> = sets
        .iter()
        .map(|s| parse_override(s))
        .collect::<anyhow::Result<_>>()
        .map_err(Failure::usage)?;
    let name = path.display().to_string();
    // Unreadable files and TOML syntax errors: the plain loader's located error.
    let text = std::fs::read_to_string(path).ok();
    let doc = text.as_deref().and_then(|t| t.parse::<toml::Table>().ok());
    let (Some(text), Some(mut doc)) = (text, doc) else {
        let e = spikelab_scenario::load(path).err();
        return Err(Failure::usage(
            e.map_or_else(|| anyhow!("{name}: cannot read"), Into::into),
        ));
    };
    for o in &overrides {
        spikelab_scenario::set_path(&mut doc, &o.key, o.value.clone())
            .map_err(|e| Failure::usage(anyhow!("--set {}={}: {e}", o.key, o.raw)))?;
    }
    let rewritten = toml::to_string(&doc).map_err(|e| Failure::usage(anyhow!("--set: {e}")))?;
    spikelab_scenario::parse(&rewritten, &name)
        .map_err(|e| Failure::usage(explain(e, &overrides, &text, &name)))
}

/// The error of the overridden scenario, attributed as the module docs say.
fn explain(e: ScenarioError, overrides: &[Override], text: &str, name: &str) -> anyhow::Error {
    let field = e.field.clone().unwrap_or_default();
    if let Some(o) = overrides
        .iter()
        .rev()
        .find(|o| !field.is_empty() && related(&field, &field_of(&o.key)))
    {
        return anyhow!("--set {}={}: field `{field}`: {}", o.key, o.raw, e.message);
    }
    if let Err(own) = spikelab_scenario::parse(text, name) {
        return own.into();
    }
    let keys: Vec<&str> = overrides.iter().map(|o| o.key.as_str()).collect();
    let unlocated = ScenarioError {
        file: format!("{name} with --set {}", keys.join(", ")),
        line: 0,
        col: 0,
        ..e
    };
    unlocated.into()
}

/// The error-message form of a dotted key: `flow.0.tcp` is `flow[0].tcp`.
pub fn field_of(key: &str) -> String {
    let mut s = String::new();
    for (i, part) in key.split('.').enumerate() {
        if part.parse::<usize>().is_ok() {
            s.push_str(&format!("[{part}]"));
        } else {
            if i > 0 {
                s.push('.');
            }
            s.push_str(part);
        }
    }
    s
}

/// One field is the other or lies inside it.
fn related(a: &str, b: &str) -> bool {
    let inside = |x: &str, y: &str| {
        x == y
            || x.strip_prefix(y)
                .is_some_and(|t| t.starts_with('.') || t.starts_with('['))
    };
    inside(a, b) || inside(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_toml_or_else_strings() {
        assert_eq!(parse_value("3"), toml::Value::Integer(3));
        assert_eq!(parse_value("true"), toml::Value::Boolean(true));
        assert_eq!(
            parse_value("new-reno"),
            toml::Value::String("new-reno".into())
        );
        assert_eq!(parse_value("300KB"), toml::Value::String("300KB".into()));
        assert_eq!(parse_value("\"5s\""), toml::Value::String("5s".into()));
        let t = parse_value("{ min = \"1s\", max = \"2s\" }");
        assert_eq!(t.get("max").and_then(|v| v.as_str()), Some("2s"));
    }

    #[test]
    fn a_set_without_key_or_equals_is_refused() {
        for bad in ["flow.0.tcp", "=3", "flow..tcp=3", ".x=1"] {
            assert!(parse_override(bad).is_err(), "{bad}");
        }
        let o = parse_override("flow.0.tcp.recovery = new-reno").unwrap();
        assert_eq!(
            (o.key.as_str(), o.raw.as_str()),
            ("flow.0.tcp.recovery", "new-reno")
        );
    }

    #[test]
    fn dotted_keys_read_as_error_fields() {
        assert_eq!(field_of("flow.0.tcp.recovery"), "flow[0].tcp.recovery");
        assert!(related("flow[0].tcp.recovery", "flow[0].tcp"));
        assert!(related("flow[0]", "flow[0].tcp"));
        assert!(!related("flow[0].tcpx", "flow[0].tcp"));
        assert!(!related("flow[1].tcp", "flow[10].tcp"));
    }
}
