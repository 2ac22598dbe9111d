//! Condition (3) of [Kim & Cho 2003] section IV: when STD performs like the end-to-end
//! schemes.
//!
//! "If the sending rate of the TCP sender just after receiving a full ACK is larger
//! than the data rate of bottle necked link, TCP with STD can show equivalent
//! performance improvement with other end-to-end algorithms":
//!
//! ```text
//! cwnd_STD / RTT > bottle_neck_link_data_rate      (3)
//! ```

use spikelab_core::{BitRate, Dur};

/// The sending rate cwnd_STD / RTT in bit/s (section IV), for `cwnd_std_bytes` bytes
/// per `rtt`. Infinite for a zero RTT.
pub fn std_sending_rate_bps(cwnd_std_bytes: u64, rtt: Dur) -> f64 {
    cwnd_std_bytes as f64 * 8.0 / rtt.as_secs_f64()
}

/// Condition (3): cwnd_STD / RTT > bottleneck rate, evaluated exactly in integers
/// (cwnd * 8 * 1e9 > rate * RTT_ns).
pub fn std_condition_met(cwnd_std_bytes: u64, rtt: Dur, bottleneck: BitRate) -> bool {
    let lhs = cwnd_std_bytes as u128 * 8 * 1_000_000_000;
    let rhs = bottleneck.bps() as u128 * rtt.0 as u128;
    lhs > rhs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_8k_window_over_one_second_sustains_64_but_not_70_kbps() {
        // 8192 bytes * 8 / 1 s = 65 536 bit/s (section V: 8k receiver window).
        let rtt = Dur::from_secs(1);
        assert_eq!(std_sending_rate_bps(8192, rtt), 65_536.0);
        assert!(std_condition_met(8192, rtt, BitRate(64_000)));
        assert!(!std_condition_met(8192, rtt, BitRate(70_000)));
        // Equality is not "larger than".
        assert!(!std_condition_met(8192, rtt, BitRate(65_536)));
    }

    #[test]
    fn a_64k_window_meets_the_condition_at_a_higher_rate() {
        // Section V: the larger receiver window raises the supported rate.
        let rtt = Dur::from_millis(2500);
        assert!(std_condition_met(65_536, rtt, BitRate(200_000)));
        assert!(!std_condition_met(8192, rtt, BitRate(200_000)));
    }
}
