//! The kernel side: which settings a scenario's TCP configuration becomes, and reading
//! what the kernel reports (`TCP_INFO`, `/proc/net/netstat`).
//!
//! The kernel runs its own TCP: of a flow's `tcp` table only what has a kernel
//! counterpart is applied. Per socket: the segment size (`TCP_MAXSEG`; the model's
//! `mss` counts payload bytes, the kernel's clamp includes the 12 bytes of the
//! timestamps option, so `mss + 12` is asked for when timestamps are on), the
//! receiver's window (`TCP_WINDOW_CLAMP` = `receiver_window`, with `SO_RCVBUF` large
//! enough not to bind first, or the `linux` profile's `so_rcvbuf`) and the congestion
//! control module, the one the flow's congestion controller declares
//! (`tcp_congestion_control` in its `Exports::kernel`: `reno` for the RFC and ns-2
//! senders, the `linux` profile's module for a Linux host); a flow's `[flow.kernel]`
//! table may name another, and may set the receive buffer and any of the sysctls
//! below, see [`KernelSettings::for_flow`]. Per namespace (both ends): sysctls
//! `tcp_timestamps` (`timestamps`), `tcp_sack` (a SACK `recovery`), `tcp_dsack`
//! (`dsack`), `tcp_frto` (2 when the spurious-timeout `driver` is F-RTO or SACK-F-RTO,
//! else 0), and `tcp_recovery` / `tcp_early_retrans`, which have no model counterpart
//! and keep the kernel's defaults unless `--sysctl` sets them; a `linux` host also
//! passes `tcp_rto_min_us` / `tcp_rto_max_ms` when it sets them (Linux 6.15+) and
//! runs its `tcp_congestion_control` module (`reno`, `cubic` or `bbr`). Everything else
//! (the RTO estimator, delayed ACKs, initial window, ...) is the kernel's own; meta.json
//! lists those keys as not applied.

use spikelab_scenario::KernelEntry;
use spikelab_tcp::exports::{Exports, Kernel};
use spikelab_tcp::spurious::DetectorKind;
use spikelab_tcp::stacks::congestion_controller;
use spikelab_tcp::TcpConfig;
use std::collections::BTreeMap;

/// The per-namespace sysctls the emulator may set (net.ipv4.*).
pub const SYSCTLS: &[&str] = &[
    "tcp_timestamps",
    "tcp_sack",
    "tcp_dsack",
    "tcp_frto",
    "tcp_recovery",
    "tcp_early_retrans",
    "tcp_rto_min_us",
    "tcp_rto_max_ms",
];

/// Sysctls read back into meta.json besides [`SYSCTLS`].
pub const RECORDED: &[&str] = &[
    "tcp_congestion_control",
    "tcp_rmem",
    "tcp_wmem",
    "tcp_no_metrics_save",
    "tcp_retries2",
    "tcp_syn_retries",
    "tcp_thin_linear_timeouts",
    "tcp_autocorking",
];

/// The congestion-control module of a flow whose controller states no kernel module
/// (every registered controller states one; see `spikelab_tcp::cc`'s tests).
pub const DEFAULT_CC: &str = "reno";

/// The kernel module the flow's congestion controller declares
/// (`tcp_congestion_control` in its [`Exports::kernel`]).
pub fn congestion_module(tcp: &TcpConfig) -> &'static str {
    let kernel = congestion_controller(tcp).kernel();
    kernel
        .sysctl("tcp_congestion_control")
        .unwrap_or(DEFAULT_CC)
}

/// Bytes of the timestamps option with its padding (RFC 7323 3.2: 10 bytes, sent as
/// 12 with two NOPs), which the kernel's `TCP_MAXSEG` counts.
const TS_OPTION: u32 = 12;

