//! Scenario tests of spurious-timeout detection and response, each set up as the
//! papers' figures describe and checked against hand-derived expectations and the
//! simulator's ground truth.

mod common;

use common::*;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{Dur, Time};
use spikelab_engine::*;
use spikelab_tcp::recovery::PipeRule;
use spikelab_tcp::response::{Restore, RtoAdapt};
use spikelab_tcp::rto::{BackoffReset, RtoConfig};
use spikelab_tcp::spurious::{DetectorKind, Verdict};
use spikelab_tcp::{EchoRule, RecoveryKind, TcpConfig};

// ----- [Gurtov & Ludwig 2002] Figs. 2 and 3: a 5 s spike in slow start, 30 kbit/s, 300 ms ------

fn gprs_spike(tcp: TcpConfig) -> RunResult {
    let l = with_hiccup(link("gprs", 30_000, 300, 100), 3.0, 5.0);
    spikelab_engine::run(&sim(vec![l], vec![bulk("f", tcp, 60_000)]), 1).unwrap()
}

fn eifel(restore: Restore) -> TcpConfig {
    let mut tcp = gprs_reno();
    tcp.spurious.driver = Some(DetectorKind::Eifel);
    tcp.spurious.response.restore = restore;
    tcp
}

/// Time of the first timeout and of the driver's verdict on it.
fn timeout_and_verdict(r: &RunResult) -> (Time, Time) {
    let t = &r.timeouts[0];
    (
        t.time,
        t.verdicts
            .iter()
            .find(|v| v.drove)
            .expect("the driver decided")
            .at,
    )
}

#[test]
fn fig2_without_eifel_a_spurious_timeout_causes_go_back_n_and_a_spurious_fast_retransmit() {
    let r = gprs_spike(gprs_reno());
    let f = &r.flows[0];
    assert_eq!(r.timeouts.len(), 1);
    assert!(
        r.timeouts[0].truth.is_spurious(),
        "the spike only delayed the segment"
    );
    // Go-back-N resends segments the receiver already has...
    assert!(f.unnecessary_retransmissions >= 5, "{f:?}");
    // ... whose duplicate ACKs trigger a fast retransmit, since the bug fix is off.
    assert_eq!(f.fast_retransmits, 1, "{f:?}");
}

#[test]
fn fig3_eifel_detects_on_the_first_ack_and_retransmits_nothing_after_it() {
    let r = gprs_spike(eifel(Restore::EifelOriginal));
    let f = &r.flows[0];
    let (timeout, detected) = timeout_and_verdict(&r);
    let first_ack_after = r
        .trace
        .iter()
        .find(|t| t.time > timeout && matches!(t.event, TraceEvent::AckRecv { .. }))
        .unwrap()
        .time;
    assert_eq!(
        detected, first_ack_after,
        "detection on the first ACK after the timeout"
    );
    assert_eq!(r.timeouts[0].verdicts[0].verdict, Verdict::Spurious);
    let late_retx = r
        .trace
        .iter()
        .filter(|t| t.time >= detected)
        .any(|t| matches!(t.event, TraceEvent::Send { retx: true, .. }));
    assert!(!late_retx, "no retransmission after the detection");
    assert_eq!((f.retransmissions, f.fast_retransmits), (1, 0), "{f:?}");
    // Slow start continues: ssthresh is restored to its initial value, ns-2's
    // window_ of 20 packets (TcpAgent::reset(): ssthresh_ = window_).
    let after = cwnd_at(&r, detected);
    assert_eq!(
        after.1, 20_000,
        "ssthresh restored, slow start continues: {after:?}"
    );
}

#[test]
fn eifel_shortens_the_download_and_raises_goodput_on_the_lossless_path() {
    let plain = gprs_spike(gprs_reno());
    let with = gprs_spike(eifel(Restore::EifelOriginal));
    assert!(with.flows[0].download_time() < plain.flows[0].download_time());
    assert!(with.flows[0].goodput() > plain.flows[0].goodput());
}

