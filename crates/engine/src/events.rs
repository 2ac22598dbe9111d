//! The event queue: events pop in (time, insertion order), so that events at the same
//! instant run in the order they were scheduled and a run is a pure function of its
//! scenario and seed (ties are never broken by memory addresses or hashing).
//!
//! The queue is a radix heap [Ahuja et al. 1990] over the integer nanosecond clock: a
//! monotone priority queue, which is what a discrete-event loop needs, since nothing is
//! scheduled before the instant last popped. Times are read as digits of
//! [`DIGIT_BITS`] bits (a hierarchical timing wheel of [`LEVELS`] levels of radix
//! [`RADIX`]): an event's level is the highest digit in which its time differs from that
//! instant, and its bucket at that level is its own value of that digit, so that the
//! buckets in index order are in time order and a bucket of level 0 holds one time
//! only. A push is one XOR, one leading-zero count, a shift and a `Vec` push, and a pop
//! that finds no event left at the current instant empties the lowest occupied bucket,
//! whose earliest time becomes the instant and whose other events fall into lower
//! levels. Each event moves down a few levels over its life instead of sifting through
//! a heap of all pending events on every pop and push. With radix 2 (64 levels of one
//! bucket each) a bucket spans half its distance from the instant, and in the 100-flow
//! dumbbell an event was moved 1.47 times and half the pops emptied a bucket of several
//! events; with digits of 6 bits a bucket spans between a 64th and all of it, so fewer
//! events share the bucket the clock reaches (a quarter of the pops empty one), and a
//! level's occupancy is one word of the bitmap. Events at one time stay in insertion
//! order without any sequence number (see [`EventQueue::advance`]), so the pop order is
//! exactly that of a sorted (time, insertion order) list:
//! `pops_exactly_as_a_sorted_reference_*` below.
//! An event scheduled before the current instant (the engine never does so) would go to
//! a small binary heap that pops first, so the order stays exact even then.
//!
//! Cancellation is by generation: a [`TimerSlot`] owns at most one live event; moving a
//! deadline earlier schedules a new event and bumps the generation, so the old one is
//! recognised as stale and ignored when it surfaces. Moving a deadline later keeps the
//! pending event, which re-arms itself when it fires early. Re-arming an RTO on every ACK
//! therefore costs no queue operation at all in the common case.

use spikelab_core::Time;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Which timer of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowTimer {
    /// A connection's sender's timer (TCP's retransmission timer).
    Sender,
    /// A connection's receiver's timer (TCP's delayed ACK).
    Receiver,
    /// The next datagram of a constant-bit-rate source.
    CbrSend,
}

/// Something that happens at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A flow's application starts.
    FlowStart { flow: u32 },
    /// A flow timer's slot fires (stale if `gen` is not the slot's current generation).
    Timer {
        flow: u32,
        timer: FlowTimer,
        gen: u32,
    },
    /// A link direction has work due (stale unless `gen` matches).
    LinkWake { link: u32, dir: u8, gen: u32 },
    /// The next control of a link's spike schedule `sched`.
    LinkControl { link: u32, sched: u32 },
    /// A middlebox has work due (stale unless `gen` matches).
    MiddleboxWake { mb: u32, gen: u32 },
}

/// A queued event: its time and what happens. Its insertion order is its place among
/// the events at the same time in its bucket (see [`EventQueue::advance`]).
///
/// The event is held packed in two plain words ([`Entry::new`], [`Entry::event`]), not
/// as an [`Event`], whose one- and four-byte fields were written with narrow stores
/// and read back with wider loads: at every push through a copy on the stack, and
/// probably at the pop of an event queued shortly before. A load that spans several
/// pending stores cannot take its data from them and waits until they reach the
/// cache. Whole words are stored and loaded instead: `reproduce eifel-response` ran
/// 3 to 4 % faster, while the `Event` written field by field straight into the
/// buffer (no stack copy at the push, the same narrow stores) was no faster.
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    /// The kind of event (bits 0..8: the variant, and for a timer which one), a link
    /// wake-up's direction (bits 8..16) and the index of the flow, link or middlebox
    /// (bits 32..64).
    head: u64,
    /// The variant's second `u32` (a generation or a schedule), 0 if none.
    tail: u64,
}

