//! The receiver's acknowledgements (RFC 9000 13.2): which packet numbers it has
//! received, when an ACK frame is due, and the frame itself (19.3) with its ranges and
//! ack_delay.
//!
//! An ACK is sent at once when an ack-eliciting packet arrives out of order (a packet
//! number below the largest received, or above it with a gap, 13.2.1) or when
//! `ack_eliciting_threshold` ack-eliciting packets wait unacknowledged (13.2.2, "SHOULD
//! send an ACK frame after receiving at least two ack-eliciting packets"); otherwise
//! within max_ack_delay (13.2.1). The ranges are kept as ranges, at most
//! [`MAX_ACK_RANGES`] of them (quinn-proto/src/connection/spaces.rs, `MAX_ACK_BLOCKS`,
//! drops the oldest past 64); ack_delay is the time since the largest packet arrived
//! (13.2.5). The receiver sends nothing ack-eliciting, so its ACKs are never
//! acknowledged and the ranges are not pruned by 13.2.4.

use crate::ranges::RangeSet;
use crate::wire::varint_len;
use spikelab_core::{Dur, Time};

/// quinn's `MAX_ACK_BLOCKS`: the most ranges kept and reported.
pub const MAX_ACK_RANGES: usize = 64;

/// An ACK frame: its ranges of acknowledged packet numbers and ack_delay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckFrame {
    pub ranges: RangeSet,
    pub ack_delay: Dur,
}

impl AckFrame {
    /// Largest Acknowledged.
    pub fn largest(&self) -> u64 {
        self.ranges
            .max()
            .expect("an ACK frame acknowledges a packet")
    }

    /// The frame's bytes (RFC 9000 19.3): type, Largest Acknowledged, ACK Delay (in
    /// units of 8 us, ack_delay_exponent 3), ACK Range Count, First ACK Range, then a
    /// Gap and an ACK Range Length per further range.
    pub fn bytes(&self) -> u32 {
        let mut desc = self.ranges.iter().rev();
        let (lo, hi) = desc.next().expect("an ACK frame acknowledges a packet");
        let delay = self.ack_delay.0 / 8_000;
        let mut n =
            1 + varint_len(hi) + varint_len(delay) + varint_len(self.ranges.len() as u64 - 1);
        n += varint_len(hi - lo);
        let mut prev_lo = lo;
        for (a, b) in desc {
            n += varint_len(prev_lo - b - 2) + varint_len(b - a);
            prev_lo = a;
        }
        n
    }
}

/// What the receiver does after a packet arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckDue {
    /// Send an ACK frame now.
    Now,
    /// Send one by this time unless something sends it earlier.
    By(Time),
    /// Nothing to acknowledge (no ack-eliciting packet waits).
    Nothing,
}

/// The receiver's record of received packet numbers and its ACK timer.
#[derive(Clone, Debug, Default)]
pub struct AckState {
    received: RangeSet,
    /// When the largest packet number received arrived (for ack_delay).
    largest_at: Time,
    /// Ack-eliciting packets received since the last ACK frame was sent.
    eliciting_since_ack: u32,
    deadline: Option<Time>,
}

impl AckState {
    pub fn new() -> AckState {
        AckState::default()
    }

    /// A packet numbered `pn` arrived at `now`: records it and says when to ACK.
    pub fn on_packet(
        &mut self,
        now: Time,
        pn: u64,
        ack_eliciting: bool,
        threshold: u32,
        max_ack_delay: Dur,
    ) -> AckDue {
        let largest = self.received.max();
        let out_of_order = match largest {
            Some(l) => pn < l || pn > l + 1,
            None => pn > 0,
        };
        if largest.is_none_or(|l| pn > l) {
            self.largest_at = now;
        }
        self.received.insert(pn, pn);
        if self.received.len() > MAX_ACK_RANGES {
            self.received.pop_lowest();
        }
        if !ack_eliciting {
            return self.deadline.map_or(AckDue::Nothing, AckDue::By);
        }
        self.eliciting_since_ack += 1;
        if out_of_order || self.eliciting_since_ack >= threshold {
            return AckDue::Now;
        }
        let d = *self.deadline.get_or_insert(now + max_ack_delay);
        AckDue::By(d)
    }

    /// Whether packet `pn` has been received (as far as the ranges remember).
    pub fn received(&self, pn: u64) -> bool {
        self.received.contains(pn)
    }

    /// The ACK timer's deadline.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    /// An ACK is owed: ack-eliciting packets wait unacknowledged.
    pub fn pending(&self) -> bool {
        self.eliciting_since_ack > 0
    }

    /// The frame to send at `now`; the timer stops and the count restarts.
    pub fn frame(&mut self, now: Time) -> AckFrame {
        self.eliciting_since_ack = 0;
        self.deadline = None;
        AckFrame {
            ranges: self.received.clone(),
            ack_delay: now.saturating_since(self.largest_at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAD: Dur = Dur::from_millis(25);

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn every_second_ack_eliciting_packet_is_acknowledged_at_once() {
        let mut a = AckState::new();
        assert_eq!(a.on_packet(t(0), 0, true, 2, MAD), AckDue::By(t(25)));
        assert_eq!(a.on_packet(t(5), 1, true, 2, MAD), AckDue::Now);
        let f = a.frame(t(5));
        assert_eq!((f.largest(), f.ack_delay), (1, Dur::ZERO));
        assert_eq!(a.deadline(), None);
    }

    #[test]
    fn a_lone_packet_is_acknowledged_within_max_ack_delay_with_its_delay() {
        let mut a = AckState::new();
        assert_eq!(a.on_packet(t(0), 0, true, 2, MAD), AckDue::By(t(25)));
        let f = a.frame(t(25));
        assert_eq!(f.ack_delay, Dur::from_millis(25));
    }

    #[test]
    fn a_gap_or_a_packet_below_the_largest_is_acknowledged_at_once() {
        let mut a = AckState::new();
        a.on_packet(t(0), 0, true, 2, MAD);
        a.frame(t(0));
        assert_eq!(a.on_packet(t(1), 2, true, 2, MAD), AckDue::Now, "gap");
        a.frame(t(1));
        assert_eq!(
            a.on_packet(t(2), 1, true, 2, MAD),
            AckDue::Now,
            "below largest"
        );
        let f = a.frame(t(2));
        assert_eq!(f.ranges.iter().collect::<Vec<_>>(), [(0, 2)]);
        assert_eq!(
            f.ack_delay,
            Dur::from_millis(1),
            "since the largest (2) arrived"
        );
    }

    #[test]
    fn the_frame_counts_a_gap_and_a_length_per_extra_range() {
        let mut ranges = RangeSet::new();
        ranges.insert(0, 3);
        let one = AckFrame {
            ranges: ranges.clone(),
            ack_delay: Dur::ZERO,
        };
        assert_eq!(one.bytes(), 5);
        ranges.insert(6, 9);
        let two = AckFrame {
            ranges,
            ack_delay: Dur::ZERO,
        };
        assert_eq!(two.bytes(), 7);
    }

    #[test]
    fn at_most_64_ranges_are_kept_the_oldest_dropped() {
        let mut a = AckState::new();
        for pn in 0..70 {
            a.on_packet(t(pn), 2 * pn, true, 2, MAD);
        }
        let f = a.frame(t(70));
        assert_eq!(f.ranges.len(), MAX_ACK_RANGES);
        assert_eq!(f.ranges.min(), Some(12));
    }
}