/// (cwnd, ssthresh) as traced at `at` (the state after the event at that instant).
fn cwnd_at(r: &RunResult, at: Time) -> (u64, u64) {
    r.trace
        .iter()
        .filter(|t| t.time <= at)
        .filter_map(|t| match t.event {
            TraceEvent::Cwnd { cwnd, ssthresh } => Some((cwnd, ssthresh)),
            _ => None,
        })
        .next_back()
        .unwrap()
}

#[test]
fn each_restoration_option_leaves_ssthresh_and_cwnd_at_its_formula() {
    // Before the timeout cwnd_old = 6000 and ssthresh_old is the initial value, ns-2's
    // window_ of 20 packets (TcpAgent::reset(): ssthresh_ = window_); one timeout; the detecting ACK acknowledges 1000 bytes and leaves
    // FlightSize = snd_max 10000 - snd_una 5000 = 5000 (from the Fig. 3 trace).
    let initial = 20_000;
    let cases = [
        (Restore::Option1, (6000, initial)),
        (Restore::Option2, (3000, 3000)),
        (Restore::Option3, (1000, 3000)),
        (Restore::Option4, (6000, 6000)),
        (Restore::EifelOriginal, (6000, initial)),
        // RFC 4015: cwnd = FlightSize + min(bytes_acked, IW) = 5000 + 1000,
        // ssthresh = pipe_prev = max(FlightSize_old, ssthresh_old).
        (Restore::Rfc4015, (6000, initial)),
    ];
    for (restore, want) in cases {
        let r = gprs_spike(eifel(restore));
        let (timeout, detected) = timeout_and_verdict(&r);
        assert_eq!(
            cwnd_at(&r, Time(timeout.0 - 1)),
            (6000, initial),
            "{restore:?}: state before the timeout"
        );
        assert_eq!(cwnd_at(&r, detected), want, "{restore:?}");
    }
}

#[test]
fn frto_probes_with_two_new_segments_then_declares_the_spike_spurious() {
    let mut tcp = gprs_reno();
    tcp.spurious.driver = Some(DetectorKind::Frto);
    let r = gprs_spike(tcp);
    let (timeout, detected) = timeout_and_verdict(&r);
    let acks: Vec<Time> = r
        .trace
        .iter()
        .filter(|t| t.time > timeout && matches!(t.event, TraceEvent::AckRecv { .. }))
        .map(|t| t.time)
        .collect();
    assert_eq!(
        detected, acks[1],
        "F-RTO decides on the second ACK (RFC 5682 step 3)"
    );
    let sends_on_first_ack: Vec<_> = r
        .trace
        .iter()
        .filter(|t| t.time == acks[0])
        .filter_map(|t| match t.event {
            TraceEvent::Send { retx, .. } => Some(retx),
            _ => None,
        })
        .collect();
    assert_eq!(
        sends_on_first_ack,
        vec![false, false],
        "two new segments, no go-back-N"
    );
    assert_eq!(r.flows[0].retransmissions, 1);
}

// ----- [Gurtov & Ludwig 2003] Fig. 4: all delayed segments but the oldest are lost ---------

/// The 2 Mbit/s, 150 ms path with a 5 s spike at 5 s, then a fast last hop on which
/// the delayed flight's first transmissions (all but the oldest) are dropped.
fn fig4(recovery: RecoveryKind, pipe: PipeRule, drop: Option<(u64, u64)>) -> RunResult {
    fig4_with(recovery, pipe, drop, false)
}

fn fig4_with(
    recovery: RecoveryKind,
    pipe: PipeRule,
    drop: Option<(u64, u64)>,
    newreno_sack_after: bool,
) -> RunResult {
    let mut tcp = tcp(recovery, 150);
    tcp.spurious.response.newreno_sack_until_recovery_point = newreno_sack_after;
    tcp.rto = RtoConfig::ns2_2002();
    tcp.sack_pipe = pipe;
    tcp.spurious.driver = Some(DetectorKind::Eifel);
    tcp.spurious.response.restore = Restore::Option1;
    tcp.spurious.response.fast_retransmit_below_recovery_point = true;
    let bottleneck = with_hiccup(link("bottleneck", 2_000_000, 150, 75), 5.0, 5.0);
    let mut f = bulk("f", tcp, 2_000_000);
    f.route = two_hops();
    let mut cfg = sim(
        vec![bottleneck, link("last", 100_000_000, 1, 1000)],
        vec![f],
    );
    if let Some((from, to)) = drop {
        let target = DropTarget::Segments {
            from,
            to,
            which: DropWhich::First,
        };
        cfg.drops.push(DropRule {
            link: 1,
            flow: 0,
            target,
            after: Dur::from_secs(10),
            until: None,
        });
    }
    spikelab_engine::run(&cfg, 1).unwrap()
}

