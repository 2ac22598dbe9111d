//! `delay_sampling = "per-packet-reordering"` end to end: a TCP transfer over a link
//! whose packets each draw an independent delay and may overtake one another (the
//! reading of [Klein et al. 2004]'s "essentially uncorrelated" RTTs) sees its data
//! arrive out of order, answered by duplicate ACKs, and runs the same twice with a seed;
//! the same path in FIFO order ("per-packet") sees neither.

use spikelab_core::trace::TraceEvent;
use spikelab_engine::{RunResult, TraceKinds};

/// 2 Mbit/s, 50 ms, a 200 KB download; the data direction adds a draw of a 500-sample
/// ping trace (60..140 ms, 5 % spikes of 100..800 ms) to every packet.
fn scenario(sampling: &str) -> String {
    format!(
        r#"[run]
name = "reordering"

[[link]]
name = "radio"
rate = "2Mbit/s"
latency = "50ms"
forward = {{ delay_sampling = "{sampling}", delay_trace = {{ generator = "ping-trace", seed = 7, samples = 500, base = {{ min = "60ms", max = "140ms" }}, spike_probability = 0.05, spike = {{ min = "100ms", max = "800ms" }} }} }}

[[flow]]
name = "f"
route = ["radio"]
workload = {{ kind = "bulk", bytes = "200KB" }}
"#
    )
}

fn run(sampling: &str, seed: u64) -> RunResult {
    let s = spikelab_scenario::parse(&scenario(sampling), "reordering.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = s.to_sim();
    sim.trace = TraceKinds::ALL;
    spikelab_engine::run(&sim, seed).unwrap()
}

/// (segments delivered below the highest before them, duplicate ACKs received).
fn out_of_order(r: &RunResult) -> (usize, usize) {
    let (mut late, mut dups, mut highest) = (0, 0, None);
    for t in &r.trace {
        match t.event {
            TraceEvent::Deliver { seq, .. } => {
                late += usize::from(highest.is_some_and(|h| seq < h));
                highest = highest.max(Some(seq));
            }
            TraceEvent::AckRecv { dup: true, .. } => dups += 1,
            _ => {}
        }
    }
    (late, dups)
}

#[test]
fn a_transfer_over_a_reordering_path_sees_late_segments_and_duplicate_acks() {
    let r = run("per-packet-reordering", 1);
    assert!(r.flows[0].completed.is_some());
    let (late, dups) = out_of_order(&r);
    println!("reordering: {late} late, {dups} duplicate ACKs");
    assert!(late > 5, "{late} segments overtaken");
    assert!(dups > 5, "{dups} duplicate ACKs");
}

#[test]
fn the_same_path_in_fifo_order_delivers_in_order() {
    // Nothing is overtaken: every segment is delivered above the highest before it.
    let r = run("per-packet", 1);
    assert!(r.flows[0].completed.is_some());
    let (late, dups) = out_of_order(&r);
    println!("fifo: {late} late, {dups} duplicate ACKs");
    assert_eq!(late, 0);
}

#[test]
fn a_reordering_run_is_the_same_twice_with_the_same_seed() {
    let (a, b) = (
        run("per-packet-reordering", 3),
        run("per-packet-reordering", 3),
    );
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.flows[0].completed, b.flows[0].completed);
    assert_ne!(
        a.trace,
        run("per-packet-reordering", 4).trace,
        "the seed matters"
    );
}