impl Entry {
    /// Packs `event` at `time` (inlined into each push, where the variant is known and
    /// the match folds away).
    #[inline(always)]
    fn new(time: u64, event: Event) -> Entry {
        let (kind, small, index, tail) = match event {
            Event::FlowStart { flow } => (0, 0, flow, 0),
            Event::Timer { flow, timer, gen } => (1 + timer as u64, 0, flow, gen),
            Event::LinkWake { link, dir, gen } => (4, dir as u64, link, gen),
            Event::LinkControl { link, sched } => (5, 0, link, sched),
            Event::MiddleboxWake { mb, gen } => (6, 0, mb, gen),
        };
        Entry {
            time,
            head: kind | small << 8 | (index as u64) << 32,
            tail: tail as u64,
        }
    }

    /// The event [`Entry::new`] packed.
    #[inline(always)]
    fn event(&self) -> Event {
        let small = (self.head >> 8) as u8;
        let index = (self.head >> 32) as u32;
        let tail = self.tail as u32;
        let timer = |timer| Event::Timer {
            flow: index,
            timer,
            gen: tail,
        };
        match self.head as u8 {
            0 => Event::FlowStart { flow: index },
            1 => timer(FlowTimer::Sender),
            2 => timer(FlowTimer::Receiver),
            3 => timer(FlowTimer::CbrSend),
            4 => Event::LinkWake {
                link: index,
                dir: small,
                gen: tail,
            },
            5 => Event::LinkControl {
                link: index,
                sched: tail,
            },
            _ => Event::MiddleboxWake {
                mb: index,
                gen: tail,
            },
        }
    }
}

/// An entry of the heap of events scheduled before the current instant, ordered by
/// (time, insertion order), earliest on top.
#[derive(Clone, Copy, Debug)]
struct Past {
    seq: u64,
    entry: Entry,
}