/// Segments outstanding when the spike begins, but the oldest: [una + 1, max).
fn delayed_flight_but_oldest() -> (u64, u64) {
    let r = fig4(RecoveryKind::RenoSack, PipeRule::Ns2Sack1, None);
    let (una, max) = r
        .trace
        .iter()
        .filter(|t| t.time < Time::from_secs_f64(5.0))
        .filter_map(|t| match t.event {
            TraceEvent::SndState {
                snd_una, snd_max, ..
            } => Some((snd_una, snd_max)),
            _ => None,
        })
        .next_back()
        .unwrap();
    (una / 1000 + 1, max / 1000)
}

fn genuine(r: &RunResult) -> usize {
    r.timeouts.iter().filter(|t| !t.truth.is_spurious()).count()
}

#[test]
fn fig4_reno_sack_needs_a_genuine_timeout_but_newreno_sack_and_fack_do_not() {
    let lost = delayed_flight_but_oldest();
    assert!(lost.1 - lost.0 > 20, "a large delayed flight: {lost:?}");
    let reno_sack = fig4(RecoveryKind::RenoSack, PipeRule::Ns2Sack1, Some(lost));
    assert_eq!(genuine(&reno_sack), 1, "{:?}", reno_sack.timeouts);
    let newreno_sack = fig4(RecoveryKind::NewRenoSack, PipeRule::Ns2Sack1, Some(lost));
    assert_eq!(genuine(&newreno_sack), 0, "{:?}", newreno_sack.timeouts);
    let fack = fig4(RecoveryKind::Fack, PipeRule::Ns2Sack1, Some(lost));
    assert_eq!(genuine(&fack), 0, "{:?}", fack.timeouts);
    // FACK "recovers from packet losses faster than NewReno-SACK" (IV.B).
    assert!(fack.flows[0].download_time() < newreno_sack.flows[0].download_time());
}

#[test]
fn fig4_reno_sack_switched_to_newreno_sack_after_the_spurious_timeout_avoids_the_genuine_one() {
    // [Gurtov & Ludwig 2003] III.A: "as an extra precaution it is possible to enable it
    // only after a spurious timeout and disable it when the recovery point is
    // acknowledged".
    let lost = delayed_flight_but_oldest();
    let r = fig4_with(RecoveryKind::RenoSack, PipeRule::Ns2Sack1, Some(lost), true);
    assert_eq!(genuine(&r), 0, "{:?}", r.timeouts);
}

#[test]
fn fig4_rfc6675_reno_sack_recovers_the_holes_that_ns2s_sack1_pipe_cannot() {
    // RFC 6675's IsLost takes the unSACKed holes out of the pipe, so the standard
    // algorithm avoids the genuine timeout of the papers' ns-2 Reno-SACK.
    let lost = delayed_flight_but_oldest();
    let r = fig4(RecoveryKind::RenoSack, PipeRule::Rfc6675, Some(lost));
    assert_eq!(genuine(&r), 0, "{:?}", r.timeouts);
}

// ----- [Gurtov & Ludwig 2002] Fig. 7: Reno with Eifel and losses in the delayed flight ---------

