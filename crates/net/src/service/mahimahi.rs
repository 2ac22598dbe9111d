//! Replay of a Mahimahi packet-delivery trace (Netravali et al., "Mahimahi: Accurate
//! Record-and-Replay for HTTP", USENIX ATC 2015; `mm-link`).
//!
//! ## Trace format
//! One integer millisecond timestamp per line; each line is one delivery opportunity of
//! `opportunity_bytes` (1500 by default); a timestamp repeated k times is k
//! opportunities at that instant. Timestamps must not decrease, the file must not be
//! empty and the last timestamp must be positive: it is the trace's period, after which
//! the trace repeats (opportunity `i` of cycle `c` is at `c * last + t_i`, so a trace
//! `0, 10` gives opportunities at 0, 10, 10, 20, 20, ...), as mm-link does. Empty lines
//! are errors (mm-link rejects them too).
//!
//! ## How packets consume opportunities (as in mahimahi's link_queue.cc `rationalize`)
//! * An opportunity carries up to `opportunity_bytes` bytes of the queue's head. A
//!   packet larger than that spans several opportunities (its remaining bytes are kept
//!   between them: it is "in transit"); several small packets can leave in one
//!   opportunity. Bytes an opportunity cannot use (queue empty) are wasted.
//! * All opportunities at or before an instant are used *before* a packet arriving at
//!   that instant is queued: a packet never leaves on an opportunity with its own arrival
//!   timestamp. Unused opportunities are not banked.
//! * A packet leaves at the opportunity that carries its last byte; the link's one-way
//!   latency is added after it (mahimahi puts delay in a separate `mm-delay` shell).
//! * Differences from mm-link: the trace starts at simulated time zero; sizes are the
//!   packets' wire bytes (mm-link counts the IP packet read from its TUN device; its
//!   opportunity is 1504 bytes, the TUN MTU, rather than the nominal 1500 written here);
//!   packets larger than an opportunity are allowed. While a link direction is
//!   suspended its opportunities are lost (the radio is down); the packet in transit
//!   keeps the bytes it had already sent.

use crate::link::same_instant::Lead;
use crate::queue::Queue;
use crate::service::{Departure, ServiceModel};
use crate::trace_ref::{TraceError, TraceRef};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{self, Bounded, Check, FieldPath, MAX_PACKET_BYTES};
use spikelab_core::{BitRate, Dur, Packet, SimRng, Time, Wire};
use std::sync::Arc;

/// Mahimahi service parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MahimahiConfig {
    /// The delivery trace file. Required; load it with
    /// [`crate::load_link_traces`].
    pub trace: TraceRef<MahimahiTrace>,
    /// Bytes one opportunity can carry. Default: 1500.
    #[serde(default = "default_opportunity_bytes")]
    pub opportunity_bytes: u32,
}

fn default_opportunity_bytes() -> u32 {
    1500
}

/// A parsed delivery trace: non-decreasing opportunity times in ms, last one positive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MahimahiTrace {
    ms: Vec<u64>,
}

impl MahimahiTrace {
    /// Parses the text of a trace file (see the module docs for the format).
    pub fn parse(text: &str) -> Result<MahimahiTrace, TraceError> {
        let mut ms: Vec<u64> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let t = parse_line(line).map_err(|reason| TraceError::at(i + 1, reason))?;
            if let Some(&prev) = ms.last().filter(|&&prev| t < prev) {
                let reason = format!("timestamp {t} is before the previous one ({prev}): timestamps must not decrease");
                return Err(TraceError::at(i + 1, reason));
            }
            ms.push(t);
        }
        match ms.last() {
            None => Err(TraceError::whole("empty trace: no delivery opportunities")),
            Some(0) => Err(TraceError::at(
                ms.len(),
                "the last timestamp is 0: a trace must last a nonzero time",
            )),
            Some(_) => Ok(MahimahiTrace { ms }),
        }
    }

    /// Opportunities per period.
    pub fn len(&self) -> usize {
        self.ms.len()
    }

    /// Never true for a parsed trace.
    pub fn is_empty(&self) -> bool {
        self.ms.is_empty()
    }

    /// The period after which the trace repeats.
    pub fn period(&self) -> Dur {
        Dur::from_millis(self.ms[self.ms.len() - 1])
    }

    /// Time of opportunity `idx` of cycle `cycle`.
    fn at(&self, cycle: u64, idx: usize) -> Time {
        Time::ZERO + self.period() * cycle + Dur::from_millis(self.ms[idx])
    }

    /// The first opportunity at or after `t`, as (cycle, index).
    fn first_at_or_after(&self, t: Time) -> (u64, usize) {
        let period = self.period().0;
        let (cycle, within) = (t.0 / period, t.0 % period);
        let idx = self
            .ms
            .partition_point(|&ms| Dur::from_millis(ms).0 < within);
        if idx == self.ms.len() {
            (cycle + 1, 0)
        } else {
            (cycle, idx)
        }
    }
}

