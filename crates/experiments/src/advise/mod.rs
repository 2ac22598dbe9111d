//! `spikelab advise`: which fix works on this path, and does it matter?
//!
//! A generated experiment: the user's path ([`input`]) is the base scenario of a grid
//! with one axis, `fix`, whose values are the baseline (the path as given) and every
//! fix of [`fixes`] placed into that scenario (sender fixes on every TCP flow, network
//! boxes on the spiking link), then combinations of the best sender fixes with the
//! network boxes and the stacks. The grid is expanded by the experiment-grid engine
//! ([`crate::grid::run::expand`]) and run by [`crate::runner`], repetition r of every
//! row with the same seed, so rows are compared pairwise seed by seed ([`paired`]) and
//! decided against a practical-equivalence margin with Holm's correction ([`decide`]).
//!
//! Repetitions (the default, [`Reps::Until`]): looks at twice [`FIRST_LOOK`]
//! repetitions and twice as many each time after, up to a cap, stopping at the first look where every
//! row is decided (better, equivalent or worse); the level of each look is
//! [`decide::ALPHA`] over the number of looks planned (Bonferroni across looks, valid
//! however the looks depend on each other). Which repetitions run depends on the seed
//! and the results alone, so the same command gives the same bytes on any machine.
//! `--reps N` runs exactly N (one look); `--budget S` lets the wall clock choose N (at
//! least twice the pilot; reported, so `--reps N` replays it).
//!
//! Combinations are chosen on the first [`pilot`] repetitions (the best sender fixes by
//! their mean there) and judged on the repetitions after it only, so the choice does
//! not flatter them.

pub mod answer;
pub mod fixes;
pub mod format;
pub mod input;
pub mod report;

/// The paired statistics live in [`crate::compare`], which the experiment files'
/// paired values read too.
pub use crate::compare::{decide, paired};

use crate::grid::run::expand;
use crate::grid::spec::{Axis, AxisValue, Grid};
use crate::metrics::quic;
use crate::runner::{run_cells_from, Batch, Progress};
use anyhow::anyhow;
use decide::{Decision, Sample, Verdict};
use fixes::{Change, Fix, Group, Side, NEEDS_SACK};
use paired::Paired;
use spikelab_engine::{FlowKind, FlowResult, RunResult, SimConfig};
use spikelab_output::stats::Summary;
use std::collections::BTreeMap;
use std::time::Instant;

/// Repetitions of the pilot that chooses the combinations; the stopping rule's first
/// look is at twice as many.
pub const FIRST_LOOK: u32 = 10;
/// The default cap of the stopping rule: looks at 20, 40, 80 and 160 repetitions.
pub const DEFAULT_MAX_REPS: u32 = 160;
/// The most repetitions any mode may run.
pub const MAX_REPS: u32 = 2000;
/// How many sender fixes (detection settings, RTO estimators) are combined with the
/// network boxes and stacks.
pub const TOP_SENDER: usize = 3;
/// The default margin as a fraction of the baseline's mean objective.
pub const MARGIN_FRACTION: f64 = 0.02;

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

    /// Its name in the answer's sentences.
    pub fn noun(self) -> &'static str {
        match self {
            Objective::Time => "download time",
            Objective::Goodput => "goodput",
            Objective::Retransmissions => "retransmissions",
        }
    }

    /// The unit of its values, for the answer's sentences ("" for a ratio).
    pub fn unit(self) -> &'static str {
        match self {
            Objective::Time => " s",
            Objective::Goodput => "",
            Objective::Retransmissions => " segments",
        }
    }
}

/// The per-run metrics of a row, averaged over the advised flows of the run.
pub const METRICS: [&str; 11] = [
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
    "min_rtt_s",
];

/// The position of `name` in [`METRICS`].
pub fn metric_index(name: &str) -> usize {
    METRICS
        .iter()
        .position(|m| *m == name)
        .expect("a name of METRICS")
}

/// How many repetitions to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reps {
    /// Looks at [`looks`]`(max)` repetitions, stopping when every row is decided (the
    /// default).
    Until { max: u32 },
    /// Exactly this many (replays an earlier answer); one look.
    Fixed(u32),
    /// As many as fit in this many wall-clock seconds after the pilot; one look.
    Budget(f64),
}

