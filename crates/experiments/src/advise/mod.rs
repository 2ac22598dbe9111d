//! `spikelab advise`: which fix works on this path?
//!
//! A generated experiment: the user's path ([`input`]) is the base scenario of a grid
//! with one axis, `fix`, whose values are the baseline (the path as given) and every
//! fix of [`fixes`] placed into that scenario (sender fixes on every TCP flow, network
//! boxes on the spiking link). The grid is expanded by the experiment-grid engine
//! ([`crate::grid::run::expand`]) and run by [`crate::runner`], repetition r of every
//! row with the same seed, so rows are compared pairwise seed by seed ([`paired`]).
//!
//! Repetitions: `reps` when given; otherwise a pilot of [`PILOT_REPS`] repetitions of
//! every row is timed and as many more are added as the wall-clock `budget` allows (at
//! most [`MAX_REPS`]). The wall clock chooses only the count: repetition r's result
//! depends on the seed alone, so the chosen count is reported and `reps = N` replays
//! the same answer byte for byte.

pub mod fixes;
pub mod input;
pub mod paired;
pub mod report;

use crate::grid::run::expand;
use crate::grid::spec::{Axis, AxisValue, Grid};
use crate::runner::{run_cells_from, Batch, Progress};
use anyhow::anyhow;
use fixes::{Change, Fix, Side, NEEDS_SACK};
use paired::Paired;
use spikelab_engine::{FlowKind, FlowResult, RunResult, SimConfig};
use spikelab_output::stats::Summary;
use std::collections::BTreeMap;
use std::time::Instant;

/// Repetitions of the pilot that times a run when `reps` is not given.
pub const PILOT_REPS: u32 = 3;
/// The most repetitions the budget may choose.
pub const MAX_REPS: u32 = 500;
/// The default wall-clock budget in seconds.
pub const DEFAULT_BUDGET_S: f64 = 4.0;

/// What the ranking optimises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Objective {
    /// Download time (lower is better); an unfinished transfer counts the time until
    /// the run's stop, a lower bound of its true time.
    #[default]
    Time,
    /// Minimum segments / segments sent (higher is better).
    Goodput,
    /// Retransmitted segments (lower is better).
    Retransmissions,
}

impl Objective {
    /// The names accepted on the command line.
    pub const NAMES: [&'static str; 3] = ["time", "goodput", "retransmissions"];

    /// The objective named `name`.
    pub fn from_name(name: &str) -> Option<Objective> {
        Some(match name {
            "time" => Objective::Time,
            "goodput" => Objective::Goodput,
            "retransmissions" => Objective::Retransmissions,
            _ => return None,
        })
    }

    /// The metric (a name of [`METRICS`]) it ranks by.
    pub fn metric(self) -> &'static str {
        match self {
            Objective::Time => "time_s",
            Objective::Goodput => "goodput",
            Objective::Retransmissions => "retransmissions",
        }
    }

    /// Whether smaller values are better.
    pub fn lower_is_better(self) -> bool {
        !matches!(self, Objective::Goodput)
    }
}

/// The per-run metrics of a row, averaged over the advised flows of the run.
pub const METRICS: [&str; 10] = [
    "time_s",
    "completed",
    "throughput_kbps",
    "goodput",
    "timeouts",
    "spurious_timeouts",
    "genuine_timeouts",
    "retransmissions",
    "unnecessary_retransmissions",
    "spurious_responses",
];

/// The position of `name` in [`METRICS`].
pub fn metric_index(name: &str) -> usize {
    METRICS
        .iter()
        .position(|m| *m == name)
        .expect("a name of METRICS")
}

/// How to advise.
#[derive(Clone, Debug)]
pub struct Options {
    pub objective: Objective,
    /// Exactly this many repetitions per row (replays an earlier answer).
    pub reps: Option<u32>,
    /// Wall-clock seconds for the simulations when `reps` is not given.
    pub budget_s: f64,
    pub only: Option<Side>,
    /// Base seed (default: the scenario's `run.seed`).
    pub seed: Option<u64>,
    pub jobs: usize,
    /// The flow to rank by (default: every TCP flow, averaged).
    pub flow: Option<String>,
    /// Keep only the fixes whose label contains one of these (none: every fix).
    pub fixes: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            objective: Objective::Time,
            reps: None,
            budget_s: DEFAULT_BUDGET_S,
            only: None,
            seed: None,
            jobs: crate::runner::default_jobs(),
            flow: None,
            fixes: Vec::new(),
        }
    }
}

