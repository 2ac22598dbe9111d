//! A seeded synthetic ping trace, replayed as a link's one-way delay: the generator a
//! scenario names with `delay_trace = { generator = "ping-trace", ... }` (see
//! [`DelaySource`](crate::DelaySource)).
//!
//! It stands in for the measured GPRS trace of [Klein et al. 2004] section IV, which is
//! not public.
//!
//! # What the paper reports, and the parameter each fact sets
//!
//! | the paper says (section IV) | here |
//! |---|---|
//! | "the ping utility issues 10,000 messages and waits for a maximum of 10 seconds"; the next ping is sent when the reply arrives | `samples`; the paper's length is 10 000 |
//! | "the average RTT is on the order of 500 msec ... We therefore scale all the measurements by a factor of 5" (footnote 3) | values are given after the scaling: a base mean of 100 ms |
//! | "the distribution of the RTT (without delay jitter) is approximately uniform" | base RTT ~ U\[`base.min`, `base.max`\] |
//! | under FTFD with D0 = 100 ms, N = 3, "the distribution becomes bimodal ... an additional delay of 100 msec, which essentially corresponds to the gap between the two uniform pieces" | the uniform piece is narrower than 100 ms, so shifting it by 100 ms leaves a gap: U\[60, 140\] ms (width 80, mean 100) |
//! | "the RTT measurements turn out to be essentially uncorrelated and the timeouts are observed as isolated incidents" | samples are independent |
//! | Fig. 1: a window of 100 samples with two timeouts, "since no packets were lost ... these timeouts are spurious and attributed to the large RTT spikes" | a spike with probability `spike_probability` = 1% per sample (two in that window suggests a window chosen to show them; 1% makes isolated spikes) |
//! | Fig. 2: FTFD (100 ms, N = 3) avoids one of the two timeouts; "the second timeout could not be avoided as the experienced delay spike is just too large" | a spike adds U\[`spike.min`, `spike.max`\] = U\[100, 500\] ms (0.5-2.5 s before scaling) to the base: small spikes exceed the plain RTO (about 180 ms with the base above) but not the FTFD-widened one (about 300 ms), large ones exceed both |
//!
//! Assumed, since the trace is not public: the uniform bounds, the spike probability
//! and the spike-size distribution. No sample is lost (the paper's run lost none).
//!
//! # As a path
//!
//! The pings were sent one after the other ("When the reply is received or the maximum
//! wait time expires, the next ping request message is sent"), so sample k describes the
//! path from the time ping k was sent, t_k = RTT\[0\] + ... + RTT\[k-1\], until the next
//! ping left: [`ping_layout`] makes sample k the delay in force on \[t_k, t_{k+1}).
//!
//! Units: the samples are `f64` milliseconds, as the paper reports them; they become
//! integer nanoseconds once, in [`ping_layout`]. The generator draws from its own seed,
//! not the run's: like a trace file, the trace is an input of the scenario.

use crate::delay::DelayTrace;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use spikelab_core::{Dur, SimRng, Time};

/// A uniform range \[min, max\] of durations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Uniform {
    /// Lower bound.
    pub min: Dur,
    /// Upper bound (at least `min`).
    pub max: Dur,
}

/// The parameters of a synthetic ping trace (see the module docs), in ms after the
/// paper's scaling by 1/5.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PingTrace {
    /// Seed of the trace's own random stream.
    pub seed: u64,
    /// Number of pings (at least 1).
    pub samples: usize,
    /// The uniform base RTT. [Klein et al. 2004]: U\[60, 140\] ms.
    pub base: Uniform,
    /// Probability that a sample carries a delay spike, in \[0, 1\].
    pub spike_probability: f64,
    /// The extra delay of a spike.
    pub spike: Uniform,
}

impl Default for PingTrace {
    /// The trace argued from [Klein et al. 2004] IV (the table of the module docs):
    /// 10 000 samples of U\[60, 140\] ms plus, in 1% of them, a spike of U\[100, 500\] ms;
    /// seed 2003.
    fn default() -> Self {
        let ms = Dur::from_millis;
        PingTrace {
            seed: 2003,
            samples: 10_000,
            base: Uniform {
                min: ms(60),
                max: ms(140),
            },
            spike_probability: 0.01,
            spike: Uniform {
                min: ms(100),
                max: ms(500),
            },
        }
    }
}

