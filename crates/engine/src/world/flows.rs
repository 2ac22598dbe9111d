//! The flows: each flow's endpoints (a registered [`Transport`] and the application
//! above it, or a CBR source), their timers, and what follows every event at an
//! endpoint (sending its packets, re-arming its timers, checking its invariants).

use super::capture::Capture;
use super::{InvariantViolation, Sim};
use crate::arena::{Arena, Slot};
use crate::config::{FlowKind, FlowSpec, Hop, StartTime, Workload};
use crate::events::{Event, FlowTimer, TimerSlot};
use crate::results::{FlowResult, RtoSample};
use crate::route::PackedRoute;
use crate::transport::{Arrival, Declaration, FromFlow, Judgements, Transport};
use rand::Rng;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{Dur, FlowId, Packet, PacketKind, RngStreams, Time};
use spikelab_net::link::same_instant::Lead;
use spikelab_net::streams::dir_index;
use spikelab_net::Dir;
use spikelab_tcp::spurious::DetectorKind;

/// Every flow of the run, and what their endpoints share.
pub(super) struct Flows<T> {
    pub(super) list: Vec<Flow<T>>,
    /// What the endpoint handling the current event sends, stamped and injected after it.
    pub(super) out: Vec<Packet>,
    /// Connections whose transfer has not completed.
    pub(super) unfinished: usize,
    pub(super) data_packets_delivered: u64,
    pub(super) record_rto: bool,
    /// The declarations of the sender handling the current event, judged after it.
    pub(super) declared: Vec<Declaration>,
}

impl<T: Transport> Flows<T> {
    pub(super) fn new(flows: usize, record_rto: bool) -> Flows<T> {
        Flows {
            list: Vec::with_capacity(flows),
            out: Vec::new(),
            unfinished: 0,
            data_packets_delivered: 0,
            record_rto,
            declared: Vec::new(),
        }
    }

    /// Each connection's judgements on its timeouts (`None` for a CBR source).
    pub(super) fn judgements(&self) -> Vec<Option<Judgements<'_>>> {
        self.list
            .iter()
            .map(|f| match &f.state {
                FlowState::Conn(c) => Some(c.transport.judgements()),
                FlowState::Cbr(_) => None,
            })
            .collect()
    }

    /// The flows' results, with their transports' counters.
    pub(super) fn into_results(self) -> Vec<FlowResult> {
        self.list.into_iter().map(finish_flow).collect()
    }
}

/// A connection: its transport's endpoints, the application above it, and the
/// endpoints' timer slots. Boxed from a cache line's start, so that the endpoint state
/// a packet reads takes as few lines as its layout allows (a box is otherwise aligned
/// to 16 bytes, and each group of fields read together may straddle one line more).
#[repr(align(64))]
pub(super) struct Connection<T> {
    pub(super) transport: T,
    pub(super) workload: Workload,
    pub(super) sender_slot: TimerSlot,
    pub(super) receiver_slot: TimerSlot,
    pub(super) messages_written: u64,
    pub(super) last_ack_sent: u64,
}

pub(super) struct CbrFlow {
    pub(super) interval: Dur,
    /// Every datagram the source sends, sealed, before the world numbers and dates it
    /// ([`Sim::on_cbr_send`]).
    pub(super) datagram: Packet,
    pub(super) stop: Option<Time>,
    pub(super) slot: TimerSlot,
    pub(super) next_send: Option<Time>,
}

pub(super) enum FlowState<T> {
    Conn(Box<Connection<T>>),
    Cbr(CbrFlow),
}

/// A flow's record. Laid out in declaration order from a cache line's start: the packed
/// route, read at every hop of every packet, shares its line with the endpoints' box
/// pointer, read at every packet an endpoint handles.
#[repr(C, align(64))]
pub(super) struct Flow<T> {
    pub(super) hops: PackedRoute,
    pub(super) state: FlowState<T>,
    pub(super) route: Vec<Hop>,
    pub(super) result: FlowResult,
}