/// One configuration of the generated grid.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub label: String,
    /// None for the baseline.
    pub side: Option<Side>,
    pub columns: Vec<(&'static str, String)>,
    pub sim: SimConfig,
    /// The scenario text of this row.
    pub text: String,
}

/// A row of the answer, ranked.
#[derive(Clone, Debug)]
pub struct Row {
    pub rank: usize,
    pub tier: u32,
    pub candidate: Candidate,
    /// Per repetition, per [`METRICS`].
    pub runs: Vec<[f64; METRICS.len()]>,
    /// Per [`METRICS`] over the repetitions.
    pub summary: Vec<Summary>,
    /// Objective: this row minus the baseline, seed by seed.
    pub vs_baseline: Paired,
    /// Objective: this row minus the next row of the ranking.
    pub vs_next: Option<Paired>,
    /// The first higher-ranked row with the same value of every metric on every seed
    /// (the fix made no difference to it on this path).
    pub same_as: Option<String>,
}

impl Row {
    /// The per-repetition values of metric `m`.
    pub fn values(&self, m: usize) -> Vec<f64> {
        self.runs.iter().map(|r| r[m]).collect()
    }
}

/// The answer.
#[derive(Clone, Debug)]
pub struct Advice {
    pub description: String,
    pub objective: Objective,
    pub seed: u64,
    pub reps: u32,
    /// Whether `reps` was chosen by the budget (else given).
    pub reps_from_budget: bool,
    /// The link network boxes were placed on, if any.
    pub box_link: Option<String>,
    pub rows: Vec<Row>,
    /// Fixes left out, with why.
    pub skipped: Vec<String>,
    /// What the reader should know about how fixes were placed.
    pub remarks: Vec<String>,
}

impl Advice {
    /// The baseline's row.
    pub fn baseline(&self) -> &Row {
        self.rows
            .iter()
            .find(|r| r.candidate.side.is_none())
            .expect("the baseline is always a row")
    }
}

/// The generated experiment: the candidates and why some fixes were left out.
pub struct Plan {
    pub candidates: Vec<Candidate>,
    pub box_link: Option<String>,
    pub skipped: Vec<String>,
    /// What the reader should know about how fixes were placed.
    pub remarks: Vec<String>,
    /// Indices of the advised flows in the engine's flow list.
    pub flows: Vec<usize>,
}

/// The link a network box goes on: the first link with spikes or a trace, else the
/// last link of the first TCP flow's route.
fn box_link(doc: &toml::Table) -> Option<String> {
    let links = doc.get("link").and_then(|l| l.as_array());
    let spiky = links.into_iter().flatten().find(|l| {
        let has = |k: &str| {
            l.get(k)
                .is_some_and(|v| v.as_array().is_none_or(|a| !a.is_empty()))
        };
        let text = l.to_string();
        has("spikes") || text.contains("delay_trace") || text.contains("mahimahi")
    });
    if let Some(name) = spiky.and_then(|l| l.get("name")).and_then(|n| n.as_str()) {
        return Some(name.to_owned());
    }
    let flows = doc.get("flow")?.as_array()?;
    let tcp = flows.iter().find(|f| is_tcp(f))?;
    let last = tcp.get("route")?.as_array()?.last()?.as_str()?;
    Some(last.trim_end_matches(":reverse").to_owned())
}

fn is_tcp(flow: &toml::Value) -> bool {
    flow.get("kind").and_then(|k| k.as_str()).unwrap_or("tcp") == "tcp"
}

/// The SACK variant of a recovery without SACK.
fn with_sack(recovery: &str) -> Option<&'static str> {
    match recovery {
        "reno" => Some("reno-sack"),
        "new-reno" => Some("new-reno-sack"),
        _ => None,
    }
}

