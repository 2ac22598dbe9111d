//! RACK loss detection (RFC 8985 sections 6.1-6.3) as the Linux kernel runs it:
//! `tcp_rack_advance`, `tcp_rack_reo_wnd`, `tcp_rack_detect_loss`,
//! `tcp_rack_mark_lost` and `tcp_rack_reo_timeout` (net/ipv4/tcp_recovery.c), the
//! reordering accounting of `tcp_check_sack_reordering`, the in-flight count of
//! `tcp_packets_in_flight` and the lost-segment retransmission of
//! `tcp_xmit_retransmit_queue` (net/ipv4/tcp_input.c, tcp_output.c, Linux 6.x).
//!
//! RACK declares a segment lost when a segment *sent later* has been delivered
//! (acknowledged or SACKed) and the earlier one has waited longer than the most
//! recent RTT plus a reordering window: time, not a count of duplicate ACKs. Because
//! a retransmission carries its own sending time, a lost retransmission is detected
//! the same way once something sent after it is delivered.
//!
//! The sender keeps the segments in sequence order, not in the kernel's send-time
//! order (`tsorted_sent_queue`). The walk in [`Rack::detect_loss`] is equivalent: a
//! segment never retransmitted was sent after every segment below it was first sent,
//! so the first never-retransmitted segment sent after RACK's reference ends the walk
//! (the kernel's `break`); retransmitted segments below it are tested one by one.
//!
//! The reordering window grows by one step of min_RTT / 4 in each round trip with a
//! D-SACK after reordering was seen, and falls back to one step after 16 recoveries
//! without one (`tcp_rack_update_reo_wnd`, `reo_wnd_steps`, `reo_wnd_persist`; RFC 8985
//! 6.2 step 4); `tcp_recovery` bit 2 (`TCP_RACK_STATIC_REO_WND`) keeps it at one step.
//!
//! Simplifications (named where they act): a segment retransmitted without being
//! marked lost (a Tail Loss Probe) counts once in flight, not twice; the round of
//! `tcp_rack_update_reo_wnd` is told by send times, not by the kernel's delivered
//! counter (equivalent: the counter only grows with time); a D-SACK counts toward
//! the window whatever `tp->dsack_dups` says.

use crate::segments::{Seg, SegmentTable};
use spikelab_core::{Dur, Time};
use std::collections::BTreeSet;

/// `sysctl_tcp_reordering` (TCP_FASTRETRANS_THRESH): the initial reordering degree.
pub const REORDERING_INIT: u64 = 3;
/// `sysctl_tcp_max_reordering`.
pub const MAX_REORDERING: u64 = 300;
/// `TCP_RACK_RECOVERY_THRESH`: recoveries a widened reordering window persists.
pub const RECOVERY_THRESH: u32 = 16;
/// The largest `reo_wnd_steps` (a u8 in the kernel).
pub const MAX_REO_WND_STEPS: u32 = 0xFF;

