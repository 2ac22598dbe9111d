//! Ground truth from the forwarder, which sees every packet: which bytes reached the
//! receiver, and what each retransmission was.
//!
//! A retransmission is *unnecessary* when every byte of it was already delivered or is
//! covered by an earlier copy still queued, in transmission, propagating or held by a
//! middlebox (issue text: "an earlier copy of the same bytes was delivered or is still
//! queued or held in a spike"). Its first byte is also classified the way the engine
//! classifies the segment at `snd_una` when a simulated timer fires
//! (`spikelab_engine::facts::classify`): an earlier copy alive -> data delayed; already
//! delivered and an ACK covering it alive or still owed by the receiver -> ACK delayed;
//! delivered but no such ACK -> ACK lost; otherwise data lost. The kernel's timeouts
//! take the class of the retransmission they sent (the `report` module).
//!
//! "Owed by the receiver" is the engine's `ack_pending()` (a delayed ACK held by the
//! receiver's timer), seen from outside: the receiver kernel has every byte from the
//! highest ACK it has sent up to and including the first byte of the retransmission,
//! so an ACK covering it is due from its delayed-ACK timer (RFC 1122 4.2.3.2,
//! `tcp_send_delayed_ack()`). An ACK it sent that was then dropped on a link does not
//! count: the highest ACK sent already covers the byte.

use spikelab_engine::Truth;
use std::collections::BTreeMap;

/// A set of byte ranges `[start, end)`, merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    /// start -> end, disjoint and not touching.
    ranges: BTreeMap<u64, u64>,
}

impl RangeSet {
    /// Adds `[start, end)`.
    pub fn insert(&mut self, mut start: u64, mut end: u64) {
        if start >= end {
            return;
        }
        // Absorb every range that overlaps or touches [start, end).
        let touching: Vec<(u64, u64)> = self
            .ranges
            .range(..=end)
            .rev()
            .take_while(|&(_, &e)| e >= start)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in touching {
            self.ranges.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        self.ranges.insert(start, end);
    }

    /// Is every byte of `[start, end)` in the set?
    pub fn covers(&self, start: u64, end: u64) -> bool {
        start >= end
            || self
                .ranges
                .range(..=start)
                .next_back()
                .is_some_and(|(_, &e)| e >= end)
    }
}

/// What the forwarder concluded about one retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetxTruth {
    pub unnecessary: bool,
    pub class: Truth,
}

/// Does the receiver owe an ACK covering byte `seq`: has it been handed every byte
/// from `receiver_acked` (the highest ACK it sent) through `seq`?
pub fn ack_owed(seq: u64, receiver_acked: u64, delivered: &RangeSet) -> bool {
    receiver_acked <= seq && delivered.covers(receiver_acked, seq + 1)
}

/// Classifies a retransmission of `[seq, end)`: `delivered` holds what reached the
/// receiver, `alive` the earlier copies still inside the network, and `ack_alive` says
/// whether an ACK above `seq` is still on its way back or owed by the receiver.
pub fn classify(
    seq: u64,
    end: u64,
    delivered: &RangeSet,
    alive: &RangeSet,
    ack_alive: bool,
) -> RetxTruth {
    let mut both = alive.clone();
    for (&s, &e) in &delivered.ranges {
        both.insert(s, e);
    }
    let first = (seq, seq + 1);
    let class = if alive.covers(first.0, first.1) {
        Truth::SpuriousDataDelayed
    } else if delivered.covers(first.0, first.1) {
        if ack_alive {
            Truth::SpuriousAckDelayed
        } else {
            Truth::GenuineAckLost
        }
    } else {
        Truth::GenuineDataLost
    };
    RetxTruth {
        unnecessary: both.covers(seq, end),
        class,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(rs: &[(u64, u64)]) -> RangeSet {
        let mut s = RangeSet::default();
        for &(a, b) in rs {
            s.insert(a, b);
        }
        s
    }

    #[test]
    fn ranges_merge_when_they_touch_or_overlap() {
        let s = set(&[(0, 10), (20, 30), (10, 20), (25, 40)]);
        assert_eq!(s.ranges.len(), 1);
        assert!(s.covers(0, 40));
        assert!(!s.covers(0, 41));
    }

    #[test]
    fn a_gap_is_not_covered() {
        let s = set(&[(0, 10), (12, 20)]);
        assert!(!s.covers(5, 15));
        assert!(s.covers(12, 20));
    }

    #[test]
    fn a_copy_still_in_the_network_makes_the_retransmission_unnecessary_and_data_delayed() {
        let t = classify(1000, 2000, &set(&[(0, 1000)]), &set(&[(1000, 2000)]), false);
        assert!(t.unnecessary);
        assert_eq!(t.class, Truth::SpuriousDataDelayed);
    }

    #[test]
    fn delivered_bytes_with_an_ack_alive_are_ack_delayed() {
        let t = classify(0, 1000, &set(&[(0, 1000)]), &RangeSet::default(), true);
        assert!(t.unnecessary);
        assert_eq!(t.class, Truth::SpuriousAckDelayed);
        let lost = classify(0, 1000, &set(&[(0, 1000)]), &RangeSet::default(), false);
        assert_eq!(lost.class, Truth::GenuineAckLost);
    }

    #[test]
    fn a_receiver_that_has_the_bytes_beyond_its_last_ack_owes_one() {
        let delivered = set(&[(0, 3000)]);
        // Last ACK 1000: bytes 1000..3000 arrived since, an ACK covering 1000 is due.
        assert!(ack_owed(1000, 1000, &delivered));
        assert!(ack_owed(2000, 1000, &delivered));
        // Its ACK of 3000 went out (and was lost on the way): nothing is owed.
        assert!(!ack_owed(1000, 3000, &delivered));
        // A hole below the byte: the receiver's ACK stops at the hole.
        assert!(!ack_owed(2000, 1000, &set(&[(0, 1000), (1500, 3000)])));
        let owed = ack_owed(1000, 1000, &delivered);
        let t = classify(1000, 2000, &delivered, &RangeSet::default(), owed);
        assert_eq!(t.class, Truth::SpuriousAckDelayed);
    }

    #[test]
    fn bytes_nowhere_are_a_genuine_loss() {
        let t = classify(0, 1000, &RangeSet::default(), &set(&[(1000, 2000)]), true);
        assert!(!t.unnecessary);
        assert_eq!(t.class, Truth::GenuineDataLost);
    }
}