/// The grid overrides that place `fix` into the scenario `doc` (whose loaded form is
/// `file`), or why it cannot be placed.
fn placement(
    fix: &Fix,
    doc: &toml::Table,
    file: &spikelab_scenario::ScenarioFile,
    link: Option<&str>,
    remarks: &mut Vec<String>,
) -> Result<toml::Table, String> {
    let mut set = toml::Table::new();
    match &fix.change {
        Change::Flow { keys, needs_sack } => {
            for (i, f) in file.flow.iter().enumerate() {
                let Some(tcp) = f.tcp.as_ref().filter(|_| is_tcp(&doc["flow"][i])) else {
                    continue;
                };
                for (k, v) in keys {
                    set.insert(format!("flow.{i}.{k}"), v.clone());
                }
                if *needs_sack && !tcp.sack_enabled() {
                    let now = toml::Value::try_from(tcp.recovery).map_err(|e| e.to_string())?;
                    let sack = now.as_str().and_then(with_sack).ok_or_else(|| {
                        format!("flow `{}`: no SACK variant of its recovery {now}", f.name)
                    })?;
                    set.insert(format!("flow.{i}.tcp.recovery"), sack.into());
                    remarks.push(format!(
                        "{} rows also switch flow `{}` from {} to {sack} (they need SACK): \
                         compare them with the sack-recovery row, SACK alone",
                        NEEDS_SACK.join(" and "),
                        f.name,
                        now.as_str().unwrap_or("?")
                    ));
                }
            }
        }
        Change::Middlebox(config) => {
            let link = link.ok_or("no link to place a box on")?;
            let mut boxes: Vec<toml::Value> = doc
                .get("middlebox")
                .and_then(|m| m.as_array())
                .cloned()
                .unwrap_or_default();
            boxes.retain(|b| b.get("link").and_then(|l| l.as_str()) != Some(link));
            let mut b = toml::Table::new();
            b.insert("link".into(), link.into());
            b.insert("config".into(), config.clone());
            boxes.push(toml::Value::Table(b));
            set.insert("middlebox".into(), toml::Value::Array(boxes));
        }
    }
    Ok(set)
}

/// The engine indices of the flows to rank by: `flow` (and its replicas), or every TCP
/// flow.
fn advised_flows(sim: &SimConfig, flow: Option<&str>) -> Result<Vec<usize>, String> {
    let picked: Vec<usize> = sim
        .flows
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f.kind, FlowKind::Tcp { .. }))
        .filter(|(_, f)| {
            flow.is_none_or(|n| {
                f.name == n || f.name.strip_prefix(n).is_some_and(|r| r.starts_with('#'))
            })
        })
        .map(|(i, _)| i)
        .collect();
    if picked.is_empty() {
        return Err(match flow {
            Some(n) => format!("no TCP flow `{n}` in the scenario"),
            None => "the scenario has no TCP flow to advise on".into(),
        });
    }
    Ok(picked)
}

/// Builds the generated grid over the fix space on `input` (one axis, `fix`) and
/// expands it value by value, so a fix that cannot apply to this path (its scenario
/// does not check) is left out with the reason instead of stopping the others.
pub fn plan(input: &input::Input, opts: &Options) -> anyhow::Result<Plan> {
    let base = spikelab_scenario::parse(&input.text, &input.name).map_err(|e| anyhow!("{e}"))?;
    let flows = advised_flows(base.sim(), opts.flow.as_deref()).map_err(|e| anyhow!("{e}"))?;
    let doc: toml::Table = input.text.parse()?;
    let link = box_link(&doc);
    let mut skipped = Vec::new();
    let mut remarks = Vec::new();
    let mut values = vec![(
        AxisValue {
            label: "baseline".into(),
            set: toml::Table::new(),
            labels: BTreeMap::new(),
        },
        None,
        Vec::new(),
    )];
    let wanted =
        |f: &Fix| opts.fixes.is_empty() || opts.fixes.iter().any(|w| f.label.contains(w.as_str()));
    for fix in fixes::all(opts.only).into_iter().filter(wanted) {
        match placement(&fix, &doc, base.file(), link.as_deref(), &mut remarks) {
            Ok(set) => {
                let labels = [("side".to_string(), fix.side.label().to_string())].into();
                let label = fix.label;
                values.push((
                    AxisValue { label, set, labels },
                    Some(fix.side),
                    fix.columns,
                ));
            }
            Err(why) => skipped.push(format!("{}: {why}", fix.label)),
        }
    }
    let candidates = expand_candidates(input, values, &mut skipped)?;
    remarks.sort();
    remarks.dedup();
    Ok(Plan {
        candidates,
        box_link: link,
        skipped,
        remarks,
        flows,
    })
}