/// RACK's state for one connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent delivered segment
    /// (`rack.mstamp`, `rack.end_seq`).
    latest: Option<(Time, u64)>,
    /// RACK.rtt: the RTT of the last segment that advanced it (`rack.rtt_us`).
    rtt: Dur,
    /// Something was delivered since the last loss scan (`rack.advanced`).
    advanced: bool,
    /// Reordering was observed (`tp->reord_seen`).
    reord_seen: bool,
    /// The reordering degree in segments (`tp->reordering`).
    reordering: u64,
    /// Starts of the segments marked lost and not retransmitted since
    /// (`TCPCB_LOST` without `TCPCB_SACKED_RETRANS`).
    lost: BTreeSet<u64>,
    /// Starts of the segments marked lost and retransmitted since, neither SACKed nor
    /// cumulatively acknowledged yet (`TCPCB_LOST` with `TCPCB_SACKED_RETRANS`): they
    /// stay in `lost_out` until delivered (`tcp_sacktag_one`, `tcp_clean_rtx_queue`).
    lost_retransmitted: BTreeSet<u64>,
    /// The reordering window in steps of min_RTT / 4 (`rack.reo_wnd_steps`).
    reo_wnd_steps: u32,
    /// Recoveries left before the window falls back to one step
    /// (`rack.reo_wnd_persist`).
    reo_wnd_persist: u32,
    /// A D-SACK arrived after reordering was seen (`rack.dsack_seen`).
    dsack_seen: bool,
    /// When the window last grew (`rack.last_delivered`, as a time).
    last_widened: Option<Time>,
    /// The latest send time among the segments this ACK delivered
    /// (`rs->prior_delivered`, as a time); None if it delivered none.
    ack_latest_sent: Option<Time>,
    /// Segments ever marked lost (each `tcp_mark_skb_lost`).
    marked: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            latest: None,
            rtt: Dur::ZERO,
            advanced: false,
            reord_seen: false,
            reordering: REORDERING_INIT,
            lost: BTreeSet::new(),
            lost_retransmitted: BTreeSet::new(),
            // tcp_init_sock: reo_wnd_steps = 1.
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            last_widened: None,
            ack_latest_sent: None,
            marked: 0,
        }
    }
}

/// What one loss scan found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// Segments newly marked lost.
    pub newly_lost: u64,
    /// Of those, segments whose retransmission was lost (`FLAG_LOST_RETRANS`:
    /// `tcp_identify_packet_loss` sees `retrans_out` fall, so only a retransmission
    /// still counted in flight, `TCPCB_SACKED_RETRANS`, counts; a timeout's
    /// `tcp_timeout_mark_lost` already took the earlier ones out of `retrans_out`,
    /// which is what `rexmit_in_episode`, cleared at the timeout, follows).
    pub lost_retransmissions: u64,
    /// The longest wait before a segment not yet lost would be (the reordering
    /// timer, `ICSK_TIME_REO_TIMEOUT`), if any.
    pub wait: Option<Dur>,
}

/// The inputs of `tcp_rack_reo_wnd`.
#[derive(Clone, Copy, Debug)]
pub struct ReoWndInputs {
    /// In fast recovery or after a timeout (`icsk_ca_state >= TCP_CA_Recovery`).
    pub recovering: bool,
    /// Segments SACKed (`tp->sacked_out`).
    pub sacked_out: u64,
    /// `tcp_recovery` bit 4 (`TCP_RACK_NO_DUPTHRESH`).
    pub no_dupthresh: bool,
    pub min_rtt: Option<Dur>,
    pub srtt: Option<Dur>,
}