impl<L: Lead, T: Transport + FromFlow> Sim<L, T> {
    pub(super) fn add_flow(&mut self, i: usize, spec: &FlowSpec, streams: &RngStreams) {
        let start = match spec.start {
            StartTime::At(d) => Time::ZERO + d,
            StartTime::Uniform { min, max } => {
                let mut rng = streams.stream("flow-start", i as u64);
                Time(rng.random_range(min.0..max.0.max(min.0 + 1)))
            }
        };
        let flow = FlowId(i as u32);
        let (state, bytes, min_segments) = match T::from_flow(flow, &spec.kind, streams) {
            Some(transport) => {
                self.flows.unfinished += 1;
                let (workload, mss) = spec.kind.connection().expect("a transport's flow");
                let c = Connection {
                    transport,
                    workload,
                    sender_slot: TimerSlot::default(),
                    receiver_slot: TimerSlot::default(),
                    messages_written: 0,
                    last_ack_sent: 0,
                };
                let min_segments = workload.min_segments(mss);
                (FlowState::Conn(Box::new(c)), workload.bytes(), min_segments)
            }
            None => (FlowState::Cbr(cbr_flow(flow, &spec.kind)), 0, 0),
        };
        let mut detectors = spec.kind.detectors();
        // Boxes that run a detector judge every flow crossing them.
        for b in &self.boxes.list {
            let kind = b.detector.and_then(DetectorKind::from_label);
            let crosses = spec.route.iter().any(|h| h.link == b.link);
            if let Some(k) = kind.filter(|k| crosses && !detectors.contains(k)) {
                detectors.push(k);
            }
        }
        let result = FlowResult {
            name: spec.name.clone(),
            start,
            bytes,
            min_segments,
            detectors,
            ..FlowResult::default()
        };
        let box_at = &self.boxes.at;
        self.flows.list.push(Flow {
            hops: PackedRoute::new(&spec.route, |l| box_at[l].is_some()),
            route: spec.route.clone(),
            state,
            result,
        });
        self.q.push(start, Event::FlowStart { flow: i as u32 });
    }
}

impl<L: Lead, T: Transport> Sim<L, T> {
    pub(super) fn has_connection(&self) -> bool {
        self.flows
            .list
            .iter()
            .any(|f| matches!(f.state, FlowState::Conn(_)))
    }

    pub(super) fn on_flow_start(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let mut out = std::mem::take(&mut self.flows.out);
        match &mut self.flows.list[f].state {
            FlowState::Conn(c) => {
                c.transport.on_start(now, &mut out);
                c.messages_written = 1;
                c.transport
                    .on_app_write(now, c.workload.first_write(), &mut out);
            }
            FlowState::Cbr(c) => c.next_send = Some(now),
        }
        self.flows.out = out;
        self.after_flow_event(f, Side::Both)
    }

    pub(super) fn on_flow_timer(
        &mut self,
        f: usize,
        timer: FlowTimer,
        gen: u32,
    ) -> Result<(), InvariantViolation> {
        let now = self.now;
        let live = match (&mut self.flows.list[f].state, timer) {
            (FlowState::Conn(c), FlowTimer::Sender) => c.sender_slot.fire(gen),
            (FlowState::Conn(c), FlowTimer::Receiver) => c.receiver_slot.fire(gen),
            (FlowState::Cbr(c), FlowTimer::CbrSend) => c.slot.fire(gen),
            _ => false,
        };
        if !live {
            return Ok(());
        }
        let side = match timer {
            FlowTimer::Sender => {
                self.on_sender_timer(f)?;
                Side::Sender
            }
            FlowTimer::Receiver => {
                let mut acks = std::mem::take(&mut self.flows.out);
                if let FlowState::Conn(c) = &mut self.flows.list[f].state {
                    c.transport.on_receiver_timer(now, &mut acks);
                }
                self.flows.out = acks;
                Side::Receiver
            }
            FlowTimer::CbrSend => {
                self.on_cbr_send(f);
                Side::Source
            }
        };
        self.after_flow_event(f, side)
    }

