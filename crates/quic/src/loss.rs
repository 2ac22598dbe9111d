//! Loss detection by acknowledgement (RFC 9002 6.1; pseudocode A.10
//! `DetectAndRemoveLostPackets`): an outstanding packet numbered below the largest
//! acknowledged is lost when kPacketThreshold packets above it were acknowledged
//! (6.1.1) or it was sent more than the loss delay ago (6.1.2); for the others the
//! earliest time the delay runs out arms the loss timer.

use crate::sent::SentPackets;
use spikelab_core::{Dur, Time};

/// What one pass found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LossScan {
    /// Packets declared lost, ascending.
    pub lost: Vec<u64>,
    /// When the next packet below the largest acknowledged reaches the time threshold.
    pub loss_time: Option<Time>,
}

/// Is a packet `pn` sent at `sent` lost at `now`? (6.1: "sent kPacketThreshold packets
/// before an acknowledged packet ... or ... long enough in the past".)
pub fn is_lost(
    pn: u64,
    sent: Time,
    largest_acked: u64,
    now: Time,
    loss_delay: Dur,
    k: u64,
) -> bool {
    largest_acked >= pn + k || sent + loss_delay <= now
}

/// Scans the outstanding packets below `largest_acked`.
pub fn detect(
    sent: &SentPackets,
    largest_acked: u64,
    now: Time,
    loss_delay: Dur,
    packet_threshold: u64,
) -> LossScan {
    let mut scan = LossScan::default();
    for (pn, p) in sent.range(0, largest_acked) {
        if is_lost(
            pn,
            p.time_sent,
            largest_acked,
            now,
            loss_delay,
            packet_threshold,
        ) {
            scan.lost.push(pn);
        } else {
            let at = p.time_sent + loss_delay;
            scan.loss_time = Some(scan.loss_time.map_or(at, |t| t.min(at)));
        }
    }
    scan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sent::SentPacket;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    fn sent(times_ms: &[u64]) -> SentPackets {
        let mut s = SentPackets::new();
        for (pn, &ms) in times_ms.iter().enumerate() {
            let p = SentPacket {
                time_sent: t(ms),
                bytes: 1200,
                ack_eliciting: true,
                in_flight: true,
                offset: 0,
                len: 0,
            };
            s.on_sent(pn as u64, p);
        }
        s
    }

    #[test]
    fn three_packets_acknowledged_above_declare_a_packet_lost() {
        let mut s = sent(&[0, 1, 2, 3, 4]);
        for pn in 1..=3 {
            s.remove(pn);
        }
        // Largest acknowledged 3: packet 0 is 3 below, lost; 4 is above, untouched.
        let scan = detect(&s, 3, t(5), Dur::from_millis(100), 3);
        assert_eq!(scan.lost, [0]);
        assert_eq!(scan.loss_time, None);
    }

    #[test]
    fn two_above_arm_the_loss_timer_at_nine_eighths_rtt_after_the_send() {
        let mut s = sent(&[0, 10, 20]);
        s.remove(1);
        s.remove(2);
        let delay = Dur::from_millis(9 * 80 / 8);
        let scan = detect(&s, 2, t(50), delay, 3);
        assert!(scan.lost.is_empty());
        assert_eq!(scan.loss_time, Some(t(90)));
        assert_eq!(detect(&s, 2, t(90), delay, 3).lost, [0], "at the threshold");
    }
}
