//! Statistics over repetitions: mean, sample standard deviation, Student-t confidence
//! intervals and percentiles.
//!
//! Conventions (chosen once, used everywhere):
//! * An empty sample has mean, percentiles, min and max NaN.
//! * A sample of one has no spread: standard deviation and confidence half-width are
//!   NaN (not 0, which would claim a certainty one run cannot give). NaN is written as
//!   `NaN` by [`crate::csv`], which spreadsheets and pandas read as missing.
//! * The confidence half-width is `t(1 - alpha/2, n - 1) * s / sqrt(n)` with the Student-t
//!   quantile computed exactly (inverse of the regularised incomplete beta function by
//!   bisection), not from a table, so every `n` is covered.
//! * Percentiles interpolate linearly between order statistics (Hyndman and Fan type 7,
//!   numpy's and R's default).

use std::cell::RefCell;
use std::collections::BTreeMap;

/// Arithmetic mean; NaN for an empty sample.
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation (divisor `n - 1`); NaN for fewer than two values.
pub fn std_dev(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return f64::NAN;
    }
    let m = mean(xs);
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (xs.len() - 1) as f64).sqrt()
}

/// Half-width of the two-sided `confidence` (e.g. 0.95) interval of the mean, using
/// Student's t with `n - 1` degrees of freedom; NaN for fewer than two values.
pub fn ci_half_width(xs: &[f64], confidence: f64) -> f64 {
    if xs.len() < 2 {
        return f64::NAN;
    }
    let n = xs.len() as f64;
    t_critical(confidence, (xs.len() - 1) as u64) * std_dev(xs) / n.sqrt()
}

/// Half-width of the 95% confidence interval of the mean (see [`ci_half_width`]).
pub fn ci95_half_width(xs: &[f64]) -> f64 {
    ci_half_width(xs, 0.95)
}

/// The two-sided Student-t critical value: the `(1 + confidence) / 2` quantile of t with
/// `df` degrees of freedom (e.g. `t_critical(0.95, 9)` = 2.262). NaN if `df == 0` or
/// `confidence` is not in (0, 1).
pub fn t_critical(confidence: f64, df: u64) -> f64 {
    if df == 0 || !(confidence > 0.0 && confidence < 1.0) {
        return f64::NAN;
    }
    // Every summary of a reproduction asks for the same few (confidence, df): the
    // bisection (200 incomplete-beta evaluations) runs once per pair and thread.
    thread_local! {
        static KNOWN: RefCell<BTreeMap<(u64, u64), f64>> = const { RefCell::new(BTreeMap::new()) };
    }
    KNOWN.with(|known| {
        *known
            .borrow_mut()
            .entry((confidence.to_bits(), df))
            .or_insert_with(|| t_quantile_by_bisection(confidence, df))
    })
}

/// [`t_critical`] computed, for `df > 0` and `confidence` in (0, 1).
fn t_quantile_by_bisection(confidence: f64, df: u64) -> f64 {
    let nu = df as f64;
    let alpha = 1.0 - confidence;
    // P(|T| > t) = I_x(nu/2, 1/2) with x = nu / (nu + t^2); I_x rises with x, so
    // bisect for the x whose two-sided tail is alpha, then invert x for t.
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if reg_inc_beta(nu / 2.0, 0.5, mid) < alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    (nu * (1.0 - x) / x).sqrt()
}

/// The `p`-th percentile (`p` in 0..=100) with linear interpolation between order
/// statistics (type 7); NaN for an empty sample. Sorts a copy with `f64::total_cmp`.
pub fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    percentile_sorted(&sorted, p)
}

/// [`percentile`] of an already sorted (ascending) sample, without copying.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * (p / 100.0).clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// A summary of one metric over repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (NaN for n < 2).
    pub std_dev: f64,
    /// Half-width of the 95% Student-t confidence interval of the mean (NaN for n < 2).
    pub ci95: f64,
    /// Smallest value.
    pub min: f64,
    /// 5th percentile.
    pub p5: f64,
    /// Median (50th percentile).
    pub median: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// Summarises `xs` (see the module docs for the empty and single-value cases).
    pub fn of(xs: &[f64]) -> Summary {
        let mut sorted = xs.to_vec();
        sorted.sort_by(f64::total_cmp);
        Summary {
            n: xs.len(),
            mean: mean(xs),
            std_dev: std_dev(xs),
            ci95: ci95_half_width(xs),
            min: percentile_sorted(&sorted, 0.0),
            p5: percentile_sorted(&sorted, 5.0),
            median: percentile_sorted(&sorted, 50.0),
            p95: percentile_sorted(&sorted, 95.0),
            max: percentile_sorted(&sorted, 100.0),
        }
    }

    /// Lower end of the 95% confidence interval of the mean.
    pub fn ci95_low(&self) -> f64 {
        self.mean - self.ci95
    }

    /// Upper end of the 95% confidence interval of the mean.
    pub fn ci95_high(&self) -> f64 {
        self.mean + self.ci95
    }
}

