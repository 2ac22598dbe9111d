//! The `linux` profile against Linux 6.18.44 on the real-path library
//! (scenarios/paths/: measured cellular drive traces, issue 41). Each row of
//! `tests/data/kernel-6.18.44-fc-v1300/paths.csv` is one `spikelab emulate` download
//! recorded by `scripts/record_kernel_paths.py`: the path's scenario with the flow's
//! start fixed at `offset_s` and the row's `tcp_frto` and congestion control; it is
//! re-run here in the simulator and compared by issue 41's goals: completion within
//! 5 %, retransmitted segments within 20 %, RTO count and undo events (the seven
//! kernel counters) equal, each per (trace, cc, tcp_frto) group and start offset (an
//! offset recorded several times meets a goal against at least half its recordings).
//! Rows with `trace_shift` 1 ran the traces shifted to the offset with the flow at 0
//! (the recorder's default; the model gives the same run either way, tested below).
//! The emulator kept the kernel on the model's clock (docs/src/emulate.md: its
//! answers to a delivery at the delivery's time, the SYN at the start, timers less the
//! forwarder's lag, time zero on a jiffy of the model's timer wheel).
//! `lateness_p99_ms` is the forwarder's lateness and `loadavg` the machine's load as
//! each run ended. The earlier recordings, on the host's clock
//! (`kernel-6.18.44-fc-v1272/paths.csv`), and how the floors moved against them are in
//! docs/src/validation-linux-history.md.

use spikelab_engine::FlowResult;
use spikelab_tcp::spurious::UndoCounters;
use std::path::PathBuf;

const DATA: &str = "tests/data/kernel-6.18.44-fc-v1300/paths.csv";

/// One recorded kernel run.
#[derive(Debug)]
struct PathRun {
    trace: String,
    cc: String,
    frto: u8,
    offset_s: u64,
    recording: u64,
    completion_s: f64,
    retransmissions: u64,
    timeouts: u64,
    undos: Vec<u64>,
}

fn path_runs() -> Vec<PathRun> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let n = |name: &str| f[col(name)].parse::<u64>().unwrap();
            PathRun {
                trace: f[col("trace")].to_owned(),
                cc: f[col("cc")].to_owned(),
                frto: n("tcp_frto") as u8,
                offset_s: n("offset_s"),
                recording: n("recording"),
                completion_s: f[col("completion_s")].parse().unwrap(),
                retransmissions: n("retransmissions"),
                timeouts: n("timeouts"),
                undos: UndoCounters::NAMES.iter().map(|c| n(c)).collect(),
            }
        })
        .collect()
}

/// The path's scenario as the recorder ran it: its two substitutions (the trace paths
/// stay relative to the scenario's own folder here). Rows recorded with `trace_shift` 1
/// ran the traces shifted to the offset and the flow from 0; they are simulated at the
/// offset of the whole trace, which is the same run
/// (`shifting_the_traces_to_the_offset_changes_no_result`).
fn scenario_at(trace: &str, cc: &str, frto: u8, offset_s: u64) -> (String, PathBuf) {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/paths")
        .join(format!("{trace}.toml"));
    let text = std::fs::read_to_string(&file).unwrap();
    let tcp = format!(
        "linux = {{ tcp_frto = {frto}, tcp_congestion_control = \"{cc}\", so_rcvbuf = 1048576 }}"
    );
    let mut starts = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("start = {") {
                starts += 1;
                format!("start = \"{offset_s}s\"")
            } else {
                l.replace("linux = { so_rcvbuf = 1048576 }", &tcp)
            }
        })
        .collect();
    assert_eq!(starts, 1, "{trace}: one start line");
    let text = lines.join("\n");
    assert!(text.contains(&tcp), "{trace}: the tcp line");
    (text, file)
}

