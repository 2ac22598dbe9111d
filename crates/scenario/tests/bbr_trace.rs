//! BBR's estimates in the trace (`bbr` records: bandwidth, min_rtt, pacing rate), on
//! the freeze study's path (scenarios/studies/bbr-freeze.toml, a 5 s freeze of both
//! directions at 10 s; docs/src/study-bbr-freeze.md).

use spikelab_core::trace::TraceEvent;
use spikelab_core::{Dur, Time};
use std::path::Path;

fn estimates(cc: &str) -> Vec<(Time, u64, Option<Dur>, u64)> {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/studies/bbr-freeze.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let text = text.replace(
        "tcp_congestion_control = \"bbr\"",
        &format!("tcp_congestion_control = \"{cc}\""),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, text).unwrap();
    let s = spikelab_scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = s.to_sim();
    sim.trace = spikelab_engine::TraceKinds::ALL;
    let r = spikelab_engine::run(&sim, s.run().seed).unwrap();
    (r.trace.iter())
        .filter_map(|t| match t.event {
            TraceEvent::Bbr {
                bw,
                min_rtt,
                pacing_rate,
            } => Some((t.time, bw, min_rtt, pacing_rate)),
            _ => None,
        })
        .collect()
}

fn at(e: &[(Time, u64, Option<Dur>, u64)], secs: f64) -> (u64, Option<Dur>, u64) {
    let t = Time::from_secs_f64(secs);
    let last = e
        .iter()
        .rev()
        .find(|x| x.0 <= t)
        .expect("an estimate by then");
    (last.1, last.2, last.3)
}

#[test]
fn only_a_model_based_controller_traces_its_estimates() {
    assert!(estimates("cubic").is_empty());
    assert!(!estimates("bbr").is_empty());
}

#[test]
fn the_bandwidth_estimate_survives_the_freeze_and_a_post_freeze_rtt_becomes_min_rtt() {
    let e = estimates("bbr");
    let (bw, min_rtt, _) = at(&e, 9.99);
    // 10 Mbit/s less headers: about 1.2 MB/s; min_rtt the path's 80 ms.
    assert!((1_100_000..=1_260_000).contains(&bw), "{bw}");
    assert!(
        min_rtt.is_some_and(|m| m < Dur::from_millis(90)),
        "{min_rtt:?}"
    );
    // No packet-timed round ends during the freeze: the estimate is the same after it.
    let (after, min_after, _) = at(&e, 15.5);
    assert_eq!(after, bw);
    // The 10 s min_rtt window ran out in the freeze: the first sample after it, from a
    // segment held 5 s, is taken as min_rtt (bbr_update_min_rtt), until a lower one
    // replaces it.
    let (_, just_after, _) = at(&e, 15.02);
    assert!(
        just_after.is_some_and(|m| m > Dur::from_secs(5)),
        "{just_after:?}"
    );
    assert!(
        min_after.is_some_and(|m| m < Dur::from_millis(90)),
        "{min_after:?}"
    );
}
