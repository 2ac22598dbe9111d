//! The ACK-timing heuristic of Allman and Paxson (SIGCOMM 1999), as [Gurtov & Ludwig 2003]
//! II.C quotes it: "Whenever a TCP retransmits due to a timeout, it measures T, the time
//! from the retransmission until the next ACK arrives. If T is less than the minimum RTT
//! measured so far, then arguably the ACK was already in transit when the
//! retransmission occurred, and the timeout was spurious. If the ACK only comes later
//! than the minimum RTT, then likely the timeout was genuine."

use super::{AckView, SpuriousDetector, Step, TimeoutView, Verdict};
use crate::exports::{Exports, Kernel, Ns2Export};
use spikelab_core::{Dur, Time};

/// State for the current episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckTiming {
    #[default]
    Idle,
    /// Waiting for the next ACK after the (latest) timeout retransmission.
    Armed {
        retransmitted_at: Time,
        min_rtt: Dur,
    },
}

impl SpuriousDetector for AckTiming {
    fn on_timeout(&mut self, t: &TimeoutView) {
        // Without any RTT sample there is nothing to compare T with.
        *self = match t.min_rtt {
            Some(min_rtt) => AckTiming::Armed {
                retransmitted_at: t.now,
                min_rtt,
            },
            None => AckTiming::Idle,
        };
    }

    fn on_ack(&mut self, a: &AckView) -> Step {
        let AckTiming::Armed {
            retransmitted_at,
            min_rtt,
        } = *self
        else {
            return Step::Pending;
        };
        *self = AckTiming::Idle;
        let t = a.now - retransmitted_at;
        Step::Decided(if t < min_rtt {
            Verdict::Spurious
        } else {
            Verdict::Genuine
        })
    }
}

impl Exports for AckTiming {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35 has no ACK-timing heuristic",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("Linux has no ACK-timing heuristic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::SegmentTable;
    use crate::spurious::test_util::{ack, timeout};

    #[test]
    fn an_ack_sooner_than_the_minimum_rtt_is_spurious() {
        let segs = SegmentTable::new();
        let mut d = AckTiming::default();
        d.on_timeout(&timeout(0, 5000, None)); // at 1.0 s, min RTT 100 ms
        let mut a = ack(&segs, 0, 5000, 1000, None);
        a.now = Time(1_050_000_000);
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
    }

    #[test]
    fn an_ack_after_the_minimum_rtt_is_genuine() {
        let segs = SegmentTable::new();
        let mut d = AckTiming::default();
        d.on_timeout(&timeout(0, 5000, None));
        let a = ack(&segs, 0, 5000, 1000, None); // at 1.2 s
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Genuine));
    }

    #[test]
    fn without_an_rtt_sample_it_stays_silent() {
        let segs = SegmentTable::new();
        let mut d = AckTiming::default();
        let mut t = timeout(0, 5000, None);
        t.min_rtt = None;
        d.on_timeout(&t);
        assert_eq!(d.on_ack(&ack(&segs, 0, 5000, 1000, None)), Step::Pending);
    }
}