fn run_text(text: &str, file: &std::path::Path) -> FlowResult {
    let s = spikelab_scenario::parse(text, &file.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let r = spikelab_engine::run(&s.to_sim(), s.run().seed).unwrap();
    r.flows.into_iter().next().unwrap()
}

fn simulate(k: &PathRun) -> FlowResult {
    let (text, file) = scenario_at(&k.trace, &k.cc, k.frto, k.offset_s);
    run_text(&text, &file)
}

/// Which goals one run meets.
#[derive(Clone, Copy, Debug, Default)]
struct Met {
    completion: bool,
    retransmissions: bool,
    timeouts: bool,
    undos: bool,
}

fn compare(k: &PathRun, f: &FlowResult) -> Met {
    let done = f.download_time().unwrap_or(f64::INFINITY);
    let within = |sim: f64, kern: f64, tol: f64| (sim - kern).abs() <= tol * kern;
    Met {
        completion: within(done, k.completion_s, 0.05),
        retransmissions: within(f.retransmissions as f64, k.retransmissions as f64, 0.2),
        timeouts: f.timeouts == k.timeouts,
        undos: f.undos.values().to_vec() == k.undos,
    }
}

/// A (trace, congestion control, tcp_frto) group of recordings: issue 41's goals hold
/// per group, counted per start offset.
type Group = (String, String, u8);

/// Every recorded run, simulated, with its group and offset; prints the per-run table.
fn run_all() -> Vec<(Group, u64, Met)> {
    println!("| trace | cc | frto | offset s | rec | sim s | kernel s | sim retx | kernel retx | sim RTOs | kernel RTOs | sim undos | kernel undos | missed |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    path_runs()
        .iter()
        .map(|k| {
            let f = simulate(k);
            let m = compare(k, &f);
            let missed: Vec<&str> = [
                (m.completion, "time"),
                (m.retransmissions, "retx"),
                (m.timeouts, "RTOs"),
                (m.undos, "undos"),
            ]
            .iter()
            .filter(|(ok, _)| !ok)
            .map(|(_, name)| *name)
            .collect();
            println!(
                "| {} | {} | {} | {} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {:?} | {:?} | {} |",
                k.trace,
                k.cc,
                k.frto,
                k.offset_s,
                k.recording,
                f.download_time().unwrap_or(f64::NAN),
                k.completion_s,
                f.retransmissions,
                k.retransmissions,
                f.timeouts,
                k.timeouts,
                f.undos.values(),
                k.undos,
                missed.join(" "),
            );
            let group = (k.trace.clone(), k.cc.clone(), k.frto);
            (group, k.offset_s, m)
        })
        .collect()
}

/// The goals one offset meets: each against at least half of its recordings (an
/// offset recorded several times, where the kernel disagreed with itself, counts
/// once).
fn per_offset(runs: &[&Met]) -> [bool; 4] {
    let mut met = [0; 4];
    for m in runs {
        for (i, g) in [m.completion, m.retransmissions, m.timeouts, m.undos]
            .into_iter()
            .enumerate()
        {
            met[i] += usize::from(g);
        }
    }
    met.map(|k| 2 * k >= runs.len())
}

/// Offsets meeting each goal (completion, retransmissions, RTOs, undos) and the
/// offsets, per group in the data's order; prints the table.
fn per_group(runs: &[(Group, u64, Met)]) -> Vec<(Group, [usize; 4], usize)> {
    let mut keys: Vec<(&Group, u64)> = Vec::new();
    for (g, offset, _) in runs {
        if !keys.contains(&(g, *offset)) {
            keys.push((g, *offset));
        }
    }
    let mut out: Vec<(Group, [usize; 4], usize)> = Vec::new();
    for (g, offset) in keys {
        let these: Vec<&Met> = (runs.iter())
            .filter(|(h, o, _)| h == g && *o == offset)
            .map(|(.., m)| m)
            .collect();
        if !out.iter().any(|(h, ..)| h == g) {
            out.push((g.clone(), [0; 4], 0));
        }
        let row = out.iter_mut().find(|(h, ..)| h == g).unwrap();
        for (i, met) in per_offset(&these).into_iter().enumerate() {
            row.1[i] += usize::from(met);
        }
        row.2 += 1;
    }
    println!("\n| trace | cc | frto | offsets | completion | retransmissions | RTOs | undos |");
    println!("|---|---|---|---|---|---|---|---|");
    for ((t, cc, frto), got, n) in &out {
        println!(
            "| {t} | {cc} | {frto} | {n} | {} | {} | {} | {} |",
            got[0], got[1], got[2], got[3]
        );
    }
    out
}

#[test]
fn the_path_recordings_cover_ten_offsets_of_the_three_cellular_traces() {
    let runs = path_runs();
    for t in ["att-lte-drive", "tmobile-lte-drive", "tmobile-umts-drive"] {
        let mut offsets: Vec<u64> = (runs.iter())
            .filter(|r| r.trace == t && r.cc == "reno" && r.frto == 2)
            .map(|r| r.offset_s)
            .collect();
        offsets.sort();
        offsets.dedup();
        assert_eq!(offsets.len(), 10, "{t}: {offsets:?}");
    }
}

/// The recorder's shifted traces (the opportunities from the offset on, moved back by
/// it; the flow from 0) give the model the same download as the whole trace with the
/// flow starting at the offset: the link is idle before the download, whole seconds
/// keep every clock's phase, and nothing wraps within a download.
#[test]
fn shifting_the_traces_to_the_offset_changes_no_result() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("linux-paths-shift");
    std::fs::create_dir_all(&dir).unwrap();
    for (trace, offset_s) in [
        ("att-lte-drive", 586),
        ("tmobile-lte-drive", 58),
        ("tmobile-umts-drive", 42),
    ] {
        let (text, file) = scenario_at(trace, "reno", 2, offset_s);
        let mut shifted = text.replace(&format!("start = \"{offset_s}s\""), "start = \"0s\"");
        let traces = file.parent().unwrap().join("traces");
        for l in text.lines() {
            let Some((_, rest)) = l.split_once("trace = \"traces/") else {
                continue;
            };
            let name = rest.split('"').next().unwrap();
            let whole = std::fs::read_to_string(traces.join(name)).unwrap();
            let from = offset_s * 1000;
            let kept: Vec<String> = whole
                .lines()
                .map(|t| t.parse::<u64>().unwrap())
                .filter(|&t| t >= from)
                .map(|t| (t - from).to_string())
                .collect();
            let out = dir.join(format!("{name}.from{offset_s}s"));
            std::fs::write(&out, kept.join("\n") + "\n").unwrap();
            shifted = shifted.replace(
                &format!("trace = \"traces/{name}\""),
                &format!("trace = \"{}\"", out.display()),
            );
        }
        assert!(
            !shifted.contains("\"traces/"),
            "{trace}: every trace shifted"
        );
        let (a, b) = (run_text(&text, &file), run_text(&shifted, &file));
        let key = |f: &FlowResult| {
            (
                f.download_time().map(|d| (d * 1e9).round() as u64),
                f.data_segments_sent,
                f.retransmissions,
                f.timeouts,
                f.undos.values().to_vec(),
            )
        };
        assert_eq!(key(&a), key(&b), "{trace} at {offset_s} s");
    }
}

/// Offsets meeting each goal (completion, retransmissions, RTOs, undos) per (trace,
/// cc, tcp_frto) group: floors that a change must not lower (raise them as the profile
/// improves); every recorded group has one. As measured when the library was recorded
/// with the kernel on the model's clock: of 180, completion 174, retransmissions 148,
/// RTOs 173, undos 172; 63 of the 72 cells at 9 of 10 or more. With the growth of the
/// cwnd a loss undo restores (`StackRules::grows_after_loss_undo`): retransmissions 152
/// (T-Mobile UMTS at 125 s, reno and cubic, both tcp_frto), 65 cells. With RACK hearing
/// an ACK's SACK blocks before its cumulative range (`tcp_ack`: `tcp_sacktag_write_queue`
/// then `tcp_clean_rtx_queue`, rack_detection.rs): completion 172, retransmissions 152,
/// RTOs 171, undos 172, 61 cells; won T-Mobile UMTS reno at 793 s and T-Mobile LTE
/// cubic at 327 s (both tcp_frto), LTE bbr tcp_frto 0 at 58 s; lost AT&T cubic at 518 s
/// (both; 15.06 s without an RTO against the kernel's 17.45 s with one), T-Mobile UMTS
/// cubic at 543 s (both; 126 retransmissions against 169), T-Mobile LTE bbr at 212 s
/// (both; an RTO the kernel does not take) and at 58 s (tcp_frto 2). In each lost
/// offset the model with and without that order part at the first SACK after snd_una
/// advanced (0.987 s, 9.701 s, 1.617 s, 1.323 s), where the model without it
/// retransmitted at once and the kernel's capture, like the model with it, sent new
/// data and retransmitted only on a later SACK (AT&T 518 s: on the next one, 5 us
/// later); the offsets' counts miss on later decisions.
/// Where an offset misses (the test prints each), what is known of its first diverging
/// decision:
/// * T-Mobile LTE reno at 212 s (both tcp_frto): the model times out twice (188
///   retransmissions, 9.92 s) where the kernel does not (92, 7.81 s); the runs part at
///   the receiver's 151st ACK (1.107 s), a SACK the model's compression timer sends
///   1.1 ms after the out-of-order segment and the kernel's not within 5 ms
///   (`tcp_compressed_ack_kick`; not explained yet);
/// * AT&T cubic at 310 s (both): 21 retransmissions against 57, the same time;
/// * AT&T cubic at 518 s (both): the runs part at 0.807 s, where the kernel's CUBIC
///   sends three segments on an ACK of two and the model two, the third on the next
///   ACK, 8 ms later;
/// * T-Mobile UMTS cubic at 292 s (tcp_frto 2): the receiver's compressed SACK at
///   3.440 s leaves out the segment delivered at that instant (the emulator's artefact:
///   the forwarder's wake-up for that delivery expires the kernel's hrtimer, armed for
///   1 ms with 100 us slack, at its soft expiry before the segment is processed);
/// * BBR: small counts (1 against 3, 23 against 31) and AT&T 586 s, where the kernel
///   gave 6.03 s with 140-149 retransmissions in three of its four earlier recordings
///   and 7.21 s with none in one (the model: 7.09 s, none).
const FLOORS: &[(&str, &str, u8, [usize; 4])] = &[
    ("att-lte-drive", "reno", 2, [10, 10, 10, 10]),
    ("tmobile-lte-drive", "reno", 2, [9, 9, 9, 9]),
    ("tmobile-umts-drive", "reno", 2, [10, 10, 10, 10]),
    ("att-lte-drive", "reno", 0, [10, 10, 10, 10]),
    ("tmobile-lte-drive", "reno", 0, [9, 9, 9, 9]),
    ("tmobile-umts-drive", "reno", 0, [10, 10, 10, 10]),
    ("att-lte-drive", "cubic", 2, [9, 8, 9, 9]),
    ("tmobile-lte-drive", "cubic", 2, [10, 10, 10, 10]),
    ("tmobile-umts-drive", "cubic", 2, [10, 6, 10, 10]),
    ("att-lte-drive", "cubic", 0, [9, 8, 9, 9]),
    ("tmobile-lte-drive", "cubic", 0, [10, 10, 10, 10]),
    ("tmobile-umts-drive", "cubic", 0, [10, 6, 10, 10]),
    ("att-lte-drive", "bbr", 2, [9, 7, 9, 10]),
    ("tmobile-lte-drive", "bbr", 2, [9, 6, 8, 7]),
    ("tmobile-umts-drive", "bbr", 2, [10, 9, 10, 10]),
    ("att-lte-drive", "bbr", 0, [8, 7, 9, 10]),
    ("tmobile-lte-drive", "bbr", 0, [10, 7, 9, 9]),
    ("tmobile-umts-drive", "bbr", 0, [10, 10, 10, 10]),
];

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_real_paths() {
    let groups = per_group(&run_all());
    for ((t, cc, frto), got, n) in &groups {
        let floor = FLOORS
            .iter()
            .find(|f| (f.0, f.1, f.2) == (t.as_str(), cc.as_str(), *frto))
            .unwrap_or_else(|| panic!("{t} {cc} frto {frto}: no floor for this group"))
            .3;
        for (g, f) in got.iter().zip(floor) {
            assert!(
                *g >= f,
                "{t} {cc} frto {frto}: {got:?} of {n} below the floor {floor:?}"
            );
        }
    }
}

/// Issue 41's goals: each met on at least 9 of 10 offsets of every group.
#[test]
#[ignore = "the profile does not meet issue 41's goals on the real paths yet"]
fn the_linux_profile_meets_the_kernel_goals_on_the_real_paths() {
    for ((t, cc, frto), got, n) in per_group(&run_all()) {
        for (name, k) in ["completion", "retransmissions", "RTOs", "undos"]
            .iter()
            .zip(got)
        {
            assert!(k * 10 >= n * 9, "{t} {cc} frto {frto} {name}: {k} of {n}");
        }
    }
}
