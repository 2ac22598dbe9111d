//! The Linux 6.x host of the `linux` profile ([`crate::linux_profile`]) at the
//! sender's extension points ([`StackRules`]): RTT samples from the retransmission
//! queue, timers on the kernel's wheel, cwnd growth only while cwnd-limited, PRR in
//! fast recovery, the SACK rule for counting duplicate ACKs, and a timeout inside
//! fast recovery keeping the recovery's reduction, RACK's loss detection
//! ([`rack_detection`]) and Tail Loss Probes ([`tail_probe`]) with their timers, and
//! the TSO deferral of a new skb short of a full one ([`tso_defer`]).

pub mod profile;
pub mod rack_detection;
pub mod send_queue;
pub mod tail_probe;
pub mod tso_autosize;
pub mod tso_defer;
pub mod window_edge;

use super::{
    Delivery, LossMarks, LossView, PacingInputs, SackMarks, SkbSend, SkbStart, StackRules,
    TimerKind,
};
use crate::config::TcpConfig;
use crate::dsack::split_dsack;
use crate::linux_cwnd_limited::CwndUsage;
use crate::linux_dsack::DsackDups;
use crate::prr::Prr;
use crate::recovery::Transmit;
use crate::segments::SegmentTable;
use crate::tlp::{Probe, ProbeAck};
use crate::window::Window;
use rack_detection::RackDetection;
use send_queue::SendQueue;
use spikelab_core::{Dur, Packet, Time};
use std::ops::Range;

use tail_probe::TailProbe;
use tso_autosize::TsoAutosize;
use window_edge::Minshall;

/// A Linux 6.x host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxHost {
    /// What the sender's timer is armed for (`icsk_pending`).
    timer: TimerKind,
    /// RACK ([`rack_detection`]).
    rack: RackDetection,
    /// Tail Loss Probes ([`tail_probe`]).
    tlp: TailProbe,
    /// Whether cwnd limited the last window (`tcp_is_cwnd_limited`,
    /// [`crate::linux_cwnd_limited`]), for the controller's growth.
    cwnd_usage: CwndUsage,
    /// The fast-recovery window (`tcp_cwnd_reduction`, [`crate::prr`]).
    prr: Prr,
    /// The last small segment sent, for Nagle's check ([`window_edge`]).
    minshall: Minshall,
    /// The skb size the pacing rate gives ([`tso_autosize`]).
    autosize: TsoAutosize,
    /// `tp->dsack_dups` ([`crate::linux_dsack`]).
    dsack_dups: DsackDups,
    /// The skbs `tcp_sendmsg_locked` built ([`send_queue`]).
    queue: SendQueue,
}

impl LinuxHost {
    pub fn new(cfg: &TcpConfig) -> LinuxHost {
        LinuxHost {
            rack: RackDetection::new(cfg),
            tlp: TailProbe::new(cfg),
            ..LinuxHost::default()
        }
    }

    /// RACK's part ([`rack_detection`]).
    pub fn rack(&self) -> &RackDetection {
        &self.rack
    }
}

/// The SACK blocks the Linux receiver puts on an ACK at most: `tcp_established_options`
/// (net/ipv4/tcp_output.c) sends `min(eff_sacks, (MAX_TCP_OPTION_SPACE - size -
/// TCPOLEN_SACK_BASE_ALIGNED) / TCPOLEN_SACK_PERBLOCK)` blocks of the D-SACK block and
/// the `TCP_NUM_SACKS` (4, include/net/tcp.h) it remembers, `size` being the 12 aligned
/// bytes of the timestamps option when the connection uses it: 3 with timestamps, 4
/// without ([`spikelab_core::packet::sack_blocks_that_fit`]). No `max_sack_blocks` of
/// its own: the kernel has no such setting.
pub fn sack_blocks_per_ack(timestamps: bool) -> usize {
    spikelab_core::packet::sack_blocks_that_fit(timestamps).min(crate::linux_sack_array::NUM_SACKS)
}

impl StackRules for LinuxHost {
    /// With SACK only ACKs that SACK new data count toward fast recovery
    /// (`tcp_time_to_recover` compares the SACKed segments with the reordering
    /// degree; RFC 6675's DupAck likewise): a D-SACK alone, such as the report of a
    /// timeout's duplicate retransmission, starts nothing.
    #[inline]
    fn counts_toward_recovery(&self, sack: bool, newly_sacked: u64) -> bool {
        !sack || newly_sacked > 0
    }

