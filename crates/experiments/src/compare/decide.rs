//! Decisions against the baseline: better, equivalent, worse or unclear, beyond a
//! practical-equivalence margin, with the family-wise error of all rows controlled.
//!
//! Each row's paired differences to the baseline (row minus baseline, seed by seed,
//! from the `paired` module) are turned into a *gain* `g` (positive: the row is better for the
//! objective). With a margin `m > 0` (a difference smaller than `m` does not matter to
//! the user) three one-sided t tests are made on the mean gain (Lakens, "Equivalence
//! Tests", Soc. Psych. Pers. Sci. 8(4), 2017; Schuirmann's TOST, J. Pharmacokin.
//! Biopharm. 15(6), 1987):
//!
//! * better:     H0 `g <= m`,  rejected when `(mean - m) / se` is large;
//! * worse:      H0 `g >= -m`, rejected when `(mean + m) / se` is very negative;
//! * equivalent: H0 `|g| >= m` (TOST: both one-sided tests `g > -m` and `g < m`; its
//!   p-value is the larger of the two).
//!
//! A row's p-value is the smallest of the three, for the claim that attains it. At
//! level `a` the claims are exactly the ones a two-sided `1 - 2a` interval of the gain
//! makes: better when the interval lies above `+m`, worse when below `-m`, equivalent
//! when inside `(-m, m)`; the three cannot hold together, so a row's chance of a wrong
//! claim is at most `a` whatever its true gain.
//!
//! Across rows, Holm's step-down procedure (Scand. J. Statist. 6(2), 1979) keeps the
//! probability that *any* claim is wrong at most `alpha`: sorted by p-value, the j-th
//! row (0-based) of `k` is claimed while `p <= alpha / (k - j)`; from the first that
//! fails on, every row stays unclear. Holm rather than Benjamini–Hochberg: a user acts
//! on one row (the change to make), so every claim must hold, not 95 % of them on
//! average; and Holm is valid under any dependence, which these rows have (they share
//! the baseline's runs), where BH needs positive dependence.
//!
//! Student's t distribution comes from `statrs` (its CDF and inverse), not hand-rolled.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The family-wise error rate of the claims of one answer.
pub const ALPHA: f64 = 0.05;

/// A row's answer against the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    /// Its whole interval lies beyond the margin on the good side.
    Better,
    /// Its whole interval lies inside the margin: no difference that matters.
    Equivalent,
    /// Its whole interval lies beyond the margin on the bad side.
    Worse,
    /// Neither: the repetitions cannot tell (or the correction did not allow a claim).
    Unclear,
}

impl Decision {
    /// The word in tables and CSV.
    pub fn label(self) -> &'static str {
        match self {
            Decision::Better => "better",
            Decision::Equivalent => "equivalent",
            Decision::Worse => "worse",
            Decision::Unclear => "unclear",
        }
    }
}

/// The sample a test is made on: mean gain, its standard error and degrees of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Mean gain (positive: better).
    pub mean: f64,
    /// Standard error of the mean gain (0 when every pair differs alike).
    pub se: f64,
    /// Pairs used.
    pub n: usize,
}

/// The upper tail P(T > t) of Student's t with `df` degrees of freedom; infinite and
/// NaN statistics (a zero standard error) give 0, 1 and 1 (no evidence).
fn upper_tail(t: f64, df: f64) -> f64 {
    if t.is_nan() {
        return 1.0;
    }
    if t.is_infinite() {
        return if t > 0.0 { 0.0 } else { 1.0 };
    }
    let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0");
    1.0 - dist.cdf(t)
}

/// The one-sided quantile: the `t` with P(T > t) = `level`.
fn critical(level: f64, df: f64) -> f64 {
    let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0");
    dist.inverse_cdf(1.0 - level)
}

/// `(x - m) / se` with a zero standard error read as a certain sign.
fn statistic(x: f64, se: f64) -> f64 {
    if se > 0.0 {
        x / se
    } else if x == 0.0 {
        f64::NAN
    } else {
        x * f64::INFINITY
    }
}

/// The claim a sample supports best against margin `m`, and its p-value. Fewer than
/// two pairs support nothing (p = 1).
pub fn claim(s: Sample, m: f64) -> (Decision, f64) {
    if s.n < 2 || !s.mean.is_finite() || !s.se.is_finite() {
        return (Decision::Unclear, 1.0);
    }
    let df = (s.n - 1) as f64;
    let better = upper_tail(statistic(s.mean - m, s.se), df);
    let worse = upper_tail(statistic(-(s.mean + m), s.se), df);
    let above = upper_tail(statistic(s.mean + m, s.se), df);
    let below = upper_tail(statistic(m - s.mean, s.se), df);
    let equivalent = above.max(below);
    [
        (Decision::Better, better),
        (Decision::Equivalent, equivalent),
        (Decision::Worse, worse),
    ]
    .into_iter()
    .min_by(|a, b| a.1.total_cmp(&b.1))
    .expect("three claims")
}

