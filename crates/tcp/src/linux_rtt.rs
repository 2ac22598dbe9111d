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
//! Congestion control hears another sample of the same ACK (`rs->rtt_us`, the
//! `rtt_us` of `struct ack_sample` given to `pkts_acked`): `ca_rtt_us`, timed from
//! the newest segment the ACK newly acknowledges (`last_ackt`), see [`ca_rtt_sample`].
//!
//! An ACK that SACKs segments for the first time gives congestion control the
//! newest of those instead ([`sack_ca_rtt_sample`], `last_sackt`), on every ACK
//! (`pkts_acked` runs for duplicate ACKs too).
//!
//! The RTO estimator hears a SACK-based sample too, `sack_rtt_us`, when the
//! cumulative ACK gives none (`tcp_ack_update_rtt`: "if (seq_rtt_us < 0) seq_rtt_us =
//! sack_rtt_us", before the timestamp fallback): now minus the send time of the
//! lowest segment the blocks SACK for the first time ([`sack_rtt_sample`],
//! `first_sackt`). `tcp_clean_rtx_queue` runs on every ACK while data is outstanding,
//! so a duplicate ACK that SACKs new data is a sample of SRTT and RTTVAR too.

use crate::segments::SegmentTable;
use spikelab_core::{Dur, Time};

/// The sample for an ACK of `ack` arriving at `now`, from the segments outstanding
/// before it (`segs`, starting at the old snd_una), else `fallback`: the ACK's
/// [`sack_rtt_sample`] if it has one, else its timestamp sample, if any.
pub fn rtt_sample(segs: &SegmentTable, ack: u64, now: Time, fallback: Option<Dur>) -> Option<Dur> {
    let mut acked = segs.iter().take_while(|s| s.end() <= ack).peekable();
    let first = acked.peek().copied();
    let retransmitted = segs
        .iter()
        .take_while(|s| s.end() <= ack)
        .any(|s| s.retx_count > 0);
    let seq_rtt = first
        .filter(|s| !retransmitted && !s.sacked && s.last_sent <= now)
        .map(|s| now - s.last_sent);
    seq_rtt.or(fallback)
}

/// `ca_rtt_us` of an ACK of `ack` that gives `seq_rtt_us` (`tcp_clean_rtx_queue`):
/// now minus the send time of the newest segment it acknowledges cumulatively that
/// was not SACKed before (`last_ackt`); `None` when a covered segment was ever
/// retransmitted (`FLAG_RETRANS_DATA_ACKED`: the kernel then takes the timestamp
/// sample for both). CUBIC's HyStart and `delay_min` hear this one: with delayed ACKs
/// it is the younger of two segments, sent up to an ACK interval later than the
/// oldest one `seq_rtt_us` times.
pub fn ca_rtt_sample(segs: &SegmentTable, ack: u64, now: Time) -> Option<Dur> {
    let mut last = None;
    for s in segs.iter().take_while(|s| s.end() <= ack) {
        if s.retx_count > 0 {
            return None;
        }
        if !s.sacked {
            last = Some(s.last_sent);
        }
    }
    last.filter(|&t| t <= now).map(|t| now - t)
}

/// `ca_rtt_us` from the SACK blocks of an ACK of `ack` (`tcp_sacktag_one`'s
/// `last_sackt`, which overrides the cumulative one in `tcp_clean_rtx_queue`): now
/// minus the send time of the highest segment the blocks SACK for the first time and
/// that was never retransmitted. Read before the blocks are applied.
pub fn sack_ca_rtt_sample(
    segs: &SegmentTable,
    blocks: &[(u64, u64)],
    ack: u64,
    now: Time,
) -> Option<Dur> {
    let last = segs.iter().rev().find(newly_sacked_original(blocks, ack))?;
    age(last, now)
}

