//! Forwarding: the links with their spike schedules, the packets inside them (the
//! arena), source routing from hop to hop, deterministic drop rules, and the order of
//! same-instant events. Packets enter from an endpoint ([`Sim::inject`]), leave a link
//! at its wake-up, and reach the endpoint at the end of their route.

use super::flows::FlowState;
use super::{InvariantViolation, Sim};
use crate::arena::{Arena, Slot};
use crate::config::DropRule;
use crate::events::{Event, EventQueue, TimerSlot};
use crate::route::{self, NextHop};
use crate::transport::Transport;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{FlowId, Packet, PacketKind, RngStreams, SimRng, Time};
use spikelab_net::control;
use spikelab_net::link::same_instant::Lead;
use spikelab_net::streams::dir_index;
use spikelab_net::{Dir, LinkControl, LinkDir, Schedule};

/// The network: links, the packets inside them, and what moves packets between them.
pub(super) struct Network<L> {
    /// The links' state, what packets touch ([`LinkState`]).
    pub(super) links: Vec<LinkState<L>>,
    /// Per link, its name (errors and results only).
    pub(super) names: Vec<String>,
    /// Per link, its spike schedules (read at their controls, not per packet).
    pub(super) spikes: Vec<Vec<SpikeRun>>,
    /// The packets inside links; the links carry their [`Slot`]s.
    pub(super) arena: Arena,
    /// What a link's wake-up delivered and dropped, read in place and cleared.
    pub(super) delivered: Vec<Slot>,
    pub(super) dropped: Vec<Slot>,
    pub(super) drops: Vec<DropRule>,
    pub(super) next_uid: u64,
    pub(super) order: SameInstantOrder,
    /// The links with a spike schedule waiting for data segments to enter them forward
    /// (`first_after_segments`): only these does [`Sim::enqueue`] count them for.
    /// Empty in nearly every run, so the check costs one length test per packet.
    pub(super) counting: Vec<usize>,
}

impl<L: Lead> Network<L> {
    pub(super) fn new(cfg: &crate::config::SimConfig, streams: &RngStreams) -> Network<L> {
        let links = (cfg.links.iter().enumerate())
            .map(|(i, l)| LinkState::new(l, i, streams))
            .collect();
        let spikes: Vec<Vec<SpikeRun>> = (cfg.links.iter().enumerate())
            .map(|(i, l)| spike_runs(l, i, streams))
            .collect();
        let counting = (0..spikes.len())
            .filter(|&l| spikes[l].iter().any(|r| r.segments_left.is_some()))
            .collect();
        Network {
            links,
            names: cfg.links.iter().map(|l| l.name.clone()).collect(),
            spikes,
            counting,
            arena: Arena::default(),
            delivered: Vec::new(),
            dropped: Vec::new(),
            drops: cfg.drops.clone(),
            next_uid: 0,
            order: SameInstantOrder::default(),
        }
    }
}

/// A link as packets touch it: its two directions, each with its wake-up slot. Its
/// name and spike schedules, which no packet reads, are kept beside it
/// ([`Network::names`], [`Network::spikes`]).
pub(super) struct LinkState<L> {
    pub(super) dirs: [Direction<L>; 2],
}

/// One direction of a link and the slot of its wake-up, which every arrival and every
/// wake-up of the direction reads with it: laid out from a cache line's start, the
/// slot first and the direction's state right after it, so that the two share lines.
/// Kept apart (the two slots of a link after its name, the directions after them,
/// and links not aligned to cache lines), a hop at a link of a large run loaded a line
/// for the slot besides the direction's; in the 10 000-flow dumbbell, thousands of
/// links touched in no order, each such load is a first-level data miss.
#[repr(C, align(64))]
pub(super) struct Direction<L> {
    pub(super) wake: TimerSlot,
    pub(super) link: LinkDir<Slot, L>,
}

/// A link's spike schedule with its random stream and the control due next.
pub(super) struct SpikeRun {
    pub(super) schedule: Schedule,
    pub(super) rng: SimRng,
    pub(super) pending: Option<LinkControl>,
    /// Data segments still to enter the link forward before the schedule's first spike
    /// ([`Schedule::waits_for_segments`]).
    pub(super) segments_left: Option<u32>,
}

