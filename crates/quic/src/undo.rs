//! Spurious-loss undo rules: what a sender remembers of the packets it declared lost,
//! for how long, and when an acknowledgement of them undoes the congestion response.
//! RFC 9002 undoes nothing ([`UndoRule::None`]); the others follow an implementation's
//! source:
//!
//! * `quinn` (quinn-proto/src/connection/mod.rs): `detect_lost_packets` keeps every
//!   packet it declares lost in `lost_packets`; `drain_lost_packets`, run at the end
//!   of every loss-detection pass (an acknowledgement of new packets, or the loss
//!   timer), forgets those sent more than 2 x `pto_base` ago (smoothed_rtt + max(4 x
//!   rttvar, 1 ms), no max_ack_delay; "copied from msquic"). `detect_spurious_loss`,
//!   run on every ACK frame before anything else, removes the remembered packets the
//!   frame acknowledges; when that empties the set, the congestion event was spurious
//!   and `on_spurious_congestion_event` is called. quinn's CUBIC restores the state it
//!   saved at the event if its window is below it (congestion/cubic.rs); its NewReno
//!   leaves the hook empty (congestion/new_reno.rs), so under this rule NewReno
//!   undoes nothing.
//! * `msquic` (src/core/loss_detection.c): packets declared lost move to
//!   `LostPackets`; `QuicLossDetectionDetectAndHandleLostPackets`, run when an ACK
//!   raises the largest acknowledged and on the loss timer, forgets from the head of
//!   that list (packet-number order) those below the largest acknowledged sent more
//!   than 2 x (smoothed_rtt + 4 x rttvar + max_ack_delay) ago, stopping at the first
//!   it keeps. `QuicLossDetectionProcessAckBlocks` counts a remembered packet an ACK
//!   block covers as a spurious loss and, when the list is then empty, calls
//!   `QuicCongestionControlOnSpuriousCongestionEvent`, whose CUBIC restores the window
//!   saved at the event (src/core/cubic.c). msquic has no NewReno; the model applies
//!   the same restore to it.

use crate::ack::AckFrame;
use crate::config::{QuicCc, UndoRule};
use crate::rtt::RttEstimator;
use spikelab_core::{Dur, Time};
use std::collections::BTreeMap;

/// The packets a sender remembers as declared lost.
#[derive(Clone, Debug, Default)]
pub struct LostMemory {
    rule: UndoRule,
    /// Send times by packet number.
    lost: BTreeMap<u64, Time>,
}

impl LostMemory {
    pub fn new(rule: UndoRule) -> LostMemory {
        LostMemory {
            rule,
            lost: BTreeMap::new(),
        }
    }

    /// Packet `pn`, sent at `sent`, was declared lost.
    pub fn on_lost(&mut self, pn: u64, sent: Time) {
        if self.rule != UndoRule::None {
            self.lost.insert(pn, sent);
        }
    }

    /// An ACK frame arrived: forgets the remembered packets it acknowledges; true when
    /// that left none (a spurious congestion event).
    pub fn on_ack_frame(&mut self, frame: &AckFrame) -> bool {
        if self.lost.is_empty() {
            return false;
        }
        let acked: Vec<u64> = self
            .lost
            .keys()
            .copied()
            .filter(|&pn| frame.ranges.contains(pn))
            .collect();
        for pn in &acked {
            self.lost.remove(pn);
        }
        !acked.is_empty() && self.lost.is_empty()
    }

    /// A loss-detection pass ran at `now` (`new_largest`: an ACK raised the largest
    /// acknowledged, or the loss timer fired): forgets what the rule forgets.
    pub fn on_detection(
        &mut self,
        now: Time,
        new_largest: bool,
        largest_acked: u64,
        rtt: &RttEstimator,
        max_ack_delay: Dur,
    ) {
        match self.rule {
            UndoRule::None => {}
            UndoRule::Quinn => {
                let two_pto = rtt.pto_base() * 2;
                self.lost
                    .retain(|_, sent| now.saturating_since(*sent) <= two_pto);
            }
            UndoRule::Msquic if new_largest => {
                let two_pto = (rtt.smoothed() + rtt.var() * 4 + max_ack_delay) * 2;
                while let Some((&pn, &sent)) = self.lost.first_key_value() {
                    if pn < largest_acked && now.saturating_since(sent) > two_pto {
                        self.lost.remove(&pn);
                    } else {
                        break;
                    }
                }
            }
            UndoRule::Msquic => {}
        }
    }

