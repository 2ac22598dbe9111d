//! A plain link direction as one FIFO of timed packets.
//!
//! A direction with plain serialisation at a fixed rate, a drop-tail queue that drops
//! arrivals (not its head), a fixed latency and no delay trace never reorders its
//! packets and never draws a random number: a packet's transmission starts when it
//! arrives or when the packet ahead of it ends, whichever is later, takes its wire
//! bytes at the rate (`Dur::transmission`), and the packet reaches the far end the
//! link's latency after it ends. So the link computes each packet's end of
//! transmission when the packet arrives and keeps its packets, queued, being sent and
//! propagating, in one FIFO, instead of moving each through a queue, a transmitter and
//! a propagation pipe (the staged form, [`super::Staged`]).
//!
//! The state it keeps is exactly that of the staged form after the latest call: the
//! packets whose transmission the staged form has ended (`ended`) are the ones it
//! holds in its pipe, the next one is in its transmitter, the rest in its queue. Every
//! answer (wake-ups, drops, counters, the order in which packets are listed, in ns-2's
//! order of same-instant events the scheduling instants too) is the staged form's, and
//! [`Plain::to_staged`] hands that state over when the link is frozen or its rate
//! changes, the two things this form does not model. The property test
//! `the_plain_form_answers_as_the_staged_form` below drives both forms alike over
//! random arrivals, polls, freezes and rate changes, in both orders of same-instant
//! events, and compares every answer after every call.
//!
//! An arrival is dropped when the packets waiting (those after the one being sent) are
//! at the queue's limit, in packets or wire bytes ([`crate::queue`] says what a limit
//! counts), as [`crate::queue::DropTail`] decides.
//!
//! In ns-2's order ([`same_instant`]) the staged form leaves a transmission that ends
//! exactly at a call's instant to end later when an arrival scheduled before that end
//! runs first, and at a wake-up that delivered a packet; and each packet carries when
//! its transmission's end was scheduled (its start). This form keeps the same: `ended`
//! moves only where the staged form's transmitter runs, and each packet keeps its
//! departure's lead.

use super::ring::Ring;
use super::{InFlight, PacketBytes, Staged};
use crate::config::LinkDirConfig;
use crate::delay::DelaySampling;
use crate::link::same_instant::{self, Lead};
use crate::queue::{DropTail, DropTailConfig, Queue, QueueConfig, QueueLimit};
use crate::service::rate::{Rate, RateConfig};
use crate::service::{Departure, Service, ServiceConfig, Timed};
use spikelab_core::{BitRate, Dur, RngState, SimRng, Time, Wire};
use std::collections::VecDeque;

/// The queue's limit if `cfg` is a plain direction (see the module docs), else `None`.
pub(crate) fn limit_if_plain(cfg: &LinkDirConfig) -> Option<QueueLimit> {
    let plain = matches!(cfg.service, ServiceConfig::Rate(_))
        && cfg.delay_trace.is_none()
        && cfg.delay_sampling == DelaySampling::Time;
    match &cfg.queue {
        QueueConfig::DropTail(d) if plain && !d.drop_front => Some(d.limit),
        _ => None,
    }
}

/// A packet inside the link, when its transmission ends, and how long before that its
/// end was scheduled (at its start; nothing kept in spikelab's own order).
#[derive(Clone, Copy, Debug)]
pub(super) struct Sent<P, L> {
    pkt: P,
    end: Time,
    lead: L,
}

impl<P, L> Sent<P, L> {
    /// When the packet reaches the far end: the latency after its transmission ends
    /// (the staged form's `own_arrival` with no extra delay; FIFO by itself, as the
    /// ends only grow).
    #[inline(always)]
    fn arrival(&self, latency: Dur) -> Time {
        self.end + latency
    }
}