/// ns-2's order of a packet's arrival and a transmission end at the same instant
/// (`spikelab_net::link::same_instant`), on when a flow's `ns2` switch
/// `same_instant_in_scheduling_order` is: the network has one scheduler. Used only by
/// a [`Sim`] whose links keep leads ([`Lead::KEPT`]).
#[derive(Default)]
pub(super) struct SameInstantOrder {
    /// When the event being handled was scheduled: a delivered packet's arrival
    /// (packets an endpoint sends in reply enter their first link within that event,
    /// as an ns-2 agent's `send()` does); otherwise now, which lets a transmission
    /// ending now complete first (timers' scheduling instants are not kept).
    pub(super) cause: Time,
    /// Per packet a link just delivered, when its arrival was scheduled.
    pub(super) scheduled: Vec<Time>,
}

impl<L: Lead, T: Transport> Sim<L, T> {
    /// The latest transmission end at or before `until` for which a link was not
    /// woken because it wakes for that packet's arrival
    /// ([`LinkDir::skipped_end_wakeup`]; `Time::ZERO` if none). A run stopped at its
    /// stop time reports as its end the last event it handled, and that end must not
    /// depend on those skipped wakeups.
    pub(super) fn skipped_end_wakeups_until(&self, until: Time) -> Time {
        let ends = self.net.links.iter().flat_map(|l| &l.dirs);
        ends.filter_map(|d| d.link.skipped_end_wakeup())
            .filter(|&end| end <= until)
            .max()
            .unwrap_or(Time::ZERO)
    }

    /// Hands a packet from an endpoint of flow `f` to the first link of its route.
    pub(super) fn inject(&mut self, f: usize, p: &mut Packet) -> Result<(), InvariantViolation> {
        p.uid = self.net.next_uid;
        self.net.next_uid += 1;
        // A transport builds its packets now, at hop 0 (`Packet::new`); a CBR
        // datagram is its flow's template. Stores left out here are fewer narrow
        // stores for the arena's wide copy of the packet to wait on.
        if p.kind == PacketKind::Datagram {
            p.hop = 0;
            p.sent_at = self.now;
        }
        debug_assert!(p.hop == 0 && p.sent_at == self.now, "{p:?} not built now");
        // A transport may seal its packets itself (TCP does, from its table of sizes,
        // `spikelab_tcp::wire_size`); the rest (SYNs, datagrams) are sealed here.
        if !p.is_sealed() {
            p.seal();
        }
        self.note_sent(f, p)?;
        self.forward(p)
    }

    /// The next hop of a packet whose flow's route is too long to pack
    /// ([`PackedRoute`]), read from the route's list.
    pub(super) fn next_hop_unpacked(&self, p: &Packet) -> Option<NextHop> {
        let route = &self.flows.list[p.flow.index()].route;
        let (link, dir) = route::next_hop(route, p.kind.is_forward(), p.hop)?;
        Some(NextHop {
            link,
            dir,
            boxed: self.boxes.at[link].is_some(),
        })
    }

    /// Puts `p` on its next link, or hands it to the endpoint at the route's end.
    /// Always inlined (into the injection of every packet an endpoint sends): the call
    /// cycle through the endpoint is broken by `after_flow_event`, a function of its own.
    /// The three cases are taken apart here rather than from one answer of where the
    /// packet goes: the compiler kept such an answer in memory and tested it again.
    #[inline(always)]
    pub(super) fn forward(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
        let hops = &self.flows.list[p.flow.index()].hops;
        match hops.get(p.kind.is_forward(), p.hop) {
            Some(next) => self.forward_to(next, p),
            None if hops.packed() => self.deliver(p),
            None => self.forward_unpacked(p),
        }
    }

    /// [`Self::forward`] on a long route.
    #[cold]
    #[inline(never)]
    pub(super) fn forward_unpacked(&mut self, p: &Packet) -> Result<(), InvariantViolation> {
        match self.next_hop_unpacked(p) {
            Some(next) => self.forward_to(next, p),
            None => self.deliver(p),
        }
    }

    /// Puts `p` on link `next`, through the box at its first endpoint if it enters it
    /// forward.
    #[inline(always)]
    pub(super) fn forward_to(
        &mut self,
        next: NextHop,
        p: &Packet,
    ) -> Result<(), InvariantViolation> {
        let NextHop { link, dir, boxed } = next;
        if boxed && dir == Dir::Forward {
            let b = self.boxes.at[link].expect("the packed route marks the links with a box");
            return self.through_box(b, *p);
        }
        self.enter_link(link, dir, p);
        Ok(())
    }

