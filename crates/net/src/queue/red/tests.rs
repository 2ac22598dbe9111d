//! RED and Adaptive RED behaviour: drop rates against the formulas, the average against
//! the EWMA, idle decay, and max_p adaptation.

use super::*;
use rand::SeedableRng;
use spikelab_core::{FlowId, PacketKind};

fn pkt(uid: u64) -> Packet {
    let mut p = Packet::new(uid, FlowId(0), PacketKind::Data, Time::ZERO);
    p.len = 1000;
    p
}

fn red(gentle: bool, wait: bool) -> Red {
    let cfg = RedConfig {
        min_thresh: 5.0,
        max_thresh: 15.0,
        linterm: 10.0,
        gentle,
        wait,
        limit: 1000,
        ..RedConfig::default()
    };
    Red::new(&cfg, BitRate(1_000_000))
}

/// Mean number of arrivals between early drops, E[X] = sum_{c>=0} P(X > c), with the
/// survival function derived by telescoping the hazard `spread_prob` of red.cc:
/// * no wait: P(X > c) = prod_{j=1..c} (1 - p/(1 - j p)) = (1 - (c+1) p) / (1 - p);
/// * wait, with c0 the first count where c0 p >= 1: P(X > c) = 1 for c < c0, else
///   prod_{j=c0..c} (1 - p/(2 - j p)) = (2 - (c+1) p) / (2 - c0 p);
///
/// both clamped at 0 (once the hazard reaches 1).
fn mean_gap(p: f64, wait: bool) -> f64 {
    let c0 = (1.0 / p).ceil();
    (0..100_000)
        .map(|c| c as f64)
        .map(|c| match wait {
            false => (1.0 - (c + 1.0) * p) / (1.0 - p),
            true if c < c0 => 1.0,
            true => (2.0 - (c + 1.0) * p) / (2.0 - c0 * p),
        })
        .take_while(|&s| s > 0.0)
        .sum()
}

/// Drops among `n` arrivals with the average held at `avg` and ~10 packets waiting.
fn drops_at(avg: f64, gentle: bool, wait: bool, n: u64, seed: u64) -> u64 {
    let mut q = red(gentle, wait);
    let mut rng = SimRng::seed_from_u64(seed);
    for uid in 0..10 {
        assert!(q.enqueue(Time::ZERO, pkt(uid), &mut rng).is_none());
    }
    q.hold_average(avg);
    let mut drops = 0;
    for uid in 10..10 + n {
        match q.enqueue(Time::ZERO, pkt(uid), &mut rng) {
            Some(_) => drops += 1,
            None => {
                q.dequeue(Time::ZERO);
            }
        }
    }
    drops
}

fn assert_drop_rate(avg: f64, gentle: bool, wait: bool, want_p_b: f64) {
    let p_b = base_prob(avg, 5.0, 15.0, 0.1, gentle);
    assert!((p_b - want_p_b).abs() < 1e-12, "p_b({avg}) = {p_b}");
    let n = 200_000;
    let f = if p_b >= 1.0 {
        1.0
    } else {
        1.0 / mean_gap(p_b, wait)
    };
    let drops = drops_at(avg, gentle, wait, n, 42) as f64;
    let sd = (n as f64 * f * (1.0 - f)).sqrt();
    let want = n as f64 * f;
    assert!(
        (drops - want).abs() <= 4.0 * sd + 1.0,
        "avg {avg} gentle {gentle} wait {wait}: {drops} drops, want {want:.0} +- {:.0}",
        4.0 * sd
    );
}

#[test]
fn drop_rate_follows_the_linear_region_formula_with_and_without_wait() {
    // p_b = max_p (avg - min) / (max - min) with max_p = 1/linterm = 0.1.
    for wait in [false, true] {
        assert_drop_rate(7.0, false, wait, 0.02);
        assert_drop_rate(10.0, false, wait, 0.05);
        assert_drop_rate(14.0, true, wait, 0.09);
    }
}

