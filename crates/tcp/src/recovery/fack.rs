//! Forward Acknowledgment (M. Mathis, J. Mahdavi, "Forward Acknowledgment: Refining TCP
//! Congestion Control", SIGCOMM 1996), as the papers' ns-2 `tcp-fack` uses it.
//!
//! FACK trusts SACK information: every unSACKed byte below the forward-most SACKed byte
//! (snd.fack) has left the network. Data in flight is estimated as
//! `awnd = snd.nxt - snd.fack + retran_data`, and the sender transmits while
//! `awnd < cwnd`.

use super::ns2_fack::{self, LostAgain, Ns2FackRules};
use super::{LossRecovery, PartialAck, Transmit};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::window::Window;

/// FACK loss recovery; `ns2` selects ns-2.35 `FackTcpAgent`'s departures
/// ([`super::ns2_fack`]), all off by default.
#[derive(Clone, Debug, Default)]
pub struct Fack {
    pub ns2: Ns2FackRules,
    /// ns-2's `CheckSndNxt()` state (`Ns2FackRules::stops_when_lost_again`).
    lost_again: LostAgain,
}

/// snd.fack: the forward-most byte the receiver holds (snd.una if nothing is SACKed).
pub(super) fn snd_fack(w: &Window) -> u64 {
    w.segs
        .highest_sacked_end()
        .unwrap_or(w.snd_una)
        .max(w.snd_una)
}

/// retran_data: retransmitted bytes of this episode neither SACKed nor acknowledged.
fn retran_data(w: &Window) -> u64 {
    w.segs
        .iter()
        .filter(|s| s.rexmit_in_episode && !s.sacked)
        .map(|s| s.len())
        .sum()
}

/// awnd = snd.nxt - snd.fack + retran_data (Mathis and Mahdavi section 3).
pub fn awnd(w: &Window) -> u64 {
    w.snd_nxt.saturating_sub(snd_fack(w)) + retran_data(w)
}

impl LossRecovery for Fack {
    /// FACK's snd.fack is the highest SACKed byte (section 3).
    fn uses_sack(&self) -> bool {
        true
    }
    fn set_ns2_fack(&mut self, rules: ns2_fack::Ns2FackRules) {
        self.ns2 = rules;
    }
    fn should_enter(&self, w: &Window, dupacks: u32) -> bool {
        if self.ns2.enters_by_forward_ack {
            return ns2_fack::enters(w);
        }
        // Section 3: recovery starts on DupThresh duplicate ACKs or as soon as
        // snd.fack - snd.una exceeds DupThresh segments.
        dupacks >= w.dupthresh || snd_fack(w) - w.snd_una > w.dupthresh as u64 * w.mss
    }
    fn on_enter(&mut self, w: &mut Window) -> Option<usize> {
        self.lost_again.clear();
        if self.ns2.timeout_keeps_recovery {
            ns2_fack::skip_to_forward_ack(w);
        }
        if self.ns2.restarts_window_in_recovery {
            ns2_fack::restart_window(w);
            return w.segs.get(0).filter(|s| !s.sacked).map(|_| 0);
        }
        // The window is halved at once (no inflation): ssthresh = cwnd = FlightSize / 2,
        // floored at 2*SMSS; the first hole is retransmitted.
        w.ssthresh = w.halved_ssthresh();
        w.cwnd = w.ssthresh;
        w.segs.get(0).filter(|s| !s.sacked).map(|_| 0)
    }
    fn on_dupack(&mut self, w: &mut Window) {
        if self.ns2.timeout_keeps_recovery {
            ns2_fack::skip_to_forward_ack(w);
        }
    }
    fn on_partial_ack(&mut self, w: &mut Window, _acked: u64) -> PartialAck {
        if self.ns2.timeout_keeps_recovery {
            ns2_fack::skip_to_forward_ack(w);
        }
        // Retransmissions are driven by awnd < cwnd, not by the kind of ACK.
        PartialAck::Stay(None)
    }
    fn timeout_keeps_recovery(&self) -> bool {
        self.ns2.timeout_keeps_recovery
    }
    fn recovery_point(&self, w: &Window) -> u64 {
        if self.ns2.exit_beyond_recover {
            return ns2_fack::recover(w);
        }
        w.snd_max
    }
    fn on_retransmitted(&mut self, w: &Window, start: u64) {
        if self.ns2.stops_when_lost_again {
            self.lost_again.on_retransmit(start, w.snd_nxt);
        }
    }
    fn on_sack_ack(&mut self, w: &Window, ack: u64, right: u64) {
        if self.ns2.stops_when_lost_again {
            self.lost_again.on_sack_ack(w, ack, right);
        }
    }
    fn on_timeout(&mut self) {
        self.lost_again.clear();
    }
    fn on_exit(&mut self, w: &mut Window) {
        self.lost_again.clear();
        // ns-2 keeps the window grown during recovery (ns2_fack module docs).
        if !self.ns2.restarts_window_in_recovery {
            w.cwnd = w.ssthresh;
        }
    }
    fn grows_cwnd_on_every_ack(&self) -> bool {
        self.ns2.restarts_window_in_recovery
    }
    fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit> {
        let room = if self.ns2.restarts_window_in_recovery {
            ns2_fack::window_allows(w)
        } else {
            awnd(w) + w.mss <= w.cwnd
        };
        if !room || self.lost_again.stopped() {
            return None;
        }
        // Every unSACKed, unretransmitted segment below snd.fack is lost: fill holes
        // first, then send new data.
        match w.first_hole(|_| true) {
            Some(i) => Some(Transmit::Retransmit(i)),
            None => may_send_new.then_some(Transmit::New),
        }
    }
}

impl Exports for Fack {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Agent("Agent/TCP/Fack")
    }
    /// Linux with SACK: the kernel has had no FACK since 4.15, where RACK replaced its
    /// loss detection; SACK is the nearest.
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_sack", "1")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::test_util::window_with;

    #[test]
    fn enters_when_fack_is_more_than_three_segments_ahead_without_dupacks() {
        let mut w = window_with(10);
        w.segs.on_sack_block(2000, 3000);
        assert!(!Fack::default().should_enter(&w, 1)); // fack - una = 3000, not more than 3 segments
        w.segs.on_sack_block(3000, 4000);
        assert!(Fack::default().should_enter(&w, 1)); // 4000 > 3000
    }

    #[test]
    fn awnd_counts_only_data_above_fack_plus_retransmissions() {
        let mut w = window_with(10);
        w.segs.on_sack_block(8000, 9000); // fack = 9000
        assert_eq!(awnd(&w), 1000);
        w.segs.get_mut(0).unwrap().rexmit_in_episode = true;
        assert_eq!(awnd(&w), 2000);
    }

    #[test]
    fn recovers_all_but_one_lost_with_many_retransmissions_per_ack() {
        // Segments 1..9 lost, 9 SACKed: FACK treats 1..8 as gone and retransmits them
        // as fast as cwnd allows ([Gurtov & Ludwig 2003] Fig. 4c).
        let mut w = window_with(10);
        w.segs.on_sack_block(9000, 10_000);
        let mut f = Fack::default();
        assert!(f.should_enter(&w, 1));
        f.on_enter(&mut w);
        assert_eq!(w.cwnd, 5000);
        let mut sent = 0;
        while let Some(Transmit::Retransmit(i)) = f.next_in_recovery(&w, false) {
            w.segs.get_mut(i).unwrap().rexmit_in_episode = true;
            sent += 1;
        }
        assert_eq!(sent, 5); // awnd 0 -> 5000 = cwnd
    }
}
