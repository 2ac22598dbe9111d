//! ns-2's retransmission timer (`tcp/tcp.cc` of ns-2.35: `rtt_init()`, `rtt_update()`,
//! `rtt_timeout()`, `rtt_backoff()` and the back-off reset of `newack()`), step by step,
//! in ns-2's own integer units: samples are rounded to `tcpTick_` ticks, `t_srtt_` keeps
//! 3 fraction bits and `t_rttvar_` 2, and the RTO is recomputed only when a sample
//! arrives. This is the timer the papers' simulator ran; [`super::rfc6298`] is the
//! RFC's exact-arithmetic version of the same rules.
//!
//! Differences from RFC 2988 that follow from the code, not from the RFC:
//!
//! * RTO = ((t_srtt_ + 8 * t_rttvar_) >> 3) ticks, truncated, with no granularity term
//!   (`rtt_update()`); the floor `minrto_` applies to the un-backed-off value and is then
//!   multiplied by the back-off (`rtt_timeout()`, `rfc2988_` true).
//! * The back-off doubles on every expiry; once it exceeds 8, the smoothed RTT is
//!   "clobbered": `t_rttvar_ += t_srtt_ >> 3; t_srtt_ = 0`, so the next sample
//!   re-initialises the estimator (`rtt_backoff()`).
//! * The back-off is cleared only when the segment timed by Karn's rule is acknowledged
//!   (`newack()`: `rtt_active_ && seqno >= rtt_seq_`), not by every timestamp sample,
//!   unless `ts_resetRTO_` (added 2003/07/24, off by default) is set
//!   ([`Ns2RtoConfig::reset_backoff_on_any_sample`]).
//!
//! Not modelled: the random `boot_time_` offset ns-2 adds when it times a segment
//! without timestamps (`rtt_update()`'s `tickoff`); samples are rounded as with
//! timestamps (`int(tao / tcpTick_ + 0.5)`).

use super::{dur_or_none, ReseedRule, RtoEstimator, RttSample};
use super::{initial_rto, rto_range};
use crate::exports::{Exports, Kernel, Ns2Export};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{dur_in, Bounded, Check, FieldPath};
use spikelab_core::Dur;

/// Parameters of ns-2's timer, named after the agent's Tcl variables. Every field may
/// be omitted from a scenario file; the defaults are those of 2002 (docs/src/ns2-2002-defaults.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ns2RtoConfig {
    /// `tcpTick_`: the timer's tick. Default 10 ms (since 2002/03/07).
    pub tick: Dur,
    /// `rtxcur_init_`: the RTO before any sample. Default 6 s (3 s since 2006).
    pub initial_rto: Dur,
    /// `minrto_`. Default 1 s (0.2 s since 2004).
    pub min_rto: Dur,
    /// `maxrto_`, or `"none"` for 2002's 100000 s. Default none (60 s since 2007).
    #[serde(with = "dur_or_none")]
    pub max_rto: Option<Dur>,
    /// `ts_resetRTO_`: clear the back-off on every timestamp sample. Default false.
    pub reset_backoff_on_any_sample: bool,
}

impl Default for Ns2RtoConfig {
    fn default() -> Self {
        Ns2RtoConfig {
            tick: Dur::from_millis(10),
            initial_rto: Dur::from_secs(6),
            min_rto: Dur::from_secs(1),
            max_rto: None,
            reset_backoff_on_any_sample: false,
        }
    }
}

/// `T_SRTT_BITS` and `T_RTTVAR_BITS`: fraction bits of t_srtt_ and t_rttvar_.
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// `rttvar_exp_`: RTO = srtt + 2^2 * rttvar.
const RTTVAR_EXP: u32 = 2;

/// ns-2's timer state (`t_srtt_`, `t_rttvar_`, `t_rtxcur_`, `t_backoff_`).
#[derive(Clone, Debug, PartialEq)]
pub struct Ns2Rto {
    cfg: Ns2RtoConfig,
    /// t_srtt_: smoothed RTT in ticks << 3 (0: no estimate).
    srtt: i64,
    /// t_rttvar_: RTT variation in ticks << 2.
    rttvar: i64,
    /// t_rtxcur_: the RTO before back-off and bounds.
    rtxcur: Dur,
    /// t_backoff_: 1, 2, 4, ...
    backoff: u64,
    /// Saved at the first expiry of a series for RFC 4015's re-seed.
    saved: Option<(i64, i64)>,
}

