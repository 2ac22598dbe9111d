//! The `linux` profile as a configuration: [`TcpConfig::linux`] (a Linux 6.x host
//! with the default sysctls) and [`LinuxSysctls::apply`], which derives the plain
//! [`TcpConfig`] fields the sysctls decide. The sysctls themselves are
//! [`crate::linux_profile`]'s.

use crate::config::{RecoveryKind, TcpConfig};
use crate::linux_profile::LinuxSysctls;
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
        cfg.ssthresh_rule = self.tcp_congestion_control.ssthresh_rule();
        cfg.spurious.driver = Some(if self.tcp_frto != 0 {
            DetectorKind::LinuxFrto
        } else {
            DetectorKind::LinuxUndo
        });
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
