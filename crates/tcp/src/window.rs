//! The sender's sequence and congestion state that every loss-recovery algorithm reads
//! and changes. Kept apart from the sender so that each algorithm (one file each under
//! `recovery/`) can be a pure function of this state and its own data.

use crate::segments::SegmentTable;
use serde::{Deserialize, Serialize};

/// How ssthresh is halved on a loss.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SsthreshRule {
    /// RFC 5681 equation (4): max(FlightSize / 2, 2 * SMSS); a repeated timeout of the
    /// same segment holds ssthresh (RFC 5681 section 3.1).
    #[default]
    Rfc5681,
    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF)` of 2002: max(min(cwnd, rwnd) / 2,
    /// 2 * SMSS) on every loss, repeated timeouts included, so a second timeout of the
    /// same segment (cwnd = 1) leaves ssthresh at 2 segments (RFC 2581, which ns-2
    /// followed, has no "held constant" clause).
    Ns2,
    /// The Linux kernel's `tcp_reno_ssthresh` (net/ipv4/tcp_cong.c): max(cwnd / 2, 2)
    /// in whole segments, from cwnd rather than FlightSize; a repeated timeout holds it
    /// (`tcp_enter_loss` reduces only on entering the Loss state).
    LinuxReno,
    /// The Linux kernel's `cubictcp_recalc_ssthresh` (net/ipv4/tcp_cubic.c): 717/1024
    /// of cwnd, at least 2, in whole segments ([`crate::cc::cubic::ssthresh`]); a repeated
    /// timeout holds it as with `LinuxReno`.
    LinuxCubic,
    /// A controller whose `ssthresh()` keeps ssthresh (the kernel's `bbr_ssthresh`
    /// returns `tp->snd_ssthresh`): a loss does not lower it.
    Kept,
}

/// Sequence space, congestion window and the outstanding-segment table.
#[derive(Clone, Debug)]
pub struct Window {
    /// Sender maximum segment size in bytes (SMSS).
    pub mss: u64,
    /// Congestion window in bytes.
    pub cwnd: u64,
    /// Slow-start threshold in bytes.
    pub ssthresh: u64,
    /// Oldest unacknowledged byte.
    pub snd_una: u64,
    /// Next byte to send (below `snd_max` during go-back-N).
    pub snd_nxt: u64,
    /// One past the highest byte ever sent.
    pub snd_max: u64,
    /// Duplicate ACKs that start recovery (DupThresh).
    pub dupthresh: u32,
    /// How ssthresh is halved.
    pub ssthresh_rule: SsthreshRule,
    /// The receiver's advertised window (for [`SsthreshRule::Ns2`]).
    pub rwnd: u64,
    /// Outstanding segments with their SACK and retransmission marks.
    pub segs: SegmentTable,
}

impl Window {
    /// A window with nothing sent yet.
    pub fn new(mss: u64, cwnd: u64, ssthresh: u64, dupthresh: u32) -> Window {
        Window {
            mss,
            cwnd,
            ssthresh,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupthresh,
            ssthresh_rule: SsthreshRule::Rfc5681,
            rwnd: u64::MAX,
            segs: SegmentTable::new(),
        }
    }

    /// RFC 5681 FlightSize: data sent but not yet cumulatively acknowledged.
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The halved ssthresh of [`Window::ssthresh_rule`].
    pub fn halved_ssthresh(&self) -> u64 {
        let base = match self.ssthresh_rule {
            // RFC 5681 equation (4): ssthresh = max(FlightSize / 2, 2 * SMSS).
            SsthreshRule::Rfc5681 => self.flight_size(),
            // ns-2 slowdown() with precisionReduce_ false (2002): ssthresh_ =
            // (int)(window() / 2), window() = min((int)cwnd_, window_) in whole packets.
            SsthreshRule::Ns2 => {
                let packets = self.cwnd.min(self.rwnd) / self.mss;
                return ((packets / 2) * self.mss).max(2 * self.mss);
            }
            // tcp_reno_ssthresh: max(tcp_snd_cwnd(tp) >> 1U, 2U), cwnd in segments.
            SsthreshRule::LinuxReno => {
                return ((self.cwnd / self.mss / 2) * self.mss).max(2 * self.mss);
            }
            SsthreshRule::LinuxCubic => {
                return crate::cc::cubic::ssthresh(self.cwnd / self.mss) * self.mss;
            }
            SsthreshRule::Kept => return self.ssthresh,
        };
        (base / 2).max(2 * self.mss)
    }

    /// RFC 6675 SetPipe over the current table.
    pub fn pipe(&self) -> u64 {
        self.segs.pipe(self.snd_nxt, self.dupthresh, self.mss)
    }

    /// Index of the first unSACKed segment not retransmitted in this episode that lies
    /// below the highest SACKed byte and satisfies `pred` (RFC 6675 NextSeg rules 1 and 3,
    /// FACK's next hole).
    pub fn first_hole(&self, pred: impl Fn(usize) -> bool) -> Option<usize> {
        let high = self.segs.highest_sacked_end()?;
        self.segs.first_unmarked_hole(high, pred)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(rule: SsthreshRule, cwnd: u64, flight: u64) -> Window {
        let mut w = Window::new(1000, cwnd, u64::MAX, 3);
        w.ssthresh_rule = rule;
        w.snd_max = flight;
        w
    }

    #[test]
    fn linux_reno_halves_cwnd_in_whole_segments_not_the_flight() {
        // cwnd 21.5 segments, 16 in flight: Linux 10 segments, RFC 5681 8.
        let w = window(SsthreshRule::LinuxReno, 21_500, 16_000);
        assert_eq!(w.halved_ssthresh(), 10_000);
        let w = window(SsthreshRule::Rfc5681, 21_500, 16_000);
        assert_eq!(w.halved_ssthresh(), 8_000);
    }

    #[test]
    fn linux_reno_keeps_two_segments_at_least() {
        let w = window(SsthreshRule::LinuxReno, 1000, 1000);
        assert_eq!(w.halved_ssthresh(), 2000);
    }
}
