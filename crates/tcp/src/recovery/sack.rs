//! Conservative SACK-based loss recovery, the papers' "Reno-SACK"; with
//! `retransmit_on_partial_ack` it becomes "NewReno-SACK" ([Gurtov & Ludwig 2003] III.A): at
//! least one retransmission on every partial ACK, accounted in the pipe estimate.
//!
//! Two estimates of the data in flight ("pipe") are offered:
//!
//! * [`PipeRule::Rfc6675`] (the successor of RFC 3517): SetPipe counts every unSACKed
//!   segment that IsLost() does not declare lost, plus retransmissions.
//! * [`PipeRule::Ns2Sack1`]: Fall and Floyd's 1996 estimate, which ns-2's `sack1` agent
//!   (the papers' Reno-SACK) implements: on entering recovery pipe = outstanding -
//!   DupThresh segments; each further duplicate ACK takes one segment off, each partial
//!   ACK two ("one for the original packet, assumed dropped, and one for the
//!   retransmitted packet"), each transmission adds one. Segments reported missing stay
//!   counted as in flight, which is why "Reno-SACK cannot often avoid the genuine timeout
//!   when there are large holes" ([Gurtov & Ludwig 2003] III.A, Fig. 4a); RFC 6675's IsLost
//!   removes them once DupThresh segments above are SACKed.

use super::{LossRecovery, PartialAck, Transmit};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::window::Window;
use serde::{Deserialize, Serialize};

/// How the data in flight is estimated during SACK recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PipeRule {
    /// RFC 6675 SetPipe with IsLost.
    #[default]
    Rfc6675,
    /// Fall and Floyd 1996 / ns-2 `sack1`.
    Ns2Sack1,
}

/// Reno-SACK or NewReno-SACK.
#[derive(Clone, Copy, Debug)]
pub struct Sack {
    retransmit_on_partial_ack: bool,
    rule: PipeRule,
    /// The Ns2Sack1 pipe in bytes (unused with RFC 6675, which recomputes it).
    pipe: u64,
    /// The fast retransmission about to go out is not counted in the Ns2Sack1 pipe.
    uncounted_fast_retransmit: bool,
    /// ns-2 `Sack1TcpAgent::send_much()`: retransmit by `ScoreBoard::GetNextRetran()`
    /// (see [`crate::Ns2Switches::sack1_retransmits_every_hole_first`]).
    every_hole_first: bool,
}

impl Sack {
    /// `retransmit_on_partial_ack` selects NewReno-SACK.
    pub fn new(retransmit_on_partial_ack: bool, rule: PipeRule) -> Sack {
        Sack {
            retransmit_on_partial_ack,
            rule,
            pipe: 0,
            uncounted_fast_retransmit: false,
            every_hole_first: false,
        }
    }

    /// As [`Sack::new`], choosing what to send in recovery as ns-2's `Sack1TcpAgent`
    /// does when `every_hole_first` is set
    /// ([`crate::Ns2Switches::sack1_retransmits_every_hole_first`]).
    pub fn with_ns2_next_retran(
        retransmit_on_partial_ack: bool,
        rule: PipeRule,
        every_hole_first: bool,
    ) -> Sack {
        Sack {
            every_hole_first,
            ..Sack::new(retransmit_on_partial_ack, rule)
        }
    }

    fn pipe(&self, w: &Window) -> u64 {
        match self.rule {
            PipeRule::Rfc6675 => w.pipe(),
            PipeRule::Ns2Sack1 => self.pipe,
        }
    }
}

