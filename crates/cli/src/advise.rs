//! `spikelab advise PATH`: which fix works on this path? The generated experiment of
//! [`spikelab_experiments::advise`], run with a progress bar, its ranked table printed
//! and its files (advise.csv, runs.csv, advise.md, advise.html, scenarios/) written
//! into a folder of spikelab's own ([`crate::outdir`]), staged and published as
//! `spikelab run` does.

use crate::args::AdviseArgs;
use crate::exit::Failure;
use crate::interrupt::{self, Staging};
use crate::outdir::{self, Scope};
use crate::run::{create_dir, publish_failure, staging_path};
use anyhow::anyhow;
use indicatif::{ProgressBar, ProgressStyle};
use spikelab_experiments::advise::answer::answer;
use spikelab_experiments::advise::fixes::Side;
use spikelab_experiments::advise::input::{self, TraceKind};
use spikelab_experiments::advise::report::{notes, table, text_table, write_all};
use spikelab_experiments::advise::{self as adv, Margin, Objective, Options, Reps};
use spikelab_experiments::runner::{default_jobs, Progress};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

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
        reps: match (a.reps, a.budget) {
            (Some(n), _) => Reps::Fixed(n),
            (None, Some(s)) => Reps::Budget(s),
            (None, None) => Reps::Until { max: a.max_reps },
        },
        margin: a.margin.unwrap_or_default(),
        only: a.only.as_deref().map(|s| match s {
            "network" => Side::Network,
            _ => Side::Sender,
        }),
        seed: a.seed,
        jobs: a.jobs.map_or_else(default_jobs, |j| j as usize),
        flow: a.flow.clone(),
        fixes: a.fix.clone(),
        combine: !a.no_combine,
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
    let mut text = format!("{}\n\n", answer(&advice));
    text += &text_table(&table(&advice, a.show));
    for n in notes(&advice, &invocation) {
        text.push_str(&format!("* {n}\n"));
    }
    Ok(text)
}

/// The command line that gives the same rows (without --reps, --budget and --seed,
/// which the notes add as the answer needs them).
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
    match a.margin {
        Some(Margin::Fraction(f)) => out += &format!(" --margin {}%", f * 100.0),
        Some(Margin::Absolute(v)) => out += &format!(" --margin {v}"),
        Some(Margin::Default) | None => {}
    }
    if a.no_combine {
        out += " --no-combine";
    }
    if a.max_reps != adv::DEFAULT_MAX_REPS && a.reps.is_none() && a.budget.is_none() {
        out += &format!(" --max-reps {}", a.max_reps);
    }
    out
}
