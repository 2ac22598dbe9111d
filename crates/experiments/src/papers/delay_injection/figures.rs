//! The data of [Klein et al. 2004] Figs. 1-3, as plain vectors for the reproduction code
//! to plot.
//!
//! * Fig. 1, "RTT and RTO measurements without delay jitter": a window of 100
//!   consecutive samples with the RTO estimate; timeouts where RTT > RTO.
//! * Fig. 2, "RTT and RTO measurements with delay jitter": the same window under FTFD
//!   with D0 = 100 ms and N = 3.
//! * Fig. 3, "Histogram of RTT measurements with and without delay jitter": none, FTFD,
//!   RTFD, RTRD at D0 = 100 ms, N = 3.
//!
//! The RTO is computed over the whole trace and then cut to the window, so the estimator
//! is warmed up as it was in the paper's 10 000-sample run. The RTO drawn at sample k is
//! the threshold sample k is compared with (RTO\[k-1\], see
//! [`spikelab_tcp::rto::klein`]), so a point above the curve is exactly a timeout.

use super::inject::{inject, InjectionSpec};
use spikelab_core::{Dur, SimRng};
use spikelab_net::middlebox::InjectionMethod;
use spikelab_tcp::rto::klein::{klein_rto, KleinRtoParams};

/// RTT and RTO over a window of samples (Figs. 1 and 2), in ms.
#[derive(Clone, Debug, PartialEq)]
pub struct RttRtoWindow {
    /// Sample numbers k (0-based, in the whole trace).
    pub index: Vec<usize>,
    /// RTT\[k\].
    pub rtt: Vec<f64>,
    /// The RTO in force for sample k (NaN for the trace's first sample).
    pub rto: Vec<f64>,
    /// Sample numbers of the timeouts in the window.
    pub timeouts: Vec<usize>,
}

/// The window `start .. start + len` (clipped to the trace) of `rtts` with its RTO.
pub fn rtt_rto_window(
    rtts: &[f64],
    params: &KleinRtoParams,
    start: usize,
    len: usize,
) -> RttRtoWindow {
    let rows = klein_rto(rtts, params);
    let end = (start + len).min(rows.len());
    let range = start.min(end)..end;
    RttRtoWindow {
        index: range.clone().collect(),
        rtt: rows[range.clone()].iter().map(|r| r.rtt).collect(),
        rto: rows[range.clone()]
            .iter()
            .map(|r| r.threshold.unwrap_or(f64::NAN))
            .collect(),
        timeouts: range.filter(|&k| rows[k].timeout).collect(),
    }
}

/// Fig. 1: the window without delay jitter.
pub fn fig1(rtts: &[f64], params: &KleinRtoParams, start: usize, len: usize) -> RttRtoWindow {
    rtt_rto_window(rtts, params, start, len)
}

/// Fig. 2: the window with delay jitter `spec` applied to the whole trace (the paper's
/// figure: FTFD, D0 = 100 ms, N = 3, which draws nothing from `rng`).
pub fn fig2(
    rtts: &[f64],
    spec: &InjectionSpec,
    params: &KleinRtoParams,
    (start, len): (usize, usize),
    rng: &mut SimRng,
) -> RttRtoWindow {
    rtt_rto_window(&inject(rtts, spec, rng), params, start, len)
}

/// Counts of values in equal bins `[lo + i w, lo + (i + 1) w)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// Left edge of the first bin (ms).
    pub lo: f64,
    /// Bin width w (ms).
    pub bin_width: f64,
    /// Count per bin.
    pub counts: Vec<u64>,
    /// Values below `lo`.
    pub below: u64,
    /// Values at or above the last bin's right edge.
    pub above: u64,
}

impl Histogram {
    /// The centre of bin `i`.
    pub fn centre(&self, i: usize) -> f64 {
        self.lo + (i as f64 + 0.5) * self.bin_width
    }
}

/// `values` in `bins` bins of width `bin_width` from `lo`.
pub fn histogram(values: &[f64], lo: f64, bin_width: f64, bins: usize) -> Histogram {
    let mut h = Histogram {
        lo,
        bin_width,
        counts: vec![0; bins],
        below: 0,
        above: 0,
    };
    for &v in values {
        let pos = ((v - lo) / bin_width).floor();
        if pos < 0.0 {
            h.below += 1;
        } else if pos >= bins as f64 {
            h.above += 1;
        } else {
            h.counts[pos as usize] += 1;
        }
    }
    h
}

