//! What a sender keeps for a controller that takes over cwnd on every ACK
//! ([`crate::cc::CongestionControl::controls_cwnd`], the kernel's `cong_control`
//! modules: BBR): the delivery-rate sampler ([`crate::rate`]), the count of segments
//! ever marked lost (`tp->lost`), the pacing clock ([`crate::pacing`]) and the
//! flow's seeded random stream for the controller. A sender whose controller does
//! not take over cwnd keeps none of this, and its path is unchanged.
//!
//! The sender calls in at the kernel's points: a transmission
//! ([`CcDriver::on_sent`], `tcp_rate_skb_sent`, `tcp_update_skb_after_send`,
//! `CA_EVENT_TX_START`), an ACK's deliveries ([`CcDriver::on_ack_deliveries`],
//! `tcp_rate_skb_delivered`), the end of an ACK ([`CcDriver::sample`],
//! `tcp_rate_gen` before `tcp_cong_control`), an application write
//! ([`CcDriver::on_app_write`], `tcp_rate_check_app_limited`).

use crate::cc::{CaState, ConnView};
use crate::pacing::Pacing;
use crate::rate::{AckFacts, AppLimitCheck, DeliveryRate, RateSample, TxFlight};
use spikelab_core::{Dur, RngStreams, SimRng, Time};

/// The connection state the sender reads for the controller, in bytes and segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SenderView {
    pub now: Time,
    pub mss: u64,
    /// cwnd in bytes.
    pub cwnd: u64,
    /// `tcp_packets_in_flight` in segments.
    pub in_flight: u64,
    pub ca_state: CaState,
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    /// `tp->is_cwnd_limited`.
    pub is_cwnd_limited: bool,
}

/// The sender's side of a controller that takes over cwnd.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CcDriver {
    rate: DeliveryRate,
    /// `tp->lost`: segments ever marked lost.
    lost: u64,
    pacing: Pacing,
    /// When the pacing timer fires, if armed (`pacing_timer`).
    pacing_timer: Option<Time>,
    rng: SimRng,
}

impl CcDriver {
    /// A driver whose controller draws from `rng` (the run's stream for this flow).
    pub fn new(rng: SimRng) -> CcDriver {
        CcDriver {
            rate: DeliveryRate::default(),
            lost: 0,
            pacing: Pacing::default(),
            pacing_timer: None,
            rng,
        }
    }

    /// A driver with flow `flow`'s stream of run seed 0 (until the engine hands over
    /// the run's, [`Self::set_rng`]).
    pub fn for_flow(flow: u32) -> CcDriver {
        CcDriver::new(RngStreams::new(0).stream("tcp-cc", flow as u64))
    }

    pub fn set_rng(&mut self, rng: SimRng) {
        self.rng = rng;
    }

    pub fn rng(&self) -> &SimRng {
        &self.rng
    }

    /// The controller's view of the connection.
    pub fn view(&self, s: &SenderView) -> ConnView {
        ConnView {
            now: s.now,
            mss: s.mss,
            cwnd: s.cwnd / s.mss,
            in_flight: s.in_flight,
            delivered: self.rate.delivered(),
            delivered_mstamp: self.rate.delivered_mstamp(),
            lost: self.lost,
            ca_state: s.ca_state,
            srtt: s.srtt,
            min_rtt: s.min_rtt,
            wstamp: self.pacing.wstamp(),
            is_cwnd_limited: s.is_cwnd_limited,
        }
    }

    /// A segment `[start, end)` goes out at `now`; `idle`: nothing was outstanding
    /// (`!tp->packets_out`); `in_flight`: segments in flight with it; `rate`: the
    /// pacing rate and the controller's segments per skb. Returns whether the segment
    /// joined the skb of the segment before it ([`Pacing::on_sent`]).
    pub fn on_sent(
        &mut self,
        now: Time,
        seg: (u64, u64),
        idle: bool,
        in_flight: u64,
        rate: Option<(u64, u64)>,
    ) -> bool {
        let tx = TxFlight {
            in_flight,
            lost: self.lost,
        };
        self.rate.on_sent(seg.0, seg.1, now, idle, tx);
        match rate {
            Some((rate, tso_segs)) => self.pacing.on_sent(now, seg.1 - seg.0, rate, tso_segs),
            None => false,
        }
    }