impl LossRecovery for Sack {
    fn uses_sack(&self) -> bool {
        true
    }
    /// Switches NewReno-SACK's partial-ACK retransmission on or off.
    fn set_retransmit_on_partial_ack(&mut self, on: bool) {
        self.retransmit_on_partial_ack = on;
    }
    fn should_enter(&self, w: &Window, dupacks: u32) -> bool {
        // RFC 6675 section 5 step (C)/(4): DupAcks >= DupThresh, or the first
        // unacknowledged segment is deemed lost by IsLost(HighACK + 1).
        dupacks >= w.dupthresh || (!w.segs.is_empty() && w.segs.is_lost(0, w.dupthresh, w.mss))
    }
    fn on_enter(&mut self, w: &mut Window) -> Option<usize> {
        // Fall and Floyd: pipe = outstanding - DupThresh segments (before halving).
        self.pipe = w.flight_size().saturating_sub(w.dupthresh as u64 * w.mss);
        // ns-2 Sack1TcpAgent::dupack_action(): the fast retransmission goes out by
        // output() directly, without the pipe_++ of send_much().
        self.uncounted_fast_retransmit = self.rule == PipeRule::Ns2Sack1;
        // RFC 6675 (4.2): ssthresh = cwnd = FlightSize / 2 (floored at 2*SMSS by RFC 5681
        // equation (4)); (4.3): retransmit the segment at HighACK + 1.
        w.ssthresh = w.halved_ssthresh();
        w.cwnd = w.ssthresh;
        w.segs.get(0).filter(|s| !s.sacked).map(|_| 0)
    }
    fn on_dupack(&mut self, w: &mut Window) {
        // RFC 6675 (C): the scoreboard update and SetPipe are all a duplicate ACK does.
        // Fall and Floyd: a duplicate ACK takes one segment off the pipe.
        self.pipe = self.pipe.saturating_sub(w.mss);
    }
    fn on_sent(&mut self, w: &Window) {
        if std::mem::take(&mut self.uncounted_fast_retransmit) {
            return;
        }
        self.pipe += w.mss;
    }
    fn on_partial_ack(&mut self, w: &mut Window, _acked: u64) -> PartialAck {
        // Fall and Floyd: a partial ACK takes two segments off the pipe.
        self.pipe = self.pipe.saturating_sub(2 * w.mss);
        // [Gurtov & Ludwig 2003] III.A: NewReno-SACK retransmits the segment at the new
        // HighACK + 1 even when the pipe would forbid it; Reno-SACK stays silent.
        let first = w.segs.get(0).filter(|s| !s.sacked && !s.rexmit_in_episode);
        PartialAck::Stay(first.filter(|_| self.retransmit_on_partial_ack).map(|_| 0))
    }
    fn on_exit(&mut self, w: &mut Window) {
        // RFC 6675 section 5: leaving recovery, cwnd stays at ssthresh.
        w.cwnd = w.ssthresh;
    }
    fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit> {
        // RFC 6675 (C): transmit only while cwnd - pipe >= 1 SMSS (Fall and Floyd:
        // while pipe < cwnd, in segments).
        if w.cwnd < self.pipe(w) + w.mss {
            return None;
        }
        if self.every_hole_first {
            return ns2_get_next_retran(w, may_send_new);
        }
        // NextSeg rule (1): a lost hole below the highest SACKed byte.
        // IsLost is monotone in the segment (segments::SegmentTable::lost_boundary).
        let boundary = w.segs.lost_boundary(w.dupthresh, w.mss);
        let lost = |i| i < boundary;
        if let Some(i) = w.first_hole(lost) {
            return Some(Transmit::Retransmit(i));
        }
        // Rule (2): new data, if the receiver window and the application allow.
        if may_send_new {
            return Some(Transmit::New);
        }
        // Rule (3): any unretransmitted hole below the highest SACKed byte.
        w.first_hole(|_| true).map(Transmit::Retransmit)
    }
}

/// ns-2.35 `Sack1TcpAgent::send_much()` in fast recovery: `ScoreBoard::GetNextRetran()`
/// returns the first scoreboard entry (from `highest_ack_ + 1` up to the highest SACKed
/// packet) that is neither SACKed nor marked `retran_`, lost or not by RFC 6675's
/// IsLost(); only when there is none does `t_seqno_++` send new data.
fn ns2_get_next_retran(w: &Window, may_send_new: bool) -> Option<Transmit> {
    if let Some(i) = w.first_hole(|_| true) {
        return Some(Transmit::Retransmit(i));
    }
    may_send_new.then_some(Transmit::New)
}

impl Exports for Sack {
    /// Reno-SACK is ns-2's `Sack1` agent; NewReno-SACK (one retransmission per partial
    /// ACK) has no one-way agent in ns-2.35.
    fn ns2(&self) -> Ns2Export {
        if self.retransmit_on_partial_ack {
            Ns2Export::Refused {
                field: None,
                why: "ns-2.35 has no one-way NewReno-SACK agent",
            }
        } else {
            Ns2Export::Agent("Agent/TCP/Sack1")
        }
    }
    /// Linux with SACK (its RFC 6675 / RACK recovery, net/ipv4/tcp_input.c).
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_sack", "1")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::test_util::window_with;

