//! Command-line arguments (clap derive).

use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand};
use spikelab_experiments::advise::input::TraceKind;
use spikelab_experiments::advise::{self as adv, Margin, Objective};
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
    /// Check a scenario file without running it: one OK line, or the located error.
    Validate(ValidateArgs),
    /// Run real Linux TCP (namespaces, TUN) through the scenario's path in real time (root).
    Emulate(spikelab_emulate::EmulateArgs),
    /// Where two runs of the same flows first part (kernel against model, or any two
    /// outputs with captures at both ends): the first diverging decision of each flow.
    Diverge(DivergeArgs),
    /// Which fix works on this path? Sweep the detectors, responses, RTO estimators and
    /// network boxes on a scenario or a trace, ranked with 95 % confidence intervals.
    Advise(AdviseArgs),
    /// Write a scenario as another simulator's script.
    #[command(subcommand)]
    Export(ExportCommand),
}

/// `spikelab diverge`.
#[derive(Debug, Args)]
pub struct DivergeArgs {
    /// An output folder with captures at both ends (`spikelab emulate --pcap`, or
    /// `spikelab run --pcap`).
    pub a: PathBuf,
    /// The other run's output folder (same scenario, --reps and --seed).
    pub b: PathBuf,
    /// Send times of the same data segment that differ by more than this are a
    /// divergence (a timer, the pacer, the path's timing).
    #[arg(long, default_value_t = spikelab_emulate::diverge::DEFAULT_TOLERANCE_MS, value_name = "MS", value_parser = non_negative_ms)]
    pub tolerance_ms: f64,
    /// Packets of each capture shown before the divergence.
    #[arg(long, default_value_t = spikelab_emulate::diverge::DEFAULT_CONTEXT)]
    pub context: usize,
    /// Also write the table (one row per repetition and flow) to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
}

fn non_negative_ms(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not a non-negative number of milliseconds"
        )),
    }
}

/// `spikelab advise`.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// A scenario file (.toml), or a measured trace: a Mahimahi delivery trace, a
    /// one-way delay trace (`time,delay` lines) or an RTT trace (one RTT in ms per line).
    pub path: PathBuf,
    /// What to rank by: download time, goodput, or retransmissions.
    #[arg(long, default_value = "time", value_parser = clap::builder::PossibleValuesParser::new(Objective::NAMES))]
    pub objective: String,
    /// Exactly N repetitions per row (replays an earlier answer). Default: the stopping
    /// rule: 10, 20, 40, ... repetitions until every row is decided or --max-reps.
    #[arg(long, conflicts_with = "budget", value_parser = clap::value_parser!(u32).range(2..=adv::MAX_REPS as i64))]
    pub reps: Option<u32>,
    /// The stopping rule's cap on repetitions per row.
    #[arg(long, default_value_t = adv::DEFAULT_MAX_REPS, value_parser = clap::value_parser!(u32).range(2..=adv::MAX_REPS as i64))]
    pub max_reps: u32,
    /// Opt in to a wall-clock budget instead of the stopping rule: as many repetitions
    /// as fit in SECONDS (reported, so --reps replays them; the count depends on the
    /// machine).
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub budget: Option<f64>,
    /// The difference that matters: a number in the objective's unit (e.g. 0.5 for
    /// half a second), or a percentage of the baseline's mean (e.g. 5%). Default: 2 %
    /// of the baseline's mean, at least one base RTT (time) or one segment
    /// (retransmissions).
    #[arg(long, value_name = "VALUE", value_parser = margin)]
    pub margin: Option<Margin>,
    /// Leave out the combinations of the best sender fixes with the network boxes and
    /// stacks.
    #[arg(long)]
    pub no_combine: bool,
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
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_JOBS as i64))]
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

/// `--margin`: `5%` (of the baseline's mean) or a positive number in the objective's
/// unit.
fn margin(s: &str) -> Result<Margin, String> {
    let bad = || format!("`{s}` is neither a positive number nor a percentage like 5%");
    let (num, pct) = match s.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (s.trim(), false),
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    if !(v.is_finite() && v > 0.0) {
        return Err(bad());
    }
    Ok(if pct {
        Margin::Fraction(v / 100.0)
    } else {
        Margin::Absolute(v)
    })
}

/// The most threads `--jobs` accepts: far above any machine this runs on, far below
/// what the operating system refuses (`--jobs 100000` aborted in thread creation).
pub const MAX_JOBS: u32 = 1024;