fn fig7(with_eifel: bool) -> RunResult {
    let tcp = if with_eifel {
        eifel(Restore::EifelOriginal)
    } else {
        gprs_reno()
    };
    let gprs = with_hiccup(link("gprs", 30_000, 300, 100), 3.0, 5.0);
    let mut f = bulk("f", tcp, 60_000);
    f.route = two_hops();
    let mut cfg = sim(vec![gprs, link("last", 100_000_000, 1, 1000)], vec![f]);
    // Segments 6, 7, 8 of the delayed flight are lost after the spike.
    let target = DropTarget::Segments {
        from: 6,
        to: 9,
        which: DropWhich::First,
    };
    cfg.drops.push(DropRule {
        link: 1,
        flow: 0,
        target,
        after: Dur::from_secs(8),
        until: None,
    });
    spikelab_engine::run(&cfg, 1).unwrap()
}

#[test]
fn fig7_reno_with_eifel_waits_out_a_long_second_genuine_timeout() {
    let with = fig7(true);
    let t = &with.timeouts;
    assert_eq!(t.len(), 2, "{t:?}");
    assert!(t[0].truth.is_spurious() && !t[1].truth.is_spurious());
    // The RTO has grown from the delayed segments' timestamps.
    assert!(
        t[1].rto > t[0].rto * 3,
        "second RTO {} vs first {}",
        t[1].rto,
        t[0].rto
    );
    // Without Eifel go-back-N resends the lost segments and no second timeout occurs.
    let without = fig7(false);
    assert_eq!(genuine(&without), 0);
    assert!(with.flows[0].download_time() > without.flows[0].download_time());
}

// ----- genuine losses and lost ACKs ---------------------------------------------------

#[test]
fn a_genuine_loss_is_never_called_spurious_by_eifel_or_frto() {
    for driver in [
        DetectorKind::Frto,
        DetectorKind::SackFrto,
        DetectorKind::Eifel,
    ] {
        let mut tcp = tcp(RecoveryKind::NewRenoSack, 30);
        tcp.spurious.driver = Some(driver);
        tcp.spurious.observe = vec![DetectorKind::Eifel, DetectorKind::AckTiming];
        let mut cfg = sim(
            vec![link("l", 2_000_000, 50, 100)],
            vec![bulk("f", tcp, 400_000)],
        );
        // Every transmission of a run of segments is lost for 2 s: RTOs are genuine.
        let target = DropTarget::Segments {
            from: 0,
            to: 400,
            which: DropWhich::Every,
        };
        let until = Some(Dur::from_secs(3));
        cfg.drops.push(DropRule {
            link: 0,
            flow: 0,
            target,
            after: Dur::from_secs(1),
            until,
        });
        let r = spikelab_engine::run(&cfg, 1).unwrap();
        assert!(!r.timeouts.is_empty());
        for t in &r.timeouts {
            assert!(!t.truth.is_spurious());
            for v in t.verdicts.iter().filter(|v| {
                matches!(
                    v.detector,
                    DetectorKind::Eifel | DetectorKind::Frto | DetectorKind::SackFrto
                )
            }) {
                assert_eq!(v.verdict, Verdict::Genuine, "{driver:?} {t:?}");
            }
        }
    }
}

/// All ACKs of the flow are lost for 2.5 s: the data arrived, the sender times out.
fn lost_acks(echo: EchoRule) -> RunResult {
    let mut tcp = tcp(RecoveryKind::NewReno, 30);
    tcp.echo_rule = echo;
    tcp.spurious.observe = vec![DetectorKind::Eifel];
    let mut cfg = sim(
        vec![link("l", 2_000_000, 50, 100)],
        vec![bulk("f", tcp, 200_000)],
    );
    let until = Some(Dur::from_millis(3500));
    cfg.drops.push(DropRule {
        link: 0,
        flow: 0,
        target: DropTarget::Acks,
        after: Dur::from_secs(1),
        until,
    });
    spikelab_engine::run(&cfg, 1).unwrap()
}

#[test]
fn a_timeout_caused_only_by_lost_acks_is_spurious_to_eifel_under_rfc7323_echo() {
    // [Gurtov & Ludwig 2003] II.B: the receiver echoes the original's timestamp for a
    // duplicate segment, so "a timeout due to lost ACKs is considered spurious".
    let r = lost_acks(EchoRule::Rfc7323);
    assert!(!r.timeouts.is_empty());
    for t in &r.timeouts {
        assert_eq!(t.truth, Truth::GenuineAckLost);
        assert_eq!(t.verdicts[0].verdict, Verdict::Spurious);
    }
    let scores = score_detectors(&r.flows, &r.timeouts);
    assert_eq!(scores[0].ack_lost_called_spurious, r.timeouts.len() as u64);
    assert_eq!(scores[0].false_positives, r.timeouts.len() as u64);
}

