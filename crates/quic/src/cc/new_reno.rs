//! NewReno as RFC 9002 7.3 and Appendix B give it, in bytes: slow start grows the
//! window by the bytes acknowledged, congestion avoidance by max_datagram_size per
//! window acknowledged (B.5); a congestion event halves it (kLossReductionFactor 0.5,
//! B.6) at most once per recovery period; persistent congestion collapses it to
//! kMinimumWindow (B.8). Not modelled: the application- or flow-control-limited check
//! of B.5 (a bulk sender always fills the window).

use super::{in_recovery, initial_window, minimum_window, Prior, QuicController};
use crate::config::QuicConfig;
use spikelab_core::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State {
    window: u64,
    ssthresh: u64,
    recovery_start: Option<Time>,
    /// Bytes acknowledged in congestion avoidance not yet worth a datagram of growth.
    acked_in_ca: u64,
}

#[derive(Clone, Debug)]
pub struct NewReno {
    state: State,
    /// The state the last reduction replaced.
    prior: Option<State>,
    mds: u64,
}

impl NewReno {
    pub fn new(c: &QuicConfig) -> NewReno {
        NewReno {
            state: State {
                window: initial_window(c),
                ssthresh: u64::MAX,
                recovery_start: None,
                acked_in_ca: 0,
            },
            prior: None,
            mds: u64::from(c.max_datagram_size),
        }
    }
}

impl QuicController for NewReno {
    fn window(&self) -> u64 {
        self.state.window
    }

    fn ssthresh(&self) -> u64 {
        self.state.ssthresh
    }

    fn on_acked(&mut self, _now: Time, sent: Time, bytes: u64) {
        let s = &mut self.state;
        if in_recovery(s.recovery_start, sent) {
            return;
        }
        if s.window < s.ssthresh {
            s.window += bytes;
            return;
        }
        // "congestion_window += max_datagram_size * acked_packet.sent_bytes
        //  / congestion_window", kept exact by carrying the remainder.
        s.acked_in_ca += bytes;
        if s.acked_in_ca >= s.window {
            s.acked_in_ca -= s.window;
            s.window += self.mds;
        }
    }

    fn on_congestion_event(&mut self, now: Time, sent: Time) -> bool {
        if in_recovery(self.state.recovery_start, sent) {
            return false;
        }
        self.prior = Some(self.state);
        let s = &mut self.state;
        s.recovery_start = Some(now);
        s.ssthresh = s.window / 2;
        s.window = s.ssthresh.max(minimum_window(self.mds));
        s.acked_in_ca = 0;
        true
    }

    fn on_persistent_congestion(&mut self, _now: Time) {
        self.state.window = minimum_window(self.mds);
        self.state.recovery_start = None;
    }

    /// picoquic/newreno.c `picoquic_newreno_sim_enter_recovery` on a timeout:
    /// ssthresh half the window, the window `PICOQUIC_CWIN_MINIMUM` (two datagrams).
    fn on_timer_loss(&mut self, now: Time, sent: Time) {
        if self.on_congestion_event(now, sent) {
            self.state.window = minimum_window(self.mds);
        }
    }

    fn prior(&self) -> Option<Prior> {
        let p = self.prior?;
        Some(Prior {
            slow_start: p.window < p.ssthresh,
            reduced_at: self.state.recovery_start,
        })
    }

    fn undo(&mut self) -> bool {
        match self.prior.take() {
            Some(p) if self.state.window < p.window => {
                self.state = p;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Dur;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn the_initial_window_is_ten_datagrams_capped_at_14720_bytes() {
        let c = QuicConfig::default();
        assert_eq!(NewReno::new(&c).window(), 12_000);
        let big = QuicConfig {
            max_datagram_size: 1500,
            ..c
        };
        assert_eq!(NewReno::new(&big).window(), 14_720);
    }

    #[test]
    fn slow_start_adds_the_bytes_acknowledged() {
        let mut r = NewReno::new(&QuicConfig::default());
        r.on_acked(t(10), t(0), 1200);
        assert_eq!(r.window(), 13_200);
    }

    #[test]
    fn one_reduction_per_recovery_period_to_half_never_below_two_datagrams() {
        let mut r = NewReno::new(&QuicConfig::default());
        assert!(r.on_congestion_event(t(100), t(50)));
        assert_eq!((r.window(), r.ssthresh()), (6_000, 6_000));
        assert!(
            !r.on_congestion_event(t(120), t(90)),
            "sent before the period began"
        );
        r.on_acked(t(130), t(90), 1200);
        assert_eq!(
            r.window(),
            6_000,
            "no growth for packets sent before recovery"
        );
        assert!(r.on_congestion_event(t(300), t(200)));
        assert!(r.on_congestion_event(t(500), t(400)));
        assert_eq!(r.window(), 2_400, "kMinimumWindow");
    }

    #[test]
    fn congestion_avoidance_adds_a_datagram_per_window_acknowledged() {
        let mut r = NewReno::new(&QuicConfig::default());
        r.on_congestion_event(t(100), t(50));
        for _ in 0..5 {
            r.on_acked(t(200), t(150), 1200);
        }
        assert_eq!(r.window(), 7_200);
    }

    #[test]
    fn persistent_congestion_collapses_the_window_and_undo_restores_the_prior_one() {
        let mut r = NewReno::new(&QuicConfig::default());
        r.on_congestion_event(t(100), t(50));
        assert!(r.undo());
        assert_eq!(r.window(), 12_000);
        assert!(!r.undo(), "nothing left to restore");
        r.on_persistent_congestion(t(200));
        assert_eq!(r.window(), 2_400);
    }

    #[test]
    fn a_timer_loss_halves_ssthresh_drops_to_two_datagrams_and_can_be_undone() {
        let mut r = NewReno::new(&QuicConfig::default());
        r.on_timer_loss(t(100), t(50));
        assert_eq!((r.window(), r.ssthresh()), (2_400, 6_000));
        let p = r.prior().expect("the replaced state");
        assert!(p.slow_start && p.reduced_at == Some(t(100)));
        r.on_timer_loss(t(150), t(60));
        assert_eq!(r.ssthresh(), 6_000, "one reduction per recovery period");
        assert!(r.undo());
        assert_eq!(r.window(), 12_000);
    }
}
