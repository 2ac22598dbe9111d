//! The `linux` profile against Linux 6.18.44 on the real-path library
//! (scenarios/paths/: measured cellular drive traces, issue 41). Each row of
//! `tests/data/kernel-6.18.44-fc-v1272/paths.csv` is one `spikelab emulate` download
//! recorded by `scripts/record_kernel_paths.py`: the path's scenario with the flow's
//! start fixed at `offset_s` and the row's `tcp_frto` and congestion control; it is
//! re-run here in the simulator and compared by issue 41's goals: completion within
//! 5 %, retransmitted segments within 20 %, RTO count and undo events (the seven
//! kernel counters) equal. The recordings were made on a machine loaded by other jobs
//! (the `loadavg` column; `lateness_p99_ms` is the forwarder's lateness).

use spikelab_engine::FlowResult;
use spikelab_tcp::spurious::UndoCounters;
use std::path::PathBuf;

const DATA: &str = "tests/data/kernel-6.18.44-fc-v1272/paths.csv";

/// One recorded kernel run.
#[derive(Debug)]
struct PathRun {
    trace: String,
    cc: String,
    frto: u8,
    offset_s: u64,
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
                completion_s: f[col("completion_s")].parse().unwrap(),
                retransmissions: n("retransmissions"),
                timeouts: n("timeouts"),
                undos: UndoCounters::NAMES.iter().map(|c| n(c)).collect(),
            }
        })
        .collect()
}

/// The path's scenario as the recorder ran it: its two substitutions (the trace paths
/// stay relative to the scenario's own folder here).
fn simulate(k: &PathRun) -> FlowResult {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/paths")
        .join(format!("{}.toml", k.trace));
    let text = std::fs::read_to_string(&file).unwrap();
    let tcp = format!(
        "linux = {{ tcp_frto = {}, tcp_congestion_control = \"{}\", so_rcvbuf = 1048576 }}",
        k.frto, k.cc
    );
    let mut starts = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("start = {") {
                starts += 1;
                format!("start = \"{}s\"", k.offset_s)
            } else {
                l.replace("linux = { so_rcvbuf = 1048576 }", &tcp)
            }
        })
        .collect();
    assert_eq!(starts, 1, "{}: one start line", k.trace);
    let text = lines.join("\n");
    assert!(text.contains(&tcp), "{}: the tcp line", k.trace);
    let s = spikelab_scenario::parse(&text, &file.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let r = spikelab_engine::run(&s.to_sim(), s.run().seed).unwrap();
    r.flows.into_iter().next().unwrap()
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

/// Every recorded run, simulated; prints the per-run table.
fn run_all() -> Vec<Met> {
    println!("| trace | cc | frto | offset s | sim s | kernel s | sim retx | kernel retx | sim RTOs | kernel RTOs | sim undos | kernel undos |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    path_runs()
        .iter()
        .map(|k| {
            let f = simulate(k);
            println!(
                "| {} | {} | {} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {:?} | {:?} |",
                k.trace,
                k.cc,
                k.frto,
                k.offset_s,
                f.download_time().unwrap_or(f64::NAN),
                k.completion_s,
                f.retransmissions,
                k.retransmissions,
                f.timeouts,
                k.timeouts,
                f.undos.values(),
                k.undos,
            );
            compare(k, &f)
        })
        .collect()
}

#[test]
fn the_path_recordings_cover_the_three_cellular_traces() {
    let runs = path_runs();
    for t in ["att-lte-drive", "tmobile-lte-drive", "tmobile-umts-drive"] {
        assert!(runs.iter().filter(|r| r.trace == t).count() >= 3, "{t}");
    }
}

/// Runs meeting each goal (completion, retransmissions, RTOs, undos): floors that a
/// change must not lower (raise them as the profile improves). Recorded: reno, tcp_frto 2
/// at three offsets per trace and 0 at two, and T-Mobile LTE at 96 s four more times
/// (`recording` 2-5). Measured when recorded: 12, 10, 11 and 10 of the first 15. Then
/// (issue 41) three fixes found by diffing `emulate --pcap` against `run --trace`: the
/// handshake's third segment, a pure ACK that takes a delivery opportunity of a
/// Mahimahi link (UMTS at 125 s: the kernel's first data arrived one opportunity
/// later); the probe timer finding its flight's probe unanswered rearms the RTO from
/// the oldest segment (`tcp_rearm_rto` with `ICSK_TIME_LOSS_PROBE` pending: the
/// kernel's RTO and undo at 125 s); a SYN-ACK after a retransmitted SYN timed by its
/// timestamp echo (UMTS at 42 s: no spurious RTO at 3.3 s). Now 16, 14, 19 and 18 of
/// 19. The remaining misses: T-Mobile LTE at 96 s, recording 1 (289 retransmissions,
/// TCPSackRecoveryFail, load 25) is the kernel's odd run: re-recorded four times it gave
/// 79-86 and a TCPLossUndo, as the profile does (72); at 58 s with tcp_frto 2 and 19 s
/// with 0 the kernel itself differs between the two settings as much as the profile
/// from either (9.69 s / 90 against 7.93 s / 170; 7.20 s / 85 against 6.62 s / 124),
/// the profile identical in both (no F-RTO undo there); AT&T at 172 s: 56 against 92.
const FLOOR: [usize; 4] = [16, 14, 19, 18];

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_real_paths() {
    let m = run_all();
    let count = |goal: fn(&Met) -> bool| m.iter().filter(|x| goal(x)).count();
    let got = [
        count(|x| x.completion),
        count(|x| x.retransmissions),
        count(|x| x.timeouts),
        count(|x| x.undos),
    ];
    println!(
        "met (completion, retransmissions, RTOs, undos) of {}: {got:?}",
        m.len()
    );
    for (g, f) in got.iter().zip(FLOOR) {
        assert!(*g >= f, "{got:?} below the floor {FLOOR:?}");
    }
}

/// Issue 41's goals: each met on at least 9 of 10 runs.
#[test]
#[ignore = "the profile does not meet issue 41's goals on the real paths yet"]
fn the_linux_profile_meets_the_kernel_goals_on_the_real_paths() {
    let m = run_all();
    let n = m.len();
    for (name, goal) in [
        ("completion", (|x: &Met| x.completion) as fn(&Met) -> bool),
        ("retransmissions", |x| x.retransmissions),
        ("RTOs", |x| x.timeouts),
        ("undos", |x| x.undos),
    ] {
        let k = m.iter().filter(|x| goal(x)).count();
        assert!(k * 10 >= n * 9, "{name}: {k} of {n}");
    }
}
