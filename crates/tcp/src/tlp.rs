//! Tail Loss Probe (RFC 8985 section 7) as the Linux kernel schedules and sends it:
//! `tcp_schedule_loss_probe` and `tcp_send_loss_probe` (net/ipv4/tcp_output.c),
//! `tcp_rearm_rto` / `tcp_rto_delta_us` (net/ipv4/tcp_input.c, tcp.h).
//!
//! While the connection is in the Open state with data outstanding, the kernel arms a
//! probe timeout (PTO) instead of the RTO: PTO = 2 * SRTT (RFC 8985 7.2: plus
//! `TCP_RTO_MIN` when one segment is outstanding, for the peer's delayed ACK, else
//! plus `TCP_TIMEOUT_MIN`, 2 jiffies), but never later than the RTO would fire. When
//! the PTO fires, the probe is the next new segment if the receiver window admits
//! one (sent whatever cwnd says), else a retransmission of the last segment (RFC 8985
//! 7.3), at most one probe outstanding per flight (`tlp_high_seq`, Linux 5.8's "allow
//! at most one TLP probe per flight"). The RTO then restarts from the probe's sending
//! time (`icsk_pending = 0; tcp_rearm_rto`).
//!
//! "Never later than the RTO": after an ACK that advanced snd_una the kernel compares
//! with a full RTO from now (`advancing_rto`); after sending new data, with the RTO
//! anchored at the oldest outstanding segment's last transmission
//! (`tcp_rto_delta_us`), which is why the probe, and the RTO after it, fire earlier
//! in an outage than a per-ACK restarted RTO would suggest.
//!
//! TLP's own loss detection (RFC 8985 7.4, `tcp_process_tlp_ack`): once the ACKs
//! reach the probe, a retransmitted probe either was unneeded (a D-SACK reports it,
//! or a pure duplicate ACK shows both copies arrived) or repaired a loss that nothing
//! else noticed (the ACK goes beyond it), and then cwnd is reduced as for any loss
//! ([`on_probe_ack`]).

use spikelab_core::{Dur, Time};

/// `TCP_TIMEOUT_MIN_US`: 2 ms (`tcp_schedule_loss_probe` adds it in microseconds,
/// then takes `usecs_to_jiffies` of the sum, as the timer wheel rounds the delay).
pub const TIMEOUT_MIN: Dur = Dur::from_millis(2);
/// `TCP_RTO_MIN`, added when one segment is outstanding (the peer may delay its ACK).
pub const RTO_MIN: Dur = Dur::from_millis(200);
/// `TCP_TIMEOUT_INIT`: the PTO before any RTT sample.
pub const TIMEOUT_INIT: Dur = Dur::from_secs(1);

/// What the sender knows when it (re)arms its timer in the Open state.
#[derive(Clone, Copy, Debug)]
pub struct ProbeSchedule {
    pub now: Time,
    pub srtt: Option<Dur>,
    /// Segments outstanding (`packets_out`).
    pub packets_out: u64,
    /// The current RTO (`icsk_rto`).
    pub rto: Dur,
    /// When the oldest outstanding segment was last sent.
    pub head_sent: Time,
    /// Called after an ACK that advanced snd_una (`tcp_set_xmit_timer`), not after
    /// sending new data (`tcp_write_xmit`).
    pub advancing_rto: bool,
}

/// `tcp_schedule_loss_probe`: when the probe fires. The caller checks the
/// preconditions (`tcp_early_retrans` 3 or 4, SACK, Open state, data outstanding).
pub fn probe_deadline(s: &ProbeSchedule) -> Time {
    let pto = match s.srtt {
        Some(srtt) if s.packets_out == 1 => srtt + srtt + RTO_MIN,
        Some(srtt) => srtt + srtt + TIMEOUT_MIN,
        None => TIMEOUT_INIT,
    };
    // "If the RTO formula yields an earlier time, then use that time."
    let rto_at = if s.advancing_rto {
        s.now + s.rto
    } else {
        s.head_sent + s.rto
    };
    let at = s.now + pto;
    if rto_at > s.now {
        at.min(rto_at)
    } else {
        at
    }
}

/// `tcp_send_loss_probe`: what the probe is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The next new segment (`tcp_send_head` within the send window).
    NewData,
    /// A retransmission of the highest outstanding segment.
    RetransmitLast,
    /// Nothing: a retransmitted probe is already outstanding (`tlp_high_seq`).
    Nothing,
}

/// The probe to send, from whether new data fits the receiver window and whether a
/// probe of this flight is still unacknowledged (`if (tp->tlp_high_seq) goto
/// rearm_timer;`: "At most one outstanding TLP").
pub fn choose_probe(new_data_fits: bool, probe_outstanding: bool) -> Probe {
    if probe_outstanding {
        Probe::Nothing
    } else if new_data_fits {
        Probe::NewData
    } else {
        Probe::RetransmitLast
    }
}

