//! One direction of a full-duplex point-to-point link: queue, transmitter (service
//! model), then a propagation pipe of one-way latency.
//!
//! ```text
//! enqueue ─▶ Queue ─▶ Service (transmitter) ─▶ propagation (latency + extra) ─▶ poll
//!                   └───────────── frozen by suspend() ───────────────┘
//! ```
//!
//! * Packets reach the far end in the order they left the transmitter: the propagation
//!   pipe is a FIFO whose arrival times never decrease (a packet whose own delay would
//!   let it overtake the one before waits for it), as on a real wire. The one
//!   exception is a delay trace drawn with [`DelaySampling::PerPacketReordering`]: the
//!   pipe is then kept in arrival order (ties in the order the packets left the
//!   transmitter), so a packet that drew a short delay overtakes those that drew long
//!   ones.
//! * [`LinkDir::suspend`] models the hiccup of [Gurtov & Ludwig 2002] 4 and the outages of
//!   [Ekström & Ludwig 2004] Scenario C. By default ([`FreezeMode::default`]) everything
//!   *after* the queue stops where it is (the transmission in progress and the packets
//!   propagating are held, not dropped) while arrivals keep queueing and may overflow.
//!   On [`LinkDir::resume`] every held deadline moves later by exactly the suspension's
//!   length. Packets that had already reached the far end before the suspension (due at
//!   or before it) are not held back. The other readings (frozen in front of the queue,
//!   the wire not held, arrivals dropped) are the switches of [`crate::freeze`].
//! * Time only moves forward: every call takes `now`, which must never decrease.

use crate::config::LinkDirConfig;
use crate::delay::{DelaySampling, DelayTrace};
use crate::freeze::{FreezeMode, FrozenArrivals};
use crate::link::same_instant::Lead;
use crate::queue::{DropTail, Queue};
use crate::service::rate::Rate;
use crate::service::{Departure, Service, ServiceModel, Timed};
use rand::{Rng, SeedableRng};
use spikelab_core::{BitRate, Dur, Packet, SimRng, Time, Wire};
use std::collections::VecDeque;
use std::sync::Arc;

/// A count of packets and of their wire bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketBytes {
    /// Packets.
    pub packets: u64,
    /// Wire bytes (headers included).
    pub bytes: u64,
}

impl PacketBytes {
    fn add<P: Wire>(&mut self, pkt: &P) {
        self.packets += 1;
        self.bytes += pkt.wire_bytes() as u64;
    }
    fn plus(self, o: PacketBytes) -> PacketBytes {
        PacketBytes {
            packets: self.packets + o.packets,
            bytes: self.bytes + o.bytes,
        }
    }
}

/// Traffic counters of one link direction. Always `offered = delivered + dropped +
/// in_network`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets handed to [`LinkDir::enqueue`].
    pub offered: PacketBytes,
    /// Packets dropped: by the queue, or lost inside the link.
    pub dropped: PacketBytes,
    /// The part of `dropped` lost inside the link (link-layer retry limit).
    pub lost_in_link: PacketBytes,
    /// Packets that reached the far end.
    pub delivered: PacketBytes,
    /// Packets still inside (queued, being sent, propagating).
    pub in_network: PacketBytes,
}

/// Entries an idle propagation pipe keeps (see [`LinkDir::release_idle_pipe`]).
const IDLE_PIPE_CAPACITY: usize = 16;

/// A packet on its way to the far end.
#[derive(Clone, Copy, Debug)]
struct InFlight<P, L> {
    pkt: P,
    /// When it reaches the far end (or is discarded, if `lost`).
    at: Time,
    lost: bool,
    /// How long before `at` its arrival was scheduled ([`same_instant`]; `()` when
    /// not kept).
    lead: L,
}

/// A suspension in progress ([`LinkDir::suspend`] until [`LinkDir::resume`]).
#[derive(Clone, Debug)]
struct Suspension<P> {
    /// When it began.
    since: Time,
    /// How it freezes the link.
    mode: FreezeMode,
    /// Arrivals held in front of the queue by a [`crate::freeze::FreezePoint::BeforeQueue`]
    /// freeze, in order.
    gate: VecDeque<P>,
    gate_bytes: PacketBytes,
}

/// One direction of a point-to-point link. Sans-I/O: the engine calls
/// [`LinkDir::next_wakeup`] and [`LinkDir::poll`].
///
/// It carries `P`: [`Packet`]s, or (the engine) small handles to packets kept in an
/// arena, which is all a link needs since it only reads their size ([`Wire`]). `L` is
/// what it keeps of when its events were scheduled: nothing (`()`, the default), or
/// `u32` leads for ns-2's order of same-instant events ([`same_instant::Lead`]).
///
/// A direction is held in one of two forms with the same answers: a plain direction
/// (fixed rate, drop-tail dropping arrivals, no delay trace) as one FIFO of timed
/// packets ([`plain`]), every other as a queue, a transmitter and a propagation pipe
/// ([`Staged`]). A plain direction that is frozen or changes rate is handed over to
/// the staged form first.
#[derive(Clone, Debug)]
pub struct LinkDir<P = Packet, L = ()>(Form<P, L>);

/// The two forms of a [`LinkDir`].
#[derive(Clone, Debug)]
enum Form<P, L> {
    Plain(Plain<P, L>),
    Staged(Staged<P, L>),
}

