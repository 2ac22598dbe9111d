//! Which duplicate ACKs ns-2.35's `Sack1TcpAgent` counts (tcp/tcp-sack1.cc,
//! tcp/scoreboard.cc), for the `ns2-2002` profile's switch
//! [`crate::Ns2Switches::sack1_dupack_rules`].
//!
//! Outside fast recovery `Sack1TcpAgent::recv()` handles an ACK for `last_ack_` only
//! when `timeout_ == FALSE`, i.e. not between a timeout and the next new ACK. It then
//! calls `scb_->UpdateScoreBoard(highest_ack_, tcph)` and counts the duplicate
//! (`++dupacks_`, then `dupack_action()` or `send_one()`) only when
//! `scb_->CheckUpdate()`: when the ACK changed the scoreboard. The scoreboard is
//! cleared (`ClearScoreBoard()`) by every new ACK outside fast recovery, when fast
//! recovery ends and at every timeout, so "changed" is judged against the SACK blocks
//! seen since the last of those. A duplicate ACK that only repeats what the sender
//! knows — typically the receiver's answer to a go-back-N duplicate — is not counted.
//!
//! [`Sack1Board`] keeps what `UpdateScoreBoard()` needs to decide "changed": the
//! board's first entry, one past its last, and the entries with `sack_flag_` set, in
//! segment numbers (byte offset / MSS; ns-2 numbers packets).

use std::collections::BTreeSet;

/// The two conditions of `Sack1TcpAgent::recv()` under which a duplicate ACK outside
/// fast recovery counts: `timeout_ == FALSE` and `scb_->CheckUpdate()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sack1DupAcks {
    board: Sack1Board,
    /// ns-2's `timeout_`: set by `timeout()`, cleared by the next new ACK.
    after_timeout: bool,
}

impl Sack1DupAcks {
    /// A new ACK: `recv()` sets `timeout_ = FALSE` and clears the scoreboard, outside
    /// fast recovery and when fast recovery ends (partial ACKs leave a scoreboard that
    /// is cleared at the end of recovery, before it is consulted again).
    pub fn on_new_ack(&mut self) {
        self.after_timeout = false;
        self.board.clear();
    }

    /// `Sack1TcpAgent::timeout()`: `timeout_ = TRUE`, `ClearScoreBoard()`.
    pub fn on_timeout(&mut self) {
        self.after_timeout = true;
        self.board.clear();
    }

    /// A duplicate ACK outside fast recovery: whether it counts (see the module docs).
    /// `next` and `blocks` as in [`Sack1Board::update`].
    pub fn counts(&mut self, next: u64, blocks: &[(u64, u64)]) -> bool {
        !self.after_timeout && self.board.update(next, blocks)
    }
}

/// The entries of ns-2's scoreboard, as far as they decide `changed_`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sack1Board {
    board: Option<Entries>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Entries {
    /// Segment number of the first entry (`SBN[first_].seq_no_`).
    first: u64,
    /// One past the last entry's segment number.
    end: u64,
    /// Entries with `sack_flag_` set.
    sacked: BTreeSet<u64>,
}

impl Sack1Board {
    /// `ScoreBoard::ClearScoreBoard()`.
    pub fn clear(&mut self) {
        self.board = None;
    }

    /// `ScoreBoard::UpdateScoreBoard(last_ack, tcph)` followed by `CheckUpdate()`:
    /// `next` is the first segment not cumulatively acknowledged (ns-2's `last_ack + 1`),
    /// `blocks` the ACK's SACK blocks as [left, right) segment numbers. Returns whether
    /// the scoreboard changed.
    pub fn update(&mut self, next: u64, blocks: &[(u64, u64)]) -> bool {
        let mut changed = false;
        // "Advance the left edge of the block": entries at or below last_ack go.
        if let Some(b) = &mut self.board {
            if b.first < next {
                changed = true;
                b.first = next;
                b.sacked = b.sacked.split_off(&next);
                if b.first >= b.end {
                    self.board = None;
                }
            }
        }
        // "If there is no scoreboard, create one" (an entry for last_ack + 1).
        if self.board.is_none() && !blocks.is_empty() {
            self.board = Some(Entries {
                first: next,
                end: next + 1,
                sacked: BTreeSet::new(),
            });
            changed = true;
        }
        let Some(b) = &mut self.board else {
            return changed;
        };
        for &(left, right) in blocks {
            // "Create new entries off the right side."
            if right > b.end {
                b.end = right;
                changed = true;
            }
            // Entries the block covers get sack_flag_.
            for seg in left.max(b.first)..right {
                changed |= b.sacked.insert(seg);
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_duplicate_counts_between_a_timeout_and_the_next_new_ack() {
        let mut d = Sack1DupAcks::default();
        d.on_timeout();
        assert!(!d.counts(10, &[(12, 13)]));
        d.on_new_ack();
        assert!(d.counts(11, &[(12, 13)]));
        assert!(!d.counts(11, &[(12, 13)]));
    }

    #[test]
    fn the_first_sack_block_after_a_clear_is_a_change() {
        let mut b = Sack1Board::default();
        assert!(b.update(10, &[(12, 13)]));
    }

    #[test]
    fn a_repeated_block_is_not_a_change() {
        let mut b = Sack1Board::default();
        assert!(b.update(10, &[(12, 13)]));
        assert!(!b.update(10, &[(12, 13)]));
        assert!(b.update(10, &[(12, 14)]));
        assert!(!b.update(10, &[(13, 14), (12, 13)]));
    }

    #[test]
    fn an_ack_without_blocks_on_an_empty_board_is_not_a_change() {
        let mut b = Sack1Board::default();
        assert!(!b.update(10, &[]));
    }

    #[test]
    fn a_block_filling_a_hole_below_the_last_entry_is_a_change() {
        let mut b = Sack1Board::default();
        assert!(b.update(10, &[(14, 15)]));
        assert!(b.update(10, &[(12, 13), (14, 15)]));
    }

    #[test]
    fn clearing_makes_old_blocks_new_again() {
        let mut b = Sack1Board::default();
        assert!(b.update(10, &[(12, 13)]));
        b.clear();
        assert!(b.update(10, &[(12, 13)]));
    }

    #[test]
    fn an_advanced_left_edge_is_a_change() {
        let mut b = Sack1Board::default();
        assert!(b.update(10, &[(12, 14)]));
        assert!(b.update(11, &[(12, 14)]));
        assert!(!b.update(11, &[(12, 14)]));
    }
}
