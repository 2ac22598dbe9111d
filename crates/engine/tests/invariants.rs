//! Properties that hold for every run: determinism, conservation of packets, delivery
//! of every byte, on random paths, losses, spikes and TCP variants.

mod common;

use common::*;
use proptest::prelude::*;
use spikelab_core::{BitRate, ByteSize, Dur};
use spikelab_engine::*;
use spikelab_net::spike::{HiccupConfig, IntervalFrom};
use spikelab_net::{Dir, Distribution, SpikeConfig};
use spikelab_tcp::spurious::DetectorKind;
use spikelab_tcp::RecoveryKind;

/// A path with random hiccups (uniform durations and intervals), two TCP flows and
/// CBR cross traffic.
fn spiky(seed_dependent_start: bool) -> SimConfig {
    let mut l = link("gprs", 200_000, 100, 20);
    l.spikes.push(SpikeConfig::Hiccup(HiccupConfig {
        interval: Distribution::Uniform {
            min: Dur::from_secs(5),
            max: Dur::from_secs(10),
        },
        duration: Distribution::Uniform {
            min: Dur::from_millis(500),
            max: Dur::from_secs(3),
        },
        interval_from: IntervalFrom::End,
        first: None,
        stationary: true,
        at: Vec::new(),
        ..HiccupConfig::default()
    }));
    let mut a = bulk("a", tcp(RecoveryKind::NewRenoSack, 40), 300_000);
    a.kind = match a.kind {
        FlowKind::Tcp { mut tcp, workload } => {
            let spurious = &mut std::sync::Arc::make_mut(&mut tcp).spurious;
            spurious.driver = Some(DetectorKind::Eifel);
            spurious.observe = vec![DetectorKind::Dsack, DetectorKind::AckTiming];
            FlowKind::Tcp { tcp, workload }
        }
        k => k,
    };
    let mut b = bulk("b", tcp(RecoveryKind::Reno, 20), 200_000);
    if seed_dependent_start {
        b.start = StartTime::Uniform {
            min: Dur::ZERO,
            max: Dur::from_secs(5),
        };
    }
    let cbr = FlowSpec {
        name: "cbr".into(),
        route: vec![Hop {
            link: 0,
            dir: Dir::Forward,
        }],
        start: StartTime::At(Dur::from_secs(1)),
        kind: FlowKind::Cbr {
            rate: BitRate(50_000),
            payload_bytes: 500,
            stop: Some(Dur::from_secs(30)),
        },
    };
    sim(vec![l], vec![a, b, cbr])
}

fn fingerprint(r: &RunResult) -> String {
    format!("{:?}{:?}{:?}{:?}", r.flows, r.timeouts, r.links, r.trace)
}

