//! The sender's table of outstanding segments (snd_una .. snd_max), one entry per
//! segment as it was first sent, with its SACK and retransmission marks.
//!
//! It doubles as the SACK scoreboard of RFC 6675 section 3 and FACK: segments are
//! contiguous and sorted, so a sequence number is found by binary search, the front is
//! popped as cumulative ACKs arrive, and new segments are pushed at the back: no
//! allocation in the steady state.

use spikelab_core::Time;
use std::collections::VecDeque;

/// One outstanding segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub start: u64,
    pub end: u64,
    /// Covered by a SACK block (RFC 2018).
    pub sacked: bool,
    /// Retransmitted since the current loss-recovery episode (or timeout) began
    /// (RFC 6675's "retransmitted" mark used by SetPipe and HighRxt).
    pub rexmit_in_episode: bool,
    /// Times this segment was retransmitted over the connection's life.
    pub retx_count: u32,
    /// When the segment was last sent.
    pub last_sent: Time,
}

impl Seg {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Outstanding segments in sequence order.
#[derive(Clone, Debug, Default)]
pub struct SegmentTable {
    segs: VecDeque<Seg>,
    sacked_bytes: u64,
}

impl SegmentTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a segment sent for the first time. Segments arrive in sequence order.
    pub fn push_new(&mut self, start: u64, end: u64, now: Time) {
        debug_assert!(
            self.segs.back().is_none_or(|s| s.end == start),
            "gap in segment table"
        );
        self.segs.push_back(Seg {
            start,
            end,
            sacked: false,
            rexmit_in_episode: false,
            retx_count: 0,
            last_sent: now,
        });
    }

    /// Drops every segment wholly below `ack`. A segment straddling `ack` (never made
    /// by this sender, which only sends whole table entries) is kept.
    pub fn on_cumulative_ack(&mut self, ack: u64) {
        while let Some(front) = self.segs.front() {
            if front.end > ack {
                break;
            }
            if front.sacked {
                self.sacked_bytes -= front.len();
            }
            self.segs.pop_front();
        }
    }

    /// Marks every segment wholly inside `[start, end)` as SACKed; returns the bytes newly
    /// SACKed.
    pub fn on_sack_block(&mut self, start: u64, end: u64) -> u64 {
        let mut newly = 0;
        let mut i = self
            .index_of(start)
            .unwrap_or_else(|| self.first_at_or_after(start));
        while let Some(s) = self.segs.get_mut(i) {
            if s.start >= end {
                break;
            }
            if s.start >= start && s.end <= end && !s.sacked {
                s.sacked = true;
                newly += s.len();
            }
            i += 1;
        }
        self.sacked_bytes += newly;
        newly
    }

    /// Index of the segment containing `seq`.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end <= seq);
        self.segs.get(i).filter(|s| s.start <= seq).map(|_| i)
    }

    fn first_at_or_after(&self, seq: u64) -> usize {
        self.segs.partition_point(|s| s.start < seq)
    }

    pub fn get(&self, i: usize) -> Option<&Seg> {
        self.segs.get(i)
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut Seg> {
        self.segs.get_mut(i)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Seg> + ExactSizeIterator {
        self.segs.iter()
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Bytes currently marked SACKed.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    /// One past the highest SACKed byte (FACK's snd.fack; RFC 6675 HighSACK's end).
    pub fn highest_sacked_end(&self) -> Option<u64> {
        self.segs.iter().rev().find(|s| s.sacked).map(|s| s.end)
    }

    /// Clears every "retransmitted in this episode" mark (a new episode begins).
    pub fn clear_episode_marks(&mut self) {
        for s in &mut self.segs {
            s.rexmit_in_episode = false;
        }
    }

    /// Clears every SACK mark (after a timeout, RFC 2018 section 8 lets the sender
    /// distrust SACK information: the receiver may renege).
    pub fn clear_sacks(&mut self) {
        for s in &mut self.segs {
            s.sacked = false;
        }
        self.sacked_bytes = 0;
    }

    /// RFC 6675 IsLost(SeqNum) for segment `i`: at least DupThresh SACKed segments (or
    /// more than (DupThresh - 1) * SMSS SACKed bytes) lie above it.
    pub fn is_lost(&self, i: usize, dupthresh: u32, smss: u64) -> bool {
        let mut count = 0u32;
        let mut bytes = 0u64;
        for s in self.segs.iter().skip(i + 1).filter(|s| s.sacked) {
            count += 1;
            bytes += s.len();
            if count >= dupthresh || bytes > (dupthresh as u64 - 1) * smss {
                return true;
            }
        }
        false
    }

    /// RFC 6675 SetPipe: bytes believed in the network. Unsacked segments below
    /// `snd_nxt` count once unless lost, once more if retransmitted in this episode.
    pub fn pipe(&self, snd_nxt: u64, dupthresh: u32, smss: u64) -> u64 {
        // Walk from the top keeping a running count of SACKed segments above, so
        // IsLost is evaluated for every segment in one pass.
        let mut above_count = 0u32;
        let mut above_bytes = 0u64;
        let mut pipe = 0u64;
        for s in self.segs.iter().rev() {
            if s.start >= snd_nxt {
                continue;
            }
            if s.sacked {
                above_count += 1;
                above_bytes += s.len();
                continue;
            }
            let lost = above_count >= dupthresh || above_bytes > (dupthresh as u64 - 1) * smss;
            if !lost {
                pipe += s.len();
            }
            if s.rexmit_in_episode {
                pipe += s.len();
            }
        }
        pipe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: u64, mss: u64) -> SegmentTable {
        let mut t = SegmentTable::new();
        for i in 0..n {
            t.push_new(i * mss, (i + 1) * mss, Time::ZERO);
        }
        t
    }

    #[test]
    fn cumulative_ack_pops_whole_segments_only() {
        let mut t = table(5, 100);
        t.on_cumulative_ack(250);
        assert_eq!(t.get(0).unwrap().start, 200);
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn sack_marks_whole_segments_and_counts_bytes_once() {
        let mut t = table(6, 100);
        assert_eq!(t.on_sack_block(200, 400), 200);
        assert_eq!(t.on_sack_block(200, 400), 0);
        assert_eq!(t.sacked_bytes(), 200);
        assert_eq!(t.highest_sacked_end(), Some(400));
        t.on_cumulative_ack(300);
        assert_eq!(t.sacked_bytes(), 100);
    }

    #[test]
    fn is_lost_needs_three_sacked_segments_above() {
        // Segments 0..6; SACK 2 and 3: segment 0 not lost; add 4: lost.
        let mut t = table(6, 100);
        t.on_sack_block(200, 400);
        assert!(!t.is_lost(0, 3, 100));
        t.on_sack_block(400, 500);
        assert!(t.is_lost(0, 3, 100));
        assert!(t.is_lost(1, 3, 100));
        assert!(!t.is_lost(5, 3, 100));
    }

    #[test]
    fn pipe_follows_rfc6675_setpipe() {
        // 6 segments sent; 2,3,4 SACKed: 0 and 1 lost (3 SACKed above), 5 not lost.
        let mut t = table(6, 100);
        t.on_sack_block(200, 500);
        assert_eq!(t.pipe(600, 3, 100), 100); // only segment 5
        t.get_mut(0).unwrap().rexmit_in_episode = true;
        assert_eq!(t.pipe(600, 3, 100), 200); // + retransmitted segment 0
    }
}
