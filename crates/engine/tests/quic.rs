//! Whole runs of the QUIC model (crates/quic) through the engine: completion, ground
//! truth of its loss declarations and probe timeouts, the PTO back-off across a link
//! suspension (the Huitema case), and invariants over random spike schedules.

mod common;

use common::*;
use proptest::prelude::*;
use spikelab_core::{ByteSize, Dur};
use spikelab_engine::*;
use spikelab_net::freeze::{FreezePoint, FrozenArrivals};
use spikelab_net::spike::{HiccupConfig, SpikeAt};
use spikelab_net::{Dir, SpikeConfig};
use spikelab_quic::{QuicCc, QuicConfig, UndoRule};

fn quic_flow(q: QuicConfig, bytes: u64) -> FlowSpec {
    FlowSpec {
        name: "q".into(),
        route: vec![Hop {
            link: 0,
            dir: Dir::Forward,
        }],
        start: StartTime::At(Dur::ZERO),
        kind: FlowKind::Quic {
            quic: Box::new(q),
            workload: Workload::Bulk {
                bytes: ByteSize(bytes),
            },
        },
    }
}

/// Suspends both directions of `l` from `start` for `len`: holding every packet
/// (after the queue, wire held, arrivals queued), or, with `drop`, losing what arrives
/// meanwhile (in front of the queue, arrivals dropped: a link that is down).
fn suspend(
    mut l: spikelab_net::LinkConfig,
    start: Dur,
    len: Dur,
    drop: bool,
) -> spikelab_net::LinkConfig {
    let (freeze_at, arrivals) = if drop {
        (FreezePoint::BeforeQueue, FrozenArrivals::Dropped)
    } else {
        (FreezePoint::AfterQueue, FrozenArrivals::Queued)
    };
    l.spikes.push(SpikeConfig::Hiccup(HiccupConfig {
        at: vec![SpikeAt {
            start,
            duration: len,
        }],
        freeze_at,
        arrivals,
        ..HiccupConfig::default()
    }));
    l
}

/// When the client sent its Initials (s).
fn initial_sends(r: &RunResult) -> Vec<f64> {
    r.captures[0]
        .iter()
        .filter(|c| c.packet.kind == spikelab_core::PacketKind::Syn && c.at == Endpoint::Sender)
        .map(|c| c.time.as_secs_f64())
        .collect()
}

/// kInitialRtt 1/3 s: the handshake's PTO (no max_ack_delay) is 3 x 333 333 us, 1 s.
fn one_second_pto() -> QuicConfig {
    QuicConfig {
        initial_rtt: Dur::from_micros(333_333),
        ..QuicConfig::default()
    }
}

#[test]
fn a_bulk_transfer_completes_without_loss_declarations_on_a_clean_path() {
    // No pacing: the queue holds a whole slow start of 200 kB.
    let cfg = sim(
        vec![link("l", 2_000_000, 50, 1000)],
        vec![quic_flow(QuicConfig::default(), 200_000)],
    );
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let f = &r.flows[0];
    assert!(f.completed.is_some(), "{f:?}");
    assert_eq!(f.declarations, DeclarationCounts::default());
    assert_eq!(f.retransmissions, 0);
    assert_eq!(f.data_segments_sent, 200_000u64.div_ceil(1159));
    assert!(
        r.timeouts.is_empty(),
        "a QUIC sender reports no TCP timeouts"
    );
}

#[test]
fn dropped_packets_are_declared_lost_genuinely_and_sent_again_in_new_packets() {
    let mut cfg = sim(
        vec![link("l", 2_000_000, 50, 100)],
        vec![quic_flow(QuicConfig::default(), 200_000)],
    );
    drop_segments(&mut cfg, &[20, 21, 60]);
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let f = &r.flows[0];
    assert!(f.completed.is_some());
    let d = f.declarations;
    assert_eq!(d.loss_declarations, 3, "{d:?}");
    assert_eq!(d.spurious_loss_declarations, 0);
    assert_eq!(f.retransmissions, 3);
    assert_eq!(f.unnecessary_retransmissions, 0);
}

#[test]
fn a_delay_spike_fires_spurious_ptos_that_declare_nothing_lost() {
    // The link holds every packet for 3 s: the PTO fires, probes queue behind the
    // held packets, nothing is lost, and the ACKs that come after prove it spurious.
    let l = suspend(
        link("l", 2_000_000, 50, 1000),
        Dur::from_secs(1),
        Dur::from_secs(3),
        false,
    );
    let cfg = sim(vec![l], vec![quic_flow(QuicConfig::default(), 2_000_000)]);
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let d = r.flows[0].declarations;
    assert!(r.flows[0].completed.is_some());
    assert!(d.ptos >= 1, "{d:?}");
    assert_eq!(d.spurious_ptos, d.ptos, "{d:?}");
    assert_eq!(d.persistent_congestion, 0);
}

