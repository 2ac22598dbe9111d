//! ns-2.35's `TcpAgent::opencwnd()` (tcp.cc) as the 2002 agents ran it, with
//! `windowOption_` 1 (the default): slow start adds one packet per ACK (RFC 5681's
//! equation 2, [`super::rfc5681::slow_start`]); congestion avoidance adds
//! `1 / cwnd_` in floating-point packets, which spikelab keeps in bytes rounded to
//! the nearest byte. Stateless.

use super::{AckSample, CongestionControl, Declared};
use crate::exports::{Exports, Kernel, Ns2Export};

/// ns-2's `opencwnd()`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Opencwnd;

impl Declared for Ns2Opencwnd {
    const LINUX_MODULE: Option<&'static str> = None;
}

impl Exports for Ns2Opencwnd {
    /// `windowOption_` 1: `opencwnd()`'s `cwnd_ += increase_num_ / cwnd_`.
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Settings(vec![("windowOption_", "1".to_string())])
    }
    /// The kernel's Reno is the nearest module the emulator can run.
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_congestion_control", "reno")])
    }
}

impl CongestionControl for Ns2Opencwnd {
    #[inline]
    fn on_ack(&mut self, a: &AckSample) -> u64 {
        let w = &a.w;
        if w.cwnd < w.ssthresh {
            return super::rfc5681::slow_start(w, a.newly_acked);
        }
        // cwnd_ += 1 / cwnd_ in packets, to the nearest byte.
        let c = w.cwnd as f64 / w.mss as f64;
        spikelab_core::round::round_u64((c + 1.0 / c) * w.mss as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::CwndView;
    use super::*;
    use crate::linux_cwnd_limited::CwndUsage;
    use spikelab_core::Time;

    fn ack(cwnd: u64, ssthresh: u64) -> AckSample {
        AckSample {
            now: Time::ZERO,
            newly_acked: 1000,
            delivered: 1000,
            w: CwndView {
                cwnd,
                ssthresh,
                mss: 1000,
            },
            cwnd_usage: CwndUsage::default(),
        }
    }

    #[test]
    fn avoidance_adds_one_over_cwnd_packets_rounded_to_the_byte() {
        // 3 packets: 3 + 1/3 = 3.333.. packets = 3333 bytes.
        assert_eq!(Ns2Opencwnd.on_ack(&ack(3000, 2000)), 3333);
        // 10571 + 94.598 rounds up, where RFC 5681's integer rule gives 10665.
        assert_eq!(Ns2Opencwnd.on_ack(&ack(10_571, 2000)), 10_666);
    }

    #[test]
    fn slow_start_adds_one_packet_per_ack() {
        assert_eq!(Ns2Opencwnd.on_ack(&ack(3000, 8000)), 4000);
    }
}
