//! RACK loss detection (RFC 8985 section 6, [`crate::rack`]) as a Linux host runs it
//! at the sender's extension points: `tcp_recovery` bit 1 on a SACK connection
//! (`tcp_is_rack`). The sender hears only what RACK decides ([`LossMarks`], the lost
//! segments, the in-flight count); the state is here.

use crate::config::TcpConfig;
use crate::dsack::split_dsack;
use crate::linux_disorder::{ack_is_dubious, Outstanding};
use crate::phase::Phase;
use crate::rack::{next_transmit, Next, Rack, ReoWndInputs};
use crate::recovery::Transmit;
use crate::stacks::{Delivery, LossMarks, LossView};
use crate::ts_clock::TsClock;
use crate::window::Window;
use spikelab_core::packet::MAX_SACK_BLOCKS;
use spikelab_core::{Dur, Time};

/// A Linux host's RACK.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RackDetection {
    /// `tcp_is_rack`, resolved once from the configuration.
    on: bool,
    /// `tcp_recovery` bit 2: a static reordering window (`tcp_rack_update_reo_wnd`).
    static_reo_wnd: bool,
    /// `tcp_recovery` bit 4: no DupThresh rule in the reordering window
    /// (`tcp_rack_reo_wnd`).
    no_dupthresh: bool,
    rack: Rack,
    /// What was outstanding as the ACK being handled arrived (`tcp_ack_is_dubious`).
    before: Outstanding,
}

/// `tcp_recovery` bit 1 on a SACK connection of the `linux` profile (`tcp_is_rack`).
pub fn rack_configured(cfg: &TcpConfig) -> bool {
    let on = |l: &crate::LinuxSysctls| l.tcp_recovery & 1 != 0;
    cfg.linux.as_ref().is_some_and(on) && cfg.sack_enabled()
}

impl RackDetection {
    pub fn new(cfg: &TcpConfig) -> RackDetection {
        let bits = cfg.linux.as_ref().map_or(0, |l| l.tcp_recovery);
        RackDetection {
            on: rack_configured(cfg),
            static_reo_wnd: bits & 2 != 0,
            no_dupthresh: bits & 4 != 0,
            ..RackDetection::default()
        }
    }

    /// RACK's state, for tests and traces.
    pub fn rack(&self) -> &Rack {
        &self.rack
    }

    /// Whether RACK runs.
    pub fn on(&self) -> bool {
        self.on
    }

    /// `tcp_sacktag_one` and `tcp_clean_rtx_queue`: RACK hears of every segment the
    /// ACK delivers for the first time (RFC 8985 6.2 steps 1-4), before the ACK is
    /// applied. Cumulatively acknowledged retransmissions whose ACK echoes a timestamp
    /// older than the retransmission (`tcp_skb_spurious_retrans`) are left out.
    /// `probe_high_seq`: the outstanding Tail Loss Probe's `tlp_high_seq`.
    pub fn on_ack_delivered(&mut self, d: &Delivery, probe_high_seq: Option<u64>) {
        if !self.on {
            return;
        }
        self.before = outstanding(d.w, &self.rack);
        let (w, pkt, now) = (d.w, d.pkt, d.now);
        self.rack.begin_ack();
        let prior_fack = w.segs.highest_sacked_end();
        let echoed = pkt.ts().map(|ts| ts.ecr);
        let (dsack, blocks) = split_dsack(pkt);
        if let Some((start, end)) = dsack {
            // tcp_check_dsack -> tcp_dsack_seen; FLAG_DSACK_TLP: one segment, ending
            // at tlp_high_seq.
            let probe = probe_high_seq == Some(end);
            self.rack.on_dsack(probe && end - start <= w.mss);
        }
        let (ranges, n) = delivery_order(w.snd_una, pkt.ack.min(w.snd_max), &blocks);
        for &(start, end, cumulative) in &ranges[..n] {
            let Some(mut i) = w.segs.index_of(start) else {
                continue;
            };
            while let Some(seg) = w.segs.get(i).copied() {
                if seg.end() > end {
                    break;
                }
                i += 1;
                let whole = seg.start >= start;
                let spurious = cumulative
                    && seg.retx_count > 0
                    && acked_for_the_original(echoed, d.ts_clock, seg.last_sent);
                if !whole || seg.sacked {
                    continue;
                }
                if spurious {
                    // tcp_clean_rtx_queue: tcp_rate_skb_delivered for every acknowledged
                    // skb; only tcp_rack_advance waits on !tcp_skb_spurious_retrans.
                    self.rack.on_rate_delivered(&seg);
                    continue;
                }
                self.rack.on_delivered_below_fack(&seg, prior_fack, w.mss);
                self.rack.on_delivered(&seg, now, d.min_rtt);
            }
        }
        self.rack.on_cumulative_ack(pkt.ack);
        // tcp_ack: tcp_rack_update_reo_wnd after tcp_clean_rtx_queue.
        self.rack.update_reo_wnd(now, self.static_reo_wnd);
    }

