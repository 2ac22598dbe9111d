//! Spurious-loss undo rules: what a sender remembers of the packets it declared lost,
//! for how long, and when an acknowledgement of them undoes the congestion response.
//! RFC 9002 undoes nothing ([`UndoRule::None`]); the others follow an implementation's
//! source, each at a named revision:
//!
//! * `quinn`, github quinn-rs/quinn at commit a1931ab8c37e09d915ad1dcb846624ccd72e04a9
//!   (main, 2026-07-23; the rule came in with 531ca90e "spurious loss detection and
//!   recovery", 2025-07-02, which no quinn-proto 0.11.x release carries: the pinned
//!   0.11.19 that crates/quinn-sim runs has none of it). quinn-proto/src/connection/mod.rs:
//!   `detect_lost_packets` keeps every packet it declares lost in `lost_packets`;
//!   `drain_lost_packets`, run at the end of every loss-detection pass (an
//!   acknowledgement of new packets, or the loss timer), forgets those sent more than
//!   2 x `pto_base` ago (smoothed_rtt + max(4 x rttvar, 1 ms), no max_ack_delay;
//!   "copied from msquic"). `detect_spurious_loss`, run by `on_ack_received` on every
//!   ACK frame before anything else, removes the remembered packets the frame
//!   acknowledges; when that empties the set, the congestion event was spurious and
//!   `on_spurious_congestion_event` is called. quinn's CUBIC restores the state it
//!   saved at the event if its window is below it (congestion/cubic.rs); its NewReno
//!   leaves the hook empty (the trait's default in congestion.rs), so under this rule
//!   NewReno undoes nothing.
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
//! * `quiche`, github cloudflare/quiche at commit
//!   e97798e16b3cfcebedac1a42f7f2434d9a0feac9 (2026-07-22),
//!   quiche/src/recovery/congestion/recovery.rs: a packet declared lost stays in
//!   `sent_packets` with its `time_lost`; `drain_acked_and_lost_packets(now -
//!   rtt_stats.rtt())`, run on every ACK and after every loss-detection pass, pops
//!   from the front those acknowledged or lost at least one smoothed RTT ago, stopping
//!   at the first outstanding packet or the first lost more recently: it forgets a
//!   loss about one RTT after declaring it. `detect_and_remove_acked_packets` counts an
//!   acknowledged lost packet as a spurious loss, and `on_ack_received` calls the
//!   controller's `rollback` for every ACK that finds one that was in flight (no wait
//!   for the rest). CUBIC's `rollback` (congestion/cubic.rs) restores the state
//!   `checkpoint` saved at the congestion event if the window is below it, but not
//!   when that state was in slow start ("Don't go back to slow start"); Reno's
//!   (congestion/reno.rs) does nothing. Not modelled: on a spurious loss quiche also
//!   raises its packet threshold to the reordering seen (at most
//!   `MAX_PACKET_THRESHOLD`) and its time threshold to 5/4; and CUBIC's other rollback,
//!   at the end of a recovery period that declared fewer than max(2, 20 % of the
//!   window) packets lost (`on_packet_acked`, `ROLLBACK_THRESHOLD_PERCENT`).
//! * `picoquic`, github private-octopus/picoquic at commit
//!   d199d45be8690dfa8653e214733243524112e3c0 (2026-08-16): a packet retransmitted,
//!   because declared lost or because the retransmission timer fired (loss_recovery.c
//!   `picoquic_count_and_notify_loss`: `picoquic_congestion_notification_timeout` for
//!   the timer), goes to the retransmitted queue; frames.c
//!   `picoquic_dequeue_old_retransmitted_packets`, after every ACK frame, forgets
//!   those sent more than `PICOQUIC_SPURIOUS_RETRANSMIT_DELAY_MAX` (1 s,
//!   picoquic_internal.h) before the newest packet acknowledged was sent
//!   (`latest_time_acknowledged`). An ACK of a queued packet is a spurious repeat:
//!   `picoquic_congestion_notification_spurious_repeat` at once, per packet. Unlike
//!   RFC 9002, the timer's notification drops the window to `PICOQUIC_CWIN_MINIMUM`
//!   (cubic.c `cubic_enter_recovery`, newreno.c `picoquic_newreno_sim_enter_recovery`;
//!   the model's probe timeout does so under this rule,
//!   [`crate::cc::QuicController::on_timer_loss`]). CUBIC's `cubic_correct_spurious`
//!   restores the state before the reduction; NewReno restores only within one
//!   smoothed RTT of the reduction (newreno.c, `spurious_repeat`). picoquic's 2 s
//!   ceiling on the timer (`PICOQUIC_LARGE_RETRANSMIT_TIMER`, timing.c) is the separate
//!   option `pto_max = "2s"`. Not modelled: picoquic's loss filter that lets CUBIC in
//!   slow start ignore a single loss (`picoquic_cc_hystart_loss_test`).

