//! The stacks: what turns the RFC sender into ns-2's 2002 agents or a Linux 6.x host.
//!
//! The sender ([`crate::TcpSender`]) follows RFC 5681, 6675 and 6298; wherever a stack
//! departs from them it asks its [`Stack`] through a named extension point of
//! [`StackRules`], whose default body is the RFC's answer. A stack overrides the
//! points it departs at, in its own module, readable alone:
//!
//! * [`Rfc`]: no departure (every default).
//! * [`ns2_2002::Ns2Agents`]: ns-2.35's one-way agents as they ran in 2002
//!   ([`crate::Ns2Switches`], each switch read here and nowhere in the sender).
//! * [`linux::LinuxHost`]: the Linux 6.x host of the `linux` profile.
//!
//! Dispatch is static ([`spikelab_core::dispatch_enum!`]): the per-ACK points are
//! inlined `match`es.

pub mod linux;
pub mod ns2_2002;

use crate::cc::CcKind;
use crate::config::TcpConfig;
use crate::linux_cwnd_limited::CwndUsage;
use crate::phase::Phase;
use crate::recovery::ns2_fack::Ns2FackRules;
use crate::recovery::{PipeRule, RecoveryParams, Transmit};
use crate::segments::SegmentTable;
use crate::tlp::{Probe, ProbeAck, ProbeSchedule};
use crate::ts_clock::TsClock;
use crate::window::Window;
pub use linux::tso_autosize::PacingInputs;
use spikelab_core::{Dur, Packet, Time};
use std::ops::Range;

/// What ns-2 FACK's `oldack()` does on an ACK it handles (see
/// [`StackRules::oldack`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OldAck {
    /// `newtimer()` restarts the timer while data is outstanding.
    pub restarts_timer: bool,
    /// `rtt_update()` takes the echoed timestamp as a sample.
    pub samples_rtt: bool,
    /// Without timestamps, the sample comes from the header's echo.
    pub from_header_echo: bool,
}

/// An arriving ACK as the stacks see it, before it is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckArrival {
    /// The sender is in fast recovery.
    pub recovering: bool,
    /// The ACK carries SACK blocks.
    pub has_sack: bool,
    pub ack: u64,
    pub snd_una: u64,
}

/// What the sender's one timer is armed for: the retransmission timeout (RFC 6298), or
/// a timer of the stack's own whose expiry is no timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimerKind {
    /// The RTO (or nothing armed).
    #[default]
    Rto,
    /// A Tail Loss Probe (RFC 8985 7.2, `ICSK_TIME_LOSS_PROBE`).
    LossProbe,
    /// RACK's reordering timer (RFC 8985 6.3, `ICSK_TIME_REO_TIMEOUT`).
    Reorder,
}

/// The sender's state as a stack's loss detection reads it.
#[derive(Clone, Copy, Debug)]
pub struct LossView<'a> {
    pub now: Time,
    pub w: &'a Window,
    pub phase: Phase,
    pub min_rtt: Option<Dur>,
    pub srtt: Option<Dur>,
}

/// An ACK about to be applied, as a stack's loss detection hears what it delivers.
#[derive(Clone, Copy, Debug)]
pub struct Delivery<'a> {
    pub now: Time,
    pub pkt: &'a Packet,
    /// The window before the ACK is applied.
    pub w: &'a Window,
    pub min_rtt: Option<Dur>,
    /// The timestamp clock, when the flow uses timestamps.
    pub ts_clock: Option<&'a TsClock>,
}

/// What a stack's loss detection decided on an ACK ([`StackRules::detect_losses`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossMarks {
    /// Arm the stack's reordering timer ([`TimerKind::Reorder`]) for this instant.
    pub reorder_timer: Option<Time>,
    /// Segments are marked lost: fast recovery begins now.
    pub enter_recovery: bool,
}

/// The sender about to start an skb of new data outside recovery, as a stack's TSO
/// deferral reads it ([`StackRules::tso_defer`]; Linux's `tcp_tso_should_defer`
/// inputs). Windows in bytes, flights in segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkbStart {
    pub now: Time,
    /// Below the Recovery state (Open, Disorder or CWR: the model's Open phase).
    pub below_recovery: bool,
    /// The departure time of the last transmission (`tcp_wstamp_ns`): the last
    /// segment sent, or the pacing clock of a paced sender.
    pub wstamp: Time,
    pub mss: u64,
    pub cwnd: u64,
    /// `tcp_packets_in_flight`.
    pub in_flight: u64,
    /// From snd_nxt to the receive window's right edge (`tcp_wnd_end - seq`).
    pub send_win: u64,
    /// The receive window (`snd_wnd`).
    pub snd_wnd: u64,
    /// Segments an skb may hold (`tcp_tso_segs`).
    pub max_segs: u64,
    /// The head skb's bytes (`skb->len`, after `tcp_grow_skb`; Linux:
    /// [`StackRules::send_head`]).
    pub head_len: u64,
    /// Whether the head skb is the send queue's last (`tcp_write_queue_tail`).
    pub head_is_tail: bool,
    /// When the oldest unacknowledged segment was last sent (the retransmission
    /// queue's head), if any is.
    pub head_sent: Option<Time>,
    pub srtt: Option<Dur>,
}

