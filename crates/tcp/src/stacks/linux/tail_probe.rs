//! Tail Loss Probes (RFC 8985 section 7, [`crate::tlp`]) as a Linux host sends them
//! at the sender's extension points: `tcp_early_retrans` 3 or 4 on a SACK connection.
//! The state the kernel keeps for them (`tlp_high_seq`, `tlp_retrans`) is here.

use crate::config::TcpConfig;
use crate::dsack::split_dsack;
use crate::tlp::{choose_probe, on_probe_ack, Probe, ProbeAck, ProbeAckView};
use spikelab_core::Packet;

/// A Linux host's Tail Loss Probe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TailProbe {
    /// Probes are on, resolved once from the configuration.
    on: bool,
    /// snd_max after a probe, until settled (`tlp_high_seq`), and whether the probe
    /// was a retransmission (`tlp_retrans`).
    high_seq: Option<(u64, bool)>,
}

/// `tcp_early_retrans` 3 or 4 on a SACK connection of the `linux` profile.
pub fn tlp_configured(cfg: &TcpConfig) -> bool {
    let on = |l: &crate::LinuxSysctls| matches!(l.tcp_early_retrans, 3 | 4);
    cfg.linux.as_ref().is_some_and(on) && cfg.sack_enabled()
}

impl TailProbe {
    pub fn new(cfg: &TcpConfig) -> TailProbe {
        TailProbe {
            on: tlp_configured(cfg),
            high_seq: None,
        }
    }

    /// Whether probes are sent.
    pub fn on(&self) -> bool {
        self.on
    }

    /// The outstanding probe's `tlp_high_seq`.
    pub fn high_seq(&self) -> Option<u64> {
        self.high_seq.map(|(h, _)| h)
    }

    /// `tcp_init_cwnd_reduction` / `tcp_enter_loss`: `tlp_high_seq = 0`.
    pub fn forget(&mut self) {
        self.high_seq = None;
    }

    /// `tcp_send_loss_probe`: new data if the window admits it, else the last segment
    /// again; nothing while a probe is outstanding.
    pub fn choose(&self, new_data_fits: bool) -> Probe {
        choose_probe(new_data_fits, self.high_seq.is_some())
    }

    /// A probe went out: `tlp_high_seq = snd_nxt`, `tlp_retrans`.
    pub fn on_sent(&mut self, snd_max: u64, retransmitted: bool) {
        self.high_seq = Some((snd_max, retransmitted));
    }

    /// `tcp_process_tlp_ack` ([`crate::tlp::on_probe_ack`]): settles an outstanding
    /// probe; `Loss` when a retransmitted probe repaired a loss.
    pub fn on_ack(&mut self, pkt: &Packet, newly_acked: u64, newly_sacked: u64) -> ProbeAck {
        let Some((high_seq, retransmitted)) = self.high_seq else {
            return ProbeAck::Pending;
        };
        let (dsack, _) = split_dsack(pkt);
        let view = ProbeAckView {
            ack: pkt.ack,
            high_seq,
            retransmitted,
            dsack_of_probe: dsack.is_some_and(|(_, e)| e == high_seq),
            not_pure_dupack: newly_acked > 0 || newly_sacked > 0 || pkt.len > 0,
        };
        let outcome = on_probe_ack(&view);
        if outcome != ProbeAck::Pending {
            self.high_seq = None;
        }
        outcome
    }
}
