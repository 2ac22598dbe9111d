//! What a traced run records: one [`TraceRecord`] per event of interest, in event order.
//!
//! The engine emits exactly the variants of [`TraceEvent`]; the outputs crate writes
//! them as CSV and draws them. Sequence numbers are the absolute byte offsets of
//! [`crate::packet`] (see the crate docs); all windows are in bytes; durations are
//! [`Dur`]s, so a trace is an exact, integer record of the run.

use crate::ids::FlowId;
use crate::time::{Dur, Time};

/// One traced event: when it happened, which flow it belongs to, and what it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Simulated time of the event.
    pub time: Time,
    /// The flow the event belongs to (for [`TraceEvent::Spike`], a flow on the path).
    pub flow: FlowId,
    /// What happened.
    pub event: TraceEvent,
}

/// The events a traced run records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// A data segment handed to the network by the sender (`retx`: sent before).
    Send { seq: u64, len: u32, retx: bool },
    /// An ACK arriving at the sender (`dup`: a duplicate acknowledgment).
    AckRecv { ack: u64, dup: bool },
    /// A data segment arriving at the receiver.
    Deliver { seq: u64, len: u32 },
    /// A packet dropped on link `link` (`is_ack`: an ACK, else a data segment).
    Drop {
        seq: u64,
        len: u32,
        is_ack: bool,
        link: u32,
    },
    /// Congestion window and slow-start threshold after a change, in bytes.
    Cwnd { cwnd: u64, ssthresh: u64 },
    /// The retransmission timer was armed with `rto` at back-off count `backoff`.
    Rto { rto: Dur, backoff: u32 },
    /// The smoothed RTT after an update.
    Srtt { srtt: Dur },
    /// An RTT sample taken by the sender.
    RttSample { rtt: Dur },
    /// The sender's sequence state after a change.
    SndState {
        snd_una: u64,
        snd_nxt: u64,
        snd_max: u64,
    },
    /// The retransmission timer expired for `seq` (`spurious`: ground truth).
    Timeout { seq: u64, spurious: bool },
    /// A delay spike began (`start`) or ended on link `link`.
    Spike { start: bool, link: u32 },
    /// A model-based controller's estimates after a change (BBR: the bandwidth
    /// estimate and the pacing rate in bytes per second, min_rtt once sampled).
    Bbr {
        bw: u64,
        min_rtt: Option<Dur>,
        pacing_rate: u64,
    },
}

/// Which kinds of [`TraceEvent`] a run records: a set with one bit per variant.
/// `--trace` and plots record [`TraceKinds::ALL`]; a metric that reads a few kinds of
/// record asks for those alone, and a run records nothing with [`TraceKinds::NONE`].
/// The records a run keeps are the same, in the same order, whatever else it keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceKinds(u16);

impl TraceKinds {
    pub const NONE: TraceKinds = TraceKinds(0);
    pub const SEND: TraceKinds = TraceKinds(1 << 0);
    pub const ACK_RECV: TraceKinds = TraceKinds(1 << 1);
    pub const DELIVER: TraceKinds = TraceKinds(1 << 2);
    pub const DROP: TraceKinds = TraceKinds(1 << 3);
    pub const CWND: TraceKinds = TraceKinds(1 << 4);
    pub const RTO: TraceKinds = TraceKinds(1 << 5);
    pub const SRTT: TraceKinds = TraceKinds(1 << 6);
    pub const RTT_SAMPLE: TraceKinds = TraceKinds(1 << 7);
    pub const SND_STATE: TraceKinds = TraceKinds(1 << 8);
    pub const TIMEOUT: TraceKinds = TraceKinds(1 << 9);
    pub const SPIKE: TraceKinds = TraceKinds(1 << 10);
    pub const BBR: TraceKinds = TraceKinds(1 << 11);
    /// Every kind.
    pub const ALL: TraceKinds = TraceKinds((1 << 12) - 1);

    /// The kind of `event`.
    #[inline(always)]
    pub const fn of(event: &TraceEvent) -> TraceKinds {
        match event {
            TraceEvent::Send { .. } => TraceKinds::SEND,
            TraceEvent::AckRecv { .. } => TraceKinds::ACK_RECV,
            TraceEvent::Deliver { .. } => TraceKinds::DELIVER,
            TraceEvent::Drop { .. } => TraceKinds::DROP,
            TraceEvent::Cwnd { .. } => TraceKinds::CWND,
            TraceEvent::Rto { .. } => TraceKinds::RTO,
            TraceEvent::Srtt { .. } => TraceKinds::SRTT,
            TraceEvent::RttSample { .. } => TraceKinds::RTT_SAMPLE,
            TraceEvent::SndState { .. } => TraceKinds::SND_STATE,
            TraceEvent::Timeout { .. } => TraceKinds::TIMEOUT,
            TraceEvent::Spike { .. } => TraceKinds::SPIKE,
            TraceEvent::Bbr { .. } => TraceKinds::BBR,
        }
    }

    /// Both sets together.
    #[inline(always)]
    pub const fn union(self, other: TraceKinds) -> TraceKinds {
        TraceKinds(self.0 | other.0)
    }

    /// Does this set hold any kind of `other`?
    #[inline(always)]
    pub const fn intersects(self, other: TraceKinds) -> bool {
        self.0 & other.0 != 0
    }

    /// Does this set hold the kind of `event`?
    #[inline(always)]
    pub const fn keeps(self, event: &TraceEvent) -> bool {
        self.intersects(TraceKinds::of(event))
    }

    /// Is nothing recorded?
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_its_own_kind_and_all_holds_each() {
        let events = [
            TraceEvent::Send {
                seq: 0,
                len: 1,
                retx: false,
            },
            TraceEvent::AckRecv { ack: 0, dup: false },
            TraceEvent::Deliver { seq: 0, len: 1 },
            TraceEvent::Drop {
                seq: 0,
                len: 1,
                is_ack: false,
                link: 0,
            },
            TraceEvent::Cwnd {
                cwnd: 1,
                ssthresh: 1,
            },
            TraceEvent::Rto {
                rto: Dur(1),
                backoff: 0,
            },
            TraceEvent::Srtt { srtt: Dur(1) },
            TraceEvent::RttSample { rtt: Dur(1) },
            TraceEvent::SndState {
                snd_una: 0,
                snd_nxt: 0,
                snd_max: 0,
            },
            TraceEvent::Timeout {
                seq: 0,
                spurious: false,
            },
            TraceEvent::Spike {
                start: true,
                link: 0,
            },
            TraceEvent::Bbr {
                bw: 1,
                min_rtt: None,
                pacing_rate: 1,
            },
        ];
        let mut seen = TraceKinds::NONE;
        for e in &events {
            let k = TraceKinds::of(e);
            assert!(!seen.intersects(k), "{e:?} shares its kind");
            assert!(TraceKinds::ALL.keeps(e) && !TraceKinds::NONE.keeps(e));
            assert!(k.keeps(e));
            seen = seen.union(k);
        }
        assert_eq!(seen, TraceKinds::ALL);
    }

    #[test]
    fn records_are_copy_and_compare_by_value() {
        let r = TraceRecord {
            time: Time(5),
            flow: FlowId(1),
            event: TraceEvent::Send {
                seq: 0,
                len: 1000,
                retx: false,
            },
        };
        let copy = r;
        assert_eq!(r, copy);
    }
}