    pub(super) fn on_cbr_send(&mut self, f: usize) {
        let now = self.now;
        let FlowState::Cbr(c) = &mut self.flows.list[f].state else {
            return;
        };
        if c.next_send.is_none_or(|t| t > now) {
            return;
        }
        if c.stop.is_some_and(|s| now >= s) {
            c.next_send = None;
            return;
        }
        c.next_send = Some(now + c.interval);
        let len = c.datagram.len as u64;
        let result = &mut self.flows.list[f].result;
        result.bytes += len;
        result.data_segments_sent += 1;
        self.send_datagram(f);
    }

    /// Sends flow `f`'s datagram ([`CbrFlow::datagram`]). What [`Self::inject`] does
    /// with it, done here when it enters its first link directly (no box in front of
    /// it, no drop rule, no capture): copied into the arena from the flow's record, and
    /// numbered and dated there. A datagram built for each send and copied into the
    /// arena right after had the copy's wide loads wait on the narrow stores of its
    /// making (a store-forwarding stall; `perf annotate`: the first load of the copy
    /// held half of `memmove`'s samples). Otherwise it goes out through `inject`.
    pub(super) fn send_datagram(&mut self, f: usize) {
        let flow = &self.flows.list[f];
        let FlowState::Cbr(c) = &flow.state else {
            return;
        };
        let first = flow.hops.get(true, 0);
        match first.filter(|n| !(n.boxed && n.dir == Dir::Forward)) {
            Some(next) if self.net.drops.is_empty() && self.capture.pcap.is_none() => {
                let s = self.net.arena.put(&c.datagram);
                let p = self.net.arena.get_mut(s);
                p.uid = self.net.next_uid;
                p.sent_at = self.now;
                self.net.next_uid += 1;
                self.enqueue(next.link, dir_index(next.dir), s);
            }
            _ => self.flows.out.push(c.datagram),
        }
    }

    /// Sends what the flow's endpoints produced, re-arms its timers, checks its
    /// invariants, and notes completion. What only depends on the endpoint that `side`
    /// leaves unchanged is not looked at again: its timer's deadline is the one its
    /// slot already wants ([`TimerSlot::want`] would do nothing), and its trace state,
    /// invariants, completion and next message were checked when it last changed.
    pub(super) fn after_flow_event(
        &mut self,
        f: usize,
        side: Side,
    ) -> Result<(), InvariantViolation> {
        debug_assert!(
            self.other_side_settled(f, side),
            "flow {f}: an event at the {side:?} changed what the other endpoint's follow-up reads"
        );
        if side.sender() {
            if T::DECLARES {
                self.judge_declarations(f);
            }
            self.maybe_write_next_message(f);
        }
        let mut out = std::mem::take(&mut self.flows.out);
        // Packets are large: they are stamped in place and copied only into a queue.
        let mut result = Ok(());
        for p in out.iter_mut() {
            result = self.inject(f, p);
            if result.is_err() {
                break;
            }
        }
        out.clear();
        self.flows.out = out;
        result?;
        self.sync_flow_timers(f, side);
        if !side.sender() {
            return Ok(());
        }
        if let FlowState::Conn(c) = &self.flows.list[f].state {
            let t = &c.transport;
            self.capture
                .tracer
                .on_sender_state(self.now, FlowId(f as u32), || t.sender_state());
        }
        self.check_flow(f)
    }

    /// Judges the declarations the sender of flow `f` made during the event just
    /// handled, against the network as it is before the sender's new packets enter it,
    /// and counts them in the flow's result.
    #[inline]
    pub(super) fn judge_declarations(&mut self, f: usize) {
        let mut declared = std::mem::take(&mut self.flows.declared);
        if let FlowState::Conn(c) = &mut self.flows.list[f].state {
            c.transport.take_declarations(&mut declared);
        }
        for d in declared.drain(..) {
            let fid = FlowId(f as u32);
            let in_network = |pred: &dyn Fn(&Packet) -> bool| {
                self.any_in_network(f, |p| p.flow == fid && pred(p))
            };
            let truth = match &self.flows.list[f].state {
                FlowState::Conn(c) => c.transport.declaration_truth(d, &in_network),
                FlowState::Cbr(_) => unreachable!("a CBR source declares nothing"),
            };
            let n = &mut self.flows.list[f].result.declarations;
            let spurious = truth.is_spurious() as u64;
            match d {
                Declaration::Loss { .. } => {
                    n.loss_declarations += 1;
                    n.spurious_loss_declarations += spurious;
                }
                Declaration::Probe { .. } => {
                    n.ptos += 1;
                    n.spurious_ptos += spurious;
                }
            }
        }
        self.flows.declared = declared;
    }

