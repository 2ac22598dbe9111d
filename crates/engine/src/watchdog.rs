//! The engine's watchdog: a run whose simulated time stops advancing (a schedule that
//! keeps producing events at one instant) or that exceeds an optional event budget is
//! ended with an error instead of looping for ever.
//!
//! A discrete-event run makes progress only if its clock advances. The scenario schema
//! rejects the configurations known to stall (zero-length spike cycles, zero holds), but
//! the engine does not rely on that: [`STALL_EVENTS`] events at one instant end the run
//! and the error names the source of the last one (a link's spike schedule, a flow, a
//! link direction or a middlebox).

use spikelab_core::Time;

/// Events at a single instant after which a run is declared stalled. A legitimate run
/// has at most a few events per packet and flow at one instant (10^5 flows starting
/// together stay well below it).
pub const STALL_EVENTS: u64 = 1_000_000;

/// Why the watchdog ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bark {
    /// [`STALL_EVENTS`] events happened at `at` without the clock moving.
    Stalled { at: Time },
    /// The run used up its event budget.
    BudgetExhausted { budget: u64 },
}

/// Watches the events per instant and in total.
///
/// Asked at every event, so its fast path is one test: the count of events is compared
/// with the count at which a bark first becomes possible (`check_at`), and the exact
/// tests run only once it is reached. Since an instant's first event only moves later,
/// that count is never past the event at which the watchdog must bark, and it barks at
/// the very event the per-event tests would. Everything is inlined into the event
/// loop: a call there, even on the rare path, made the loop keep its event in memory.
/// The count of events is the caller's (the event queue counts its pops), not kept a
/// second time here.
#[derive(Clone, Debug)]
pub struct Watchdog {
    instant: Time,
    /// The number (counting from 1) of the first event at `instant`.
    instant_first: u64,
    budget: Option<u64>,
    /// No bark is possible before `events` reaches this.
    check_at: u64,
}

impl Default for Watchdog {
    fn default() -> Watchdog {
        Watchdog::new(None)
    }
}

impl Watchdog {
    /// A watchdog that also stops the run after `budget` events, if given.
    pub fn new(budget: Option<u64>) -> Watchdog {
        let mut w = Watchdog {
            instant: Time::ZERO,
            instant_first: 1,
            budget,
            check_at: 0,
        };
        w.check_at = w.first_possible_bark();
        w
    }

    /// Notes the run's `events`-th event (counting from 1, one call per event), at
    /// `t`; `Some` when the run must end.
    #[inline(always)]
    pub fn on_event(&mut self, t: Time, events: u64) -> Option<Bark> {
        if t != self.instant {
            self.instant = t;
            self.instant_first = events;
        }
        if events < self.check_at {
            return None;
        }
        let at_instant = events - self.instant_first + 1;
        if at_instant >= STALL_EVENTS {
            return Some(Bark::Stalled { at: self.instant });
        }
        if let Some(budget) = self.budget.filter(|&b| events > b) {
            return Some(Bark::BudgetExhausted { budget });
        }
        self.check_at = self.first_possible_bark();
        None
    }

    /// The event count at which the dog would bark if the clock stood still from now
    /// on: the earlier of the current instant's [`STALL_EVENTS`]-th event and the
    /// event past the budget.
    #[inline(always)]
    fn first_possible_bark(&self) -> u64 {
        let stall = self.instant_first + (STALL_EVENTS - 1);
        let budget = self.budget.map_or(u64::MAX, |b| b.saturating_add(1));
        stall.min(budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Dur;

    #[test]
    fn events_at_one_instant_stall_but_an_advancing_clock_does_not() {
        let mut w = Watchdog::new(None);
        let mut n = 0;
        for i in 0..2 * STALL_EVENTS {
            n += 1;
            assert_eq!(w.on_event(Time::ZERO + Dur(i), n), None);
        }
        let t = Time::ZERO + Dur::from_secs(1);
        for _ in 1..STALL_EVENTS {
            n += 1;
            assert_eq!(w.on_event(t, n), None);
        }
        assert_eq!(w.on_event(t, n + 1), Some(Bark::Stalled { at: t }));
    }

    #[test]
    fn a_stall_after_the_clock_moved_fires_at_its_own_millionth_event() {
        let mut w = Watchdog::new(Some(3 * STALL_EVENTS));
        let t = Time::ZERO + Dur(5);
        let mut n = 0;
        for i in 0..STALL_EVENTS / 2 {
            n += 1;
            assert_eq!(w.on_event(Time::ZERO + Dur(i % 3), n), None);
        }
        for _ in 1..STALL_EVENTS {
            n += 1;
            assert_eq!(w.on_event(t, n), None);
        }
        assert_eq!(w.on_event(t, n + 1), Some(Bark::Stalled { at: t }));
    }

    #[test]
    fn the_budget_counts_every_event() {
        let mut w = Watchdog::new(Some(3));
        for i in 0..3 {
            assert_eq!(w.on_event(Time::ZERO + Dur(i), i + 1), None);
        }
        assert_eq!(
            w.on_event(Time::ZERO + Dur(9), 4),
            Some(Bark::BudgetExhausted { budget: 3 })
        );
    }
}