/// `tcp_rack_sent_after`: (t1, seq1) was sent after (t2, seq2); equal times are
/// ordered by sequence (one burst shares a timestamp).
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// `tcp_rack_advance`: segment `seg` was delivered (newly SACKed, or cumulatively
    /// acknowledged and not known to be a spurious retransmission) at `now`.
    pub fn on_delivered(&mut self, seg: &Seg, now: Time, min_rtt: Option<Dur>) {
        // RFC 8985 6.2 step 1 / tcp_sacktag_one: a delivered segment is no longer lost.
        self.lost.remove(&seg.start);
        self.lost_retransmitted.remove(&seg.start);
        self.on_rate_delivered(seg);
        let rtt = now.saturating_since(seg.last_sent);
        // RFC 8985 6.2 step 2: a retransmitted segment delivered sooner than min_RTT
        // after its retransmission was the original's delivery; ambiguous, skipped.
        if seg.retx_count > 0 && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        // Step 3 (Linux 6.x): RACK.rtt follows every accepted sample; the reference
        // segment moves only forward in send order.
        self.advanced = true;
        self.rtt = rtt;
        let later = self
            .latest
            .is_none_or(|(t, e)| sent_after(seg.last_sent, seg.end(), t, e));
        if later {
            self.latest = Some((seg.last_sent, seg.end()));
        }
    }

    /// `tcp_check_sack_reordering`: a segment never retransmitted was delivered below
    /// `prior_fack`, the highest SACKed sequence before this ACK (RFC 8985 6.2 step 4).
    pub fn on_delivered_below_fack(&mut self, seg: &Seg, prior_fack: Option<u64>, mss: u64) {
        let Some(fack) = prior_fack.filter(|&f| seg.retx_count == 0 && seg.start < f) else {
            return;
        };
        let metric = (fack - seg.start) / mss.max(1) + 1;
        self.reordering = self.reordering.max(metric).min(MAX_REORDERING);
        self.reord_seen = true;
    }

    /// `tcp_check_sack_reordering(sk, prior_snd_una, 1)` from `tcp_try_undo_partial`:
    /// a recovery hole at `low_seq` was filled by the delayed original (timestamps
    /// showed it), so everything up to `fack`, the highest SACKed sequence, was
    /// delivered before it. Nothing when nothing above it was SACKed.
    pub fn on_delayed_hole(&mut self, low_seq: u64, fack: Option<u64>, mss: u64) {
        let Some(fack) = fack.filter(|&f| low_seq < f) else {
            return;
        };
        let metric = (fack - low_seq).div_ceil(mss.max(1));
        self.reordering = self.reordering.max(metric).min(MAX_REORDERING);
        self.reord_seen = true;
    }

    /// `tcp_rack_reo_wnd` (RFC 8985 6.2 step 4): zero while no reordering was seen and
    /// either recovery is under way or DupThresh segments are SACKed (the DupThresh
    /// rule of RFC 8985 6.2, unless `TCP_RACK_NO_DUPTHRESH`); else min_RTT / 4, at most
    /// SRTT.
    pub fn reo_wnd(&self, i: &ReoWndInputs) -> Dur {
        if !self.reord_seen {
            if i.recovering {
                return Dur::ZERO;
            }
            if i.sacked_out >= self.reordering && !i.no_dupthresh {
                return Dur::ZERO;
            }
        }
        let srtt = i.srtt.unwrap_or(Dur::ZERO);
        match i.min_rtt {
            // (min_rtt >> 2) * reo_wnd_steps, at most SRTT.
            Some(m) => Dur(m.0 / 4 * self.reo_wnd_steps as u64).min(srtt),
            // tcp_min_rtt() is ~0U before any sample: the SRTT bound applies.
            None => srtt,
        }
    }

    /// `tcp_rate_skb_delivered`: segment `seg` was delivered by this ACK, the most
    /// recently sent one giving `rs->prior_delivered`. `tcp_clean_rtx_queue` calls it
    /// for every segment the ACK acknowledges, a spurious retransmission too, where
    /// `tcp_rack_advance` is skipped (`tcp_skb_spurious_retrans`).
    pub fn on_rate_delivered(&mut self, seg: &Seg) {
        self.ack_latest_sent = self.ack_latest_sent.max(Some(seg.last_sent));
    }

    /// A new ACK is about to be applied: no segment delivered by it yet.
    pub fn begin_ack(&mut self) {
        self.ack_latest_sent = None;
    }

    /// `tcp_dsack_seen`: a D-SACK counts toward widening the window only after
    /// reordering was seen and when it does not report a Tail Loss Probe
    /// (`FLAG_DSACK_TLP`: "TLP is timer-driven, not triggered by RACK").
    pub fn on_dsack(&mut self, reports_probe: bool) {
        if self.reord_seen && !reports_probe {
            self.dsack_seen = true;
        }
    }

    /// `tcp_rack_update_reo_wnd`, after the ACK's deliveries were noted at `now`: with
    /// a D-SACK pending and a round trip passed since the window last grew, one step
    /// more and `reo_wnd_persist` = 16; else, the persistence used up, one step.
    /// Nothing with `TCP_RACK_STATIC_REO_WND` or when the ACK delivered nothing.
    pub fn update_reo_wnd(&mut self, now: Time, static_wnd: bool) {
        let Some(latest) = self.ack_latest_sent.filter(|_| !static_wnd) else {
            return;
        };
        // "Disregard DSACK if a rtt has not passed since we adjusted reo_wnd".
        if self.last_widened.is_some_and(|t| latest < t) {
            self.dsack_seen = false;
        }
        if std::mem::take(&mut self.dsack_seen) {
            self.reo_wnd_steps = (self.reo_wnd_steps + 1).min(MAX_REO_WND_STEPS);
            self.last_widened = Some(now);
            self.reo_wnd_persist = RECOVERY_THRESH;
        } else if self.reo_wnd_persist == 0 {
            self.reo_wnd_steps = 1;
        }
    }

    /// `tcp_try_undo_recovery` ending a recovery without undo: one persistence
    /// used up.
    pub fn on_recovery_end_without_undo(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
    }

    /// `tcp_try_undo_dsack`: a D-SACK undo buys one more recovery, at most 16.
    pub fn on_dsack_undo(&mut self) {
        self.reo_wnd_persist = (self.reo_wnd_persist + 1).min(RECOVERY_THRESH);
    }

    /// The reordering window in steps of min_RTT / 4.
    pub fn reo_wnd_steps(&self) -> u32 {
        self.reo_wnd_steps
    }

    /// `tcp_rack_mark_lost`: scans only if something was delivered since the last
    /// scan (`rack.advanced`).
    pub fn mark_lost(&mut self, segs: &SegmentTable, now: Time, reo_wnd: Dur) -> Detection {
        if !std::mem::take(&mut self.advanced) {
            return Detection::default();
        }
        self.detect_loss(segs, now, reo_wnd)
    }

    /// `tcp_rack_detect_loss` (RFC 8985 6.2 step 5): every unSACKed segment sent
    /// before RACK's reference whose wait, RACK.rtt + reo_wnd since its (re)sending,
    /// has run out is lost; for the others, the longest remaining wait.
    pub fn detect_loss(&mut self, segs: &SegmentTable, now: Time, reo_wnd: Dur) -> Detection {
        let mut d = Detection::default();
        let Some((ref_sent, ref_end)) = self.latest else {
            return d;
        };
        let deadline_span = self.rtt + reo_wnd;
        for s in segs.iter() {
            // Skip ones SACKed, or marked lost but not yet retransmitted.
            if s.sacked || self.lost.contains(&s.start) {
                continue;
            }
            if !sent_after(ref_sent, ref_end, s.last_sent, s.end()) {
                if s.retx_count == 0 {
                    break; // everything above was sent later still
                }
                continue;
            }
            let waited = now.saturating_since(s.last_sent);
            if waited >= deadline_span {
                // remaining <= 0: tcp_mark_skb_lost.
                self.lost.insert(s.start);
                self.lost_retransmitted.remove(&s.start);
                self.marked += 1;
                d.newly_lost += 1;
                d.lost_retransmissions += s.rexmit_in_episode as u64;
            } else {
                let remaining = deadline_span - waited;
                d.wait = Some(d.wait.map_or(remaining, |w| w.max(remaining)));
            }
        }
        d
    }

    /// Marks a segment lost outright (`tcp_timeout_mark_lost` for the segments a
    /// timeout's go-back-N has not resent yet, when recovery takes over from it).
    pub fn mark_segment_lost(&mut self, start: u64) {
        self.lost_retransmitted.remove(&start);
        self.marked += self.lost.insert(start) as u64;
    }

    /// Segments ever marked lost, lost retransmissions again (`tp->lost`).
    pub fn marked(&self) -> u64 {
        self.marked
    }

    /// A segment was retransmitted (`TCPCB_SACKED_RETRANS` set): it waits again, and
    /// a lost one keeps its `TCPCB_LOST` (it still counts in `lost_out`).
    pub fn on_retransmit(&mut self, start: u64) {
        if self.lost.remove(&start) {
            self.lost_retransmitted.insert(start);
        }
    }

    /// The cumulative ACK reached `ack`: segments below it are no longer tracked.
    pub fn on_cumulative_ack(&mut self, ack: u64) {
        if self.lost.first().is_some_and(|&s| s < ack) {
            self.lost = self.lost.split_off(&ack);
        }
        if self.lost_retransmitted.first().is_some_and(|&s| s < ack) {
            self.lost_retransmitted = self.lost_retransmitted.split_off(&ack);
        }
    }

    /// After a timeout RACK starts over from what is delivered next. The kernel's
    /// `tcp_timeout_mark_lost` marks the head and every segment sent at least RACK.rtt
    /// ago lost instead; not modelled (measured: it moves seed 1 of the Table 1 path's
    /// configuration (c) from 40.7 s / 35 retransmissions to 35.8 s / 108 against the
    /// kernel's 40.5 s / 30, through spikelab's go-back-N in the Loss state, which
    /// resends what the kernel would leave for RACK), so RACK in the Loss state marks
    /// the originals itself once a later-sent segment is delivered.
    pub fn on_timeout(&mut self) {
        self.lost.clear();
        self.lost_retransmitted.clear();
    }

    /// `tcp_undo_cwnd_reduction(sk, true)` (a Loss-state undo by `tcp_try_undo_loss`):
    /// every lost mark is cleared; RACK marks again what it still finds lost.
    pub fn on_loss_undo(&mut self) {
        self.lost.clear();
        self.lost_retransmitted.clear();
    }

    /// The lowest segment waiting for its retransmission.
    pub fn first_lost(&self) -> Option<u64> {
        self.lost.first().copied()
    }

    /// Is the segment at `start` marked lost and not retransmitted since?
    pub fn is_lost(&self, start: u64) -> bool {
        self.lost.contains(&start)
    }

    /// Segments marked lost and not retransmitted since (`lost_out - retrans_out`).
    pub fn lost_pending(&self) -> u64 {
        self.lost.len() as u64
    }

    /// [`Self::lost_pending`] of the segments starting below `end`.
    pub fn lost_pending_below(&self, end: u64) -> u64 {
        self.lost.range(..end).count() as u64
    }

    /// Segments marked lost and not yet delivered, retransmitted or not (`lost_out`):
    /// `tcp_time_to_recover`'s "the loss is proven".
    pub fn lost_out(&self) -> u64 {
        (self.lost.len() + self.lost_retransmitted.len()) as u64
    }

    /// Whether reordering was observed.
    pub fn reordering_seen(&self) -> bool {
        self.reord_seen
    }

    /// `tcp_may_raise_cwnd`'s first test: `tp->reordering` above
    /// `sysctl_tcp_reordering`.
    pub fn reordering_high(&self) -> bool {
        self.reordering > REORDERING_INIT
    }
}

