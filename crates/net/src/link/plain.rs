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
//! The state it keeps is exactly that of the staged form run to the time of the latest
//! call: the packets whose transmission had ended by then are the ones the staged form
//! holds in its pipe, the next one is in its transmitter, the rest in its queue. Every
//! answer (wake-ups, drops, counters, the order in which packets are listed) is the
//! staged form's, and [`Plain::to_staged`] hands that state over when the link is
//! frozen or its rate changes, the two things this form does not model. The property
//! test `the_plain_form_answers_as_the_staged_form` in `link/tests.rs` compares the two
//! over random arrivals, freezes and rate changes.
//!
//! An arrival is dropped when the packets waiting (those after the one being sent) are
//! at the queue's limit, in packets or wire bytes ([`crate::queue`] says what a limit
//! counts), as [`crate::queue::DropTail`] decides.

use super::{InFlight, PacketBytes, Staged};
use crate::config::LinkDirConfig;
use crate::delay::DelaySampling;
use crate::link::same_instant::Lead;
use crate::queue::{DropTail, DropTailConfig, Queue, QueueConfig, QueueLimit};
use crate::service::rate::{Rate, RateConfig};
use crate::service::{Departure, Service, ServiceConfig, Timed};
use spikelab_core::{BitRate, Dur, SimRng, Time, Wire};
use std::collections::VecDeque;

/// The queue's limit if `cfg` is a plain direction (see the module docs) in a link of
/// spikelab's own order of same-instant events (`L`), else `None`.
pub(crate) fn limit_if_plain<L: Lead>(cfg: &LinkDirConfig) -> Option<QueueLimit> {
    let plain = !L::KEPT
        && matches!(cfg.service, ServiceConfig::Rate(_))
        && cfg.delay_trace.is_none()
        && cfg.delay_sampling == DelaySampling::Time;
    match &cfg.queue {
        QueueConfig::DropTail(d) if plain && !d.drop_front => Some(d.limit),
        _ => None,
    }
}

/// A packet inside the link and when its transmission ends.
#[derive(Clone, Copy, Debug)]
struct Sent<P> {
    pkt: P,
    end: Time,
}

/// A plain link direction (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Plain<P> {
    /// Every packet inside, oldest first: those whose transmission had ended at the
    /// latest call (propagating), then the one being sent, then those waiting.
    fifo: VecDeque<Sent<P>>,
    /// How many packets at the front of `fifo` had ended their transmission at the
    /// latest call.
    ended: usize,
    /// Wire bytes of the packets waiting.
    waiting_bytes: u64,
    latency: Dur,
    rate: Rate,
    limit: QueueLimit,
    offered: PacketBytes,
    dropped: PacketBytes,
    delivered_packets: u64,
    /// The link's random stream: never drawn from here, handed to the staged form.
    rng: Box<SimRng>,
    /// The latest `now` a call was made at (debug builds: time only moves forward).
    #[cfg(debug_assertions)]
    clock: Time,
}

impl<P: Wire> Plain<P> {
    /// An idle direction.
    pub(crate) fn new(rate: BitRate, latency: Dur, limit: QueueLimit, rng: SimRng) -> Plain<P> {
        Plain {
            fifo: VecDeque::new(),
            ended: 0,
            waiting_bytes: 0,
            latency,
            rate: Rate::new(&RateConfig {}, rate),
            limit,
            offered: PacketBytes::default(),
            dropped: PacketBytes::default(),
            delivered_packets: 0,
            rng: Box::new(rng),
            #[cfg(debug_assertions)]
            clock: Time::ZERO,
        }
    }

    /// The transmitter run up to `now`: every transmission ended by then is over, and
    /// the packet after each (if any) has stopped waiting.
    #[inline(always)]
    fn run_to(&mut self, now: Time) {
        #[cfg(debug_assertions)]
        {
            assert!(
                now >= self.clock,
                "time went backwards: {now} < {}",
                self.clock
            );
            self.clock = now;
        }
        while self.fifo.get(self.ended).is_some_and(|s| s.end <= now) {
            self.ended += 1;
            if let Some(next) = self.fifo.get(self.ended) {
                self.waiting_bytes -= next.pkt.wire_bytes() as u64;
            }
        }
    }

    /// Is a transmission in progress (after [`Plain::run_to`])?
    #[inline(always)]
    fn busy(&self) -> bool {
        self.ended < self.fifo.len()
    }

    /// Packets waiting behind the one being sent.
    #[inline(always)]
    fn waiting(&self) -> usize {
        self.fifo.len().saturating_sub(self.ended + 1)
    }

