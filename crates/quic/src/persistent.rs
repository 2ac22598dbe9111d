//! Persistent congestion (RFC 9002 7.6): the duration (smoothed_rtt + max(4 x rttvar,
//! kGranularity) + max_ack_delay) x kPersistentCongestionThreshold (7.6.1), and the
//! test of 7.6.2: two ack-eliciting packets declared lost more than the duration apart,
//! every packet sent between them declared lost too, both sent after the first RTT
//! sample. As in quinn-proto (connection/mod.rs `detect_lost_packets`), the packets are
//! those declared lost by one acknowledgement, in packet-number order, and a packet
//! number missing from the run (acknowledged, or declared lost before) breaks it.

use crate::rtt::RttEstimator;
use spikelab_core::{Dur, Time};

/// The persistent congestion duration (7.6.1).
pub fn duration(rtt: &RttEstimator, max_ack_delay: Dur, threshold: u32) -> Dur {
    (rtt.pto_base() + max_ack_delay) * u64::from(threshold)
}

/// Whether the packets declared lost at once, `(packet number, send time)` ascending,
/// establish persistent congestion.
pub fn established(lost: &[(u64, Time)], first_sample: Option<Time>, period: Dur) -> bool {
    let Some(first) = first_sample else {
        return false;
    };
    let mut start: Option<Time> = None;
    let mut prev: Option<u64> = None;
    for &(pn, sent) in lost {
        if prev.is_some_and(|p| p + 1 != pn) {
            start = None;
        }
        prev = Some(pn);
        if sent <= first {
            continue;
        }
        match start {
            Some(s) if sent.saturating_since(s) > period => return true,
            Some(_) => {}
            None => start = Some(sent),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    /// RFC 9002 7.6.3's setting: smoothed_rtt 1 s, rttvar near 0 (kGranularity
    /// counts), max_ack_delay 0, threshold 3: the duration is just over 3 s, and
    /// consecutive packets lost over 6 s establish persistent congestion.
    #[test]
    fn losses_spanning_more_than_three_rtts_establish_persistent_congestion() {
        let mut r = RttEstimator::new(Dur::from_secs(1));
        r.update(Dur::from_secs(1), Dur::ZERO);
        for _ in 0..60 {
            r.update(Dur::from_secs(1), Dur::ZERO);
        }
        let d = duration(&r, Dur::ZERO, 3);
        assert!(d >= Dur::from_secs(3) && d <= Dur::from_millis(3003), "{d}");
        let lost: Vec<_> = (2..=8).map(|pn| (pn, t(1000 * (pn - 1)))).collect();
        assert!(established(&lost, Some(t(0)), d));
    }

    #[test]
    fn an_acknowledged_packet_in_between_breaks_the_run() {
        let lost = [(1, t(100)), (2, t(1000)), (4, t(2000)), (5, t(3000))];
        assert!(!established(&lost, Some(t(0)), Dur::from_millis(1500)));
        assert!(established(&lost, Some(t(0)), Dur::from_millis(999)));
    }

    #[test]
    fn packets_sent_before_the_first_rtt_sample_do_not_count() {
        let lost = [(0, t(0)), (1, t(5000))];
        assert!(!established(&lost, Some(t(10)), Dur::from_secs(1)));
        assert!(!established(&lost, None, Dur::from_secs(1)));
    }

    #[test]
    fn the_formula_is_pto_base_plus_max_ack_delay_times_the_threshold() {
        let mut r = RttEstimator::new(Dur::from_millis(333));
        r.update(Dur::from_millis(100), Dur::ZERO);
        // (100 + 4 * 50 + 25) * 3 = 975 ms.
        assert_eq!(duration(&r, Dur::from_millis(25), 3), Dur::from_millis(975));
    }
}
