//! Adapting the retransmission timer after a spurious timeout ([Gurtov & Ludwig 2003] III.C):
//!
//! 1. re-seed: "use an RTT sample obtained with timestamps from delayed segments to
//!    re-initialize SRTT and RTTVAR variables and restart the timer";
//! 2. keep the back-off: "keep the back-off counter at the level set during a spurious
//!    timeout and reset it only on a genuine timeout";
//! 3. raise the minimum: "additive increase of the minimum RTO value on each spurious
//!    timeout and reset it to the default value on a genuine timeout" (Table 4 note a:
//!    "the minimum RTO value is incremented by 1 s after each spurious timeout and reset
//!    to 1 s on a genuine timeout");
//!
//! How the two kept adaptations are read:
//!
//! * A spike fires the timer k times in a row (one episode, k expiries). Each expiry is
//!   a timeout, so a spurious episode is k spurious timeouts: min++ adds k seconds.
//! * The back-off counter a spurious episode sets is k (RFC 2988 (5.5) doubles once per
//!   expiry). Keep-backoff holds the timer at 2^k times the estimator's value after the
//!   episode, instead of collapsing it on the next RTT sample. A later episode backs off
//!   from that level as usual, and when it is found spurious the kept level becomes the
//!   k' that episode set: "the level set during a spurious timeout" is one timeout's
//!   level, so levels of successive spikes replace each other and do not add up.
//! * The minimum is a floor of the *computed* RTO, and back-off doubles the result:
//!   RFC 2988 (2.4) rounds the computed RTO up to the minimum, (5.5) then doubles it
//!   (ns-2's `rtt_timeout()` likewise clamps `minrto_` "before applying t_backoff_").
//!
//! and RFC 4015 section 3.1's re-seed with SRTT_prev / RTTVAR_prev. Re-seeding is the
//! estimator's business ([`crate::rto::RtoEstimator::on_spurious_timeout_reseed`]); the
//! other two are kept here and applied on top of whatever the estimator returns.

use crate::exports::{Exports, Kernel, Ns2Export};
use crate::rto::{backed_off, ReseedRule};
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

/// ns-2.35's `TcpAgent::spurious_timeout()` (tcp/tcp.cc) touches neither the RTT
/// estimate nor `t_backoff_` nor `minrto_`; the Linux kernel's undo
/// (`tcp_try_undo_loss`) likewise leaves `icsk_rto` to the next RTT sample.
impl Exports for RtoAdapt {
    fn ns2(&self) -> Ns2Export {
        match self {
            RtoAdapt::None => Ns2Export::Native(
                "ns-2.35's spurious_timeout() leaves the timer's estimate and back-off as they are",
            ),
            _ => Ns2Export::Refused {
                field: Some("rto_adapt"),
                why: "ns-2.35's spurious_timeout() does not adapt the retransmission timer",
            },
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("the kernel adapts no timer after an undo, and no sysctl makes it")
    }
}

impl RtoAdapt {
    /// Every adaptation, in declaration order.
    pub const ALL: &'static [RtoAdapt] = &[
        RtoAdapt::None,
        RtoAdapt::Reseed,
        RtoAdapt::KeepBackoff,
        RtoAdapt::MinRtoIncrease,
        RtoAdapt::Rfc4015,
    ];

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
    /// Option 2: the back-off count the last spurious episode set, kept until a genuine
    /// timeout.
    kept_backoff: u32,
    /// Raised minimum RTO (option 3); `None` leaves the estimator's own minimum.
    min_rto: Option<Dur>,
}

impl RtoAdaptState {
    /// A spurious timeout was detected; `expiries` is how many times the timer expired
    /// in its episode (the back-offs the episode set).
    pub fn on_spurious(&mut self, rule: RtoAdapt, expiries: u32) {
        match rule {
            // III.C option 2: "keep the back-off counter at the level set during a
            // spurious timeout": this episode's level replaces the one kept before.
            RtoAdapt::KeepBackoff => self.kept_backoff = expiries,
            // Table 4 note a: "incremented by 1 s after each spurious timeout".
            RtoAdapt::MinRtoIncrease => {
                let from = self.min_rto.unwrap_or(MIN_RTO_STEP);
                self.min_rto = Some(from + MIN_RTO_STEP * u64::from(expiries));
            }
            _ => {}
        }
    }

