//! The N-filter (equation (1)) and S-filter (equation (2)) of [Kim & Cho 2003] III.C, and
//! the one moving-average formula they and the wRTT estimate share.
//!
//! Averages are kept as integer nanoseconds ([`Dur`]); each filter step rounds once.

use spikelab_core::Dur;

/// `alpha * old + (1 - alpha) * x`, rounded once to the nearest nanosecond: the
/// smoother of (1) and (2) (beta = 1 - alpha, III.C) and the wRTT moving average.
pub fn smooth(old: Dur, x: Dur, alpha: f64) -> Dur {
    let v = alpha * old.0 as f64 + (1.0 - alpha) * x.0 as f64;
    // `as u64` saturates: a negative or NaN product (a nonsensical alpha) becomes 0.
    Dur(v.round() as u64)
}

/// Which branch of a filter a sample took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// x_av_new = x.
    Follower,
    /// x_av_new = alpha x_av_old + beta x.
    Smoother,
    /// x_av_new = x_av_old (the sample is excluded).
    Limiter,
}

/// Parameters of the N-filter (1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NFilter {
    /// S: samples below x_av_old / S are followed.
    pub s: f64,
    /// alpha_N of the smoother.
    pub alpha: f64,
    /// X_th = 0.5 wRTT: samples at or above it are excluded; `None` while wRTT is
    /// unknown (no limiter yet).
    pub x_th: Option<Dur>,
}

impl NFilter {
    /// One step of equation (1) ([Kim & Cho 2003] III.C):
    ///
    /// ```text
    /// x_av_new = x                             if x < x_av_old / S       (follower)
    ///          = alpha_N x_av_old + beta_N x   if x_av_old / S <= x < X_th (smoother)
    ///          = x_av_old                      if X_th <= x              (limiter)
    /// ```
    ///
    /// The paper's first case reads "x < y(n)/S"; the second case's lower bound
    /// "x_av_old/S" shows y(n) is x_av_old, and the follower's purpose, "fast adaptation
    /// to real ACK inter-arrival value", fits a sample far below the average.
    /// If X_th < x_av_old / S the first and third ranges overlap; the limiter wins, since
    /// it "excludes unwanted large sample values" and X_th is the absolute bound of a
    /// valid sample. Without a previous average, a sample below X_th starts one
    /// (follower) and one at or above it is excluded.
    pub fn step(&self, old: Option<Dur>, x: Dur) -> (Option<Dur>, Branch) {
        if self.x_th.is_some_and(|th| x >= th) {
            return (old, Branch::Limiter);
        }
        match old {
            None => (Some(x), Branch::Follower),
            Some(avg) if (x.0 as f64) < avg.0 as f64 / self.s => (Some(x), Branch::Follower),
            Some(avg) => (Some(smooth(avg, x, self.alpha)), Branch::Smoother),
        }
    }
}

