//! Simulated time: integer nanoseconds, never floating point, so that event order and
//! every output are exact functions of the scenario and the seed.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds. Scenario files write it with units
/// ("150ms"): its serde form lives with the other human units, which build on this
/// module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

const NS_PER_SEC: u64 = 1_000_000_000;

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub fn from_secs_f64(s: f64) -> Time {
        Time(Dur::from_secs_f64(s).0)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`, zero if `earlier` is in the future.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_SEC)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs become zero.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else {
            Dur((s * NS_PER_SEC as f64).round() as u64)
        }
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Time to serialise `bytes` at `bits_per_sec`, rounded up to a whole nanosecond so
    /// that a link never runs faster than its nominal rate.
    pub fn transmission(bytes: u64, bits_per_sec: u64) -> Dur {
        assert!(bits_per_sec > 0, "link rate must be positive");
        let bits = bytes as u128 * 8 * NS_PER_SEC as u128;
        Dur(bits.div_ceil(bits_per_sec as u128) as u64)
    }
    pub fn saturating_sub(self, other: Dur) -> Dur {
        Dur(self.0.saturating_sub(other.0))
    }
    /// Scales by a real factor (used by estimators whose formulas have real gains).
    pub fn mul_f64(self, k: f64) -> Dur {
        Dur::from_secs_f64(self.as_secs_f64() * k)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    /// Panics in debug builds if `rhs` is later than `self`: time never runs backwards.
    fn sub(self, rhs: Time) -> Dur {
        debug_assert!(self.0 >= rhs.0, "time went backwards: {self} - {rhs}");
        Dur(self.0.saturating_sub(rhs.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}
impl Mul<u64> for Dur {
    type Output = Dur;
    fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_of_1040_bytes_at_2_mbps_is_4_16_ms() {
        assert_eq!(Dur::transmission(1040, 2_000_000), Dur::from_micros(4160));
    }

    #[test]
    fn transmission_time_rounds_up_never_down() {
        // 1 byte at 3 bit/s = 2.666..s: must not be shortened to 2.666666666s.
        assert_eq!(Dur::transmission(1, 3), Dur(2_666_666_667));
    }

    #[test]
    fn secs_round_trip_is_exact_for_millisecond_values() {
        for ms in [0u64, 1, 10, 200, 1000, 3000, 64_000] {
            assert_eq!(Dur::from_secs_f64(ms as f64 / 1000.0), Dur::from_millis(ms));
        }
    }

    #[test]
    fn negative_and_nan_seconds_clamp_to_zero() {
        assert_eq!(Dur::from_secs_f64(-1.0), Dur::ZERO);
        assert_eq!(Dur::from_secs_f64(f64::NAN), Dur::ZERO);
    }
}
