//! The `linux` profile held against the real kernel, without root: the kernel's
//! per-seed results on the Table 1 freeze path ([Gurtov & Ludwig 2003] IV.A, ten freeze
//! schedules, configurations (a) timestamps + F-RTO, (b) F-RTO only, (c) neither)
//! were recorded by `scripts/record_kernel_linux.py` through `spikelab emulate` and
//! live in `tests/data/kernel-<uname -r>/table1-freezes.csv`. Each row is re-run here
//! in the simulator with `profile = "linux"` and the same sysctls and freezes. The
//! kernel's CUBIC is recorded for configuration (a) in `table1-freezes-cubic.csv`
//! and held against `tcp_congestion_control = "cubic"`.
//!
//! The issue's two other paths are recorded the same way (`record_kernel_linux.py
//! --path outages|trace`, the kernel's default sysctls, configuration "d"):
//! `outages-100mbit.csv` on `scenarios/linux-outages.toml` (100 Mbit/s, outages of
//! several seconds in both directions; each seed's schedule in the `freezes` column
//! replaces the scenario's `at` line) and `trace-outages.csv` on
//! `scenarios/linux-trace.toml` (the delivery trace `scenarios/traces/cell-outages.down`;
//! each seed's offset into the trace in the `start_s` column replaces the flow's
//! `start` line).
//!
//! The kernel's BBR is recorded on the outage path (`--path outages --cc bbr`, on a
//! later build of the same 6.18.44 release) in `kernel-6.18.44-fc-v1272/
//! outages-100mbit-bbr.csv` and held against `tcp_congestion_control = "bbr"`.
//!
//! The issue's goals per seed: completion within 5 %, retransmitted segments within
//! 20 %, RTO count equal in >= 90 % of the runs, undo events equal. The profile does
//! not meet them all yet (see
//! docs/src/validation-linux.md): `the_linux_profile_meets_the_kernel_goals` is
//! ignored until it does, and the default test holds the agreement measured so far so
//! that a change cannot lose it unnoticed.

use spikelab_engine::FlowResult;
use std::path::PathBuf;

const KERNEL: &str = "6.18.44-fc-v445";
/// The same kernel release in a later build, on which BBR was recorded.
const KERNEL_BBR: &str = "6.18.44-fc-v1272";

/// Which validation path a recording is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValidationPath {
    /// [Gurtov & Ludwig 2003]'s Table 1 path with freezes (scripts/validate_kernel.py).
    Table1,
    /// `scenarios/linux-outages.toml` with the recorded outage schedule.
    Outages,
    /// `scenarios/linux-trace.toml` started at the recorded offset into the trace.
    Trace,
    /// [Gurtov & Ludwig 2003]'s congested path (Tables 2-4):
    /// `scenarios/eifel-response-cbr.toml` with its TCP flow a `linux` host, run at the
    /// recorded seed (the experiment's grid `linux-table2`).
    Table2,
}

/// One recorded kernel run.
#[derive(Clone, Debug)]
struct KernelRun {
    path: ValidationPath,
    config: char,
    seed: u64,
    /// (start, duration) seconds: freezes (Table 1) or outages.
    freezes: Vec<(f64, f64)>,
    /// The flow's start, seconds (the offset into the delivery trace).
    start_s: f64,
    completion_s: f64,
    retransmissions: u64,
    timeouts: u64,
    /// `TCPLossUndo` + `TCPDSACKUndo` (`TCPSpuriousRTOs` is counted in `TCPLossUndo`).
    undos: u64,
    /// Expiries the emulator's ground truth found spurious (the segment or its ACK was
    /// still in the network).
    spurious_timeouts: u64,
    /// `tcp_congestion_control`: the module the kernel ran.
    cc: &'static str,
}

/// The runs recorded with reno (`table1-freezes.csv`).
fn kernel_runs() -> Vec<KernelRun> {
    kernel_runs_from("table1-freezes.csv", "reno", ValidationPath::Table1)
}

/// The runs recorded with CUBIC, configuration (a) (`record_kernel_linux.py --configs a
/// --cc cubic`).
fn cubic_runs() -> Vec<KernelRun> {
    kernel_runs_from("table1-freezes-cubic.csv", "cubic", ValidationPath::Table1)
}

/// The runs on the 100 Mbit/s outage path (`record_kernel_linux.py --path outages`).
fn outage_runs() -> Vec<KernelRun> {
    kernel_runs_from("outages-100mbit.csv", "reno", ValidationPath::Outages)
}

/// The kernel's BBR on the outage path (`record_kernel_linux.py --path outages --cc bbr`).
fn bbr_outage_runs() -> Vec<KernelRun> {
    let file = "outages-100mbit-bbr.csv";
    kernel_runs_in(KERNEL_BBR, file, "bbr", ValidationPath::Outages)
}

/// The kernel's BBR on the Table 1 path, configurations (a), (b) and (c)
/// (`record_kernel_linux.py --configs abc --cc bbr`, the same ten freeze schedules).
fn bbr_table1_runs() -> Vec<KernelRun> {
    let file = "table1-freezes-bbr.csv";
    kernel_runs_in(KERNEL_BBR, file, "bbr", ValidationPath::Table1)
}

/// The same, recorded a second time (6 Dec) with the emulator that writes the next
/// packet only once the receiving application has read the previous one (5dd5be1).
fn bbr_table1_runs_2() -> Vec<KernelRun> {
    let file = "table1-freezes-bbr-run2.csv";
    kernel_runs_in(KERNEL_BBR, file, "bbr", ValidationPath::Table1)
}

/// The congested Table 2 path with the kernel's `cc` (`record_kernel_linux.py --path
/// table2 --cc <cc>`).
fn table2_runs(cc: &'static str) -> Vec<KernelRun> {
    let file = format!("table2-cbr-{cc}.csv");
    kernel_runs_in(KERNEL_BBR, &file, cc, ValidationPath::Table2)
}

