//! The world loop: links, flows and the event queue, driven until every connection has
//! finished or the stop time is reached. It drives a connection's endpoints only
//! through the [`Transport`] hooks.
//!
//! Routing is by source route: a flow's forward packets (data, SYN, datagrams) cross its
//! hops in order; its reverse packets (ACKs) cross them backwards in the opposite
//! direction. `Packet::hop` indexes the packet's route.

use crate::arena::{Arena, Slot};
use crate::config::{DropRule, FlowKind, FlowSpec, Hop, SimConfig, StartTime, Workload};
use crate::events::{Event, EventQueue, FlowTimer, TimerSlot};
use crate::facts;
use crate::results::{
    Captured, Endpoint, FlowResult, LinkResult, RtoSample, RunResult, TimeoutRecord,
};
use crate::route::{self, AfterBox, NextHop, PackedRoute};
use crate::trace::Tracer;
use crate::transport::{Arrival, Expiry, TimedOut, TimerDecision, Transport, Transports};
use crate::truth::{BoxVerdict, Ledger};
use crate::watchdog::{Bark, Watchdog};
use rand::Rng;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{Dur, FlowId, Packet, PacketKind, RngStreams, SimRng, Time};
use spikelab_net::control;
use spikelab_net::link::same_instant::Lead;
use spikelab_net::streams::dir_index;
use spikelab_net::{Dir, LinkControl, LinkDir, Mb, MbEventKind, MbOutput, Middlebox, Schedule};
use spikelab_tcp::spurious::{DetectorKind, Verdict};

/// A broken invariant: the run is wrong and must not be reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantViolation {
    pub time: Time,
    pub what: String,
}

impl std::fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invariant violated at {}: {}", self.time, self.what)
    }
}

impl std::error::Error for InvariantViolation {}

struct LinkState<L> {
    name: String,
    dirs: [LinkDir<Slot, L>; 2],
    wake: [TimerSlot; 2],
    spikes: Vec<SpikeRun>,
}

/// A link's spike schedule with its random stream and the control due next.
struct SpikeRun {
    schedule: Schedule,
    rng: SimRng,
    pending: Option<LinkControl>,
}

/// A connection: its transport's endpoints, the application above it, and the
/// endpoints' timer slots.
struct Connection {
    transport: Transports,
    workload: Workload,
    sender_slot: TimerSlot,
    receiver_slot: TimerSlot,
    messages_written: u64,
    last_ack_sent: u64,
}

struct CbrFlow {
    interval: Dur,
    /// Every datagram the source sends, sealed, before the world numbers and dates it
    /// ([`Sim::on_cbr_send`]).
    datagram: Packet,
    stop: Option<Time>,
    slot: TimerSlot,
    next_send: Option<Time>,
}

enum FlowState {
    Conn(Box<Connection>),
    Cbr(CbrFlow),
}

/// A flow's record. Laid out in declaration order from a cache line's start: the packed
/// route, read at every hop of every packet, shares its line with the endpoints' box
/// pointer, read at every packet an endpoint handles.
#[repr(C, align(64))]
struct Flow {
    hops: PackedRoute,
    state: FlowState,
    route: Vec<Hop>,
    result: FlowResult,
}

/// One simulation run.
pub struct World(Order);

/// The run's order of same-instant events, chosen once when it is built: its links
/// keep scheduling leads (`u32`) only when ns-2's order is on, so a run in spikelab's
/// own order takes the plain code path with no per-packet test or field
/// (`spikelab_net::link::same_instant`).
enum Order {
    Own(Sim<()>),
    Ns2(Sim<u32>),
}

/// The simulation itself; `L` is what its links keep of when events were scheduled.
struct Sim<L> {
    now: Time,
    q: EventQueue,
    links: Vec<LinkState<L>>,
    flows: Vec<Flow>,
    next_uid: u64,
    out: Vec<Packet>,
    /// The packets inside links; the links carry their [`Slot`]s.
    arena: Arena,
    delivered: Vec<Slot>,
    dropped: Vec<Slot>,
    /// Every data timeout with its ground truth; verdicts attach to it by identity.
    ledger: Ledger,
    tracer: Tracer,
    captures: Option<Vec<Vec<Captured>>>,
    stop_at: Time,
    /// Connections whose transfer has not completed.
    unfinished: usize,
    data_packets_delivered: u64,
    seed: u64,
    drops: Vec<DropRule>,
    record_rto: bool,
    boxes: Vec<BoxState>,
    /// Per link, the index of the middlebox at its first endpoint.
    box_at: Vec<Option<usize>>,
    mb_out: MbOutput,
    watchdog: Watchdog,
    order: SameInstantOrder,
}

/// ns-2's order of a packet's arrival and a transmission end at the same instant
/// (`spikelab_net::link::same_instant`), on when a flow's `ns2` switch
/// `same_instant_in_scheduling_order` is: the network has one scheduler. Used only by
/// a [`Sim`] whose links keep leads ([`Lead::KEPT`]).
#[derive(Default)]
struct SameInstantOrder {
    /// When the event being handled was scheduled: a delivered packet's arrival
    /// (packets an endpoint sends in reply enter their first link within that event,
    /// as an ns-2 agent's `send()` does); otherwise now, which lets a transmission
    /// ending now complete first (timers' scheduling instants are not kept).
    cause: Time,
    /// Per packet a link just delivered, when its arrival was scheduled.
    scheduled: Vec<Time>,
}

