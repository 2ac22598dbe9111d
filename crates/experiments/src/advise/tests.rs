//! Paths whose answer is known by construction, and determinism.

use super::input::Input;
use super::report::{verdict, write_csv};
use super::*;
use crate::runner::Counter;

fn input(text: &str) -> Input {
    Input {
        text: text.to_owned(),
        name: "known.toml".into(),
        seed: 7,
        description: "a test path".into(),
    }
}

/// 2 Mbit/s, 50 ms, no congestion loss (1000 packets of buffer), both directions
/// frozen for 6 s at 1.5 s: far longer than the 1 s minimum RTO, so the sender times
/// out spuriously, backs off, and the whole window arrives after the freeze.
const FREEZE: &str = r#"
[run]
stop = "300s"
[[link]]
name = "l"
rate = "2Mbit/s"
latency = "50ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
[[link.spikes]]
kind = "hiccup"
at = [{ start = "1.5s", duration = "6s" }]
[[flow]]
name = "f"
route = ["l"]
start = { min = "0s", max = "1s" }
workload = { kind = "bulk", bytes = "600KB" }
"#;

/// The same link without spikes, but lossy: each 40-byte radio block is lost with
/// probability 0.0005 and never retransmitted (max_retx = 0), so about 2 % of the
/// packets are lost and no delay is added.
const LOSSY: &str = r#"
[run]
stop = "300s"
[[link]]
name = "l"
rate = "2Mbit/s"
latency = "50ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
service = { kind = "wcdma", block_bytes = "40B", bler = 0.0005, retx_delay = "10ms", max_retx = 0 }
[[flow]]
name = "f"
route = ["l"]
start = { min = "0s", max = "1s" }
workload = { kind = "bulk", bytes = "600KB" }
"#;

fn opts(fixes: &[&str], reps: u32) -> Options {
    Options {
        reps: Some(reps),
        jobs: 2,
        fixes: fixes.iter().map(|s| s.to_string()).collect(),
        ..Options::default()
    }
}

fn row<'a>(a: &'a Advice, label: &str) -> &'a Row {
    a.rows
        .iter()
        .find(|r| r.candidate.label == label)
        .unwrap_or_else(|| panic!("no row {label}"))
}

#[test]
fn on_long_freezes_without_loss_detection_with_full_restore_beats_no_detection() {
    let a = advise(
        &input(FREEZE),
        &opts(&["eifel:option1:none"], 12),
        &Counter::default(),
    )
    .unwrap();
    let base = a.baseline();
    let t = metric_index("time_s");
    assert!(
        base.summary[metric_index("spurious_timeouts")].mean >= 1.0,
        "the path must cause spurious timeouts"
    );
    assert_eq!(base.summary[metric_index("genuine_timeouts")].mean, 0.0);
    let eifel = row(&a, "eifel:option1:none");
    assert_eq!(eifel.rank, 1);
    assert_eq!(verdict(&a, eifel), "better", "{:?}", eifel.vs_baseline);
    // The gain is far beyond the run-to-run spread of the path itself.
    assert!(-eifel.vs_baseline.mean > base.summary[t].ci95);
}

#[test]
fn on_a_lossy_path_without_delay_no_detector_wins_by_more_than_noise() {
    let full_restore = [
        "eifel:option1:none",
        "frto:option1:none",
        "sack-frto:option1:none",
        "dsack:option1:none",
        "ack-timing:option1:none",
    ];
    let a = advise(&input(LOSSY), &opts(&full_restore, 12), &Counter::default()).unwrap();
    let base = a.baseline();
    let t = metric_index("time_s");
    assert!(
        base.summary[metric_index("retransmissions")].mean > 5.0,
        "the path must lose"
    );
    assert!(base.summary[t].ci95 > 0.0, "the losses vary by seed");
    for label in full_restore {
        // Beyond noise: the paired 95 % interval of the difference lies below zero.
        let r = a.rows.iter().find(|r| r.candidate.label == label);
        let Some(r) = r else {
            continue; // the same configuration as the baseline on this path
        };
        assert_ne!(verdict(&a, r), "better", "{label}: {:?}", r.vs_baseline);
        assert!(r.vs_baseline.n == 12);
    }
    assert!(a.rows.len() >= 4, "most detectors are rows of their own");
}

