//! CUBIC for QUIC: the window's arithmetic is spikelab's Linux CUBIC
//! (`spikelab_tcp::cc::cubic`: `cubictcp_cong_avoid`, `cubictcp_recalc_ssthresh`,
//! beta 717/1024, in whole segments), called without TCP state: a QUIC packet counts
//! as one segment of max_datagram_size bytes. RFC 9002's events drive it: growth per
//! acknowledged in-flight packet outside a recovery period (B.5), one reduction per
//! recovery period (7.3.2), kMinimumWindow on persistent congestion (7.6.2, as
//! quinn-proto/src/congestion/cubic.rs does, resetting the epoch like the kernel's
//! `TCP_CA_Loss`). HyStart is not run (it counts rounds in TCP sequence numbers), so
//! slow start ends at the first loss, as in quinn's CUBIC.

use super::{in_recovery, initial_window, Prior, QuicController};
use crate::config::QuicConfig;
use spikelab_core::Time;
use spikelab_tcp::cc::cubic::{ssthresh, Cubic};

#[derive(Clone, Debug)]
struct State {
    cubic: Cubic,
    /// In datagrams.
    cwnd: u64,
    ssthresh: u64,
    recovery_start: Option<Time>,
}

#[derive(Clone, Debug)]
pub struct QuicCubic {
    state: State,
    prior: Option<State>,
    mds: u64,
}

impl QuicCubic {
    pub fn new(c: &QuicConfig) -> QuicCubic {
        let mds = u64::from(c.max_datagram_size);
        QuicCubic {
            state: State {
                cubic: Cubic::default(),
                cwnd: initial_window(c) / mds,
                ssthresh: u64::MAX / mds,
                recovery_start: None,
            },
            prior: None,
            mds,
        }
    }
}

impl QuicController for QuicCubic {
    fn window(&self) -> u64 {
        self.state.cwnd * self.mds
    }

    fn ssthresh(&self) -> u64 {
        self.state.ssthresh.saturating_mul(self.mds)
    }

    fn on_acked(&mut self, now: Time, sent: Time, _bytes: u64) {
        let s = &mut self.state;
        if in_recovery(s.recovery_start, sent) {
            return;
        }
        s.cwnd = s.cubic.cong_avoid(now, s.cwnd, s.ssthresh, 1);
    }

    fn on_congestion_event(&mut self, now: Time, sent: Time) -> bool {
        if in_recovery(self.state.recovery_start, sent) {
            return false;
        }
        self.prior = Some(self.state.clone());
        let s = &mut self.state;
        s.recovery_start = Some(now);
        s.cubic.recalc_ssthresh(s.cwnd);
        s.ssthresh = ssthresh(s.cwnd);
        s.cwnd = s.ssthresh.max(2);
        true
    }

    fn on_persistent_congestion(&mut self, now: Time) {
        let s = &mut self.state;
        s.cubic.enter_loss(now, 0);
        s.cwnd = 2;
        s.recovery_start = None;
    }

    /// picoquic/cubic.c `cubic_enter_recovery` on
    /// `picoquic_congestion_notification_timeout`: ssthresh by beta as on a loss, the
    /// window `PICOQUIC_CWIN_MINIMUM` (two datagrams), slow start from there.
    fn on_timer_loss(&mut self, now: Time, sent: Time) {
        if self.on_congestion_event(now, sent) {
            self.state.cwnd = 2;
        }
    }

    fn prior(&self) -> Option<Prior> {
        let p = self.prior.as_ref()?;
        Some(Prior {
            slow_start: p.cwnd < p.ssthresh,
            reduced_at: self.state.recovery_start,
        })
    }

    fn undo(&mut self) -> bool {
        match self.prior.take() {
            Some(p) if self.state.cwnd < p.cwnd => {
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
    fn a_reduction_multiplies_by_beta_0_7_in_whole_datagrams() {
        let mut c = QuicCubic::new(&QuicConfig::default());
        assert_eq!(c.window(), 12_000);
        assert!(c.on_congestion_event(t(100), t(50)));
        assert_eq!(c.window(), 7 * 1200, "10 * 717 / 1024 = 7");
        assert!(!c.on_congestion_event(t(110), t(60)));
        assert!(c.undo());
        assert_eq!(c.window(), 12_000);
    }

    #[test]
    fn slow_start_grows_a_datagram_per_acknowledged_packet() {
        let mut c = QuicCubic::new(&QuicConfig::default());
        c.on_acked(t(10), t(0), 1200);
        assert_eq!(c.window(), 11 * 1200);
        c.on_persistent_congestion(t(20));
        assert_eq!(c.window(), 2 * 1200);
    }

    #[test]
    fn a_timer_loss_drops_to_two_datagrams_with_ssthresh_by_beta() {
        let mut c = QuicCubic::new(&QuicConfig::default());
        c.on_timer_loss(t(100), t(50));
        assert_eq!((c.window(), c.ssthresh()), (2 * 1200, 7 * 1200));
        assert!(c.prior().is_some_and(|p| p.slow_start));
        assert!(c.undo());
        assert_eq!(c.window(), 12_000);
    }
}