/// A fix placed into the scenario: its grid value, side (None: the baseline) and
/// descriptive columns.
type PlacedFix = (AxisValue, Option<Side>, Vec<(&'static str, String)>);

/// Expands the `fix` axis value by value (the baseline first) into candidates; a fix
/// whose scenario does not check, or that equals the baseline, goes to `skipped`.
fn expand_candidates(
    input: &input::Input,
    values: Vec<PlacedFix>,
    skipped: &mut Vec<String>,
) -> anyhow::Result<Vec<Candidate>> {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut base_debug = String::new();
    for (value, side, columns) in values {
        let label = value.label.clone();
        let grid = Grid {
            name: "advise".into(),
            scenario: None,
            set: toml::Table::new(),
            axis: vec![Axis {
                name: "fix".into(),
                values: vec![value],
            }],
            value: Vec::new(),
            group: Vec::new(),
            group_axis: None,
            labels: Default::default(),
            flow: None,
            reps: None,
            product: Vec::new(),
            computed_set: Vec::new(),
        };
        let cell = match expand(&input.text, &input.name, &grid) {
            Ok(mut cells) => cells.remove(0),
            Err(e) if side.is_some() => {
                skipped.push(format!("{label}: {e}"));
                continue;
            }
            Err(e) => return Err(e),
        };
        let sim = cell.scenario.to_sim();
        let debug = format!("{sim:?}");
        if side.is_none() {
            base_debug = debug;
        } else if debug == base_debug {
            skipped.push(format!("{label}: the same configuration as the baseline"));
            continue;
        }
        candidates.push(Candidate {
            label,
            side,
            columns,
            sim,
            text: cell.text,
        });
    }
    Ok(candidates)
}

/// The metrics of one run, averaged over the advised flows.
fn run_metrics(r: &RunResult, sim: &SimConfig, flows: &[usize]) -> [f64; METRICS.len()] {
    let stop = spikelab_core::Time::ZERO + sim.stop_at;
    let one = |f: &FlowResult| -> [f64; METRICS.len()] {
        let n = |v: u64| v as f64;
        [
            f.download_time()
                .unwrap_or_else(|| (stop - f.start).as_secs_f64()),
            n(f.completed.is_some() as u64),
            f.throughput_bps().map_or(f64::NAN, |t| t / 1000.0),
            f.goodput(),
            n(f.timeouts),
            n(f.spurious_timeouts),
            n(f.genuine_timeouts),
            n(f.retransmissions),
            n(f.unnecessary_retransmissions),
            n(f.spurious_responses),
        ]
    };
    let mut sum = [0.0; METRICS.len()];
    for &i in flows {
        for (s, v) in sum.iter_mut().zip(one(&r.flows[i])) {
            *s += v;
        }
    }
    sum.map(|s| s / flows.len() as f64)
}

/// The runs of a plan so far, per candidate and repetition.
struct Runs<'a> {
    plan: &'a Plan,
    sims: Vec<SimConfig>,
    batch: Batch<'a>,
    done: Vec<Vec<[f64; METRICS.len()]>>,
}

impl Runs<'_> {
    /// Runs repetitions `first..reps` of every candidate.
    fn extend_to(&mut self, first: u32, reps: u32) -> anyhow::Result<()> {
        if reps <= first {
            return Ok(());
        }
        let batch = Batch { reps, ..self.batch };
        let (sims, flows) = (&self.sims, &self.plan.flows);
        let more = run_cells_from(sims, batch, first, |c, _, r| {
            run_metrics(r, &sims[c], flows)
        })
        .map_err(|e| anyhow!("{e}"))?;
        for (all, new) in self.done.iter_mut().zip(more) {
            all.extend(new);
        }
        Ok(())
    }
}

