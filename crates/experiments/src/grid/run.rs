//! Running an [`ExperimentSpec`]: expand its grids into scenarios, run every cell's
//! repetitions, write each table as CSV and Markdown beside the paper's values, and
//! draw its figures.

use super::result::GridResult;
use super::spec::{base_text, ExperimentSpec, FigureSpec, Grid, SeedRule, TableSpec};
use super::study;
use super::values::{compute as compute_values, Runs};
use crate::context::Context;
use crate::metrics;
use crate::report::caption::{self, Shows, Timeouts};
use crate::report::{
    comparison_table, table_to_markdown, Block, Comparison, Figure, Section, Table,
};
use crate::runner::{run_cells_sharing, Batch};
use crate::shared_runs::SharedRuns;
use anyhow::{anyhow, Context as _};
use rayon::prelude::*;
use spikelab_core::FlowId;
use spikelab_engine::SimConfig;
use spikelab_output::csv::CsvWriter;
use spikelab_output::stats::Summary;
use spikelab_scenario::set_path;
use std::collections::BTreeMap;
use std::path::Path;

/// One cell of a grid: its axis labels and the flow its metrics are about (the
/// scenario they make is kept beside it, [`cells`]).
struct Cell {
    labels: BTreeMap<String, String>,
    flow: usize,
}
/// The repetitions per cell of grid `g` at `--reps` `reps`.
fn grid_reps(g: &Grid, reps: u32) -> anyhow::Result<u32> {
    let Some(text) = &g.reps else {
        return Ok(reps);
    };
    let e = super::expr::parse(text).map_err(|e| anyhow!("grid `{}` reps: {e}", g.name))?;
    let empty = GridResult::empty();
    let env = super::values::GridEnv {
        labels: &empty.labels,
        values: &empty.values,
        fixed: BTreeMap::new(),
        reps,
        samples: None,
    };
    let n = super::expr::eval(&e, &env).map_err(|e| anyhow!("grid `{}` reps: {e}", g.name))?;
    if !(n >= 1.0 && n <= f64::from(u32::MAX)) {
        return Err(anyhow!(
            "grid `{}` reps: `{text}` gives {n}, not a count >= 1",
            g.name
        ));
    }
    Ok(n as u32)
}

/// The flows of each of `g`'s groups in the configuration `sim`, by index.
fn flow_groups<'g>(g: &'g Grid, sim: &SimConfig) -> BTreeMap<&'g str, Vec<usize>> {
    g.group
        .iter()
        .map(|x| {
            let flows = sim.flows.iter().enumerate();
            let members = flows.filter(|(_, f)| x.contains(&f.name)).map(|(i, _)| i);
            (x.name.as_str(), members.collect())
        })
        .collect()
}

