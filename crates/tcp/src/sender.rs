//! The TCP sender: a sans-I/O state machine.
//!
//! Every hook takes `now` and pushes the segments to transmit into `out`; the engine
//! arms the retransmission timer at [`TcpSender::next_deadline`]. The sender owns the
//! sequence space, the congestion window (RFC 5681), Karn's rule, the timer rules of
//! RFC 6298 section 5 and the go-back-N retransmission after a timeout that a
//! conventional sender performs; the RTO value comes from an [`RtoEstimator`] and the
//! loss-recovery policy from a [`Recovery`] algorithm.

pub use crate::phase::Phase;

use crate::cc::{AckSample, Cc, CongestionControl, CwndView, RttEvent};
use crate::config::{RecoveryKind, TcpConfig, TimeoutRetransmit};
use crate::dsack::{sack_right_edge, split_dsack};
use crate::recovery::{LossRecovery, PartialAck, Recovery, Transmit};
use crate::response::restore::{restore, Restore, RestoreInputs};
use crate::response::{RtoAdaptState, Snapshot};
use crate::rto::{RtoEstimator, RttSample};
use crate::spurious::{
    AckView, EpisodeVerdict, Ns2FrtoAgent, RecoveryView, Step, TimeoutView, UndoCounters, UndoKind,
    Verdict, Watchers,
};
use crate::stacks::{
    AckArrival, DeferredBy, Delivery, LossView, PacingInputs, SackMarks, SkbSend, SkbStart, Stack,
    StackRules, TimerKind,
};
use crate::tlp::{Probe, ProbeAck, ProbeSchedule};
use crate::ts_clock::TsClock;
use crate::window::{SsthreshRule, Window};
use crate::wire_size::WireSizes;
use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time, Timestamps};
use std::sync::Arc;

mod cc_glue;

/// The sender's state as a stack's loss detection reads it ([`LossView`]); a macro,
/// so that the view borrows the window while the stack is borrowed mutably.
macro_rules! loss_view {
    ($s:expr, $now:expr) => {
        LossView {
            now: $now,
            w: &$s.w,
            phase: $s.phase,
            min_rtt: $s.min_rtt,
            srtt: $s.rto.srtt(),
        }
    };
}

/// The connection handshake, if the flow uses one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handshake {
    SynSent { sent_at: Time, retransmitted: bool },
    Established,
}

/// A segment being timed for an RTT sample when timestamps are off (RFC 6298 section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Timing {
    end: u64,
    sent_at: Time,
}

/// What an expiry of the retransmission timer was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOutcome {
    /// Nothing was due (a stale timer, or nothing outstanding).
    NotDue,
    /// The SYN was retransmitted.
    SynTimeout,
    /// A Tail Loss Probe went out (the `linux` profile); no retransmission timeout.
    LossProbe,
    /// The pacing timer released held segments (a pacing controller, BBR); no
    /// retransmission timeout.
    Pacing,
    /// RACK's reordering timer fired (the `linux` profile, `tcp_rack_reo_timeout`): it
    /// marks segments lost and may start recovery; no retransmission timeout.
    ReorderTimeout,
    /// The timer ran with nothing outstanding and fired (ns-2 FACK still in fast
    /// recovery, `FackTcpAgent::timeout()`): the window restarts, nothing is
    /// retransmitted; no retransmission timeout.
    IdleTimer,
    /// A retransmission timeout of data. `number` counts the flow's data timeouts from
    /// 0 in order; detectors' verdicts and fast-timeout reports name timeouts by it.
    Timeout { number: u64 },
}

/// Counters kept by the sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments handed to the network, first transmissions and retransmissions.
    pub data_segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub rtt_samples: u64,
    pub dsacks_received: u64,
    /// Spurious-timeout responses applied (the driving detector said "spurious").
    pub spurious_responses: u64,
    /// Fast-recovery reductions undone ([`Step::UndoRecovery`]).
    pub recovery_undos: u64,
    /// Undos and failed recoveries, counted as the kernel counts them.
    pub undos: UndoCounters,
}

/// What one ACK did, for the engine's traces and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckInfo {
    /// Bytes newly acknowledged cumulatively.
    pub newly_acked: u64,
    /// A duplicate ACK (RFC 5681 definition).
    pub duplicate: bool,
    /// The RTT sample this ACK gave, if any.
    pub rtt_sample: Option<Dur>,
    /// The ACK carried a D-SACK block (RFC 2883).
    pub dsack: bool,
}

/// One flow's sending endpoint, generic over the RTO estimator.
#[derive(Clone, Debug)]
pub struct TcpSender<E: RtoEstimator> {
    flow: FlowId,
    cfg: Arc<TcpConfig>,
    w: Window,
    recovery: Recovery,
    phase: Phase,
    rto: E,
    timer: Option<Time>,
    armed_rto: Dur,
    dupacks: u32,
    /// snd_max at the last timeout: with careful fast retransmit, duplicate ACKs must
    /// acknowledge beyond it before fast retransmit may start (RFC 6582 section 4.1).
    timeout_recover: Option<u64>,
    consecutive_timeouts: u32,
    app_end: u64,
    rwnd: u64,
    /// The largest receive window seen, the SYN-ACK's included (`tp->max_window`,
    /// a u32 in the kernel too).
    max_window: u32,
    /// The application wrote into an empty send queue and no send pass followed yet
    /// ([`StackRules::on_write_pushed`]).
    write_pending: bool,
    /// snd_max when the current send pass ([`Self::try_send`], `tcp_write_xmit`)
    /// began; `u64::MAX` outside one.
    pass_from: u64,
    timing: Option<Timing>,
    handshake: Handshake,
    ts_recent: u64,
    last_rtt: Option<Dur>,
    min_rtt: Option<Dur>,
    stats: SenderStats,
    /// Spurious-timeout detectors and their verdicts.
    watch: Watchers,
    /// ssthresh and cwnd saved at the episode's first timeout, before reducing.
    snapshot: Snapshot,
    /// cwnd and ssthresh when fast recovery began (`tcp_init_cwnd_reduction`'s
    /// prior_cwnd, `tcp_enter_recovery`'s prior_ssthresh), before reducing.
    recovery_snapshot: Snapshot,
    /// snd_max at the episode's first timeout (the recovery point of the responses).
    episode_recover: u64,
    /// Timer adaptations kept across episodes.
    adapt: RtoAdaptState,
    /// The F-RTO driver is probing: no go-back-N until it decides.
    frto_hold: bool,
    /// The ACK being handled undoes the Loss state and the stack grows cwnd after the
    /// undo ([`StackRules::grows_after_loss_undo`]): the Loss state's growth waits.
    growth_after_undo: bool,
    /// Reno-SACK behaves as NewReno-SACK until this is acknowledged.
    newreno_sack_until: Option<u64>,
    /// The last timeout, until it is known whether it was a "fast timeout".
    fast_watch: Option<FastTimeoutWatch>,
    /// Numbers (0, 1, ...) of the data timeouts that were fast timeouts.
    fast_timeouts: Vec<u64>,
    /// The congestion controller ([`crate::cc`]).
    cc: Cc,
    /// Rate sampling and pacing for a controller that takes over cwnd
    /// ([`crate::cc_driver`]); `None` for the others.
    drv: Option<Box<crate::cc_driver::CcDriver>>,
    /// The sizes of the flow's data segments ([`crate::wire_size`]).
    sizes: WireSizes,
    /// The timestamp clock ([`TcpConfig::timestamp_tick`], [`crate::ts_clock`]).
    ts_clock: TsClock,
    /// The stack's answers at the extension points ([`crate::stacks`]).
    stack: Stack,
    /// When the last data segment went out (`tcp_wstamp_ns` of a sender that does
    /// not pace), for a stack's TSO deferral.
    last_xmit: Time,
}

/// A timeout whose following ACKs are watched: [Ekström & Ludwig 2004] VI calls it a "fast
/// timeout" when "the TCP sender receives the duplicate ACK that would have triggered
/// a fast retransmit", i.e. DupThresh duplicate ACKs for the timed-out segment counting
/// those that arrived before the timer fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FastTimeoutWatch {
    number: u64,
    una: u64,
    dupacks: u32,
}

impl<E: RtoEstimator> TcpSender<E> {
    /// A sender with nothing to send yet; call [`Self::on_start`] to open the connection.
    pub fn new(flow: FlowId, cfg: &TcpConfig, rto: E) -> Self {
        Self::sharing(flow, Arc::new(cfg.clone()), rto)
    }

    /// [`Self::new`] with a configuration shared with other endpoints (the flows of a
    /// scenario's `count` replicas, the connection's receiver): a sender keeps its
    /// configuration for its life, and a copy per endpoint was 296 bytes of every
    /// connection (issue 44).
    pub fn sharing(flow: FlowId, cfg: Arc<TcpConfig>, rto: E) -> Self {
        let mss = cfg.mss as u64;
        let stack = Stack::new(&cfg);
        let ssthresh = stack.initial_ssthresh(cfg.initial_ssthresh, cfg.receiver_window);
        let mut w = Window::new(
            mss,
            cfg.initial_window as u64 * mss,
            ssthresh,
            cfg.dupack_threshold,
        );
        w.ssthresh_rule = cfg.ssthresh_rule;
        w.rwnd = cfg.receiver_window;
        let cc = Cc::new(crate::stacks::congestion_controller(&cfg));
        let drv =
            (cc.controls_cwnd()).then(|| Box::new(crate::cc_driver::CcDriver::for_flow(flow.0)));
        TcpSender {
            flow,
            cfg: cfg.clone(),
            w,
            recovery: {
                let (params, fack) = stack.recovery_params(cfg.sack_pipe);
                let mut r = Recovery::build(cfg.recovery, params);
                r.set_ns2_fack(fack);
                r
            },
            phase: Phase::Open,
            armed_rto: rto.rto(),
            rto,
            timer: None,
            dupacks: 0,
            timeout_recover: None,
            consecutive_timeouts: 0,
            app_end: 0,
            rwnd: cfg.receiver_window,
            // With a handshake, the SYN-ACK's window is the first seen.
            max_window: if cfg.handshake {
                0
            } else {
                cfg.receiver_window.min(u32::MAX as u64) as u32
            },
            write_pending: false,
            pass_from: u64::MAX,
            timing: None,
            handshake: Handshake::Established,
            ts_recent: 0,
            last_rtt: None,
            min_rtt: None,
            stats: SenderStats::default(),
            watch: Watchers::new(&cfg.spurious),
            snapshot: Snapshot::default(),
            recovery_snapshot: Snapshot::default(),
            episode_recover: 0,
            adapt: RtoAdaptState::default(),
            frto_hold: false,
            growth_after_undo: false,
            newreno_sack_until: None,
            fast_watch: None,
            fast_timeouts: Vec::new(),
            cc,
            drv,
            stack,
            sizes: WireSizes::new(&cfg),
            ts_clock: TsClock::new(cfg.timestamp_tick),
            last_xmit: Time::ZERO,
        }
    }

    // ----- accessors -------------------------------------------------------------

    pub fn window(&self) -> &Window {
        &self.w
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn estimator(&self) -> &E {
        &self.rto
    }
    /// The RTO the running timer was last started with.
    pub fn armed_rto(&self) -> Dur {
        self.armed_rto
    }
    pub fn last_rtt(&self) -> Option<Dur> {
        self.last_rtt
    }
    pub fn stats(&self) -> SenderStats {
        self.stats
    }
    /// Bytes the application has handed to the sender so far.
    pub fn app_end(&self) -> u64 {
        self.app_end
    }
    /// Everything the application wrote has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.handshake == Handshake::Established && self.w.snd_una >= self.app_end
    }
    /// When the retransmission timer fires, if armed.
    pub fn next_deadline(&self) -> Option<Time> {
        self.timer
    }
    /// Whether the timer runs with nothing outstanding (ns-2 FACK still in fast
    /// recovery after everything sent is acknowledged); it then must still fire.
    pub fn timer_runs_idle(&self) -> bool {
        self.fack_timer_runs_idle() && self.timer.is_some()
    }
    /// The armed timer is a Tail Loss Probe's or RACK's reordering timer: its expiry
    /// is no timeout.
    pub fn probe_armed(&self) -> bool {
        self.stack.timer_kind() != TimerKind::Rto
    }
    /// Timeouts in a row without an acknowledgment of new data (the back-off count).
    pub fn consecutive_timeouts(&self) -> u32 {
        self.consecutive_timeouts
    }
    /// The connection is established (the handshake, if any, is over): timeouts from
    /// now on are data timeouts.
    pub fn established(&self) -> bool {
        self.handshake == Handshake::Established
    }
    /// Every spurious-timeout verdict reached so far, by every detector.
    pub fn verdicts(&self) -> &[EpisodeVerdict] {
        self.watch.verdicts()
    }
    /// The smallest RTT sample so far.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }
    /// The RTO the timer would be armed with now (estimator plus adaptations).
    pub fn current_rto(&self) -> Dur {
        self.adapt
            .apply(self.rto.rto(), self.rto.backoff_count(), self.rto.max_rto())
    }
    /// Numbers (0, 1, ... in order of occurrence) of the data timeouts that turned out
    /// to be fast timeouts.
    pub fn fast_timeouts(&self) -> &[u64] {
        &self.fast_timeouts
    }

    // ----- events ----------------------------------------------------------------

    /// The connection opens: send a SYN, or data at once when no handshake is used.
    pub fn on_start(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.cfg.handshake {
            self.send_syn(now, false, out);
        } else {
            self.cc_init(now);
            self.try_send(now, out);
        }
    }

    /// The application writes `bytes` more.
    pub fn on_app_data(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.cc_on_app_write();
        self.write_pending |= self.w.snd_max >= self.app_end;
        self.app_end += bytes;
        self.try_send(now, out);
    }

