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
//! 7.3), at most one retransmitted probe outstanding (`tlp_high_seq`). The RTO then
//! restarts from the probe's sending time (`icsk_pending = 0; tcp_rearm_rto`).
//!
//! "Never later than the RTO": after an ACK that advanced snd_una the kernel compares
//! with a full RTO from now (`advancing_rto`); after sending new data, with the RTO
//! anchored at the oldest outstanding segment's last transmission
//! (`tcp_rto_delta_us`), which is why the probe, and the RTO after it, fire earlier
//! in an outage than a per-ACK restarted RTO would suggest.
//!
//! Not modelled: TLP's own loss detection and cwnd reduction for a retransmitted
//! probe (`tcp_process_tlp_ack`, RFC 8985 7.4), and RACK's reordering timer.

use spikelab_core::{Dur, Time};

/// `TCP_TIMEOUT_MIN`: 2 jiffies at HZ = 1000.
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
/// retransmitted probe is still unacknowledged.
pub fn choose_probe(new_data_fits: bool, probe_outstanding: bool) -> Probe {
    if new_data_fits {
        Probe::NewData
    } else if probe_outstanding {
        Probe::Nothing
    } else {
        Probe::RetransmitLast
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
    fn new_data_is_probed_first_and_only_one_retransmitted_probe_is_outstanding() {
        assert_eq!(choose_probe(true, true), Probe::NewData);
        assert_eq!(choose_probe(false, false), Probe::RetransmitLast);
        assert_eq!(choose_probe(false, true), Probe::Nothing);
    }
}