    /// Whether a spurious congestion event restores controller `cc`'s window.
    pub fn restores(&self, cc: QuicCc) -> bool {
        match self.rule {
            UndoRule::None => false,
            UndoRule::Quinn => cc == QuicCc::Cubic,
            UndoRule::Msquic => true,
        }
    }

    /// Packets remembered.
    pub fn len(&self) -> usize {
        self.lost.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lost.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranges::RangeSet;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    fn frame(lo: u64, hi: u64) -> AckFrame {
        let mut ranges = RangeSet::new();
        ranges.insert(lo, hi);
        AckFrame {
            ranges,
            ack_delay: Dur::ZERO,
        }
    }

    fn rtt_100ms() -> RttEstimator {
        let mut r = RttEstimator::new(Dur::from_millis(333));
        r.update(Dur::from_millis(100), Dur::ZERO);
        r
    }

    #[test]
    fn the_ack_of_the_last_remembered_loss_is_a_spurious_event() {
        let mut m = LostMemory::new(UndoRule::Quinn);
        m.on_lost(3, t(0));
        m.on_lost(4, t(1));
        assert!(!m.on_ack_frame(&frame(3, 3)), "4 still remembered");
        assert!(m.on_ack_frame(&frame(0, 9)));
        assert!(
            !m.on_ack_frame(&frame(0, 9)),
            "nothing left to find spurious"
        );
    }

    #[test]
    fn rfc_9002_remembers_nothing() {
        let mut m = LostMemory::new(UndoRule::None);
        m.on_lost(3, t(0));
        assert!(!m.on_ack_frame(&frame(3, 3)));
        assert!(!m.restores(QuicCc::Cubic));
    }

    #[test]
    fn quinn_forgets_after_two_pto_bases_from_the_send() {
        // pto_base = 100 + 4 * 50 = 300 ms: forgotten after 600 ms.
        let mut m = LostMemory::new(UndoRule::Quinn);
        m.on_lost(3, t(0));
        m.on_detection(t(600), false, 9, &rtt_100ms(), Dur::from_millis(25));
        assert_eq!(m.len(), 1);
        m.on_detection(t(601), false, 9, &rtt_100ms(), Dur::from_millis(25));
        assert!(m.is_empty());
        assert!(
            !m.on_ack_frame(&frame(3, 3)),
            "a late ACK finds nothing to undo"
        );
    }

    #[test]
    fn msquic_forgets_from_the_head_only_on_a_new_largest_with_max_ack_delay() {
        // 2 * (100 + 200 + 25) = 650 ms.
        let mut m = LostMemory::new(UndoRule::Msquic);
        m.on_lost(3, t(0));
        m.on_lost(5, t(100));
        let r = rtt_100ms();
        let mad = Dur::from_millis(25);
        m.on_detection(t(700), false, 9, &r, mad);
        assert_eq!(m.len(), 2, "only when the largest acknowledged rises");
        m.on_detection(t(700), true, 9, &r, mad);
        assert_eq!(m.len(), 1, "3 forgotten, 5 (600 ms old) kept");
        m.on_detection(t(800), true, 4, &r, mad);
        assert_eq!(m.len(), 1, "5 is not below the largest acknowledged");
    }

    #[test]
    fn quinns_newreno_has_no_undo_hook() {
        let m = LostMemory::new(UndoRule::Quinn);
        assert!(m.restores(QuicCc::Cubic) && !m.restores(QuicCc::NewReno));
    }
}
