//! What a D-SACK delivers on a Linux 6.x host: `tcp_dsack_seen` (net/ipv4/tcp_input.c,
//! called from `tcp_check_dsack` in `tcp_sacktag_write_queue`).
//!
//! The kernel counts a reported duplicate as delivered ("A spurious retransmission
//! is delivered": `state->sack_delivered += dup_segs`, which `tcp_ack` adds to
//! `tp->delivered` with `tcp_count_delivered`). The ACK's `acked_sacked`
//! (`tcp_newly_delivered`) therefore includes it, and so does what PRR's
//! `tcp_cwnd_reduction` adds to `prr_delivered` (or `tcp_cong_avoid` grows by): a
//! D-SACK alone, nothing newly SACKed, still earns PRR credit.
//!
//! `dup_segs` is one segment, or the block's length in segments (rounded up) when it
//! is longer than one MSS; the D-SACK is dubious, and delivers nothing, when the
//! duplicates reported so far (`tp->dsack_dups`) exceed the segments retransmitted
//! (`tp->total_retrans`). Not modelled: the other dubious case, a block longer than
//! the largest window the peer advertised (`tp->max_window`).

/// `tp->dsack_dups`: the duplicate segments D-SACKs reported over the connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DsackDups {
    dups: u32,
}

impl DsackDups {
    /// `tcp_dsack_seen`: the segments the D-SACK block `[start, end)` delivers, 0 when
    /// it is empty or dubious; `total_retrans` the segments retransmitted so far.
    pub fn seen(&mut self, (start, end): (u64, u64), mss: u64, total_retrans: u64) -> u32 {
        if start >= end {
            return 0;
        }
        let len = end - start;
        let dup_segs = if len > mss {
            len.div_ceil(mss) as u32
        } else {
            1
        };
        self.dups = self.dups.saturating_add(dup_segs);
        if u64::from(self.dups) > total_retrans {
            return 0; // "Skip the DSACK if dup segs weren't retransmitted by sender"
        }
        dup_segs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dsack_of_one_retransmitted_segment_delivers_one_segment() {
        let mut d = DsackDups::default();
        assert_eq!(d.seen((1000, 1500), 500, 1), 1);
    }

    #[test]
    fn a_dsack_shorter_than_a_segment_still_delivers_one() {
        let mut d = DsackDups::default();
        assert_eq!(d.seen((1000, 1100), 500, 1), 1);
    }

    #[test]
    fn a_dsack_of_several_segments_delivers_its_length_rounded_up() {
        let mut d = DsackDups::default();
        assert_eq!(d.seen((1000, 2100), 500, 5), 3);
    }

    #[test]
    fn duplicates_beyond_the_retransmissions_are_dubious_and_deliver_nothing() {
        let mut d = DsackDups::default();
        assert_eq!(d.seen((1000, 1500), 500, 1), 1);
        // A second report with only one retransmission ever sent: dsack_dups 2 > 1.
        assert_eq!(d.seen((1000, 1500), 500, 1), 0);
    }

    #[test]
    fn an_empty_block_delivers_nothing() {
        let mut d = DsackDups::default();
        assert_eq!(d.seen((1500, 1500), 500, 3), 0);
        assert_eq!(d.seen((1000, 1500), 500, 1), 1); // and was not counted
    }
}