    /// `tcp_try_undo_partial`: a hole filled by the delayed original is reordering
    /// ([`crate::spurious::linux_undo`]).
    pub fn on_delayed_hole(&mut self, low: u64, fack: Option<u64>, mss: u64) {
        if self.on {
            self.rack.on_delayed_hole(low, fack, mss);
        }
    }

    /// `reo_wnd_persist` at the end of an episode: `tcp_try_undo_recovery` without
    /// undo uses one up; `tcp_try_undo_dsack` adds one. An undo on an ACK carrying a
    /// D-SACK is taken for the D-SACK undo (the driver does not say which test fired).
    pub fn on_ack_settled(&mut self, undone: bool, dsack: bool, episode_ended: bool) {
        if !self.on {
            return;
        }
        if undone && dsack {
            self.rack.on_dsack_undo();
        } else if episode_ended && !undone {
            self.rack.on_recovery_end_without_undo();
        }
    }

    /// `tcp_rack_reo_wnd`'s inputs from the sender's state.
    fn reo_wnd(&self, v: &LossView) -> Dur {
        self.rack.reo_wnd(&ReoWndInputs {
            recovering: v.phase != Phase::Open,
            sacked_out: v.w.segs.sacked_bytes() / v.w.mss,
            no_dupthresh: self.no_dupthresh,
            min_rtt: v.min_rtt,
            srtt: v.srtt,
        })
    }

    /// `tcp_fastretrans_alert`'s RACK part: `tcp_identify_packet_loss` on an ACK the
    /// kernel finds dubious (`tcp_ack_is_dubious`: outside the Open state, or a
    /// duplicate, or SACK information; `flags`), then `tcp_time_to_recover` ("the
    /// loss is proven": lost_out > 0) from the Open state, or from the Loss state when
    /// a retransmission was lost (`FLAG_LOST_RETRANS`). In TCP_CA_Loss the kernel runs
    /// this after `tcp_process_loss`, F-RTO or not.
    pub fn detect_losses(&mut self, v: &LossView, flags: bool) -> LossMarks {
        let dubious = ack_is_dubious(flags, self.before);
        if !self.on || (v.phase == Phase::Open && !dubious) {
            return LossMarks::default();
        }
        let d = self.rack.mark_lost(&v.w.segs, v.now, self.reo_wnd(v));
        // tcp_rack_mark_lost: the reordering timer, rounded up by TCP_TIMEOUT_MIN.
        let reorder_timer = d.wait.map(|wait| v.now + wait + crate::tlp::TIMEOUT_MIN);
        // From the Open state the kernel counts every segment still marked lost, its
        // retransmission in flight or not: on the ACK that ends a fast recovery
        // (tcp_fastretrans_alert D: snd_una reached high_seq, tcp_try_undo_recovery
        // opens the state with SACK, tcp_end_cwnd_reduction sets cwnd = ssthresh),
        // step E's tcp_time_to_recover finds a lost retransmission still out and
        // tcp_enter_recovery starts a new recovery, halving ssthresh again.
        let enter_recovery = match v.phase {
            Phase::Open => self.rack.lost_out() > 0,
            Phase::Loss { .. } => d.lost_retransmissions > 0,
            Phase::Recovery { .. } => false,
        };
        LossMarks {
            reorder_timer,
            enter_recovery,
        }
    }

    /// `tcp_rack_reo_timeout`: the reordering window has passed; whether segments are
    /// now lost.
    pub fn on_reorder_timeout(&mut self, v: &LossView) -> bool {
        let d = self.rack.detect_loss(&v.w.segs, v.now, self.reo_wnd(v));
        d.newly_lost > 0
    }

    /// `tcp_enter_recovery` on RACK's word from the Loss state: the segments the
    /// timeout's go-back-N has not resent yet keep the kernel's lost marks
    /// (`tcp_timeout_mark_lost`) and are retransmitted from the lost list.
    pub fn mark_unsent_lost(&mut self, w: &Window) {
        let nxt = w.snd_nxt;
        for s in w.segs.iter().filter(|s| s.start >= nxt && !s.sacked) {
            self.rack.mark_segment_lost(s.start);
        }
    }

