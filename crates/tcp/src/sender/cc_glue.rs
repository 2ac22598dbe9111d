//! The sender's calls into a controller that takes over cwnd on every ACK (BBR,
//! [`crate::cc_driver`]), at the kernel's points: connection setup (`init`), each
//! transmission (`tcp_rate_skb_sent`, `tcp_update_skb_after_send`,
//! `CA_EVENT_TX_START`), the pacing check before one (`tcp_pacing_check`), an ACK's
//! deliveries and its end (`tcp_rate_gen`, `tcp_cong_control` -> `cong_control`), an
//! application write (`tcp_rate_check_app_limited`) and a timeout's Loss state
//! (`set_state(TCP_CA_Loss)`). Each is a no-op without such a controller.

use super::{Phase, TcpSender};
use crate::cc::{CaState, CongestionControl};
use crate::cc_driver::SenderView;
use crate::rate::{AckFacts, AppLimitCheck};
use crate::rto::RtoEstimator;
use crate::stacks::StackRules;
use spikelab_core::{Dur, Packet, SimRng, Time};

/// What an ACK's start leaves for its end.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckStart {
    cwnd: u64,
    prior_in_flight: u64,
    marked: u64,
    maybe_delayed: bool,
}

impl<E: RtoEstimator> TcpSender<E> {
    /// The run's random stream for the controller's draws (BBR's gain-cycle phase).
    pub fn set_cc_rng(&mut self, rng: SimRng) {
        if let Some(d) = &mut self.drv {
            d.set_rng(rng);
        }
    }

    /// The controller's model estimates, if it keeps a model (BBR), for traces.
    pub fn cc_estimates(&self) -> Option<crate::cc::ModelEstimates> {
        self.cc.estimates()
    }

    /// When the pacing timer fires, if armed.
    pub fn pacing_deadline(&self) -> Option<Time> {
        self.drv.as_ref().and_then(|d| d.pacing_deadline())
    }

    pub(super) fn sender_view(&self, now: Time) -> SenderView {
        SenderView {
            now,
            mss: self.w.mss,
            cwnd: self.w.cwnd,
            in_flight: self.pipe_segments(),
            ca_state: match self.phase {
                Phase::Open => CaState::Open,
                Phase::Recovery { .. } => CaState::Recovery,
                Phase::Loss { .. } => CaState::Loss,
            },
            srtt: self.rto.srtt(),
            min_rtt: self.min_rtt.or(self.last_rtt),
            is_cwnd_limited: self.stack.cwnd_usage().is_cwnd_limited(),
        }
    }

    /// The connection is established: the controller's `init`.
    pub(super) fn cc_init(&mut self, now: Time) {
        let view = self.sender_view(now);
        if let Some(d) = &self.drv {
            let replay = self
                .cfg
                .linux
                .as_ref()
                .and_then(|l| l.bbr_cycle_draws.as_deref());
            let rng = crate::cc::CcRandom::new(d.rng().clone(), replay.unwrap_or(&[]));
            self.cc.on_init(&d.view(&view), &rng);
        }
    }

    /// The application writes: less than a segment unsent makes it app-limited.
    pub(super) fn cc_on_app_write(&mut self) {
        let check = AppLimitCheck {
            unsent: self.app_end - self.w.snd_max,
            mss: self.w.mss,
            in_flight: self.pipe_segments(),
            cwnd: self.w.cwnd / self.w.mss,
            lost_pending: self.stack.lost_counts().0,
        };
        if let Some(d) = &mut self.drv {
            d.on_app_write(check);
        }
    }

    /// `tcp_pacing_check` before a transmission from the send loop.
    #[inline]
    pub(super) fn cc_may_send(&mut self, now: Time) -> bool {
        self.drv.as_mut().is_none_or(|d| d.may_send(now))
    }

    /// A data segment `[start, end)` goes out (before it is counted in flight when
    /// it is a retransmission; new data is in the table already). Inlined, the driver's
    /// part out of line: asked at every transmission, and most controllers have none.
    #[inline(always)]
    pub(super) fn cc_on_sent(&mut self, now: Time, start: u64, end: u64, retx: bool) -> bool {
        self.drv.is_some() && self.drive_on_sent(now, start, end, retx)
    }

