//! The sender's table of outstanding segments (snd_una .. snd_max), one entry per
//! segment as it was first sent, with its SACK and retransmission marks.
//!
//! It doubles as the SACK scoreboard of RFC 6675 section 3 and FACK: segments are
//! contiguous and sorted, so a sequence number is found by binary search, the front is
//! popped as cumulative ACKs arrive, and new segments are pushed at the back: no
//! allocation in the steady state.

use spikelab_core::Time;
use std::cell::Cell;
use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};

/// One outstanding segment, in 24 bytes: one is kept per segment in flight, so at
/// 1,000 flows in slow start the tables were the largest part of the heap (3.2 MB at
/// 32 bytes; docs/src/performance.md, "Memory per flow and per link"). The end is
/// kept as a length from the start ([`Self::end`]); a segment is at most one MSS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub start: u64,
    /// When the segment was last sent.
    pub last_sent: Time,
    /// `end - start`.
    len: u32,
    /// Times this segment was retransmitted over the connection's life (saturating:
    /// only whether it is zero is ever asked).
    pub retx_count: u8,
    /// Linux's skb boundaries in the retransmission queue ([`SKB_END`], [`SKB_PUSHED`]):
    /// set by [`SegmentTable::mark_skb_end`], read by [`Self::ends_skb`] and
    /// [`Self::skb_pushed`].
    skb: u8,
    /// Covered by a SACK block (RFC 2018).
    pub sacked: bool,
    /// Retransmitted since the current loss-recovery episode (or timeout) began
    /// (RFC 6675's "retransmitted" mark used by SetPipe and HighRxt).
    pub rexmit_in_episode: bool,
}