/// A link direction as a queue, a transmitter (service model) and a propagation pipe:
/// every configuration, step by step (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Staged<P = Packet, L = ()> {
    queue: Queue<P>,
    service: Service<P, L>,
    latency: Dur,
    delay_trace: Option<Arc<DelayTrace>>,
    /// Draws of a per-packet delay trace: a stream of its own, split off `rng` only in
    /// that mode, so the queue's and service's draws are those of every other mode.
    delay_rng: Option<Box<SimRng>>,
    /// Is the pipe kept in arrival order rather than FIFO
    /// ([`DelaySampling::PerPacketReordering`])?
    reorders: bool,
    /// The random streams are boxed: a generator is 320 bytes and most links never
    /// draw (drop-tail queue, plain rate); held inline, the two made up half of the
    /// link and spread its hot fields (queue, transmitter, pipe, counters) over twice
    /// as many cache lines, and the engine touches thousands of links in no order.
    rng: Box<SimRng>,
    /// The packets propagating. Their count and bytes are not kept beside it: they are
    /// read only for the counters at the end of a run (and by debug checks), and
    /// summing the pipe then costs less than an addition and a subtraction per packet
    /// per hop.
    pipe: VecDeque<InFlight<P, L>>,
    /// The suspension in progress, if any. Boxed: links are rarely frozen, and held
    /// inline its 70 bytes would sit between the hot fields of every link.
    suspension: Option<Box<Suspension<P>>>,
    /// The latest `now` a call was made at, for the check that time only moves forward.
    /// Kept in debug builds only: in a release build, where the check is off, `tick`
    /// loaded and stored it at every arrival and wake-up, and at an arrival that load
    /// was the first touch of its cache line (perf: 12 % of `Sim::enqueue`'s samples).
    #[cfg(debug_assertions)]
    clock: Time,
    offered: PacketBytes,
    dropped: PacketBytes,
    lost_in_link: PacketBytes,
    /// Packets that reached the far end. Their bytes are what was offered and neither
    /// dropped nor inside ([`LinkDir::delivered`]): read only for the counters at the
    /// end of a run, they are derived then rather than added up at every arrival.
    /// Debug builds count them too, for [`LinkDir::check_invariant`], which compares
    /// the count with the others after every call.
    delivered_packets: u64,
    #[cfg(debug_assertions)]
    delivered_bytes: u64,
    /// Handed over by the plain form ([`Staged::from_parts`]): it returns to it when
    /// nothing propagates and it is not frozen ([`Staged::returns_to_plain`]).
    from_plain: bool,
}

/// The state of a running direction in the staged form ([`Staged::from_parts`]).
struct Parts<P, L> {
    queue: Queue<P>,
    service: Service<P, L>,
    latency: Dur,
    rng: Box<SimRng>,
    pipe: VecDeque<InFlight<P, L>>,
    offered: PacketBytes,
    dropped: PacketBytes,
    delivered_packets: u64,
    #[cfg(debug_assertions)]
    clock: Time,
}

impl<P: Wire, L: Lead> Staged<P, L> {
    /// An idle link direction in the staged form ([`LinkDir::new`]).
    pub fn new(cfg: &LinkDirConfig, mut rng: SimRng) -> Staged<P, L> {
        let delay_rng = cfg
            .delay_sampling
            .draws_per_packet()
            .then(|| Box::new(SimRng::seed_from_u64(rng.random())));
        Staged {
            queue: Queue::new(&cfg.queue, cfg.rate),
            service: Service::new(&cfg.service, cfg.rate),
            latency: cfg.latency,
            delay_trace: cfg.delay_trace.as_ref().map(|t| Arc::clone(t.loaded())),
            delay_rng,
            reorders: cfg.delay_sampling.reorders(),
            rng: Box::new(rng),
            pipe: VecDeque::new(),
            suspension: None,
            #[cfg(debug_assertions)]
            clock: Time::ZERO,
            offered: PacketBytes::default(),
            dropped: PacketBytes::default(),
            lost_in_link: PacketBytes::default(),
            delivered_packets: 0,
            #[cfg(debug_assertions)]
            delivered_bytes: 0,
            from_plain: false,
        }
    }

    /// A running direction (not frozen, no delay trace) in the state `parts` gives:
    /// the plain form's hand-over ([`Plain::to_staged`]).
    fn from_parts(parts: Parts<P, L>) -> Staged<P, L> {
        let Parts {
            queue,
            service,
            latency,
            rng,
            pipe,
            offered,
            dropped,
            delivered_packets,
            #[cfg(debug_assertions)]
            clock,
        } = parts;
        let staged = Staged {
            queue,
            service,
            latency,
            delay_trace: None,
            delay_rng: None,
            reorders: false,
            rng,
            pipe,
            suspension: None,
            #[cfg(debug_assertions)]
            clock,
            offered,
            dropped,
            lost_in_link: PacketBytes::default(),
            delivered_packets,
            #[cfg(debug_assertions)]
            delivered_bytes: 0,
            from_plain: true,
        };
        #[cfg(debug_assertions)]
        let staged = Staged {
            delivered_bytes: offered.bytes - dropped.bytes - staged.in_network().bytes,
            ..staged
        };
        staged.check_invariant();
        staged
    }

    /// May a direction handed over by the plain form return to it? When it is not
    /// frozen and nothing propagates, its state is the plain form's (the packet being
    /// sent and those waiting, at its rate now): [`Plain::from_staged`]. Packets
    /// propagating may not be: a freeze that held the wire moved their arrivals later
    /// than their transmissions' ends and the latency give.
    #[inline(always)]
    fn returns_to_plain(&self) -> bool {
        self.from_plain && self.suspension.is_none() && self.pipe.is_empty()
    }

    /// A packet arrives at the link's input. Returns the packet dropped by the queue, if
    /// any (the arriving one, or with drop-from-front the head of the queue), or by a
    /// freeze that drops arrivals.
    ///
    /// Work due at or before `now` (transmissions ending) is done first, so the queue
    /// sees the arrival in its true state whatever order the engine polls in.
    pub fn enqueue(&mut self, now: Time, pkt: P) -> Option<P> {
        self.tick(now);
        if self.plain().is_some() {
            return self.enqueue_plain(now, pkt);
        }
        self.advance(now);
        self.admit(now, pkt, true)
    }

    /// [`LinkDir::enqueue`] at a running link with plain serialisation and a drop-tail
    /// queue, the common case: the steps of [`LinkDir::admit`] for that pair, without
    /// the dispatch over every discipline and model. The transmitter is run first only
    /// when a transmission has ended by `now`: otherwise it is busy past `now`, or idle
    /// with nothing due and the queue empty (it takes the queue's head whenever it
    /// frees up), and running it does nothing. A packet that finds it idle and the
    /// queue empty goes straight into service: what the queue's push and the
    /// transmitter's pop of the same packet at `now` would do (same counters, no draw:
    /// drop-tail draws nothing), without them and the second run.
    #[inline(always)]
    fn enqueue_plain(&mut self, now: Time, pkt: P) -> Option<P> {
        if self.transmitter_due(now) {
            self.advance_plain(now);
        }
        self.admit_plain(now, pkt, true)
    }

