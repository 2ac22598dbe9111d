//! The files of `spikelab run`, written with the output crate's CSV writer and stats.
//!
//! | file | one row per | columns |
//! |------|-------------|---------|
//! | `runs.csv` | repetition and flow | `rep, seed, flow, kind, start_s,` then every [`METRICS`] column |
//! | `summary.csv` | flow name and metric | `flow, metric, n, mean, std, ci95, min, p5, median, p95, max` |
//! | `timeouts.csv` | retransmission timeout (expiry) | `rep, flow, episode, time_s, seq, rto_s, last_rtt_s, backoff, truth, spurious, in_fast_recovery, fast, verdicts` |
//! | `detectors.csv` | spurious-timeout detector | `detector, decided, true_positives, false_positives, true_negatives, false_negatives, undecided, ack_lost_called_spurious, precision, recall, mean_delay_s` |
//! | `links.csv` | repetition, link and direction | `rep, link, dir, offered, delivered, dropped, in_network` |
//! | `meta.json` | run | version, scenario path, `--set` overrides, seeds, per-repetition engine counters, resolved configuration |
//! | `.spikelab-output` | folder | spikelab's marker: the files it wrote there ([`crate::outdir`]) |
//! | `trace/rep<r>.csv` | traced event (`--trace`) | the output crate's trace format |
//! | `pcap/rep<r>-<flow>.pcap` | packet at the flow's sender (`--pcap`, `--pcap sender`) | libpcap |
//! | `pcap/receiver/rep<r>-<flow>.pcap` | packet at the flow's receiver (`--pcap`, `--pcap receiver`) | libpcap |
//!
//! A metric a flow does not have (the download time or goodput of an unfinished transfer) is
//! written as `NaN` in `runs.csv` and left out of its summary, whose `n` counts the
//! values summarised. `summary.csv` pools the replicas `name#i` of a counted flow with
//! every repetition under `name`.

use crate::args::PcapSides;
use anyhow::Context;
use serde::Serialize;
use spikelab_engine::{FlowKind, FlowResult, LinkResult, RunResult, SimConfig, TimeoutRecord};
use spikelab_output::csv::{write_trace_csv, CsvWriter};
use spikelab_output::pcap::{self, create_pcap, Seen, Vantage};
use spikelab_output::stats::Summary;
use spikelab_scenario::Scenario;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The run-level settings every output records.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// Base seed.
    pub seed: u64,
    /// Number of repetitions.
    pub reps: u32,
    /// Seed of each repetition.
    pub seeds: Vec<u64>,
    /// Whether traces were written.
    pub trace: bool,
    /// Which pcaps were written (`--pcap`).
    pub pcap: Option<PcapSides>,
    /// The `--set KEY=VALUE` overrides applied to the scenario file, in order.
    pub overrides: Vec<String>,
}

/// What is kept of one repetition once its trace and captures are written.
#[derive(Clone, Debug)]
pub struct RepOutcome {
    /// Repetition number.
    pub rep: u32,
    /// Its seed.
    pub seed: u64,
    /// Simulated time at the end of the run, seconds.
    pub end_s: f64,
    /// Events processed.
    pub events: u64,
    /// Data packets delivered to receivers.
    pub data_packets_delivered: u64,
    /// Per-flow metrics.
    pub flows: Vec<FlowResult>,
    /// Every retransmission timeout.
    pub timeouts: Vec<TimeoutRecord>,
    /// Per-link-direction counters.
    pub links: Vec<LinkResult>,
}

impl RepOutcome {
    /// Keeps the summary parts of `r`.
    pub fn from_result(rep: u32, seed: u64, r: RunResult) -> RepOutcome {
        RepOutcome {
            rep,
            seed,
            end_s: r.end.as_secs_f64(),
            events: r.events,
            data_packets_delivered: r.data_packets_delivered,
            flows: r.flows,
            timeouts: r.timeouts,
            links: r.links,
        }
    }
}

/// A metric's value in one row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A count.
    Int(u64),
    /// A real number; `None` when the flow has no such value.
    Real(Option<f64>),
}

impl Value {
    fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Real(v) => v.unwrap_or(f64::NAN),
        }
    }
}

/// A per-flow metric: its column name and how to read it from a [`FlowResult`].
pub struct Metric {
    /// Column name in `runs.csv`, row label in `summary.csv`.
    pub name: &'static str,
    /// The value for one flow in one repetition.
    pub value: fn(&FlowResult) -> Value,
}

