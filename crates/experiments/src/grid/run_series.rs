//! Run series: metrics that give a run a table of samples rather than one number (e.g.
//! every RTO computation's time, RTT and RTO, [Ekström & Ludwig 2004] Fig. 18). The
//! grid keeps a run series of each cell's first repetition (the first seed), which a
//! `kind = "run"` chart draws as lines against one of its columns and a `[[csv]]` with
//! `run_series` writes row by row.
//!
//! ```toml
//! [[chart]]
//! name = "c-fig18a"
//! grid = "fig18"
//! kind = "run"
//! metric = "rto_samples"
//! x = "time_s"
//! x_from = 15.0
//! lines = [{ column = "rtt_s", label = "RTT" }, { column = "rto_s", label = "RTO" }]
//! where = { timer = "PH-RTO", timestamps = "0" }
//! ```

use super::run::GridResult;
use super::spec::{ChartKind, ChartSpec, CsvSpec, ExperimentSpec, Grid};
use crate::artifacts::{chart, csv_file, finish_csv, line_figure};
use crate::context::Context;
use crate::metrics::RunView;
use crate::report::Figure;
use anyhow::anyhow;
use serde::Deserialize;
use spikelab_output::plot::Series;
use spikelab_scenario::{FieldPath, Invalid};
use std::collections::BTreeMap;

/// A table of samples over one run.
pub struct RunSeries {
    pub name: &'static str,
    /// The columns of every sample, in order.
    pub columns: &'static [&'static str],
    /// It reads every RTO computation (the grid records them).
    pub needs_rto: bool,
    pub value: fn(&RunView) -> Samples,
}

/// A run's samples, each a row of [`RunSeries::columns`].
pub type Samples = Vec<Vec<f64>>;

/// Per cell, each run series of its first repetition.
pub type FirstRuns = Vec<BTreeMap<String, Samples>>;

/// Every run series.
pub const SERIES: &[RunSeries] = &[RunSeries {
    name: "rto_samples",
    columns: &["time_s", "rtt_s", "rto_s"],
    needs_rto: true,
    value: rto_samples,
}];

/// Every RTO computation of the experiment's flow: when (s), the RTT sample it took
/// (s) and the RTO it set (s).
fn rto_samples(v: &RunView) -> Samples {
    let samples = &v.result.flows[v.flow].rto_samples;
    let row = |s: &spikelab_engine::results::RtoSample| {
        vec![
            s.time.as_secs_f64(),
            s.rtt.as_secs_f64(),
            s.rto.as_secs_f64(),
        ]
    };
    samples.iter().map(row).collect()
}

/// The run series called `name`.
pub fn find(name: &str) -> Option<&'static RunSeries> {
    SERIES.iter().find(|s| s.name == name)
}

fn known_names() -> String {
    SERIES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// One line of a `run` chart: a column of the samples and its legend.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    pub column: String,
    pub label: String,
}

