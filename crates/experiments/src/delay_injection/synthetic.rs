//! A synthetic GPRS-like ping trace, standing in for the measured trace of
//! [Klein et al. 2004] section IV, which is not public.
//!
//! # What the paper reports, and the parameter each fact sets
//!
//! | the paper says (section IV) | here |
//! |---|---|
//! | "the ping utility issues 10,000 messages and waits for a maximum of 10 seconds"; the next ping is sent when the reply arrives | `n` samples; callers use 10 000 for the paper's length |
//! | "the average RTT is on the order of 500 msec ... We therefore scale all the measurements by a factor of 5" (footnote 3) | values are given after the scaling: a base mean of 100 ms |
//! | "the distribution of the RTT (without delay jitter) is approximately uniform" | base RTT ~ U\[`base_min`, `base_max`\] |
//! | under FTFD with D0 = 100 ms, N = 3, "the distribution becomes bimodal ... an additional delay of 100 msec, which essentially corresponds to the gap between the two uniform pieces" | the uniform piece is narrower than 100 ms, so shifting it by 100 ms leaves a gap: U\[60, 140\] ms (width 80, mean 100) |
//! | "the RTT measurements turn out to be essentially uncorrelated and the timeouts are observed as isolated incidents" | samples are independent |
//! | Fig. 1: a window of 100 samples with two timeouts, "since no packets were lost ... these timeouts are spurious and attributed to the large RTT spikes" | a spike with probability `spike_prob` = 1% per sample (two in that window suggests a window chosen to show them; 1% makes isolated spikes) |
//! | Fig. 2: FTFD (100 ms, N = 3) avoids one of the two timeouts; "the second timeout could not be avoided as the experienced delay spike is just too large" | a spike adds U\[`spike_min`, `spike_max`\] = U\[100, 500\] ms (0.5-2.5 s before scaling) to the base: small spikes exceed the plain RTO (about 180 ms with the base above) but not the FTFD-widened one (about 300 ms), large ones exceed both |
//!
//! Assumed, since the trace is not public: the uniform bounds, the spike probability
//! and the spike-size distribution. No sample is lost (the paper's run lost none).

use rand::Rng;
use spikelab_core::SimRng;

/// Parameters of [`gprs_like_trace`], in ms after the paper's scaling by 1/5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GprsLikeConfig {
    /// Lower bound of the uniform base RTT. Default 60 ms.
    pub base_min: f64,
    /// Upper bound of the uniform base RTT. Default 140 ms.
    pub base_max: f64,
    /// Probability that a sample carries a delay spike. Default 0.01.
    pub spike_prob: f64,
    /// Smallest extra delay of a spike. Default 100 ms.
    pub spike_min: f64,
    /// Largest extra delay of a spike. Default 500 ms.
    pub spike_max: f64,
}

impl Default for GprsLikeConfig {
    fn default() -> Self {
        GprsLikeConfig {
            base_min: 60.0,
            base_max: 140.0,
            spike_prob: 0.01,
            spike_min: 100.0,
            spike_max: 500.0,
        }
    }
}

impl GprsLikeConfig {
    /// The trace of the paper mode (`scenarios/delay-injection-paper.toml`): the base
    /// of [`Default`], with the spike probability and the spike-size range FITTED to
    /// the one baseline the paper publishes without delay injection (section IV: "the
    /// average number of timeouts from 24", Fig. 8's horizontal line at 103.58 kbit/s)
    /// by the grid of [`super::fit`]. A fit, not a measurement: the authors' trace is
    /// not public. No cell with injection entered the fit.
    pub fn paper_fit() -> GprsLikeConfig {
        GprsLikeConfig {
            spike_prob: PAPER_FIT.0,
            spike_min: PAPER_FIT.1,
            spike_max: PAPER_FIT.2,
            ..GprsLikeConfig::default()
        }
    }
}

/// (spike_prob, spike_min ms, spike_max ms) of [`GprsLikeConfig::paper_fit`], chosen by
/// [`super::fit::fit`] (see there for the grid and the command that reprints it).
pub const PAPER_FIT: (f64, f64, f64) = (0.04, 100.0, 1860.0);

/// `n` independent RTT samples (ms): uniform base plus, with probability
/// `spike_prob`, a uniform spike. Each sample draws two or three numbers from `rng`.
pub fn gprs_like_trace(cfg: &GprsLikeConfig, n: usize, rng: &mut SimRng) -> Vec<f64> {
    (0..n).map(|_| sample(cfg, rng)).collect()
}

fn sample(cfg: &GprsLikeConfig, rng: &mut SimRng) -> f64 {
    let base = uniform(rng, cfg.base_min, cfg.base_max);
    if rng.random::<f64>() < cfg.spike_prob {
        base + uniform(rng, cfg.spike_min, cfg.spike_max)
    } else {
        base
    }
}

/// Uniform on \[lo, hi\] (lo when hi <= lo).
fn uniform(rng: &mut SimRng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo).max(0.0) * rng.random::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delay_injection::rto::{paper_rto, PaperRtoParams};
    use rand::SeedableRng;

    fn trace(seed: u64) -> Vec<f64> {
        gprs_like_trace(
            &GprsLikeConfig::default(),
            10_000,
            &mut SimRng::seed_from_u64(seed),
        )
    }

    #[test]
    fn mean_is_about_100_ms_and_spikes_are_about_one_percent() {
        let t = trace(1);
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
        assert_eq!(trace(7), trace(7));
        assert_ne!(trace(7), trace(8));
    }

    #[test]
    fn timeouts_are_mostly_spikes() {
        // "these timeouts are spurious and attributed to the large RTT spikes". A base
        // sample times out only when V has dipped by chance (h = 1/4 averages few
        // samples), which is rare.
        let t = trace(2);
        let rows = paper_rto(&t, &PaperRtoParams::default());
        let timeouts: Vec<usize> = (0..t.len()).filter(|&i| rows[i].timeout).collect();
        let spikes = timeouts.iter().filter(|&&i| t[i] > 140.0).count();
        assert!(
            spikes * 4 > timeouts.len() * 3,
            "{spikes} of {}",
            timeouts.len()
        );
    }
}