/// One step of the S-filter, equation (2) ([Kim & Cho 2003] III.C):
///
/// ```text
/// x_av_new = alpha_S x_av_old + beta_S x   if x < x_av_old   (smoother)
///          = x                             if x_av_old <= x  (follower)
/// ```
///
/// Without a previous average the sample is followed.
pub fn s_filter(old: Option<Dur>, x: Dur, alpha: f64) -> (Dur, Branch) {
    match old {
        Some(avg) if x < avg => (smooth(avg, x, alpha), Branch::Smoother),
        _ => (x, Branch::Follower),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Dur {
        Dur::from_millis(x)
    }

    fn paper_n(x_th_ms: u64) -> NFilter {
        NFilter {
            s: 20.0,
            alpha: 0.9,
            x_th: Some(ms(x_th_ms)),
        }
    }

    #[test]
    fn smoother_weights_old_by_alpha_and_sample_by_beta() {
        // 0.9 * 100 + 0.1 * 200 = 110 ms.
        assert_eq!(smooth(ms(100), ms(200), 0.9), ms(110));
        // 0.9 * 100 + 0.1 * 50 = 95 ms.
        assert_eq!(smooth(ms(100), ms(50), 0.9), ms(95));
    }

    #[test]
    fn n_filter_follows_a_sample_below_one_twentieth_of_the_average() {
        // x_av = 400 ms, x = 19 ms < 400/20 = 20 ms: follower.
        let f = paper_n(500);
        assert_eq!(
            f.step(Some(ms(400)), ms(19)),
            (Some(ms(19)), Branch::Follower)
        );
        // x = 20 ms is not below 20 ms: smoother, 0.9 * 400 + 0.1 * 20 = 362 ms.
        assert_eq!(
            f.step(Some(ms(400)), ms(20)),
            (Some(ms(362)), Branch::Smoother)
        );
    }

    #[test]
    fn n_filter_smooths_valid_samples_and_limits_large_ones() {
        // X_th = 0.5 * wRTT = 0.5 * 600 = 300 ms.
        let f = paper_n(300);
        // 0.9 * 40 + 0.1 * 60 = 42 ms.
        assert_eq!(
            f.step(Some(ms(40)), ms(60)),
            (Some(ms(42)), Branch::Smoother)
        );
        // 299 ms < X_th: 0.9 * 40 + 0.1 * 299 = 65.9 ms.
        assert_eq!(
            f.step(Some(ms(40)), ms(299)),
            (Some(Dur::from_micros(65_900)), Branch::Smoother)
        );
        // 300 ms = X_th: the sample is excluded.
        assert_eq!(
            f.step(Some(ms(40)), ms(300)),
            (Some(ms(40)), Branch::Limiter)
        );
    }

    #[test]
    fn n_filter_hand_computed_sequence() {
        // x_av: none -> 100 (follower) -> 0.9*100 + 0.1*80 = 98 -> limiter (350 >= 300)
        // keeps 98 -> 4 < 98/20 = 4.9: follower 4 -> 0.9*4 + 0.1*10 = 4.6 ms.
        let f = paper_n(300);
        let mut avg = None;
        let mut branches = Vec::new();
        for x in [100, 80, 350, 4, 10] {
            let (a, b) = f.step(avg, ms(x));
            avg = a;
            branches.push(b);
        }
        assert_eq!(avg, Some(Dur::from_micros(4_600)));
        use Branch::*;
        assert_eq!(branches, [Follower, Smoother, Limiter, Follower, Smoother]);
    }

    #[test]
    fn limiter_wins_when_x_th_is_below_the_follower_bound() {
        // x_av = 10 s, x_av/S = 500 ms, X_th = 100 ms; x = 200 ms is in both ranges.
        let f = paper_n(100);
        assert_eq!(
            f.step(Some(Dur::from_secs(10)), ms(200)),
            (Some(Dur::from_secs(10)), Branch::Limiter)
        );
    }

    #[test]
    fn n_filter_without_wrtt_has_no_limiter_and_starts_at_the_first_sample() {
        let f = NFilter {
            x_th: None,
            ..paper_n(0)
        };
        assert_eq!(f.step(None, ms(5000)), (Some(ms(5000)), Branch::Follower));
        assert_eq!(paper_n(300).step(None, ms(300)), (None, Branch::Limiter));
    }

    #[test]
    fn s_filter_follows_increases_and_smooths_decreases() {
        assert_eq!(
            s_filter(Some(ms(40)), ms(90), 0.9),
            (ms(90), Branch::Follower)
        );
        assert_eq!(
            s_filter(Some(ms(40)), ms(40), 0.9),
            (ms(40), Branch::Follower)
        );
        // 0.9 * 90 + 0.1 * 10 = 82 ms.
        assert_eq!(
            s_filter(Some(ms(90)), ms(10), 0.9),
            (ms(82), Branch::Smoother)
        );
        assert_eq!(s_filter(None, ms(7), 0.9), (ms(7), Branch::Follower));
    }
}
