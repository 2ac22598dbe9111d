//! Delay injection into a vector of RTT samples ([Klein et al. 2004] III and IV):
//! "Let D\[k\] be artificial delay injected for measurement k. Then the new value of RTT
//! ... is given by RTT_new\[k\] = RTT\[k\] + D\[k\]. The new timeout threshold value
//! RTO_new\[k\] is calculated according to the same formulas in equations (1) to (3)".
//!
//! In a ping trace every sample is a measurement, so every sample is a "tracked packet"
//! k; D\[k\] comes from [`Injector`], the same schedule the middlebox uses.

use spikelab_core::{Dur, SimRng};
use spikelab_net::middlebox::{InjectionMethod, Injector};
use spikelab_tcp::rto::klein::{klein_rto, KleinRtoParams};

/// A method and its parameters (section III).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InjectionSpec {
    /// FTFD, RTFD or RTRD.
    pub method: InjectionMethod,
    /// D0: fixed delay, or mean delay for RTRD.
    pub d0: Dur,
    /// N: jitter period; p = 1/N for RTFD and RTRD unless `p` is set.
    pub n: u32,
    /// p overriding 1/N.
    pub p: Option<f64>,
}

impl InjectionSpec {
    /// `method` with D0 and N, p = 1/N (section IV: "with probability p = 1/N").
    pub fn new(method: InjectionMethod, d0: Dur, n: u32) -> InjectionSpec {
        InjectionSpec {
            method,
            d0,
            n,
            p: None,
        }
    }
}

/// RTT_new\[k\] = RTT\[k\] + D\[k\] (ms). Never lowers a sample.
pub fn inject(rtts: &[f64], spec: &InjectionSpec, rng: &mut SimRng) -> Vec<f64> {
    let mut inj = Injector::new(spec.method, spec.d0, spec.n, spec.p);
    rtts.iter()
        .map(|&r| r + inj.next_delay(rng).as_millis_f64())
        .collect()
}

/// Samples above the RTO in force (timeouts), by equations (1)-(3).
pub fn count_timeouts(rtts: &[f64], params: &KleinRtoParams) -> usize {
    klein_rto(rtts, params).iter().filter(|r| r.timeout).count()
}

/// Timeouts in one trace without injection and with each method at the same D0, N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutCounts {
    /// Without delay jitter.
    pub none: usize,
    /// With FTFD.
    pub ftfd: usize,
    /// With RTFD (one draw of the randomness).
    pub rtfd: usize,
    /// With RTRD (one draw of the randomness).
    pub rtrd: usize,
}

/// Timeouts without injection and with FTFD, RTFD and RTRD at `d0`, `n` (section IV).
/// RTFD then RTRD draw from `rng`, in that order.
pub fn timeouts_by_method(
    rtts: &[f64],
    d0: Dur,
    n: u32,
    params: &KleinRtoParams,
    rng: &mut SimRng,
) -> TimeoutCounts {
    let mut with = |m| count_timeouts(&inject(rtts, &InjectionSpec::new(m, d0, n), rng), params);
    TimeoutCounts {
        none: count_timeouts(rtts, params),
        ftfd: with(InjectionMethod::Ftfd),
        rtfd: with(InjectionMethod::Rtfd),
        rtrd: with(InjectionMethod::Rtrd),
    }
}

