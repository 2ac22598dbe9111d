//! The `linux` profile as a configuration: [`TcpConfig::linux`] (a Linux 6.x host
//! with the default sysctls) and [`LinuxSysctls::apply`], which derives the plain
//! [`TcpConfig`] fields the sysctls decide. The sysctls themselves are
//! [`crate::linux_profile`]'s.

use crate::cc::CcKind;
use crate::config::{RecoveryKind, TcpConfig};
use crate::linux_profile::LinuxSysctls;
use crate::linux_timer_wheel::{msecs_to_jiffies, usecs_to_jiffies, JIFFY};
use crate::response::{Restore, SpuriousConfig};
use crate::rto::{LinuxConfig, RtoConfig};
use crate::spurious::DetectorKind;
use crate::window::SsthreshRule;
use spikelab_core::Dur;

impl LinuxSysctls {
    /// Sets the [`TcpConfig`] fields the sysctls decide.
    pub fn apply(&self, cfg: &mut TcpConfig) {
        cfg.timestamps = self.tcp_timestamps != 0;
        cfg.recovery = if self.tcp_sack != 0 {
            RecoveryKind::RenoSack
        } else {
            RecoveryKind::NewReno
        };
        cfg.dsack = self.tcp_dsack != 0;
        cfg.ssthresh_rule = ssthresh_rule(self.tcp_congestion_control.kind());
        cfg.spurious.driver = Some(if self.tcp_frto != 0 {
            DetectorKind::LinuxFrto
        } else {
            DetectorKind::LinuxUndo
        });
        if let RtoConfig::Linux(r) = &mut cfg.rto {
            r.jiffies = true;
            if let Some(ms) = self.tcp_rto_max_ms {
                r.rto_max = Some(rto_max(ms));
            }
            if let Some(us) = self.tcp_rto_min_us {
                r.rto_min = rto_min(us);
            }
        }
    }
}

/// `tcp_rto_max()`: `msecs_to_jiffies(icsk_rto_max)`, the sysctl (range-checked to
/// 1000..=120000 like its table and the `TCP_RTO_MAX_MS` option) in whole jiffies of
/// the kernel's clock, rounded up ([`crate::linux_timer_wheel`]). The estimator clamps
/// every RTO to it (`tcp_bound_rto`, `inet_csk_rto_backoff`).
pub fn rto_max(ms: u32) -> Dur {
    Dur(msecs_to_jiffies(u64::from(ms)) * JIFFY.0)
}

/// `tcp_rto_min()`: `icsk_rto_min` = `usecs_to_jiffies(tcp_rto_min_us)`, rounded up
/// to whole jiffies (1 us is one jiffy, 4 ms).
pub fn rto_min(us: u32) -> Dur {
    Dur(usecs_to_jiffies(u64::from(us)) * JIFFY.0)
}

/// The module's `ssthresh()` as the window's rule: `cubictcp_recalc_ssthresh`,
/// `bbr_ssthresh` (which keeps ssthresh) or `tcp_reno_ssthresh`.
fn ssthresh_rule(module: CcKind) -> SsthreshRule {
    match module {
        CcKind::Cubic => SsthreshRule::LinuxCubic,
        CcKind::Bbr | CcKind::Bbr3 => SsthreshRule::Kept,
        _ => SsthreshRule::LinuxReno,
    }
}

impl TcpConfig {
    /// A Linux 6.x host with the default sysctls ([`LinuxSysctls::default`]):
    /// initial window 10 (`TCP_INIT_CWND`), the kernel's RTO estimator (minimum 200 ms,
    /// `tcp_rtt_estimator`), Reno's ssthresh from cwnd (`tcp_reno_ssthresh`), no careful
    /// fast retransmit on (the kernel's Loss state lasts until `high_seq`: no fast
    /// retransmit before),
    /// delayed ACKs every second segment with the 40 ms minimum of `TCP_DELACK_MIN`,
    /// the undo of `tcp_process_loss` restoring as `tcp_undo_cwnd_reduction`, a
    /// 1460-byte MSS, the three-way handshake, window growth counted in acknowledged
    /// segments (`tcp_reno_cong_avoid`, [`crate::cc::linux_reno`]) and no TSO.
    pub fn linux() -> TcpConfig {
        let sysctls = LinuxSysctls::default();
        let mut cfg = TcpConfig {
            mss: 1460,
            initial_window: 10,
            handshake: true,
            ssthresh_rule: SsthreshRule::LinuxReno,
            careful_fast_retransmit: true,
            rto: RtoConfig::Linux(LinuxConfig::default()),
            spurious: SpuriousConfig::default(),
            linux: Some(sysctls.clone()),
            ..TcpConfig::default()
        };
        cfg.delayed_ack.timeout = Dur::from_millis(40);
        cfg.spurious.response.restore = Restore::LinuxUndo;
        cfg.spurious.response.resume_with_new_data = true;
        // After an undo the kernel is in the Open state: fast retransmit as usual.
        cfg.spurious.response.fast_retransmit_below_recovery_point = true;
        sysctls.apply(&mut cfg);
        cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rto::Rto;
    use crate::{TcpSender, TimerOutcome};
    use spikelab_core::{FlowId, Packet, PacketKind, Time};

    /// When the retransmission timer fires (ms) while nothing is acknowledged from
    /// 100 ms to 20.1 s, with `tcp_rto_max_ms` = `cap_ms`: one 100 ms RTT sample
    /// first (RTO = 100 + max(2 x 100, 200) = 300 ms), no loss probes.
    fn expiries_in_a_20s_freeze(cap_ms: u32) -> Vec<u64> {
        let sysctls = LinuxSysctls {
            tcp_rto_max_ms: Some(cap_ms),
            tcp_early_retrans: 0,
            ..LinuxSysctls::default()
        };
        let mut cfg = TcpConfig::linux();
        sysctls.apply(&mut cfg);
        cfg.linux = Some(sysctls);
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            ..cfg
        };
        let at = |v: u64| Time::ZERO + Dur::from_millis(v);
        let mut s = TcpSender::new(FlowId(0), &cfg, Rto::new(&cfg.rto));
        let mut out = Vec::new();
        s.on_start(at(0), &mut out);
        s.on_app_data(at(0), 100_000, &mut out);
        let mut ack = Packet::new(0, FlowId(0), PacketKind::Ack, Time::ZERO);
        (ack.ack, ack.rwnd) = (1000, 1 << 20);
        s.on_ack(at(100), &ack, &mut out);
        let mut fired = Vec::new();
        while let Some(d) = s.next_deadline().filter(|&d| d <= at(20_100)) {
            let outcome = s.on_timer(d, &mut out);
            assert!(
                matches!(outcome, TimerOutcome::Timeout { .. }),
                "{outcome:?}"
            );
            fired.push(d.0 / 1_000_000);
        }
        fired
    }

