//! The `linux` profile held against the real kernel, without root: the kernel's
//! per-seed results on the issue's validation paths, recorded by
//! `scripts/record_kernel_linux.py` through `spikelab emulate` into
//! `tests/data/kernel-6.18.44-fc-v1300/`, each re-run here in the simulator with
//! `profile = "linux"` and the same sysctls, schedule and congestion control:
//!
//! * `table1-freezes.csv`: the Table 1 freeze path ([Gurtov & Ludwig 2003] IV.A, ten
//!   freeze schedules, configurations (a) timestamps + F-RTO, (b) F-RTO only, (c)
//!   neither), reno; `table1-freezes-cubic.csv` (configuration (a)) and
//!   `table1-freezes-bbr.csv` (all three) the same with CUBIC and BBR;
//! * `outages-100mbit.csv` and `outages-100mbit-bbr.csv`: `scenarios/linux-outages.toml`
//!   (100 Mbit/s, outages of several seconds in both directions; each seed's schedule
//!   in the `freezes` column replaces the scenario's `at` line), reno and BBR;
//! * `trace-outages.csv`: `scenarios/linux-trace.toml` (the delivery trace
//!   `scenarios/traces/cell-outages.down`; each seed's offset into the trace in the
//!   `start_s` column replaces the flow's `start` line);
//! * `table2-cbr-{reno,cubic,bbr}.csv`: the congested Table 2 path;
//! * `*-run2.csv`: the outage path (reno and BBR), the trace path, and Table 2 (BBR
//!   and Reno), recorded a second time;
//! * `table1-freezes-bbr-run2.csv`, `outages-100mbit-bbr-run3.csv`,
//!   `table2-cbr-bbr-run3.csv`: BBR recorded with its gains (`--tcp-info`), a
//!   `bbr_draws` column holding the gain-cycle start phases the kernel drew at random,
//!   which the model replays (`bbr_given_the_kernels_draws_keeps_its_measured_agreement`).
//!
//! The emulator kept the kernel on the model's clock (docs/src/emulate.md: its answers
//! to a delivery at the delivery's time, the SYN at the flow's start, timers less the
//! forwarder's lag, time zero on a jiffy of the model's timer wheel). The recordings
//! made before, on the host's clock (`kernel-6.18.44-fc-v445/`,
//! `kernel-6.18.44-fc-v1272/`), and how the floors moved against them are in
//! docs/src/validation-linux-history.md; only their receive-window measurements are
//! still read here.
//!
//! The issue's goals per seed: completion within 5 %, retransmitted segments within
//! 20 %, RTO count equal in >= 90 % of the runs, undo events equal. Each path's test
//! holds the agreement measured when it was recorded as floors, so that a change
//! cannot lose it unnoticed; `the_linux_profile_meets_the_kernel_goals` holds the goals
//! themselves on the Table 1 path.

#[path = "support/bbr_draws.rs"]
mod bbr_draws;
use spikelab_engine::FlowResult;
use std::path::PathBuf;

/// The kernel the recordings ran (`uname -r`).
const KERNEL_SYNC: &str = "6.18.44-fc-v1300";
/// The builds of the same release whose recordings measured the receiver's window
/// ([`kernel_receiver_window`]).
const KERNEL: &str = "6.18.44-fc-v445";
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
    /// BBR's gain-cycle draws in this run, read from its pacing gain
    /// (scripts/bbr_draws.py) and replayed by the model; `None` where the recording
    /// has no `bbr_draws` column or left it empty.
    bbr_draws: Option<Vec<u8>>,
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
    kernel_runs_in(
        KERNEL_SYNC,
        "outages-100mbit.csv",
        "reno",
        ValidationPath::Outages,
    )
}

/// The kernel's BBR on the outage path (`record_kernel_linux.py --path outages --cc bbr`).
fn bbr_outage_runs() -> Vec<KernelRun> {
    let file = "outages-100mbit-bbr.csv";
    kernel_runs_in(KERNEL_SYNC, file, "bbr", ValidationPath::Outages)
}

