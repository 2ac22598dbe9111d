//! TCP Reno fast retransmit and fast recovery (RFC 5681 section 3.2).

use super::{window_allows_new, LossRecovery, PartialAck, Transmit};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::window::Window;

/// Reno: leaves recovery on the first ACK of new data, so several losses in one window
/// usually end in a retransmission timeout.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

/// RFC 5681 3.2 steps 2-3, shared with NewReno (RFC 6582 3.2 step 2): ssthresh by
/// equation (4), retransmit the first unacknowledged segment, cwnd = ssthresh + 3*SMSS.
pub(crate) fn enter_inflated(w: &mut Window) -> Option<usize> {
    w.ssthresh = w.halved_ssthresh();
    w.cwnd = w.ssthresh + w.dupthresh as u64 * w.mss;
    (!w.segs.is_empty()).then_some(0)
}

impl LossRecovery for Reno {
    fn should_enter(&self, w: &Window, dupacks: u32) -> bool {
        // RFC 5681 3.2 step 2: on the third duplicate ACK.
        dupacks == w.dupthresh
    }
    fn on_enter(&mut self, w: &mut Window) -> Option<usize> {
        enter_inflated(w)
    }
    fn on_dupack(&mut self, w: &mut Window) {
        // RFC 5681 3.2 step 4: inflate cwnd by SMSS for each further duplicate ACK.
        w.cwnd += w.mss;
    }
    fn on_partial_ack(&mut self, _w: &mut Window, _acked: u64) -> PartialAck {
        // RFC 5681 3.2 step 6: the next ACK of new data ends recovery.
        PartialAck::Exit
    }
    fn on_exit(&mut self, w: &mut Window) {
        // RFC 5681 3.2 step 6: deflate: cwnd = ssthresh.
        w.cwnd = w.ssthresh;
    }
    fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit> {
        // RFC 5681 3.2 step 5: send new data if the inflated cwnd allows.
        window_allows_new(w, may_send_new)
    }
}

impl Exports for Reno {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Agent("Agent/TCP/Reno")
    }
    /// Linux without SACK: the kernel has no Reno recovery of its own, it runs its
    /// NewReno-style recovery (`tcp_fastretrans_alert()`, net/ipv4/tcp_input.c).
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_sack", "0")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::test_util::window_with;

    #[test]
    fn entering_halves_flight_and_inflates_by_three_segments() {
        let mut w = window_with(10);
        assert_eq!(Reno.on_enter(&mut w), Some(0));
        assert_eq!(w.ssthresh, 5000);
        assert_eq!(w.cwnd, 8000);
    }

    #[test]
    fn ssthresh_never_below_two_segments() {
        let mut w = window_with(2);
        Reno.on_enter(&mut w);
        assert_eq!(w.ssthresh, 2000);
    }

    #[test]
    fn first_new_ack_leaves_recovery_with_cwnd_at_ssthresh() {
        let mut w = window_with(10);
        let mut r = Reno;
        r.on_enter(&mut w);
        r.on_dupack(&mut w);
        assert_eq!(w.cwnd, 9000);
        assert_eq!(r.on_partial_ack(&mut w, 1000), PartialAck::Exit);
        r.on_exit(&mut w);
        assert_eq!(w.cwnd, 5000);
    }

    #[test]
    fn enters_on_exactly_the_third_duplicate() {
        let w = window_with(10);
        assert!(!Reno.should_enter(&w, 2));
        assert!(Reno.should_enter(&w, 3));
        assert!(!Reno.should_enter(&w, 4));
    }
}