/// The practical-equivalence margin: a difference smaller than it does not matter.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Margin {
    /// 2 % of the baseline's mean, but at least one base RTT (time) or one segment
    /// (retransmissions).
    #[default]
    Default,
    /// This fraction of the baseline's mean.
    Fraction(f64),
    /// This many units of the objective.
    Absolute(f64),
}

/// How to advise.
#[derive(Clone, Debug)]
pub struct Options {
    pub objective: Objective,
    pub reps: Reps,
    pub margin: Margin,
    pub only: Option<Side>,
    /// Base seed (default: the scenario's `run.seed`).
    pub seed: Option<u64>,
    pub jobs: usize,
    /// The flow to rank by (default: every TCP flow, averaged).
    pub flow: Option<String>,
    /// Keep only the fixes whose label contains one of these (none: every fix).
    pub fixes: Vec<String>,
    /// Add the combinations of the best sender fixes with the boxes and stacks.
    pub combine: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            objective: Objective::Time,
            reps: Reps::Until {
                max: DEFAULT_MAX_REPS,
            },
            margin: Margin::Default,
            only: None,
            seed: None,
            jobs: crate::runner::default_jobs(),
            flow: None,
            fixes: Vec::new(),
            combine: true,
        }
    }
}

/// The repetitions the pilot runs before the combinations are chosen: half the
/// repetitions (the cap of the stopping rule, the given count), at most
/// [`FIRST_LOOK`]. A given count of at least twice that has the stopping rule's pilot,
/// so `--reps N` replays any answer.
pub fn pilot(reps: Reps) -> u32 {
    match reps {
        Reps::Until { max } => FIRST_LOOK.min(max / 2),
        Reps::Fixed(n) => FIRST_LOOK.min(n / 2),
        Reps::Budget(_) => FIRST_LOOK,
    }
}

/// The looks of the stopping rule: twice the pilot, doubled while below `max`, then
/// `max` (20, 40, 80, 160 by default).
pub fn looks(max: u32) -> Vec<u32> {
    let first = 2 * pilot(Reps::Until { max });
    let mut out = vec![first.clamp(2, max)];
    while let Some(&last) = out.last().filter(|l| **l < max) {
        out.push((last * 2).min(max));
    }
    out
}

/// One configuration of the generated grid.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub label: String,
    /// None for the baseline.
    pub fix: Option<Fix>,
    pub sim: SimConfig,
    /// The scenario text of this row.
    pub text: String,
    /// The first repetition its comparison with the baseline uses (after the pilot
    /// for a combination chosen on it).
    pub test_from: usize,
}

impl Candidate {
    /// Which end deploys it (None: the baseline).
    pub fn side(&self) -> Option<Side> {
        self.fix.as_ref().map(|f| f.side)
    }

    /// Its dimension (None: the baseline).
    pub fn group(&self) -> Option<Group> {
        self.fix.as_ref().map(|f| f.group)
    }

    /// Its descriptive columns.
    pub fn columns(&self) -> &[(&'static str, String)] {
        self.fix.as_ref().map_or(&[], |f| &f.columns)
    }
}

/// A row of the answer, ranked.
#[derive(Clone, Debug)]
pub struct Row {
    pub rank: usize,
    pub candidate: Candidate,
    /// Per repetition, per [`METRICS`].
    pub runs: Vec<[f64; METRICS.len()]>,
    /// Per [`METRICS`] over the repetitions.
    pub summary: Vec<Summary>,
    /// Objective: this row minus the baseline, seed by seed (from `test_from` on).
    pub vs_baseline: Paired,
    /// The decision against the baseline (None for the baseline itself).
    pub verdict: Option<Verdict>,
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

    /// The decision (None for the baseline).
    pub fn decision(&self) -> Option<Decision> {
        self.verdict.map(|v| v.decision)
    }
}

/// Why the repetitions stopped where they did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// Every row was decided at this look (1-based) of `looks`.
    Settled { look: usize, looks: usize },
    /// The cap was reached with rows still unclear.
    Cap { looks: usize },
    /// `--reps` gave the count.
    Given,
    /// `--budget` chose the count.
    Budget,
}

impl Stop {
    /// Looks planned: the Bonferroni factor of each look's level.
    pub fn looks(self) -> usize {
        match self {
            Stop::Settled { looks, .. } | Stop::Cap { looks } => looks,
            Stop::Given | Stop::Budget => 1,
        }
    }
}