    /// The expiries the kernel's rules predict: RTO_k = min(300 ms << k, cap)
    /// (`tcp_retransmit_timer`: `icsk_rto = min(icsk_rto << 1, tcp_rto_max(sk))`),
    /// each armed at the previous expiry and fired by the timer wheel
    /// ([`crate::linux_timer_wheel::fires_at`]), the first armed at 100 ms.
    fn predicted(cap_ms: u64) -> Vec<u64> {
        let mut t = Time::ZERO + Dur::from_millis(100);
        let mut fired = Vec::new();
        for k in 0.. {
            let rto = (300u64 << k).min(cap_ms);
            t = crate::linux_timer_wheel::fires_at(t, Dur::from_millis(rto));
            if t > Time::ZERO + Dur::from_millis(20_100) {
                return fired;
            }
            fired.push(t.0 / 1_000_000);
        }
        unreachable!()
    }

    #[test]
    fn a_20s_freeze_backs_the_timer_off_up_to_tcp_rto_max_ms() {
        for (cap, count) in [(1000, 20), (5000, 7), (120_000, 6)] {
            let fired = expiries_in_a_20s_freeze(cap as u32);
            assert_eq!(fired, predicted(cap), "cap {cap} ms");
            assert_eq!(fired.len(), count, "cap {cap} ms: {fired:?}");
        }
        // The cap shows: 1 s apart at 1 s, 5 s apart at 5 s, doubling at 120 s.
        let gaps = |v: Vec<u64>| v.windows(2).map(|w| w[1] - w[0]).max();
        assert!(gaps(expiries_in_a_20s_freeze(1000)) <= Some(1024));
        assert!(gaps(expiries_in_a_20s_freeze(5000)) <= Some(5120));
        assert!(gaps(expiries_in_a_20s_freeze(120_000)) >= Some(9600));
    }

    #[test]
    fn the_rto_sysctls_set_the_linux_estimators_bounds_in_whole_jiffies() {
        let mut c = TcpConfig::linux();
        let s = LinuxSysctls {
            tcp_rto_max_ms: Some(5000),
            tcp_rto_min_us: Some(50_500),
            ..LinuxSysctls::default()
        };
        s.apply(&mut c);
        let RtoConfig::Linux(r) = c.rto else {
            panic!("{:?}", c.rto)
        };
        assert_eq!(r.rto_max, Some(Dur::from_secs(5)));
        assert_eq!(
            r.rto_min,
            Dur::from_millis(52),
            "usecs_to_jiffies rounds 12.625 jiffies up to 13"
        );
        assert_eq!(rto_min(1), Dur::from_millis(4));
        assert!(r.jiffies, "the RTO itself in whole jiffies too");
    }

    #[test]
    fn bbr_keeps_ssthresh_on_a_loss_cubic_and_reno_lower_it_their_ways() {
        assert_eq!(ssthresh_rule(CcKind::Bbr), SsthreshRule::Kept);
        assert_eq!(ssthresh_rule(CcKind::Cubic), SsthreshRule::LinuxCubic);
        assert_eq!(ssthresh_rule(CcKind::LinuxReno), SsthreshRule::LinuxReno);
    }

    #[test]
    fn the_default_host_has_timestamps_sack_dsack_and_linux_frto() {
        let c = TcpConfig::linux();
        assert!(c.timestamps && c.dsack);
        assert_eq!(c.recovery, RecoveryKind::RenoSack);
        assert_eq!(c.spurious.driver, Some(DetectorKind::LinuxFrto));
        assert_eq!(c.initial_window, 10);
        assert!(matches!(c.rto, RtoConfig::Linux(ref l) if l.rto_min == Dur::from_millis(200)));
    }

    #[test]
    fn turning_sysctls_off_turns_the_matching_behaviour_off() {
        let mut c = TcpConfig::linux();
        let s = LinuxSysctls {
            tcp_timestamps: 0,
            tcp_frto: 0,
            tcp_sack: 0,
            tcp_dsack: 0,
            ..LinuxSysctls::default()
        };
        s.apply(&mut c);
        assert!(!c.timestamps && !c.dsack);
        assert_eq!(c.recovery, RecoveryKind::NewReno);
        assert_eq!(c.spurious.driver, Some(DetectorKind::LinuxUndo));
    }
}