/// C. Huitema, "Suspending the exponential backoff" (privateoctopus.com,
/// 2023-11-27): 1 s initial PTO, the link suspended for 10 s right after a packet is
/// sent, every packet sent meanwhile lost. RFC 9002 A.8 arms each PTO from the last
/// ack-eliciting packet sent (a probe), so probes leave at 1, 3, 7 and 15 s: the
/// first to get through leaves 5 s after the link returns. (Huitema's table, timed
/// from the suspension's start, has them at 1, 2, 4, 8 and 16 s: 6 s after.)
#[test]
fn huitema_a_ten_second_outage_after_a_one_second_pto_first_probe_through_at_15s() {
    let l = suspend(
        link("l", 10_000_000, 1, 100),
        Dur::from_micros(1),
        Dur::from_secs(10),
        true,
    );
    let mut cfg = sim(vec![l], vec![quic_flow(one_second_pto(), 1000)]);
    cfg.pcap = true;
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let f = &r.flows[0];
    assert!(f.completed.is_some());
    let sends = initial_sends(&r);
    let rounded: Vec<u64> = sends.iter().map(|s| s.round() as u64).collect();
    assert_eq!(rounded, [0, 1, 3, 7, 15], "{sends:?}");
    let d = f.declarations;
    assert_eq!(
        (d.ptos, d.spurious_ptos),
        (4, 0),
        "every probe before 10 s was lost: {d:?}"
    );
    let done = f.completed.unwrap().as_secs_f64();
    assert!((15.0..15.1).contains(&done), "completed at {done}");
}

/// The same suspension as a delay spike (the link holds its packets): the Initial
/// sent at 0 and the probes at 1, 3 and 7 s arrive when the link returns at 10 s;
/// all three PTOs were spurious and no probe is needed after 10 s.
#[test]
fn a_ten_second_spike_holding_packets_makes_every_pto_spurious() {
    let l = suspend(
        link("l", 10_000_000, 1, 100),
        Dur::from_micros(1),
        Dur::from_secs(10),
        false,
    );
    let mut cfg = sim(vec![l], vec![quic_flow(one_second_pto(), 1000)]);
    cfg.pcap = true;
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let f = &r.flows[0];
    let rounded: Vec<u64> = initial_sends(&r).iter().map(|s| s.round() as u64).collect();
    assert_eq!(rounded, [0, 1, 3, 7]);
    let d = f.declarations;
    assert_eq!((d.ptos, d.spurious_ptos), (3, 3), "{d:?}");
    let done = f.completed.unwrap().as_secs_f64();
    assert!((10.0..10.1).contains(&done), "completed at {done}");
}

/// A 5 s outage losing every packet in the middle of a transfer: the probe that gets
/// through after it is acknowledged, every packet sent before it is declared lost
/// (genuinely), and their send times span more than the persistent congestion
/// duration (7.6): the window collapses.
#[test]
fn an_outage_losing_a_window_is_declared_persistent_congestion() {
    let l = suspend(
        link("l", 2_000_000, 50, 1000),
        Dur::from_secs(1),
        Dur::from_secs(5),
        true,
    );
    let cfg = sim(vec![l], vec![quic_flow(QuicConfig::default(), 3_000_000)]);
    let r = spikelab_engine::run(&cfg, 1).unwrap();
    let f = &r.flows[0];
    assert!(f.completed.is_some());
    let d = f.declarations;
    assert!(d.persistent_congestion >= 1, "{d:?}");
    assert!(
        d.loss_declarations > 0 && d.spurious_loss_declarations == 0,
        "{d:?}"
    );
    assert!(d.ptos >= 3 && d.spurious_ptos == 0, "{d:?}");
}

/// Reordering: a box delays every tenth data packet by 200 ms (100 ms RTT) while the
/// later ones pass it. Three packets acknowledged above a held one declare it lost
/// (6.1.1), spuriously (it is still in the network); when its ACK comes, quinn's rule
/// finds the congestion event spurious and its CUBIC restores the window, RFC 9002's
/// undoes nothing.
#[test]
fn reordered_packets_are_spurious_loss_declarations_that_quinn_undoes() {
    use spikelab_net::middlebox::delay_injection::DelayInjectionConfig;
    use spikelab_net::middlebox::Selection;
    let run = |undo| {
        let q = QuicConfig {
            cc: QuicCc::Cubic,
            undo,
            ..QuicConfig::default()
        };
        let mut cfg = sim(
            vec![link("l", 10_000_000, 50, 1000)],
            vec![quic_flow(q, 300_000)],
        );
        cfg.middleboxes.push(MiddleboxSpec {
            link: 0,
            config: spikelab_net::MiddleboxConfig::DelayInjection(DelayInjectionConfig {
                d0: Dur::from_millis(200),
                n: 10,
                select: Selection::EveryNth,
                ..DelayInjectionConfig::default()
            }),
        });
        spikelab_engine::run(&cfg, 1).unwrap().flows[0].clone()
    };
    let quinn = run(UndoRule::Quinn);
    let d = quinn.declarations;
    assert!(d.loss_declarations > 0, "{d:?}");
    assert_eq!(d.spurious_loss_declarations, d.loss_declarations, "{d:?}");
    assert!(d.undos > 0, "{d:?}");
    assert!(quinn.unnecessary_retransmissions > 0);
    let rfc = run(UndoRule::None);
    assert_eq!(rfc.declarations.undos, 0);
    assert!(rfc.declarations.spurious_loss_declarations > 0);
}