    /// `tcp_enter_loss`: "Reduce ssthresh if it has not yet been made inside this
    /// window".
    fn timeout_keeps_recovery_reduction(&self) -> bool {
        true
    }

    /// `tcp_retransmit_timer -> tcp_enter_loss -> tcp_timeout_mark_lost`: SACKed
    /// segments stay SACKed (only the unSACKed ones are marked lost); only when the head
    /// is SACKed, the receiver reneging (`is_reneg`, `TCPSACKReneging`), are all the
    /// marks cleared (`sacked_out = 0`, `~TCPCB_SACKED_ACKED` on every segment).
    fn sack_marks_at_timeout(&self, head_sacked: bool) -> SackMarks {
        if head_sacked {
            SackMarks::Clear
        } else {
            SackMarks::Keep
        }
    }

    /// `tcp_xmit_retransmit_queue` / `tcp_write_xmit` send while `tcp_packets_in_flight`
    /// (`packets_out - (sacked_out + lost_out) + retrans_out`) is below cwnd: after
    /// `tcp_timeout_mark_lost` a SACKed segment is neither in flight nor resent.
    #[inline]
    fn sacked_outside_window_in_loss(&self) -> bool {
        true
    }

    /// `tcp_write_xmit -> tcp_cwnd_test`: new data goes out while
    /// `tcp_packets_in_flight` (`packets_out - (sacked_out + lost_out) + retrans_out`)
    /// is below cwnd, in the Open and Disorder states as in any other: with SACK the
    /// SACKed segments take no room ([`open_window_beyond_cwnd`]).
    #[inline]
    fn open_window_beyond_cwnd(&self, limited: u64, sacked_below: u64, sack: bool) -> u64 {
        open_window_beyond_cwnd(limited, sacked_below, sack)
    }

    /// `tcp_cong_control -> tcp_may_raise_cwnd` ([`RackDetection::raises_cwnd_on_sack`]).
    #[inline]
    fn raises_cwnd_on_sack(&self) -> bool {
        self.rack.raises_cwnd_on_sack()
    }

    /// `tcp_xmit_retransmit_queue`: "if (skb == rtx_head && icsk->icsk_pending !=
    /// ICSK_TIME_REO_TIMEOUT) tcp_reset_xmit_timer(sk, ICSK_TIME_RETRANS, ...)": the
    /// retransmission of the head restarts the RTO from its own send time.
    fn restarts_timer_on_head_retransmit(&self) -> bool {
        true
    }

    /// `tcp_clean_rtx_queue` / `tcp_ack_update_rtt` ([`crate::linux_rtt`]).
    #[inline]
    fn rtt_sample(
        &self,
        segs: &SegmentTable,
        ack: u64,
        now: Time,
        ts: Option<Dur>,
    ) -> Option<Option<Dur>> {
        Some(crate::linux_rtt::rtt_sample(segs, ack, now, ts))
    }

    /// `ca_rtt_us` ([`crate::linux_rtt::ca_rtt_sample`]).
    #[inline]
    fn cc_rtt_sample(&self, segs: &SegmentTable, ack: u64, now: Time) -> Option<Dur> {
        crate::linux_rtt::ca_rtt_sample(segs, ack, now)
    }

    /// `ca_rtt_us` from `last_sackt` ([`crate::linux_rtt::sack_ca_rtt_sample`]).
    #[inline]
    fn cc_sack_rtt_sample(
        &self,
        segs: &SegmentTable,
        blocks: &[(u64, u64)],
        ack: u64,
        now: Time,
    ) -> Option<Dur> {
        crate::linux_rtt::sack_ca_rtt_sample(segs, blocks, ack, now)
    }

    /// `sack_rtt_us` from `first_sackt` ([`crate::linux_rtt::sack_rtt_sample`]).
    #[inline]
    fn rto_sack_rtt_sample(
        &self,
        segs: &SegmentTable,
        blocks: &[(u64, u64)],
        ack: u64,
        now: Time,
    ) -> Option<Dur> {
        crate::linux_rtt::sack_rtt_sample(segs, blocks, ack, now)
    }

    /// `tcp_pacing_delay` (include/net/tcp.h): how far the pacing clock
    /// (`tcp_wstamp_ns`) is ahead of now, in whole jiffies (`nsecs_to_jiffies`
    /// truncates), which `tcp_reset_xmit_timer` adds to the loss probe
    /// (`tcp_schedule_loss_probe`) and to the RTO re-armed by `tcp_rearm_rto` and
    /// `tcp_xmit_retransmit_queue` (`pace_delay` true), not to the backed-off RTO
    /// `tcp_retransmit_timer` re-arms (`inet_csk_reset_xmit_timer`). A timer armed
    /// between two paced sends thus fires after the next one, which re-arms it.
    #[inline]
    fn pacing_delay(&self, now: Time, wstamp: Time) -> Dur {
        let ahead = wstamp.saturating_since(now).0;
        let jiffy = crate::linux_timer_wheel::JIFFY.0;
        Dur(ahead / jiffy * jiffy)
    }

