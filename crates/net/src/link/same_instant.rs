//! ns-2's order of an arrival and a transmission end at the same instant
//! ([`crate::link::LinkDir::enqueue_scheduled`]).
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
//! spikelab's plain [`crate::link::LinkDir::enqueue`] always completes due
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
/// then runs first, as in [`crate::link::LinkDir::enqueue`].
pub fn arrival_runs_first(arrival: Time, departure: Time) -> bool {
    arrival < departure
}

#[cfg(test)]
mod tests {
    use super::*;

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
