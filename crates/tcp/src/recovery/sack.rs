//! Conservative SACK-based loss recovery (RFC 6675, the successor of RFC 3517), the
//! papers' "Reno-SACK"; with `retransmit_on_partial_ack` it becomes "NewReno-SACK"
//! (eifel-response.md III.A): at least one retransmission on every partial ACK,
//! accounted in the pipe estimate.

use super::{LossRecovery, PartialAck, Transmit};
use crate::window::Window;

/// Reno-SACK or NewReno-SACK.
#[derive(Clone, Copy, Debug)]
pub struct Sack {
    retransmit_on_partial_ack: bool,
}

impl Sack {
    /// `retransmit_on_partial_ack` selects NewReno-SACK.
    pub fn new(retransmit_on_partial_ack: bool) -> Sack {
        Sack {
            retransmit_on_partial_ack,
        }
    }
}

impl LossRecovery for Sack {
    fn should_enter(&self, w: &Window, dupacks: u32) -> bool {
        // RFC 6675 section 5 step (C)/(4): DupAcks >= DupThresh, or the first
        // unacknowledged segment is deemed lost by IsLost(HighACK + 1).
        dupacks >= w.dupthresh || (!w.segs.is_empty() && w.segs.is_lost(0, w.dupthresh, w.mss))
    }
    fn on_enter(&mut self, w: &mut Window) -> Option<usize> {
        // RFC 6675 (4.2): ssthresh = cwnd = FlightSize / 2 (floored at 2*SMSS by RFC 5681
        // equation (4)); (4.3): retransmit the segment at HighACK + 1.
        w.ssthresh = w.halved_ssthresh();
        w.cwnd = w.ssthresh;
        w.segs.get(0).filter(|s| !s.sacked).map(|_| 0)
    }
    fn on_dupack(&mut self, _w: &mut Window) {
        // RFC 6675 (C): the scoreboard update and SetPipe are all a duplicate ACK does;
        // the sender then asks `next_in_recovery` while cwnd - pipe >= SMSS.
    }
    fn on_partial_ack(&mut self, w: &mut Window, _acked: u64) -> PartialAck {
        // eifel-response.md III.A: NewReno-SACK retransmits the segment at the new
        // HighACK + 1 even when the pipe would forbid it; Reno-SACK stays silent.
        let first = w.segs.get(0).filter(|s| !s.sacked && !s.rexmit_in_episode);
        PartialAck::Stay(first.filter(|_| self.retransmit_on_partial_ack).map(|_| 0))
    }
    fn on_exit(&mut self, w: &mut Window) {
        // RFC 6675 section 5: leaving recovery, cwnd stays at ssthresh.
        w.cwnd = w.ssthresh;
    }
    fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit> {
        // RFC 6675 (C): transmit only while cwnd - pipe >= 1 SMSS.
        if w.cwnd < w.pipe() + w.mss {
            return None;
        }
        // NextSeg rule (1): a lost hole below the highest SACKed byte.
        let lost = |i| w.segs.is_lost(i, w.dupthresh, w.mss);
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
        assert!(Sack::new(false).should_enter(&w, 1));
    }

    #[test]
    fn entry_sets_cwnd_and_ssthresh_to_half_the_flight() {
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        assert_eq!(Sack::new(false).on_enter(&mut w), Some(0));
        assert_eq!((w.ssthresh, w.cwnd), (4000, 4000));
    }

    #[test]
    fn next_seg_retransmits_lost_holes_first_then_new_data() {
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        let mut s = Sack::new(false);
        s.on_enter(&mut w);
        w.segs.get_mut(0).unwrap().rexmit_in_episode = true;
        // pipe = seg 0 retransmitted (1000) + segs 6, 7 (2000) = 3000; cwnd 4000.
        assert_eq!(w.pipe(), 3000);
        assert_eq!(s.next_in_recovery(&w, true), Some(Transmit::Retransmit(1)));
        w.segs.get_mut(1).unwrap().rexmit_in_episode = true;
        assert_eq!(s.next_in_recovery(&w, true), None); // pipe 4000 = cwnd
    }

    #[test]
    fn reno_sack_is_silent_on_a_partial_ack_but_newreno_sack_retransmits() {
        let mut w = window_with(8);
        after_losses_of_first_two(&mut w);
        assert_eq!(
            Sack::new(false).on_partial_ack(&mut w, 1000),
            PartialAck::Stay(None)
        );
        assert_eq!(
            Sack::new(true).on_partial_ack(&mut w, 1000),
            PartialAck::Stay(Some(0))
        );
        w.segs.get_mut(0).unwrap().rexmit_in_episode = true;
        assert_eq!(
            Sack::new(true).on_partial_ack(&mut w, 1000),
            PartialAck::Stay(None)
        );
    }
}
