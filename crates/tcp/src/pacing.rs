//! The kernel's internal TCP pacing (net/ipv4/tcp_output.c), used when the controller
//! sets a pacing rate and no fq qdisc paces (`sk_pacing_status` = `SK_PACING_NEEDED`,
//! set by `bbr_init`): each transmission pushes the earliest departure time of the
//! next one (`tcp_wstamp_ns`) forward by its length at the pacing rate, less up to
//! half of it as credit for time the sender lost (`tcp_update_skb_after_send`), the
//! first 10 segments of a connection unpaced ("Original sch_fq does not pace first
//! 10 MSS"); a send that finds that time in the future waits for the pacing timer
//! (`tcp_pacing_check`, `pacing_timer`).

use spikelab_core::{Dur, Time};

/// `tcp_update_skb_after_send` paces from the 10th data segment on.
const UNPACED_SEGMENTS: u64 = 10;

/// A connection's pacing clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacing {
    /// `tcp_wstamp_ns`: the earliest departure time of the next segment.
    wstamp: Time,
    /// `tp->data_segs_out`: data segments sent, retransmissions included.
    data_segs_out: u64,
}

impl Pacing {
    /// `tcp_wstamp_ns`.
    pub fn wstamp(&self) -> Time {
        self.wstamp
    }

    /// `tcp_pacing_check`: when the next segment may leave, if not now.
    pub fn hold_until(&self, now: Time) -> Option<Time> {
        (self.wstamp > now).then_some(self.wstamp)
    }

    /// `__tcp_transmit_skb` (`tcp_wstamp_ns = max(tcp_wstamp_ns, now)`) then
    /// `tcp_update_skb_after_send` for a segment of `len` payload bytes sent at `now`
    /// with pacing rate `rate` (bytes per second).
    pub fn on_sent(&mut self, now: Time, len: u64, rate: u64) {
        let prior = self.wstamp;
        self.wstamp = self.wstamp.max(now);
        self.data_segs_out += 1;
        if rate == 0 || rate == u64::MAX || self.data_segs_out < UNPACED_SEGMENTS {
            return;
        }
        let len_ns = (len as u128 * 1_000_000_000 / rate as u128) as u64;
        // "take into account OS jitter"
        let credit = self.wstamp.saturating_since(prior).0;
        let len_ns = len_ns - (len_ns / 2).min(credit);
        self.wstamp += Dur(len_ns);
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
            p.on_sent(us(0), 1000, 1_000_000);
            assert_eq!(p.hold_until(us(0)), None);
        }
        p.on_sent(us(0), 1000, 1_000_000);
        assert_eq!(p.hold_until(us(0)), Some(us(1000)), "1000 bytes at 1 MB/s");
    }

    #[test]
    fn a_late_send_gets_up_to_half_its_length_as_credit() {
        let mut p = Pacing::default();
        for _ in 0..10 {
            p.on_sent(us(0), 1000, 1_000_000);
        }
        // Due at 1 ms, sent at 1.3 ms: 0.3 ms of credit.
        p.on_sent(us(1300), 1000, 1_000_000);
        assert_eq!(p.wstamp(), us(2000));
        // Sent 5 ms late: the credit is capped at half the length.
        p.on_sent(us(7000), 1000, 1_000_000);
        assert_eq!(p.wstamp(), us(7500));
    }
}
