//! Proportional Rate Reduction (RFC 6937) as the Linux kernel runs it in fast
//! recovery: `tcp_init_cwnd_reduction` and `tcp_cwnd_reduction`
//! (net/ipv4/tcp_input.c, Linux 6.x), in whole segments.
//!
//! On every ACK in recovery the kernel sets cwnd = pipe + sndcnt, where
//!
//! * while pipe > ssthresh, sndcnt = ceil(ssthresh * prr_delivered / prior_cwnd) -
//!   prr_out: the sending rate falls in proportion to the deliveries, so that cwnd
//!   reaches ssthresh after one round trip (RFC 6937 section 3, "proportional part");
//! * else sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out,
//!   newly delivered) + 1 if snd_una advanced without new losses): packet
//!   conservation, slow-starting back up to ssthresh (the kernel's variant of PRR-SSRB);
//! * at least one segment when nothing was sent yet in this recovery (the fast
//!   retransmit).
//!
//! `prr_delivered` counts segments newly acknowledged or SACKed during recovery,
//! `prr_out` segments sent during recovery, `prior_cwnd` the cwnd before the
//! reduction. Simplification: "new losses" (`newly_lost`, segments RACK or the
//! scoreboard newly marked lost by this ACK) are not tracked; an ACK that advances
//! snd_una always earns the extra segment.

/// PRR's counters for one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    prior_cwnd: u64,
    delivered: u64,
    out: u64,
}

impl Prr {
    /// `tcp_init_cwnd_reduction`: a recovery starts with cwnd `prior_cwnd` segments.
    pub fn start(prior_cwnd: u64) -> Prr {
        Prr {
            prior_cwnd: prior_cwnd.max(1),
            delivered: 0,
            out: 0,
        }
    }

    /// A segment went out during recovery (`prr_out`).
    pub fn on_sent(&mut self) {
        self.out += 1;
    }

    /// `tcp_cwnd_reduction`: the new cwnd in segments after an ACK that delivered
    /// `newly` segments, with `pipe` segments in flight; `None` when the ACK
    /// delivered nothing (the kernel leaves cwnd alone).
    pub fn on_ack(
        &mut self,
        ssthresh: u64,
        pipe: u64,
        newly: u64,
        una_advanced: bool,
    ) -> Option<u64> {
        if newly == 0 {
            return None;
        }
        self.delivered += newly;
        let sndcnt = if pipe > ssthresh {
            (ssthresh * self.delivered)
                .div_ceil(self.prior_cwnd)
                .saturating_sub(self.out)
        } else {
            let conserve = self.delivered.saturating_sub(self.out).max(newly) + una_advanced as u64;
            conserve.min(ssthresh - pipe)
        };
        let sndcnt = sndcnt.max(u64::from(self.out == 0));
        Some(pipe + sndcnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_ack_of_recovery_allows_the_fast_retransmit() {
        let mut p = Prr::start(20);
        // 19 in flight above ssthresh 10: the proportional part gives 0, but one must go.
        assert_eq!(p.on_ack(10, 19, 1, false), Some(20));
    }

    #[test]
    fn above_ssthresh_one_segment_goes_out_per_two_delivered_when_halving() {
        let mut p = Prr::start(20);
        p.on_sent(); // the fast retransmit
                     // After 4 deliveries: ceil(10 * 4 / 20) - 1 = 1 more segment.
        assert_eq!(p.on_ack(10, 16, 4, false), Some(17));
    }

    #[test]
    fn below_ssthresh_it_slow_starts_back_but_not_beyond() {
        let mut p = Prr::start(20);
        p.on_sent();
        // pipe 5 after heavy losses: max(3 - 1, 3) + 1 = 4 segments, within 10 - 5.
        assert_eq!(p.on_ack(10, 5, 3, true), Some(9));
        // pipe 9: at most ssthresh - pipe = 1.
        assert_eq!(p.on_ack(10, 9, 3, true), Some(10));
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_cwnd_alone() {
        let mut p = Prr::start(20);
        assert_eq!(p.on_ack(10, 19, 0, false), None);
    }
}
