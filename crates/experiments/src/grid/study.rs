//! The outputs over grid values: CSV files with chosen columns (per cell or per
//! repetition), report tables of templates, line charts against an axis, thresholds
//! beside the paper's, and report text with numbers in it.

use super::expr::{self, Env};
use super::run::GridResult;
use super::spec::{ChartSpec, CsvColumn, CsvSpec, ReportTableSpec, TextSpec, ThresholdSpec};
use super::values::GridEnv;
use crate::artifacts::{chart, csv_file, finish_csv, line_figure};
use crate::report::{Comparison, Figure, Table};
use crate::reproduction::Context;
use anyhow::anyhow;
use spikelab_output::plot::Series;
use std::collections::BTreeMap;

fn env<'a>(g: &'a GridResult, fixed: BTreeMap<String, String>, reps: u32) -> GridEnv<'a> {
    GridEnv {
        labels: &g.labels,
        values: &g.values,
        fixed,
        reps,
    }
}

/// The labels of axis `axis` in the grid's order (first appearance).
fn axis_labels(g: &GridResult, axis: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in &g.labels {
        if let Some(v) = l.get(axis) {
            if !out.contains(v) {
                out.push(v.clone());
            }
        }
    }
    out
}

fn number(label: &str, what: &str) -> anyhow::Result<f64> {
    label
        .parse()
        .map_err(|_| anyhow!("{what}: axis label `{label}` is not a number"))
}

/// Writes `spec.file` into `ctx.dir`.
pub fn write_csv(ctx: &Context, spec: &CsvSpec, g: &GridResult) -> anyhow::Result<()> {
    let header: Vec<&str> = spec.columns.iter().map(|c| c.name.as_str()).collect();
    let mut w = csv_file(&ctx.dir.join(&spec.file), &header)?;
    for (cell, labels) in g.labels.iter().enumerate() {
        let reps: Vec<Option<usize>> = if spec.per_run {
            (0..g.raw[cell].len()).map(Some).collect()
        } else {
            vec![None]
        };
        for rep in reps {
            for c in &spec.columns {
                match field(c, g, cell, rep, labels)? {
                    Field::Text(s) => w.field_str(&s)?,
                    Field::Num(v) if c.int => w.field_u64(v as u64)?,
                    Field::Num(v) => w.field_f64(v)?,
                }
            }
            w.end_row()?;
        }
    }
    finish_csv(w)
}

enum Field {
    Text(String),
    Num(f64),
}

fn field(
    c: &CsvColumn,
    g: &GridResult,
    cell: usize,
    rep: Option<usize>,
    labels: &BTreeMap<String, String>,
) -> anyhow::Result<Field> {
    let what = || anyhow!("csv column `{}`", c.name);
    if let Some(k) = &c.key {
        return Ok(match (k.as_str(), rep) {
            ("rep", Some(r)) => Field::Num(r as f64),
            _ => Field::Text(labels.get(k).cloned().unwrap_or_default()),
        });
    }
    if let Some(v) = &c.value {
        let s = g.values[cell].get(v).ok_or_else(what)?;
        return Ok(Field::Num(s.get(c.stat.as_deref().unwrap_or("mean"))));
    }
    if let (Some(m), Some(r)) = (&c.metric, rep) {
        let i = g.names.iter().position(|n| n == m).ok_or_else(what)?;
        return Ok(Field::Num(g.raw[cell][r][i]));
    }
    Err(anyhow!(
        "csv column `{}`: needs `key`, `value`, or `metric` in a per-run file",
        c.name
    ))
}

/// A report table: a row per label of its row axis, each column a template.
pub fn report_table(t: &ReportTableSpec, g: &GridResult, reps: u32) -> anyhow::Result<Table> {
    let mut header = vec![t.row_header.clone()];
    header.extend(t.columns.iter().map(|c| c.header.clone()));
    let rows = axis_labels(g, &t.rows)
        .into_iter()
        .map(|row| {
            let mut fixed = t.filter.clone();
            fixed.insert(t.rows.clone(), row.clone());
            let e = env(g, fixed, reps);
            let mut line = vec![row];
            for c in &t.columns {
                line.push(expr::render(&c.text, &e).map_err(|e| anyhow!("{}: {e}", t.name))?);
            }
            Ok(line)
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(Table {
        title: expr::render(&t.title, &env(g, t.filter.clone(), reps)).map_err(|e| anyhow!(e))?,
        header,
        rows,
    })
}

/// A line chart drawn into `ctx.dir`.
pub fn draw_chart(ctx: &Context, c: &ChartSpec, g: &GridResult) -> anyhow::Result<Figure> {
    let series_labels = if c.series_values.is_empty() {
        axis_labels(g, &c.series)
    } else {
        c.series_values.clone()
    };
    let xs = axis_labels(g, &c.x);
    let series = series_labels
        .iter()
        .map(|s| {
            let mut fixed = c.filter.clone();
            fixed.insert(c.series.clone(), s.clone());
            let e = env(g, fixed, ctx.reps);
            let mut points = Vec::new();
            let mut ci = Vec::new();
            for x in &xs {
                let at = |stat: &str| {
                    e.lookup(&expr::Ref {
                        name: c.value.clone(),
                        sel: vec![(c.x.clone(), x.clone())],
                        stat: stat.into(),
                    })
                    .map_err(|e| anyhow!("chart {}: {e}", c.name))
                };
                points.push((number(x, &c.name)?, at("mean")?));
                ci.push(at("ci95")?);
            }
            Ok(Series {
                label: s.clone(),
                points,
                ci,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    line_figure(
        ctx,
        &c.name,
        chart(&c.title, &c.x_label, &c.y_label),
        &series,
    )
}

/// The largest label of the threshold's axis up to which its condition holds at every
/// label (None if it fails at the first), set beside the paper's value.
pub fn threshold(t: &ThresholdSpec, g: &GridResult, reps: u32) -> anyhow::Result<Comparison> {
    let holds = expr::parse(&t.holds).map_err(|e| anyhow!("threshold `{}`: {e}", t.what))?;
    let labels = axis_labels(g, &t.axis);
    let mut largest: Option<&String> = None;
    for l in &labels {
        let mut fixed = t.filter.clone();
        fixed.insert(t.axis.clone(), l.clone());
        let v = expr::eval(&holds, &env(g, fixed, reps))
            .map_err(|e| anyhow!("threshold `{}`: {e}", t.what))?;
        if v == 0.0 {
            break;
        }
        largest = Some(l);
    }
    let what = match (&t.what_if_last, largest) {
        (Some(w), Some(l)) if labels.last() == Some(l) => w.clone(),
        _ => t.what.clone(),
    };
    Ok(Comparison {
        what,
        ours: largest.map_or(Ok(f64::NAN), |l| number(l, &t.what))?,
        ours_ci95: None,
        paper: t.paper,
        unit: t.unit.clone(),
    })
}

/// Report text with its placeholders evaluated over `g` (text without a grid may use
/// only `reps`).
pub fn text(t: &TextSpec, g: Option<&GridResult>, reps: u32) -> anyhow::Result<String> {
    let empty = GridResult::empty();
    let e = env(g.unwrap_or(&empty), BTreeMap::new(), reps);
    expr::render(t.text.trim(), &e).map_err(|e| anyhow!("text `{}`: {e}", t.name))
}