/// Which window a deferred skb waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredBy {
    /// cwnd (`is_cwnd_limited`, which the window's validation then reads).
    Cwnd,
    /// The receive window (`is_rwnd_limited`).
    Rwnd,
}

/// Whether an skb of new data goes out now ([`StackRules::tso_defer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkbSend {
    SendNow,
    /// The skb waits for the sender's next send pass (the next ACK).
    Defer(DeferredBy),
}

/// What a timeout does to the SACK scoreboard ([`StackRules::sack_marks_at_timeout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackMarks {
    /// Every mark is cleared: the SACKed segments are resent with the rest (RFC 2018
    /// section 8, RFC 6675 section 5.1).
    Clear,
    /// The SACKed segments stay SACKed: go-back-N skips them and they take no room in
    /// the window.
    Keep,
}

/// The extension points of the RFC sender. Each default is the RFC's behaviour; the
/// doc line says where the sender asks.
pub trait StackRules {
    /// At connection start: the initial ssthresh from the configured one and the
    /// receiver window (RFC 5681: the configured one).
    fn initial_ssthresh(&self, configured: u64, _rwnd: u64) -> u64 {
        configured
    }
    /// At connection start: the loss-recovery algorithm's parameters and ns-2 FACK's
    /// rules (RFC: the pipe rule only, no ns-2 rules).
    fn recovery_params(&self, pipe: PipeRule) -> (RecoveryParams, Ns2FackRules) {
        let p = RecoveryParams {
            pipe,
            ns2_newreno: false,
            ns2_sack1_next_retran: false,
        };
        (p, Ns2FackRules::default())
    }
    /// On every ACK, before it is applied: the stack notes it, and says whether ns-2
    /// FACK's `oldack()` handles it (RFC: no ACK is handled apart).
    fn on_ack_arrival(&mut self, _a: &AckArrival) -> bool {
        false
    }
    /// For the ACK being handled: it neither opens cwnd nor sends (RFC: every ACK may).
    fn holds_ack(&self) -> bool {
        false
    }
    /// For the ACK being handled: fast recovery goes on although the ACK reaches the
    /// recovery point (RFC 6675/6582: recovery ends there).
    fn holds_recovery_exit(&self) -> bool {
        false
    }
    /// For the ACK being handled: a fast recovery [`Self::holds_recovery_exit`] kept
    /// open ends, the ACK being at or beyond the recovery point (RFC: never held).
    fn ends_held_recovery(&self) -> bool {
        false
    }
    /// For an ACK [`Self::takes_oldack`] picked: what `oldack()` does.
    fn oldack(&self) -> OldAck {
        OldAck::default()
    }
    /// On a duplicate ACK: whether it may count toward fast recovery, given whether
    /// the flow uses SACK and the bytes it newly SACKed (RFC 5681: every one).
    fn counts_toward_recovery(&self, _sack: bool, _newly_sacked: u64) -> bool {
        true
    }
    /// Outside recovery: duplicate ACKs follow ns-2 Sack1's counting rules (RFC: no).
    fn sack1_dupack_rules(&self) -> bool {
        false
    }
    /// At the ACK ending a fast recovery: cwnd also grows once (RFC: no).
    fn grows_on_recovery_exit(&self) -> bool {
        false
    }
    /// On an ACK that undoes a timeout's Loss state (a spurious-timeout verdict): the
    /// controller grows the restored cwnd for what the ACK delivered, instead of growing
    /// the Loss state's cwnd before the undo replaces it (RFC 4015 and RFC 5682 restore
    /// as the response's last step: growth first).
    fn grows_after_loss_undo(&self) -> bool {
        false
    }
    /// In fast recovery: ns-2 Reno's `send_much()` from snd_nxt within the inflated
    /// window, with cwnd at halfwin (RFC: the recovery algorithm decides).
    fn recovery_from_snd_nxt(&self) -> bool {
        false
    }
    /// On a duplicate ACK after a timeout: fast retransmit ignores the careful rule's
    /// recovery point (RFC 6582 4.1: no).
    fn fast_retransmit_ignores_recover(&self) -> bool {
        false
    }
    /// At a fast retransmit: the timer restarts (RFC 6298: no).
    fn restarts_timer_on_fast_retransmit(&self) -> bool {
        false
    }
    /// In fast recovery: a retransmission of the segment at snd_una restarts the
    /// retransmission timer, unless the stack's reordering timer is armed (RFC 6298
    /// (5.1): a running timer is left alone).
    fn restarts_timer_on_head_retransmit(&self) -> bool {
        false
    }
    /// At a fast retransmit: the careful rule's recovery point moves to snd_max (RFC
    /// 6582: only timeouts set it).
    fn careful_after_fast_retransmit(&self) -> bool {
        false
    }
    /// At a timeout in fast recovery: the inflation goes before ssthresh is halved
    /// (RFC: cwnd as it is).
    fn timeout_drops_inflation(&self, _recovering: bool) -> bool {
        false
    }
    /// At a timeout: F-RTO may not start (RFC 5682: it may).
    fn bars_frto(&self, _recovering: bool) -> bool {
        false
    }
    /// At a timeout in fast recovery not yet past its recovery point: the recovery's
    /// reduction stands for the timeout too (RFC 5681: a timeout reduces afresh).
    fn timeout_keeps_recovery_reduction(&self) -> bool {
        false
    }
    /// At a timeout: whether the SACK marks survive it, `head_sacked` telling whether
    /// the segment at snd_una is SACKed (the receiver reneged). RFC 2018 section 8 /
    /// RFC 6675 section 5.1: the sender SHOULD clear them.
    fn sack_marks_at_timeout(&self, _head_sacked: bool) -> SackMarks {
        SackMarks::Clear
    }
    /// In the Loss state after a timeout: SACKed segments take no room in the window,
    /// which counts only the unSACKed bytes from snd_una (RFC 5681 3.1: every byte from
    /// snd_una).
    #[inline]
    fn sacked_outside_window_in_loss(&self) -> bool {
        false
    }
    /// Outside fast recovery and the Loss state: an ACK that SACKs new data without
    /// acknowledging any lets the controller grow cwnd by what it delivered (RFC 5681
    /// 3.1: only ACKs of new data).
    #[inline]
    fn raises_cwnd_on_sack(&self) -> bool {
        false
    }
    /// Outside fast recovery and the Loss state: how far beyond snd_una + cwnd the
    /// window reaches, given `limited` (Limited Transmit's early duplicate ACKs,
    /// RFC 3042), the SACKed bytes `sacked_below` the end of the segment to send, and
    /// whether SACK is on. RFC 5681 3.1 with RFC 3042: `limited`.
    #[inline]
    fn open_window_beyond_cwnd(&self, limited: u64, _sacked_below: u64, _sack: bool) -> u64 {
        limited
    }
    /// The SYN-ACK is answered by a header-only segment of its own before any data, and
    /// one after a retransmitted SYN is timed by its timestamp echo (RFC 9293 3.5, RFC
    /// 7323 4.1).
    fn completes_handshake_with_ack(&self) -> bool {
        true
    }
    /// When sending: Limited Transmit also releases go-back-N retransmissions (RFC
    /// 3042: new data only).
    fn limited_transmit_in_go_back_n(&self) -> bool {
        false
    }
    /// When sending: the window is inflated by the duplicate ACKs from the DupThresh-th
    /// on even without a fast retransmit (RFC: no).
    fn inflates_without_fast_retransmit(&self) -> bool {
        false
    }
    /// Go-back-N after a timeout resends SACKed segments too (RFC 2018/6675: no).
    fn go_back_n_resends_sacked(&self) -> bool {
        false
    }
    /// F-RTO's probe needs window room for this many segments (RFC 5682 2b: one).
    fn frto_room_segments(&self) -> u64 {
        1
    }
    /// When sending without pacing: the segments one skb holds, the last of an skb of
    /// two or more marked PSH ([`crate::unpaced_skb`]; RFC: one, a segment is sent as
    /// itself).
    fn unpaced_skb_segments(&self) -> u64 {
        1
    }
    /// At the end of each ACK's congestion control, and the SYN-ACK's, for a sender that
    /// does not pace: the state its skb size follows (Linux: `tcp_update_pacing_rate`,
    /// for [`Self::unpaced_skb_segments`]). RFC: nothing.
    #[inline]
    fn on_cong_control(&mut self, _v: &PacingInputs) {}
    /// The stack chooses which data segments carry PSH ([`spikelab_core::Packet::push`];
    /// linux: the last of each skb of two or more). RFC: no, and a capture shows PSH
    /// on every data segment, as a sender that empties its buffer with each segment
    /// would set it.
    fn marks_push(&self) -> bool {
        false
    }
    /// When sending new data outside recovery, at the start of an skb of more than one
    /// segment: whether it goes now or waits for a fuller window (RFC 5681/9293: a
    /// segment the window admits goes now).
    #[inline]
    fn tso_defer(&self, _v: &SkbStart) -> SkbSend {
        SkbSend::SendNow
    }
    /// The application's write of `write` (a sequence range) into an empty send queue
    /// sent what it could at once, its first skb `first_skb` bytes: new data now starts
    /// at `snd_max`; `max_window` is the largest receive window seen. Linux: where the
    /// skbs `tcp_sendmsg_locked` builds start, and which it marks PSH. RFC: nothing.
    fn on_write_pushed(
        &mut self,
        _snd_max: u64,
        _max_window: u64,
        _mss: u64,
        _write: Range<u64>,
        _first_skb: u64,
    ) {
    }
    /// New data `[start, end)` goes out, starting an skb with `quota` bytes of room
    /// (cwnd's, at most an skb's) or joining the one sent before it (`None`): whether
    /// it carries the application's PSH mark (Linux: the head skb's, which
    /// `tcp_grow_skb` moves to the head's grown end and `tso_fragment` to the rest of
    /// a send cut short). RFC: no such marks.
    #[inline]
    fn on_new_data_sent(
        &mut self,
        _start: u64,
        _end: u64,
        _app_end: u64,
        _quota: Option<u64>,
    ) -> bool {
        false
    }
    /// When sending new data: the skb at the head of the send queue at `snd_nxt`,
    /// given room for `quota` bytes (cwnd's, at most an skb's): its length and whether
    /// it is the queue's last. RFC: the whole unsent rest, one piece.
    #[inline]
    fn send_head(&self, snd_nxt: u64, app_end: u64, _quota: u64) -> (u64, bool) {
        (app_end - snd_nxt, true)
    }
    /// A spurious timeout was found (`by_ns2_frto`: by a detector modelling an ns-2
    /// F-RTO agent): ssthresh and cwnd when the stack restores them its own way
    /// (RFC 5682 / RFC 4015: `None`, the configured response).
    fn spurious_response(
        &self,
        _by_ns2_frto: bool,
        _snd_max: u64,
        _mss: u64,
    ) -> Option<(u64, u64)> {
        None
    }
    /// Fast recovery begins, before the recovery algorithm reduces the window (values
    /// in bytes): the cwnd the stack sets after the algorithm's reduction, if it sets
    /// one (RFC 5681 / 6675: the algorithm's).
    fn on_enter_recovery(
        &mut self,
        _cwnd: u64,
        _rwnd: u64,
        _mss: u64,
        _dupthresh: u64,
    ) -> Option<u64> {
        None
    }
    /// The cwnd a partial ACK, the end of fast recovery or a timeout dropping the
    /// inflation deflates to (RFC: none of the stack's).
    fn recovery_floor(&self) -> Option<u64> {
        None
    }
    /// Fast recovery ended.
    fn on_exit_recovery(&mut self) {}
    /// A segment went out in fast recovery.
    fn on_recovery_send(&mut self) {}
    /// On an ACK of fast recovery, with [`Self::prr_in_recovery`]: cwnd in segments from
    /// ssthresh, the segments in flight and those the ACK delivered (RFC 6937), `None`
    /// to leave it (RFC: the stack sets none).
    fn prr_cwnd(
        &mut self,
        _ssthresh: u64,
        _pipe: u64,
        _newly: u64,
        _una_advanced: bool,
    ) -> Option<u64> {
        None
    }
    /// An ACK of new data, before snd_una advances from `snd_una_before`.
    fn on_new_ack(&mut self, _snd_una_before: u64) {}
    /// The retransmission timer fired with data outstanding, after any inflation was
    /// dropped and before the reduction (window values in bytes).
    fn on_timeout(&mut self, _cwnd: u64, _rwnd: u64, _ssthresh: u64, _mss: u64) {}
    /// Outside fast recovery, with [`Self::sack1_dupack_rules`]: whether this duplicate
    /// ACK counts (`next`: the cumulative ACK; `blocks`: its SACK blocks; in segments).
    fn sack1_counts_dupack(&mut self, _next: u64, _blocks: &[(u64, u64)]) -> bool {
        true
    }
    /// A duplicate ACK on which ns-2's basic F-RTO falls back is not counted (RFC: it
    /// is).
    fn frto_fallback_dupack_uncounted(&self) -> bool {
        false
    }
    /// On an ACK of new data: the RTT sample, when the stack takes it its own way
    /// (`None`: RFC 7323 / RFC 6298 with Karn's rule).
    fn rtt_sample(
        &self,
        _segs: &SegmentTable,
        _ack: u64,
        _now: Time,
        _ts: Option<Dur>,
    ) -> Option<Option<Dur>> {
        None
    }
    /// On an ACK of new data that gave the RTT sample: the sample congestion control
    /// hears instead, when the stack takes it its own way (`None`: the same one).
    fn cc_rtt_sample(&self, _segs: &SegmentTable, _ack: u64, _now: Time) -> Option<Dur> {
        None
    }
    /// On any ACK, before its SACK blocks are applied: the sample congestion control
    /// hears from the segments they SACK for the first time, which replaces the
    /// cumulative one (`None`: none).
    fn cc_sack_rtt_sample(
        &self,
        _segs: &SegmentTable,
        _blocks: &[(u64, u64)],
        _ack: u64,
        _now: Time,
    ) -> Option<Dur> {
        None
    }
    /// On any ACK, before its SACK blocks are applied: the RTO estimator's sample from
    /// the segments they SACK for the first time, used when the cumulative ACK gives
    /// none (`None`: the stack takes no such sample). A duplicate ACK's sample also
    /// restarts the retransmission timer (or the loss probe) when the segment it
    /// timed was sent before the oldest segment's last transmission.
    fn rto_sack_rtt_sample(
        &self,
        _segs: &SegmentTable,
        _blocks: &[(u64, u64)],
        _ack: u64,
        _now: Time,
    ) -> Option<Dur> {
        None
    }
    /// What a paced sender whose next departure is `wstamp` adds to a retransmission
    /// or probe timer it arms at `now` (zero for a stack that does not pace).
    fn pacing_delay(&self, _now: Time, _wstamp: Time) -> Dur {
        Dur::ZERO
    }
    /// Arming a timer at `now` for `at`: when it fires (RFC: exactly then).
    fn timer_fires_at(&self, _now: Time, at: Time) -> Time {
        at
    }
    /// After sending: the stack tracks whether cwnd limited the sender (RFC: no).
    fn tracks_cwnd_use(&self) -> bool {
        false
    }
    /// After a send burst that sent something or stopped at cwnd, with
    /// [`Self::tracks_cwnd_use`]: snd_una, snd_max, the segments out and whether the
    /// segments in flight filled cwnd.
    fn on_write_xmit(&mut self, _snd_una: u64, _snd_max: u64, _packets_out: u64, _limited: bool) {}
    /// When sending new data, the whole next segment past the receive window's right
    /// edge, within a send pass that already sent a whole new segment: a sub-MSS
    /// segment goes out up to the edge (RFC 1122 4.2.3.4, the sender's silly window
    /// avoidance: no, it waits for a whole segment). `snd_una` and `snd_max` as now.
    fn cuts_at_window_edge(&self, _snd_una: u64, _snd_max: u64) -> bool {
        false
    }
    /// A new-data segment shorter than the MSS went out, ending at `end`.
    fn on_small_segment_sent(&mut self, _end: u64) {}
    /// On every ACK that may grow cwnd: the cwnd-limited record the controller reads
    /// ([`crate::cc::AckSample::cwnd_usage`]; RFC: none kept).
    fn cwnd_usage(&self) -> CwndUsage {
        CwndUsage::default()
    }
    /// On every ACK of fast recovery: cwnd follows Proportional Rate Reduction (RFC
    /// 6937; RFC 5681/6675: the recovery algorithm's window).
    fn prr_in_recovery(&self) -> bool {
        false
    }
    /// The sender's timer was set (or stopped: [`TimerKind::Rto`]) for `kind`.
    fn on_timer_set(&mut self, _kind: TimerKind) {}
    /// What the armed timer is for (RFC: always the RTO).
    #[inline]
    fn timer_kind(&self) -> TimerKind {
        TimerKind::Rto
    }
    /// After every ACK: with a loss probe pending, `open` telling whether the sender is
    /// in the Open state, the RTO is rearmed from the oldest segment's last
    /// transmission (`tcp_rearm_rto`; RFC: no probe).
    fn rearms_rto_from_head(&self, _open: bool) -> bool {
        false
    }
    /// Instead of the RTO, whether a loss probe may be armed (RFC 8985 7.2's
    /// conditions; `open`: Open state and no F-RTO probing). RFC 5681/6298: never.
    #[inline]
    fn may_probe(&self, _open: bool, _w: &Window) -> bool {
        false
    }
    /// When the loss probe [`Self::may_probe`] admitted fires (RFC 8985 7.2's PTO).
    fn probe_deadline(&self, s: &ProbeSchedule) -> Time {
        crate::tlp::probe_deadline(s)
    }
    /// The probe timer fired: what to send (`new_data_fits`: the window admits a new
    /// segment).
    fn choose_probe(&mut self, _new_data_fits: bool) -> Probe {
        Probe::Nothing
    }
    /// A probe went out, ending at `snd_max`; `retransmitted` if it resent data.
    fn on_probe_sent(&mut self, _snd_max: u64, _retransmitted: bool) {}
    /// On every ACK, after it was applied: whether it settles an outstanding probe,
    /// and how (RFC: no probe, nothing to settle).
    #[inline]
    fn on_probe_ack(&mut self, _pkt: &Packet, _newly_acked: u64, _newly_sacked: u64) -> ProbeAck {
        ProbeAck::Pending
    }
    /// On every ACK, before its SACK blocks are applied: the segments it delivers
    /// (RFC 8985 6.2 steps 1-4; RFC 5681/6675: none kept).
    #[inline]
    fn on_ack_delivered(&mut self, _d: &Delivery) {}
    /// On every ACK: the segments its D-SACK block delivers, counted into the ACK's
    /// delivered segments (acked_sacked); `total_retrans` the segments retransmitted
    /// so far (RFC: none).
    #[inline]
    fn dsack_delivered(&mut self, _pkt: &Packet, _mss: u64, _total_retrans: u64) -> u64 {
        0
    }
    /// A reordering hole below `low` was filled by a delayed original (the detectors'
    /// undo test), with `fack` the highest SACKed byte.
    fn on_delayed_hole(&mut self, _low: u64, _fack: Option<u64>, _mss: u64) {}
    /// On every ACK, after the detectors' step: `undone` whether it undid a reduction,
    /// `dsack` whether it carried a D-SACK, `episode_ended` whether recovery ended.
    #[inline]
    fn on_ack_settled(&mut self, _undone: bool, _dsack: bool, _episode_ended: bool) {}
    /// On every ACK, after the detectors' step: the stack's own loss detection, `flags`
    /// telling whether the ACK was a duplicate, SACKed new data or carried a D-SACK
    /// (RFC 5681/6675: DupThresh alone, in [`Self::duplicate_acks_start_recovery`]).
    #[inline]
    fn detect_losses(&mut self, _v: &LossView, _flags: bool) -> LossMarks {
        LossMarks::default()
    }
    /// The stack's reordering timer fired: whether segments are now marked lost.
    fn on_reorder_timeout(&mut self, _v: &LossView) -> bool {
        false
    }
    /// Whether the stack marked the segment starting at `start` lost (RFC: none).
    fn marked_lost(&self, _start: u64) -> bool {
        false
    }
    /// Segments marked lost and not retransmitted since (`lost_out - retrans_out`),
    /// and segments ever marked lost (`tp->lost`), for a controller's rate samples
    /// ([`crate::cc_driver`]). RFC: none marked.
    fn lost_counts(&self) -> (u64, u64) {
        (0, 0)
    }
    /// Fast recovery begins on the stack's word from the Loss state: the segments
    /// from snd_nxt not yet resent are marked lost.
    fn mark_unsent_lost(&mut self, _w: &Window) {}
    /// Segments in flight (RFC 6675's pipe).
    #[inline]
    fn pipe_segments(&self, w: &Window) -> u64 {
        w.pipe() / w.mss
    }
    /// In fast recovery: what to send next, when the stack chooses (`new_fits`: new
    /// data at snd_nxt fits the receiver window). `None`: the recovery algorithm
    /// chooses (RFC 6675).
    #[inline]
    fn next_in_recovery(&self, _w: &Window, _new_fits: bool) -> Option<Option<Transmit>> {
        None
    }
    /// DupThresh duplicate ACKs may start fast recovery (RFC 5681 / 6675: yes).
    #[inline]
    fn duplicate_acks_start_recovery(&self) -> bool {
        true
    }
    /// The segment starting at `start` was retransmitted.
    #[inline]
    fn on_retransmit(&mut self, _start: u64) {}
    /// A spurious timeout's response restored the window in the Loss state.
    fn on_undo_in_loss(&mut self) {}
}