/// A plain link direction (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Plain<P, L> {
    /// Every packet inside, oldest first: those whose transmission has ended
    /// (propagating), then the one being sent, then those waiting.
    fifo: Ring<Sent<P, L>>,
    /// The position in `fifo` of the first packet whose transmission has not ended
    /// (the one being sent, if any): those before it propagate.
    ended: usize,
    /// Wire bytes of the packets waiting.
    waiting_bytes: u64,
    latency: Dur,
    rate: Rate,
    limit: QueueLimit,
    offered: PacketBytes,
    dropped: PacketBytes,
    delivered_packets: u64,
    /// The link's random stream, where it stands: never drawn from here, handed to
    /// the staged form (kept as its 56-byte state rather than a 320-byte generator:
    /// most directions of a large network are plain and never hand over; boxed, so
    /// that the plain form's own layout, which the per-packet path reads, is unchanged).
    rng: Box<RngState>,
    /// The latest `now` a call was made at (debug builds: time only moves forward).
    #[cfg(debug_assertions)]
    clock: Time,
}

impl<P: Wire, L: Lead> Plain<P, L> {
    /// An idle direction.
    pub(crate) fn new(rate: BitRate, latency: Dur, limit: QueueLimit, rng: SimRng) -> Self {
        Plain {
            fifo: Ring::new(),
            ended: 0,
            waiting_bytes: 0,
            latency,
            rate: Rate::new(&RateConfig {}, rate),
            limit,
            offered: PacketBytes::default(),
            dropped: PacketBytes::default(),
            delivered_packets: 0,
            rng: Box::new(RngState::of(&rng)),
            #[cfg(debug_assertions)]
            clock: Time::ZERO,
        }
    }

    /// A call at `now` (debug builds: time only moves forward).
    #[inline(always)]
    fn tick(&mut self, _now: Time) {
        #[cfg(debug_assertions)]
        {
            assert!(
                _now >= self.clock,
                "time went backwards: {_now} < {}",
                self.clock
            );
            self.clock = _now;
        }
    }

    /// The transmitter run up to `t`: every transmission ended by then is over, and
    /// the packet after each (if any) has stopped waiting.
    #[inline(always)]
    fn run_to(&mut self, t: Time) {
        while self.fifo.get(self.ended).is_some_and(|s| s.end <= t) {
            self.ended += 1;
            if let Some(next) = self.fifo.get(self.ended) {
                self.waiting_bytes -= next.pkt.wire_bytes() as u64;
            }
        }
    }

    /// [`Plain::run_to`] up to just before `now`.
    #[inline(always)]
    fn run_to_before(&mut self, now: Time) {
        if let Some(before) = now.0.checked_sub(1) {
            self.run_to(Time(before));
        }
    }

    /// Is a transmission in progress?
    #[inline(always)]
    fn busy(&self) -> bool {
        self.ended < self.fifo.tail()
    }

    /// Packets waiting behind the one being sent.
    #[inline(always)]
    fn waiting(&self) -> usize {
        self.fifo.tail().saturating_sub(self.ended + 1)
    }

    /// Are packets propagating?
    #[inline(always)]
    fn propagating(&self) -> bool {
        self.ended > self.fifo.head()
    }

    /// A packet arrives: dropped (and returned) if the queue is at its limit, else its
    /// transmission starts when the link is free ([`crate::LinkDir::enqueue`]).
    #[inline(always)]
    pub(crate) fn enqueue(&mut self, now: Time, pkt: P) -> Option<P> {
        self.tick(now);
        self.run_to(now);
        self.admit(now, pkt)
    }

    /// [`crate::LinkDir::enqueue_scheduled`]: the transmitter runs up to just before
    /// `now`, then up to `now` unless a transmission ends exactly then and the arrival,
    /// `scheduled` before that end was, runs first (and finds it still in service).
    #[inline(always)]
    pub(crate) fn enqueue_scheduled(&mut self, now: Time, pkt: P, scheduled: Time) -> Option<P> {
        self.tick(now);
        self.run_to_before(now);
        let first = self
            .fifo
            .get(self.ended)
            .filter(|s| s.end == now)
            .is_some_and(|s| same_instant::arrival_runs_first(scheduled, s.lead.scheduled(s.end)));
        if !first {
            self.run_to(now);
        }
        self.admit(now, pkt)
    }