    /// Would the follow-up of the endpoint that `side` did not change do nothing? Its
    /// timer slot already wants its deadline, and for the sender: no message is due,
    /// its invariants hold and its completion is noted. Checked in debug builds before
    /// every follow-up, so that every test run compares the shortened follow-up with
    /// the full one.
    pub(super) fn other_side_settled(&self, f: usize, side: Side) -> bool {
        let flow = &self.flows.list[f];
        let FlowState::Conn(c) = &flow.state else {
            return true;
        };
        let t = &c.transport;
        let wants = |mut slot: TimerSlot, deadline| {
            let mut pushed = false;
            slot.want(deadline, |_, _| pushed = true);
            !pushed
        };
        let sender = || {
            let message_due = t.all_acked() && c.workload.next_write(c.messages_written).is_some();
            let completes = flow.result.completed.is_none()
                && t.all_acked()
                && t.app_end() == flow.result.bytes;
            wants(
                c.sender_slot,
                armed(t.sender_deadline(), self.now, T::DEADLINES_MAY_PASS),
            ) && !message_due
                && t.check_invariants().is_ok()
                && !completes
        };
        match side {
            Side::Receiver => sender(),
            Side::Sender => wants(
                c.receiver_slot,
                armed(t.receiver_deadline(), self.now, T::DEADLINES_MAY_PASS),
            ),
            Side::Both | Side::Source => true,
        }
    }

    /// Ping-pong: the next message goes out when the previous one is acknowledged.
    pub(super) fn maybe_write_next_message(&mut self, f: usize) {
        let now = self.now;
        let FlowState::Conn(c) = &mut self.flows.list[f].state else {
            return;
        };
        let Some(bytes) = c.workload.next_write(c.messages_written) else {
            return;
        };
        if c.transport.all_acked() {
            c.messages_written += 1;
            c.transport.on_app_write(now, bytes, &mut self.flows.out);
        }
    }

    /// Re-arms the timers of flow `f` whose endpoint `side` changed.
    pub(super) fn sync_flow_timers(&mut self, f: usize, side: Side) {
        let now = self.now;
        let q = &mut self.q;
        let id = f as u32;
        match &mut self.flows.list[f].state {
            FlowState::Conn(c) => {
                if side.sender() {
                    let d = armed(c.transport.sender_deadline(), now, T::DEADLINES_MAY_PASS);
                    c.sender_slot.want(d, |at, gen| {
                        q.push(
                            at,
                            Event::Timer {
                                flow: id,
                                timer: FlowTimer::Sender,
                                gen,
                            },
                        )
                    });
                }
                if side.receiver() {
                    let d = armed(c.transport.receiver_deadline(), now, T::DEADLINES_MAY_PASS);
                    c.receiver_slot.want(d, |at, gen| {
                        q.push(
                            at,
                            Event::Timer {
                                flow: id,
                                timer: FlowTimer::Receiver,
                                gen,
                            },
                        )
                    });
                }
            }
            FlowState::Cbr(c) => {
                c.slot.want(c.next_send, |at, gen| {
                    q.push(
                        at,
                        Event::Timer {
                            flow: id,
                            timer: FlowTimer::CbrSend,
                            gen,
                        },
                    )
                });
            }
        }
    }

    pub(super) fn check_flow(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let flow = &mut self.flows.list[f];
        let FlowState::Conn(c) = &flow.state else {
            return Ok(());
        };
        let t = &c.transport;
        t.check_invariants().map_err(|what| InvariantViolation {
            time: now,
            what: format!("flow {f}: {what}"),
        })?;
        if flow.result.completed.is_none() && t.all_acked() && t.app_end() == flow.result.bytes {
            flow.result.completed = Some(now);
            self.flows.unfinished -= 1;
        }
        Ok(())
    }