#[test]
fn with_ns2s_newest_timestamp_echo_eifel_calls_a_lost_ack_timeout_genuine() {
    let r = lost_acks(EchoRule::Latest);
    let t = &r.timeouts[0];
    assert_eq!(t.truth, Truth::GenuineAckLost);
    assert_eq!(t.verdicts[0].verdict, Verdict::Genuine);
}

// ----- scoring and timer adaptation -----------------------------------------------------

#[test]
fn detectors_side_by_side_are_scored_against_the_truth() {
    let mut tcp = eifel(Restore::EifelOriginal);
    tcp.spurious.observe = vec![DetectorKind::AckTiming];
    let r = gprs_spike(tcp);
    let scores = score_detectors(&r.flows, &r.timeouts);
    let eifel = scores
        .iter()
        .find(|s| s.detector == Some(DetectorKind::Eifel))
        .unwrap();
    assert_eq!((eifel.true_positives, eifel.decided()), (1, 1));
    // The ACK arrives 2.9 s after the retransmission, far more than the minimum RTT:
    // the timing heuristic misses a spike this long.
    let timing = scores
        .iter()
        .find(|s| s.detector == Some(DetectorKind::AckTiming))
        .unwrap();
    assert_eq!(timing.false_negatives, 1);
    assert!(eifel.mean_delay_s() > 2.0 && eifel.mean_delay_s() < 4.0);
}

/// (time, armed RTO, back-off count) of every timer change from `from` on.
fn armed_from(r: &RunResult, from: Time) -> Vec<(Time, Dur, u32)> {
    r.trace
        .iter()
        .filter(|t| t.time >= from)
        .filter_map(|t| match t.event {
            TraceEvent::Rto { rto, backoff } => Some((t.time, rto, backoff)),
            _ => None,
        })
        .collect()
}

/// [Gurtov & Ludwig 2003]'s path (2 Mbit/s, 150 ms, 75-packet queue) with one 12 s spike at
/// 5 s under a 3 MB FACK transfer with Eifel: the RTO decays back towards 1 s after it.
fn broadband_spike(rto_adapt: RtoAdapt) -> RunResult {
    let l = with_hiccup(link("bn", 2_000_000, 150, 74), 5.0, 12.0);
    let mut tcp = TcpConfig {
        timestamps: true,
        receiver_window: 150_000,
        recovery: RecoveryKind::Fack,
        ..TcpConfig::ns2_2002()
    };
    tcp.spurious.driver = Some(DetectorKind::Eifel);
    tcp.spurious.response.restore = Restore::Option1;
    tcp.spurious.response.rto_adapt = rto_adapt;
    spikelab_engine::run(&sim(vec![l], vec![bulk("f", tcp, 3_000_000)]), 1).unwrap()
}

#[test]
fn the_min_rto_increase_adds_a_second_per_spurious_expiry_and_changes_the_run() {
    let r = broadband_spike(RtoAdapt::MinRtoIncrease);
    let (_, detected) = timeout_and_verdict(&r);
    // Table 4 note a: 1 s + 1 s per spurious timeout; every expiry of the spike is one.
    let expiries = r.timeouts.len() as u64;
    assert!(expiries >= 2, "{expiries}");
    assert_eq!(r.flows[0].spurious_timeouts, expiries);
    let floor = Dur::from_secs(1 + expiries);
    let armed = armed_from(&r, detected);
    assert!(
        !armed.is_empty() && armed.iter().all(|a| a.1 >= floor),
        "{armed:?}"
    );
    // Without the adaptation the timer falls below that floor once the RTT settles.
    let std = broadband_spike(RtoAdapt::None);
    assert!(armed_from(&std, detected).iter().any(|a| a.1 < floor));
}

// ----- back-off reset: ns-2's newack() against RFC 6298 -------------------------------