/// The metrics grid `g` collects per repetition: every flow metric, then the ones its
/// values and the experiment's per-run CSV files name.
fn collected(spec: &ExperimentSpec, g: &Grid) -> Vec<String> {
    let mut names: Vec<String> = metrics::NAMES.iter().map(|n| n.to_string()).collect();
    let referenced = super::pooled::referenced(spec, g);
    let wanted = g
        .value
        .iter()
        .flat_map(|v| std::iter::once(&v.metric).chain(&v.only_if))
        .chain(
            spec.csv
                .iter()
                .filter(|c| c.grid == g.name)
                .flat_map(|c| c.columns.iter().filter_map(|c| c.metric.as_ref())),
        )
        .chain(
            spec.chart
                .iter()
                .filter(|c| c.grid == g.name && !c.metric.is_empty())
                .filter(|c| super::run_series::find(&c.metric).is_none())
                .map(|c| &c.metric),
        )
        .chain(&referenced);
    for n in wanted {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    names
}

/// Applies every `set` of `sets` to the base scenario and resolves it.
fn scenario(
    base: &str,
    name: &str,
    sets: &[&toml::Table],
) -> anyhow::Result<spikelab_scenario::Scenario> {
    scenario_and_text(base, name, sets).map(|(s, _)| s)
}

/// [`scenario`], with the text of the scenario it resolved.
fn scenario_and_text(
    base: &str,
    name: &str,
    sets: &[&toml::Table],
) -> anyhow::Result<(spikelab_scenario::Scenario, String)> {
    let mut doc: toml::Table = base
        .parse()
        .with_context(|| format!("{name}: the base scenario"))?;
    for set in sets {
        for (path, value) in set.iter() {
            set_path(&mut doc, path, value.clone()).map_err(|e| anyhow!("{name}: {e}"))?;
        }
    }
    let text = toml::to_string(&doc)?;
    // The error itself, not its text: advise reports a cell that does not check by its
    // field and reason (`ScenarioError`), without the place in this generated text.
    let s = spikelab_scenario::parse(&text, name).map_err(anyhow::Error::new)?;
    Ok((s, text))
}

fn flow_index(sim: &SimConfig, flow: &str) -> anyhow::Result<usize> {
    sim.flows
        .iter()
        .position(|f| f.name == flow)
        .ok_or_else(|| anyhow!("no flow `{flow}` in the scenario"))
}

/// Every combination of the grid's axis values, in axis order, with its configuration.
fn cells(spec: &ExperimentSpec, g: &Grid) -> anyhow::Result<Vec<(Cell, SimConfig)>> {
    let (base, scenario_name) = base_text(spec, g.scenario.as_deref().unwrap_or(&spec.scenario))?;
    expand(&base, &scenario_name, g)?
        .into_iter()
        .map(|c| {
            let (labels, sim) = (c.labels, c.scenario.to_sim());
            let flow = flow_index(&sim, g.flow.as_deref().unwrap_or(&spec.flow))?;
            Ok((Cell { labels, flow }, sim))
        })
        .collect()
}

/// Expands every grid of `spec` over its scenario, reading every file the cells name,
/// and runs nothing: a missing trace fails here, located, as it would in the run.
pub fn check_inputs(spec: &ExperimentSpec) -> anyhow::Result<()> {
    for g in &spec.grid {
        let (base, name) = base_text(spec, g.scenario.as_deref().unwrap_or(&spec.scenario))?;
        expand(&base, &name, g)?;
    }
    Ok(())
}

/// One expanded cell of a grid.
pub struct Expanded {
    /// Axis name -> value label, plus the labels its values imply.
    pub labels: BTreeMap<String, String>,
    /// The checked scenario.
    pub scenario: spikelab_scenario::Scenario,
    /// Its text (the base with the cell's overrides applied).
    pub text: String,
}

/// Every combination of the axis values of `g` applied to the scenario text `base`
/// (named `scenario_name` in messages and as the base of its relative paths), in axis
/// order. Generated experiments (`spikelab advise`) expand their grids here too.
pub fn expand(base: &str, scenario_name: &str, g: &Grid) -> anyhow::Result<Vec<Expanded>> {
    let choices = super::products::choices(g).map_err(|e| anyhow!("{scenario_name}: {e}"))?;
    choices
        .into_iter()
        .map(|values| {
            let labels = super::products::labels(&values);
            let name = format!(
                "{}[{}]",
                scenario_name,
                values
                    .iter()
                    .map(|(_, v)| v.label.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let computed =
                super::computed_set::table(g, &labels).map_err(|e| anyhow!("{name}: {e}"))?;
            let sets: Vec<&toml::Table> = std::iter::once(&g.set)
                .chain(values.iter().map(|(_, v)| &v.set))
                .chain(std::iter::once(&computed))
                .collect();
            let (scenario, text) = scenario_and_text(base, &name, &sets)?;
            Ok(Expanded {
                labels,
                scenario,
                text,
            })
        })
        .collect()
}

/// A grid's cells, the configurations they run (recording what the grid's values
/// read) and its repetitions.
pub struct Planned {
    cells: Vec<Cell>,
    sims: Vec<SimConfig>,
    reps: u32,
}

impl Planned {
    /// The configurations its cells run.
    pub fn sims(&self) -> &[SimConfig] {
        &self.sims
    }

    /// Its repetitions per cell.
    pub fn reps(&self) -> u32 {
        self.reps
    }
}

/// The cells of grid `g` of `spec`.
pub fn plan_grid(spec: &ExperimentSpec, g: &Grid, ctx: &Context) -> anyhow::Result<Planned> {
    let (cells, sims): (Vec<Cell>, Vec<SimConfig>) = cells(spec, g)?.into_iter().unzip();
    let names = collected(spec, g);
    let trace: Vec<_> = names
        .iter()
        .filter_map(|n| metrics::trace_need(n))
        .collect();
    let series_names = super::run_series::wanted(spec, g);
    let record_rto = names.iter().any(|n| metrics::needs_rto(n))
        || series_names
            .iter()
            .any(|n| super::run_series::find(n).is_some_and(|s| s.needs_rto));
    // Each cell's configuration is moved, not copied: with ~1000 flows one is over a
    // megabyte, and a copy of every cell's stayed alive beside the original for the
    // whole grid (heaptrack, `reproduce peak-hopper`: 2 x 63.5 of its 178 MB peak).
    let sims: Vec<SimConfig> = sims
        .into_iter()
        .map(|sim| SimConfig {
            trace: sim.trace.union(metrics::trace_kinds(&trace, &sim)),
            record_rto: sim.record_rto || record_rto,
            ..sim
        })
        .collect();
    let reps = grid_reps(g, ctx.reps)?;
    Ok(Planned { cells, sims, reps })
}

/// Runs every cell of grid `g` of `spec`, planned as `p` and the `shared.1`-th grid of
/// an experiment whose cells share runs (`shared.0`), and computes its values.
pub fn run_grid(
    spec: &ExperimentSpec,
    g: &Grid,
    ctx: &Context,
    p: &Planned,
    shared: (&SharedRuns, usize),
) -> anyhow::Result<GridResult> {
    let (cells, sims) = (&p.cells, &p.sims);
    let names = collected(spec, g);
    let series_names = super::run_series::wanted(spec, g);
    let groups: Vec<BTreeMap<&str, Vec<usize>>> = sims.iter().map(|s| flow_groups(g, s)).collect();
    let batch = Batch {
        reps: p.reps,
        ..ctx.batch()
    };
    let rows = super::pooled::group_rows(g);
    let dist_names: Vec<String> = names
        .iter()
        .filter(|n| crate::metrics::distributions::find(n).is_some())
        .cloned()
        .collect();
    let mut runs = run_cells_sharing(sims, batch, 0, shared, |c, rep, r| {
        let one = [cells[c].flow];
        let memo = metrics::RunMemo::default();
        let view = |row: &Option<&str>, n: &str| {
            let (metric, group) = metrics::split_group(n);
            let group = group.or(row.filter(|_| metrics::takes_group(metric)));
            let flows = group.map_or(&one[..], |x| &groups[c][x][..]);
            metrics::RunView {
                result: r,
                sim: &sims[c],
                flow: cells[c].flow,
                flows,
                memo: &memo,
            }
        };
        let values = rows
            .iter()
            .flat_map(|row| names.iter().map(move |n| (row, n)))
            .map(|(row, n)| metrics::of_run(metrics::split_group(n).0, &view(row, n)))
            .collect::<Vec<f64>>();
        let dists = rows
            .iter()
            .flat_map(|row| dist_names.iter().map(move |n| (row, n)))
            .map(|(row, n)| {
                let d = crate::metrics::distributions::find(n).expect("a distribution metric");
                (d.value)(&view(row, n))
            })
            .collect::<Vec<_>>();
        let first = (rep == 0).then(|| {
            let tables = rows
                .iter()
                .flat_map(|row| series_names.iter().map(move |n| (row, n)));
            let series = |(row, n): (&Option<&str>, &String)| {
                let s = super::run_series::find(n).expect("a run series");
                (s.value)(&view(row, n))
            };
            tables.map(series).collect::<Vec<_>>()
        });
        (values, dists, first)
    })
    .map_err(|e| anyhow!("grid `{}`: {e}", g.name))?;
    let dists: crate::metrics::distributions::Merged = runs
        .iter()
        .flat_map(|reps| {
            let d: Vec<_> = reps.iter().map(|(_, d, _)| d.clone()).collect();
            crate::metrics::distributions::merge_runs(&d, rows.len(), &dist_names)
        })
        .collect();
    let first = runs
        .iter_mut()
        .map(|reps| reps.first_mut().and_then(|r| r.2.take()));
    let first_runs = super::run_series::unfold(first.collect(), rows.len(), &series_names);
    let raw: Vec<Vec<Vec<f64>>> = runs
        .into_iter()
        .map(|reps| reps.into_iter().map(|(v, _, _)| v).collect())
        .collect();
    let summarize = |reps: &Vec<Vec<f64>>| {
        (0..metrics::NAMES.len())
            .map(|m| {
                let v: Vec<f64> = reps
                    .iter()
                    .map(|r| r[m])
                    .filter(|x| x.is_finite())
                    .collect();
                Summary::of(&v)
            })
            .collect()
    };
    let labels: Vec<BTreeMap<String, String>> = cells.iter().map(|c| c.labels.clone()).collect();
    let (labels, raw) = super::pooled::unfold(g, &labels, raw, names.len());
    let values = compute_values(
        g,
        &Runs {
            labels: &labels,
            names: &names,
            raw: &raw,
        },
    )
    .map_err(|e| anyhow!("grid `{}`: {e}", g.name))?;
    let cells = labels
        .iter()
        .zip(&raw)
        .map(|(l, reps)| (l.clone(), summarize(reps)))
        .collect();
    Ok(GridResult {
        cells,
        labels,
        names,
        raw,
        values,
        group_rows: rows.len(),
        dists,
        first_runs,
    })
}

/// The value of key column `k` for a cell: its axis label or the table's fixed label.
fn key(t: &TableSpec, labels: &BTreeMap<String, String>, k: &str) -> String {
    labels
        .get(k)
        .or_else(|| t.labels.get(k))
        .cloned()
        .unwrap_or_default()
}

fn write_table_csv(path: &Path, t: &TableSpec, g: &GridResult) -> anyhow::Result<()> {
    let mut w = CsvWriter::new(std::io::BufWriter::new(std::fs::File::create(path)?));
    let single = t.metrics.len() == 1;
    let mut header: Vec<String> = t.keys.clone();
    if single {
        header.extend(["mean".into(), "ci95".into()]);
    } else {
        header.extend(t.metrics.iter().map(|m| m.column.clone()));
        header.extend(t.metrics.iter().map(|m| format!("{}_ci95", m.column)));
    }
    header.push("reps".into());
    w.row(&header.iter().map(String::as_str).collect::<Vec<_>>())?;
    for (labels, s) in &g.cells {
        for k in &t.keys {
            w.field_str(&key(t, labels, k))?;
        }
        let stats: Vec<&Summary> = t
            .metrics
            .iter()
            .map(|m| &s[metrics::index(&m.metric).unwrap_or(0)])
            .collect();
        for st in &stats {
            w.field_f64(st.mean)?;
        }
        for st in &stats {
            w.field_f64(st.ci95)?;
        }
        w.field_u64(stats.first().map_or(0, |s| s.n as u64))?;
        w.end_row()?;
    }
    w.into_inner()?;
    Ok(())
}

fn mean_ci(s: &Summary) -> String {
    if s.n == 0 {
        return "-".into();
    }
    let digits = if s.mean.abs() >= 100.0 {
        0
    } else if s.mean.abs() >= 1.0 {
        2
    } else {
        3
    };
    if s.ci95.is_finite() {
        format!("{:.*} ± {:.*}", digits, s.mean, digits, s.ci95)
    } else {
        format!("{:.*}", digits, s.mean)
    }
}

/// All label combinations of `axes` present in the grid, in grid order.
fn combos(g: &GridResult, axes: &[String]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for (labels, _) in &g.cells {
        let c: Vec<String> = axes
            .iter()
            .map(|a| labels.get(a).cloned().unwrap_or_default())
            .collect();
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn find<'a>(g: &'a GridResult, want: &[(&String, &String)]) -> Option<&'a Vec<Summary>> {
    g.cells
        .iter()
        .find(|(l, _)| want.iter().all(|(k, v)| l.get(*k) == Some(*v)))
        .map(|(_, s)| s)
}

/// The Markdown layout: rows × columns of axes (one metric), or rows × metrics.
fn markdown_table(t: &TableSpec, g: &GridResult) -> Table {
    let rows = combos(g, &t.rows);
    let metric_cols = t.columns.is_empty();
    let cols = if metric_cols {
        vec![]
    } else {
        combos(g, &t.columns)
    };
    let mut header: Vec<String> = t.rows.clone();
    if metric_cols {
        header.extend(t.metrics.iter().map(|m| m.column.clone()));
    } else {
        header.extend(cols.iter().map(|c| c.join(" ")));
    }
    let body = rows
        .iter()
        .map(|r| {
            let mut line = r.clone();
            let at = |c: &[String]| {
                let want: Vec<_> = t
                    .rows
                    .iter()
                    .zip(r)
                    .chain(t.columns.iter().zip(c))
                    .collect();
                find(g, &want)
            };
            if metric_cols {
                let s = at(&[]);
                line.extend(t.metrics.iter().map(|m| {
                    s.map_or("-".into(), |s| {
                        mean_ci(&s[metrics::index(&m.metric).unwrap_or(0)])
                    })
                }));
            } else {
                let m = metrics::index(&t.metrics[0].metric).unwrap_or(0);
                line.extend(
                    cols.iter()
                        .map(|c| at(c).map_or("-".into(), |s| mean_ci(&s[m]))),
                );
            }
            line
        })
        .collect();
    Table {
        title: t.title.clone(),
        header,
        rows: body,
    }
}

fn comparisons(t: &TableSpec, g: &GridResult) -> Vec<Comparison> {
    let mut out = Vec::new();
    for p in &t.paper {
        let want: Vec<_> = p.cell.iter().collect();
        let Some(s) = find(g, &want) else { continue };
        let cell = p
            .cell
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
        for (column, &paper) in &p.values {
            let Some(m) = t.metrics.iter().find(|m| &m.column == column) else {
                continue;
            };
            let st = &s[metrics::index(&m.metric).unwrap_or(0)];
            out.push(Comparison {
                what: format!("{} — {column} ({cell})", t.title),
                ours: st.mean,
                ours_ci95: Some(st.ci95),
                paper,
                unit: String::new(),
            });
        }
    }
    out
}

fn draw_figure(spec: &ExperimentSpec, f: &FigureSpec, ctx: &Context) -> anyhow::Result<Figure> {
    let (base, scenario_name) = base_text(spec, f.scenario.as_deref().unwrap_or(&spec.scenario))?;
    let s = scenario(&base, &format!("{}[{}]", scenario_name, f.name), &[&f.set])?;
    let mut sim = s.to_sim();
    sim.trace = spikelab_engine::TraceKinds::ALL;
    let flow = flow_index(&sim, &spec.flow)?;
    let (seed, chosen) = figure_seed(f, &sim, flow, ctx.seed)?;
    let r = spikelab_engine::run(&sim, seed).map_err(|e| anyhow!("figure {}: {e}", f.name))?;
    let records = spikelab_output::plot::flow_records(&r.trace, FlowId(flow as u32));
    let base_path = ctx.dir.join(&f.name);
    let files = match f.kind.as_str() {
        "window-timer" => spikelab_output::plot::window_timer_plot(&records, &f.title, &base_path),
        _ => spikelab_output::plot::time_sequence_plot(&records, &f.title, &base_path),
    }
    .map_err(|e| anyhow!("figure {}: {e}", f.name))?;
    let timeouts = Timeouts::of(&records, FlowId(flow as u32));
    let first = match f.shows {
        Some(e) if !timeouts.shows(e) => first_seed_showing(&sim, flow, e)?,
        _ => None,
    };
    let mut text = caption::caption(&f.title, seed, &timeouts, f.shows, first);
    if let (Some(tried), Some(e)) = (chosen, f.shows) {
        text.push_str(&caption::chosen_sentence(seed, tried, e));
    }
    Ok(crate::artifacts::figure_of(ctx, &files, &text))
}

/// The seed a figure plots, and, when its rule chose it, how many seeds the rule could
/// try ([`SeedRule::FirstShowing`]); a figure whose rule finds no seed is an error.
fn figure_seed(
    f: &FigureSpec,
    sim: &SimConfig,
    flow: usize,
    run_seed: u64,
) -> anyhow::Result<(u64, Option<u64>)> {
    match (f.seed, f.seed_rule, f.shows) {
        (Some(seed), SeedRule::Run, _) => Ok((seed, None)),
        (None, SeedRule::Run, _) => Ok((run_seed, None)),
        (None, SeedRule::FirstShowing, Some(e)) => match first_seed_showing(sim, flow, e)? {
            Some((seed, tried)) => Ok((seed, Some(tried))),
            None => Err(anyhow!(
                "figure {}: no seed in 1..={SEEDS_TRIED} shows {}",
                f.name,
                e.words()
            )),
        },
        (Some(_), SeedRule::FirstShowing, _) => Err(anyhow!(
            "figure {}: seed_rule = \"first-showing\" chooses the seed; remove `seed`",
            f.name
        )),
        (None, SeedRule::FirstShowing, None) => Err(anyhow!(
            "figure {}: seed_rule = \"first-showing\" needs `shows`",
            f.name
        )),
    }
}

/// Seeds tried for a run that shows a figure's event, when the plotted seed does not.
const SEEDS_TRIED: u64 = 100;

/// The first seed in 1..=[`SEEDS_TRIED`] whose run of `sim` shows `what`.
fn first_seed_showing(
    sim: &SimConfig,
    flow: usize,
    what: Shows,
) -> anyhow::Result<Option<(u64, u64)>> {
    let mut sim = sim.clone();
    sim.trace = spikelab_engine::TraceKinds::TIMEOUT;
    for seed in 1..=SEEDS_TRIED {
        let r = spikelab_engine::run(&sim, seed).map_err(|e| anyhow!("seed {seed}: {e}"))?;
        if Timeouts::of(&r.trace, FlowId(flow as u32)).shows(what) {
            return Ok(Some((seed, SEEDS_TRIED)));
        }
    }
    Ok(None)
}

/// Runs every grid, writes every table, CSV file, figure and chart into `ctx.dir`, and
/// returns the section, its blocks in the order of `layout` (or notes, tables, figures);
/// layout item `rust:<name>` is the block of that name `spec` was given
/// ([`super::layout::rust_block`]); one it was not given is an error before anything runs.
pub fn run_experiment(spec: &ExperimentSpec, ctx: &Context) -> anyhow::Result<Section> {
    super::layout::check_rust(spec).map_err(|e| anyhow!("{}: {}", spec.name, e.message))?;
    // The grids are tasks of one pool ([`crate::runner::on_pool`]); their results are
    // taken in the experiment's order, the first error in that order reported.
    // Cells of any grid with equal configurations run each repetition once
    // ([`SharedRuns`]).
    let planned = spec
        .grid
        .iter()
        .map(|g| plan_grid(spec, g, ctx))
        .collect::<anyhow::Result<Vec<Planned>>>()?;
    let sims: Vec<_> = planned.iter().map(|p| (&p.sims[..], p.reps)).collect();
    let shared = SharedRuns::plan(&sims);
    let ran: Vec<anyhow::Result<GridResult>> = crate::runner::on_pool(ctx.jobs, || {
        spec.grid
            .par_iter()
            .zip(&planned)
            .enumerate()
            .map(|(i, (g, p))| run_grid(spec, g, ctx, p, (&shared, i)))
            .collect()
    });
    let mut results: BTreeMap<&str, GridResult> = BTreeMap::new();
    for (g, r) in spec.grid.iter().zip(ran) {
        results.insert(&g.name, r?);
    }
    let grid = |name: &str| {
        results
            .get(name)
            .ok_or_else(|| anyhow!("{}: no grid `{name}`", spec.name))
    };
    for c in &spec.csv {
        study::write_csv(ctx, c, grid(&c.grid)?).with_context(|| format!("writing {}", c.file))?;
    }
    super::trace_file::write_all(spec, ctx)?;
    let layout: Vec<String> = if spec.layout.is_empty() {
        std::iter::once("notes".to_string())
            .chain(spec.table.iter().map(|t| format!("table:{}", t.file)))
            .chain(spec.figure.iter().map(|f| format!("figure:{}", f.name)))
            .collect()
    } else {
        spec.layout.clone()
    };
    let mut blocks = Vec::new();
    for item in &layout {
        let (kind, name) = item.split_once(':').unwrap_or((item, ""));
        match kind {
            "notes" => blocks.push(Block::Text(spec.notes.trim().to_string())),
            "table" => {
                let t = spec.table.iter().find(|t| t.file == name);
                let t = t.ok_or_else(|| anyhow!("layout: no table `{name}`"))?;
                blocks.extend(table_blocks(ctx, t, grid(&t.grid)?)?);
            }
            "figure" => {
                let f = spec.figure.iter().find(|f| f.name == name);
                let f = f.ok_or_else(|| anyhow!("layout: no figure `{name}`"))?;
                blocks.push(Block::Figure(draw_figure(spec, f, ctx)?));
            }
            "report_table" => {
                let t = spec.report_table.iter().find(|t| t.name == name);
                let t = t.ok_or_else(|| anyhow!("layout: no report_table `{name}`"))?;
                blocks.push(Block::Table(study::report_table(
                    t,
                    grid(&t.grid)?,
                    ctx.reps,
                )?));
            }
            "chart" => {
                let c = spec.chart.iter().find(|c| c.name == name);
                let c = c.ok_or_else(|| anyhow!("layout: no chart `{name}`"))?;
                blocks.push(Block::Figure(study::draw_chart(ctx, c, grid(&c.grid)?)?));
            }
            "thresholds" => {
                let cs = spec
                    .threshold
                    .iter()
                    .map(|t| study::threshold(t, grid(&t.grid)?, ctx.reps))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                blocks.push(Block::Comparisons(cs));
            }
            "text" => {
                let t = spec.text.iter().find(|t| t.name == name);
                let t = t.ok_or_else(|| anyhow!("layout: no text `{name}`"))?;
                let g = t.grid.as_deref().map(grid).transpose()?;
                blocks.push(Block::Text(super::multi_grid::text(
                    t, g, &results, ctx.reps,
                )?));
            }
            "comparisons" => {
                let env = |g: &str, fixed| Ok(super::values::env(grid(g)?, fixed, ctx.reps));
                let cs = super::pooled::comparisons(spec, name, env)?;
                blocks.push(Block::Comparisons(cs));
            }
            "feed" | "feed_comparisons" => {
                let f = spec.feed.iter().find(|f| f.name == name);
                let f = f.ok_or_else(|| anyhow!("layout: no feed `{name}`"))?;
                blocks.push(match kind {
                    "feed" => super::rtt_feed::block(ctx, f)?,
                    _ => super::rtt_feed::comparisons(f)?,
                });
            }
            "rust" => {
                let f = super::layout::rust_block(spec, name);
                let f = f.ok_or_else(|| anyhow!("layout: no Rust block `{name}`"))?;
                blocks.extend(f(ctx, &results)?);
            }
            "text_table" => {
                let t = spec.text_table.iter().find(|t| t.name == name);
                let t = t.ok_or_else(|| anyhow!("layout: no text_table `{name}`"))?;
                let table = super::text_table::table(spec, t, &results, ctx.reps)?;
                blocks.push(Block::Table(table));
            }
            _ => return Err(anyhow!("{}: layout item `{item}` unknown", spec.name)),
        }
    }
    Ok(Section {
        name: spec.name.clone(),
        title: spec.title.clone(),
        blocks,
    })
}

/// A `[[table]]`: its CSV and Markdown files, and its blocks (the table, and the
/// paper's values beside ours where it has any).
fn table_blocks(ctx: &Context, t: &TableSpec, g: &GridResult) -> anyhow::Result<Vec<Block>> {
    write_table_csv(&ctx.dir.join(&t.file), t, g).with_context(|| format!("writing {}", t.file))?;
    let table = markdown_table(t, g);
    let cs = comparisons(t, g);
    let mut md = table_to_markdown(&table);
    if !cs.is_empty() {
        md += &table_to_markdown(&comparison_table(&cs));
    }
    std::fs::write(ctx.dir.join(&t.markdown), md)
        .with_context(|| format!("writing {}", t.markdown))?;
    let mut blocks = vec![Block::Table(table)];
    if !cs.is_empty() {
        blocks.push(Block::Comparisons(cs));
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Counter;

    /// [Gurtov & Ludwig 2003]'s Tables 3 and 4 each start from Table 2's FACK with
    /// Eifel, and the Linux tables repeat the ns-2 rows of Tables 1 and 2: six cells
    /// whose every repetition is run once for two cells.
    #[test]
    fn the_eifel_response_tables_share_the_runs_of_their_common_cells() {
        let text = crate::embedded::experiment("eifel-response.toml").unwrap();
        let spec = ExperimentSpec::parse(text, "eifel-response.toml").unwrap();
        let progress = Counter::default();
        let ctx = Context {
            root: "unused".into(),
            dir: "unused".into(),
            reps: 3,
            seed: 1,
            jobs: 1,
            progress: &progress,
        };
        let planned: Vec<Planned> = spec
            .grid
            .iter()
            .map(|g| plan_grid(&spec, g, &ctx).unwrap())
            .collect();
        let sims: Vec<_> = planned.iter().map(|p| (&p.sims[..], p.reps)).collect();
        assert_eq!(SharedRuns::plan(&sims).saved(), 6 * 3);
    }

    fn gprs_fig7() -> (ExperimentSpec, FigureSpec, SimConfig, usize) {
        let text = crate::embedded::experiment("gprs-eifel.toml").unwrap();
        let spec = ExperimentSpec::parse(text, "gprs-eifel.toml").unwrap();
        let f = spec
            .figure
            .iter()
            .find(|f| f.name == "fig7")
            .unwrap()
            .clone();
        let (base, name) = base_text(&spec, &spec.scenario).unwrap();
        let sim = scenario(&base, &name, &[&f.set]).unwrap().to_sim();
        let flow = flow_index(&sim, &spec.flow).unwrap();
        (spec, f, sim, flow)
    }

    /// [Gurtov & Ludwig 2002] Fig. 7 illustrates a genuine timeout after a spurious
    /// one; its figure plots the first seed whose run shows that, so the plotted run
    /// and the caption agree, and a fixed seed beside the rule is refused.
    #[test]
    fn a_first_showing_figure_plots_a_run_that_shows_its_event() {
        let (_, f, sim, flow) = gprs_fig7();
        assert_eq!(f.seed_rule, SeedRule::FirstShowing);
        let (seed, tried) = figure_seed(&f, &sim, flow, 1).unwrap();
        assert_eq!(tried, Some(SEEDS_TRIED));
        let mut traced = sim.clone();
        traced.trace = spikelab_engine::TraceKinds::TIMEOUT;
        let r = spikelab_engine::run(&traced, seed).unwrap();
        let shows = f.shows.unwrap();
        assert!(Timeouts::of(&r.trace, FlowId(flow as u32)).shows(shows));
        let fixed = FigureSpec {
            seed: Some(4),
            ..f.clone()
        };
        assert!(figure_seed(&fixed, &sim, flow, 1).is_err());
        let blind = FigureSpec { shows: None, ..f };
        assert!(figure_seed(&blind, &sim, flow, 1).is_err());
    }
}
