//! RTT estimation (RFC 9002 5; pseudocode A.7 `UpdateRtt`).
//!
//! latest_rtt is the ACK's time less the largest newly acknowledged packet's send time
//! (5.1); min_rtt the smallest latest_rtt, ack_delay not subtracted (5.2);
//! smoothed_rtt and rttvar the EWMA of 5.3, the ack_delay (capped at max_ack_delay once
//! the handshake is confirmed) subtracted from latest_rtt only while that leaves at
//! least min_rtt.

use spikelab_core::Dur;

/// kGranularity (RFC 9002 6.1.2): the timer granularity, 1 ms.
pub const GRANULARITY: Dur = Dur::from_millis(1);

/// The RTT state of one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    latest: Dur,
    min: Dur,
    smoothed: Dur,
    var: Dur,
    sampled: bool,
}

impl RttEstimator {
    /// Before any sample: smoothed_rtt = kInitialRtt, rttvar = kInitialRtt / 2 (5.3).
    pub fn new(initial_rtt: Dur) -> RttEstimator {
        RttEstimator {
            latest: Dur::ZERO,
            min: Dur::ZERO,
            smoothed: initial_rtt,
            var: Dur(initial_rtt.0 / 2),
            sampled: false,
        }
    }

    /// Feeds a sample `latest_rtt` whose ACK reported `ack_delay`, already limited to
    /// max_ack_delay by the caller when the handshake is confirmed (5.3).
    pub fn update(&mut self, latest_rtt: Dur, ack_delay: Dur) {
        self.latest = latest_rtt;
        if !self.sampled {
            self.sampled = true;
            self.min = latest_rtt;
            self.smoothed = latest_rtt;
            self.var = Dur(latest_rtt.0 / 2);
            return;
        }
        self.min = self.min.min(latest_rtt);
        // "adjusted_rtt = latest_rtt; if (latest_rtt >= min_rtt + ack_delay) ..."
        let adjusted = if latest_rtt >= self.min + ack_delay {
            latest_rtt - ack_delay
        } else {
            latest_rtt
        };
        // rttvar = 3/4 rttvar + 1/4 |smoothed_rtt - adjusted_rtt|, then
        // smoothed_rtt = 7/8 smoothed_rtt + 1/8 adjusted_rtt.
        let dev = self.smoothed.0.abs_diff(adjusted.0);
        self.var = Dur((3 * self.var.0 + dev) / 4);
        self.smoothed = Dur((7 * self.smoothed.0 + adjusted.0) / 8);
    }

    /// Whether a sample has been taken.
    pub fn sampled(&self) -> bool {
        self.sampled
    }
    pub fn latest(&self) -> Dur {
        self.latest
    }
    pub fn min(&self) -> Dur {
        self.min
    }
    pub fn smoothed(&self) -> Dur {
        self.smoothed
    }
    pub fn var(&self) -> Dur {
        self.var
    }

    /// smoothed_rtt + max(4 x rttvar, kGranularity): the PTO without max_ack_delay and
    /// back-off (6.2.1).
    pub fn pto_base(&self) -> Dur {
        self.smoothed + Dur(4 * self.var.0).max(GRANULARITY)
    }

    /// The time threshold's delay: max(kTimeThreshold x max(smoothed_rtt, latest_rtt),
    /// kGranularity), kTimeThreshold = 9/8 (6.1.2).
    pub fn loss_delay(&self) -> Dur {
        let rtt = self.smoothed.max(self.latest);
        Dur(rtt.0 * 9 / 8).max(GRANULARITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }

    #[test]
    fn before_a_sample_the_initial_rtt_gives_a_pto_of_999_ms() {
        let r = RttEstimator::new(ms(333));
        assert_eq!((r.smoothed(), r.var()), (ms(333), Dur(166_500_000)));
        assert_eq!(r.pto_base(), ms(999));
    }

    #[test]
    fn the_first_sample_sets_smoothed_to_it_and_rttvar_to_half() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), ms(20));
        assert_eq!((r.min(), r.smoothed(), r.var()), (ms(100), ms(100), ms(50)));
    }

    #[test]
    fn ack_delay_is_subtracted_only_while_min_rtt_remains_below() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(100), Dur::ZERO);
        // 140 >= 100 + 20: adjusted 120; var = (3*50 + 20)/4 = 42.5; srtt = (700+120)/8.
        r.update(ms(140), ms(20));
        assert_eq!(r.var(), Dur(42_500_000));
        assert_eq!(r.smoothed(), Dur(102_500_000));
        // 110 < 100 + 20: ack_delay ignored, adjusted 110.
        let before = r;
        r.update(ms(110), ms(20));
        assert_eq!(r.smoothed(), Dur((7 * before.smoothed().0 + ms(110).0) / 8));
        assert_eq!(r.min(), ms(100), "min_rtt ignores ack_delay");
    }

    #[test]
    fn the_loss_delay_is_nine_eighths_of_the_larger_of_smoothed_and_latest() {
        let mut r = RttEstimator::new(ms(333));
        r.update(ms(80), Dur::ZERO);
        r.update(ms(160), Dur::ZERO);
        assert_eq!(r.latest(), ms(160));
        assert_eq!(r.loss_delay(), ms(180));
        let tiny = {
            let mut t = RttEstimator::new(ms(333));
            t.update(Dur::from_micros(100), Dur::ZERO);
            t
        };
        assert_eq!(tiny.loss_delay(), GRANULARITY, "kGranularity floor");
    }
}