impl PingTrace {
    /// What is wrong with the parameters, if anything.
    pub fn check(&self) -> Result<(), String> {
        if self.samples == 0 {
            return Err("a ping trace needs `samples` >= 1".into());
        }
        if !(0.0..=1.0).contains(&self.spike_probability) {
            return Err(format!(
                "`spike_probability` {} is not a probability in [0, 1]",
                self.spike_probability
            ));
        }
        for (name, u) in [("base", self.base), ("spike", self.spike)] {
            if u.min > u.max {
                return Err(format!("`{name}`: min {} is above max {}", u.min, u.max));
            }
        }
        Ok(())
    }

    /// The samples (ms), each drawn independently: a uniform base plus, with
    /// `spike_probability`, a uniform spike. Each sample draws two or three numbers.
    pub fn samples_ms(&self) -> Vec<f64> {
        let mut rng = SimRng::seed_from_u64(self.seed);
        (0..self.samples).map(|_| self.sample(&mut rng)).collect()
    }

    /// The samples laid out in time as a sequential pinger measured them.
    pub fn delay_trace(&self) -> DelayTrace {
        ping_layout(&self.samples_ms())
    }

    fn sample(&self, rng: &mut SimRng) -> f64 {
        let base = uniform(rng, self.base);
        if rng.random::<f64>() < self.spike_probability {
            base + uniform(rng, self.spike)
        } else {
            base
        }
    }
}

/// Uniform on \[min, max\] in ms (min when max <= min).
fn uniform(rng: &mut SimRng, u: Uniform) -> f64 {
    let (lo, hi) = (u.min.as_millis_f64(), u.max.as_millis_f64());
    lo + (hi - lo).max(0.0) * rng.random::<f64>()
}

/// The delay trace replaying `rtts` (ms) as laid out in time by a sequential pinger:
/// sample k holds from the sum of the samples before it for its own duration.
pub fn ping_layout(rtts: &[f64]) -> DelayTrace {
    let mut t = Time::ZERO;
    let points = rtts
        .iter()
        .map(|&ms| {
            let d = ms_to_dur(ms);
            let p = (t, d);
            t += d;
            p
        })
        .collect();
    DelayTrace::from_points(points)
}

/// [`ping_layout`] as the text of a delay-trace file (`time,delay` per line, seconds),
/// under a `#` comment line `comment`.
pub fn ping_layout_text(rtts: &[f64], comment: &str) -> String {
    ping_layout(rtts).to_text(comment)
}

/// A sample in ms as a whole number of nanoseconds.
fn ms_to_dur(ms: f64) -> Dur {
    Dur::from_nanos((ms * 1e6).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sample_holds_for_its_own_duration() {
        let tr = ping_layout(&[100.0, 500.0, 80.0]);
        let at = |ms| tr.delay_at(Time::ZERO + Dur::from_millis(ms));
        assert_eq!(at(0), Dur::from_millis(100));
        assert_eq!(at(99), Dur::from_millis(100));
        assert_eq!(at(100), Dur::from_millis(500));
        assert_eq!(at(599), Dur::from_millis(500));
        assert_eq!(at(600), Dur::from_millis(80));
        let text = ping_layout_text(&[100.0, 500.0, 80.0], "three pings");
        assert!(text.starts_with("# three pings\n0.000000000,0.100000000\n"));
        assert_eq!(DelayTrace::parse(&text).unwrap(), tr);
    }

    #[test]
    fn mean_is_about_100_ms_and_spikes_are_about_one_percent() {
        let t = PingTrace {
            seed: 1,
            ..PingTrace::default()
        }
        .samples_ms();
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        // 100 + 0.01 * 300 = 103 ms expected; sd of the mean about 0.4 ms.
        assert!((mean - 103.0).abs() < 2.0, "{mean}");
        let spikes = t.iter().filter(|&&x| x > 160.0).count();
        // Binomial(10000, 0.01): 100 +- 10; spikes of 100 ms or more always exceed 160.
        assert!((60..=140).contains(&spikes), "{spikes}");
        assert!(t.iter().all(|&x| (60.0..=640.0).contains(&x)));
    }

    #[test]
    fn the_same_seed_gives_the_same_trace() {
        let of = |seed| {
            PingTrace {
                seed,
                ..PingTrace::default()
            }
            .samples_ms()
        };
        assert_eq!(of(7), of(7));
        assert_ne!(of(7), of(8));
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |f: fn(&mut PingTrace)| {
            let mut p = PingTrace::default();
            f(&mut p);
            p.check().unwrap_err()
        };
        assert!(bad(|p| p.samples = 0).contains("samples"));
        assert!(bad(|p| p.spike_probability = 1.5).contains("spike_probability"));
        assert!(bad(|p| p.base.min = Dur::from_millis(200)).contains("`base`"));
        assert!(PingTrace::default().check().is_ok());
    }
}