/// Every per-flow metric, in column order. Formulas live on [`FlowResult`].
pub const METRICS: &[Metric] = &[
    Metric {
        name: "completed",
        value: |f| Value::Int(f.completed.is_some() as u64),
    },
    Metric {
        name: "download_time_s",
        value: |f| Value::Real(f.download_time()),
    },
    Metric {
        name: "throughput_bps",
        value: |f| Value::Real(f.throughput_bps()),
    },
    Metric {
        name: "goodput",
        value: |f| Value::Real(Some(f.goodput())),
    },
    Metric {
        name: "bytes",
        value: |f| Value::Int(f.bytes),
    },
    Metric {
        name: "data_segments_sent",
        value: |f| Value::Int(f.data_segments_sent),
    },
    Metric {
        name: "min_segments",
        value: |f| Value::Int(f.min_segments),
    },
    Metric {
        name: "retransmissions",
        value: |f| Value::Int(f.retransmissions),
    },
    Metric {
        name: "unnecessary_retransmissions",
        value: |f| Value::Int(f.unnecessary_retransmissions),
    },
    Metric {
        name: "fast_retransmits",
        value: |f| Value::Int(f.fast_retransmits),
    },
    Metric {
        name: "timeouts",
        value: |f| Value::Int(f.timeouts),
    },
    Metric {
        name: "spurious_timeouts",
        value: |f| Value::Int(f.spurious_timeouts),
    },
    Metric {
        name: "genuine_timeouts",
        value: |f| Value::Int(f.genuine_timeouts),
    },
    Metric {
        name: "timeout_episodes",
        value: |f| Value::Int(f.timeout_episodes),
    },
    Metric {
        name: "spurious_timeout_episodes",
        value: |f| Value::Int(f.spurious_timeout_episodes),
    },
    Metric {
        name: "genuine_timeout_episodes",
        value: |f| Value::Int(f.genuine_timeout_episodes),
    },
    Metric {
        name: "delivered",
        value: |f| Value::Int(f.delivered),
    },
];

/// Writes the trace and pcap files of one repetition (if asked for) into `dir`.
pub fn write_rep_files(
    dir: &Path,
    sim: &SimConfig,
    pcap: Option<PcapSides>,
    rep: u32,
    r: &RunResult,
) -> anyhow::Result<()> {
    if sim.trace {
        let path = dir.join("trace").join(format!("rep{rep}.csv"));
        create_parent(&path)?;
        write_trace_csv(&path, &r.trace).with_context(|| format!("writing {}", path.display()))?;
    }
    let Some(sides) = pcap else { return Ok(()) };
    for (f, packets) in r.captures.iter().enumerate() {
        let seen: Vec<Seen> = packets.iter().map(seen).collect();
        let name = format!("rep{rep}-{}.pcap", file_safe(&sim.flows[f].name));
        for (sender, at, sub) in [
            (true, Vantage::Sender, ""),
            (false, Vantage::Receiver, "receiver"),
        ] {
            if sides.includes(sender) {
                let path = dir.join("pcap").join(sub).join(&name);
                create_parent(&path)?;
                write_pcap(&path, &sim.flows[f], &r.flows[f], &seen, at)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
        }
    }
    Ok(())
}

fn seen(c: &spikelab_engine::Captured) -> Seen {
    let at = match c.at {
        spikelab_engine::Endpoint::Sender => Vantage::Sender,
        spikelab_engine::Endpoint::Receiver => Vantage::Receiver,
    };
    Seen {
        time: c.time,
        packet: c.packet,
        at,
    }
}

/// The pcap of one flow seen at `at`, with the close the pcap writer synthesises for a
/// finished transfer (the simulator has no FIN; see the output crate's pcap module).
fn write_pcap(
    path: &Path,
    spec: &spikelab_engine::FlowSpec,
    result: &FlowResult,
    seen: &[Seen],
    at: Vantage,
) -> anyhow::Result<()> {
    let mut w = create_pcap(path)?;
    if let FlowKind::Tcp { tcp, .. } = &spec.kind {
        w = w
            .with_mss(u16::try_from(tcp.mss).unwrap_or(u16::MAX))
            .with_window(tcp.receiver_window)
            .with_handshake(tcp.handshake);
    }
    for (time, record) in pcap::records_at(seen, at, result.completed) {
        w.write_record(time, &record)?;
    }
    w.into_inner()?;
    Ok(())
}

/// `name` with every character other than letters, digits, `-`, `_`, `.`, `#` as `_`.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.#".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn create_parent(path: &Path) -> anyhow::Result<()> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).with_context(|| format!("creating {}", p.display()))?;
    }
    Ok(())
}

