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
//! * `fack_timeout_keeps_recovery`: `FackTcpAgent::timeout()` "Do not clear fastrecov_
//!   or alter recover_": after the timeout's go-back-N retransmission the agent is still
//!   in fast recovery, so the following ACKs grow cwnd and send by the rules above until
//!   an ACK reaches `recover_`; and every ACK in fast recovery raises `t_seqno_` to
//!   `fack_ + 1` when behind it, so go-back-N skips what the receiver holds.
//! * `fack_exit_beyond_recover`: entering sets `recover_ = t_seqno_` (the next packet
//!   to send, at least `fack_ + 1`), and fast recovery ends when `last_ack_ >=
//!   recover_`: when the packet after the highest one sent is acknowledged too, one
//!   packet later than RFC 6582's `recover` (the highest sent).
//! * `fack_stops_when_lost_again`: `ScoreBoard::MarkRetran(seq, t_seqno_)` notes
//!   `t_seqno_` with each retransmission of fast recovery, and `CheckSndNxt()` (every
//!   ACK in fast recovery) declares it "lost again" when an ACK's SACK block reaches
//!   beyond that mark while the segment is neither SACKed nor acknowledged; then
//!   `timeout_ = TRUE` "shuts off send()" until the timer expires or fast recovery ends.
//!   After a timeout in recovery `t_seqno_` lies below segments sent before, so ACKs for
//!   those can stop the agent.
//! * `fack_duplicate_acks_send_nothing`: a duplicate ACK without SACK blocks also goes
//!   through `oldack()`; `maxsack()` finds no block, so `fack_` stays `last_ack_`,
//!   `dupacks_ = (fack_ - last_ack_) - 1` is -1 and `send_much()` is skipped (the agent
//!   has no `send_one()`).
//! * `fack_samples_rtt_from_header_echo` (with `fack_samples_rtt_on_every_ack`):
//!   `oldack()` restarts the timer (`newtimer()`), then samples `now - ts_echo()`, which
//!   every ns-2 header carries with or without the timestamps option
//!   ([`header_echo_sample`]); an ACK goes to `oldack()` or to `newack()`, never both.

use crate::window::Window;
use spikelab_core::{Dur, Packet, Time};

/// The switches of ns-2's FACK agent (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2FackRules {
    /// Recovery starts by forward-ACK distance alone, bugFix_ or not.
    pub enters_by_forward_ack: bool,
    /// cwnd restarts at one packet on entry and grows on every ACK in recovery.
    pub restarts_window_in_recovery: bool,
    /// Outside recovery, ACKs with SACK blocks neither open cwnd nor send.
    pub sack_acks_send_nothing: bool,
    /// A timeout leaves the agent in fast recovery; snd_nxt skips to snd.fack.
    pub timeout_keeps_recovery: bool,
    /// A retransmission judged lost again stops sending (`CheckSndNxt()`).
    pub stops_when_lost_again: bool,
    /// Recovery ends when the ACK covers `recover_ = t_seqno_` itself.
    pub exit_beyond_recover: bool,
}

/// `recover_ = t_seqno_` on entering fast recovery, as the byte the cumulative ACK must
/// pass (`last_ack_ >= recover_`): one segment beyond max(snd.nxt, snd.fack), `fack`
/// being FACK's snd.fack.
pub fn recover(w: &Window, fack: u64) -> u64 {
    w.snd_nxt.max(fack) + w.mss
}

/// `ScoreBoard::MarkRetran(seq, snd_nxt)` and `CheckSndNxt()` with the agent's
/// `timeout_` flag: the unacknowledged, unSACKed retransmissions of this fast recovery,
/// each with snd_nxt when it went out, and whether one was found lost again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LostAgain {
    /// (segment start, snd_nxt at its retransmission), in bytes.
    marks: Vec<(u64, u64)>,
    stopped: bool,
}

impl LostAgain {
    /// `ClearScoreBoard()` and `timeout_ = FALSE` (a timeout, the end of recovery).
    pub fn clear(&mut self) {
        self.marks.clear();
        self.stopped = false;
    }

    /// `MarkRetran(seq, t_seqno_)`.
    pub fn on_retransmit(&mut self, start: u64, snd_nxt: u64) {
        self.marks.retain(|m| m.0 != start);
        self.marks.push((start, snd_nxt));
    }

    /// An ACK in fast recovery: `UpdateScoreBoard()` clears the marks of segments now
    /// acknowledged (below `ack`) or SACKed; then `CheckSndNxt()`: a mark below the
    /// ACK's highest SACK right edge `right` is lost again (its mark goes) and
    /// `timeout_ |= 1`.
    pub fn on_sack_ack(&mut self, w: &Window, ack: u64, right: u64) {
        self.marks.retain(|&(start, _)| {
            start >= ack
                && w.segs
                    .index_of(start)
                    .and_then(|i| w.segs.get(i))
                    .is_some_and(|s| !s.sacked)
        });
        let before = self.marks.len();
        self.marks.retain(|&(_, snd_nxt)| snd_nxt >= right);
        self.stopped |= self.marks.len() < before;
    }

