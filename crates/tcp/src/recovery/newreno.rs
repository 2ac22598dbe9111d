//! NewReno (RFC 6582 section 3.2): stays in fast recovery until every segment
//! outstanding at its start is acknowledged, retransmitting one segment per partial ACK.

use super::reno::{enter_inflated, Reno};
use super::{window_allows_new, LossRecovery, PartialAck, Transmit};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::window::Window;

/// NewReno recovers k losses of one window in about k round trips without a timeout.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno {
    /// ns-2's 2002 partial-ACK and exit rules (`NewRenoTcpAgent::partialnewack()`
    /// with `partial_window_deflation_` 0, `exit_recovery_fix_` 0).
    pub ns2_2002: bool,
}

impl LossRecovery for NewReno {
    fn should_enter(&self, w: &Window, dupacks: u32) -> bool {
        // RFC 6582 3.2 step 2 is Reno's rule (the careful check against `recover` is
        // the sender's).
        Reno.should_enter(w, dupacks)
    }
    fn on_enter(&mut self, w: &mut Window) -> Option<usize> {
        // RFC 6582 3.2 step 2: recover = HighData (kept by the sender as the recovery
        // point); ssthresh by RFC 5681 (4); retransmit; cwnd = ssthresh + 3*SMSS.
        enter_inflated(w)
    }
    fn on_dupack(&mut self, w: &mut Window) {
        // RFC 6582 3.2 step 3: inflate by SMSS per duplicate ACK, as Reno does.
        Reno.on_dupack(w)
    }
    fn on_partial_ack(&mut self, w: &mut Window, acked: u64) -> PartialAck {
        if self.ns2_2002 {
            // ns-2 recv(): `if (partial_window_deflation_ == 0) dupwnd_ = 0;` then
            // partialnewack_helper() retransmits last_ack_ + 1.
            w.cwnd = w.ssthresh;
            return PartialAck::Stay((!w.segs.is_empty()).then_some(0));
        }
        // RFC 6582 3.2 step 5: retransmit the first unacknowledged segment; deflate cwnd
        // by the amount acknowledged, then add back SMSS if at least SMSS was acked.
        w.cwnd = w.cwnd.saturating_sub(acked).max(w.mss);
        if acked >= w.mss {
            w.cwnd += w.mss;
        }
        PartialAck::Stay((!w.segs.is_empty()).then_some(0))
    }
    fn on_exit(&mut self, w: &mut Window) {
        if self.ns2_2002 {
            // ns-2 recv() on an ACK >= recover_: dupwnd_ = 0, cwnd_ stays at halfwin.
            w.cwnd = w.ssthresh;
            return;
        }
        // RFC 6582 3.2 step 4 option (1): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
        w.cwnd = w.ssthresh.min(w.flight_size().max(w.mss) + w.mss);
    }
    fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit> {
        window_allows_new(w, may_send_new)
    }
}

impl Exports for NewReno {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Agent("Agent/TCP/Newreno")
    }
    /// Linux without SACK (`tcp_fastretrans_alert()`, net/ipv4/tcp_input.c).
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_sack", "0")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::test_util::window_with;

    #[test]
    fn partial_ack_retransmits_first_unacked_and_deflates() {
        let mut w = window_with(10);
        let mut r = NewReno::default();
        r.on_enter(&mut w); // ssthresh 5000, cwnd 8000
        for _ in 0..4 {
            r.on_dupack(&mut w); // cwnd 12000
        }
        // Two segments acknowledged: 12000 - 2000 + 1000.
        w.snd_una = 2000;
        w.segs.on_cumulative_ack(2000);
        assert_eq!(r.on_partial_ack(&mut w, 2000), PartialAck::Stay(Some(0)));
        assert_eq!(w.cwnd, 11_000);
    }

    #[test]
    fn partial_ack_of_less_than_a_segment_adds_nothing_back() {
        let mut w = window_with(10);
        let mut r = NewReno::default();
        r.on_enter(&mut w);
        r.on_partial_ack(&mut w, 500);
        assert_eq!(w.cwnd, 7500);
    }

    #[test]
    fn full_ack_sets_cwnd_to_min_of_ssthresh_and_flight_plus_one() {
        let mut w = window_with(10);
        let mut r = NewReno::default();
        r.on_enter(&mut w);
        // Everything acknowledged but one segment still in flight beyond recover.
        w.snd_una = 9000;
        r.on_exit(&mut w);
        assert_eq!(w.cwnd, 2000); // min(5000, max(1000, 1000) + 1000)
        w.snd_una = 0;
        r.on_exit(&mut w);
        assert_eq!(w.cwnd, 5000); // min(5000, 10000 + 1000)
    }
}