#[test]
fn drop_rate_follows_the_gentle_region_formula() {
    // p_b = max_p + (1 - max_p)(avg - max)/max between max and 2 max.
    for wait in [false, true] {
        assert_drop_rate(15.0, true, wait, 0.1);
        assert_drop_rate(22.5, true, wait, 0.55);
        assert_drop_rate(27.0, true, wait, 0.1 + 0.9 * 12.0 / 15.0);
    }
}

#[test]
fn every_arrival_is_dropped_beyond_max_thresh_or_twice_it_when_gentle() {
    assert_eq!(drops_at(15.5, false, true, 1000, 1), 1000);
    assert_eq!(drops_at(30.5, true, true, 1000, 1), 1000);
    assert_eq!(drops_at(4.9, true, true, 1000, 1), 0);
}

#[test]
fn spread_probability_is_zero_until_count_reaches_one_over_p_with_wait() {
    assert_eq!(spread_prob(0.1, 9, true), 0.0);
    assert!((spread_prob(0.1, 10, true) - 0.1).abs() < 1e-12);
    assert!((spread_prob(0.1, 19, true) - 1.0).abs() < 1e-12);
    assert!((spread_prob(0.1, 5, false) - 0.2).abs() < 1e-12);
    assert_eq!(spread_prob(0.1, 10, false), 1.0);
}

#[test]
fn average_follows_the_ewma_of_the_queue_seen_by_each_arrival() {
    let cfg = RedConfig {
        min_thresh: 1000.0,
        max_thresh: 2000.0,
        q_weight: 0.1,
        limit: 1000,
        ..RedConfig::default()
    };
    let mut q = Red::new(&cfg, BitRate(1_000_000));
    let mut rng = SimRng::seed_from_u64(1);
    let mut want = 0.0;
    for k in 0..50u64 {
        q.enqueue(Time::ZERO, pkt(k), &mut rng);
        want = 0.9 * want + 0.1 * k as f64;
        assert!((q.average() - want).abs() < 1e-9, "arrival {k}");
    }
}

#[test]
fn average_decays_over_idle_time_as_if_the_link_had_sent_empty_slots() {
    let cfg = RedConfig {
        min_thresh: 1000.0,
        max_thresh: 2000.0,
        q_weight: 0.1,
        limit: 1000,
        ..RedConfig::default()
    };
    // 1 Mbit/s, 500-byte mean packets: ptc = 250 packets/s.
    let mut q = Red::new(&cfg, BitRate(1_000_000));
    let mut rng = SimRng::seed_from_u64(1);
    for k in 0..20 {
        q.enqueue(Time::ZERO, pkt(k), &mut rng);
    }
    while q.dequeue(Time::ZERO).is_some() {}
    let before = q.average();
    // 100.5 ms idle: m = floor(250 * 0.1005) = 25 empty slots, then this arrival (q = 0).
    q.enqueue(Time::ZERO + Dur::from_micros(100_500), pkt(99), &mut rng);
    let want = before * 0.9f64.powi(26);
    assert!(
        (q.average() - want).abs() < 1e-9,
        "{} vs {want}",
        q.average()
    );
}

#[test]
fn early_drops_take_the_arrival_and_forced_drops_the_head_with_drop_front() {
    let cfg = RedConfig {
        drop_front: true,
        gentle: false,
        limit: 1000,
        ..RedConfig::default()
    };
    let mut q = Red::new(&cfg, BitRate(1_000_000));
    let mut rng = SimRng::seed_from_u64(3);
    for uid in 0..10 {
        q.enqueue(Time::ZERO, pkt(uid), &mut rng);
    }
    q.hold_average(20.0);
    assert_eq!(
        q.enqueue(Time::ZERO, pkt(10), &mut rng).map(|p| p.uid),
        Some(0)
    );
}

#[test]
fn hard_limit_drops_beyond_limit_packets() {
    let cfg = RedConfig {
        limit: 3,
        min_thresh: 100.0,
        max_thresh: 200.0,
        ..RedConfig::default()
    };
    let mut q = Red::new(&cfg, BitRate(1_000_000));
    let mut rng = SimRng::seed_from_u64(3);
    for uid in 0..3 {
        assert!(q.enqueue(Time::ZERO, pkt(uid), &mut rng).is_none());
    }
    assert_eq!(
        q.enqueue(Time::ZERO, pkt(3), &mut rng).map(|p| p.uid),
        Some(3)
    );
}

