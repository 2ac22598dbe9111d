//! The `linux` grid of experiments/std-proxy.toml: why the STD proxy ([Kim & Cho 2003])
//! changes nothing for a default Linux host, and does act once the host's early undo
//! is off (docs/src/reproduction-std-proxy.md, "Why the proxy changes nothing for a
//! Linux sender"). One cell: 8 KB window, 50 kbit/s, the scenario's seed; and ten
//! repetitions at 64 KB, 100 kbit/s, where the proxy multiplies that host's timeouts.

use spikelab_engine::RunResult;
use spikelab_tcp::spurious::{DetectorKind, Verdict};
use std::path::Path;

/// scenarios/std-proxy.toml with the grid's `linux-reno` host, the cell's rate and
/// window, `extra` on top, and the proxy kept or removed; repetition 0.
fn run(extra: &[(&str, toml::Value)], proxy: bool) -> RunResult {
    run_rep(extra, proxy, 0)
}

/// [`run`]'s repetition `rep` (its seed as `--reps` derives it).
fn run_rep(extra: &[(&str, toml::Value)], proxy: bool, rep: u64) -> RunResult {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/std-proxy.toml");
    let mut doc: toml::Table = std::fs::read_to_string(&file).unwrap().parse().unwrap();
    let mut sets: Vec<(&str, toml::Value)> = vec![
        ("flow.0.profile", "linux".into()),
        ("flow.0.tcp.linux.tcp_congestion_control", "reno".into()),
        ("flow.0.tcp.recovery", "reno-sack".into()),
        ("flow.0.tcp.timestamps", true.into()),
        ("link.1.rate", "50kbit/s".into()),
        ("flow.0.tcp.receiver_window", 8192.into()),
    ];
    sets.extend(extra.iter().cloned());
    if !proxy {
        sets.push(("middlebox", toml::Value::Array(vec![])));
    }
    for (path, value) in sets {
        spikelab_scenario::set_path(&mut doc, path, value).unwrap();
    }
    let s = spikelab_scenario::parse(&toml::to_string(&doc).unwrap(), "std-proxy.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    let seed = spikelab_core::rng::RngStreams::repetition_seed(s.run().seed, rep);
    spikelab_engine::run(&s.to_sim(), seed).unwrap()
}

/// Timeouts the STD proxy called spurious.
fn proxy_spurious(r: &RunResult) -> usize {
    called_spurious(r, DetectorKind::StdProxy)
}

/// Timeouts `detector` called spurious.
fn called_spurious(r: &RunResult, detector: DetectorKind) -> usize {
    r.timeouts
        .iter()
        .filter(|t| {
            t.verdicts
                .iter()
                .any(|v| v.detector == detector && v.verdict == Verdict::Spurious)
        })
        .count()
}

/// Data segments the cellular link delivered to the mobile.
fn cellular_delivered(r: &RunResult) -> u64 {
    let l = r
        .links
        .iter()
        .find(|l| l.name == "cellular" && l.dir == "forward");
    l.expect("the cellular link's forward direction").delivered
}

#[test]
fn a_default_linux_host_leaves_the_std_proxy_nothing_to_filter() {
    let (none, std) = (run(&[], false), run(&[], true));
    // The proxy is there and judges the host's timeouts...
    assert!(proxy_spurious(&std) > 10, "{}", proxy_spurious(&std));
    assert_eq!(proxy_spurious(&none), 0);
    // ...but every retransmission passes it before its verdict, so nothing changes.
    let (a, b) = (&none.flows[0], &std.flows[0]);
    assert_eq!(a.download_time(), b.download_time());
    assert_eq!(a.retransmissions, b.retransmissions);
    assert_eq!(a.timeouts, b.timeouts);
    assert_eq!(cellular_delivered(&none), cellular_delivered(&std));
    assert_eq!(cellular_delivered(&std), b.data_segments_sent);
}

/// The grid's `linux-reno-nots` host: no timestamps, no F-RTO.
fn without_timestamps_and_frto() -> Vec<(&'static str, toml::Value)> {
    vec![
        ("flow.0.tcp.timestamps", false.into()),
        ("flow.0.tcp.linux.tcp_timestamps", 0.into()),
        ("flow.0.tcp.linux.tcp_frto", 0.into()),
    ]
}

#[test]
fn without_timestamps_and_frto_the_linux_host_goes_back_n_and_the_proxy_filters() {
    let nots = without_timestamps_and_frto();
    let (none, std) = (run(&nots, false), run(&nots, true));
    let with_undo = run(&[], false);
    assert!(none.flows[0].retransmissions > 2 * with_undo.flows[0].retransmissions);
    // The proxy keeps go-back-N retransmissions off the cellular link.
    let sent = std.flows[0].data_segments_sent;
    assert!(
        cellular_delivered(&std) < sent,
        "{} of {sent}",
        cellular_delivered(&std)
    );
    assert_eq!(cellular_delivered(&none), none.flows[0].data_segments_sent);
}

/// At 64 KB and 100 kbit/s (docs/src/reproduction-std-proxy.md, "Why the proxy multiplies
/// the timeouts of a host without timestamps"): the proxy discards the go-back-N
/// retransmissions (III.B) and removes the duplicate ACKs of the ones it forwarded
/// (III.D), so no D-SACK reaches the host and its only undo never runs; the halved
/// window shortens the base station's queue, the RTO falls below the hiccups and the
/// timer fires in hiccups that left the undone host's larger RTO alone. Per
/// repetition the effect is all or nothing (a run whose RTO stays above the
/// hiccups times out once or twice either way), so ten repetitions are summed.
#[test]
fn the_std_proxy_hides_the_dsack_undo_so_a_host_without_timestamps_times_out_more() {
    let mut nots = without_timestamps_and_frto();
    nots.push(("link.1.rate", "100kbit/s".into()));
    nots.push(("flow.0.tcp.receiver_window", 65535.into()));
    let (mut undone, mut proxied, mut a, mut b) = (0, 0, 0, 0);
    for rep in 0..10 {
        let (none, std) = (run_rep(&nots, false, rep), run_rep(&nots, true, rep));
        // Without the proxy the host undoes its timeouts by D-SACK; with it, never.
        undone += called_spurious(&none, DetectorKind::LinuxUndo);
        assert_eq!(
            called_spurious(&std, DetectorKind::LinuxUndo),
            0,
            "rep {rep}"
        );
        proxied += proxy_spurious(&std);
        (a, b) = (a + none.flows[0].timeouts, b + std.flows[0].timeouts);
    }
    assert!(
        undone > 0 && proxied > 0,
        "{undone} undone, {proxied} judged"
    );
    // ...and the timer fires several times as often.
    assert!(b > 4 * a && a > 0, "{b} with the proxy against {a} without");
}