fn parse_line(line: &str) -> Result<u64, String> {
    if line.is_empty() {
        return Err("empty line: expected a timestamp in milliseconds".into());
    }
    line.parse::<u64>()
        .map_err(|_| format!("`{line}` is not a whole number of milliseconds"))
}

impl Bounded for MahimahiConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let bytes = u64::from(self.opportunity_bytes);
        bounds::int(
            &p.key("opportunity_bytes"),
            bytes,
            1,
            MAX_PACKET_BYTES,
            " bytes",
        )
    }
}

/// A transmitter driven by a delivery trace.
#[derive(Clone, Debug)]
pub struct TraceTransmitter<P = Packet> {
    trace: Arc<MahimahiTrace>,
    opportunity_bytes: u32,
    cycle: u64,
    idx: usize,
    /// The packet partly sent and its bytes still to send.
    in_transit: Option<(P, u32)>,
}

impl<P: Wire> TraceTransmitter<P> {
    /// Starts at the trace's first opportunity. Panics if the trace is not loaded.
    pub fn new(cfg: &MahimahiConfig) -> TraceTransmitter<P> {
        TraceTransmitter {
            trace: Arc::clone(cfg.trace.loaded()),
            opportunity_bytes: cfg.opportunity_bytes.max(1),
            cycle: 0,
            idx: 0,
            in_transit: None,
        }
    }

    fn next_opportunity(&self) -> Time {
        self.trace.at(self.cycle, self.idx)
    }

    fn consume_opportunity(&mut self) {
        self.idx += 1;
        if self.idx == self.trace.len() {
            self.idx = 0;
            self.cycle += 1;
        }
    }

    /// Moves to the first opportunity at or after `t`, never backwards.
    pub fn skip_before(&mut self, t: Time) {
        if self.next_opportunity() < t {
            (self.cycle, self.idx) = self.trace.first_at_or_after(t);
        }
    }

    /// Uses every opportunity at or before `now`.
    pub fn advance<L: Lead>(
        &mut self,
        now: Time,
        queue: &mut Queue<P>,
        emit: &mut impl FnMut(Departure<P, L>),
    ) {
        loop {
            if self.in_transit.is_none() && queue.fifo().is_empty() {
                // Nothing to send: opportunities up to `now` pass unused.
                self.skip_before(now + Dur(1));
                return;
            }
            let t = self.next_opportunity();
            if t > now {
                return;
            }
            self.consume_opportunity();
            self.use_opportunity(t, queue, emit);
        }
    }

    fn use_opportunity<L: Lead>(
        &mut self,
        t: Time,
        queue: &mut Queue<P>,
        emit: &mut impl FnMut(Departure<P, L>),
    ) {
        let mut credit = self.opportunity_bytes;
        while credit > 0 {
            let (pkt, left) = match self.in_transit.take() {
                Some(x) => x,
                None => match queue.dequeue(t) {
                    Some(p) => (p, p.wire_bytes()),
                    None => return,
                },
            };
            let sent = left.min(credit);
            credit -= sent;
            if sent == left {
                emit(Departure {
                    pkt,
                    at: t,
                    extra: Dur::ZERO,
                    lost: false,
                    // A delivery opportunity is not scheduled ahead.
                    lead: L::of(t, t),
                });
            } else {
                self.in_transit = Some((pkt, left - sent));
            }
        }
    }

    /// The next opportunity if there is something to send.
    pub fn next_wakeup(&self, queue: &Queue<P>) -> Option<Time> {
        (self.in_transit.is_some() || !queue.fifo().is_empty()).then(|| self.next_opportunity())
    }

    /// The packet partly sent, if any.
    pub fn holding(&self) -> Option<&P> {
        self.in_transit.as_ref().map(|(p, _)| p)
    }
}

impl<P: Wire, L: Lead> ServiceModel<P, L> for TraceTransmitter<P> {
    fn advance<F: FnMut(Departure<P, L>)>(
        &mut self,
        now: Time,
        queue: &mut Queue<P>,
        _rng: &mut SimRng,
        emit: &mut F,
    ) {
        TraceTransmitter::advance(self, now, queue, emit)
    }

    fn next_wakeup(&self, queue: &Queue<P>) -> Option<Time> {
        TraceTransmitter::next_wakeup(self, queue)
    }

    fn holding(&self) -> Option<&P> {
        TraceTransmitter::holding(self)
    }

    /// The radio was down: skip the opportunities that occurred meanwhile, keeping the
    /// bytes already sent.
    fn resume(&mut self, _since: Time, now: Time) {
        self.skip_before(now);
    }

    /// The opportunities are the capacity: the link rate is unused.
    fn set_rate(&mut self, _rate: BitRate) {}
}

#[cfg(test)]
mod tests;