#[test]
fn adaptive_red_derives_thresholds_and_weight_from_the_link_rate() {
    let cfg: AdaptiveRedConfig = toml::from_str("").unwrap();
    // 10 Mbit/s of 500-byte packets: C = 2500 packets/s; 5 ms target: min = 6.25.
    let q: Red = Red::adaptive(&cfg, BitRate(10_000_000));
    let (min, max, w) = q.thresholds();
    assert!((min - 6.25).abs() < 1e-12 && (max - 18.75).abs() < 1e-12);
    assert!((w - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
    // 1 Mbit/s: target_delay C / 2 = 0.625 < 5, so min = 5.
    let slow: Red = Red::adaptive(&cfg, BitRate(1_000_000));
    assert_eq!(slow.thresholds().0, 5.0);
}

fn adapted_max_p(avg: f64, steps: u64) -> f64 {
    let cfg = AdaptiveRedConfig {
        min_thresh: Some(5.0),
        max_thresh: Some(15.0),
        limit: 1000,
        ..toml::from_str("").unwrap()
    };
    let mut q = Red::adaptive(&cfg, BitRate(1_000_000));
    q.hold_average(avg);
    let mut rng = SimRng::seed_from_u64(9);
    for i in 1..=steps {
        let t = Time::ZERO + Dur::from_millis(600 * i);
        if q.enqueue(t, pkt(i), &mut rng).is_none() {
            q.dequeue(t);
        }
    }
    q.max_p()
}

#[test]
fn adaptive_red_raises_max_p_additively_above_the_target_band() {
    // Target band [9, 11]; avg 12: max_p += min(0.01, max_p/4) per 0.5 s interval.
    assert!((adapted_max_p(12.0, 3) - 0.13).abs() < 1e-12);
}

#[test]
fn adaptive_red_lowers_max_p_multiplicatively_below_the_target_band() {
    assert!((adapted_max_p(6.0, 3) - 0.1 * 0.9f64.powi(3)).abs() < 1e-12);
    assert!((adapted_max_p(10.0, 3) - 0.1).abs() < 1e-12);
}

#[test]
fn the_red_limit_takes_a_number_or_the_drop_tail_packets_form() {
    let q = |text: &str| toml::from_str::<super::super::QueueConfig>(text);
    let limit = |text: &str| match q(text).unwrap() {
        super::super::QueueConfig::Red(r) => r.limit,
        super::super::QueueConfig::AdaptiveRed(a) => a.limit,
        other => panic!("{other:?}"),
    };
    assert_eq!(limit("kind = \"red\"\nlimit = 7"), 7);
    assert_eq!(limit("kind = \"red\"\nlimit = { packets = 1 }"), 1);
    assert_eq!(limit("kind = \"adaptive-red\"\nlimit = { packets = 3 }"), 3);
    let e = q("kind = \"red\"\nlimit = { bytes = \"10KB\" }").unwrap_err();
    assert!(
        e.to_string().contains("RED counts its limit in packets"),
        "{e}"
    );
}

proptest::proptest! {
    /// The short path of [`decay`] for one round gives the bits `pow` gives, and so
    /// does the average: `ewma` is the F&J estimator whichever path it takes.
    #[test]
    fn one_round_decays_exactly_as_pow_does(
        w in 0.0f64..=1.0,
        avg in 0.0f64..1e6,
        q in 0u32..100_000,
        rounds in 1u64..10_000,
    ) {
        let keep = 1.0 - w;
        proptest::prop_assert_eq!(decay(keep, 1).to_bits(), keep.powf(1.0).to_bits());
        proptest::prop_assert_eq!(decay(keep, rounds).to_bits(), keep.powf(rounds as f64).to_bits());
        let by_pow = avg * keep.powf(1.0) + w * q as f64;
        proptest::prop_assert_eq!(ewma(avg, q as f64, w, 1).to_bits(), by_pow.to_bits());
    }
}
