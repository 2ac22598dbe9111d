//! The `linux` profile's receive window against Linux 6.18.44 on issue 41's plain path:
//! one 10 or 2 Mbit/s, 40 ms link with a 100-packet drop-tail queue and a receiver
//! whose locked buffer (SO_RCVBUF 209716) holds 144 segments at the default scaling
//! ratio of 1/2, but 181 at the 160/256 the kernel measures over the emulator's TUN
//! device (data/kernel-6.18.44-fc-v1300/one-link-*.toml, recorded with `spikelab
//! emulate`). The kernel fills the 181-segment window and overflows the queue; a
//! profile offering 144 segments never did (0 retransmissions at 10 Mbit/s against the
//! kernel's 62-78, 43 against 68 at 2 Mbit/s, on the recordings on the host's clock).
//! Recorded again with the kernel on the model's clock, each path's three runs give
//! one count: 76 (3.782 s) and 68 (16.762 s); the model 82 (3.779 s) and 68 (16.762 s).

use spikelab_tcp::spurious::UndoCounters;
use std::path::Path;

const DATA: &str = "tests/data/kernel-6.18.44-fc-v1300";

/// One recorded kernel run.
struct KernelRun {
    download_time_s: f64,
    retransmissions: u64,
    timeouts: u64,
    undos: Vec<u64>,
}

/// The emulator's runs.csv for the path at `mbit` Mbit/s.
fn kernel_runs(mbit: u32) -> Vec<KernelRun> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let path = dir.join(format!("one-link-{mbit}mbit.csv"));
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let n = |name: &str| f[col(name)].parse::<u64>().unwrap();
            KernelRun {
                download_time_s: f[col("download_time_s")].parse().unwrap(),
                retransmissions: n("retransmissions"),
                timeouts: n("timeouts"),
                undos: UndoCounters::NAMES.iter().map(|c| n(c)).collect(),
            }
        })
        .collect()
}

fn simulate(mbit: u32) -> spikelab_engine::FlowResult {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let s = spikelab_scenario::load(dir.join(format!("one-link-{mbit}mbit.toml")))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = spikelab_engine::run(&s.to_sim(), s.run().seed).unwrap();
    r.flows.into_iter().next().unwrap()
}

/// Issue 41's goals on each recorded run: completion within 5 %, RTO count and undo
/// events equal; retransmitted segments within 20 % of the kernel's mean (the kernel's
/// own runs spread 62-78 at 10 Mbit/s).
fn holds_the_kernel_goals(mbit: u32) {
    let kernel = kernel_runs(mbit);
    assert_eq!(kernel.len(), 3);
    let f = simulate(mbit);
    let sim = f.download_time().unwrap();
    println!("{mbit} Mbit/s: sim {sim:.3} s, {} retx", f.retransmissions);
    for k in &kernel {
        let t = k.download_time_s;
        assert!((sim - t).abs() <= 0.05 * t, "sim {sim} s against {t} s");
        assert_eq!(f.timeouts, k.timeouts);
        assert_eq!(f.undos.values().to_vec(), k.undos);
    }
    let mean = kernel.iter().map(|k| k.retransmissions as f64).sum::<f64>() / 3.0;
    let retx = f.retransmissions as f64;
    assert!(retx > 0.0, "the queue overflows, as under the kernel");
    assert!(
        (retx - mean).abs() <= 0.2 * mean,
        "sim {retx} against {mean}"
    );
}

#[test]
fn the_linux_receiver_offers_what_its_locked_buffer_holds_at_10_mbit() {
    holds_the_kernel_goals(10);
}

#[test]
fn the_linux_receiver_offers_what_its_locked_buffer_holds_at_2_mbit() {
    holds_the_kernel_goals(2);
}