    fn after_losses_of_first_two(w: &mut Window) {
        // Segments 0 and 1 lost; 2..=5 SACKed.
        w.segs.on_sack_block(2000, 6000);
    }

    #[test]
    fn enters_when_the_first_segment_is_deemed_lost_before_three_dupacks() {
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        assert!(Sack::new(false, PipeRule::Rfc6675).should_enter(&w, 1));
    }

    #[test]
    fn entry_sets_cwnd_and_ssthresh_to_half_the_flight() {
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        assert_eq!(
            Sack::new(false, PipeRule::Rfc6675).on_enter(&mut w),
            Some(0)
        );
        assert_eq!((w.ssthresh, w.cwnd), (4000, 4000));
    }

    #[test]
    fn next_seg_retransmits_lost_holes_first_then_new_data() {
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        let mut s = Sack::new(false, PipeRule::Rfc6675);
        s.on_enter(&mut w);
        w.segs.get_mut(0).unwrap().rexmit_in_episode = true;
        // pipe = seg 0 retransmitted (1000) + segs 6, 7 (2000) = 3000; cwnd 4000.
        assert_eq!(w.pipe(), 3000);
        assert_eq!(s.next_in_recovery(&w, true), Some(Transmit::Retransmit(1)));
        w.segs.get_mut(1).unwrap().rexmit_in_episode = true;
        assert_eq!(s.next_in_recovery(&w, true), None); // pipe 4000 = cwnd
    }

    #[test]
    fn ns2_sack1_pipe_keeps_reported_holes_in_flight() {
        // 8 outstanding, 0 and 1 lost, 2..=5 SACKed after 3 dupacks and one more.
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        let mut s = Sack::new(false, PipeRule::Ns2Sack1);
        s.on_enter(&mut w); // pipe = 8 - 3 = 5 segments; cwnd 4 segments
        s.on_sent(&w); // the fast retransmission, not counted (ns-2 dupack_action())
        s.on_sent(&w); // a later transmission: 6
        s.on_dupack(&mut w); // 5
        assert_eq!(s.pipe(&w), 5000);
        // RFC 6675 would count only the retransmission and segments 6, 7: 3000.
        assert_eq!(w.pipe(), 2000); // (segment 0 not yet marked retransmitted here)
        assert_eq!(s.next_in_recovery(&w, true), None);
        s.on_partial_ack(&mut w, 1000); // 5 - 2 = 3
        assert_eq!(s.pipe(&w), 3000);
        assert!(s.next_in_recovery(&w, true).is_some());
    }

    #[test]
    fn ns2_sack1_retransmits_a_hole_rfc6675_does_not_yet_deem_lost_before_new_data() {
        // Segments 0 and 2 lost, 1 and 3 SACKed: IsLost(2) needs three SACKed above it.
        let mut w = window_with(8);
        w.segs.on_sack_block(1000, 2000);
        w.segs.on_sack_block(3000, 4000);
        w.cwnd = 20_000; // the window is open: only the choice of segment is tested
        w.segs.get_mut(0).unwrap().rexmit_in_episode = true;
        let rfc = Sack::new(false, PipeRule::Rfc6675);
        assert_eq!(rfc.next_in_recovery(&w, true), Some(Transmit::New));
        let ns2 = Sack::with_ns2_next_retran(false, PipeRule::Rfc6675, true);
        assert_eq!(
            ns2.next_in_recovery(&w, true),
            Some(Transmit::Retransmit(2))
        );
        w.segs.get_mut(2).unwrap().rexmit_in_episode = true;
        assert_eq!(ns2.next_in_recovery(&w, true), Some(Transmit::New));
        assert_eq!(ns2.next_in_recovery(&w, false), None);
    }

    #[test]
    fn reno_sack_is_silent_on_a_partial_ack_but_newreno_sack_retransmits() {
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        assert_eq!(
            Sack::new(false, PipeRule::Rfc6675).on_partial_ack(&mut w, 1000),
            PartialAck::Stay(None)
        );
        assert_eq!(
            Sack::new(true, PipeRule::Rfc6675).on_partial_ack(&mut w, 1000),
            PartialAck::Stay(Some(0))
        );
        w.segs.get_mut(0).unwrap().rexmit_in_episode = true;
        assert_eq!(
            Sack::new(true, PipeRule::Rfc6675).on_partial_ack(&mut w, 1000),
            PartialAck::Stay(None)
        );
    }
}