    /// [`LinkDir::admit`] at a running link with plain serialisation and a drop-tail
    /// queue (after the transmitter has run as far as it may): the packet goes
    /// straight into service when `run` allows, the transmitter is idle and the queue
    /// empty; otherwise it enters the queue, which the transmitter drains up to `now`
    /// if `run` and it is idle.
    #[inline(always)]
    fn admit_plain(&mut self, now: Time, mut pkt: P, run: bool) -> Option<P> {
        let (Service::Rate(t), Queue::DropTail(q)) = (&mut self.service, &mut self.queue) else {
            // Not reached: callers take this path for this pair only.
            return self.admit(now, pkt, run);
        };
        debug_assert!(t.is_busy() || q.fifo().is_empty());
        self.offered.add(&pkt);
        if run && !t.is_busy() && q.passes_straight(&pkt) {
            match t.start_idle(now, pkt, &mut self.rng) {
                Ok(()) => {
                    self.check_invariant();
                    return None;
                }
                Err(back) => pkt = back,
            }
        }
        let dropped = q.enqueue(pkt);
        if let Some(d) = &dropped {
            self.dropped.add(d);
        }
        // As in `admit`: a transmitter still busy takes nothing from the queue now.
        if run && !t.is_busy() {
            self.advance_plain(now);
        }
        self.check_invariant();
        dropped
    }

    /// [`LinkDir::enqueue`] in ns-2's order of same-instant events: an arrival whose
    /// event was `scheduled` before the end of a transmission due exactly `now` runs
    /// before it ([`same_instant`]), so it finds that packet still in service. Needs
    /// kept leads (`L = u32`): with none, every transmission end counts as scheduled
    /// at its own time.
    ///
    /// The steps of `enqueue_scheduled_general` (the tests' reference), except that
    /// at a running link with a timed transmitter the transmitter is run only when a
    /// transmission has ended by the time it is run to (otherwise running it does
    /// nothing, [`LinkDir::run_may_act`]), and that a plain link admits the packet
    /// without the dispatch over every discipline ([`LinkDir::admit_plain`]); the
    /// property test `the_ns2_order_fast_paths_match_the_general_ones` compares them.
    pub fn enqueue_scheduled(&mut self, now: Time, pkt: P, scheduled: Time) -> Option<P> {
        self.tick(now);
        if let Some(before) = now.0.checked_sub(1).map(Time) {
            if self.run_may_act(before) {
                self.advance(before);
            }
        }
        let first = self
            .service
            .end_scheduled_at(now)
            .is_some_and(|d| same_instant::arrival_runs_first(scheduled, d));
        if !first && self.run_may_act(now) {
            self.advance(now);
        }
        if self.running_plain().is_some() {
            return self.admit_plain(now, pkt, !first);
        }
        self.admit(now, pkt, !first)
    }

    /// [`LinkDir::enqueue_scheduled`] at any link, step by step: the transmitter runs
    /// up to just before `now`, then up to `now` unless the arrival runs before a
    /// transmission ending `now`. The reference the fast path is tested against.
    #[cfg(test)]
    fn enqueue_scheduled_general(&mut self, now: Time, pkt: P, scheduled: Time) -> Option<P> {
        if let Some(before) = now.0.checked_sub(1) {
            self.advance(Time(before));
        }
        let first = self
            .service
            .end_scheduled_at(now)
            .is_some_and(|d| same_instant::arrival_runs_first(scheduled, d));
        if !first {
            self.advance(now);
        }
        // Before the end it is queued behind, the transmitter stays busy until that
        // end runs: later arrivals of the same event (an agent's burst) meet it too.
        self.admit(now, pkt, !first)
    }

    /// Offers `pkt` to the queue (or a freeze) once the transmitter has run, then
    /// runs it up to `now` if `run`.
    fn admit(&mut self, now: Time, pkt: P, run: bool) -> Option<P> {
        self.offered.add(&pkt);
        let dropped = match self.frozen_arrival() {
            Some(FrozenArrivals::Dropped) => Some(pkt),
            Some(FrozenArrivals::Queued) => {
                if let Some(s) = self.suspension.as_mut() {
                    s.gate_bytes.add(&pkt);
                    s.gate.push_back(pkt);
                }
                None
            }
            None => self.queue.enqueue(now, pkt, &mut self.rng),
        };
        if let Some(d) = &dropped {
            self.dropped.add(d);
        }
        // A timed transmitter still busy after the first run (its end is later than
        // `now`) takes nothing from the queue now: running it again would do nothing.
        if run && self.service.known_departure().is_none() {
            self.advance(now);
        }
        self.check_invariant();
        dropped
    }

    /// The earliest time at which `poll` has work (a transmission finishing, a packet
    /// reaching the far end); None when idle or suspended with nothing due.
    ///
    /// Transmission ends are computed exactly in advance and folded in lazily by
    /// `advance`, so while packets propagate the link only needs waking for the head's
    /// arrival: every packet still being sent arrives after it (FIFO). When nothing
    /// propagates, see [`LinkDir::transmitter_wakeup`]. A reordering pipe
    /// ([`DelaySampling::PerPacketReordering`]) wakes at the earlier of the head's
    /// arrival and the transmitter's next end, since the packet being sent may draw a
    /// delay that brings it in before the head. No time changes: `advance` is exact
    /// whenever it runs.
    #[inline(always)]
    pub fn next_wakeup(&self) -> Option<Time> {
        // The common cases inline (a running link with packets propagating: the head's
        // arrival; a running plain link with none and no delay trace: the arrival of
        // the packet being sent, or none when idle, as `transmitter_wakeup` answers
        // there), the others in a call.
        if self.suspension.is_none() && !self.reorders {
            if let Some(f) = self.pipe.front() {
                return Some(f.at);
            }
            if let (Some(t), None) = (self.plain(), &self.delay_trace) {
                if self.wakes_for_arrivals_only() {
                    let sending = ServiceModel::<P, L>::known_departure(t);
                    return sending
                        .map(|(end, extra)| own_arrival(end, self.latency, extra, Dur::ZERO));
                }
            }
        }
        self.next_wakeup_general()
    }

    /// [`LinkDir::next_wakeup`], every case.
    #[inline(never)]
    fn next_wakeup_general(&self) -> Option<Time> {
        let arrival = self.pipe.front().map(|f| f.at);
        match self.suspension.as_deref() {
            Some(s) if s.mode.holds_wire() => arrival.filter(|&at| at <= s.since),
            Some(s) if s.mode.stops_transmitter() => arrival,
            _ if self.reorders => earliest(arrival, self.transmitter_wakeup()),
            _ => arrival.or_else(|| self.transmitter_wakeup()),
        }
    }

