//! The `linux` profile: a sender and receiver configured as a Linux 6.x host, with
//! the switches a user flips on a real host named as the kernel's sysctls
//! (`net.ipv4.tcp_*`, Documentation/networking/ip-sysctl.rst).
//!
//! [`LinuxSysctls::apply`] derives the plain [`TcpConfig`] fields from the sysctls, so
//! with a `linux` table present the fields `timestamps`, `recovery`, `dsack` and
//! `spurious.driver` follow it. What the kernel does that spikelab does not model yet
//! is named on each sysctl.

use crate::config::{RecoveryKind, TcpConfig};
use crate::response::{Restore, SpuriousConfig};
use crate::rto::{LinuxConfig, RtoConfig};
use crate::spurious::DetectorKind;
use crate::window::SsthreshRule;
use serde::{Deserialize, Serialize};
use spikelab_core::{Dur, Time};

/// `net.ipv4.tcp_congestion_control`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CongestionControl {
    /// `tcp_reno_cong_avoid` / `tcp_reno_ssthresh` (net/ipv4/tcp_cong.c).
    #[default]
    Reno,
    /// `tcp_cubic.c` (RFC 9438, [`crate::cubic`]): the kernel's default.
    Cubic,
}

/// The congestion-control module a `linux` host runs (`icsk_ca_ops`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinuxCc {
    Reno(crate::linux_reno::LinuxReno),
    Cubic(crate::cubic::Cubic),
}

impl Default for LinuxCc {
    fn default() -> Self {
        LinuxCc::Reno(Default::default())
    }
}

impl LinuxCc {
    pub fn new(kind: CongestionControl) -> LinuxCc {
        match kind {
            CongestionControl::Reno => LinuxCc::Reno(Default::default()),
            CongestionControl::Cubic => LinuxCc::Cubic(Default::default()),
        }
    }

    /// `cong_avoid` for an ACK of `acked` segments: the new cwnd, in segments.
    pub fn on_ack(&mut self, now: Time, cwnd: u64, ssthresh: u64, acked: u64) -> u64 {
        match self {
            LinuxCc::Reno(r) => r.on_ack(cwnd, ssthresh, acked),
            LinuxCc::Cubic(c) => c.on_ack(now, cwnd, ssthresh, acked),
        }
    }

    /// `pkts_acked` with an RTT sample: a new ssthresh (segments) if slow start ends.
    /// Whether [`Self::on_rtt_sample`] can do anything (CUBIC's HyStart; Reno's
    /// `pkts_acked` is empty), so a Reno sender builds no view for it.
    pub fn uses_rtt_samples(&self) -> bool {
        matches!(self, LinuxCc::Cubic(_))
    }

    pub fn on_rtt_sample(&mut self, v: &crate::cubic::RttView) -> Option<u64> {
        match self {
            LinuxCc::Reno(_) => None,
            LinuxCc::Cubic(c) => c.on_rtt_sample(v),
        }
    }

    /// `ssthresh` (its side effects; the value is the `SsthreshRule`'s) and
    /// `tcp_init_cwnd_reduction`'s `snd_cwnd_cnt = 0`, from `cwnd` segments.
    pub fn on_reduction(&mut self, cwnd: u64) {
        match self {
            LinuxCc::Reno(r) => r.on_reduction(),
            LinuxCc::Cubic(c) => c.on_reduction(cwnd),
        }
    }

    /// `tcp_enter_loss`: `snd_cwnd_cnt = 0` and `set_state(TCP_CA_Loss)`.
    pub fn on_loss_state(&mut self, now: Time, snd_nxt: u64) {
        match self {
            LinuxCc::Reno(r) => r.on_reduction(),
            LinuxCc::Cubic(c) => c.on_loss_state(now, snd_nxt),
        }
    }
}

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
    /// `reno` or `cubic`. Default `reno` (the kernel's is cubic; the emulator runs
    /// reno by default too). Drives `ssthresh_rule`.
    pub tcp_congestion_control: CongestionControl,
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
            tcp_congestion_control: CongestionControl::Reno,
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
        cfg.ssthresh_rule = match self.tcp_congestion_control {
            CongestionControl::Reno => SsthreshRule::LinuxReno,
            CongestionControl::Cubic => SsthreshRule::LinuxCubic,
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
    /// segments (`tcp_reno_cong_avoid`, [`crate::linux_reno`]) and no TSO.
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
