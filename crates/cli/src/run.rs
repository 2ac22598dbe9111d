//! `spikelab run`: load, run every repetition, write the outputs, print a summary.
//!
//! Outputs are staged in a sibling directory `<DIR>.partial-<pid>` and published into
//! DIR ([`outdir::publish`]) only when every repetition has finished and every file is
//! written, so a bad scenario, a bad flag, an invariant violation, an I/O error or an
//! interrupt (SIGINT/SIGTERM: [`interrupt`]) never leaves a partial DIR behind. DIR must
//! be new, empty or marked as spikelab's ([`outdir::check_target`]); only the files
//! spikelab wrote there before are replaced. Per-repetition files (traces, pcaps) are
//! written into the staging directory as each repetition ends, so memory holds one
//! trace per worker at most.
//!
//! Repetitions run on a local rayon pool of `--jobs` threads (never more than there are
//! repetitions; one job runs them on the calling thread); their results are collected
//! in repetition order before anything that depends on more than one repetition is
//! written, so every file is identical whatever `--jobs` is.

use crate::args::RunArgs;
use crate::exit::Failure;
use crate::interrupt::{self, Staging};
use crate::outdir::{self, Scope};
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
    let mut scenario = crate::overrides::load(&a.scenario, &a.set)?;
    scenario.set_capture(
        match a.trace {
            true => spikelab_engine::TraceKinds::ALL,
            false => spikelab_engine::TraceKinds::NONE,
        },
        a.pcap.is_some(),
    );
    let info = run_info(a, &scenario);
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&scenario.run().name));
    let target = outdir::check_target(&out).map_err(Failure::usage)?;
    if a.trace && info.reps > 10 {
        eprintln!(
            "warning: --trace with {} repetitions writes {} trace files",
            info.reps, info.reps
        );
    }
    let stage = staging_path(&out).map_err(Failure::usage)?;
    let staging = Staging::register(stage.clone());
    let result = create_dir(&stage)
        .map_err(Failure::from)
        .and_then(|()| run_into(&stage, a, &scenario, &info))
        .and_then(|outcomes| {
            let _writing = interrupt::writing();
            outdir::publish(&stage, &out, &target, &Scope::All)
                .map_err(publish_failure)
                .map(|()| outcomes)
        });
    let result = match result {
        Ok(outcomes) => {
            // A closed stdout (`| head`) must not turn a written run into a panic.
            let _ = std::io::Write::write_all(
                &mut std::io::stdout(),
                crate::summary::table(&outcomes).as_bytes(),
            );
            eprintln!("wrote {}", out.display());
            Ok(())
        }
        Err(f) => {
            let _writing = interrupt::writing();
            let _ = std::fs::remove_dir_all(&stage);
            Err(f)
        }
    };
    drop(staging);
    result
}

/// A refused overwrite is the user's to resolve (exit 2); anything else is I/O (exit 1).
pub(crate) fn publish_failure(e: anyhow::Error) -> Failure {
    if e.downcast_ref::<outdir::Conflict>().is_some() {
        Failure::usage(e)
    } else {
        Failure::from(e)
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
        overrides: a.set.clone(),
    }
}

/// Runs every repetition and writes every output into `stage`.
fn run_into(
    stage: &Path,
    a: &RunArgs,
    s: &Scenario,
    info: &RunInfo,
) -> Result<Vec<RepOutcome>, Failure> {
    let sim = s.sim();
    let jobs = a
        .jobs
        .map_or_else(default_jobs, |j| j as usize)
        .min(info.reps as usize);
    let outcomes = run_reps(stage, sim, info, jobs)?;
    let _writing = interrupt::writing();
    outputs::write_all(stage, s, info, &outcomes)?;
    Ok(outcomes)
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs the repetitions on `jobs` threads; the outcomes come back in repetition order.
/// One job runs them on this thread: a pool of one worker would add a thread, its
/// stack and its own allocator arena for nothing.
fn run_reps(
    stage: &Path,
    sim: &SimConfig,
    info: &RunInfo,
    jobs: usize,
) -> Result<Vec<RepOutcome>, Failure> {
    let bar = progress_bar(info.reps as u64);
    if jobs <= 1 {
        let outcomes = (0..info.reps)
            .map(|rep| {
                let r = run_one(stage, sim, info, rep);
                bar.inc(1);
                r
            })
            .collect();
        bar.finish_and_clear();
        return outcomes;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("cannot start the worker threads")?;
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
    {
        let _writing = interrupt::writing();
        outputs::write_rep_files(stage, sim, info.pcap, rep, &result)?;
    }
    Ok(RepOutcome::from_result(rep, seed, result))
}

/// The staging directory beside `out`: `<out>.partial-<pid>`.
pub(crate) fn staging_path(out: &Path) -> anyhow::Result<PathBuf> {
    let name = out
        .file_name()
        .ok_or_else(|| anyhow!("--out {}: not a directory name", out.display()))?;
    let mut stage_name = name.to_os_string();
    stage_name.push(format!(".partial-{}", std::process::id()));
    Ok(out.with_file_name(stage_name))
}

/// Creates the empty staging directory (one of this process's own name, left by an
/// earlier process with the same id, is cleared first).
pub(crate) fn create_dir(stage: &Path) -> anyhow::Result<()> {
    let _writing = interrupt::writing();
    if stage.exists() {
        std::fs::remove_dir_all(stage)
            .with_context(|| format!("cannot clear {}", stage.display()))?;
    }
    std::fs::create_dir_all(stage).with_context(|| format!("cannot create {}", stage.display()))
}
