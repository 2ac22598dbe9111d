//! The files of `spikelab run`: the tables of [`spikelab_results`] written with the
//! output crate's CSV writer, `meta.json`, and each repetition's traces and pcaps.
//!
//! | file | one row per | columns |
//! |------|-------------|---------|
//! | `runs.csv` | repetition and flow | `rep, seed, flow, kind, start_s,` then every [`spikelab_results::METRICS`] column |
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

use anyhow::Context;
use spikelab_engine::{FlowKind, FlowResult, RunResult, SimConfig};
use spikelab_output::csv::{write_trace_csv, CsvWriter};
use spikelab_output::pcap::{self, create_pcap, Seen, Vantage};
pub use spikelab_results::{PcapSides, RepOutcome, RunInfo};
use spikelab_scenario::Scenario;
use spikelab_tcp::stacks::{Stack, StackRules};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes the trace and pcap files of one repetition (if asked for) into `dir`.
pub fn write_rep_files(
    dir: &Path,
    sim: &SimConfig,
    pcap: Option<PcapSides>,
    rep: u32,
    r: &RunResult,
) -> anyhow::Result<()> {
    if !sim.trace.is_empty() {
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
    if let FlowKind::Quic { .. } = &spec.kind {
        // UDP datagrams of the packets' sizes; QUIC closes with no segments to add.
        for s in seen.iter().filter(|s| s.at == at) {
            w.write_record(s.time, &pcap::Record::Quic(s.packet))?;
        }
        w.into_inner()?;
        return Ok(());
    }
    if let FlowKind::Tcp { tcp, .. } = &spec.kind {
        w = w
            .with_mss(u16::try_from(tcp.mss).unwrap_or(u16::MAX))
            .with_window(tcp.receiver_window)
            .with_handshake(tcp.handshake)
            .with_stack_push(StackRules::marks_push(&Stack::new(tcp)));
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
    let file = File::create(&path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = BufWriter::new(file);
    spikelab_results::write_meta_json(&mut w, s.source(), s.record(), info, outcomes)
        .and_then(|()| w.flush().map_err(serde_json::Error::io))
        .with_context(|| format!("writing {}", path.display()))
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
}
