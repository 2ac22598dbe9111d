//! The outputs over grid values: CSV files with chosen columns (per cell or per
//! repetition), report tables of templates, charts (lines against an axis, scatter,
//! distribution functions), thresholds beside the paper's, and report text with
//! numbers in it.

use super::expr::{self, Env};
use super::run::GridResult;
use super::spec::{
    ChartKind, ChartSpec, CsvColumn, CsvSpec, ReportTableSpec, TextSpec, ThresholdSpec,
};
use super::values::GridEnv;
use crate::artifacts::{chart, csv_file, figure_of, finish_csv, line_figure};
use crate::context::Context;
use crate::report::{Comparison, Figure, Table};
use anyhow::anyhow;
use spikelab_output::plot::{bar_chart, scatter_chart, Bar, Series};
use std::collections::BTreeMap;

pub(crate) fn env<'a>(
    g: &'a GridResult,
    fixed: BTreeMap<String, String>,
    reps: u32,
) -> GridEnv<'a> {
    GridEnv {
        labels: &g.labels,
        values: &g.values,
        fixed,
        reps,
        samples: Some(super::pooled::Samples {
            names: &g.names,
            raw: &g.raw,
            dists: &g.dists,
        }),
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
    if let Some(s) = &spec.run_series {
        return super::run_series::write_csv(ctx, spec, g, s);
    }
    let header: Vec<&str> = spec.columns.iter().map(|c| c.name.as_str()).collect();
    let mut w = csv_file(&ctx.dir.join(&spec.file), &header)?;
    if let Some(d) = &spec.distribution {
        return write_distribution(w, spec, g, d);
    }
    let rows: Vec<(usize, Option<usize>)> = if spec.per_run {
        let runs = super::pooled::run_rows(&g.raw, g.group_rows);
        runs.into_iter().map(|(c, r)| (c, Some(r))).collect()
    } else {
        (0..g.labels.len()).map(|c| (c, None)).collect()
    };
    for (cell, rep) in rows {
        for c in &spec.columns {
            match field(c, g, cell, rep, &g.labels[cell])? {
                Field::Text(s) => w.field_str(&s)?,
                Field::Num(v) if c.int => w.field_u64(v as u64)?,
                Field::Num(v) => w.field_f64(v)?,
            }
        }
        w.end_row()?;
    }
    finish_csv(w)
}

