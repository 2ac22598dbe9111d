//! The Linux 6.x host of the `linux` profile ([`crate::linux_profile`]) at the
//! sender's extension points ([`StackRules`]): RTT samples from the retransmission
//! queue, timers on the kernel's wheel, cwnd growth only while cwnd-limited, PRR in
//! fast recovery, the SACK rule for counting duplicate ACKs, and a timeout inside
//! fast recovery keeping the recovery's reduction. RACK's and TLP's state are the
//! sender's still (see the report of issue 38 for what remains to move).

pub mod profile;

use super::StackRules;
use crate::config::TcpConfig;
use crate::linux_cwnd_limited::CwndUsage;
use crate::prr::Prr;
use crate::segments::SegmentTable;
use spikelab_core::{Dur, Time};

/// A Linux 6.x host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinuxHost {
    /// `tcp_recovery` bit 2: RACK's static reordering window.
    static_reo_wnd: bool,
    /// `tcp_recovery` bit 4: no DupThresh rule in the reordering window.
    no_dupthresh: bool,
    /// Whether cwnd limited the last window (`tcp_is_cwnd_limited`,
    /// [`crate::linux_cwnd_limited`]), for the controller's growth.
    cwnd_usage: CwndUsage,
    /// The fast-recovery window (`tcp_cwnd_reduction`, [`crate::prr`]).
    prr: Prr,
}

impl LinuxHost {
    pub fn new(cfg: &TcpConfig) -> LinuxHost {
        let bits = cfg.linux.as_ref().map_or(0, |l| l.tcp_recovery);
        LinuxHost {
            static_reo_wnd: bits & 2 != 0,
            no_dupthresh: bits & 4 != 0,
            cwnd_usage: CwndUsage::default(),
            prr: Prr::default(),
        }
    }
}

/// `tcp_recovery` bit 1 on a SACK connection of the `linux` profile (`tcp_is_rack`).
pub fn rack_configured(cfg: &TcpConfig) -> bool {
    let on = |l: &crate::LinuxSysctls| l.tcp_recovery & 1 != 0;
    cfg.linux.as_ref().is_some_and(on) && cfg.sack_enabled()
}

/// `tcp_early_retrans` 3 or 4 on a SACK connection of the `linux` profile.
pub fn tlp_configured(cfg: &TcpConfig) -> bool {
    let on = |l: &crate::LinuxSysctls| matches!(l.tcp_early_retrans, 3 | 4);
    cfg.linux.as_ref().is_some_and(on) && cfg.sack_enabled()
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

    /// `tcp_init_cwnd_reduction`: PRR starts from prior_cwnd.
    fn on_enter_recovery(
        &mut self,
        cwnd: u64,
        _rwnd: u64,
        mss: u64,
        _dupthresh: u64,
    ) -> Option<u64> {
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

    /// `tcp_recovery` bit 2 (`tcp_rack_update_reo_wnd`).
    fn rack_static_reo_wnd(&self) -> bool {
        self.static_reo_wnd
    }

    /// `tcp_recovery` bit 4 (`tcp_rack_reo_wnd`).
    fn rack_no_dupthresh(&self) -> bool {
        self.no_dupthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_that_filled_cwnd_is_kept_for_the_controller() {
        let mut h = LinuxHost::default();
        assert!(!h.cwnd_usage().allows_growth(10, 5));
        h.on_write_xmit(0, 10_000, 10, true);
        assert!(h.cwnd_usage().allows_growth(10, 5));
    }

    #[test]
    fn with_sack_only_an_ack_sacking_new_data_counts() {
        assert!(!LinuxHost::default().counts_toward_recovery(true, 0));
        assert!(LinuxHost::default().counts_toward_recovery(true, 1000));
        assert!(LinuxHost::default().counts_toward_recovery(false, 0));
    }
}