/// The same, recorded a second time (6 Dec) with the emulator that writes the next
/// packet only once the receiving application has read the previous one (5dd5be1).
fn table2_runs_2(cc: &'static str) -> Vec<KernelRun> {
    let file = format!("table2-cbr-{cc}-run2.csv");
    kernel_runs_in(KERNEL_BBR, &file, cc, ValidationPath::Table2)
}

/// The runs over the delivery trace (`record_kernel_linux.py --path trace`).
fn trace_runs() -> Vec<KernelRun> {
    kernel_runs_from("trace-outages.csv", "reno", ValidationPath::Trace)
}

/// The same two paths recorded a second time, the same way, minutes later: how much
/// the kernel differs from itself on the same schedule.
fn outage_runs_2() -> Vec<KernelRun> {
    kernel_runs_from("outages-100mbit-run2.csv", "reno", ValidationPath::Outages)
}

fn trace_runs_2() -> Vec<KernelRun> {
    kernel_runs_from("trace-outages-run2.csv", "reno", ValidationPath::Trace)
}

fn kernel_runs_from(file: &str, cc: &'static str, path_kind: ValidationPath) -> Vec<KernelRun> {
    kernel_runs_in(KERNEL, file, cc, path_kind)
}

/// The runs of `file`, recorded on kernel `kernel` (its `uname -r`).
fn kernel_runs_in(
    kernel: &str,
    file: &str,
    cc: &'static str,
    path_kind: ValidationPath,
) -> Vec<KernelRun> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/data/kernel-{kernel}/{file}"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |name: &str| f[col(name)].parse::<f64>().unwrap();
            assert_eq!(f[col("kernel")], kernel);
            KernelRun {
                path: path_kind,
                config: f[col("config")].chars().next().unwrap(),
                // Table 2's seeds are the experiment's 64-bit repetition seeds.
                seed: f[col("seed")].parse().unwrap(),
                // Absent from the Table 1 recordings, made before the column existed.
                start_s: header
                    .iter()
                    .position(|h| *h == "start_s")
                    .map_or(0.0, |i| f[i].parse().unwrap()),
                freezes: f[col("freezes")]
                    .split(' ')
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        let (s, d) = p.split_once('/').unwrap();
                        (s.parse().unwrap(), d.parse().unwrap())
                    })
                    .collect(),
                completion_s: num("completion_s"),
                retransmissions: num("retransmissions") as u64,
                timeouts: num("timeouts") as u64,
                undos: (num("TCPLossUndo") + num("TCPDSACKUndo")) as u64,
                spurious_timeouts: num("spurious_timeouts") as u64,
                cc,
            }
        })
        .collect()
}

/// The window the kernel's receiver advertised, read from the emulator's receiver-side
/// pcaps (`tshark -T fields -e tcp.window_size` on the ACKs). The emulator holds
/// `TCP_WINDOW_CLAMP` = 150000 (the scenario's `receiver_window`) on the accepted
/// socket; the kernel advertised 152000 B and 151000 B on its first two ACKs and
/// 150000 B on every later one (`receiver-window.csv`: the no-freeze run and (a) seed 1
/// of the reno recording, their first and largest windows; `kernel-6.18.44-fc-v1272/
/// table1-bbr-receiver-window.csv`: all ten BBR runs, every ACK after the second at
/// 150000 B). The simulated receiver is given that window. (It was given the largest,
/// 152000 B, until the BBR recording: BBR fills the receive window before a freeze,
/// and the two segments more in flight were two more lost in the frozen queue, enough
/// to leave 5 lost segments against PROBE_RTT's cwnd of 4 after seed 2's freeze and
/// stall it until a loss probe 2 x srtt (30 s) later. Reno and CUBIC kept every
/// floor at 150000 B.) (Before the emulator held the clamp, Linux widened it from the
/// receive buffer and advertised 262140 B from 1.34 s on.) Given the 150000 B clamp,
/// the model offers 152000 B and 151000 B on its first two ACKs too: the clamp
/// `tcp_measure_rcv_mss` puts in place stays for the first segment's growth and ACK
/// (crates/tcp/src/linux_rcvbuf.rs).
/// The emulator's `SO_RCVBUF` on the kernel's receiver (4 x the 150000 B
/// `receiver_window`, crates/emulate): a locked buffer of 1.2 MB, so the kernel
/// offered the clamp from its first ACK and never autotuned.
const EMULATOR_SO_RCVBUF: u64 = 600_000;

fn kernel_receiver_window() -> u64 {
    let read = |kernel: &str, file: &str| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/data/kernel-{kernel}/{file}"));
        std::fs::read_to_string(&path).unwrap()
    };
    // The first and largest windows of the reno recording: 152000 B, the first ACK's.
    let text = read(KERNEL, "receiver-window.csv");
    let largest: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    assert!(largest.iter().all(|w| *w == 152_000), "{largest:?}");
    // Every ACK after the second: one window in every BBR run.
    let text = read(KERNEL_BBR, "table1-bbr-receiver-window.csv");
    let later: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<u64> = l.split(',').skip(1).map(|v| v.parse().unwrap()).collect();
            let (acks, window, at_it) = (f[0], f[3], f[4]);
            assert_eq!(at_it, acks - 2, "{l}: every ACK after the second");
            window
        })
        .collect();
    assert_eq!(later.len(), 10);
    assert!(later.windows(2).all(|w| w[0] == w[1]), "{later:?}");
    later[0]
}

/// The sysctls of each configuration (scripts/validate_kernel.py).
fn sysctls(config: char) -> &'static str {
    match config {
        'a' => "tcp_timestamps = 1, tcp_frto = 2",
        'b' => "tcp_timestamps = 0, tcp_frto = 2",
        _ => "tcp_timestamps = 0, tcp_frto = 0",
    }
}