/// `sack_rtt_us` of an ACK of `ack` with SACK blocks `blocks` (`tcp_sacktag_one`'s
/// `first_sackt`, read in `tcp_clean_rtx_queue`; net/ipv4/tcp_input.c): now minus the
/// send time of the lowest segment the blocks SACK for the first time that was never
/// retransmitted ("if (!(sacked & TCPCB_RETRANS)) ... if (state->first_sackt == 0)
/// state->first_sackt = xmit_time"; the blocks are walked in sequence order). Read
/// before the blocks are applied.
pub fn sack_rtt_sample(
    segs: &SegmentTable,
    blocks: &[(u64, u64)],
    ack: u64,
    now: Time,
) -> Option<Dur> {
    let first = segs.iter().find(newly_sacked_original(blocks, ack))?;
    age(first, now)
}

/// `tcp_sacktag_one`'s test for a segment that stamps `first_sackt` and
/// `last_sackt`: SACKed for the first time by `blocks` (above `ack`) and never
/// retransmitted.
fn newly_sacked_original(
    blocks: &[(u64, u64)],
    ack: u64,
) -> impl Fn(&&crate::segments::Seg) -> bool + '_ {
    move |s| {
        !s.sacked
            && s.retx_count == 0
            && blocks
                .iter()
                .any(|&(b, e)| s.start >= b.max(ack) && s.end() <= e)
    }
}

/// How long ago `seg` was last sent, if not after `now`.
fn age(seg: &crate::segments::Seg, now: Time) -> Option<Dur> {
    (seg.last_sent <= now).then(|| now - seg.last_sent)
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

    #[test]
    fn congestion_control_times_the_newest_segment_an_ack_covers() {
        // Segments sent at 0, 10, 20, 30 ms; an ACK of the first two at 300 ms.
        assert_eq!(
            ca_rtt_sample(&table(), 2000, ms(300)),
            Some(Dur::from_millis(290))
        );
        assert_eq!(
            rtt_sample(&table(), 2000, ms(300), None),
            Some(Dur::from_millis(300))
        );
    }

    #[test]
    fn congestion_control_skips_sacked_segments_and_retransmissions() {
        let mut t = table();
        t.get_mut(1).unwrap().sacked = true;
        assert_eq!(
            ca_rtt_sample(&t, 2000, ms(300)),
            Some(Dur::from_millis(300))
        );
        t.get_mut(0).unwrap().retx_count = 1;
        assert_eq!(ca_rtt_sample(&t, 2000, ms(300)), None);
    }

    #[test]
    fn a_sack_times_the_highest_segment_it_newly_covers() {
        let mut t = table();
        // Blocks over segments 2 and 3 (sent at 20 and 30 ms), ACK at 1000.
        let blocks = [(2000, 4000)];
        assert_eq!(
            sack_ca_rtt_sample(&t, &blocks, 1000, ms(300)),
            Some(Dur::from_millis(270))
        );
        t.get_mut(3).unwrap().sacked = true;
        assert_eq!(
            sack_ca_rtt_sample(&t, &blocks, 1000, ms(300)),
            Some(Dur::from_millis(280))
        );
        t.get_mut(2).unwrap().retx_count = 1;
        assert_eq!(sack_ca_rtt_sample(&t, &blocks, 1000, ms(300)), None);
    }

    #[test]
    fn the_rto_estimator_times_the_lowest_segment_a_sack_newly_covers() {
        let mut t = table();
        // Blocks over segments 1 and 3 (sent at 10 and 30 ms), ACK at 1000.
        let blocks = [(3000, 4000), (1000, 2000)];
        assert_eq!(
            sack_rtt_sample(&t, &blocks, 1000, ms(300)),
            Some(Dur::from_millis(290))
        );
        // A segment SACKed before, or ever retransmitted, is not timed.
        t.get_mut(1).unwrap().sacked = true;
        assert_eq!(
            sack_rtt_sample(&t, &blocks, 1000, ms(300)),
            Some(Dur::from_millis(270))
        );
        t.get_mut(3).unwrap().retx_count = 1;
        assert_eq!(sack_rtt_sample(&t, &blocks, 1000, ms(300)), None);
    }
}