/// Mean number of timeouts over `reps` draws for each jitter period in `periods`: the
/// trace-mode analogue of Figs. 4-7 (which the paper measured with a TCP simulator).
pub fn timeouts_vs_period(
    rtts: &[f64],
    method: InjectionMethod,
    d0: Dur,
    periods: &[u32],
    reps: u32,
    params: &KleinRtoParams,
    rng: &mut SimRng,
) -> Vec<(u32, f64)> {
    let reps = reps.max(1);
    periods
        .iter()
        .map(|&n| {
            let spec = InjectionSpec::new(method, d0, n);
            let total: usize = (0..reps)
                .map(|_| count_timeouts(&inject(rtts, &spec, rng), params))
                .sum();
            (n, total as f64 / reps as f64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use spikelab_net::ping_trace::PingTrace;

    /// `n` samples of the default synthetic trace, from seed 5.
    fn trace(n: usize) -> Vec<f64> {
        PingTrace {
            seed: 5,
            samples: n,
            ..PingTrace::default()
        }
        .samples_ms()
    }

    fn rng() -> SimRng {
        SimRng::seed_from_u64(5)
    }

    #[test]
    fn injection_never_reduces_any_rtt() {
        let rtts = trace(2000);
        for m in [
            InjectionMethod::Ftfd,
            InjectionMethod::Rtfd,
            InjectionMethod::Rtrd,
        ] {
            let spec = InjectionSpec::new(m, Dur::from_millis(100), 3);
            let new = inject(&rtts, &spec, &mut rng());
            assert_eq!(new.len(), rtts.len());
            assert!(new.iter().zip(&rtts).all(|(a, b)| a >= b), "{m:?}");
        }
    }

    #[test]
    fn ftfd_with_n_one_adds_d0_to_every_sample() {
        let rtts = [100.0, 250.5, 80.0];
        let spec = InjectionSpec::new(InjectionMethod::Ftfd, Dur::from_millis(40), 1);
        assert_eq!(inject(&rtts, &spec, &mut rng()), [140.0, 290.5, 120.0]);
    }

    #[test]
    fn ftfd_with_n_three_delays_samples_three_six_nine() {
        let rtts = [10.0; 9];
        let spec = InjectionSpec::new(InjectionMethod::Ftfd, Dur::from_millis(100), 3);
        let new = inject(&rtts, &spec, &mut rng());
        let delayed: Vec<usize> = (0..9).filter(|&i| new[i] > 10.0).collect();
        assert_eq!(delayed, [2, 5, 8]);
    }

    #[test]
    fn the_papers_ftfd_setting_removes_timeouts_from_the_synthetic_trace() {
        // Section IV: FTFD with D0 = 100 ms, N = 3 widens the margin between RTO and RTT.
        let rtts = trace(10_000);
        let c = timeouts_by_method(
            &rtts,
            Dur::from_millis(100),
            3,
            &KleinRtoParams::default(),
            &mut rng(),
        );
        assert!(c.none > 0);
        assert!(c.ftfd < c.none, "{c:?}");
        // Section IV: RTRD "introduces too much randomness into the RTT measurements".
        assert!(c.rtrd > c.ftfd, "{c:?}");
    }

    #[test]
    fn the_synthetic_traces_timeouts_are_mostly_spikes() {
        // "these timeouts are spurious and attributed to the large RTT spikes". A base
        // sample times out only when V has dipped by chance (h = 1/4 averages few
        // samples), which is rare.
        let t = PingTrace {
            seed: 2,
            ..PingTrace::default()
        }
        .samples_ms();
        let rows = klein_rto(&t, &KleinRtoParams::default());
        let timeouts: Vec<usize> = (0..t.len()).filter(|&i| rows[i].timeout).collect();
        let spikes = timeouts.iter().filter(|&&i| t[i] > 140.0).count();
        assert!(
            spikes * 4 > timeouts.len() * 3,
            "{spikes} of {}",
            timeouts.len()
        );
    }

    #[test]
    fn a_very_long_jitter_period_changes_nothing() {
        // Section IV: "when the jitter period is very large ... the number of timeouts
        // is essentially equal to the number of timeouts without the jitter algorithm".
        let rtts = trace(3000);
        let none = count_timeouts(&rtts, &KleinRtoParams::default()) as f64;
        let sweep = timeouts_vs_period(
            &rtts,
            InjectionMethod::Ftfd,
            Dur::from_millis(100),
            &[1_000_000],
            1,
            &KleinRtoParams::default(),
            &mut rng(),
        );
        assert_eq!(sweep, [(1_000_000, none)]);
    }
}
