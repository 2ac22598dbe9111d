//! The files of `spikelab run`: the tables of [`spikelab_results`] written with the
//! output crate's CSV writer, `meta.json`, and each repetition's traces and pcaps.
//!
//! | file | one row per | columns |
//! |------|-------------|---------|
//! | `runs.csv` | repetition and flow | `rep, seed, flow, kind, start_s,` then every [`spikelab_results::METRICS`] column |
//! | `summary.csv` | flow name and metric | `flow, metric, n, mean, std, ci95, min, p5, median, p95, max` |
//! | `timeouts.csv` | retransmission timeout | `rep, flow, time_s, seq, rto_s, last_rtt_s, backoff, truth, spurious, in_fast_recovery, fast, verdicts` |
//! | `detectors.csv` | spurious-timeout detector | `detector, decided, true_positives, false_positives, true_negatives, false_negatives, undecided, ack_lost_called_spurious, precision, recall, mean_delay_s` |
//! | `links.csv` | repetition, link and direction | `rep, link, dir, offered, delivered, dropped, in_network` |
//! | `meta.json` | run | version, scenario path, seeds, per-repetition engine counters, resolved configuration |
//! | `trace/rep<r>.csv` | traced event (`--trace`) | the output crate's trace format |
//! | `pcap/rep<r>-<flow>.pcap` | packet at the flow's sender (`--pcap`) | libpcap |
//!
//! A metric a flow does not have (the download time of an unfinished transfer) is
//! written as `NaN` in `runs.csv` and left out of its summary, whose `n` counts the
//! values summarised. `summary.csv` pools the replicas `name#i` of a counted flow with
//! every repetition under `name`.

use anyhow::Context;
use spikelab_engine::{FlowKind, RunResult, SimConfig};
use spikelab_output::csv::{write_trace_csv, CsvWriter};
use spikelab_output::pcap::create_pcap;
pub use spikelab_results::{RepOutcome, RunInfo};
use spikelab_scenario::Scenario;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes the trace and pcap files of one repetition (if asked for) into `dir`.
pub fn write_rep_files(dir: &Path, sim: &SimConfig, rep: u32, r: &RunResult) -> anyhow::Result<()> {
    if sim.trace {
        let path = dir.join("trace").join(format!("rep{rep}.csv"));
        create_parent(&path)?;
        write_trace_csv(&path, &r.trace).with_context(|| format!("writing {}", path.display()))?;
    }
    if sim.pcap {
        for (f, packets) in r.captures.iter().enumerate() {
            let spec = &sim.flows[f];
            let path = dir
                .join("pcap")
                .join(format!("rep{rep}-{}.pcap", file_safe(&spec.name)));
            create_parent(&path)?;
            write_pcap(&path, mss_of(&spec.kind), packets)
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

fn mss_of(kind: &FlowKind) -> u16 {
    match kind {
        FlowKind::Tcp { tcp, .. } => u16::try_from(tcp.mss).unwrap_or(u16::MAX),
        FlowKind::Cbr { .. } => spikelab_output::pcap::DEFAULT_MSS,
    }
}

fn write_pcap(path: &Path, mss: u16, packets: &[spikelab_engine::Captured]) -> anyhow::Result<()> {
    let mut w = create_pcap(path)?.with_mss(mss);
    for c in packets {
        w.write_packet(c.time, &c.packet)?;
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

/// Writes every run-level file into `dir`: the tables of [`spikelab_results`] as CSV
/// and `meta.json`.
pub fn write_all(
    dir: &Path,
    s: &Scenario,
    info: &RunInfo,
    outcomes: &[RepOutcome],
) -> anyhow::Result<()> {
    let sim = s.sim();
    for name in spikelab_results::TABLES {
        let build = spikelab_results::builder(name).expect("every table has a builder");
        write_csv(&dir.join(format!("{name}.csv")), |w| {
            build(w, sim, outcomes)
        })?;
    }
    let path = dir.join("meta.json");
    let text = spikelab_results::meta_json(s.source(), s.record(), info, outcomes)?;
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_safe("a b/c#1"), "a_b_c#1");
    }
}
