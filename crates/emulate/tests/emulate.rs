//! The emulator end to end: real kernel TCP in namespaces through the forwarder.
//!
//! These need root and /dev/net/tun. Without them each test prints a loud SKIPPED line
//! and returns, except under CI (`CI` set), where the machine is root with TUN and a
//! skip would hide a regression: there they fail instead. They run one at a time (real
//! time: parallel runs would compete for the CPU) and take about a minute in all.

use spikelab_emulate::report::RepReport;
use spikelab_emulate::{plan, run_rep, sandbox, EmuError, Plan};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn skipped(test: &str) -> bool {
    if spikelab_emulate::can_emulate() {
        return false;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: CI runs as root with /dev/net/tun, so the emulator tests must run there"
    );
    eprintln!("SKIPPED: {test}: needs root and /dev/net/tun (spikelab emulate)");
    true
}

fn plan_of(toml: &str, sysctls: &[(&str, &str)]) -> Plan {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, toml).unwrap();
    let s = spikelab_scenario::load(&path).unwrap();
    let over: BTreeMap<String, String> = sysctls
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    plan(&s, &over, "reno").unwrap()
}

fn run(p: &Plan) -> RepReport {
    let dir = tempfile::tempdir().unwrap();
    let r = run_rep(p, 0, 1, dir.path()).unwrap();
    eprintln!(
        "lateness p50 {:.3} ms p99 {:.3} ms max {:.3} ms over {} packets (SCHED_FIFO {})",
        r.lateness.p50_ms, r.lateness.p99_ms, r.lateness.max_ms, r.lateness.packets, r.sched_fifo
    );
    r
}

/// [Ludwig & Gurtov 2005]'s Table 1 path: 2 Mbit/s, 150 ms, 75-packet drop-tail, MSS 1000,
/// window 150 kB, Reno-SACK with timestamps; `extra` adds spikes to the bottleneck.
fn eifel_path(bytes: &str, extra: &str) -> String {
    format!(
        r#"
[run]
name = "eifel-path"
stop = "60s"
[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "100Mbit/s", latency = "1ms" }}
[topology.bottleneck]
rate = "2Mbit/s"
latency = "150ms"
queue = {{ kind = "drop-tail", limit = {{ packets = 74 }} }}
{extra}
[[flow]]
name = "tcp"
route = "pair"
tcp = {{ timestamps = true, mss = 1000, receiver_window = 150000, recovery = "reno-sack" }}
workload = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    )
}

#[test]
fn five_megabytes_on_the_eifel_path_take_the_time_the_link_allows() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("five_megabytes_on_the_eifel_path") {
        return;
    }
    let r = run(&plan_of(&eifel_path("5MB", ""), &[]));
    let f = &r.flows[0];
    // 5000 segments of 1000 payload + 52 header bytes (IPv4, TCP, timestamps) at 2 Mbit/s.
    let link_time = 5000.0 * 1052.0 * 8.0 / 2e6;
    let t = f.download_time().expect("the transfer completes");
    eprintln!("5 MB in {t:.2} s; the link alone needs {link_time:.2} s");
    assert!(t >= link_time * 0.99, "faster than the link: {t} s");
    assert!(
        t <= link_time * 1.25,
        "{t} s is far above the link's {link_time} s"
    );
    assert_eq!(r.kernel[0].bytes_received, 5_000_000);
    assert!(f.delivered >= 5000);
    // Every data segment and (delayed) ACK written out has a lateness sample.
    assert!(r.lateness.packets > 7_000, "{} samples", r.lateness.packets);
}

#[test]
fn a_six_second_freeze_makes_kernel_rtos_that_the_truth_calls_spurious() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("a_six_second_freeze") {
        return;
    }
    let freeze = r#"[[topology.bottleneck.spikes]]
kind = "outage"
dirs = "both"
at = [{ start = "3s", duration = "6s" }]"#;
    let r = run(&plan_of(&eifel_path("1MB", freeze), &[]));
    let f = &r.flows[0];
    let kernel_timeouts = r.kernel[0]
        .sender_counters
        .get("TcpExt.TCPTimeouts")
        .copied();
    eprintln!(
        "timeouts {:?}, kernel TCPTimeouts {kernel_timeouts:?}",
        r.timeouts
    );
    assert!(f.completed.is_some());
    assert!(f.timeouts >= 1, "a 6 s freeze must fire the kernel's timer");
    assert_eq!(
        Some(f.timeouts),
        kernel_timeouts,
        "every kernel RTO has a record"
    );
    for t in &r.timeouts {
        let in_freeze = (3.0..9.2).contains(&t.time.as_secs_f64());
        if in_freeze {
            // The segment is frozen in the forward pipe, or delivered with its ACK
            // frozen in the reverse one: either way the timer fired for nothing.
            assert!(t.truth.is_spurious(), "{t:?}");
        }
    }
    assert!(r.timeouts.iter().any(|t| t.truth.is_spurious()));
    assert!(r
        .timeouts
        .iter()
        .all(|t| t.truth != spikelab_engine::Truth::GenuineAckLost));
    assert!(f.unnecessary_retransmissions >= 1);
}