    /// An ACK (or SYN-ACK) arrived.
    pub fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) -> AckInfo {
        if let Some(ts) = pkt.ts() {
            self.ts_recent = self.ts_recent.max(ts.val);
        }
        match (pkt.kind, self.handshake) {
            (
                PacketKind::SynAck,
                Handshake::SynSent {
                    sent_at,
                    retransmitted,
                },
            ) => {
                self.on_syn_ack(now, pkt, sent_at, retransmitted, out);
                return AckInfo::default();
            }
            (PacketKind::Ack, Handshake::Established) => {}
            _ => return AckInfo::default(),
        }
        self.rwnd = pkt.rwnd as u64;
        self.w.rwnd = self.rwnd;
        self.max_window = self.max_window.max(pkt.rwnd);
        // RFC 793: an ACK of data not yet sent is ignored.
        if pkt.ack > self.w.snd_max {
            return AckInfo::default();
        }
        let cc_start = self.cc_ack_begin(pkt);
        let prior_snd_una = self.w.snd_una;
        let timeouts = self.consecutive_timeouts;
        let was_recovering = self.phase != Phase::Open;
        let undos_before = self.stats.spurious_responses + self.stats.recovery_undos;
        // Before the ACK is applied: the stack, the fast-timeout watch, the detectors
        // and the stack's loss detection see it as it arrives.
        let (oldack, step) = self.hear_ack(now, pkt);
        let undoes_loss = matches!(step, Step::Decided(Verdict::Spurious));
        self.growth_after_undo = undoes_loss
            && matches!(self.phase, Phase::Loss { .. })
            && self.stack.grows_after_loss_undo();
        // What the controller hears of the segments this ACK SACKs for the first time
        // (Linux: `ca_rtt_us` from `last_sackt`), read before they are marked.
        let sack_cc_sample = self.sack_cc_rtt_sample(now, pkt);
        // And what the RTO estimator hears of them when the cumulative ACK gives no
        // sample (Linux: `sack_rtt_us` from `first_sackt`).
        let sack_rto_sample = self.sack_rto_rtt_sample(now, pkt);
        // RFC 2018 / RFC 6675 section 5: the SACK scoreboard.
        let (dsack, newly_sacked) = self.update_scoreboard(pkt);
        // RFC 5681 section 3.2 / RFC 6675 section 5: a new ACK or a duplicate.
        let mut info = AckInfo {
            dsack,
            ..AckInfo::default()
        };
        // Segments this ACK delivered for the first time (`tp->delivered -
        // prior_delivered`: the newly SACKed, a D-SACK's duplicates as the stack counts
        // them (`sack_delivered`), and the cumulatively acknowledged ones not SACKed
        // before).
        let total_retrans = self.stats.retransmissions;
        let dsack_segments = (self.stack).dsack_delivered(pkt, self.w.mss, total_retrans);
        let sack_delivered = newly_sacked + dsack_segments * self.w.mss;
        let mut delivered = sack_delivered;
        if pkt.ack <= self.w.snd_una {
            if let Some(rtt) = sack_cc_sample {
                // pkts_acked runs on every ACK.
                self.cc_on_rtt_sample(now, rtt);
                // tcp_clean_rtx_queue -> tcp_ack_update_rtt on an ACK that only SACKs
                // (seq_rtt_us = sack_rtt_us): tcp_update_rtt_min(sk, ca_rtt_us).
                self.note_min_rtt(rtt);
            }
        }
        if pkt.ack == self.w.snd_una && self.w.snd_max > self.w.snd_una {
            if let Some(rtt) = sack_rto_sample {
                // tcp_ack -> tcp_clean_rtx_queue (data outstanding: `prior_packets`)
                // -> tcp_ack_update_rtt(sk, flag, seq_rtt_us = -1, sack_rtt_us, ...):
                // "if (seq_rtt_us < 0) seq_rtt_us = sack_rtt_us", then
                // tcp_rtt_estimator, tcp_set_rto and icsk_backoff = 0
                // (net/ipv4/tcp_input.c). An old ACK (below snd_una) takes the
                // `old_ack` path, which samples nothing.
                let flight_segments = self.w.flight_size().div_ceil(self.w.mss) as u32;
                self.feed_rtt_sample(now, rtt, flight_segments);
                self.rearm_on_sack_rtt_sample(now, rtt);
            }
        }
        if pkt.ack > self.w.snd_una {
            let sacks = (sack_delivered, sack_cc_sample, sack_rto_sample);
            delivered = self.on_ack_of_new_data(now, pkt, oldack, sacks, &mut info, out);
        } else if self.is_duplicate(pkt) && self.counts_toward_recovery(newly_sacked) {
            info.duplicate = true;
            if self.sack1_counts_dupack(pkt) {
                self.on_duplicate_ack(now, out);
            }
        }
        self.fack_exit_on_ack_without_sack();
        self.settle_probe(pkt, &info, newly_sacked);
        if pkt.ack == self.w.snd_una && oldack {
            let sample = self.fack_oldack(now, pkt);
            if info.newly_acked > 0 && sample.is_some() {
                info.rtt_sample = sample; // this ACK's sample, for the responses and traces
            }
        }
        // RFC 5682 / RFC 4015: the driving detector's step.
        self.follow_driver(now, step, timeouts, &info, out);
        // tcp_ack: tcp_fastretrans_alert (the undo) before tcp_cong_control (the growth).
        if std::mem::take(&mut self.growth_after_undo) && info.newly_acked > 0 {
            self.grow_cwnd(now, info.newly_acked, delivered);
        }
        let undone = self.stats.spurious_responses + self.stats.recovery_undos > undos_before;
        let ended = was_recovering && self.phase == Phase::Open;
        self.stack.on_ack_settled(undone, dsack, ended);
        // The stack's own loss detection and recovery window (a Linux host: RACK, RFC
        // 8985; PRR, RFC 6937).
        self.detect_losses(now, info.duplicate || newly_sacked > 0 || dsack);
        // tcp_cong_control after tcp_fastretrans_alert: outside a cwnd reduction,
        // tcp_may_raise_cwnd lets an ACK that only SACKs new data grow cwnd by
        // acked_sacked when the stack says so (a Linux host's high reordering degree).
        let sack_only = pkt.ack <= prior_snd_una && newly_sacked > 0;
        if sack_only && self.phase == Phase::Open && self.stack.raises_cwnd_on_sack() {
            self.grow_cwnd(now, 0, delivered);
        }
        // tcp_cong_control -> tcp_cwnd_reduction(sk, acked_sacked = tp->delivered -
        // prior_delivered): a segment SACKed on an earlier ACK is not delivered again.
        self.prr_on_ack(delivered, info.newly_acked > 0);
        if let Some(start) = cc_start {
            self.cc_ack_end(now, start, info.rtt_sample);
        }
        self.update_pacing_rate(self.min_rtt);
        // RFC 5681: send what the window admits.
        if !self.stack.holds_ack() {
            self.try_send(now, out);
        }
        let open = self.phase == Phase::Open && !self.frto_hold;
        if self.stack.rearms_rto_from_head(open) {
            self.rearm_rto_from_head(now);
        }
        info
    }

    /// An arriving ACK, before it is applied: the stack notes it (and says whether
    /// ns-2 FACK's `oldack()` handles it), the fast-timeout watch counts it, the
    /// detectors decide their step, the stack's loss detection hears what it delivers.
    #[inline]
    fn hear_ack(&mut self, now: Time, pkt: &Packet) -> (bool, Step) {
        let arrival = AckArrival {
            recovering: matches!(self.phase, Phase::Recovery { .. }),
            has_sack: !pkt.sack().is_empty(),
            ack: pkt.ack,
            snd_una: self.w.snd_una,
        };
        let oldack = self.stack.on_ack_arrival(&arrival);
        self.watch_fast_timeout(pkt);
        let step = self.consult_detectors(now, pkt);
        self.stack.on_ack_delivered(&Delivery {
            now,
            pkt,
            w: &self.w,
            min_rtt: self.min_rtt,
            ts_clock: self.cfg.timestamps.then_some(&self.ts_clock),
        });
        (oldack, step)
    }

    /// The ACK's SACK blocks marked (RFC 2018, RFC 6675 section 5); returns whether it
    /// carried a D-SACK block, and the bytes it SACKed for the first time.
    #[inline]
    fn update_scoreboard(&mut self, pkt: &Packet) -> (bool, u64) {
        let (dsack, newly_sacked) = self.apply_sack(pkt);
        // tcp_fastretrans_alert -> tcp_try_undo_partial: a hole filled by the delayed
        // original is reordering (crate::spurious::linux_undo).
        if let Some(low) = self.watch.take_delayed_hole() {
            let fack = self.w.segs.highest_sacked_end();
            self.stack.on_delayed_hole(low, fack, self.w.mss);
        }
        if let Phase::Recovery { .. } = self.phase {
            if let Some(right) = sack_right_edge(pkt) {
                self.recovery.on_sack_ack(&self.w, pkt.ack, right);
            }
        }
        (dsack, newly_sacked)
    }

    /// An ACK of new data: its RTT sample (RFC 6298 / RFC 7323), snd_una advances,
    /// the phase moves on and cwnd grows ([`Self::on_new_ack`]).
    #[inline]
    fn on_ack_of_new_data(
        &mut self,
        now: Time,
        pkt: &Packet,
        oldack: bool,
        (sack_delivered, sack_cc_sample, sack_rto_sample): (u64, Option<Dur>, Option<Dur>),
        info: &mut AckInfo,
        out: &mut Vec<Packet>,
    ) -> u64 {
        let (sample, timed) = self.take_rtt_sample(now, pkt, sack_rto_sample);
        // ns-2's oldack() samples from the echo alone (fack_oldack).
        info.rtt_sample = sample.filter(|_| !(oldack && self.stack.oldack().samples_rtt));
        if timed {
            self.rto.on_timed_segment_acked();
        }
        // What the controller hears of the same ACK (Linux: `ca_rtt_us`).
        let cc_sample = sack_cc_sample.or_else(|| {
            (info.rtt_sample).map(|s| {
                (self.stack)
                    .cc_rtt_sample(&self.w.segs, pkt.ack, now)
                    .unwrap_or(s)
            })
        });
        let samples = (info.rtt_sample, cc_sample);
        let (newly, delivered) = self.on_new_ack(now, pkt.ack, samples, sack_delivered, out);
        info.newly_acked = newly;
        if self.stack.holds_ack() && self.recovery.should_enter(&self.w, 0) {
            // ns-2 FackTcpAgent::recv(): a new ACK with SACK blocks is checked too.
            self.enter_recovery(now, out);
        }
        delivered
    }

    /// Counts the duplicate ACKs after a timeout (see [`FastTimeoutWatch`]).
    fn watch_fast_timeout(&mut self, pkt: &Packet) {
        let Some(mut w) = self.fast_watch else { return };
        self.fast_watch = None;
        if pkt.ack == w.una && self.is_duplicate(pkt) {
            w.dupacks += 1;
            if w.dupacks >= self.cfg.dupack_threshold {
                self.fast_timeouts.push(w.number);
            } else {
                self.fast_watch = Some(w);
            }
        }
    }

    // ----- spurious timeouts -----------------------------------------------------

    /// Shows the ACK, before it is applied, to every armed detector; returns what the
    /// driving detector wants.
    fn consult_detectors(&mut self, now: Time, pkt: &Packet) -> Step {
        if self.watch.is_empty() {
            return Step::Pending;
        }
        let (dsack, sack) = split_dsack(pkt);
        let window_end = pkt.ack + pkt.rwnd as u64;
        let view = AckView {
            now,
            ack: pkt.ack,
            snd_una: self.w.snd_una,
            snd_max: self.w.snd_max,
            duplicate: self.is_duplicate(pkt),
            tsecr: pkt.ts().map(|t| t.ecr),
            sack: &sack,
            dsack,
            segs: &self.w.segs,
            srtt: self.rto.srtt(),
            can_send_new: self.w.snd_max < self.app_end
                && self.w.snd_max + self.frto_room() <= window_end,
        };
        self.watch.on_ack(&view)
    }

    /// Acts on the driving detector's step, after the ACK was applied.
    fn follow_driver(
        &mut self,
        now: Time,
        step: Step,
        timeouts: u32,
        info: &AckInfo,
        out: &mut Vec<Packet>,
    ) {
        match step {
            Step::Pending => {}
            Step::SendNew(n) => self.send_new_probe(now, n, out),
            Step::Decided(Verdict::Spurious) => self.respond_spurious(now, timeouts, info),
            Step::Decided(Verdict::Genuine) => self.respond_genuine(info),
            Step::UndoRecovery { kind } => self.undo_recovery(kind),
        }
        // A driver may stop probing without a verdict (Linux's F-RTO turns itself off
        // and keeps its undo tests running; see `spurious::linux_undo`).
        if self.frto_hold && !self.watch.driver_holds_retransmissions() {
            self.release_frto_hold();
        }
        if self.newreno_sack_until.is_some_and(|p| self.w.snd_una >= p) {
            self.newreno_sack_until = None;
            let always = self.cfg.recovery == RecoveryKind::NewRenoSack;
            self.recovery.set_retransmit_on_partial_ack(always);
        }
    }

    /// F-RTO step 2b: up to `n` new segments, whatever cwnd says (RFC 5682 2.1).
    fn send_new_probe(&mut self, now: Time, n: u32, out: &mut Vec<Packet>) {
        self.w.snd_nxt = self.w.snd_max;
        for _ in 0..n {
            if !self.send_next(now, out) {
                break;
            }
        }
    }

    /// The driver found the timeout spurious: restore the congestion state, resume with
    /// new data, adapt the timer ([Gurtov & Ludwig 2003] III, RFC 4015 section 3.1).
    fn respond_spurious(&mut self, now: Time, timeouts: u32, info: &AckInfo) {
        let r = self.cfg.spurious.response;
        let inputs = RestoreInputs {
            mss: self.w.mss,
            timeouts,
            flight_size: self.w.flight_size(),
            bytes_acked: info.newly_acked,
            initial_window: self.cfg.initial_window as u64 * self.w.mss,
            ssthresh_now: self.w.ssthresh,
            cwnd_now: self.w.cwnd,
        };
        let by_ns2_frto = self.watch.driver_ns2_agent().is_some();
        let own = (self.stack).spurious_response(by_ns2_frto, self.w.snd_max, self.w.mss);
        let (ssthresh, cwnd) = own.unwrap_or_else(|| restore(r.restore, self.snapshot, inputs));
        self.w.ssthresh = ssthresh;
        self.w.cwnd = cwnd.max(self.w.mss);
        self.cc.on_undo(&cwnd_view(&self.w));
        if matches!(self.phase, Phase::Loss { .. }) {
            self.stack.on_undo_in_loss();
        }
        if r.resume_with_new_data {
            self.w.snd_nxt = self.w.snd_max;
            if let Phase::Loss { .. } = self.phase {
                self.phase = Phase::Open;
            }
        }
        if let (Some(rule), Some(rtt)) = (r.rto_adapt.reseed_rule(), info.rtt_sample) {
            self.rto.on_spurious_timeout_reseed(rtt, rule);
        }
        self.adapt.on_spurious(r.rto_adapt, timeouts);
        // ns-2 spurious_timeout(): "If timeout was spurious, bugfix is not needed".
        if r.fast_retransmit_below_recovery_point || own.is_some() {
            self.timeout_recover = None;
        }
        if r.newreno_sack_until_recovery_point {
            self.recovery.set_retransmit_on_partial_ack(true);
            self.newreno_sack_until = Some(self.episode_recover);
        }
        self.frto_hold = false;
        self.stats.spurious_responses += 1;
        self.stats.undos.count_undo(self.watch.driver_undo_kind());
        if self.w.snd_una < self.w.snd_max {
            self.arm_timer(now);
        }
    }

    /// Fast recovery was unnecessary: `tcp_undo_cwnd_reduction` restores cwnd and
    /// ssthresh from what recovery saved, and the connection is Open again
    /// (`tcp_try_undo_recovery` / `tcp_try_keep_open` / `tcp_try_to_open`).
    fn undo_recovery(&mut self, kind: UndoKind) {
        if matches!(self.phase, Phase::Recovery { .. }) {
            self.exit_recovery();
        }
        let inputs = RestoreInputs {
            mss: self.w.mss,
            timeouts: 0,
            flight_size: self.w.flight_size(),
            bytes_acked: 0,
            initial_window: self.cfg.initial_window as u64 * self.w.mss,
            ssthresh_now: self.w.ssthresh,
            cwnd_now: self.w.cwnd,
        };
        let old = self.recovery_snapshot;
        let (ssthresh, cwnd) = restore(Restore::LinuxUndo, old, inputs);
        self.w.ssthresh = ssthresh;
        self.w.cwnd = cwnd.max(self.w.mss);
        self.cc.on_undo(&cwnd_view(&self.w));
        self.stats.recovery_undos += 1;
        self.stats.undos.count_undo(kind);
    }

    /// The driver found the timeout genuine: conventional recovery continues.
    fn respond_genuine(&mut self, info: &AckInfo) {
        self.adapt.on_genuine();
        if self.frto_hold {
            // RFC 5682 2.1 step 3a: cwnd <= 3*SMSS, slow start retransmitting.
            self.release_frto_hold();
            // ns-2 recv_frto_helper(): dupacks_ = -1, raised to 0 by recv().
            let plain_frto = self.watch.driver_ns2_agent() == Some(Ns2FrtoAgent::Frto);
            if info.duplicate && plain_frto && self.stack.frto_fallback_dupack_uncounted() {
                self.dupacks = 0;
            }
        }
    }

    /// RFC 5682 2.1 step 3a: cwnd <= 3*SMSS, slow start retransmitting.
    fn release_frto_hold(&mut self) {
        self.frto_hold = false;
        self.w.cwnd = self.w.cwnd.min(3 * self.w.mss);
        self.w.snd_nxt = self.w.snd_una;
    }

    /// Tells the detectors that the timer fired and the first segment went out again.
    fn announce_timeout(&mut self, now: Time, first: bool, frto_barred: bool) {
        if self.watch.is_empty() {
            return;
        }
        let retransmitted_end = self.w.segs.get(0).map_or(self.w.snd_una, |s| s.end());
        let view = TimeoutView {
            now,
            number: self.stats.timeouts - 1,
            first,
            snd_una: self.w.snd_una,
            snd_max: self.w.snd_max,
            retransmitted_end,
            retransmit_tsval: self.cfg.timestamps.then(|| self.ts_clock.read(now)),
            min_rtt: self.min_rtt,
            srtt: self.rto.srtt(),
            frto_barred,
        };
        self.watch.on_timeout(&view);
        self.frto_hold = self.watch.driver_holds_retransmissions();
    }

    /// The retransmission timer fired; says what the expiry was.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerOutcome {
        if self.timer.is_none_or(|t| t > now) {
            if self.cc_on_pacing_timer(now, out) {
                return TimerOutcome::Pacing;
            }
            return TimerOutcome::NotDue;
        }
        self.timer = None;
        if let Handshake::SynSent { .. } = self.handshake {
            self.rto.on_timeout();
            self.send_syn(now, true, out);
            return TimerOutcome::SynTimeout;
        }
        if self.w.snd_una >= self.w.snd_max {
            if self.fack_timer_runs_idle() {
                self.fack_idle_timeout(now, out);
                return TimerOutcome::IdleTimer;
            }
            return TimerOutcome::NotDue;
        }
        match self.stack.timer_kind() {
            TimerKind::Reorder => {
                self.on_reorder_timeout(now, out);
                TimerOutcome::ReorderTimeout
            }
            TimerKind::LossProbe => {
                self.on_probe_timeout(now, out);
                TimerOutcome::LossProbe
            }
            TimerKind::Rto => {
                self.on_retransmission_timeout(now, out);
                TimerOutcome::Timeout {
                    number: self.stats.timeouts - 1,
                }
            }
        }
    }

    // ----- the stack's own timers and loss detection (crate::stacks) ---------------

    /// Arms the stack's loss probe instead of the RTO when the stack may
    /// ([`StackRules::may_probe`]); returns whether it did. Always inlined: asked at
    /// every ACK of new data and every transmission, and most stacks never probe.
    #[inline(always)]
    fn schedule_probe(&mut self, now: Time, advancing_rto: bool) -> bool {
        let open = self.phase == Phase::Open && !self.frto_hold;
        if !self.stack.may_probe(open, &self.w) {
            return false;
        }
        self.arm_probe(now, advancing_rto)
    }

    /// [`Self::schedule_probe`] once the stack admitted a probe.
    #[inline(never)]
    fn arm_probe(&mut self, now: Time, advancing_rto: bool) -> bool {
        let Some(head) = self.w.segs.get(0) else {
            return false;
        };
        let s = ProbeSchedule {
            now,
            srtt: self.rto.srtt(),
            packets_out: self.w.segs.len() as u64,
            rto: self.current_rto(),
            head_sent: head.last_sent,
            advancing_rto,
        };
        // tcp_schedule_loss_probe -> tcp_reset_xmit_timer(.., pace_delay = true).
        let at = self.stack.probe_deadline(&s) + self.pacing_delay(now);
        self.arm_stack_timer(now, at, TimerKind::LossProbe);
        true
    }

    /// Sets the timer for the stack's own `kind`, firing at `at` as the stack's timers
    /// do.
    fn arm_stack_timer(&mut self, now: Time, at: Time, kind: TimerKind) {
        self.timer = Some(self.stack_timer(now, at));
        self.stack.on_timer_set(kind);
    }

    /// The loss probe fired (`tcp_send_loss_probe`): new data if the window admits it
    /// (whatever cwnd says), else the last segment again, as the stack chooses. A probe
    /// sent restarts the RTO from now (`icsk_pending = 0; tcp_rearm_rto`); none sent
    /// (a probe of this flight still outstanding: `goto rearm_timer` with the probe
    /// timer still pending) anchors it at the oldest segment's last transmission
    /// (`tcp_rearm_rto` -> `tcp_rto_delta_us`), which may fire it at once.
    fn on_probe_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        let new_fits = self.w.snd_nxt == self.w.snd_max && self.next_segment_end().is_some();
        let sent = match self.stack.choose_probe(new_fits) {
            Probe::NewData => {
                let sent = self.send_next(now, out);
                if sent {
                    self.stack.on_probe_sent(self.w.snd_max, false);
                }
                sent
            }
            Probe::RetransmitLast => {
                let last = self.w.segs.len() - 1;
                self.retransmit(now, last, out);
                self.stack.on_probe_sent(self.w.snd_max, true);
                true
            }
            Probe::Nothing => false,
        };
        // tcp_send_loss_probe -> tcp_rearm_rto.
        if sent {
            self.rearm_rto(now);
        } else {
            self.rearm_rto_from_head(now);
        }
    }

    /// An ACK that settles a retransmitted probe which repaired a loss reduces cwnd
    /// as `tcp_init_cwnd_reduction` then `tcp_end_cwnd_reduction` do in the CWR state
    /// (RFC 8985 7.4.2).
    fn settle_probe(&mut self, pkt: &Packet, info: &AckInfo, newly_sacked: u64) {
        let outcome = (self.stack).on_probe_ack(pkt, info.newly_acked, newly_sacked);
        if outcome == ProbeAck::Loss {
            self.cc.on_congestion_event(&cwnd_view(&self.w));
            self.w.ssthresh = self.w.halved_ssthresh();
            self.w.cwnd = self.w.ssthresh;
        }
    }

    /// The stack's loss detection on an ACK (`flags`: a duplicate, SACK or D-SACK
    /// news): it may arm its reordering timer and start fast recovery.
    #[inline]
    fn detect_losses(&mut self, now: Time, flags: bool) {
        let v = loss_view!(self, now);
        let marks = self.stack.detect_losses(&v, flags);
        if let Some(at) = marks.reorder_timer {
            self.arm_timer(now);
            self.arm_stack_timer(now, at, TimerKind::Reorder);
        }
        if marks.enter_recovery {
            self.enter_recovery_on_marks(now);
        }
    }

    /// Fast recovery on the stack's marks (`tcp_enter_recovery`); the marked segments
    /// go out from try_send (`tcp_xmit_retransmit_queue`). From the Loss state the
    /// segments go-back-N has not resent yet are marked lost too.
    fn enter_recovery_on_marks(&mut self, now: Time) {
        if let Phase::Loss { .. } = self.phase {
            self.stack.mark_unsent_lost(&self.w);
            self.w.snd_nxt = self.w.snd_max;
        }
        let _ = self.begin_recovery(now);
        // Out of TCP_CA_Loss, `tcp_process_loss` and its F-RTO no longer run.
        self.frto_hold = self.watch.driver_holds_retransmissions();
    }

    /// Segments in flight as the stack counts them (RFC 6675's pipe by default).
    #[inline]
    fn pipe_segments(&self) -> u64 {
        self.stack.pipe_segments(&self.w)
    }

    /// The stack's reordering timer fired (`tcp_rack_reo_timeout`): segments now lost
    /// start (or feed) fast recovery, with one segment of PRR credit
    /// (`tcp_cwnd_reduction(sk, 1, 0)`); then the RTO from now (`tcp_rearm_rto`),
    /// unless sending armed a probe.
    fn on_reorder_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        let v = loss_view!(self, now);
        let lost = self.stack.on_reorder_timeout(&v);
        if lost {
            if !matches!(self.phase, Phase::Recovery { .. }) {
                self.enter_recovery_on_marks(now);
                self.prr_on_ack(self.w.mss, false);
            }
            self.try_send(now, out);
        }
        if self.stack.timer_kind() == TimerKind::Rto {
            self.arm_timer(now);
        }
    }

    /// `tcp_rearm_rto` with a probe pending outside the Open state: the RTO anchored
    /// at the oldest outstanding segment's last transmission, at least 1 ms ahead.
    fn rearm_rto_from_head(&mut self, now: Time) {
        let head = self.w.segs.get(0).map_or(now, |s| s.last_sent);
        self.arm_timer(now);
        let at = (head + self.armed_rto).max(now + Dur::from_millis(1));
        self.timer = Some(self.stack_timer(now, at + self.pacing_delay(now)));
    }

    /// A duplicate ACK's SACK-based sample ([`StackRules::rto_sack_rtt_sample`]) `rtt`
    /// timed a segment sent before the head's last transmission: `tcp_clean_rtx_queue`
    /// sets FLAG_SET_XMIT_TIMER ("sack_rtt_us > tcp_stamp_us_delta(tp->tcp_mstamp,
    /// tcp_skb_timestamp_us(skb))"; "Do not re-arm RTO if the sack RTT is measured from
    /// data sent after when the head was last (re)transmitted"), and `tcp_ack` runs
    /// `tcp_set_xmit_timer`: a loss probe, else `tcp_rearm_rto`.
    fn rearm_on_sack_rtt_sample(&mut self, now: Time, rtt: Dur) {
        let head_sent = self.w.segs.get(0).map(|s| s.last_sent);
        if head_sent.is_some_and(|h| rtt > now - h) && !self.schedule_probe(now, true) {
            self.rearm_rto(now);
        }
    }

    /// `tcp_rearm_rto`: the RTO restarted from now, later by the stack's pacing delay
    /// ([`StackRules::pacing_delay`]: `tcp_reset_xmit_timer(.., pace_delay = true)`).
    fn rearm_rto(&mut self, now: Time) {
        self.arm_timer(now);
        let delay = self.pacing_delay(now);
        if delay > Dur::ZERO {
            let at = now + self.armed_rto + delay;
            self.timer = Some(self.stack_timer(now, at));
        }
    }

    /// `tcp_pacing_delay`: how far the pacing clock is ahead of `now`, as the stack
    /// adds it to the timers it re-arms (zero for an unpaced sender).
    fn pacing_delay(&self, now: Time) -> Dur {
        match &self.drv {
            Some(d) => self.stack.pacing_delay(now, d.wstamp()),
            None => Dur::ZERO,
        }
    }

    /// A timer set at `now` for `at` fires when the stack runs it (a `linux` host's
    /// timer wheel, [`crate::linux_timer_wheel`]); the RFC sender's timers are exact.
    #[inline]
    fn stack_timer(&self, now: Time, at: Time) -> Time {
        self.stack.timer_fires_at(now, at)
    }

    // ----- handshake -------------------------------------------------------------

    fn send_syn(&mut self, now: Time, retransmitted: bool, out: &mut Vec<Packet>) {
        let mut p = Packet::new(0, self.flow, PacketKind::Syn, now);
        p.wire_model = self.wire_model();
        p.retx = retransmitted;
        if self.cfg.timestamps {
            p.set_ts(Some(Timestamps {
                val: self.ts_clock.read(now),
                ecr: 0,
            }));
        }
        self.handshake = Handshake::SynSent {
            sent_at: now,
            retransmitted,
        };
        out.push(p);
        self.arm_timer(now);
    }

    fn on_syn_ack(
        &mut self,
        now: Time,
        pkt: &Packet,
        sent_at: Time,
        retransmitted: bool,
        out: &mut Vec<Packet>,
    ) {
        // Karn: a SYN-ACK after a retransmitted SYN gives no sample from the SYN's
        // timing; with timestamps its echo names the SYN it answers and gives one
        // (RFC 7323 4.1, as for data; Linux: `tcp_ack_update_rtt`'s TS-ECR fallback).
        let sample = if retransmitted {
            (self.stack.completes_handshake_with_ack())
                .then(|| self.ts_sample(now, pkt))
                .flatten()
        } else {
            Some(now - sent_at)
        };
        if let Some(rtt) = sample {
            self.rto.on_sequence(self.w.snd_una, self.w.snd_max);
            self.rto.on_syn_sample(rtt);
            self.last_rtt = Some(rtt);
        }
        self.handshake = Handshake::Established;
        self.timer = None;
        // tcp_ack_update_window: the SYN-ACK's window, unscaled.
        self.max_window = self.max_window.max(pkt.rwnd);
        // tcp_ack of the SYN-ACK counts the SYN delivered, before tcp_init_transfer.
        if let Some(d) = &mut self.drv {
            d.on_syn_delivered();
        }
        self.cc_init(now);
        // tcp_ack of the SYN-ACK ends in tcp_cong_control, its sample in min_rtt.
        self.update_pacing_rate(self.min_rtt.or(sample));
        if self.stack.completes_handshake_with_ack() {
            self.send_handshake_ack(now, out);
        }
        self.try_send(now, out);
    }

    /// The three-way handshake's third segment (RFC 9293 3.5): the SYN-ACK is
    /// acknowledged by a header-only segment of its own, ahead of the first data (Linux:
    /// `tcp_rcv_synsent_state_process` -> `tcp_send_ack`, no write pending at connect).
    /// It is a zero-length data segment, as `spikelab emulate` reads the kernel's: it
    /// takes no sequence space, is never retransmitted or counted as data, and on a link
    /// serving whole packets per delivery opportunity (a Mahimahi trace) it takes one.
    fn send_handshake_ack(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mut p = Packet::new(0, self.flow, PacketKind::Data, now);
        p.wire_model = self.wire_model();
        if self.cfg.timestamps {
            p.set_ts(Some(Timestamps {
                val: self.ts_clock.read(now),
                ecr: self.ts_recent,
            }));
        }
        self.sizes.seal_data(&mut p);
        out.push(p);
    }

    // ----- acknowledgments -------------------------------------------------------

    /// Marks SACKed segments; returns whether the ACK carried a D-SACK block, and the
    /// bytes it SACKed for the first time.
    fn apply_sack(&mut self, pkt: &Packet) -> (bool, u64) {
        let (dsack, blocks) = split_dsack(pkt);
        let mut newly = 0;
        for &(s, e) in blocks.iter() {
            if e > pkt.ack {
                newly += self.w.segs.on_sack_block(s.max(pkt.ack), e);
            }
        }
        self.stats.dsacks_received += dsack.is_some() as u64;
        (dsack.is_some(), newly)
    }

    /// The Linux host with SACK counts toward fast recovery only ACKs that SACK new
    /// data (`tcp_time_to_recover` compares the SACKed segments with the reordering
    /// degree; RFC 6675's DupAck likewise): a D-SACK alone, such as the report of a
    /// timeout's duplicate retransmission, starts nothing.
    fn counts_toward_recovery(&self, newly_sacked: u64) -> bool {
        (self.stack).counts_toward_recovery(self.cfg.sack_enabled(), newly_sacked)
    }

    /// ns-2 `FackTcpAgent::oldack()`, run for the ACKs [`StackRules::on_ack_arrival`] picks:
    /// `newtimer()` restarts the timer while data is outstanding
    /// (`Ns2Switches::fack_restarts_timer_on_every_ack`), and `rtt_update()` takes the
    /// echoed timestamp as a sample (`Ns2Switches::fack_samples_rtt_on_every_ack`), in
    /// that order: the timer restarts on the RTO before this ACK's sample. Returns the
    /// sample.
    fn fack_oldack(&mut self, now: Time, pkt: &Packet) -> Option<Dur> {
        let o = self.stack.oldack();
        if o.restarts_timer && self.w.snd_max > self.w.snd_una {
            self.arm_timer(now);
        }
        if !o.samples_rtt {
            return None;
        }
        let header =
            (o.from_header_echo).then(|| crate::recovery::ns2_fack::header_echo_sample(now, pkt));
        let rtt = self.ts_sample(now, pkt).or(header.flatten())?;
        let flight_segments = self.w.flight_size().div_ceil(self.w.mss) as u32;
        self.feed_rtt_sample(now, rtt, flight_segments);
        Some(rtt)
    }

    /// `Ns2Switches::sack1_dupack_rules` applies: on, and the agent is Reno-SACK.
    fn sack1_rules(&self) -> bool {
        self.stack.sack1_dupack_rules()
    }

    /// With `Ns2Switches::sack1_dupack_rules` and Reno-SACK, outside fast recovery:
    /// whether ns-2's `Sack1TcpAgent::recv()` counts this duplicate ACK
    /// ([`crate::recovery::ns2_sack1`]). Always true otherwise.
    fn sack1_counts_dupack(&mut self, pkt: &Packet) -> bool {
        if !self.sack1_rules() || matches!(self.phase, Phase::Recovery { .. }) {
            return true;
        }
        let mss = self.w.mss;
        let blocks: Vec<(u64, u64)> = pkt
            .sack()
            .iter()
            .map(|&(s, e)| (s / mss, e.div_ceil(mss)))
            .collect();
        self.stack.sack1_counts_dupack(pkt.ack / mss, &blocks)
    }

    /// [`StackRules::rto_sack_rtt_sample`] for this ACK's SACK blocks (D-SACK aside).
    fn sack_rto_rtt_sample(&self, now: Time, pkt: &Packet) -> Option<Dur> {
        let (_, blocks) = split_dsack(pkt);
        if blocks.is_empty() {
            return None;
        }
        (self.stack).rto_sack_rtt_sample(&self.w.segs, &blocks, pkt.ack, now)
    }

    /// [`StackRules::cc_sack_rtt_sample`] for this ACK's SACK blocks (D-SACK aside).
    fn sack_cc_rtt_sample(&self, now: Time, pkt: &Packet) -> Option<Dur> {
        let (_, blocks) = split_dsack(pkt);
        if blocks.is_empty() {
            return None;
        }
        (self.stack).cc_sack_rtt_sample(&self.w.segs, &blocks, pkt.ack, now)
    }

    /// RFC 5681 section 2: a duplicate ACK acknowledges nothing new, carries no data,
    /// and arrives while data is outstanding (the window is constant here).
    fn is_duplicate(&self, pkt: &Packet) -> bool {
        pkt.ack == self.w.snd_una && pkt.len == 0 && self.w.snd_max > self.w.snd_una
    }

    /// RTT from the echoed timestamp (RFC 7323 section 4.1: only ACKs of new data), or
    /// from the one timed segment (RFC 6298 section 3, Karn's rule). The Karn-timed
    /// segment is tracked with timestamps too: when this ACK covers it, the estimator
    /// hears [`RtoEstimator::on_timed_segment_acked`] (ns-2's back-off reset).
    /// `sack_rto`: the stack's sample from the segments this ACK SACKs for the first
    /// time, which a Linux host takes before the timestamp when the cumulative ACK
    /// gives none (`tcp_ack_update_rtt`).
    fn take_rtt_sample(
        &mut self,
        now: Time,
        pkt: &Packet,
        sack_rto: Option<Dur>,
    ) -> (Option<Dur>, bool) {
        let timed = self.timing.filter(|t| pkt.ack >= t.end);
        if timed.is_some() {
            self.timing = None;
        }
        let ts_sample = self.ts_sample(now, pkt);
        let fallback = sack_rto.or(ts_sample);
        if let Some(s) = (self.stack).rtt_sample(&self.w.segs, pkt.ack, now, fallback) {
            return (s, timed.is_some());
        }
        if self.cfg.timestamps {
            return (ts_sample, timed.is_some());
        }
        (timed.map(|t| now - t.sent_at), timed.is_some())
    }

    /// RTT from the ACK's echoed timestamp, when the flow uses timestamps.
    fn ts_sample(&self, now: Time, pkt: &Packet) -> Option<Dur> {
        pkt.ts()
            .filter(|_| self.cfg.timestamps)
            .and_then(|ts| self.ts_clock.time_of(ts.ecr))
            .and_then(|sent| (sent <= now).then(|| now - sent))
    }

    /// Gives an RTT sample to the estimator and the sender's own RTT records.
    fn feed_rtt_sample(&mut self, now: Time, rtt: Dur, flight_segments: u32) {
        let s = RttSample {
            now,
            rtt,
            flight_segments,
            from_timestamps: self.cfg.timestamps,
        };
        self.rto.on_sequence(self.w.snd_una, self.w.snd_max);
        self.rto.on_rtt_sample(&s);
        self.last_rtt = Some(rtt);
        self.note_min_rtt(rtt);
        self.stats.rtt_samples += 1;
    }

    /// A sample for the lowest RTT seen ([`Self::min_rtt`]).
    fn note_min_rtt(&mut self, rtt: Dur) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    fn on_new_ack(
        &mut self,
        now: Time,
        ack: u64,
        (sample, cc_sample): (Option<Dur>, Option<Dur>),
        sack_delivered: u64,
        out: &mut Vec<Packet>,
    ) -> (u64, u64) {
        let flight_segments = self.w.flight_size().div_ceil(self.w.mss) as u32;
        let newly = ack - self.w.snd_una;
        self.stack.on_new_ack(self.w.snd_una);
        self.w.snd_una = ack;
        self.w.snd_nxt = self.w.snd_nxt.max(ack);
        let sacked_before = self.w.segs.sacked_bytes();
        self.w.segs.on_cumulative_ack(ack);
        // tcp_cong_control(sk, ack, acked_sacked = tp->delivered - prior_delivered):
        // tcp_sacktag_write_queue counted the newly SACKed segments and a D-SACK's
        // (`sack_delivered`), tcp_clean_rtx_queue counts the acknowledged ones not
        // SACKed before; a segment SACKed on an earlier ACK is not delivered again.
        let was_sacked = sacked_before - self.w.segs.sacked_bytes();
        let delivered = newly.saturating_sub(was_sacked) + sack_delivered;
        self.dupacks = 0;
        self.consecutive_timeouts = 0;
        if let Some(rtt) = sample {
            self.feed_rtt_sample(now, rtt, flight_segments);
        }
        if let Some(rtt) = cc_sample {
            self.cc_on_rtt_sample(now, rtt);
        }
        self.advance_phase(now, ack, newly, delivered, out);
        // RFC 6298 (5.2): all data acknowledged: stop the timer; (5.3): otherwise
        // restart it so that it expires after the current RTO.
        if self.w.snd_una >= self.w.snd_max && !self.fack_timer_runs_idle() {
            self.timer = None;
            self.stack.on_timer_set(TimerKind::Rto);
        } else if !self.schedule_probe(now, true) {
            // tcp_set_xmit_timer -> tcp_rearm_rto.
            self.rearm_rto(now);
        }
        (newly, delivered)
    }

    /// The controller hears the sample (`pkts_acked`: CUBIC's HyStart may end slow
    /// start, ssthresh = cwnd).
    #[inline]
    fn cc_on_rtt_sample(&mut self, now: Time, rtt: Dur) {
        let e = RttEvent {
            now,
            rtt,
            w: cwnd_view(&self.w),
            snd_una: self.w.snd_una,
            snd_max: self.w.snd_max,
        };
        if let Some(ssthresh) = self.cc.on_rtt_sample(&e) {
            self.w.ssthresh = ssthresh;
        }
    }

    /// `newly`: bytes cumulatively acknowledged; `delivered`: bytes delivered for the
    /// first time ([`AckSample::delivered`]).
    fn advance_phase(
        &mut self,
        now: Time,
        ack: u64,
        newly: u64,
        delivered: u64,
        out: &mut Vec<Packet>,
    ) {
        if matches!(self.phase, Phase::Recovery { .. }) {
            self.grow_in_recovery(now);
        }
        match self.phase {
            Phase::Recovery { point } if ack >= point && !self.fack_exit_held() => {
                self.exit_recovery();
                self.grow_on_exit(now, newly, delivered);
            }
            Phase::Recovery { .. } => match self.recovery.on_partial_ack(&mut self.w, newly) {
                PartialAck::Exit => {
                    self.exit_recovery();
                    self.grow_on_exit(now, newly, delivered);
                }
                PartialAck::Stay(i) => {
                    self.deflate_to_halfwin();
                    if let Some(i) = i {
                        self.retransmit(now, i, out);
                    }
                }
            },
            Phase::Loss { point } => {
                if !self.stack.holds_ack() && !self.growth_after_undo {
                    self.grow_cwnd(now, newly, delivered);
                }
                if ack >= point {
                    self.phase = Phase::Open;
                }
            }
            Phase::Open if self.stack.holds_ack() => {}
            Phase::Open => self.grow_cwnd(now, newly, delivered),
        }
    }

    /// ns-2 FACK runs `opencwnd()` on every ACK of fast recovery
    /// ([`LossRecovery::grows_cwnd_on_every_ack`]).
    fn grow_in_recovery(&mut self, now: Time) {
        if self.recovery.grows_cwnd_on_every_ack() {
            self.grow_cwnd(now, self.w.mss, self.w.mss);
        }
    }

    /// ns-2's Reno and NewReno `recv()` run `recv_newack_helper()` -> `opencwnd()` on
    /// the ACK that ends fast recovery; `Sack1TcpAgent::recv()` calls only `newack()`;
    /// Linux's `tcp_cong_control` grows for the ACK's `acked_sacked` (`delivered`).
    fn grow_on_exit(&mut self, now: Time, newly: u64, delivered: u64) {
        if self.stack.grows_on_recovery_exit() {
            self.grow_cwnd(now, newly, delivered);
        }
    }

    fn exit_recovery(&mut self) {
        self.recovery.on_exit(&mut self.w);
        self.deflate_to_halfwin();
        self.stack.on_exit_recovery();
        self.phase = Phase::Open;
    }

    /// ns-2 NewReno's partial ACK (`partial_window_deflation_` 0) and Reno's and
    /// NewReno's end of recovery set `dupwnd_ = 0` and leave `cwnd_` at halfwin, which
    /// is below ssthresh when halfwin < 2 (`Ns2Switches::fast_recovery_from_t_seqno`).
    fn deflate_to_halfwin(&mut self) {
        if let Some(h) = self.stack.recovery_floor() {
            self.w.cwnd = h;
        }
    }

    /// The controller grows cwnd for an ACK of `newly` bytes that delivered
    /// `delivered` ([`AckSample`]).
    #[inline]
    fn grow_cwnd(&mut self, now: Time, newly: u64, delivered: u64) {
        let a = AckSample {
            now,
            newly_acked: newly,
            delivered,
            w: cwnd_view(&self.w),
            cwnd_usage: self.stack.cwnd_usage(),
        };
        self.w.cwnd = self.cc.on_ack(&a);
    }

    fn on_duplicate_ack(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.dupacks += 1;
        match self.phase {
            Phase::Recovery { .. } => {
                self.grow_in_recovery(now);
                self.recovery.on_dupack(&mut self.w);
            }
            Phase::Open | Phase::Loss { .. } => {
                // ns-2 Sack1TcpAgent::recv(): dupack_action() at ++dupacks_ ==
                // numdupacks(cwnd_) only (Ns2Switches::sack1_dupack_rules).
                let enter = if !self.stack.duplicate_acks_start_recovery() {
                    false
                } else if self.sack1_rules() {
                    self.dupacks == self.w.dupthresh
                } else {
                    self.recovery.should_enter(&self.w, self.dupacks)
                };
                if self.fast_retransmit_permitted() && enter {
                    self.enter_recovery(now, out);
                }
            }
        }
    }

    /// Careful fast retransmit (the "bug fix", RFC 6582 section 4.1 and
    /// [Gurtov & Ludwig 2003] III.A): after a timeout, duplicate ACKs that do not
    /// acknowledge beyond snd_max-at-timeout may come from go-back-N duplicates.
    fn fast_retransmit_permitted(&self) -> bool {
        // ns-2 FackTcpAgent::recv() never consults recover_ (fack_enters_by_forward_ack).
        let fack_ignores = self.stack.fast_retransmit_ignores_recover();
        fack_ignores
            || !self.cfg.careful_fast_retransmit
            || self.timeout_recover.is_none_or(|r| self.w.snd_una > r)
    }

    /// `tcp_cwnd_reduction` (crate::prr) on every ACK of a `linux` fast recovery:
    /// cwnd = pipe + sndcnt.
    #[inline]
    fn prr_on_ack(&mut self, delivered: u64, una_advanced: bool) {
        if !self.stack.prr_in_recovery() || !matches!(self.phase, Phase::Recovery { .. }) {
            return;
        }
        self.prr_reduce(delivered, una_advanced);
    }

    /// [`Self::prr_on_ack`] in a `linux` fast recovery.
    fn prr_reduce(&mut self, delivered: u64, una_advanced: bool) {
        let mss = self.w.mss;
        let pipe = self.pipe_segments();
        let newly = delivered.div_ceil(mss);
        if let Some(c) = (self.stack).prr_cwnd(self.w.ssthresh / mss, pipe, newly, una_advanced) {
            self.w.cwnd = c.max(1) * mss;
        }
    }

    fn enter_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let Some(i) = self.begin_recovery(now) {
            self.retransmit(now, i, out);
        }
        if self.stack.restarts_timer_on_fast_retransmit() {
            // ns-2 dupack_action(): reset_rtx_timer(1, 0) -> set_rtx_timer().
            self.arm_timer(now);
        }
    }

    /// Fast recovery begins: the algorithm reduces ssthresh and cwnd and names the
    /// segment to fast-retransmit.
    fn begin_recovery(&mut self, now: Time) -> Option<usize> {
        // tcp_init_cwnd_reduction: the stack's part at on_enter_recovery.
        self.recovery_snapshot = Snapshot {
            cwnd: self.w.cwnd,
            ssthresh: self.w.ssthresh,
            pipe_prev: self.w.flight_size().max(self.w.ssthresh),
        };
        // tcp_enter_recovery: tcp_init_undo (spurious::linux_undo).
        let retrans_out = (self.w.segs.iter())
            .filter(|s| s.retx_count > 0 && !s.sacked && !self.stack.marked_lost(s.start))
            .count() as u64;
        let view = RecoveryView {
            snd_una: self.w.snd_una,
            snd_max: self.w.snd_max,
            retrans_out,
            retransmit_tsval: self.cfg.timestamps.then(|| self.ts_clock.read(now)),
        };
        self.watch.on_fast_recovery(&view);
        self.phase = Phase::Recovery {
            point: self.recovery.recovery_point(&self.w),
        };
        self.w.segs.clear_episode_marks();
        self.cc.on_congestion_event(&cwnd_view(&self.w));
        self.stats.fast_retransmits += 1;
        if self.stack.careful_after_fast_retransmit() {
            // ns-2 dupack_action(): recover_ = maxseq_ at every fast retransmit.
            self.timeout_recover = Some(self.w.snd_max);
        }
        let w = &self.w;
        let dupthresh = w.dupthresh as u64;
        let stack_cwnd = (self.stack).on_enter_recovery(w.cwnd, w.rwnd, w.mss, dupthresh);
        let first = self.recovery.on_enter(&mut self.w);
        if let Some(c) = stack_cwnd {
            self.w.cwnd = c;
        }
        first
    }

    // ----- timeout ---------------------------------------------------------------

    /// RFC 6298 (5.4)-(5.6) and RFC 5681 section 3.1 for a timeout with data
    /// outstanding, followed by go-back-N from snd_una.
    fn on_retransmission_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        // RFC 5681 (4): halve on the first timeout; hold ssthresh when the segment was
        // already retransmitted by the timer (ns-2 halves again: see SsthreshRule).
        let first = self.consecutive_timeouts == 0;
        if first && matches!(self.phase, Phase::Recovery { .. }) {
            // tcp_retransmit_timer: TCPSackRecoveryFail / TCPRenoRecoveryFail.
            (self.stats.undos).count_recovery_fail(self.cfg.sack_enabled());
        }
        let frto_barred = self.sack1_bars_frto();
        if self.timeout_drops_inflation() {
            // ns-2 RenoTcpAgent::timeout(): dupwnd_ = 0 before TcpAgent::timeout()'s
            // slowdown(), which halves window() = cwnd_, the uninflated window.
            self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
            self.deflate_to_halfwin();
        }
        let w = &self.w;
        self.stack.on_timeout(w.cwnd, w.rwnd, w.ssthresh, w.mss);
        if !first && self.w.ssthresh_rule == SsthreshRule::Ns2 {
            self.w.ssthresh = self.w.halved_ssthresh();
        }
        // tcp_enter_loss: "Reduce ssthresh if it has not yet been made inside this
        // window": a Linux host timing out in fast recovery before high_seq is
        // acknowledged keeps the recovery's ssthresh and prior cwnd/ssthresh (and its
        // undo marker, spurious::linux_undo).
        let inside_recovery = self.stack.timeout_keeps_recovery_reduction()
            && matches!(self.phase, Phase::Recovery { point } if point > self.w.snd_una);
        if first && inside_recovery {
            // The undo restores what tcp_enter_recovery saved (prior_cwnd,
            // prior_ssthresh); tcp_enter_loss still sets high_seq = snd_nxt.
            self.snapshot = self.recovery_snapshot;
            self.episode_recover = self.w.snd_max;
        } else if first {
            // The response's restore point (RFC 4015 step (0): pipe_prev).
            let flight = self.w.flight_size();
            self.snapshot = Snapshot {
                cwnd: self.w.cwnd,
                ssthresh: self.w.ssthresh,
                pipe_prev: flight.max(self.w.ssthresh),
            };
            self.episode_recover = self.w.snd_max;
            self.cc.on_congestion_event(&cwnd_view(&self.w));
            self.w.ssthresh = self.w.halved_ssthresh();
        }
        // RFC 5681 3.1: cwnd = loss window = 1 SMSS.
        self.w.cwnd = self.w.mss;
        self.cc.on_timeout(now, self.w.snd_max);
        self.cc_on_enter_loss(now);
        self.consecutive_timeouts += 1;
        self.stats.timeouts += 1;
        self.fast_watch = Some(FastTimeoutWatch {
            number: self.stats.timeouts - 1,
            una: self.w.snd_una,
            dupacks: self.dupacks,
        });
        // RFC 6298 (5.5): back off the timer.
        self.rto.on_timeout();
        self.recovery.on_timeout();
        self.timeout_recover = Some(self.w.snd_max);
        self.phase = match self.phase {
            // ns-2 FackTcpAgent::timeout(): "Do not clear fastrecov_ or alter recover_"
            // (Ns2Switches::fack_timeout_keeps_recovery).
            Phase::Recovery { point } if self.recovery.timeout_keeps_recovery() => {
                Phase::Recovery { point }
            }
            _ => Phase::Loss {
                point: self.w.snd_max,
            },
        };
        self.dupacks = 0;
        // Karn: nothing sent before the timeout may be timed any more.
        self.end_timing_by_karn();
        // RFC 2018 section 8: after a timeout the SACK marks are not trusted; a Linux
        // host keeps them unless the receiver reneged (tcp_timeout_mark_lost).
        let head_sacked = self.w.segs.get(0).is_some_and(|s| s.sacked);
        if self.stack.sack_marks_at_timeout(head_sacked) == SackMarks::Clear {
            self.w.segs.clear_sacks();
        }
        self.w.segs.clear_episode_marks();
        // (5.4) retransmit the earliest segment; (5.6) the timer restarts with the
        // backed-off RTO when it goes out.
        match self.cfg.timeout_retransmit {
            // Go-back-N: resend from the first unacknowledged byte.
            TimeoutRetransmit::GoBackN => {
                self.w.snd_nxt = self.w.snd_una;
                self.send_next(now, out);
            }
            // Only the timed-out segment; snd_nxt stays where it was.
            TimeoutRetransmit::SelectiveRepeat => self.retransmit(now, 0, out),
        }
        self.announce_timeout(now, first, frto_barred);
    }

    /// `Ns2Switches::timeout_drops_inflation`: on, Reno or NewReno (which inflate cwnd
    /// by one segment per duplicate ACK), and the timer fires during fast recovery.
    fn timeout_drops_inflation(&self) -> bool {
        (self.stack).timeout_drops_inflation(matches!(self.phase, Phase::Recovery { .. }))
    }

    /// `Ns2Switches::sack1_no_frto_in_fast_recovery`: on, a Sack1 agent (Reno-SACK or
    /// NewReno-SACK), and the timer fires during fast recovery.
    fn sack1_bars_frto(&self) -> bool {
        (self.stack).bars_frto(matches!(self.phase, Phase::Recovery { .. }))
    }

    // ----- transmission ----------------------------------------------------------

    fn try_send(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.handshake != Handshake::Established || self.frto_hold {
            return;
        }
        let mut sent_any = false;
        let mut deferred = None;
        // A write into an empty queue began at snd_max.
        let write_start = self.w.snd_max;
        self.pass_from = write_start;
        loop {
            if !self.cc_may_send(now) {
                break;
            }
            let choice = match self.phase {
                Phase::Recovery { .. } => self.next_in_recovery(),
                _ => match self.open_window_end() {
                    // The window admits the segment at snd_nxt, whose end is known.
                    Some(end) => {
                        if let SkbSend::Defer(by) = self.tso_defer(now, out) {
                            deferred = Some(by);
                            break;
                        }
                        self.send_segment(now, end, out);
                        sent_any = true;
                        continue;
                    }
                    None => None,
                },
            };
            let sent = match choice {
                Some(Transmit::Retransmit(i)) => {
                    self.retransmit(now, i, out);
                    true
                }
                Some(Transmit::New) => self.send_next(now, out),
                None => false,
            };
            if !sent {
                break;
            }
            sent_any = true;
        }
        self.pass_from = u64::MAX;
        if self.write_pending {
            // The write's own sends (tcp_sendmsg_locked) are this first pass.
            self.write_pending = false;
            let max_window = self.max_window as u64;
            let write = write_start..self.app_end;
            let first_skb = self.skb_segments(now) * self.w.mss;
            (self.stack).on_write_pushed(self.w.snd_max, max_window, self.w.mss, write, first_skb);
        }
        if self.stack.tracks_cwnd_use() {
            self.validate_cwnd(sent_any, deferred == Some(DeferredBy::Cwnd));
        }
    }

    /// `tcp_write_xmit` before an skb of new data outside recovery: the stack's TSO
    /// deferral ([`StackRules::tso_defer`]), asked when the segment at snd_nxt would
    /// start an skb of more than one segment (`tso_segs > 1`: skbs of more than one,
    /// a head skb of more than a segment once grown to the cwnd room,
    /// [`StackRules::send_head`]; a segment joining the skb sent at this instant goes
    /// with it).
    #[inline]
    fn tso_defer(&self, now: Time, out: &[Packet]) -> SkbSend {
        // The cheapest test first: a stack that sends each segment as itself (the RFC
        // and ns-2 senders) never asks.
        if self.drv.is_none() && self.stack.unpaced_skb_segments() <= 1 {
            return SkbSend::SendNow;
        }
        let w = &self.w;
        if self.phase != Phase::Open || w.snd_nxt != w.snd_max {
            return SkbSend::SendNow;
        }
        let unsent = self.app_end - w.snd_max;
        let max_segs = self.skb_segments(now);
        if max_segs <= 1 || unsent <= w.mss || self.joins_skb(now, out, max_segs) {
            return SkbSend::SendNow;
        }
        // cwnd_quota = min(tcp_cwnd_test, max_segs), which tcp_grow_skb fills the head to.
        let room = (w.cwnd / w.mss).saturating_sub(self.pipe_segments());
        let quota = room.min(max_segs) * w.mss;
        let head = self.stack.send_head(w.snd_nxt, self.app_end, quota);
        // "if (tso_segs == 1)": Nagle's test only, which a full-sized segment passes.
        if head.0 <= w.mss {
            return SkbSend::SendNow;
        }
        self.stack.tso_defer(&self.skb_start(now, max_segs, head))
    }

    /// Segments an skb may hold (`tcp_tso_segs`): the paced controller's, else the
    /// stack's ([`StackRules::unpaced_skb_segments`]).
    #[inline]
    fn skb_segments(&self, now: Time) -> u64 {
        match &self.drv {
            None => self.stack.unpaced_skb_segments(),
            Some(d) => self.cc.tso_segs(&d.view(&self.sender_view(now))),
        }
    }

    /// `cwnd_quota * mss_now` for the skb that the new segment just sent (already in
    /// flight) starts: `tcp_cwnd_test`'s room before it, at most `tcp_tso_segs`.
    #[cold]
    fn skb_quota(&self, now: Time) -> u64 {
        let w = &self.w;
        let in_flight = self.pipe_segments().saturating_sub(1);
        let room = (w.cwnd / w.mss).saturating_sub(in_flight).max(1);
        room.min(self.skb_segments(now)) * w.mss
    }

    /// Whether the segment at snd_nxt joins the skb sent at `now`.
    fn joins_skb(&self, now: Time, out: &[Packet], segs: u64) -> bool {
        match &self.drv {
            None => crate::unpaced_skb::joins_skb(out, self.w.snd_nxt, segs),
            Some(d) => d.joins_skb(now),
        }
    }

    /// [`Self::tso_defer`]'s view of the sender.
    #[cold]
    fn skb_start(&self, now: Time, max_segs: u64, head: (u64, bool)) -> SkbStart {
        let w = &self.w;
        let outstanding = w.snd_una < w.snd_max;
        SkbStart {
            now,
            below_recovery: self.phase == Phase::Open,
            wstamp: self.drv.as_ref().map_or(self.last_xmit, |d| d.wstamp()),
            mss: w.mss,
            cwnd: w.cwnd / w.mss,
            in_flight: self.pipe_segments(),
            send_win: (w.snd_una + self.rwnd).saturating_sub(w.snd_nxt),
            snd_wnd: self.rwnd,
            max_segs,
            head_len: head.0,
            head_is_tail: head.1,
            head_sent: w.segs.get(0).filter(|_| outstanding).map(|s| s.last_sent),
            srtt: self.rto.srtt(),
        }
    }

    /// In fast recovery: ns-2 Reno's `send_much()` from snd_nxt, or the stack's choice
    /// if it makes one (a Linux host's RACK), else the recovery algorithm's (RFC 6675).
    #[inline]
    fn next_in_recovery(&self) -> Option<Transmit> {
        if self.stack.recovery_from_snd_nxt() {
            return self.window_from_snd_nxt_allows().then_some(Transmit::New);
        }
        let fits = self.next_segment_end().is_some();
        let new_fits = fits && self.w.snd_nxt == self.w.snd_max;
        if let Some(choice) = self.stack.next_in_recovery(&self.w, new_fits) {
            return choice;
        }
        self.recovery.next_in_recovery(&self.w, fits)
    }

    /// `tcp_update_pacing_rate` at the end of `tcp_cong_control`, for a stack whose
    /// skbs without pacing follow it ([`StackRules::on_cong_control`]); a paced
    /// sender's skbs are its controller's. `min_rtt`: `tcp_min_rtt`.
    #[inline]
    fn update_pacing_rate(&mut self, min_rtt: Option<Dur>) {
        if self.drv.is_some() || self.stack.unpaced_skb_segments() <= 1 {
            return;
        }
        let w = &self.w;
        let v = PacingInputs {
            mss: w.mss,
            cwnd: w.cwnd / w.mss,
            ssthresh: w.ssthresh / w.mss,
            packets_out: w.flight_size().div_ceil(w.mss),
            srtt_us8: self.rto.srtt().map_or(0, |d| d.0 / 1000 * 8),
            min_rtt_us: min_rtt.map(|d| d.0 / 1000),
        };
        self.stack.on_cong_control(&v);
    }

    /// `tcp_write_xmit`'s end: `is_cwnd_limited |= tcp_packets_in_flight >= cwnd`, then
    /// `tcp_cwnd_validate` if it sent something or stopped at cwnd
    /// ([`crate::linux_cwnd_limited`]).
    /// `deferred`: the TSO deferral held an skb for cwnd (`is_cwnd_limited` set by
    /// `tcp_tso_should_defer`).
    fn validate_cwnd(&mut self, sent_any: bool, deferred: bool) {
        let w = &self.w;
        let limited = deferred || self.pipe_segments() >= w.cwnd / w.mss;
        if sent_any || limited {
            let packets_out = w.flight_size().div_ceil(w.mss);
            (self.stack).on_write_xmit(w.snd_una, w.snd_max, packets_out, limited);
        }
    }

    /// End of the segment at snd_nxt, if there is one the receiver window admits.
    fn next_segment_end(&self) -> Option<u64> {
        let w = &self.w;
        let end = if w.snd_nxt < w.snd_max {
            w.segs.containing(w.snd_nxt)?.end()
        } else {
            (w.snd_max + w.mss).min(self.app_end)
        };
        let edge = w.snd_una + self.rwnd;
        if end <= edge {
            return (end > w.snd_nxt).then_some(end);
        }
        self.cut_at_window_edge(edge)
    }

    /// New data whose next segment ends past the window's right edge `edge`: a
    /// segment up to the edge, when this send pass already sent new data and the stack
    /// cuts there ([`crate::stacks::linux::window_edge`]; RFC: none).
    #[cold]
    fn cut_at_window_edge(&self, edge: u64) -> Option<u64> {
        let w = &self.w;
        let cut = w.snd_nxt == w.snd_max
            && w.snd_max > self.pass_from
            && edge > w.snd_nxt
            && self.stack.cuts_at_window_edge(w.snd_una, w.snd_max);
        cut.then_some(edge)
    }

    /// ns-2 `send_much()` in Reno and NewReno fast recovery: the packet at `t_seqno_`
    /// goes out while `t_seqno_ <= highest_ack_ + cwnd_ + dupwnd_`, i.e. while the
    /// segment at snd_nxt ends within snd_una + the inflated cwnd, a go-back-N
    /// retransmission below snd_max included (`Ns2Switches::fast_recovery_from_t_seqno`).
    fn window_from_snd_nxt_allows(&self) -> bool {
        self.next_segment_end()
            .is_some_and(|end| end <= self.w.snd_una + self.w.cwnd)
    }

    /// RFC 5681: a segment may go out while it ends within snd_una + cwnd; Limited
    /// Transmit (RFC 3042) lets the first two duplicate ACKs each release one more.
    /// Returns the end of the segment at snd_nxt when it may go out.
    fn open_window_end(&self) -> Option<u64> {
        let end = self.next_segment_end()?;
        let new_data = self.w.snd_nxt == self.w.snd_max;
        let lt_here = new_data || self.stack.limited_transmit_in_go_back_n();
        let limited = if self.cfg.limited_transmit && lt_here {
            self.dupacks.min(2) as u64 * self.w.mss
        } else {
            0
        };
        // ns-2 RenoTcpAgent::recv() with exitFastRetrans_ false: window() =
        // cwnd_ + dupwnd_, dupwnd_ = dupacks_ from the DupThresh-th duplicate on, even
        // when bugFix_ suppressed the fast retransmit.
        let limited =
            if self.dupacks >= self.w.dupthresh && self.stack.inflates_without_fast_retransmit() {
                self.dupacks as u64 * self.w.mss
            } else {
                limited
            };
        (end <= self.w.snd_una + self.w.cwnd + self.beyond_cwnd(end, limited)).then_some(end)
    }

    /// How far beyond snd_una + cwnd the window reaches for the segment ending at
    /// `end`, Limited Transmit's `limited` aside. In the Loss state of a stack whose
    /// SACKed segments take no room in the window (a Linux host's
    /// `tcp_packets_in_flight`): also the SACKed bytes below `end`, which the window
    /// from snd_una then leaves out, else nothing more (RFC 5681 3.1).
    /// Otherwise the stack's choice from Limited Transmit's `limited` and those bytes
    /// ([`StackRules::open_window_beyond_cwnd`]).
    #[inline]
    fn beyond_cwnd(&self, end: u64, limited: u64) -> u64 {
        if matches!(self.phase, Phase::Loss { .. }) {
            return if self.stack.sacked_outside_window_in_loss() {
                limited + self.w.segs.sacked_bytes_below(end)
            } else {
                limited
            };
        }
        let sacked = self.w.segs.sacked_bytes_below(end);
        (self.stack).open_window_beyond_cwnd(limited, sacked, self.cfg.sack_enabled())
    }

    /// Sends the segment at snd_nxt: a go-back-N retransmission below snd_max (skipping
    /// SACKed segments), else new data. Returns false when there is nothing to send.
    fn send_next(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        let Some(end) = self.next_segment_end() else {
            return false;
        };
        self.send_segment(now, end, out);
        true
    }

    /// Sends the segment at snd_nxt, which ends at `end` ([`Self::next_segment_end`]).
    /// New data, the common case, is sent inline at the caller; a go-back-N resend
    /// below snd_max goes out of line.
    #[inline(always)]
    fn send_segment(&mut self, now: Time, end: u64, out: &mut Vec<Packet>) {
        let start = self.w.snd_nxt;
        if start < self.w.snd_max {
            self.resend_below_snd_max(now, start, end, out);
        } else {
            self.w.segs.push_new(start, end, now);
            self.w.snd_nxt = end;
            self.w.snd_max = end;
            if end - start < self.w.mss {
                self.stack.on_small_segment_sent(end);
            }
            self.emit(now, start, end, false, out);
        }
    }

    /// [`Self::send_segment`] below snd_max: the go-back-N retransmission of the segment
    /// `[start, end)`, unless it is SACKed.
    #[inline(never)]
    fn resend_below_snd_max(&mut self, now: Time, start: u64, end: u64, out: &mut Vec<Packet>) {
        let i = self
            .w
            .segs
            .index_of(start)
            .expect("snd_nxt inside the segment table");
        self.w.snd_nxt = end;
        // ns-2 Sack1TcpAgent::send_much(): see Ns2Switches::sack1_go_back_n_resends_sacked.
        let resend_sacked = self.stack.go_back_n_resends_sacked();
        if resend_sacked || !self.w.segs.get(i).is_some_and(|s| s.sacked) {
            self.mark_retransmitted(now, i);
            self.unmark_fack_go_back_n(i);
            self.emit(now, start, end, true, out);
        }
    }

    /// Retransmits table entry `i` without moving snd_nxt (fast retransmit, recovery).
    fn retransmit(&mut self, now: Time, i: usize, out: &mut Vec<Packet>) {
        let Some(seg) = self.w.segs.get(i).copied() else {
            return;
        };
        self.mark_retransmitted(now, i);
        self.emit(now, seg.start, seg.end(), true, out);
        if let Phase::Recovery { .. } = self.phase {
            self.recovery.on_retransmitted(&self.w, seg.start);
            if i == 0 && self.head_retransmit_restarts_timer() {
                // tcp_xmit_retransmit_queue: tcp_reset_xmit_timer(.., pace_delay = true).
                self.rearm_rto(now);
            }
        }
    }

    /// [`StackRules::restarts_timer_on_head_retransmit`], the reordering timer not armed
    /// (a Linux host's `tcp_xmit_retransmit_queue`).
    fn head_retransmit_restarts_timer(&self) -> bool {
        self.stack.restarts_timer_on_head_retransmit()
            && self.stack.timer_kind() != TimerKind::Reorder
    }

    /// ns-2 FACK in fast recovery (`Ns2Switches::fack_timeout_keeps_recovery`): every ACK
    /// runs `oldack()` -> `newtimer()`, which sets the timer while `t_seqno_ > seqno`,
    /// also when everything sent is acknowledged, since recovery lasts until `recover_
    /// = t_seqno_` itself is.
    /// ns-2 `FackTcpAgent::recv()` in fast recovery: "No SACK blocks indicates fast
    /// recovery is over": `fastrecov_` is cleared only when `sa_length() == 0 &&
    /// last_ack_ >= recover_`, so an ACK at the recovery point that still carries SACK
    /// blocks keeps the agent in recovery (`Ns2Switches::fack_exit_needs_ack_without_sack`).
    fn fack_exit_held(&self) -> bool {
        self.stack.holds_recovery_exit()
    }

    /// The same test on every ACK of fast recovery, new or not: a later ACK without
    /// SACK blocks at or beyond the recovery point ends the recovery a SACK-carrying
    /// ACK held open.
    fn fack_exit_on_ack_without_sack(&mut self) {
        if let Phase::Recovery { point } = self.phase {
            if self.stack.ends_held_recovery() && self.w.snd_una >= point {
                self.exit_recovery();
            }
        }
    }

    fn fack_timer_runs_idle(&self) -> bool {
        matches!(self.phase, Phase::Recovery { .. }) && self.recovery.timeout_keeps_recovery()
    }

    /// `FackTcpAgent::timeout()` with nothing outstanding, still in fast recovery
    /// (`highest_ack_ == maxseq_`, `slow_start_restart_` set): `timeout_ = FALSE`,
    /// `slowdown(CLOSE_CWND_INIT)` (cwnd = the initial window, ssthresh kept), the timer
    /// restarted without back-off, and `send_much()`.
    fn fack_idle_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.fack_timer_runs_idle() {
            return;
        }
        self.recovery.on_timeout();
        self.w.cwnd = self.cfg.initial_window as u64 * self.w.mss;
        self.arm_timer(now);
        self.try_send(now, out);
    }

    /// ns-2 FACK in fast recovery after a timeout (`Ns2Switches::fack_timeout_keeps_recovery`)
    /// sends go-back-N segments from `t_seqno_`, not from its scoreboard: they carry no
    /// `retran_` mark and do not count in `retran_data_`.
    fn unmark_fack_go_back_n(&mut self, i: usize) {
        let in_recovery = matches!(self.phase, Phase::Recovery { .. });
        if in_recovery && self.recovery.timeout_keeps_recovery() {
            if let Some(mut s) = self.w.segs.get_mut(i) {
                s.rexmit_in_episode = false;
            }
        }
    }

    fn mark_retransmitted(&mut self, now: Time, i: usize) {
        if let Some(mut s) = self.w.segs.get_mut(i) {
            s.rexmit_in_episode = true;
            s.count_retransmission();
            s.last_sent = now;
            let (start, end) = (s.start, s.end());
            self.watch.on_retransmit(start, end);
            self.stack.on_retransmit(start);
        }
        // Karn (RFC 6298 section 3): a retransmission ends the current RTT measurement.
        self.end_timing_by_karn();
    }

    /// Karn's rule (RFC 6298 section 3) ends the current RTT measurement, unless the
    /// flow keeps the timed segment's sample (`karn = false`, [Klein et al. 2004] III).
    fn end_timing_by_karn(&mut self) {
        if self.cfg.karn {
            self.timing = None;
        }
    }

    /// Builds and hands out one data segment (inlined at its three callers: the send
    /// of new data runs once per segment).
    #[inline(always)]
    fn emit(&mut self, now: Time, start: u64, end: u64, retx: bool, out: &mut Vec<Packet>) {
        let joins_skb = match self.drv {
            Some(_) => self.cc_on_sent(now, start, end, retx),
            None => {
                let segs = self.stack.unpaced_skb_segments();
                if retx {
                    let segs_table = &self.w.segs;
                    crate::unpaced_skb::joins_rtx_skb(out, start, segs, |seq| {
                        segs_table.containing(seq).is_some_and(|s| s.ends_skb())
                    })
                } else {
                    crate::unpaced_skb::joins_skb(out, start, segs)
                }
            }
        };
        if joins_skb {
            move_push_to_new_tail(out, start);
        }
        let mut p = Packet::new(0, self.flow, PacketKind::Data, now);
        p.wire_model = self.wire_model();
        p.seq = start;
        p.len = (end - start) as u32;
        p.retx = retx;
        // __tcp_transmit_skb: the control block's PSH (tcp_mark_push's, kept by the
        // skb's last segment), or GSO's on the last of an skb of two or more. New
        // data: the head skb's mark, which tcp_grow_skb and tso_fragment move; a
        // retransmission: the mark of the piece it was sent in, if it ended it.
        let pushed = if retx {
            self.retransmits_pushed(start)
        } else {
            let quota = (!joins_skb).then(|| self.skb_quota(now));
            (self.stack).on_new_data_sent(start, end, self.app_end, quota)
        };
        if self.stack.marks_push() {
            self.mark_skb_ends(start, retx, joins_skb, pushed);
        }
        p.set_push(joins_skb || pushed);
        // Karn (RFC 6298 section 3): time one new segment per flight.
        let starts_timing = !retx && self.timing.is_none();
        if starts_timing {
            self.timing = Some(Timing { end, sent_at: now });
        }
        if self.cfg.timestamps {
            p.set_ts(Some(Timestamps {
                val: self.ts_clock.read(now),
                ecr: self.ts_recent,
            }));
            p.timed = true;
        } else if starts_timing {
            p.timed = true;
        }
        self.stats.data_segments_sent += 1;
        self.stats.retransmissions += retx as u64;
        self.last_xmit = now;
        self.sizes.seal_data(&mut p);
        out.push(p);
        if let Phase::Recovery { .. } = self.phase {
            self.recovery.on_sent(&self.w);
            self.stack.on_recovery_send();
        }
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.timer.is_none() {
            self.arm_timer(now);
        }
        // tcp_write_xmit: new data reschedules the loss probe.
        if !retx {
            self.schedule_probe(now, false);
        }
    }

    /// Whether the retransmission of the segment at `start` carries the PSH mark of
    /// the piece it was sent in ([`crate::segments::Seg::skb_pushed`]; never where the
    /// stack sets no marks).
    fn retransmits_pushed(&self, start: u64) -> bool {
        self.w
            .segs
            .containing(start)
            .is_some_and(|s| s.skb_pushed())
    }

    /// The retransmission queue's pieces ([`crate::segments::Seg::ends_skb`]): a
    /// segment sent `[start, ..)` that starts an skb ends the piece before it (the
    /// send's `tso_fragment`, or a retransmission's `tcp_fragment`), and a new
    /// segment carrying the send queue's mark ends its piece with it.
    fn mark_skb_ends(&mut self, start: u64, retx: bool, joins_skb: bool, pushed: bool) {
        let segs = &mut self.w.segs;
        if !joins_skb && start > 0 {
            if let Some(i) = segs.index_of(start - 1) {
                segs.mark_skb_end(i, false);
            }
        }
        if pushed && !retx {
            if let Some(i) = segs.index_of(start) {
                segs.mark_skb_end(i, true);
            }
        }
    }

    /// Window room F-RTO needs beyond snd_max to probe with new data: one segment
    /// (RFC 5682 step 2b), or two in ns-2 (see `Ns2Switches::frto_needs_room_for_two`).
    fn frto_room(&self) -> u64 {
        self.stack.frto_room_segments() * self.w.mss
    }

    fn wire_model(&self) -> spikelab_core::WireModel {
        crate::wire_size::wire_model(&self.cfg)
    }

    fn arm_timer(&mut self, now: Time) {
        self.stack.on_timer_set(TimerKind::Rto);
        // The estimator's RTO with any kept spurious-timeout adaptation on top.
        self.armed_rto =
            self.adapt
                .apply(self.rto.rto(), self.rto.backoff_count(), self.rto.max_rto());
        self.timer = Some(self.stack_timer(now, now + self.armed_rto));
    }

    /// Checks the invariants that must hold between any two events. Run after every
    /// flow event: the tests are inlined at the call, the message built out of line.
    #[inline]
    pub fn check_invariants(&self) -> Result<(), String> {
        // Evaluated in full, without a branch per comparison: the common answer is
        // "all hold", which needs every comparison anyway.
        let w = &self.w;
        let ordered = (w.snd_una <= w.snd_nxt) & (w.snd_nxt <= w.snd_max);
        let within_app = w.snd_max <= self.app_end;
        let untimed = (w.snd_una < w.snd_max)
            & self.timer.is_none()
            & (self.handshake == Handshake::Established);
        if ordered & within_app & !untimed {
            return Ok(());
        }
        self.invariant_violation()
    }

    /// The first invariant of [`Self::check_invariants`] that fails, as a message.
    #[cold]
    #[inline(never)]
    fn invariant_violation(&self) -> Result<(), String> {
        let w = &self.w;
        if !(w.snd_una <= w.snd_nxt && w.snd_nxt <= w.snd_max) {
            return Err(format!(
                "snd_una {} <= snd_nxt {} <= snd_max {} violated",
                w.snd_una, w.snd_nxt, w.snd_max
            ));
        }
        if w.snd_max > self.app_end {
            return Err(format!(
                "sent beyond the application's data: {} > {}",
                w.snd_max, self.app_end
            ));
        }
        if w.snd_una < w.snd_max && self.timer.is_none() && self.handshake == Handshake::Established
        {
            return Err("data outstanding but no retransmission timer".into());
        }
        Ok(())
    }
}