    /// Offers `p` to link `l` in direction `dir` (after any deterministic drop rule).
    #[inline(always)]
    pub(super) fn enter_link(&mut self, l: usize, dir: Dir, p: &Packet) {
        let d = dir_index(dir);
        if self.dropped_by_rule(l, p) {
            self.note_drop(l, p);
            return;
        }
        let s = self.net.arena.put(p);
        self.enqueue(l, d, s);
    }

    /// A data segment entered link `l` forward: counts it for every schedule waiting for
    /// segments and starts the first spike of those whose count it completes, now, with
    /// the segment in the link.
    #[cold]
    #[inline(never)]
    fn count_segment(&mut self, l: usize) {
        for s in 0..self.net.spikes[l].len() {
            let run = &mut self.net.spikes[l][s];
            let Some(left) = run.segments_left else {
                continue;
            };
            run.segments_left = left.checked_sub(1).filter(|&n| n > 0);
            if run.segments_left.is_none() {
                run.schedule.start_first_at(self.now);
                self.schedule_next_control(l, s);
            }
        }
        if self.net.spikes[l].iter().all(|r| r.segments_left.is_none()) {
            self.net.counting.retain(|&c| c != l);
        }
    }

    /// Whether the packet in slot `s`, entering direction `d` of link `l`, is a data
    /// segment counted by a spike that waits for data segments: out of line, so a run
    /// without such a spike pays one emptiness test per packet.
    #[cold]
    #[inline(never)]
    fn counts(&self, l: usize, d: usize, s: Slot) -> bool {
        d == dir_index(Dir::Forward)
            && self.net.counting.contains(&l)
            && self.net.arena.get(s).kind == PacketKind::Data
    }

    /// Offers the packet in slot `s` to direction `d` of link `l`.
    #[inline(always)]
    pub(super) fn enqueue(&mut self, l: usize, d: usize, s: Slot) {
        // Read before the queue may drop it: a data segment entering forward, on a
        // link whose spike waits for data segments (`first_after_segments`).
        let counted = !self.net.counting.is_empty() && self.counts(l, d, s);
        let dir = &mut self.net.links[l].dirs[d].link;
        // The wakeup armed when the link last changed stays right (`sync_link` after
        // every change of a link; the packet it is for only leaves at a wakeup).
        let wake_unchanged = dir.wakeup_kept_by_arrival();
        let lost = match L::KEPT {
            true => dir.enqueue_scheduled(self.now, s, self.net.order.cause),
            false => dir.enqueue(self.now, s),
        };
        if let Some(lost) = lost {
            let lost = self.net.arena.take(lost);
            self.note_drop(l, &lost);
        }
        if !wake_unchanged {
            self.sync_link(l, d);
        }
        if counted {
            self.count_segment(l);
        }
    }