/// The RFC sender with no departures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rfc;

impl StackRules for Rfc {}

spikelab_core::dispatch_enum! {
    /// The stack a flow runs; dispatches by `match`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Stack: StackRules {
        Rfc(Rfc),
        // The two stacks with state are boxed (128 and 256 bytes): every connection
        // kept room for a Linux host's, the RFC sender's none (docs/src/performance.md,
        // "Issue 44, memory round 3").
        Ns2(Box<ns2_2002::Ns2Agents>),
        Linux(Box<linux::LinuxHost>),
    }
    methods {
        fn initial_ssthresh(&self, configured: u64, rwnd: u64) -> u64;
        fn recovery_params(&self, pipe: PipeRule) -> (RecoveryParams, Ns2FackRules);
        #[inline]
        fn on_ack_arrival(&mut self, a: &AckArrival) -> bool;
        #[inline]
        fn holds_ack(&self) -> bool;
        #[inline]
        fn holds_recovery_exit(&self) -> bool;
        #[inline]
        fn ends_held_recovery(&self) -> bool;
        fn oldack(&self) -> OldAck;
        #[inline]
        fn counts_toward_recovery(&self, sack: bool, newly_sacked: u64) -> bool;
        #[inline]
        fn sack1_dupack_rules(&self) -> bool;
        fn grows_on_recovery_exit(&self) -> bool;
        fn grows_after_loss_undo(&self) -> bool;
        #[inline]
        fn recovery_from_snd_nxt(&self) -> bool;
        fn fast_retransmit_ignores_recover(&self) -> bool;
        fn restarts_timer_on_fast_retransmit(&self) -> bool;
        fn restarts_timer_on_head_retransmit(&self) -> bool;
        fn careful_after_fast_retransmit(&self) -> bool;
        fn timeout_drops_inflation(&self, recovering: bool) -> bool;
        fn bars_frto(&self, recovering: bool) -> bool;
        fn timeout_keeps_recovery_reduction(&self) -> bool;
        fn sack_marks_at_timeout(&self, head_sacked: bool) -> SackMarks;
        #[inline]
        fn sacked_outside_window_in_loss(&self) -> bool;
        #[inline]
        fn open_window_beyond_cwnd(&self, limited: u64, sacked_below: u64, sack: bool) -> u64;
        #[inline]
        fn raises_cwnd_on_sack(&self) -> bool;
        fn completes_handshake_with_ack(&self) -> bool;
        #[inline]
        fn limited_transmit_in_go_back_n(&self) -> bool;
        #[inline]
        fn inflates_without_fast_retransmit(&self) -> bool;
        fn go_back_n_resends_sacked(&self) -> bool;
        #[inline]
        fn frto_room_segments(&self) -> u64;
        #[inline]
        fn unpaced_skb_segments(&self) -> u64;
        #[inline]
        fn on_cong_control(&mut self, v: &PacingInputs);
        fn marks_push(&self) -> bool;
        #[inline]
        fn tso_defer(&self, v: &SkbStart) -> SkbSend;
        fn on_write_pushed(&mut self, snd_max: u64, max_window: u64, mss: u64, write: Range<u64>, first_skb: u64);
        #[inline]
        fn on_new_data_sent(&mut self, start: u64, end: u64, app_end: u64, quota: Option<u64>) -> bool;
        #[inline]
        fn send_head(&self, snd_nxt: u64, app_end: u64, quota: u64) -> (u64, bool);
        fn spurious_response(&self, by_ns2_frto: bool, snd_max: u64, mss: u64) -> Option<(u64, u64)>;
        fn on_enter_recovery(&mut self, cwnd: u64, rwnd: u64, mss: u64, dupthresh: u64) -> Option<u64>;
        fn recovery_floor(&self) -> Option<u64>;
        fn on_exit_recovery(&mut self);
        fn on_recovery_send(&mut self);
        fn prr_cwnd(&mut self, ssthresh: u64, pipe: u64, newly: u64, una_advanced: bool) -> Option<u64>;
        #[inline]
        fn on_new_ack(&mut self, snd_una_before: u64);
        fn on_timeout(&mut self, cwnd: u64, rwnd: u64, ssthresh: u64, mss: u64);
        fn sack1_counts_dupack(&mut self, next: u64, blocks: &[(u64, u64)]) -> bool;
        fn frto_fallback_dupack_uncounted(&self) -> bool;
        #[inline]
        fn rtt_sample(&self, segs: &SegmentTable, ack: u64, now: Time, ts: Option<Dur>) -> Option<Option<Dur>>;
        #[inline]
        fn cc_rtt_sample(&self, segs: &SegmentTable, ack: u64, now: Time) -> Option<Dur>;
        fn cc_sack_rtt_sample(&self, segs: &SegmentTable, blocks: &[(u64, u64)], ack: u64, now: Time) -> Option<Dur>;
        fn rto_sack_rtt_sample(&self, segs: &SegmentTable, blocks: &[(u64, u64)], ack: u64, now: Time) -> Option<Dur>;
        fn pacing_delay(&self, now: Time, wstamp: Time) -> Dur;
        #[inline]
        fn timer_fires_at(&self, now: Time, at: Time) -> Time;
        #[inline]
        fn tracks_cwnd_use(&self) -> bool;
        fn on_write_xmit(&mut self, snd_una: u64, snd_max: u64, packets_out: u64, limited: bool);
        fn cuts_at_window_edge(&self, snd_una: u64, snd_max: u64) -> bool;
        fn on_small_segment_sent(&mut self, end: u64);
        #[inline]
        fn cwnd_usage(&self) -> CwndUsage;
        #[inline]
        fn prr_in_recovery(&self) -> bool;
        fn on_timer_set(&mut self, kind: TimerKind);
        #[inline]
        fn timer_kind(&self) -> TimerKind;
        fn rearms_rto_from_head(&self, open: bool) -> bool;
        #[inline]
        fn may_probe(&self, open: bool, w: &Window) -> bool;
        fn probe_deadline(&self, s: &ProbeSchedule) -> Time;
        fn choose_probe(&mut self, new_data_fits: bool) -> Probe;
        fn on_probe_sent(&mut self, snd_max: u64, retransmitted: bool);
        #[inline]
        fn on_probe_ack(&mut self, pkt: &Packet, newly_acked: u64, newly_sacked: u64) -> ProbeAck;
        #[inline]
        fn on_ack_delivered(&mut self, d: &Delivery);
        #[inline]
        fn dsack_delivered(&mut self, pkt: &Packet, mss: u64, total_retrans: u64) -> u64;
        fn on_delayed_hole(&mut self, low: u64, fack: Option<u64>, mss: u64);
        #[inline]
        fn on_ack_settled(&mut self, undone: bool, dsack: bool, episode_ended: bool);
        #[inline]
        fn detect_losses(&mut self, v: &LossView, flags: bool) -> LossMarks;
        fn on_reorder_timeout(&mut self, v: &LossView) -> bool;
        fn marked_lost(&self, start: u64) -> bool;
        fn lost_counts(&self) -> (u64, u64);
        fn mark_unsent_lost(&mut self, w: &Window);
        #[inline]
        fn pipe_segments(&self, w: &Window) -> u64;
        #[inline]
        fn next_in_recovery(&self, w: &Window, new_fits: bool) -> Option<Option<Transmit>>;
        #[inline]
        fn duplicate_acks_start_recovery(&self) -> bool;
        #[inline]
        fn on_retransmit(&mut self, start: u64);
        fn on_undo_in_loss(&mut self);
    }
}