    /// A timeout was found genuine: both kept adaptations reset.
    pub fn on_genuine(&mut self) {
        *self = RtoAdaptState::default();
    }

    /// The RTO to arm the timer with, given the estimator's value `rto` (after its own
    /// `backoff` doublings) and its maximum.
    pub fn apply(&self, rto: Dur, backoff: u32, max: Option<Dur>) -> Dur {
        // Option 3 under RFC 2988 (2.4) then (5.5): max(base, min) * 2^b, which is
        // max(base * 2^b, min * 2^b) = max(rto, min * 2^b).
        let floored = self
            .min_rto
            .map_or(rto, |m| rto.max(backed_off(m, backoff, None)));
        // Option 2: the kept counter doubles on top of the episode's own back-off.
        let backed = backed_off(floored, self.kept_backoff, None);
        max.map_or(backed, |m| backed.min(m.max(rto)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(v: u64) -> Dur {
        Dur::from_secs(v)
    }

    #[test]
    fn kept_backoff_holds_the_level_of_the_last_spurious_episode_and_resets_on_genuine() {
        let mut s = RtoAdaptState::default();
        // A spike with three expiries: the timer stays at 2^3 = 8 times the estimate.
        s.on_spurious(RtoAdapt::KeepBackoff, 3);
        assert_eq!(s.apply(secs(1), 0, None), secs(8));
        // The next spike backs off from there (8, 16, 32 s)...
        assert_eq!(s.apply(secs(4), 2, None), secs(32));
        // ...and, found spurious after its own three expiries, leaves the level at 8,
        // not 64: levels of successive spikes replace each other.
        s.on_spurious(RtoAdapt::KeepBackoff, 3);
        assert_eq!(s.apply(secs(1), 0, None), secs(8));
        // A one-expiry spike sets level 1.
        s.on_spurious(RtoAdapt::KeepBackoff, 1);
        assert_eq!(s.apply(secs(1), 0, None), secs(2));
        // The maximum still bounds it, but never below the estimator's own value.
        assert_eq!(s.apply(secs(10), 0, Some(secs(15))), secs(15));
        assert_eq!(s.apply(secs(20), 0, Some(secs(15))), secs(20));
        s.on_genuine();
        assert_eq!(s.apply(secs(1), 0, None), secs(1));
    }

    #[test]
    fn min_rto_grows_by_one_second_per_spurious_expiry() {
        // Table 4 note a: +1 s per spurious timeout; a three-expiry spike is three.
        let mut s = RtoAdaptState::default();
        s.on_spurious(RtoAdapt::MinRtoIncrease, 1);
        assert_eq!(s.apply(Dur::from_millis(1200), 0, None), secs(2));
        s.on_spurious(RtoAdapt::MinRtoIncrease, 3);
        assert_eq!(s.apply(Dur::from_millis(1200), 0, None), secs(5));
        assert_eq!(s.apply(secs(7), 0, None), secs(7));
        s.on_genuine();
        assert_eq!(
            s.apply(Dur::from_millis(1200), 0, None),
            Dur::from_millis(1200)
        );
    }

    #[test]
    fn raised_minimum_floors_the_computed_rto_before_back_off_doubles_it() {
        let mut s = RtoAdaptState::default();
        s.on_spurious(RtoAdapt::MinRtoIncrease, 2); // minimum 3 s
                                                    // Estimator: base 1.2 s backed off twice = 4.8 s. RFC 2988: max(1.2, 3) * 4 =
                                                    // 12 s; flooring after the back-off would give only max(4.8, 3) = 4.8 s.
        assert_eq!(s.apply(Dur::from_millis(4800), 2, None), secs(12));
        // A computed RTO above the minimum is doubled as it is.
        assert_eq!(s.apply(secs(20), 1, None), secs(20));
    }

    #[test]
    fn reseeding_variants_name_their_estimator_rule() {
        assert_eq!(RtoAdapt::Reseed.reseed_rule(), Some(ReseedRule::Reinit));
        assert_eq!(RtoAdapt::Rfc4015.reseed_rule(), Some(ReseedRule::Rfc4015));
        assert_eq!(RtoAdapt::KeepBackoff.reseed_rule(), None);
    }
}