    /// `timeout_`: sending is shut off.
    pub fn stopped(&self) -> bool {
        self.stopped
    }
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

/// `FackTcpAgent::recv()` in fast recovery: `if (fack_ >= t_seqno_) t_seqno_ = fack_ +
/// 1`: the next segment to send is never below snd.fack (`fack`).
pub fn skip_to_forward_ack(w: &mut Window, fack: u64) {
    w.snd_nxt = w.snd_nxt.max(fack);
}

/// `FackTcpAgent::send_much()`'s loop condition `t_seqno_ <= fack_ + win -
/// retran_data_`: with `t_seqno_` raised to `fack_ + 1` when behind it, this is awnd + 1
/// packet <= win, `win = int(min(cwnd_, wnd_))` whole packets (`window()`), `awnd`
/// being FACK's.
pub fn window_allows(w: &Window, awnd: u64) -> bool {
    let win = w.cwnd.min(w.rwnd) / w.mss * w.mss;
    awnd + w.mss <= win
}

/// `FackTcpAgent::oldack()`'s `rtt_update(now - tcph->ts_echo())` read from ns-2's
/// header echo ([`Packet::ns2_ts_echo`]), which the sink fills with or without the
/// timestamps option (`fack_samples_rtt_from_header_echo`); `None` for an echo from
/// the future, which no sink sends.
pub fn header_echo_sample(now: Time, ack: &Packet) -> Option<Dur> {
    (ack.ns2_ts_echo <= now).then(|| now - ack.ns2_ts_echo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::fack::{awnd, snd_fack};
    use crate::recovery::test_util::window_with;
    use crate::window::SsthreshRule;

    #[test]
    fn the_header_echo_sample_is_the_time_since_the_echoed_send() {
        use spikelab_core::{FlowId, PacketKind};
        let mut ack = Packet::new(0, FlowId(0), PacketKind::Ack, Time(900));
        ack.ns2_ts_echo = Time(400);
        assert_eq!(header_echo_sample(Time(1000), &ack), Some(Dur(600)));
        assert_eq!(
            header_echo_sample(Time(300), &ack),
            None,
            "echo from the future"
        );
    }

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
    fn go_back_n_skips_to_the_forward_ack() {
        let mut w = window_with(10);
        w.snd_nxt = 1000; // go-back-N after a timeout
        w.segs.on_sack_block(2000, 6000);
        let fack = snd_fack(&w);
        skip_to_forward_ack(&mut w, fack);
        assert_eq!(w.snd_nxt, 6000);
        w.snd_nxt = 8000;
        let fack = snd_fack(&w);
        skip_to_forward_ack(&mut w, fack);
        assert_eq!(w.snd_nxt, 8000);
    }

    #[test]
    fn a_sack_beyond_a_retransmissions_snd_nxt_stops_sending() {
        let mut w = window_with(10);
        let mut l = LostAgain::default();
        l.on_retransmit(0, 6000);
        w.segs.on_sack_block(1000, 6000);
        l.on_sack_ack(&w, 0, 6000);
        assert!(!l.stopped(), "right edge 6000 is not beyond snd_nxt 6000");
        w.segs.on_sack_block(6000, 7000);
        l.on_sack_ack(&w, 0, 7000);
        assert!(l.stopped());
        l.clear();
        assert!(!l.stopped());
    }

    #[test]
    fn a_sacked_retransmission_is_not_lost_again() {
        let mut w = window_with(10);
        let mut l = LostAgain::default();
        l.on_retransmit(1000, 6000);
        w.segs.on_sack_block(1000, 8000);
        l.on_sack_ack(&w, 0, 8000);
        assert!(!l.stopped());
    }

    #[test]
    fn recovery_ends_one_segment_beyond_the_next_to_send() {
        let mut w = window_with(10);
        assert_eq!(recover(&w, snd_fack(&w)), 11_000);
        w.snd_nxt = 2000; // go-back-N: t_seqno_ is behind, raised to fack_ + 1
        w.segs.on_sack_block(4000, 5000);
        assert_eq!(recover(&w, snd_fack(&w)), 6000);
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
        assert!(!window_allows(&w, awnd(&w)));
        w.cwnd = 3_000;
        assert!(window_allows(&w, awnd(&w)));
        w.rwnd = 2_000; // win = min(cwnd_, wnd_)
        assert!(!window_allows(&w, awnd(&w)));
    }
}
