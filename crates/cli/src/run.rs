//! `spikelab run`: load, run every repetition, write the outputs atomically.
//!
//! Outputs are staged in a sibling directory `<DIR>.partial-<pid>` and renamed to DIR
//! only when every repetition has finished and every file is written, so a bad
//! scenario, a bad flag, an invariant violation or an I/O error never leaves a partial
//! DIR behind. Per-repetition files (traces, pcaps) are written into the staging
//! directory as each repetition ends, so memory holds one trace per worker at most.
//!
//! Repetitions run on a local rayon pool of `--jobs` threads; their results are
//! collected in repetition order before anything that depends on more than one
//! repetition is written, so every file is identical whatever `--jobs` is.

use crate::args::RunArgs;
use crate::exit::Failure;
use crate::outputs::{self, RepOutcome, RunInfo};
use anyhow::{anyhow, Context};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use spikelab_core::RngStreams;
use spikelab_engine::SimConfig;
use spikelab_scenario::Scenario;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Runs `spikelab run`.
pub fn run_command(a: &RunArgs) -> Result<(), Failure> {
    let scenario = spikelab_scenario::load(&a.scenario).map_err(Failure::usage)?;
    let info = run_info(a, &scenario);
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&scenario.run().name));
    check_replaceable(&out).map_err(Failure::usage)?;
    if a.trace && info.reps > 10 {
        eprintln!(
            "warning: --trace with {} repetitions writes {} trace files",
            info.reps, info.reps
        );
    }
    let stage = staging_dir(&out)?;
    let result = run_into(&stage, a, &scenario, &info);
    match result.and_then(|()| publish(&stage, &out).map_err(Failure::from)) {
        Ok(()) => {
            eprintln!("wrote {}", out.display());
            Ok(())
        }
        Err(f) => {
            let _ = std::fs::remove_dir_all(&stage);
            Err(f)
        }
    }
}

fn run_info(a: &RunArgs, s: &Scenario) -> RunInfo {
    let seed = a.seed.unwrap_or(s.run().seed);
    let reps = a.reps.unwrap_or(s.run().reps);
    RunInfo {
        seed,
        reps,
        seeds: (0..reps as u64)
            .map(|r| RngStreams::repetition_seed(seed, r))
            .collect(),
        trace: a.trace,
        pcap: a.pcap,
    }
}

/// Runs every repetition and writes every output into `stage`.
fn run_into(stage: &Path, a: &RunArgs, s: &Scenario, info: &RunInfo) -> Result<(), Failure> {
    let mut sim = s.to_sim();
    sim.trace = a.trace;
    sim.pcap = a.pcap.is_some();
    let jobs = a.jobs.map_or_else(default_jobs, |j| j as usize);
    let outcomes = run_reps(stage, &sim, info, jobs)?;
    outputs::write_all(stage, s, info, &outcomes)?;
    Ok(())
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs the repetitions on `jobs` threads; the outcomes come back in repetition order.
fn run_reps(
    stage: &Path,
    sim: &SimConfig,
    info: &RunInfo,
    jobs: usize,
) -> Result<Vec<RepOutcome>, Failure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("cannot start the worker threads")?;
    let bar = progress_bar(info.reps as u64);
    let results: Vec<Result<RepOutcome, Failure>> = pool.install(|| {
        (0..info.reps)
            .into_par_iter()
            .map(|rep| {
                let r = run_one(stage, sim, info, rep);
                bar.inc(1);
                r
            })
            .collect()
    });
    bar.finish_and_clear();
    results.into_iter().collect()
}

/// A progress bar on stderr when stderr is a terminal, else a hidden one.
fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} repetitions {elapsed}") {
        bar.set_style(style);
    }
    bar
}

/// Runs repetition `rep`, writes its trace and pcaps, keeps its results.
fn run_one(stage: &Path, sim: &SimConfig, info: &RunInfo, rep: u32) -> Result<RepOutcome, Failure> {
    let seed = info.seeds[rep as usize];
    let result = spikelab_engine::run(sim, seed).map_err(|e| {
        Failure::invariant(anyhow!(
            "repetition {rep} (seed {seed}): {e}; no results were written"
        ))
    })?;
    outputs::write_rep_files(stage, sim, info.pcap, rep, &result)?;
    Ok(RepOutcome::from_result(rep, seed, result))
}

/// DIR may be replaced only if it does not exist, is empty, or holds a spikelab
/// output (a `meta.json`): never a directory the user keeps other things in.
fn check_replaceable(out: &Path) -> anyhow::Result<()> {
    if !out.exists() {
        return Ok(());
    }
    let is_dir = out.is_dir();
    let empty = is_dir && std::fs::read_dir(out)?.next().is_none();
    if is_dir && (empty || out.join("meta.json").is_file()) {
        return Ok(());
    }
    Err(anyhow!(
        "--out {}: exists and is not a spikelab output directory (no meta.json); refusing to replace it",
        out.display()
    ))
}

/// Creates the empty staging directory beside `out`.
fn staging_dir(out: &Path) -> anyhow::Result<PathBuf> {
    let name = out
        .file_name()
        .ok_or_else(|| anyhow!("--out {}: not a directory name", out.display()))?;
    let mut stage_name = name.to_os_string();
    stage_name.push(format!(".partial-{}", std::process::id()));
    let stage = out.with_file_name(stage_name);
    if stage.exists() {
        std::fs::remove_dir_all(&stage)
            .with_context(|| format!("cannot clear {}", stage.display()))?;
    }
    std::fs::create_dir_all(&stage)
        .with_context(|| format!("cannot create {}", stage.display()))?;
    Ok(stage)
}

/// Moves the finished staging directory to `out`, replacing an earlier output.
fn publish(stage: &Path, out: &Path) -> anyhow::Result<()> {
    if out.exists() {
        std::fs::remove_dir_all(out)
            .with_context(|| format!("cannot replace {}", out.display()))?;
    }
    std::fs::rename(stage, out)
        .with_context(|| format!("cannot move {} to {}", stage.display(), out.display()))
}