impl Ns2Rto {
    /// `rtt_init()`: no estimate, RTO `rtxcur_init_`, back-off 1.
    pub fn new(cfg: Ns2RtoConfig) -> Ns2Rto {
        Ns2Rto {
            rtxcur: cfg.initial_rto,
            cfg,
            srtt: 0,
            rttvar: 0,
            backoff: 1,
            saved: None,
        }
    }

    fn ticks(&self, n: i64) -> Dur {
        self.cfg.tick * n.max(0) as u64
    }

    /// `rtt_update(tao)` with timestamps: the sample in ticks, rounded, at least 1.
    fn sample_ticks(&self, rtt: Dur) -> i64 {
        let tick = self.cfg.tick.0.max(1);
        (((rtt.0 + tick / 2) / tick) as i64).max(1)
    }

    /// `rtt_update()`: folds a sample of `m` ticks in and recomputes t_rtxcur_.
    fn update(&mut self, m: i64) {
        if self.srtt != 0 {
            let mut delta = m - (self.srtt >> SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            delta = delta.abs() - (self.rttvar >> RTTVAR_BITS);
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = m << SRTT_BITS;
            self.rttvar = m << (RTTVAR_BITS - 1);
        }
        self.recompute();
    }

    /// t_rtxcur_ = (((t_rttvar_ << (rttvar_exp_ + 1)) + t_srtt_) >> 3) * tcpTick_.
    fn recompute(&mut self) {
        let shift = RTTVAR_EXP + (SRTT_BITS - RTTVAR_BITS);
        self.rtxcur = self.ticks(((self.rttvar << shift) + self.srtt) >> SRTT_BITS);
    }
}

impl RtoEstimator for Ns2Rto {
    fn on_syn_sample(&mut self, rtt: Dur) {
        // ns-2's SYN is packet 0, timed and acknowledged like any other.
        self.update(self.sample_ticks(rtt));
    }

    fn on_rtt_sample(&mut self, sample: &RttSample) {
        self.update(self.sample_ticks(sample.rtt));
        if self.cfg.reset_backoff_on_any_sample && sample.from_timestamps {
            self.backoff = 1;
        }
    }

    fn on_timed_segment_acked(&mut self) {
        // newack(): `if (rtt_active_ && tcph->seqno() >= rtt_seq_) t_backoff_ = 1`.
        self.backoff = 1;
    }

    fn on_timeout(&mut self) {
        if self.backoff == 1 {
            self.saved = Some((self.srtt, self.rttvar));
        }
        // rtt_backoff(): double (rfc2988_ and no effective maximum), then clobber the
        // smoothed RTT into the variation once backed off beyond 8.
        self.backoff = self.backoff.saturating_mul(2);
        if self.backoff > 8 {
            self.rttvar += self.srtt >> SRTT_BITS;
            self.srtt = 0;
        }
    }

    fn on_spurious_timeout_reseed(&mut self, rtt: Dur, rule: ReseedRule) {
        let m = self.sample_ticks(rtt);
        match (rule, self.saved.take()) {
            (ReseedRule::Rfc4015, Some((s, v))) if s != 0 => {
                // RFC 4015 3.1: SRTT <- max(SRTT_prev + 2G, R), RTTVAR <- max(RTTVAR_prev, R/2)
                // in ns-2's scaled ticks (G = one tick).
                self.srtt = (s + (2 << SRTT_BITS)).max(m << SRTT_BITS);
                self.rttvar = v.max(m << (RTTVAR_BITS - 1));
            }
            _ => {
                self.srtt = m << SRTT_BITS;
                self.rttvar = m << (RTTVAR_BITS - 1);
            }
        }
        self.recompute();
        self.backoff = 1;
    }

    fn max_rto(&self) -> Option<Dur> {
        self.cfg.max_rto
    }

    /// `rtt_timeout()` with `rfc2988_`: minrto_ clamps before the back-off multiplies;
    /// maxrto_ caps; at least 2 ticks.
    fn rto(&self) -> Dur {
        let base = self.rtxcur.max(self.cfg.min_rto);
        let t = Dur(base.0.saturating_mul(self.backoff));
        let t = self.cfg.max_rto.map_or(t, |m| t.min(m));
        t.max(self.cfg.tick * 2)
    }

    fn backoff_count(&self) -> u32 {
        self.backoff.trailing_zeros()
    }

