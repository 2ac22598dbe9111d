//! `spikelab advise PATH`: which fix works on this path? The generated experiment of
//! [`spikelab_experiments::advise`], run with a progress bar, its ranked table printed
//! and its files (advise.csv, runs.csv, advise.md, advise.html, scenarios/) written
//! into a folder of spikelab's own ([`crate::outdir`]), staged and published as
//! `spikelab run` does.

use crate::exit::Failure;
use crate::interrupt::{self, Staging};
use crate::outdir::{self, Scope};
use crate::run::{create_dir, publish_failure, staging_path};
use anyhow::anyhow;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use spikelab_experiments::advise::fixes::Side;
use spikelab_experiments::advise::input::{self, TraceKind};
use spikelab_experiments::advise::report::{notes, table, text_table, write_all};
use spikelab_experiments::advise::{self as adv, Objective, Options, DEFAULT_BUDGET_S};
use spikelab_experiments::runner::{default_jobs, Progress};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// `spikelab advise`.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// A scenario file (.toml), or a measured trace: a Mahimahi delivery trace, a
    /// one-way delay trace (`time,delay` lines) or an RTT trace (one RTT in ms per line).
    pub path: PathBuf,
    /// What to rank by: download time, goodput, or retransmissions.
    #[arg(long, default_value = "time", value_parser = clap::builder::PossibleValuesParser::new(Objective::NAMES))]
    pub objective: String,
    /// Exactly N repetitions per row (replays an earlier answer); default: as many as
    /// the budget allows.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=adv::MAX_REPS as i64))]
    pub reps: Option<u32>,
    /// Wall-clock seconds for the simulations when --reps is not given.
    #[arg(long, default_value_t = DEFAULT_BUDGET_S, value_name = "SECONDS", value_parser = positive_seconds)]
    pub budget: f64,
    /// Only the sender-side or only the network-side fixes.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["sender", "network"]))]
    pub only: Option<String>,
    /// Base seed (default: the scenario's run.seed, 1 for a trace).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output folder (default: out/advise/<name of PATH>). Must be new, empty, or an
    /// earlier spikelab output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Threads (default: every core). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=crate::args::MAX_JOBS as i64))]
    pub jobs: Option<u32>,
    /// Rank by this flow (and its replicas) instead of every TCP flow.
    #[arg(long)]
    pub flow: Option<String>,
    /// Keep only fixes whose label contains TEXT (repeatable), e.g. --fix eifel.
    #[arg(long = "fix", value_name = "TEXT")]
    pub fix: Vec<String>,
    /// How to read a PATH that is not a .toml scenario.
    #[arg(long, default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(TraceKind::NAMES))]
    pub trace_kind: String,
    /// Rows of the table printed (all are in advise.csv).
    #[arg(long, default_value_t = 20)]
    pub show: usize,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

/// An indicatif bar with an ETA; its length grows as the budget adds repetitions.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn add_total(&self, n: u64) {
        self.0.inc_length(n);
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
}

fn bar() -> Bar {
    if !std::io::stderr().is_terminal() {
        return Bar(ProgressBar::hidden());
    }
    let b = ProgressBar::new(0);
    if let Ok(style) =
        ProgressStyle::with_template("advise {bar:40} {pos}/{len} runs {elapsed} ETA {eta}")
    {
        b.set_style(style);
    }
    Bar(b)
}

fn options(a: &AdviseArgs) -> Options {
    Options {
        objective: Objective::from_name(&a.objective).unwrap_or_default(),
        reps: a.reps,
        budget_s: a.budget,
        only: a.only.as_deref().map(|s| match s {
            "network" => Side::Network,
            _ => Side::Sender,
        }),
        seed: a.seed,
        jobs: a.jobs.map_or_else(default_jobs, |j| j as usize),
        flow: a.flow.clone(),
        fixes: a.fix.clone(),
    }
}

fn default_out(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "path".into(), |s| s.to_string_lossy().into_owned());
    Path::new("out").join("advise").join(stem)
}

/// Runs `spikelab advise`.
pub fn advise_command(a: &AdviseArgs) -> Result<(), Failure> {
    let out = a.out.clone().unwrap_or_else(|| default_out(&a.path));
    let target = outdir::check_target(&out).map_err(Failure::usage)?;
    let stage = staging_path(&out).map_err(Failure::usage)?;
    let staging = Staging::register(stage.clone());
    let result = create_dir(&stage)
        .map_err(Failure::from)
        .and_then(|()| advise_into(&stage, a))
        .and_then(|text| {
            let _writing = interrupt::writing();
            outdir::publish(&stage, &out, &target, &Scope::All).map_err(publish_failure)?;
            Ok(text)
        });
    match &result {
        Ok(text) => {
            print!("{text}");
            eprintln!("wrote {}", out.display());
        }
        Err(_) => {
            let _writing = interrupt::writing();
            let _ = std::fs::remove_dir_all(&stage);
        }
    }
    drop(staging);
    result.map(|_| ())
}

/// Reads PATH, runs the advice and writes its files into `stage`; returns the text
/// for stdout.
fn advise_into(stage: &Path, a: &AdviseArgs) -> Result<String, Failure> {
    let kind = TraceKind::from_name(&a.trace_kind).unwrap_or_default();
    let input = input::read(&a.path, kind, stage).map_err(Failure::usage)?;
    let opts = options(a);
    let plan = adv::plan(&input, &opts).map_err(Failure::usage)?;
    if plan.candidates.len() < 2 {
        return Err(Failure::usage(anyhow!(
            "no fix to compare on this path{}",
            if a.fix.is_empty() {
                String::new()
            } else {
                format!(" (--fix {} matches none that changes it)", a.fix.join(", "))
            }
        )));
    }
    let progress = bar();
    let advice = adv::run(&input, plan, &opts, &progress).map_err(Failure::invariant)?;
    progress.0.finish_and_clear();
    let _writing = interrupt::writing();
    let invocation = invocation(a);
    write_all(&advice, stage, &invocation)?;
    let mut text = text_table(&table(&advice, a.show));
    for n in notes(&advice, &invocation) {
        text.push_str(&format!("* {n}\n"));
    }
    Ok(text)
}

/// The command line that gives the same rows (without --reps and --seed, which the
/// notes add with the values used).
fn invocation(a: &AdviseArgs) -> String {
    let mut out = format!("spikelab advise {}", a.path.display());
    if a.objective != "time" {
        out += &format!(" --objective {}", a.objective);
    }
    if let Some(o) = &a.only {
        out += &format!(" --only {o}");
    }
    if let Some(f) = &a.flow {
        out += &format!(" --flow {f}");
    }
    for f in &a.fix {
        out += &format!(" --fix {f}");
    }
    if a.trace_kind != "auto" {
        out += &format!(" --trace-kind {}", a.trace_kind);
    }
    out
}