/// The margin in the objective's units, with how it was chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct MarginUsed {
    pub value: f64,
    pub why: String,
}

/// The answer.
#[derive(Clone, Debug)]
pub struct Advice {
    pub description: String,
    pub objective: Objective,
    pub seed: u64,
    pub reps: u32,
    pub stop: Stop,
    pub margin: MarginUsed,
    /// The family-wise level of each look's claims ([`decide::ALPHA`] over the looks).
    pub alpha: f64,
    /// Comparisons with the baseline the correction counts (distinct rows).
    pub comparisons: usize,
    /// The sender fixes combined with the boxes and stacks (chosen on the pilot).
    pub combined: Vec<String>,
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
            .find(|r| r.candidate.fix.is_none())
            .expect("the baseline is always a row")
    }

    /// Whether every row is decided.
    pub fn settled(&self) -> bool {
        self.rows
            .iter()
            .all(|r| r.decision() != Some(Decision::Unclear))
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
    /// Each candidate's configuration as text (to leave out repeats).
    configs: Vec<String>,
    /// The sender fixes combined (set once the pilot has run).
    combined: Vec<String>,
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

/// Where fixes are placed: the user's scenario as text, as a table and loaded.
struct Path<'a> {
    input: &'a input::Input,
    doc: toml::Table,
    file: spikelab_scenario::ScenarioFile,
    link: Option<String>,
}