impl Past {
    fn key(&self) -> (u64, u64) {
        (self.entry.time, self.seq)
    }
}
impl PartialEq for Past {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Past {}
impl Ord for Past {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest first.
        other.key().cmp(&self.key())
    }
}
impl PartialOrd for Past {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Bits of the clock per level of the radix heap. Measured on the 100-flow dumbbell
/// (callgrind, 5 s): 1 bit per level (radix 2, the classic radix heap) 284.9 M
/// instructions, 4 bits 282.4 M, 6 bits 276.5 M, 8 bits 283.1 M (the scan for the lowest
/// occupied bucket then reads 32 words).
const DIGIT_BITS: u32 = 6;
/// Buckets per level: the values of one digit.
const RADIX: usize = 1 << DIGIT_BITS;
/// Levels: digits of a 64-bit time.
const LEVELS: usize = 64_usize.div_ceil(DIGIT_BITS as usize);
/// Buckets in all.
const BUCKETS: usize = LEVELS * RADIX;
/// Words of the bitmap of occupied buckets.
const WORDS: usize = BUCKETS.div_ceil(64);

/// The bucket of an event at `time` > `instant`: the highest digit in which they
/// differ (the level) and the event's value of that digit, which is above the
/// instant's. Index order is time order: a level's times are all after those of the
/// levels below it, and within a level they grow with the digit.
#[inline(always)]
fn bucket(time: u64, instant: u64) -> usize {
    // The highest bit in which they differ; the mask (a no-op, since they differ)
    // keeps the index provably in range, so that its uses need no bounds checks.
    let high = 63 - ((time ^ instant).leading_zeros() & 63);
    let level = high / DIGIT_BITS;
    let digit = (time >> (level * DIGIT_BITS)) as usize & (RADIX - 1);
    level as usize * RADIX + digit
}

/// Notes bucket `b` occupied in the bitmap `occupied` (a function of the bitmap alone,
/// so that it can be called while the buckets are borrowed).
#[inline(always)]
fn mark(occupied: &mut [u64; WORDS], b: usize) {
    occupied[b / 64] |= 1 << (b % 64);
}

/// Notes bucket `b` empty in the bitmap `occupied`.
#[inline(always)]
fn unmark(occupied: &mut [u64; WORDS], b: usize) {
    occupied[b / 64] &= !(1 << (b % 64));
}

/// Events ordered by (time, insertion order).
#[derive(Debug)]
pub struct EventQueue {
    /// The time of the event popped last (0 before the first): every event in `current`
    /// is at it, every event in `buckets` after it, every event in `past` before it.
    instant: u64,
    /// Events at `instant`, in insertion order.
    current: VecDeque<Entry>,
    /// `buckets[b]`: the events of bucket `b` ([`bucket`]), in insertion order. Boxed:
    /// inline, the 704 empty `Vec`s (16.5 KiB) made the simulation a 17 KiB value that
    /// building and running it copied through the stack, six copies deep at once (a
    /// run's stack reached 196 KiB, all of it resident to the end).
    buckets: Box<[Vec<Entry>; BUCKETS]>,
    /// Bit `b % 64` of word `b / 64` set iff `buckets[b]` is not empty.
    occupied: [u64; WORDS],
    /// Events scheduled before `instant` (none in the engine; kept for exactness).
    past: BinaryHeap<Past>,
    /// The insertion order of the next event pushed into `past`.
    next_seq: u64,
    popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            instant: 0,
            current: VecDeque::new(),
            // Built on the heap, not as an array on the stack moved into a box.
            buckets: (0..BUCKETS)
                .map(|_| Vec::new())
                .collect::<Box<[_]>>()
                .try_into()
                .expect("BUCKETS entries"),
            occupied: [0; WORDS],
            past: BinaryHeap::new(),
            next_seq: 0,
            popped: 0,
        }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`. Always inlined: left to `#[inline]`, it stayed a
    /// function of its own, a third of whose instructions were the call's register
    /// saves and the event copied through the stack.
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: Event) {
        // The entry is built in each branch, not once before them: the out-of-line
        // branch takes it by reference, and an entry shared with that branch was built
        // on the stack in every push and copied from there.
        if time.0 > self.instant {
            let b = bucket(time.0, self.instant);
            self.buckets[b].push(Entry::new(time.0, event));
            mark(&mut self.occupied, b);
        } else if time.0 == self.instant {
            // The newest event: after everything already at this instant.
            self.current.push_back(Entry::new(time.0, event));
        } else {
            self.push_past(Entry::new(time.0, event));
        }
    }

    /// The lowest occupied bucket, if any.
    #[inline(always)]
    fn lowest(&self) -> Option<usize> {
        let w = self.occupied.iter().position(|&w| w != 0)?;
        Some(w * 64 + self.occupied[w].trailing_zeros() as usize)
    }

    /// Schedules an event before the current instant (the engine never does).
    #[cold]
    #[inline(never)]
    fn push_past(&mut self, entry: Entry) {
        self.past.push(Past {
            seq: self.next_seq,
            entry,
        });
        self.next_seq += 1;
    }

    /// The earliest event, removed. Inlined into the event loop with its common case,
    /// the only event of the lowest occupied bucket (in the 100-flow dumbbell three
    /// pops in four), the rest out of line: emptying a bucket of several events
    /// ([`Self::advance`], handed the bucket found here rather than scanning the
    /// bitmap again) and the events before or at the current instant
    /// ([`Self::pop_slow`]).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = if self.past.is_empty() && self.current.is_empty() {
            let b = self.lowest()?;
            match self.lone(b) {
                Some(e) => e,
                None => self.advance(b)?,
            }
        } else {
            self.pop_slow()?
        };
        self.popped += 1;
        Some((Time(e.time), e.event()))
    }

    /// Bucket `b`'s event if it is alone there, removed; the instant moves to its
    /// time. Call only with `b` the lowest occupied bucket and no event before or at
    /// the current instant (then it is the earliest pending event).
    #[inline(always)]
    fn lone(&mut self, b: usize) -> Option<Entry> {
        let lowest = self.buckets.get_mut(b)?;
        if lowest.len() != 1 {
            return None;
        }
        let e = lowest.pop()?;
        unmark(&mut self.occupied, b);
        self.instant = e.time;
        Some(e)
    }

    /// [`Self::pop`]'s case of an event before the current instant or the next at it.
    #[inline(never)]
    fn pop_slow(&mut self) -> Option<Entry> {
        match self.past.pop() {
            Some(p) => Some(p.entry),
            None => self.current.pop_front(),
        }
    }

    /// Empties bucket `b`, the lowest occupied one, with no event before or at the
    /// current instant: moves the instant to its earliest time and returns the first
    /// event at it, the others at it going to `current` in insertion order.
    ///
    /// Why no sort is needed: the events at one time are always in one bucket (the
    /// bucket is a function of the time and the instant, and re-bucketing keeps it so)
    /// and in insertion order there. A push appends the newest event; emptying bucket
    /// `b` moves its events in their order into `current` and into buckets below `b`,
    /// which were empty (`b` was the lowest occupied), so each receives them in order.
    /// The other buckets stay right for the new instant: it agrees with the old one in
    /// every digit above `b`'s level and has `b`'s digit there, below theirs.
    #[inline(never)]
    fn advance(&mut self, b: usize) -> Option<Entry> {
        unmark(&mut self.occupied, b);
        let (lower, from_b) = self.buckets.split_at_mut(b);
        let emptied = from_b.first_mut()?;
        if emptied.len() == 1 {
            let e = emptied.pop()?;
            self.instant = e.time;
            return Some(e);
        }
        let earliest = emptied.iter().map(|e| e.time).min()?;
        self.instant = earliest;
        // The first event at `earliest` is returned, not queued in `current` and
        // taken out again; the others at it follow it there in their order.
        let mut first = None;
        // Walked by reference and cleared after (keeping its capacity), not drained:
        // a drain's iterator and its drop cost more than the moves themselves.
        for &e in emptied.iter() {
            if e.time == earliest {
                match first {
                    None => first = Some(e),
                    Some(_) => self.current.push_back(e),
                }
            } else {
                // Below `b`'s level: both times agree from its digit up.
                let below = bucket(e.time, earliest);
                lower[below].push(e);
                mark(&mut self.occupied, below);
            }
        }
        emptied.clear();
        first
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(p) = self.past.peek() {
            return Some(Time(p.entry.time));
        }
        if !self.current.is_empty() {
            return Some(Time(self.instant));
        }
        let earliest = self.buckets[self.lowest()?].iter().map(|e| e.time).min()?;
        Some(Time(earliest))
    }

    /// Events pending, counted over the buckets: no count is kept, since the engine
    /// never asks (only tests do), and keeping one was an increment at every push
    /// and a decrement at every pop, two read-modify-writes per event.
    pub fn len(&self) -> usize {
        let bucketed: usize = self.buckets.iter().map(Vec::len).sum();
        self.past.len() + self.current.len() + bucketed
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events popped so far (stale ones included).
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

/// One cancellable timer: keeps at most one live event in the queue for its owner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerSlot {
    pending: Option<Time>,
    gen: u32,
}

