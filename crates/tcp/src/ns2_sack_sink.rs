//! ns-2's SACK sink: the blocks `Sacker::append_ack()` (`tcp/tcp-sink.cc`, ns-2.35) puts
//! in an ACK, behind `Ns2Switches::sink_sack_history_stack` (the `ns2-2002` profile).
//!
//! ns-2 does not keep RFC 2018's list of every block, most recently changed first. It
//! reports the block around the packet the ACK answers, then walks a history stack of
//! the blocks it reported first in earlier ACKs (`SackStack`, as deep as
//! `maxSackBlocks_`), dropping entries the new block covers, and pushes the new block
//! on top. A block that fell off the bottom of the stack is never reported again until
//! a packet arrives inside it, so ns-2 can send fewer blocks than the receiver holds.
//! Blocks here are byte ranges; ns-2 counts packets, which is the same for full-sized
//! segments.

/// The receiver's state that `append_ack()` reads, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SinkView {
    /// The cumulative ACK (ns-2's `Seqno() + 1`).
    pub rcv_nxt: u64,
    /// One past the highest byte received (ns-2's `maxseen_ + 1`).
    pub highest_end: u64,
    /// The held block containing the answered segment, when it lies above `rcv_nxt`.
    pub around: Option<(u64, u64)>,
    /// The answered segment lies above the cumulative ACK (`old_seqno > seqno`).
    pub answered_above_ack: bool,
    /// Every byte of the answered segment was held before (`is_dup_`).
    pub duplicate: bool,
}

/// `Sacker`'s `SackStack`: the blocks reported first by earlier ACKs, newest on top.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackHistory {
    stack: Vec<(u64, u64)>,
}

impl SackHistory {
    /// `Sacker::append_ack()`: the SACK blocks of the next ACK after `used` blocks
    /// already in it (a D-SACK block), with `nblocks` = `maxSackBlocks_` in all (also the
    /// stack's depth).
    pub fn append_ack(&mut self, v: &SinkView, nblocks: usize, used: usize) -> Vec<(u64, u64)> {
        let holes = v.rcv_nxt < v.highest_end; // seqno < maxseen_
        if !holes && !self.stack.is_empty() {
            // "if the Cumulative ACK seqno is at or beyond the right edge of the
            // window, and if the SackStack is not empty, reset it".
            self.stack.clear();
            return Vec::new();
        }
        if !(holes || v.duplicate) || nblocks == 0 || used >= nblocks {
            return Vec::new();
        }
        let mut out = Vec::new();
        // The first block: around the answered packet; a packet at or below the
        // cumulative ACK records none but covers everything below it (sack_left = 0).
        let recent = match (v.answered_above_ack, v.around) {
            (true, Some(b)) => {
                out.push(b);
                b
            }
            _ => (0, v.rcv_nxt),
        };
        self.report_history(v, recent, nblocks - used, &mut out);
        if v.answered_above_ack {
            self.push(recent, nblocks);
        }
        out
    }

    /// The history walk: entries the newest block covers are popped, the others
    /// reported in stack order until the ACK is full ("no more history" stops it).
    fn report_history(
        &mut self,
        v: &SinkView,
        recent: (u64, u64),
        room: usize,
        out: &mut Vec<(u64, u64)>,
    ) {
        let mut k = 0;
        while out.len() < room {
            let Some(&(left, right)) = self.stack.get(k) else {
                break;
            };
            if right > v.highest_end {
                break;
            }
            if recent.0 <= left && recent.1 >= right {
                self.stack.remove(k); // "newest ack covers up this one"
                continue;
            }
            out.push((left, right));
            k += 1;
        }
    }

    /// `SackStack::push()`: on top, the bottom entry lost when the stack is full.
    fn push(&mut self, block: (u64, u64), depth: usize) {
        self.stack.truncate(depth.saturating_sub(1));
        self.stack.insert(0, block);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays packet arrivals (packet i = bytes [i, i+1)) and returns each ACK's
    /// blocks, every packet acknowledged at once.
    fn replay(packets: &[u64]) -> Vec<Vec<(u64, u64)>> {
        let mut held = std::collections::BTreeSet::new();
        let mut h = SackHistory::default();
        let mut acks = Vec::new();
        for &p in packets {
            let duplicate = !held.insert(p);
            let rcv_nxt = (0..).find(|i| !held.contains(i)).unwrap();
            let highest_end = held.iter().next_back().map_or(0, |m| m + 1).max(rcv_nxt);
            let around = (p >= rcv_nxt).then(|| {
                let left = (rcv_nxt..=p).rev().find(|i| !held.contains(i)).unwrap() + 1;
                let right = (p..).find(|i| !held.contains(i)).unwrap();
                (left, right)
            });
            let v = SinkView {
                rcv_nxt,
                highest_end,
                around,
                answered_above_ack: p >= rcv_nxt,
                duplicate,
            };
            acks.push(h.append_ack(&v, 3, 0));
        }
        acks
    }

    #[test]
    fn the_block_around_the_arriving_packet_comes_first_then_the_history() {
        let acks = replay(&[4, 2, 12]);
        assert_eq!(acks[2], vec![(12, 13), (2, 3), (4, 5)]);
    }

    #[test]
    fn a_block_that_fell_off_the_stack_is_not_reported_though_it_is_held() {
        // Four blocks; the fourth arrival pushes (4, 5) off the three-deep stack, and
        // packet 11 joining (10, 11) and (12, 13) pops both: ns-2 reports two blocks
        // where RFC 2018's receiver reports three ((4, 5) as well).
        let acks = replay(&[4, 2, 12, 10, 11]);
        assert_eq!(acks[3], vec![(10, 11), (12, 13), (2, 3)]);
        assert_eq!(acks[4], vec![(10, 13), (2, 3)]);
    }

    #[test]
    fn an_ack_reaching_the_highest_packet_clears_the_history() {
        let acks = replay(&[2, 0, 1, 4]);
        assert!(
            acks[2].is_empty(),
            "cumulative ACK 3 covers everything held"
        );
        assert_eq!(acks[3], vec![(4, 5)], "(2, 3) is not remembered");
    }

    #[test]
    fn a_packet_below_the_ack_reports_the_history_it_does_not_cover() {
        let acks = replay(&[1, 5, 3, 0]);
        assert_eq!(
            acks[3],
            vec![(3, 4), (5, 6)],
            "(1, 2) is popped: below the ACK"
        );
    }
}