/// What the world saw when a sender's timer fired (before the sender acted).
enum Seen {
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

/// A middlebox placed at the first endpoint of `link`.
struct BoxState {
    link: usize,
    mb: Mb,
    slot: TimerSlot,
    /// The detector the box runs ([`Middlebox::detector`]), by the name it reports.
    detector: Option<&'static str>,
}

impl World {
    /// Builds the world for `cfg` with run seed `seed`.
    pub fn new(cfg: &SimConfig, seed: u64) -> World {
        let ns2_order = cfg.flows.iter().any(|f| f.kind.ns2_same_instant_order());
        World(match ns2_order {
            true => Order::Ns2(Sim::new(cfg, seed)),
            false => Order::Own(Sim::new(cfg, seed)),
        })
    }

    /// Ends the run with an error after `budget` events (a guard for tests and fuzzing;
    /// by default a run has no budget, only the stall watchdog).
    pub fn with_event_budget(self, budget: u64) -> World {
        World(match self.0 {
            Order::Own(s) => Order::Own(s.with_event_budget(budget)),
            Order::Ns2(s) => Order::Ns2(s.with_event_budget(budget)),
        })
    }

    /// Runs to completion and returns the results, or the first broken invariant
    /// (a stalled clock or an exhausted event budget included, see [`crate::watchdog`]).
    pub fn run(self) -> Result<RunResult, InvariantViolation> {
        match self.0 {
            Order::Own(s) => s.run(),
            Order::Ns2(s) => s.run(),
        }
    }
}

impl<L: Lead> Sim<L> {
    fn new(cfg: &SimConfig, seed: u64) -> Sim<L> {
        let streams = RngStreams::new(seed);
        let links = cfg
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| build_link(l, i, &streams))
            .collect();
        let mut world = Sim {
            now: Time::ZERO,
            q: EventQueue::new(),
            links,
            flows: Vec::with_capacity(cfg.flows.len()),
            next_uid: 0,
            out: Vec::new(),
            arena: Arena::default(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            ledger: Ledger::new(cfg.flows.len()),
            tracer: Tracer::new(cfg.trace),
            captures: cfg.pcap.then(|| vec![Vec::new(); cfg.flows.len()]),
            stop_at: Time::ZERO + cfg.stop_at,
            unfinished: 0,
            data_packets_delivered: 0,
            seed,
            drops: cfg.drops.clone(),
            record_rto: cfg.record_rto,
            boxes: Vec::new(),
            box_at: route::box_placement(cfg.links.len(), &cfg.middleboxes),
            mb_out: MbOutput::new(),
            watchdog: Watchdog::default(),
            order: SameInstantOrder::default(),
        };
        for (i, spec) in cfg.middleboxes.iter().enumerate() {
            let mb = Mb::new(&spec.config, streams.stream("middlebox", i as u64));
            world.boxes.push(BoxState {
                link: spec.link,
                detector: mb.detector(),
                mb,
                slot: TimerSlot::default(),
            });
        }
        for (i, spec) in cfg.flows.iter().enumerate() {
            world.add_flow(i, spec, &streams);
        }
        for l in 0..world.links.len() {
            for s in 0..world.links[l].spikes.len() {
                world.schedule_next_control(l, s);
            }
        }
        world
    }