    /// The end of the transmission in progress when [`LinkDir::next_wakeup`] gives the
    /// packet's arrival instead (see [`LinkDir::transmitter_wakeup`]), else `None`. An
    /// engine that reports the time of its last event takes the ends a run stopped
    /// after into account with it, so that the time it reports is the one of a link
    /// woken at every transmission end.
    pub fn skipped_end_wakeup(&self) -> Option<Time> {
        let plain = self
            .suspension
            .as_deref()
            .is_none_or(|s| !s.mode.stops_transmitter());
        (plain && self.pipe.is_empty() && self.wakes_for_arrivals_only())
            .then(|| self.service.known_departure().map(|(end, _)| end))
            .flatten()
    }

    /// The wakeup of a running transmitter with nothing propagating: the arrival at the
    /// far end of the packet being sent when its departure is fixed at its start (a
    /// timed transmitter, and no per-packet draw from a delay trace at the departure),
    /// so that the link wakes once per packet, at its arrival, and not also at the end
    /// of its transmission; otherwise when the transmitter next has work.
    ///
    /// In ns-2's same-instant order (`L::KEPT`) too. There, an arrival at the instant
    /// a transmission ends runs first when it was scheduled first (`same_instant`),
    /// and [`Staged::enqueue_scheduled`] decides that from the two scheduling instants
    /// (the leads), not from whether the engine has run the end yet; every other call
    /// completes the transmission exactly, as in spikelab's own order. What a wake-up
    /// at the end still changed was when the engine queued the arrival's wake-up:
    /// then at the end, now when the transmission starts (or at the delivery before
    /// it), which is where ns-2's `LinkDelay::recv()` schedules the arrival
    /// (`link/delay.cc`), so an event due at the very instant of the arrival and
    /// queued between the start and the end now runs after it, as in ns-2.
    fn transmitter_wakeup(&self) -> Option<Time> {
        if self.wakes_for_arrivals_only() {
            if let Some((end, extra)) = self.service.known_departure() {
                let traced = self
                    .delay_trace
                    .as_deref()
                    .map_or(Dur::ZERO, |t| t.delay_at(end));
                return Some(own_arrival(end, self.latency, extra, traced));
            }
        }
        self.service.next_wakeup(&self.queue)
    }

    /// Does all work due at or before `now`: finishes transmissions, starts the next, and
    /// pushes packets that reached the far end (in order) into `delivered`, packets lost
    /// inside the link into `dropped`.
    pub fn poll(&mut self, now: Time, delivered: &mut Vec<P>, dropped: &mut Vec<P>) {
        self.tick(now);
        // `transmitter_due`, with a plain link's run taken without the general call.
        match self.plain().map(|t| t.ended_by(now)) {
            Some(true) => self.advance_plain_inline(now),
            Some(false) => {}
            None => self.advance(now),
        }
        self.poll_noting(now, delivered, dropped, |_| {});
    }

    /// [`LinkDir::poll`] in ns-2's order of same-instant events ([`same_instant`]): it
    /// also pushes, for each delivered packet in order, when its arrival was scheduled
    /// (for [`LinkDir::enqueue_scheduled`] at its next link), and a transmission ending
    /// exactly `now` is left to end later (its time is kept exactly), so that an
    /// arrival scheduled before it still finds it in service. When that end is the
    /// wakeup itself (nothing reached the far end and nothing propagates, or with a
    /// reordering pipe nothing reached the far end) it ends now.
    pub fn poll_scheduled(
        &mut self,
        now: Time,
        delivered: &mut Vec<P>,
        scheduled: &mut Vec<Time>,
        dropped: &mut Vec<P>,
    ) {
        self.poll_scheduled_as(now, delivered, scheduled, dropped, true);
    }

    /// [`LinkDir::poll_scheduled`]; with `skip` the transmitter is not run when
    /// running it does nothing ([`LinkDir::run_may_act`]), without it always (the
    /// general steps, for the property test).
    #[inline(always)]
    fn poll_scheduled_as(
        &mut self,
        now: Time,
        delivered: &mut Vec<P>,
        scheduled: &mut Vec<Time>,
        dropped: &mut Vec<P>,
        skip: bool,
    ) {
        self.tick(now);
        if let Some(before) = now.0.checked_sub(1).map(Time) {
            if !skip || self.run_may_act(before) {
                self.advance(before);
            }
        }
        let out = delivered.len() + dropped.len();
        self.poll_noting(now, delivered, dropped, |t| scheduled.push(t));
        if (self.pipe.is_empty() || self.reorders)
            && delivered.len() + dropped.len() == out
            && (!skip || self.run_may_act(now))
        {
            self.advance(now);
        }
    }

    #[inline(always)]
    fn poll_noting(
        &mut self,
        now: Time,
        delivered: &mut Vec<P>,
        dropped: &mut Vec<P>,
        mut note: impl FnMut(Time),
    ) {
        let horizon = match self.suspension.as_deref() {
            Some(s) if s.mode.holds_wire() => s.since.min(now),
            _ => now,
        };
        while self.pipe.front().is_some_and(|f| f.at <= horizon) {
            let Some(f) = self.pipe.pop_front() else {
                break;
            };
            if f.lost {
                self.dropped.add(&f.pkt);
                self.lost_in_link.add(&f.pkt);
                dropped.push(f.pkt);
            } else {
                self.delivered_packets += 1;
                #[cfg(debug_assertions)]
                {
                    self.delivered_bytes += f.pkt.wire_bytes() as u64;
                }
                note(f.lead.scheduled(f.at));
                delivered.push(f.pkt);
            }
        }
        self.release_idle_pipe();
        self.check_invariant();
    }

    /// Hiccup / outage: freezes the link as `mode` says (see the module docs and
    /// [`crate::freeze`]). Transmissions ending at or before `now` complete first.
    /// Suspending a suspended link changes nothing.
    pub fn suspend(&mut self, now: Time, mode: FreezeMode) {
        self.tick(now);
        if self.suspension.is_none() {
            self.advance(now);
            self.suspension = Some(Box::new(Suspension {
                since: now,
                mode,
                gate: VecDeque::new(),
                gate_bytes: PacketBytes::default(),
            }));
        }
    }