    /// The arrival of `pkt` once the transmitter has run: dropped if the queue is
    /// full, else queued behind the transmission in progress or started now.
    #[inline(always)]
    fn admit(&mut self, now: Time, pkt: P) -> Option<P> {
        self.offered.add(&pkt);
        let wire = pkt.wire_bytes();
        if self
            .limit
            .overflows(self.waiting() as u64, self.waiting_bytes, wire)
        {
            self.dropped.add(&pkt);
            return Some(pkt);
        }
        let busy = self.busy();
        let start = match self.fifo.back() {
            Some(last) if busy => last.end,
            _ => now,
        };
        let end = self.push_from(start, pkt);
        if busy {
            self.waiting_bytes += wire as u64;
        } else if end <= now {
            // A transmission of no time is over as it starts.
            self.ended += 1;
        }
        None
    }

    /// Appends `pkt`, its transmission starting at `start`; returns when it ends.
    #[inline(always)]
    fn push_from(&mut self, start: Time, pkt: P) -> Time {
        let end = start + self.rate.transmission(pkt.wire_bytes());
        self.fifo.push_back(Sent {
            pkt,
            end,
            lead: L::of(end, start),
        });
        end
    }

    /// The packets that reached the far end by `now`, in order, into `delivered`
    /// ([`crate::LinkDir::poll`]; none is ever lost).
    #[inline(always)]
    pub(crate) fn poll(&mut self, now: Time, delivered: &mut Vec<P>) {
        self.tick(now);
        self.run_to(now);
        self.deliver(now, delivered, |_| {});
    }

    /// [`crate::LinkDir::poll_scheduled`]: the transmitter runs up to just before
    /// `now`, the packets propagating that reached the far end by `now` leave, each
    /// with when its arrival was scheduled into `scheduled`; a transmission ending
    /// exactly `now` ends now only if that is what the wake-up was for (nothing left).
    #[inline(always)]
    pub(crate) fn poll_scheduled(
        &mut self,
        now: Time,
        delivered: &mut Vec<P>,
        scheduled: &mut Vec<Time>,
    ) {
        self.tick(now);
        self.run_to_before(now);
        let left = self.deliver(now, delivered, |t| scheduled.push(t));
        if !self.propagating() && left == 0 {
            self.run_to(now);
        }
    }

    /// Hands over the packets propagating that reached the far end by `now`, noting
    /// when each one's arrival was scheduled; returns how many.
    #[inline(always)]
    fn deliver(&mut self, now: Time, delivered: &mut Vec<P>, mut note: impl FnMut(Time)) -> usize {
        let latency = self.latency;
        let mut left = 0;
        // Only those whose transmission has ended: in ns-2's order one ending `now`
        // may not have (in spikelab's own order every one that arrived has).
        while (!L::KEPT || self.propagating())
            && self.fifo.front().is_some_and(|f| f.arrival(latency) <= now)
        {
            let Some(f) = self.fifo.pop_front() else {
                break;
            };
            if L::KEPT {
                note(arrival_scheduled(&f, latency));
            }
            delivered.push(f.pkt);
            left += 1;
        }
        debug_assert!(
            self.ended >= self.fifo.head(),
            "a packet left before it was sent"
        );
        self.delivered_packets += left as u64;
        // As the staged form's pipe: an empty FIFO keeps no more than a few entries.
        self.fifo.release_idle(super::IDLE_PIPE_CAPACITY);
        left
    }

    /// The next wake-up: the oldest packet's arrival at the far end, whether it
    /// propagates or is still being sent, in either order of same-instant events (the
    /// end of its transmission is no wake-up of its own, as in the staged form's
    /// `transmitter_wakeup`).
    #[inline(always)]
    pub(crate) fn next_wakeup(&self) -> Option<Time> {
        let oldest = self.fifo.front()?;
        Some(oldest.arrival(self.latency))
    }

    /// [`crate::LinkDir::next_out`]: the `k`-th oldest packet inside.
    #[inline(always)]
    pub(crate) fn next_out(&self, k: usize) -> Option<P> {
        self.fifo.get(self.fifo.head() + k).map(|f| f.pkt)
    }

    /// [`crate::LinkDir::wakeup_kept_by_arrival`]: whenever a packet is inside (an
    /// arrival joins the FIFO behind the oldest one, whose arrival is the wakeup).
    #[inline(always)]
    pub(crate) fn wakeup_kept_by_arrival(&self) -> bool {
        !self.fifo.is_empty()
    }

