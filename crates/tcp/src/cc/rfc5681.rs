//! RFC 5681 section 3.1's window growth: slow start (equation 2, cwnd += min(N, SMSS)
//! per ACK of N new bytes) below ssthresh, congestion avoidance (equation 3,
//! cwnd += SMSS*SMSS/cwnd, at least one byte) at or above it. Stateless.

use super::{AckSample, CongestionControl, CwndView, Declared};
use crate::exports::{Exports, Kernel, Ns2Export};

/// RFC 5681's Reno growth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rfc5681Reno;

/// RFC 5681 (2): slow start's cwnd after an ACK of `newly` new bytes.
#[inline]
pub fn slow_start(w: &CwndView, newly: u64) -> u64 {
    w.cwnd + newly.min(w.mss)
}

impl Declared for Rfc5681Reno {
    const LINUX_MODULE: Option<&'static str> = None;
}

impl Exports for Rfc5681Reno {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2's opencwnd() grows cwnd_ by 1/cwnd_ packets in floating point, not \
                  by SMSS*SMSS/cwnd bytes (use ns2-opencwnd)",
        }
    }
    /// The kernel's Reno is the nearest module the emulator can run.
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_congestion_control", "reno")])
    }
}

impl CongestionControl for Rfc5681Reno {
    #[inline]
    fn on_ack(&mut self, a: &AckSample) -> u64 {
        let w = &a.w;
        if w.cwnd < w.ssthresh {
            slow_start(w, a.newly_acked)
        } else {
            w.cwnd + (w.mss * w.mss / w.cwnd).max(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux_cwnd_limited::CwndUsage;
    use spikelab_core::Time;

    fn ack(cwnd: u64, ssthresh: u64, newly: u64) -> AckSample {
        AckSample {
            now: Time::ZERO,
            newly_acked: newly,
            delivered: newly,
            w: CwndView {
                cwnd,
                ssthresh,
                mss: 1000,
            },
            cwnd_usage: CwndUsage::default(),
        }
    }

    #[test]
    fn slow_start_grows_by_the_bytes_acked_up_to_one_segment() {
        let mut r = Rfc5681Reno;
        assert_eq!(r.on_ack(&ack(4000, 10_000, 500)), 4500);
        assert_eq!(r.on_ack(&ack(4000, 10_000, 2000)), 5000);
    }

    #[test]
    fn avoidance_grows_by_smss_squared_over_cwnd() {
        let mut r = Rfc5681Reno;
        assert_eq!(r.on_ack(&ack(10_000, 10_000, 1000)), 10_100);
        // At least one byte however large cwnd is.
        assert_eq!(r.on_ack(&ack(2_000_000, 10_000, 1000)), 2_000_001);
    }
}