fn cc() -> impl Strategy<Value = QuicCc> {
    prop_oneof![Just(QuicCc::NewReno), Just(QuicCc::Cubic)]
}

fn undo() -> impl Strategy<Value = UndoRule> {
    prop_oneof![
        Just(UndoRule::None),
        Just(UndoRule::Quinn),
        Just(UndoRule::Msquic),
        Just(UndoRule::Quiche),
        Just(UndoRule::Picoquic)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Whatever the controller, undo rule, PTO cap, losses and spikes: the sender's
    /// invariants hold at every event (the run returns Ok), every byte arrives, the
    /// judged declarations never outnumber the declarations, and a run replays bit for
    /// bit.
    #[test]
    fn quic_runs_over_random_spikes_keep_their_invariants_and_deliver_every_byte(
        cc in cc(),
        undo in undo(),
        cap in proptest::option::of(1u64..4),
        queue in 5u64..200,
        losses in proptest::collection::vec(0u64..150, 0..10),
        spikes in proptest::collection::vec((0.2f64..8.0, 0.0f64..5.0, any::<bool>()), 0..3),
        ack_loss in proptest::option::of((0.0f64..6.0, 0.0f64..2.0)),
        ping_pong in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let q = QuicConfig {
            cc,
            undo,
            pto_max: cap.map(Dur::from_secs),
            ..QuicConfig::default()
        };
        let mut l = link("l", 1_000_000, 40, queue);
        let mut at = 0.0;
        for (gap, len, drop) in spikes {
            at += gap;
            l = suspend(l, Dur::from_secs_f64(at), Dur::from_secs_f64(len), drop);
            at += len + 0.01;
        }
        let mut flow = quic_flow(q, 150_000);
        if ping_pong {
            if let FlowKind::Quic { workload, .. } = &mut flow.kind {
                *workload = Workload::PingPong { packets: 20, bytes: ByteSize(3000) };
            }
        }
        let mut cfg = sim(vec![l], vec![flow]);
        drop_segments(&mut cfg, &losses);
        if let Some((from, len)) = ack_loss {
            cfg.drops.push(DropRule {
                link: 0,
                flow: 0,
                target: DropTarget::Acks,
                after: Dur::from_secs_f64(from),
                until: Some(Dur::from_secs_f64(from + len)),
            });
        }
        let r = spikelab_engine::run(&cfg, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let f = &r.flows[0];
        prop_assert!(f.completed.is_some(), "unfinished: {:?}", f);
        prop_assert_eq!(f.bytes, if ping_pong { 60_000 } else { 150_000 });
        let d = f.declarations;
        prop_assert!(d.spurious_ptos <= d.ptos && d.spurious_loss_declarations <= d.loss_declarations);
        // An undo reverses a congestion response: to loss declarations, or, under
        // picoquic's rule, also to a PTO (which drops its window).
        let responses = match undo {
            UndoRule::Picoquic => d.loss_declarations + d.ptos,
            _ => d.loss_declarations,
        };
        prop_assert!(d.undos <= responses);
        prop_assert!(f.retransmissions <= f.data_segments_sent);
        let again = spikelab_engine::run(&cfg, seed).unwrap();
        prop_assert_eq!(format!("{:?}", again.flows), format!("{:?}", r.flows));
    }
}

/// Long stalls on a slow path (the QUIC study's GPRS path: 30 kbit/s, 300 ms, a
/// 9-packet buffer, three 15 s hiccups): an ACK that arrives after a stall resets the
/// PTO back-off while the newest probe is older than one PTO, so RFC 9002 A.8's
/// `time_of_last_ack_eliciting_packet + PTO` lies in the past. Such a timer fires at
/// once: the run keeps simulated time moving forwards (the links assert it in debug
/// builds, and the world asserts that no deadline is armed in the past) and delivers
/// every byte, under every undo rule, with and without a PTO cap.
#[test]
fn a_probe_timeout_that_falls_in_the_past_after_a_long_stall_fires_at_once() {
    for undo in [
        UndoRule::None,
        UndoRule::Quinn,
        UndoRule::Msquic,
        UndoRule::Quiche,
        UndoRule::Picoquic,
    ] {
        for cap in [None, Some(Dur::from_secs(2))] {
            let q = QuicConfig {
                cc: QuicCc::Cubic,
                undo,
                pto_max: cap,
                ..QuicConfig::default()
            };
            let mut l = link("gprs", 30_000, 300, 9);
            for start in [20, 55, 90] {
                l = suspend(l, Dur::from_secs(start), Dur::from_secs(15), false);
            }
            let cfg = sim(vec![l], vec![quic_flow(q, 300_000)]);
            for seed in 1..=3 {
                let r = spikelab_engine::run(&cfg, seed).unwrap();
                let f = &r.flows[0];
                assert!(
                    f.completed.is_some(),
                    "{undo:?} cap {cap:?} seed {seed}: {f:?}"
                );
                assert_eq!(f.bytes, 300_000);
            }
        }
    }
}