    /// In-flight segments as the kernel counts them (`tcp_packets_in_flight`) with
    /// RACK; `None` without.
    ///
    /// While a timeout's go-back-N resends (snd_nxt below snd_max, the Loss state),
    /// only what lies below snd_nxt counts: `tcp_timeout_mark_lost` marked the rest
    /// lost, and the window's test in the Loss state leaves it out the same way.
    pub fn pipe_segments(&self, w: &Window) -> Option<u64> {
        if !self.on {
            return None;
        }
        if w.snd_nxt < w.snd_max {
            let below = w.snd_nxt - w.snd_una - w.segs.sacked_bytes_below(w.snd_nxt);
            let lost = self.rack.lost_pending_below(w.snd_nxt);
            return Some(crate::rack::in_flight(below.div_ceil(w.mss), lost));
        }
        let unsacked = (w.flight_size() - w.segs.sacked_bytes()).div_ceil(w.mss);
        Some(crate::rack::in_flight(unsacked, self.rack.lost_pending()))
    }

    /// `tcp_xmit_retransmit_queue` then `tcp_write_xmit` in RACK's fast recovery;
    /// `None` without RACK.
    pub fn next_in_recovery(&self, w: &Window, new_fits: bool) -> Option<Option<Transmit>> {
        let pipe = self.pipe_segments(w)?;
        let lost = (self.rack.first_lost()).and_then(|s| w.segs.index_of(s));
        let cwnd = w.cwnd / w.mss;
        Some(match next_transmit(pipe, cwnd, lost.is_some(), new_fits) {
            Some(Next::RetransmitLost) => lost.map(Transmit::Retransmit),
            Some(Next::New) => Some(Transmit::New),
            None => None,
        })
    }

    /// `tcp_enter_loss`: the scoreboard is rebuilt.
    pub fn on_timeout(&mut self) {
        if self.on {
            self.rack.on_timeout();
        }
    }

    /// `tcp_try_undo_loss -> tcp_undo_cwnd_reduction(sk, true)`.
    pub fn on_loss_undo(&mut self) {
        self.rack.on_loss_undo();
    }

    /// A retransmission clears the segment's lost mark.
    pub fn on_retransmit(&mut self, start: u64) {
        self.rack.on_retransmit(start);
    }

    /// The segment starting at `start` is marked lost.
    pub fn is_lost(&self, start: u64) -> bool {
        self.rack.is_lost(start)
    }

    /// `tcp_may_raise_cwnd`: with `tp->reordering` above `sysctl_tcp_reordering`, an
    /// ACK that only SACKs new data (FLAG_FORWARD_PROGRESS) raises cwnd too; else only
    /// one that acknowledges new data (FLAG_DATA_ACKED). Without RACK the model keeps
    /// no reordering degree: the latter.
    pub fn raises_cwnd_on_sack(&self) -> bool {
        self.on && self.rack.reordering_high()
    }

    /// Segments marked lost and not yet retransmitted.
    pub fn lost_pending(&self) -> u64 {
        self.rack.lost_pending()
    }
}

/// The ranges an ACK delivers, `(start, end, cumulative)`, in the order `tcp_ack`
/// hears them: `tcp_sacktag_write_queue` first, its blocks sorted by start sequence
/// ("order SACK blocks to allow in order walk of the retrans queue"), clipped at the
/// new cumulative ACK, then `tcp_clean_rtx_queue`'s cumulatively acknowledged range
/// from `snd_una` to `ack`. The order matters to RACK: `tcp_rack_advance` sets
/// `rack.rtt_us` from every segment it accepts while `rack.mstamp` only moves forward,
/// so RACK.rtt is the last segment's, a cumulatively acknowledged one when the ACK
/// advances snd_una.
fn delivery_order(
    snd_una: u64,
    ack: u64,
    blocks: &[(u64, u64)],
) -> ([(u64, u64, bool); MAX_RANGES], usize) {
    let mut ranges = [(0, 0, false); MAX_RANGES];
    let mut n = 0;
    for &(s, e) in blocks.iter().take(MAX_RANGES - 1) {
        ranges[n] = (s.max(ack), e, false);
        n += 1;
    }
    ranges[..n].sort_unstable_by_key(|r| r.0);
    ranges[n] = (snd_una, ack, true);
    (ranges, n + 1)
}

/// The SACK blocks an ACK carries at most, and its cumulative range.
const MAX_RANGES: usize = MAX_SACK_BLOCKS + 1;

