//! The `linux` profile against Linux 6.18.44 on the real-path library
//! (scenarios/paths/: measured cellular drive traces, issue 41). Each row of
//! `tests/data/kernel-6.18.44-fc-v1272/paths.csv` is one `spikelab emulate` download
//! recorded by `scripts/record_kernel_paths.py`: the path's scenario with the flow's
//! start fixed at `offset_s` and the row's `tcp_frto` and congestion control; it is
//! re-run here in the simulator and compared by issue 41's goals: completion within
//! 5 %, retransmitted segments within 20 %, RTO count and undo events (the seven
//! kernel counters) equal, each per (trace, cc, tcp_frto) group and start offset (an
//! offset recorded several times meets a goal against at least half its recordings).
//! Rows with `trace_shift` 1 ran the traces shifted to the offset with the flow at 0
//! (the recorder's default; the model gives the same run either way, tested below);
//! rows with 0 waited the offset in real time. Every row was recorded again (one run
//! per configuration) once the emulator kept host timing out of the kernel's run
//! (4678838, c599148): the forwarder sets the receiver's TCP_WINDOW_CLAMP again right
//! after the delivery that made the kernel replace it (the reading thread had let the
//! wider clamp act on 2 to 27 ACKs, one more quick ACK per growth step), the
//! applications' threads run SCHED_FIFO (the first data 0.05 ms after the SYN-ACK,
//! 0.1-20 ms before), and the bulk sender's whole transfer sits in a locked send buffer
//! (no 376-byte tail of a blocked 64 KiB write): recording 1 (all 180 configurations)
//! and recording 2 (AT&T's 60, minutes later). Then all of them again, recordings 3
//! (180) and 4 (AT&T's 60), once the forwarder also wrote the next packet only after the
//! receiving application had read every in-order byte (5dd5be1: the model's application
//! reads at once, and Linux acknowledges a pushed segment from that read). Every
//! recording is kept: each is the kernel on the same path, and the kernel's runs of one
//! configuration differ (module `FLOORS`' history). `lateness_p99_ms` is the
//! forwarder's lateness and `loadavg` the machine's load as each run ended.

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
/// improves); every recorded group has one. History: reno, tcp_frto 2 at three offsets
/// per trace and 0 at two, and T-Mobile LTE at 96 s four more times, were 12, 10, 11
/// and 10 of the first 15 runs when recorded; three fixes found by diffing `emulate
/// --pcap` against `run --trace` (the handshake's third segment, a pure ACK that takes
/// a delivery opportunity of a Mahimahi link; the probe timer finding its flight's probe
/// unanswered rearms the RTO from the oldest segment, `tcp_rearm_rto`; a SYN-ACK after
/// a retransmitted SYN timed by its timestamp echo) made them 16, 14, 19 and 18 of 19.
/// Then ten offsets per trace (reno, tcp_frto 2) and cubic, recorded with shifted
/// traces (`trace_shift` 1); T-Mobile LTE at 96 s, recording 1 (289 retransmissions,
/// TCPSackRecoveryFail, load 25) is the kernel's odd run: the four others gave 79-86
/// and a TCPLossUndo, as the profile does (72); at 58 s and 19 s with tcp_frto 0 the
/// first recordings (7.93 s / 170, 6.62 s / 124) are odd the same way: re-recorded
/// twice each they gave 9.67-9.70 s / 90 and 7.20 s / 83-85, as tcp_frto 2 does.
/// Then (T-Mobile LTE at 58 s, where the profile gave 7.92 s / 173 against 9.67-9.70 s
/// / 90 in all six agreeing recordings) the ACK that ends a fast recovery with a lost
/// retransmission still out starts a new one (`tcp_fastretrans_alert` D then E,
/// `tcp_time_to_recover`'s lost_out), PRR counts only what an ACK delivers for the
/// first time, and `retrans_stamp` carries into that recovery (f1ef13a): 9.74 s / 98.
/// Its 19 s offset then misses its completion (8.71 s against 7.17-7.20 s: two more
/// queue drops at 0.97 s, the model's flight one or two segments above the kernel's,
/// whose segments a 56-byte one at the receive window's edge had shifted at 0.67 s;
/// the model cuts no segment there). Then the rest of the matrix (reno tcp_frto 0, cubic and bbr with both,
/// ten offsets per trace), floored as measured;
/// the cubic and bbr retransmission misses (often a few segments against a few, or
/// 2-4x) are not diagnosed yet. Then a sub-MSS segment cut at the receive window's
/// edge when cwnd admits one more packet and no small segment is unacknowledged
/// (`tcp_mss_split_point`, `tcp_nagle_check`/`tcp_minshall_check`): the 56-byte
/// segments of the kernel's pcaps (262144 = 181 x 1448 + 56) now appear in the
/// model's, at T-Mobile LTE 19 s at the same byte and instant (511144 at 0.667 s).
/// T-Mobile LTE reno frto 2 rose to 9 on retransmissions; AT&T cubic at 172 s and
/// 310 s met retransmissions (3 -> 5 in both frto groups), but AT&T cubic at 518 s
/// lost its completion, RTO and undo (15.06 s without the kernel's RTO of its last
/// segment): the kernel's stream also carries a 376-byte segment at 65160 (the first
/// 64 KiB write's tail, sent while the second write waited on the send buffer),
/// which the model has no send buffer to make, so its last segment is 512 B against
/// the kernel's 136 B and escapes the drop the kernel's takes. That 376-byte segment
/// is in 31 of the 184 kernel pcaps, mostly at the same AT&T offsets (104, 172, 380,
/// 448, 518, 656 s) for reno and cubic (not at 172 s reno frto 0, r1), never at 34,
/// 242, 310, 586 s nor in any of the 61 BBR ones (`bbr_sndbuf_expand`'s factor 3
/// leaves room for the first write's tail): the send buffer
/// after the handshake is 2 x 10 x 2304 B (`tcp_sndbuf_expand`; 2304 =
/// roundup_pow_of_two(1460 + MAX_TCP_HEADER 256 + 320) + 256 fits this kernel's small
/// LL_MAX_HEADER), so the emulator's first 64 KiB write blocks after its first
/// 65160-byte skb; `tcp_new_space` grows the buffer only on an ACK after which cwnd is
/// not full (`tcp_should_expand_sndbuf`), i.e. once the sender has run dry, and the
/// woken write's tail goes out alone at its `tcp_push` unless autocorking
/// (`tcp_should_autocork`: earlier packets still in the TUN queue) lets the next write
/// append to it, a race with the emulator's reader. An experiment with that buffer
/// (no autocorking) made the 376 B segment at 172 s and 656 s (656 s: 107 against the
/// kernel's 111 retransmissions, no RTO) but also where the kernel has none (19 s,
/// 250 s, UMTS 292 s), so it is not in the model. AT&T reno floors raised to what
/// 540f2ce (the head's retransmission in fast recovery restarts the RTO) gave: 656 s
/// lost its spurious RTO in both frto groups. 19 s still misses
/// completion (8.71 s): the next divergence is the receiver's ACK pairing from
/// 26064 on (the kernel quick-ACKs 21 segments, the model 17), because the kernel
/// offered a window above `TCP_WINDOW_CLAMP` for 5 ACKs (264984-276568 B) until the
/// emulator's reading thread set the clamp again, each growth step `quick |= 1`.
/// Then a linux host keeps its SACK marks over a timeout (`tcp_timeout_mark_lost`;
/// SACKed segments take no room in cwnd after it): T-Mobile LTE 212 s (reno, both
/// tcp_frto) lost completion (8.32 s and 9.95 s against 7.81 s; 7.99 s / 8.14 s
/// before) and T-Mobile LTE 58 s (bbr, tcp_frto 0) its RTO count (2 against 1). Each
/// already took a timeout the kernel does not, and each parts from the kernel's pcap
/// before it at the receiver's quick-ACK count (212 s: the kernel's 21st ACK, at
/// 0.416 s, acknowledges one segment, 31857, the model's two, 33305; 58 s: the 19th,
/// at 0.296 s, 26065 against 27513, the kernel offering 264984-270776 B above the
/// clamp), the divergence above: a downstream one revealed, those floors lowered by it.
/// Then F-RTO starts only from a state below Recovery or on a backed-off repeat
/// (`tcp_enter_loss`: `new_recovery || icsk_retransmits`): T-Mobile LTE cubic tcp_frto
/// 2 undos 9 -> 10, bbr tcp_frto 2 retransmissions 4 -> 5 and undos 7 -> 9; AT&T bbr
/// tcp_frto 2 at 34 s lost retransmissions (228 against the kernel's 96, 91 before):
/// the model's first RTO (4.16 s) falls in fast recovery, so it now goes back N, where
/// the kernel's (4.30 s) falls outside it; the run parts from the kernel's pcap first
/// at the receiver's quick-ACK count (the 19th ACK, 0.33 s: 26065 against 27513), the
/// divergence above, by which that floor is lowered.
/// Then every configuration recorded again with the emulator that keeps host timing
/// out (module docs): the first recordings' extra quick ACKs, late first data and
/// 376-byte write tails are gone from the kernel's side, so the floors are what the
/// profile meets on the new recordings (summed over the 18 groups, of 180: completion
/// 158 -> 156, retransmissions 124 -> 129, RTOs 166 -> 167, undos 164 -> 165; cells at
/// 9 of 10 or more 44 -> 47 of 72). The new misses' first diverging decision (AT&T reno
/// 172 s and 656 s, cubic 310 s, bbr 242 s): the receiver's 18th ACK, where the kernel
/// acknowledges a lone full-sized segment its sender marked PSH (`tcp_measure_rcv_mss`:
/// ICSK_ACK_PUSHED; the kernel's sender sends two-segment skbs, PSH on each).
/// Then the AT&T trace recorded a second time (recording 2, all 60 configurations,
/// the same emulator and machine, minutes later): the kernel against its own first
/// recording meets completion / retransmissions / RTOs / undos at 9/10/10/10 (reno
/// tcp_frto 2), 10/8/10/10 (reno 0), 10/8/10/10 (cubic 2), 10/7/10/10 (cubic 0),
/// 8/5/9/10 (bbr 2) and 9/6/10/10 (bbr 0) of 10 offsets: retransmitted segments within
/// 20 % at 5-8 of 10 in four groups (reno 0 at 518 s: 83 and 141; cubic 0 at 310 s: 16
/// and 53), so on this trace the kernel does not reproduce its own retransmission count
/// as closely as the goal asks of the model. With both recordings (an offset meets a
/// goal against at least one of its two), the AT&T floors are raised to what the
/// profile meets.
/// Then every configuration recorded a third time (recording 3) and AT&T a fourth
/// (recording 4) with the forwarder waiting for the receiving application's read
/// (module docs). The kernel's recordings 3 and 4 agree with each other better than
/// 1 and 2 did: on AT&T, completion / retransmissions / RTOs / undos at 9/10/10/10 (reno
/// tcp_frto 2 and 0), 10/9/10/10 (cubic 2 and 0), 10/7/9/8 (bbr 2) and 8/4/9/8 (bbr 0)
/// of 10 offsets; recording 3 against recording 1 over all 180: 175 / 155 / 175 / 174.
/// BBR on AT&T stays the kernel's least repeatable: at 586 s it gives 6.03 s / 140-147
/// retransmissions or 7.21-7.65 s / none (two and two of four; the model 7.53 s / none),
/// at 380 s 17.6-19.5 s with 0-10 retransmissions. With four recordings an AT&T offset
/// must meet a goal against two of them: AT&T bbr tcp_frto 2 lost completion at 380 s
/// and 586 s (10 -> 8), both bbr groups retransmissions at 586 s (6 -> 5), and reno
/// tcp_frto 0 retransmissions at 518 s (9 -> 8: the kernel 83 once, 141-145 three
/// times; the model 90); every other group met as many offsets as before or more, four
/// of them more (sums of 180: completion 159 ->
/// 161, retransmissions 137 -> 142, RTOs 167 -> 169, undos 165 -> 167; cells at 9 of 10
/// or more 49 -> 53 of 72; against recordings 3 and 4 alone 160 / 141 / 167 / 166 and 47).
/// Then the sender's two-segment skbs with PSH on the last (`tcp_min_tso_segs`, BBR's
/// `bbr_tso_segs_goal`), the receiver's ACK of a lone full-sized pushed segment
/// (`ICSK_ACK_PUSHED`), and the receiver's SACK compression (`linux_sack_compress`):
/// sums 161 -> 167, 142 -> 147, 169 -> 170, 167 -> 169; cells 53 -> 57 of 72. Offset-goals
/// won 34, lost 22. Lost, with what is known of their first diverging decision: T-Mobile
/// UMTS reno at 793 s (both tcp_frto: retransmissions, RTO, undo; the ACKs agree to
/// 1.363 s, then the kernel's path delivers segment 383721 and the model's does not,
/// and the model takes a spurious RTO) and at 42 s (retransmissions 74 against 100);
/// T-Mobile LTE bbr at 212 s (RTO and undo: the model times out once, the kernel not;
/// both frto) and at 173 s and 250 s (retransmissions, tcp_frto 2); T-Mobile LTE cubic
/// tcp_frto 0 at 327 s and UMTS cubic at 710 s (retransmissions, 60 against 76 and 6;
/// 2 against 10); AT&T reno tcp_frto 0 at 380 s (56 against 57-83), cubic tcp_frto 0
/// at 518 s (81 against 44-108), bbr tcp_frto 0 completion at 586 s (7.12 s against the
/// kernel's two values 6.03 and 7.65 s) and bbr tcp_frto 2 undos at 34 s; those after
/// the UMTS ones are not traced yet.
/// Then the receiver's ACK of a segment shorter than rcv_mss and the window rounded to
/// the scale's unit: sums 167 / 148 / 172 / 171, 57 cells. Then the skbs of reno and
/// cubic sized by the pacing rate (`tcp_tso_autosize`) and the TSO deferral
/// (`tcp_tso_should_defer`, also for BBR's paced skbs): 171 / 149 / 174 / 173, 58 cells;
/// seven groups' floors raised to what they meet, none lowered.
const FLOORS: &[(&str, &str, u8, [usize; 4])] = &[
    ("att-lte-drive", "reno", 2, [9, 7, 10, 10]),
    ("tmobile-lte-drive", "reno", 2, [8, 9, 9, 9]),
    ("tmobile-umts-drive", "reno", 2, [10, 8, 9, 9]),
    ("att-lte-drive", "reno", 0, [9, 7, 10, 10]),
    ("tmobile-lte-drive", "reno", 0, [8, 9, 9, 8]),
    ("tmobile-umts-drive", "reno", 0, [10, 8, 9, 9]),
    // AT&T 380 s and T-Mobile UMTS 793 s (cubic, tcp_frto 2) recorded again: their
    // first recordings started late against the trace (the emulator's sender
    // connected 8.6 ms after its clock started at 793 s, where every other cubic
    // recording took 0.4-4.3 ms; at 380 s the app wrote its first data 14.2 ms after
    // the handshake, elsewhere at most 11.7 ms), so its samples were 14 ms shorter and at
    // 380 s an RTO fired 6 ms before the first flight's ACK (TCPLossUndo). Started
    // on time (1.1 / 0.6 ms, 0.2 ms) they gave 16.26 s / 65 retransmissions / no RTO
    // (HyStart at 28, as the model) and 13.34 s / 23 (57 before; the model 21).
    // AT&T 656 s (both tcp_frto groups) meets RTOs and undos since a retransmission of
    // the head in fast recovery restarts the RTO (540f2ce): no RTO, as the kernel.
    ("att-lte-drive", "cubic", 2, [10, 8, 10, 10]),
    ("tmobile-lte-drive", "cubic", 2, [10, 10, 10, 10]),
    ("tmobile-umts-drive", "cubic", 2, [10, 7, 10, 10]),
    ("att-lte-drive", "cubic", 0, [10, 8, 10, 10]),
    ("tmobile-lte-drive", "cubic", 0, [10, 9, 10, 10]),
    ("tmobile-umts-drive", "cubic", 0, [10, 9, 10, 10]),
    ("att-lte-drive", "bbr", 2, [8, 7, 9, 9]),
    ("tmobile-lte-drive", "bbr", 2, [10, 8, 10, 10]),
    ("tmobile-umts-drive", "bbr", 2, [10, 10, 10, 10]),
    ("att-lte-drive", "bbr", 0, [9, 7, 9, 9]),
    ("tmobile-lte-drive", "bbr", 0, [10, 9, 10, 10]),
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
