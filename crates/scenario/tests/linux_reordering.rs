//! The `linux` profile against Linux 6.18.44 on a path that reorders: the
//! delay-injection path with a box holding every 3rd data packet for 100 ms while later
//! ones pass (data/kernel-6.18.44-fc-v445/delay-injection-every-nth.toml, recorded with
//! `spikelab emulate`; docs/src/validation-linux.md, "Reordering: the delay-injection
//! path"). The kernel learns the reordering (TCPTSReorder, TCPSACKReorder) and stops
//! resending the held packets; a profile that never learned it resent 96 segments.

use std::path::Path;

const DATA: &str = "tests/data/kernel-6.18.44-fc-v445";

/// The recorded runs' (download time s, retransmitted segments).
fn kernel_runs() -> Vec<(f64, u64)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let text = std::fs::read_to_string(dir.join("delay-injection-every-nth.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (time, retx) = (col("download_time_s"), col("retransmissions"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[time].parse().unwrap(), f[retx].parse().unwrap())
        })
        .collect()
}

fn simulate() -> spikelab_engine::FlowResult {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(DATA);
    let s = spikelab_scenario::load(dir.join("delay-injection-every-nth.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = spikelab_engine::run(&s.to_sim(), s.run().seed).unwrap();
    r.flows.into_iter().next().unwrap()
}

#[test]
fn the_linux_profile_learns_the_reordering_a_delaying_box_causes_as_the_kernel_does() {
    let kernel = kernel_runs();
    assert_eq!(kernel.len(), 2);
    let f = simulate();
    println!(
        "sim: {:.2} s, {} retransmissions; kernel: {kernel:?}",
        f.download_time().unwrap(),
        f.retransmissions
    );
    // The goal: retransmitted segments within 20 % of every kernel run.
    for &(_, retx) in &kernel {
        let (sim, k) = (f.retransmissions as f64, retx as f64);
        assert!((sim - k).abs() <= 0.2 * k, "sim {sim} against kernel {k}");
    }
    // Completion is not within 5 % (measured +19 %, docs); it must stay within 25 %.
    for &(time, _) in &kernel {
        let sim = f.download_time().unwrap();
        assert!(
            (sim - time).abs() <= 0.25 * time,
            "sim {sim} s against {time} s"
        );
    }
}
