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
}

#[cfg(test)]
mod tests {
    use super::*;

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