#[test]
fn the_std_proxy_acts_on_the_kernels_go_back_n_retransmissions() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_std_proxy") {
        return;
    }
    let toml = r#"
[run]
name = "std"
stop = "60s"
[[link]]
name = "wired"
rate = "10Mbit/s"
latency = "20ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
[[link]]
name = "cellular"
rate = "400kbit/s"
latency = "300ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
[[link.spikes]]
kind = "outage"
dirs = "both"
at = [{ start = "3s", duration = "6s" }]
[[middlebox]]
link = "cellular"
config = { kind = "std-proxy" }
[[flow]]
name = "download"
route = ["wired", "cellular"]
tcp = { mss = 1460, receiver_window = 65535, recovery = "reno", timestamps = false }
workload = { kind = "bulk", bytes = "400KB" }
"#;
    let r = run(&plan_of(toml, &[]));
    let b = &r.box_counts;
    eprintln!("proxy decisions: {b:?}; timeouts {:?}", r.timeouts);
    assert!(r.flows[0].completed.is_some());
    assert!(
        b.timeouts_detected >= 1,
        "the proxy saw the kernel's timeout"
    );
    assert!(b.verdicts_spurious >= 1, "and judged it spurious");
    assert!(
        b.buffered + b.discarded >= 1,
        "and absorbed go-back-N retransmissions"
    );
}

#[test]
fn a_delay_injector_delays_the_kernels_segments() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("a_delay_injector") {
        return;
    }
    let toml = r#"
[run]
name = "inject"
stop = "60s"
[[link]]
name = "radio"
rate = "10Mbit/s"
latency = "20ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
[[middlebox]]
link = "radio"
config = { kind = "delay-injection", method = "ftfd", d0 = "200ms", n = 1, select = "every-nth", select_every = 1 }
[[flow]]
name = "ftp"
route = ["radio"]
tcp = { mss = 1000, receiver_window = 16000, recovery = "reno-sack" }
workload = { kind = "bulk", bytes = "200KB" }
"#;
    let r = run(&plan_of(toml, &[]));
    let srtt_ms = r.kernel[0].final_info.rtt_us as f64 / 1000.0;
    eprintln!("kernel srtt {srtt_ms} ms, box {:?}", r.box_counts);
    assert!(r.flows[0].completed.is_some());
    assert!(r.box_counts.delayed >= 100, "every data segment is delayed");
    // Without the box this path's RTT is at most 40 ms + a 16 kB queue at 10 Mbit/s.
    assert!(srtt_ms >= 200.0, "the kernel measured {srtt_ms} ms");
}

#[test]
fn a_bad_key_is_named_and_oracle_selection_is_refused() {
    let toml = r#"
[[link]]
name = "radio"
rate = "10Mbit/s"
latency = "20ms"
[[middlebox]]
link = "radio"
config = { kind = "delay-injection", select = "oracle" }
[[flow]]
name = "ftp"
route = ["radio"]
workload = { kind = "bulk", bytes = "2KB" }
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, toml).unwrap();
    let s = spikelab_scenario::load(&path).unwrap();
    let e = plan(&s, &BTreeMap::new(), "reno").unwrap_err().to_string();
    assert!(e.contains("middlebox[0].config.select"), "{e}");
    assert!(e.contains(":8:"), "located at the line: {e}");
}

const CHILD: &str = "SPIKELAB_EMULATE_SIGINT_CHILD";

/// Run by `cleanup_after_sigint_leaves_no_namespace` in a child process: a long
/// emulation under the prefix it is given.
#[test]
fn sigint_child() {
    let Ok(prefix) = std::env::var(CHILD) else {
        return;
    };
    let mut p = plan_of(&eifel_path("50MB", ""), &[]);
    p.prefix = Some(prefix);
    let dir = tempfile::tempdir().unwrap();
    match run_rep(&p, 0, 1, dir.path()) {
        Err(EmuError::Interrupted) => std::process::exit(42),
        other => panic!("expected an interruption, got {:?}", other.map(|r| r.end_s)),
    }
}

#[test]
fn cleanup_after_sigint_leaves_no_namespace() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("cleanup_after_sigint") {
        return;
    }
    let prefix = sandbox::fresh_prefix();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "sigint_child", "--nocapture", "--test-threads=1"])
        .env(CHILD, &prefix)
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while sandbox::existing_with_prefix(&prefix).len() < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the child never set up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(30),
            "the child ignored SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(42), "the run ended as interrupted");
    assert_eq!(sandbox::existing_with_prefix(&prefix), Vec::<String>::new());
}

#[test]
fn a_panic_still_removes_the_namespaces() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("a_panic_still_removes_the_namespaces") {
        return;
    }
    let prefix = sandbox::fresh_prefix();
    let inner = prefix.clone();
    let r = std::panic::catch_unwind(move || {
        let mut sb = sandbox::Sandbox::new(&inner);
        sb.add_netns("s0").unwrap();
        assert_eq!(sandbox::existing_with_prefix(&inner).len(), 1);
        panic!("a failure half-way through a run");
    });
    assert!(r.is_err());
    assert_eq!(sandbox::existing_with_prefix(&prefix), Vec::<String>::new());
}