/// A segment starting at `start` joins the skb of the segment before it: the skb's PSH
/// flag moves from that segment, still in `out`, to the new one. Linux forces PSH on
/// every skb of two or more segments (`__tcp_transmit_skb`: "Force a PSH flag on all
/// (GSO) packets to expedite GRO flush at receiver") and GSO leaves it on the last
/// segment only (`tcp_gso_segment`), so of an skb's segments the last carries it.
fn move_push_to_new_tail(out: &mut [Packet], start: u64) {
    if let Some(prev) = out.last_mut() {
        if prev.kind == PacketKind::Data && prev.end_seq() == start {
            prev.set_push(false);
        }
    }
}

/// The window as a congestion controller reads it.
#[inline]
fn cwnd_view(w: &Window) -> CwndView {
    CwndView {
        cwnd: w.cwnd,
        ssthresh: w.ssthresh,
        mss: w.mss,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rto::Rto;

    #[test]
    fn an_skbs_psh_flag_moves_to_the_segment_that_joins_it() {
        let data = |seq: u64, push: bool| {
            let mut p = Packet::new(0, FlowId(0), PacketKind::Data, Time::ZERO);
            (p.seq, p.len) = (seq, 1000);
            p.set_push(push);
            p
        };
        let mut out = vec![data(0, false), data(1000, true)];
        move_push_to_new_tail(&mut out, 2000);
        assert_eq!(
            out.iter().map(|p| p.push()).collect::<Vec<_>>(),
            [false, false]
        );
        // A segment not contiguous with the last one sent leaves that one's flag.
        let mut out = vec![data(5000, true)];
        move_push_to_new_tail(&mut out, 2000);
        assert!(out[0].push());
    }
    use crate::spurious::DetectorKind;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    /// A sender and a receiver are kept per connection for the whole run: their sizes
    /// (a test build; release is never larger) are held to today's so that growth is
    /// a decision (docs/src/performance.md, "Memory per flow and per link"; the
    /// engine's `sizes` test holds the connection around them).
    #[test]
    fn the_sender_and_receiver_stay_within_their_sizes() {
        let sender = std::mem::size_of::<TcpSender<Rto>>();
        let receiver = std::mem::size_of::<crate::TcpReceiver>();
        assert!(sender <= 1600, "TcpSender<Rto> grew to {sender} bytes");
        assert!(receiver <= 640, "TcpReceiver grew to {receiver} bytes");
    }

    /// A sender of `cfg` started at t = 0 with `bytes` written; `out` holds what it sent.
    fn started(cfg: &TcpConfig, bytes: u64) -> (TcpSender<Rto>, Vec<Packet>) {
        let mut s = TcpSender::new(FlowId(0), cfg, Rto::new(&cfg.rto));
        let mut out = Vec::new();
        s.on_start(ms(0), &mut out);
        s.on_app_data(ms(0), bytes, &mut out);
        (s, out)
    }

    /// A sender with 4 x 1000-byte segments outstanding at t = 0, no timestamps.
    fn sender_with_four_outstanding() -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: 1000,
            initial_window: 4,
            timestamps: false,
            ..TcpConfig::default()
        };
        started(&cfg, 20_000)
    }

    fn ack(n: u64) -> Packet {
        let mut p = Packet::new(0, FlowId(0), PacketKind::Ack, Time::ZERO);
        p.ack = n;
        p.rwnd = 65_535;
        p
    }

    #[test]
    fn the_initial_window_goes_out_at_once_and_arms_the_timer() {
        let (s, out) = sender_with_four_outstanding();
        assert_eq!(out.len(), 4);
        assert_eq!(s.next_deadline(), Some(ms(1000))); // RFC 6298 initial RTO 1 s
    }

    #[test]
    fn a_timeout_followed_by_the_third_duplicate_ack_is_a_fast_timeout() {
        let (mut s, mut out) = sender_with_four_outstanding();
        s.on_ack(ms(500), &ack(0), &mut out); // duplicate 1 before the timeout
        s.on_timer(ms(1000), &mut out);
        s.on_ack(ms(1100), &ack(0), &mut out); // 2
        assert!(s.fast_timeouts().is_empty());
        s.on_ack(ms(1110), &ack(0), &mut out); // 3: would have triggered fast retransmit
        assert_eq!(s.fast_timeouts(), &[0]);
    }

    #[test]
    fn a_timeout_followed_by_a_new_ack_is_not_a_fast_timeout() {
        let (mut s, mut out) = sender_with_four_outstanding();
        s.on_timer(ms(1000), &mut out);
        s.on_ack(ms(1100), &ack(1000), &mut out);
        s.on_ack(ms(1110), &ack(1000), &mut out);
        s.on_ack(ms(1120), &ack(1000), &mut out);
        s.on_ack(ms(1130), &ack(1000), &mut out);
        assert!(s.fast_timeouts().is_empty());
    }

    /// F-RTO (`frto`) with 8 x 1000-byte segments out, ssthresh 4000: a timeout, then
    /// two new ACKs for original transmissions; returns (ssthresh, cwnd) after the second.
    fn frto_spurious_response(ns2_response: bool) -> (u64, u64) {
        let mut cfg = TcpConfig {
            mss: 1000,
            initial_window: 8,
            initial_ssthresh: 4000,
            timestamps: false,
            ..TcpConfig::default()
        };
        cfg.spurious.driver = Some(DetectorKind::Frto);
        cfg.ns2.frto_spurious_response_1 = ns2_response;
        let (mut s, mut out) = started(&cfg, 40_000);
        assert_eq!(out.len(), 8);
        s.on_timer(ms(1000), &mut out);
        // The first new ACK: F-RTO step 2b sends new segments 8000 and 9000.
        out.clear();
        s.on_ack(ms(1100), &ack(1000), &mut out);
        let sent: Vec<u64> = out.iter().map(|p| p.seq).collect();
        assert_eq!(sent, vec![8000, 9000]);
        // The second acknowledges an original transmission: spurious (step 3b).
        s.on_ack(ms(1110), &ack(2000), &mut out);
        assert_eq!(s.stats().spurious_responses, 1);
        // Counted as the kernel counts an F-RTO undo: TCPLossUndo and TCPSpuriousRTOs.
        let u = s.stats().undos;
        assert_eq!((u.loss_undo, u.spurious_rtos, u.dsack_undo), (1, 1, 0));
        (s.window().ssthresh, s.window().cwnd)
    }

    #[test]
    fn ns2_spurious_response_1_sets_cwnd_from_the_flight_and_ssthresh_from_pipe_prev() {
        // ns-2 spurious_timeout(): cwnd_ = t_seqno_ 10 - prev_highest_ack_ 0 = 10
        // packets (9 outstanding before the ACK, plus one); ssthresh_ = pipe_prev_ =
        // max(window() 8, ssthresh_ 4) at the timeout.
        assert_eq!(frto_spurious_response(true), (8000, 10_000));
        // The configured response (eifel-original option 1): the pre-timeout state.
        assert_eq!(frto_spurious_response(false), (4000, 8000));
    }

    #[test]
    fn a_timeout_halves_ssthresh_once_and_goes_back_n() {
        let (mut s, mut out) = sender_with_four_outstanding();
        out.clear();
        s.on_timer(ms(1000), &mut out);
        // RFC 5681 (4): max(4000 / 2, 2000); cwnd = 1 SMSS; only the first segment resent.
        assert_eq!((s.window().ssthresh, s.window().cwnd), (2000, 1000));
        assert_eq!((out.len(), out[0].seq, out[0].retx), (1, 0, true));
        // RFC 6298 (5.5): the timer backs off to 2 s.
        assert_eq!(s.next_deadline(), Some(ms(3000)));
        out.clear();
        s.on_timer(ms(3000), &mut out);
        assert_eq!(s.window().ssthresh, 2000, "held on a repeated timeout");
        // The first new ACK resumes slow start from snd_una: go-back-N.
        out.clear();
        s.on_ack(ms(3100), &ack(1000), &mut out);
        let resent: Vec<(u64, bool)> = out.iter().map(|p| (p.seq, p.retx)).collect();
        assert_eq!(resent, vec![(1000, true), (2000, true)]);
    }

    /// ssthresh after a Reno timeout in fast recovery (8 segments out, five duplicate
    /// ACKs inflate cwnd to 9 segments), with ns-2's halving of min(cwnd, rwnd).
    fn ssthresh_after_timeout_in_reno_recovery(drop_inflation: bool) -> u64 {
        let mut cfg = TcpConfig {
            mss: 1000,
            initial_window: 8,
            timestamps: false,
            recovery: RecoveryKind::Reno,
            ssthresh_rule: SsthreshRule::Ns2,
            ..TcpConfig::default()
        };
        cfg.ns2.timeout_drops_inflation = drop_inflation;
        let (mut s, mut out) = started(&cfg, 40_000);
        for i in 0..5 {
            s.on_ack(ms(100 + i), &ack(0), &mut out);
        }
        assert_eq!(s.window().cwnd, 9000, "ssthresh 4 + 3 + 2 duplicate ACKs");
        let deadline = s.next_deadline().unwrap();
        s.on_timer(deadline, &mut out);
        s.window().ssthresh
    }

    #[test]
    fn a_timeout_in_reno_recovery_halves_the_uninflated_window_as_ns2_does() {
        // RFC-style: half of the inflated 9 segments; ns-2 RenoTcpAgent::timeout():
        // dupwnd_ = 0 first, so half of cwnd_ = ssthresh 4.
        assert_eq!(ssthresh_after_timeout_in_reno_recovery(false), 4000);
        assert_eq!(ssthresh_after_timeout_in_reno_recovery(true), 2000);
    }

    #[test]
    fn selective_repeat_resends_only_the_timed_out_segment_then_new_data() {
        let cfg = TcpConfig {
            mss: 1000,
            initial_window: 4,
            timestamps: false,
            timeout_retransmit: TimeoutRetransmit::SelectiveRepeat,
            ..TcpConfig::default()
        };
        let (mut s, mut out) = started(&cfg, 20_000);
        out.clear();
        s.on_timer(ms(1000), &mut out);
        assert_eq!(
            out.iter().map(|p| (p.seq, p.retx)).collect::<Vec<_>>(),
            vec![(0, true)]
        );
        out.clear();
        s.on_ack(ms(1100), &ack(4000), &mut out);
        assert!(
            out.iter().all(|p| !p.retx && p.seq >= 4000),
            "no go-back-N: {out:?}"
        );
    }

    fn selective_repeat_sender(karn: bool) -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: 1000,
            initial_window: 4,
            timestamps: false,
            timeout_retransmit: TimeoutRetransmit::SelectiveRepeat,
            karn,
            ..TcpConfig::default()
        };
        started(&cfg, 20_000)
    }

    #[test]
    fn karns_rule_drops_the_sample_of_a_segment_that_timed_out() {
        let (mut s, mut out) = selective_repeat_sender(true);
        s.on_timer(ms(1000), &mut out);
        let info = s.on_ack(ms(1300), &ack(1000), &mut out);
        assert_eq!((info.rtt_sample, s.stats().rtt_samples), (None, 0));
    }

    #[test]
    fn without_karn_a_delayed_timed_segment_gives_its_whole_rtt() {
        // [Klein et al. 2004] III: RTT_new[k] = RTT[k] + D[k] reaches S and V even when
        // the delay made the segment time out.
        let (mut s, mut out) = selective_repeat_sender(false);
        s.on_timer(ms(1000), &mut out);
        let info = s.on_ack(ms(1300), &ack(1000), &mut out);
        assert_eq!(info.rtt_sample, Some(Dur::from_millis(1300)));
        assert_eq!(s.stats().rtt_samples, 1);
    }

    #[test]
    fn ns2s_rule_halves_ssthresh_again_on_a_repeated_timeout() {
        let cfg = TcpConfig {
            mss: 1000,
            initial_window: 8,
            timestamps: false,
            ssthresh_rule: SsthreshRule::Ns2,
            ..TcpConfig::default()
        };
        let (mut s, mut out) = started(&cfg, 20_000);
        s.on_timer(ms(1000), &mut out);
        assert_eq!(s.window().ssthresh, 4000); // min(cwnd 8000, rwnd) / 2
        s.on_timer(ms(3000), &mut out);
        assert_eq!(s.window().ssthresh, 2000); // cwnd is 1 segment now: floor of 2
    }

    fn ns2_sender(window: u64) -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            handshake: false,
            receiver_window: window * 1000,
            initial_window: 4,
            ..TcpConfig::ns2_2002()
        };
        started(&cfg, 40_000)
    }

    fn ns2_ack(n: u64) -> Packet {
        let mut p = ack(n);
        p.rwnd = 20_000;
        p
    }

    #[test]
    fn ns2_ssthresh_starts_at_the_advertised_window() {
        let (s, _) = ns2_sender(20);
        assert_eq!(s.window().ssthresh, 20_000);
    }

    #[test]
    fn ns2_limited_transmit_also_releases_go_back_n_retransmissions() {
        let (mut s, mut out) = ns2_sender(20);
        s.on_timer(ms(6000), &mut out); // cwnd 1, go back to segment 0
        out.clear();
        s.on_ack(ms(6100), &ns2_ack(0), &mut out); // a duplicate: send_one()
        assert_eq!(
            out.iter().map(|p| (p.seq, p.retx)).collect::<Vec<_>>(),
            vec![(1000, true)]
        );
    }

    /// A NewReno sender without bugFix, ten segments out, times out and goes back N;
    /// the old window's duplicate ACKs then trigger a fast retransmit. Returns what
    /// the fourth duplicate ACK sends and cwnd after the third.
    fn fast_retransmit_in_go_back_n(from_t_seqno: bool) -> (Vec<(u64, bool)>, u64) {
        let mut cfg = TcpConfig {
            handshake: false,
            receiver_window: 20_000,
            initial_window: 10,
            recovery: RecoveryKind::NewReno,
            careful_fast_retransmit: false,
            ..TcpConfig::ns2_2002()
        };
        cfg.ns2.fast_recovery_from_t_seqno = from_t_seqno;
        let (mut s, mut out) = started(&cfg, 40_000);
        s.on_timer(ms(6000), &mut out); // cwnd 1, resend 0
        for t in [6100, 6101, 6102] {
            s.on_ack(ms(t), &ns2_ack(0), &mut out); // send_one() x2, then fast rtx
        }
        let cwnd = s.window().cwnd;
        out.clear();
        s.on_ack(ms(6103), &ns2_ack(0), &mut out);
        (out.iter().map(|p| (p.seq, p.retx)).collect(), cwnd)
    }

    #[test]
    fn ns2_fast_retransmit_in_go_back_n_halves_to_zero_and_keeps_going_back() {
        // ns-2 slowdown(CLOSE_CWND_HALF): cwnd_ = (int)(1 / 2) = 0, + dupwnd_ 3; the
        // fourth duplicate opens the window to t_seqno_ = segment 3.
        assert_eq!(
            fast_retransmit_in_go_back_n(true),
            (vec![(3000, true)], 3000)
        );
        // RFC 5681: ssthresh 2 + 3 segments against ten outstanding: nothing.
        assert_eq!(fast_retransmit_in_go_back_n(false), (vec![], 5000));
    }

    #[test]
    fn ns2_fast_retransmit_restarts_the_timer_and_sets_the_careful_point() {
        let (mut s, mut out) = ns2_sender(20);
        for t in [100, 101, 102] {
            s.on_ack(ms(t), &ns2_ack(0), &mut out);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.next_deadline(), Some(ms(102) + s.armed_rto()));
        // A partial ACK ends Reno's recovery; three more duplicates below the point
        // set at the fast retransmit start nothing (bugFix_).
        s.on_ack(ms(200), &ns2_ack(1000), &mut out);
        for t in [201, 202, 203] {
            s.on_ack(ms(t), &ns2_ack(1000), &mut out);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
    }

    /// An `ns2-2002` FACK sender with segments 0..8 outstanding.
    fn ns2_fack_sender() -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            recovery: RecoveryKind::Fack,
            handshake: false,
            receiver_window: 20_000,
            initial_window: 8,
            ..TcpConfig::ns2_2002()
        };
        let (s, mut out) = started(&cfg, 40_000);
        out.clear();
        (s, out)
    }

    /// A duplicate ACK for segment 0 SACKing 1000..`end`.
    fn ns2_sack_ack(end: u64) -> Packet {
        let mut p = ns2_ack(0);
        p.push_sack(1000, end);
        p
    }

    #[test]
    fn ns2_fack_sends_nothing_on_sack_acks_before_recovery() {
        let (mut s, mut out) = ns2_fack_sender();
        s.on_ack(ms(100), &ns2_sack_ack(2000), &mut out);
        s.on_ack(ms(101), &ns2_sack_ack(3000), &mut out);
        assert!(out.is_empty(), "no Limited Transmit: {out:?}");
        assert_eq!(s.window().cwnd, 8000);
    }

    #[test]
    fn ns2_fack_recovery_restarts_cwnd_at_one_packet_and_grows_it_per_ack() {
        let (mut s, mut out) = ns2_fack_sender();
        for (t, end) in [(100, 2000), (101, 3000), (102, 4000)] {
            s.on_ack(ms(t), &ns2_sack_ack(end), &mut out);
        }
        assert_eq!(
            out.iter().map(|p| (p.seq, p.retx)).collect::<Vec<_>>(),
            vec![(0, true)]
        );
        assert_eq!((s.window().cwnd, s.window().ssthresh), (1000, 4000));
        s.on_ack(ms(103), &ns2_sack_ack(5000), &mut out);
        assert_eq!(s.window().cwnd, 2000);
    }

    #[test]
    fn ns2_fack_recovery_ends_only_on_an_ack_without_sack_blocks() {
        let (mut s, mut out) = ns2_fack_sender();
        for (t, end) in [(100, 2000), (101, 3000), (102, 4000), (103, 5000)] {
            s.on_ack(ms(t), &ns2_sack_ack(end), &mut out);
        }
        for (t, end) in [(104, 6000), (105, 7000), (106, 8000), (107, 9000)] {
            s.on_ack(ms(t), &ns2_sack_ack(end), &mut out);
        }
        let snd_max = s.window().snd_max;
        assert!(snd_max >= 11_000, "sent beyond recover_ 9000: {snd_max}");
        // recover_ (9000) acknowledged, but the ACK still carries a block above it.
        let mut p = ns2_ack(10_000);
        p.push_sack(snd_max - 1000, snd_max);
        s.on_ack(ms(200), &p, &mut out);
        assert!(
            matches!(s.phase(), Phase::Recovery { .. }),
            "{:?}",
            s.phase()
        );
        s.on_ack(ms(201), &ns2_ack(10_000), &mut out);
        assert_eq!(
            s.phase(),
            Phase::Open,
            "the same ACK without blocks ends it"
        );
    }

    #[test]
    fn ns2_fack_stays_in_recovery_through_a_timeout() {
        let (mut s, mut out) = ns2_fack_sender();
        for (t, end) in [(100, 2000), (101, 3000), (102, 4000)] {
            s.on_ack(ms(t), &ns2_sack_ack(end), &mut out);
        }
        let Phase::Recovery { point } = s.phase() else {
            panic!("not in recovery: {:?}", s.phase());
        };
        assert_eq!(
            point, 9000,
            "recover_ = t_seqno_ = 8: one beyond the highest sent"
        );
        s.on_timer(ms(60_000), &mut out);
        assert_eq!(s.phase(), Phase::Recovery { point });
    }

    #[test]
    fn ns2_fack_stopped_by_a_retransmission_lost_again_resumes_at_the_timer() {
        let (mut s, mut out) = ns2_fack_sender();
        for (t, end) in [(100, 2000), (101, 3000), (102, 4000)] {
            s.on_ack(ms(t), &ns2_sack_ack(end), &mut out);
        }
        s.on_timer(ms(60_000), &mut out); // still in recovery, go-back-N resends 0
        s.on_ack(ms(60_100), &ns2_sack_ack(4000), &mut out); // retransmits 0, mark 4000
        s.on_ack(ms(60_101), &ns2_sack_ack(5000), &mut out); // 5000 > 4000: lost again
        out.clear();
        s.on_ack(ms(60_200), &ns2_ack(8000), &mut out); // all acked, recover_ is 9000
        assert!(out.is_empty(), "sending is shut off: {out:?}");
        let deadline = s
            .next_deadline()
            .expect("newtimer() keeps the timer running");
        s.on_timer(deadline, &mut out);
        assert_eq!(out.first().map(|p| (p.seq, p.retx)), Some((8000, false)));
    }

    #[test]
    fn ns2_fack_duplicate_acks_restart_the_timer() {
        let (mut s, mut out) = ns2_fack_sender();
        s.on_ack(ms(500), &ns2_sack_ack(2000), &mut out);
        assert_eq!(s.next_deadline(), Some(ms(500) + s.armed_rto()));
    }

    // ns-2 FACK's RTT samples (`Ns2Switches::fack_samples_rtt_from_header_echo`).

    /// `ack` carrying ns-2's header echo of a packet sent at `echo`.
    fn echoing(mut ack: Packet, echo: Time) -> Packet {
        ack.ns2_ts_echo = echo;
        ack
    }

    #[test]
    fn ns2_fack_without_timestamps_samples_the_header_echo_of_a_duplicate_ack() {
        let (mut s, mut out) = ns2_fack_sender();
        assert!(!s.cfg.timestamps);
        s.on_ack(ms(500), &echoing(ns2_sack_ack(2000), ms(100)), &mut out);
        assert_eq!(s.estimator().srtt(), Some(Dur::from_millis(400)));
    }

    #[test]
    fn ns2_fack_without_the_header_echo_switch_takes_no_sample_from_a_duplicate_ack() {
        let (mut s, mut out) = ns2_fack_sender();
        Arc::make_mut(&mut s.cfg)
            .ns2
            .fack_samples_rtt_from_header_echo = false;
        s.stack = Stack::new(&s.cfg); // the stack reads the switches once
        s.on_ack(ms(500), &echoing(ns2_sack_ack(2000), ms(100)), &mut out);
        assert_eq!(s.estimator().srtt(), None);
    }

    #[test]
    fn ns2_fack_new_ack_without_blocks_takes_newacks_karn_sample_alone() {
        let (mut s, mut out) = ns2_fack_sender();
        s.on_ack(ms(300), &echoing(ns2_ack(1000), ms(100)), &mut out);
        assert_eq!(s.estimator().srtt(), Some(Dur::from_millis(300)));
    }

    #[test]
    fn ns2_fack_new_ack_with_blocks_goes_through_oldack_and_samples_the_echo_alone() {
        let (mut s, mut out) = ns2_fack_sender();
        let mut p = echoing(ns2_ack(1000), ms(100));
        p.push_sack(2000, 3000);
        let info = s.on_ack(ms(300), &p, &mut out);
        assert_eq!(s.estimator().srtt(), Some(Dur::from_millis(200)));
        assert_eq!(
            info.rtt_sample,
            Some(Dur::from_millis(200)),
            "reported once"
        );
    }

    #[test]
    fn ns2_fack_oldack_restarts_the_timer_on_the_rto_before_its_sample() {
        let (mut s, mut out) = ns2_fack_sender();
        let before = s.estimator().rto();
        s.on_ack(ms(500), &echoing(ns2_sack_ack(2000), ms(100)), &mut out);
        assert_ne!(s.estimator().rto(), before, "the sample changed the RTO");
        assert_eq!(s.next_deadline(), Some(ms(500) + before));
    }

    #[test]
    fn ns2_fack_duplicate_ack_without_blocks_sends_nothing_after_a_timeout() {
        let (mut s, mut out) = ns2_fack_sender();
        s.on_ack(ms(100), &ns2_ack(4000), &mut out); // cwnd 9, segments 4..12 out
        s.on_timer(ms(60_000), &mut out); // go-back-N: resends 4
        s.on_ack(ms(60_100), &ns2_ack(12_000), &mut out); // 4..11 were held: all acked
        let sent = out.len();
        s.on_ack(ms(60_101), &ns2_ack(12_000), &mut out); // a duplicate of the resend
        assert_eq!(out.len(), sent, "dupacks_ = -1: {:?}", &out[sent..]);
        Arc::make_mut(&mut s.cfg)
            .ns2
            .fack_duplicate_acks_send_nothing = false;
        s.stack = Stack::new(&s.cfg); // the stack reads the switches once
        s.on_ack(ms(60_102), &ns2_ack(12_000), &mut out);
        assert!(
            out.len() > sent,
            "RFC 3042 Limited Transmit without the switch"
        );
    }

    /// A `linux`-profile sender (no handshake, no timestamps, MSS 1000) that has just
    /// written 40 kB and sent its initial window.
    fn linux_host_with_data() -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            ..TcpConfig::linux()
        };
        started(&cfg, 40_000)
    }

    /// A linux host without loss probes or timestamps (its timer is the RTO), 40 kB
    /// written, after the ACK of its first segment at 100 ms (RTT 100 ms).
    fn linux_host_without_probes_after_one_ack() -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = linux_cfg(crate::LinuxSysctls {
            tcp_early_retrans: 0,
            tcp_timestamps: 0,
            ..Default::default()
        });
        let (mut s, mut out) = started(&cfg, 40_000);
        s.on_ack(ms(100), &ack(2000), &mut out);
        (s, out)
    }

    /// A sender of `cfg` (MSS 1000, no handshake, no timestamps, initial window
    /// `iw`) whose receiver offers 4056 B, started with 40 kB written.
    fn at_a_window_edge(cfg: TcpConfig, iw: u32) -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            initial_window: iw,
            receiver_window: 4_056,
            ..cfg
        };
        started(&cfg, 40_000)
    }

    /// What the initial window of 10 of [`at_a_window_edge`] sends, by length.
    fn lengths_at_a_window_edge(cfg: TcpConfig) -> Vec<u32> {
        let (_, out) = at_a_window_edge(cfg, 10);
        out.iter().map(|p| p.len).collect()
    }

    #[test]
    fn a_linux_host_cuts_a_sub_mss_segment_at_the_receive_windows_edge() {
        // tcp_mss_split_point: cwnd admits more than the window; the burst ends at
        // the window's right edge with the 56-byte remainder.
        let lens = lengths_at_a_window_edge(TcpConfig::linux());
        assert_eq!(lens, vec![1000, 1000, 1000, 1000, 56]);
    }

    #[test]
    fn the_rfc_sender_waits_for_a_whole_segment_at_the_receive_windows_edge() {
        let lens = lengths_at_a_window_edge(TcpConfig::default());
        assert_eq!(lens, vec![1000; 4]);
    }

    #[test]
    fn a_linux_host_cuts_no_segment_at_the_edge_while_cwnd_is_the_limit() {
        // max_len <= needed: cwnd (4 segments) ends the burst before the edge.
        let (_, out) = at_a_window_edge(TcpConfig::linux(), 4);
        let lens: Vec<u32> = out.iter().map(|p| p.len).collect();
        assert_eq!(lens, vec![1000; 4], "no 56-byte segment");
    }

    #[test]
    fn a_linux_host_holds_the_next_edge_cut_while_a_small_segment_is_unacknowledged() {
        // Minshall's Nagle check (tcp_minshall_check): the 56-byte segment is still
        // out, so the next pass stops at the last whole segment before the edge.
        let (mut s, mut out) = at_a_window_edge(TcpConfig::linux(), 10);
        out.clear();
        let mut a = ack(2000);
        a.rwnd = 4_056; // edge 6056: room from 4056 for 2000 B
        s.on_ack(ms(100), &a, &mut out);
        let lens: Vec<u32> = out.iter().map(|p| p.len).collect();
        assert_eq!(lens, vec![1000, 1000], "[4056, 6056): whole segments only");
        out.clear();
        let mut a = ack(3000);
        a.rwnd = 4_112; // edge 7112: from 6056 a whole segment and 56 B
        s.on_ack(ms(110), &a, &mut out);
        let lens: Vec<u32> = out.iter().map(|p| p.len).collect();
        assert_eq!(
            lens,
            vec![1000],
            "the 56 B at 4000 is unacknowledged: no cut"
        );
        out.clear();
        let mut a = ack(4056);
        a.rwnd = 4_056; // the small segment acknowledged; edge 8112
        s.on_ack(ms(120), &a, &mut out);
        let lens: Vec<u32> = out.iter().map(|p| p.len).collect();
        assert_eq!(lens, vec![1000, 56], "from 7056 the cut goes out again");
    }

    /// What a sender of `cfg` (MSS 1000, no handshake or timestamps, cwnd 10 in
    /// congestion avoidance, 40 kB written) sends on ACKs of one segment each at
    /// 100 ms, 100.5 ms and 101 ms (RTT 100 ms): the segments, PSH marked.
    fn sends_on_acks_of_one_segment(cfg: TcpConfig) -> Vec<Vec<(u64, bool)>> {
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            initial_window: 10,
            initial_ssthresh: 5_000,
            ..cfg
        };
        let (mut s, _) = started(&cfg, 40_000);
        [(100_000, 1000), (100_500, 2000), (101_000, 3000)]
            .into_iter()
            .map(|(at_us, n)| {
                let mut out = Vec::new();
                s.on_ack(Time(at_us * 1000), &ack(n), &mut out);
                out.iter().map(|p| (p.seq, p.push())).collect()
            })
            .collect()
    }

    #[test]
    fn a_linux_host_holds_a_lone_segment_for_the_next_ack_and_sends_a_pair() {
        // tcp_tso_should_defer: at 100.5 ms one segment of cwnd is free, the last
        // write 0.5 ms ago and the head's ACK due: it waits, and goes with the next
        // ACK's segment as an skb of two (PSH on its last).
        let sent = sends_on_acks_of_one_segment(TcpConfig::linux());
        assert_eq!(sent[0], vec![(10_000, false)], "the last write 100 ms ago");
        assert_eq!(sent[1], vec![], "deferred");
        assert_eq!(sent[2], vec![(11_000, false), (12_000, true)]);
    }

    #[test]
    fn the_rfc_sender_sends_each_segment_an_ack_frees() {
        let sent = sends_on_acks_of_one_segment(TcpConfig::default());
        let starts: Vec<Vec<u64>> = sent
            .iter()
            .map(|v| v.iter().map(|p| p.0).collect())
            .collect();
        assert_eq!(starts, vec![vec![10_000], vec![11_000], vec![12_000]]);
    }

    /// The PSH marks of what a sender of `cfg` (MSS 1000, no handshake or timestamps,
    /// 40 segments in its first window, in slow start) sends on the ACK of its first two
    /// segments 10 ms after it started: the ACK frees four.
    fn psh_after_a_fast_first_ack(cfg: TcpConfig) -> Vec<bool> {
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            initial_window: 40,
            ..cfg
        };
        let (mut s, _) = started(&cfg, 400_000);
        let mut out = Vec::new();
        s.on_ack(ms(10), &ack(2000), &mut out);
        out.iter().map(|p| p.push()).collect()
    }

    #[test]
    fn a_fast_linux_sender_sends_larger_skbs() {
        // tcp_update_pacing_rate after the ACK: 200 % of 42 x 1000 B per 10 ms, 8.4 MB/s;
        // tcp_tso_autosize: 8203 B per 1.024 ms, eight segments an skb. The four segments
        // the ACK frees leave as one skb, PSH on the last; at the floor of two they
        // would be two pairs.
        let linux = psh_after_a_fast_first_ack(TcpConfig::linux());
        assert_eq!(linux, [false, false, false, true]);
        let rfc = psh_after_a_fast_first_ack(TcpConfig::default());
        assert!(
            !rfc.is_empty() && rfc.iter().all(|p| !p),
            "the RFC stack marks none"
        );
    }

    #[test]
    fn a_linux_cwnd_grows_by_what_an_ack_delivered_not_by_segments_sacked_before() {
        let (mut s, mut out) = linux_host_with_data();
        s.on_ack(ms(100), &ack(2000), &mut out); // slow start: cwnd 12
        let mut a = ack(2000);
        a.push_sack(3000, 4000); // segment 3 delivered (SACKed): no growth yet
        s.on_ack(ms(110), &a, &mut out);
        let before = s.window().cwnd;
        // Segment 2 arrives: the ACK covers 2000-4000, but only segment 2 is new
        // to the receiver (tcp_cong_control's acked_sacked = 1).
        s.on_ack(ms(120), &ack(4000), &mut out);
        assert_eq!(s.window().cwnd, before + 1000);
    }

    #[test]
    fn a_linux_host_does_not_count_dsack_only_acks_toward_fast_retransmit() {
        let (mut s, mut out) = linux_host_with_data();
        s.on_ack(ms(300), &ack(2000), &mut out);
        let mut dsack = ack(2000);
        dsack.push_sack(0, 1000); // below the cumulative ACK: a D-SACK
        for t in [301, 302, 303] {
            s.on_ack(ms(t), &dsack, &mut out);
        }
        assert_eq!(s.stats().fast_retransmits, 0);
        // Three ACKs that SACK new data do start it.
        for (t, e) in [(304, 4000), (305, 5000), (306, 6000)] {
            let mut a = ack(2000);
            a.push_sack(3000, e);
            s.on_ack(ms(t), &a, &mut out);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
    }

    #[test]
    fn a_linux_host_probes_the_tail_with_new_data_before_its_rto() {
        let (mut s, mut out) = linux_host_with_data();
        s.on_ack(ms(100), &ack(2000), &mut out); // an RTT sample of 100 ms
        assert!(s.probe_armed());
        let deadline = s.next_deadline().unwrap();
        // PTO = 2 * SRTT + 2 ms after the new data sent at 100 ms (302 ms), but no
        // later than the RTO of the oldest segment (sent at 0, RTO 3 * RTT = 300 ms),
        // as the timer wheel runs a timer set at 100 ms for 200 ms.
        let wheel = crate::linux_timer_wheel::fires_at;
        assert_eq!(deadline, wheel(ms(100), Dur::from_millis(200)));
        out.clear();
        s.on_timer(deadline, &mut out);
        assert_eq!(out.len(), 1);
        assert!(!out[0].retx, "the probe is new data");
        assert_eq!(s.stats().timeouts, 0);
        assert!(!s.probe_armed());
        assert_eq!(s.next_deadline(), Some(wheel(deadline, s.current_rto())));
    }

    /// A linux host after an RTT sample of 100 ms (segments 0, 1 acknowledged at
    /// 100 ms), then an ACK at 200 ms that SACKs `sacked` from 3000 on: segment 2 missing.
    fn linux_host_missing_segment_two(sacked: u64) -> (TcpSender<Rto>, Vec<Packet>) {
        let (mut s, mut out) = linux_host_with_data();
        s.on_ack(ms(100), &ack(2000), &mut out);
        out.clear();
        let mut a = ack(2000);
        a.push_sack(3000, 3000 + sacked * 1000);
        s.on_ack(ms(200), &a, &mut out);
        (s, out)
    }

    /// `tcp_ack_update_rtt`: "if (seq_rtt_us < 0) seq_rtt_us = sack_rtt_us". A
    /// duplicate ACK that SACKs a segment for the first time is a sample of the RTO
    /// estimator, timed from the lowest segment it newly SACKs (`first_sackt`).
    #[test]
    fn a_linux_hosts_duplicate_ack_that_sacks_new_data_samples_the_rto() {
        let (mut s, mut out) = linux_host_with_data();
        s.on_ack(ms(100), &ack(2000), &mut out);
        assert_eq!(s.rto.srtt(), Some(Dur::from_millis(100)));
        // Segments 3 and 4, sent at 0 ms, SACKed at 300 ms: a 300 ms sample,
        // SRTT = 100 + (300 - 100) / 8.
        let mut a = ack(2000);
        a.push_sack(3000, 5000);
        s.on_ack(ms(300), &a, &mut out);
        assert_eq!(s.rto.srtt(), Some(Dur::from_millis(125)));
        // The same blocks again SACK nothing new: no sample.
        s.on_ack(ms(350), &a, &mut out);
        assert_eq!(s.rto.srtt(), Some(Dur::from_millis(125)));
    }

    /// A linux host without loss probes after one ACK (100 ms), whose segment 2 the ACK
    /// of 200 ms (SACK 3000-6000) fast-retransmits; with that ACK.
    fn linux_host_fast_retransmitting_at_200_ms() -> (TcpSender<Rto>, Vec<Packet>, Packet) {
        let (mut s, mut out) = linux_host_without_probes_after_one_ack();
        let mut a = ack(2000);
        a.push_sack(3000, 6000);
        s.on_ack(ms(200), &a, &mut out);
        assert_eq!(s.stats().fast_retransmits, 1, "segment 2 resent at 200 ms");
        (s, out, a)
    }

    /// `tcp_clean_rtx_queue`'s FLAG_SET_XMIT_TIMER: a duplicate ACK's SACK-based
    /// sample from a segment sent before the head's retransmission restarts the RTO.
    #[test]
    fn a_linux_hosts_sack_sample_older_than_the_heads_retransmission_restarts_the_rto() {
        let (mut s, mut out, mut a) = linux_host_fast_retransmitting_at_200_ms();
        // Segment 6, sent at 0 ms, SACKed at 300 ms: 300 ms > 300 - 200 ms.
        a.push_sack(6000, 7000);
        s.on_ack(ms(300), &a, &mut out);
        let wheel = crate::linux_timer_wheel::fires_at;
        assert_eq!(s.next_deadline(), Some(wheel(ms(300), s.current_rto())));
    }

    #[test]
    fn a_linux_hosts_retransmission_of_the_head_restarts_the_rto() {
        // No loss probe: the RTO was last restarted by the ACK of new data at 100 ms.
        // Segment 2 fast-retransmitted at 200 ms: tcp_xmit_retransmit_queue restarts
        // the RTO then.
        let (s, ..) = linux_host_fast_retransmitting_at_200_ms();
        let wheel = crate::linux_timer_wheel::fires_at;
        assert_eq!(s.next_deadline(), Some(wheel(ms(200), s.current_rto())));
    }

    #[test]
    fn rack_waits_a_quarter_min_rtt_before_declaring_a_loss_reordering() {
        // One segment SACKed: reo_wnd = min_rtt / 4 = 25 ms past RACK.rtt (200 ms).
        let (mut s, mut out) = linux_host_missing_segment_two(1);
        assert_eq!(s.stats().fast_retransmits, 0);
        assert!(s.probe_armed(), "the reordering timer is no RTO");
        // 227 ms (+ TCP_TIMEOUT_MIN), as the timer wheel runs it.
        let at = crate::linux_timer_wheel::fires_at(ms(200), Dur::from_millis(27));
        assert_eq!(s.next_deadline(), Some(at));
        out.clear();
        s.on_timer(at, &mut out);
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.stats().timeouts, 0);
        assert_eq!((out[0].seq, out[0].retx), (2000, true));
    }

    #[test]
    fn rack_declares_a_loss_at_once_when_dupthresh_segments_are_sacked() {
        let (s, out) = linux_host_missing_segment_two(3);
        assert_eq!(s.stats().fast_retransmits, 1);
        assert!(out.iter().any(|p| p.seq == 2000 && p.retx));
    }

    #[test]
    fn a_linux_host_undoes_fast_recovery_when_its_retransmission_is_dsacked() {
        // Segment 2 fast-retransmitted with cwnd 12: Reno halves to 6.
        let (mut s, mut out) = linux_host_missing_segment_two(3);
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.window().ssthresh, 6000, "PRR brings cwnd down to it");
        // The original arrives late (reordering), then the retransmission's D-SACK.
        s.on_ack(ms(210), &ack(6000), &mut out);
        let mut d = ack(6000);
        d.push_sack(2000, 3000);
        s.on_ack(ms(220), &d, &mut out);
        // tcp_try_undo_dsack -> tcp_undo_cwnd_reduction: prior_cwnd is back.
        assert_eq!(s.stats().recovery_undos, 1);
        let u = s.stats().undos;
        assert_eq!(
            (u.dsack_undo, u.loss_undo, u.full_undo),
            (1, 0, 0),
            "TCPDSACKUndo"
        );
        assert!(s.window().cwnd >= 12_000, "{}", s.window().cwnd);
        assert!(
            s.window().ssthresh >= 9000,
            "tcp_current_ssthresh: 3/4 of 12"
        );
        assert_eq!(s.stats().spurious_responses, 0, "no timeout was undone");
    }

    /// tcp_dsack_seen: "A spurious retransmission is delivered". In fast recovery an
    /// ACK whose only news is the D-SACK of a retransmission still adds a segment to
    /// PRR's prr_delivered (tcp_cwnd_reduction's acked_sacked): above ssthresh, where
    /// one segment goes out per two delivered, it is the second of a pair.
    #[test]
    fn a_linux_hosts_dsacked_retransmission_counts_as_delivered_in_prr() {
        let (mut s, mut out) = linux_host_with_data();
        for (t, a) in [(100, 2000), (110, 6000), (120, 10_000)] {
            s.on_ack(ms(t), &ack(a), &mut out); // slow start to cwnd 20
        }
        // Segments 10 and 12 missing: recovery with ssthresh 10, prior_cwnd 20.
        let mut a = ack(10_000);
        a.push_sack(13_000, 17_000);
        a.push_sack(11_000, 12_000);
        s.on_ack(ms(130), &a, &mut out);
        assert_eq!(s.stats().retransmissions, 2);
        // Segment 10's original arrives late: prr_delivered 6, ceil(10 * 6 / 20) = 3
        // segments sent so far, nothing more.
        let mut a = ack(12_000);
        a.push_sack(13_000, 17_000);
        s.on_ack(ms(131), &a, &mut out);
        let sent = out.len();
        // Its retransmission's D-SACK: prr_delivered 7, ceil(10 * 7 / 20) = 4.
        let mut d = ack(12_000);
        d.push_sack(10_000, 11_000);
        d.push_sack(13_000, 17_000);
        s.on_ack(ms(132), &d, &mut out);
        assert_eq!(
            s.stats().recovery_undos,
            0,
            "segment 12's retransmission is out"
        );
        assert_eq!(out.len(), sent + 1, "{:?}", &out[sent..]);
        assert!(!out[sent].retx, "new data");
    }

    /// tcp_fastretrans_alert: the ACK that reaches high_seq ends fast recovery (D) and,
    /// with a retransmission of new data sent in the recovery still marked lost,
    /// `tcp_time_to_recover` ("the loss is proven": lost_out counts it) starts another
    /// (E), halving ssthresh again, instead of opening cwnd to ssthresh.
    #[test]
    fn a_linux_host_ending_recovery_with_a_lost_retransmission_out_recovers_again() {
        let (mut s, mut out) = linux_host_missing_segment_two(3);
        assert_eq!(s.stats().fast_retransmits, 1);
        let Phase::Recovery { point: high } = s.phase() else {
            panic!("not in recovery");
        };
        // Everything below high_seq but segment 2 arrives: PRR sends new data.
        let mut a = ack(2000);
        a.push_sack(3000, high);
        out.clear();
        s.on_ack(ms(210), &a, &mut out);
        assert!(
            s.window().snd_max >= high + 2000,
            "new data sent from high_seq"
        );
        // The segment at high_seq is lost, the next one SACKed: RACK (no reordering
        // window in recovery) marks it lost and it is retransmitted.
        let mut a = ack(2000);
        a.push_sack(3000, high);
        a.push_sack(high + 1000, high + 2000);
        out.clear();
        s.on_ack(ms(420), &a, &mut out);
        assert!(out.iter().any(|p| p.seq == high && p.retx), "{out:?}");
        let ssthresh = s.window().ssthresh;
        // Segment 2's retransmission arrives: the ACK reaches high_seq.
        let mut a = ack(high);
        a.push_sack(high + 1000, high + 2000);
        s.on_ack(ms(430), &a, &mut out);
        assert_eq!(s.stats().fast_retransmits, 2, "a second recovery");
        assert!(matches!(s.phase(), Phase::Recovery { .. }));
        assert_eq!(s.window().ssthresh, ssthresh / 2, "halved again");
    }

    /// `tcp_ack` runs `tcp_fastretrans_alert`, which ends fast recovery at high_seq
    /// (cwnd = ssthresh), before `tcp_cong_control`, which then grows cwnd for the
    /// ACK's `acked_sacked`: the ACK ending recovery counts toward Reno's next segment
    /// (`snd_cwnd_cnt`), so ssthresh - 1 more ACKs of one segment add one.
    #[test]
    fn a_linux_hosts_ack_ending_fast_recovery_counts_toward_growth() {
        let (mut s, mut out) = linux_host_missing_segment_two(3);
        let Phase::Recovery { point: high } = s.phase() else {
            panic!("not in recovery");
        };
        let mut a = ack(2000);
        a.push_sack(3000, high);
        s.on_ack(ms(210), &a, &mut out);
        s.on_ack(ms(220), &ack(high), &mut out);
        assert_eq!(s.phase(), Phase::Open);
        let w = s.window().cwnd;
        assert_eq!(w, s.window().ssthresh);
        for k in 1..w / 1000 {
            s.on_ack(ms(220 + 10 * k), &ack(high + 1000 * k), &mut out);
        }
        assert_eq!(s.window().cwnd, w + 1000);
    }

    /// tcp_enter_loss: "Reduce ssthresh if it has not yet been made inside this window".
    #[test]
    fn a_linux_host_timing_out_in_fast_recovery_keeps_the_recoverys_ssthresh() {
        // Segment 2 fast-retransmitted with cwnd 12: ssthresh 6 segments.
        let (mut s, mut out) = linux_host_missing_segment_two(3);
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.window().ssthresh, 6000);
        // Nothing more arrives: the RTO fires while snd_una (2000) < high_seq.
        let mut guard = 0;
        while s.stats().timeouts == 0 {
            let t = s.next_deadline().unwrap();
            out.clear();
            s.on_timer(t, &mut out);
            guard += 1;
            assert!(guard < 10, "no timeout");
        }
        assert_eq!(s.window().cwnd, 1000, "the loss window");
        assert_eq!(s.window().ssthresh, 6000, "not halved again");
        // An undo of this timeout restores the cwnd from before the fast recovery (12).
        assert_eq!(s.snapshot, s.recovery_snapshot);
        assert_eq!(s.snapshot.cwnd, 12_000);
    }

    /// A `linux` host with `sysctls`, MSS 1000, no handshake and no timestamps option on
    /// the segments (the tests set what they compare through `sysctls`).
    /// The `linux` profile with congestion control `cc` and every other sysctl the
    /// kernel's default.
    fn linux_cc_cfg(cc: &str) -> TcpConfig {
        linux_cfg(crate::LinuxSysctls {
            tcp_congestion_control: crate::LinuxModule::named(cc).unwrap(),
            ..Default::default()
        })
    }

    fn linux_cfg(sysctls: crate::LinuxSysctls) -> TcpConfig {
        let mut cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            ..TcpConfig::linux()
        };
        sysctls.apply(&mut cfg);
        cfg.linux = Some(sysctls);
        cfg
    }

    /// T-Mobile UMTS at 125 s: the ACK of an original segment after a spurious
    /// timeout undoes it (`tcp_process_loss -> tcp_try_undo_loss`: cwnd = max(cwnd,
    /// prior_cwnd), the Open state), and `tcp_cong_control`, later in `tcp_ack`,
    /// grows the restored cwnd by the segment it delivered: the kernel sent two new
    /// segments on that ACK, one more than a growth before the undo would allow.
    #[test]
    fn a_linux_host_grows_the_cwnd_its_loss_undo_restored() {
        let cfg = linux_cfg(crate::LinuxSysctls {
            tcp_congestion_control: crate::LinuxModule::named("reno").unwrap(),
            tcp_early_retrans: 0,
            tcp_timestamps: 0,
            ..Default::default()
        });
        let (mut s, mut out) = started(&cfg, 40_000);
        s.on_ack(ms(100), &ack(2000), &mut out); // slow start: cwnd 12
        let before = s.window().cwnd;
        assert_eq!(before, 12_000);
        let mut fired = ms(0);
        while s.stats().timeouts == 0 {
            fired = s.next_deadline().unwrap();
            s.on_timer(fired, &mut out);
            assert!(fired < ms(10_000), "no timeout");
        }
        // F-RTO: the first new ACK sends new data (step 2b); the second acknowledges
        // a segment never retransmitted: the timeout was spurious (step 3b).
        s.on_ack(fired + Dur::from_millis(10), &ack(3000), &mut out);
        assert_eq!(s.stats().spurious_responses, 0);
        s.on_ack(fired + Dur::from_millis(20), &ack(4000), &mut out);
        assert_eq!(s.stats().spurious_responses, 1);
        assert_eq!(s.window().cwnd, before + 1000, "restored, then one more");
    }

    /// `tcp_cwnd_test` outside recovery: a duplicate ACK SACKing two segments takes
    /// both out of `tcp_packets_in_flight`, so two new segments go out where Limited
    /// Transmit (one per duplicate ACK) sends one.
    #[test]
    fn a_linux_host_sends_for_every_segment_a_duplicate_ack_sacks() {
        let cfg = linux_cc_cfg("reno");
        let (mut s, mut out) = started(&cfg, 40_000);
        s.on_ack(ms(100), &ack(2000), &mut out); // slow start: cwnd 12
        assert_eq!((s.window().cwnd, s.window().snd_max), (12_000, 14_000));
        out.clear();
        let mut dup = ack(2000);
        dup.push_sack(3000, 5000);
        s.on_ack(ms(101), &dup, &mut out);
        assert_eq!(s.phase(), Phase::Open, "RACK's reordering window holds");
        let sent: Vec<u64> = out.iter().map(|p| p.seq).collect();
        assert_eq!(sent, [14_000, 15_000], "in flight 12 - 2 SACKed < cwnd 12");
    }

    /// `tcp_cong_control -> tcp_may_raise_cwnd`: once a segment arrived four below
    /// the highest SACKed one (`tp->reordering` 4, above `sysctl_tcp_reordering` 3),
    /// an ACK that only SACKs new data grows cwnd by what it delivered
    /// (FLAG_FORWARD_PROGRESS); before that only ACKs of new data do.
    #[test]
    fn a_linux_host_grows_cwnd_on_sacks_once_reordering_is_high() {
        let cfg = linux_cc_cfg("reno");
        let (mut s, mut out) = started(&cfg, 100_000);
        let mut first = ack(1000);
        first.push_sack(3000, 4000);
        s.on_ack(ms(100), &first, &mut out);
        assert_eq!(s.window().cwnd, 12_000, "slow start: segments 0 and 3");
        s.on_ack(ms(101), &ack(4000), &mut out); // 1 and 2, 1 below SACKed 3
        assert_eq!(s.window().cwnd, 14_000);
        let mut sack = ack(4000);
        sack.push_sack(5000, 6000);
        s.on_ack(ms(102), &sack, &mut out);
        assert_eq!(s.phase(), Phase::Open);
        assert_eq!(s.window().cwnd, 15_000, "segment 5, SACKed");
    }

    /// `tcp_ack_update_rtt` on an ACK that only SACKs (`seq_rtt_us = sack_rtt_us`):
    /// `tcp_update_rtt_min` takes `ca_rtt_us`, the RTT of the segment SACKed last
    /// sent. The delay-injection path at 0.2105 s: the kernel's min_rtt 66.0 ms there
    /// (segment 5000 sent 0.1445 s), which RACK's reordering window is counted in.
    #[test]
    fn a_linux_hosts_min_rtt_hears_an_ack_that_only_sacks() {
        let cfg = linux_cc_cfg("reno");
        let (mut s, mut out) = started(&cfg, 100_000);
        s.on_ack(ms(100), &ack(1000), &mut out); // 1000..3000 go out at 100 ms
        assert_eq!(s.min_rtt(), Some(Dur::from_millis(100)));
        let mut sack = ack(1000);
        sack.push_sack(11_000, 12_000);
        s.on_ack(ms(160), &sack, &mut out);
        assert_eq!(s.min_rtt(), Some(Dur::from_millis(60)));
    }

    #[test]
    fn a_cubic_linux_host_keeps_seven_tenths_of_cwnd_on_a_loss() {
        let cfg = linux_cc_cfg("cubic");
        let (mut s, mut out) = started(&cfg, 40_000);
        s.on_ack(ms(100), &ack(2000), &mut out); // slow start: cwnd 12
        let mut a = ack(2000);
        a.push_sack(3000, 6000);
        s.on_ack(ms(200), &a, &mut out);
        assert_eq!(s.stats().fast_retransmits, 1);
        // cubictcp_recalc_ssthresh: 12 * 717 / 1024 = 8 segments (Reno: 6).
        assert_eq!(s.window().ssthresh, 8000);
    }

    #[test]
    fn rack_resends_a_lost_go_back_n_retransmission_without_another_timeout() {
        // No probe (the timer is the RTO) and no F-RTO (the timeout goes back N).
        let cfg = linux_cfg(crate::LinuxSysctls {
            tcp_early_retrans: 0,
            tcp_frto: 0,
            tcp_timestamps: 0,
            ..Default::default()
        });
        let (mut s, mut out) = started(&cfg, 40_000);
        s.on_ack(ms(100), &ack(2000), &mut out); // RTT 100 ms; segments 10..13 go out
        let rto_at = s.next_deadline().unwrap();
        s.on_timer(rto_at, &mut out); // go-back-N from segment 2
        let t = rto_at.0 / 1_000_000;
        s.on_ack(ms(t + 100), &ack(3000), &mut out); // segments 3 and 4 resent
        out.clear();
        // Segment 4's retransmission is SACKed an RTT later; segment 3's, sent with it,
        // is not: RACK marks it lost and fast recovery resends it at once.
        let mut a = ack(3000);
        a.push_sack(4000, 5000);
        s.on_ack(ms(t + 200), &a, &mut out);
        assert!(matches!(s.phase(), Phase::Recovery { .. }));
        assert_eq!((out[0].seq, out[0].retx), (3000, true));
        assert_eq!(s.stats().timeouts, 1);
    }

    /// A sender of `cfg` (MSS 1000; no RACK, F-RTO or loss probe) whose segments 2
    /// and 3 are missing at its RTO, segments 4 and 6 SACKed before it: returns the
    /// bytes still SACKed after the timeout, and what it sent at the timeout and on
    /// the ACK of segment 2's retransmission (which SACKs 4 and 6 again).
    fn timeout_over_sacked_segments(cfg: TcpConfig) -> (u64, Vec<u64>, Vec<u64>) {
        let (mut s, mut out) = started(&cfg, 40_000);
        s.on_ack(ms(100), &ack(2000), &mut out);
        let mut a = ack(2000);
        a.push_sack(4000, 5000);
        a.push_sack(6000, 7000);
        s.on_ack(ms(150), &a, &mut out);
        out.clear();
        let rto_at = s.next_deadline().unwrap();
        s.on_timer(rto_at, &mut out);
        assert_eq!(s.stats().timeouts, 1);
        let at_timeout = out.iter().map(|p| p.seq).collect();
        let kept = s.window().segs.sacked_bytes();
        out.clear();
        let mut a = ack(3000);
        a.push_sack(4000, 5000);
        a.push_sack(6000, 7000);
        s.on_ack(rto_at + Dur::from_millis(100), &a, &mut out);
        (kept, at_timeout, out.iter().map(|p| p.seq).collect())
    }

    #[test]
    fn a_linux_host_keeps_sack_marks_over_a_timeout_and_resends_only_the_holes() {
        // tcp_timeout_mark_lost: segments 4 and 6 stay SACKed, the rest is lost. cwnd
        // 2 after the first ACK: two segments in flight, SACKed ones not counted
        // (tcp_packets_in_flight), so 3 and 5 go out around 4.
        let cfg = linux_cfg(crate::LinuxSysctls {
            tcp_recovery: 0,
            tcp_frto: 0,
            tcp_early_retrans: 0,
            tcp_timestamps: 0,
            ..Default::default()
        });
        let (kept, at_timeout, next) = timeout_over_sacked_segments(cfg);
        assert_eq!((kept, at_timeout), (2000, vec![2000]));
        assert_eq!(next, vec![3000, 5000]);
    }

    #[test]
    fn the_rfc_sender_clears_sack_marks_at_a_timeout_and_counts_sacked_bytes_in_its_window() {
        // RFC 2018 section 8 / RFC 6675 5.1: no mark survives the timeout. Segment 4,
        // SACKed again, is skipped, but the window (cwnd 2) counts every byte from
        // snd_una: only 3 goes out.
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            initial_window: 10,
            recovery: RecoveryKind::RenoSack,
            ..TcpConfig::default()
        };
        let (kept, at_timeout, next) = timeout_over_sacked_segments(cfg);
        assert_eq!((kept, at_timeout), (0, vec![2000]));
        assert_eq!(next, vec![3000]);
    }

    #[test]
    fn rack_runs_while_frto_probes_after_a_timeout() {
        // tcp_fastretrans_alert in TCP_CA_Loss: tcp_process_loss, then
        // tcp_identify_packet_loss (RACK), whether F-RTO is on or not.
        // RTT 100 ms; segments 10..13 went out on the ACK.
        let (mut s, mut out) = linux_host_without_probes_after_one_ack();
        let rto_at = s.next_deadline().unwrap();
        s.on_timer(rto_at, &mut out); // segment 2 resent; F-RTO probes
        let t = rto_at.0 / 1_000_000;
        out.clear();
        // The retransmission is acknowledged an RTT later: F-RTO step 2b sends two new
        // segments, and RACK, taking that retransmission as its reference, marks the
        // originals sent before it lost while F-RTO still holds the retransmissions.
        s.on_ack(ms(t + 100), &ack(3000), &mut out);
        let sent: Vec<(u64, bool)> = out.iter().map(|p| (p.seq, p.retx)).collect();
        assert_eq!(sent, vec![(14_000, false), (15_000, false)]);
        assert!(s.frto_hold);
        assert_eq!(linux_rack(&s).lost_pending(), 11); // segments 3..13
        assert!(matches!(s.phase(), Phase::Loss { .. }));
    }

    /// The RACK state of a `linux` host's sender.
    fn linux_rack(s: &TcpSender<Rto>) -> &crate::stacks::linux::rack_detection::RackDetection {
        match &s.stack {
            Stack::Linux(h) => h.rack(),
            _ => panic!("not a linux host"),
        }
    }

    /// A linux host with `tcp_recovery` = `bits` after segment 1 arrived reordered
    /// (below a SACKed segment 2), then an ACK with a D-SACK; its reo_wnd_steps.
    fn reo_wnd_steps_after_reordering_and_a_dsack(bits: u8) -> u32 {
        let cfg = linux_cfg(crate::LinuxSysctls {
            tcp_early_retrans: 0,
            tcp_timestamps: 0,
            tcp_recovery: bits,
            ..Default::default()
        });
        let (mut s, mut out) = started(&cfg, 40_000);
        let mut a = ack(1000);
        a.push_sack(2000, 3000);
        s.on_ack(ms(100), &a, &mut out);
        s.on_ack(ms(110), &ack(3000), &mut out); // segment 1 below the SACKed 2
        let mut d = ack(4000);
        d.push_sack(1000, 2000); // D-SACK: segment 1 arrived twice
        s.on_ack(ms(120), &d, &mut out);
        linux_rack(&s).rack().reo_wnd_steps()
    }

    #[test]
    fn a_dsack_after_reordering_widens_racks_window_unless_tcp_recovery_bit_2_is_set() {
        // tcp_dsack_seen (reord_seen) -> tcp_rack_update_reo_wnd: one step more.
        assert_eq!(reo_wnd_steps_after_reordering_and_a_dsack(1), 2);
        // TCP_RACK_STATIC_REO_WND.
        assert_eq!(reo_wnd_steps_after_reordering_and_a_dsack(3), 1);
    }

    /// A linux host whose last segment was probed by retransmission, then wrote more
    /// data that went out; returns it with cwnd before the probe's ACK.
    fn linux_host_after_a_retransmitted_probe() -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            ..TcpConfig::linux()
        };
        let (mut s, mut out) = started(&cfg, 10_000);
        s.on_ack(ms(100), &ack(9000), &mut out);
        let deadline = s.next_deadline().unwrap();
        out.clear();
        s.on_timer(deadline, &mut out);
        assert_eq!((out.len(), out[0].seq, out[0].retx), (1, 9000, true));
        s.on_app_data(deadline, 5_000, &mut out);
        (s, out)
    }

    #[test]
    fn an_ack_beyond_a_retransmitted_tail_probe_halves_cwnd() {
        let (mut s, mut out) = linux_host_after_a_retransmitted_probe();
        let before = s.window().cwnd;
        s.on_ack(ms(900), &ack(11_000), &mut out);
        let w = s.window();
        assert_eq!(w.cwnd, w.ssthresh);
        assert!(w.cwnd < before, "{} !< {before}", w.cwnd);
    }

    #[test]
    fn a_dsack_for_the_tail_probe_keeps_cwnd() {
        let (mut s, mut out) = linux_host_after_a_retransmitted_probe();
        let mut a = ack(11_000);
        a.push_sack(9000, 10_000); // the probe's copy, reported as a duplicate
        s.on_ack(ms(900), &a, &mut out);
        let w = s.window();
        assert!(
            w.cwnd < w.ssthresh,
            "still in slow start: {} {}",
            w.cwnd,
            w.ssthresh
        );
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_per_early_duplicate() {
        let (mut s, mut out) = sender_with_four_outstanding();
        out.clear();
        s.on_ack(ms(100), &ack(0), &mut out);
        s.on_ack(ms(101), &ack(0), &mut out);
        let new: Vec<u64> = out.iter().map(|p| p.seq).collect();
        assert_eq!(new, vec![4000, 5000]);
    }

    /// A `linux` host with the handshake and timestamps (MSS 1000): its SYN went out at
    /// t = 0 and 40 kB wait.
    fn linux_host_connecting() -> (TcpSender<Rto>, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: 1000,
            timestamps: true,
            ..TcpConfig::linux()
        };
        started(&cfg, 40_000)
    }

    fn syn_ack(echo: u64) -> Packet {
        let mut p = Packet::new(0, FlowId(0), PacketKind::SynAck, Time::ZERO);
        p.rwnd = 65_535;
        p.set_ts(Some(Timestamps { val: 1, ecr: echo }));
        p
    }

    #[test]
    fn the_syn_ack_is_answered_by_a_pure_ack_ahead_of_the_first_data() {
        let (mut s, mut out) = linux_host_connecting();
        out.clear();
        s.on_ack(ms(100), &syn_ack(1), &mut out);
        let third = &out[0];
        assert_eq!((third.kind, third.seq, third.len), (PacketKind::Data, 0, 0));
        assert!(out[1..].iter().all(|p| p.len == 1000), "then the data");
        assert_eq!(s.stats().data_segments_sent, out.len() as u64 - 1);
    }

    /// BBR's slow start grows cwnd by every delivery while `tp->delivered <
    /// TCP_INIT_CWND` (`bbr_set_cwnd`), and the SYN the SYN-ACK acknowledged is the
    /// first of those: acknowledged one segment at a time, slower than the target
    /// needs, the initial window of 10 grows on 8 ACKs to 18, not on 9 to 19.
    #[test]
    fn bbr_counts_the_acknowledged_syn_among_the_first_ten_deliveries() {
        let cfg = TcpConfig {
            handshake: true,
            ..linux_cfg(crate::LinuxSysctls {
                tcp_congestion_control: crate::LinuxModule::named("bbr").unwrap(),
                ..Default::default()
            })
        };
        let (mut s, mut out) = started(&cfg, 100_000);
        s.on_ack(ms(84), &syn_ack(out[0].ts().unwrap().val), &mut out);
        for k in 1..=12 {
            s.on_ack(ms(1000 + 200 * k), &ack(k * 1000), &mut out);
        }
        assert_eq!(s.window().cwnd, 18 * 1000);
    }

    /// `tcp_schedule_loss_probe` arms the probe through `tcp_reset_xmit_timer(..,
    /// pace_delay = true)`: a paced sender's probe fires `tcp_pacing_delay` later,
    /// the whole jiffies its pacing clock (`tcp_wstamp_ns`) is ahead of now.
    #[test]
    fn a_paced_linux_hosts_probe_waits_for_its_pacing_clock() {
        let cfg = linux_cfg(crate::LinuxSysctls {
            tcp_congestion_control: crate::LinuxModule::named("bbr").unwrap(),
            ..Default::default()
        });
        let (mut s, mut out) = started(&cfg, 1_000_000);
        for k in 1..=12 {
            s.on_ack(ms(100 + k), &ack(k * 1000), &mut out);
        }
        let now = ms(112);
        let wstamp = s.drv.as_ref().unwrap().wstamp();
        let jiffy = crate::linux_timer_wheel::JIFFY;
        let delay = Dur(wstamp.saturating_since(now).0 / jiffy.0 * jiffy.0);
        assert!(
            delay >= jiffy,
            "the pacing clock is a jiffy or more ahead: {delay:?}"
        );
        assert!(s.probe_armed());
        // PTO = 2 * SRTT + TCP_TIMEOUT_MIN (several segments out), then the delay.
        let srtt = s.estimator().srtt().unwrap();
        let pto = srtt + srtt + crate::tlp::TIMEOUT_MIN;
        let wheel = crate::linux_timer_wheel::fires_at;
        assert_eq!(s.next_deadline(), Some(wheel(now, pto + delay)));
    }

    #[test]
    fn a_syn_ack_after_a_retransmitted_syn_is_timed_by_its_timestamp_echo() {
        let (mut s, mut out) = linux_host_connecting();
        let first = out[0].ts().unwrap().val;
        s.on_timer(ms(1000), &mut out); // the SYN again
        s.on_ack(ms(1900), &syn_ack(first), &mut out);
        // The echo names the first SYN: 1.9 s, where Karn's rule alone gives none.
        assert_eq!(s.estimator().srtt(), Some(Dur::from_millis(1900)));
    }

    #[test]
    fn a_probe_timer_finding_its_flights_probe_unanswered_anchors_the_rto_at_the_head() {
        let (mut s, mut out) = linux_host_with_data();
        s.on_ack(ms(500), &ack(1000), &mut out); // a sample; new data; a probe armed
        let pto = s.next_deadline().unwrap();
        s.on_timer(pto, &mut out); // the probe: new data
        s.on_ack(pto + Dur::from_millis(100), &ack(2000), &mut out); // short of it
        let again = s.next_deadline().unwrap();
        let sent = out.len();
        s.on_timer(again, &mut out); // the probe timer again: this flight has its probe
        assert_eq!(out.len(), sent, "no second probe");
        // `tcp_rearm_rto` with the probe timer pending: the RTO from the oldest
        // segment's transmission (t = 0), not a full RTO from now.
        let rto = s.estimator().rto();
        assert!(
            s.next_deadline().unwrap() < again + rto,
            "{:?}",
            s.next_deadline()
        );
    }
}