/// The two-sided p-value of a paired t test of mean difference 0 (Student's t with
/// n - 1 degrees of freedom): 1 with fewer than two pairs or when every pair is equal,
/// 0 when every pair differs alike by a non-zero amount.
pub fn two_sided_p(s: Sample) -> f64 {
    if s.n < 2 || !s.mean.is_finite() || !s.se.is_finite() {
        return 1.0;
    }
    let t = statistic(s.mean, s.se).abs();
    (2.0 * upper_tail(t, (s.n - 1) as f64)).min(1.0)
}

/// Holm's adjusted p-values (Holm 1979; Wright, Biometrics 48(4), 1992, 2.2): the
/// j-th smallest of `k` p-values times `k - j` (0-based), made non-decreasing in that
/// order and capped at 1. A comparison is claimed at family-wise level `alpha` exactly
/// when its adjusted p-value is at most `alpha`: the claims [`holm`] makes.
pub fn holm_adjusted(ps: &[f64]) -> Vec<f64> {
    let k = ps.len();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]).then(a.cmp(&b)));
    let mut out = vec![1.0; k];
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        running = running.max(((k - j) as f64 * ps[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// Holm's step-down levels: for each p-value, the one-sided level its row is judged
/// at and whether the claim is made. Ties keep the given order.
pub fn holm(ps: &[f64], alpha: f64) -> Vec<(f64, bool)> {
    let k = ps.len();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]).then(a.cmp(&b)));
    let mut out = vec![(alpha, false); k];
    let mut stopped = None;
    for (j, &i) in order.iter().enumerate() {
        let level = alpha / (k - stopped.unwrap_or(j)) as f64;
        let claimed = stopped.is_none() && ps[i] <= level;
        if !claimed && stopped.is_none() {
            stopped = Some(j);
        }
        out[i] = (level, claimed);
    }
    out
}

/// A row's decision with the interval it rests on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub decision: Decision,
    /// The p-value of the claim the row supports best (before the correction).
    pub p: f64,
    /// The one-sided level Holm judged it at.
    pub level: f64,
    /// Half-width of the two-sided `1 - 2 level` interval of the mean difference: the
    /// interval the decision is read from (0 when every pair differs alike).
    pub half_width: f64,
}

/// Decides every sample against margin `m` at family-wise level `alpha` (Holm).
pub fn decide(samples: &[Sample], m: f64, alpha: f64) -> Vec<Verdict> {
    let claims: Vec<(Decision, f64)> = samples.iter().map(|s| claim(*s, m)).collect();
    let ps: Vec<f64> = claims.iter().map(|c| c.1).collect();
    holm(&ps, alpha)
        .into_iter()
        .zip(samples.iter().zip(claims))
        .map(|((level, claimed), (s, (decision, p)))| Verdict {
            decision: if claimed { decision } else { Decision::Unclear },
            p,
            level,
            half_width: half_width(*s, level),
        })
        .collect()
}

