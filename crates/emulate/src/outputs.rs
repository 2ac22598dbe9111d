//! The emulator's own files, beside the ones `spikelab run`'s writers produce:
//!
//! | file | content |
//! |------|---------|
//! | `kernel.csv` | `rep, flow, side, counter, value`: every nonzero kernel counter of each namespace and the sender's final TCP_INFO |
//! | `meta.json` → `emulation` | kernel release, every sysctl and socket option, forwarder lateness p50/p99/max per repetition, middlebox decisions |
//! | `summary.csv` | extra rows for flow `forwarder`: lateness p50/p99/max (ms) and `late_reps`, the repetitions whose p99 exceeded 5 ms |
//! | `pcap/rep<r>-<flow>-{sender,receiver}.pcap` | the real packets at each end (`--pcap`) |
//! | `tcp_info/rep<r>-<flow>.csv` | every change of the sender's TCP_INFO, polled each millisecond (`--tcp-info`) |
//! | `tcp_info/rep<r>-<flow>-receiver.csv` | every change of the receiver's side of TCP_INFO (`ato`, `rcv_mss`, `rcv_ssthresh`, `rcv_rtt`, `rcv_space`, bytes received in order), polled with it |
//!
//! and `--compare`: a `spikelab run` summary beside this one, and with `--pcap` on
//! both, `divergence.csv` ([`crate::diverge`]).

use crate::forwarder::Captured;
use crate::report::{RepReport, HONEST_P99_MS};
use anyhow::Context;
use spikelab_output::pcap::{LINKTYPE_RAW, PCAP_MAGIC_NANOS};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

