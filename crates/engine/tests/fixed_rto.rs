//! The constant timer (`rto.kind = "fixed"`) as an oracle: whatever the path does, the
//! sender must arm its retransmission timer with exactly the configured RTO, doubled
//! once per expiry (RFC 6298 (5.5)).

mod common;

use common::*;
use spikelab_core::Dur;
use spikelab_tcp::rto::{FixedConfig, RtoConfig};
use spikelab_tcp::RecoveryKind;

#[test]
fn a_fixed_timer_fires_exactly_its_rto_doubled_per_expiry_during_a_spike() {
    let base = Dur::from_millis(700);
    let mut t = tcp(RecoveryKind::NewReno, 20);
    t.rto = RtoConfig::Fixed(FixedConfig {
        rto: base,
        max_rto: None,
    });
    // A 6 s outage in mid-transfer: the timer expires several times in a row.
    let l = with_hiccup(link("l", 1_000_000, 50, 100), 0.5, 6.0);
    let r = spikelab_engine::run(&sim(vec![l], vec![bulk("f", t, 200_000)]), 1).unwrap();
    assert!(r.flows[0].completed.is_some(), "the transfer completes");
    let backed_off = r.timeouts.iter().filter(|x| x.backoff > 0).count();
    assert!(backed_off >= 2, "{:?}", r.timeouts);
    for rec in &r.timeouts {
        assert_eq!(rec.rto, base * (1u64 << rec.backoff), "{rec:?}");
    }
    // Each backed-off expiry comes exactly one (doubled) RTO after the one before it,
    // whose retransmission restarted the timer.
    for pair in r.timeouts.windows(2) {
        if pair[1].backoff == pair[0].backoff + 1 {
            assert_eq!(pair[1].time - pair[0].time, pair[1].rto, "{pair:?}");
        }
    }
}