/// The scenario file of a recorded run on the outage or trace path, with the
/// recording's one line replaced as `record_kernel_linux.py` replaced it.
fn scenario_from_file(k: &KernelRun) -> (String, PathBuf) {
    let (file, prefix, line) = match k.path {
        ValidationPath::Outages => {
            let at: Vec<String> = k
                .freezes
                .iter()
                .map(|(s, d)| format!("{{ start = \"{s}s\", duration = \"{d}s\" }}"))
                .collect();
            (
                "linux-outages.toml",
                "at = [",
                format!("at = [{}]", at.join(", ")),
            )
        }
        _ => (
            "linux-trace.toml",
            "start = ",
            format!("start = \"{}s\"", k.start_s),
        ),
    };
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(file);
    let mut text = std::fs::read_to_string(&path).unwrap();
    if k.cc != "reno" {
        // The scenario's host runs reno; the recording ran `--cc <module>`.
        let buf = "so_rcvbuf = 16000000 }";
        assert_eq!(text.matches(buf).count(), 1, "{file}: one {buf:?}");
        let module = format!(
            "so_rcvbuf = 16000000, tcp_congestion_control = \"{}\" }}",
            k.cc
        );
        text = text.replace(buf, &module);
    }
    let hits = text.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(hits, 1, "{file}: one line starting with {prefix:?}");
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with(prefix) {
                line.clone()
            } else {
                l.to_owned()
            }
        })
        .collect();
    (out.join("\n"), path)
}

/// `scenarios/eifel-response-cbr.toml` with its TCP flow a `linux` host running `k.cc`,
/// as `record_kernel_linux.py --path table2` (and the experiment's grid `linux-table2`)
/// writes it.
fn scenario_table2(k: &KernelRun) -> (String, PathBuf) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/eifel-response-cbr.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (profile, tcp) = (
        "profile = \"ns2-2002\"",
        "tcp = { timestamps = true, mss = 1000, receiver_window = 150000, recovery = \"reno-sack\"",
    );
    assert_eq!(text.matches(profile).count(), 1);
    assert_eq!(text.matches(&format!("{tcp} }}")).count(), 1);
    let text = text.replace(profile, "profile = \"linux\"").replace(
        &format!("{tcp} }}"),
        &format!(
            "{tcp}, linux = {{ tcp_congestion_control = \"{}\", so_rcvbuf = {EMULATOR_SO_RCVBUF} }} }}",
            k.cc
        ),
    );
    (text, path)
}

/// The scenario `scripts/validate_kernel.py` writes, with the `linux` profile.
fn scenario(k: &KernelRun) -> String {
    let at: Vec<String> = k
        .freezes
        .iter()
        .map(|(s, d)| format!("{{ start = \"{s}s\", duration = \"{d}s\" }}"))
        .collect();
    format!(
        r#"[run]
name = "linux-{c}-{seed}"
seed = {seed}
stop = "300s"

[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "100Mbit/s", latency = "1ms" }}

[topology.bottleneck]
rate = "2Mbit/s"
latency = "150ms"
queue = {{ kind = "drop-tail", limit = {{ packets = 74 }} }}

[[topology.bottleneck.spikes]]
kind = "outage"
dirs = "both"
at = [{at}]

[[flow]]
name = "tcp"
route = "pair"
profile = "linux"
tcp = {{ mss = 1000, receiver_window = {rwnd}, linux = {{ {sys}, tcp_congestion_control = "{cc}", so_rcvbuf = {rcvbuf} }} }}
workload = {{ kind = "bulk", bytes = "5MB" }}
"#,
        c = k.config,
        seed = k.seed,
        at = at.join(", "),
        sys = sysctls(k.config),
        cc = k.cc,
        rwnd = kernel_receiver_window(),
        rcvbuf = EMULATOR_SO_RCVBUF,
    )
}

fn simulate(k: &KernelRun) -> FlowResult {
    let (text, file) = match k.path {
        ValidationPath::Table1 => (scenario(k), PathBuf::from("linux.toml")),
        ValidationPath::Table2 => scenario_table2(k),
        _ => scenario_from_file(k),
    };
    let s = spikelab_scenario::parse(&text, &file.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    // Table 1: the freeze seed is the run's seed (validate_kernel.py); Table 2 ran
    // `emulate --seed`; the other paths ran the scenario's own seed (without --seed).
    let seed = match k.path {
        ValidationPath::Table1 | ValidationPath::Table2 => k.seed,
        _ => s.run().seed,
    };
    let r = spikelab_engine::run(&s.to_sim(), seed).unwrap();
    r.flows.into_iter().next().unwrap()
}

/// Which goals one seed meets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Met {
    completion: bool,
    retransmissions: bool,
    timeouts: bool,
    undos: bool,
}

fn compare(k: &KernelRun, f: &FlowResult) -> Met {
    let done = f.download_time().unwrap_or(f64::INFINITY);
    // The kernel's TCPLossUndo + TCPDSACKUndo, counted by the simulation under the
    // same names.
    let undos = f.undos.loss_and_dsack_undos();
    goals(k, done, f.retransmissions, f.timeouts, undos)
}

/// The issue's goals for one seed: `k` the kernel's run, the rest the other side's.
fn goals(k: &KernelRun, done: f64, retransmissions: u64, timeouts: u64, undos: u64) -> Met {
    let within = |sim: f64, kern: f64, tol: f64| (sim - kern).abs() <= tol * kern;
    Met {
        completion: within(done, k.completion_s, 0.05),
        retransmissions: within(retransmissions as f64, k.retransmissions as f64, 0.20),
        timeouts: timeouts == k.timeouts,
        undos: undos == k.undos,
    }
}

/// Runs every recorded seed; prints the per-seed table of docs/src/validation-linux.md.
fn run_all() -> Vec<Met> {
    run_these(&kernel_runs())
}

