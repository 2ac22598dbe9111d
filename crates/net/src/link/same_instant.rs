//! ns-2's order of an arrival and a transmission end at the same instant
//! ([`LinkDir::enqueue_scheduled`](crate::LinkDir::enqueue_scheduled)).
//!
//! ns-2.35 runs events of equal time in the order they were scheduled:
//! `CalendarScheduler::insert()` (`common/scheduler.cc`) puts a new event after every
//! event whose time is `<=` its own. A link's two events are both scheduled when a
//! transmission starts, in `LinkDelay::recv()` (`link/delay.cc`): the packet's arrival
//! at the far end `txt + delay_` ahead and the end of its transmission (`intr_`, which
//! makes `Queue::resume()` in `queue/queue.cc` send the next packet) `txt` ahead. So
//! when a packet reaches a link at the very instant the transmission there ends, the
//! event scheduled earlier runs first:
//!
//! * the arrival, if its transmission on the previous link started before the one
//!   ending here: it finds the ending packet still in service and the queue not yet
//!   shortened (`Queue::recv()` enqueues, `DropTail::enque()` may drop);
//! * the transmission end otherwise: the next packet leaves the queue first.
//!
//! spikelab's plain [`LinkDir::enqueue`](crate::LinkDir::enqueue) always completes due
//! transmissions first; the ns-2 order is a switch of the engine
//! (`same_instant_in_scheduling_order` of the `ns2-2002` profile).
//!
//! A link remembers when each transmission end and each arrival was scheduled as a
//! *lead*: how long before the event's own time it was scheduled, in nanoseconds,
//! in the padding of the structures it already keeps (no size cost). Leads saturate at
//! `u32::MAX` ns (4.3 s): an event scheduled longer ahead counts as scheduled 4.3 s
//! before its time.
//!
//! Whether a link keeps leads at all is its type, chosen once per run ([`Lead`]): a
//! link in spikelab's own order (`()`, the default) carries no scheduling instants
//! and runs the plain code path; only a run with the switch on builds its links with
//! `u32` leads. A per-packet branch on the switch would cost every run (measured: the
//! 100-flow dumbbell about 7 % slower with the switch off everywhere).

use spikelab_core::Time;

/// What a link keeps of when its events were scheduled: nothing (`()`, spikelab's own
/// order of same-instant events) or a lead in nanoseconds (`u32`, ns-2's order).
pub trait Lead: Copy + std::fmt::Debug + Default + PartialEq + Eq {
    /// Are scheduling instants kept (ns-2's order)?
    const KEPT: bool;
    /// The lead of an event due at `at` that was scheduled at `scheduled`.
    fn of(at: Time, scheduled: Time) -> Self;
    /// When an event due at `at` with this lead was scheduled; with nothing kept, at
    /// its own time.
    fn scheduled(self, at: Time) -> Time;
}

/// spikelab's own order: nothing kept, nothing computed.
impl Lead for () {
    const KEPT: bool = false;
    #[inline(always)]
    fn of(_at: Time, _scheduled: Time) {}
    #[inline(always)]
    fn scheduled(self, at: Time) -> Time {
        at
    }
}

/// ns-2's order: the lead in nanoseconds, saturating ([`lead`]).
impl Lead for u32 {
    const KEPT: bool = true;
    #[inline]
    fn of(at: Time, scheduled: Time) -> u32 {
        lead(at, scheduled)
    }
    #[inline]
    fn scheduled(self, at: Time) -> Time {
        scheduled(at, self)
    }
}

/// How long before `at` an event due at `at` was scheduled at `scheduled`, saturating.
pub(crate) fn lead(at: Time, scheduled: Time) -> u32 {
    (at - scheduled).0.min(u32::MAX as u64) as u32
}

/// When an event due at `at` with `lead` was scheduled.
pub(crate) fn scheduled(at: Time, lead: u32) -> Time {
    Time(at.0 - lead as u64)
}

