//! The `linux` profile: a sender and receiver configured as a Linux 6.x host, with
//! the switches a user flips on a real host named as the kernel's sysctls
//! (`net.ipv4.tcp_*`, Documentation/networking/ip-sysctl.rst).
//!
//! `LinuxSysctls::apply` (in `stacks::linux::profile`) derives the plain
//! `TcpConfig` fields from the sysctls, so with a `linux` table present the fields
//! `timestamps`, `recovery`, `dsack` and `spurious.driver` follow it. What the kernel does that spikelab does not model yet
//! is named on each sysctl.

use crate::cc::LinuxModule;
use serde::{Deserialize, Serialize};

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
    /// A module a registered controller models ([`crate::cc`]: `reno`, `cubic` or
    /// `bbr`, the last paced by the sender).
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
    /// The ceiling of the retransmission timer, backed off or not, in ms (Linux 6.15+:
    /// `icsk_rto_max` from the sysctl, read by `tcp_rto_max()`), 1000 to 120000 as the
    /// sysctl table allows. Not set: the kernel's default, 120000 (`TCP_RTO_MAX`).
    /// Sets the `linux` estimator's `rto_max`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_rto_max_ms: Option<u32>,
    /// The RTO's floor above SRTT (the floor of rttvar) in us (Linux 6.15+:
    /// `icsk_rto_min` = `usecs_to_jiffies` of the sysctl, read by `tcp_rto_min()`), at
    /// least 1 as the sysctl table allows. Not set: the kernel's default, 200000
    /// (`TCP_RTO_MIN`). Sets the `linux` estimator's `rto_min`, in whole jiffies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_rto_min_us: Option<u32>,
    /// Not a sysctl: the start phases a recorded kernel run's BBR drew, in order
    /// (the values `get_random_u32_below(bbr_cycle_rand)` returned in
    /// `bbr_reset_probe_bw_mode`, each 0 to 6), replayed by the model's BBR before it
    /// draws from its seeded stream. The kernel draws them at random, so one run of
    /// the kernel can only be held against the model given its draws; the recorders
    /// read them from the run's pacing-gain series (scripts/bbr_draws.py). Only with
    /// `tcp_congestion_control = "bbr"`; `emulate` refuses it (a kernel draws its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bbr_cycle_draws: Option<Vec<u8>>,
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
            tcp_rto_max_ms: None,
            tcp_rto_min_us: None,
            bbr_cycle_draws: None,
        }
    }
}