/// What an ACK tells about an outstanding probe (`tcp_process_tlp_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeAck {
    /// Not decided yet: keep `tlp_high_seq`.
    Pending,
    /// The probe is settled without a loss: forget it.
    NoLoss,
    /// The retransmitted probe repaired a loss: reduce cwnd (RFC 8985 7.4.2).
    Loss,
}

/// The ACK as `tcp_process_tlp_ack` sees it.
#[derive(Clone, Copy, Debug)]
pub struct ProbeAckView {
    pub ack: u64,
    /// snd_nxt after the probe went out (`tlp_high_seq`).
    pub high_seq: u64,
    /// The probe was a retransmission (`tlp_retrans`), not new data.
    pub retransmitted: bool,
    /// The ACK carries a D-SACK for the probed segment (`FLAG_DSACK_TLP`).
    pub dsack_of_probe: bool,
    /// The ACK advanced snd_una, SACKed new data or carried data: not a pure
    /// duplicate (`FLAG_SND_UNA_ADVANCED | FLAG_NOT_DUP | FLAG_DATA_SACKED`).
    pub not_pure_dupack: bool,
}

/// `tcp_process_tlp_ack` (RFC 8985 7.4.2), in the kernel's order of tests.
pub fn on_probe_ack(v: &ProbeAckView) -> ProbeAck {
    if v.ack < v.high_seq {
        ProbeAck::Pending
    } else if !v.retransmitted {
        // "TLP of new data has been acknowledged".
        ProbeAck::NoLoss
    } else if v.dsack_of_probe {
        // "This DSACK means original and TLP probe arrived; no loss".
        ProbeAck::NoLoss
    } else if v.ack > v.high_seq {
        // "ACK advances: there was a loss, so reduce cwnd".
        ProbeAck::Loss
    } else if !v.not_pure_dupack {
        // "Pure dupack: original and TLP probe arrived; no loss".
        ProbeAck::NoLoss
    } else {
        ProbeAck::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    fn schedule(packets_out: u64, advancing_rto: bool) -> ProbeSchedule {
        ProbeSchedule {
            now: ms(1000),
            srtt: Some(Dur::from_millis(100)),
            packets_out,
            rto: Dur::from_millis(500),
            head_sent: ms(900),
            advancing_rto,
        }
    }

    #[test]
    fn the_probe_fires_two_srtt_after_the_last_event() {
        assert_eq!(probe_deadline(&schedule(10, true)), ms(1202));
    }

    #[test]
    fn a_single_outstanding_segment_waits_for_a_delayed_ack_too() {
        assert_eq!(probe_deadline(&schedule(1, true)), ms(1400));
    }

    #[test]
    fn the_probe_never_fires_after_the_head_anchored_rto() {
        let mut s = schedule(10, false);
        s.srtt = Some(Dur::from_millis(300));
        // 2 * 300 ms + 2 ms from now would be 1602 ms; the head's RTO is at 1400 ms.
        assert_eq!(probe_deadline(&s), ms(1400));
        s.advancing_rto = true; // after an ACK: a full RTO from now, 1500 ms
        assert_eq!(probe_deadline(&s), ms(1500));
    }

    #[test]
    fn new_data_is_probed_first_and_only_one_probe_per_flight_is_outstanding() {
        assert_eq!(choose_probe(true, false), Probe::NewData);
        assert_eq!(choose_probe(false, false), Probe::RetransmitLast);
        assert_eq!(choose_probe(true, true), Probe::Nothing);
        assert_eq!(choose_probe(false, true), Probe::Nothing);
    }

    fn probe_ack(ack: u64, dsack: bool, not_pure_dupack: bool) -> ProbeAck {
        on_probe_ack(&ProbeAckView {
            ack,
            high_seq: 10_000,
            retransmitted: true,
            dsack_of_probe: dsack,
            not_pure_dupack,
        })
    }

    #[test]
    fn an_ack_beyond_a_retransmitted_probe_reveals_a_repaired_loss() {
        assert_eq!(probe_ack(9_000, false, true), ProbeAck::Pending);
        assert_eq!(probe_ack(10_000, false, true), ProbeAck::Pending);
        assert_eq!(probe_ack(11_000, false, true), ProbeAck::Loss);
    }

    #[test]
    fn a_dsack_or_pure_duplicate_for_the_probe_means_nothing_was_lost() {
        assert_eq!(probe_ack(11_000, true, true), ProbeAck::NoLoss);
        assert_eq!(probe_ack(10_000, false, false), ProbeAck::NoLoss);
        let new_data = ProbeAckView {
            ack: 10_000,
            high_seq: 10_000,
            retransmitted: false,
            dsack_of_probe: false,
            not_pure_dupack: true,
        };
        assert_eq!(on_probe_ack(&new_data), ProbeAck::NoLoss);
    }
}