/// Fig. 3: histograms of the RTT without jitter and under each method.
#[derive(Clone, Debug, PartialEq)]
pub struct Fig3 {
    /// Without delay jitter.
    pub none: Histogram,
    /// FTFD.
    pub ftfd: Histogram,
    /// RTFD.
    pub rtfd: Histogram,
    /// RTRD.
    pub rtrd: Histogram,
}

/// Fig. 3 for `rtts` with D0, N, in `bins` bins of `bin_width` ms from `lo`. RTFD then
/// RTRD draw from `rng`.
pub fn fig3(
    rtts: &[f64],
    d0: Dur,
    n: u32,
    (lo, bin_width, bins): (f64, f64, usize),
    rng: &mut SimRng,
) -> Fig3 {
    let mut hist_of = |m| {
        let injected = inject(rtts, &InjectionSpec::new(m, d0, n), rng);
        histogram(&injected, lo, bin_width, bins)
    };
    Fig3 {
        none: histogram(rtts, lo, bin_width, bins),
        ftfd: hist_of(InjectionMethod::Ftfd),
        rtfd: hist_of(InjectionMethod::Rtfd),
        rtrd: hist_of(InjectionMethod::Rtrd),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use spikelab_net::ping_trace::PingTrace;

    fn paper_trace() -> Vec<f64> {
        PingTrace::default().samples_ms()
    }

    #[test]
    fn histogram_bins_values_with_left_closed_bins() {
        let h = histogram(&[-1.0, 0.0, 9.99, 10.0, 29.9, 30.0], 0.0, 10.0, 3);
        assert_eq!((h.below, h.counts.clone(), h.above), (1, vec![2, 1, 1], 1));
        assert_eq!(h.centre(1), 15.0);
    }

    #[test]
    fn window_marks_exactly_the_samples_above_the_rto() {
        let t = paper_trace();
        let w = fig1(&t, &KleinRtoParams::default(), 0, 10_000);
        let above: Vec<usize> = (1..w.rtt.len()).filter(|&i| w.rtt[i] > w.rto[i]).collect();
        assert_eq!(above, w.timeouts);
        assert!(w.rto[0].is_nan());
        let clipped = fig1(&t, &KleinRtoParams::default(), 9_990, 100);
        assert_eq!(clipped.index, (9_990..10_000).collect::<Vec<_>>());
    }

    #[test]
    fn ftfd_widens_the_margin_and_makes_the_histogram_bimodal() {
        let t = paper_trace();
        let p = KleinRtoParams::default();
        let d0 = Dur::from_millis(100);
        let spec = InjectionSpec::new(InjectionMethod::Ftfd, d0, 3);
        let mut rng = SimRng::seed_from_u64(1);
        let w1 = fig1(&t, &p, 0, 10_000);
        let w2 = fig2(&t, &spec, &p, (0, 10_000), &mut rng);
        let margin = |w: &RttRtoWindow| {
            (1..w.rtt.len()).map(|i| w.rto[i] - w.rtt[i]).sum::<f64>() / w.rtt.len() as f64
        };
        assert!(margin(&w2) > margin(&w1) + 50.0);
        assert!(w2.timeouts.len() < w1.timeouts.len());
        // Fig. 3: U[60, 140] and U[160, 240]: nothing in [140, 160) but spikes.
        let f = fig3(&t, d0, 3, (0.0, 20.0, 40), &mut rng);
        let (gap, left, right) = (f.ftfd.counts[7], f.ftfd.counts[5], f.ftfd.counts[9]);
        assert!(gap * 20 < left && gap * 10 < right, "{:?}", f.ftfd.counts);
        assert_eq!(f.none.counts[..3], [0, 0, 0]);
        // RTRD grows an exponential tail beyond FTFD's largest values.
        let tail = |h: &Histogram| h.counts[15..].iter().sum::<u64>() + h.above;
        assert!(
            tail(&f.rtrd) > 2 * tail(&f.ftfd),
            "{} {}",
            tail(&f.rtrd),
            tail(&f.ftfd)
        );
    }
}