    /// Ends a suspension: every held deadline moves later by `now - suspend time`, then
    /// arrivals held in front of the queue enter it in order; returns the packets the
    /// queue dropped then. Resuming a running link changes nothing.
    pub fn resume(&mut self, now: Time) -> Vec<P> {
        self.tick(now);
        let mut dropped = Vec::new();
        let Some(mut s) = self.suspension.take() else {
            return dropped;
        };
        let (since, d) = (s.since, now - s.since);
        if s.mode.stops_transmitter() {
            self.service.resume(since, now);
        }
        if s.mode.holds_wire() {
            for f in self.pipe.iter_mut().filter(|f| f.at > since) {
                f.at += d;
                // `LinkDelay::freeze_end()` (patched ns-2) schedules it anew.
                f.lead = L::of(f.at, now);
            }
        }
        self.advance(now);
        while let Some(pkt) = s.gate.pop_front() {
            if let Some(lost) = self.queue.enqueue(now, pkt, &mut self.rng) {
                self.dropped.add(&lost);
                dropped.push(lost);
            }
            self.advance(now);
        }
        self.check_invariant();
        dropped
    }

    /// What a freeze does to an arrival now: `None` when it enters the queue as usual.
    fn frozen_arrival(&self) -> Option<FrozenArrivals> {
        let mode = self.suspension.as_ref()?.mode;
        match (mode.stops_transmitter(), mode.arrivals) {
            (true, FrozenArrivals::Queued) => None,
            (_, a) => Some(a),
        }
    }

    /// Is the link suspended?
    pub fn is_suspended(&self) -> bool {
        self.suspension.is_some()
    }

    /// Changes the transmission rate from now on (the packet being sent finishes at the
    /// old rate).
    pub fn set_rate(&mut self, now: Time, rate: BitRate) {
        self.tick(now);
        self.advance(now);
        self.service.set_rate(rate);
        self.queue.set_rate(rate);
    }

    /// Every packet still inside this direction (held in front of the queue by a freeze,
    /// queued, being sent, propagating), for ground truth, in that order.
    pub fn for_each_in_network(&self, mut f: impl FnMut(&P)) {
        if let Some(s) = &self.suspension {
            s.gate.iter().for_each(&mut f);
        }
        self.queue.fifo().iter().for_each(&mut f);
        self.service.holding().into_iter().for_each(&mut f);
        self.pipe.iter().for_each(|x| f(&x.pkt));
    }

    /// Is any packet in the network one that `pred` holds for? The packets of
    /// [`Self::for_each_in_network`], stopping at the first.
    pub fn any_in_network(&self, mut pred: impl FnMut(&P) -> bool) -> bool {
        let gated = self
            .suspension
            .as_ref()
            .is_some_and(|s| s.gate.iter().any(&mut pred));
        gated
            || self.queue.fifo().iter().any(&mut pred)
            || self.service.holding().is_some_and(&mut pred)
            || self.pipe.iter().any(|x| pred(&x.pkt))
    }

    /// Offered, dropped, delivered and in-network packets and bytes.
    pub fn counters(&self) -> LinkCounters {
        LinkCounters {
            offered: self.offered,
            dropped: self.dropped,
            lost_in_link: self.lost_in_link,
            delivered: self.delivered(),
            in_network: self.in_network(),
        }
    }

    /// Are packets conserved, `offered = delivered + dropped + inside` (queued, being
    /// sent, propagating, held in front of the queue)? The engine's check after every
    /// wakeup: packets only, read off the structures that hold them.
    pub fn packets_conserved(&self) -> bool {
        let gate = self.suspension.as_ref().map_or(0, |s| s.gate.len());
        let inside = self.queue.fifo().len()
            + usize::from(self.service.holding().is_some())
            + self.pipe.len()
            + gate;
        self.offered.packets == self.delivered_packets + self.dropped.packets + inside as u64
    }

    /// Does the next wakeup depend only on the packets propagating (the pipe's head)?
    /// Then an arrival, which never changes that head, leaves it as it is. Not with a
    /// reordering pipe, which wakes for the transmitter too ([`Staged::next_wakeup`]).
    pub fn wakeup_set_by_pipe(&self) -> bool {
        !self.pipe.is_empty() && !self.reorders
    }

    /// Packets waiting in the queue (not counting the one being transmitted).
    pub fn queue_len_packets(&self) -> usize {
        self.queue.fifo().len()
    }

    /// Wire bytes waiting in the queue.
    pub fn queue_len_bytes(&self) -> u64 {
        self.queue.fifo().bytes()
    }

    fn in_network(&self) -> PacketBytes {
        let fifo = self.queue.fifo();
        let mut held = PacketBytes::default();
        if let Some(p) = self.service.holding() {
            held.add(p);
        }
        PacketBytes {
            packets: fifo.len() as u64,
            bytes: fifo.bytes(),
        }
        .plus(held)
        .plus(self.pipe_sum())
        .plus(
            self.suspension
                .as_ref()
                .map_or(PacketBytes::default(), |s| s.gate_bytes),
        )
    }

    /// The packets propagating and their wire bytes, summed over the pipe.
    fn pipe_sum(&self) -> PacketBytes {
        let mut sum = PacketBytes::default();
        self.pipe.iter().for_each(|f| sum.add(&f.pkt));
        sum
    }

    /// Is a packet's arrival known when its transmission starts, so that the link
    /// need not wake at the end of a transmission? Not with a per-packet draw from a
    /// delay trace at the departure (in either order of same-instant events,
    /// [`Staged::transmitter_wakeup`]).
    fn wakes_for_arrivals_only(&self) -> bool {
        self.delay_rng.is_none()
    }

    /// May running the transmitter up to `now` change anything? Always, except at a
    /// running plain link (rate, drop-tail, not frozen) outside ns-2's same-instant
    /// order, where only a transmission ended by `now` gives it work: busy past `now`
    /// it waits, and idle it has nothing due and an empty queue (it takes the queue's
    /// head whenever it frees up).
    #[inline(always)]
    fn transmitter_due(&self, now: Time) -> bool {
        self.plain().is_none_or(|t| t.ended_by(now))
    }

    /// The transmitter of a running plain link (plain serialisation from a drop-tail
    /// queue, not frozen, outside ns-2's same-instant order), the case the fast paths
    /// of [`LinkDir::enqueue`] and [`LinkDir::poll`] serve; `None` for any other link.
    #[inline(always)]
    fn plain(&self) -> Option<&Timed<Rate, P, L>> {
        self.running_plain().filter(|_| !L::KEPT)
    }