/// What one flow asks of the kernel.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KernelSettings {
    /// sysctl name (under net.ipv4) -> value, for both namespaces of the flow.
    pub sysctls: BTreeMap<String, String>,
    /// TCP_MAXSEG on both sockets.
    pub maxseg: u32,
    /// TCP_WINDOW_CLAMP on the receiver.
    pub window_clamp: u32,
    /// SO_RCVBUF on the receiver.
    pub rcvbuf: u32,
    /// TCP_CONGESTION on the sender.
    pub congestion: String,
}

/// Keys of a flow's `tcp` table the kernel does not take from the scenario.
pub const NOT_APPLIED: &[&str] = &[
    "initial_window",
    "initial_ssthresh",
    "sack_pipe",
    "ssthresh_rule",
    "careful_fast_retransmit",
    "timeout_retransmit",
    "karn",
    "limited_transmit",
    "dupack_threshold",
    "timestamp_tick",
    "echo_rule",
    "delayed_ack",
    "max_sack_blocks",
    "handshake",
    "rto",
    "spurious.response",
];

impl KernelSettings {
    /// A flow's settings, in order of precedence from lowest: what `tcp` implies (the
    /// module its controller declares), the flow's `[flow.kernel]` table, then the
    /// command line's `--sysctl` and `--cc`.
    pub fn for_flow(
        tcp: &TcpConfig,
        entry: Option<&KernelEntry>,
        overrides: &BTreeMap<String, String>,
        cc: Option<&str>,
    ) -> Self {
        let mut k = Self::from_tcp(tcp, &BTreeMap::new());
        if let Some(e) = entry {
            k.apply(e);
        }
        for (name, v) in overrides {
            k.set_sysctl(name, v);
        }
        if let Some(cc) = cc {
            k.congestion = cc.to_owned();
        }
        k
    }

    /// Applies a `[flow.kernel]` table: its sysctls, receive buffer and module.
    pub fn apply(&mut self, e: &KernelEntry) {
        for (name, v, _) in e.sysctls() {
            self.set_sysctl(name, &v.to_string());
        }
        if let Some(b) = e.rcvbuf {
            self.rcvbuf = b.0.min(i32::MAX as u64 / 2) as u32;
        }
        if let Some(c) = &e.congestion {
            self.congestion = c.clone();
        }
    }

    /// Sets one net.ipv4 sysctl for both namespaces; turning timestamps on or off
    /// moves the segment clamp with them, so payloads keep the model's `mss`.
    pub fn set_sysctl(&mut self, name: &str, value: &str) {
        let was = self.timestamps_on();
        self.sysctls.insert(name.to_owned(), value.to_owned());
        match (was, self.timestamps_on()) {
            (false, true) => self.maxseg += TS_OPTION,
            (true, false) => self.maxseg -= TS_OPTION,
            _ => {}
        }
    }

    fn timestamps_on(&self) -> bool {
        self.sysctls.get("tcp_timestamps").is_some_and(|v| v != "0")
    }

