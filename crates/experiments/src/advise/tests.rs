//! Paths whose answer is known by construction (the known-answer set), and
//! determinism.

use super::input::Input;
use super::report::{verdict, write_csv};
use super::*;
use crate::runner::Counter;
use decide::Decision;

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
        reps: Reps::Fixed(reps),
        jobs: 2,
        fixes: fixes.iter().map(|s| s.to_string()).collect(),
        combine: false,
        ..Options::default()
    }
}

/// The default stopping rule, capped at `max` repetitions.
fn until(fixes: &[&str], max: u32) -> Options {
    Options {
        reps: Reps::Until { max },
        ..opts(fixes, 0)
    }
}

fn row<'a>(a: &'a Advice, label: &str) -> &'a Row {
    a.rows
        .iter()
        .find(|r| r.candidate.label == label)
        .unwrap_or_else(|| panic!("no row {label}"))
}

/// Every detector with the full restore of [Gurtov & Ludwig 2003] III.B option 1.
const FULL_RESTORE: [&str; 5] = [
    "eifel:option1:none",
    "frto:option1:none",
    "sack-frto:option1:none",
    "dsack:option1:none",
    "ack-timing:option1:none",
];

#[test]
fn on_a_freeze_far_longer_than_the_rto_without_loss_detection_and_restore_win_by_seconds() {
    let a = advise(
        &input(FREEZE),
        &until(&["eifel:option1:none", "no-detection"], 40),
        &Counter::default(),
    )
    .unwrap();
    let base = a.baseline();
    assert!(
        base.summary[metric_index("spurious_timeouts")].mean >= 1.0,
        "the path must cause spurious timeouts"
    );
    assert_eq!(base.summary[metric_index("genuine_timeouts")].mean, 0.0);
    let eifel = row(&a, "eifel:option1:none");
    assert_eq!(eifel.rank, 1);
    assert_eq!(
        eifel.decision(),
        Some(Decision::Better),
        "{:?}",
        eifel.verdict
    );
    // Without detection the timeout's go-back-N resends the flight and slow start
    // restarts from one segment; the full restore keeps the window, which saves the
    // round trips of climbing back to the flight (log2 of ~30 segments: about five
    // base RTTs), twice the 2 % margin of this 9.6 s download.
    let gain = -eifel.vs_baseline.mean;
    let rtt = base.summary[metric_index("min_rtt_s")].mean;
    assert!(
        (3.0 * rtt..8.0 * rtt).contains(&gain),
        "gain {gain} s, base RTT {rtt} s"
    );
    assert!(gain > 2.0 * a.margin.value, "{gain} vs {:?}", a.margin);
    assert!(a.settled(), "every row decided: {:?}", a.stop);
    assert!(answer::answer(&a).starts_with("**Make one change: eifel:option1:none**"));
}

#[test]
fn on_a_lossy_path_without_delay_every_detector_is_equivalent() {
    // The SACK detectors also switch the flow to SACK recovery, whose runs differ
    // seed by seed: telling them inside the margin takes a few hundred repetitions.
    let a = advise(
        &input(LOSSY),
        &until(&FULL_RESTORE, 320),
        &Counter::default(),
    )
    .unwrap();
    let base = a.baseline();
    assert!(
        base.summary[metric_index("retransmissions")].mean > 5.0,
        "the path must lose"
    );
    assert!(
        base.summary[metric_index("time_s")].ci95 > 0.0,
        "the losses vary by seed"
    );
    assert!(a.rows.len() >= 4, "most detectors are rows of their own");
    for r in a.rows.iter().filter(|r| r.candidate.fix.is_some()) {
        assert_eq!(
            r.decision(),
            Some(Decision::Equivalent),
            "{}: {:?} {:?}",
            r.candidate.label,
            r.vs_baseline,
            r.verdict
        );
    }
    assert!(answer::answer(&a).starts_with("**None: no fix changes"));
}

/// A constant 1 Mbit/s delivery trace (one 1500-byte opportunity every 12 ms).
fn capacity_trace(dir: &std::path::Path) -> Input {
    let lines: String = (1..=100).map(|i| format!("{}\n", 12 * i)).collect();
    let p = dir.join("flat.mahimahi");
    std::fs::write(&p, lines).unwrap();
    input::read(&p, input::TraceKind::Auto, &dir.join("out")).unwrap()
}

#[test]
fn on_a_capacity_bound_trace_every_sender_fix_is_equivalent_and_delaying_boxes_only_cost() {
    let dir = tempfile::tempdir().unwrap();
    let fixes = [
        "eifel:option1:none",
        "frto:option2:reseed",
        "peak-hopper",
        "rfc6298-min200ms",
        "linux-",
        "std-proxy",
        "delay-ftfd",
    ];
    let a = advise(
        &capacity_trace(dir.path()),
        &until(&fixes, 40),
        &Counter::default(),
    )
    .unwrap();
    assert!(a.rows.len() >= 6, "{:?}", a.skipped);
    for r in a.rows.iter().filter(|r| r.candidate.fix.is_some()) {
        // A box that holds packets back adds its delay where no spike hides it.
        let known = if r.candidate.label.starts_with("delay-") {
            Decision::Worse
        } else {
            Decision::Equivalent
        };
        assert_eq!(
            r.decision(),
            Some(known),
            "{}: {:?} {:?}",
            r.candidate.label,
            r.vs_baseline,
            r.verdict
        );
    }
    assert!(a.settled());
    assert!(answer::answer(&a).contains("What does not: detection settings"));
}

