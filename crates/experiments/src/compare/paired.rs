//! Paired comparisons of two configurations run on the same seeds.
//!
//! Repetition r of every configuration runs with the same seed, so it meets the same
//! spike schedule, the same flow start times and the same random losses until the
//! configurations' own behaviour diverges: the per-seed difference x_a[r] - x_b[r]
//! removes the path's variance from the comparison (a paired t interval; Jain, "The
//! Art of Computer Systems Performance Analysis", 13.4.1). Whether a difference matters
//! is [`super::decide`]'s question; this module gives its mean, standard error, the
//! plain 95 % interval and the standardized effect size. Repetitions where either value is undefined (NaN) are left out
//! of the pair.

use spikelab_output::stats::Summary;

/// The mean per-seed difference a - b with its standard error and 95 % confidence
/// half-width (both 0 when every pair differs alike, NaN with fewer than two pairs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    pub mean: f64,
    pub se: f64,
    pub ci95: f64,
    /// Pairs used.
    pub n: usize,
}

impl Paired {
    /// The difference between `a` and `b`, repetition by repetition.
    pub fn of(a: &[f64], b: &[f64]) -> Paired {
        let d: Vec<f64> = a
            .iter()
            .zip(b)
            .map(|(x, y)| x - y)
            .filter(|d| d.is_finite())
            .collect();
        let s = Summary::of(&d);
        // Identical values on every seed: no spread, a certain difference.
        let (se, ci95) = if d.len() >= 2 && d.iter().all(|x| *x == d[0]) {
            (0.0, 0.0)
        } else {
            (s.std_dev / (d.len() as f64).sqrt(), s.ci95)
        };
        Paired {
            mean: s.mean,
            se,
            ci95,
            n: d.len(),
        }
    }

    /// The standardized effect size d_z: the mean difference over the standard
    /// deviation of the differences (Cohen, "Statistical Power Analysis for the
    /// Behavioral Sciences", 2nd ed., 1988, 2.3.5; Lakens, Front. Psychol. 4:863, 2013,
    /// eq. 7). NaN with fewer than two pairs; 0 when every pair is equal, and an
    /// infinity of the difference's sign when every pair differs alike by a non-zero
    /// amount (no spread: the difference is certain).
    pub fn effect_size(&self) -> f64 {
        if self.n < 2 || !self.mean.is_finite() {
            return f64::NAN;
        }
        let sd = self.se * (self.n as f64).sqrt();
        match (sd > 0.0, self.mean == 0.0) {
            (true, _) => self.mean / sd,
            (false, true) => 0.0,
            (false, false) => self.mean * f64::INFINITY,
        }
    }

    /// Whether the interval excludes zero: the two differ beyond noise. With fewer than
    /// two pairs nothing can be told apart.
    pub fn significant(&self) -> bool {
        self.n >= 2 && self.ci95.is_finite() && self.mean.abs() > self.ci95
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairing_removes_the_shared_variance() {
        // Seeds differ wildly; the configuration always adds exactly 1.
        let base = [10.0, 50.0, 20.0, 90.0];
        let fix = [11.0, 51.0, 21.0, 91.0];
        let p = Paired::of(&fix, &base);
        assert_eq!((p.mean, p.se, p.ci95, p.n), (1.0, 0.0, 0.0, 4));
        assert!(p.significant());
    }

    #[test]
    fn the_effect_size_is_the_mean_difference_in_standard_deviations_of_the_differences() {
        // Differences 1, 3: mean 2, standard deviation sqrt(2).
        let p = Paired::of(&[2.0, 5.0], &[1.0, 2.0]);
        assert!((p.effect_size() - 2.0 / 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(
            Paired::of(&[11.0, 51.0], &[10.0, 50.0]).effect_size(),
            f64::INFINITY
        );
        assert_eq!(Paired::of(&[1.0, 2.0], &[1.0, 2.0]).effect_size(), 0.0);
        assert!(Paired::of(&[1.0], &[3.0]).effect_size().is_nan());
    }

    #[test]
    fn equal_configurations_are_indistinguishable() {
        let a = [1.0, 2.0, 3.0];
        let p = Paired::of(&a, &a);
        assert_eq!(p.mean, 0.0);
        assert!(!p.significant());
    }

    #[test]
    fn noise_around_zero_is_not_a_difference_and_nan_pairs_are_dropped() {
        let a = [1.0, 2.0, 3.0, f64::NAN];
        let b = [1.5, 1.5, 3.2, 4.0];
        let p = Paired::of(&a, &b);
        assert_eq!(p.n, 3);
        assert!(!p.significant(), "{p:?}");
        assert!(
            !Paired::of(&[1.0], &[3.0]).significant(),
            "one pair tells nothing"
        );
    }
}
