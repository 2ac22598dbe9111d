//! The probe timeout (RFC 9002 6.2; pseudocode A.8 `GetPtoTimeAndSpace`): the sum
//! smoothed_rtt, max(4 x rttvar, kGranularity) and max_ack_delay, doubled per PTO
//! without an acknowledgement (6.2.1), from the last ack-eliciting packet sent. max_ack_delay is
//! left out while the handshake runs (the Initial and Handshake spaces, 6.2.1). The
//! optional ceiling `pto_max` is no part of RFC 9002 (picoquic's
//! `PICOQUIC_LARGE_RETRANSMIT_TIMER`, quiche pull request 1583).

use crate::rtt::RttEstimator;
use spikelab_core::Dur;

/// quinn-proto's `MAX_BACKOFF_EXPONENT` (connection/mod.rs): the doubling stops at 2^16.
pub const MAX_BACKOFF_EXPONENT: u32 = 16;

/// The PTO period after `pto_count` probe timeouts without an acknowledgement.
pub fn duration(rtt: &RttEstimator, max_ack_delay: Dur, pto_count: u32, cap: Option<Dur>) -> Dur {
    let base = rtt.pto_base() + max_ack_delay;
    let d = Dur(base
        .0
        .saturating_mul(1 << pto_count.min(MAX_BACKOFF_EXPONENT)));
    cap.map_or(d, |c| d.min(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }

    #[test]
    fn the_pto_adds_max_ack_delay_and_doubles_per_expiry() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), Dur::ZERO);
        // 100 + 4 * 50 + 25 = 325 ms.
        assert_eq!(duration(&r, ms(25), 0, None), ms(325));
        assert_eq!(duration(&r, ms(25), 3, None), ms(2600));
    }

    #[test]
    fn the_first_handshake_pto_is_999_ms_and_a_ceiling_holds_the_back_off() {
        let r = RttEstimator::new(ms(333));
        assert_eq!(duration(&r, Dur::ZERO, 0, None), ms(999));
        assert_eq!(duration(&r, Dur::ZERO, 4, Some(ms(2000))), ms(2000));
    }

    #[test]
    fn a_small_rttvar_still_adds_the_granularity() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), Dur::ZERO);
        for _ in 0..40 {
            r.update(ms(100), Dur::ZERO);
        }
        assert!(r.var() < Dur::from_micros(250));
        assert_eq!(duration(&r, Dur::ZERO, 0, None), ms(101));
    }
}