    /// A packet arrives: dropped (and returned) if the queue is at its limit, else its
    /// transmission starts when the link is free ([`crate::LinkDir::enqueue`]).
    #[inline(always)]
    pub(crate) fn enqueue(&mut self, now: Time, pkt: P) -> Option<P> {
        self.run_to(now);
        self.offered.add(&pkt);
        let wire = pkt.wire_bytes();
        let full = match self.limit {
            QueueLimit::Packets(n) => self.waiting() as u64 + 1 > n,
            QueueLimit::Bytes(b) => self.waiting_bytes + wire as u64 > b.bytes(),
        };
        if full {
            self.dropped.add(&pkt);
            return Some(pkt);
        }
        let busy = self.busy();
        let start = match self.fifo.back() {
            Some(last) if busy => last.end,
            _ => now,
        };
        let end = start + self.rate.transmission(wire);
        self.fifo.push_back(Sent { pkt, end });
        if busy {
            self.waiting_bytes += wire as u64;
        } else if end <= now {
            // A transmission of no time is over as it starts.
            self.ended += 1;
        }
        None
    }

    /// The packets that reached the far end by `now`, in order, into `delivered`
    /// ([`crate::LinkDir::poll`]; none is ever lost).
    #[inline(always)]
    pub(crate) fn poll(&mut self, now: Time, delivered: &mut Vec<P>) {
        self.run_to(now);
        let latency = self.latency;
        while self.fifo.front().is_some_and(|f| f.end + latency <= now) {
            let Some(f) = self.fifo.pop_front() else {
                break;
            };
            delivered.push(f.pkt);
            self.ended -= 1;
            self.delivered_packets += 1;
        }
        // As the staged form's pipe: an empty FIFO keeps no more than a few entries.
        if self.fifo.is_empty() && self.fifo.capacity() > super::IDLE_PIPE_CAPACITY {
            self.fifo.shrink_to(super::IDLE_PIPE_CAPACITY);
        }
    }

    /// When the oldest packet reaches the far end: the next wake-up.
    #[inline(always)]
    pub(crate) fn next_wakeup(&self) -> Option<Time> {
        self.fifo.front().map(|f| f.end + self.latency)
    }

    /// [`crate::LinkDir::wakeup_kept_by_arrival`]: is a packet inside? An arrival
    /// then joins the FIFO behind the oldest one, whose arrival is the wakeup.
    #[inline(always)]
    pub(crate) fn wakeup_kept_by_arrival(&self) -> bool {
        !self.fifo.is_empty()
    }