    /// [`crate::LinkDir::skipped_end_wakeup`]: with nothing propagating, the end of the
    /// oldest packet's transmission (in progress, or in ns-2's order ending now and
    /// left to the arrivals).
    pub(crate) fn skipped_end_wakeup(&self) -> Option<Time> {
        (!self.propagating()).then(|| self.fifo.front().map(|f| f.end))?
    }

    /// `offered = delivered + dropped + inside`.
    #[inline(always)]
    pub(crate) fn packets_conserved(&self) -> bool {
        self.offered.packets
            == self.delivered_packets + self.dropped.packets + self.fifo.len() as u64
    }

    pub(crate) fn queue_len_packets(&self) -> usize {
        self.waiting()
    }

    pub(crate) fn queue_len_bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// Every packet inside, in the staged form's order: waiting, being sent,
    /// propagating.
    pub(crate) fn for_each_in_network(&self, mut f: impl FnMut(&P)) {
        let from = |pos: usize| (pos..self.fifo.tail()).filter_map(|p| self.fifo.get(p));
        from(self.ended + 1).for_each(|s| f(&s.pkt));
        from(self.ended).take(1).for_each(|s| f(&s.pkt));
        from(self.fifo.head())
            .take(self.ended - self.fifo.head())
            .for_each(|s| f(&s.pkt));
    }

    /// Is any packet inside one that `pred` holds for? In no particular order (the
    /// buffer's), stopping at the first.
    pub(crate) fn any_in_network(&self, mut pred: impl FnMut(&P) -> bool) -> bool {
        let (older, newer) = self.fifo.as_slices();
        older.iter().any(|s| pred(&s.pkt)) || newer.iter().any(|s| pred(&s.pkt))
    }
    /// Offered, dropped and delivered packets and bytes, and those inside.
    pub(crate) fn counters(&self) -> super::LinkCounters {
        let mut inside = PacketBytes::default();
        self.fifo.iter().for_each(|s| inside.add(&s.pkt));
        super::LinkCounters {
            offered: self.offered,
            dropped: self.dropped,
            lost_in_link: PacketBytes::default(),
            delivered: PacketBytes {
                packets: self.delivered_packets,
                bytes: self.offered.bytes - self.dropped.bytes - inside.bytes,
            },
            in_network: inside,
        }
    }

    /// The same link in the staged form, in the state the staged form would be in
    /// after the latest call: propagating packets in its pipe, the one being sent in
    /// its transmitter, the waiting ones in its queue, and the same counters, leads
    /// and random stream.
    pub(crate) fn to_staged(&self) -> Staged<P, L> {
        let latency = self.latency;
        let mut queue = DropTail::new(&DropTailConfig {
            limit: self.limit,
            drop_front: false,
        });
        let mut transmitter = Timed::<Rate, P, L>::new(self.rate);
        let mut pipe = VecDeque::with_capacity(self.ended - self.fifo.head());
        for (pos, s) in (self.fifo.head()..).zip(self.fifo.iter().copied()) {
            match pos.cmp(&self.ended) {
                std::cmp::Ordering::Less => {
                    let at = s.arrival(latency);
                    pipe.push_back(InFlight {
                        pkt: s.pkt,
                        at,
                        lost: false,
                        lead: L::of(at, s.lead.scheduled(s.end)),
                    })
                }
                std::cmp::Ordering::Equal => transmitter.start_busy(Departure {
                    pkt: s.pkt,
                    at: s.end,
                    extra: Dur::ZERO,
                    lost: false,
                    lead: s.lead,
                }),
                std::cmp::Ordering::Greater => {
                    let dropped = queue.enqueue(s.pkt);
                    debug_assert!(dropped.is_none(), "a waiting packet over the limit");
                }
            }
        }
        Staged::from_parts(super::Parts {
            queue: Queue::DropTail(queue),
            service: Service::Rate(transmitter),
            latency,
            rng: Box::new(self.rng.resume()),
            pipe,
            offered: self.offered,
            dropped: self.dropped,
            delivered_packets: self.delivered_packets,
            #[cfg(debug_assertions)]
            clock: self.clock,
        })
    }
}