/// The repetitions the budget allows after a pilot of `pilot` repetitions that took
/// `pilot_s` seconds of the `budget_s`.
pub fn reps_within(budget_s: f64, pilot: u32, pilot_s: f64) -> u32 {
    let per_rep = pilot_s / pilot.max(1) as f64;
    let left = budget_s - pilot_s;
    if per_rep <= 0.0 || left <= 0.0 {
        return pilot;
    }
    let extra = (left / per_rep).floor().min(MAX_REPS as f64) as u32;
    (pilot + extra).min(MAX_REPS)
}

/// Runs the plan and ranks it.
pub fn run(
    input: &input::Input,
    plan: Plan,
    opts: &Options,
    progress: &dyn Progress,
) -> anyhow::Result<Advice> {
    let seed = opts.seed.unwrap_or(input.seed);
    let sims: Vec<SimConfig> = plan.candidates.iter().map(|c| c.sim.clone()).collect();
    let mut runs = Runs {
        plan: &plan,
        done: vec![Vec::new(); sims.len()],
        sims,
        batch: Batch {
            reps: 0,
            seed,
            jobs: opts.jobs,
            progress,
        },
    };
    let started = Instant::now();
    let first = opts.reps.unwrap_or(PILOT_REPS);
    runs.extend_to(0, first)?;
    let reps = match opts.reps {
        Some(n) => n,
        None => reps_within(opts.budget_s, first, started.elapsed().as_secs_f64()),
    };
    runs.extend_to(first, reps)?;
    let runs = runs.done;
    Ok(rank(input, plan, runs, seed, reps, opts))
}

/// Ranks the rows by the objective's mean (best first; ties keep the grid's order).
fn rank(
    input: &input::Input,
    plan: Plan,
    runs: Vec<Vec<[f64; METRICS.len()]>>,
    seed: u64,
    reps: u32,
    opts: &Options,
) -> Advice {
    let m = metric_index(opts.objective.metric());
    let mut rows: Vec<Row> = plan
        .candidates
        .into_iter()
        .zip(runs)
        .map(|(candidate, runs)| {
            let summary = (0..METRICS.len())
                .map(|k| {
                    let v: Vec<f64> = runs
                        .iter()
                        .map(|r| r[k])
                        .filter(|x| x.is_finite())
                        .collect();
                    Summary::of(&v)
                })
                .collect();
            Row {
                rank: 0,
                tier: 0,
                candidate,
                runs,
                summary,
                vs_baseline: Paired::of(&[], &[]),
                vs_next: None,
                same_as: None,
            }
        })
        .collect();
    let key = |r: &Row| {
        let v = r.summary[m].mean;
        if opts.objective.lower_is_better() {
            v
        } else {
            -v
        }
    };
    rows.sort_by(|a, b| {
        let (x, y) = (key(a), key(b));
        x.is_nan().cmp(&y.is_nan()).then(x.total_cmp(&y))
    });
    let values: Vec<Vec<f64>> = rows.iter().map(|r| r.values(m)).collect();
    let base = rows
        .iter()
        .position(|r| r.candidate.side.is_none())
        .expect("the baseline is a row");
    let refs: Vec<&[f64]> = values.iter().map(Vec::as_slice).collect();
    let tiers = paired::tiers(&refs);
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
        r.tier = tiers[i];
        r.vs_baseline = Paired::of(&values[i], &values[base]);
        r.vs_next = values.get(i + 1).map(|next| Paired::of(&values[i], next));
    }
    for i in 1..rows.len() {
        let same = |a: &Row, b: &Row| {
            a.runs.len() == b.runs.len()
                && a.runs
                    .iter()
                    .zip(&b.runs)
                    .all(|(x, y)| x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits()))
        };
        rows[i].same_as = rows[..i]
            .iter()
            .find(|r| r.same_as.is_none() && same(r, &rows[i]))
            .map(|r| r.candidate.label.clone());
    }
    Advice {
        description: input.description.clone(),
        objective: opts.objective,
        seed,
        reps,
        reps_from_budget: opts.reps.is_none(),
        box_link: plan.box_link,
        rows,
        skipped: plan.skipped,
        remarks: plan.remarks,
    }
}

/// Plans, runs and ranks: the whole answer for `input`.
pub fn advise(
    input: &input::Input,
    opts: &Options,
    progress: &dyn Progress,
) -> anyhow::Result<Advice> {
    let plan = plan(input, opts)?;
    run(input, plan, opts, progress)
}

#[cfg(test)]
mod tests;