    /// The transmitter of a running plain link (plain serialisation from a drop-tail
    /// queue, not frozen), in either order of same-instant events.
    #[inline(always)]
    fn running_plain(&self) -> Option<&Timed<Rate, P, L>> {
        match (&self.service, &self.queue, &self.suspension) {
            (Service::Rate(t), Queue::DropTail(_), None) => Some(t),
            _ => None,
        }
    }

    /// May running the transmitter up to `t` change anything? Always, except at a
    /// running (not frozen) link with a timed transmitter (rate or WCDMA), where only
    /// a transmission ended by `t` gives it work. Between calls such a transmitter is
    /// idle only with the queue empty (each run leaves it busy past the time it ran
    /// to, or idle with nothing left to take; an arrival at an idle one is taken at
    /// once unless it is dropped), and a run of it then asks the queue for a packet
    /// and finds none: no change for drop-tail, and none for RED, whose idle spell
    /// started at the first empty dequeue after its last arrival.
    #[inline(always)]
    fn run_may_act(&self, t: Time) -> bool {
        match (&self.service, &self.suspension) {
            (Service::Rate(x), None) => x.ended_by(t),
            (Service::Wcdma(x), None) => x.ended_by(t),
            _ => true,
        }
    }

    /// Runs the transmitter up to `now` unless a freeze stops it; finished packets
    /// enter the propagation pipe.
    fn advance(&mut self, now: Time) {
        if self
            .suspension
            .as_ref()
            .is_some_and(|s| s.mode.stops_transmitter())
        {
            return;
        }
        let mut wire = Propagation {
            pipe: &mut self.pipe,
            latency: self.latency,
            trace: self.delay_trace.as_deref(),
            delay_rng: &mut self.delay_rng,
            reorders: self.reorders,
        };
        // The common pair, plain serialisation from a drop-tail queue, in a loop of its
        // own: the same steps as the general call below, whose loop dispatches over
        // every queue discipline at each packet.
        if let (Service::Rate(t), Queue::DropTail(q)) = (&mut self.service, &mut self.queue) {
            serve_drop_tail_at_rate(t, q, now, &mut self.rng, &mut wire);
            return;
        }
        self.service
            .advance(now, &mut self.queue, &mut self.rng, &mut |d| wire.send(d));
    }

    /// [`LinkDir::advance`] at a running plain link ([`LinkDir::running_plain`], in
    /// either same-instant order: no freeze to stop the transmitter), a small function of its own: the general `advance`, with
    /// every service model compiled into it, kept a 392-byte stack frame and the
    /// link's fields spilled across its calls for this pair too.
    #[inline(never)]
    fn advance_plain(&mut self, now: Time) {
        self.advance_plain_inline(now);
    }

    /// [`LinkDir::advance_plain`] inlined, for a wake-up's poll (one run per
    /// packet-hop that ended a transmission): there the call's register saves and
    /// restores were about 15 of its 105 instructions. The arrival's run stays a call
    /// ([`LinkDir::advance_plain`]), which keeps `Sim::enqueue` small.
    #[inline(always)]
    fn advance_plain_inline(&mut self, now: Time) {
        debug_assert!(
            self.running_plain().is_some(),
            "advance_plain at a link not plain"
        );
        let mut wire = Propagation {
            pipe: &mut self.pipe,
            latency: self.latency,
            trace: self.delay_trace.as_deref(),
            delay_rng: &mut self.delay_rng,
            reorders: self.reorders,
        };
        if let (Service::Rate(t), Queue::DropTail(q)) = (&mut self.service, &mut self.queue) {
            serve_drop_tail_at_rate(t, q, now, &mut self.rng, &mut wire);
        }
    }

    /// An empty propagation pipe gives back all but [`IDLE_PIPE_CAPACITY`] entries. A
    /// pipe keeps the capacity of its largest burst, and with thousands of links (two
    /// access links per flow) those high-water marks, not the packets in flight, made up
    /// most of a run's memory (heaptrack: 26 of 52 MB at 1000 flows).
    fn release_idle_pipe(&mut self) {
        if self.pipe.is_empty() && self.pipe.capacity() > IDLE_PIPE_CAPACITY {
            self.pipe.shrink_to(IDLE_PIPE_CAPACITY);
        }
    }

    #[cfg(debug_assertions)]
    fn tick(&mut self, now: Time) {
        assert!(
            now >= self.clock,
            "time went backwards: {now} < {}",
            self.clock
        );
        self.clock = now;
    }

    /// The check of `tick` is a debug assertion: nothing to do in a release build.
    #[cfg(not(debug_assertions))]
    #[inline(always)]
    fn tick(&mut self, _now: Time) {}

    /// Packets and bytes that reached the far end: the bytes offered and neither
    /// dropped nor inside.
    fn delivered(&self) -> PacketBytes {
        PacketBytes {
            packets: self.delivered_packets,
            bytes: self.offered.bytes - self.dropped.bytes - self.in_network().bytes,
        }
    }

    #[cfg(debug_assertions)]
    fn check_invariant(&self) {
        let delivered = PacketBytes {
            packets: self.delivered_packets,
            bytes: self.delivered_bytes,
        };
        assert_eq!(
            self.offered,
            delivered.plus(self.dropped).plus(self.in_network()),
            "offered != delivered + dropped + in_network"
        );
    }

    /// The check is a debug assertion: nothing to do in a release build.
    #[cfg(not(debug_assertions))]
    #[inline(always)]
    fn check_invariant(&self) {}
}

impl<P: Wire, L: Lead> LinkDir<P, L> {
    /// An idle link direction. `rng` is its own random stream (RED drops, WCDMA block
    /// errors). Panics if a referenced trace was not loaded
    /// ([`crate::load_link_traces`]).
    pub fn new(cfg: &LinkDirConfig, rng: SimRng) -> LinkDir<P, L> {
        match plain::limit_if_plain(cfg) {
            Some(limit) => LinkDir(Form::Plain(Plain::new(cfg.rate, cfg.latency, limit, rng))),
            None => LinkDir(Form::Staged(Staged::new(cfg, rng))),
        }
    }