impl<P: Wire, L: Lead> Plain<P, L> {
    /// A direction the plain form handed over, back from the staged form `s`, which
    /// nothing propagates through and which is not frozen
    /// ([`Staged::returns_to_plain`]): the packet being sent keeps its end, the
    /// waiting ones are timed as its transmitter will serve them, one after the other
    /// at its rate now.
    pub(crate) fn from_staged(s: &Staged<P, L>) -> Plain<P, L> {
        debug_assert!(s.returns_to_plain());
        let (Service::Rate(transmitter), Queue::DropTail(queue)) = (&s.service, &s.queue) else {
            unreachable!("the plain form hands over a rate transmitter and a drop-tail queue");
        };
        let mut plain = Plain {
            fifo: Ring::new(),
            ended: 0,
            waiting_bytes: 0,
            latency: s.latency,
            rate: *transmitter.model(),
            limit: queue.limit(),
            offered: s.offered,
            dropped: s.dropped,
            delivered_packets: s.delivered_packets,
            rng: Box::new(RngState::of(&s.rng)),
            #[cfg(debug_assertions)]
            clock: s.clock,
        };
        if let Some(d) = transmitter.sending() {
            plain.fifo.push_back(Sent {
                pkt: d.pkt,
                end: d.at,
                lead: d.lead,
            });
        }
        debug_assert!(
            plain.busy() || queue.fifo().is_empty(),
            "packets waiting at an idle transmitter"
        );
        for &pkt in queue.fifo().iter() {
            let start = plain.fifo.back().map_or(Time::ZERO, |last| last.end);
            plain.push_from(start, pkt);
            plain.waiting_bytes += pkt.wire_bytes() as u64;
        }
        plain
    }
}