    /// The kernel's timer wheel ([`crate::linux_timer_wheel`]).
    #[inline]
    fn timer_fires_at(&self, now: Time, at: Time) -> Time {
        crate::linux_timer_wheel::fires_at(now, at - now)
    }

    /// `tcp_cwnd_validate` after each `tcp_write_xmit` ([`crate::linux_cwnd_limited`]).
    #[inline]
    fn tracks_cwnd_use(&self) -> bool {
        true
    }

    /// `tcp_cwnd_validate(sk, is_cwnd_limited)`.
    fn on_write_xmit(&mut self, snd_una: u64, snd_max: u64, packets_out: u64, limited: bool) {
        (self.cwnd_usage).on_write_xmit(snd_una, snd_max, packets_out, limited);
    }

    /// `tcp_mss_split_point`: the cut at the window's edge keeps its sub-MSS
    /// remainder unless Nagle's check (Minshall's variant) holds it ([`window_edge`]).
    fn cuts_at_window_edge(&self, snd_una: u64, snd_max: u64) -> bool {
        self.minshall.sends_partial(snd_una, snd_max)
    }

    /// `tcp_tso_segs` for reno and cubic: `tcp_tso_autosize` of the pacing rate the
    /// last ACK's congestion control set ([`tso_autosize`]), PSH on each skb's last
    /// segment ([`crate::unpaced_skb`]).
    #[inline]
    fn unpaced_skb_segments(&self) -> u64 {
        self.autosize.segs()
    }

    /// `tcp_update_pacing_rate` ([`tso_autosize`]).
    fn on_cong_control(&mut self, v: &PacingInputs) {
        self.autosize.on_cong_control(v);
    }

    /// PSH on the last segment of each skb of two or more (`__tcp_transmit_skb`:
    /// "Force a PSH flag on all (GSO) packets"), set by the sender and the pacer.
    fn marks_push(&self) -> bool {
        true
    }

    /// `tcp_tso_should_defer` ([`tso_defer`]).
    #[inline]
    fn tso_defer(&self, v: &SkbStart) -> SkbSend {
        tso_defer::decide(v)
    }

    /// `tcp_sendmsg_locked`'s skbs from where the write's sends stopped, and its PSH
    /// marks ([`send_queue`]).
    fn on_write_pushed(
        &mut self,
        snd_max: u64,
        max_window: u64,
        mss: u64,
        write: Range<u64>,
        first_skb: u64,
    ) {
        self.queue = SendQueue::new(snd_max, max_window, mss, write, first_skb);
    }

    /// The head skb's PSH mark as `tcp_grow_skb` and `tso_fragment` move it
    /// ([`send_queue`]).
    #[inline]
    fn on_new_data_sent(&mut self, start: u64, end: u64, app_end: u64, quota: Option<u64>) -> bool {
        self.queue.on_new_data_sent(start, end, app_end, quota)
    }

    /// `tcp_write_xmit`'s head after `tcp_grow_skb` ([`send_queue`]).
    #[inline]
    fn send_head(&self, snd_nxt: u64, app_end: u64, quota: u64) -> (u64, bool) {
        self.queue.head(snd_nxt, app_end, quota)
    }

    /// `tcp_minshall_update`.
    fn on_small_segment_sent(&mut self, end: u64) {
        self.minshall.on_small_sent(end);
    }

    /// `tcp_is_cwnd_limited`'s record.
    #[inline]
    fn cwnd_usage(&self) -> CwndUsage {
        self.cwnd_usage
    }

    /// `tcp_cwnd_reduction` ([`crate::prr`]).
    #[inline]
    fn prr_in_recovery(&self) -> bool {
        true
    }

    /// `tcp_init_cwnd_reduction`: PRR starts from prior_cwnd; `tlp_high_seq = 0`.
    fn on_enter_recovery(
        &mut self,
        cwnd: u64,
        _rwnd: u64,
        mss: u64,
        _dupthresh: u64,
    ) -> Option<u64> {
        self.tlp.forget();
        self.prr = Prr::start(cwnd / mss);
        None
    }