    /// The staged form, to which a plain direction is handed over first (for what
    /// only the staged form models: freezes and rate changes).
    #[cold]
    #[inline(never)]
    fn staged(&mut self) -> &mut Staged<P, L> {
        if let Form::Plain(p) = &self.0 {
            self.0 = Form::Staged(p.to_staged());
        }
        match &mut self.0 {
            Form::Staged(s) => s,
            Form::Plain(_) => unreachable!("handed over just above"),
        }
    }

    /// A direction handed over to the staged form returns to the plain form once its
    /// state is the plain form's again ([`Staged::returns_to_plain`]): checked after
    /// the calls that may empty its pipe or end its freeze.
    #[inline(always)]
    fn return_to_plain(&mut self) {
        if matches!(&self.0, Form::Staged(s) if s.returns_to_plain()) {
            self.hand_back();
        }
    }

    #[cold]
    #[inline(never)]
    fn hand_back(&mut self) {
        if let Form::Staged(s) = &self.0 {
            self.0 = Form::Plain(Plain::from_staged(s));
        }
    }

    /// A packet arrives at the link's input. Returns the packet dropped by the queue, if
    /// any (the arriving one, or with drop-from-front the head of the queue), or by a
    /// freeze that drops arrivals.
    ///
    /// Work due at or before `now` (transmissions ending) is done first, so the queue
    /// sees the arrival in its true state whatever order the engine polls in.
    #[inline(always)]
    pub fn enqueue(&mut self, now: Time, pkt: P) -> Option<P> {
        match &mut self.0 {
            Form::Plain(p) => p.enqueue(now, pkt),
            Form::Staged(s) => s.enqueue(now, pkt),
        }
    }

    /// [`LinkDir::enqueue`] in ns-2's order of same-instant events: an arrival whose
    /// event was `scheduled` before the end of a transmission due exactly `now` runs
    /// before it, so it finds that packet still in service ([`same_instant`]).
    #[inline(always)]
    pub fn enqueue_scheduled(&mut self, now: Time, pkt: P, scheduled: Time) -> Option<P> {
        match &mut self.0 {
            Form::Plain(p) => p.enqueue_scheduled(now, pkt, scheduled),
            Form::Staged(s) => s.enqueue_scheduled(now, pkt, scheduled),
        }
    }

    /// The earliest time at which `poll` has work (a transmission finishing, a packet
    /// reaching the far end); None when idle or suspended with nothing due.
    #[inline(always)]
    pub fn next_wakeup(&self) -> Option<Time> {
        match &self.0 {
            Form::Plain(p) => p.next_wakeup(),
            Form::Staged(s) => s.next_wakeup(),
        }
    }

    /// The packet that reaches the far end `k`-th next (from 0), as far as the
    /// direction knows now (in a plain direction the `k`-th oldest inside, in a staged
    /// one the `k`-th of its pipe), if any: a hint for the engine to fetch what a
    /// wake-up will read into the cache before that wake-up. Nothing may depend on it
    /// but where memory is.
    #[inline(always)]
    pub fn next_out(&self, k: usize) -> Option<P> {
        match &self.0 {
            Form::Plain(p) => p.next_out(k),
            Form::Staged(s) => s.pipe.get(k).map(|f| f.pkt),
        }
    }

    /// The end of the transmission in progress when [`LinkDir::next_wakeup`] gives the
    /// packet's arrival instead, else `None`. An engine that reports the time of its
    /// last event takes the ends a run stopped after into account with it, so that
    /// the time it reports is the one of a link woken at every transmission end.
    pub fn skipped_end_wakeup(&self) -> Option<Time> {
        match &self.0 {
            Form::Plain(p) => p.skipped_end_wakeup(),
            Form::Staged(s) => s.skipped_end_wakeup(),
        }
    }

    /// Does all work due at or before `now`: finishes transmissions, starts the next, and
    /// pushes packets that reached the far end (in order) into `delivered`, packets lost
    /// inside the link into `dropped`.
    #[inline(always)]
    pub fn poll(&mut self, now: Time, delivered: &mut Vec<P>, dropped: &mut Vec<P>) {
        match &mut self.0 {
            Form::Plain(p) => p.poll(now, delivered),
            Form::Staged(s) => {
                s.poll(now, delivered, dropped);
                self.return_to_plain();
            }
        }
    }

    /// [`LinkDir::poll`] in ns-2's order of same-instant events ([`same_instant`]): it
    /// also pushes, for each delivered packet in order, when its arrival was scheduled
    /// (for [`LinkDir::enqueue_scheduled`] at its next link), and a transmission ending
    /// exactly `now` is left to end later, so that an arrival scheduled before it still
    /// finds it in service.
    #[inline(always)]
    pub fn poll_scheduled(
        &mut self,
        now: Time,
        delivered: &mut Vec<P>,
        scheduled: &mut Vec<Time>,
        dropped: &mut Vec<P>,
    ) {
        match &mut self.0 {
            Form::Plain(p) => p.poll_scheduled(now, delivered, scheduled),
            Form::Staged(s) => {
                s.poll_scheduled(now, delivered, scheduled, dropped);
                self.return_to_plain();
            }
        }
    }

    /// Hiccup / outage: freezes the link as `mode` says (see the module docs and
    /// [`crate::freeze`]). Transmissions ending at or before `now` complete first.
    /// Suspending a suspended link changes nothing.
    pub fn suspend(&mut self, now: Time, mode: FreezeMode) {
        self.staged().suspend(now, mode)
    }

    /// Ends a suspension: every held deadline moves later by `now - suspend time`, then
    /// arrivals held in front of the queue enter it in order; returns the packets the
    /// queue dropped then. Resuming a running link changes nothing.
    pub fn resume(&mut self, now: Time) -> Vec<P> {
        let dropped = match &mut self.0 {
            Form::Plain(_) => Vec::new(),
            Form::Staged(s) => s.resume(now),
        };
        self.return_to_plain();
        dropped
    }

    /// Is the link suspended?
    pub fn is_suspended(&self) -> bool {
        matches!(&self.0, Form::Staged(s) if s.is_suspended())
    }

    /// Changes the transmission rate from now on (the packet being sent finishes at the
    /// old rate).
    pub fn set_rate(&mut self, now: Time, rate: BitRate) {
        self.staged().set_rate(now, rate)
    }

    /// Every packet still inside this direction (held in front of the queue by a freeze,
    /// queued, being sent, propagating), for ground truth, in that order.
    pub fn for_each_in_network(&self, f: impl FnMut(&P)) {
        match &self.0 {
            Form::Plain(p) => p.for_each_in_network(f),
            Form::Staged(s) => s.for_each_in_network(f),
        }
    }