    /// Bookkeeping for a packet leaving an endpoint: traces, captures, ACK monotonicity.
    pub(super) fn note_sent(&mut self, f: usize, p: &Packet) -> Result<(), InvariantViolation> {
        let flow = FlowId(f as u32);
        match p.kind {
            PacketKind::Data => {
                self.capture.tracer.record(
                    self.now,
                    flow,
                    TraceEvent::Send {
                        seq: p.seq,
                        len: p.len,
                        retx: p.retx,
                    },
                );
            }
            PacketKind::Ack => {
                if let FlowState::Conn(t) = &mut self.flows.list[f].state {
                    if p.ack < t.last_ack_sent {
                        let what = format!(
                            "flow {f}: cumulative ACK went back from {} to {}",
                            t.last_ack_sent, p.ack
                        );
                        return Err(InvariantViolation {
                            time: self.now,
                            what,
                        });
                    }
                    t.last_ack_sent = p.ack;
                }
            }
            PacketKind::Syn | PacketKind::SynAck | PacketKind::Datagram => {}
        }
        self.capture.packet(self.now, f, p, true);
        Ok(())
    }

    /// A packet that never entered the arena (a route ending right behind a box)
    /// reached the end of its route.
    pub(super) fn deliver(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
        let (hosts, _) = self.hosts();
        match hosts.receive(p) {
            Some((f, side)) => self.after_flow_event(f, side),
            None => Ok(()),
        }
    }

    /// The packet in slot `s` reached the end of its route. Its endpoint reads it where
    /// it lies in the arena instead of a copy taken out of it, and the slot is freed
    /// before the endpoint's replies enter the network (the order in which
    /// [`Arena::take`] frees it). Always inlined: left to itself, the compiler made it a
    /// call once a box's exit reached it too.
    #[inline(always)]
    pub(super) fn deliver_slot(&mut self, s: Slot) -> Result<(), InvariantViolation> {
        let (hosts, arena) = self.hosts();
        let f = hosts.receive(arena.get(s));
        self.net.arena.free(s);
        match f {
            Some((f, side)) => self.after_flow_event(f, side),
            None => Ok(()),
        }
    }

    /// The endpoints' side of the world beside the arena, so that a packet can be read
    /// in the arena while an endpoint acts on it.
    pub(super) fn hosts(&mut self) -> (Hosts<'_, T>, &Arena) {
        let hosts = Hosts {
            now: self.now,
            flows: &mut self.flows.list,
            out: &mut self.flows.out,
            capture: &mut self.capture,
            data_packets_delivered: &mut self.flows.data_packets_delivered,
            record_rto: self.flows.record_rto,
        };
        (hosts, &self.net.arena)
    }
}

/// Which endpoints of a flow an event may have changed: a connection's sender and
/// receiver share no state (they talk through packets only), so an event at one leaves
/// everything [`Sim::after_flow_event`] derives from the other as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    /// The sender (an ACK, its timer).
    Sender,
    /// The receiver (a data segment or SYN, the delayed-ACK timer).
    Receiver,
    /// Either (a flow's start, a datagram reaching a connection).
    Both,
    /// A CBR source's send timer: no endpoint of a connection, so no message, trace
    /// or check to follow up, only the source's timer to re-arm.
    Source,
}

impl Side {
    pub(super) fn sender(self) -> bool {
        matches!(self, Side::Sender | Side::Both)
    }
    pub(super) fn receiver(self) -> bool {
        matches!(self, Side::Receiver | Side::Both)
    }
}

/// What an endpoint receiving a packet touches ([`Sim::hosts`]).
pub(super) struct Hosts<'a, T> {
    pub(super) now: Time,
    pub(super) flows: &'a mut [Flow<T>],
    pub(super) out: &'a mut Vec<Packet>,
    capture: &'a mut Capture,
    pub(super) data_packets_delivered: &'a mut u64,
    pub(super) record_rto: bool,
}

