//! The event queue: a binary heap ordered by (time, insertion order), so that events at
//! the same instant run in the order they were scheduled and a run is a pure function
//! of its scenario and seed (ties are never broken by memory addresses or hashing).
//!
//! Cancellation is by generation: a [`TimerSlot`] owns at most one live event; moving a
//! deadline earlier schedules a new event and bumps the generation, so the old one is
//! recognised as stale and ignored when it surfaces. Moving a deadline later keeps the
//! pending event, which re-arms itself when it fires early. Re-arming an RTO on every ACK
//! therefore costs no heap operation at all in the common case.

use spikelab_core::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Which timer of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowTimer {
    /// The sender's retransmission timer.
    Rto,
    /// The receiver's delayed-ACK timer.
    DelayedAck,
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

/// A queued event. `key` packs (time, insertion order) into one integer, time in the
/// high 64 bits, so that ordering entries is a single 128-bit comparison: the heap's
/// sift loops compare on every level, and one branch-free comparison there is cheaper
/// than comparing two fields in turn. The order is exactly (time, insertion order).
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    fn new(time: Time, seq: u64, event: Event) -> Entry {
        Entry {
            key: (u128::from(time.0) << 64) | u128::from(seq),
            event,
        }
    }
    fn time(&self) -> Time {
        Time((self.key >> 64) as u64)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest first.
        other.key.cmp(&self.key)
    }
}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Events ordered by (time, insertion order).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: Time, event: Event) {
        self.heap.push(Entry::new(time, self.next_seq, event));
        self.next_seq += 1;
    }

    /// The earliest event, removed.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time(), e.event))
    }

    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(Entry::time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(flow: u32) -> Event {
        Event::FlowStart { flow }
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
}