fn csv(a: &Advice) -> Vec<u8> {
    let mut out = Vec::new();
    write_csv(a, &mut out).unwrap();
    out
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_a_budget_run_replays_with_its_reps() {
    let subset = [
        "eifel:option1",
        "frto:option2:none",
        "std-proxy",
        "delay-ftfd",
    ];
    let budgeted = Options {
        reps: None,
        budget_s: 0.5,
        ..opts(&subset, 0)
    };
    let a = advise(&input(FREEZE), &budgeted, &Counter::default()).unwrap();
    assert!(a.reps >= PILOT_REPS && a.reps_from_budget);
    let replay = advise(&input(FREEZE), &opts(&subset, a.reps), &Counter::default()).unwrap();
    assert_eq!(csv(&a), csv(&replay));
    let other_jobs = Options {
        jobs: 1,
        ..opts(&subset, a.reps)
    };
    let again = advise(&input(FREEZE), &other_jobs, &Counter::default()).unwrap();
    assert_eq!(csv(&replay), csv(&again));
}

#[test]
fn every_row_meets_the_same_spike_schedule_and_start_times() {
    // Random hiccups and start times: what makes the comparison paired is that they
    // come from streams no fix touches, so repetition r of every row sees them alike.
    let random = FREEZE
        .replace(
            "at = [{ start = \"1.5s\", duration = \"6s\" }]",
            "interval = { dist = \"uniform\", min = \"1s\", max = \"3s\" }\n\
             duration = { dist = \"uniform\", min = \"1s\", max = \"5s\" }",
        )
        .replace("600KB", "2MB");
    assert_ne!(random, FREEZE);
    let fixes = [
        "eifel:option1:none",
        "std-proxy",
        "delay-rtrd",
        "peak-hopper",
    ];
    let a = advise(&input(&random), &opts(&fixes, 2), &Counter::default()).unwrap();
    assert_eq!(a.rows.len(), 5);
    for rep in 0..3 {
        let seed = spikelab_core::RngStreams::repetition_seed(a.seed, rep);
        let seen: Vec<_> = a
            .rows
            .iter()
            .map(|r| {
                let mut sim = r.candidate.sim.clone();
                sim.trace = spikelab_engine::TraceKinds::ALL;
                let res = spikelab_engine::run(&sim, seed).unwrap();
                let spikes: Vec<_> = res
                    .trace
                    .iter()
                    .filter(|t| matches!(t.event, spikelab_core::trace::TraceEvent::Spike { .. }))
                    .map(|t| t.time)
                    .collect();
                (res.flows[0].start, spikes)
            })
            .collect();
        // A run ends when its transfer does, so compare the spikes all rows lived through.
        let common = seen.iter().map(|s| s.1.len()).min().unwrap();
        assert!(common >= 2, "the runs meet spikes: {seen:?}");
        let prefix: Vec<_> = seen.iter().map(|(st, sp)| (st, &sp[..common])).collect();
        assert!(
            prefix.windows(2).all(|w| w[0] == w[1]),
            "rep {rep}: {seen:?}"
        );
    }
}

#[test]
fn a_fix_identical_to_the_baseline_is_not_a_row_and_network_boxes_go_on_the_spiking_link() {
    let a = advise(
        &input(FREEZE),
        &opts(&["no-detection", "std-proxy"], 2),
        &Counter::default(),
    )
    .unwrap();
    assert!(a.rows.iter().all(|r| r.candidate.label != "no-detection"));
    assert!(a.skipped.iter().any(|s| s.starts_with("no-detection")));
    assert_eq!(a.box_link.as_deref(), Some("l"));
    assert!(row(&a, "std-proxy").candidate.text.contains("std-proxy"));
}

#[test]
fn sack_detectors_switch_a_reno_flow_to_its_sack_variant() {
    let reno = FREEZE.replace(
        "workload = {",
        "tcp = { recovery = \"new-reno\" }\nworkload = {",
    );
    let a = advise(
        &input(&reno),
        &opts(&["dsack:option1:none"], 2),
        &Counter::default(),
    )
    .unwrap();
    let text = &row(&a, "dsack:option1:none").candidate.text;
    assert!(text.contains("new-reno-sack"), "{text}");
}

#[test]
fn the_budget_buys_repetitions_in_proportion_to_the_pilot() {
    assert_eq!(reps_within(4.0, 3, 1.0), 12);
    assert_eq!(
        reps_within(1.0, 3, 2.0),
        3,
        "an overrun pilot keeps its reps"
    );
    assert_eq!(reps_within(1e9, 3, 0.001), MAX_REPS);
}
