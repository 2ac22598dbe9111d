//! The Eifel detection algorithm (RFC 3522; [Gurtov & Ludwig 2003] II.B; [Gurtov & Ludwig 2002] 3).
//!
//! "The sender always stores the timestamp of the *first* retransmission triggered by an
//! expiration of the retransmission timer. Then, when the first ACK that acknowledges
//! the retransmission arrives, the sender compares the timestamp of that ACK with the
//! stored value. If it is smaller than the stored value, this indicates that the
//! retransmission was spurious." ([Gurtov & Ludwig 2003] II.B)
//!
//! Timeouts caused only by lost ACKs: with RFC 7323's echo rule a duplicate segment
//! below RCV.NXT is not acceptable, so the receiver echoes the original's timestamp and
//! Eifel calls the timeout spurious, as the paper says; with ns-2's pre-2003 rule it
//! echoes the retransmission's and Eifel calls it genuine.

use super::{AckView, Requires, SpuriousDetector, Step, TimeoutView, Verdict};
use crate::exports::{Exports, Kernel, KernelRuns, Ns2Export};

/// Eifel's state for the current episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Eifel {
    /// No episode, or timestamps off (Eifel cannot decide without them).
    #[default]
    Idle,
    /// RFC 3522 section 3.2 step (1): RetransmitTS stored; waiting for the first ACK
    /// that acknowledges the retransmission of the segment starting at `una`.
    Armed { retransmit_ts: u64, una: u64 },
}

impl SpuriousDetector for Eifel {
    fn on_timeout(&mut self, t: &TimeoutView) {
        // Only the first retransmission's timestamp counts: a backed-off repeat keeps it.
        if t.first || *self == Eifel::Idle {
            *self = match t.retransmit_tsval {
                Some(ts) => Eifel::Armed {
                    retransmit_ts: ts,
                    una: t.snd_una,
                },
                None => Eifel::Idle,
            };
        }
    }

    fn on_ack(&mut self, a: &AckView) -> Step {
        let Eifel::Armed { retransmit_ts, una } = *self else {
            return Step::Pending;
        };
        // RFC 3522 (3): only an ACK acknowledging the retransmitted segment decides.
        if a.ack <= una {
            return Step::Pending;
        }
        *self = Eifel::Idle;
        match a.tsecr {
            // (4): an echoed timestamp older than the retransmission's => spurious.
            Some(ecr) if ecr < retransmit_ts => Step::Decided(Verdict::Spurious),
            _ => Step::Decided(Verdict::Genuine),
        }
    }

    /// RFC 3522 section 2: the timestamps option is what tells the two ACKs apart.
    fn requires(&self) -> Requires {
        Requires::Timestamps
    }
}

impl Exports for Eifel {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35's one-way agents have no Eifel detection (the papers' Eifel was their own patch)",
        }
    }
    /// Linux undoes a timeout from timestamps (`tcp_packet_delayed()` in
    /// `tcp_try_undo_loss()`, net/ipv4/tcp_input.c) whenever they are on.
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("no switch of its own: the kernel's timestamp undo runs whenever `tcp_timestamps` is on")
    }
    fn kernel_runs_when(&self) -> Option<KernelRuns> {
        Some(&[("tcp_timestamps", true)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::SegmentTable;
    use crate::spurious::test_util::{ack, timeout};

    #[test]
    fn an_ack_echoing_the_original_timestamp_is_spurious() {
        // [Gurtov & Ludwig 2002] Fig. 3: retransmission at 6 s, the ACK echoes 3 s.
        let segs = SegmentTable::new();
        let mut e = Eifel::default();
        e.on_timeout(&timeout(0, 10_000, Some(6000)));
        assert_eq!(
            e.on_ack(&ack(&segs, 0, 10_000, 1000, Some(3000))),
            Step::Decided(Verdict::Spurious)
        );
    }

    #[test]
    fn an_ack_echoing_the_retransmission_is_genuine() {
        let segs = SegmentTable::new();
        let mut e = Eifel::default();
        e.on_timeout(&timeout(0, 10_000, Some(6000)));
        assert_eq!(
            e.on_ack(&ack(&segs, 0, 10_000, 1000, Some(6000))),
            Step::Decided(Verdict::Genuine)
        );
    }

    #[test]
    fn duplicate_acks_do_not_decide() {
        let segs = SegmentTable::new();
        let mut e = Eifel::default();
        e.on_timeout(&timeout(0, 10_000, Some(6000)));
        assert_eq!(
            e.on_ack(&ack(&segs, 0, 10_000, 0, Some(3000))),
            Step::Pending
        );
    }

    #[test]
    fn a_repeated_timeout_keeps_the_first_retransmissions_timestamp() {
        let segs = SegmentTable::new();
        let mut e = Eifel::default();
        e.on_timeout(&timeout(0, 10_000, Some(6000)));
        let mut again = timeout(0, 10_000, Some(12_000));
        again.first = false;
        e.on_timeout(&again);
        // Echo of the first retransmission (6000) is not older than the stored 6000.
        assert_eq!(
            e.on_ack(&ack(&segs, 0, 10_000, 1000, Some(6000))),
            Step::Decided(Verdict::Genuine)
        );
    }

    #[test]
    fn without_timestamps_eifel_stays_silent() {
        let segs = SegmentTable::new();
        let mut e = Eifel::default();
        e.on_timeout(&timeout(0, 10_000, None));
        assert_eq!(e.on_ack(&ack(&segs, 0, 10_000, 1000, None)), Step::Pending);
    }
}