    /// The kernel settings for `tcp`, then `overrides` (sysctl -> value); the module is
    /// the one the flow's controller declares ([`congestion_module`]).
    pub fn from_tcp(tcp: &TcpConfig, overrides: &BTreeMap<String, String>) -> Self {
        let b = |v: bool| if v { "1" } else { "0" }.to_owned();
        let mut sysctls = BTreeMap::new();
        sysctls.insert("tcp_timestamps".to_owned(), b(tcp.timestamps));
        sysctls.insert("tcp_dsack".to_owned(), b(tcp.dsack));
        // F-RTO off unless the driving detector asks for it.
        sysctls.insert("tcp_frto".to_owned(), "0".to_owned());
        // Each algorithm states its own settings (`spikelab_tcp::exports::Exports`).
        let driver = tcp.spurious.driver.map(|d| d.kernel());
        for k in [Some(tcp.recovery.kernel()), driver, Some(tcp.rto.kernel())] {
            if let Some(Kernel::Sysctls(set)) = k {
                for (name, v) in set {
                    sysctls.insert((*name).to_owned(), (*v).to_owned());
                }
            }
        }
        // The `linux` profile names the kernel's own switches: pass them on as written.
        if let Some(l) = &tcp.linux {
            for (k, v) in [
                ("tcp_timestamps", l.tcp_timestamps),
                ("tcp_frto", l.tcp_frto),
                ("tcp_recovery", l.tcp_recovery),
                ("tcp_early_retrans", l.tcp_early_retrans),
            ] {
                sysctls.insert(k.to_owned(), v.to_string());
            }
            // Linux 6.15+'s timer bounds, only when the scenario sets them.
            let rto = [
                ("tcp_rto_min_us", l.tcp_rto_min_us),
                ("tcp_rto_max_ms", l.tcp_rto_max_ms),
            ];
            for (k, v) in rto {
                if let Some(v) = v {
                    sysctls.insert(k.to_owned(), v.to_string());
                }
            }
        }
        for (k, v) in overrides {
            sysctls.insert(k.clone(), v.clone());
        }
        let ts_on = sysctls.get("tcp_timestamps").is_some_and(|v| v != "0");
        let window = tcp.receiver_window.min(i32::MAX as u64 / 4) as u32;
        KernelSettings {
            sysctls,
            maxseg: tcp.mss + if ts_on { TS_OPTION } else { 0 },
            window_clamp: window,
            // The `linux` profile's `so_rcvbuf` is the same setsockopt; without it,
            // a buffer large enough not to bind before the clamp.
            rcvbuf: tcp
                .linux
                .as_ref()
                .and_then(|l| l.so_rcvbuf)
                .map_or((window * 4).max(4096), |b| {
                    b.min(i32::MAX as u64 / 2) as u32
                }),
            congestion: congestion_module(tcp).to_owned(),
        }
    }

    /// The detectors the kernel runs with these settings, as spikelab names them: each
    /// registered detector whose declared sysctls all hold
    /// ([`Exports::kernel_runs_when`]), in registration order (timestamps -> the
    /// Eifel-style undo, `tcp_packet_delayed`; F-RTO -> SACK-F-RTO with SACK, else
    /// F-RTO; D-SACK with SACK -> the D-SACK undo).
    pub fn detectors(&self) -> Vec<DetectorKind> {
        let on = |k: &str| self.sysctls.get(k).is_some_and(|v| v != "0");
        let holds = |runs: &[(&str, bool)]| runs.iter().all(|&(k, want)| on(k) == want);
        (DetectorKind::ALL.iter().copied())
            .filter(|d| d.kernel_runs_when().is_some_and(holds))
            .collect()
    }
}

/// The fields of `struct tcp_info` the emulator reads, at their offsets in
/// include/uapi/linux/tcp.h (Linux 6.7 added `tcpi_total_rto` at 240).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    /// `icsk_retransmits`: expiries of the current timeout episode.
    pub retransmits: u8,
    pub backoff: u8,
    /// Microseconds.
    pub rto_us: u32,
    pub unacked: u32,
    /// Segments SACKed (`tp->sacked_out`).
    pub sacked: u32,
    /// Segments marked lost (`tp->lost_out`).
    pub lost: u32,
    /// Retransmitted segments in flight (`tp->retrans_out`).
    pub retrans: u32,
    /// Smoothed RTT, microseconds.
    pub rtt_us: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    /// The reordering degree in segments (`tp->reordering`).
    pub reordering: u32,
    pub total_retrans: u32,
    pub bytes_acked: u64,
    /// `tcpi_bytes_received`: payload bytes received in order (`rcv_nxt` moved).
    pub bytes_received: u64,
    pub notsent_bytes: u32,
    pub min_rtt_us: u32,
    pub data_segs_out: u32,
    /// Segments delivered (`tp->delivered`, D-SACKed and SACKed ones included).
    pub delivered: u32,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub total_rto: u16,
    pub total_rto_recoveries: u16,
    /// BBR's model (`TCP_CC_INFO`), read beside TCP_INFO for the series when the
    /// socket runs BBR; `None` for controllers without `get_info` (reno, cubic).
    /// Not a TCP_INFO field, so not among kernel.csv's `tcp_info.*` rows.
    #[serde(skip)]
    pub bbr: Option<BbrInfo>,
}