impl<'a> Path<'a> {
    fn of(input: &'a input::Input) -> anyhow::Result<Path<'a>> {
        let base =
            spikelab_scenario::parse(&input.text, &input.name).map_err(|e| anyhow!("{e}"))?;
        let doc: toml::Table = input.text.parse()?;
        Ok(Path {
            input,
            link: box_link(&doc),
            doc,
            file: base.file().clone(),
        })
    }

    /// The grid overrides that place `fix` into the scenario, or why it cannot be
    /// placed.
    fn placement(&self, fix: &Fix, remarks: &mut Vec<String>) -> Result<toml::Table, String> {
        let mut set = toml::Table::new();
        for change in &fix.changes {
            match change {
                Change::Flow { keys, needs_sack } => {
                    self.place_flow(keys, *needs_sack, &mut set, remarks)?
                }
                Change::Middlebox(config) => self.place_box(config, &mut set)?,
                Change::Quic(table) => self.place_quic(table, &mut set)?,
            }
        }
        Ok(set)
    }

    fn place_flow(
        &self,
        keys: &[(String, toml::Value)],
        needs_sack: bool,
        set: &mut toml::Table,
        remarks: &mut Vec<String>,
    ) -> Result<(), String> {
        for (i, f) in self.file.flow.iter().enumerate() {
            let Some(tcp) = f.tcp.as_ref().filter(|_| is_tcp(&self.doc["flow"][i])) else {
                continue;
            };
            for (k, v) in keys {
                set.insert(format!("flow.{i}.{k}"), v.clone());
            }
            if needs_sack && !tcp.sack_enabled() {
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
        Ok(())
    }

    /// Every TCP flow as a QUIC connection with `table` as its `[flow.quic]`: the
    /// flow's own table without the keys only TCP has (a QUIC flow refuses them).
    fn place_quic(&self, table: &toml::Value, set: &mut toml::Table) -> Result<(), String> {
        let flows = self.doc.get("flow").and_then(|f| f.as_array());
        for (i, flow) in flows.into_iter().flatten().enumerate() {
            let Some(own) = flow.as_table().filter(|_| is_tcp(flow)) else {
                continue;
            };
            let mut quic = own.clone();
            for key in ["profile", "tcp", "kernel"] {
                quic.remove(key);
            }
            quic.insert("kind".into(), "quic".into());
            quic.insert("quic".into(), table.clone());
            set.insert(format!("flow.{i}"), toml::Value::Table(quic));
        }
        Ok(())
    }

    fn place_box(&self, config: &toml::Value, set: &mut toml::Table) -> Result<(), String> {
        let link = self.link.as_deref().ok_or("no link to place a box on")?;
        let mut boxes: Vec<toml::Value> = self
            .doc
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
        Ok(())
    }

    /// Places `fixes` and expands each alone into a candidate; a fix that cannot
    /// apply to this path (its scenario does not check) or repeats a configuration
    /// already in `plan` goes to `plan.skipped` with the reason.
    fn add(&self, plan: &mut Plan, fixes: Vec<Fix>, test_from: usize) -> anyhow::Result<()> {
        for fix in fixes {
            let set = match self.placement(&fix, &mut plan.remarks) {
                Ok(set) => set,
                Err(why) => {
                    plan.skipped.push(format!("{}: {why}", fix.label));
                    continue;
                }
            };
            let labels = [("side".to_string(), fix.side.label().to_string())].into();
            let value = AxisValue {
                label: fix.label.clone(),
                set,
                labels,
            };
            match self.expand(value) {
                Ok((sim, text)) => plan.push(Some(fix), sim, text, test_from),
                Err(e) => plan.skipped.push(format!("{}: {}", fix.label, why_not(&e))),
            }
        }
        Ok(())
    }

    /// The baseline and its scenario.
    fn baseline(&self, plan: &mut Plan) -> anyhow::Result<()> {
        let value = AxisValue {
            label: "baseline".into(),
            set: toml::Table::new(),
            labels: BTreeMap::new(),
        };
        let (sim, text) = self.expand(value)?;
        plan.push(None, sim, text, 0);
        Ok(())
    }

    /// The one cell of a grid whose only axis holds `value`.
    fn expand(&self, value: AxisValue) -> anyhow::Result<(SimConfig, String)> {
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
        let cell = expand(&self.input.text, &self.input.name, &grid)?.remove(0);
        Ok((cell.scenario.to_sim(), cell.text))
    }
}

impl Plan {
    /// Adds a candidate unless its configuration repeats one already planned.
    fn push(&mut self, fix: Option<Fix>, sim: SimConfig, text: String, test_from: usize) {
        let config = format!("{sim:?}");
        let label = fix.as_ref().map_or("baseline".into(), |f| f.label.clone());
        if let Some(i) = self.configs.iter().position(|c| *c == config) {
            let same = &self.candidates[i].label;
            let what = if i == 0 {
                "the same configuration as the baseline".to_string()
            } else {
                format!("the same configuration as {same}")
            };
            self.skipped.push(format!("{label}: {what}"));
            return;
        }
        self.configs.push(config);
        self.candidates.push(Candidate {
            label,
            fix,
            sim,
            text,
            test_from,
        });
    }
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

/// Why a fix's scenario does not check: the field and the reason, without the place
/// (the line of the generated scenario text, which the user never sees, in a file named
/// by its absolute path, which would make the notes differ from machine to machine).
fn why_not(e: &anyhow::Error) -> String {
    match e.downcast_ref::<spikelab_scenario::ScenarioError>() {
        Some(s) => {
            let why: Vec<&str> = s
                .message
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            match &s.field {
                Some(field) => format!("field `{field}`: {}", why.join(" ")),
                None => why.join(" "),
            }
        }
        None => e.to_string(),
    }
}

/// Builds the generated grid over the single fixes on `input` (one axis, `fix`) and
/// expands it value by value, so a fix that cannot apply to this path (its scenario
/// does not check) is left out with the reason instead of stopping the others.
pub fn plan(input: &input::Input, opts: &Options) -> anyhow::Result<Plan> {
    let path = Path::of(input)?;
    let base = spikelab_scenario::parse(&input.text, &input.name).map_err(|e| anyhow!("{e}"))?;
    let flows = advised_flows(base.sim(), opts.flow.as_deref()).map_err(|e| anyhow!("{e}"))?;
    let mut plan = Plan {
        candidates: Vec::new(),
        box_link: path.link.clone(),
        skipped: Vec::new(),
        remarks: Vec::new(),
        flows,
        configs: Vec::new(),
        combined: Vec::new(),
    };
    path.baseline(&mut plan)?;
    let wanted =
        |f: &Fix| opts.fixes.is_empty() || opts.fixes.iter().any(|w| f.label.contains(w.as_str()));
    let singles: Vec<Fix> = fixes::all(opts.only).into_iter().filter(wanted).collect();
    path.add(&mut plan, singles, 0)?;
    plan.remarks.sort();
    plan.remarks.dedup();
    Ok(plan)
}

/// The combinations to add after the pilot: up to [`TOP_SENDER`] sender fixes whose
/// pilot mean beats the baseline's (best first, one per distinct result), each with
/// every network box and stack of the plan, and boxes with stacks.
fn combinations(
    plan: &Plan,
    pilot: &[Vec<[f64; METRICS.len()]>],
    opts: &Options,
) -> (Vec<Fix>, Vec<String>) {
    let m = metric_index(opts.objective.metric());
    let mean = |c: usize| {
        let v: Vec<f64> = pilot[c].iter().map(|r| r[m]).collect();
        let x = Summary::of(&v).mean;
        if opts.objective.lower_is_better() {
            -x
        } else {
            x
        }
    };
    let of = |g: Group| -> Vec<usize> {
        (0..plan.candidates.len())
            .filter(|&c| plan.candidates[c].group() == Some(g))
            .collect()
    };
    let mut senders: Vec<usize> = [of(Group::Detection), of(Group::Estimator)].concat();
    senders.retain(|&c| mean(c) > mean(0));
    senders.sort_by(|&a, &b| mean(b).total_cmp(&mean(a)).then(a.cmp(&b)));
    let mut top: Vec<usize> = Vec::new();
    for c in senders {
        if top.len() < TOP_SENDER && top.iter().all(|&t| pilot[t] != pilot[c]) {
            top.push(c);
        }
    }
    let fix = |c: &usize| plan.candidates[*c].fix.clone().expect("a fix");
    let dims: [Vec<Fix>; 3] = [
        top.iter().map(fix).collect(),
        of(Group::Network).iter().map(fix).collect(),
        of(Group::Stack).iter().map(fix).collect(),
    ];
    let mut out = Vec::new();
    for s in std::iter::once(None).chain(dims[0].iter().map(Some)) {
        for n in std::iter::once(None).chain(dims[1].iter().map(Some)) {
            for k in std::iter::once(None).chain(dims[2].iter().map(Some)) {
                let parts: Vec<&Fix> = [s, n, k].into_iter().flatten().collect();
                if parts.len() >= 2 {
                    out.push(fixes::combine(&parts));
                }
            }
        }
    }
    (out, dims[0].iter().map(|f| f.label.clone()).collect())
}

/// The metrics of one run, averaged over the advised flows.
fn run_metrics(r: &RunResult, sim: &SimConfig, flows: &[usize]) -> [f64; METRICS.len()] {
    let stop = spikelab_core::Time::ZERO + sim.stop_at;
    let one = |f: &FlowResult| -> [f64; METRICS.len()] {
        let n = |v: u64| v as f64;
        let min_rtt = f.rto_samples.iter().map(|s| s.rtt).min();
        [
            f.download_time()
                .unwrap_or_else(|| (stop - f.start).as_secs_f64()),
            n(f.completed.is_some() as u64),
            f.throughput_bps().map_or(f64::NAN, |t| t / 1000.0),
            f.goodput(),
            // A QUIC flow's probe timeouts count as its timeouts, its undos as its
            // spurious responses (a TCP flow's are 0: its rows keep their values).
            n(quic::expiries(f)),
            n(quic::spurious_expiries(f)),
            n(quic::genuine_expiries(f)),
            n(f.retransmissions),
            n(f.unnecessary_retransmissions),
            n(quic::undo_events(f)),
            min_rtt.map_or(f64::NAN, |d| d.as_secs_f64()),
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
    flows: Vec<usize>,
    sims: Vec<SimConfig>,
    batch: Batch<'a>,
    done: Vec<Vec<[f64; METRICS.len()]>>,
}

impl Runs<'_> {
    /// Adds candidates' configurations (RTT samples recorded for the base RTT).
    fn add(&mut self, candidates: &[Candidate]) {
        for c in candidates {
            let mut sim = c.sim.clone();
            sim.record_rto = true;
            self.sims.push(sim);
            self.done.push(Vec::new());
        }
    }

    /// Runs every candidate up to `reps` repetitions.
    fn extend_to(&mut self, reps: u32) -> anyhow::Result<()> {
        let mut c = 0;
        while c < self.sims.len() {
            let first = self.done[c].len() as u32;
            let end = (c..self.sims.len())
                .find(|&e| self.done[e].len() as u32 != first)
                .unwrap_or(self.sims.len());
            if first < reps {
                let batch = Batch { reps, ..self.batch };
                let (sims, flows) = (&self.sims[c..end], &self.flows);
                let more = run_cells_from(sims, batch, first, |k, _, r| {
                    run_metrics(r, &sims[k], flows)
                })
                .map_err(|e| anyhow!("{e}"))?;
                for (all, new) in self.done[c..end].iter_mut().zip(more) {
                    all.extend(new);
                }
            }
            c = end;
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

/// Runs the plan and decides it: the pilot, the combinations chosen on it, then the
/// looks of the stopping rule (or the given or budgeted repetitions).
pub fn run(
    input: &input::Input,
    mut plan: Plan,
    opts: &Options,
    progress: &dyn Progress,
) -> anyhow::Result<Advice> {
    let seed = opts.seed.unwrap_or(input.seed);
    let mut runs = Runs {
        flows: plan.flows.clone(),
        sims: Vec::new(),
        done: Vec::new(),
        batch: Batch {
            reps: 0,
            seed,
            jobs: opts.jobs,
            progress,
        },
    };
    runs.add(&plan.candidates);
    let started = Instant::now();
    let pilot = pilot(opts.reps);
    runs.extend_to(pilot)?;
    if opts.combine && pilot >= 2 {
        let (combos, top) = combinations(&plan, &runs.done, opts);
        let known = plan.candidates.len();
        Path::of(input)?.add(&mut plan, combos, pilot as usize)?;
        plan.remarks.sort();
        plan.remarks.dedup();
        runs.add(&plan.candidates[known..]);
        runs.extend_to(pilot)?;
        plan.combined = top;
    }
    let schedule = match opts.reps {
        Reps::Until { max } => looks(max),
        Reps::Fixed(n) => vec![n],
        Reps::Budget(s) => {
            let n = reps_within(s, pilot, started.elapsed().as_secs_f64());
            vec![n.max(2 * pilot)]
        }
    };
    for (j, &n) in schedule.iter().enumerate() {
        runs.extend_to(n)?;
        let last = j + 1 == schedule.len();
        let stop = match opts.reps {
            Reps::Fixed(_) => Stop::Given,
            Reps::Budget(_) => Stop::Budget,
            Reps::Until { .. } if last => Stop::Cap {
                looks: schedule.len(),
            },
            Reps::Until { .. } => Stop::Settled {
                look: j + 1,
                looks: schedule.len(),
            },
        };
        let mut advice = rank(input, &plan, &runs.done, seed, n, stop, opts);
        if last || advice.settled() {
            if advice.settled() && matches!(stop, Stop::Cap { .. }) {
                advice.stop = Stop::Settled {
                    look: j + 1,
                    looks: schedule.len(),
                };
            }
            return Ok(advice);
        }
    }
    unreachable!("the schedule has a last look")
}

/// The margin in the objective's units for a baseline `base`.
fn margin(opts: &Options, base: &Row) -> MarginUsed {
    let m = metric_index(opts.objective.metric());
    let mean = base.summary[m].mean;
    let unit = opts.objective.unit();
    match opts.margin {
        Margin::Absolute(v) => MarginUsed {
            value: v,
            why: "as given (--margin)".into(),
        },
        Margin::Fraction(f) => MarginUsed {
            value: f * mean.abs(),
            why: format!(
                "{} % of the baseline's {}{unit} (--margin)",
                format::number(f * 100.0),
                format::number(mean)
            ),
        },
        Margin::Default => {
            let rel = MARGIN_FRACTION * mean.abs();
            let (floor, what) = match opts.objective {
                Objective::Time => (base.summary[metric_index("min_rtt_s")].mean, "its base RTT"),
                Objective::Goodput => (0.0, ""),
                Objective::Retransmissions => (1.0, "one segment"),
            };
            let pct = MARGIN_FRACTION * 100.0;
            if floor.is_finite() && floor > rel {
                MarginUsed {
                    value: floor,
                    why: format!(
                        "{what} {}{unit}, larger than {pct} % of the baseline's {}{unit}",
                        format::number(floor),
                        format::number(mean)
                    ),
                }
            } else {
                MarginUsed {
                    value: rel,
                    why: format!("{pct} % of the baseline's {}{unit}", format::number(mean)),
                }
            }
        }
    }
}

/// Ranks the rows by the objective's mean (best first; ties keep the grid's order) and
/// decides each against the baseline.
fn rank(
    input: &input::Input,
    plan: &Plan,
    runs: &[Vec<[f64; METRICS.len()]>],
    seed: u64,
    reps: u32,
    stop: Stop,
    opts: &Options,
) -> Advice {
    let m = metric_index(opts.objective.metric());
    let mut rows: Vec<Row> = plan
        .candidates
        .iter()
        .zip(runs)
        .map(|(candidate, runs)| Row {
            rank: 0,
            candidate: candidate.clone(),
            summary: summarize(runs),
            runs: runs.clone(),
            vs_baseline: Paired::of(&[], &[]),
            verdict: None,
            vs_next: None,
            same_as: None,
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
        .position(|r| r.candidate.fix.is_none())
        .expect("the baseline is a row");
    for (i, r) in rows.iter_mut().enumerate() {
        let from = r.candidate.test_from.min(values[i].len());
        r.rank = i + 1;
        r.vs_baseline = Paired::of(&values[i][from..], &values[base][from..]);
        r.vs_next = values.get(i + 1).map(|next| Paired::of(&values[i], next));
    }
    mark_repeats(&mut rows);
    let margin = margin(opts, &rows[base]);
    let alpha = decide::ALPHA / stop.looks() as f64;
    let comparisons = decide_rows(&mut rows, margin.value, alpha, opts.objective);
    Advice {
        description: input.description.clone(),
        objective: opts.objective,
        seed,
        reps,
        stop,
        margin,
        alpha,
        comparisons,
        combined: plan.combined.clone(),
        box_link: plan.box_link.clone(),
        rows,
        skipped: plan.skipped.clone(),
        remarks: plan.remarks.clone(),
    }
}

/// Per [`METRICS`], the summary of a row's runs (undefined values left out).
fn summarize(runs: &[[f64; METRICS.len()]]) -> Vec<Summary> {
    (0..METRICS.len())
        .map(|k| {
            let v: Vec<f64> = runs
                .iter()
                .map(|r| r[k])
                .filter(|x| x.is_finite())
                .collect();
            Summary::of(&v)
        })
        .collect()
}

/// Marks each row whose every run equals a higher-ranked row's (compared from the
/// same repetition on) as the same as that row.
fn mark_repeats(rows: &mut [Row]) {
    let same = |a: &Row, b: &Row| {
        a.candidate.test_from == b.candidate.test_from
            && a.runs.len() == b.runs.len()
            && a.runs
                .iter()
                .zip(&b.runs)
                .all(|(x, y)| x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits()))
    };
    for i in 1..rows.len() {
        rows[i].same_as = rows[..i]
            .iter()
            .find(|r| r.same_as.is_none() && same(r, &rows[i]))
            .map(|r| r.candidate.label.clone());
    }
}

/// Decides every distinct row against `margin` with Holm's correction over them at
/// level `alpha`; a repeat takes its original's verdict. Returns the comparisons
/// counted.
fn decide_rows(rows: &mut [Row], margin: f64, alpha: f64, objective: Objective) -> usize {
    let sign = if objective.lower_is_better() {
        -1.0
    } else {
        1.0
    };
    // A repeat of the baseline is decided itself (it is certainly equivalent).
    let distinct: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].candidate.fix.is_some())
        .filter(|&i| rows[i].same_as.as_deref().is_none_or(|s| s == "baseline"))
        .collect();
    let samples: Vec<Sample> = distinct
        .iter()
        .map(|&i| Sample {
            mean: sign * rows[i].vs_baseline.mean,
            se: rows[i].vs_baseline.se,
            n: rows[i].vs_baseline.n,
        })
        .collect();
    let verdicts = decide::decide(&samples, margin, alpha);
    for (&i, v) in distinct.iter().zip(&verdicts) {
        rows[i].verdict = Some(*v);
    }
    for i in 0..rows.len() {
        if let Some(same) = rows[i].same_as.clone().filter(|s| s != "baseline") {
            let v = rows
                .iter()
                .find(|r| r.candidate.label == same)
                .and_then(|r| r.verdict);
            rows[i].verdict = v;
        }
    }
    distinct.len()
}

/// Plans, runs and decides: the whole answer for `input`.
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
