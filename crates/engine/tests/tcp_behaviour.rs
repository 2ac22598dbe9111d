//! Scenario tests of baseline TCP behaviour on simple paths, with hand-checked
//! expectations. Every run also checks the engine's invariants (it returns an error
//! otherwise).

mod common;

use common::*;
use spikelab_core::trace::TraceEvent;
use spikelab_core::Time;
use spikelab_tcp::{DelayedAck, RecoveryKind, TcpConfig};

#[test]
fn a_single_flow_on_an_uncongested_path_reaches_the_bottleneck_rate() {
    // 10 Mbit/s, 10 ms; the window (1 MB) exceeds the pipe, the queue holds it all.
    let tcp = TcpConfig {
        mss: 1460,
        receiver_window: 1_000_000,
        ..TcpConfig::default()
    };
    let cfg = sim(
        vec![link("l", 10_000_000, 10, 2000)],
        vec![bulk("f", tcp, 20_000_000)],
    );
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let (from, to) = (Time::from_secs_f64(3.0), Time::from_secs_f64(13.0));
    let bytes: u64 = r
        .trace
        .iter()
        .filter(|t| t.time >= from && t.time < to)
        .filter_map(|t| match t.event {
            TraceEvent::Deliver { len, .. } => Some(len as u64),
            _ => None,
        })
        .sum();
    let measured = bytes as f64 * 8.0 / 10.0;
    // Payload share of each 1460-byte segment on the wire: 1460 / (1460 + 40 + 12).
    let theory = 10e6 * 1460.0 / 1512.0;
    assert!(
        (measured / theory - 1.0).abs() < 0.02,
        "measured {measured:.0} bit/s vs {theory:.0}"
    );
    assert_eq!(r.flows[0].retransmissions, 0);
}

#[test]
fn slow_start_doubles_the_window_every_round_trip() {
    // No delayed ACKs, IW 2: rounds of 2, 4, 8, 16, 32 segments, 100 ms apart.
    let mut tcp = tcp(RecoveryKind::NewReno, 1000);
    tcp.delayed_ack = DelayedAck {
        enabled: false,
        ..DelayedAck::default()
    };
    let cfg = sim(
        vec![link("l", 100_000_000, 50, 5000)],
        vec![bulk("f", tcp, 200_000)],
    );
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let mut rounds = [0u32; 5];
    for t in &r.trace {
        if let TraceEvent::Send { .. } = t.event {
            let round = (t.time.as_secs_f64() / 0.1) as usize;
            if round < 5 {
                rounds[round] += 1;
            }
        }
    }
    assert_eq!(rounds, [2, 4, 8, 16, 32]);
}

/// Round-trip time of the loss tests' path: 2 x 50 ms plus serialisation.
const RTT: f64 = 0.1;

fn run_with_losses(recovery: RecoveryKind, losses: &[u64]) -> spikelab_engine::RunResult {
    // 10 Mbit/s, 50 ms, a 30-segment receiver window: window-limited, no congestion.
    let mut cfg = sim(
        vec![link("l", 10_000_000, 50, 1000)],
        vec![bulk("f", tcp(recovery, 30), 300_000)],
    );
    drop_segments(&mut cfg, losses);
    spikelab_engine::run(&cfg, 1).unwrap()
}

#[test]
fn newreno_recovers_k_losses_in_one_window_in_k_round_trips_without_a_timeout() {
    let r = run_with_losses(RecoveryKind::NewReno, &[100, 102, 104]);
    let f = &r.flows[0];
    assert_eq!(
        (f.timeouts, f.fast_retransmits, f.retransmissions),
        (0, 1, 3)
    );
    let t = retransmission_times(&r);
    for gap in t.windows(2).map(|w| w[1] - w[0]) {
        assert!(
            gap > 0.9 * RTT && gap < 1.5 * RTT,
            "one retransmission per round trip: {t:?}"
        );
    }
}

#[test]
fn sack_recovery_repairs_several_losses_in_about_one_round_trip() {
    for recovery in [
        RecoveryKind::RenoSack,
        RecoveryKind::NewRenoSack,
        RecoveryKind::Fack,
    ] {
        let r = run_with_losses(recovery, &[100, 102, 104]);
        let f = &r.flows[0];
        assert_eq!((f.timeouts, f.retransmissions), (0, 3), "{recovery:?}");
        let t = retransmission_times(&r);
        assert!(
            t[2] - t[0] < RTT,
            "{recovery:?}: all holes repaired within one round trip: {t:?}"
        );
    }
}

#[test]
fn reno_without_sack_times_out_on_several_losses_in_a_window() {
    let r = run_with_losses(RecoveryKind::Reno, &[100, 102, 104, 106]);
    assert!(r.flows[0].timeouts >= 1, "{:?}", r.flows[0]);
    assert!(
        r.timeouts.iter().all(|t| !t.truth.is_spurious()),
        "these timeouts are genuine"
    );
}

#[test]
fn a_run_without_losses_sends_each_segment_once() {
    let r = run_with_losses(RecoveryKind::NewReno, &[]);
    let f = &r.flows[0];
    assert_eq!(f.data_segments_sent, 300);
    assert_eq!(f.goodput(), 1.0);
    assert!(f.completed.is_some());
}