/// Writes every run-level file into `dir`.
pub fn write_all(
    dir: &Path,
    s: &Scenario,
    info: &RunInfo,
    outcomes: &[RepOutcome],
) -> anyhow::Result<()> {
    let sim = s.sim();
    write_csv(&dir.join("runs.csv"), |w| write_runs(w, sim, outcomes))?;
    write_csv(&dir.join("summary.csv"), |w| write_summary(w, outcomes))?;
    write_csv(&dir.join("timeouts.csv"), |w| {
        write_timeouts(w, sim, outcomes)
    })?;
    write_csv(&dir.join("links.csv"), |w| write_links(w, outcomes))?;
    write_csv(&dir.join("detectors.csv"), |w| write_detectors(w, outcomes))?;
    write_meta(&dir.join("meta.json"), s, info, outcomes)
}

type Csv = CsvWriter<BufWriter<File>>;

fn write_csv(
    path: &Path,
    body: impl FnOnce(&mut Csv) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = CsvWriter::new(BufWriter::new(file));
    body(&mut w).with_context(|| format!("writing {}", path.display()))?;
    w.into_inner()?.flush()?;
    Ok(())
}

fn write_runs(w: &mut Csv, sim: &SimConfig, outcomes: &[RepOutcome]) -> std::io::Result<()> {
    let mut header = vec!["rep", "seed", "flow", "kind", "start_s"];
    header.extend(METRICS.iter().map(|m| m.name));
    w.row(&header)?;
    for o in outcomes {
        for (f, flow) in o.flows.iter().enumerate() {
            w.field_u64(o.rep as u64)?;
            w.field_u64(o.seed)?;
            w.field_str(&flow.name)?;
            w.field_str(kind_name(&sim.flows[f].kind))?;
            w.field_dur(flow.start.saturating_since(spikelab_core::Time::ZERO))?;
            for m in METRICS {
                match (m.value)(flow) {
                    Value::Int(v) => w.field_u64(v)?,
                    Value::Real(v) => w.field_f64(v.unwrap_or(f64::NAN))?,
                }
            }
            w.end_row()?;
        }
    }
    Ok(())
}

fn kind_name(kind: &FlowKind) -> &'static str {
    match kind {
        FlowKind::Tcp { .. } => "tcp",
        FlowKind::Cbr { .. } => "cbr",
    }
}

/// The flow name a replica is summarised under: `name` for `name#i`.
pub fn base_name(flow: &str) -> &str {
    flow.rsplit_once('#').map_or(flow, |(base, _)| base)
}

/// Flow names in first-appearance order with every result of each, all repetitions.
pub(crate) fn group_by_base(outcomes: &[RepOutcome]) -> Vec<(&str, Vec<&FlowResult>)> {
    let mut groups: Vec<(&str, Vec<&FlowResult>)> = Vec::new();
    for f in outcomes.iter().flat_map(|o| &o.flows) {
        let base = base_name(&f.name);
        match groups.iter_mut().find(|(name, _)| *name == base) {
            Some((_, v)) => v.push(f),
            None => groups.push((base, vec![f])),
        }
    }
    groups
}

fn write_summary(w: &mut Csv, outcomes: &[RepOutcome]) -> std::io::Result<()> {
    w.row(&[
        "flow", "metric", "n", "mean", "std", "ci95", "min", "p5", "median", "p95", "max",
    ])?;
    for (name, flows) in group_by_base(outcomes) {
        for m in METRICS {
            let xs: Vec<f64> = flows
                .iter()
                .map(|f| (m.value)(f).as_f64())
                .filter(|x| x.is_finite())
                .collect();
            let s = Summary::of(&xs);
            w.field_str(name)?;
            w.field_str(m.name)?;
            w.field_u64(s.n as u64)?;
            for v in [
                s.mean, s.std_dev, s.ci95, s.min, s.p5, s.median, s.p95, s.max,
            ] {
                w.field_f64(v)?;
            }
            w.end_row()?;
        }
    }
    Ok(())
}