impl Seg {
    /// A segment `[start, end)` first sent at `now`, unmarked.
    pub fn new(start: u64, end: u64, now: Time) -> Seg {
        Seg {
            start,
            last_sent: now,
            len: u32::try_from(end - start).expect("a segment of 4 GB or more"),
            retx_count: 0,
            skb: 0,
            sacked: false,
            rexmit_in_episode: false,
        }
    }
    /// One past the segment's last byte.
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    pub fn len(&self) -> u64 {
        self.len as u64
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether the segment ends an skb of the retransmission queue: the last segment
    /// of a send (`tso_fragment` cut it off the send queue), or of a piece a
    /// retransmission cut off (`tcp_fragment`). Boundaries only ever come: a piece is
    /// not joined again.
    pub fn ends_skb(&self) -> bool {
        self.skb & SKB_END != 0
    }
    /// Whether the skb it ends carries the send queue's PSH mark in its control block
    /// (`tcp_mark_push`'s, which `tso_fragment` and `tcp_fragment` leave on the later
    /// piece): a retransmission of it alone carries PSH.
    pub fn skb_pushed(&self) -> bool {
        self.skb & SKB_PUSHED != 0
    }
    /// Counts one more retransmission.
    pub fn count_retransmission(&mut self) {
        self.retx_count = self.retx_count.saturating_add(1);
    }
}

/// [`Seg::ends_skb`]'s bit.
const SKB_END: u8 = 1;
/// [`Seg::skb_pushed`]'s bit.
const SKB_PUSHED: u8 = 2;

/// Outstanding segments in sequence order.
///
/// Beside the segments it keeps three summaries so that no per-ACK query walks the
/// whole table (the window can hold 10^6 segments): the SACKed bytes, the end of the
/// highest SACKed segment, and the positions of the segments handed out by
/// [`Self::get_mut`] since the episode marks were last cleared (the only way a
/// "retransmitted in this episode" mark can be set). The queries then walk only the
/// segments between the highest SACKed one and the loss boundary (IsLost, SetPipe) or
/// the marked ones (SetPipe), i.e. work proportional to SACK holes and retransmissions.
///
/// A position is absolute: the number of segments popped from the front before the
/// segment, plus its index. Segments are only pushed at the back and popped at the
/// front, so a marked segment's index is its position less [`Self::popped`], found
/// without a search.
#[derive(Clone, Debug, Default)]
pub struct SegmentTable {
    segs: VecDeque<Seg>,
    sacked_bytes: u64,
    /// End of the highest SACKed segment (None when no segment is SACKed).
    high_sacked_end: Option<u64>,
    /// Absolute position of that segment (meaningful while `high_sacked_end` is
    /// set): IsLost and SetPipe start from it on every call, without a search.
    high_sacked_pos: u64,
    /// Absolute positions of segments that may carry `rexmit_in_episode` (every
    /// [`Self::get_mut`] since the last [`Self::clear_episode_marks`]), pruned as the
    /// front is popped; ascending and without repeats, a set kept as a sorted ring:
    /// positions mostly arrive in ascending order (holes and go-back-N are resent from
    /// the lowest up), so an insertion is usually a push at the back, and the pruning
    /// pops at the front, where a `BTreeSet` searched, split and allocated.
    touched: VecDeque<u64>,
    /// Segments popped from the front so far: the absolute position of `segs[0]`.
    popped: u64,
    /// The last few SACK blocks applied since the SACK marks were last cleared, each
    /// cut at the end of the table when it was applied: every segment wholly inside
    /// one of them is SACKed already (see [`Self::on_sack_block`]).
    applied: [(u64, u64); APPLIED_BLOCKS],
    /// Where the next applied block goes in `applied` (a ring).
    applied_next: usize,
    /// An absolute position below which every segment is SACKed or marked
    /// retransmitted in this episode, so that [`Self::first_unmarked_hole`] need not
    /// walk them again (on every call in recovery it walked the retransmitted holes and
    /// SACKed runs at the bottom of the window). Raised by that search (hence a `Cell`:
    /// the search is a query), lowered wherever a segment may lose a mark: to the
    /// segment handed out by [`Self::get_mut`], and to the front when marks are cleared.
    settled: Cell<u64>,
    /// The unSACKed bytes of segments marked retransmitted in this episode: SetPipe's
    /// second part when `snd_nxt` is at the table's end (every segment below it), kept
    /// by every change of a SACK or retransmission mark ([`SegMut`] for those made
    /// through [`Self::get_mut`]).
    retransmitted_bytes: u64,
    /// One past the highest absolute position [`Self::get_mut`] ever handed out: only
    /// there can a segment's retransmission count have been raised, so
    /// [`Self::any_ever_retransmitted`] looks no higher (and at nothing once it has
    /// been acknowledged).
    handed_out_end: u64,
}

/// Whether a segment counts in SetPipe's second part ("once more if retransmitted").
fn counts_retransmitted(s: &Seg) -> bool {
    s.rexmit_in_episode && !s.sacked
}

/// A segment handed out by [`SegmentTable::get_mut`]: derefs to it and, when dropped,
/// brings the table's retransmitted bytes up to date with the marks the caller changed.
pub struct SegMut<'a> {
    seg: &'a mut Seg,
    counted: bool,
    retransmitted_bytes: &'a mut u64,
}

impl Deref for SegMut<'_> {
    type Target = Seg;
    fn deref(&self) -> &Seg {
        self.seg
    }
}

impl DerefMut for SegMut<'_> {
    fn deref_mut(&mut self) -> &mut Seg {
        self.seg
    }
}

impl Drop for SegMut<'_> {
    fn drop(&mut self) {
        match (self.counted, counts_retransmitted(self.seg)) {
            (false, true) => *self.retransmitted_bytes += self.seg.len(),
            (true, false) => *self.retransmitted_bytes -= self.seg.len(),
            _ => {}
        }
    }
}

/// The capacity a segment table keeps however few segments it holds (384 bytes): an
/// initial window's worth and then some, so that a flow in its steady state does not
/// give back and take again.
const KEPT_SEGMENTS: usize = 16;

/// SACK blocks remembered: an ACK carries up to four (RFC 2018 section 3), and the
/// receiver repeats the most recent ones (section 4).
const APPLIED_BLOCKS: usize = 4;

/// RFC 6675 IsLost's test on the SACKed segments above a sequence number: DupThresh
/// of them, or more than (DupThresh - 1) * SMSS bytes.
fn deemed_lost(count: u32, bytes: u64, dupthresh: u32, smss: u64) -> bool {
    count >= dupthresh || bytes > (dupthresh as u64 - 1) * smss
}

