//! Time-series recording for `--trace`: every data segment sent and delivered, every
//! ACK, drop, timeout and spike, and the sender's state whenever it changes; or only
//! the kinds of record a run asks for ([`TraceKinds`]).

use spikelab_core::trace::{TraceEvent, TraceKinds, TraceRecord};
use spikelab_core::{Dur, FlowId, Packet, Time};
use spikelab_tcp::rto::{Rto, RtoEstimator};
use spikelab_tcp::{AckInfo, TcpSender};

/// The last state written per flow, so that only changes are recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Last {
    cwnd: u64,
    ssthresh: u64,
    rto: Dur,
    backoff: u32,
    srtt: Option<Dur>,
    snd: (u64, u64, u64),
}

/// The kinds of record that follow the sender's state ([`Tracer::on_sender_state`]).
const SENDER_STATE: TraceKinds = TraceKinds::CWND
    .union(TraceKinds::RTO)
    .union(TraceKinds::SRTT)
    .union(TraceKinds::SND_STATE);

/// The kinds of record an ACK at the sender writes ([`Tracer::on_ack`]).
const AT_ACK: TraceKinds = TraceKinds::ACK_RECV.union(TraceKinds::RTT_SAMPLE);

/// Collects the trace records of the kinds asked for; costs one bit test per call
/// (the event's kind is known where it is recorded, so the test folds to a constant
/// mask) for a kind it does not keep.
#[derive(Debug, Default)]
pub struct Tracer {
    kinds: TraceKinds,
    records: Vec<TraceRecord>,
    last: Vec<Last>,
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

    /// An ACK reached the sender.
    pub fn on_ack(&mut self, now: Time, flow: FlowId, p: &Packet, info: &AckInfo) {
        if !self.kinds.intersects(AT_ACK) {
            return;
        }
        self.record(
            now,
            flow,
            TraceEvent::AckRecv {
                ack: p.ack,
                dup: info.duplicate,
            },
        );
        if let Some(rtt) = info.rtt_sample {
            self.record(now, flow, TraceEvent::RttSample { rtt });
        }
    }

    /// Records whatever of the sender's state changed since the last call. Called after
    /// every flow event: the test of `enabled` is inlined at the call, the comparison
    /// out of line.
    #[inline]
    pub fn on_sender_state(&mut self, now: Time, flow: FlowId, s: &TcpSender<Rto>) {
        if self.kinds.intersects(SENDER_STATE) {
            self.record_sender_changes(now, flow, s);
        }
    }

    fn record_sender_changes(&mut self, now: Time, flow: FlowId, s: &TcpSender<Rto>) {
        let i = flow.index();
        if self.last.len() <= i {
            self.last.resize(i + 1, Last::default());
        }
        let w = s.window();
        let est = s.estimator();
        let cur = Last {
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            rto: s.armed_rto(),
            backoff: est.backoff_count(),
            srtt: est.srtt(),
            snd: (w.snd_una, w.snd_nxt, w.snd_max),
        };
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
        if prev.snd != cur.snd {
            let (snd_una, snd_nxt, snd_max) = cur.snd;
            push(TraceEvent::SndState {
                snd_una,
                snd_nxt,
                snd_max,
            });
        }
    }

    pub fn into_records(self) -> Vec<TraceRecord> {
        self.records
    }
}
