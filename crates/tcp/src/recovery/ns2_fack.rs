//! ns-2.35's `FackTcpAgent` (tcp/tcp-fack.cc), the agent the papers ran as "FACK", where
//! it departs from Mathis and Mahdavi's description that [`super::Fack`] follows. Each
//! rule is a switch of [`crate::Ns2Switches`] (the `ns2-2002` profile turns them on):
//!
//! * `fack_enters_by_forward_ack`: `FackTcpAgent::recv()` outside fast recovery sets
//!   `dupacks_ = (fack_ - last_ack_) - 1` on every ACK that carries SACK blocks (new or
//!   duplicate) and starts fast recovery when `dupacks_ >= numdupacks_`: the count of
//!   duplicate ACKs plays no part, and neither does `bugFix_` (`recv()` never consults
//!   `recover_` before entering).
//! * `fack_restarts_window_in_recovery`: entering, `slowdown(CLOSE_SSTHRESH_HALF |
//!   CLOSE_CWND_RESTART)` sets `ssthresh_ = window() / 2` and `cwnd_ = wnd_restart_` =
//!   1 packet; every ACK during fast recovery then runs `opencwnd()` (slow start below
//!   ssthresh, +1/cwnd above), the ACK that ends it included, and leaving keeps the
//!   window it grew to. `send_much()` sends while `t_seqno_ <= fack_ + win -
//!   retran_data_`, `win = window()` = `int(min(cwnd_, wnd_) + wintrim_)` in whole
//!   packets (`wintrim_` stays 0: `rampdown_` is false by default in ns-default.tcl).
//! * `fack_sack_acks_send_nothing`: outside fast recovery an ACK with SACK blocks goes
//!   through `oldack()` (no `opencwnd()`, even when it acknowledges new data) and sends
//!   only `if (dupacks_ == 0)`, which a SACK block above the first hole never allows:
//!   no Limited Transmit and no window growth until an ACK without SACK blocks.

use super::fack::awnd;
use crate::window::Window;

/// The switches of ns-2's FACK agent (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2FackRules {
    /// Recovery starts by forward-ACK distance alone, bugFix_ or not.
    pub enters_by_forward_ack: bool,
    /// cwnd restarts at one packet on entry and grows on every ACK in recovery.
    pub restarts_window_in_recovery: bool,
    /// Outside recovery, ACKs with SACK blocks neither open cwnd nor send.
    pub sack_acks_send_nothing: bool,
}

/// ns-2's `fack_ - last_ack_` in packets: how far the forward-most SACKed segment lies
/// above the last cumulatively acknowledged one (0 when nothing is SACKed: `oldack()`
/// keeps `fack_ >= highest_ack_`).
pub fn forward_distance(w: &Window) -> u64 {
    let fack_end = w
        .segs
        .highest_sacked_end()
        .unwrap_or(w.snd_una)
        .max(w.snd_una);
    (fack_end - w.snd_una) / w.mss
}

/// `FackTcpAgent::recv()`: `dupacks_ = (fack_ - last_ack_) - 1; if (dupacks_ >=
/// numdupacks_)` starts fast recovery.
pub fn enters(w: &Window) -> bool {
    // dupacks_ = distance - 1 >= numdupacks_.
    forward_distance(w) > w.dupthresh as u64
}

/// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)` at the start of fast recovery:
/// ssthresh by the ns-2 rule of [`Window::halved_ssthresh`], cwnd = `wnd_restart_` = 1.
pub fn restart_window(w: &mut Window) {
    w.ssthresh = w.halved_ssthresh();
    w.cwnd = w.mss;
}

/// `FackTcpAgent::send_much()`'s loop condition `t_seqno_ <= fack_ + win -
/// retran_data_`: with `t_seqno_` raised to `fack_ + 1` when behind it, this is awnd + 1
/// packet <= win, `win = int(min(cwnd_, wnd_))` whole packets (`window()`).
pub fn window_allows(w: &Window) -> bool {
    let win = w.cwnd.min(w.rwnd) / w.mss * w.mss;
    awnd(w) + w.mss <= win
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::test_util::window_with;
    use crate::window::SsthreshRule;

    #[test]
    fn recovery_starts_when_three_segments_above_the_hole_are_sacked() {
        let mut w = window_with(10);
        // Segment 0 lost (last_ack_ = -1); 1 and 2 SACKed: fack_ = 2, dupacks_ = 2.
        w.segs.on_sack_block(1000, 3000);
        assert!(!enters(&w));
        w.segs.on_sack_block(3000, 4000); // fack_ = 3: dupacks_ = 3
        assert!(enters(&w));
    }

    #[test]
    fn nothing_sacked_is_distance_zero() {
        assert_eq!(forward_distance(&window_with(10)), 0);
    }

    #[test]
    fn the_window_restarts_at_one_packet_with_ns2_halved_ssthresh() {
        let mut w = window_with(10);
        w.ssthresh_rule = SsthreshRule::Ns2;
        w.rwnd = 20_000;
        w.cwnd = 9_500; // ns-2 halves int(window()) = 9 packets to 4
        restart_window(&mut w);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 4000));
    }

    #[test]
    fn sending_needs_a_whole_packet_of_window_above_awnd() {
        let mut w = window_with(10);
        w.segs.on_sack_block(4000, 8000); // fack = 8000, awnd = 2000
        w.cwnd = 2_999; // int(cwnd_) = 2 packets
        assert!(!window_allows(&w));
        w.cwnd = 3_000;
        assert!(window_allows(&w));
        w.rwnd = 2_000; // win = min(cwnd_, wnd_)
        assert!(!window_allows(&w));
    }
}