/// `struct tcp_bbr_info` (include/uapi/linux/inet_diag.h), as `bbr_get_info` fills
/// it: the bandwidth estimate in bytes per second, `min_rtt` in us and the two gains
/// in 1/256 (`BBR_UNIT`). In PROBE_BW the pacing gain is the gain cycle's phase
/// (320, 192, then 256 for six phases) and the cwnd gain 512 (`bbr_update_gains`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BbrInfo {
    pub bw_bps: u64,
    pub min_rtt_us: u32,
    pub pacing_gain: u32,
    pub cwnd_gain: u32,
}

impl BbrInfo {
    /// Decodes what `getsockopt(TCP_CC_INFO)` returned on a BBR socket
    /// (`do_tcp_getsockopt` copies `bbr_get_info`'s 20 bytes; fewer: not BBR's form).
    pub fn parse(b: &[u8]) -> Option<BbrInfo> {
        (b.len() >= 20).then(|| BbrInfo {
            bw_bps: u64_at(b, 0),
            min_rtt_us: u32_at(b, 8),
            pacing_gain: u32_at(b, 12),
            cwnd_gain: u32_at(b, 16),
        })
    }
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_ne_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from(u32_at(b, o)) | u64::from(u32_at(b, o + 4)) << 32
}

impl TcpInfo {
    /// Decodes the raw structure.
    pub fn parse(b: &[u8; 256]) -> TcpInfo {
        TcpInfo {
            state: b[0],
            ca_state: b[1],
            retransmits: b[2],
            backoff: b[4],
            rto_us: u32_at(b, 8),
            unacked: u32_at(b, 24),
            sacked: u32_at(b, 28),
            lost: u32_at(b, 32),
            retrans: u32_at(b, 36),
            rtt_us: u32_at(b, 68),
            snd_ssthresh: u32_at(b, 76),
            snd_cwnd: u32_at(b, 80),
            reordering: u32_at(b, 88),
            total_retrans: u32_at(b, 100),
            bytes_acked: u64_at(b, 120),
            bytes_received: u64_at(b, 128),
            notsent_bytes: u32_at(b, 144),
            min_rtt_us: u32_at(b, 148),
            data_segs_out: u32_at(b, 156),
            delivered: u32_at(b, 192),
            bytes_retrans: u64_at(b, 208),
            dsack_dups: u32_at(b, 216),
            total_rto: u16::from_ne_bytes([b[240], b[241]]),
            total_rto_recoveries: u16::from_ne_bytes([b[242], b[243]]),
            bbr: None,
        }
    }
}

/// The receiver's side of `struct tcp_info` (include/uapi/linux/tcp.h), as
/// `tcp_get_info` fills it for the accepted socket: its delayed-ACK timeout
/// (`tcpi_ato`, `jiffies_to_usecs(icsk_ack.ato)`), the MSS it measured, its RTT
/// estimate (`tcpi_rcv_rtt`, `rcv_rtt_est`), its buffer autotuning state and what it
/// has received in order: the receiver's ACK clock, which a capture shows only as
/// the ACKs it sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverInfo {
    pub ato_us: u32,
    pub rcv_mss: u32,
    pub rcv_ssthresh: u32,
    pub rcv_rtt_us: u32,
    pub rcv_space: u32,
    pub bytes_received: u64,
}

impl ReceiverInfo {
    /// The header of `tcp_info/rep<r>-<flow>-receiver.csv`.
    pub const SERIES_HEADER: &'static str =
        "time_s,ato_ms,rcv_mss,rcv_ssthresh,rcv_rtt_ms,rcv_space,bytes_received";

    /// Decodes the receiver's fields of the raw structure.
    pub fn parse(b: &[u8; 256]) -> ReceiverInfo {
        ReceiverInfo {
            ato_us: u32_at(b, 12),
            rcv_mss: u32_at(b, 20),
            rcv_ssthresh: u32_at(b, 64),
            rcv_rtt_us: u32_at(b, 92),
            rcv_space: u32_at(b, 96),
            bytes_received: u64_at(b, 128),
        }
    }