    /// Moves the packet in slot `s`, which just left a link, on along its route: into
    /// its next link without leaving the arena, or out of it to a middlebox or the
    /// endpoint (the same steps as [`Self::forward`]). Always inlined (into the link's
    /// wake-up and a box's exit): it is on every packet's path, and a box's exit calls
    /// it in a cycle that only [`Self::through_box_slot`], never inlined, breaks.
    #[inline(always)]
    pub(super) fn forward_slot(&mut self, s: Slot) -> Result<(), InvariantViolation> {
        let p = self.net.arena.get(s);
        let hops = &self.flows.list[p.flow.index()].hops;
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
    pub(super) fn forward_slot_unpacked(&mut self, s: Slot) -> Result<(), InvariantViolation> {
        match self.next_hop_unpacked(self.net.arena.get(s)) {
            Some(next) => self.forward_slot_to(next, s),
            None => self.deliver_slot(s),
        }
    }

    /// [`Self::forward_to`] for the packet in slot `s`.
    #[inline(always)]
    pub(super) fn forward_slot_to(
        &mut self,
        next: NextHop,
        s: Slot,
    ) -> Result<(), InvariantViolation> {
        let NextHop { link, dir, boxed } = next;
        if boxed && dir == Dir::Forward {
            // Into the box at the link's first endpoint (`Self::forward`'s case).
            let b = self.boxes.at[link].expect("the packed route marks the links with a box");
            return self.through_box_slot(b, s);
        }
        self.enter_link_slot(link, dir, s);
        Ok(())
    }

    /// [`Self::enter_link`] for the packet in slot `s`.
    #[inline(always)]
    pub(super) fn enter_link_slot(&mut self, l: usize, dir: Dir, s: Slot) {
        if self.dropped_by_rule(l, self.net.arena.get(s)) {
            let p = self.net.arena.take(s);
            self.note_drop(l, &p);
            return;
        }
        self.enqueue(l, dir_index(dir), s);
    }

    /// Does a deterministic [`DropRule`] remove `p` as it enters link `l`? Inlined, its
    /// rules out of line: asked once per packet per hop, and most runs have none.
    #[inline(always)]
    pub(super) fn dropped_by_rule(&self, l: usize, p: &Packet) -> bool {
        !self.net.drops.is_empty() && self.dropped_by_a_rule(l, p)
    }

    #[inline(never)]
    pub(super) fn dropped_by_a_rule(&self, l: usize, p: &Packet) -> bool {
        let FlowState::Conn(c) = &self.flows.list[p.flow.index()].state else {
            return false;
        };
        let mss = c.transport.segment_size();
        self.net
            .drops
            .iter()
            .any(|r| r.matches(l, p, mss, self.now))
    }

    pub(super) fn sync_link(&mut self, l: usize, d: usize) {
        Self::arm_link_wake(&mut self.q, &mut self.net.links[l], l, d);
    }

    /// Makes sure direction `d` of `link` (link number `l`) is woken at its next wakeup,
    /// queueing a new event only when that moves earlier ([`TimerSlot::want`]). An
    /// associated function of `Sim<L, T>`, not a free one generic over `L` alone: each
    /// instance then has one caller and is inlined into it (a free one is shared by the
    /// worlds over each transport, and was left a call).
    #[inline]
    fn arm_link_wake(q: &mut EventQueue, link: &mut LinkState<L>, l: usize, d: usize) {
        let dir = &mut link.dirs[d];
        let wake = dir.link.next_wakeup();
        dir.wake.want(wake, |at, gen| {
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

    /// [`Self::arm_link_wake`] after a wake-up of direction `d` of `link` (the live event, just
    /// handled): its next wakeup, if any, is queued whatever the slot held.
    #[inline]
    fn rearm_link_wake(q: &mut EventQueue, link: &mut LinkState<L>, l: usize, d: usize) {
        let dir = &mut link.dirs[d];
        let wake = dir.link.next_wakeup();
        dir.wake.rearm(wake, |at, gen| {
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

    pub(super) fn on_link_wake(
        &mut self,
        l: usize,
        d: usize,
        gen: u32,
    ) -> Result<(), InvariantViolation> {
        // The link is looked up once for the wake-up's test, the poll, the re-arm and
        // the conservation check: none of them needs the rest of the world.
        let link = &mut self.net.links[l];
        // Live: the slot keeps its deadline until the re-arm below sets the next one.
        if !link.dirs[d].wake.is_live(gen) {
            return Ok(());
        }
        // The link writes into the world's lists in place (disjoint fields), and they
        // are read by index and cleared, not taken out and put back: nothing the moves
        // of the packets below call polls a link or touches the lists.
        match L::KEPT {
            true => link.dirs[d].link.poll_scheduled(
                self.now,
                &mut self.net.delivered,
                &mut self.net.order.scheduled,
                &mut self.net.dropped,
            ),
            false => {
                (link.dirs[d].link).poll(self.now, &mut self.net.delivered, &mut self.net.dropped)
            }
        }
        // Re-armed and checked before the packets lost inside the link are noted:
        // noting them (trace, arena) changes neither the link nor the queue.
        Self::rearm_link_wake(&mut self.q, link, l, d);
        // The packet the direction delivers at its next wake-up, fetched into the
        // cache now ([`crate::prefetch`]): by then the wake-up's first read, the
        // packet's hop count, flow and kind, finds it there.
        if let Some(next) = link.dirs[d].link.next_out(0) {
            self.net.arena.prefetch(next);
        }
        let conserved = link.dirs[d].link.packets_conserved();
        for i in 0..self.net.dropped.len() {
            let p = self.net.arena.take(self.net.dropped[i]);
            self.note_drop(l, &p);
        }
        self.net.dropped.clear();
        if !conserved {
            self.net.delivered.clear();
            self.net.order.scheduled.clear();
            return Err(self.link_not_conserved(l, d));
        }
        for i in 0..self.net.delivered.len() {
            let s = self.net.delivered[i];
            if L::KEPT {
                self.net.order.cause = self.net.order.scheduled[i];
            }
            self.net.arena.get_mut(s).hop += 1;
            let moved = match self.box_leaving_reverse(l, d) {
                // Leaving the link in reverse: the box at its first endpoint sees it.
                Some(b) => self.through_box_slot(b, s),
                None => self.forward_slot(s),
            };
            // The first error ends the run: the packets after it leave the arena
            // unmoved. Returned from here rather than carried through the loop.
            if let Err(e) = moved {
                self.abandon_delivered(i + 1);
                return Err(e);
            }
        }
        self.net.delivered.clear();
        if L::KEPT {
            self.net.order.scheduled.clear();
        }
        Ok(())
    }

    /// The box a packet leaving direction `d` of link `l` passes: the one at the link's
    /// first endpoint, for the reverse direction. The table by link is read only in a
    /// run with boxes, and then only for the reverse direction: read at every wake-up,
    /// its entry was a first-level cache miss at most of them at 10 000 flows
    /// (callgrind's cache model), in runs that have no box at all.
    #[inline(always)]
    fn box_leaving_reverse(&self, l: usize, d: usize) -> Option<usize> {
        if d != 1 || self.boxes.list.is_empty() {
            return None;
        }
        self.boxes.at[l]
    }

    /// After an error at the `from`-th packet a wake-up delivered: the rest leave the
    /// arena without being moved on, and the lists are cleared.
    #[cold]
    #[inline(never)]
    pub(super) fn abandon_delivered(&mut self, from: usize) {
        for &s in &self.net.delivered[from..] {
            self.net.arena.take(s);
        }
        self.net.delivered.clear();
        self.net.order.scheduled.clear();
    }

    /// Packet conservation on direction `d` of link `l` (after a spike control; a wake-up
    /// tests it in [`Self::on_link_wake`]). Inlined,
    /// its error out of line: the check is a few loads and one comparison.
    #[inline(always)]
    pub(super) fn check_link(&self, l: usize, d: usize) -> Result<(), InvariantViolation> {
        match self.net.links[l].dirs[d].link.packets_conserved() {
            true => Ok(()),
            false => Err(self.link_not_conserved(l, d)),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn link_not_conserved(&self, l: usize, d: usize) -> InvariantViolation {
        let c = self.net.links[l].dirs[d].link.counters();
        let what = format!(
            "link {} dir {d}: offered {:?} != delivered + dropped + in network",
            self.net.names[l], c
        );
        InvariantViolation {
            time: self.now,
            what,
        }
    }

    /// Asks schedule `s` of link `l` for its next control and queues it.
    pub(super) fn schedule_next_control(&mut self, l: usize, s: usize) {
        let run = &mut self.net.spikes[l][s];
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

    pub(super) fn on_link_control(&mut self, l: usize, s: usize) {
        let Some(control) = self.net.spikes[l][s].pending.take() else {
            return;
        };
        let now = self.now;
        for d in [Dir::Forward, Dir::Reverse] {
            let i = dir_index(d);
            let dir = &mut self.net.links[l].dirs[i].link;
            let Some(thaw_drops) = control::apply(control, d, dir, now) else {
                continue;
            };
            for s in thaw_drops {
                let p = self.net.arena.take(s);
                self.note_drop(l, &p);
            }
            self.sync_link(l, i);
        }
        let start = matches!(control, LinkControl::Suspend(..));
        if matches!(control, LinkControl::Suspend(..) | LinkControl::Resume(_)) {
            self.capture.tracer.record(
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
}

impl<L: Lead> LinkState<L> {
    /// Link number `i` as `cfg` builds it, idle.
    fn new(cfg: &spikelab_net::LinkConfig, i: usize, streams: &RngStreams) -> LinkState<L> {
        let [forward, reverse] = route::link_dirs(cfg, i, streams);
        let direction = |link| Direction {
            wake: TimerSlot::default(),
            link,
        };
        LinkState {
            dirs: [direction(forward), direction(reverse)],
        }
    }
}

/// Link number `i`'s spike schedules, each with its random stream.
fn spike_runs(cfg: &spikelab_net::LinkConfig, i: usize, streams: &RngStreams) -> Vec<SpikeRun> {
    route::spike_schedules(cfg, i, streams)
        .into_iter()
        .map(|(schedule, rng)| SpikeRun {
            segments_left: schedule.waits_for_segments(),
            schedule,
            rng,
            pending: None,
        })
        .collect()
}