/// Half-width of the two-sided `1 - 2 level` interval of a sample's mean.
pub fn half_width(s: Sample, level: f64) -> f64 {
    if s.n < 2 || !s.se.is_finite() {
        return f64::NAN;
    }
    if s.se == 0.0 {
        return 0.0;
    }
    critical(level, (s.n - 1) as f64) * s.se
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(mean: f64, se: f64, n: usize) -> Sample {
        Sample { mean, se, n }
    }

    #[test]
    fn the_t_quantile_matches_printed_tables() {
        assert!((critical(0.025, 9.0) - 2.262).abs() < 1e-3);
        assert!((critical(0.05, 29.0) - 1.699).abs() < 1e-3);
    }

    #[test]
    fn a_gain_whose_interval_clears_the_margin_is_better() {
        let (d, p) = claim(sample(5.0, 1.0, 30), 1.0);
        assert_eq!(d, Decision::Better);
        assert!(p < 1e-3, "{p}");
        assert_eq!(claim(sample(-5.0, 1.0, 30), 1.0).0, Decision::Worse);
    }

    #[test]
    fn a_tight_interval_inside_the_margin_is_equivalent_and_a_wide_one_is_not() {
        let (d, p) = claim(sample(0.1, 0.1, 30), 1.0);
        assert_eq!(d, Decision::Equivalent);
        assert!(p < 1e-6);
        // Significantly different from zero, yet not by a margin that matters.
        let (d, _) = claim(sample(0.5, 0.1, 30), 1.0);
        assert_eq!(d, Decision::Equivalent);
        let wide = decide(&[sample(0.1, 2.0, 30)], 1.0, ALPHA);
        assert_eq!(wide[0].decision, Decision::Unclear);
    }

    #[test]
    fn identical_results_on_every_seed_are_certainly_equivalent() {
        let v = decide(&[sample(0.0, 0.0, 5)], 0.5, ALPHA);
        assert_eq!(v[0].decision, Decision::Equivalent);
        assert_eq!(v[0].half_width, 0.0);
        assert_eq!(claim(sample(3.0, 0.0, 5), 0.5), (Decision::Better, 0.0));
        assert_eq!(claim(sample(0.0, 0.0, 1), 0.5).0, Decision::Unclear);
    }

    #[test]
    fn holm_adjusted_p_values_claim_what_holm_claims() {
        let ps = [0.04, 0.001, 0.02, 0.03, 0.2];
        let adj = holm_adjusted(&ps);
        let want = [0.09, 0.005, 0.08, 0.09, 0.2];
        assert!(
            adj.iter().zip(want).all(|(a, w)| (a - w).abs() < 1e-12),
            "{adj:?}"
        );
        for alpha in [0.01, 0.05, 0.1] {
            let claimed: Vec<bool> = holm(&ps, alpha).iter().map(|c| c.1).collect();
            let by_adj: Vec<bool> = adj.iter().map(|p| *p <= alpha).collect();
            assert_eq!(claimed, by_adj, "alpha {alpha}");
        }
    }

    #[test]
    fn a_paired_t_test_is_two_sided_and_certain_without_spread() {
        let s = |mean, se, n| Sample { mean, se, n };
        // t = 2.262 is the 97.5 % quantile of t with 9 degrees of freedom.
        assert!((two_sided_p(s(2.262, 1.0, 10)) - 0.05).abs() < 1e-3);
        assert_eq!(
            two_sided_p(s(-2.262, 1.0, 10)),
            two_sided_p(s(2.262, 1.0, 10))
        );
        assert_eq!(two_sided_p(s(1.0, 0.0, 5)), 0.0);
        assert_eq!(two_sided_p(s(0.0, 0.0, 5)), 1.0);
        assert_eq!(two_sided_p(s(1.0, 1.0, 1)), 1.0);
    }

    #[test]
    fn holm_judges_the_smallest_p_at_alpha_over_k_and_stops_at_the_first_failure() {
        let v = holm(&[0.04, 0.001, 0.02, 0.03], 0.05);
        // Sorted: 0.001 <= 0.0125, 0.02 > 0.05/3: stop; everything after stays unclaimed.
        assert_eq!(v[1], (0.0125, true));
        assert_eq!(v[2], (0.05 / 3.0, false));
        assert!(!v[0].1 && !v[3].1);
        assert!(holm(&[0.01, 0.02], 0.05).iter().all(|c| c.1));
    }

    #[test]
    fn the_correction_turns_a_lone_significant_row_among_many_into_unclear() {
        // A gain two standard errors beyond the margin: claimed alone, not among 200.
        let row = sample(2.0 + 2.2 * 0.5, 0.5, 30);
        assert_eq!(decide(&[row], 2.0, ALPHA)[0].decision, Decision::Better);
        let mut many = vec![sample(0.0, 5.0, 30); 199];
        many.push(row);
        assert_eq!(decide(&many, 2.0, ALPHA)[199].decision, Decision::Unclear);
    }

    #[test]
    fn the_decision_interval_agrees_with_the_claim() {
        for (mean, se) in [(3.0, 0.4), (0.2, 0.3), (-2.5, 0.2), (1.2, 0.5)] {
            let s = sample(mean, se, 20);
            let v = decide(&[s, sample(0.0, 1.0, 20)], 1.0, ALPHA)[0];
            let (lo, hi) = (mean - v.half_width, mean + v.half_width);
            let by_interval = if lo > 1.0 {
                Decision::Better
            } else if hi < -1.0 {
                Decision::Worse
            } else if lo > -1.0 && hi < 1.0 {
                Decision::Equivalent
            } else {
                Decision::Unclear
            };
            assert_eq!(v.decision, by_interval, "{mean} {se}: {v:?}");
        }
    }
}
