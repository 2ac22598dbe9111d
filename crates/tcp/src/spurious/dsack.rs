//! Late spurious-timeout detection from D-SACK reports (RFC 3708).
//!
//! RFC 3708 section 3: "if the TCP sender receives a DSACK for each retransmitted segment
//! in a loss recovery episode, then the sender can conclude that the retransmissions
//! were unnecessary". The episode starts at the timeout and ends when the cumulative ACK
//! covers the recovery point (snd_max at the timeout); reports for the last
//! retransmissions may trail it, so the sender waits one smoothed RTT after the end
//! (section 3 allows waiting "for a short time") before deciding that some
//! retransmission was needed.

use super::{AckView, Requires, SpuriousDetector, Step, TimeoutView, Verdict};
use crate::exports::{Exports, Kernel, KernelRuns, Ns2Export};
use spikelab_core::{Dur, Time};

/// One retransmitted range and whether a D-SACK reported it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Retransmitted {
    start: u64,
    end: u64,
    reported: bool,
}

/// State for the current episode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DsackDetector {
    recover: Option<u64>,
    retransmitted: Vec<Retransmitted>,
    ended_at: Option<Time>,
}

impl DsackDetector {
    fn all_reported(&self) -> bool {
        !self.retransmitted.is_empty() && self.retransmitted.iter().all(|r| r.reported)
    }

    fn note_report(&mut self, (s, e): (u64, u64)) {
        for r in &mut self.retransmitted {
            if s <= r.start && r.end <= e {
                r.reported = true;
            }
        }
    }

    fn decide(&mut self, v: Verdict) -> Step {
        *self = DsackDetector::default();
        Step::Decided(v)
    }
}

impl SpuriousDetector for DsackDetector {
    fn on_timeout(&mut self, t: &TimeoutView) {
        if t.first || self.recover.is_none() {
            *self = DsackDetector {
                recover: Some(t.snd_max),
                ..DsackDetector::default()
            };
        }
        self.on_retransmit(t.snd_una, t.retransmitted_end);
    }

    fn on_retransmit(&mut self, start: u64, end: u64) {
        let in_episode = self.recover.is_some_and(|r| start < r) && self.ended_at.is_none();
        if in_episode && !self.retransmitted.iter().any(|r| r.start == start) {
            self.retransmitted.push(Retransmitted {
                start,
                end,
                reported: false,
            });
        }
    }

    fn on_ack(&mut self, a: &AckView) -> Step {
        let Some(recover) = self.recover else {
            return Step::Pending;
        };
        if let Some(block) = a.dsack {
            self.note_report(block);
        }
        if a.ack >= recover && self.ended_at.is_none() {
            self.ended_at = Some(a.now);
        }
        let Some(end) = self.ended_at else {
            return Step::Pending;
        };
        if self.all_reported() {
            return self.decide(Verdict::Spurious);
        }
        let grace = a.srtt.unwrap_or(Dur::ZERO);
        if a.now >= end + grace && a.now > end {
            return self.decide(Verdict::Genuine);
        }
        Step::Pending
    }

    /// RFC 3708 reads D-SACK blocks, which only a SACK connection receives.
    fn requires(&self) -> Requires {
        Requires::Sack
    }
}

impl Exports for DsackDetector {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35's one-way agents do not detect spurious timeouts from D-SACK",
        }
    }
    /// Linux's D-SACK undo (`tcp_try_undo_dsack()`, net/ipv4/tcp_input.c) runs whenever
    /// D-SACK is on.
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("no switch of its own: the kernel's D-SACK undo runs whenever `tcp_dsack` is on (the flow's `dsack`)")
    }
    /// D-SACK blocks arrive only on a SACK connection.
    fn kernel_runs_when(&self) -> Option<KernelRuns> {
        Some(&[("tcp_dsack", true), ("tcp_sack", true)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::SegmentTable;
    use crate::spurious::test_util::{ack, timeout};

    #[test]
    fn every_retransmission_reported_duplicate_is_spurious() {
        let segs = SegmentTable::new();
        let mut d = DsackDetector::default();
        d.on_timeout(&timeout(0, 3000, None)); // retransmits [0, 1000)
        d.on_retransmit(1000, 2000);
        d.on_retransmit(2000, 3000);
        let mut a = ack(&segs, 0, 3000, 3000, None);
        for block in [(0, 1000), (1000, 2000)] {
            a.dsack = Some(block);
            assert_eq!(d.on_ack(&a), Step::Pending);
        }
        a.dsack = Some((2000, 3000));
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
    }

    #[test]
    fn a_retransmission_never_reported_makes_it_genuine_one_rtt_after_the_episode() {
        let segs = SegmentTable::new();
        let mut d = DsackDetector::default();
        d.on_timeout(&timeout(0, 2000, None));
        d.on_retransmit(1000, 2000);
        let mut a = ack(&segs, 0, 2000, 2000, None);
        a.dsack = Some((1000, 2000));
        assert_eq!(d.on_ack(&a), Step::Pending); // episode ends at 1.2 s
        a.dsack = None;
        a.now = Time(1_250_000_000);
        assert_eq!(d.on_ack(&a), Step::Pending); // within one SRTT (100 ms)
        a.now = Time(1_300_000_000);
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Genuine));
    }
}
