//! The Linux kernel's RTT sample per ACK: `tcp_clean_rtx_queue` and
//! `tcp_ack_update_rtt` (net/ipv4/tcp_input.c).
//!
//! The kernel times every segment by its own transmission time, so an ACK gives a
//! sample whether or not timestamps are on: `seq_rtt_us` = now minus the send time of
//! the oldest segment this ACK newly acknowledges cumulatively, if that segment was
//! not SACKed before and no segment the ACK covers was ever retransmitted (Karn's
//! rule: `FLAG_RETRANS_DATA_ACKED`). Only without such a sample does it fall back to
//! the echoed timestamp ("Prefer RTT measured from ACK's timing to TS-ECR").
//!
//! Not modelled: the SACK-based sample (`sack_rtt_us`), used when the cumulative ACK
//! gives none.

use crate::segments::SegmentTable;
use spikelab_core::{Dur, Time};

/// The sample for an ACK of `ack` arriving at `now`, from the segments outstanding
/// before it (`segs`, starting at the old snd_una) and the timestamp sample, if any.
pub fn rtt_sample(segs: &SegmentTable, ack: u64, now: Time, ts_sample: Option<Dur>) -> Option<Dur> {
    let mut acked = segs.iter().take_while(|s| s.end() <= ack).peekable();
    let first = acked.peek().copied();
    let retransmitted = segs
        .iter()
        .take_while(|s| s.end() <= ack)
        .any(|s| s.retx_count > 0);
    let seq_rtt = first
        .filter(|s| !retransmitted && !s.sacked && s.last_sent <= now)
        .map(|s| now - s.last_sent);
    seq_rtt.or(ts_sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    fn table() -> SegmentTable {
        let mut t = SegmentTable::new();
        for i in 0..4 {
            t.push_new(i * 1000, (i + 1) * 1000, ms(10 * i));
        }
        t
    }

    #[test]
    fn the_oldest_newly_acknowledged_segment_is_timed_without_timestamps() {
        assert_eq!(
            rtt_sample(&table(), 2000, ms(300), None),
            Some(Dur::from_millis(300))
        );
    }

    #[test]
    fn the_segments_own_time_wins_over_the_echoed_timestamp() {
        let ts = Some(Dur::from_millis(250));
        assert_eq!(
            rtt_sample(&table(), 2000, ms(300), ts),
            Some(Dur::from_millis(300))
        );
    }

    #[test]
    fn an_ack_covering_a_retransmission_falls_back_to_the_timestamp() {
        let mut t = table();
        t.get_mut(1).unwrap().retx_count = 1;
        assert_eq!(rtt_sample(&t, 2000, ms(300), None), None);
        let ts = Some(Dur::from_millis(250));
        assert_eq!(rtt_sample(&t, 2000, ms(300), ts), ts);
    }
}
