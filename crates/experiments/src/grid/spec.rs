//! The experiment files under `experiments/`: a base scenario, grids of overrides,
//! the tables to write, the paper's published values, and the figures to draw.
//!
//! ```toml
//! name = "gprs-eifel"
//! title = "..."
//! scenario = "gprs-eifel.toml"        # a file of scenarios/
//! flow = "download"                   # the flow the tables report
//! notes = "model choices, as Markdown"
//!
//! [[grid]]
//! name = "main"
//! [[grid.axis]]
//! name = "tcp"
//! values = [{ label = "reno", set = { "flow.0.tcp.recovery" = "reno" } }, ...]
//!
//! [[table]]
//! grid = "main"
//! file = "table2_download_time.csv"
//! keys = ["scenario", "buffer_kb", "tcp", "eifel"]
//! metrics = [{ column = "mean", metric = "download_time_s" }]
//! rows = ["buffer_kb", "scenario"]     # the Markdown layout, like the paper's
//! columns = ["tcp", "eifel"]
//! [[table.paper]]                       # only where the paper publishes numbers
//! cell = { eifel = "off" }
//! values = { time_s = 138.0 }
//!
//! [[figure]]
//! name = "fig2"
//! kind = "time-sequence"                # or "window-timer"
//! set = { "link.0.spikes.0" = { kind = "hiccup", at = [{ start = "3s", duration = "5s" }] } }
//! ```
//!
//! A `set` key is a dotted path into the scenario's TOML: table keys and array indices
//! (`flow.0.tcp.recovery`); missing tables are created.

use serde::Deserialize;
use std::collections::BTreeMap;

/// One experiment file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    pub name: String,
    pub title: String,
    /// The base scenario, a file name in `scenarios/`.
    pub scenario: String,
    /// The flow whose metrics the tables report.
    pub flow: String,
    /// Setup and model choices, shown in the report.
    #[serde(default)]
    pub notes: String,
    #[serde(default)]
    pub grid: Vec<Grid>,
    #[serde(default)]
    pub table: Vec<TableSpec>,
    #[serde(default)]
    pub figure: Vec<FigureSpec>,
}

/// Overrides applied to the base scenario (`set`), under a label.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisValue {
    pub label: String,
    #[serde(default)]
    pub set: toml::Table,
    /// Extra key labels this value implies (e.g. `cc_restore = "-"` when Eifel is off).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

/// One dimension of a grid.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    pub name: String,
    pub values: Vec<AxisValue>,
}

/// A grid: every combination of its axes' values is one cell, run `reps` times.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    pub name: String,
    /// A base scenario for this grid instead of the experiment's.
    #[serde(default)]
    pub scenario: Option<String>,
    /// Overrides shared by every cell of the grid.
    #[serde(default)]
    pub set: toml::Table,
    pub axis: Vec<Axis>,
}

/// A metric column of a table: `column` in the CSV, `metric` a [`crate::grid::metrics`] name.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricColumn {
    pub column: String,
    pub metric: String,
}

/// Published values for one cell (the labels in `cell` pick it).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperValues {
    pub cell: BTreeMap<String, String>,
    pub values: BTreeMap<String, f64>,
}

/// A table written as CSV and Markdown.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub grid: String,
    /// The CSV file.
    pub file: String,
    /// The Markdown file, laid out like the paper's table.
    pub markdown: String,
    pub title: String,
    /// Key columns in order: axis names, or names given a fixed value in `labels`.
    pub keys: Vec<String>,
    /// Fixed key values for keys that are not axes of the grid.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    pub metrics: Vec<MetricColumn>,
    /// Axes laid out as rows and columns of the Markdown table.
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    #[serde(default)]
    pub paper: Vec<PaperValues>,
}

/// A figure: one run of the base scenario with `set` applied, traced and plotted.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    pub name: String,
    /// A base scenario for this figure instead of the experiment's.
    #[serde(default)]
    pub scenario: Option<String>,
    pub title: String,
    /// `time-sequence` or `window-timer`.
    pub kind: String,
    #[serde(default)]
    pub set: toml::Table,
    #[serde(default)]
    pub seed: Option<u64>,
}

impl ExperimentSpec {
    /// Parses an experiment file; `name` is used in error messages.
    pub fn parse(text: &str, name: &str) -> anyhow::Result<ExperimentSpec> {
        let spec: ExperimentSpec =
            toml::from_str(text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        spec.check().map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        Ok(spec)
    }

    /// The grid called `name`.
    pub fn grid(&self, name: &str) -> Option<&Grid> {
        self.grid.iter().find(|g| g.name == name)
    }

    fn check(&self) -> Result<(), String> {
        for t in &self.table {
            let g = self
                .grid(&t.grid)
                .ok_or_else(|| format!("table `{}`: no grid `{}`", t.file, t.grid))?;
            for k in t.rows.iter().chain(&t.columns) {
                if !g.axis.iter().any(|a| &a.name == k) {
                    return Err(format!(
                        "table `{}`: `{k}` is not an axis of grid `{}`",
                        t.file, g.name
                    ));
                }
            }
            let implied = |k: &String| {
                g.axis
                    .iter()
                    .any(|a| a.values.iter().any(|v| v.labels.contains_key(k)))
            };
            for k in &t.keys {
                if !g.axis.iter().any(|a| &a.name == k) && !t.labels.contains_key(k) && !implied(k)
                {
                    return Err(format!(
                        "table `{}`: key `{k}` is neither an axis nor a label",
                        t.file
                    ));
                }
            }
            for m in &t.metrics {
                if !crate::grid::metrics::NAMES.contains(&m.metric.as_str()) {
                    let known = crate::grid::metrics::NAMES.join(", ");
                    return Err(format!(
                        "table `{}`: unknown metric `{}` (known: {known})",
                        t.file, m.metric
                    ));
                }
            }
        }
        Ok(())
    }
}