/// The run series grid `g` keeps: those its `run` charts and `run_series` CSV files name.
pub fn wanted(spec: &ExperimentSpec, g: &Grid) -> Vec<String> {
    let charts = spec.chart.iter().filter(|c| c.kind == ChartKind::Run);
    let names = charts
        .filter(|c| c.grid == g.name)
        .map(|c| &c.metric)
        .chain(
            spec.csv
                .iter()
                .filter(|c| c.grid == g.name)
                .filter_map(|c| c.run_series.as_ref()),
        );
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// `name` is a run series and `column` one of its columns, or the problem at `at`.
fn column(what: &str, name: &str, column: &str, at: FieldPath) -> Result<(), Invalid> {
    let s = find(name).ok_or_else(|| unknown(what, name, at.clone()))?;
    if s.columns.contains(&column) {
        return Ok(());
    }
    let known = s.columns.join(", ");
    let why = format!("{what}: `{name}` has no column `{column}` (its columns: {known})");
    Err(Invalid::new(at, why))
}

fn unknown(what: &str, name: &str, at: FieldPath) -> Invalid {
    let why = format!(
        "{what}: unknown run series `{name}` (known: {})",
        known_names()
    );
    Invalid::new(at, why)
}

/// Every `run` chart and `run_series` CSV file names a known run series and its columns.
pub fn check(spec: &ExperimentSpec) -> Result<(), Invalid> {
    for (i, c) in spec.chart.iter().enumerate() {
        if c.kind == ChartKind::Run {
            check_chart(c, FieldPath::root("chart").index(i))?;
        }
    }
    for (i, c) in spec.csv.iter().enumerate() {
        check_csv(c, FieldPath::root("csv").index(i))?;
    }
    Ok(())
}

fn check_chart(c: &ChartSpec, at: FieldPath) -> Result<(), Invalid> {
    let what = format!("chart `{}`", c.name);
    if find(&c.metric).is_none() {
        return Err(unknown(&what, &c.metric, at.key("metric")));
    }
    column(&what, &c.metric, &c.x, at.key("x"))?;
    if c.lines.is_empty() {
        let why = format!("{what}: a run chart needs `lines`");
        return Err(Invalid::new(at, why));
    }
    for (j, l) in c.lines.iter().enumerate() {
        column(
            &what,
            &c.metric,
            &l.column,
            at.key("lines").index(j).key("column"),
        )?;
    }
    Ok(())
}

fn check_csv(c: &CsvSpec, at: FieldPath) -> Result<(), Invalid> {
    let what = format!("csv `{}`", c.file);
    if let Some(s) = &c.run_series {
        if find(s).is_none() {
            return Err(unknown(&what, s, at.key("run_series")));
        }
    }
    for (j, col) in c.columns.iter().enumerate() {
        let col_at = at.key("columns").index(j);
        match (&c.run_series, &col.column) {
            (Some(s), Some(name)) => column(&what, s, name, col_at.key("column"))?,
            (None, Some(_)) => {
                let why = format!("{what}: `column` is a field of a `run_series` file's sample");
                return Err(Invalid::new(col_at.key("column"), why));
            }
            (Some(_), None) if col.key.is_none() => {
                let why = format!("{what}: a `run_series` file's column has `key` or `column`");
                return Err(Invalid::new(col_at, why));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A `run` chart of the one cell `where` picks, drawn into `ctx.dir`.
pub fn draw(ctx: &Context, c: &ChartSpec, g: &GridResult) -> anyhow::Result<Figure> {
    let samples = one_cell(c, g)?;
    let series = find(&c.metric).ok_or_else(|| anyhow!("chart {}: no run series", c.name))?;
    let col = |name: &str| series.columns.iter().position(|n| *n == name);
    let x = col(&c.x).ok_or_else(|| anyhow!("chart {}: no column `{}`", c.name, c.x))?;
    let from = c.x_from.unwrap_or(f64::NEG_INFINITY);
    let lines = c
        .lines
        .iter()
        .map(|l| {
            let y = col(&l.column).ok_or_else(|| anyhow!("chart {}: no column", c.name))?;
            let rows = samples.iter().filter(|row| row[x] >= from);
            Ok(Series {
                label: l.label.clone(),
                points: rows.map(|row| (row[x], row[y])).collect(),
                ci: vec![],
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    line_figure(
        ctx,
        &c.name,
        chart(&c.title, &c.x_label, &c.y_label),
        &lines,
    )
}

/// The first run's samples of the one cell the chart's `where` picks.
fn one_cell<'a>(c: &ChartSpec, g: &'a GridResult) -> anyhow::Result<&'a Samples> {
    let picks = |l: &BTreeMap<String, String>| c.filter.iter().all(|(k, v)| l.get(k) == Some(v));
    let cells: Vec<usize> = (0..g.labels.len())
        .filter(|&i| picks(&g.labels[i]))
        .collect();
    let [cell] = cells[..] else {
        return Err(anyhow!(
            "chart {}: `where` picks {} cells; a run chart draws one",
            c.name,
            cells.len()
        ));
    };
    g.first_runs[cell]
        .get(&c.metric)
        .ok_or_else(|| anyhow!("chart {}: `{}` not kept", c.name, c.metric))
}

/// A `run_series` CSV file: per cell, in grid order, a row per sample of its first run.
pub fn write_csv(ctx: &Context, spec: &CsvSpec, g: &GridResult, name: &str) -> anyhow::Result<()> {
    let header: Vec<&str> = spec.columns.iter().map(|c| c.name.as_str()).collect();
    let mut w = csv_file(&ctx.dir.join(&spec.file), &header)?;
    let series = find(name).ok_or_else(|| anyhow!("no run series `{name}`"))?;
    for (labels, first) in g.labels.iter().zip(&g.first_runs) {
        let Some(samples) = first.get(name) else {
            continue;
        };
        for row in samples {
            for c in &spec.columns {
                match (&c.key, &c.column) {
                    (Some(k), _) => w.field_str(labels.get(k).map_or("", String::as_str))?,
                    (None, Some(col)) => {
                        let i = series.columns.iter().position(|n| n == col);
                        let i = i.ok_or_else(|| anyhow!("`{name}` has no column `{col}`"))?;
                        w.field_f64(row[i])?;
                    }
                    (None, None) => return Err(anyhow!("csv column `{}`: no field", c.name)),
                }
            }
            w.end_row()?;
        }
    }
    finish_csv(w)
}

/// Per cell, its first run's series as [`run_grid`](super::run) collects them:
/// `first[cell]` holds `rows * names` tables, row by row (`None` for a cell run without
/// a first repetition), unfolded into one map per row: cell c, row k becomes cell
/// `c * rows + k`, as [`super::pooled::unfold`] does.
pub fn unfold(first: Vec<Option<Vec<Samples>>>, rows: usize, names: &[String]) -> FirstRuns {
    let mut out = Vec::new();
    for tables in first {
        let mut tables = tables.unwrap_or_default().into_iter();
        for _ in 0..rows {
            let row: BTreeMap<String, Samples> = names
                .iter()
                .filter_map(|n| tables.next().map(|t| (n.clone(), t)))
                .collect();
            out.push(row);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Result<ExperimentSpec, String> {
        let head = r#"name = "x"
title = "x"
scenario = "s.toml"
flow = "f"
[[grid]]
name = "g"
[[grid.axis]]
name = "a"
values = [{ label = "1" }]
"#;
        ExperimentSpec::parse(&format!("{head}{text}"), "x.toml").map_err(|e| e.to_string())
    }

    const CHART: &str = r#"[[chart]]
name = "c"
grid = "g"
kind = "run"
title = "t"
x_label = "x"
y_label = "y"
metric = "rto_samples"
x = "time_s"
lines = [{ column = "rto_s", label = "RTO" }]
"#;

    #[test]
    fn a_run_chart_and_a_run_series_file_of_known_columns_are_accepted() {
        spec(CHART).unwrap();
        let csv = r#"[[csv]]
file = "t.csv"
grid = "g"
run_series = "rto_samples"
columns = [{ name = "a", key = "a" }, { name = "t", column = "time_s" }]
"#;
        spec(csv).unwrap();
    }

    #[test]
    fn a_misspelt_series_or_column_is_located_at_its_field() {
        let e = spec(&CHART.replace("\"rto_samples\"", "\"rto_sample\"")).unwrap_err();
        assert!(e.starts_with("x.toml:17:1: "), "{e}");
        assert!(e.contains("field `chart[0].metric`"), "{e}");
        assert!(
            e.contains("unknown run series `rto_sample` (known: rto_samples)"),
            "{e}"
        );
        let e = spec(&CHART.replace("\"rto_s\"", "\"rto\"")).unwrap_err();
        assert!(e.contains("field `chart[0].lines[0].column`"), "{e}");
        assert!(e.contains("no column `rto`"), "{e}");
        let e = spec(&CHART.replace("\"time_s\"", "\"t\"")).unwrap_err();
        assert!(e.contains("field `chart[0].x`"), "{e}");
        let csv = r#"[[csv]]
file = "t.csv"
grid = "g"
columns = [{ name = "t", column = "time_s" }]
"#;
        let e = spec(csv).unwrap_err();
        assert!(e.contains("field `csv[0].columns[0].column`"), "{e}");
    }

    #[test]
    fn first_runs_unfold_into_one_map_per_group_row() {
        let names = vec!["s".to_string()];
        let first = vec![Some(vec![vec![vec![1.0]], vec![vec![2.0]]]), None];
        let out = unfold(first, 2, &names);
        assert_eq!(out.len(), 4);
        assert_eq!(out[0]["s"], vec![vec![1.0]]);
        assert_eq!(out[1]["s"], vec![vec![2.0]]);
        assert!(out[2].is_empty() && out[3].is_empty());
    }
}