    /// `tcp_wstamp_ns`: the pacing clock.
    pub fn wstamp(&self) -> Time {
        self.pacing.wstamp()
    }

    /// The next segment joins the skb that left at `now` ([`Pacing::joins_skb`]).
    pub fn joins_skb(&self, now: Time) -> bool {
        self.pacing.joins_skb(now)
    }

    /// `tcp_pacing_check` before a transmission: false (and the pacing timer armed)
    /// when the segment must wait.
    pub fn may_send(&mut self, now: Time) -> bool {
        match self.pacing.hold_until(now) {
            Some(at) => {
                self.pacing_timer = Some(at);
                false
            }
            None => true,
        }
    }

    /// When the pacing timer fires, if armed.
    pub fn pacing_deadline(&self) -> Option<Time> {
        self.pacing_timer
    }

    /// The pacing timer fired at `now` (`tcp_pace_kick`): whether it was due.
    pub fn on_pacing_timer(&mut self, now: Time) -> bool {
        if self.pacing_timer.is_some_and(|t| t <= now) {
            self.pacing_timer = None;
            return true;
        }
        false
    }

    /// The ACK's deliveries: everything below `ack`, and the SACK blocks (no D-SACK).
    pub fn on_ack_deliveries(&mut self, ack: u64, blocks: &[(u64, u64)]) {
        self.rate.on_cumulative_ack(ack);
        for &(s, e) in blocks {
            self.rate.on_sack_block(s, e);
        }
    }

    /// The SYN-ACK acknowledged the SYN ([`DeliveryRate::on_syn_delivered`]).
    pub fn on_syn_delivered(&mut self) {
        self.rate.on_syn_delivered();
    }

    /// Segments newly marked lost (`tcp_mark_skb_lost` adds to `tp->lost`).
    pub fn on_marked_lost(&mut self, segments: u64) {
        self.lost += segments;
    }

    /// `tcp_rate_gen` at the end of an ACK.
    pub fn sample(&mut self, now: Time, min_rtt: Option<Dur>, ack: AckFacts) -> RateSample {
        self.rate.gen(now, min_rtt, ack, self.lost)
    }

    /// The controller asked to mark the connection application-limited.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.rate.mark_app_limited(in_flight);
    }

    /// Whether the connection is application-limited (`tp->app_limited`).
    pub fn app_limited(&self) -> bool {
        self.rate.app_limited()
    }

    /// `tcp_rate_check_app_limited` when the application writes.
    pub fn on_app_write(&mut self, c: AppLimitCheck) {
        self.rate.check_app_limited(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_send_arms_the_pacing_timer_which_fires_once_due() {
        let mut d = CcDriver::for_flow(0);
        for i in 0..10 {
            d.on_sent(
                Time::ZERO,
                (i * 1000, (i + 1) * 1000),
                i == 0,
                i + 1,
                Some((1_000_000, 1)),
            );
        }
        assert!(!d.may_send(Time::ZERO));
        let at = d.pacing_deadline().expect("armed");
        assert_eq!(at, Time::ZERO + Dur::from_millis(1));
        assert!(!d.on_pacing_timer(Time(at.0 - 1)));
        assert!(d.on_pacing_timer(at));
        assert!(d.may_send(at));
        assert_eq!(d.pacing_deadline(), None);
    }

    #[test]
    fn the_view_counts_in_segments_and_carries_deliveries_and_losses() {
        let mut d = CcDriver::for_flow(0);
        d.on_sent(Time::ZERO, (0, 1000), true, 1, None);
        d.on_ack_deliveries(1000, &[]);
        d.on_marked_lost(2);
        let later = Time::ZERO + Dur::from_millis(100);
        d.sample(later, None, AckFacts::default());
        let s = SenderView {
            now: later,
            mss: 1000,
            cwnd: 7000,
            in_flight: 3,
            ca_state: CaState::Open,
            srtt: None,
            min_rtt: None,
            is_cwnd_limited: false,
        };
        let v = d.view(&s);
        assert_eq!(
            (v.cwnd, v.delivered, v.lost, v.delivered_mstamp),
            (7, 1, 2, later)
        );
    }
}