    /// `prr_out`.
    fn on_recovery_send(&mut self) {
        self.prr.on_sent();
    }

    /// `tcp_cwnd_reduction`: cwnd = pipe + sndcnt.
    fn prr_cwnd(
        &mut self,
        ssthresh: u64,
        pipe: u64,
        newly: u64,
        una_advanced: bool,
    ) -> Option<u64> {
        self.prr.on_ack(ssthresh, pipe, newly, una_advanced)
    }

    /// `tcp_enter_loss`: `tlp_high_seq = 0`; RACK's scoreboard is rebuilt.
    fn on_timeout(&mut self, _cwnd: u64, _rwnd: u64, _ssthresh: u64, _mss: u64) {
        self.tlp.forget();
        self.rack.on_timeout();
    }

    /// `icsk_pending`.
    #[inline]
    fn on_timer_set(&mut self, kind: TimerKind) {
        self.timer = kind;
    }

    #[inline]
    fn timer_kind(&self) -> TimerKind {
        self.timer
    }

    /// `tcp_ack` calls `tcp_fastretrans_alert`, which ends fast recovery at `high_seq`
    /// (`tcp_try_undo_recovery` -> `TCP_CA_Open`, `tcp_end_cwnd_reduction`), before
    /// `tcp_cong_control`, which outside a cwnd reduction raises cwnd for the ACK's
    /// `acked_sacked` (`tcp_may_raise_cwnd`: FLAG_DATA_ACKED; `tcp_cong_avoid`): CUBIC's
    /// epoch starts on the ACK ending recovery, not on the next one.
    fn grows_on_recovery_exit(&self) -> bool {
        true
    }

    /// `tcp_ack` calls `tcp_fastretrans_alert`, whose `tcp_process_loss` undoes a
    /// spurious timeout (`tcp_try_undo_loss -> tcp_undo_cwnd_reduction`: cwnd =
    /// `undo_cwnd`, max(cwnd, prior_cwnd), and the Open state), before
    /// `tcp_cong_control`, which then raises the restored cwnd (`tcp_may_raise_cwnd`:
    /// FLAG_DATA_ACKED; `tcp_cong_avoid`).
    fn grows_after_loss_undo(&self) -> bool {
        true
    }

    /// `tcp_rearm_rto` with a probe pending outside the Open state.
    fn rearms_rto_from_head(&self, open: bool) -> bool {
        self.timer == TimerKind::LossProbe && !open
    }

    /// `tcp_schedule_loss_probe`'s conditions: probes on, TCP_CA_Open and data
    /// outstanding. SACKed or lost segments outstanding make the kernel's state
    /// TCP_CA_Disorder (`tcp_try_keep_open`), where no probe is scheduled.
    #[inline]
    fn may_probe(&self, open: bool, w: &Window) -> bool {
        let disorder = || w.segs.sacked_bytes() > 0 || self.rack.lost_pending() > 0;
        self.tlp.on() && open && w.snd_una < w.snd_max && !disorder()
    }

    /// `tcp_send_loss_probe`.
    fn choose_probe(&mut self, new_data_fits: bool) -> Probe {
        self.timer = TimerKind::Rto;
        self.tlp.choose(new_data_fits)
    }

    fn on_probe_sent(&mut self, snd_max: u64, retransmitted: bool) {
        self.tlp.on_sent(snd_max, retransmitted);
    }

    /// `tcp_process_tlp_ack`.
    #[inline]
    fn on_probe_ack(&mut self, pkt: &Packet, newly_acked: u64, newly_sacked: u64) -> ProbeAck {
        self.tlp.on_ack(pkt, newly_acked, newly_sacked)
    }

    #[inline]
    fn on_ack_delivered(&mut self, d: &Delivery) {
        self.rack.on_ack_delivered(d, self.tlp.high_seq());
    }

    /// tcp_sacktag_write_queue -> tcp_check_dsack -> tcp_dsack_seen: `sack_delivered
    /// += dup_segs` ([`crate::linux_dsack`]).
    #[inline]
    fn dsack_delivered(&mut self, pkt: &Packet, mss: u64, total_retrans: u64) -> u64 {
        let dsack = split_dsack(pkt).0;
        dsack.map_or(0, |b| {
            u64::from(self.dsack_dups.seen(b, mss, total_retrans))
        })
    }

    fn on_delayed_hole(&mut self, low: u64, fack: Option<u64>, mss: u64) {
        self.rack.on_delayed_hole(low, fack, mss);
    }

