//! The world: one run's event loop over five concerns, one module each —
//! [`flows`] (the endpoints, driven through the [`Transport`](crate::transport::Transport)
//! hooks), [`forwarding`] (links, routes, the packets inside them), [`middleboxes`],
//! [`ground_truth`] and [`capture`] (traces and pcap). [`Sim`] composes their state;
//! each module adds the methods of its concern.
//!
//! Routing is by source route: a flow's forward packets (data, SYN, datagrams) cross its
//! hops in order; its reverse packets (ACKs) cross them backwards in the opposite
//! direction. `Packet::hop` indexes the packet's route.

mod capture;
mod flows;
mod forwarding;
mod ground_truth;
mod middleboxes;
#[cfg(test)]
mod sizes;

use crate::arena::Arena;
use crate::config::SimConfig;
use crate::events::{Event, EventQueue, TimerSlot};
use crate::results::{LinkResult, RunResult};
use crate::route;
use crate::trace::Tracer;
use crate::transport::{FromFlow, Single, Transport, Transports};
use crate::truth::Ledger;
use crate::watchdog::{Bark, Watchdog};
use capture::Capture;
use flows::Flows;
use forwarding::Network;
use middleboxes::{BoxState, Boxes};
use spikelab_core::{RngStreams, Time};
use spikelab_net::link::same_instant::Lead;
use spikelab_net::{Mb, MbOutput, Middlebox};

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

/// One simulation run.
pub struct World(Order);

/// The run's order of same-instant events, chosen once when it is built: its links
/// keep scheduling leads (`u32`) only when ns-2's order is on, so a run in spikelab's
/// own order takes the plain code path with no per-packet test or field
/// (`spikelab_net::link::same_instant`).
///
/// And over which transports: a run whose connections are all of the [`Single`]
/// transport is built over it alone, so that no hook of a connection goes through a
/// `match` over every registered transport ([`Transports`], the mixed case).
enum Order {
    Own(Sim<(), Single>),
    Ns2(Sim<u32, Single>),
    OwnMixed(Sim<(), Transports>),
    Ns2Mixed(Sim<u32, Transports>),
}

/// The simulation itself; `L` is what its links keep of when events were scheduled,
/// `T` the transport of its connections.
/// Its state is that of the five concerns, beside the clock and the event queue.
struct Sim<L, T> {
    now: Time,
    q: EventQueue,
    net: Network<L>,
    flows: Flows<T>,
    boxes: Boxes,
    /// Every data timeout with its ground truth; verdicts attach to it by identity.
    ledger: Ledger,
    capture: Capture,
    stop_at: Time,
    seed: u64,
    watchdog: Watchdog,
}

impl World {
    /// Builds the world for `cfg` with run seed `seed`.
    pub fn new(cfg: &SimConfig, seed: u64) -> World {
        let ns2_order = cfg.flows.iter().any(|f| f.kind.ns2_same_instant_order());
        let single =
            (cfg.flows.iter()).all(|f| f.kind.connection().is_none() || Single::takes(&f.kind));
        World(match (ns2_order, single) {
            (false, true) => Order::Own(Sim::new(cfg, seed)),
            (true, true) => Order::Ns2(Sim::new(cfg, seed)),
            (false, false) => Order::OwnMixed(Sim::new(cfg, seed)),
            (true, false) => Order::Ns2Mixed(Sim::new(cfg, seed)),
        })
    }

    /// Ends the run with an error after `budget` events (a guard for tests and fuzzing;
    /// by default a run has no budget, only the stall watchdog).
    pub fn with_event_budget(self, budget: u64) -> World {
        World(match self.0 {
            Order::Own(s) => Order::Own(s.with_event_budget(budget)),
            Order::Ns2(s) => Order::Ns2(s.with_event_budget(budget)),
            Order::OwnMixed(s) => Order::OwnMixed(s.with_event_budget(budget)),
            Order::Ns2Mixed(s) => Order::Ns2Mixed(s.with_event_budget(budget)),
        })
    }

    /// Runs to completion and returns the results, or the first broken invariant
    /// (a stalled clock or an exhausted event budget included, see [`crate::watchdog`]).
    pub fn run(self) -> Result<RunResult, InvariantViolation> {
        match self.0 {
            Order::Own(s) => s.run(),
            Order::Ns2(s) => s.run(),
            Order::OwnMixed(s) => s.run(),
            Order::Ns2Mixed(s) => s.run(),
        }
    }
}

