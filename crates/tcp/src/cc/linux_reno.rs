//! The Linux kernel's Reno window growth: `tcp_reno_cong_avoid`, `tcp_slow_start` and
//! `tcp_cong_avoid_ai` (net/ipv4/tcp_cong.c), in whole segments as the kernel counts.
//!
//! Unlike RFC 5681's per-ACK increase, the kernel counts acknowledged *segments*: in
//! slow start cwnd grows by every segment an ACK covers (so a delayed ACK for two
//! segments adds two), up to ssthresh, and the rest of the ACK carries over into
//! congestion avoidance; there `snd_cwnd_cnt` accumulates acknowledged segments and
//! cwnd grows by one each time the count reaches cwnd (one segment per window of
//! data, whatever the ACK pattern).
//!
//! Growth happens only while cwnd limits the sender (`tcp_is_cwnd_limited`,
//! [`crate::linux_cwnd_limited`]): `tcp_reno_cong_avoid` returns at once otherwise.

use super::{AckSample, CongestionControl, CwndView, Declared};
use crate::exports::{Exports, Kernel, Ns2Export};
use spikelab_core::Time;

/// `snd_cwnd_cnt`: segments acknowledged towards the next congestion-avoidance step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinuxReno {
    cwnd_cnt: u64,
}

impl LinuxReno {
    /// `tcp_reno_cong_avoid` for an ACK of `acked` segments: the new cwnd, in segments.
    pub fn cong_avoid(&mut self, cwnd: u64, ssthresh: u64, acked: u64) -> u64 {
        let (cwnd, acked) = Self::slow_start(cwnd, ssthresh, acked);
        if acked == 0 {
            return cwnd;
        }
        self.cong_avoid_ai(cwnd, cwnd, acked)
    }

    /// `tcp_slow_start` while `tcp_in_slow_start` (cwnd < ssthresh): cwnd = min(cwnd +
    /// acked, ssthresh); returns it and the acknowledged segments left over.
    pub fn slow_start(cwnd: u64, ssthresh: u64, acked: u64) -> (u64, u64) {
        if cwnd >= ssthresh {
            return (cwnd, acked);
        }
        let grown = (cwnd + acked).min(ssthresh);
        (grown, acked - (grown - cwnd))
    }

    /// `tcp_cong_avoid_ai(tp, w, acked)`: one segment of growth per `w` acknowledged.
    pub fn cong_avoid_ai(&mut self, w: u64, cwnd: u64, acked: u64) -> u64 {
        let w = w.max(1);
        let mut cwnd = cwnd;
        // "If credits accumulated at a higher w, apply them gently now."
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            cwnd += delta;
        }
        cwnd
    }

    /// `tcp_enter_loss` / `tcp_enter_recovery` clear `snd_cwnd_cnt`.
    pub fn reset_cnt(&mut self) {
        self.cwnd_cnt = 0;
    }
}

/// The kernel's `cong_avoid` call in whole segments: `acked` is what the ACK delivered
/// (rounded up to segments), and nothing grows unless cwnd limited the sender
/// (`tcp_is_cwnd_limited`). `grow` is the module's `cong_avoid` from cwnd, ssthresh
/// and acked segments. Returns the new cwnd in bytes.
#[inline]
pub fn in_segments(a: &AckSample, grow: impl FnOnce(u64, u64, u64) -> u64) -> u64 {
    let w = &a.w;
    let acked = a.delivered.div_ceil(w.mss);
    let (cwnd, ssthresh) = (w.cwnd / w.mss, w.ssthresh / w.mss);
    if !a.cwnd_usage.allows_growth(cwnd, ssthresh) {
        return w.cwnd;
    }
    grow(cwnd, ssthresh, acked) * w.mss
}

impl Declared for LinuxReno {
    const LINUX_MODULE: Option<&'static str> = Some("reno");
}

impl Exports for LinuxReno {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "the 2002 agents have no Linux stack",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_congestion_control", "reno")])
    }
}

impl CongestionControl for LinuxReno {
    #[inline]
    fn on_ack(&mut self, a: &AckSample) -> u64 {
        in_segments(a, |cwnd, ssthresh, acked| {
            self.cong_avoid(cwnd, ssthresh, acked)
        })
    }
    /// Reno's `pkts_acked` is empty.
    fn on_congestion_event(&mut self, _: &CwndView) {
        self.reset_cnt();
    }
    fn on_timeout(&mut self, _: Time, _: u64) {
        self.reset_cnt();
    }
    // on_undo keeps the default: `tcp_reno_undo_cwnd`'s value is the sender's restore rule's.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_adds_every_segment_a_delayed_ack_covers() {
        let mut r = LinuxReno::default();
        assert_eq!(r.cong_avoid(10, 100, 2), 12);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_the_rest_counts_towards_avoidance() {
        let mut r = LinuxReno::default();
        assert_eq!(r.cong_avoid(9, 10, 2), 10);
        // One segment carried over: 9 more make a window of 10.
        assert_eq!(r.cong_avoid(10, 10, 8), 10);
        assert_eq!(r.cong_avoid(10, 10, 1), 11);
    }

    #[test]
    fn avoidance_grows_one_segment_per_window_whatever_the_ack_size() {
        let (mut one, mut two) = (LinuxReno::default(), LinuxReno::default());
        let (mut c1, mut c2) = (20, 20);
        for _ in 0..20 {
            c1 = one.cong_avoid(c1, 10, 1);
        }
        for _ in 0..10 {
            c2 = two.cong_avoid(c2, 10, 2);
        }
        assert_eq!((c1, c2), (21, 21));
    }
}
