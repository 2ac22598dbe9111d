//! The WCDMA bearer: delay moments against the analytic model (derived in the module
//! docs), in-order delivery and retry-limit losses.

use super::*;
use crate::config::LinkDirConfig;
use crate::link::tests::{data, drive, link, Input, Outcome};
use crate::service::ServiceConfig;

/// Exact (mean, variance) in seconds of an isolated delivered packet's delay
/// `T_b S + D (M - 1)`, by the finite sums of the module docs.
fn analytic(p: f64, max_retx: u32, n: i32, tb: f64, d: f64) -> (f64, f64) {
    let k = max_retx as i32 + 1;
    let z = 1.0 - p.powi(k);
    let pa = |a: i32| (1.0 - p) * p.powi(a - 1) / z;
    let f = |m: i32| if m <= 0 { 0.0 } else { (1.0 - p.powi(m)) / z };
    let pmax = |m: i32, of: i32| f(m).powi(of) - f(m - 1).powi(of);
    let support = 1..=k;
    let ea: f64 = support.clone().map(|a| a as f64 * pa(a)).sum();
    let ea2: f64 = support.clone().map(|a| (a * a) as f64 * pa(a)).sum();
    let em: f64 = support.clone().map(|m| m as f64 * pmax(m, n)).sum();
    let em2: f64 = support.clone().map(|m| (m * m) as f64 * pmax(m, n)).sum();
    let e_am: f64 = support
        .clone()
        .flat_map(|a| support.clone().map(move |m| (a, m)))
        .map(|(a, m)| pa(a) * pmax(m, n - 1) * (a * a.max(m)) as f64)
        .sum();
    let n = n as f64;
    let mean = tb * n * ea + d * (em - 1.0);
    let cov = e_am - ea * em;
    let var = tb * tb * n * (ea2 - ea * ea) + d * d * (em2 - em * em) + 2.0 * tb * d * n * cov;
    (mean, var)
}

fn wcdma_cfg(bler: f64, max_retx: u32) -> LinkDirConfig {
    LinkDirConfig {
        service: ServiceConfig::Wcdma(WcdmaConfig {
            bler,
            max_retx,
            ..WcdmaConfig::default()
        }),
        ..LinkDirConfig::new(BitRate(384_000), Dur::ZERO)
    }
}

/// Sends `n` packets of 1040 wire bytes (26 blocks) one second apart.
fn isolated(cfg: &LinkDirConfig, n: u64) -> Outcome {
    let at = |i: u64| Time::ZERO + Dur::from_secs(i);
    let inputs: Vec<(Time, Input)> = (0..n)
        .map(|i| (at(i), Input::Send(data(i, 1000))))
        .collect();
    drive(&mut link(cfg), &inputs)
}

fn check_moments(bler: f64, max_retx: u32) -> Outcome {
    let n = 20_000;
    let out = isolated(&wcdma_cfg(bler, max_retx), n);
    let delays: Vec<f64> = out
        .delivered
        .iter()
        .map(|&(uid, t)| (t - (Time::ZERO + Dur::from_secs(uid))).as_secs_f64())
        .collect();
    let k = delays.len() as f64;
    let mean = delays.iter().sum::<f64>() / k;
    let var = delays.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    let tb = Dur::transmission(40, 384_000).as_secs_f64();
    let (want_mean, want_var) = analytic(bler, max_retx, 26, tb, 0.1);
    let se = (want_var / k).sqrt();
    assert!(
        (mean - want_mean).abs() < 4.0 * se,
        "mean {mean} vs {want_mean} +- {}",
        4.0 * se
    );
    assert!(
        (var / want_var - 1.0).abs() < 0.05,
        "variance {var} vs {want_var}"
    );
    out
}

#[test]
fn delay_mean_and_variance_match_the_model_at_default_parameters() {
    let out = check_moments(0.1, 10);
    assert!(out.link_drops.is_empty());
}

#[test]
fn delay_moments_match_the_truncated_model_and_losses_the_retry_limit() {
    // p = 0.3, 3 retransmissions: a block is lost with p^4; a packet of 26 blocks with
    // 1 - (1 - p^4)^26 = 19.1 %.
    let out = check_moments(0.3, 3);
    let n = 20_000.0;
    let want = 1.0 - (1.0 - 0.3f64.powi(4)).powi(26);
    let sd = (n * want * (1.0 - want)).sqrt();
    let lost = out.link_drops.len() as f64;
    assert!(
        (lost - n * want).abs() < 4.0 * sd,
        "{lost} lost, want {}",
        n * want
    );
}

#[test]
fn packets_are_delivered_in_order_even_when_later_ones_need_fewer_retransmissions() {
    let cfg = wcdma_cfg(0.3, 3);
    let inputs: Vec<(Time, Input)> = (0..2000)
        .map(|i| {
            (
                Time::ZERO + Dur::from_millis(30 * i),
                Input::Send(data(i, 1000)),
            )
        })
        .collect();
    let out = drive(&mut link(&cfg), &inputs);
    let mut all: Vec<(u64, Time)> = out.delivered.clone();
    all.extend(out.link_drops.iter().copied());
    all.sort_by_key(|&(uid, _)| uid);
    assert_eq!(all.len(), 2000);
    assert!(
        all.windows(2).all(|w| w[0].1 <= w[1].1),
        "a packet overtook another"
    );
}

#[test]
fn a_block_that_always_fails_loses_the_packet_after_the_retry_limit() {
    let cfg = wcdma_cfg(1.0, 2);
    let mut l = link(&cfg);
    let out = drive(&mut l, &[(Time::ZERO, Input::Send(data(7, 1000)))]);
    assert!(out.delivered.is_empty());
    // 26 blocks x 3 transmissions each, then 2 retransmission rounds of 100 ms.
    let busy = Dur::transmission(40, 384_000) * 78;
    assert_eq!(
        out.link_drops,
        vec![(7, Time::ZERO + busy + Dur::from_millis(200))]
    );
    assert_eq!(l.counters().lost_in_link.packets, 1);
    assert_eq!(l.counters().dropped.packets, 1);
}

#[test]
fn an_error_free_bearer_is_a_plain_rate_link_of_whole_blocks() {
    let out = isolated(&wcdma_cfg(0.0, 10), 3);
    let per_packet = Dur::transmission(40, 384_000) * 26;
    assert_eq!(
        out.delivered[1].1,
        Time::ZERO + Dur::from_secs(1) + per_packet
    );
}