    /// [`Self::cc_on_sent`] with a driver.
    #[inline(never)]
    fn drive_on_sent(&mut self, now: Time, start: u64, end: u64, retx: bool) -> bool {
        let idle = !retx && start == self.w.snd_una;
        // tcp_event_data_sent: CA_EVENT_TX_START with nothing in flight before this
        // segment (counted in flight already, new or marked retransmitted).
        let in_flight = self.pipe_segments().saturating_sub(1);
        if in_flight == 0 {
            let view = self.sender_view(now);
            let d = self.drv.as_ref().expect("checked");
            let c = d.view(&SenderView { in_flight, ..view });
            let cwnd = self.cc.on_tx_start(&c, d.app_limited());
            self.w.cwnd = cwnd * self.w.mss;
        }
        let rate = self.cc.pacing_rate().map(|r| {
            let view = self.sender_view(now);
            let d = self.drv.as_ref().expect("checked");
            (r, self.cc.tso_segs(&d.view(&view)))
        });
        match &mut self.drv {
            Some(d) => d.on_sent(now, (start, end), idle, in_flight + 1, rate),
            None => false,
        }
    }

    /// An ACK arrives (not older than snd_una): its deliveries are taken from the
    /// snapshots before the table changes. Inlined, the driver's part out of line.
    #[inline(always)]
    pub(super) fn cc_ack_begin(&mut self, pkt: &Packet) -> Option<AckStart> {
        match self.drv {
            None => None,
            Some(_) => self.drive_ack_begin(pkt),
        }
    }

    /// [`Self::cc_ack_begin`] with a driver.
    #[inline(never)]
    fn drive_ack_begin(&mut self, pkt: &Packet) -> Option<AckStart> {
        if pkt.ack < self.w.snd_una {
            return None;
        }
        let start = AckStart {
            cwnd: self.w.cwnd,
            prior_in_flight: self.pipe_segments(),
            marked: self.stack.lost_counts().1,
            maybe_delayed: self.ack_maybe_delayed(pkt),
        };
        let (_, blocks) = super::split_dsack(pkt);
        if let Some(d) = &mut self.drv {
            d.on_ack_deliveries(pkt.ack, &blocks);
        }
        Some(start)
    }

    /// `FLAG_ACK_MAYBE_DELAYED`: "a lone runt packet over the round trip": the ACK
    /// acknowledges the one segment outstanding, shorter than an MSS, and SACKs nothing.
    fn ack_maybe_delayed(&self, pkt: &Packet) -> bool {
        let flight = self.w.flight_size();
        pkt.sack().is_empty()
            && self.w.segs.len() == 1
            && pkt.ack == self.w.snd_max
            && flight > 0
            && flight < self.w.mss
    }

    /// The ACK's end: the rate sample, then the controller sets cwnd (from the cwnd
    /// the ACK found: no other rule changes it, `tcp_cong_control`) and the pacing rate.
    pub(super) fn cc_ack_end(&mut self, now: Time, start: AckStart, rtt: Option<Dur>) {
        let losses = self.stack.lost_counts().1 - start.marked;
        let view = SenderView {
            cwnd: start.cwnd,
            ..self.sender_view(now)
        };
        let min_rtt = self.min_rtt;
        let Some(d) = &mut self.drv else { return };
        d.on_marked_lost(losses);
        let facts = AckFacts {
            losses,
            rtt,
            prior_in_flight: start.prior_in_flight,
            maybe_delayed: start.maybe_delayed,
        };
        let rs = d.sample(now, min_rtt, facts);
        let control = self.cc.on_cong_control(&rs, &d.view(&view));
        if control.mark_app_limited {
            d.mark_app_limited(view.in_flight);
        }
        self.w.cwnd = control.cwnd.max(1) * self.w.mss;
        if let Some(s) = control.ssthresh {
            self.w.ssthresh = s * self.w.mss;
        }
    }

    /// A retransmission timeout entered the Loss state: `tcp_timeout_mark_lost` marks
    /// the unSACKed segments not marked yet (every one here, the kernel leaves those
    /// sent within the last RACK RTT), then `set_state(TCP_CA_Loss)`.
    pub(super) fn cc_on_enter_loss(&mut self, now: Time) {
        let unsacked = (self.w.flight_size() - self.w.segs.sacked_bytes()).div_ceil(self.w.mss);
        let newly = unsacked.saturating_sub(self.stack.lost_counts().0);
        let view = self.sender_view(now);
        let Some(d) = &mut self.drv else { return };
        d.on_marked_lost(newly);
        self.cc.on_enter_loss(&d.view(&SenderView {
            in_flight: 0,
            ..view
        }));
    }

    /// The pacing timer fired (`tcp_pace_kick`): whether it was due; the held
    /// segments go out.
    pub(super) fn cc_on_pacing_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        if !self.drv.as_mut().is_some_and(|d| d.on_pacing_timer(now)) {
            return false;
        }
        self.try_send(now, out);
        true
    }
}