/// `spikelab validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Override a value as `run` does (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
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
    /// Experiments to run (default: the five papers and the real-paths study, unless
    /// --experiment is given; the other studies, e.g. quic-spikes, run only when named).
    pub names: Vec<String>,
    /// Also run this experiment file (TOML, as those under experiments/; repeatable).
    /// The scenario files it names are read from its own directory; its outputs go to
    /// DIR/<its name>/.
    #[arg(long = "experiment", value_name = "FILE")]
    pub experiments: Vec<PathBuf>,
    /// Repetitions per cell.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,
    /// Output directory: DIR/<experiment>/ and DIR/report.md, DIR/report.html. Must be
    /// new, empty, or an earlier spikelab output (it holds `.spikelab-output`); only the
    /// files spikelab wrote there for the chosen experiments are replaced.
    #[arg(long, default_value = "out/reproduce")]
    pub out: PathBuf,
    /// Base seed; repetition r of every cell uses RngStreams::repetition_seed(seed, r).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (default: every core; at most 1024). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_JOBS as i64))]
    pub jobs: Option<u32>,
    /// Run each experiment's findings under each of its declared readings of the
    /// inputs its paper leaves unstated (the default, then one input at a time, or
    /// every combination where the file says so; paired by seed), instead of its
    /// tables and figures: DIR/<experiment>/readings.{csv,md} and the findings ×
    /// readings matrix in the report.
    #[arg(long)]
    pub readings: bool,
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
    /// Output directory (default: out/<scenario name>). Must be new, empty, or an
    /// earlier spikelab output (it holds `.spikelab-output`); only the files spikelab
    /// wrote there are replaced, anything else (plots, notes) stays.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write pcap files of every repetition and flow, captured at the sender
    /// (pcap/rep<r>-<flow>.pcap), at the receiver (pcap/receiver/rep<r>-<flow>.pcap),
    /// or both; plain --pcap means both.
    #[arg(long, value_parser = pcap_sides(), value_name = "SIDE", num_args = 0..=1, default_missing_value = "both")]
    pub pcap: Option<PcapSides>,
    /// Write trace/rep<r>.csv for every repetition (for `spikelab plot`).
    #[arg(long)]
    pub trace: bool,
    /// Repetitions run at once (default: every core; at most 1024). Results do not
    /// depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_JOBS as i64))]
    pub jobs: Option<u32>,
    /// Override a value of the scenario file by its dotted path, as the experiment grids
    /// do: `--set flow.0.tcp.spurious.driver=eifel` (repeatable, applied in order; the
    /// value is read as TOML, else as a string).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

pub use spikelab_results::PcapSides;

/// `--pcap SIDE`: one of [`PcapSides::NAMES`].
fn pcap_sides() -> impl clap::builder::TypedValueParser<Value = PcapSides> {
    clap::builder::PossibleValuesParser::new(PcapSides::NAMES)
        .map(|s| PcapSides::from_name(&s).expect("a possible value"))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pcap_of(args: &[&str]) -> Option<PcapSides> {
        let cli = Cli::try_parse_from([&["spikelab", "run", "s.toml"], args].concat()).unwrap();
        match cli.command {
            Command::Run(a) => a.pcap,
            _ => unreachable!(),
        }
    }

    #[test]
    fn plain_pcap_means_both_ends_and_a_side_can_be_named() {
        assert_eq!(pcap_of(&[]), None);
        assert_eq!(pcap_of(&["--pcap"]), Some(PcapSides::Both));
        assert_eq!(pcap_of(&["--pcap", "sender"]), Some(PcapSides::Sender));
        assert_eq!(pcap_of(&["--pcap=receiver"]), Some(PcapSides::Receiver));
        assert_eq!(pcap_of(&["--pcap", "--seed", "3"]), Some(PcapSides::Both));
        assert!(Cli::try_parse_from(["spikelab", "run", "s.toml", "--pcap", "middle"]).is_err());
    }

    #[test]
    fn sides_include_their_ends() {
        let ends = |s: PcapSides| (s.includes(true), s.includes(false));
        assert_eq!(ends(PcapSides::Sender), (true, false));
        assert_eq!(ends(PcapSides::Receiver), (false, true));
        assert_eq!(ends(PcapSides::Both), (true, true));
    }
}