fn file_safe(name: &str) -> String {
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

/// Writes both ends' captures of one flow (libpcap, LINKTYPE_RAW, ns timestamps
/// since the run's origin).
pub fn write_captures(
    dir: &Path,
    rep: u32,
    flow: &str,
    sender: &[Captured],
    receiver: &[Captured],
) -> anyhow::Result<()> {
    let pdir = dir.join("pcap");
    std::fs::create_dir_all(&pdir).with_context(|| format!("creating {}", pdir.display()))?;
    for (side, packets) in [("sender", sender), ("receiver", receiver)] {
        let path = pdir.join(format!("rep{rep}-{}-{side}.pcap", file_safe(flow)));
        write_pcap(&path, packets).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Writes one TCP flow's TCP_INFO series (`(ns since the origin, sample)`): the
/// sender's to `rep<r>-<flow>.csv`, the receiver's to `rep<r>-<flow>-receiver.csv`.
pub fn write_tcp_info(
    dir: &Path,
    rep: u32,
    flow: &str,
    series: &[(u64, crate::kernel::TcpInfo)],
    receiver: &[(u64, crate::kernel::ReceiverInfo)],
) -> anyhow::Result<()> {
    let tdir = dir.join("tcp_info");
    std::fs::create_dir_all(&tdir).with_context(|| format!("creating {}", tdir.display()))?;
    let flow = file_safe(flow);
    let rows = series.iter().map(|(t, i)| i.series_row(*t));
    let header = crate::kernel::TcpInfo::SERIES_HEADER;
    write_rows(&tdir.join(format!("rep{rep}-{flow}.csv")), header, rows)?;
    let rows = receiver.iter().map(|(t, i)| i.series_row(*t));
    let header = crate::kernel::ReceiverInfo::SERIES_HEADER;
    write_rows(
        &tdir.join(format!("rep{rep}-{flow}-receiver.csv")),
        header,
        rows,
    )
}

fn write_rows(path: &Path, header: &str, rows: impl Iterator<Item = String>) -> anyhow::Result<()> {
    let mut w =
        BufWriter::new(File::create(path).with_context(|| format!("creating {}", path.display()))?);
    writeln!(w, "{header}")?;
    for row in rows {
        writeln!(w, "{row}")?;
    }
    w.flush()?;
    Ok(())
}

fn write_pcap(path: &Path, packets: &[Captured]) -> std::io::Result<()> {
    let mut w = BufWriter::new(File::create(path)?);
    w.write_all(&PCAP_MAGIC_NANOS.to_le_bytes())?;
    w.write_all(&2u16.to_le_bytes())?;
    w.write_all(&4u16.to_le_bytes())?;
    w.write_all(&0i32.to_le_bytes())?;
    w.write_all(&0u32.to_le_bytes())?;
    w.write_all(&65_535u32.to_le_bytes())?;
    w.write_all(&LINKTYPE_RAW.to_le_bytes())?;
    for c in packets {
        w.write_all(&((c.time.0 / 1_000_000_000) as u32).to_le_bytes())?;
        w.write_all(&((c.time.0 % 1_000_000_000) as u32).to_le_bytes())?;
        let len = (c.bytes.len() as u32).to_le_bytes();
        w.write_all(&len)?;
        w.write_all(&len)?;
        w.write_all(&c.bytes)?;
    }
    w.flush()
}

/// Writes kernel.csv, the forwarder rows of summary.csv and meta.json's `emulation`
/// section into `dir` (where the CLI's writers already wrote their files).
pub fn write_extras(dir: &Path, reps: &[RepReport], cc: Option<&str>) -> anyhow::Result<()> {
    write_kernel_csv(&dir.join("kernel.csv"), reps)?;
    append_lateness(&dir.join("summary.csv"), reps)?;
    merge_meta(&dir.join("meta.json"), reps, cc)
}

fn write_kernel_csv(path: &Path, reps: &[RepReport]) -> anyhow::Result<()> {
    let mut w =
        BufWriter::new(File::create(path).with_context(|| format!("creating {}", path.display()))?);
    writeln!(w, "rep,flow,side,counter,value")?;
    for r in reps {
        for k in &r.kernel {
            let info = serde_json::to_value(k.final_info)?;
            let info: BTreeMap<String, serde_json::Value> = serde_json::from_value(info)?;
            for (side, counters) in [
                ("sender", &k.sender_counters),
                ("receiver", &k.receiver_counters),
            ] {
                for (name, v) in counters.iter().filter(|(_, v)| **v > 0) {
                    writeln!(w, "{},{},{side},{name},{v}", r.rep, k.flow)?;
                }
            }
            for (name, v) in info {
                writeln!(w, "{},{},sender,tcp_info.{name},{v}", r.rep, k.flow)?;
            }
            writeln!(
                w,
                "{},{},receiver,bytes_received,{}",
                r.rep, k.flow, k.bytes_received
            )?;
        }
    }
    w.flush()?;
    Ok(())
}

fn append_lateness(path: &Path, reps: &[RepReport]) -> anyhow::Result<()> {
    let mut w = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    let stats = |f: fn(&RepReport) -> f64| {
        let xs: Vec<f64> = reps.iter().map(f).collect();
        spikelab_output::stats::Summary::of(&xs)
    };
    for (name, s) in [
        ("lateness_p50_ms", stats(|r| r.lateness.p50_ms)),
        ("lateness_p99_ms", stats(|r| r.lateness.p99_ms)),
        ("lateness_max_ms", stats(|r| r.lateness.max_ms)),
        ("late_reps", stats(|r| (!r.lateness.honest()) as u64 as f64)),
    ] {
        let vals = [
            s.mean, s.std_dev, s.ci95, s.min, s.p5, s.median, s.p95, s.max,
        ];
        let vals: Vec<String> = vals.iter().map(|v| format!("{v:.6}")).collect();
        writeln!(w, "forwarder,{name},{},{}", s.n, vals.join(","))?;
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct RepMeta<'a> {
    rep: u32,
    seed: u64,
    prefix: &'a str,
    lateness: crate::report::Lateness,
    honest: bool,
    sched_fifo: bool,
    packets_ignored: u64,
    tun_write_errors: u64,
    window_clamp_resets: u64,
    accept_waits: u64,
    read_waits: u64,
    read_wait_timeouts: u64,
    responses_at_delivery: u64,
    jiffies_aligned: bool,
    write_waits: u64,
    raw_packets_peak: usize,
    middlebox: &'a crate::forwarder::BoxCounts,
    flows: &'a [crate::report::FlowKernel],
}

fn merge_meta(path: &Path, reps: &[RepReport], cc: Option<&str>) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut meta: serde_json::Value = serde_json::from_str(&text)?;
    let repetitions: Vec<RepMeta> = reps
        .iter()
        .map(|r| RepMeta {
            rep: r.rep,
            seed: r.seed,
            prefix: &r.prefix,
            lateness: r.lateness,
            honest: r.lateness.honest(),
            sched_fifo: r.sched_fifo,
            packets_ignored: r.packets_ignored,
            tun_write_errors: r.write_errors,
            window_clamp_resets: r.clamp_resets,
            accept_waits: r.accept_waits,
            read_waits: r.read_waits,
            read_wait_timeouts: r.read_wait_timeouts,
            responses_at_delivery: r.responses_at_delivery,
            jiffies_aligned: r.jiffies_aligned,
            write_waits: r.write_waits,
            raw_packets_peak: r.raw_peak,
            middlebox: &r.box_counts,
            flows: &r.kernel,
        })
        .collect();
    let emulation = serde_json::json!({
        "kernel_release": crate::kernel::kernel_release(),
        // `--cc` if given; each flow's module is in its `settings`.
        "congestion_control_override": cc,
        "honest_p99_ms": HONEST_P99_MS,
        "not_applied_tcp_keys": crate::kernel::NOT_APPLIED,
        "repetitions": repetitions,
    });
    if let Some(obj) = meta.as_object_mut() {
        obj.insert("emulation".to_owned(), emulation);
    }
    let mut out = serde_json::to_string_pretty(&meta)?;
    out.push('\n');
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

/// `(flow, metric) -> (n, mean)` of a summary.csv.
fn read_summary(path: &Path) -> anyhow::Result<BTreeMap<(String, String), (String, f64)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = BTreeMap::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        if cols.len() >= 4 {
            out.insert(
                (cols[0].to_owned(), cols[1].to_owned()),
                (cols[2].to_owned(), cols[3].parse().unwrap_or(f64::NAN)),
            );
        }
    }
    Ok(out)
}

/// The metrics both summaries have whose two values mean the same
/// ([`crate::report::kernel_sources`]), side by side: `flow metric counts sim(n)
/// kernel(n) source`, each row naming what the metric counts and where the kernel's
/// value comes from.
pub fn compare(sim_dir: &Path, emu_dir: &Path) -> anyhow::Result<String> {
    let sim = read_summary(&sim_dir.join("summary.csv"))?;
    let emu = read_summary(&emu_dir.join("summary.csv"))?;
    let mut s = format!(
        "{:<12} {:<28} {:<18} {:>16} {:>16}  {}\n",
        "flow", "metric (mean)", "counts", "simulated (n)", "kernel (n)", "kernel source"
    );
    let flows: BTreeSet<&String> = emu.keys().map(|(flow, _)| flow).collect();
    for flow in flows {
        for k in crate::report::kernel_sources() {
            let key = (flow.clone(), k.metric.to_owned());
            let (Some((n_s, m_s)), Some((n_e, m_e))) = (sim.get(&key), emu.get(&key)) else {
                continue;
            };
            s.push_str(&format!(
                "{flow:<12} {:<28} {:<18} {:>16} {:>16}  {}\n",
                k.metric,
                k.counts,
                format!("{m_s:.3} ({n_s})"),
                format!("{m_e:.3} ({n_e})"),
                k.source,
            ));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(dir: &Path, rows: &[(&str, &str, &str, f64)]) {
        let mut s = String::from("flow,metric,n,mean,std,ci95,min,p5,median,p95,max\n");
        for (flow, metric, n, mean) in rows {
            s.push_str(&format!("{flow},{metric},{n},{mean},0,0,0,0,0,0,0\n"));
        }
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("summary.csv"), s).unwrap();
    }

    #[test]
    fn compare_names_what_each_row_counts_and_its_kernel_counter() {
        let tmp = tempfile::tempdir().unwrap();
        let (sim, emu) = (tmp.path().join("sim"), tmp.path().join("emu"));
        let rows = [
            ("tcp", "fast_retransmits", "1", 2.0),
            ("tcp", "retransmissions", "1", 49.0),
            ("tcp", "TcpExtTCPLossUndo", "1", 1.0),
            ("tcp", "min_segments", "1", 2763.0),
        ];
        summary(&sim, &rows);
        summary(&emu, &rows);
        let out = compare(&sim, &emu).unwrap();
        let line = |m: &str| {
            out.lines()
                .find(|l| l.split_whitespace().nth(1) == Some(m))
                .unwrap_or_else(|| panic!("no row {m} in\n{out}"))
                .to_owned()
        };
        let fr = line("fast_retransmits");
        assert!(fr.contains("recovery episodes"), "{fr}");
        assert!(
            fr.contains("TcpExtTCPSackRecovery + TcpExtTCPRenoRecovery"),
            "{fr}"
        );
        assert!(line("retransmissions").contains("segments"));
        assert!(line("TcpExtTCPLossUndo").ends_with("TcpExtTCPLossUndo"));
        // The same by construction on both sides: no kernel source, not compared.
        assert!(!out.contains("min_segments"), "{out}");
    }

    #[test]
    fn every_compared_metric_is_a_column_of_runs() {
        let names: Vec<&str> = spikelab_results::tables::METRICS
            .iter()
            .map(|m| m.name)
            .collect();
        for k in crate::report::kernel_sources() {
            assert!(names.contains(&k.metric), "{}", k.metric);
        }
    }
}