impl Stack {
    /// The stack a configuration describes: a `linux` host, ns-2's 2002 agents when
    /// any of their switches is on, else the RFC sender.
    pub fn new(cfg: &TcpConfig) -> Stack {
        if cfg.linux.is_some() {
            Stack::Linux(Box::new(linux::LinuxHost::new(cfg)))
        } else if cfg.ns2 != crate::Ns2Switches::default() {
            Stack::Ns2(Box::new(ns2_2002::Ns2Agents::new(cfg)))
        } else {
            Stack::Rfc(Rfc)
        }
    }
}

/// The SACK blocks a configuration's receiver puts on an ACK at most: a `linux` host
/// as many as the kernel's option space allows ([`linux::sack_blocks_per_ack`]: 4
/// without timestamps, 3 with), ns-2's header model `max_sack_blocks` as set
/// (`maxSackBlocks_`: its ACKs have no option space), else `max_sack_blocks` within
/// what fits beside the timestamps option (RFC 2018 section 3,
/// [`spikelab_core::packet::sack_blocks_that_fit`]).
pub fn sack_blocks_per_ack(cfg: &TcpConfig) -> usize {
    let configured = cfg.max_sack_blocks as usize;
    if cfg.linux.is_some() {
        linux::sack_blocks_per_ack(cfg.timestamps)
    } else if cfg.ns2.header_sizes {
        configured.min(spikelab_core::packet::MAX_SACK_BLOCKS)
    } else {
        configured.min(spikelab_core::packet::sack_blocks_that_fit(cfg.timestamps))
    }
}

