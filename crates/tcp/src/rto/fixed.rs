//! A constant retransmission timer: the "RTO = const" baseline and a test oracle.
//!
//! The timer is armed with the configured value whatever the RTT samples say; only the
//! exponential back-off of RFC 6298 (5.5) applies on expiry, bounded by the maximum of
//! (2.5), and, as in (5.7)'s note (Karn's algorithm), a valid sample or a spurious-timeout
//! re-seed ends the back-off. No smoothed RTT is kept, so a re-seed changes nothing else.
//!
//! Because its value is known in advance, an engine test can check that a sender armed
//! its timer with exactly the RTO it was given (see `crates/engine/tests/fixed_rto.rs`).

use super::rto_range;
use super::{backed_off, dur_or_none, ReseedRule, RtoEstimator, RttSample};
use crate::exports::{Exports, Kernel, Ns2Export};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{dur_in, Bounded, Check, FieldPath, MAX_DUR, MIN_RTO_CEILING};
use spikelab_core::Dur;

/// Parameters of the constant timer. Every field may be omitted from a scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FixedConfig {
    /// The RTO before any back-off. Default 1 s (RFC 6298 (2.1)'s initial value).
    pub rto: Dur,
    /// Ceiling of the backed-off RTO, or `"none"`. Default 60 s (RFC 6298 (2.5)).
    #[serde(with = "dur_or_none")]
    pub max_rto: Option<Dur>,
}

impl Default for FixedConfig {
    fn default() -> Self {
        FixedConfig {
            rto: Dur::from_secs(1),
            max_rto: Some(Dur::from_secs(60)),
        }
    }
}

/// The constant timer (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Fixed {
    cfg: FixedConfig,
    backoff: u32,
}

impl Fixed {
    /// A fresh timer, not backed off.
    pub fn new(cfg: FixedConfig) -> Self {
        Fixed { cfg, backoff: 0 }
    }
}

impl RtoEstimator for Fixed {
    fn on_syn_sample(&mut self, _rtt: Dur) {}
    fn on_rtt_sample(&mut self, _sample: &RttSample) {
        // RFC 6298 (5.7) note: a valid sample after a backed-off timeout collapses the
        // timer back to its base.
        self.backoff = 0;
    }
    fn on_timeout(&mut self) {
        // RFC 6298 (5.5): back off the timer.
        self.backoff = self.backoff.saturating_add(1);
    }
    fn on_spurious_timeout_reseed(&mut self, _rtt: Dur, _rule: ReseedRule) {
        // Both rules re-seed SRTT/RTTVAR, which this timer has not; the back-off ends as
        // for any valid sample.
        self.backoff = 0;
    }
    fn max_rto(&self) -> Option<Dur> {
        self.cfg.max_rto
    }
    fn rto(&self) -> Dur {
        backed_off(self.cfg.rto, self.backoff, self.cfg.max_rto)
    }
    fn backoff_count(&self) -> u32 {
        self.backoff
    }
    fn srtt(&self) -> Option<Dur> {
        None
    }
}

/// The constant timer's value is its initial RTO too: at least the smallest ceiling,
/// and not above its own maximum.
impl Bounded for FixedConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let c = self;
        dur_in(&p.key("rto"), c.rto, MIN_RTO_CEILING, MAX_DUR)?;
        rto_range(p, ("rto", c.rto), ("max_rto", c.max_rto))
    }
}

impl Exports for FixedConfig {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35 has no constant timer",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("a Linux host always runs its own estimator (`tcp_rtt_estimator()`)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Time;

    fn sample(ms: u64) -> RttSample {
        RttSample {
            now: Time::ZERO,
            rtt: Dur::from_millis(ms),
            flight_segments: 1,
            from_timestamps: false,
        }
    }

    #[test]
    fn samples_do_not_move_the_timer() {
        let mut f = Fixed::new(FixedConfig {
            rto: Dur::from_millis(700),
            ..FixedConfig::default()
        });
        f.on_syn_sample(Dur::from_secs(5));
        f.on_rtt_sample(&sample(3000));
        f.on_rtt_sample(&sample(1));
        assert_eq!((f.rto(), f.srtt()), (Dur::from_millis(700), None));
    }

    #[test]
    fn expiries_double_up_to_the_maximum_and_a_sample_collapses_them() {
        let mut f = Fixed::new(FixedConfig::default());
        f.on_timeout();
        f.on_timeout();
        assert_eq!((f.rto(), f.backoff_count()), (Dur::from_secs(4), 2));
        for _ in 0..10 {
            f.on_timeout();
        }
        assert_eq!(f.rto(), Dur::from_secs(60));
        f.on_rtt_sample(&sample(100));
        assert_eq!((f.rto(), f.backoff_count()), (Dur::from_secs(1), 0));
    }
}
