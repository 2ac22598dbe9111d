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
//! (the recorder's default), and are simulated so: a run at the offset of the whole
//! trace is not the same run, as the timer wheel's coarse levels fall on absolute
//! jiffies (tested below).
//! The emulator kept the kernel on the model's clock (docs/src/emulate.md: its
//! answers to a delivery at the delivery's time, the SYN at the start, timers less the
//! forwarder's lag, time zero on a jiffy of the model's timer wheel).
//! `lateness_p99_ms` is the forwarder's lateness and `loadavg` the machine's load as
//! each run ended. The earlier recordings, on the host's clock
//! (`kernel-6.18.44-fc-v1272/paths.csv`), and how the floors moved against them are in
//! docs/src/validation-linux-history.md.

#[path = "support/bbr_draws.rs"]
mod bbr_draws;
use spikelab_core::{Dur, Time};
use spikelab_engine::FlowResult;
use spikelab_tcp::linux_timer_wheel::fires_at;
use spikelab_tcp::spurious::UndoCounters;
use std::path::PathBuf;

const DATA: &str = "tests/data/kernel-6.18.44-fc-v1300/paths.csv";

/// One recorded kernel run.
#[derive(Clone, Debug)]
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
    /// The traces were shifted to the offset and the flow started at 0.
    trace_shift: bool,
    /// BBR's gain-cycle draws in this run, read from its pacing gain
    /// (scripts/bbr_draws.py); `None` for runs recorded without the series.
    bbr_draws: Option<Vec<u8>>,
    /// The emulator stamped the kernel's timer-sent packets less the lag of the last
    /// write into the same end (`timer_stamps` "own-end", since 3c0bfba), not into
    /// either end ("any-end"), which moved a paced sender's segments early.
    own_end_stamps: bool,
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
                trace_shift: n("trace_shift") == 1,
                bbr_draws: bbr_draws::draws(f[col("bbr_draws")]),
                own_end_stamps: f[col("timer_stamps")] == "own-end",
            }
        })
        .collect()
}

/// The path's scenario with the flow started at `offset_s` of the whole traces: its two
/// substitutions (the trace paths stay relative to the scenario's own folder here).
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

/// The scenario `text` (of `file`) with its traces shifted to `offset_ms` (the
/// opportunities from the offset on, moved back by it, written under `dir`) and its
/// flow started at 0 instead of at the offset: what `record_kernel_paths.py` gives the
/// kernel by default.
fn shifted(text: &str, file: &std::path::Path, offset_ms: u64, dir: &std::path::Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let (whole_s, frac) = (offset_ms / 1000, offset_ms % 1000);
    let start = match frac {
        0 => format!("start = \"{whole_s}s\""),
        _ => format!("start = \"{offset_ms}ms\""),
    };
    assert_eq!(
        text.matches(&start).count(),
        1,
        "{}: {start}",
        file.display()
    );
    let mut out = text.replace(&start, "start = \"0s\"");
    let traces = file.parent().unwrap().join("traces");
    for l in text.lines() {
        let Some((_, rest)) = l.split_once("trace = \"traces/") else {
            continue;
        };
        let name = rest.split('"').next().unwrap();
        let whole = std::fs::read_to_string(traces.join(name)).unwrap();
        let kept: Vec<String> = whole
            .lines()
            .map(|t| t.parse::<u64>().unwrap())
            .filter(|&t| t >= offset_ms)
            .map(|t| (t - offset_ms).to_string())
            .collect();
        // Written aside and renamed: tests running beside each other, in this process
        // or another run of the suite, read whole files.
        let path = dir.join(format!("{name}.from{offset_ms}ms"));
        let writer = (std::process::id(), std::thread::current().id());
        let aside = dir.join(format!("{name}.{writer:?}"));
        std::fs::write(&aside, kept.join("\n") + "\n").unwrap();
        std::fs::rename(&aside, &path).unwrap();
        out = out.replace(
            &format!("trace = \"traces/{name}\""),
            &format!("trace = \"{}\"", path.display()),
        );
    }
    assert!(
        !out.contains("\"traces/"),
        "{}: every trace shifted",
        file.display()
    );
    out
}