    /// [`crate::LinkDir::skipped_end_wakeup`]: with nothing propagating, the end of
    /// the transmission in progress.
    pub(crate) fn skipped_end_wakeup(&self) -> Option<Time> {
        (self.ended == 0).then(|| self.fifo.front().map(|f| f.end))?
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
        let at = |i| self.fifo.iter().skip(i);
        at(self.ended + 1).for_each(|s| f(&s.pkt));
        at(self.ended).take(1).for_each(|s| f(&s.pkt));
        at(0).take(self.ended).for_each(|s| f(&s.pkt));
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
    /// its transmitter, the waiting ones in its queue, and the same counters and
    /// random stream. Only for spikelab's own order of same-instant events (a plain
    /// form is never built for ns-2's).
    pub(crate) fn to_staged<L: Lead>(&self) -> Staged<P, L> {
        debug_assert!(!L::KEPT, "no plain form in ns-2's same-instant order");
        let latency = self.latency;
        let mut queue = DropTail::new(&DropTailConfig {
            limit: self.limit,
            drop_front: false,
        });
        let mut transmitter = Timed::<Rate, P, L>::new(self.rate);
        let mut pipe = VecDeque::with_capacity(self.ended);
        for (i, s) in self.fifo.iter().copied().enumerate() {
            match i.cmp(&self.ended) {
                std::cmp::Ordering::Less => {
                    let at = s.end + latency;
                    pipe.push_back(InFlight {
                        pkt: s.pkt,
                        at,
                        lost: false,
                        lead: L::of(at, at),
                    })
                }
                std::cmp::Ordering::Equal => transmitter.start_busy(Departure {
                    pkt: s.pkt,
                    at: s.end,
                    extra: Dur::ZERO,
                    lost: false,
                    lead: L::of(s.end, s.end),
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
            rng: self.rng.clone(),
            pipe,
            offered: self.offered,
            dropped: self.dropped,
            delivered_packets: self.delivered_packets,
            #[cfg(debug_assertions)]
            clock: self.clock,
        })
    }
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
        Send(u32),
        /// A poll at the current time, due or not.
        Poll,
        Suspend(FreezeMode),
        Resume,
        Rate(u64),
    }

    fn op() -> impl Strategy<Value = (u64, Op)> {
        let op = prop_oneof![
            12 => prop_oneof![Just(0u32), 40u32..60, 1000u32..1100].prop_map(Op::Send),
            2 => Just(Op::Poll),
            1 => freeze_mode().prop_map(Op::Suspend),
            1 => Just(Op::Resume),
            1 => (10_000u64..5_000_000).prop_map(Op::Rate),
        ];
        // Many pauses of none: several calls at one instant.
        (prop_oneof![Just(0u64), 0u64..30_000_000], op)
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
    fn answers(l: &LinkDir<Pkt>) -> impl PartialEq + std::fmt::Debug {
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

    /// Drives a direction built in the plain form and one of the same configuration
    /// in the staged form alike, polling at every wake-up, and checks that they answer
    /// alike after every call: the same packets out at the same instants, the same
    /// drops, wake-ups, counters and lists.
    fn lockstep(c: &LinkDirConfig, ops: &[(u64, Op)]) -> Result<(), TestCaseError> {
        let mut plain = LinkDir::<Pkt>::new(c, SimRng::seed_from_u64(7));
        prop_assert!(matches!(plain.0, Form::Plain(_)));
        let mut staged = LinkDir::<Pkt>(Form::Staged(Staged::new(c, SimRng::seed_from_u64(7))));
        let mut now = Time::ZERO;
        let mut out = [(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
        let poll = |l: &mut LinkDir<Pkt>, now, (got, lost): &mut (Vec<Pkt>, Vec<Pkt>)| {
            l.poll(now, got, lost);
        };
        for (uid, (pause, op)) in ops.iter().enumerate() {
            let target = now + Dur(*pause);
            while let Some(w) = plain.next_wakeup().filter(|&w| w <= target) {
                now = w;
                poll(&mut plain, now, &mut out[0]);
                poll(&mut staged, now, &mut out[1]);
                prop_assert_eq!(&out[0], &out[1]);
                prop_assert_eq!(answers(&plain), answers(&staged));
            }
            now = target;
            let (a, b) = match op {
                Op::Send(wire) => {
                    let p = Pkt {
                        uid: uid as u64,
                        wire: *wire,
                    };
                    let kept = plain.wakeup_kept_by_arrival().then(|| plain.next_wakeup());
                    let dropped = (plain.enqueue(now, p), staged.enqueue(now, p));
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
        Ok(())
    }

    fn limit() -> impl Strategy<Value = QueueLimit> {
        prop_oneof![
            (0u64..20).prop_map(QueueLimit::Packets),
            (0u64..20_000).prop_map(|b| QueueLimit::Bytes(ByteSize(b))),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// The plain form is an exact stand-in for the staged one: same drops,
        /// deliveries, wake-ups, counters and lists after every call, with or without
        /// a hand-over (a freeze or a rate change) part-way.
        #[test]
        fn the_plain_form_answers_as_the_staged_form(
            ops in prop::collection::vec(op(), 1..300),
            rate in prop_oneof![Just(1_000_000u64), 10_000u64..100_000_000, Just(u64::MAX)],
            latency in prop_oneof![Just(0u64), 0u64..40_000_000],
            limit in limit(),
        ) {
            lockstep(&config(rate, latency, limit), &ops)?;
        }
    }

    #[test]
    fn only_plain_configurations_of_spikelabs_own_order_take_the_plain_form() {
        let plain = config(1_000_000, 1_000, QueueLimit::Packets(5));
        assert!(limit_if_plain::<()>(&plain).is_some());
        assert!(limit_if_plain::<u32>(&plain).is_none(), "ns-2's order");
        let mut c = plain.clone();
        c.queue = QueueConfig::DropTail(DropTailConfig {
            limit: QueueLimit::Packets(5),
            drop_front: true,
        });
        assert!(limit_if_plain::<()>(&c).is_none(), "drop-from-front");
        let mut c = plain.clone();
        c.delay_sampling = DelaySampling::PerPacket;
        assert!(limit_if_plain::<()>(&c).is_none(), "per-packet delay draws");
        let mut c = plain;
        c.service = ServiceConfig::Wcdma(Default::default());
        assert!(limit_if_plain::<()>(&c).is_none(), "another service model");
    }

    #[test]
    fn the_packet_conservation_check_sees_a_packet_gone_missing() {
        let c = config(1_000_000, 20_000_000, QueueLimit::Packets(10));
        let mut l = Plain::<Pkt>::new(
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
