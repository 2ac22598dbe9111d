//! A LEO satellite path's one-way delay as a process: the generator a scenario names
//! with `delay_trace = { generator = "leo-reconfiguration", ... }` (see
//! [`DelaySource`](crate::DelaySource)). **A generator, not a measurement**: no public
//! Starlink delay recording on GitHub could be shipped (scenarios/paths/README.md says
//! which were looked at), so the trace is drawn from published statistics.
//!
//! # What is published, and the parameter each fact sets
//!
//! | published | here |
//! |---|---|
//! | Starlink reassigns a terminal's satellite and path at a fixed period of 15 s, globally synchronised (at 12, 27, 42 and 57 s past each minute), and the latency changes in steps at these instants, staying level in between [Tanveer et al. 2023, "Making Sense of Constellations"; Mohan et al. 2024, "A Multifaceted Look at Starlink Performance"]; LeoCC's traces (github SpaceNetLab/LeoCC, `traces/README.md`: "periodic reconfiguration") and its replayer are built around it | `interval` (15 s) and `offset`, the first reconfiguration |
//! | between reconfigurations the one-way delay takes a new level from a range; issue 41 of this project states the range as 30–50 ms steps | each slot's delay is drawn uniformly in \[`delay.min`, `delay.max`\] (30–50 ms in `scenarios/paths/starlink-leo-generated.toml`) |
//!
//! Assumed: the levels of successive slots are independent and uniform, and a step is
//! instantaneous; no loss and no outage (a link's spikes add those). The generator draws
//! from its own seed, like a trace file it is an input of the scenario, the same on
//! every machine. The delay is a link's extra one-way delay, on top of its `latency`,
//! read and ordered as every delay trace is ([`crate::delay`]: a packet takes the delay in
//! force when its transmission ends and never leaves before the one ahead of it).

use crate::delay::DelayTrace;
use crate::ping_trace::Uniform;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use spikelab_core::{Dur, SimRng, Time};

/// The most slots one trace may hold (`duration` / `interval`): a day of 15 s slots is
/// 5 760.
pub const MAX_SLOTS: u64 = 1_000_000;

/// The parameters of a LEO reconfiguration delay process (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeoReconfiguration {
    /// Seed of the trace's own random stream.
    pub seed: u64,
    /// Time between reconfigurations (Starlink: 15 s); at least 1 ms.
    pub interval: Dur,
    /// The first reconfiguration, in \[0, `interval`\]: the first slot runs from 0 to it.
    pub offset: Dur,
    /// The one-way delay of a slot, drawn uniformly.
    pub delay: Uniform,
    /// How long the trace runs; after it the last slot's delay holds.
    pub duration: Dur,
}

impl LeoReconfiguration {
    /// What is wrong with the parameters, if anything.
    pub fn check(&self) -> Result<(), String> {
        if self.interval < Dur::from_millis(1) {
            return Err(format!("`interval` {} is under 1ms", self.interval));
        }
        if self.offset > self.interval {
            return Err(format!(
                "`offset` {} is after the first `interval` ({})",
                self.offset, self.interval
            ));
        }
        if self.delay.min > self.delay.max {
            return Err(format!(
                "`delay`: min {} is above max {}",
                self.delay.min, self.delay.max
            ));
        }
        if self.slots() > MAX_SLOTS {
            return Err(format!(
                "`duration` {} holds more than {MAX_SLOTS} slots of {}",
                self.duration, self.interval
            ));
        }
        Ok(())
    }

    /// Slots in the trace: the one before `offset` and one per reconfiguration in
    /// \[`offset`, `duration`).
    pub fn slots(&self) -> u64 {
        let after = self.duration.0.saturating_sub(self.offset.0);
        1 + after.div_ceil(self.interval.0.max(1))
    }

    /// The trace: slot k's delay from its reconfiguration until the next, each an
    /// integer number of nanoseconds drawn uniformly in \[`delay.min`, `delay.max`\].
    pub fn delay_trace(&self) -> DelayTrace {
        let mut rng = SimRng::seed_from_u64(self.seed);
        let starts = std::iter::once(Time::ZERO)
            .chain((0..self.slots() - 1).map(|k| Time::ZERO + self.offset + self.interval * k));
        let points = starts
            .map(|t| (t, self.level(&mut rng)))
            // An offset of 0 makes the first reconfiguration at 0: it replaces slot 0.
            .fold(Vec::new(), |mut v: Vec<(Time, Dur)>, p| {
                match v.last_mut() {
                    Some(last) if last.0 == p.0 => *last = p,
                    _ => v.push(p),
                }
                v
            });
        DelayTrace::from_points(points)
    }

    fn level(&self, rng: &mut SimRng) -> Dur {
        Dur::from_nanos(rng.random_range(self.delay.min.0..=self.delay.max.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starlink(seed: u64) -> LeoReconfiguration {
        LeoReconfiguration {
            seed,
            interval: Dur::from_secs(15),
            offset: Dur::from_secs(12),
            delay: Uniform {
                min: Dur::from_millis(30),
                max: Dur::from_millis(50),
            },
            duration: Dur::from_secs(600),
        }
    }

    #[test]
    fn the_delay_is_level_between_reconfigurations_and_steps_at_them() {
        let g = starlink(1);
        let tr = g.delay_trace();
        let at = |ms: u64| tr.delay_at(Time::ZERO + Dur::from_millis(ms));
        // Slots: [0, 12 s), [12, 27), [27, 42), ... up to 600 s.
        assert_eq!(at(0), at(11_999));
        assert_eq!(at(12_000), at(26_999));
        assert_eq!(at(27_000), at(41_999));
        let levels: Vec<Dur> = (0..41).map(|k| at(12_000 + 15_000 * k)).collect();
        assert!(levels.windows(2).any(|w| w[0] != w[1]), "it steps");
        for d in &levels {
            assert!(
                (Dur::from_millis(30)..=Dur::from_millis(50)).contains(d),
                "{d}"
            );
        }
        assert_eq!(g.slots(), 1 + 40);
    }

    #[test]
    fn the_same_seed_makes_the_same_trace_and_another_seed_another() {
        assert_eq!(starlink(5).delay_trace(), starlink(5).delay_trace());
        assert_ne!(starlink(5).delay_trace(), starlink(6).delay_trace());
    }

    #[test]
    fn an_offset_of_zero_starts_with_a_reconfiguration() {
        let g = LeoReconfiguration {
            offset: Dur::ZERO,
            ..starlink(2)
        };
        let tr = g.delay_trace();
        let at = |s: u64| tr.delay_at(Time::ZERO + Dur::from_secs(s));
        assert_eq!(at(0), at(14));
        assert_eq!(g.slots(), 41);
    }

    #[test]
    fn bad_parameters_are_refused_with_the_reason() {
        let bad = |f: fn(&mut LeoReconfiguration)| {
            let mut g = starlink(1);
            f(&mut g);
            g.check().unwrap_err()
        };
        assert!(bad(|g| g.interval = Dur::ZERO).contains("interval"));
        assert!(bad(|g| g.offset = Dur::from_secs(16)).contains("offset"));
        assert!(bad(|g| g.delay.min = Dur::from_millis(60)).contains("delay"));
        assert!(bad(|g| g.duration = Dur::from_secs(100_000_000)).contains("slots"));
        assert_eq!(starlink(1).check(), Ok(()));
    }
}
