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

/// Counts events per instant and in total.
#[derive(Clone, Debug, Default)]
pub struct Watchdog {
    instant: Time,
    at_instant: u64,
    events: u64,
    budget: Option<u64>,
}

impl Watchdog {
    /// A watchdog that also stops the run after `budget` events, if given.
    pub fn new(budget: Option<u64>) -> Watchdog {
        Watchdog {
            budget,
            ..Watchdog::default()
        }
    }

    /// Notes one event at `t`; `Some` when the run must end.
    pub fn on_event(&mut self, t: Time) -> Option<Bark> {
        self.events += 1;
        if t == self.instant {
            self.at_instant += 1;
        } else {
            self.instant = t;
            self.at_instant = 1;
        }
        if self.at_instant >= STALL_EVENTS {
            return Some(Bark::Stalled { at: t });
        }
        match self.budget {
            Some(budget) if self.events > budget => Some(Bark::BudgetExhausted { budget }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Dur;

    #[test]
    fn events_at_one_instant_stall_but_an_advancing_clock_does_not() {
        let mut w = Watchdog::new(None);
        for i in 0..2 * STALL_EVENTS {
            assert_eq!(w.on_event(Time::ZERO + Dur(i)), None);
        }
        let t = Time::ZERO + Dur::from_secs(1);
        for _ in 1..STALL_EVENTS {
            assert_eq!(w.on_event(t), None);
        }
        assert_eq!(w.on_event(t), Some(Bark::Stalled { at: t }));
    }

    #[test]
    fn the_budget_counts_every_event() {
        let mut w = Watchdog::new(Some(3));
        for i in 0..3 {
            assert_eq!(w.on_event(Time::ZERO + Dur(i)), None);
        }
        assert_eq!(
            w.on_event(Time::ZERO + Dur(9)),
            Some(Bark::BudgetExhausted { budget: 3 })
        );
    }
}