/// A `distribution` CSV file: per cell, a row per bin of the merged distribution.
fn write_distribution(
    mut w: spikelab_output::csv::CsvWriter<std::io::BufWriter<std::fs::File>>,
    spec: &CsvSpec,
    g: &GridResult,
    name: &str,
) -> anyhow::Result<()> {
    let max_x = spec.max_x.unwrap_or(f64::INFINITY);
    for (cell, labels) in g.labels.iter().enumerate() {
        let Some(h) = crate::metrics::distributions::merged(&g.dists, name, &[cell]) else {
            continue;
        };
        for (x, f) in h.cdf(max_x) {
            for c in &spec.columns {
                match c.bin.as_deref() {
                    Some("x") => w.field_f64(x)?,
                    Some("cdf") => w.field_f64(f)?,
                    _ => match field(c, g, cell, None, labels)? {
                        Field::Text(s) => w.field_str(&s)?,
                        Field::Num(v) => w.field_f64(v)?,
                    },
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
    if t.sub_rows.is_some() {
        header.insert(1, t.sub_row_header.clone());
    }
    let rows = row_keys(g, t)
        .into_iter()
        .map(|keys| {
            let mut fixed = t.filter.clone();
            let axes = std::iter::once(&t.rows).chain(&t.sub_rows);
            fixed.extend(axes.cloned().zip(keys.iter().cloned()));
            let e = env(g, fixed, reps);
            let mut line = keys;
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

/// The rows of a report table: the labels of `rows` (and `sub_rows`) of every cell
/// `where` picks, in grid order (first appearance).
fn row_keys(g: &GridResult, t: &ReportTableSpec) -> Vec<Vec<String>> {
    let Some(sub) = &t.sub_rows else {
        return axis_labels(g, &t.rows)
            .into_iter()
            .map(|r| vec![r])
            .collect();
    };
    let mut out: Vec<Vec<String>> = Vec::new();
    for c in picked(g, &t.filter) {
        let l = &g.labels[c];
        let key: Vec<String> = [&t.rows, sub]
            .iter()
            .map(|k| l.get(*k).cloned().unwrap_or_default())
            .collect();
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// A chart drawn into `ctx.dir`.
pub fn draw_chart(ctx: &Context, c: &ChartSpec, g: &GridResult) -> anyhow::Result<Figure> {
    if c.kind == ChartKind::Run {
        return super::run_series::draw(ctx, c, g);
    }
    let series_labels = if c.series_values.is_empty() {
        axis_labels(g, &c.series)
    } else {
        c.series_values.clone()
    };
    let n = series_labels.len() as f64;
    let mut series = series_labels
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let mut fixed = c.filter.clone();
            fixed.insert(c.series.clone(), s.clone());
            let (points, ci) = match c.kind {
                ChartKind::Axis => axis_points(c, g, fixed.clone(), ctx.reps)?,
                ChartKind::Scatter => {
                    let dx = c.dodge * (k as f64 - (n - 1.0) / 2.0);
                    let pts = scatter_points(c, g, &fixed)?;
                    (pts.into_iter().map(|(x, y)| (x + dx, y)).collect(), vec![])
                }
                ChartKind::Cdf => (cdf_points(c, g, &fixed)?, vec![]),
                ChartKind::Bar | ChartKind::Run => (vec![], vec![]),
            };
            let legend = c.legend.as_ref().and_then(|l| {
                let first = picked(g, &fixed).next();
                first.and_then(|cell| g.labels[cell].get(l).cloned())
            });
            Ok(Series {
                label: legend.unwrap_or_else(|| s.clone()),
                points,
                ci,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    series.extend(super::baselines::series(c, g, &series, ctx.reps)?);
    let ch = chart(&c.title, &c.x_label, &c.y_label);
    if c.kind == ChartKind::Bar {
        let files = bar_chart(&ch, &bars(c, g)?, &ctx.dir.join(&c.name))?;
        return Ok(figure_of(ctx, &files, &c.title));
    }
    match c.kind {
        ChartKind::Scatter => {
            let files = scatter_chart(&ch, &series, &ctx.dir.join(&c.name))?;
            Ok(figure_of(ctx, &files, &c.title))
        }
        _ => line_figure(ctx, &c.name, ch, &series),
    }
}

type Points = Vec<(f64, f64)>;

/// A bar per cell `where` picks: its grid value's mean and half-width.
fn bars(c: &ChartSpec, g: &GridResult) -> anyhow::Result<Vec<Bar>> {
    picked(g, &c.filter)
        .map(|cell| {
            let s = g.values[cell]
                .get(&c.value)
                .ok_or_else(|| anyhow!("chart {}: no grid value `{}`", c.name, c.value))?;
            Ok(Bar {
                label: super::pooled::fill(&c.bar_label, &g.labels[cell]),
                value: s.mean,
                ci: s.ci95,
            })
        })
        .collect()
}

/// The value's mean and half-width at every label of the x axis.
fn axis_points(
    c: &ChartSpec,
    g: &GridResult,
    fixed: BTreeMap<String, String>,
    reps: u32,
) -> anyhow::Result<(Points, Vec<f64>)> {
    let e = env(g, fixed, reps);
    let mut points = Vec::new();
    let mut ci = Vec::new();
    // The x labels of the cells the series picks (a grid of several products has
    // labels elsewhere that this series does not take).
    let xs: Vec<String> = axis_labels(g, &c.x)
        .into_iter()
        .filter(|x| picked(g, &e.fixed).any(|i| g.labels[i].get(&c.x) == Some(x)))
        .collect();
    for x in xs {
        let at = |stat: &str| {
            e.lookup(&expr::Ref {
                name: c.value.clone(),
                sel: vec![(c.x.clone(), x.clone())],
                stat: stat.into(),
            })
            .map_err(|e| anyhow!("chart {}: {e}", c.name))
        };
        points.push((number(&x, &c.name)?, at("mean")?));
        ci.push(at("ci95")?);
    }
    Ok((points, ci))
}

/// The cells `fixed` picks.
fn picked<'a>(
    g: &'a GridResult,
    fixed: &'a BTreeMap<String, String>,
) -> impl Iterator<Item = usize> + 'a {
    (0..g.labels.len()).filter(|&i| fixed.iter().all(|(k, v)| g.labels[i].get(k) == Some(v)))
}

fn metric_index(c: &ChartSpec, g: &GridResult) -> anyhow::Result<usize> {
    g.names
        .iter()
        .position(|n| *n == c.metric)
        .ok_or_else(|| anyhow!("chart {}: metric `{}` not collected", c.name, c.metric))
}

/// Every repetition's metric (finite ones) at its cell's x label.
fn scatter_points(
    c: &ChartSpec,
    g: &GridResult,
    fixed: &BTreeMap<String, String>,
) -> anyhow::Result<Points> {
    let m = metric_index(c, g)?;
    let mut points = Vec::new();
    for cell in picked(g, fixed) {
        let x = number(g.labels[cell].get(&c.x).map_or("", String::as_str), &c.name)?;
        let ys = g.raw[cell]
            .iter()
            .map(|rep| rep[m])
            .filter(|y| y.is_finite());
        points.extend(ys.map(|y| (x, y)));
    }
    Ok(points)
}

/// The empirical distribution function of the metric pooled over the picked cells'
/// repetitions: the i-th smallest of n values at height i / n.
fn cdf_points(
    c: &ChartSpec,
    g: &GridResult,
    fixed: &BTreeMap<String, String>,
) -> anyhow::Result<Points> {
    if crate::metrics::distributions::find(&c.metric).is_some() {
        let cells: Vec<usize> = picked(g, fixed).collect();
        let h = crate::metrics::distributions::merged(&g.dists, &c.metric, &cells);
        let h = h.ok_or_else(|| anyhow!("chart {}: no cell has `{}`", c.name, c.metric))?;
        return Ok(h.cdf(c.max_x.unwrap_or(f64::INFINITY)));
    }
    let m = metric_index(c, g)?;
    let mut xs: Vec<f64> = picked(g, fixed)
        .flat_map(|cell| g.raw[cell].iter().map(move |rep| rep[m]))
        .filter(|x| x.is_finite())
        .collect();
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    Ok(xs
        .into_iter()
        .enumerate()
        .map(|(i, x)| (x, (i + 1) as f64 / n))
        .collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two cells (n = 1 and n = 2) of metric `m`: 3, NaN, 1 and 2, 5.
    fn grid() -> GridResult {
        let labels = ["1", "2"]
            .map(|n| BTreeMap::from([("n".to_string(), n.to_string()), ("s".into(), "a".into())]))
            .to_vec();
        let raw = vec![
            vec![vec![3.0], vec![f64::NAN], vec![1.0]],
            vec![vec![2.0], vec![5.0]],
        ];
        GridResult::of_runs(labels, vec!["m".into()], raw)
    }

    fn spec(kind: &str) -> ChartSpec {
        toml::from_str(&format!(
            r#"name = "c"
grid = "g"
kind = "{kind}"
title = "t"
x_label = "x"
y_label = "y"
x = "n"
series = "s"
metric = "m""#
        ))
        .unwrap()
    }

    #[test]
    fn scatter_puts_every_finite_repetition_at_its_cells_label() {
        let fixed = BTreeMap::from([("s".to_string(), "a".to_string())]);
        let pts = scatter_points(&spec("scatter"), &grid(), &fixed).unwrap();
        assert_eq!(pts, vec![(1.0, 3.0), (1.0, 1.0), (2.0, 2.0), (2.0, 5.0)]);
    }

    #[test]
    fn cdf_pools_cells_sorts_and_steps_by_one_over_n() {
        let fixed = BTreeMap::from([("s".to_string(), "a".to_string())]);
        let pts = cdf_points(&spec("cdf"), &grid(), &fixed).unwrap();
        assert_eq!(pts, vec![(1.0, 0.25), (2.0, 0.5), (3.0, 0.75), (5.0, 1.0)]);
        let one = BTreeMap::from([("n".to_string(), "2".to_string())]);
        assert_eq!(cdf_points(&spec("cdf"), &grid(), &one).unwrap().len(), 2);
    }
}