fn csv(a: &Advice) -> String {
    let mut out = Vec::new();
    write_csv(a, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_stopping_rule_gives_the_same_bytes_with_any_number_of_threads() {
    let subset = [
        "eifel:option1:none",
        "frto:option2:none",
        "std-proxy",
        "peak-hopper",
    ];
    let rule = Options {
        combine: true,
        ..until(&subset, 40)
    };
    let a = advise(&input(FREEZE), &rule, &Counter::default()).unwrap();
    assert!(
        a.rows.iter().any(|r| r.candidate.test_from > 0),
        "combinations ran"
    );
    let one = Options {
        jobs: 1,
        ..rule.clone()
    };
    let b = advise(&input(FREEZE), &one, &Counter::default()).unwrap();
    assert_eq!(csv(&a), csv(&b));
    assert_eq!(answer::answer(&a), answer::answer(&b));
}

#[test]
fn a_budget_run_and_a_stopping_rule_run_replay_with_their_reps() {
    let subset = ["eifel:option1", "std-proxy"];
    let budgeted = Options {
        reps: Reps::Budget(0.5),
        combine: true,
        ..opts(&subset, 0)
    };
    let a = advise(&input(FREEZE), &budgeted, &Counter::default()).unwrap();
    assert!(a.reps >= pilot(budgeted.reps) && a.stop == Stop::Budget);
    assert!(a.reps >= 2 * pilot(budgeted.reps));
    let fixed = |n| Options {
        combine: true,
        ..opts(&subset, n)
    };
    let replay = advise(&input(FREEZE), &fixed(a.reps), &Counter::default()).unwrap();
    let rows = |a: &Advice| -> Vec<(String, Vec<[f64; METRICS.len()]>)> {
        let r = a.rows.iter();
        r.map(|r| (r.candidate.label.clone(), r.runs.clone()))
            .collect()
    };
    assert_eq!(rows(&a), rows(&replay));
    let rule = Options {
        combine: true,
        ..until(&subset, 40)
    };
    // --reps N reruns the stopping rule's rows (judged at one look, not N's).
    let b = advise(&input(FREEZE), &rule, &Counter::default()).unwrap();
    let replay = advise(&input(FREEZE), &fixed(b.reps), &Counter::default()).unwrap();
    assert_eq!(rows(&b), rows(&replay));
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
    let a = advise(&input(&random), &opts(&fixes, 3), &Counter::default()).unwrap();
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
        &opts(&["no-detection", "std-proxy"], 3),
        &Counter::default(),
    )
    .unwrap();
    assert!(a.rows.iter().all(|r| r.candidate.label != "no-detection"));
    assert!(a.skipped.iter().any(|s| s.starts_with("no-detection")));
    assert_eq!(a.box_link.as_deref(), Some("l"));
    assert!(row(&a, "std-proxy").candidate.text.contains("std-proxy"));
    assert_eq!(verdict(a.baseline()), "baseline");
}

#[test]
fn a_stack_the_flows_keys_do_not_fit_is_left_out_with_the_field_and_the_reason() {
    // A Linux flow's `tcp.linux` keys do not fit the `modern` (RFC) stack: before they
    // were refused under another profile, its rows silently ran Linux's stack.
    let linux = FREEZE.replace(
        "workload = {",
        "profile = \"linux\"\ntcp = { linux = { so_rcvbuf = 1048576 } }\nworkload = {",
    );
    let p = plan(&input(&linux), &opts(&["modern", "linux-cubic"], 1)).unwrap();
    let labels: Vec<&str> = p.candidates.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["baseline", "linux-cubic"]);
    assert_eq!(
        p.skipped,
        [
            "modern: field `flow[0].tcp.linux`: `tcp.linux` keys need profile = \"linux\": \
          under another profile they would make the host a Linux one"
        ]
    );
}

#[test]
fn sack_detectors_switch_a_reno_flow_to_its_sack_variant() {
    let reno = FREEZE.replace(
        "workload = {",
        "tcp = { recovery = \"new-reno\" }\nworkload = {",
    );
    let a = advise(
        &input(&reno),
        &opts(&["dsack:option1:none"], 3),
        &Counter::default(),
    )
    .unwrap();
    let text = &row(&a, "dsack:option1:none").candidate.text;
    assert!(text.contains("new-reno-sack"), "{text}");
}

#[test]
fn combinations_join_the_best_sender_fixes_with_boxes_and_stacks_and_skip_repeats() {
    let fixes = [
        "eifel:option1:none",
        "peak-hopper",
        "std-proxy",
        "linux-cubic",
    ];
    let o = Options {
        combine: true,
        ..opts(&fixes, 4)
    };
    let a = advise(&input(FREEZE), &o, &Counter::default()).unwrap();
    assert!(
        a.combined.contains(&"eifel:option1:none".to_string()),
        "{:?}",
        a.combined
    );
    let combo = row(&a, "eifel:option1:none+std-proxy+linux-cubic");
    assert_eq!(combo.candidate.test_from, 2, "judged after the pilot");
    assert_eq!(combo.vs_baseline.n, 2);
    assert!(combo.candidate.text.contains("cubic") && combo.candidate.text.contains("std-proxy"));
    assert!(a
        .rows
        .iter()
        .any(|r| r.candidate.label == "std-proxy+linux-cubic"));
}

#[test]
fn the_looks_double_up_to_the_cap() {
    assert_eq!(looks(160), vec![20, 40, 80, 160]);
    assert_eq!(looks(100), vec![20, 40, 80, 100]);
    assert_eq!(looks(6), vec![6]);
    assert_eq!(pilot(Reps::Fixed(4)), 2);
    // A replay with --reps N >= 20 has the stopping rule's pilot, so the same rows.
    assert_eq!(pilot(Reps::Fixed(40)), pilot(Reps::Until { max: 160 }));
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