impl<L: Lead, T: Transport + FromFlow> Sim<L, T> {
    fn new(cfg: &SimConfig, seed: u64) -> Sim<L, T> {
        let streams = RngStreams::new(seed);
        let mut world = Sim {
            now: Time::ZERO,
            q: EventQueue::new(),
            net: Network::new(cfg, &streams),
            flows: Flows::new(cfg.flows.len(), cfg.record_rto),
            boxes: Boxes {
                list: Vec::new(),
                at: route::box_placement(cfg.links.len(), &cfg.middleboxes),
                out: MbOutput::new(),
            },
            ledger: Ledger::new(cfg.flows.len()),
            capture: Capture {
                tracer: Tracer::new(cfg.trace),
                pcap: cfg.pcap.then(|| vec![Vec::new(); cfg.flows.len()]),
            },
            stop_at: Time::ZERO + cfg.stop_at,
            seed,
            watchdog: Watchdog::default(),
        };
        for (i, spec) in cfg.middleboxes.iter().enumerate() {
            let mb = Mb::new(&spec.config, streams.stream("middlebox", i as u64));
            world.boxes.list.push(BoxState {
                link: spec.link,
                detector: mb.detector(),
                mb,
                slot: TimerSlot::default(),
            });
        }
        for (i, spec) in cfg.flows.iter().enumerate() {
            world.add_flow(i, spec, &streams);
        }
        for l in 0..world.net.links.len() {
            for s in 0..world.net.spikes[l].len() {
                world.schedule_next_control(l, s);
            }
        }
        world
    }

    fn with_event_budget(mut self, budget: u64) -> Sim<L, T> {
        self.watchdog = Watchdog::new(Some(budget));
        self
    }

    /// The event loop, one function per instance (not inlined into [`World::run`]'s
    /// four arms).
    #[inline(never)]
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
            if self.flows.unfinished == 0 && self.has_connection() {
                break;
            }
        }
        self.finish()
    }

    /// The error ending a run the watchdog stopped, naming the source of event `ev`.
    fn bark(&self, bark: Bark, ev: Event) -> InvariantViolation {
        let source = match ev {
            Event::LinkControl { link, sched } => {
                let name = &self.net.names[link as usize];
                format!("spike schedule spikes[{sched}] of link `{name}`")
            }
            Event::LinkWake { link, dir, .. } => {
                let d = if dir == 0 { "forward" } else { "reverse" };
                format!(
                    "the {d} direction of link `{}`",
                    self.net.names[link as usize]
                )
            }
            Event::FlowStart { flow } | Event::Timer { flow, .. } => {
                format!("flow `{}`", self.flows.list[flow as usize].result.name)
            }
            Event::MiddleboxWake { mb, .. } => {
                let link = self.boxes.list[mb as usize].link;
                format!("the middlebox on link `{}`", self.net.names[link])
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

    #[inline(always)]
    fn handle(&mut self, ev: Event) -> Result<(), InvariantViolation> {
        if L::KEPT {
            self.net.order.cause = self.now;
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

    fn finish(mut self) -> Result<RunResult, InvariantViolation> {
        // The packets left in the network, the pending events and then the links' state
        // are given back before the results are built, whose vectors reuse that memory
        // instead of adding to the run's peak (issue 44: at 1 000 flows the peak was
        // here, 0.7 MB of results on top of the full network).
        self.net.arena = Arena::default();
        let events = self.q.popped();
        self.q = EventQueue::default();
        let mut links = Vec::with_capacity(LinkResult::DIRS.len() * self.net.links.len());
        for (l, link) in self.net.links.iter().enumerate() {
            for (d, name) in LinkResult::DIRS {
                self.check_link(l, d)?;
                let c = link.dirs[d].link.counters();
                links.push(LinkResult::from_counters(&self.net.names[l], name, &c));
            }
        }
        self.net.links = Vec::new();
        let reports = self.flows.judgements();
        let done = self
            .ledger
            .finish(&reports)
            .map_err(|what| InvariantViolation {
                time: self.now,
                what,
            })?;
        drop(reports);
        let data_packets_delivered = self.flows.data_packets_delivered;
        let mut flows = self.flows;
        for v in &done.unmatched_box_verdicts {
            flows.list[v.flow].result.unmatched_box_verdicts += 1;
        }
        let timeouts = done.records;
        let flows = flows.into_results();
        Ok(RunResult {
            seed: self.seed,
            end: self.now,
            flows,
            timeouts,
            links,
            events,
            data_packets_delivered,
            trace: self.capture.tracer.into_records(),
            captures: self.capture.pcap.unwrap_or_default(),
        })
    }
}