    /// Is any packet in the network one that `pred` holds for? The packets of
    /// [`Self::for_each_in_network`] in no particular order, stopping at the first: a
    /// question about the set, as the ground truth asks at a timeout, without the
    /// walk in the staged form's order over every packet of a full queue.
    pub fn any_in_network(&self, pred: impl FnMut(&P) -> bool) -> bool {
        match &self.0 {
            Form::Plain(p) => p.any_in_network(pred),
            Form::Staged(s) => s.any_in_network(pred),
        }
    }

    /// Offered, dropped, delivered and in-network packets and bytes.
    pub fn counters(&self) -> LinkCounters {
        match &self.0 {
            Form::Plain(p) => p.counters(),
            Form::Staged(s) => s.counters(),
        }
    }

    /// Are packets conserved, `offered = delivered + dropped + inside` (queued, being
    /// sent, propagating, held in front of the queue)? The engine's check after every
    /// wakeup: packets only, read off the structures that hold them.
    #[inline(always)]
    pub fn packets_conserved(&self) -> bool {
        match &self.0 {
            Form::Plain(p) => p.packets_conserved(),
            Form::Staged(s) => s.packets_conserved(),
        }
    }

    /// Would an arrival leave the next wakeup as it is? Then an engine need not
    /// re-arm the link's wake-up after one. The staged form knows it when packets
    /// propagate (the wakeup is the pipe's head, which an arrival never changes), the
    /// plain form whenever a packet is inside (the wakeup is the oldest one's arrival).
    #[inline(always)]
    pub fn wakeup_kept_by_arrival(&self) -> bool {
        match &self.0 {
            Form::Plain(p) => p.wakeup_kept_by_arrival(),
            Form::Staged(s) => s.wakeup_set_by_pipe(),
        }
    }

    /// Packets waiting in the queue (not counting the one being transmitted).
    pub fn queue_len_packets(&self) -> usize {
        match &self.0 {
            Form::Plain(p) => p.queue_len_packets(),
            Form::Staged(s) => s.queue_len_packets(),
        }
    }

    /// Wire bytes waiting in the queue.
    pub fn queue_len_bytes(&self) -> u64 {
        match &self.0 {
            Form::Plain(p) => p.queue_len_bytes(),
            Form::Staged(s) => s.queue_len_bytes(),
        }
    }
}

/// The propagation side of a link direction, borrowed while its transmitter runs.
struct Propagation<'a, P, L> {
    pipe: &'a mut VecDeque<InFlight<P, L>>,
    latency: Dur,
    trace: Option<&'a DelayTrace>,
    delay_rng: &'a mut Option<Box<SimRng>>,
    /// Kept in arrival order rather than FIFO ([`DelaySampling::PerPacketReordering`]).
    reorders: bool,
}

impl<P: Wire, L: Lead> Propagation<'_, P, L> {
    /// A packet leaving the transmitter enters the propagation pipe. Always inlined:
    /// called once per packet per hop from every service model's loop, the optimiser
    /// otherwise kept it out of line (callgrind: 44 M of 1 041 M instructions in 10 s
    /// of the 100-flow dumbbell as a separate function).
    #[inline(always)]
    fn send(&mut self, d: Departure<P, L>) {
        let traced = match self.trace {
            Some(t) => traced_delay(t, d.at, self.delay_rng),
            None => Dur::ZERO,
        };
        let own = own_arrival(d.at, self.latency, d.extra, traced);
        if self.reorders {
            return overtake(self.pipe, d, own);
        }
        // FIFO: never reach the far end before the packet ahead.
        let at = self.pipe.back().map_or(own, |b| own.max(b.at));
        self.pipe.push_back(in_flight(d, at));
    }
}

/// A packet leaving the transmitter at `d.at` that reaches the far end at `at`.
#[inline(always)]
fn in_flight<P, L: Lead>(d: Departure<P, L>, at: Time) -> InFlight<P, L> {
    // `LinkDelay::recv()` schedules the arrival when it schedules the transmission's
    // end.
    let start = d.lead.scheduled(d.at);
    InFlight {
        pkt: d.pkt,
        at,
        lost: d.lost,
        lead: L::of(at, start),
    }
}

/// A reordering pipe ([`DelaySampling::PerPacketReordering`]) takes a packet arriving at
/// `at` behind every packet due at or before `at` and ahead of the later ones: kept in
/// arrival order, ties in the order the packets left the transmitter (out of line: few
/// links reorder).
#[inline(never)]
fn overtake<P, L: Lead>(pipe: &mut VecDeque<InFlight<P, L>>, d: Departure<P, L>, at: Time) {
    let i = pipe.partition_point(|f| f.at <= at);
    pipe.insert(i, in_flight(d, at));
}

/// The earlier of two optional times (either when the other is `None`).
fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Plain serialisation from a drop-tail queue up to `now`, departures into `wire`: the
/// transmitter's loop with the queue's dequeue, without the dispatch over every queue
/// discipline at each packet ([`LinkDir::advance`] and [`LinkDir::advance_plain`]).
#[inline(always)]
fn serve_drop_tail_at_rate<P: Wire, L: Lead>(
    t: &mut Timed<Rate, P, L>,
    q: &mut DropTail<P>,
    now: Time,
    rng: &mut SimRng,
    wire: &mut Propagation<'_, P, L>,
) {
    t.run(now, |_| q.dequeue(), rng, &mut |d| wire.send(d));
}

/// When a packet whose transmission ends at `end` would reach the far end on its own
/// (before the FIFO rule): the latency, the service's extra delay and the delay
/// trace's.
#[inline(always)]
fn own_arrival(end: Time, latency: Dur, extra: Dur, traced: Dur) -> Time {
    end + latency + extra + traced
}

/// The delay trace's extra delay for a packet leaving the transmitter at `at` (out of
/// line: few links have a delay trace).
#[inline(never)]
fn traced_delay(t: &DelayTrace, at: Time, delay_rng: &mut Option<Box<SimRng>>) -> Dur {
    match delay_rng {
        Some(r) => t.delay_for(DelaySampling::PerPacket, at, r),
        None => t.delay_at(at),
    }
}

mod plain;
mod ring;
pub mod same_instant;

use plain::Plain;

#[cfg(test)]
pub(crate) mod tests;