impl TimerSlot {
    /// Makes sure the owner is woken at `deadline` (or not at all for `None`). Calls
    /// `schedule(time, gen)` when a new event must be queued.
    pub fn want(&mut self, deadline: Option<Time>, mut schedule: impl FnMut(Time, u32)) {
        match (deadline, self.pending) {
            (Some(d), Some(p)) if p <= d => {} // the pending event fires first and re-arms
            (Some(d), _) => {
                self.gen = self.gen.wrapping_add(1);
                self.pending = Some(d);
                schedule(d, self.gen);
            }
            (None, _) => {} // a pending event will find no deadline and do nothing
        }
    }

    /// An event of this slot surfaced. Returns true if it is the live one (the owner
    /// should then check its deadline and call [`Self::want`] again).
    pub fn fire(&mut self, gen: u32) -> bool {
        if gen != self.gen || self.pending.is_none() {
            return false;
        }
        self.pending = None;
        true
    }

    /// Is an event of this slot that surfaced the live one? [`Self::fire`] without
    /// forgetting the deadline: for an owner that calls [`Self::rearm`] right after
    /// handling the event, which sets the deadline anew (a link's wake-up, one per
    /// packet-hop: the slot is written once instead of twice).
    #[inline(always)]
    pub fn is_live(&self, gen: u32) -> bool {
        gen == self.gen && self.pending.is_some()
    }