/// What is outstanding as an ACK arrives ([`crate::linux_disorder`]).
fn outstanding(w: &Window, rack: &Rack) -> Outstanding {
    Outstanding {
        sacked: w.segs.sacked_bytes() > 0,
        lost: rack.lost_pending() > 0,
        retransmitted: w.segs.any_ever_retransmitted(),
    }
}

/// `tcp_skb_spurious_retrans`: a cumulatively acknowledged retransmission whose ACK
/// echoes a timestamp (`rcv_tsecr`, not 0) before the retransmission's own
/// (`tcp_skb_timestamp_ts`) was acknowledged for an earlier transmission. The kernel
/// compares the two in the timestamp clock's ticks: a retransmission sent in the tick
/// the ACK echoes is the one acknowledged.
fn acked_for_the_original(ecr: Option<u64>, clock: Option<&TsClock>, last_sent: Time) -> bool {
    match (ecr, clock) {
        (Some(ecr), Some(clock)) if ecr != 0 => ecr < clock.read(last_sent),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::{FlowId, Packet, PacketKind};

    /// T-Mobile UMTS at 793 s (reno): segments 0 and 1 sent at 792 ms, 2 at 835 ms;
    /// the ACK at 1383 ms acknowledges 0 and SACKs 2. The kernel hears the SACK first,
    /// then the cumulative ACK, so RACK.rtt is segment 0's 591 ms and segment 1 waits
    /// for the reordering window (min_rtt / 4): no loss on this ACK (the kernel
    /// retransmitted it on the next SACK). Heard the other way round, RACK.rtt would be
    /// segment 2's 548 ms and segment 1 lost at once.
    #[test]
    fn rack_hears_the_sacked_segments_before_the_cumulatively_acknowledged() {
        let mss = 1448;
        let ms = |v: u64| Time(v * 1_000_000);
        let mut w = Window::new(mss, 100 * mss, u64::MAX, 3);
        for (i, at) in [(0u64, 792), (1, 792), (2, 835), (3, 835)] {
            w.segs.push_new(i * mss, (i + 1) * mss, ms(at));
        }
        w.snd_nxt = 4 * mss;
        w.snd_max = 4 * mss;
        let mut ack = Packet::new(0, FlowId(0), PacketKind::Ack, ms(1383));
        ack.ack = mss;
        ack.push_sack(2 * mss, 3 * mss);
        let mut r = RackDetection {
            on: true,
            ..RackDetection::default()
        };
        r.on_ack_delivered(
            &Delivery {
                now: ms(1383),
                pkt: &ack,
                w: &w,
                min_rtt: Some(Dur::from_millis(98)),
                ts_clock: None,
            },
            None,
        );
        w.segs.on_cumulative_ack(mss);
        w.segs.on_sack_block(2 * mss, 3 * mss);
        let reo_wnd = Dur::from_micros(24_500);
        let d = r.rack.detect_loss(&w.segs, ms(1383), reo_wnd);
        assert_eq!(d.newly_lost, 0);
        assert_eq!(d.wait, Some(reo_wnd));
        // The next ACK SACKs segment 3 (835 ms) too: RACK.rtt 548 ms, segment 1 lost.
        w.snd_una = mss;
        let mut next = ack;
        next.set_sack(&Default::default());
        next.push_sack(2 * mss, 4 * mss);
        let now = ms(1383) + Dur::from_micros(5);
        let min_rtt = Some(Dur::from_millis(98));
        let (pkt, ts_clock) = (&next, None);
        r.on_ack_delivered(
            &Delivery {
                now,
                pkt,
                w: &w,
                min_rtt,
                ts_clock,
            },
            None,
        );
        w.segs.on_sack_block(2 * mss, 4 * mss);
        assert_eq!(r.rack.detect_loss(&w.segs, now, reo_wnd).newly_lost, 1);
    }

    /// The delay-injection path at 1.032 s: a D-SACK (1.011 s) is pending, and the next
    /// ACK acknowledges only a retransmission whose original arrived (its echo
    /// predates the resend). `tcp_clean_rtx_queue` still gives the rate sample its
    /// `prior_delivered` (`tcp_rate_skb_delivered`), so `tcp_rack_update_reo_wnd`
    /// widens the window a step; only `tcp_rack_advance` skips the segment.
    #[test]
    fn a_spurious_retransmission_acknowledged_still_lets_a_dsack_widen_the_window() {
        let mss = 500;
        let ms = |v: u64| Time(v * 1_000_000);
        let clock = TsClock::new(Dur::from_millis(1));
        let mut w = Window::new(mss, 100 * mss, u64::MAX, 3);
        for i in 0..4u64 {
            w.segs.push_new(i * mss, (i + 1) * mss, ms(900));
        }
        w.segs.get_mut(0).unwrap().retx_count = 1;
        w.segs.get_mut(0).unwrap().last_sent = ms(1004);
        (w.snd_nxt, w.snd_max) = (4 * mss, 4 * mss);
        let mut r = RackDetection {
            on: true,
            ..RackDetection::default()
        };
        r.rack.on_delayed_hole(0, Some(3 * mss), mss); // reordering seen
        r.rack.on_dsack(false);
        let mut ack = Packet::new(0, FlowId(0), PacketKind::Ack, ms(1032));
        ack.ack = mss;
        ack.set_ts(Some(spikelab_core::Timestamps {
            val: 1,
            ecr: clock.read(ms(900)),
        }));
        let d = Delivery {
            now: ms(1032),
            pkt: &ack,
            w: &w,
            min_rtt: Some(Dur::from_millis(66)),
            ts_clock: Some(&clock),
        };
        r.on_ack_delivered(&d, None);
        assert_eq!(r.rack.reo_wnd_steps(), 2);
    }

    /// AT&T LTE BBR at 34 s (`tcp_frto` 0): after the timeout at 4.192 s, 105
    /// segments outstanding and unSACKed, the head resent. `tcp_timeout_mark_lost`
    /// marked them lost, so `tcp_packets_in_flight` is the one resent segment, and
    /// BBR's packet conservation (`max(cwnd, in_flight + acked)`) let the next ACK send
    /// one more; counted whole, the 105 let it resend a hundred at once.
    #[test]
    fn in_a_timeouts_go_back_n_only_what_was_resent_is_in_flight() {
        let mss = 1000;
        let mut w = Window::new(mss, mss, u64::MAX, 3);
        for i in 0..10u64 {
            w.segs.push_new(i * mss, (i + 1) * mss, Time(i));
        }
        w.segs.on_sack_block(7 * mss, 8 * mss);
        (w.snd_nxt, w.snd_max) = (10 * mss, 10 * mss);
        let r = RackDetection {
            on: true,
            ..RackDetection::default()
        };
        assert_eq!(
            r.pipe_segments(&w),
            Some(9),
            "nine unSACKed before the timeout"
        );
        w.snd_nxt = mss; // the head resent
        assert_eq!(r.pipe_segments(&w), Some(1));
        w.snd_nxt = 9 * mss; // resent up to 8, the SACKed 7 skipped
        assert_eq!(r.pipe_segments(&w), Some(8));
    }

    #[test]
    fn cwnd_grows_on_sacks_only_above_the_initial_reordering_degree() {
        let mut r = RackDetection {
            on: true,
            ..RackDetection::default()
        };
        assert!(!r.raises_cwnd_on_sack());
        r.rack.on_delayed_hole(0, Some(3000), 1000); // reordering 3: not above
        assert!(!r.raises_cwnd_on_sack());
        r.rack.on_delayed_hole(0, Some(4000), 1000);
        assert!(r.raises_cwnd_on_sack());
        r.on = false;
        assert!(!r.raises_cwnd_on_sack());
    }

    #[test]
    fn sack_blocks_are_heard_in_sequence_order_then_the_cumulative_range() {
        let (ranges, n) = delivery_order(10, 20, &[(50, 60), (30, 40), (15, 25)]);
        let want = [
            (20, 25, false),
            (30, 40, false),
            (50, 60, false),
            (10, 20, true),
        ];
        assert_eq!(ranges[..n], want);
    }

    #[test]
    fn a_retransmission_is_acknowledged_for_itself_unless_the_echo_is_from_an_earlier_tick() {
        let clock = TsClock::new(Dur::from_millis(1));
        // Resent 10 us into the 30888th millisecond (reading 30889: the clock reads 1
        // at time zero): an echo of that reading is its own (delivery trace, seed 7:
        // the kernel's RACK advances on it and marks the 56-byte cut sent 5 ms earlier
        // lost).
        let resent = Time(30_888_010_000);
        assert_eq!(clock.read(resent), 30_889);
        assert!(!acked_for_the_original(Some(30_889), Some(&clock), resent));
        assert!(acked_for_the_original(Some(30_888), Some(&clock), resent));
        assert!(
            !acked_for_the_original(Some(0), Some(&clock), resent),
            "no echo"
        );
        assert!(!acked_for_the_original(None, Some(&clock), resent));
        assert!(
            !acked_for_the_original(Some(30_887), None, resent),
            "no timestamps"
        );
    }
}
