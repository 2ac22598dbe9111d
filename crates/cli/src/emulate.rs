//! `spikelab emulate`: the kernel's TCP on the scenario's path (crates/emulate), with
//! the same files as `spikelab run` written by the same writers ([`crate::outputs`]),
//! staged and published the same way ([`crate::run`]), plus the emulator's own; and
//! `spikelab diverge`, the first diverging decision of two runs' captures.

use crate::exit::Failure;
use crate::outdir::{self, Scope};
use crate::outputs::{self, RepOutcome, RunInfo};
use crate::run::{create_dir, publish_failure, staging_path};
use anyhow::anyhow;
use spikelab_core::RngStreams;
use spikelab_emulate::{EmuError, EmulateArgs, Plan};
use std::path::Path;

/// Exit code after SIGINT/SIGTERM (128 + SIGINT), as shells report it.
const INTERRUPTED: u8 = 130;

fn emu_failure(e: EmuError) -> Failure {
    match e {
        EmuError::Unsupported(_) | EmuError::Environment(_) => Failure::usage(e),
        EmuError::Interrupted => Failure {
            code: INTERRUPTED,
            error: e.into(),
        },
        EmuError::Failed(e) => Failure::from(e),
    }
}

/// Runs `spikelab emulate`.
pub fn emulate_command(a: &EmulateArgs) -> Result<(), Failure> {
    let scenario = spikelab_scenario::load(&a.scenario).map_err(Failure::usage)?;
    let sysctls = spikelab_emulate::parse_sysctls(&a.sysctl).map_err(emu_failure)?;
    let mut plan =
        spikelab_emulate::plan(&scenario, &sysctls, a.cc.as_deref()).map_err(Failure::usage)?;
    plan.pcap = a.pcap;
    plan.tcp_info = a.tcp_info;
    spikelab_emulate::preflight().map_err(emu_failure)?;
    let seed = a.seed.unwrap_or(scenario.run().seed);
    let reps = a.reps.unwrap_or(scenario.run().reps);
    let info = RunInfo {
        seed,
        reps,
        seeds: (0..reps as u64)
            .map(|r| RngStreams::repetition_seed(seed, r))
            .collect(),
        trace: false,
        // The emulator captures real packets at both ends itself.
        pcap: a.pcap.then_some(crate::args::PcapSides::Both),
        overrides: Vec::new(),
    };
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(format!("{}-emulate", scenario.run().name)));
    let target = outdir::check_target(&out).map_err(Failure::usage)?;
    let stage = staging_path(&out).map_err(Failure::usage)?;
    create_dir(&stage)?;
    let result = emulate_into(&stage, &plan, &info, a.jobs as usize)
        .and_then(|reports| {
            let outcomes: Vec<RepOutcome> = reports.iter().map(outcome).collect();
            outputs::write_all(&stage, &scenario, &info, &outcomes)?;
            spikelab_emulate::outputs::write_extras(&stage, &reports, a.cc.as_deref())?;
            warn_if_late(&reports);
            Ok(())
        })
        .and_then(|()| {
            outdir::publish(&stage, &out, &target, &Scope::All).map_err(publish_failure)
        });
    if let Err(f) = result {
        let _ = std::fs::remove_dir_all(&stage);
        return Err(f);
    }
    eprintln!("wrote {}", out.display());
    if let Some(sim) = &a.compare {
        print!("{}", spikelab_emulate::outputs::compare(sim, &out)?);
        if a.pcap && sim.join("pcap").is_dir() {
            use spikelab_emulate::diverge::{DEFAULT_CONTEXT, DEFAULT_TOLERANCE_MS};
            let (text, csv) = diverge(&out, sim, ns(DEFAULT_TOLERANCE_MS), DEFAULT_CONTEXT)?;
            let file = out.join("divergence.csv");
            std::fs::write(&file, csv)
                .map_err(|e| Failure::from(anyhow!("{}: {e}", file.display())))?;
            print!("\n{text}");
        }
    }
    Ok(())
}

fn ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

fn diverge(
    a: &Path,
    b: &Path,
    tolerance_ns: u64,
    context: usize,
) -> Result<(String, String), Failure> {
    spikelab_emulate::diverge::compare_dirs(a, b, tolerance_ns, context).map_err(Failure::usage)
}

/// Runs `spikelab diverge`: the report on stdout, the table into `--csv`.
pub fn diverge_command(a: &crate::args::DivergeArgs) -> Result<(), Failure> {
    let (text, csv) = diverge(&a.a, &a.b, ns(a.tolerance_ms), a.context)?;
    if let Some(file) = &a.csv {
        std::fs::write(file, csv).map_err(|e| Failure::from(anyhow!("{}: {e}", file.display())))?;
    }
    print!("{text}");
    Ok(())
}

/// Runs the repetitions, `jobs` at a time, in repetition order.
fn emulate_into(
    stage: &Path,
    plan: &Plan,
    info: &RunInfo,
    jobs: usize,
) -> Result<Vec<spikelab_emulate::report::RepReport>, Failure> {
    let mut reports = Vec::new();
    let reps: Vec<u32> = (0..info.reps).collect();
    for batch in reps.chunks(jobs.max(1)) {
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = batch
                .iter()
                .map(|&r| {
                    let seed = info.seeds[r as usize];
                    s.spawn(move || spikelab_emulate::run_rep(plan, r, seed, stage))
                })
                .collect();
            handles.into_iter().map(|h| h.join()).collect()
        });
        for r in results {
            let r = r.map_err(|_| Failure::from(anyhow!("a repetition panicked")))?;
            reports.push(r.map_err(emu_failure)?);
        }
    }
    Ok(reports)
}

fn outcome(r: &spikelab_emulate::report::RepReport) -> RepOutcome {
    RepOutcome {
        rep: r.rep,
        seed: r.seed,
        end: spikelab_core::Time((r.end_s * 1e9).round() as u64),
        events: r.lateness.packets,
        data_packets_delivered: r.flows.iter().map(|f| f.delivered).sum(),
        flows: r.flows.clone(),
        timeouts: r.timeouts.clone(),
        links: r.links.clone(),
    }
}

fn warn_if_late(reports: &[spikelab_emulate::report::RepReport]) {
    for r in reports.iter().filter(|r| !r.lateness.honest()) {
        eprintln!(
            "warning: repetition {}: the forwarder released packets late (p99 {:.2} ms > {} ms): its timing does not follow the model",
            r.rep,
            r.lateness.p99_ms,
            spikelab_emulate::report::HONEST_P99_MS
        );
    }
}