/// Natural log of the gamma function for `x >= 0.5` (Lanczos, g = 7, n = 9; relative
/// error below 1e-13, ample for confidence intervals).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let a = C[1..]
        .iter()
        .enumerate()
        .fold(C[0], |acc, (i, c)| acc + c / (x + i as f64 + 1.0));
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Regularised incomplete beta function I_x(a, b) (Numerical Recipes 6.4).
fn reg_inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cont_frac(a, b, x) / a
    } else {
        1.0 - front * beta_cont_frac(b, a, 1.0 - x) / b
    }
}

/// Continued fraction of the incomplete beta function, modified Lentz's method.
fn beta_cont_frac(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_critical_matches_printed_tables() {
        // Two-sided 95% values from any t table (3 decimals).
        let table = [
            (1, 12.706),
            (2, 4.303),
            (3, 3.182),
            (4, 2.776),
            (5, 2.571),
            (9, 2.262),
            (10, 2.228),
            (19, 2.093),
            (29, 2.045),
            (30, 2.042),
            (60, 2.000),
            (120, 1.980),
        ];
        for (df, want) in table {
            let got = t_critical(0.95, df);
            assert!(close(got, want, 5e-4), "df {df}: {got} vs {want}");
        }
    }

    #[test]
    fn t_critical_asked_again_gives_the_same_bits_as_computed() {
        for df in [1, 4, 19, 99] {
            let first = t_critical(0.95, df);
            assert_eq!(first.to_bits(), t_quantile_by_bisection(0.95, df).to_bits());
            assert_eq!(t_critical(0.95, df).to_bits(), first.to_bits());
        }
        assert!(t_critical(0.9, 4) < t_critical(0.95, 4));
    }

    #[test]
    fn t_critical_for_one_df_is_the_cauchy_quantile() {
        let exact = (std::f64::consts::PI * 0.475).tan();
        assert!(close(t_critical(0.95, 1), exact, 1e-9));
    }

    #[test]
    fn t_critical_approaches_the_normal_quantile() {
        assert!(close(t_critical(0.95, 1_000_000), 1.959_964, 1e-5));
        assert!(close(t_critical(0.99, 1_000_000), 2.575_829, 1e-5));
    }

    #[test]
    fn t_critical_rejects_zero_df_and_bad_levels() {
        assert!(t_critical(0.95, 0).is_nan());
        assert!(t_critical(1.0, 5).is_nan());
        assert!(t_critical(0.0, 5).is_nan());
    }

    #[test]
    fn mean_and_sample_std_dev_of_a_hand_example() {
        // 2,4,4,4,5,5,7,9: mean 5, sum of squares 32, s = sqrt(32/7).
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&xs), 5.0);
        assert!(close(std_dev(&xs), (32.0_f64 / 7.0).sqrt(), 1e-12));
    }

    #[test]
    fn ci95_of_ten_values_uses_t_with_nine_df() {
        // 1..=10: mean 5.5, s = sqrt(82.5/9) = 3.02765, half-width 2.262157 * s / sqrt(10).
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        let want = 2.262_157_163 * (82.5_f64 / 9.0).sqrt() / 10.0_f64.sqrt();
        assert!(close(ci95_half_width(&xs), want, 1e-6));
        assert!(close(ci95_half_width(&xs), 2.165_853, 1e-5));
    }

    #[test]
    fn one_value_has_no_spread_and_no_interval() {
        let s = Summary::of(&[3.0]);
        assert_eq!(
            (s.n, s.mean, s.median, s.min, s.max),
            (1, 3.0, 3.0, 3.0, 3.0)
        );
        assert!(s.std_dev.is_nan() && s.ci95.is_nan());
    }

    #[test]
    fn empty_sample_is_all_nan() {
        let s = Summary::of(&[]);
        assert_eq!(s.n, 0);
        assert!(s.mean.is_nan() && s.median.is_nan() && s.max.is_nan());
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let xs = [15.0, 20.0, 35.0, 40.0, 50.0];
        assert_eq!(percentile(&xs, 0.0), 15.0);
        assert_eq!(percentile(&xs, 50.0), 35.0);
        assert_eq!(percentile(&xs, 100.0), 50.0);
        // numpy.percentile([15,20,35,40,50], 40) = 29.0; 95 -> 48.0
        assert!(close(percentile(&xs, 40.0), 29.0, 1e-12));
        assert!(close(percentile(&xs, 95.0), 48.0, 1e-12));
    }

    #[test]
    fn percentile_does_not_depend_on_input_order() {
        assert_eq!(
            percentile(&[3.0, 1.0, 2.0], 25.0),
            percentile(&[1.0, 2.0, 3.0], 25.0)
        );
    }

    #[test]
    fn summary_interval_ends_straddle_the_mean() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]);
        assert!(s.ci95_low() < s.mean && s.mean < s.ci95_high());
        assert!(close(s.ci95_high() - s.mean, s.ci95, 1e-15));
    }
}
