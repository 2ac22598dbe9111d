//! A FIFO of `Copy` items in a ring buffer of a power-of-two capacity, addressed by
//! absolute positions: the item pushed n-th (from 0) is at position n for as long as it
//! is inside, so that a position kept beside the ring (the plain link's first packet
//! still being sent, `link::plain`) stays right while items leave at the front.
//!
//! `std::collections::VecDeque` addresses items from the front, so every access to such
//! a kept position, every push and every pop computed a wrapped physical index with a
//! comparison: the plain link's FIFO spent about 36 instructions per arrival or
//! wake-up in `VecDeque` code (callgrind, 5 s of the 100-flow dumbbell). Here an access
//! is a mask of the position.

/// A FIFO ring (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Ring<T> {
    /// The slots; its length is the capacity, 0 or a power of two. Slots outside
    /// `head..tail` hold stale copies.
    buf: Vec<T>,
    /// The position of the oldest item.
    head: usize,
    /// The position the next item pushed takes.
    tail: usize,
}

impl<T: Copy> Ring<T> {
    /// An empty ring, holding no memory.
    pub(crate) fn new() -> Self {
        Ring {
            buf: Vec::new(),
            head: 0,
            tail: 0,
        }
    }

    /// The position of the oldest item (`tail()` when empty).
    #[inline(always)]
    pub(crate) fn head(&self) -> usize {
        self.head
    }

    /// The position the next item pushed takes.
    #[inline(always)]
    pub(crate) fn tail(&self) -> usize {
        self.tail
    }

    /// Items inside.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.tail - self.head
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.tail == self.head
    }

    /// Slots held.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The item at position `pos`, if it is inside (`pos` at least `head()`).
    #[inline(always)]
    pub(crate) fn get(&self, pos: usize) -> Option<&T> {
        debug_assert!(pos >= self.head, "position {pos} left the ring");
        (pos < self.tail).then(|| &self.buf[pos & (self.buf.len() - 1)])
    }

    /// The oldest item.
    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        self.get(self.head)
    }

    /// The newest item.
    #[inline(always)]
    pub(crate) fn back(&self) -> Option<&T> {
        match self.is_empty() {
            true => None,
            false => self.get(self.tail - 1),
        }
    }

    /// Appends `item` at position `tail()`.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, item: T) {
        if self.len() == self.buf.len() {
            self.grow(item);
        }
        let mask = self.buf.len() - 1;
        self.buf[self.tail & mask] = item;
        self.tail += 1;
    }

    /// Removes the oldest item.
    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        let item = *self.front()?;
        self.head += 1;
        Some(item)
    }

    /// Doubles the capacity (4 at first), each item keeping its position.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let capacity = (self.buf.len() * 2).max(4);
        let mut buf = vec![fill; capacity];
        for pos in self.head..self.tail {
            buf[pos & (capacity - 1)] = self.buf[pos & (self.buf.len() - 1)];
        }
        self.buf = buf;
    }

    /// An empty ring holding more than `keep` slots (a power of two) gives back the
    /// rest: it moves to a new buffer of `keep` slots rather than shrinking its own in
    /// place. With thousands of rings growing and giving back (two access links per
    /// flow, each burst), a buffer shrunk in place left its tail free as a hole of an
    /// odd size beside it, while the `keep`-slot buffers freed by the next growths
    /// waited unused: at 1 000 flows a quarter of the heap was free chunks, 1 189 of
    /// them the size of a 16-slot ring. A new buffer of `keep` slots takes one of those exactly
    /// (docs/src/performance.md, "Issue 44, memory round 5").
    #[inline(always)]
    pub(crate) fn release_idle(&mut self, keep: usize) {
        debug_assert!(keep.is_power_of_two());
        if self.is_empty() && self.buf.len() > keep {
            self.buf = self.buf[..keep].to_vec();
        }
    }

    /// The items inside as at most two contiguous runs of the buffer, the older first
    /// (each run in order): a walk over every item with no mask or check per item.
    pub(crate) fn as_slices(&self) -> (&[T], &[T]) {
        let n = self.len();
        if n == 0 {
            return (&[], &[]);
        }
        let start = self.head & (self.buf.len() - 1);
        let first = n.min(self.buf.len() - start);
        (&self.buf[start..start + first], &self.buf[..n - first])
    }

    /// The items from the oldest to the newest.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (self.head..self.tail).filter_map(|pos| self.get(pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    proptest! {
        /// The ring holds what a `VecDeque` holds under any pushes, pops and releases,
        /// and each item stays at the position it was pushed at.
        #[test]
        fn the_ring_keeps_what_a_vecdeque_keeps_at_fixed_positions(
            ops in prop::collection::vec(0u8..8, 0..500),
        ) {
            let (mut ring, mut model) = (Ring::new(), VecDeque::new());
            let mut pushed = 0usize;
            for op in ops {
                match op {
                    0..=3 => {
                        ring.push_back(pushed);
                        model.push_back(pushed);
                        pushed += 1;
                    }
                    4..=6 => prop_assert_eq!(ring.pop_front(), model.pop_front()),
                    _ => ring.release_idle(4),
                }
                prop_assert_eq!(ring.len(), model.len());
                prop_assert_eq!(ring.tail(), pushed);
                prop_assert_eq!(ring.front(), model.front());
                prop_assert_eq!(ring.back(), model.back());
                prop_assert!(ring.iter().eq(model.iter()));
                let (older, newer) = ring.as_slices();
                prop_assert!(older.iter().chain(newer).eq(model.iter()));
                for pos in ring.head()..ring.tail() {
                    prop_assert_eq!(ring.get(pos), Some(&pos));
                }
                prop_assert_eq!(ring.get(ring.tail()), None);
                prop_assert!(ring.capacity() == 0 || ring.capacity().is_power_of_two());
            }
        }
    }

    #[test]
    fn an_idle_ring_gives_back_its_slots_beyond_the_kept_ones() {
        let mut ring = Ring::new();
        (0..40).for_each(|i| ring.push_back(i));
        assert_eq!(ring.capacity(), 64);
        ring.release_idle(16);
        assert_eq!(ring.capacity(), 64, "not while items are inside");
        while ring.pop_front().is_some() {}
        ring.release_idle(16);
        assert_eq!(ring.capacity(), 16);
        ring.push_back(7);
        assert_eq!(ring.front(), Some(&7));
    }
}
