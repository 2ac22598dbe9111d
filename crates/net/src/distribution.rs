//! Random durations for path-event schedules (spike lengths, intervals, holding times):
//! the one place where a distribution is described and sampled.

use rand::Rng;
use rand_distr::{Distribution as _, Exp1};
use serde::{Deserialize, Serialize};
use spikelab_core::{Dur, SimRng};

/// A distribution of durations, written `{ dist = "uniform", min = "3s", max = "15s" }`,
/// `{ dist = "fixed", value = "50s" }` or `{ dist = "exponential", mean = "30s" }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Distribution {
    /// Always `value`.
    Fixed {
        /// The duration.
        value: Dur,
    },
    /// Uniform over `[min, max]` at nanosecond resolution (the papers' "uniformly
    /// distributed between 3 and 15 seconds").
    Uniform {
        /// Smallest value.
        min: Dur,
        /// Largest value (inclusive).
        max: Dur,
    },
    /// Exponential with the given mean, rounded to the nearest nanosecond.
    Exponential {
        /// The mean.
        mean: Dur,
    },
}

impl Distribution {
    /// Draws one value. `Fixed` draws nothing from `rng`.
    pub fn sample(&self, rng: &mut SimRng) -> Dur {
        match *self {
            Distribution::Fixed { value } => value,
            Distribution::Uniform { min, max } => {
                let (lo, hi) = (min.0.min(max.0), min.0.max(max.0));
                Dur(rng.random_range(lo..=hi))
            }
            Distribution::Exponential { mean } => {
                let x: f64 = Exp1.sample(rng);
                mean.mul_f64(x)
            }
        }
    }

    /// The distribution's mean (for documentation and tests).
    pub fn mean(&self) -> Dur {
        match *self {
            Distribution::Fixed { value } => value,
            Distribution::Uniform { min, max } => Dur((min.0 + max.0) / 2),
            Distribution::Exponential { mean } => mean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn uniform_draws_stay_in_range_and_average_to_the_midpoint() {
        let d = Distribution::Uniform {
            min: Dur::from_secs(3),
            max: Dur::from_secs(15),
        };
        let mut rng = SimRng::seed_from_u64(1);
        let n = 20_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let x = d.sample(&mut rng);
            assert!(x >= Dur::from_secs(3) && x <= Dur::from_secs(15));
            sum += x.as_secs_f64();
        }
        // sd of the mean = 12 / sqrt(12 n) = 0.0245 s; allow 4 sd.
        assert!((sum / n as f64 - 9.0).abs() < 0.1);
    }

    #[test]
    fn exponential_draws_average_to_the_mean() {
        let d = Distribution::Exponential {
            mean: Dur::from_secs(2),
        };
        let mut rng = SimRng::seed_from_u64(2);
        let n = 20_000;
        let sum: f64 = (0..n).map(|_| d.sample(&mut rng).as_secs_f64()).sum();
        // sd of the mean = 2 / sqrt(n) = 0.014 s; allow 4 sd.
        assert!((sum / n as f64 - 2.0).abs() < 0.06);
    }

    #[test]
    fn distributions_parse_from_toml() {
        #[derive(Deserialize)]
        struct W {
            d: Distribution,
        }
        let w: W = toml::from_str(r#"d = { dist = "fixed", value = "50s" }"#).unwrap();
        assert_eq!(
            w.d,
            Distribution::Fixed {
                value: Dur::from_secs(50)
            }
        );
        assert!(toml::from_str::<W>(r#"d = { dist = "fixed", value = "5s", x = 1 }"#).is_err());
    }
}