    /// After the live event was handled ([`Self::is_live`]): the owner is woken next
    /// at `deadline` (or not at all for `None`); what [`Self::fire`] and
    /// [`Self::want`] do together, since after `fire` no event is pending and `want`
    /// queues one for any deadline.
    #[inline(always)]
    pub fn rearm(&mut self, deadline: Option<Time>, mut schedule: impl FnMut(Time, u32)) {
        self.pending = deadline;
        if let Some(d) = deadline {
            self.gen = self.gen.wrapping_add(1);
            schedule(d, self.gen);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ev(flow: u32) -> Event {
        Event::FlowStart { flow }
    }

    #[test]
    fn an_entry_gives_back_the_event_it_packs() {
        let timers = [FlowTimer::Sender, FlowTimer::Receiver, FlowTimer::CbrSend];
        for (a, b) in [(0, 0), (1, 2), (u32::MAX, u32::MAX), (7, u32::MAX - 1)] {
            let mut events = vec![
                Event::FlowStart { flow: a },
                Event::LinkWake {
                    link: a,
                    dir: 0,
                    gen: b,
                },
                Event::LinkWake {
                    link: a,
                    dir: 1,
                    gen: b,
                },
                Event::LinkControl { link: a, sched: b },
                Event::MiddleboxWake { mb: a, gen: b },
            ];
            events.extend(timers.map(|timer| Event::Timer {
                flow: a,
                timer,
                gen: b,
            }));
            for e in events {
                assert_eq!(Entry::new(u64::MAX, e).event(), e);
            }
        }
    }

    #[test]
    fn pops_in_time_order_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(Time(20), ev(0));
        q.push(Time(10), ev(1));
        q.push(Time(20), ev(2));
        q.push(Time(10), ev(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(10), ev(1)),
                (Time(10), ev(3)),
                (Time(20), ev(0)),
                (Time(20), ev(2))
            ]
        );
    }