fn write_timeouts(w: &mut Csv, sim: &SimConfig, outcomes: &[RepOutcome]) -> std::io::Result<()> {
    w.row(&[
        "rep",
        "flow",
        "episode",
        "time_s",
        "seq",
        "rto_s",
        "last_rtt_s",
        "backoff",
        "truth",
        "spurious",
        "in_fast_recovery",
        "fast",
        "verdicts",
    ])?;
    for o in outcomes {
        // Per flow, the number (1, 2, ...) of the episode each expiry belongs to.
        let mut episode = vec![0u64; sim.flows.len()];
        for t in &o.timeouts {
            let e = &mut episode[t.flow as usize];
            *e += t.starts_episode() as u64;
            w.field_u64(o.rep as u64)?;
            w.field_str(&sim.flows[t.flow as usize].name)?;
            w.field_u64(*e)?;
            w.field_dur(t.time.saturating_since(spikelab_core::Time::ZERO))?;
            w.field_u64(t.seq)?;
            w.field_dur(t.rto)?;
            match t.last_rtt {
                Some(d) => w.field_dur(d)?,
                None => w.field_empty()?,
            }
            w.field_u64(t.backoff as u64)?;
            w.field_str(t.truth.label())?;
            w.field_bool(t.truth.is_spurious())?;
            w.field_bool(t.in_fast_recovery)?;
            w.field_bool(t.fast)?;
            w.field_str(&verdicts_label(t))?;
            w.end_row()?;
        }
    }
    Ok(())
}

/// `eifel:spurious;dsack:genuine`: every detector's verdict on a timeout, in the order
/// they were reached (`*` marks the one that drove the response).
fn verdicts_label(t: &TimeoutRecord) -> String {
    let one = |v: &spikelab_engine::DetectorVerdict| {
        let what = match v.verdict {
            spikelab_tcp::spurious::Verdict::Spurious => "spurious",
            spikelab_tcp::spurious::Verdict::Genuine => "genuine",
        };
        format!(
            "{}{}:{what}",
            v.detector.label(),
            if v.drove { "*" } else { "" }
        )
    };
    t.verdicts.iter().map(one).collect::<Vec<_>>().join(";")
}

/// Every detector's confusion matrix against the ground truth, over all repetitions.
fn write_detectors(w: &mut Csv, outcomes: &[RepOutcome]) -> std::io::Result<()> {
    w.row(&[
        "detector",
        "decided",
        "true_positives",
        "false_positives",
        "true_negatives",
        "false_negatives",
        "undecided",
        "ack_lost_called_spurious",
        "precision",
        "recall",
        "mean_delay_s",
    ])?;
    for s in merged_scores(outcomes) {
        let Some(d) = s.detector else { continue };
        w.field_str(d.label())?;
        for v in [
            s.decided(),
            s.true_positives,
            s.false_positives,
            s.true_negatives,
            s.false_negatives,
        ] {
            w.field_u64(v)?;
        }
        w.field_u64(s.undecided)?;
        w.field_u64(s.ack_lost_called_spurious)?;
        let tp = s.true_positives as f64;
        w.field_f64(tp / (tp + s.false_positives as f64))?;
        w.field_f64(tp / (tp + s.false_negatives as f64))?;
        w.field_f64(s.mean_delay_s())?;
        w.end_row()?;
    }
    Ok(())
}

/// Scores of every repetition added up, per detector, in detector order.
fn merged_scores(outcomes: &[RepOutcome]) -> Vec<spikelab_engine::DetectorScore> {
    let mut merged: Vec<spikelab_engine::DetectorScore> = Vec::new();
    for o in outcomes {
        for s in spikelab_engine::score_detectors(&o.flows, &o.timeouts) {
            match merged.iter_mut().find(|m| m.detector == s.detector) {
                Some(m) => m.merge(&s),
                None => merged.push(s),
            }
        }
    }
    merged.sort_by_key(|s| s.detector);
    merged
}

