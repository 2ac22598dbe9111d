//! Time-series recording for `--trace`: every data segment sent and delivered, every
//! ACK, drop, timeout and spike, and the sender's state whenever it changes; or only
//! the kinds of record a run asks for ([`TraceKinds`]).

use crate::transport::SenderState;
use spikelab_core::trace::{TraceEvent, TraceKinds, TraceRecord};
use spikelab_core::{Dur, FlowId, Time};

/// The kinds of record that follow the sender's state ([`Tracer::on_sender_state`]).
const SENDER_STATE: TraceKinds = TraceKinds::CWND
    .union(TraceKinds::RTO)
    .union(TraceKinds::SRTT)
    .union(TraceKinds::SND_STATE)
    .union(TraceKinds::BBR);

/// The kinds of record an ACK at the sender writes ([`Tracer::on_ack`]).
const AT_ACK: TraceKinds = TraceKinds::ACK_RECV.union(TraceKinds::RTT_SAMPLE);

/// Collects the trace records of the kinds asked for; costs one bit test per call
/// (the event's kind is known where it is recorded, so the test folds to a constant
/// mask) for a kind it does not keep.
#[derive(Debug, Default)]
pub struct Tracer {
    kinds: TraceKinds,
    records: Vec<TraceRecord>,
    /// The last sender state written per flow, so that only changes are recorded.
    last: Vec<SenderState>,
}

impl Tracer {
    pub fn new(kinds: TraceKinds) -> Tracer {
        Tracer {
            kinds,
            ..Tracer::default()
        }
    }

    #[inline(always)]
    pub fn record(&mut self, time: Time, flow: FlowId, event: TraceEvent) {
        if self.kinds.keeps(&event) {
            self.records.push(TraceRecord { time, flow, event });
        }
    }

    /// An ACK (cumulative `ack`, a duplicate or not, with its RTT sample) reached the
    /// sender.
    pub fn on_ack(
        &mut self,
        now: Time,
        flow: FlowId,
        ack: u64,
        dup: bool,
        rtt_sample: Option<Dur>,
    ) {
        if !self.kinds.intersects(AT_ACK) {
            return;
        }
        self.record(now, flow, TraceEvent::AckRecv { ack, dup });
        if let Some(rtt) = rtt_sample {
            self.record(now, flow, TraceEvent::RttSample { rtt });
        }
    }

    /// Records whatever of the sender's state (read by `state`) changed since the last
    /// call. Called after every flow event: the test of `enabled` is inlined at the
    /// call, the reading and comparison out of line.
    #[inline]
    pub fn on_sender_state(&mut self, now: Time, flow: FlowId, state: impl Fn() -> SenderState) {
        if self.kinds.intersects(SENDER_STATE) {
            self.record_sender_changes(now, flow, state());
        }
    }

    #[inline(never)]
    fn record_sender_changes(&mut self, now: Time, flow: FlowId, cur: SenderState) {
        let i = flow.index();
        if self.last.len() <= i {
            self.last.resize(i + 1, SenderState::default());
        }
        let last = &mut self.last[i];
        if *last == cur {
            // Nothing changed (an event at the receiver, a timer that did nothing).
            return;
        }
        let prev = std::mem::replace(last, cur);
        let kinds = self.kinds;
        let mut push = |e| {
            if kinds.keeps(&e) {
                self.records.push(TraceRecord {
                    time: now,
                    flow,
                    event: e,
                })
            }
        };
        if (prev.cwnd, prev.ssthresh) != (cur.cwnd, cur.ssthresh) {
            push(TraceEvent::Cwnd {
                cwnd: cur.cwnd,
                ssthresh: cur.ssthresh,
            });
        }
        if (prev.rto, prev.backoff) != (cur.rto, cur.backoff) {
            push(TraceEvent::Rto {
                rto: cur.rto,
                backoff: cur.backoff,
            });
        }
        if let Some(srtt) = cur.srtt.filter(|_| prev.srtt != cur.srtt) {
            push(TraceEvent::Srtt { srtt });
        }
        let snd = |s: &SenderState| (s.snd_una, s.snd_nxt, s.snd_max);
        if snd(&prev) != snd(&cur) {
            push(TraceEvent::SndState {
                snd_una: cur.snd_una,
                snd_nxt: cur.snd_nxt,
                snd_max: cur.snd_max,
            });
        }
        if let Some((bw, min_rtt, pacing_rate)) = cur.bbr.filter(|_| prev.bbr != cur.bbr) {
            push(TraceEvent::Bbr {
                bw,
                min_rtt,
                pacing_rate,
            });
        }
    }

    pub fn into_records(self) -> Vec<TraceRecord> {
        self.records
    }
}