    fn srtt(&self) -> Option<Dur> {
        (self.srtt != 0).then(|| Dur(self.cfg.tick.0 * self.srtt as u64 / 8))
    }
}

/// ns-2's timer counts in ticks (`tcpTick_`), so a tick must be positive and the RTOs
/// must be reachable in whole ticks.
impl Bounded for Ns2RtoConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let c = self;
        dur_in(
            &p.key("tick"),
            c.tick,
            Dur::from_micros(1),
            Dur::from_secs(10),
        )?;
        initial_rto(p, c.initial_rto)?;
        rto_range(p, ("min_rto", c.min_rto), ("max_rto", c.max_rto))
    }
}

impl Exports for Ns2RtoConfig {
    /// The agent's Tcl variables the fields are named after (`tcp.cc`).
    fn ns2(&self) -> Ns2Export {
        let secs = |d: Dur| format!("{}", d.as_secs_f64());
        Ns2Export::Settings(vec![
            ("tcpTick_", secs(self.tick)),
            ("minrto_", secs(self.min_rto)),
            ("maxrto_", self.max_rto.map_or("100000".into(), secs)),
            ("rtxcur_init_", secs(self.initial_rto)),
            ("ts_resetRTO_", self.reset_backoff_on_any_sample.to_string()),
        ])
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("a Linux host always runs its own estimator (`tcp_rtt_estimator()`)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Time;

    fn sample(ms: u64) -> RttSample {
        RttSample {
            now: Time::ZERO,
            rtt: Dur::from_millis(ms),
            flight_segments: 1,
            from_timestamps: true,
        }
    }

    #[test]
    fn first_sample_gives_three_times_the_rtt_in_whole_ticks() {
        let mut e = Ns2Rto::new(Ns2RtoConfig::default());
        assert_eq!(e.rto(), Dur::from_secs(6), "rtxcur_init_ before any sample");
        // 721.33 ms rounds to 72 ticks: srtt 576 (72 << 3), rttvar 144 (72 << 1);
        // rtxcur = ((144 << 3) + 576) >> 3 = 216 ticks.
        e.on_rtt_sample(&RttSample {
            rtt: Dur::from_micros(721_333),
            ..sample(0)
        });
        assert_eq!(e.rto(), Dur::from_millis(2160));
    }

    #[test]
    fn later_samples_use_the_shifted_integer_filters() {
        let mut e = Ns2Rto::new(Ns2RtoConfig::default());
        e.on_rtt_sample(&sample(1000)); // 100 ticks: srtt 800, rttvar 200
        e.on_rtt_sample(&sample(1200)); // 120: delta 20 -> srtt 820; |20| - 50 -> rttvar 170
                                        // rtxcur = ((170 << 3) + 820) >> 3 = 272 ticks.
        assert_eq!(e.rto(), Dur::from_millis(2720));
        assert_eq!(e.srtt(), Some(Dur::from_micros(1_025_000)));
    }

    #[test]
    fn minrto_clamps_before_the_backoff_multiplies() {
        let mut e = Ns2Rto::new(Ns2RtoConfig::default());
        e.on_rtt_sample(&sample(100)); // rtxcur 300 ms < 1 s
        assert_eq!(e.rto(), Dur::from_secs(1));
        e.on_timeout();
        assert_eq!((e.rto(), e.backoff_count()), (Dur::from_secs(2), 1));
    }

    #[test]
    fn timestamp_samples_do_not_clear_the_backoff_but_the_timed_segment_does() {
        let mut e = Ns2Rto::new(Ns2RtoConfig::default());
        e.on_rtt_sample(&sample(100));
        e.on_timeout();
        e.on_rtt_sample(&sample(100));
        assert_eq!(e.backoff_count(), 1, "newack() without ts_resetRTO_");
        e.on_timed_segment_acked();
        assert_eq!(e.backoff_count(), 0);
        let mut r = Ns2Rto::new(Ns2RtoConfig {
            reset_backoff_on_any_sample: true,
            ..Ns2RtoConfig::default()
        });
        r.on_timeout();
        r.on_rtt_sample(&sample(100));
        assert_eq!(r.backoff_count(), 0, "ts_resetRTO_");
    }

    #[test]
    fn a_fourth_backoff_clobbers_the_smoothed_rtt() {
        let mut e = Ns2Rto::new(Ns2RtoConfig::default());
        e.on_rtt_sample(&sample(1000)); // srtt 800, rttvar 200
        for _ in 0..4 {
            e.on_timeout();
        }
        // t_backoff_ 16 > 8: rttvar 200 + 100, srtt 0; the next sample re-initialises.
        assert_eq!(e.srtt(), None);
        e.on_rtt_sample(&sample(500));
        assert_eq!(e.srtt(), Some(Dur::from_millis(500)));
    }
}
