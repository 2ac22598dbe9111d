//! The kernel's internal TCP pacing (net/ipv4/tcp_output.c), used when the controller
//! sets a pacing rate and no fq qdisc paces (`sk_pacing_status` = `SK_PACING_NEEDED`,
//! set by `bbr_init`): each transmission of an skb pushes the earliest departure time
//! of the next one (`tcp_wstamp_ns`) forward by its length at the pacing rate, less up
//! to half of it as credit for time the sender lost (`tcp_update_skb_after_send`), the
//! first 10 segments of a connection unpaced ("Original sch_fq does not pace first
//! 10 MSS"); a send that finds that time in the future waits for the pacing timer
//! (`tcp_pacing_check`, `pacing_timer`).
//!
//! An skb is up to `tcp_tso_segs` segments (the controller's burst size,
//! `CongestionControl::tso_segs`): `tcp_write_xmit` cuts that many from
//! the send queue (`tcp_mss_split_point`, fewer when cwnd or the data allow fewer),
//! and GSO puts them on the wire back to back. Here the segments the sender sends at
//! one instant, up to that size, form one skb: the first is checked against the
//! pacing clock, the others follow it, and the clock advances once for their sum.
//! The last segment of an skb of two or more carries PSH (`__tcp_transmit_skb`: "Force a
//! PSH flag on all (GSO) packets to expedite GRO flush at receiver", Linux 3.18+; GSO
//! keeps it on the last segment), which the Linux receiver acknowledges at once when it
//! arrives alone (`linux_receiver`).

use spikelab_core::{Dur, Time};

/// `tcp_update_skb_after_send` paces from the 10th data segment on.
const UNPACED_SEGMENTS: u64 = 10;

/// The skb being sent: its segments leave at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Skb {
    /// When it went out.
    at: Time,
    /// Segments it may still take.
    room: u64,
    /// `tcp_wstamp_ns` before it (`prev_ns`).
    prior: Time,
    /// Its payload bytes so far.
    len: u64,
}

/// A connection's pacing clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacing {
    /// `tcp_wstamp_ns`: the earliest departure time of the next skb.
    wstamp: Time,
    /// `tp->data_segs_out`: data segments sent, retransmissions included.
    data_segs_out: u64,
    /// The last skb sent.
    skb: Skb,
}

impl Pacing {
    /// `tcp_wstamp_ns`.
    pub fn wstamp(&self) -> Time {
        self.wstamp
    }

    /// The next segment joins the skb sent at `now` (it has room).
    pub fn joins_skb(&self, now: Time) -> bool {
        self.skb.at == now && self.skb.room > 0 && self.skb.len > 0
    }

    /// `tcp_pacing_check`: when the next segment may leave, if not now (a segment
    /// joining the skb that left at `now` goes with it).
    pub fn hold_until(&self, now: Time) -> Option<Time> {
        if self.joins_skb(now) {
            return None;
        }
        (self.wstamp > now).then_some(self.wstamp)
    }

    /// A segment of `len` payload bytes goes out at `now` with pacing rate `rate`
    /// (bytes per second) and skbs of up to `tso_segs` segments: it starts an skb or
    /// joins the one that left at `now`, and the clock is that skb's
    /// `__tcp_transmit_skb` (`tcp_wstamp_ns = max(tcp_wstamp_ns, now)`) then
    /// `tcp_update_skb_after_send`.
    ///
    /// Returns whether the segment joined the skb (it is then, so far, the last segment
    /// of an skb of two or more: the one its PSH flag goes on, see
    /// the sender's `emit`).
    pub fn on_sent(&mut self, now: Time, len: u64, rate: u64, tso_segs: u64) -> bool {
        let joins = self.joins_skb(now);
        if joins {
            self.skb.room -= 1;
            self.skb.len += len;
        } else {
            self.skb = Skb {
                at: now,
                room: tso_segs.max(1) - 1,
                prior: self.wstamp,
                len,
            };
        }
        self.data_segs_out += 1;
        self.wstamp = self.skb.prior.max(now);
        if rate == 0 || rate == u64::MAX || self.data_segs_out < UNPACED_SEGMENTS {
            return joins;
        }
        let len_ns = (self.skb.len as u128 * 1_000_000_000 / rate as u128) as u64;
        // "take into account OS jitter"
        let credit = self.wstamp.saturating_since(self.skb.prior).0;
        let len_ns = len_ns - (len_ns / 2).min(credit);
        self.wstamp += Dur(len_ns);
        joins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(v: u64) -> Time {
        Time::ZERO + Dur::from_micros(v)
    }

    #[test]
    fn the_first_nine_segments_go_out_unpaced() {
        let mut p = Pacing::default();
        for _ in 0..9 {
            p.on_sent(us(0), 1000, 1_000_000, 1);
            assert_eq!(p.hold_until(us(0)), None);
        }
        p.on_sent(us(0), 1000, 1_000_000, 1);
        assert_eq!(p.hold_until(us(0)), Some(us(1000)), "1000 bytes at 1 MB/s");
    }

    #[test]
    fn a_late_send_gets_up_to_half_its_length_as_credit() {
        let mut p = Pacing::default();
        for _ in 0..10 {
            p.on_sent(us(0), 1000, 1_000_000, 1);
        }
        // Due at 1 ms, sent at 1.3 ms: 0.3 ms of credit.
        p.on_sent(us(1300), 1000, 1_000_000, 1);
        assert_eq!(p.wstamp(), us(2000));
        // Sent 5 ms late: the credit is capped at half the length.
        p.on_sent(us(7000), 1000, 1_000_000, 1);
        assert_eq!(p.wstamp(), us(7500));
    }

    #[test]
    fn segments_of_one_skb_leave_together_and_the_clock_advances_once_for_them() {
        let mut p = Pacing::default();
        for _ in 0..10 {
            p.on_sent(us(0), 1000, 1_000_000, 1);
        }
        // Due at 1 ms; an skb of two segments leaves then.
        assert_eq!(p.hold_until(us(1000)), None);
        assert!(!p.on_sent(us(1000), 1000, 1_000_000, 2), "starts the skb");
        assert_eq!(p.hold_until(us(1000)), None, "the second joins the skb");
        assert!(p.on_sent(us(1000), 1000, 1_000_000, 2), "joins it");
        assert_eq!(
            p.hold_until(us(1000)),
            Some(us(3000)),
            "2000 bytes at 1 MB/s"
        );
        // The skb is full: a third segment at the same instant waits.
        assert_eq!(p.wstamp(), us(3000));
    }

    #[test]
    fn a_late_skb_gets_credit_up_to_half_its_whole_length() {
        let mut p = Pacing::default();
        for _ in 0..10 {
            p.on_sent(us(0), 1000, 1_000_000, 1);
        }
        // Due at 1 ms, sent at 2.5 ms: 1.5 ms late, more than half of one segment
        // (0.5 ms) but less than half of the two-segment skb (1 ms).
        p.on_sent(us(2500), 1000, 1_000_000, 2);
        p.on_sent(us(2500), 1000, 1_000_000, 2);
        assert_eq!(p.wstamp(), us(3500), "2 ms less 1 ms of credit");
    }
}