/// The back-off reset `rule` on either timer that has one: RFC 6298's `backoff_reset`,
/// or ns-2's own timer, whose `ts_resetRTO_` is the any-timestamp-sample rule.
fn with_backoff_reset(mut tcp: TcpConfig, rule: BackoffReset) -> TcpConfig {
    match &mut tcp.rto {
        RtoConfig::Rfc6298(c) => c.backoff_reset = rule,
        RtoConfig::Ns2(c) => {
            c.reset_backoff_on_any_sample = rule == BackoffReset::AnyTimestampSample
        }
        other => panic!("not a timer with a back-off reset rule: {other:?}"),
    }
    tcp
}

#[test]
fn ns2_keeps_the_backoff_until_the_timed_segment_is_acked_and_rfc6298_clears_it_at_once() {
    // The 5 s spike at 3 s backs the timer off; the spike ends at 8 s and ACKs of the
    // delayed flight return. With every timestamp sample clearing it (RFC 6298,
    // ns-2's ts_resetRTO_), the first of them collapses the back-off; ns-2's default
    // keeps it until the first segment sent after the timeout is acknowledged.
    // The ns2-2002 profile runs ns-2's own timer with ts_resetRTO_ off (its default).
    match TcpConfig::ns2_2002().rto {
        RtoConfig::Ns2(c) => assert!(!c.reset_backoff_on_any_sample),
        other => panic!("ns2-2002 should run ns-2's timer, not {other:?}"),
    }
    let end = Time::from_secs_f64(8.0);
    let any = gprs_spike(with_backoff_reset(
        gprs_reno(),
        BackoffReset::AnyTimestampSample,
    ));
    let karn = gprs_spike(gprs_reno());
    let first_ack = |r: &RunResult| {
        r.trace
            .iter()
            .find(|t| t.time >= end && matches!(t.event, TraceEvent::RttSample { .. }))
            .map(|t| t.time)
            .expect("an RTT sample after the spike")
    };
    let at = |r: &RunResult, t: Time| armed_from(r, Time::ZERO).into_iter().rfind(|a| a.0 <= t);
    let (ta, tk) = (first_ack(&any), first_ack(&karn));
    assert_eq!(ta, tk, "same run up to the first ACK after the spike");
    assert_eq!(at(&any, ta).map(|a| a.2), Some(0));
    let held = at(&karn, tk).expect("timer armed").2;
    assert!(held >= 1, "back-off {held} at the first ACK");
    // ...and it does end once the timed segment's ACK arrives.
    assert!(armed_from(&karn, tk).iter().any(|a| a.2 == 0));
}

// ----- counting: per expiry and per episode ------------------------------------------

#[test]
fn a_spikes_backed_off_expiries_count_once_per_episode_and_each_per_expiry() {
    // Two 12 s spikes: the 1 s-floored timer expires several times in each (1, 2, 4 s
    // back-offs), but each spike is one timeout episode, as the papers count them.
    let mut l = link("gprs", 30_000, 300, 100);
    l.spikes.push(spikelab_net::SpikeConfig::Hiccup(
        spikelab_net::spike::HiccupConfig {
            at: vec![
                spikelab_net::spike::SpikeAt {
                    start: Dur::from_secs(3),
                    duration: Dur::from_secs(12),
                },
                spikelab_net::spike::SpikeAt {
                    start: Dur::from_secs(40),
                    duration: Dur::from_secs(12),
                },
            ],
            ..spikelab_net::spike::HiccupConfig::default()
        },
    ));
    let r = spikelab_engine::run(&sim(vec![l], vec![bulk("f", gprs_reno(), 150_000)]), 1).unwrap();
    let f = &r.flows[0];
    assert!(f.timeouts >= 4, "{} expiries", f.timeouts);
    assert_eq!(f.timeouts, f.spurious_timeouts + f.genuine_timeouts);
    assert_eq!(f.timeout_episodes, 2);
    assert_eq!(f.spurious_timeout_episodes, 2);
    let starts = r.timeouts.iter().filter(|t| t.starts_episode()).count();
    assert_eq!(starts, 2);
}
