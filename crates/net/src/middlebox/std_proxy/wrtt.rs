//! wRTT, "the average round trip time from PEP to a Mobile Station" ([Kim & Cho 2003]
//! III.C), which sets the N-filter's limiter threshold X_th = 0.5 wRTT.
//!
//! The paper does not say how the PEP learns it. The proxy measures it itself, the way a
//! TCP sender without timestamps does (RFC 6298 section 3): it times one new data
//! segment at a time, from when it forwards the segment until the first ACK that covers
//! it, and drops the measurement when a timeout is detected (Karn: after a
//! retransmission the covering ACK is ambiguous). Samples are averaged with gain
//! [`StdProxyConfig::wrtt_gain`]; a fixed [`StdProxyConfig::wrtt`] overrides it all.

use super::filters::smooth;
use super::StdProxyConfig;
use spikelab_core::{Dur, Time};

/// The PEP-to-mobile RTT estimate of one flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Wrtt {
    /// (end of the timed segment, when it was forwarded).
    timing: Option<(u64, Time)>,
    avg: Option<Dur>,
}

impl Wrtt {
    /// A new data segment ending at `end` was forwarded at `now`.
    pub fn on_new_data(&mut self, now: Time, end: u64) {
        if self.timing.is_none() {
            self.timing = Some((end, now));
        }
    }

    /// A cumulative ACK for `ack` arrived at `now`.
    pub fn on_ack(&mut self, now: Time, ack: u64, cfg: &StdProxyConfig) {
        let Some((end, sent)) = self.timing.filter(|&(end, _)| ack >= end) else {
            return;
        };
        debug_assert!(ack >= end);
        self.timing = None;
        let x = now.saturating_since(sent);
        self.avg = Some(self.avg.map_or(x, |a| smooth(a, x, 1.0 - cfg.wrtt_gain)));
    }

    /// A timeout was detected: the measurement in progress is ambiguous (Karn).
    pub fn on_timeout(&mut self) {
        self.timing = None;
    }

    /// The measured average, whatever is configured.
    pub fn value_measured(&self) -> Option<Dur> {
        self.avg
    }

    /// wRTT: the configured value, else the measured average.
    pub fn value(&self, cfg: &StdProxyConfig) -> Option<Dur> {
        cfg.wrtt.or(self.avg)
    }
}

/// X_th = x_th_factor * wRTT (III.C) for the wRTT `wrtt` ([`Wrtt::value`]), if it is
/// known.
pub fn x_th_of(wrtt: Option<Dur>, cfg: &StdProxyConfig) -> Option<Dur> {
    wrtt.map(|w| w.mul_f64(cfg.x_th_factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn times_one_segment_at_a_time_and_averages_with_gain_one_eighth() {
        let cfg = StdProxyConfig::default();
        let mut w = Wrtt::default();
        w.on_new_data(at(0), 1000);
        w.on_new_data(at(10), 2000); // not timed: one at a time
        w.on_ack(at(500), 999, &cfg); // does not cover it
        w.on_ack(at(800), 1000, &cfg);
        assert_eq!(w.value(&cfg), Some(Dur::from_millis(800)));
        w.on_new_data(at(900), 3000);
        w.on_ack(at(1300), 3000, &cfg); // 7/8 * 800 + 1/8 * 400 = 750
        assert_eq!(w.value(&cfg), Some(Dur::from_millis(750)));
        assert_eq!(x_th_of(w.value(&cfg), &cfg), Some(Dur::from_millis(375)));
    }

    #[test]
    fn a_timeout_drops_the_measurement_and_a_fixed_value_overrides() {
        let mut cfg = StdProxyConfig::default();
        let mut w = Wrtt::default();
        w.on_new_data(at(0), 1000);
        w.on_timeout();
        w.on_ack(at(5000), 1000, &cfg);
        assert_eq!(w.value(&cfg), None);
        cfg.wrtt = Some(Dur::from_millis(600));
        assert_eq!(x_th_of(w.value(&cfg), &cfg), Some(Dur::from_millis(300)));
    }
}