impl SegmentTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a segment sent for the first time. Segments arrive in sequence order.
    pub fn push_new(&mut self, start: u64, end: u64, now: Time) {
        debug_assert!(
            self.segs.back().is_none_or(|s| s.end() == start),
            "gap in segment table"
        );
        self.segs.push_back(Seg::new(start, end, now));
    }

    /// Drops every segment wholly below `ack`. A segment straddling `ack` (never made
    /// by this sender, which only sends whole table entries) is kept.
    pub fn on_cumulative_ack(&mut self, ack: u64) {
        while let Some(front) = self.segs.front() {
            if front.end() > ack {
                break;
            }
            if front.sacked {
                self.sacked_bytes -= front.len();
            }
            if counts_retransmitted(front) {
                self.retransmitted_bytes -= front.len();
            }
            self.segs.pop_front();
            self.popped += 1;
        }
        if self.segs.len() * 4 + KEPT_SEGMENTS < self.segs.capacity() {
            self.give_back_memory();
        }
        let front = self.segs.front().map_or(u64::MAX, |s| s.start);
        if self.high_sacked_end.is_some_and(|h| h <= front) {
            self.high_sacked_end = None;
        }
        while self.touched.front().is_some_and(|&t| t < self.popped) {
            self.touched.pop_front();
        }
    }

    /// Gives back most of the table's memory once it holds under a quarter of its
    /// capacity (less [`KEPT_SEGMENTS`]), keeping twice what it holds. Without this a
    /// table kept the capacity of the largest window its flow ever had: at 1 000 flows
    /// the sum of those maxima was 2.43 MB of heap, for about 11 000 segments (0.26 MB)
    /// in flight at any one time (docs/src/performance.md, "Issue 44, memory round 3").
    /// Capacity only: the segments and their order are untouched. The kept capacity is
    /// a power of two and the segments move to a new buffer of it: a table shrunk in
    /// place left the rest of its buffer as a free hole of an odd size (5 to 7 KB
    /// each, 0.56 MB of them at the end of a 1 000-flow run), and every table's
    /// buffer, grown by doubling, is then of one of a few sizes that the others' freed
    /// buffers fit (docs/src/performance.md, "Issue 44, memory round 5"). Out of line,
    /// so that a cumulative ACK pays only its caller's test.
    #[cold]
    #[inline(never)]
    fn give_back_memory(&mut self) {
        let keep = (self.segs.len() * 2).max(KEPT_SEGMENTS).next_power_of_two();
        let mut segs = VecDeque::with_capacity(keep);
        segs.extend(self.segs.drain(..));
        self.segs = segs;
    }

    /// Marks every segment wholly inside `[start, end)` as SACKed; returns the bytes newly
    /// SACKed.
    ///
    /// Receivers repeat their blocks on every ACK (RFC 2018 section 4), so most blocks,
    /// or their lower part, were applied before: the segments wholly inside an applied
    /// block that covers `start` are SACKed already (marks are only cleared together,
    /// by [`Self::clear_sacks`], which forgets the applied blocks; no segment appears
    /// inside a block after it was applied, since the applied range is cut at the
    /// table's end). The walk starts above them, and a block inside an applied one
    /// costs no walk at all.
    pub fn on_sack_block(&mut self, start: u64, end: u64) -> u64 {
        let covered = self
            .applied
            .iter()
            .filter(|&&(s, e)| s <= start && start < e)
            .map(|&(_, e)| e.min(end))
            .max();
        if covered == Some(end) {
            return 0;
        }
        let table_end = self.segs.back().map_or(0, |s| s.end());
        if start < table_end {
            self.applied[self.applied_next] = (start, end.min(table_end));
            self.applied_next = (self.applied_next + 1) % APPLIED_BLOCKS;
        }
        let mut newly = 0;
        let mut i = match covered {
            Some(c) => self.segs.partition_point(|s| s.end() <= c),
            None => self
                .index_of(start)
                .unwrap_or_else(|| self.first_at_or_after(start)),
        };
        while let Some(s) = self.segs.get_mut(i) {
            if s.start >= end {
                break;
            }
            if s.start >= start && s.end() <= end && !s.sacked {
                s.sacked = true;
                newly += s.len();
                if s.rexmit_in_episode {
                    self.retransmitted_bytes -= s.len();
                }
                if self.high_sacked_end.is_none_or(|h| s.end() > h) {
                    self.high_sacked_end = Some(s.end());
                    self.high_sacked_pos = self.popped + i as u64;
                }
            }
            i += 1;
        }
        self.sacked_bytes += newly;
        newly
    }

    /// Index of the segment containing `seq`.
    ///
    /// Most lookups are of the front: every ACK's cumulative range starts at snd_una.
    /// That case is answered without the binary search, which gives the same index: the
    /// first segment ending above `seq`.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        let i = match self.segs.front() {
            Some(front) if seq < front.end() => 0,
            _ => self.segs.partition_point(|s| s.end() <= seq),
        };
        self.segs.get(i).filter(|s| s.start <= seq).map(|_| i)
    }

    fn first_at_or_after(&self, seq: u64) -> usize {
        // At or beyond the table's end (SetPipe's snd_nxt = snd_max): every segment.
        if self.segs.back().is_none_or(|b| b.end() <= seq) {
            return self.segs.len();
        }
        self.segs.partition_point(|s| s.start < seq)
    }

    /// The segment containing `seq`.
    pub fn containing(&self, seq: u64) -> Option<&Seg> {
        self.segs.get(self.index_of(seq)?)
    }

    /// Entry `i` ends an skb of the retransmission queue, with the send queue's PSH
    /// mark if `pushed` ([`Seg::ends_skb`], [`Seg::skb_pushed`]). Not a
    /// retransmission mark: [`Self::get_mut`]'s bookkeeping is not needed.
    pub fn mark_skb_end(&mut self, i: usize, pushed: bool) {
        if let Some(s) = self.segs.get_mut(i) {
            s.skb |= SKB_END | if pushed { SKB_PUSHED } else { 0 };
        }
    }

    pub fn get(&self, i: usize) -> Option<&Seg> {
        self.segs.get(i)
    }

    /// Entry `i` for changing its retransmission marks (not its SACK mark or bounds,
    /// which only the ACK handlers change).
    pub fn get_mut(&mut self, i: usize) -> Option<SegMut<'_>> {
        let s = self.segs.get_mut(i)?;
        let at = self.popped + i as u64;
        self.handed_out_end = self.handed_out_end.max(at + 1);
        // The caller may clear the segment's mark.
        self.settled.set(self.settled.get().min(at));
        if self.touched.back().is_none_or(|&b| b < at) {
            self.touched.push_back(at);
        } else if let Err(k) = self.touched.binary_search(&at) {
            self.touched.insert(k, at);
        }
        Some(SegMut {
            counted: counts_retransmitted(s),
            seg: s,
            retransmitted_bytes: &mut self.retransmitted_bytes,
        })
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

    /// Is a segment that was ever retransmitted outstanding, not SACKed? Asked on every
    /// ACK of a RACK flow; only the segments up to the highest one ever handed out by
    /// [`Self::get_mut`] are looked at, none in the common case.
    pub fn any_ever_retransmitted(&self) -> bool {
        let n = self.handed_out_end.saturating_sub(self.popped) as usize;
        self.segs
            .iter()
            .take(n)
            .any(|s| s.retx_count > 0 && !s.sacked)
    }

    /// Bytes currently marked SACKed.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    /// Bytes marked SACKed in segments ending at or below `end` (all of them when the
    /// highest SACKed segment does; else a walk up to `end`).
    pub fn sacked_bytes_below(&self, end: u64) -> u64 {
        match self.high_sacked_end {
            None => 0,
            Some(h) if h <= end => self.sacked_bytes,
            Some(_) => (self.segs.iter())
                .take_while(|s| s.end() <= end)
                .filter(|s| s.sacked)
                .map(Seg::len)
                .sum(),
        }
    }

    /// One past the highest SACKed byte (FACK's snd.fack; RFC 6675 HighSACK's end).
    pub fn highest_sacked_end(&self) -> Option<u64> {
        self.high_sacked_end
    }

    /// Index of the highest SACKed segment.
    fn highest_sacked_index(&self) -> Option<usize> {
        self.high_sacked_end?;
        let i = (self.high_sacked_pos - self.popped) as usize;
        debug_assert_eq!(Some(i), self.index_of(self.high_sacked_end? - 1));
        Some(i)
    }

    /// Index of the segment at absolute position `at`, if it has not been popped.
    fn position(&self, at: u64) -> Option<usize> {
        at.checked_sub(self.popped).map(|i| i as usize)
    }

    /// Clears every "retransmitted in this episode" mark (a new episode begins).
    pub fn clear_episode_marks(&mut self) {
        for &at in &self.touched {
            if let Some(s) = self.position(at).and_then(|i| self.segs.get_mut(i)) {
                s.rexmit_in_episode = false;
            }
        }
        self.touched.clear();
        // Every mark was set through get_mut, hence recorded in `touched`: none is left.
        self.retransmitted_bytes = 0;
        self.settled.set(self.popped);
    }

    /// Clears every SACK mark (after a timeout, RFC 2018 section 8 lets the sender
    /// distrust SACK information: the receiver may renege).
    pub fn clear_sacks(&mut self) {
        if let Some(h) = self.highest_sacked_index() {
            for s in self.segs.range_mut(..=h) {
                if s.sacked && s.rexmit_in_episode {
                    self.retransmitted_bytes += s.len();
                }
                s.sacked = false;
            }
        }
        self.sacked_bytes = 0;
        self.high_sacked_end = None;
        self.applied = [(0, 0); APPLIED_BLOCKS];
        self.settled.set(self.popped);
    }

    /// Index of the first segment ending at or below `high` that is neither SACKed nor
    /// marked retransmitted in this episode and satisfies `pred` (RFC 6675 NextSeg's
    /// search for a hole, `Window::first_hole`). The walk starts at
    /// the settled position (below it no segment qualifies) and raises it to the first
    /// segment that is neither SACKed nor marked, or to where the walk ended when
    /// there was none.
    pub fn first_unmarked_hole(&self, high: u64, pred: impl Fn(usize) -> bool) -> Option<usize> {
        let from = (self.settled.get().saturating_sub(self.popped) as usize).min(self.segs.len());
        let mut open = None;
        let mut found = None;
        let mut i = from;
        for s in self.segs.range(from..) {
            if s.end() > high {
                break;
            }
            if !s.sacked && !s.rexmit_in_episode {
                open.get_or_insert(i);
                if pred(i) {
                    found = Some(i);
                    break;
                }
            }
            i += 1;
        }
        self.settled.set(self.popped + open.unwrap_or(i) as u64);
        found
    }

    /// RFC 6675 IsLost(SeqNum) for segment `i`: at least DupThresh SACKed segments (or
    /// more than (DupThresh - 1) * SMSS SACKed bytes) lie above it. Walks down from
    /// the highest SACKed segment and stops as soon as the answer is known.
    pub fn is_lost(&self, i: usize, dupthresh: u32, smss: u64) -> bool {
        let Some(h) = self.highest_sacked_index().filter(|&h| h > i) else {
            return false;
        };
        let mut count = 0u32;
        let mut bytes = 0u64;
        for s in self.segs.range(i + 1..=h).rev().filter(|s| s.sacked) {
            count += 1;
            bytes += s.len();
            if deemed_lost(count, bytes, dupthresh, smss) {
                return true;
            }
        }
        false
    }

    /// The loss boundary: `is_lost(i)` holds exactly for `i < lost_boundary(..)` (the
    /// SACKed segments above `i` only grow as `i` falls, so IsLost is monotone).
    pub fn lost_boundary(&self, dupthresh: u32, smss: u64) -> usize {
        let Some(h) = self.highest_sacked_index() else {
            return 0;
        };
        let (mut count, mut bytes) = (0u32, 0u64);
        for j in (0..=h).rev() {
            if count > 0 && deemed_lost(count, bytes, dupthresh, smss) {
                return j + 1;
            }
            let s = &self.segs[j];
            if s.sacked {
                count += 1;
                bytes += s.len();
            }
        }
        0
    }

    /// RFC 6675 SetPipe: bytes believed in the network. Unsacked segments below
    /// `snd_nxt` count once unless lost, once more if retransmitted in this episode
    /// (IsLost here counts only SACKed segments below `snd_nxt`).
    ///
    /// The first part is the unsacked bytes not deemed lost below `snd_nxt`, those from
    /// the floor of [`Self::setpipe_floor`] up: the segments are contiguous, so that is
    /// a difference of sequence numbers less the SACKed bytes met while walking down
    /// from the highest SACKed segment to the floor. The second part sums the marked
    /// segments.
    pub fn pipe(&self, snd_nxt: u64, dupthresh: u32, smss: u64) -> u64 {
        let n = self.first_at_or_after(snd_nxt);
        if n == 0 {
            return 0;
        }
        // Segments above the highest SACKed one have nothing SACKed above them.
        let (floor, bytes) = match self.highest_sacked_index() {
            _ if deemed_lost(0, 0, dupthresh, smss) => (n, 0),
            Some(h) => self.setpipe_floor(h.min(n - 1), dupthresh, smss),
            None => (0, 0),
        };
        let span = if floor < n {
            self.segs[n - 1].end() - self.segs[floor].start
        } else {
            0
        };
        let not_lost = span - bytes;
        // The marked segments below snd_nxt are those at positions below n's.
        debug_assert_eq!(
            self.retransmitted_bytes,
            self.retransmitted_below(self.segs.len())
        );
        let retransmitted = if n == self.segs.len() {
            self.retransmitted_bytes
        } else {
            self.retransmitted_below(n)
        };
        not_lost + retransmitted
    }

    /// The unSACKed bytes of the segments below index `n` marked retransmitted in this
    /// episode: the marked ones are those at positions below n's.
    fn retransmitted_below(&self, n: usize) -> u64 {
        let below = self.popped + n as u64;
        self.touched
            .iter()
            .take_while(|&&at| at < below)
            .filter_map(|&at| self.position(at).map(|i| &self.segs[i]))
            .filter(|s| counts_retransmitted(s))
            .map(Seg::len)
            .sum()
    }

    /// SetPipe's walk down from segment `top`, counting SACKed segments one by one until
    /// IsLost's threshold is met (DupThresh of them at most): returns where it stopped,
    /// the SACKed segment that met the threshold (or 0), and the SACKed bytes from
    /// there to `top`.
    ///
    /// Every unSACKed segment below the stop is lost (the threshold's SACKed segments
    /// lie above it) and none above it is (the SACKed ones above fall short), so the
    /// bytes not deemed lost are the unSACKed ones from the stop up. The walk need not
    /// go on down to the highest lost segment: the segments in between are all SACKed,
    /// and their span would be added to the SACKed bytes only to be taken off again.
    fn setpipe_floor(&self, top: usize, dupthresh: u32, smss: u64) -> (usize, u64) {
        let (mut count, mut bytes) = (0u32, 0u64);
        let mut j = top + 1;
        while !deemed_lost(count, bytes, dupthresh, smss) {
            if j == 0 {
                return (0, bytes);
            }
            j -= 1;
            let s = &self.segs[j];
            if s.sacked {
                count += 1;
                bytes += s.len();
            }
        }
        (j, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One `Seg` is kept per segment in flight: it must not grow by accident (see
    /// docs/src/performance.md, "Memory per flow and per link").
    #[test]
    fn a_segment_takes_24_bytes() {
        assert_eq!(std::mem::size_of::<Seg>(), 24);
    }

    #[test]
    fn a_table_gives_back_memory_keeping_a_power_of_two_and_its_segments() {
        let mut t = SegmentTable::new();
        for i in 0..200 {
            t.push_new(i * 1000, (i + 1) * 1000, Time::ZERO);
        }
        assert_eq!(t.segs.capacity(), 256);
        t.on_cumulative_ack(190_000);
        assert_eq!(t.segs.len(), 10);
        assert_eq!(t.segs.capacity(), 32, "twice the 10 left, a power of two");
        assert_eq!(t.segs.front().map(|s| s.start), Some(190_000));
        assert_eq!(t.segs.back().map(|s| s.end()), Some(200_000));
        t.on_cumulative_ack(195_000);
        assert_eq!(
            t.segs.capacity(),
            32,
            "5 segments: not under a quarter less 16"
        );
        t.on_cumulative_ack(200_000);
        assert_eq!(t.segs.capacity(), KEPT_SEGMENTS, "empty: the kept segments");
    }

    #[test]
    fn a_piece_end_and_its_mark_stay_with_the_segment_until_it_is_acknowledged() {
        let mut t = SegmentTable::new();
        for i in 0..3 {
            t.push_new(i * 1000, (i + 1) * 1000, Time::ZERO);
        }
        t.mark_skb_end(0, false);
        t.mark_skb_end(2, true);
        let flags = |t: &SegmentTable| {
            t.iter()
                .map(|s| (s.ends_skb(), s.skb_pushed()))
                .collect::<Vec<_>>()
        };
        assert_eq!(flags(&t), [(true, false), (false, false), (true, true)]);
        // A later split never takes a mark away: the piece's mark stays on its end.
        t.mark_skb_end(2, false);
        t.on_cumulative_ack(1000);
        assert_eq!(flags(&t), [(false, false), (true, true)]);
    }

    #[test]
    fn a_segment_keeps_its_end_as_a_length() {
        let s = Seg::new(1_000, 2_448, Time::ZERO);
        assert_eq!((s.start, s.end(), s.len()), (1_000, 2_448, 1_448));
    }

    #[test]
    fn the_retransmission_count_saturates() {
        let mut s = Seg::new(0, 1, Time::ZERO);
        s.retx_count = u8::MAX - 1;
        s.count_retransmission();
        s.count_retransmission();
        assert_eq!(s.retx_count, u8::MAX);
    }

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
    fn sacked_bytes_below_counts_only_segments_ending_there() {
        let mut t = table(6, 100);
        t.on_sack_block(100, 200);
        t.on_sack_block(300, 500);
        assert_eq!(t.sacked_bytes_below(100), 0);
        assert_eq!(t.sacked_bytes_below(300), 100);
        assert_eq!(t.sacked_bytes_below(400), 200);
        assert_eq!(t.sacked_bytes_below(600), 300);
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

    /// The straightforward scans the summaries replace, as the reference.
    mod naive {
        use super::super::Seg;

        pub fn is_lost(segs: &[Seg], i: usize, dupthresh: u32, smss: u64) -> bool {
            let (mut count, mut bytes) = (0u32, 0u64);
            for s in segs.iter().skip(i + 1).filter(|s| s.sacked) {
                count += 1;
                bytes += s.len();
                if count >= dupthresh || bytes > (dupthresh as u64 - 1) * smss {
                    return true;
                }
            }
            false
        }

        pub fn pipe(segs: &[Seg], snd_nxt: u64, dupthresh: u32, smss: u64) -> u64 {
            let (mut above_count, mut above_bytes, mut pipe) = (0u32, 0u64, 0u64);
            for s in segs.iter().rev().filter(|s| s.start < snd_nxt) {
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

    #[derive(Clone, Debug)]
    enum Op {
        Push(u64),
        Sack(u64, u64),
        CumAck(u64),
        Mark(usize),
        Unmark(usize),
        Retransmit(usize),
        ClearMarks,
        ClearSacks,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (1u64..3).prop_map(Op::Push),
            4 => (0u64..40, 1u64..8).prop_map(|(s, l)| Op::Sack(s * 100, (s + l) * 100)),
            1 => (0u64..40).prop_map(|a| Op::CumAck(a * 100)),
            3 => (0usize..30).prop_map(Op::Mark),
            1 => (0usize..30).prop_map(Op::Unmark),
            2 => (0usize..30).prop_map(Op::Retransmit),
            1 => Just(Op::ClearMarks),
            1 => Just(Op::ClearSacks),
        ]
    }

    use proptest::prelude::*;

    proptest! {
        /// The incremental queries answer exactly what full scans of the table answer,
        /// whatever sequence of sends, SACKs, ACKs and marks led there.
        #[test]
        fn summaries_answer_like_full_scans(
            ops in proptest::collection::vec(op(), 1..80),
            dupthresh in 1u32..5,
            nxt_back in 0u64..6,
        ) {
            let mut t = SegmentTable::new();
            // The marks as plain per-segment updates make them, the reference.
            let mut reference: Vec<Seg> = Vec::new();
            let mut next = 0u64;
            for o in ops {
                match o {
                    Op::Push(k) => {
                        t.push_new(next, next + k * 100, Time::ZERO);
                        reference.push(*t.iter().last().unwrap());
                        next += k * 100;
                    }
                    Op::Sack(s, e) => {
                        let newly = t.on_sack_block(s, e);
                        let mut expected = 0;
                        for r in reference.iter_mut() {
                            if r.start >= s && r.end() <= e && !r.sacked {
                                r.sacked = true;
                                expected += r.len();
                            }
                        }
                        prop_assert_eq!(newly, expected, "SACK block {}..{}", s, e);
                    }
                    Op::CumAck(a) => {
                        t.on_cumulative_ack(a);
                        reference.retain(|r| r.end() > a);
                    }
                    Op::Mark(i) => {
                        if let Some(mut s) = t.get_mut(i) {
                            s.rexmit_in_episode = true;
                            reference[i].rexmit_in_episode = true;
                        }
                    }
                    Op::Unmark(i) => {
                        if let Some(mut s) = t.get_mut(i) {
                            s.rexmit_in_episode = false;
                            reference[i].rexmit_in_episode = false;
                        }
                    }
                    Op::Retransmit(i) => {
                        if let Some(mut s) = t.get_mut(i) {
                            s.retx_count += 1;
                            reference[i].retx_count += 1;
                        }
                    }
                    Op::ClearMarks => {
                        t.clear_episode_marks();
                        reference.iter_mut().for_each(|r| r.rexmit_in_episode = false);
                    }
                    Op::ClearSacks => {
                        t.clear_sacks();
                        reference.iter_mut().for_each(|r| r.sacked = false);
                    }
                }
                let segs: Vec<Seg> = t.iter().copied().collect();
                prop_assert_eq!(&segs, &reference);
                prop_assert_eq!(
                    t.sacked_bytes(),
                    segs.iter().filter(|s| s.sacked).map(Seg::len).sum::<u64>()
                );
                prop_assert_eq!(
                    t.highest_sacked_end(),
                    segs.iter().rev().find(|s| s.sacked).map(|s| s.end())
                );
                prop_assert_eq!(
                    t.any_ever_retransmitted(),
                    segs.iter().any(|s| s.retx_count > 0 && !s.sacked)
                );
                let bound = t.lost_boundary(dupthresh, 100);
                for i in 0..segs.len() {
                    let lost = naive::is_lost(&segs, i, dupthresh, 100);
                    prop_assert_eq!(t.is_lost(i, dupthresh, 100), lost, "segment {}", i);
                    prop_assert_eq!(i < bound, lost, "boundary {} at {}", bound, i);
                }
                let nxt = next.saturating_sub(nxt_back * 100);
                prop_assert_eq!(
                    t.pipe(nxt, dupthresh, 100),
                    naive::pipe(&segs, nxt, dupthresh, 100)
                );
                // NextSeg's hole search from the settled position, against a walk
                // from the front (with a predicate that holds everywhere, and one
                // that holds below the loss boundary, as rules 3 and 1 use them).
                if let Some(high) = t.highest_sacked_end() {
                    let naive_hole = |pred: &dyn Fn(usize) -> bool| {
                        segs.iter().enumerate().take_while(|(_, s)| s.end() <= high)
                            .find(|(i, s)| !s.sacked && !s.rexmit_in_episode && pred(*i))
                            .map(|(i, _)| i)
                    };
                    prop_assert_eq!(t.first_unmarked_hole(high, |i| i < bound), naive_hole(&|i| i < bound));
                    prop_assert_eq!(t.first_unmarked_hole(high, |_| true), naive_hole(&|_| true));
                }
            }
        }
    }

    #[test]
    fn clearing_episode_marks_clears_every_marked_segment() {
        let mut t = table(6, 100);
        for i in [1, 4] {
            t.get_mut(i).unwrap().rexmit_in_episode = true;
        }
        t.clear_episode_marks();
        assert!(t.iter().all(|s| !s.rexmit_in_episode));
    }
}
