//! The timestamp clock of RFC 7323 section 5.4, read without a division.
//!
//! Every data segment and every ACK carries a TSval, the clock's reading at its
//! sending: `now / tick + 1` (the clock reads 1 at time zero, so that a TSecr of 0
//! always means "nothing echoed", RFC 7323 section 3.2, and the first tick's segments
//! are timed too). The tick is fixed per flow, so the quotient is taken as
//! [Granlund & Montgomery 1994] take a division by an invariant integer, by a
//! multiplication with the tick's inverse, fixed once, here in its simplest form: an
//! estimate that is the quotient or one less, and one correction. A 64-bit division,
//! which the clock's nanosecond readings need after 4.3 s, takes tens of cycles on
//! every packet a host sends (callgrind counts it as one instruction; task-clock
//! shows it).

use spikelab_core::{Dur, Time};

/// A flow's timestamp clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TsClock {
    /// The tick in nanoseconds (at least 1).
    tick: u64,
    /// floor(2^64 / tick), or 2^64 - 1 for a tick of 1 ns.
    inverse: u64,
}

impl TsClock {
    /// The clock ticking every `tick` (a zero tick counts as 1 ns).
    pub fn new(tick: Dur) -> TsClock {
        let tick = tick.0.max(1);
        let inverse = ((1u128 << 64) / tick as u128).min(u64::MAX as u128) as u64;
        TsClock { tick, inverse }
    }

    /// The clock's reading at `now`, in ticks.
    #[inline]
    pub fn read(&self, now: Time) -> u64 {
        self.ticks_in(now.0) + 1
    }

    /// The start of the tick a reading `ts` names: the inverse of [`Self::read`]
    /// (`None` for 0, the "nothing echoed" value).
    #[inline]
    pub fn time_of(&self, ts: u64) -> Option<Time> {
        let tick = ts.checked_sub(1)?;
        Some(Time(tick.saturating_mul(self.tick)))
    }

    /// `n / tick`. The estimate `n * inverse / 2^64` lies in (n / tick - 1, n / tick]
    /// (the inverse is short of 2^64 / tick by less than 1, and n < 2^64), so it is
    /// the quotient or one less; the remainder tells which.
    #[inline]
    fn ticks_in(&self, n: u64) -> u64 {
        let q = ((n as u128 * self.inverse as u128) >> 64) as u64;
        let r = n - q * self.tick;
        q + (r >= self.tick) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_clock_reads_one_at_time_zero_and_counts_whole_ticks() {
        let c = TsClock::new(Dur::from_millis(1));
        assert_eq!(c.read(Time(0)), 1);
        assert_eq!(c.read(Time(999_999)), 1);
        assert_eq!(c.read(Time(1_000_000)), 2);
        assert_eq!(c.time_of(0), None);
        assert_eq!(c.time_of(2), Some(Time(1_000_000)));
    }

    #[test]
    fn a_zero_tick_counts_as_one_nanosecond() {
        let c = TsClock::new(Dur(0));
        assert_eq!(c.read(Time(u64::MAX - 1)), u64::MAX);
        assert_eq!(c.time_of(u64::MAX), Some(Time(u64::MAX - 1)));
    }

    #[test]
    fn the_quotient_is_exact_at_the_edges_of_the_range() {
        for tick in [
            1,
            2,
            3,
            7,
            1_000,
            1_000_000,
            1 << 32,
            u64::MAX / 3,
            u64::MAX,
        ] {
            let c = TsClock::new(Dur(tick));
            for n in [
                0,
                1,
                tick - 1,
                tick,
                tick.saturating_add(1),
                u64::MAX - 1,
                u64::MAX,
            ] {
                assert_eq!(c.ticks_in(n), n / tick, "{n} / {tick}");
            }
        }
    }

    proptest! {
        #[test]
        fn the_quotient_is_the_division(n in any::<u64>(), tick in 1u64..) {
            prop_assert_eq!(TsClock::new(Dur(tick)).ticks_in(n), n / tick);
        }

        #[test]
        fn the_quotient_is_the_division_for_small_ticks(n in any::<u64>(), tick in 1u64..10_000_000) {
            prop_assert_eq!(TsClock::new(Dur(tick)).ticks_in(n), n / tick);
        }
    }
}