    /// The row of this sample taken `t_ns` after the run's origin.
    pub fn series_row(&self, t_ns: u64) -> String {
        format!(
            "{:.6},{:.3},{},{},{:.3},{},{}",
            t_ns as f64 / 1e9,
            f64::from(self.ato_us) / 1e3,
            self.rcv_mss,
            self.rcv_ssthresh,
            f64::from(self.rcv_rtt_us) / 1e3,
            self.rcv_space,
            self.bytes_received,
        )
    }
}

/// One sample of the sender's state over time (`spikelab emulate --tcp-info`):
/// the columns of [`TcpInfo::SERIES_HEADER`].
impl TcpInfo {
    /// The header of `tcp_info/rep<r>-<flow>.csv`.
    pub const SERIES_HEADER: &'static str = "time_s,ca_state,cwnd,ssthresh,unacked,sacked,lost,retrans,reordering,retransmits,backoff,rto_ms,srtt_ms,bytes_acked,data_segs_out,total_retrans,delivered,dsack_dups,total_rto,bbr_bw_bps,bbr_min_rtt_us,bbr_pacing_gain,bbr_cwnd_gain";

    /// The row of this sample taken `t_ns` after the run's origin.
    pub fn series_row(&self, t_ns: u64) -> String {
        let bbr = self.bbr.map_or_else(
            || ",,,".to_string(),
            |b| {
                format!(
                    "{},{},{},{}",
                    b.bw_bps, b.min_rtt_us, b.pacing_gain, b.cwnd_gain
                )
            },
        );
        format!(
            "{:.6},{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{},{},{},{},{},{},{bbr}",
            t_ns as f64 / 1e9,
            self.ca_state,
            self.snd_cwnd,
            self.snd_ssthresh,
            self.unacked,
            self.sacked,
            self.lost,
            self.retrans,
            self.reordering,
            self.retransmits,
            self.backoff,
            f64::from(self.rto_us) / 1e3,
            f64::from(self.rtt_us) / 1e3,
            self.bytes_acked,
            self.data_segs_out,
            self.total_retrans,
            self.delivered,
            self.dsack_dups,
            self.total_rto,
        )
    }
}

/// `TCP_CA_Recovery` (include/net/tcp.h `enum tcp_ca_state`).
pub const CA_RECOVERY: u8 = 3;

/// Every counter of a `/proc/net/netstat` or `/proc/net/snmp` text, as
/// `Group.Name -> value` (each group is a header line followed by a value line).
pub fn parse_counters(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let lines: Vec<&str> = text.lines().collect();
    for pair in lines.chunks(2) {
        let [head, vals] = pair else { continue };
        let (Some((group, names)), Some((_, values))) =
            (head.split_once(':'), vals.split_once(':'))
        else {
            continue;
        };
        for (n, v) in names.split_whitespace().zip(values.split_whitespace()) {
            if let Ok(v) = v.parse::<u64>() {
                out.insert(format!("{group}.{n}"), v);
            }
        }
    }
    out
}

/// The counters of the calling thread's namespace (netstat and snmp).
pub fn read_counters() -> std::io::Result<BTreeMap<String, u64>> {
    let mut all = parse_counters(&std::fs::read_to_string("/proc/thread-self/net/netstat")?);
    all.extend(parse_counters(&std::fs::read_to_string(
        "/proc/thread-self/net/snmp",
    )?));
    Ok(all)
}

/// Sets `net.ipv4.<name>` in the calling thread's namespace.
pub fn write_sysctl(name: &str, value: &str) -> std::io::Result<()> {
    std::fs::write(format!("/proc/sys/net/ipv4/{name}"), value)
        .map_err(|e| std::io::Error::new(e.kind(), format!("sysctl net.ipv4.{name}={value}: {e}")))
}