impl<T: Transport> Hosts<'_, T> {
    /// The endpoint of `p`'s flow receives `p`: its replies go to `out`. Returns the
    /// flow whose endpoint must be followed up ([`Sim::after_flow_event`]) and which
    /// one it is, or `None` after a datagram's arrival, which changes nothing at its
    /// CBR source but the count: no packet to send, no timer moved, no connection state to
    /// check.
    #[inline(always)]
    fn receive(self, p: &Packet) -> Option<(usize, Side)> {
        let now = self.now;
        let f = p.flow.index();
        self.capture.packet(now, f, p, false);
        let flow = &mut self.flows[f];
        let side;
        match (&mut flow.state, p.kind) {
            (FlowState::Cbr(_), kind) => {
                if kind == PacketKind::Datagram {
                    flow.result.delivered += 1;
                }
                return None;
            }
            (FlowState::Conn(c), _) => match c.transport.on_packet(now, p, self.out) {
                Arrival::Data { unnecessary } => {
                    side = Side::Receiver;
                    *self.data_packets_delivered += 1;
                    flow.result.delivered += 1;
                    if unnecessary {
                        flow.result.unnecessary_retransmissions += 1;
                    }
                    self.capture.tracer.record(
                        now,
                        p.flow,
                        TraceEvent::Deliver {
                            seq: p.seq,
                            len: p.len,
                        },
                    );
                }
                Arrival::Setup => side = Side::Receiver,
                Arrival::Feedback {
                    duplicate,
                    rtt_sample,
                } => {
                    side = Side::Sender;
                    if let Some(rtt) = rtt_sample.filter(|_| self.record_rto) {
                        let rto = c.transport.timeout_interval();
                        flow.result.rto_samples.push(RtoSample {
                            time: now,
                            rtt,
                            rto,
                        });
                    }
                    self.capture
                        .tracer
                        .on_ack(now, p.flow, p.ack, duplicate, rtt_sample);
                }
                Arrival::Unclaimed => side = Side::Both,
            },
        }
        Some((f, side))
    }
}

fn finish_flow<T: Transport>(f: Flow<T>) -> FlowResult {
    let mut r = f.result;
    if let FlowState::Conn(c) = &f.state {
        let s = c.transport.stats();
        r.data_segments_sent = s.data_segments_sent;
        r.retransmissions = s.retransmissions;
        r.fast_retransmits = s.fast_retransmits;
        r.spurious_responses = s.spurious_responses;
        r.undos = s.undo_counters;
        r.declarations.persistent_congestion = s.persistent_congestion;
        r.declarations.undos = s.undos;
    }
    r
}

/// A CBR source for a flow of kind `kind` (a [`FlowKind::Cbr`]).
fn cbr_flow(flow: FlowId, kind: &FlowKind) -> CbrFlow {
    let FlowKind::Cbr {
        rate,
        payload_bytes,
        stop,
    } = kind
    else {
        panic!("no registered transport takes this flow kind: {kind:?}")
    };
    let mut datagram = Packet::new(0, flow, PacketKind::Datagram, Time::ZERO);
    datagram.len = *payload_bytes;
    datagram.seal();
    let wire = datagram.wire_bytes() as u64;
    CbrFlow {
        interval: Dur::transmission(wire, rate.0),
        datagram,
        stop: stop.map(|d| Time::ZERO + d),
        slot: TimerSlot::default(),
        next_send: None,
    }
}

/// The instant a transport's timer is armed at: its `deadline`, or `now` for one that
/// passed, which fires at once ([`Transport::DEADLINES_MAY_PASS`]); for a transport
/// whose deadlines never pass (a constant `may_pass` of false: no instruction) that is
/// checked in debug builds, since the event queue must never be handed the past.
#[inline(always)]
fn armed(deadline: Option<Time>, now: Time, may_pass: bool) -> Option<Time> {
    match may_pass {
        true => deadline.map(|d| d.max(now)),
        false => {
            debug_assert!(deadline.is_none_or(|d| d >= now), "a deadline before now");
            deadline
        }
    }
}
