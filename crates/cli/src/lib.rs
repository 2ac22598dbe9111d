//! spikelab-cli: the thin `spikelab` command line.
//!
//! * `spikelab run SCENARIO.toml [--set KEY=VALUE]...`: runs the repetitions in parallel
//!   ([`run`], overrides in [`overrides`]), writes `runs.csv`, `summary.csv`,
//!   `timeouts.csv`, `links.csv`, `meta.json` and optional traces and pcaps
//!   ([`outputs`]) — byte-identical whatever `--jobs` is — only into a folder of its
//!   own ([`outdir`]), and prints a per-flow table ([`summary`]); an interrupt removes
//!   the staged output ([`interrupt`]);
//! * `spikelab advise PATH`: which fix works on a path, ranked with paired confidence
//!   intervals ([`advise`]);
//! * `spikelab validate SCENARIO.toml`: checks the file and runs nothing ([`validate`]);
//! * `spikelab plot DIR`: plots a traced repetition ([`plot`]);
//! * `spikelab bench`: wall-clock throughput of the engine ([`bench`]);
//! * `spikelab reproduce [NAME...]`: the papers' experiments and their report
//!   ([`reproduce`]);
//! * `spikelab emulate SCENARIO.toml`: real Linux TCP on the same path ([`emulate`]);
//! * `spikelab diverge A B`: where two runs' captures first part ([`emulate`]).
//!
//! Exit codes are listed in [`exit`].

pub mod advise;
pub mod args;
pub mod bench;
pub mod emulate;
pub mod exit;
pub mod interrupt;
pub mod outdir;
pub mod outputs;
pub mod overrides;
pub mod plot;
pub mod reproduce;
pub mod run;
pub mod summary;
pub mod validate;

use args::{Cli, Command};
use clap::Parser;
use std::ffi::OsString;
use std::process::ExitCode;

/// Runs the command line `args` (program name first) and returns the exit code.
pub fn main_with(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return clap_exit(e),
    };
    let result = match cli.command {
        Command::Run(a) => run::run_command(&a),
        Command::Advise(a) => advise::advise_command(&a),
        Command::Plot(a) => plot::plot_command(&a),
        Command::Bench(a) => bench::bench_command(&a),
        Command::Reproduce(a) => reproduce::reproduce_command(&a),
        Command::Validate(a) => validate::validate_command(&a),
        Command::Emulate(a) => emulate::emulate_command(&a),
        Command::Diverge(a) => emulate::diverge_command(&a),
        Command::Export(args::ExportCommand::Ns2 { scenario, rep, out }) => {
            export_ns2(&scenario, rep, &out)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.report(),
    }
}

/// `spikelab export ns2`: see [`spikelab_ns2::export::export_command`].
fn export_ns2(
    scenario: &std::path::Path,
    rep: u32,
    out: &std::path::Path,
) -> Result<(), exit::Failure> {
    use spikelab_ns2::export::CommandError;
    match spikelab_ns2::export::export_command(scenario, rep, out) {
        Ok(file) => {
            eprintln!("wrote {}", file.display());
            Ok(())
        }
        Err(CommandError::Usage(e)) => Err(exit::Failure::usage(anyhow::anyhow!(e))),
        Err(CommandError::Io(e)) => Err(exit::Failure::from(anyhow::anyhow!(e))),
    }
}

/// Help and version go to stdout with code 0; a bad flag prints clap's first line
/// (the error itself) and exits with code 2, as does a missing subcommand (after the
/// help).
fn clap_exit(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(exit::USAGE);
        }
        _ => {}
    }
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("error: bad arguments");
    eprintln!("{first} (try --help)");
    ExitCode::from(exit::USAGE)
}