use crate::ack::AckFrame;
use crate::cc::Prior;
use crate::config::{QuicCc, UndoRule};
use crate::rtt::RttEstimator;
use spikelab_core::{Dur, Time};
use std::collections::BTreeMap;

/// picoquic's `PICOQUIC_SPURIOUS_RETRANSMIT_DELAY_MAX` (picoquic_internal.h): 1 s.
pub const PICOQUIC_SPURIOUS_RETRANSMIT_DELAY_MAX: Dur = Dur::from_millis(1_000);

/// One remembered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Remembered {
    sent: Time,
    /// When it was declared lost (or, for picoquic, retransmitted by the timer).
    lost_at: Time,
}

/// A loss-detection pass, as the forgetting rules see it.
#[derive(Clone, Copy, Debug)]
pub struct Pass<'a> {
    pub now: Time,
    /// An ACK raised the largest acknowledged, or the loss timer fired.
    pub new_largest: bool,
    pub largest_acked: u64,
    /// When the largest acknowledged packet was sent (picoquic's
    /// `latest_time_acknowledged`).
    pub largest_acked_sent: Option<Time>,
    /// The lowest packet number still outstanding.
    pub oldest_outstanding: Option<u64>,
    pub rtt: &'a RttEstimator,
    pub max_ack_delay: Dur,
}

/// The packets a sender remembers as declared lost.
#[derive(Clone, Debug, Default)]
pub struct LostMemory {
    rule: UndoRule,
    lost: BTreeMap<u64, Remembered>,
}

impl LostMemory {
    pub fn new(rule: UndoRule) -> LostMemory {
        LostMemory {
            rule,
            lost: BTreeMap::new(),
        }
    }

    /// Packet `pn`, sent at `sent`, was declared lost at `now`.
    pub fn on_lost(&mut self, pn: u64, sent: Time, now: Time) {
        if self.rule != UndoRule::None {
            self.lost.insert(pn, Remembered { sent, lost_at: now });
        }
    }

    /// A probe timeout fired at `now` with `outstanding` packets (number, send time)
    /// unacknowledged: picoquic retransmits them on its timer and remembers them as
    /// it does packets declared lost; the other rules remember nothing (RFC 9002 6.2:
    /// a PTO declares nothing lost).
    pub fn on_probe_timeout(&mut self, now: Time, outstanding: impl Iterator<Item = (u64, Time)>) {
        if self.rule == UndoRule::Picoquic {
            for (pn, sent) in outstanding {
                self.lost.insert(pn, Remembered { sent, lost_at: now });
            }
        }
    }

    /// Whether a probe timeout is a congestion event (picoquic's timer notification).
    pub fn timer_is_congestion(&self) -> bool {
        self.rule == UndoRule::Picoquic
    }