/// Does an arrival scheduled at `arrival` run before a transmission end at the same
/// instant scheduled at `departure`? `CalendarScheduler::insert()`: same-time events
/// in scheduling order. Two events scheduled at the same instant ran in the order of
/// the events that scheduled them, which a link does not know: the transmission end
/// then runs first, as in [`LinkDir::enqueue`](crate::LinkDir::enqueue).
pub fn arrival_runs_first(arrival: Time, departure: Time) -> bool {
    arrival < departure
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::tests::{any_queue, any_service, cfg, data, op, Op};
    use crate::link::Staged;
    use crate::queue::{DropTailConfig, QueueConfig, QueueLimit};
    use proptest::prelude::*;
    use rand::SeedableRng;
    use spikelab_core::{BitRate, Dur, Packet, SimRng};

    /// The rate of the links the driver runs, in bit/s.
    const RATE: u64 = 1_000_000;

    /// One step of the ns-2-order driver: an operation after `pause` ns, or (`at_wake`)
    /// at the link's next wakeup or a transmission's end (chosen by `pause`), before or
    /// after a wakeup then due is polled; a packet sent carries its arrival's
    /// scheduling instant `lead` ns before it.
    type Step = ((u64, Op), bool, bool, u64);

    /// Everything that leaves a link, in order: (what, uid, when, scheduled): deliveries
    /// (0) with their arrivals' scheduling instants, losses inside the link (1), drops
    /// by the queue or a freeze (2), and each wakeup time (3).
    type Log = Vec<(u8, u64, Time, Time)>;

    /// Drives `l` as the engine does in ns-2's order (`enqueue_scheduled`,
    /// `poll_scheduled` at every wakeup), through the fast paths or, if `general`,
    /// the general ones only.
    fn drive_ns2(l: &mut Staged<Packet, u32>, steps: &[Step], general: bool) -> Log {
        let tx1000 = Dur::transmission(data(0, 1000).wire_bytes() as u64, RATE);
        let mut log = Log::new();
        let (mut got, mut sched, mut lost) = (Vec::new(), Vec::new(), Vec::new());
        let mut now = Time::ZERO;
        for (uid, &((pause, ref op), at_wake, wake_first, lead)) in steps.iter().enumerate() {
            // At the wakeup, or at the end of the transmission in progress and of the
            // next ones (whole transmission times of a 1000-byte packet after it: the
            // ends a link folds in lazily while packets propagate).
            let end = |k: u64| {
                let (end, _) = l.service.known_departure()?;
                Some(end + Dur(k * tx1000.0))
            };
            let wake = match pause % 4 {
                0 => l.next_wakeup(),
                k => end(k - 1),
            };
            let target = match (at_wake, wake.filter(|&w| w >= now)) {
                (true, Some(w)) => w,
                _ => now + Dur(pause),
            };
            // A link whose pipe empties at a wakeup may be due again at that instant
            // (the end it left to the arrivals); the engine wakes it again then.
            let mut rounds = 0;
            while let Some(w) = l
                .next_wakeup()
                .filter(|&w| w < target || (wake_first && w == target))
            {
                rounds += 1;
                assert!(rounds < 10_000, "wakeups do not advance");
                now = w;
                match general {
                    false => l.poll_scheduled(now, &mut got, &mut sched, &mut lost),
                    true => l.poll_scheduled_as(now, &mut got, &mut sched, &mut lost, false),
                }
                log.push((3, 0, now, now));
                log.extend(
                    got.drain(..)
                        .zip(sched.drain(..))
                        .map(|(p, s)| (0, p.uid, now, s)),
                );
                log.extend(lost.drain(..).map(|p: Packet| (1, p.uid, now, now)));
            }
            now = target;
            let dropped = match op {
                Op::Send { payload } => {
                    // Half the packets are of 1000 bytes, so that ends fall on the
                    // times chosen above.
                    let payload = if lead % 2 == 0 { 1000 } else { *payload };
                    let (p, s) = (data(uid as u64, payload), Time(now.0.saturating_sub(lead)));
                    match general {
                        false => l.enqueue_scheduled(now, p, s),
                        true => {
                            l.tick(now);
                            l.enqueue_scheduled_general(now, p, s)
                        }
                    }
                    .into_iter()
                    .collect()
                }
                Op::Suspend(mode) => {
                    l.suspend(now, *mode);
                    Vec::new()
                }
                Op::Resume => l.resume(now),
                Op::Rate(r) => {
                    l.set_rate(now, BitRate(*r));
                    Vec::new()
                }
            };
            log.extend(dropped.iter().map(|p| (2, p.uid, now, now)));
            assert!(l.packets_conserved());
        }
        log
    }

    fn step() -> impl Strategy<Value = Step> {
        (op(), any::<bool>(), any::<bool>(), 0u64..20_000_000)
    }

    proptest! {
        /// The fast paths of ns-2's order (the transmitter of a running timed link run
        /// only when a transmission has ended, a plain link's arrival admitted without
        /// the discipline's dispatch) leave, wakeup by wakeup, what the general ones
        /// leave, ties of arrivals with transmission ends included, for every queue
        /// discipline (drop-tail, or any of `any_queue`, RED included) and service.
        #[test]
        fn the_ns2_order_fast_paths_match_the_general_ones(
            steps in prop::collection::vec(step(), 1..200),
            limit in 0u64..12,
            drop_front in any::<bool>(),
            other_queue in prop::option::of(any_queue()),
            service in any_service(),
            seed in any::<u64>(),
        ) {
            let mut c = cfg(RATE, Dur::from_millis(20), limit);
            c.queue = match other_queue {
                Some(queue) => queue,
                None => QueueConfig::DropTail(DropTailConfig {
                    limit: QueueLimit::Packets(limit),
                    drop_front,
                }),
            };
            c.service = service;
            let mut fast = Staged::<Packet, u32>::new(&c, SimRng::seed_from_u64(seed));
            let mut general = Staged::<Packet, u32>::new(&c, SimRng::seed_from_u64(seed));
            let want = drive_ns2(&mut general, &steps, true);
            prop_assert_eq!(drive_ns2(&mut fast, &steps, false), want);
            prop_assert_eq!(fast.counters(), general.counters());
        }
    }

    #[test]
    fn the_ns2_driver_meets_ties_of_arrivals_and_transmission_ends() {
        // The property test's driver does reach the case the order exists for: an
        // arrival at the instant of a transmission end, scheduled before that end.
        let c = cfg(RATE, Dur::from_millis(20), 1);
        // Packet 0 starts at 1 ms; the others arrive at its end, scheduled at 0.
        let steps: Vec<Step> = (0..4)
            .map(|i| {
                (
                    (1_000_000, Op::Send { payload: 1000 }),
                    i > 0,
                    false,
                    20_000_000,
                )
            })
            .collect();
        let mut l = Staged::<Packet, u32>::new(&c, SimRng::seed_from_u64(1));
        let log = drive_ns2(&mut l, &steps, false);
        assert!(
            log.iter().any(|e| e.0 == 2),
            "a tie scheduled first finds the queue full: {log:?}"
        );
    }

    #[test]
    fn a_lead_gives_back_the_scheduling_instant() {
        let at = Time(5_000_000_000);
        assert_eq!(
            scheduled(at, lead(at, Time(4_000_000_000))),
            Time(4_000_000_000)
        );
        assert_eq!(scheduled(at, lead(at, at)), at);
    }

    #[test]
    fn a_lead_beyond_4_3_s_saturates() {
        let at = Time(10_000_000_000);
        assert_eq!(lead(at, Time(0)), u32::MAX);
        assert_eq!(
            scheduled(at, u32::MAX),
            Time(10_000_000_000 - u32::MAX as u64)
        );
    }

    #[test]
    fn the_earlier_scheduled_event_runs_first_and_a_tie_completes_the_transmission() {
        assert!(arrival_runs_first(Time(1), Time(2)));
        assert!(!arrival_runs_first(Time(2), Time(1)));
        assert!(!arrival_runs_first(Time(2), Time(2)));
    }

    #[test]
    fn a_kept_lead_round_trips_and_an_unkept_one_counts_as_scheduled_at_its_time() {
        let (at, when) = (Time(7_000), Time(2_000));
        assert_eq!(<u32 as Lead>::of(at, when).scheduled(at), when);
        <() as Lead>::of(at, when);
        assert_eq!(().scheduled(at), at);
        const { assert!(<u32 as Lead>::KEPT && !<() as Lead>::KEPT) };
    }
}
