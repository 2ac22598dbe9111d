//! The Linux receiver's SACK array (`tp->selective_acks`, `TCP_NUM_SACKS` = 4): the
//! blocks its ACKs report, kept as their own state rather than read off the
//! out-of-order queue, as net/ipv4/tcp_input.c `tcp_data_queue_ofo`,
//! `tcp_sack_new_ofo_skb`, `tcp_sack_extend`, `tcp_sack_maybe_coalesce` and
//! `tcp_sack_remove` keep them (Linux 6.x).
//!
//! * An out-of-order segment extends the first block it overlaps or abuts, which
//!   moves to the front and swallows the blocks it now reaches; else it becomes a
//!   new first block and the others shift down, the fourth forgotten.
//! * A forgotten block is not reported again, though its data stays queued: a later
//!   segment next to it makes a block of that segment alone, where a block read off
//!   the queue would span both (the T-Mobile UMTS drive at 543 s, 8.247 s: the
//!   kernel's ACK reported 896312-897760, the queue held 896312-960024).
//! * When in-order data moves `rcv_nxt`, the blocks it covers go; an empty
//!   out-of-order queue clears the array.
//!
//! The D-SACK block (`tp->duplicate_sack`) goes before these, and an ACK carries as
//! many of them as its option space holds (`tcp_established_options`).

/// `TCP_NUM_SACKS`.
pub const NUM_SACKS: usize = 4;

/// `tp->selective_acks` and `rx_opt.num_sacks`: sequence ranges, most recent first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackArray {
    blocks: [(u64, u64); NUM_SACKS],
    len: usize,
}

/// `tcp_sack_extend`'s test: `[seq, end)` overlaps or abuts `b`.
fn touches(b: (u64, u64), seq: u64, end: u64) -> bool {
    seq <= b.1 && b.0 <= end
}

impl SackArray {
    /// The blocks, most recent first.
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len]
    }

    /// Which block an out-of-order segment `[seq, end)` would extend, if any
    /// (`tcp_sack_new_ofo_skb`'s loop, whose index decides `tcp_sack_compress_send_ack`).
    pub fn extended_by(&self, seq: u64, end: u64) -> Option<usize> {
        self.blocks().iter().position(|&b| touches(b, seq, end))
    }

    /// An out-of-order segment `[seq, end)` was queued; `first` when the queue was
    /// empty before it (`tcp_data_queue_ofo`: "Initial out of order segment, build
    /// 1 SACK"), else `tcp_sack_new_ofo_skb`.
    pub fn on_out_of_order(&mut self, seq: u64, end: u64, first: bool) {
        if first {
            self.len = 0;
        }
        match self.extended_by(seq, end) {
            Some(i) => {
                let b = self.blocks[i];
                self.blocks[i] = (b.0.min(seq), b.1.max(end));
                // "Rotate this_sack to the first one."
                self.blocks[..=i].rotate_right(1);
                self.coalesce();
            }
            None => {
                // "If the sack array is full, forget about the last one."
                self.len = (self.len + 1).min(NUM_SACKS);
                self.blocks[..self.len].rotate_right(1);
                self.blocks[0] = (seq, end);
            }
        }
    }

    /// `tcp_sack_maybe_coalesce`: the first block swallows every later one it now
    /// overlaps or abuts.
    fn coalesce(&mut self) {
        let mut k = 1;
        while k < self.len {
            let (first, other) = (self.blocks[0], self.blocks[k]);
            if touches(first, other.0, other.1) {
                self.blocks[0] = (first.0.min(other.0), first.1.max(other.1));
                self.blocks.copy_within(k + 1..self.len, k);
                self.len -= 1;
            } else {
                k += 1;
            }
        }
    }

    /// `tcp_sack_remove` after in-order data moved `rcv_nxt`: the blocks it covers
    /// go, every block when nothing is left out of order.
    pub fn on_rcv_nxt(&mut self, rcv_nxt: u64, queue_empty: bool) {
        if queue_empty {
            self.len = 0;
            return;
        }
        let mut kept = 0;
        for k in 0..self.len {
            if rcv_nxt < self.blocks[k].0 {
                self.blocks[kept] = self.blocks[k];
                kept += 1;
            }
        }
        self.len = kept;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(segments: &[(u64, u64)]) -> SackArray {
        let mut a = SackArray::default();
        for (k, &(s, e)) in segments.iter().enumerate() {
            a.on_out_of_order(s, e, k == 0);
        }
        a
    }

    #[test]
    fn a_new_block_goes_first_and_the_fifth_forgets_the_oldest() {
        let a = array(&[(10, 11), (20, 21), (30, 31), (40, 41), (50, 51)]);
        assert_eq!(a.blocks(), [(50, 51), (40, 41), (30, 31), (20, 21)]);
    }

    #[test]
    fn a_segment_next_to_a_forgotten_block_reports_itself_alone() {
        // 11..20 is still queued, but its block fell off the array.
        let mut a = array(&[(11, 20), (30, 31), (40, 41), (50, 51), (60, 61)]);
        a.on_out_of_order(10, 11, false);
        assert_eq!(a.blocks(), [(10, 11), (60, 61), (50, 51), (40, 41)]);
    }

    #[test]
    fn an_extended_block_moves_to_the_front() {
        let mut a = array(&[(10, 11), (20, 21), (30, 31)]);
        assert_eq!(a.extended_by(11, 12), Some(2));
        a.on_out_of_order(11, 12, false);
        assert_eq!(a.blocks(), [(10, 12), (30, 31), (20, 21)]);
    }

    #[test]
    fn a_block_that_reaches_the_next_swallows_it() {
        let mut a = array(&[(10, 11), (12, 13), (30, 31)]);
        a.on_out_of_order(11, 12, false);
        assert_eq!(a.blocks(), [(10, 13), (30, 31)]);
    }

    #[test]
    fn rcv_nxt_removes_the_blocks_it_covers_and_an_empty_queue_all() {
        let mut a = array(&[(10, 11), (20, 21), (30, 31)]);
        a.on_rcv_nxt(21, false);
        assert_eq!(a.blocks(), [(30, 31)]);
        a.on_rcv_nxt(31, true);
        assert_eq!(a.blocks(), []);
    }

    #[test]
    fn the_first_segment_into_an_empty_queue_starts_the_array_afresh() {
        let mut a = array(&[(10, 11), (20, 21)]);
        a.on_out_of_order(40, 41, true);
        assert_eq!(a.blocks(), [(40, 41)]);
    }
}