fn write_links(w: &mut Csv, outcomes: &[RepOutcome]) -> std::io::Result<()> {
    w.row(&[
        "rep",
        "link",
        "dir",
        "offered",
        "delivered",
        "dropped",
        "in_network",
    ])?;
    for o in outcomes {
        for l in &o.links {
            w.field_u64(o.rep as u64)?;
            w.field_str(&l.name)?;
            w.field_str(l.dir)?;
            for v in [l.offered, l.delivered, l.dropped, l.in_network] {
                w.field_u64(v)?;
            }
            w.end_row()?;
        }
    }
    Ok(())
}

/// `meta.json`: what produced the outputs, enough to reproduce them.
#[derive(Serialize)]
struct Meta<'a> {
    spikelab_version: &'static str,
    scenario_path: PathBuf,
    base_seed: u64,
    reps: u32,
    seeds: &'a [u64],
    trace: bool,
    pcap: Option<PcapSides>,
    overrides: &'a [String],
    repetitions: Vec<RepMeta>,
    scenario: spikelab_scenario::Record<'a>,
}

/// Engine counters of one repetition.
#[derive(Serialize)]
struct RepMeta {
    rep: u32,
    seed: u64,
    end_s: f64,
    events: u64,
    data_packets_delivered: u64,
}

fn write_meta(
    path: &Path,
    s: &Scenario,
    info: &RunInfo,
    outcomes: &[RepOutcome],
) -> anyhow::Result<()> {
    let meta = Meta {
        spikelab_version: env!("CARGO_PKG_VERSION"),
        scenario_path: s.source().to_path_buf(),
        base_seed: info.seed,
        reps: info.reps,
        seeds: &info.seeds,
        trace: info.trace,
        pcap: info.pcap,
        overrides: &info.overrides,
        repetitions: outcomes
            .iter()
            .map(|o| RepMeta {
                rep: o.rep,
                seed: o.seed,
                end_s: o.end_s,
                events: o.events,
                data_packets_delivered: o.data_packets_delivered,
            })
            .collect(),
        scenario: s.record(),
    };
    let mut text = serde_json::to_string_pretty(&meta)?;
    text.push('\n');
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_are_summarised_under_their_base_name() {
        assert_eq!(base_name("bulk#12"), "bulk");
        assert_eq!(base_name("bulk"), "bulk");
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_safe("a b/c#1"), "a_b_c#1");
    }

    #[test]
    fn pcap_sides_choose_the_files_and_each_ends_with_a_fin_exchange() {
        let q = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml");
        let mut sim = spikelab_scenario::load(q).unwrap().to_sim();
        sim.pcap = true;
        let r = spikelab_engine::run(&sim, 1).unwrap();
        assert!(r.flows[0].completed.is_some());
        let (sender, receiver) = ("pcap/rep0-bulk.pcap", "pcap/receiver/rep0-bulk.pcap");
        for (sides, want) in [
            (PcapSides::Sender, [true, false]),
            (PcapSides::Receiver, [false, true]),
            (PcapSides::Both, [true, true]),
        ] {
            let dir = tempfile::tempdir().unwrap();
            write_rep_files(dir.path(), &sim, Some(sides), 0, &r).unwrap();
            let have = [sender, receiver].map(|f| dir.path().join(f).is_file());
            assert_eq!(have, want, "{sides:?}");
            for f in [sender, receiver]
                .iter()
                .filter(|f| dir.path().join(f).is_file())
            {
                let bytes = std::fs::read(dir.path().join(f)).unwrap();
                // Two FIN+ACK records (flags byte 0x11 at IPv4 20 + TCP 13), one per side.
                let fins = records(&bytes).filter(|rec| rec[33] == 0x11).count();
                assert_eq!(fins, 2, "{f}");
            }
        }
        let dir = tempfile::tempdir().unwrap();
        write_rep_files(dir.path(), &sim, None, 0, &r).unwrap();
        assert!(!dir.path().join("pcap").exists());
    }

    /// The record bodies of a pcap file (24-byte file header, 16-byte record headers).
    fn records(f: &[u8]) -> impl Iterator<Item = &[u8]> {
        let mut at = 24;
        std::iter::from_fn(move || {
            let len = u32::from_le_bytes(f.get(at + 8..at + 12)?.try_into().ok()?) as usize;
            let rec = &f[at + 16..at + 16 + len];
            at += 16 + len;
            Some(rec)
        })
    }

    #[test]
    fn metric_names_are_unique() {
        let mut names: Vec<_> = METRICS.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), METRICS.len());
    }
}