    fn add_flow(&mut self, i: usize, spec: &FlowSpec, streams: &RngStreams) {
        let start = match spec.start {
            StartTime::At(d) => Time::ZERO + d,
            StartTime::Uniform { min, max } => {
                let mut rng = streams.stream("flow-start", i as u64);
                Time(rng.random_range(min.0..max.0.max(min.0 + 1)))
            }
        };
        let flow = FlowId(i as u32);
        let (state, bytes, min_segments) = match Transports::new(flow, &spec.kind) {
            Some(transport) => {
                self.unfinished += 1;
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
        for b in &self.boxes {
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
        let box_at = &self.box_at;
        self.flows.push(Flow {
            hops: PackedRoute::new(&spec.route, |l| box_at[l].is_some()),
            route: spec.route.clone(),
            state,
            result,
        });
        self.q.push(start, Event::FlowStart { flow: i as u32 });
    }

    fn with_event_budget(mut self, budget: u64) -> Sim<L> {
        self.watchdog = Watchdog::new(Some(budget));
        self
    }

    fn run(mut self) -> Result<RunResult, InvariantViolation> {
        while let Some((t, ev)) = self.q.pop() {
            if t > self.stop_at {
                self.now = self.now.max(self.skipped_end_wakeups_until(self.stop_at));
                break;
            }
            if let Some(bark) = self.watchdog.on_event(t, self.q.popped()) {
                return Err(self.bark(bark, ev));
            }
            self.now = t;
            self.handle(ev)?;
            if self.unfinished == 0 && self.has_connection() {
                break;
            }
        }
        self.finish()
    }

    /// The latest transmission end at or before `until` for which a link was not
    /// woken because it wakes for that packet's arrival
    /// ([`LinkDir::skipped_end_wakeup`]; `Time::ZERO` if none). A run stopped at its
    /// stop time reports as its end the last event it handled, and that end must not
    /// depend on those skipped wakeups.
    fn skipped_end_wakeups_until(&self, until: Time) -> Time {
        let ends = self.links.iter().flat_map(|l| &l.dirs);
        ends.filter_map(|d| d.skipped_end_wakeup())
            .filter(|&end| end <= until)
            .max()
            .unwrap_or(Time::ZERO)
    }

    /// The error ending a run the watchdog stopped, naming the source of event `ev`.
    fn bark(&self, bark: Bark, ev: Event) -> InvariantViolation {
        let source = match ev {
            Event::LinkControl { link, sched } => {
                let name = &self.links[link as usize].name;
                format!("spike schedule spikes[{sched}] of link `{name}`")
            }
            Event::LinkWake { link, dir, .. } => {
                let d = if dir == 0 { "forward" } else { "reverse" };
                format!(
                    "the {d} direction of link `{}`",
                    self.links[link as usize].name
                )
            }
            Event::FlowStart { flow } | Event::Timer { flow, .. } => {
                format!("flow `{}`", self.flows[flow as usize].result.name)
            }
            Event::MiddleboxWake { mb, .. } => {
                let link = self.boxes[mb as usize].link;
                format!("the middlebox on link `{}`", self.links[link].name)
            }
        };
        let what = match bark {
            Bark::Stalled { at } => format!(
                "simulated time stopped advancing: {} events at {at}, the last from {source}",
                crate::watchdog::STALL_EVENTS
            ),
            Bark::BudgetExhausted { budget } => {
                format!("event budget of {budget} exhausted, the last event from {source}")
            }
        };
        InvariantViolation {
            time: self.now,
            what,
        }
    }

    fn has_connection(&self) -> bool {
        self.flows
            .iter()
            .any(|f| matches!(f.state, FlowState::Conn(_)))
    }

    #[inline(always)]
    fn handle(&mut self, ev: Event) -> Result<(), InvariantViolation> {
        if L::KEPT {
            self.order.cause = self.now;
        }
        match ev {
            Event::FlowStart { flow } => self.on_flow_start(flow as usize),
            Event::Timer { flow, timer, gen } => self.on_flow_timer(flow as usize, timer, gen),
            Event::LinkWake { link, dir, gen } => {
                self.on_link_wake(link as usize, dir as usize, gen)
            }
            Event::LinkControl { link, sched } => {
                self.on_link_control(link as usize, sched as usize);
                Ok(())
            }
            Event::MiddleboxWake { mb, gen } => self.on_box_wake(mb as usize, gen),
        }
    }

    // ----- flows -----------------------------------------------------------------

    fn on_flow_start(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        match &mut self.flows[f].state {
            FlowState::Conn(c) => {
                c.transport.on_start(now, &mut out);
                c.messages_written = 1;
                c.transport
                    .on_app_write(now, c.workload.first_write(), &mut out);
            }
            FlowState::Cbr(c) => c.next_send = Some(now),
        }
        self.out = out;
        self.after_flow_event(f, Side::Both)
    }

    fn on_flow_timer(
        &mut self,
        f: usize,
        timer: FlowTimer,
        gen: u32,
    ) -> Result<(), InvariantViolation> {
        let now = self.now;
        let live = match (&mut self.flows[f].state, timer) {
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
                let mut acks = std::mem::take(&mut self.out);
                if let FlowState::Conn(c) = &mut self.flows[f].state {
                    c.transport.on_receiver_timer(now, &mut acks);
                }
                self.out = acks;
                Side::Receiver
            }
            FlowTimer::CbrSend => {
                self.on_cbr_send(f);
                Side::Source
            }
        };
        self.after_flow_event(f, side)
    }

    /// The sender's timer of flow `f` fires: ground truth is taken first, from the
    /// network as it is before the sender acts (and retransmits).
    fn on_sender_timer(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let expiry = match &self.flows[f].state {
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
        let mut out = std::mem::take(&mut self.out);
        let decision = match &mut self.flows[f].state {
            FlowState::Conn(c) => c.transport.on_sender_timer(now, &mut out),
            FlowState::Cbr(_) => TimerDecision::NotDue,
        };
        self.out = out;
        self.record_timeout(f, decision, seen)
    }

    fn on_cbr_send(&mut self, f: usize) {
        let now = self.now;
        let FlowState::Cbr(c) = &mut self.flows[f].state else {
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
        let result = &mut self.flows[f].result;
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
    fn send_datagram(&mut self, f: usize) {
        let flow = &self.flows[f];
        let FlowState::Cbr(c) = &flow.state else {
            return;
        };
        let first = flow.hops.get(true, 0);
        match first.filter(|n| !(n.boxed && n.dir == Dir::Forward)) {
            Some(next) if self.drops.is_empty() && self.captures.is_none() => {
                let s = self.arena.put(&c.datagram);
                let p = self.arena.get_mut(s);
                p.uid = self.next_uid;
                p.sent_at = self.now;
                self.next_uid += 1;
                self.enqueue(next.link, dir_index(next.dir), s);
            }
            _ => self.out.push(c.datagram),
        }
    }

    /// Sends what the flow's endpoints produced, re-arms its timers, checks its
    /// invariants, and notes completion. What only depends on the endpoint that `side`
    /// leaves unchanged is not looked at again: its timer's deadline is the one its
    /// slot already wants ([`TimerSlot::want`] would do nothing), and its trace state,
    /// invariants, completion and next message were checked when it last changed.
    fn after_flow_event(&mut self, f: usize, side: Side) -> Result<(), InvariantViolation> {
        debug_assert!(
            self.other_side_settled(f, side),
            "flow {f}: an event at the {side:?} changed what the other endpoint's follow-up reads"
        );
        if side.sender() {
            self.maybe_write_next_message(f);
        }
        let mut out = std::mem::take(&mut self.out);
        // Packets are large: they are stamped in place and copied only into a queue.
        let mut result = Ok(());
        for p in out.iter_mut() {
            result = self.inject(f, p);
            if result.is_err() {
                break;
            }
        }
        out.clear();
        self.out = out;
        result?;
        self.sync_flow_timers(f, side);
        if !side.sender() {
            return Ok(());
        }
        if let FlowState::Conn(c) = &self.flows[f].state {
            let t = &c.transport;
            self.tracer
                .on_sender_state(self.now, FlowId(f as u32), || t.sender_state());
        }
        self.check_flow(f)
    }

    /// Would the follow-up of the endpoint that `side` did not change do nothing? Its
    /// timer slot already wants its deadline, and for the sender: no message is due,
    /// its invariants hold and its completion is noted. Checked in debug builds before
    /// every follow-up, so that every test run compares the shortened follow-up with
    /// the full one.
    fn other_side_settled(&self, f: usize, side: Side) -> bool {
        let flow = &self.flows[f];
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
            wants(c.sender_slot, t.sender_deadline())
                && !message_due
                && t.check_invariants().is_ok()
                && !completes
        };
        match side {
            Side::Receiver => sender(),
            Side::Sender => wants(c.receiver_slot, t.receiver_deadline()),
            Side::Both | Side::Source => true,
        }
    }

    /// Ping-pong: the next message goes out when the previous one is acknowledged.
    fn maybe_write_next_message(&mut self, f: usize) {
        let now = self.now;
        let FlowState::Conn(c) = &mut self.flows[f].state else {
            return;
        };
        let Some(bytes) = c.workload.next_write(c.messages_written) else {
            return;
        };
        if c.transport.all_acked() {
            c.messages_written += 1;
            c.transport.on_app_write(now, bytes, &mut self.out);
        }
    }

    /// Re-arms the timers of flow `f` whose endpoint `side` changed.
    fn sync_flow_timers(&mut self, f: usize, side: Side) {
        let q = &mut self.q;
        let id = f as u32;
        match &mut self.flows[f].state {
            FlowState::Conn(c) => {
                if side.sender() {
                    let d = c.transport.sender_deadline();
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
                    let d = c.transport.receiver_deadline();
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

    fn check_flow(&mut self, f: usize) -> Result<(), InvariantViolation> {
        let now = self.now;
        let flow = &mut self.flows[f];
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
            self.unfinished -= 1;
        }
        Ok(())
    }

    // ----- packets ---------------------------------------------------------------

    /// Hands a packet from an endpoint of flow `f` to the first link of its route.
    fn inject(&mut self, f: usize, p: &mut Packet) -> Result<(), InvariantViolation> {
        p.uid = self.next_uid;
        self.next_uid += 1;
        // A TCP endpoint builds its packets now, at hop 0 (`Packet::new`); a CBR
        // datagram is its flow's template. Stores left out here are fewer narrow
        // stores for the arena's wide copy of the packet to wait on.
        if p.kind == PacketKind::Datagram {
            p.hop = 0;
            p.sent_at = self.now;
        }
        debug_assert!(p.hop == 0 && p.sent_at == self.now, "{p:?} not built now");
        // A TCP endpoint seals its segments and ACKs from its table of their sizes
        // (`spikelab_tcp::wire_size`); the rest (SYNs, datagrams) are sealed here.
        if !p.is_sealed() {
            p.seal();
        }
        self.note_sent(f, p)?;
        self.forward(p)
    }

    /// Bookkeeping for a packet leaving an endpoint: traces, captures, ACK monotonicity.
    fn note_sent(&mut self, f: usize, p: &Packet) -> Result<(), InvariantViolation> {
        let flow = FlowId(f as u32);
        match p.kind {
            PacketKind::Data => {
                self.tracer.record(
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
                if let FlowState::Conn(t) = &mut self.flows[f].state {
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
        capture(&mut self.captures, self.now, f, p, true);
        Ok(())
    }

    /// The next hop of a packet whose flow's route is too long to pack
    /// ([`PackedRoute`]), read from the route's list.
    fn next_hop_unpacked(&self, p: &Packet) -> Option<NextHop> {
        let route = &self.flows[p.flow.index()].route;
        let (link, dir) = route::next_hop(route, p.kind.is_forward(), p.hop)?;
        Some(NextHop {
            link,
            dir,
            boxed: self.box_at[link].is_some(),
        })
    }

    /// Puts `p` on its next link, or hands it to the endpoint at the route's end.
    /// Always inlined (into the injection of every packet an endpoint sends): the call
    /// cycle through the endpoint is broken by `after_flow_event`, a function of its own.
    /// The three cases are taken apart here rather than from one answer of where the
    /// packet goes: the compiler kept such an answer in memory and tested it again.
    #[inline(always)]
    fn forward(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
        let hops = &self.flows[p.flow.index()].hops;
        match hops.get(p.kind.is_forward(), p.hop) {
            Some(next) => self.forward_to(next, p),
            None if hops.packed() => self.deliver(p),
            None => self.forward_unpacked(p),
        }
    }

    /// [`Self::forward`] on a long route.
    #[cold]
    #[inline(never)]
    fn forward_unpacked(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
        match self.next_hop_unpacked(p) {
            Some(next) => self.forward_to(next, p),
            None => self.deliver(p),
        }
    }

    /// Puts `p` on link `next`, through the box at its first endpoint if it enters it
    /// forward.
    #[inline(always)]
    fn forward_to(&mut self, next: NextHop, p: &Packet) -> Result<(), InvariantViolation> {
        let NextHop { link, dir, boxed } = next;
        if boxed && dir == Dir::Forward {
            let b = self.box_at[link].expect("the packed route marks the links with a box");
            return self.through_box(b, *p);
        }
        self.enter_link(link, dir, p);
        Ok(())
    }

    /// Offers `p` to link `l` in direction `dir` (after any deterministic drop rule).
    #[inline(always)]
    fn enter_link(&mut self, l: usize, dir: Dir, p: &Packet) {
        let d = dir_index(dir);
        if self.dropped_by_rule(l, p) {
            self.note_drop(l, p);
            return;
        }
        let s = self.arena.put(p);
        self.enqueue(l, d, s);
    }

    /// Offers the packet in slot `s` to direction `d` of link `l`.
    fn enqueue(&mut self, l: usize, d: usize, s: Slot) {
        let dir = &mut self.links[l].dirs[d];
        // The wakeup armed when the link last changed stays right (`sync_link` after
        // every change of a link; the packet it is for only leaves at a wakeup).
        let wake_unchanged = dir.wakeup_kept_by_arrival();
        let lost = match L::KEPT {
            true => dir.enqueue_scheduled(self.now, s, self.order.cause),
            false => dir.enqueue(self.now, s),
        };
        if let Some(lost) = lost {
            let lost = self.arena.take(lost);
            self.note_drop(l, &lost);
        }
        if !wake_unchanged {
            self.sync_link(l, d);
        }
    }

    /// Moves the packet in slot `s`, which just left a link, on along its route: into
    /// its next link without leaving the arena, or out of it to a middlebox or the
    /// endpoint (the same steps as [`Self::forward`]). Always inlined (into the link's
    /// wake-up and a box's exit): it is on every packet's path, and a box's exit calls
    /// it in a cycle that only [`Self::through_box_slot`], never inlined, breaks.
    #[inline(always)]
    fn forward_slot(&mut self, s: Slot) -> Result<(), InvariantViolation> {
        let p = self.arena.get(s);
        let hops = &self.flows[p.flow.index()].hops;
        match hops.get(p.kind.is_forward(), p.hop) {
            Some(next) => self.forward_slot_to(next, s),
            // The end of the route: the endpoint reads the packet where it lies.
            None if hops.packed() => self.deliver_slot(s),
            None => self.forward_slot_unpacked(s),
        }
    }

    /// [`Self::forward_slot`] on a long route.
    #[cold]
    #[inline(never)]
    fn forward_slot_unpacked(&mut self, s: Slot) -> Result<(), InvariantViolation> {
        match self.next_hop_unpacked(self.arena.get(s)) {
            Some(next) => self.forward_slot_to(next, s),
            None => self.deliver_slot(s),
        }
    }

    /// [`Self::forward_to`] for the packet in slot `s`.
    #[inline(always)]
    fn forward_slot_to(&mut self, next: NextHop, s: Slot) -> Result<(), InvariantViolation> {
        let NextHop { link, dir, boxed } = next;
        if boxed && dir == Dir::Forward {
            // Into the box at the link's first endpoint (`Self::forward`'s case).
            let b = self.box_at[link].expect("the packed route marks the links with a box");
            return self.through_box_slot(b, s);
        }
        self.enter_link_slot(link, dir, s);
        Ok(())
    }

    /// [`Self::enter_link`] for the packet in slot `s`.
    #[inline(always)]
    fn enter_link_slot(&mut self, l: usize, dir: Dir, s: Slot) {
        if self.dropped_by_rule(l, self.arena.get(s)) {
            let p = self.arena.take(s);
            self.note_drop(l, &p);
            return;
        }
        self.enqueue(l, dir_index(dir), s);
    }

    /// Does a deterministic [`DropRule`] remove `p` as it enters link `l`? Inlined, its
    /// rules out of line: asked once per packet per hop, and most runs have none.
    #[inline(always)]
    fn dropped_by_rule(&self, l: usize, p: &Packet) -> bool {
        !self.drops.is_empty() && self.dropped_by_a_rule(l, p)
    }

    #[inline(never)]
    fn dropped_by_a_rule(&self, l: usize, p: &Packet) -> bool {
        let FlowState::Conn(c) = &self.flows[p.flow.index()].state else {
            return false;
        };
        let mss = c.transport.segment_size();
        self.drops.iter().any(|r| r.matches(l, p, mss, self.now))
    }

    fn sync_link(&mut self, l: usize, d: usize) {
        arm_link_wake(&mut self.q, &mut self.links[l], l, d);
    }

    fn on_link_wake(&mut self, l: usize, d: usize, gen: u32) -> Result<(), InvariantViolation> {
        // The link is looked up once for the wake-up's test, the poll, the re-arm and
        // the conservation check: none of them needs the rest of the world.
        let link = &mut self.links[l];
        // Live: the slot keeps its deadline until the re-arm below sets the next one.
        if !link.wake[d].is_live(gen) {
            return Ok(());
        }
        // The link writes into the world's lists in place (disjoint fields), and they
        // are read by index and cleared, not taken out and put back: nothing the moves
        // of the packets below call polls a link or touches the lists.
        match L::KEPT {
            true => link.dirs[d].poll_scheduled(
                self.now,
                &mut self.delivered,
                &mut self.order.scheduled,
                &mut self.dropped,
            ),
            false => link.dirs[d].poll(self.now, &mut self.delivered, &mut self.dropped),
        }
        // Re-armed and checked before the packets lost inside the link are noted:
        // noting them (trace, arena) changes neither the link nor the queue.
        rearm_link_wake(&mut self.q, link, l, d);
        let conserved = link.dirs[d].packets_conserved();
        for i in 0..self.dropped.len() {
            let p = self.arena.take(self.dropped[i]);
            self.note_drop(l, &p);
        }
        self.dropped.clear();
        if !conserved {
            self.delivered.clear();
            self.order.scheduled.clear();
            return Err(self.link_not_conserved(l, d));
        }
        for i in 0..self.delivered.len() {
            let s = self.delivered[i];
            if L::KEPT {
                self.order.cause = self.order.scheduled[i];
            }
            self.arena.get_mut(s).hop += 1;
            let moved = match self.box_at[l] {
                // Leaving the link in reverse: the box at its first endpoint sees it.
                Some(b) if d == 1 => self.through_box_slot(b, s),
                _ => self.forward_slot(s),
            };
            // The first error ends the run: the packets after it leave the arena
            // unmoved. Returned from here rather than carried through the loop.
            if let Err(e) = moved {
                self.abandon_delivered(i + 1);
                return Err(e);
            }
        }
        self.delivered.clear();
        if L::KEPT {
            self.order.scheduled.clear();
        }
        Ok(())
    }

    /// After an error at the `from`-th packet a wake-up delivered: the rest leave the
    /// arena without being moved on, and the lists are cleared.
    #[cold]
    #[inline(never)]
    fn abandon_delivered(&mut self, from: usize) {
        for &s in &self.delivered[from..] {
            self.arena.take(s);
        }
        self.delivered.clear();
        self.order.scheduled.clear();
    }

    // ----- middleboxes -------------------------------------------------------------

    /// Box `b` sees `p`, which is not in the arena (it comes from an endpoint).
    fn through_box(&mut self, b: usize, p: Packet) -> Result<(), InvariantViolation> {
        let mut out = std::mem::take(&mut self.mb_out);
        self.boxes[b].mb.on_owned_packet(self.now, p, &mut out);
        self.after_box(b, out, None)
    }

    /// Box `b` sees the packet in slot `s`, where it reads it; if the box passes it,
    /// it continues from that slot ([`MbOutput::pass`]), so a packet crossing a box is
    /// not copied out of the arena and back.
    #[inline(never)]
    fn through_box_slot(&mut self, b: usize, s: Slot) -> Result<(), InvariantViolation> {
        // The box writes into the world's output in place: it is taken out (to be
        // walked while the world moves packets) only when there is more than a pass.
        self.boxes[b]
            .mb
            .on_packet(self.now, self.arena.get(s), &mut self.mb_out);
        if !self.mb_out.only_passed() {
            let out = std::mem::take(&mut self.mb_out);
            return self.after_box(b, out, Some(s));
        }
        // What a box does with almost every packet: [`Self::after_box`]'s steps for a
        // lone pass, in its order, without its walk over the output.
        self.mb_out.clear();
        let result = self.leave_box_slot(b, s);
        self.rearm_box(b);
        result
    }

    fn on_box_wake(&mut self, b: usize, gen: u32) -> Result<(), InvariantViolation> {
        if !self.boxes[b].slot.fire(gen) {
            return Ok(());
        }
        let mut out = std::mem::take(&mut self.mb_out);
        self.boxes[b].mb.on_wakeup(self.now, &mut out);
        self.after_box(b, out, None)
    }

    /// Sends on what box `b` released, in order, the packet it was handed in slot
    /// `arrived` among them where the box passed it (its slot is freed if the box did
    /// not), notes its verdicts, re-arms its wake-up.
    fn after_box(
        &mut self,
        b: usize,
        mut out: MbOutput,
        arrived: Option<Slot>,
    ) -> Result<(), InvariantViolation> {
        let mut result = Ok(());
        for e in &out.events {
            if let MbEventKind::Verdict { spurious } = e.kind {
                result = result.and_then(|_| self.note_box_verdict(b, e.flow, e.time, spurious));
            }
        }
        let passed = out.take_pass();
        debug_assert!(
            passed.is_none() || arrived.is_some(),
            "a pass without a packet handed in"
        );
        for i in 0..=out.forward.len() {
            if passed == Some(i) {
                let s = arrived.expect("checked above");
                result = match result {
                    Ok(()) => self.leave_box_slot(b, s),
                    Err(e) => {
                        self.arena.free(s);
                        Err(e)
                    }
                };
            }
            if i < out.forward.len() && result.is_ok() {
                result = self.leave_box(b, out.forward[i]);
            }
        }
        if let (Some(s), None) = (arrived, passed) {
            self.arena.free(s);
        }
        out.clear();
        self.mb_out = out;
        self.rearm_box(b);
        result
    }

    /// Makes sure box `b` is woken at its next wake-up.
    fn rearm_box(&mut self, b: usize) {
        let q = &mut self.q;
        let wake = self.boxes[b].mb.next_wakeup();
        let slot = &mut self.boxes[b].slot;
        slot.want(wake, |at, gen| {
            q.push(at, Event::MiddleboxWake { mb: b as u32, gen })
        });
    }

    /// [`Self::leave_box`] for the packet in slot `s`, which stays there.
    fn leave_box_slot(&mut self, b: usize, s: Slot) -> Result<(), InvariantViolation> {
        let l = self.boxes[b].link;
        let p = self.arena.get(s);
        let r = &self.flows[p.flow.index()].route;
        match route::after_box(r, l, p.kind.is_forward()) {
            None => {
                self.arena.free(s);
                Ok(())
            }
            Some(AfterBox::Enter(hop)) => {
                self.arena.get_mut(s).hop = hop;
                self.enter_link_slot(l, Dir::Forward, s);
                Ok(())
            }
            Some(AfterBox::Continue(hop)) => {
                self.arena.get_mut(s).hop = hop;
                self.forward_slot(s)
            }
        }
    }

    /// A packet continues from box `b` at the first endpoint of its link: into the link
    /// if it crosses it forward, on along its route if it just crossed it in reverse.
    fn leave_box(&mut self, b: usize, mut q: Packet) -> Result<(), InvariantViolation> {
        let l = self.boxes[b].link;
        let r = &self.flows[q.flow.index()].route;
        match route::after_box(r, l, q.kind.is_forward()) {
            None => Ok(()),
            Some(AfterBox::Enter(hop)) => {
                q.hop = hop;
                self.enter_link(l, Dir::Forward, &q);
                Ok(())
            }
            Some(AfterBox::Continue(hop)) => {
                q.hop = hop;
                self.forward(&q)
            }
        }
    }

    /// Packet conservation on direction `d` of link `l` (after a spike control; a wake-up
    /// tests it in [`Self::on_link_wake`]). Inlined,
    /// its error out of line: the check is a few loads and one comparison.
    #[inline(always)]
    fn check_link(&self, l: usize, d: usize) -> Result<(), InvariantViolation> {
        match self.links[l].dirs[d].packets_conserved() {
            true => Ok(()),
            false => Err(self.link_not_conserved(l, d)),
        }
    }

    #[cold]
    #[inline(never)]
    fn link_not_conserved(&self, l: usize, d: usize) -> InvariantViolation {
        let c = self.links[l].dirs[d].counters();
        let what = format!(
            "link {} dir {d}: offered {:?} != delivered + dropped + in network",
            self.links[l].name, c
        );
        InvariantViolation {
            time: self.now,
            what,
        }
    }

    fn note_drop(&mut self, l: usize, p: &Packet) {
        let is_ack = !p.kind.is_forward();
        let ev = TraceEvent::Drop {
            seq: if is_ack { p.ack } else { p.seq },
            len: p.len,
            is_ack,
            link: l as u32,
        };
        self.tracer.record(self.now, p.flow, ev);
    }

    /// A packet that never entered the arena (a route ending right behind a box)
    /// reached the end of its route.
    fn deliver(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
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
    fn deliver_slot(&mut self, s: Slot) -> Result<(), InvariantViolation> {
        let (hosts, arena) = self.hosts();
        let f = hosts.receive(arena.get(s));
        self.arena.free(s);
        match f {
            Some((f, side)) => self.after_flow_event(f, side),
            None => Ok(()),
        }
    }

    /// The endpoints' side of the world beside the arena, so that a packet can be read
    /// in the arena while an endpoint acts on it.
    fn hosts(&mut self) -> (Hosts<'_>, &Arena) {
        let hosts = Hosts {
            now: self.now,
            flows: &mut self.flows,
            out: &mut self.out,
            tracer: &mut self.tracer,
            captures: &mut self.captures,
            data_packets_delivered: &mut self.data_packets_delivered,
            record_rto: self.record_rto,
        };
        (hosts, &self.arena)
    }

    // ----- ground truth ------------------------------------------------------------

    /// The record of a data timeout of flow `f` with the network's facts about the data
    /// it fired for (see [`crate::truth`]), seen before the sender acts.
    fn observe_timeout(&self, f: usize, d: TimedOut) -> TimeoutRecord {
        let fid = FlowId(f as u32);
        let in_network =
            |pred: &dyn Fn(&Packet) -> bool| self.any_in_network(f, |p| p.flow == fid && pred(p));
        let facts = match &self.flows[f].state {
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
    fn record_timeout(
        &mut self,
        f: usize,
        decision: TimerDecision,
        seen: Option<Seen>,
    ) -> Result<(), InvariantViolation> {
        let r = &mut self.flows[f].result;
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
                self.tracer.record(self.now, FlowId(f as u32), ev);
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
    fn note_box_verdict(
        &mut self,
        b: usize,
        flow: FlowId,
        at: Time,
        spurious: bool,
    ) -> Result<(), InvariantViolation> {
        let name = self.boxes[b].detector;
        let Some(detector) = name.and_then(DetectorKind::from_label) else {
            let what = format!(
                "the middlebox on link `{}` reported a verdict but runs no registered detector ({name:?})",
                self.links[self.boxes[b].link].name
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

    fn any_in_network(&self, f: usize, pred: impl Fn(&Packet) -> bool) -> bool {
        let mut found = false;
        let arena = &self.arena;
        for hop in &self.flows[f].route {
            for dir in &self.links[hop.link].dirs {
                dir.for_each_in_network(|&s| found |= pred(arena.get(s)));
            }
            if let Some(b) = self.box_at[hop.link] {
                self.boxes[b].mb.for_each_held(&mut |p| found |= pred(p));
            }
        }
        found
    }

    // ----- path events -------------------------------------------------------------

    /// Asks schedule `s` of link `l` for its next control and queues it.
    fn schedule_next_control(&mut self, l: usize, s: usize) {
        let run = &mut self.links[l].spikes[s];
        let next = run.schedule.next(&mut run.rng);
        run.pending = next.map(|(_, c)| c);
        if let Some((t, _)) = next {
            self.q.push(
                t.max(self.now),
                Event::LinkControl {
                    link: l as u32,
                    sched: s as u32,
                },
            );
        }
    }

    fn on_link_control(&mut self, l: usize, s: usize) {
        let Some(control) = self.links[l].spikes[s].pending.take() else {
            return;
        };
        let now = self.now;
        for d in [Dir::Forward, Dir::Reverse] {
            let i = dir_index(d);
            let dir = &mut self.links[l].dirs[i];
            let Some(thaw_drops) = control::apply(control, d, dir, now) else {
                continue;
            };
            for s in thaw_drops {
                let p = self.arena.take(s);
                self.note_drop(l, &p);
            }
            self.sync_link(l, i);
        }
        let start = matches!(control, LinkControl::Suspend(..));
        if matches!(control, LinkControl::Suspend(..) | LinkControl::Resume(_)) {
            self.tracer.record(
                now,
                FlowId(0),
                TraceEvent::Spike {
                    start,
                    link: l as u32,
                },
            );
        }
        self.schedule_next_control(l, s);
    }

    // ----- results -----------------------------------------------------------------

    fn finish(self) -> Result<RunResult, InvariantViolation> {
        let mut links = Vec::new();
        for (l, link) in self.links.iter().enumerate() {
            for (d, name) in [(0, "forward"), (1, "reverse")] {
                self.check_link(l, d)?;
                let c = link.dirs[d].counters();
                links.push(LinkResult {
                    name: link.name.clone(),
                    dir: name,
                    offered: c.offered.packets,
                    delivered: c.delivered.packets,
                    dropped: c.dropped.packets,
                    in_network: c.in_network.packets,
                });
            }
        }
        let reports: Vec<_> = self
            .flows
            .iter()
            .map(|f| match &f.state {
                FlowState::Conn(c) => Some(c.transport.judgements()),
                FlowState::Cbr(_) => None,
            })
            .collect();
        let done = self
            .ledger
            .finish(&reports)
            .map_err(|what| InvariantViolation {
                time: self.now,
                what,
            })?;
        let mut flows = self.flows;
        for v in &done.unmatched_box_verdicts {
            flows[v.flow].result.unmatched_box_verdicts += 1;
        }
        let timeouts = done.records;
        let flows = flows.into_iter().map(finish_flow).collect();
        Ok(RunResult {
            seed: self.seed,
            end: self.now,
            flows,
            timeouts,
            links,
            events: self.q.popped(),
            data_packets_delivered: self.data_packets_delivered,
            trace: self.tracer.into_records(),
            captures: self.captures.unwrap_or_default(),
        })
    }
}

/// Which endpoints of a flow an event may have changed: a TCP flow's sender and
/// receiver share no state (they talk through packets only), so an event at one leaves
/// everything [`Sim::after_flow_event`] derives from the other as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// The sender (an ACK, its timer).
    Sender,
    /// The receiver (a data segment or SYN, the delayed-ACK timer).
    Receiver,
    /// Either (a flow's start, a datagram reaching a TCP flow).
    Both,
    /// A CBR source's send timer: neither TCP endpoint, so no message, trace or
    /// check to follow up, only the source's timer to re-arm.
    Source,
}

impl Side {
    fn sender(self) -> bool {
        matches!(self, Side::Sender | Side::Both)
    }
    fn receiver(self) -> bool {
        matches!(self, Side::Receiver | Side::Both)
    }
}

/// What an endpoint receiving a packet touches ([`Sim::hosts`]).
struct Hosts<'a> {
    now: Time,
    flows: &'a mut [Flow],
    out: &'a mut Vec<Packet>,
    tracer: &'a mut Tracer,
    captures: &'a mut Option<Vec<Vec<Captured>>>,
    data_packets_delivered: &'a mut u64,
    record_rto: bool,
}

impl Hosts<'_> {
    /// The endpoint of `p`'s flow receives `p`: its replies go to `out`. Returns the
    /// flow whose endpoint must be followed up ([`Sim::after_flow_event`]) and which
    /// one it is, or `None` after a datagram's arrival, which changes nothing at its
    /// CBR source but the count: no packet to send, no timer moved, no TCP state to
    /// check.
    #[inline(always)]
    fn receive(self, p: &Packet) -> Option<(usize, Side)> {
        let now = self.now;
        let f = p.flow.index();
        capture(self.captures, now, f, p, false);
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
                    self.tracer.record(
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
                    self.tracer
                        .on_ack(now, p.flow, p.ack, duplicate, rtt_sample);
                }
                Arrival::Unclaimed => side = Side::Both,
            },
        }
        Some((f, side))
    }
}

/// Records `p` for pcap files as seen at `now` by the endpoint of flow `f` that sends
/// it (`sending`) or receives it. A function of the captures alone, so that it can be
/// called while the packet is borrowed from the arena.
fn capture(
    captures: &mut Option<Vec<Vec<Captured>>>,
    now: Time,
    f: usize,
    p: &Packet,
    sending: bool,
) {
    if let Some(c) = captures {
        let at = if p.kind.is_forward() == sending {
            Endpoint::Sender
        } else {
            Endpoint::Receiver
        };
        c[f].push(Captured {
            time: now,
            packet: *p,
            at,
        });
    }
}

/// Makes sure direction `d` of `link` (link number `l`) is woken at its next wakeup,
/// queueing a new event only when that moves earlier ([`TimerSlot::want`]).
fn arm_link_wake<L: Lead>(q: &mut EventQueue, link: &mut LinkState<L>, l: usize, d: usize) {
    let wake = link.dirs[d].next_wakeup();
    link.wake[d].want(wake, |at, gen| {
        q.push(
            at,
            Event::LinkWake {
                link: l as u32,
                dir: d as u8,
                gen,
            },
        )
    });
}

/// [`arm_link_wake`] after a wake-up of direction `d` of `link` (the live event, just
/// handled): its next wakeup, if any, is queued whatever the slot held.
fn rearm_link_wake<L: Lead>(q: &mut EventQueue, link: &mut LinkState<L>, l: usize, d: usize) {
    let wake = link.dirs[d].next_wakeup();
    link.wake[d].rearm(wake, |at, gen| {
        q.push(
            at,
            Event::LinkWake {
                link: l as u32,
                dir: d as u8,
                gen,
            },
        )
    });
}

fn finish_flow(f: Flow) -> FlowResult {
    let mut r = f.result;
    if let FlowState::Conn(c) = &f.state {
        let s = c.transport.stats();
        r.data_segments_sent = s.data_segments_sent;
        r.retransmissions = s.retransmissions;
        r.fast_retransmits = s.fast_retransmits;
        r.spurious_responses = s.spurious_responses;
        r.recovery_dsack_undos = s.recovery_dsack_undos;
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
        unreachable!("every other flow kind is a registered transport's")
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

fn build_link<L: Lead>(
    cfg: &spikelab_net::LinkConfig,
    i: usize,
    streams: &RngStreams,
) -> LinkState<L> {
    let spikes = route::spike_schedules(cfg, i, streams)
        .into_iter()
        .map(|(schedule, rng)| SpikeRun {
            schedule,
            rng,
            pending: None,
        })
        .collect();
    LinkState {
        name: cfg.name.clone(),
        dirs: route::link_dirs(cfg, i, streams),
        wake: [TimerSlot::default(); 2],
        spikes,
    }
}