    #[test]
    fn the_latest_times_and_long_runs_keep_the_order() {
        let mut q = EventQueue::new();
        q.next_seq = u64::MAX - 3;
        q.push(Time(u64::MAX), ev(0));
        q.push(Time(u64::MAX - 1), ev(1));
        q.push(Time(u64::MAX), ev(2));
        assert_eq!(q.peek_time(), Some(Time(u64::MAX - 1)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(u64::MAX - 1), ev(1)),
                (Time(u64::MAX), ev(0)),
                (Time(u64::MAX), ev(2))
            ]
        );
    }

    #[test]
    fn pops_exactly_as_a_sorted_reference_under_random_pushes_and_pops() {
        // Keys are distinct, so the pop order is fixed by them alone: any replacement
        // of the heap (a calendar queue, a wider heap) must pass this unchanged. A
        // deterministic LCG drives pushes (many equal times) and pops; the reference
        // is the list of (time, insertion order) pending, kept sorted.
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u32)> = Vec::new();
        let mut x = 12345u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        let mut now = 0u64;
        for n in 0..20_000u32 {
            if next() % 3 == 0 {
                let got = q.pop();
                let want = (!reference.is_empty()).then(|| reference.remove(0));
                assert_eq!(got.map(|(t, e)| (t.0, e)), want.map(|(t, f)| (t, ev(f))));
                if let Some((t, _)) = want {
                    now = t;
                }
            } else {
                let t = now + next() % 50;
                q.push(Time(t), ev(n));
                let at = reference.partition_point(|&(rt, _)| rt <= t);
                reference.insert(at, (t, n));
            }
            assert_eq!(q.len(), reference.len());
            assert_eq!(q.peek_time().map(|t| t.0), reference.first().map(|r| r.0));
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Pop,
        /// A push this far after the current instant.
        Near(u64),
        /// A push at the current instant.
        Same,
        /// A push anywhere up to the end of time.
        Far(u64),
        /// A push this far before the current instant.
        Past(u64),
        /// The timer slot's deadline set this far ahead (a re-arm).
        Rearm(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            5 => Just(Op::Pop),
            // Few distinct delays, so that many pending events share a time.
            3 => (1u64..40).prop_map(|d| Op::Near(d * d * 1000)),
            1 => (1u64..100_000).prop_map(Op::Near),
            2 => Just(Op::Same),
            1 => any::<u64>().prop_map(Op::Far),
            1 => Just(Op::Far(u64::MAX)),
            1 => (1u64..1_000).prop_map(Op::Past),
            2 => (0u64..40).prop_map(|d| Op::Rearm(d * 10_000)),
        ]
    }

    /// Pops the reference's earliest (time, insertion order) entry.
    fn pop_reference(reference: &mut Vec<(u64, u64, Event)>) -> Option<(u64, Event)> {
        let i = (0..reference.len()).min_by_key(|&i| (reference[i].0, reference[i].1))?;
        let (t, _, e) = reference.remove(i);
        Some((t, e))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn pops_exactly_as_a_sorted_reference_under_random_interleavings(
            ops in proptest::collection::vec(op(), 1..400)
        ) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64, Event)> = Vec::new();
            let mut slot = TimerSlot::default();
            let mut now = 0u64;
            let mut seq = 0u64;
            let mut push = |q: &mut EventQueue, r: &mut Vec<(u64, u64, Event)>, t: u64, e| {
                q.push(Time(t), e);
                r.push((t, seq, e));
                seq += 1;
            };
            for (n, op) in ops.iter().chain(std::iter::repeat_n(&Op::Pop, 400)).enumerate() {
                let n = n as u32;
                match *op {
                    Op::Pop => {
                        let got = q.pop().map(|(t, e)| (t.0, e));
                        prop_assert_eq!(got, pop_reference(&mut reference));
                        let Some((t, e)) = got else { continue };
                        now = t;
                        if let Event::Timer { gen, .. } = e {
                            let (pending, current) = (slot.pending, slot.gen);
                            let live = slot.fire(gen);
                            prop_assert_eq!(live, gen == current && pending.is_some());
                            if live {
                                prop_assert_eq!(pending, Some(Time(t)));
                            }
                        }
                    }
                    Op::Near(d) => push(&mut q, &mut reference, now.saturating_add(d), ev(n)),
                    Op::Same => push(&mut q, &mut reference, now, ev(n)),
                    Op::Far(t) => push(&mut q, &mut reference, t.max(now), ev(n)),
                    Op::Past(d) => push(&mut q, &mut reference, now.saturating_sub(d), ev(n)),
                    Op::Rearm(d) => {
                        let mut armed = None;
                        slot.want(Some(Time(now.saturating_add(d))), |t, gen| armed = Some((t, gen)));
                        if let Some((t, gen)) = armed {
                            let timer = Event::Timer { flow: 0, timer: FlowTimer::Sender, gen };
                            push(&mut q, &mut reference, t.0, timer);
                        }
                    }
                }
                prop_assert_eq!(q.len(), reference.len());
                let earliest = reference.iter().map(|r| (r.0, r.1)).min().map(|r| Time(r.0));
                prop_assert_eq!(q.peek_time(), earliest);
            }
        }
    }

    #[test]
    fn moving_a_deadline_later_queues_nothing_new() {
        let mut slot = TimerSlot::default();
        let mut queued = Vec::new();
        slot.want(Some(Time(100)), |t, g| queued.push((t, g)));
        slot.want(Some(Time(200)), |t, g| queued.push((t, g)));
        assert_eq!(queued, vec![(Time(100), 1)]);
    }

    #[test]
    fn moving_a_deadline_earlier_makes_the_old_event_stale() {
        let mut slot = TimerSlot::default();
        let mut queued = Vec::new();
        slot.want(Some(Time(100)), |t, g| queued.push((t, g)));
        slot.want(Some(Time(50)), |t, g| queued.push((t, g)));
        assert_eq!(queued, vec![(Time(100), 1), (Time(50), 2)]);
        assert!(slot.fire(2));
        assert!(
            !slot.fire(1),
            "the re-armed timer's old event must not fire"
        );
    }

    #[test]
    fn a_cancelled_timer_fires_nothing_live_twice() {
        let mut slot = TimerSlot::default();
        slot.want(Some(Time(100)), |_, _| {});
        slot.want(None, |_, _| {});
        assert!(slot.fire(1)); // surfaces once; the owner sees no deadline
        assert!(!slot.fire(1));
    }

    proptest! {
        /// A slot re-armed with `rearm` after `is_live` ends as one where the live
        /// event `fire`d and `want` followed: same state, same events queued.
        #[test]
        fn is_live_and_rearm_do_what_fire_and_want_do(
            steps in prop::collection::vec((0u32..4, prop::option::of(0u64..50)), 0..60),
        ) {
            let (mut a, mut b) = (TimerSlot::default(), TimerSlot::default());
            let (mut qa, mut qb) = (Vec::new(), Vec::new());
            for (gen, deadline) in steps {
                let deadline = deadline.map(Time);
                let live = a.fire(gen);
                prop_assert_eq!(live, b.is_live(gen));
                if live {
                    a.want(deadline, |t, g| qa.push((t, g)));
                    b.rearm(deadline, |t, g| qb.push((t, g)));
                } else {
                    a.want(deadline, |t, g| qa.push((t, g)));
                    b.want(deadline, |t, g| qb.push((t, g)));
                }
                prop_assert_eq!(a, b);
                prop_assert_eq!(&qa, &qb);
            }
        }
    }
}