/// `tcp_packets_in_flight`: packets_out - (sacked_out + lost_out) + retrans_out, in
/// segments: `unsacked` segments outstanding and not SACKed, `lost_pending` of them
/// marked lost and not retransmitted since.
pub fn in_flight(unsacked: u64, lost_pending: u64) -> u64 {
    unsacked.saturating_sub(lost_pending)
}

/// What `tcp_xmit_retransmit_queue` then `tcp_write_xmit` send next in recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Retransmit the lowest lost segment.
    RetransmitLost,
    /// Send new data.
    New,
}

/// One more segment while in flight < cwnd (both in segments): lost segments first,
/// in sequence order, then new data; nothing else is retransmitted (unlike RFC 6675's
/// NextSeg rule 3).
pub fn next_transmit(
    in_flight: u64,
    cwnd: u64,
    lost_waiting: bool,
    may_send_new: bool,
) -> Option<Next> {
    if in_flight >= cwnd {
        None
    } else if lost_waiting {
        Some(Next::RetransmitLost)
    } else if may_send_new {
        Some(Next::New)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    /// Segments of 1000 bytes, segment i first sent at `sent[i]` ms.
    fn table(sent: &[u64]) -> SegmentTable {
        let mut t = SegmentTable::new();
        for (i, &at) in sent.iter().enumerate() {
            let i = i as u64;
            t.push_new(i * 1000, (i + 1) * 1000, ms(at));
        }
        t
    }

    fn seg(t: &SegmentTable, i: usize) -> Seg {
        *t.get(i).unwrap()
    }

    fn inputs(recovering: bool, sacked_out: u64) -> ReoWndInputs {
        ReoWndInputs {
            recovering,
            sacked_out,
            no_dupthresh: false,
            min_rtt: Some(Dur::from_millis(100)),
            srtt: Some(Dur::from_millis(120)),
        }
    }

    #[test]
    fn a_lost_segment_stays_in_lost_out_after_its_retransmission_until_delivered() {
        let mut t = table(&[0, 10, 20]);
        let mut r = Rack::default();
        t.on_sack_block(2000, 3000);
        r.on_delivered(&seg(&t, 2), ms(120), Some(Dur::from_millis(100)));
        r.detect_loss(&t, ms(200), Dur::ZERO);
        assert_eq!((r.lost_pending(), r.lost_out()), (2, 2));
        // Retransmitted: no longer waiting (tcp_packets_in_flight counts it again),
        // still TCPCB_LOST (lost_out).
        r.on_retransmit(0);
        assert_eq!((r.lost_pending(), r.lost_out()), (1, 2));
        r.on_cumulative_ack(1000);
        assert_eq!((r.lost_pending(), r.lost_out()), (1, 1));
        r.on_retransmit(1000);
        r.on_delivered(&seg(&t, 1), ms(300), None);
        assert_eq!((r.lost_pending(), r.lost_out()), (0, 0));
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_after_rtt_plus_the_window() {
        let mut t = table(&[0, 10, 20]);
        let mut r = Rack::default();
        t.on_sack_block(2000, 3000);
        r.on_delivered(&seg(&t, 2), ms(120), Some(Dur::from_millis(100)));
        // One segment SACKed, no recovery: reo_wnd = min_rtt / 4 = 25 ms.
        let w = r.reo_wnd(&inputs(false, 1));
        assert_eq!(w, Dur::from_millis(25));
        // RACK.rtt = 100 ms; segment 0 (sent at 0) waits to 125 ms, segment 1 to 135.
        let d = r.mark_lost(&t, ms(120), w);
        assert_eq!((d.newly_lost, d.wait), (0, Some(Dur::from_millis(15))));
        let d = r.detect_loss(&t, ms(125), w);
        assert_eq!((d.newly_lost, d.wait), (1, Some(Dur::from_millis(10))));
        assert_eq!(r.first_lost(), Some(0));
        assert_eq!(r.detect_loss(&t, ms(135), w).newly_lost, 1);
        assert_eq!(r.lost_pending(), 2);
    }

    #[test]
    fn dupthresh_sacked_segments_or_recovery_leave_no_reordering_window() {
        let r = Rack::default();
        assert_eq!(r.reo_wnd(&inputs(false, 3)), Dur::ZERO);
        assert_eq!(r.reo_wnd(&inputs(true, 0)), Dur::ZERO);
        let mut i = inputs(false, 3);
        i.no_dupthresh = true;
        assert_eq!(r.reo_wnd(&i), Dur::from_millis(25));
    }

    #[test]
    fn seen_reordering_keeps_the_window_even_in_recovery() {
        let t = table(&[0, 10, 20, 30]);
        let mut r = Rack::default();
        // Segment 0, never retransmitted, delivered below a SACKed 4000: reordering 4.
        r.on_delivered_below_fack(&seg(&t, 0), Some(4000), 1000);
        assert!(r.reordering_seen());
        assert_eq!(r.reo_wnd(&inputs(true, 3)), Dur::from_millis(25));
    }

    #[test]
    fn a_recovery_hole_filled_by_the_delayed_original_is_reordering() {
        let mut r = Rack::default();
        // Nothing SACKed above the hole: no evidence.
        r.on_delayed_hole(2000, None, 1000);
        r.on_delayed_hole(2000, Some(2000), 1000);
        assert!(!r.reordering_seen());
        assert_eq!(r.reo_wnd(&inputs(true, 3)), Dur::ZERO);
        // SACKed up to 7500 while the hole at 2000 waited: 6 segments of reordering.
        r.on_delayed_hole(2000, Some(7500), 1000);
        assert!(r.reordering_seen());
        assert_eq!(r.reordering, 6);
        assert_eq!(r.reo_wnd(&inputs(true, 3)), Dur::from_millis(25));
    }

    /// A RACK that has seen reordering and delivered segment 0 at `now` ms.
    fn reordered_rack_delivering(t: &SegmentTable, now: u64) -> Rack {
        let mut r = Rack::default();
        r.on_delivered_below_fack(&seg(t, 0), Some(4000), 1000);
        r.begin_ack();
        r.on_delivered(&seg(t, 0), ms(now), None);
        r
    }

    #[test]
    fn a_dsack_after_reordering_widens_the_window_by_one_step_per_round_trip() {
        let t = table(&[0, 10, 20, 30]);
        let mut r = reordered_rack_delivering(&t, 100);
        r.on_dsack(false);
        r.update_reo_wnd(ms(100), false);
        assert_eq!(r.reo_wnd_steps(), 2);
        assert_eq!(r.reo_wnd(&inputs(true, 0)), Dur::from_millis(50));
        // A second D-SACK on an ACK for a segment sent before the widening: the same
        // round trip, disregarded.
        r.on_dsack(false);
        r.begin_ack();
        r.on_delivered(&seg(&t, 1), ms(110), None);
        r.update_reo_wnd(ms(110), false);
        assert_eq!(r.reo_wnd_steps(), 2);
        // One for a segment sent after it counts: three steps, capped by SRTT (120).
        let mut t2 = t.clone();
        t2.push_new(4000, 5000, ms(150));
        r.on_dsack(false);
        r.begin_ack();
        r.on_delivered(&seg(&t2, 4), ms(250), None);
        r.update_reo_wnd(ms(250), false);
        assert_eq!(r.reo_wnd_steps(), 3);
        assert_eq!(r.reo_wnd(&inputs(true, 0)), Dur::from_millis(75));
    }

    #[test]
    fn a_dsack_without_reordering_or_for_a_probe_or_a_static_window_changes_nothing() {
        let t = table(&[0, 10]);
        let mut r = Rack::default();
        r.on_dsack(false); // no reordering seen
        r.begin_ack();
        r.on_delivered(&seg(&t, 0), ms(100), None);
        r.update_reo_wnd(ms(100), false);
        assert_eq!(r.reo_wnd_steps(), 1);
        let mut r = reordered_rack_delivering(&t, 100);
        r.on_dsack(true); // reports a Tail Loss Probe
        r.update_reo_wnd(ms(100), false);
        assert_eq!(r.reo_wnd_steps(), 1);
        let mut r = reordered_rack_delivering(&t, 100);
        r.on_dsack(false);
        r.update_reo_wnd(ms(100), true); // tcp_recovery bit 2
        assert_eq!(r.reo_wnd_steps(), 1);
    }

    #[test]
    fn a_widened_window_falls_back_after_sixteen_recoveries_without_undo() {
        let t = table(&[0, 10]);
        let mut r = reordered_rack_delivering(&t, 100);
        r.on_dsack(false);
        r.update_reo_wnd(ms(100), false);
        for _ in 0..15 {
            r.on_recovery_end_without_undo();
        }
        r.update_reo_wnd(ms(100), false);
        assert_eq!(r.reo_wnd_steps(), 2, "one persistence left");
        r.on_dsack_undo(); // back to two
        r.on_recovery_end_without_undo();
        r.on_recovery_end_without_undo();
        r.update_reo_wnd(ms(100), false);
        assert_eq!(r.reo_wnd_steps(), 1);
    }

    #[test]
    fn a_segment_retransmitted_before_the_timeout_is_no_lost_retransmission_after_it() {
        let mut t = table(&[0, 0]);
        let mut r = Rack::default();
        // Segment 0 was retransmitted at 300 ms, before a timeout cleared the marks
        // (tcp_timeout_mark_lost took it out of retrans_out).
        {
            let mut s0 = t.get_mut(0).unwrap();
            s0.retx_count = 1;
            s0.last_sent = ms(300);
        }
        t.clear_episode_marks();
        t.push_new(2000, 3000, ms(400));
        t.on_sack_block(2000, 3000);
        r.on_delivered(&seg(&t, 2), ms(500), Some(Dur::from_millis(100)));
        let d = r.detect_loss(&t, ms(500), Dur::ZERO);
        assert_eq!(d.lost_retransmissions, 0);
        assert!(d.newly_lost >= 1);
    }

    #[test]
    fn a_lost_retransmission_is_detected_when_later_data_is_delivered() {
        let mut t = table(&[0, 0, 0, 0]);
        let mut r = Rack::default();
        // Segment 0 retransmitted at 300 ms, then segment 3 (sent at 0) ... is older:
        // only a segment sent after 300 ms can reveal the retransmission's loss.
        {
            let mut s0 = t.get_mut(0).unwrap();
            s0.retx_count = 1;
            s0.rexmit_in_episode = true;
            s0.last_sent = ms(300);
        }
        t.on_sack_block(3000, 4000);
        r.on_delivered(&seg(&t, 3), ms(100), Some(Dur::from_millis(100)));
        let d = r.detect_loss(&t, ms(500), Dur::ZERO);
        assert_eq!((d.newly_lost, d.lost_retransmissions), (2, 0)); // segments 1, 2
                                                                    // New data sent at 400 ms and SACKed at 500 ms: the retransmission is lost.
        t.push_new(4000, 5000, ms(400));
        t.on_sack_block(4000, 5000);
        r.on_delivered(&seg(&t, 4), ms(500), Some(Dur::from_millis(100)));
        let d = r.detect_loss(&t, ms(500), Dur::ZERO);
        assert_eq!((d.newly_lost, d.lost_retransmissions), (1, 1));
        assert_eq!(r.first_lost(), Some(0));
    }

    #[test]
    fn a_retransmission_delivered_sooner_than_min_rtt_does_not_advance_rack() {
        let mut t = table(&[0, 0]);
        {
            let mut s1 = t.get_mut(1).unwrap();
            s1.retx_count = 1;
            s1.last_sent = ms(250);
        }
        let mut r = Rack::default();
        // Acknowledged 20 ms after its retransmission: the original arrived.
        r.on_delivered(&seg(&t, 1), ms(270), Some(Dur::from_millis(100)));
        assert_eq!(r.mark_lost(&t, ms(270), Dur::ZERO), Detection::default());
        assert_eq!(r.detect_loss(&t, ms(270), Dur::ZERO).newly_lost, 0);
    }

    #[test]
    fn retransmitting_or_delivering_a_lost_segment_unmarks_it() {
        let mut t = table(&[0, 0, 10]);
        let mut r = Rack::default();
        t.on_sack_block(2000, 3000);
        r.on_delivered(&seg(&t, 2), ms(110), None);
        assert_eq!(r.detect_loss(&t, ms(110), Dur::ZERO).newly_lost, 2);
        r.on_retransmit(0);
        assert_eq!(r.first_lost(), Some(1000));
        r.on_cumulative_ack(2000);
        assert_eq!((r.first_lost(), r.lost_pending()), (None, 0));
    }

    #[test]
    fn recovery_sends_lost_segments_first_then_new_data_within_cwnd() {
        assert_eq!(
            next_transmit(in_flight(10, 3), 8, true, true),
            Some(Next::RetransmitLost)
        );
        assert_eq!(next_transmit(7, 8, false, true), Some(Next::New));
        assert_eq!(next_transmit(7, 8, false, false), None);
        assert_eq!(next_transmit(8, 8, true, true), None);
    }
}
