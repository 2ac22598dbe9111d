//! Ground truth, from the world's side: when a sender's timer fires, what the network
//! holds for the data it fired for is observed before the sender acts, the sender's
//! decision is checked against it, and the timeout is recorded in the ledger
//! (`crate::truth::Ledger`) with the verdicts of the boxes' detectors.

use super::flows::FlowState;
use super::{InvariantViolation, Sim};
use crate::facts;
use crate::results::TimeoutRecord;
use crate::transport::{Expiry, TimedOut, TimerDecision, Transport};
use crate::truth::BoxVerdict;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{FlowId, Packet, Time};
use spikelab_net::link::same_instant::Lead;
use spikelab_net::Middlebox;
use spikelab_tcp::spurious::{DetectorKind, Verdict};

/// What the world saw when a sender's timer fired (before the sender acted).
pub(super) enum Seen {
    /// The connection-setup packet was outstanding.
    Setup,
    /// A data segment: the record, with its ground truth, awaiting the sender's number.
    Data(TimeoutRecord),
}

impl Seen {
    fn label(&self) -> &'static str {
        match self {
            Seen::Setup => "a setup timeout",
            Seen::Data(_) => "a data timeout",
        }
    }
}

impl<L: Lead, T: Transport> Sim<L, T> {
    /// The sender's timer of flow `f` fires: ground truth is taken first, from the
    /// network as it is before the sender acts (and retransmits).
    pub(super) fn on_sender_timer(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let expiry = match &self.flows.list[f].state {
            FlowState::Conn(c) => c.transport.expiry(now),
            FlowState::Cbr(_) => None,
        };
        let Some(expiry) = expiry else {
            return Ok(());
        };
        let seen = match expiry {
            Expiry::Setup => Some(Seen::Setup),
            Expiry::Data(d) => Some(Seen::Data(self.observe_timeout(f, d))),
            Expiry::NoTimeout => None,
        };
        let mut out = std::mem::take(&mut self.flows.out);
        let decision = match &mut self.flows.list[f].state {
            FlowState::Conn(c) => c.transport.on_sender_timer(now, &mut out),
            FlowState::Cbr(_) => TimerDecision::NotDue,
        };
        self.flows.out = out;
        self.record_timeout(f, decision, seen)
    }

    /// The record of a data timeout of flow `f` with the network's facts about the data
    /// it fired for (see [`crate::truth`]), seen before the sender acts.
    pub(super) fn observe_timeout(&self, f: usize, d: TimedOut) -> TimeoutRecord {
        let fid = FlowId(f as u32);
        let in_network =
            |pred: &dyn Fn(&Packet) -> bool| self.any_in_network(f, |p| p.flow == fid && pred(p));
        let facts = match &self.flows.list[f].state {
            FlowState::Conn(c) => c.transport.timeout_facts(d.seq, &in_network),
            FlowState::Cbr(_) => unreachable!("a CBR source has no timer that times out"),
        };
        TimeoutRecord {
            time: self.now,
            flow: f as u32,
            seq: d.seq,
            rto: d.rto,
            last_rtt: d.last_rtt,
            backoff: d.backoff,
            truth: facts::classify(facts),
            in_fast_recovery: d.in_recovery,
            fast: false,
            verdicts: Vec::new(),
        }
    }

    /// Records what the sender says its timer expiry was; it must agree with what the
    /// world saw.
    pub(super) fn record_timeout(
        &mut self,
        f: usize,
        decision: TimerDecision,
        seen: Option<Seen>,
    ) -> Result<(), InvariantViolation> {
        let r = &mut self.flows.list[f].result;
        let done = match (decision, seen) {
            (TimerDecision::SetupTimeout, Some(Seen::Setup)) => {
                r.syn_timeouts += 1;
                Ok(())
            }
            (TimerDecision::Timeout { number }, Some(Seen::Data(rec))) => {
                let ev = TraceEvent::Timeout {
                    seq: rec.seq,
                    spurious: rec.truth.is_spurious(),
                };
                self.capture.tracer.record(self.now, FlowId(f as u32), ev);
                self.ledger.on_timeout(number, rec, r)
            }
            (TimerDecision::NoTimeout { .. }, None) => Ok(()),
            (decision, seen) => Err(format!(
                "flow {f}: the sender's timer expiry ({decision:?}) is not what the world saw ({})",
                seen.map_or("no timeout: a probe, reorder or idle timer", |s| s.label())
            )),
        };
        done.map_err(|what| InvariantViolation {
            time: self.now,
            what,
        })
    }

    /// Box `b` reached a verdict on `flow`'s timeouts: score it under the box's detector.
    pub(super) fn note_box_verdict(
        &mut self,
        b: usize,
        flow: FlowId,
        at: Time,
        spurious: bool,
    ) -> Result<(), InvariantViolation> {
        let name = self.boxes.list[b].detector;
        let Some(detector) = name.and_then(DetectorKind::from_label) else {
            let what = format!(
                "the middlebox on link `{}` reported a verdict but runs no registered detector ({name:?})",
                self.net.names[self.boxes.list[b].link]
            );
            return Err(InvariantViolation {
                time: self.now,
                what,
            });
        };
        let verdict = if spurious {
            Verdict::Spurious
        } else {
            Verdict::Genuine
        };
        self.ledger.on_box_verdict(BoxVerdict {
            detector,
            flow: flow.index(),
            at,
            verdict,
        });
        Ok(())
    }

    /// Is a packet `pred` holds for inside a link or box of flow `f`'s route? `pred`
    /// only reads the packet, so the answer does not depend on the order the packets
    /// are looked at in, and the first found ends the search: at 1 000 flows a timeout
    /// asks this of a bottleneck queue of thousands of packets (6 % of the 2 s case's
    /// instructions when every packet was visited, in the staged form's order).
    pub(super) fn any_in_network(&self, f: usize, pred: impl Fn(&Packet) -> bool) -> bool {
        let arena = &self.net.arena;
        let in_link = |l: usize| {
            let dirs = &self.net.links[l].dirs;
            dirs.iter()
                .any(|d| d.link.any_in_network(|&s| pred(arena.get(s))))
        };
        let in_box = |l: usize| {
            let mut found = false;
            if let Some(b) = self.boxes.at[l] {
                self.boxes.list[b]
                    .mb
                    .for_each_held(&mut |p| found |= pred(p));
            }
            found
        };
        let route = &self.flows.list[f].route;
        route
            .iter()
            .any(|hop| in_link(hop.link) || in_box(hop.link))
    }
}