#[test]
fn the_same_seed_gives_the_same_run_bit_for_bit() {
    let cfg = spiky(true);
    let a = spikelab_engine::run(&cfg, 7).unwrap();
    let b = spikelab_engine::run(&cfg, 7).unwrap();
    assert_eq!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn different_seeds_draw_different_spikes_and_start_times() {
    let cfg = spiky(true);
    let a = spikelab_engine::run(&cfg, 7).unwrap();
    let b = spikelab_engine::run(&cfg, 8).unwrap();
    assert_ne!(a.flows[1].start, b.flows[1].start);
    let spikes = |r: &RunResult| {
        r.trace
            .iter()
            .filter(|t| matches!(t.event, spikelab_core::trace::TraceEvent::Spike { .. }))
            .map(|t| t.time)
            .collect::<Vec<_>>()
    };
    assert_ne!(spikes(&a), spikes(&b));
}

#[test]
fn cbr_cross_traffic_sends_at_its_rate_and_every_tcp_flow_finishes() {
    let r = spikelab_engine::run(&spiky(false), 3).unwrap();
    // 50 kbit/s of 528-byte datagrams for 29 s: 29 * 50000 / (528 * 8) = 343.3.
    let cbr = &r.flows[2];
    assert!((cbr.data_segments_sent as i64 - 343).abs() <= 1, "{cbr:?}");
    assert!(r.flows[..2].iter().all(|f| f.completed.is_some()));
}

#[test]
fn ping_pong_sends_each_message_only_after_the_previous_is_acknowledged() {
    let mut f = bulk("pp", tcp(RecoveryKind::NewReno, 30), 0);
    f.kind = match f.kind {
        FlowKind::Tcp { tcp, .. } => FlowKind::Tcp {
            tcp,
            workload: Workload::PingPong {
                packets: 40,
                bytes: ByteSize(1000),
            },
        },
        k => k,
    };
    let r = spikelab_engine::run(&sim(vec![link("l", 1_500_000, 50, 100)], vec![f]), 1).unwrap();
    let sends: Vec<f64> = r
        .trace
        .iter()
        .filter(|t| matches!(t.event, spikelab_core::trace::TraceEvent::Send { .. }))
        .map(|t| t.time.as_secs_f64())
        .collect();
    assert_eq!(sends.len(), 40);
    // One message per round trip (~100 ms plus a delayed-ACK wait of up to 100 ms).
    assert!(sends.windows(2).all(|w| w[1] - w[0] > 0.1), "{sends:?}");
    assert_eq!(r.flows[0].bytes, 40_000);
    assert!(r.flows[0].completed.is_some());
}

fn recovery() -> impl Strategy<Value = RecoveryKind> {
    prop_oneof![
        Just(RecoveryKind::Reno),
        Just(RecoveryKind::NewReno),
        Just(RecoveryKind::RenoSack),
        Just(RecoveryKind::NewRenoSack),
        Just(RecoveryKind::Fack),
    ]
}

fn driver() -> impl Strategy<Value = Option<DetectorKind>> {
    prop_oneof![
        Just(None),
        Just(Some(DetectorKind::Eifel)),
        Just(Some(DetectorKind::Frto)),
        Just(Some(DetectorKind::AckTiming)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever the variant, losses and spikes: the invariants hold (the run returns
    /// Ok), every byte is delivered, and the sequence space only moves forward.
    #[test]
    fn every_run_keeps_its_invariants_and_delivers_every_byte(
        recovery in recovery(),
        driver in driver(),
        window in 4u64..60,
        queue in 3u64..80,
        losses in proptest::collection::vec(0u64..200, 0..12),
        spike_at in 0.5f64..20.0,
        spike_len in 0.0f64..6.0,
        timestamps in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut t = tcp(recovery, window);
        t.timestamps = timestamps || driver == Some(DetectorKind::Eifel);
        t.spurious.driver = driver;
        let l = with_hiccup(link("l", 1_000_000, 40, queue), spike_at, spike_len);
        let mut cfg = sim(vec![l], vec![bulk("f", t, 200_000)]);
        cfg.trace = spikelab_engine::TraceKinds::ALL;
        drop_segments(&mut cfg, &losses);
        let r = spikelab_engine::run(&cfg, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(r.flows[0].completed.is_some(), "unfinished: {:?}", r.flows[0]);
        let mut last_una = 0;
        for rec in &r.trace {
            if let spikelab_core::trace::TraceEvent::SndState { snd_una, .. } = rec.event {
                prop_assert!(snd_una >= last_una, "snd_una went back");
                last_una = snd_una;
            }
        }
        prop_assert_eq!(last_una, 200_000);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A run that keeps some kinds of trace record keeps exactly those records of the
    /// full trace, in the same order, and its results are the same: what a run records
    /// never changes what it does.
    #[test]
    fn a_run_keeping_some_trace_kinds_keeps_those_records_of_the_full_trace(
        mask in 0u16..(1 << 11),
        seed in any::<u64>(),
    ) {
        use spikelab_engine::TraceKinds;
        let kinds = [
            TraceKinds::SEND, TraceKinds::ACK_RECV, TraceKinds::DELIVER, TraceKinds::DROP,
            TraceKinds::CWND, TraceKinds::RTO, TraceKinds::SRTT, TraceKinds::RTT_SAMPLE,
            TraceKinds::SND_STATE, TraceKinds::TIMEOUT, TraceKinds::SPIKE,
        ]
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .fold(TraceKinds::NONE, |k, (_, &b)| k.union(b));
        let full = spiky(true);
        let mut some = full.clone();
        some.trace = kinds;
        let a = spikelab_engine::run(&full, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let b = spikelab_engine::run(&some, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let kept: Vec<_> = a.trace.iter().filter(|r| kinds.keeps(&r.event)).copied().collect();
        prop_assert!(kinds == TraceKinds::NONE || !a.trace.is_empty());
        prop_assert_eq!(&b.trace, &kept);
        prop_assert_eq!(
            format!("{:?}{:?}{:?}", a.flows, a.timeouts, a.links),
            format!("{:?}{:?}{:?}", b.flows, b.timeouts, b.links)
        );
    }
}