fn run_these(runs: &[KernelRun]) -> Vec<Met> {
    println!("| config | seed | sim s | kernel s | diff | sim retx | kernel retx | sim RTOs | kernel RTOs | sim undos | kernel undos | goals missed |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    runs.iter()
        .map(|k| {
            let f = simulate(k);
            let done = f.download_time().unwrap_or(f64::NAN);
            let met = compare(k, &f);
            let missed: Vec<&str> = [
                (met.completion, "time"),
                (met.retransmissions, "retx"),
                (met.timeouts, "RTOs"),
                (met.undos, "undos"),
            ]
            .iter()
            .filter(|(ok, _)| !ok)
            .map(|(_, name)| *name)
            .collect();
            println!(
                "| ({}) | {} | {:.1} | {:.1} | {:+.1} % | {} | {} | {} | {} | {} | {} | {} |",
                k.config,
                k.seed,
                done,
                k.completion_s,
                100.0 * (done - k.completion_s) / k.completion_s,
                f.retransmissions,
                k.retransmissions,
                f.timeouts,
                k.timeouts,
                f.undos.loss_and_dsack_undos(),
                k.undos,
                if missed.is_empty() {
                    "-".to_owned()
                } else {
                    missed.join(", ")
                },
            );
            met
        })
        .collect()
}

fn count(m: &[Met], goal: impl Fn(&Met) -> bool) -> usize {
    m.iter().filter(|x| goal(x)).count()
}

#[test]
fn the_recorded_kernel_data_covers_three_configurations_of_ten_seeds() {
    let runs = kernel_runs();
    assert_eq!(runs.len(), 30);
    for c in ['a', 'b', 'c'] {
        assert_eq!(runs.iter().filter(|r| r.config == c).count(), 10);
    }
}

#[test]
fn the_linux_profile_meets_the_kernel_goals() {
    let m = run_all();
    let n = m.len();
    assert_eq!(count(&m, |x| x.completion), n, "completion within 5 %");
    assert_eq!(
        count(&m, |x| x.retransmissions),
        n,
        "retransmissions within 20 %"
    );
    assert!(
        count(&m, |x| x.timeouts) * 10 >= n * 9,
        "RTO count equal in 90 %"
    );
    assert_eq!(count(&m, |x| x.undos), n, "undo events equal");
}

/// The agreement measured when the data was recorded (docs/src/validation-linux.md),
/// as floors: seeds of 30 meeting each goal. Raise them as mechanisms land. (Re-recorded
/// after the emulator held the receive window: completion 27 -> 29, RTO counts
/// 27 -> 28, undo events 29 -> 28. RACK and TLP loss detection: RTO counts 28 -> 30,
/// retransmissions 27 -> 28, completion 29 -> 27: seed 1 of (a) and (b) now repairs
/// the slow-start losses after its first freeze by RACK as the kernel does, with the
/// kernel's retransmission count within 20 %, but finishes 7-9 % early. The Linux
/// receiver's quick-ACK mode at the start: RTO counts 30 -> 28, seed 3 of (b) and
/// (c) takes one RTO more in its first freeze, as it did before RACK. Fast-recovery
/// undo: undo events 28 -> 29, seed 1 of (c) re-initialises its undo marker when RACK
/// recovery takes over from the Loss state, so its timeout is no longer undone; it
/// undoes that fast recovery by D-SACK instead, which the kernel did not and which
/// `spurious_responses` does not count. A timeout in fast recovery keeping the
/// recovery's ssthresh, prior values and undo marker (`tcp_enter_loss`): completion
/// 27 -> 28, seed 1 of (c) meets every goal, seed 1 of (a) now misses the
/// retransmission goal (177 against 123). cwnd grown only while cwnd-limited
/// (`tcp_is_cwnd_limited`): completion 28 -> 29; and by the segments an ACK delivered
/// (`acked_sacked`): completion 29 -> 30, retransmissions 28 -> 30, seed 1 of (a) and
/// (b) keep the kernel's ssthresh after the freeze (150/75/37 segments, measured with
/// `spikelab emulate --tcp-info`). Every ACK dubious in the Disorder state
/// (`tcp_ack_is_dubious`): no count moved; (b) seed 1 now makes the kernel's spurious
/// RACK retransmission at 16.24 s and its D-SACK undo, a recovery undo the compared
/// count leaves out. The sender's timers fired by the kernel's timer wheel (HZ 250,
/// expiries rounded up to the wheel level's bucket): RTO counts 28 -> 29, seed 3 of
/// (b) and (c) no longer time out a fourth time 10 ms before the freeze ends; seed 3
/// of (a), whose kernel did, now does not. A lost retransmission after a timeout
/// only if resent since it (`FLAG_LOST_RETRANS`): undo events 29 -> 30, seed 1 of
/// (c) stays in the Loss state as the kernel does, with no fast recovery to undo.
/// Every goal is now met: `the_linux_profile_meets_the_kernel_goals` runs by default.
/// The receive window at the 150000 B the kernel offered after its second ACK instead
/// of the first ACK's 152000 B: no count moved.)
const FLOOR: Met4 = Met4 {
    completion: 30,
    retransmissions: 30,
    timeouts: 29,
    undos: 30,
};

#[derive(Debug)]
struct Met4 {
    completion: usize,
    retransmissions: usize,
    timeouts: usize,
    undos: usize,
}

#[test]
fn the_linux_profile_keeps_its_measured_agreement_with_the_kernel() {
    holds_floor(&run_all(), &FLOOR);
}

/// Seeds meeting each goal, checked against `floor`.
fn holds_floor(m: &[Met], floor: &Met4) {
    let got = Met4 {
        completion: count(m, |x| x.completion),
        retransmissions: count(m, |x| x.retransmissions),
        timeouts: count(m, |x| x.timeouts),
        undos: count(m, |x| x.undos),
    };
    println!("seeds meeting each goal: {got:?}");
    assert!(got.completion >= floor.completion, "{got:?}");
    assert!(got.retransmissions >= floor.retransmissions, "{got:?}");
    assert!(got.timeouts >= floor.timeouts, "{got:?}");
    assert!(got.undos >= floor.undos, "{got:?}");
}

#[test]
fn the_cubic_recording_covers_configuration_a_of_ten_seeds() {
    let runs = cubic_runs();
    assert_eq!(runs.len(), 10);
    assert!(runs.iter().all(|r| r.config == 'a'));
}

/// `tcp_congestion_control = "cubic"` against the kernel's CUBIC on configuration (a)
/// (recorded with `record_kernel_linux.py --configs a --cc cubic`), as floors: seeds
/// of 10 meeting each goal when it was recorded (retransmissions 9 -> 10 with the
/// window grown only while cwnd-limited). Completion 10 -> 9 with the two-segment skbs
/// and the receiver's ACK of a lone pushed segment (h-psh7, merged with the SACK
/// compression): seed 10 takes 34.0 s against the kernel's 31.6 s. Its first diverging
/// decision is a lone segment the model sends where the kernel's `tcp_tso_should_defer`
/// holds it for the next ACK: with that deferral modelled (`tso_defer`, with the skbs
/// sized by the pacing rate) the seed meets completion again (31.6 s, as the kernel).
const FLOOR_CUBIC: Met4 = Met4 {
    completion: 10,
    retransmissions: 10,
    timeouts: 10,
    undos: 10,
};

#[test]
fn the_cubic_linux_profile_keeps_its_measured_agreement_with_the_kernel() {
    holds_floor(&run_these(&cubic_runs()), &FLOOR_CUBIC);
}

#[test]
fn the_outage_and_trace_recordings_cover_ten_seeds_each() {
    for (runs, what) in [(outage_runs(), "outages"), (trace_runs(), "trace")] {
        assert_eq!(runs.len(), 10, "{what}");
        assert!(runs.iter().all(|r| r.config == 'd'), "{what}");
    }
    // Every outage seed has its own schedule; every trace seed its own offset.
    let o = outage_runs();
    assert!(o.windows(2).all(|w| w[0].freezes != w[1].freezes));
    assert!(o
        .iter()
        .all(|r| r.freezes.iter().all(|(_, d)| (2.0..=6.0).contains(d))));
    let t = trace_runs();
    assert!(t.windows(2).all(|w| w[0].start_s < w[1].start_s));
}

/// The 100 Mbit/s outage path (`scenarios/linux-outages.toml`, ten outage schedules),
/// as floors: seeds of 10 meeting each goal when it was recorded. RTOs and undos
/// 10 -> 9 when the receiver ACKs a segment shorter than rcv_mss at once (issue 41):
/// seed 9's model sends its last segment (672 B, PSH) at 17.549 s, before the outage at
/// 17.61 s; its ACK used to wait 40 ms and fall into the outage, so tail probes and
/// four backed-off RTOs matched the kernel's 11 RTOs by chance. The kernel is still
/// sending then (its last segment leaves at 23.08 s, a third recording with pcaps
/// shows) and meets the outage mid-transfer; the model's first diverging decision from
/// it is at 0.21 s, a three-segment skb (`tcp_tso_autosize`, not modelled then).
/// Back to 10 with the skbs sized by the pacing rate (`tso_autosize`) and the TSO
/// deferral (`tso_defer`): the model's skbs of 2 to 6 segments, as the kernel's pcaps
/// show, slow it as the kernel is slowed; seed 9 meets the outage mid-transfer with
/// 11 RTOs (21.7 s against 23.4 s, 96 retransmissions against 138); every other seed's
/// retransmissions within 2 of the kernel's (4 below before).
const FLOOR_OUTAGES: Met4 = Met4 {
    completion: 9,
    retransmissions: 9,
    timeouts: 10,
    undos: 10,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_outage_path() {
    holds_floor(&run_these(&outage_runs()), &FLOOR_OUTAGES);
}

/// The replayed delivery trace (`scenarios/linux-trace.toml`, ten start offsets), as
/// floors: seeds of 10 meeting each goal. 9/8/10/10 when it was recorded; every seed
/// meets every goal since the linux-stack rules of issues 41 and 43 merged at one stop
/// (the window-edge cut, CUBIC's ca_rtt_us, the RTO restart at a head retransmission,
/// SACK marks kept at a timeout, F-RTO's start condition), measured together.
/// Retransmissions 8 with the TSO deferral (`tso_defer`) and skbs sized by the pacing
/// rate (`tso_autosize`): seeds 6 and 7 (104 and 104 against 75 and 74). Against a
/// third recording with pcaps (kernel 74, 75) the deferral moves every seed's first
/// diverging decision later or leaves it (data segments agreed, seeds 1-10: 920, 350,
/// 350, 1158, 427, 350, 458, 532, 498, 238; 350 each but seed 9 before); seed 6 then
/// parts at the receiver's ACK 164 (the kernel's compressed SACK leaves 3 ms after the
/// segment, the model's at its 1.1 ms; `tcp_sack_compress`'s soft hrtimer, late in the
/// emulator), seed 7 at segment 533 (on ACK 435848 the kernel retransmits the 56-byte
/// window-edge cut as lost by RACK, reo_wnd 0 in recovery; the model sends new data and
/// the cut 138 ms later: not traced yet).
const FLOOR_TRACE: Met4 = Met4 {
    completion: 10,
    retransmissions: 8,
    timeouts: 10,
    undos: 10,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_delivery_trace() {
    holds_floor(&run_these(&trace_runs()), &FLOOR_TRACE);
}

/// The simulator against the second recording of each path, as floors (the outage
/// path's RTOs and undos 10 -> 9 -> 10: seed 9, as in `FLOOR_OUTAGES`).
const FLOOR_OUTAGES_2: Met4 = Met4 {
    completion: 9,
    retransmissions: 7,
    timeouts: 10,
    undos: 10,
};
/// The trace's retransmissions: 9 until the handshake's third segment was modelled
/// (issue 41, the real-path recordings' UMTS offsets: a pure ACK that takes a trace
/// delivery opportunity), then 8: seeds 2 (175 against the kernel's 113) and 10 (80
/// against 130) miss the 20 % band; completion, RTOs and undos stay met. Then 10/9/10/10
/// with the same stop's linux-stack rules as `FLOOR_TRACE`. Then 7: seeds 6 and 7 as in
/// `FLOOR_TRACE`.
const FLOOR_TRACE_2: Met4 = Met4 {
    completion: 10,
    retransmissions: 7,
    timeouts: 10,
    undos: 10,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_with_the_second_recordings() {
    holds_floor(&run_these(&outage_runs_2()), &FLOOR_OUTAGES_2);
    holds_floor(&run_these(&trace_runs_2()), &FLOOR_TRACE_2);
}

/// The kernel against itself: the second recording held to the issue's goals with the
/// first as reference. Prints the per-seed retransmission counts of both
/// (docs/src/validation-linux.md) and checks that both recordings ran the same
/// schedules.
#[test]
fn the_kernel_against_its_own_second_recording() {
    for (first, second, what) in [
        (outage_runs(), outage_runs_2(), "outages"),
        (trace_runs(), trace_runs_2(), "trace"),
        (bbr_table1_runs(), bbr_table1_runs_2(), "bbr table1"),
        (table2_runs("bbr"), table2_runs_2("bbr"), "bbr table2"),
        (table2_runs("reno"), table2_runs_2("reno"), "reno table2"),
        (table2_runs("cubic"), table2_runs_2("cubic"), "cubic table2"),
    ] {
        assert_eq!(first.len(), second.len(), "{what}");
        let m: Vec<Met> = first
            .iter()
            .zip(&second)
            .map(|(a, b)| {
                assert_eq!(
                    (a.seed, &a.freezes, a.start_s),
                    (b.seed, &b.freezes, b.start_s)
                );
                println!(
                    "{what} {} seed {}: {:.2} s / {:.2} s, retx {} / {}, RTOs {} / {}, undos {} / {}",
                    a.config,
                    a.seed,
                    a.completion_s,
                    b.completion_s,
                    a.retransmissions,
                    b.retransmissions,
                    a.timeouts,
                    b.timeouts,
                    a.undos,
                    b.undos
                );
                goals(a, b.completion_s, b.retransmissions, b.timeouts, b.undos)
            })
            .collect();
        let got = [
            count(&m, |x| x.completion),
            count(&m, |x| x.retransmissions),
            count(&m, |x| x.timeouts),
            count(&m, |x| x.undos),
        ];
        println!(
            "{what}: the kernel's second run meets the goals against its first in {got:?} of {}",
            m.len()
        );
    }
}

/// `tcp_congestion_control = "bbr"` against the kernel's BBR on the outage path
/// (`record_kernel_linux.py --path outages --cc bbr`, the same ten outage schedules),
/// as floors: seeds of 10 meeting each goal when it was recorded.
/// Recorded on 6.18.44 (build v1272): seed 5 misses completion (12.1 s against 10.3 s),
/// seed 6 retransmissions (2700 against 2191). Since a linux host keeps its SACK marks
/// over a timeout (`tcp_timeout_mark_lost`) all ten meet every goal: seed 5 10.6 s
/// against 10.3 s (12.1 s before), seed 6 2367 retransmissions against 2191 (2619).
/// Completion and RTOs 9 with the TSO deferral (`tso_defer`, asked by the paced BBR
/// sender too): seed 9 takes 14.6 s and 7 RTOs against the kernel's 8.9 s and 3. Its
/// first diverging decision from a third recording with pcaps is unchanged by the
/// deferral: at 0.27 s the kernel's skbs of BBR's paced flow fall one segment later
/// (the kernel's sends lag the model's by 2.9 ms there), after 271 data segments.
const FLOOR_BBR_OUTAGES: Met4 = Met4 {
    completion: 9,
    retransmissions: 10,
    timeouts: 9,
    undos: 10,
};

#[test]
fn the_bbr_recording_covers_the_outage_paths_ten_schedules() {
    let (bbr, reno) = (bbr_outage_runs(), outage_runs());
    assert_eq!(bbr.len(), 10);
    assert!(bbr.iter().zip(&reno).all(|(b, r)| b.freezes == r.freezes));
}

#[test]
fn the_bbr_linux_profile_keeps_its_measured_agreement_on_the_outage_path() {
    holds_floor(&run_these(&bbr_outage_runs()), &FLOOR_BBR_OUTAGES);
}

#[test]
fn the_bbr_recording_covers_the_table1_paths_ten_schedules_in_three_configurations() {
    let (bbr, reno) = (bbr_table1_runs(), kernel_runs());
    assert_eq!(bbr.len(), 30);
    assert!(bbr
        .iter()
        .zip(&reno)
        .all(|(b, r)| (b.config, b.seed, &b.freezes) == (r.config, r.seed, &r.freezes)));
}

/// `tcp_congestion_control = "bbr"` against the kernel's BBR on the Table 1 path,
/// configurations (a), (b) and (c) (`record_kernel_linux.py --configs abc --cc bbr`,
/// the ten freeze schedules of the reno and CUBIC recordings), as floors: seeds of 30
/// meeting each goal when it was recorded (the receive window at the 150000 B the
/// kernel offered; at 152000 B, 3 of the 10 seeds of (a) met completion). Seed 5 of
/// (a) misses completion, RTOs and undos and seed 8 of (b) completion: the kernel
/// stalls after a freeze (77.4 s and 72.3 s) where the model goes on; seed 1 of (c)
/// retransmits 61 segments against the kernel's 174. The first diverging decisions
/// are in docs/src/validation-linux.md. (c) seed 1 meets retransmissions (174 against
/// 174) since a linux host keeps its SACK marks over a timeout and resends only the
/// holes, each as the delayed flight's SACKs reveal it (`tcp_timeout_mark_lost`).
/// Recorded again (all 30 runs) once the emulator held the receiver's clamp right
/// after the delivery that made the kernel replace it (4678838; the applications'
/// threads SCHED_FIFO): the kernel's (a) seed 5 and (b) seed 8 now take 37.2 s and
/// 39.0 s (77.4 s and 72.3 s in the first recording, whose reading thread let the
/// wider clamp act on more segments: one more quick ACK, the first diverging decision
/// named before), as the model does; every seed meets every goal.
/// 30/30/30/30 -> 29/29/28/29: (a) seed 3 with the receiver's SACK compression
/// (`linux_sack_compress`) takes 65.6 s, 41 retransmissions, 6 RTOs and 2 undos against
/// this recording's 34.2 s, 33, 3 and 1, and meets the second recording's 66.0 s, 42, 6
/// and 2 (below): its first diverging decision is the fourth duplicate ACK of the first
/// recovery held 1.1 ms (2.2476 s), as the kernel's receiver in the second recording's
/// pcap holds it (2.2534 -> 2.2545 s). (c) seed 1's fourth RTO (three in the kernel)
/// came with the PSH ACK rule (h-psh7), before the compression.
const FLOOR_BBR_TABLE1: Met4 = Met4 {
    completion: 29,
    retransmissions: 29,
    timeouts: 28,
    undos: 29,
};

#[test]
fn the_bbr_linux_profile_keeps_its_measured_agreement_on_the_table1_path() {
    holds_floor(&run_these(&bbr_table1_runs()), &FLOOR_BBR_TABLE1);
}

/// The model against BBR's second Table 1 recording (`bbr_table1_runs_2`), as floors.
/// Two seeds part from it, both where the kernel's own two recordings part: (b) seed 8
/// stalls after a freeze in this recording (72.3 s, as (a) seed 8 does in kernel and
/// model alike, and as (b) seed 8 did in BBR's very first recording) where the model
/// and the first recording finish at 39.0 s; (a) seed 3 takes 66.0 s and six RTOs
/// (34.2 s and three in the first recording, as the model without SACK compression;
/// with it the model takes 65.6 s and six and meets this recording: 29/30/29/30).
const FLOOR_BBR_TABLE1_2: Met4 = Met4 {
    completion: 29,
    retransmissions: 30,
    timeouts: 29,
    undos: 30,
};

#[test]
fn the_bbr_linux_profile_keeps_its_measured_agreement_with_the_second_table1_recording() {
    holds_floor(&run_these(&bbr_table1_runs_2()), &FLOOR_BBR_TABLE1_2);
}

#[test]
fn the_table2_recordings_cover_the_same_six_seeds_with_bbr_reno_and_cubic() {
    let (bbr, reno, cubic) = (
        table2_runs("bbr"),
        table2_runs("reno"),
        table2_runs("cubic"),
    );
    assert_eq!(bbr.len(), 6);
    for other in [&reno, &cubic] {
        let seeds = |r: &[KernelRun]| r.iter().map(|k| k.seed).collect::<Vec<_>>();
        assert_eq!(seeds(&bbr), seeds(other));
    }
    assert!(bbr.iter().all(|r| r.config == 'd' && r.freezes.is_empty()));
}

/// BBR, Reno and CUBIC against the kernel's on the congested Table 2 path (the TCP
/// flow beside a 1 Mbit/s CBR flow, `record_kernel_linux.py --path table2`), as floors:
/// seeds of 6 meeting each goal when it was recorded. Reno meets completion, RTOs and
/// undos on all six; CUBIC completion and undos on six, retransmissions and RTOs on
/// five (retransmissions on none, the model 218 against the kernel's 148 on average,
/// before the linux stack's new-recovery rule of issue 41, f1ef13a; 170 since, and
/// 149 since CUBIC hears the kernel's `ca_rtt_us`, the RTT of the newest segment an
/// ACK acknowledges or newly SACKs, where it heard the oldest one's: completion 5 -> 6
/// and RTOs 4 -> 5 of 6, seed 9793523666579309403 70.0 s -> 59.3 s against 59.2 s);
/// BBR's runs part from the kernel's in
/// STARTUP's overshoot into the CBR-filled queue (seed 2003: the kernel's first loss
/// is segment 136, the model's 139), and after that each seed's freezes meet other
/// flights (docs/src/validation-linux.md), while the means agree (below). Until the
/// linux stack restarted the RTO at each retransmission of the head in fast recovery
/// (`tcp_xmit_retransmit_queue`), the model also took spurious timeouts in STARTUP's
/// recovery that the kernel does not (seed 2003 at 2.9, 6.3 and 9.3 s, each an undo):
/// 0/3/1/1 of 6 then, undos 32 against the kernel's 15 (21 since).
/// Keeping the SACK marks over a timeout (`tcp_timeout_mark_lost`) made it 2/3/0/4
/// (1/3/2/1 before): completion and undos rose, RTOs fell on seeds
/// 9793523666579309403 (7 against 8, 8 before) and 11855210988424154761 (5 against 11,
/// 11 before: 50.4 s against 93.9 s). Both runs part from the kernel's before any
/// timeout, at this test's receiver, which autotunes where the emulator's held a
/// 150000 B clamp in a locked 600000 B buffer (b096556, docs/src/validation-linux.md):
/// a downstream divergence revealed, the RTO floor lowered for that reason.
/// F-RTO started only below the Recovery state or on a backed-off repeat
/// (`tcp_enter_loss`) made undos 4 -> 5.
/// Then all 18 runs recorded again with the emulator that keeps host timing out of
/// the kernel's run (4678838, c599148: the clamp held by the forwarder, SCHED_FIFO
/// applications, the whole transfer in a locked send buffer), and this test's
/// receiver given the emulator's (`so_rcvbuf` = 600000 with the 150000 B clamp, as
/// Table 1's test already has it; it autotuned before): BBR 2/3/0/5 -> 3/5/2/3, Reno
/// 6/5/6/6 -> 6/6/6/6, CUBIC 6/5/5/6 -> 6/3/5/6. On the new recordings without the
/// receiver's change BBR meets 0/3/1/4. CUBIC's two lost retransmission seeds and
/// BBR's undos (5 -> 3) are not traced to their first diverging decision yet.
/// Then the PSH rules and SACK compression (h-psh7, h-sackcomp): BBR 3/5/2/3 -> 1/5/1/4;
/// every seed parts from the kernel's at the receiver's 17th ACK before and after them
/// (h-psh7's trace), so the moves are downstream of that first divergence.
const FLOOR_TABLE2_BBR: Met4 = Met4 {
    completion: 1,
    retransmissions: 5,
    timeouts: 1,
    undos: 4,
};
/// Reno's timeouts 6 -> 5 with its skbs of two segments, PSH on the second
/// (`unpaced_skb`): seed 11184998728447369335 takes 8 RTOs against the kernel's 7
/// (not traced yet). Then 5/6/4/5 with the TSO deferral and the autosized skbs:
/// seed 11855210988424154761 (54.1 s and 5 RTOs against 70.8 s and 9), and
/// 11184998728447369335's RTOs (6 against 7). The first diverging decision from a
/// third recording with pcaps is unchanged by them: the path's fate of segment 120 or
/// 125 in the full queue the CBR flow shares (the kernel's timeline 2-3 ms behind).
const FLOOR_TABLE2_RENO: Met4 = Met4 {
    completion: 5,
    retransmissions: 6,
    timeouts: 4,
    undos: 5,
};
/// CUBIC's retransmissions 3 -> 5 with this stop's linux rules (06d88e7), then 4 with
/// the TSO deferral and the autosized skbs (seed 9793523666579309403: 141 against the
/// kernel's 89, which its second recording puts at 194; the kernel's CUBIC meets its
/// own retransmissions in 2 of 6 seeds).
const FLOOR_TABLE2_CUBIC: Met4 = Met4 {
    completion: 6,
    retransmissions: 4,
    timeouts: 5,
    undos: 6,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_congested_table2_path() {
    holds_floor(&run_these(&table2_runs("bbr")), &FLOOR_TABLE2_BBR);
    holds_floor(&run_these(&table2_runs("reno")), &FLOOR_TABLE2_RENO);
    holds_floor(&run_these(&table2_runs("cubic")), &FLOOR_TABLE2_CUBIC);
}

/// The model against the second Table 2 recordings (`table2_runs_2`), as floors. The
/// kernel does not repeat itself on this path
/// (`the_kernel_against_its_own_second_recording`): its second BBR recording meets completion / retransmissions / RTOs /
/// undos against its first in 1/6/1/4 of 6 seeds (seed 9793523666579309403: 59.8 s
/// then 263.5 s; 1759247322119164542: 429.6 s then 145.7 s), CUBIC in 6/2/5/6 (89 then
/// 194 retransmissions), Reno 6/6/6/6. The model meets 2/4/1/3, 6/3/4/6 and 6/6/5/6
/// against it (1/5/1/4, 6/3/5/6 and 6/6/5/6 against the first).
const FLOOR_TABLE2_BBR_2: Met4 = Met4 {
    completion: 2,
    retransmissions: 4,
    timeouts: 1,
    undos: 3,
};
/// Reno 5/5/4/5 with the TSO deferral, as `FLOOR_TABLE2_RENO`.
const FLOOR_TABLE2_RENO_2: Met4 = Met4 {
    completion: 5,
    retransmissions: 5,
    timeouts: 4,
    undos: 5,
};
/// CUBIC 6/3/4/6 -> 6/1/6/6 with the TSO deferral and the autosized skbs: the kernel's
/// second CUBIC recording retransmits 169 to 198 segments in five seeds (95 in one),
/// the model 124 to 148.
const FLOOR_TABLE2_CUBIC_2: Met4 = Met4 {
    completion: 6,
    retransmissions: 1,
    timeouts: 6,
    undos: 6,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_with_the_second_table2_recordings() {
    holds_floor(&run_these(&table2_runs_2("bbr")), &FLOOR_TABLE2_BBR_2);
    holds_floor(&run_these(&table2_runs_2("reno")), &FLOOR_TABLE2_RENO_2);
    holds_floor(&run_these(&table2_runs_2("cubic")), &FLOOR_TABLE2_CUBIC_2);
}

/// The congested path's BBR cell (`linux-bbr` of eifel-response's `linux-table2`: the
/// slowest Linux host, with genuine timeouts where Reno and CUBIC take none) is the
/// kernel's behaviour, not the model's alone: on the six recorded seeds (recorded
/// again with the emulator that keeps host timing out, 4678838) the kernel's BBR takes
/// 2.2 times Reno's mean download time (162.7 against 73.0 s) and 9 genuine expiries
/// (17 in the first recording; each an RTO of many seconds, inflated by the RTT
/// samples of a flight a freeze held), its Reno and CUBIC none; the model's BBR, its
/// receiver now the emulator's, takes 2.3 times (170.9 s) and 16 (2.2 times and 14
/// against the first recording with an autotuning receiver; 1.8 times and 16
/// before a linux host kept its SACK marks over a timeout; 1.9 times and 20
/// before the RTO restart at a retransmission of the head; 2.2 times and 18 before the
/// linux stack's new-recovery rule of issue 41, f1ef13a).
#[test]
fn the_kernel_and_the_model_both_make_bbr_the_slow_host_of_the_congested_path() {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mut kernel = Vec::new();
    let mut model = Vec::new();
    for cc in ["bbr", "reno", "cubic"] {
        let runs = table2_runs(cc);
        let sims: Vec<FlowResult> = runs.iter().map(simulate).collect();
        let k_time = mean(&runs.iter().map(|k| k.completion_s).collect::<Vec<_>>());
        let m_time = mean(
            &sims
                .iter()
                .map(|f| f.download_time().unwrap())
                .collect::<Vec<_>>(),
        );
        let k_genuine: u64 = runs.iter().map(|k| k.timeouts - k.spurious_timeouts).sum();
        let m_genuine: u64 = sims.iter().map(|f| f.genuine_timeouts).sum();
        println!("{cc}: mean time kernel {k_time:.1} s, model {m_time:.1} s; genuine expiries kernel {k_genuine}, model {m_genuine}");
        kernel.push((k_time, k_genuine));
        model.push((m_time, m_genuine));
    }
    for (who, v) in [("kernel", &kernel), ("model", &model)] {
        let (bbr, reno, cubic) = (v[0], v[1], v[2]);
        assert!(
            bbr.0 > 1.5 * reno.0 && bbr.0 > 1.5 * cubic.0,
            "{who}: {v:?}"
        );
        assert!(bbr.1 >= 5 && reno.1 + cubic.1 <= 1, "{who}: {v:?}");
    }
}
