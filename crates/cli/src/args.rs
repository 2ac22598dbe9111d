//! Command-line arguments (clap derive).

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// spikelab: a deterministic simulator of TCP over paths with delay spikes.
#[derive(Debug, Parser)]
#[command(name = "spikelab", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario's repetitions in parallel and write their results.
    Run(RunArgs),
    /// Draw time-sequence and window/timer plots from a traced run.
    Plot(PlotArgs),
    /// Measure the engine's speed (wall clock) on two standard workloads.
    Bench(BenchArgs),
    /// Reproduce the papers' experiments and write a report beside them.
    Reproduce(ReproduceArgs),
    /// Write a scenario as another simulator's script.
    #[command(subcommand)]
    Export(ExportCommand),
}

/// `spikelab export`.
#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// One repetition as an ns-2.35 Tcl script, DIR/run.tcl (2002 defaults set
    /// explicitly); keys ns-2 cannot express are refused with exit 2.
    Ns2 {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Repetition to export (its seed places the drops).
        #[arg(long, default_value_t = 0)]
        rep: u32,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
}

/// `spikelab reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Experiments to run (default: all of them).
    pub names: Vec<String>,
    /// Repetitions per cell.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,
    /// Output directory: DIR/<experiment>/ and DIR/report.md, DIR/report.html.
    #[arg(long, default_value = "out/reproduce")]
    pub out: PathBuf,
    /// Base seed; repetition r of every cell uses RngStreams::repetition_seed(seed, r).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (default: every core). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
}

/// `spikelab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Base seed (default: the scenario's `run.seed`). Repetition r runs with
    /// `RngStreams::repetition_seed(seed, r)`; repetition 0 uses the seed itself.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of repetitions (default: the scenario's `run.reps`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: Option<u32>,
    /// Output directory (default: out/<scenario name>). Replaced if it holds an
    /// earlier spikelab output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write pcap/rep<r>-<flow>.pcap for every repetition and flow.
    #[arg(long)]
    pub pcap: bool,
    /// Write trace/rep<r>.csv for every repetition (for `spikelab plot`).
    #[arg(long)]
    pub trace: bool,
    /// Repetitions run at once (default: every core). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
}

/// `spikelab plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// An output directory of `spikelab run --trace`.
    pub dir: PathBuf,
    /// The repetition to plot.
    #[arg(long, default_value_t = 0)]
    pub rep: u32,
    /// The flow to plot, by name or index (default: every flow in the trace).
    #[arg(long)]
    pub flow: Option<String>,
}

/// `spikelab bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Smaller workloads and a single run each (a smoke test, not a measurement).
    #[arg(long)]
    pub quick: bool,
}