    #[inline]
    fn on_ack_settled(&mut self, undone: bool, dsack: bool, episode_ended: bool) {
        self.rack.on_ack_settled(undone, dsack, episode_ended);
    }

    /// RACK, not DupThresh, marks segments lost (RFC 8985 6.2).
    #[inline]
    fn detect_losses(&mut self, v: &LossView, flags: bool) -> LossMarks {
        self.rack.detect_losses(v, flags)
    }

    /// `tcp_rack_reo_timeout`.
    fn on_reorder_timeout(&mut self, v: &LossView) -> bool {
        self.timer = TimerKind::Rto;
        self.rack.on_reorder_timeout(v)
    }

    /// `TCPCB_LOST` (`tcp_enter_recovery`'s `tcp_init_undo` counts the
    /// retransmissions not marked lost).
    fn marked_lost(&self, start: u64) -> bool {
        self.rack.is_lost(start)
    }

    /// RACK's marks: pending, and ever made (`tp->lost`).
    fn lost_counts(&self) -> (u64, u64) {
        (self.rack.lost_pending(), self.rack.rack().marked())
    }

    fn mark_unsent_lost(&mut self, w: &Window) {
        self.rack.mark_unsent_lost(w);
    }

    /// `tcp_packets_in_flight` with RACK.
    #[inline]
    fn pipe_segments(&self, w: &Window) -> u64 {
        (self.rack.pipe_segments(w)).unwrap_or_else(|| w.pipe() / w.mss)
    }

    #[inline]
    fn next_in_recovery(&self, w: &Window, new_fits: bool) -> Option<Option<Transmit>> {
        self.rack.next_in_recovery(w, new_fits)
    }

    /// RFC 8985: with RACK, RACK and not DupThresh starts recovery
    /// ([`Self::detect_losses`]).
    #[inline]
    fn duplicate_acks_start_recovery(&self) -> bool {
        !self.rack.on()
    }

    #[inline]
    fn on_retransmit(&mut self, start: u64) {
        self.rack.on_retransmit(start);
    }

    /// `tcp_try_undo_loss -> tcp_undo_cwnd_reduction(sk, true)`.
    fn on_undo_in_loss(&mut self) {
        self.rack.on_loss_undo();
    }
}

/// `tcp_cwnd_test` (net/ipv4/tcp_output.c) outside recovery and the Loss state: the
/// kernel has no Limited Transmit of its own; `tcp_packets_in_flight` leaves out the
/// SACKed segments (`sacked_out`, `tcp_sacktag_one`), so with SACK the window from
/// snd_una stretches by the SACKed bytes below the segment to send, however many
/// duplicate ACKs brought them (RFC 3042 stops at two). Without SACK `sacked_out`
/// counts duplicate ACKs (`tcp_add_reno_sack`); the model keeps Limited Transmit
/// there.
pub fn open_window_beyond_cwnd(limited: u64, sacked_below: u64, sack: bool) -> u64 {
    if sack {
        sacked_below
    } else {
        limited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The delay-injection path at 0.7259 s: three segments SACKed on three duplicate
    /// ACKs; Limited Transmit's two would hold the fourth new segment the kernel sent.
    #[test]
    fn with_sack_the_sacked_bytes_not_limited_transmit_stretch_the_window() {
        assert_eq!(open_window_beyond_cwnd(1000, 1500, true), 1500);
        assert_eq!(open_window_beyond_cwnd(0, 0, true), 0);
        assert_eq!(open_window_beyond_cwnd(1000, 0, false), 1000);
    }

    #[test]
    fn a_window_that_filled_cwnd_is_kept_for_the_controller() {
        let mut h = LinuxHost::default();
        assert!(!h.cwnd_usage().allows_growth(10, 5));
        h.on_write_xmit(0, 10_000, 10, true);
        assert!(h.cwnd_usage().allows_growth(10, 5));
    }

    #[test]
    fn a_timeout_keeps_the_sack_marks_unless_the_receiver_reneged() {
        let h = LinuxHost::default();
        assert_eq!(h.sack_marks_at_timeout(false), SackMarks::Keep);
        assert_eq!(h.sack_marks_at_timeout(true), SackMarks::Clear);
        assert!(h.sacked_outside_window_in_loss());
    }

    #[test]
    fn with_sack_only_an_ack_sacking_new_data_counts() {
        assert!(!LinuxHost::default().counts_toward_recovery(true, 0));
        assert!(LinuxHost::default().counts_toward_recovery(true, 1000));
        assert!(LinuxHost::default().counts_toward_recovery(false, 0));
    }
}
