//! The `linux` profile: a sender and receiver configured as a Linux 6.x host, with
//! the switches a user flips on a real host named as the kernel's sysctls
//! (`net.ipv4.tcp_*`, Documentation/networking/ip-sysctl.rst).
//!
//! [`LinuxSysctls::apply`] derives the plain [`TcpConfig`] fields from the sysctls, so
//! with a `linux` table present the fields `timestamps`, `recovery`, `dsack` and
//! `spurious.driver` follow it. What the kernel does that spikelab does not model yet
//! is named on each sysctl.

use crate::cc::LinuxModule;
use crate::config::{RecoveryKind, TcpConfig};
use crate::response::{Restore, SpuriousConfig};
use crate::rto::{LinuxConfig, RtoConfig};
use crate::spurious::DetectorKind;
use crate::window::SsthreshRule;
use serde::{Deserialize, Serialize};
use spikelab_core::Dur;

/// The kernel's sysctls as a scenario writes them (integers as in
/// `/proc/sys/net/ipv4`). Defaults: Linux 6.x's, except `tcp_congestion_control`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinuxSysctls {
    /// 0 off, 1 on (with a random per-connection offset), 2 on without the offset.
    /// Default 1. Drives `timestamps`.
    pub tcp_timestamps: u8,
    /// 0 or 1. Default 1. SACK recovery (`reno-sack`, RFC 6675) when 1, NewReno when 0.
    pub tcp_sack: u8,
    /// 0 or 1. Default 1. The receiver reports duplicates with D-SACK (RFC 2883).
    pub tcp_dsack: u8,
    /// 0 off, 1 or 2 the SACK-enhanced F-RTO of `tcp_process_loss`. Default 2.
    /// Timestamp and D-SACK undo run either way (`linux-undo` / `linux-frto`).
    pub tcp_frto: u8,
    /// Bit mask: 1 RACK loss detection ([`crate::rack`]; without it, DupThresh), 2
    /// static reordering window (the D-SACK adaptation is not modelled, so the window
    /// is static either way), 4 no DupThresh rule in the reordering window. Default 1.
    pub tcp_recovery: u8,
    /// 0 to 4; 3 and 4 enable Tail Loss Probes (RFC 8985, [`crate::tlp`]). Default 3.
    pub tcp_early_retrans: u8,
    /// A module a registered controller models ([`crate::cc`]: `reno` or `cubic`).
    /// Default `reno` (the kernel's is cubic; the emulator runs reno by default too).
    /// Drives `ssthresh_rule`.
    pub tcp_congestion_control: LinuxModule,
    /// Receive buffer `[min, default, max]` in bytes. Default `[4096, 131072,
    /// 6291456]`. The receiver starts from `tcp_rmem[1]` and autotunes up to
    /// `tcp_rmem[2]` ([`crate::linux_rcvbuf`]); `receiver_window` is its
    /// `TCP_WINDOW_CLAMP`.
    pub tcp_rmem: [u64; 3],
    /// The receiver's `setsockopt(SO_RCVBUF)` value in bytes, if the application
    /// sets one: the kernel doubles it and locks the buffer, so there is no
    /// autotuning. Default: not set. (`spikelab emulate` sets this value on the
    /// kernel's receiver, or 4 x `receiver_window` without it.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub so_rcvbuf: Option<u64>,
}

impl Default for LinuxSysctls {
    fn default() -> Self {
        LinuxSysctls {
            tcp_timestamps: 1,
            tcp_sack: 1,
            tcp_dsack: 1,
            tcp_frto: 2,
            tcp_recovery: 1,
            tcp_early_retrans: 3,
            tcp_congestion_control: LinuxModule::default(),
            tcp_rmem: [4096, 131_072, 6_291_456],
            so_rcvbuf: None,
        }
    }
}

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
        cfg.ssthresh_rule = if self.tcp_congestion_control.ssthresh_is_cubic() {
            SsthreshRule::LinuxCubic
        } else {
            SsthreshRule::LinuxReno
        };
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