/// Reads `net.ipv4.<name>` in the calling thread's namespace.
pub fn read_sysctl(name: &str) -> Option<String> {
    std::fs::read_to_string(format!("/proc/sys/net/ipv4/{name}"))
        .ok()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `uname -r`.
pub fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netstat_text_becomes_named_counters() {
        let t = "TcpExt: TCPTimeouts TCPSpuriousRTOs\nTcpExt: 3 1\nIpExt: InOctets\nIpExt: 99\n";
        let c = parse_counters(t);
        assert_eq!(c["TcpExt.TCPTimeouts"], 3);
        assert_eq!(c["TcpExt.TCPSpuriousRTOs"], 1);
        assert_eq!(c["IpExt.InOctets"], 99);
    }

    #[test]
    fn timestamps_widen_the_segment_clamp_so_payloads_keep_the_models_mss() {
        let tcp = TcpConfig {
            mss: 1000,
            timestamps: true,
            ..TcpConfig::default()
        };
        let k = KernelSettings::from_tcp(&tcp, &BTreeMap::new());
        assert_eq!(k.maxseg, 1012);
        let mut off = BTreeMap::new();
        off.insert("tcp_timestamps".to_owned(), "0".to_owned());
        assert_eq!(KernelSettings::from_tcp(&tcp, &off).maxseg, 1000);
    }

    #[test]
    fn the_linux_profiles_so_rcvbuf_is_the_receivers_so_rcvbuf() {
        let mut tcp = TcpConfig::linux();
        tcp.receiver_window = 150_000;
        let k = KernelSettings::from_tcp(&tcp, &BTreeMap::new());
        assert_eq!(k.rcvbuf, 600_000, "4 x receiver_window without it");
        tcp.linux.as_mut().unwrap().so_rcvbuf = Some(262_144);
        let k = KernelSettings::from_tcp(&tcp, &BTreeMap::new());
        assert_eq!((k.rcvbuf, k.window_clamp), (262_144, 150_000));
    }

    #[test]
    fn the_flows_kernel_table_overrides_tcp_and_the_command_line_overrides_both() {
        let tcp = TcpConfig {
            mss: 1000,
            timestamps: false,
            ..TcpConfig::default()
        };
        let e = KernelEntry {
            congestion: Some("cubic".into()),
            rcvbuf: Some(spikelab_core::ByteSize(300_000)),
            tcp_timestamps: Some(1),
            tcp_recovery: Some(0),
            ..KernelEntry::default()
        };
        let k = KernelSettings::for_flow(&tcp, Some(&e), &BTreeMap::new(), None);
        assert_eq!(
            (k.congestion.as_str(), k.rcvbuf, k.maxseg),
            ("cubic", 300_000, 1012)
        );
        assert_eq!(k.sysctls["tcp_timestamps"], "1");
        assert_eq!(k.sysctls["tcp_recovery"], "0");
        let mut cli = BTreeMap::new();
        cli.insert("tcp_timestamps".to_owned(), "0".to_owned());
        let k = KernelSettings::for_flow(&tcp, Some(&e), &cli, Some("reno"));
        assert_eq!((k.congestion.as_str(), k.maxseg), ("reno", 1000));
        let plain = KernelSettings::for_flow(&tcp, None, &BTreeMap::new(), None);
        assert_eq!((plain.congestion.as_str(), plain.maxseg), ("reno", 1000));
        assert!(!plain.sysctls.contains_key("tcp_recovery"));
    }

    #[test]
    fn a_linux_host_runs_its_module_and_passes_its_rto_bounds() {
        let mut tcp = TcpConfig::linux();
        let l = tcp.linux.as_mut().expect("the linux profile");
        l.tcp_congestion_control = spikelab_tcp::LinuxModule::named("bbr").expect("bbr");
        l.tcp_rto_max_ms = Some(5000);
        let k = KernelSettings::for_flow(&tcp, None, &BTreeMap::new(), None);
        assert_eq!(k.congestion, "bbr");
        assert_eq!(k.sysctls["tcp_rto_max_ms"], "5000");
        assert!(
            !k.sysctls.contains_key("tcp_rto_min_us"),
            "not set: the kernel's own"
        );
    }

    #[test]
    fn the_module_is_the_one_the_flows_controller_declares() {
        let cubic = spikelab_tcp::LinuxModule::named("cubic").unwrap();
        let mut tcp = TcpConfig::linux();
        tcp.linux.as_mut().unwrap().tcp_congestion_control = cubic;
        let k = KernelSettings::for_flow(&tcp, None, &BTreeMap::new(), None);
        assert_eq!(k.congestion, "cubic");
        let reno = KernelSettings::for_flow(&TcpConfig::ns2_2002(), None, &BTreeMap::new(), None);
        assert_eq!(reno.congestion, "reno");
        // `--cc` still overrides it.
        let k = KernelSettings::for_flow(&tcp, None, &BTreeMap::new(), Some("reno"));
        assert_eq!(k.congestion, "reno");
    }

    #[test]
    fn the_linux_profile_passes_its_sysctls_to_the_kernel() {
        let mut tcp = TcpConfig::linux();
        tcp.linux = Some(spikelab_tcp::LinuxSysctls {
            tcp_frto: 1,
            tcp_recovery: 0,
            tcp_early_retrans: 0,
            ..Default::default()
        });
        let k = KernelSettings::from_tcp(&tcp, &BTreeMap::new());
        assert_eq!(k.sysctls["tcp_frto"], "1");
        assert_eq!(k.sysctls["tcp_recovery"], "0");
        assert_eq!(k.sysctls["tcp_early_retrans"], "0");
        assert_eq!(k.sysctls["tcp_timestamps"], "1");
    }

    #[test]
    fn an_frto_driver_turns_on_tcp_frto_and_names_the_detector() {
        let mut tcp = TcpConfig::default();
        tcp.spurious.driver = Some(DetectorKind::Frto);
        tcp.recovery = spikelab_tcp::RecoveryKind::RenoSack;
        let k = KernelSettings::from_tcp(&tcp, &BTreeMap::new());
        assert_eq!(k.sysctls["tcp_frto"], "2");
        assert!(k.detectors().contains(&DetectorKind::SackFrto));
    }

    #[test]
    fn the_kernels_detectors_follow_the_sysctls_each_detector_declares() {
        let with = |set: &[(&str, &str)]| {
            let mut k = KernelSettings::from_tcp(&TcpConfig::default(), &BTreeMap::new());
            k.sysctls.clear();
            for (n, v) in set {
                k.set_sysctl(n, v);
            }
            k.detectors()
        };
        use DetectorKind::*;
        assert_eq!(with(&[]), []);
        assert_eq!(
            with(&[("tcp_timestamps", "1"), ("tcp_frto", "2")]),
            [Eifel, Frto]
        );
        let all = [
            ("tcp_timestamps", "1"),
            ("tcp_frto", "1"),
            ("tcp_sack", "1"),
            ("tcp_dsack", "1"),
        ];
        assert_eq!(with(&all), [Eifel, SackFrto, Dsack]);
        assert_eq!(with(&[("tcp_dsack", "1"), ("tcp_sack", "0")]), []);
    }

    #[test]
    fn every_detector_and_recovery_gets_the_sysctls_it_states() {
        let stated = |k: Kernel, name: &str, otherwise: &str| {
            match k {
                Kernel::Sysctls(s) => s
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string()),
                Kernel::Nothing(_) => None,
            }
            .unwrap_or_else(|| otherwise.to_owned())
        };
        for name in DetectorKind::NAMES {
            let d = DetectorKind::from_label(name).unwrap();
            let mut tcp = TcpConfig::default();
            tcp.spurious.driver = Some(d);
            let k = KernelSettings::from_tcp(&tcp, &BTreeMap::new());
            assert_eq!(
                k.sysctls["tcp_frto"],
                stated(d.kernel(), "tcp_frto", "0"),
                "{name}"
            );
        }
        for name in spikelab_tcp::RecoveryKind::NAMES {
            let tcp = TcpConfig {
                recovery: spikelab_tcp::RecoveryKind::from_label(name).unwrap(),
                ..Default::default()
            };
            let k = KernelSettings::from_tcp(&tcp, &BTreeMap::new());
            let want = stated(tcp.recovery.kernel(), "tcp_sack", "none stated");
            assert_eq!(k.sysctls["tcp_sack"], want, "{name}");
        }
    }

    #[test]
    fn tcp_info_fields_come_from_their_offsets() {
        let mut b = [0u8; 256];
        b[1] = 4;
        b[8..12].copy_from_slice(&1_000_000u32.to_ne_bytes());
        b[240..242].copy_from_slice(&7u16.to_ne_bytes());
        let i = TcpInfo::parse(&b);
        assert_eq!((i.ca_state, i.rto_us, i.total_rto), (4, 1_000_000, 7));
    }

    #[test]
    fn the_window_fields_come_from_their_offsets_and_fill_one_series_row() {
        let mut b = [0u8; 256];
        b[2] = 2;
        for (off, v) in [
            (28, 5u32),
            (32, 9),
            (36, 3),
            (76, 63),
            (80, 70),
            (88, 12),
            (192, 900),
        ] {
            b[off..off + 4].copy_from_slice(&v.to_ne_bytes());
        }
        let i = TcpInfo::parse(&b);
        assert_eq!((i.retransmits, i.sacked, i.lost, i.retrans), (2, 5, 9, 3));
        assert_eq!(
            (i.snd_ssthresh, i.snd_cwnd, i.reordering, i.delivered),
            (63, 70, 12, 900)
        );
        let row = i.series_row(1_500_000_000);
        assert!(row.starts_with("1.500000,0,70,63,0,5,9,3,12,2,"), "{row}");
        assert!(row.ends_with(",,,,"), "no BBR columns without BBR: {row}");
        assert_eq!(
            row.split(',').count(),
            TcpInfo::SERIES_HEADER.split(',').count()
        );
    }

    #[test]
    fn the_receivers_fields_come_from_their_offsets_and_fill_one_series_row() {
        let mut b = [0u8; 256];
        for (off, v) in [
            (12, 48_000u32),
            (20, 1448),
            (64, 64_000),
            (92, 85_000),
            (96, 14_480),
        ] {
            b[off..off + 4].copy_from_slice(&v.to_ne_bytes());
        }
        b[128..136].copy_from_slice(&236_024u64.to_ne_bytes());
        let r = ReceiverInfo::parse(&b);
        assert_eq!((r.ato_us, r.rcv_mss, r.rcv_rtt_us), (48_000, 1448, 85_000));
        assert_eq!(
            (r.rcv_ssthresh, r.rcv_space, r.bytes_received),
            (64_000, 14_480, 236_024)
        );
        assert_eq!(
            r.series_row(648_000_000),
            "0.648000,48.000,1448,64000,85.000,14480,236024"
        );
        assert_eq!(
            r.series_row(0).split(',').count(),
            ReceiverInfo::SERIES_HEADER.split(',').count()
        );
    }

    #[test]
    fn bbrs_cc_info_fills_the_series_last_columns() {
        let mut b = [0u8; 20];
        for (off, v) in [(0, 1_250_000u32), (4, 0), (8, 40_000), (12, 320), (16, 512)] {
            b[off..off + 4].copy_from_slice(&v.to_ne_bytes());
        }
        assert_eq!(
            BbrInfo::parse(&b[..16]),
            None,
            "Vegas' or DCTCP's form is not read"
        );
        let i = TcpInfo {
            bbr: BbrInfo::parse(&b),
            ..TcpInfo::default()
        };
        assert!(
            i.series_row(0).ends_with(",1250000,40000,320,512"),
            "{}",
            i.series_row(0)
        );
    }
}