/// When the arrival of the packet `s` at the far end was scheduled: as the staged
/// form's pipe records it (`Propagation::send`), from its transmission end's scheduling
/// instant, both leads saturating as [`Lead::of`] does.
#[inline(always)]
fn arrival_scheduled<P, L: Lead>(s: &Sent<P, L>, latency: Dur) -> Time {
    let at = s.arrival(latency);
    L::of(at, s.lead.scheduled(s.end)).scheduled(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::freeze::FreezeMode;
    use crate::link::tests::freeze_mode;
    use crate::link::{Form, LinkDir};
    use proptest::prelude::*;
    use rand::SeedableRng;
    use spikelab_core::ByteSize;

    /// A packet of any wire size, none included (a transmission of no time).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Pkt {
        uid: u64,
        wire: u32,
    }

    impl Wire for Pkt {
        fn wire_bytes(&self) -> u32 {
            self.wire
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// A packet of this many wire bytes whose arrival was scheduled this long ago
        /// (ns-2's order).
        Send(u32, u64),
        /// A poll at the current time, due or not.
        Poll,
        Suspend(FreezeMode),
        Resume,
        Rate(u64),
    }

    /// An operation after a pause, or (`at_end`) at the end of the transmission in
    /// progress, so that arrivals meet transmission ends; with `wake_first` a wake-up
    /// due at the same instant is polled before it.
    type Step = (u64, Op, bool, bool);

    fn step() -> impl Strategy<Value = Step> {
        let op = prop_oneof![
            12 => (prop_oneof![Just(0u32), 40u32..60, 1000u32..1100], prop_oneof![Just(0u64), 0u64..50_000_000])
                .prop_map(|(wire, lead)| Op::Send(wire, lead)),
            2 => Just(Op::Poll),
            1 => freeze_mode().prop_map(Op::Suspend),
            1 => Just(Op::Resume),
            1 => (10_000u64..5_000_000).prop_map(Op::Rate),
        ];
        // Many pauses of none: several calls at one instant.
        let pause = prop_oneof![Just(0u64), 0u64..30_000_000];
        (pause, op, any::<bool>(), any::<bool>())
    }

    fn config(rate: u64, latency: u64, limit: QueueLimit) -> LinkDirConfig {
        LinkDirConfig {
            queue: QueueConfig::DropTail(DropTailConfig {
                limit,
                drop_front: false,
            }),
            ..LinkDirConfig::new(BitRate(rate), Dur(latency))
        }
    }

    /// Everything either form answers, listed after a call.
    fn answers<L: Lead>(l: &LinkDir<Pkt, L>) -> impl PartialEq + std::fmt::Debug {
        let mut inside = Vec::new();
        l.for_each_in_network(|p| inside.push(p.uid));
        (
            l.next_wakeup(),
            l.skipped_end_wakeup(),
            l.packets_conserved(),
            l.counters(),
            l.queue_len_packets(),
            l.queue_len_bytes(),
            l.is_suspended(),
            inside,
        )
    }

    /// What left a link in a poll: delivered, lost, and the deliveries' scheduling
    /// instants (ns-2's order).
    type Out = (Vec<Pkt>, Vec<Pkt>, Vec<Time>);

    fn poll<L: Lead>(l: &mut LinkDir<Pkt, L>, now: Time, (got, lost, sched): &mut Out) {
        match L::KEPT {
            true => l.poll_scheduled(now, got, sched, lost),
            false => l.poll(now, got, lost),
        }
    }

    /// The end of the staged twin's transmission in progress.
    fn end_in_progress<L: Lead>(l: &LinkDir<Pkt, L>) -> Option<Time> {
        match &l.0 {
            Form::Staged(s) => s.service.known_departure().map(|(end, _)| end),
            Form::Plain(_) => None,
        }
    }

    /// Drives a direction built in the plain form and one of the same configuration
    /// in the staged form alike, in the order of same-instant events `L` (the engine's
    /// calls of that order), polling at every wake-up, and checks that they answer
    /// alike after every call: the same packets out at the same instants (with the
    /// same scheduling instants), the same drops, wake-ups, counters and lists, and
    /// that the plain form's wake-up stays where it says an arrival keeps it.
    fn lockstep<L: Lead>(c: &LinkDirConfig, steps: &[Step]) -> Result<(), TestCaseError> {
        let mut plain = LinkDir::<Pkt, L>::new(c, SimRng::seed_from_u64(7));
        prop_assert!(matches!(plain.0, Form::Plain(_)));
        let mut staged = LinkDir::<Pkt, L>(Form::Staged(Staged::new(c, SimRng::seed_from_u64(7))));
        let mut now = Time::ZERO;
        let mut out: [Out; 2] = Default::default();
        for (uid, (pause, op, at_end, wake_first)) in steps.iter().enumerate() {
            let target = match end_in_progress(&staged).filter(|&e| *at_end && e >= now) {
                Some(end) => end,
                None => now + Dur(*pause),
            };
            let mut rounds = 0;
            while let Some(w) = plain
                .next_wakeup()
                .filter(|&w| w < target || (*wake_first && w == target))
            {
                rounds += 1;
                prop_assert!(rounds < 10_000, "wake-ups do not advance");
                now = w;
                poll(&mut plain, now, &mut out[0]);
                poll(&mut staged, now, &mut out[1]);
                prop_assert_eq!(&out[0], &out[1]);
                prop_assert_eq!(answers(&plain), answers(&staged));
            }
            now = target;
            let (a, b) = match op {
                Op::Send(wire, lead) => {
                    let p = Pkt {
                        uid: uid as u64,
                        wire: *wire,
                    };
                    let kept = plain.wakeup_kept_by_arrival().then(|| plain.next_wakeup());
                    let dropped = match L::KEPT {
                        true => {
                            let at = Time(now.0.saturating_sub(*lead));
                            (
                                plain.enqueue_scheduled(now, p, at),
                                staged.enqueue_scheduled(now, p, at),
                            )
                        }
                        false => (plain.enqueue(now, p), staged.enqueue(now, p)),
                    };
                    // An engine re-arms no wake-up after such an arrival.
                    prop_assert!(kept.is_none_or(|w| w == plain.next_wakeup()));
                    dropped
                }
                Op::Poll => {
                    poll(&mut plain, now, &mut out[0]);
                    poll(&mut staged, now, &mut out[1]);
                    (None, None)
                }
                Op::Suspend(mode) => {
                    plain.suspend(now, *mode);
                    staged.suspend(now, *mode);
                    (None, None)
                }
                Op::Resume => {
                    prop_assert_eq!(plain.resume(now), staged.resume(now));
                    (None, None)
                }
                Op::Rate(r) => {
                    plain.set_rate(now, BitRate(*r));
                    staged.set_rate(now, BitRate(*r));
                    (None, None)
                }
            };
            prop_assert_eq!(a, b);
            prop_assert_eq!(&out[0], &out[1]);
            prop_assert_eq!(answers(&plain), answers(&staged));
        }
        // Then every packet inside leaves (long latencies included).
        plain.resume(now);
        staged.resume(now);
        while let Some(w) = plain.next_wakeup() {
            poll(&mut plain, w, &mut out[0]);
            poll(&mut staged, w, &mut out[1]);
            prop_assert_eq!(&out[0], &out[1]);
            prop_assert_eq!(answers(&plain), answers(&staged));
        }
        prop_assert_eq!(plain.counters().in_network, PacketBytes::default());
        Ok(())
    }

    fn limit() -> impl Strategy<Value = QueueLimit> {
        prop_oneof![
            (0u64..20).prop_map(QueueLimit::Packets),
            (0u64..20_000).prop_map(|b| QueueLimit::Bytes(ByteSize(b))),
        ]
    }

    fn rate() -> impl Strategy<Value = u64> {
        prop_oneof![Just(1_000_000u64), 10_000u64..100_000_000, Just(u64::MAX)]
    }

    fn latency() -> impl Strategy<Value = u64> {
        // Up to 6 s: beyond the 4.3 s that ns-2's order's leads saturate at.
        prop_oneof![
            Just(0u64),
            0u64..40_000_000,
            4_000_000_000u64..6_000_000_000
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// The plain form is an exact stand-in for the staged one in spikelab's own
        /// order of same-instant events: same drops, deliveries, wake-ups, counters
        /// and lists after every call, with or without a hand-over (a freeze or a rate
        /// change) part-way.
        #[test]
        fn the_plain_form_answers_as_the_staged_form(
            steps in prop::collection::vec(step(), 1..300),
            rate in rate(),
            latency in latency(),
            limit in limit(),
        ) {
            lockstep::<()>(&config(rate, latency, limit), &steps)?;
        }

        /// The same in ns-2's order: arrivals scheduled before or after a
        /// transmission end at their instant, wake-ups at transmission ends, the
        /// deliveries' scheduling instants.
        #[test]
        fn the_plain_form_answers_as_the_staged_form_in_ns2_order(
            steps in prop::collection::vec(step(), 1..300),
            rate in rate(),
            latency in latency(),
            limit in limit(),
        ) {
            lockstep::<u32>(&config(rate, latency, limit), &steps)?;
        }
    }

    #[test]
    fn only_plain_configurations_take_the_plain_form() {
        let plain = config(1_000_000, 1_000, QueueLimit::Packets(5));
        assert!(limit_if_plain(&plain).is_some());
        let mut c = plain.clone();
        c.queue = QueueConfig::DropTail(DropTailConfig {
            limit: QueueLimit::Packets(5),
            drop_front: true,
        });
        assert!(limit_if_plain(&c).is_none(), "drop-from-front");
        let mut c = plain.clone();
        c.delay_sampling = DelaySampling::PerPacket;
        assert!(limit_if_plain(&c).is_none(), "per-packet delay draws");
        let mut c = plain;
        c.service = ServiceConfig::Wcdma(Default::default());
        assert!(limit_if_plain(&c).is_none(), "another service model");
    }

    #[test]
    fn the_packet_conservation_check_sees_a_packet_gone_missing() {
        let c = config(1_000_000, 20_000_000, QueueLimit::Packets(10));
        let mut l = Plain::<Pkt, ()>::new(
            c.rate,
            c.latency,
            QueueLimit::Packets(10),
            SimRng::seed_from_u64(1),
        );
        for uid in 0..3 {
            l.enqueue(Time::ZERO, Pkt { uid, wire: 1000 });
        }
        assert!(l.packets_conserved());
        l.poll(Time(30_000_000), &mut Vec::new());
        assert!(l.packets_conserved());
        l.fifo.pop_front();
        assert!(!l.packets_conserved());
    }
}
