//! Adapting the retransmission timer after a spurious timeout (eifel-response.md III.C):
//!
//! 1. re-seed: "use an RTT sample obtained with timestamps from delayed segments to
//!    re-initialize SRTT and RTTVAR variables and restart the timer";
//! 2. keep the back-off: "keep the back-off counter at the level set during a spurious
//!    timeout and reset it only on a genuine timeout";
//! 3. raise the minimum: "additive increase of the minimum RTO value on each spurious
//!    timeout and reset it to the default value on a genuine timeout" (Table 4 note a:
//!    +1 s per spurious timeout, reset to 1 s);
//!
//! and RFC 4015 section 3.1's re-seed with SRTT_prev / RTTVAR_prev. Re-seeding is the
//! estimator's business ([`crate::rto::RtoEstimator::on_spurious_timeout_reseed`]); the
//! other two are kept here and applied on top of whatever the estimator returns.

use crate::rto::ReseedRule;
use serde::{Deserialize, Serialize};
use spikelab_core::Dur;

/// Which adaptation applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtoAdapt {
    None,
    /// Option 1: re-initialise from the delayed sample.
    Reseed,
    /// Option 2: keep the back-off until a genuine timeout.
    KeepBackoff,
    /// Option 3: min RTO += 1 s per spurious timeout, reset on a genuine one.
    MinRtoIncrease,
    /// RFC 4015 section 3.1.
    Rfc4015,
}

impl RtoAdapt {
    /// The estimator rule for the re-seeding variants.
    pub fn reseed_rule(self) -> Option<ReseedRule> {
        match self {
            RtoAdapt::Reseed => Some(ReseedRule::Reinit),
            RtoAdapt::Rfc4015 => Some(ReseedRule::Rfc4015),
            _ => None,
        }
    }
}

/// The step of option 3 and the value it resets to (Table 4 note a).
const MIN_RTO_STEP: Dur = Dur::from_secs(1);

/// The adaptation carried between episodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RtoAdaptState {
    /// Back-offs kept from spurious timeouts (option 2).
    kept_backoff: u32,
    /// Raised minimum RTO (option 3); `None` leaves the estimator's own minimum.
    min_rto: Option<Dur>,
}

impl RtoAdaptState {
    /// A spurious timeout was detected; `backoff` is the estimator's back-off count
    /// reached during it.
    pub fn on_spurious(&mut self, rule: RtoAdapt, backoff: u32) {
        match rule {
            RtoAdapt::KeepBackoff => self.kept_backoff = self.kept_backoff.saturating_add(backoff),
            RtoAdapt::MinRtoIncrease => {
                self.min_rto = Some(self.min_rto.unwrap_or(MIN_RTO_STEP) + MIN_RTO_STEP)
            }
            _ => {}
        }
    }

    /// A timeout was found genuine: both kept adaptations reset.
    pub fn on_genuine(&mut self) {
        *self = RtoAdaptState::default();
    }

    /// The RTO to arm the timer with, given the estimator's value and maximum.
    pub fn apply(&self, rto: Dur, max: Option<Dur>) -> Dur {
        let factor = 1u64
            .checked_shl(self.kept_backoff.min(63))
            .unwrap_or(u64::MAX);
        let backed = Dur(rto.0.saturating_mul(factor));
        let capped = max.map_or(backed, |m| backed.min(m.max(rto)));
        self.min_rto.map_or(capped, |m| capped.max(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_backoff_doubles_per_kept_step_and_resets_on_genuine() {
        let mut s = RtoAdaptState::default();
        s.on_spurious(RtoAdapt::KeepBackoff, 2);
        assert_eq!(
            s.apply(Dur::from_secs(1), Some(Dur::from_secs(60))),
            Dur::from_secs(4)
        );
        s.on_spurious(RtoAdapt::KeepBackoff, 1);
        assert_eq!(
            s.apply(Dur::from_secs(1), Some(Dur::from_secs(60))),
            Dur::from_secs(8)
        );
        assert_eq!(
            s.apply(Dur::from_secs(10), Some(Dur::from_secs(60))),
            Dur::from_secs(60)
        );
        s.on_genuine();
        assert_eq!(s.apply(Dur::from_secs(1), None), Dur::from_secs(1));
    }

    #[test]
    fn min_rto_grows_by_one_second_per_spurious_timeout() {
        // Table 4 note a: 1 s -> 2 s -> 3 s, and back to the default on a genuine one.
        let mut s = RtoAdaptState::default();
        s.on_spurious(RtoAdapt::MinRtoIncrease, 1);
        assert_eq!(s.apply(Dur::from_millis(1200), None), Dur::from_secs(2));
        s.on_spurious(RtoAdapt::MinRtoIncrease, 1);
        assert_eq!(s.apply(Dur::from_millis(1200), None), Dur::from_secs(3));
        assert_eq!(s.apply(Dur::from_secs(5), None), Dur::from_secs(5));
        s.on_genuine();
        assert_eq!(
            s.apply(Dur::from_millis(1200), None),
            Dur::from_millis(1200)
        );
    }

    #[test]
    fn reseeding_variants_name_their_estimator_rule() {
        assert_eq!(RtoAdapt::Reseed.reseed_rule(), Some(ReseedRule::Reinit));
        assert_eq!(RtoAdapt::Rfc4015.reseed_rule(), Some(ReseedRule::Rfc4015));
        assert_eq!(RtoAdapt::KeepBackoff.reseed_rule(), None);
    }
}