/// The congestion controller a configuration runs: a `linux` host's
/// `tcp_congestion_control`, ns-2's `opencwnd()`
/// (`Ns2Switches::cwnd_increase_in_packets`), else RFC 5681's.
pub fn congestion_controller(cfg: &TcpConfig) -> CcKind {
    match &cfg.linux {
        Some(l) => l.tcp_congestion_control.kind(),
        None if cfg.ns2.cwnd_increase_in_packets => CcKind::Ns2Opencwnd,
        None => CcKind::Rfc5681Reno,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_profile_gets_its_stack_and_controller() {
        let linux = TcpConfig::linux();
        let ns2 = TcpConfig::ns2_2002();
        let rfc = TcpConfig::default();
        assert!(matches!(Stack::new(&linux), Stack::Linux(_)));
        assert!(matches!(Stack::new(&ns2), Stack::Ns2(_)));
        assert!(matches!(Stack::new(&rfc), Stack::Rfc(_)));
        assert_eq!(congestion_controller(&linux), CcKind::LinuxReno);
        assert_eq!(congestion_controller(&ns2), CcKind::Ns2Opencwnd);
        assert_eq!(congestion_controller(&rfc), CcKind::Rfc5681Reno);
    }

    #[test]
    fn a_linux_receiver_sends_four_sack_blocks_without_timestamps_and_three_with() {
        let mut linux = TcpConfig::linux();
        assert!(linux.timestamps);
        assert_eq!(sack_blocks_per_ack(&linux), 3);
        linux.timestamps = false;
        assert_eq!(sack_blocks_per_ack(&linux), 4);
        linux.max_sack_blocks = 1; // not the kernel's: the option space decides
        assert_eq!(sack_blocks_per_ack(&linux), 4);
    }

    #[test]
    fn other_receivers_send_their_configured_sack_blocks_within_the_option_space() {
        let mut rfc = TcpConfig::default();
        assert_eq!(sack_blocks_per_ack(&rfc), 3);
        rfc.max_sack_blocks = 4;
        assert_eq!(sack_blocks_per_ack(&rfc), 3, "beside timestamps");
        rfc.timestamps = false;
        assert_eq!(sack_blocks_per_ack(&rfc), 4);
        rfc.max_sack_blocks = 2;
        assert_eq!(sack_blocks_per_ack(&rfc), 2);
        let mut ns2 = TcpConfig::ns2_2002();
        assert_eq!(sack_blocks_per_ack(&ns2), 3, "maxSackBlocks_");
        ns2.timestamps = true;
        ns2.max_sack_blocks = 4;
        assert_eq!(
            sack_blocks_per_ack(&ns2),
            4,
            "ns-2's ACKs have no option space"
        );
    }

    #[test]
    fn the_rfc_stack_departs_nowhere() {
        let s = Stack::new(&TcpConfig::default());
        assert!(s.counts_toward_recovery(true, 0));
        assert_eq!(s.frto_room_segments(), 1);
        assert_eq!(s.unpaced_skb_segments(), 1);
        assert_eq!(s.timer_fires_at(Time(5), Time(7)), Time(7));
        assert_eq!(s.initial_ssthresh(100, 10), 100);
        assert!(!s.restarts_timer_on_head_retransmit());
        assert!(!s.cuts_at_window_edge(0, 10_000));
    }

    #[test]
    fn the_rfc_and_ns2_stacks_clear_the_sack_marks_at_a_timeout() {
        for cfg in [TcpConfig::default(), TcpConfig::ns2_2002()] {
            let s = Stack::new(&cfg);
            assert_eq!(s.sack_marks_at_timeout(false), SackMarks::Clear);
            assert!(!s.sacked_outside_window_in_loss());
            assert_eq!(s.open_window_beyond_cwnd(1000, 3000, true), 1000);
            assert!(!s.raises_cwnd_on_sack());
        }
    }
}