/// The kernel's BBR on the Table 1 path, configurations (a), (b) and (c)
/// (`record_kernel_linux.py --configs abc --cc bbr`, the same ten freeze schedules).
fn bbr_table1_runs() -> Vec<KernelRun> {
    let file = "table1-freezes-bbr.csv";
    kernel_runs_in(KERNEL_SYNC, file, "bbr", ValidationPath::Table1)
}

/// The congested Table 2 path with the kernel's `cc` (`record_kernel_linux.py --path
/// table2 --cc <cc>`).
fn table2_runs(cc: &'static str) -> Vec<KernelRun> {
    let file = format!("table2-cbr-{cc}.csv");
    kernel_runs_in(KERNEL_SYNC, &file, cc, ValidationPath::Table2)
}

/// The runs over the delivery trace (`record_kernel_linux.py --path trace`).
fn trace_runs() -> Vec<KernelRun> {
    kernel_runs_in(
        KERNEL_SYNC,
        "trace-outages.csv",
        "reno",
        ValidationPath::Trace,
    )
}

/// The same two paths recorded a second time, the same way, minutes later: how much
/// the kernel differs from itself on the same schedule.
fn outage_runs_2() -> Vec<KernelRun> {
    kernel_runs_in(
        KERNEL_SYNC,
        "outages-100mbit-run2.csv",
        "reno",
        ValidationPath::Outages,
    )
}

/// BBR on the outage path recorded a second time (7 Dec, forwarder lateness p99 1.0 to
/// 4.3 ms, no packet ignored).
fn bbr_outage_runs_2() -> Vec<KernelRun> {
    let file = "outages-100mbit-bbr-run2.csv";
    kernel_runs_in(KERNEL_SYNC, file, "bbr", ValidationPath::Outages)
}

fn trace_runs_2() -> Vec<KernelRun> {
    kernel_runs_in(
        KERNEL_SYNC,
        "trace-outages-run2.csv",
        "reno",
        ValidationPath::Trace,
    )
}

/// The congested Table 2 path with the kernel's `cc` recorded a second time, with
/// captures (`record_kernel_linux.py --path table2 --cc <cc> --pcap`, the same six
/// seeds; the captures are kept outside the repository).
fn table2_runs_2(cc: &'static str) -> Vec<KernelRun> {
    let file = format!("table2-cbr-{cc}-run2.csv");
    kernel_runs_in(KERNEL_SYNC, &file, cc, ValidationPath::Table2)
}

/// BBR recorded with the sender's series (`record_kernel_linux.py --cc bbr
/// --tcp-info`): the Table 1 path a second time on this build, the outage and Table 2
/// paths a third; each row carries the gain-cycle draws the kernel made, which the
/// model replays.
fn bbr_runs_with_draws(path_kind: ValidationPath) -> Vec<KernelRun> {
    let file = match path_kind {
        ValidationPath::Table1 => "table1-freezes-bbr-run2.csv",
        ValidationPath::Outages => "outages-100mbit-bbr-run3.csv",
        _ => "table2-cbr-bbr-run3.csv",
    };
    let runs = kernel_runs_in(KERNEL_SYNC, file, "bbr", path_kind);
    assert!(
        runs.iter().all(|r| r.bbr_draws.is_some()),
        "{file}: draws read"
    );
    runs
}