    /// An ACK frame arrived: forgets the remembered packets it acknowledges; true when
    /// that is a spurious congestion event: for quinn and msquic when it left none,
    /// for quiche and picoquic whenever it found one.
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
        match self.rule {
            UndoRule::None => false,
            UndoRule::Quinn | UndoRule::Msquic => !acked.is_empty() && self.lost.is_empty(),
            UndoRule::Quiche | UndoRule::Picoquic => !acked.is_empty(),
        }
    }

    /// A loss-detection pass ran: forgets what the rule forgets.
    pub fn on_detection(&mut self, pass: &Pass<'_>) {
        match self.rule {
            UndoRule::None => {}
            UndoRule::Quinn => {
                let two_pto = pass.rtt.pto_base() * 2;
                let now = pass.now;
                self.lost
                    .retain(|_, r| now.saturating_since(r.sent) <= two_pto);
            }
            UndoRule::Msquic if pass.new_largest => {
                let rtt = pass.rtt;
                let two_pto = (rtt.smoothed() + rtt.var() * 4 + pass.max_ack_delay) * 2;
                self.forget_head(|pn, r| {
                    pn < pass.largest_acked && pass.now.saturating_since(r.sent) > two_pto
                });
            }
            UndoRule::Msquic => {}
            UndoRule::Quiche => {
                let srtt = pass.rtt.smoothed();
                let behind = |pn: u64| pass.oldest_outstanding.is_some_and(|o| o < pn);
                self.forget_head(|pn, r| {
                    !behind(pn) && pass.now.saturating_since(r.lost_at) >= srtt
                });
            }
            UndoRule::Picoquic => {
                let Some(latest) = pass.largest_acked_sent else {
                    return;
                };
                let old = |r: &Remembered| {
                    latest.saturating_since(r.sent) > PICOQUIC_SPURIOUS_RETRANSMIT_DELAY_MAX
                };
                self.forget_head(|_, r| old(r));
            }
        }
    }

    /// Forgets from the lowest packet number while `forget` says so.
    fn forget_head(&mut self, forget: impl Fn(u64, &Remembered) -> bool) {
        while let Some((&pn, r)) = self.lost.first_key_value() {
            if !forget(pn, r) {
                break;
            }
            self.lost.remove(&pn);
        }
    }

    /// Whether a spurious congestion event at `now` restores controller `cc`'s state,
    /// given what the reduction replaced (`prior`).
    pub fn restores(&self, cc: QuicCc, prior: Option<Prior>, now: Time, srtt: Dur) -> bool {
        let Some(prior) = prior else {
            return false;
        };
        match (self.rule, cc) {
            (UndoRule::None, _) => false,
            (UndoRule::Quinn, c) => c == QuicCc::Cubic,
            (UndoRule::Msquic, _) => true,
            (UndoRule::Quiche, c) => c == QuicCc::Cubic && !prior.slow_start,
            (UndoRule::Picoquic, QuicCc::Cubic) => true,
            (UndoRule::Picoquic, QuicCc::NewReno) => prior
                .reduced_at
                .is_some_and(|at| now.saturating_since(at) < srtt),
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

    fn pass(now: u64, new_largest: bool, largest: u64, rtt: &RttEstimator) -> Pass<'_> {
        Pass {
            now: t(now),
            new_largest,
            largest_acked: largest,
            largest_acked_sent: Some(t(now.saturating_sub(100))),
            oldest_outstanding: None,
            rtt,
            max_ack_delay: Dur::from_millis(25),
        }
    }

    /// Packet 3, sent at 0, declared lost at 100 ms; its ACK arrives at 100 + `x` ms
    /// after a detection pass then (largest acknowledged 9, sent 100 ms before, an
    /// RTT of 100 ms): is the loss found spurious?
    fn ack_after(rule: UndoRule, x: u64) -> bool {
        let mut m = LostMemory::new(rule);
        m.on_lost(3, t(0), t(100));
        let r = rtt_100ms();
        m.on_detection(&pass(100 + x, true, 9, &r));
        m.on_ack_frame(&frame(3, 3))
    }

    #[test]
    fn a_loss_declared_at_t_and_acknowledged_at_t_plus_x_is_undone_per_rule() {
        // quinn: kept while sent <= 2 x pto_base (600 ms) ago.
        assert!(ack_after(UndoRule::Quinn, 500) && !ack_after(UndoRule::Quinn, 501));
        // msquic: 2 x (100 + 200 + 25) = 650 ms from the send.
        assert!(ack_after(UndoRule::Msquic, 550) && !ack_after(UndoRule::Msquic, 551));
        // quiche: forgotten one smoothed RTT (100 ms) after the declaration.
        assert!(ack_after(UndoRule::Quiche, 99) && !ack_after(UndoRule::Quiche, 100));
        // picoquic: sent more than 1 s before the newest acknowledged packet was.
        assert!(ack_after(UndoRule::Picoquic, 1_000) && !ack_after(UndoRule::Picoquic, 1_001));
        assert!(!ack_after(UndoRule::None, 0), "RFC 9002 remembers nothing");
    }

    #[test]
    fn the_ack_of_the_last_remembered_loss_is_a_spurious_event() {
        let mut m = LostMemory::new(UndoRule::Quinn);
        m.on_lost(3, t(0), t(0));
        m.on_lost(4, t(1), t(1));
        assert!(!m.on_ack_frame(&frame(3, 3)), "4 still remembered");
        assert!(m.on_ack_frame(&frame(0, 9)));
        assert!(
            !m.on_ack_frame(&frame(0, 9)),
            "nothing left to find spurious"
        );
    }

    #[test]
    fn quiche_and_picoquic_call_any_acknowledged_loss_spurious_at_once() {
        for rule in [UndoRule::Quiche, UndoRule::Picoquic] {
            let mut m = LostMemory::new(rule);
            m.on_lost(3, t(0), t(0));
            m.on_lost(4, t(1), t(1));
            assert!(m.on_ack_frame(&frame(3, 3)), "{rule:?}");
            assert_eq!(m.len(), 1);
        }
    }

    #[test]
    fn rfc_9002_remembers_nothing() {
        let mut m = LostMemory::new(UndoRule::None);
        m.on_lost(3, t(0), t(0));
        assert!(!m.on_ack_frame(&frame(3, 3)));
        let prior = Some(Prior {
            slow_start: false,
            reduced_at: Some(t(0)),
        });
        assert!(!m.restores(QuicCc::Cubic, prior, t(0), Dur::from_millis(100)));
    }

    #[test]
    fn msquic_forgets_from_the_head_only_on_a_new_largest_with_max_ack_delay() {
        // 2 * (100 + 200 + 25) = 650 ms.
        let mut m = LostMemory::new(UndoRule::Msquic);
        m.on_lost(3, t(0), t(0));
        m.on_lost(5, t(100), t(100));
        let r = rtt_100ms();
        m.on_detection(&pass(700, false, 9, &r));
        assert_eq!(m.len(), 2, "only when the largest acknowledged rises");
        m.on_detection(&pass(700, true, 9, &r));
        assert_eq!(m.len(), 1, "3 forgotten, 5 (600 ms old) kept");
        m.on_detection(&pass(800, true, 4, &r));
        assert_eq!(m.len(), 1, "5 is not below the largest acknowledged");
    }

    #[test]
    fn quiche_keeps_a_loss_behind_an_outstanding_packet() {
        let mut m = LostMemory::new(UndoRule::Quiche);
        m.on_lost(5, t(0), t(0));
        let r = rtt_100ms();
        let mut p = pass(1_000, true, 9, &r);
        p.oldest_outstanding = Some(2);
        m.on_detection(&p);
        assert_eq!(m.len(), 1, "packet 2 blocks the drain");
        p.oldest_outstanding = Some(7);
        m.on_detection(&p);
        assert!(m.is_empty());
    }

    #[test]
    fn picoquic_remembers_what_its_timer_retransmits() {
        let mut m = LostMemory::new(UndoRule::Picoquic);
        m.on_probe_timeout(t(500), [(1, t(0)), (2, t(10))].into_iter());
        assert!(m.timer_is_congestion());
        assert!(m.on_ack_frame(&frame(2, 2)));
        let mut quinn = LostMemory::new(UndoRule::Quinn);
        quinn.on_probe_timeout(t(500), [(1, t(0))].into_iter());
        assert!(quinn.is_empty() && !quinn.timer_is_congestion());
    }

    #[test]
    fn who_restores_which_controller() {
        let srtt = Dur::from_millis(100);
        let ca = Some(Prior {
            slow_start: false,
            reduced_at: Some(t(0)),
        });
        let ss = Some(Prior {
            slow_start: true,
            reduced_at: Some(t(0)),
        });
        let r = |rule, cc, prior, now| LostMemory::new(rule).restores(cc, prior, t(now), srtt);
        // quinn: CUBIC only (NewReno's hook is empty).
        assert!(r(UndoRule::Quinn, QuicCc::Cubic, ss, 0));
        assert!(!r(UndoRule::Quinn, QuicCc::NewReno, ca, 0));
        assert!(r(UndoRule::Msquic, QuicCc::NewReno, ca, 0));
        // quiche: CUBIC, never back into slow start.
        assert!(r(UndoRule::Quiche, QuicCc::Cubic, ca, 0));
        assert!(!r(UndoRule::Quiche, QuicCc::Cubic, ss, 0));
        assert!(!r(UndoRule::Quiche, QuicCc::NewReno, ca, 0));
        // picoquic: CUBIC always, NewReno within one smoothed RTT of the reduction.
        assert!(r(UndoRule::Picoquic, QuicCc::Cubic, ss, 5_000));
        assert!(r(UndoRule::Picoquic, QuicCc::NewReno, ca, 99));
        assert!(!r(UndoRule::Picoquic, QuicCc::NewReno, ca, 100));
        assert!(
            !r(UndoRule::Msquic, QuicCc::Cubic, None, 0),
            "nothing to restore"
        );
    }
}
