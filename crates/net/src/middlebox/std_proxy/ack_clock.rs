//! The average ACK inter-arrival time of one flow and the timer value T derived from it
//! ([Kim & Cho 2003] III.C).
//!
//! "We define 2 different periods in which samples are taken": the "normal period
//! without previous STD", whose samples go through the N-filter, and the "STD" period,
//! whose samples go through the S-filter. "PEP does not take samples in the normal
//! period, which follows the STD period", so once a flow has had an STD period its
//! normal periods take no samples at all, and its average changes only in STD periods.
//!
//! Where an STD period starts: at the timeout's detection. The first ACK after that
//! (the first delayed ACK) is not a sample: the gap before it spans the delay spike
//! itself, which the S-filter's follower would otherwise copy into the average and so
//! into T ("rapid tracking of the *valid* ACK inter-arrival sample"). It only becomes
//! the reference of the next sample.

use super::filters::{s_filter, NFilter};
use super::StdProxyConfig;
use spikelab_core::{Dur, Time};

/// Which filter, if any, an ACK's inter-arrival sample goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// "Normal period without previous STD": N-filter (1).
    NormalBeforeStd,
    /// "STD" period: S-filter (2).
    Std,
    /// Normal period after an STD period: no samples.
    NormalAfterStd,
}

/// ACK inter-arrival average of one flow.
#[derive(Clone, Debug, PartialEq)]
pub struct AckClock {
    last_ack: Option<Time>,
    avg: Option<Dur>,
    period: Period,
}

impl Default for AckClock {
    fn default() -> Self {
        AckClock {
            last_ack: None,
            avg: None,
            period: Period::NormalBeforeStd,
        }
    }
}

impl AckClock {
    /// The current average ACK inter-arrival time, if a sample was accepted.
    pub fn average(&self) -> Option<Dur> {
        self.avg
    }

    /// The current sampling period.
    pub fn period(&self) -> Period {
        self.period
    }

    /// An ACK arrived at `now`: sample the inter-arrival time in the current period.
    /// `x_th` gives the N-filter's limiter threshold 0.5 wRTT, if wRTT is known; it is
    /// asked only in the normal period before the first STD period, the only one whose
    /// filter reads it (a multiplication in floating point and a rounding per ACK
    /// saved in the others).
    pub fn on_ack(&mut self, now: Time, cfg: &StdProxyConfig, x_th: impl FnOnce() -> Option<Dur>) {
        let prev = self.last_ack.replace(now);
        let Some(x) = prev.map(|p| now.saturating_since(p)) else {
            return;
        };
        self.avg = match self.period {
            Period::NormalBeforeStd => {
                let f = NFilter {
                    s: cfg.s,
                    alpha: cfg.alpha_n,
                    x_th: x_th(),
                };
                f.step(self.avg, x).0
            }
            Period::Std => Some(s_filter(self.avg, x, cfg.alpha_s).0),
            Period::NormalAfterStd => self.avg,
        };
    }

    /// A timeout was detected: the STD period starts; the next ACK is only a reference.
    pub fn enter_std(&mut self) {
        self.period = Period::Std;
        self.last_ack = None;
    }

    /// The STD algorithm finished (genuine verdict, or the response is over).
    pub fn leave_std(&mut self) {
        self.period = Period::NormalAfterStd;
    }

    /// T = G * average ACK inter-arrival time (III.C). Before any sample the average
    /// falls back to X_th (so T = G * 0.5 wRTT = one wRTT with the paper's values); with
    /// neither, T = 0, so every timeout is judged genuine and nothing is absorbed.
    /// `x_th` is asked only without an average.
    pub fn timer(&self, cfg: &StdProxyConfig, x_th: impl FnOnce() -> Option<Dur>) -> Dur {
        self.avg
            .or_else(x_th)
            .map_or(Dur::ZERO, |avg| avg.mul_f64(cfg.gain))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn normal_period_uses_the_n_filter_and_skips_the_first_ack() {
        let cfg = StdProxyConfig::default();
        let mut c = AckClock::default();
        let th = Some(Dur::from_millis(300));
        c.on_ack(at(0), &cfg, || th);
        assert_eq!(c.average(), None);
        c.on_ack(at(100), &cfg, || th); // follower: 100
        c.on_ack(at(180), &cfg, || th); // smoother: 0.9*100 + 0.1*80 = 98
        c.on_ack(at(530), &cfg, || th); // 350 >= X_th: limiter
        assert_eq!(c.average(), Some(Dur::from_millis(98)));
        assert_eq!(c.timer(&cfg, || th), Dur::from_millis(196));
    }

    #[test]
    fn std_period_ignores_the_gap_across_the_spike_then_uses_the_s_filter() {
        let cfg = StdProxyConfig::default();
        let mut c = AckClock::default();
        let th = Some(Dur::from_millis(300));
        c.on_ack(at(0), &cfg, || th);
        c.on_ack(at(40), &cfg, || th); // 40
        c.enter_std();
        c.on_ack(at(9_000), &cfg, || th); // first delayed ACK: reference only
        assert_eq!(c.average(), Some(Dur::from_millis(40)));
        c.on_ack(at(9_090), &cfg, || th); // 90 >= 40: follower
        assert_eq!(c.average(), Some(Dur::from_millis(90)));
        c.on_ack(at(9_100), &cfg, || th); // 0.9*90 + 0.1*10 = 82
        assert_eq!(c.average(), Some(Dur::from_millis(82)));
    }

    #[test]
    fn normal_period_after_std_takes_no_samples() {
        let cfg = StdProxyConfig::default();
        let mut c = AckClock::default();
        c.on_ack(at(0), &cfg, || None);
        c.on_ack(at(50), &cfg, || None);
        c.enter_std();
        c.leave_std();
        c.on_ack(at(1000), &cfg, || None);
        c.on_ack(at(1001), &cfg, || None); // would be a follower in the N-filter
        assert_eq!(c.average(), Some(Dur::from_millis(50)));
        assert_eq!(c.period(), Period::NormalAfterStd);
    }

    #[test]
    fn timer_falls_back_to_x_th_then_to_zero() {
        let cfg = StdProxyConfig::default();
        let c = AckClock::default();
        let th = Some(Dur::from_millis(300));
        assert_eq!(c.timer(&cfg, || th), Dur::from_millis(600));
        assert_eq!(c.timer(&cfg, || None), Dur::ZERO);
    }
}