/// The recorded run as the kernel ran it: with the traces shifted to the offset where
/// the row says so, else the whole traces with the flow at the offset.
fn simulate(k: &PathRun) -> FlowResult {
    let (text, file) = scenario_at(&k.trace, &k.cc, k.frto, k.offset_s);
    let text = bbr_draws::replayed(text, k.bbr_draws.as_deref());
    if !k.trace_shift {
        return run_text(&text, &file);
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("linux-paths-shifted");
    run_text(&shifted(&text, &file, k.offset_s * 1000, &dir), &file)
}

/// The runs held to the goals: where a configuration and offset has recordings made
/// with the emulator's own-end timer stamps, only those; else, where it has recordings
/// with BBR's draws, only those (the model replays the draws, and a recording without
/// them leaves the model's phase to chance: `the_models_seven_draws_span_the_kernels_bbr_runs`).
fn held_runs() -> Vec<PathRun> {
    let all = path_runs();
    let config = |r: &PathRun| (r.trace.clone(), r.cc.clone(), r.frto, r.offset_s);
    // How a recording was made, better last: without draws, with them, own-end stamps.
    let rank = |r: &PathRun| match (r.own_end_stamps, r.bbr_draws.is_some()) {
        (true, _) => 2,
        (false, drawn) => u8::from(drawn),
    };
    let mut best = std::collections::BTreeMap::new();
    for r in &all {
        let b = best.entry(config(r)).or_insert(0);
        *b = rank(r).max(*b);
    }
    (all.iter())
        .filter(|r| rank(r) == best[&config(r)])
        .cloned()
        .collect()
}

/// Which goals one run meets.
#[derive(Clone, Copy, Debug, Default)]
struct Met {
    completion: bool,
    retransmissions: bool,
    timeouts: bool,
    undos: bool,
}

/// What one run did, in the goals' terms: completion (s; infinite when unfinished),
/// retransmitted segments, RTOs, the seven undo counters.
type Outcome = (f64, u64, u64, Vec<u64>);

fn outcome(f: &FlowResult) -> Outcome {
    let done = f.download_time().unwrap_or(f64::INFINITY);
    (
        done,
        f.retransmissions,
        f.timeouts,
        f.undos.values().to_vec(),
    )
}

fn kernel_outcome(k: &PathRun) -> Outcome {
    (
        k.completion_s,
        k.retransmissions,
        k.timeouts,
        k.undos.clone(),
    )
}

/// Issue 41's goals for `run` held against the recorded kernel run `k`.
fn met(k: &PathRun, run: &Outcome) -> Met {
    let within = |sim: f64, kern: f64, tol: f64| (sim - kern).abs() <= tol * kern;
    Met {
        completion: within(run.0, k.completion_s, 0.05),
        retransmissions: within(run.1 as f64, k.retransmissions as f64, 0.2),
        timeouts: run.2 == k.timeouts,
        undos: run.3 == k.undos,
    }
}

fn compare(k: &PathRun, f: &FlowResult) -> Met {
    met(k, &outcome(f))
}

/// A (trace, congestion control, tcp_frto) group of recordings: issue 41's goals hold
/// per group, counted per start offset.
type Group = (String, String, u8);

/// Every recorded run, simulated, with its group and offset; prints the per-run table.
fn run_all() -> Vec<(Group, u64, Met)> {
    println!("| trace | cc | frto | offset s | rec | sim s | kernel s | sim retx | kernel retx | sim RTOs | kernel RTOs | sim undos | kernel undos | missed |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    held_runs()
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

fn key(f: &FlowResult) -> (Option<u64>, u64, u64, u64, Vec<u64>) {
    (
        f.download_time().map(|d| (d * 1e9).round() as u64),
        f.data_segments_sent,
        f.retransmissions,
        f.timeouts,
        f.undos.values().to_vec(),
    )
}

/// Shifting the traces to the offset (the opportunities from it on, moved back by it;
/// the flow from 0) and starting the flow at the offset of the whole traces give the
/// same download when the offset is a whole number of the timer wheel's level-3
/// periods (4 096 jiffies, crates/tcp/src/linux_timer_wheel.rs), as the link is idle
/// before the download and nothing wraps within one. At a whole second they need not:
/// the wheel files a timer 0.5 to 4 s out in 64-jiffy buckets counted from jiffy 0, so
/// the offset moves where the buckets fall. (AT&T with BBR at 34 s, tcp_frto 2, at
/// 59aa5d0: at the offset the RTO fired 2.320 s into the download; shifted, its bucket
/// ended after the ACKs of 2.323 s re-armed it, and the model retransmitted 175
/// segments against 233.) The kernel ran the shifted traces
/// (`trace_shift` 1, its time zero a jiffy count that is a multiple of 512), so the
/// rows are simulated shifted.
#[test]
fn shifting_the_traces_moves_only_the_timer_wheels_phase() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("linux-paths-shift");
    for (trace, cc, periods) in [
        ("att-lte-drive", "bbr", 143),       // 585.728 s
        ("tmobile-lte-drive", "reno", 14),   // 57.344 s
        ("tmobile-umts-drive", "cubic", 10), // 40.960 s
    ] {
        let offset_ms = periods * 4096;
        let (text, file) = scenario_at(trace, cc, 2, 0);
        let at = text.replace("start = \"0s\"", &format!("start = \"{offset_ms}ms\""));
        let (a, b) = (
            run_text(&at, &file),
            run_text(&shifted(&at, &file, offset_ms, &dir), &file),
        );
        assert_eq!(key(&a), key(&b), "{trace} at {offset_ms} ms");
    }
    // A whole second is not a whole number of those periods: the same 1.01 s timer
    // armed 2.31 s into the download fires at another point of it.
    let (at, delay) = (Dur::from_millis(2310), Dur::from_millis(1010));
    let into = |offset: Dur| fires_at(Time::ZERO + offset + at, delay) - (Time::ZERO + offset);
    assert_ne!(into(Dur::from_secs(34)), into(Dur::ZERO));
    assert_eq!(into(Dur::from_millis(143 * 4096)), into(Dur::ZERO));
}

/// Offsets meeting each goal (completion, retransmissions, RTOs, undos) per (trace,
/// cc, tcp_frto) group: floors that a change must not lower (raise them as the profile
/// improves); every recorded group has one. As measured with the runs simulated as the
/// kernel ran them (the traces shifted; at the offset of the whole traces the timer
/// wheel's phase differs, `shifting_the_traces_moves_only_the_timer_wheels_phase`): of
/// 180, completion 176, retransmissions 164, RTOs 174, undos 176; 69 of the 72 cells at
/// 9 of 10 or more (the BBR offsets of the LTE drives recorded twice, below). How the rules of 6 Dec moved them (completion / retransmissions /
/// RTOs / undos, cells), from 174/148/171/172 and 63 cells shifted:
/// * BBR counts the acknowledged SYN delivered: 176/148/171/172, 64 (AT&T bbr 586 s);
/// * BBR's rate sample starts at the segment sent last (`tcp_skb_sent_after`):
///   177/149/171/172, 64 (T-Mobile UMTS bbr tcp_frto 0 at 125 s lost its
///   retransmission goal, 19 against 7);
/// * the cwnd a loss undo restores grows by the undoing ACK
///   (`StackRules::grows_after_loss_undo`): T-Mobile UMTS reno and cubic at 125 s won;
/// * RACK hears an ACK's SACK blocks before its cumulative range (`tcp_ack`:
///   `tcp_sacktag_write_queue` then `tcp_clean_rtx_queue`; `tcp_rack_advance` sets
///   `rack.rtt_us` from every segment it accepts): won T-Mobile UMTS reno 793 s and
///   T-Mobile LTE cubic 327 s, lost AT&T cubic 518 s (15.06 s without an RTO against
///   the kernel's 17.45 s with one), T-Mobile LTE bbr 212 s and 58 s. In each lost
///   offset the model with and without the order part at the first SACK after snd_una
///   advanced, where the model without it retransmitted at once and the kernel's
///   capture, like the model with it, sent new data and retransmitted on a later SACK;
///   the offsets miss on later decisions;
/// * the linux receiver's delayed-ACK timer on the timer wheel (`tcp_send_delayed_ack`
///   arms a `timer_list` at `jiffies + ato`; 40-44 ms at HZ 250): 171/153/171/172 ->
///   174/152/171/172, AT&T bbr completion 9 -> 10 (both tcp_frto) and T-Mobile LTE bbr
///   (tcp_frto 0) 9 -> 10, its retransmissions 7 -> 6 (an offset whose runs part from
///   the kernel's at data segment 11 either way);
/// * the linux receiver's ato in whole jiffies (`tcp_event_data_recv` on
///   `tcp_jiffies32`): T-Mobile LTE bbr (tcp_frto 2) completion 8 -> 9;
/// * the head skb `tcp_write_xmit` sends is the rest of a `tcp_sendmsg_locked` skb (22
///   segments of 1448 B, half the SYN-ACK's window), and a head of one segment meets no
///   TSO deferral, a head the room holds none ("Middle in queue"; send_queue.rs): AT&T
///   cubic retransmissions 8 -> 9 (310 s: 21 -> 57, the kernel's 57) and T-Mobile UMTS
///   cubic 6 -> 7 (710 s: 3 -> 10, the kernel's 10), both tcp_frto; 175/156/171/172;
/// * outside recovery SACKed segments take no room in cwnd (`tcp_cwnd_test` on
///   `tcp_packets_in_flight`), a spurious retransmission's ACK still gives the rate
///   sample (so a D-SACK widens reo_wnd), cwnd grows on SACK-only ACKs once
///   reordering is seen (`tcp_may_raise_cwnd`), min_rtt from SACK-only ACKs (found on
///   the reordering path): 175/159/173/174, 65 cells;
/// * the receiver times its SYN-ACK by the ACK completing the handshake, not by the
///   first data segment, and a retransmitted SYN-ACK only by that ACK's TSecr
///   (`tcp_check_req` -> `tcp_synack_rtt_meas`, crates/tcp/src/linux_synack_rtt.rs):
///   at 42 s on the T-Mobile UMTS drive the SYN and SYN-ACK were retransmitted, the
///   kernel's receiver took 1.668 s (RTO 5 s) where the model took the 32 ms from the
///   last SYN-ACK to the first data (RTO 232 ms), so a 1.6 s pause put the model's
///   receiver back in quick-ACK mode and not the kernel's; UMTS cubic 42 s now 48.53 s
///   and 77 retransmissions against the kernel's 48.51 s and 72 (49.21 s and 115
///   before), its first divergence from 5.709 s to 24.147 s; of the 180 captures
///   (`spikelab diverge`) it moved later on 7 (the three congestion controls at 42 s,
///   AT&T cubic at 380 s) and earlier on none: 175/161/173/174, 67 cells;
/// * BBR on the two LTE drives recorded a second time at every offset (the kernel does
///   not repeat itself there: `the_kernels_bbr_against_its_second_recording_on_the_lte_drives`),
///   an offset meeting a goal against at least one of its two recordings: AT&T BBR
///   (`tcp_frto` 2) retransmissions 8 -> 9, T-Mobile LTE BBR (`tcp_frto` 2)
///   completion 9 -> 10, retransmissions 6 -> 7, RTOs 9 -> 10 and undos 8 -> 10: of
///   the 180 offsets 176/163/174/176, 69 cells (against the first recordings alone as
///   before, 175/161/173/174, 67);
/// * the held ACKs' ACK `tcp_sack_new_ofo_skb` sends for a new block clears
///   ICSK_ACK_SCHED, so the block's own segment owes no ACK and arms no compressed-ACK
///   timer (`tcp_event_ack_sent` -> `inet_csk_clear_xmit_timer(ICSK_TIME_DACK)`, then
///   `tcp_ack_snd_check`): T-Mobile LTE reno at 212 s, where the model sent a
///   compressed SACK at 1.107 s and the kernel none. Of the 180 captures the first
///   diverging decision moved later on 32 (T-Mobile LTE reno 212 s 1.111 -> 1.666 s,
///   UMTS reno 209 s 1.851 -> 6.281 s, AT&T reno 518 s 1.008 -> 3.635 s, ...) and
///   earlier on one (AT&T reno `tcp_frto` 0 at 586 s, 1.523 -> 1.489 s: a compressed-ACK
///   timer armed 1 ms before a delivery fired before it in the kernel, at its soft
///   expiry, and after it in the model, at its hard one; the emulator's wake-up
///   expiring the kernel's hrtimer, as at UMTS CUBIC 292 s below); T-Mobile LTE BBR
///   (`tcp_frto` 0) retransmissions 7 -> 8: 176/164/174/176, 69 cells (first
///   recordings alone 175/161/173/174, 67);
/// * BBR recorded again with its gains (`record_kernel_paths.py --cc bbr` with
///   `TCP_CC_INFO` in the series: the three drives at every offset, both `tcp_frto`)
///   and held only there, replaying the start phases the kernel drew at random
///   (`held_runs`; docs/src/validation-linux.md, "BBR's random start phase"):
///   one recording per offset instead of either of two, against the kernel's own draw
///   instead of the model's: AT&T 10/8/9/10 and 10/9/10/9, T-Mobile LTE 9/8/9/8 and
///   10/8/10/9; of the 180 offsets 175/165/174/172, 68 cells. Given its draw the kernel
///   repeats itself where the first recordings disagreed (T-Mobile LTE 250 s: 31 and
///   32 retransmissions with draw 1 in both `tcp_frto` runs, where the earlier four
///   gave 1 to 20), and what the model misses there is the model's (below).
/// * the sender's PSH marks (send_queue.rs: `tcp_sendmsg_locked` marks a tail skb
///   filled while `forced_push` holds and each write's end; `tcp_grow_skb` moves a
///   head's mark to its grown end): of the 180 captures (reno and CUBIC of the first
///   recordings, BBR of the recordings with draws, the draws replayed) the first
///   diverging decision moved later on 56 and earlier on none (AT&T BBR 380 s 2.527 ->
///   3.735 s, T-Mobile LTE BBR 250 s 3.980 -> 5.716 s, UMTS CUBIC 376 s 1.658 ->
///   9.095 s, ...). AT&T BBR 10/8/9/10 -> 10/9/9/10 and 10/9/10/9 -> 10/10/10/9; UMTS
///   reno at 793 s (both `tcp_frto`) now takes an RTO the kernel does not (10/10/10/10
///   -> 10/9/9/9), its first diverging decision unchanged (`tcp_frto` 2: the
///   receiver's 149th ACK at 1.586 s) or later (`tcp_frto` 0: 2.256 -> 2.607 s);
///   175/165/172/170, 69 cells.
/// * the RTO estimator hears a duplicate ACK's SACK-based sample (`sack_rtt_us` in
///   `tcp_ack_update_rtt`), its round ending when snd_una passes `rtt_seq`, and a paced
///   sender's loss probe and re-armed RTO wait for its pacing clock
///   (`tcp_pacing_delay`), found on Table 1's BBR RTO misses (linux_kernel.rs):
///   T-Mobile LTE reno 9/9/9/9 -> 10/10/10/10 (both `tcp_frto`; 212 s below); UMTS
///   cubic 10/9/10/10 -> 10/8/9/9 (both): at 543 s the runs part at 4.14 s, where the
///   receiver's delayed ACK for the segment that arrived at 4.054 s left 86 ms after
///   it in the kernel's run and 50 ms in the model's (re-recorded with a capture; the
///   kernel's `ato` doubled by its delayed-ACK timer's previous ACK at 4.004 s,
///   `tcp_delack_timer_handler`'s "inflate ATO", which the model lacks), and the model
///   now takes a spurious RTO at 22.78 s (240
///   retransmissions against 169); AT&T BBR (`tcp_frto` 2) completion 10 -> 9 (34 s,
///   parted at 1.113 s, below); T-Mobile LTE BBR (`tcp_frto` 0) retransmissions 8 -> 7
///   (58 s: the runs part at a queue drop at 1.46-1.52 s; the kernel itself took
///   288-348 retransmissions and 6.76-7.67 s there).
/// * the receiver's `ato` doubled by each ACK its delayed-ACK timer sends
///   (`tcp_delack_timer_handler`) and its SACK array kept as the kernel's
///   (`linux_sack_array`): 176/164/172/170 -> 178/164/174/172, cells unchanged (67);
///   AT&T cubic 518 s now meets every goal; UMTS cubic 543 s parts at 9.100 s instead
///   of 4.14 s (CUBIC's window one ACK later there) and still takes the spurious RTO.
/// * growth on the ACK ending fast recovery (`StackRules::grows_on_recovery_exit`:
///   `tcp_cong_control` after `tcp_fastretrans_alert`; CUBIC's epoch starts there):
///   178/168/174/172, 69 cells; UMTS cubic 543 s now 38.86 s and 172 retransmissions
///   (kernel 38.86 s, 169), agreeing on 2 052 data segments, and parts at 22.78 s,
///   where its RTO fires and the kernel's, re-armed by SACK-based RTT samples
///   (`FLAG_SET_XMIT_TIMER` in `tcp_clean_rtx_queue`, not modelled), does not.
/// * that re-arm (`TcpSender::rearm_on_sack_rtt_sample`: a duplicate ACK's SACK-based
///   sample from a segment sent before the head's last transmission restarts the
///   timer): 179/170/178/176, 69 cells; UMTS cubic 543 s equal to the kernel (38.86 s,
///   169 retransmissions, no RTO), UMTS reno 10/10/10/10, AT&T BBR completion 10.
/// * in a timeout's go-back-N only what was resent is in flight (the RACK stack's
///   `pipe_segments`: `tcp_timeout_mark_lost` marked the rest lost), which BBR's
///   packet conservation reads: at AT&T 34 s the model resent a hundred segments on
///   the first ACK after the RTO (in flight 105 + 1 SACKed) where the kernel resent
///   one, and took a second RTO the kernel did not; now 10.01 s, 174 retransmissions
///   and one RTO against the kernel's 10.02 s, 168, one (it counts two D-SACK undos
///   the kernel does not). AT&T BBR (`tcp_frto` 2) 10/9/9/10 -> 10/10/10/9; T-Mobile
///   LTE 250 s 58 -> 39 retransmissions (kernel 31 and 32): 179/171/179/175, 69 cells.
/// * BBR on the two LTE drives recorded twice more with the draws at every offset
///   (recordings 4 and 5; [`KERNEL_BBR_LTE_DRAWN`]), an offset meeting a goal against
///   at least two of its three: AT&T 10/10/10/9 -> 10/10/10/10 and 10/10/10/9 ->
///   10/9/10/9, T-Mobile LTE 9/8/9/8 -> 9/8/9/9 and 10/7/10/9 -> 10/8/10/10:
///   179/171/179/178, 70 cells. At T-Mobile LTE 250 s the recording the model missed
///   (31 retransmissions, one RTO) is the kernel's odd one: 1 to 20 retransmissions
///   and no RTO in the other eight; the two cells left (T-Mobile LTE retransmissions,
///   8 of 10 with either `tcp_frto`) are where each kernel recording meets the goal
///   against the other two on 8.
///   At 58 s (`tcp_frto` 0) recordings 3 and 4 (288 retransmissions) part from the
///   model at the receiver's delayed ACK for the lone segment of 0.648 s: the model's
///   timer (ato 40 ms) sends it at 0.692 s, the kernel's had not fired by 0.695 s.
///   Recorded again with the receiver's side of TCP_INFO (`emulate --tcp-info`, its
///   `-receiver.csv`), the kernel's ato was 40 ms at 0.648 s and 80 ms at 0.692 s:
///   its timer fired then and inflated ato, as the model's does, and that run (397
///   retransmissions, two RTOs) agrees with the model to 1.52 s. The two recordings'
///   late timer was the host's.
/// * the emulator's stamps of the kernel's timer-sent packets less the lag of the
///   last write into the same end (3c0bfba; before, into either end: a burst of
///   deliveries to the receiver moved the sender's paced segments up to 0.36 ms
///   early, which on a full queue chose the packet dropped), and BBR on the two LTE
///   drives recorded once more with it (recording 6, `timer_stamps` "own-end"),
///   which `held_runs` holds alone where it exists: AT&T 10/10/10/9 and
///   10/10/10/10, T-Mobile LTE 9/10/9/9 and 9/10/9/9 (173 s: 86 retransmissions
///   and 86; 212 s 209 and 209, 233 and 233; 250 s 9 and 9, 1 and 1):
///   178/176/178/177 of 180, **every one of the 72 cells at 9 of 10 or more**. The
///   misses: T-Mobile LTE 58 s (both `tcp_frto`: one RTO against two, the kernel's
///   second after the model's run ended at 6.76 s, or the model's second where the
///   kernel's ended; its earlier recordings took one or two), AT&T 34 s (`tcp_frto`
///   2: the model counts a loss undo, `TCPLossUndo`, the kernel a
///   `TCPSackRecoveryFail`).
///
/// Where an offset misses (the test prints each), what is known of its first diverging
/// decision:
/// * T-Mobile LTE reno at 212 s (both tcp_frto): the runs part at the receiver's 151st
///   ACK (1.107 s): the kernel's compressed SACK for the block opened at 1.035 s never
///   leaves as its own packet (the forwarder's lateness, 2.17 ms at worst, does not
///   explain it; not explained). It now meets every goal (7.81 s, 92 retransmissions,
///   no RTO, as the kernel) since the RTO estimator hears a duplicate ACK's SACK-based
///   sample (`sack_rtt_us`): the two RTOs it took before were the timer's, not a loss;
/// * AT&T cubic at 518 s (both): the runs part at the receiver's SACK at 0.948 s (the
///   third segment on an ACK of two at 0.807 s, the last of its skb, now goes as the
///   kernel's does);
/// * T-Mobile UMTS cubic at 292 s (tcp_frto 2): the receiver's compressed SACK at
///   3.440 s leaves out the segment delivered at that instant (the emulator's artefact:
///   the forwarder's wake-up for that delivery expires the kernel's hrtimer, armed for
///   1 ms with 100 us slack, at its soft expiry before the segment is processed);
/// * BBR given the kernel's draws: T-Mobile LTE at 250 s (both) parted at a lone
///   segment ending an skb the kernel sent with PSH (3.673 s) and the model without;
///   with the sender's PSH marks they agree to 5.716 s. A retransmission's mark is
///   the piece's it was sent in (the segment table keeps the pieces): where the two
///   senders' PSH flags first differ is a retransmission in 27 of the 180 captures,
///   was in 97 with the layout's marks; no first diverging decision and no goal moved
///   (a retransmission that fills a hole is ACKed at once, PSH or not).
///   T-Mobile LTE 173 s: the kernel's paced sends leave 0.35-0.45 ms after the model's
///   from 1.018 s, its pacing schedule anchored to an ACK the emulator wrote late
///   (an emulator artefact; docs/src/validation-linux.md). AT&T 34 s (`tcp_frto` 2):
///   three RTOs against one, the runs parting first at a compressed SACK at 1.113 s
///   (the emulator's soft-expiry artefact, as at UMTS CUBIC 292 s).
const FLOORS: &[(&str, &str, u8, [usize; 4])] = &[
    ("att-lte-drive", "reno", 2, [10, 10, 10, 10]),
    ("tmobile-lte-drive", "reno", 2, [10, 10, 10, 10]),
    ("tmobile-umts-drive", "reno", 2, [10, 10, 10, 10]),
    ("att-lte-drive", "reno", 0, [10, 10, 10, 10]),
    ("tmobile-lte-drive", "reno", 0, [10, 10, 10, 10]),
    ("tmobile-umts-drive", "reno", 0, [10, 10, 10, 10]),
    ("att-lte-drive", "cubic", 2, [10, 10, 10, 10]),
    ("tmobile-lte-drive", "cubic", 2, [10, 10, 10, 10]),
    ("tmobile-umts-drive", "cubic", 2, [10, 9, 10, 10]),
    ("att-lte-drive", "cubic", 0, [10, 10, 10, 10]),
    ("tmobile-lte-drive", "cubic", 0, [10, 10, 10, 10]),
    ("tmobile-umts-drive", "cubic", 0, [10, 9, 10, 10]),
    ("att-lte-drive", "bbr", 2, [10, 10, 10, 9]),
    ("tmobile-lte-drive", "bbr", 2, [9, 10, 9, 9]),
    ("tmobile-umts-drive", "bbr", 2, [10, 9, 10, 10]),
    ("att-lte-drive", "bbr", 0, [10, 10, 10, 10]),
    ("tmobile-lte-drive", "bbr", 0, [9, 10, 9, 9]),
    ("tmobile-umts-drive", "bbr", 0, [10, 9, 10, 10]),
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

/// The kernel against itself on the real paths. `tcp_frto` is read only when an RTO
/// fires (`tcp_enter_loss` sets `tp->frto` from it; `tcp_process_loss` and
/// `tcp_try_undo_loss` act on `tp->frto`), so an offset whose `tcp_frto` 2 and 0 runs
/// both took no RTO recorded one configuration twice, minutes apart. Held to each other
/// by the goals both ways, they measure how well the kernel repeats itself in
/// the emulator on this machine, the best any model can be held to per offset. Reno and
/// CUBIC repeat themselves on every such offset of the three drives (the T-Mobile LTE
/// reno run at 212 s, which the model misses, to the segment: 92 and 92). BBR does not
/// on the LTE drives: AT&T 5 of 7 offsets within 20 % of retransmissions (104 s: 66 and
/// 83; 242 s: 89 and 74), T-Mobile LTE 4 of 7 (173 s: 63 and 130; 212 s: 197 and 270;
/// 250 s: 2 and 1), so on those groups the goal of 9 of 10 asks more than the kernel
/// gives against itself (held one way, as the model is: AT&T 5 and 6 of 7, T-Mobile 4
/// and 4). The model's own two runs are one run there
/// (`tcp_frto_changes_nothing_in_the_model_before_an_rto`) and meet the retransmission
/// goal against the kernel's `tcp_frto` 2 and 0 runs on 6 and 6 (AT&T) and 3 and 4
/// (T-Mobile) of the same offsets: as often as the kernel meets it against itself. Floors,
/// per (trace, cc): offsets with two runs free of RTOs, and of them offsets meeting
/// each goal both ways (completion, retransmissions, RTOs, undos).
const KERNEL_REPEATS: &[(&str, &str, usize, [usize; 4])] = &[
    ("att-lte-drive", "reno", 8, [8, 8, 8, 8]),
    ("att-lte-drive", "cubic", 8, [8, 8, 8, 8]),
    ("att-lte-drive", "bbr", 7, [7, 5, 7, 7]),
    ("tmobile-lte-drive", "reno", 6, [6, 6, 6, 6]),
    ("tmobile-lte-drive", "cubic", 6, [6, 6, 6, 6]),
    ("tmobile-lte-drive", "bbr", 7, [7, 4, 7, 6]),
    ("tmobile-umts-drive", "reno", 7, [7, 7, 7, 7]),
    ("tmobile-umts-drive", "cubic", 7, [7, 7, 7, 7]),
    ("tmobile-umts-drive", "bbr", 7, [7, 7, 7, 7]),
];

/// Goals met both ways between two kernel runs.
fn met_both_ways(a: &PathRun, b: &PathRun) -> [bool; 4] {
    let (ab, ba) = (met(a, &kernel_outcome(b)), met(b, &kernel_outcome(a)));
    [
        ab.completion && ba.completion,
        ab.retransmissions && ba.retransmissions,
        ab.timeouts && ba.timeouts,
        ab.undos && ba.undos,
    ]
}

/// The offsets of a (trace, cc) whose `tcp_frto` 2 and 0 kernel runs both took no RTO,
/// as (frto 2 run, frto 0 run).
fn repeat_pairs<'a>(runs: &'a [PathRun], trace: &str, cc: &str) -> Vec<(&'a PathRun, &'a PathRun)> {
    // The first recording: the configurations recorded twice over `tcp_frto`.
    let of = |frto: u8| {
        (runs.iter())
            .filter(move |r| r.trace == trace && r.cc == cc && r.frto == frto && r.recording == 1)
    };
    of(2)
        .filter_map(|a| {
            let b = of(0).find(|b| b.offset_s == a.offset_s)?;
            (a.timeouts == 0 && b.timeouts == 0).then_some((a, b))
        })
        .collect()
}

#[test]
fn the_kernel_repeats_itself_on_the_real_paths_except_bbr_on_the_lte_drives() {
    let runs = path_runs();
    println!(
        "| trace | cc | offsets without an RTO | completion | retransmissions | RTOs | undos |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (trace, cc, pairs, floor) in KERNEL_REPEATS {
        let these = repeat_pairs(&runs, trace, cc);
        let mut got = [0; 4];
        for (a, b) in &these {
            for (g, ok) in got.iter_mut().zip(met_both_ways(a, b)) {
                *g += usize::from(ok);
            }
        }
        println!(
            "| {trace} | {cc} | {} | {} | {} | {} | {} |",
            these.len(),
            got[0],
            got[1],
            got[2],
            got[3]
        );
        assert_eq!(these.len(), *pairs, "{trace} {cc}: offsets without an RTO");
        assert_eq!(&got, floor, "{trace} {cc}: the kernel against itself");
    }
}

/// Where the kernel's two runs of one configuration took no RTO, the model's two runs
/// (`tcp_frto` 2 and 0) are one run: `tcp_frto` acts only on an RTO in the model too.
#[test]
fn tcp_frto_changes_nothing_in_the_model_before_an_rto() {
    let runs = path_runs();
    for (trace, cc, ..) in KERNEL_REPEATS {
        for (a, b) in repeat_pairs(&runs, trace, cc) {
            let (x, y) = (simulate(a), simulate(b));
            if x.timeouts == 0 {
                assert_eq!(key(&x), key(&y), "{trace} {cc} at {} s", a.offset_s);
            }
        }
    }
}

/// BBR on the two LTE drives recorded a second time at every offset, both `tcp_frto`
/// (7 Dec, `record_kernel_paths.py --traces att-lte-drive,tmobile-lte-drive --cc bbr
/// --frto 2,0 --repeat 1`; forwarder lateness p99 at most 5 ms, the one run above it
/// recorded again): the second recording held to the goals with the first as
/// reference, as the model is held. Measured (completion, retransmissions, RTOs,
/// undos): AT&T 9/8/10/10 and 10/9/10/9, T-Mobile LTE 8/8/8/7 and 9/9/9/9: the kernel
/// misses the goal of 9 of 10 against itself in three of the eight cells. (T-Mobile at
/// 173 s: 63 then 133 retransmissions with `tcp_frto` 2, 130 then 66 with 0; at 250 s
/// 2 then 20.)
const KERNEL_BBR_LTE_2: &[(&str, u8, [usize; 4])] = &[
    ("att-lte-drive", 2, [9, 8, 10, 10]),
    ("att-lte-drive", 0, [10, 9, 10, 9]),
    ("tmobile-lte-drive", 2, [8, 8, 8, 7]),
    ("tmobile-lte-drive", 0, [9, 9, 9, 9]),
];

#[test]
fn the_kernels_bbr_against_its_second_recording_on_the_lte_drives() {
    let runs = path_runs();
    for (trace, frto, measured) in KERNEL_BBR_LTE_2 {
        let group = |rec: u64| -> Vec<&PathRun> {
            (runs.iter())
                .filter(|r| r.trace == *trace && r.cc == "bbr" && r.frto == *frto)
                .filter(|r| r.recording == rec)
                .collect()
        };
        let (first, second) = (group(1), group(2));
        assert_eq!(first.len(), 10, "{trace} frto {frto}: ten offsets");
        assert_eq!(
            second.len(),
            10,
            "{trace} frto {frto}: ten offsets recorded again"
        );
        let mut got = [0; 4];
        for b in &second {
            let a = first.iter().find(|a| a.offset_s == b.offset_s).unwrap();
            let m = met(a, &kernel_outcome(b));
            let goals = [m.completion, m.retransmissions, m.timeouts, m.undos];
            for (g, ok) in got.iter_mut().zip(goals) {
                *g += usize::from(ok);
            }
        }
        println!("{trace} bbr frto {frto}: the second recording meets {got:?} of 10");
        assert_eq!(
            &got, measured,
            "{trace} frto {frto}: the kernel against itself"
        );
    }
}

/// BBR on the two LTE drives, three recordings with the draws at every offset (the
/// third, then two more on 7 Dec 2026 with captures: `record_kernel_paths.py --traces
/// att-lte-drive,tmobile-lte-drive --cc bbr --frto 2,0 --repeat 2 --pcap`, forwarder
/// lateness p99 0.3-1.9 ms): each recording held to the goals against the other
/// two as the model is held against all three (an offset meets a goal against at least
/// half of them), per (trace, tcp_frto) and recording. Retransmissions within 20 %
/// on 7 to 9 of 10 offsets, below the goal's 9 in 9 of the 12 rows: on these drives
/// the goal asks more of a BBR run than the kernel gives against its own other runs
/// (the model against all three: AT&T 10/10/10/10 and 10/9/10/9, T-Mobile LTE
/// 9/8/9/9 and 10/8/10/10).
const KERNEL_BBR_LTE_DRAWN: &[(&str, u8, [[usize; 4]; 3])] = &[
    (
        "att-lte-drive",
        2,
        [[10, 7, 10, 9], [9, 9, 9, 9], [10, 9, 10, 10]],
    ),
    (
        "att-lte-drive",
        0,
        [[10, 8, 10, 10], [10, 8, 10, 10], [10, 8, 10, 10]],
    ),
    (
        "tmobile-lte-drive",
        2,
        [[10, 8, 9, 9], [10, 8, 10, 10], [8, 8, 9, 9]],
    ),
    (
        "tmobile-lte-drive",
        0,
        [[10, 9, 9, 9], [10, 8, 10, 10], [9, 8, 9, 9]],
    ),
];

#[test]
fn the_kernels_bbr_against_its_other_recordings_with_draws_on_the_lte_drives() {
    let runs: Vec<PathRun> = (path_runs().into_iter())
        .filter(|r| (3..=5).contains(&r.recording))
        .collect();
    for (trace, frto, measured) in KERNEL_BBR_LTE_DRAWN {
        let these: Vec<&PathRun> = (runs.iter())
            .filter(|r| r.trace == *trace && r.cc == "bbr" && r.frto == *frto)
            .collect();
        let mut got = [[0; 4]; 3];
        for (i, rec) in [3, 4, 5].into_iter().enumerate() {
            for b in these.iter().filter(|r| r.recording == rec) {
                let others: Vec<Met> = (these.iter())
                    .filter(|a| a.offset_s == b.offset_s && a.recording != rec)
                    .map(|a| met(a, &kernel_outcome(b)))
                    .collect();
                assert_eq!(others.len(), 2, "{trace} frto {frto} at {} s", b.offset_s);
                let refs: Vec<&Met> = others.iter().collect();
                for (g, ok) in got[i].iter_mut().zip(per_offset(&refs)) {
                    *g += usize::from(ok);
                }
            }
        }
        println!("{trace} bbr frto {frto}: recordings 3, 4, 5 against the others meet {got:?}");
        assert_eq!(
            &got, measured,
            "{trace} frto {frto}: the kernel against itself"
        );
    }
}

/// BBR's first two recordings on the LTE drives, made without the series: the kernel's
/// runs there disagree with each other, and the model's seven possible start phases
/// (the first draw replayed, later ones seeded) span them. Of the 80 runs, 69 are met
/// on every goal by some draw (seven tries, so a measure of span, not of agreement) and
/// 50 by the model's own seeded draw (54 before the sender's PSH marks, 51 before the
/// RTO estimator's SACK-based sample); 71 and 52 since only what a timeout's go-back-N
/// resent counts in flight.
const SPANNED_BY_SOME_DRAW: (usize, usize) = (71, 52);

#[test]
fn the_models_seven_draws_span_the_kernels_bbr_runs() {
    let runs = path_runs();
    let first_two = (runs.iter())
        .filter(|r| r.cc == "bbr" && r.trace.ends_with("lte-drive") && r.recording <= 2);
    let (mut some, mut own, mut n) = (0, 0, 0);
    for k in first_two {
        let all = |m: Met| m.completion && m.retransmissions && m.timeouts && m.undos;
        let drawn = |d: u8| {
            let with = PathRun {
                bbr_draws: Some(vec![d]),
                ..k.clone()
            };
            all(compare(k, &simulate(&with)))
        };
        some += usize::from((0..7).any(drawn));
        own += usize::from(all(compare(k, &simulate(k))));
        n += 1;
    }
    println!("{some} of {n} runs met by some draw, {own} by the model's own");
    assert_eq!(n, 80);
    assert_eq!((some, own), SPANNED_BY_SOME_DRAW);
}
