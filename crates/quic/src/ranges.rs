//! A set of `u64` held as disjoint, non-adjacent inclusive ranges in ascending order:
//! the packet numbers an ACK frame reports (RFC 9000 19.3), the stream bytes a
//! receiver holds or a sender must send again.

/// Disjoint inclusive ranges `[lo, hi]`, ascending, never touching.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<(u64, u64)>,
}

impl RangeSet {
    pub fn new() -> RangeSet {
        RangeSet::default()
    }

    /// Adds `[lo, hi]`, merging what it touches.
    pub fn insert(&mut self, lo: u64, hi: u64) {
        debug_assert!(lo <= hi);
        // First range that ends at or after lo - 1 (could touch or overlap).
        let start = self.ranges.partition_point(|r| r.1.saturating_add(1) < lo);
        let mut end = start;
        let (mut nlo, mut nhi) = (lo, hi);
        while end < self.ranges.len() && self.ranges[end].0 <= hi.saturating_add(1) {
            nlo = nlo.min(self.ranges[end].0);
            nhi = nhi.max(self.ranges[end].1);
            end += 1;
        }
        self.ranges.splice(start..end, [(nlo, nhi)]);
    }

    /// Removes `[lo, hi]`.
    pub fn remove(&mut self, lo: u64, hi: u64) {
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        for &(a, b) in &self.ranges {
            if b < lo || a > hi {
                out.push((a, b));
                continue;
            }
            if a < lo {
                out.push((a, lo - 1));
            }
            if b > hi {
                out.push((hi + 1, b));
            }
        }
        self.ranges = out;
    }

    pub fn contains(&self, v: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 < v);
        self.ranges.get(i).is_some_and(|r| r.0 <= v)
    }

    /// Whether every value of `[lo, hi]` is in the set.
    pub fn covers(&self, lo: u64, hi: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 < lo);
        self.ranges.get(i).is_some_and(|r| r.0 <= lo && hi <= r.1)
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The number of ranges.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn max(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1)
    }

    pub fn min(&self) -> Option<u64> {
        self.ranges.first().map(|r| r.0)
    }

    /// The ranges, ascending.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }

    /// Drops the lowest range.
    pub fn pop_lowest(&mut self) {
        if !self.ranges.is_empty() {
            self.ranges.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn adjacent_and_overlapping_ranges_merge() {
        let mut s = RangeSet::new();
        s.insert(5, 7);
        s.insert(10, 12);
        s.insert(8, 9);
        assert_eq!(s.iter().collect::<Vec<_>>(), [(5, 12)]);
        s.insert(20, 20);
        s.remove(6, 10);
        assert_eq!(s.iter().collect::<Vec<_>>(), [(5, 5), (11, 12), (20, 20)]);
        assert!(s.covers(11, 12) && !s.covers(11, 13) && !s.contains(6));
    }

    proptest! {
        #[test]
        fn the_set_holds_exactly_what_was_inserted_and_not_removed(
            ops in proptest::collection::vec((any::<bool>(), 0u64..60, 0u64..6), 1..40)
        ) {
            let mut s = RangeSet::new();
            let mut model = [false; 70];
            for (add, lo, w) in ops {
                if add { s.insert(lo, lo + w) } else { s.remove(lo, lo + w) }
                for v in lo..=lo + w { model[v as usize] = add; }
            }
            for (v, &m) in model.iter().enumerate() {
                prop_assert_eq!(s.contains(v as u64), m);
            }
            let r: Vec<_> = s.iter().collect();
            for w in r.windows(2) {
                prop_assert!(w[0].1 + 1 < w[1].0, "ranges touch: {:?}", r);
            }
        }
    }
}