fn kernel_runs_from(file: &str, cc: &'static str, path_kind: ValidationPath) -> Vec<KernelRun> {
    kernel_runs_in(KERNEL_SYNC, file, cc, path_kind)
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
                bbr_draws: (header.iter().position(|h| *h == "bbr_draws"))
                    .and_then(|i| bbr_draws::draws(f[i])),
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
    let text = bbr_draws::replayed(text, k.bbr_draws.as_deref());
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
/// as floors: seeds of 30 meeting each goal. Every seed meets every goal, 28 of them
/// with the kernel's retransmission count to the segment; (a) seed 3's RTO count,
/// which the kernel's timer-wheel phase used to decide (validation-linux-history.md),
/// matches since the emulator's time zero falls on the model's jiffy.
const FLOOR: Met4 = Met4 {
    completion: 30,
    retransmissions: 30,
    timeouts: 30,
    undos: 30,
};

#[derive(Debug, PartialEq, Eq)]
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
/// (`record_kernel_linux.py --configs a --cc cubic`), as floors: seeds of 10 meeting
/// each goal when it was recorded. Every seed meets every goal.
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
/// as floors: seeds of 10 meeting each goal. Every seed meets every goal; the model
/// finishes 0.3 to 4.4 % before the kernel on every seed.
const FLOOR_OUTAGES: Met4 = Met4 {
    completion: 10,
    retransmissions: 10,
    timeouts: 10,
    undos: 10,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_outage_path() {
    holds_floor(&run_these(&outage_runs()), &FLOOR_OUTAGES);
}

/// The replayed delivery trace (`scenarios/linux-trace.toml`, ten start offsets), as
/// floors: seeds of 10 meeting each goal. Every seed meets every goal, its
/// retransmissions within 2 of the kernel's.
const FLOOR_TRACE: Met4 = Met4 {
    completion: 10,
    retransmissions: 10,
    timeouts: 10,
    undos: 10,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_delivery_trace() {
    holds_floor(&run_these(&trace_runs()), &FLOOR_TRACE);
}

/// The simulator against the second recording of each path (the same schedules,
/// recorded minutes later), as floors. The kernel repeats itself on both paths: its
/// second recording meets every goal against its first on all ten seeds
/// (`the_kernel_against_its_own_second_recording`; 7 to 9 of 10 on the host's clock).
const FLOOR_OUTAGES_2: Met4 = Met4 {
    completion: 10,
    retransmissions: 10,
    timeouts: 10,
    undos: 10,
};
/// The delivery trace's second recording: every seed meets every goal.
const FLOOR_TRACE_2: Met4 = Met4 {
    completion: 10,
    retransmissions: 10,
    timeouts: 10,
    undos: 10,
};

/// BBR's second recording of the outage path: the model meets the retransmission goal
/// on 8 of 10 seeds (7 before the receiver's ACK owed nothing after the held ACKs'
/// flush, receiver.rs), the kernel on 7 against its own first recording (the model 5
/// against the first).
const FLOOR_OUTAGES_BBR_2: Met4 = Met4 {
    completion: 10,
    retransmissions: 8,
    timeouts: 10,
    undos: 10,
};

/// BBR given the kernel's draws (`bbr_runs_with_draws`; docs/src/validation-linux.md, "BBR's
/// random start phase"): on the Table 1 path 29/29/29/30 of 30 (30/30/26/30 against
/// the first recording without them). It was 28/28/26/29, the misses (a) 5 (the
/// kernel's 78.3 s and 8 RTOs), (a) 7, (b) 3 and (b) 7 (one RTO more or fewer), until
/// the RTO estimator heard a duplicate ACK's SACK-based sample (`sack_rtt_us`, with
/// rounds ended by snd_una passing `rtt_seq`) and a paced sender's probe and re-armed
/// RTO waited for its pacing clock (`tcp_pacing_delay`): the model now takes (a) 5's
/// 78.0 s and 8 RTOs too. Left: (c) seed 4's 95 retransmissions against 195, and (c)
/// seed 7's 3 RTOs against 2 (its recorded run parts from the model at 4.45 s, one ACK
/// later; two re-recordings of (c) 7 with captures, 3 and 2 RTOs, agree with the model
/// given their draws). On the
/// outage path every seed meets every goal (10/5/10/10
/// against the first recording without the draws, 10/8/10/10 against the second); on
/// Table 2 2/4/1/3 of 6 (1/5/1/1 and 2/5/2/2 without), where every run parts from the
/// model at the path's first drop (1.4-1.6 s), so the later draws are read against a
/// model that has already left the kernel (the SACK-based sample and the pacing delay
/// moved undos 1 -> 3). The sender's PSH marks (send_queue.rs:
/// `tcp_sendmsg_locked`'s marks, `tcp_grow_skb` moving them) moved Table 2 from
/// 2/5/2/4 (completion 2003 and undos of three seeds: counts after that first drop,
/// which stays where it was in all six captures). The receiver's SACK array
/// (`linux_sack_array`: a forgotten fifth block is not reported again) moved Table 2
/// from 1/5/2/3 to 2/4/1/3, after that drop. In a timeout's go-back-N only what
/// was resent is in flight (`tcp_timeout_mark_lost` marked the rest lost; the RACK
/// stack's `pipe_segments`, which BBR's packet conservation reads): Table 1 29/29/29/30
/// -> 30/30/29/30 ((c) seed 4 now 195 retransmissions as the kernel, the (c) seeds
/// within 2 of it but 7, 9 and 10), the outage path 10/10/10/10 -> 10/9/10/10 (seed 5:
/// 2 099 retransmissions against the kernel's 1 748, 20.1 % over; 2 095 before: the
/// kernel's four recordings of seed 5 took 1 748, 1 926, 2 193 and, recorded again on
/// 7 Dec 2026 with draw 5, 2 490).
const FLOOR_TABLE1_BBR_DRAWS: Met4 = Met4 {
    completion: 30,
    retransmissions: 30,
    timeouts: 29,
    undos: 30,
};
const FLOOR_OUTAGES_BBR_DRAWS: Met4 = Met4 {
    completion: 10,
    retransmissions: 9,
    timeouts: 10,
    undos: 10,
};
const FLOOR_TABLE2_BBR_DRAWS: Met4 = Met4 {
    completion: 2,
    retransmissions: 4,
    timeouts: 1,
    undos: 3,
};

#[test]
fn bbr_given_the_kernels_draws_keeps_its_measured_agreement() {
    holds_floor(
        &run_these(&bbr_runs_with_draws(ValidationPath::Table1)),
        &FLOOR_TABLE1_BBR_DRAWS,
    );
    holds_floor(
        &run_these(&bbr_runs_with_draws(ValidationPath::Outages)),
        &FLOOR_OUTAGES_BBR_DRAWS,
    );
    holds_floor(
        &run_these(&bbr_runs_with_draws(ValidationPath::Table2)),
        &FLOOR_TABLE2_BBR_DRAWS,
    );
}

#[test]
fn the_linux_profile_keeps_its_measured_agreement_with_the_second_recordings() {
    holds_floor(&run_these(&outage_runs_2()), &FLOOR_OUTAGES_2);
    holds_floor(&run_these(&trace_runs_2()), &FLOOR_TRACE_2);
    holds_floor(&run_these(&bbr_outage_runs_2()), &FLOOR_OUTAGES_BBR_2);
    holds_floor(&run_these(&table2_runs_2("bbr")), &FLOOR_TABLE2_BBR_2);
    holds_floor(&run_these(&table2_runs_2("reno")), &FLOOR_TABLE2_RENO_2);
}

/// Reno on the congested Table 2 path against its second recording
/// (`table2-cbr-reno-run2.csv`, recorded as the BBR one: every run honest, 0 packets
/// ignored, lateness p99 0.27-0.33 ms), as floors: every seed meets every goal, 6/6/6/6
/// (5/6/4/5 against the first recording). The two seeds the model misses against the
/// first recording are the kernel's other outcome: 11855210988424154761 took the
/// kernel 53.9 s and 5 RTOs (2 undos), then 70.2 s and 9 (3), the model 70.1 s and 9
/// (3); 11184998728447369335 took 7 RTOs, then 6, the model 6.
const FLOOR_TABLE2_RENO_2: Met4 = Met4 {
    completion: 6,
    retransmissions: 6,
    timeouts: 6,
    undos: 6,
};

/// The kernel's Reno on the congested Table 2 path against itself: 5/5/4/5 of 6
/// (11855210988424154761 53.9 -> 70.2 s, 5 -> 9 RTOs; 11184998728447369335 94 -> 113
/// retransmissions, 7 -> 6 RTOs). Its runs, as BBR's, part from the model's at the
/// path's first drop in the CBR-filled queue (data segment 133 to 153, 1.40-1.56 s):
/// in the first 2 s of the twelve captured runs the emulator's CBR datagrams are
/// stamped 0.9 ms before to 10 ms after the model's grid (median 0.08 ms after: the
/// sending thread's wake-ups on the host). Reno's outcome turns on that drop less
/// often than BBR's.
const KERNEL_TABLE2_RENO_2: Met4 = Met4 {
    completion: 5,
    retransmissions: 5,
    timeouts: 4,
    undos: 5,
};

/// BBR on the congested Table 2 path against its second recording
/// (`table2-cbr-bbr-run2.csv`, the same six seeds, recorded with captures by the
/// emulator a90172c: every run honest, 0 packets ignored, forwarder lateness p99
/// 0.22-0.26 ms), as floors: 1/5/0/6 seeds meeting completion / retransmissions / RTOs
/// / undos (1/3/2/3 against the first recording). The kernel's second run meets
/// 1/6/0/3 against its first ([`KERNEL_TABLE2_BBR_2`]): seed for seed, this path's BBR
/// runs are not repeatable, and the model is as close to either recording as the
/// kernel is to itself. The sender's PSH marks (send_queue.rs) moved undos 6 -> 3,
/// after the first drop, which they do not move; the SACK-based RTT sample and the
/// timers' pacing delay moved RTOs 0 -> 1; the receiver's SACK array
/// (`linux_sack_array`) to 2/5/2/2.
const FLOOR_TABLE2_BBR_2: Met4 = Met4 {
    completion: 2,
    retransmissions: 5,
    timeouts: 2,
    undos: 2,
};

/// The reno outage and trace paths: the kernel repeats itself on every seed.
const KERNEL_REPEATS: Met4 = Met4 {
    completion: 10,
    retransmissions: 10,
    timeouts: 10,
    undos: 10,
};

/// BBR on the outage path (`outages-100mbit-bbr-run2.csv`): retransmissions within 20 %
/// of the first recording on 7 of 10 seeds (seed 6 1616 against 2294, 8 2500 against
/// 1968, 9 2488 against 1983), every other goal on all.
const KERNEL_OUTAGES_BBR_2: Met4 = Met4 {
    completion: 10,
    retransmissions: 7,
    timeouts: 10,
    undos: 10,
};

/// The kernel's BBR on the congested Table 2 path against itself: the second recording
/// meets 1/6/0/3 of 6 seeds against the first (completion 196.0 -> 133.5 s, 428.8 ->
/// 171.0 s, 92.3 -> 412.1 s; RTOs equal on no seed; retransmissions within 12 %). Its
/// captures say why (`spikelab diverge` against `spikelab run --pcap`): the path's
/// first drop, 1.60 s into STARTUP, is one 1 Mbit/s CBR datagram or the next, decided
/// by tens of microseconds. The bottleneck's busy period starts with a paced segment
/// (segment 64 at 1.243 s), which the kernel sends when its pacing hrtimer fires on the
/// host, 0.08-0.15 ms (median) after the model's; its ACK-driven segments are stamped
/// at the ACK's time. (In seed 12590008897576199942 the kernel's receiver sent the
/// delayed ACK of segment 30 on the 12th jiffy, 1.012 s, where the model and the five
/// other kernel runs, the same up to 1.6 s, send it on the 11th: its sends ran 1 ms
/// behind from there.) In the model a departure frees a slot 24 us before CBR datagram
/// 954 arrives (1 us before 964 in seed 11855210988424154761); in the kernel's runs it
/// frees 0.03-0.44 ms after, so 954 is dropped and 955 enters, and the TCP flow's first
/// diverging fate (segment 152 to 192, 1.64-1.76 s) follows. A CBR flow started 10 or
/// 20 us later moves the model's seed 12590008897576199942 from 89.7 to 79.1 s (7 to
/// 11 RTOs) and 11184998728447369335 from 86.5 to 60.6 s.
const KERNEL_TABLE2_BBR_2: Met4 = Met4 {
    completion: 1,
    retransmissions: 6,
    timeouts: 0,
    undos: 3,
};

/// The kernel against itself: the second recording held to the issue's goals with the
/// first as reference. Prints the per-seed retransmission counts of both
/// (docs/src/validation-linux.md), checks that both recordings ran the same schedules,
/// and holds the seeds meeting each goal as measured: reno repeats itself on the
/// outage and trace paths and nearly on Table 2; BBR does not, on the outage path
/// ([`KERNEL_OUTAGES_BBR_2`]: the model's 5 of 10 there is held to a goal the kernel
/// meets on 7) nor on Table 2 ([`KERNEL_TABLE2_BBR_2`]: 1/6/0/3 of 6).
#[test]
fn the_kernel_against_its_own_second_recording() {
    for (first, second, what, measured) in [
        (outage_runs(), outage_runs_2(), "outages", &KERNEL_REPEATS),
        (trace_runs(), trace_runs_2(), "trace", &KERNEL_REPEATS),
        (
            bbr_outage_runs(),
            bbr_outage_runs_2(),
            "outages bbr",
            &KERNEL_OUTAGES_BBR_2,
        ),
        (
            table2_runs("bbr"),
            table2_runs_2("bbr"),
            "table2 bbr",
            &KERNEL_TABLE2_BBR_2,
        ),
        (
            table2_runs("reno"),
            table2_runs_2("reno"),
            "table2 reno",
            &KERNEL_TABLE2_RENO_2,
        ),
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
        let got = Met4 {
            completion: count(&m, |x| x.completion),
            retransmissions: count(&m, |x| x.retransmissions),
            timeouts: count(&m, |x| x.timeouts),
            undos: count(&m, |x| x.undos),
        };
        println!(
            "{what}: the kernel's second run meets the goals against its first in {got:?} of {}",
            m.len()
        );
        assert_eq!(&got, measured, "{what}: the kernel against itself");
    }
}

/// `tcp_congestion_control = "bbr"` against the kernel's BBR on the outage path
/// (`record_kernel_linux.py --path outages --cc bbr`, the same ten outage schedules), as
/// floors: seeds of 10 meeting each goal. Every seed met every goal until the head skb
/// `tcp_write_xmit` sends became the rest of a `tcp_sendmsg_locked` skb (send_queue.rs)
/// with `tcp_tso_should_defer`'s "Middle in queue" test: since, every seed retransmits
/// 4 to 33 % fewer segments than the kernel (1618 to 1963 against 1879 to 2430; 2043 to
/// 2278 against the same before, on both sides of the kernel's), and seeds 2 and 7 miss
/// the 20 % goal. The rule is kept (the real paths' first diverging decisions moved
/// later on 18 offsets and earlier on none); in seed 2 the model leaves the kernel's
/// run at 0.270 s, before the two models part (0.328 s). Those recordings each lost one
/// data segment in the emulator (segment 613 to 618 at 0.322 s, the forwarder's
/// raw-store purge; a90172c), which put the kernel in Recovery before the access
/// queue's first overflow; replaying that loss in a scratch run brought the model to
/// 1876-2258 against 1879-2430. Recorded again with the purge fixed (0 packets ignored
/// in every run, lateness p99 0.51-3.72 ms), the kernel still retransmits 1842 to 2502
/// and the model (1618 to 1963) meets 5 of 10 seeds: the loss was not the whole shift.
/// The model's startup overshoot is bimodal (about 1260 or 1700 retransmissions,
/// turning on 0.1 ms of latency) and the rule put this path in the lower mode; why the
/// kernel stays in the upper one is not traced (the new recordings kept no captures).
const FLOOR_BBR_OUTAGES: Met4 = Met4 {
    completion: 10,
    retransmissions: 5,
    timeouts: 10,
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
/// meeting each goal. Since the rate sample starts at the segment sent last
/// (`tcp_rate_skb_delivered`'s `tcp_skb_sent_after`, crates/tcp/src/rate.rs) (a) seed 3
/// meets all four (34.2 s, 33 retransmissions, 3 RTOs, 1 undo, as the kernel; it took
/// 65.6 s and six RTOs) and (c) seeds 1 and 7 the kernel's RTO count; (b) seed 7 takes
/// 3 RTOs against the kernel's 2. Since the RTO is kept in whole 4 ms jiffies
/// (`__tcp_set_rto`'s `usecs_to_jiffies`), (a) seed 7 takes 3 RTOs against the
/// kernel's 2 too: 0.2 s into the first freeze the loss probe's "if the RTO formula
/// yields an earlier time" test (`tcp_rto_delta_us`) finds the RTO, 0.597 s unrounded
/// and 0.600 s in jiffies, 1.3 ms ahead of now where unrounded it was past, so the
/// probe fires at 6.704 s instead of 7.552 s and the timer backs off once more in the
/// freeze. The recording has no capture to say which side of now the kernel's RTO
/// (its SRTT and RTTVAR in whole microseconds of its own clock) fell on. The RTO
/// estimator's SACK-based sample (`sack_rtt_us`) and the timers' pacing delay moved
/// the RTOs 28 -> 26 here, the model running its own seeded start phases against a
/// recording without the kernel's draws: seed 3 gains an RTO in all three
/// configurations, (c) 7 loses one, (a) 7 and (b) 7 now agree. Given the kernel's
/// draws, the same rules take Table 1's RTOs from 26 to 29 of 30
/// ([`FLOOR_TABLE1_BBR_DRAWS`]), the re-recordings with captures agreeing on all 14.
const FLOOR_BBR_TABLE1: Met4 = Met4 {
    completion: 30,
    retransmissions: 30,
    timeouts: 26,
    undos: 30,
};

#[test]
fn the_bbr_linux_profile_keeps_its_measured_agreement_on_the_table1_path() {
    holds_floor(&run_these(&bbr_table1_runs()), &FLOOR_BBR_TABLE1);
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

/// BBR on the congested Table 2 path, as floors: seeds of 6 meeting each goal. The
/// means agree (`the_kernel_and_the_model_both_make_bbr_the_slow_host_of_the_congested_path`)
/// but the seeds do not: every seed parts from the kernel's at a queue drop in STARTUP
/// (data segment 137 to 168 of the path's CBR-filled queue; `spikelab diverge`), each
/// seed's freezes then meeting other flights. The model's paced segments ran 3.4 ms
/// ahead of the kernel's by then until its rate sample started, as the kernel's, at
/// the segment sent last (`tcp_skb_sent_after`; 0.2 to 0.6 ms since): that rule moved
/// the floors from 1/3/0/4 to 1/6/1/2, undos down with the rest up, and is kept as the
/// kernel's. The receiver's delayed-ACK timer on the timer wheel (every timer-driven
/// ACK of the six recordings leaves on the 11th or 12th jiffy after its segment, 40-44
/// ms, never at 40 ms as the model sent them) moved them to 1/6/0/4. SACKed segments
/// out of cwnd outside recovery (`tcp_cwnd_test`, `StackRules::open_window_beyond_cwnd`)
/// moved them to 1/3/2/3: timeouts up, retransmissions and undos below their floors
/// (kept). The second recording, with captures ([`KERNEL_TABLE2_BBR_2`]), finds that
/// drop decided by tens of microseconds of the host's timing (a CBR datagram against a
/// bottleneck departure), and the kernel meeting 1/6/0/3 against its own first run.
/// The sender's PSH marks (send_queue.rs) moved them to 0/5/2/2, every seed's first
/// diverging decision unchanged (that drop, `spikelab diverge` of the six captures).
/// The RTO estimator's SACK-based sample and the timers' pacing delay moved undos
/// 2 -> 1, after that drop; the receiver's SACK array (`linux_sack_array`: a
/// forgotten fifth block is not reported again) moved them to 1/5/1/1.
const FLOOR_TABLE2_BBR: Met4 = Met4 {
    completion: 1,
    retransmissions: 5,
    timeouts: 1,
    undos: 1,
};
/// Reno on the congested Table 2 path, as floors: seeds of 6 meeting each goal. Every
/// seed met every goal until the cwnd a loss undo restores grew by the undoing ACK
/// (`StackRules::grows_after_loss_undo`); seed 11855210988424154761 now takes 70.3 s
/// and 9 RTOs (3 undos) against the kernel's 53.9 s and 5 (2). Its runs part from the
/// kernel's at 1.56 s (segment 152's fate in the CBR-filled queue) either way; the
/// model with and without the rule part at 11.03 s, the ACK that brings the
/// congestion-avoidance count since the undo to cwnd (39 segments): the kernel's
/// capture grows there too (at 11.04 s three segments for an ACK of two, cwnd 39 ->
/// 40), the model without the rule did not. SACKed segments out of cwnd outside
/// recovery (`StackRules::open_window_beyond_cwnd`) moved them to 5/6/4/5:
/// 11184998728447369335 takes 6 RTOs against the kernel's 7, below the floor (kept).
/// Growth on the ACK ending fast recovery (`StackRules::grows_on_recovery_exit`:
/// `tcp_cong_control` after `tcp_fastretrans_alert`) moved them to 5/5/4/5
/// (11184998728447369335: 116 retransmissions against 94), after the first drop.
const FLOOR_TABLE2_RENO: Met4 = Met4 {
    completion: 5,
    retransmissions: 5,
    timeouts: 4,
    undos: 5,
};
/// CUBIC on the congested Table 2 path, as floors: seeds of 6 meeting each goal. One
/// seed misses the retransmission goal (9793523666579309403: 146 against the kernel's
/// 183) and two the RTO count (11855210988424154761: 4 against 5;
/// 11184998728447369335: 6 against 7). Counting `tcp_jiffies32` in 4 ms jiffies
/// (HZ = 250: the `HZ / 32` guard of 7 jiffies, t in jiffy steps) moved them from
/// 6/2/3/6: retransmissions 2003 211 -> 177, 11184998728447369335 138 -> 159,
/// 12590008897576199942 153 -> 168 (now within 20 %), and 12590008897576199942's
/// RTOs 9 -> 10 (the kernel's 10). Before the growth of the cwnd a loss undo restores
/// (`StackRules::grows_after_loss_undo`) and RACK hearing SACK blocks first
/// (rack_detection.rs), 11184998728447369335 took 7 RTOs; both runs parted from the
/// kernel's long before (segment 125's and 153's fate at 1.38 s and 1.56 s). SACKed
/// segments out of cwnd outside recovery (`StackRules::open_window_beyond_cwnd`) moved
/// them to 6/4/4/6: 12590008897576199942's retransmissions 168 -> 153 (the kernel's
/// 198), below the floor (kept). With the head skb the rest of a sendmsg skb
/// (send_queue.rs) as well: 6/2/5/6. Every seed of this path parts from the kernel's
/// at a queue drop in its first 1.6 s; the counts here are of what follows, and the
/// recordings have no captures to say which rule moved which seed closer. The
/// sender's PSH marks (send_queue.rs) moved them to 6/3/4/6, the RTO estimator's
/// SACK-based sample (`sack_rtt_us`) to 6/6/3/6 (12590008897576199942: 9 RTOs against
/// the kernel's 10), after the first drop. Growth on the ACK ending fast recovery
/// (`StackRules::grows_on_recovery_exit`: CUBIC's epoch starts there, as the kernel's
/// does on the T-Mobile UMTS capture at 543 s) moved them to 6/2/3/6: retransmissions
/// 138-174 against the kernel's 144-198 (four seeds 21-29 % away, two of them 19-20 %
/// away before), every run having parted from the kernel's at the first drop.
const FLOOR_TABLE2_CUBIC: Met4 = Met4 {
    completion: 6,
    retransmissions: 2,
    timeouts: 3,
    undos: 6,
};

#[test]
fn the_linux_profile_keeps_its_measured_agreement_on_the_congested_table2_path() {
    holds_floor(&run_these(&table2_runs("bbr")), &FLOOR_TABLE2_BBR);
    holds_floor(&run_these(&table2_runs("reno")), &FLOOR_TABLE2_RENO);
    holds_floor(&run_these(&table2_runs("cubic")), &FLOOR_TABLE2_CUBIC);
}

/// The congested path's BBR cell (`linux-bbr` of eifel-response's `linux-table2`: the
/// slowest Linux host, with the most genuine timeouts) is the kernel's behaviour, not
/// the model's alone: on the six recorded seeds the kernel's BBR takes 2.3 times Reno's
/// mean download time (160.1 against 70.4 s) and 11 genuine expiries (each an RTO of
/// many seconds, inflated by the RTT samples of a flight a freeze held), its Reno 1 and
/// CUBIC 2; the model's BBR 2.1 times (149.6 s) and 13, its Reno and CUBIC none. (On
/// the recordings made on the host's clock: the kernel's BBR 2.2 times and 9, its Reno
/// and CUBIC none; validation-linux-history.md.)
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
        assert!(bbr.1 >= 5 && bbr.1 > 2 * (reno.1 + cubic.1), "{who}: {v:?}");
    }
}
