//! The Peak-Hopper RTO (PH-RTO) of Ekström and Ludwig, [Ekström & Ludwig 2004] section III.
//!
//! Per valid data sample RTT_sample, with RTT_previous the sample before it:
//!
//! 1. delta = (RTT_sample - RTT_previous) / RTT_previous
//! 2. D = 1 - 1/(F*S)
//! 3. B <- min(max(2*delta, D*B), B_max)
//! 4. RTT_max = max(RTT_sample, RTT_previous)
//! 5. RTO <- max(D*RTO, (1+B)*RTT_max, RTO_min), with RTO_min = RTT_max + 2*G (III.D)
//!
//! Initialisation (III.C): RTO = 3 s before the SYN; 3*RTT_SYN after the SYN-ACK; at the
//! first data sample RTO = (1 + B_INIT)*RTT_SEGMENT and B = B_INIT; Steps 1-5 from the
//! second data sample on. The real factors (delta, D, B) are f64; they meet integer time
//! only in `rto::scale`, which rounds once per product.
//!
//! Ambiguities in the paper and how they are resolved here:
//!
//! * **S** is "the number of RTT samples that are expected to be collected from the
//!   packets currently in flight": with timestamps the flight size, taken from
//!   [`RttSample::flight_segments`] (segments outstanding when the ACK arrived, before
//!   it was processed), clamped to at least 1 since the paper says S >= 1; without
//!   timestamps 1. Whether timestamps are in use is read per sample from
//!   [`RttSample::from_timestamps`], which also picks F (16 / 24) and B_max (0.5 / 1).
//! * **RTT_previous** is the previous *sample*, not a smoothed value. The handshake
//!   sample is not an RTT_previous: III.C re-initialises at the first data sample, so
//!   Step 1 first runs on the second data sample, against RTT_SEGMENT.
//! * **RTO_min** (III.D) uses "the maximum of the two last RTT measurements", i.e. Step 4's
//!   RTT_max. The paper writes the minimum only in Step 5; here it also bounds the two
//!   initial values (3*RTT_SYN and (1+B_INIT)*RTT_SEGMENT, with RTT_max the single
//!   sample known), since III.D motivates it as a heartbeat-timer requirement that holds
//!   for any RTO. It only matters when RTT < 8*G.
//! * **Back-off**: the paper keeps RFC 2988's timer management (section I), so each
//!   expiry doubles the timer, bounded by the maximum (60 s, RFC 2988 (2.5)), and the
//!   next valid sample clears the back-off. The doubling is applied on top of the PH-RTO,
//!   not folded into it: Step 5's D*RTO uses the un-backed-off value, as RFC 2988's
//!   recomputation from SRTT/RTTVAR "collapses" a backed-off RTO. The stored PH-RTO is
//!   itself capped at the maximum.
//! * **Spurious-timeout re-seed**: III.B says that after a spurious timeout "no active
//!   adaptation of the RTO is needed", the booster having risen with the delay spike.
//!   So [`RtoEstimator::on_spurious_timeout_reseed`] runs the delayed sample through
//!   Steps 1-5 like any sample, with the S and timestamp mode of the last sample.
//! * `delta` when RTT_previous is 0 (impossible on a real path): an increase counts as
//!   infinite (B = B_max), no change as 0.

use super::initial_rto;
use super::{backed_off, cap, dur_or_none, scale, ReseedRule, RtoEstimator, RttSample};
use crate::exports::{Exports, Kernel, Ns2Export};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{
    dur, dur_in, gain, int, real, Bounded, Check, FieldPath, MAX_DUR, MAX_THRESHOLD,
    MIN_RTO_CEILING,
};
use spikelab_core::Dur;

/// Parameters of the Peak-Hopper RTO. Every field may be omitted from a scenario file;
/// the default, from [Ekström & Ludwig 2004], is given on each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PeakHopperConfig {
    /// RTO when the SYN is sent. Default 3 s (III.C, "At time t_0, we set RTO = 3 seconds").
    pub initial_rto: Dur,
    /// RTO after the handshake is this multiple of RTT_SYN. Default 3 (III.C).
    pub syn_rto_factor: u64,
    /// Whether the handshake sample sets RTO = factor * RTT_SYN. Default true (III.C).
    pub use_syn_sample: bool,
    /// B_INIT, the booster at the first data sample. Default 0.25 (III.C).
    pub b_init: f64,
    /// Fader F when samples come from timestamps. Default 16 (III.B).
    pub fader_timestamps: f64,
    /// Fader F when one segment per flight is timed. Default 24 (III.B).
    pub fader_no_timestamps: f64,
    /// B_max with timestamps. Default 0.5 (III.B).
    pub b_max_timestamps: f64,
    /// B_max without timestamps. Default 1 (III.B).
    pub b_max_no_timestamps: f64,
    /// The factor of delta in Step 3, B <- min(max(2*delta, D*B), B_max). Default 2.
    pub delta_gain: f64,
    /// Timer granularity G in RTO_min = RTT_max + 2*G. Default 10 ms (IV.A).
    pub granularity: Dur,
    /// Ceiling of the RTO, backed-off or not, or `"none"`. Default 60 s (RFC 2988 (2.5),
    /// whose timer management the paper keeps; its section VI names the 60 s maximum).
    #[serde(with = "dur_or_none")]
    pub max_rto: Option<Dur>,
}

impl Default for PeakHopperConfig {
    fn default() -> Self {
        PeakHopperConfig {
            initial_rto: Dur::from_secs(3),
            syn_rto_factor: 3,
            use_syn_sample: true,
            b_init: 0.25,
            fader_timestamps: 16.0,
            fader_no_timestamps: 24.0,
            b_max_timestamps: 0.5,
            b_max_no_timestamps: 1.0,
            delta_gain: 2.0,
            granularity: Dur::from_millis(10),
            max_rto: Some(Dur::from_secs(60)),
        }
    }
}

/// The Peak-Hopper estimator (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct PeakHopper {
    cfg: PeakHopperConfig,
    /// The PH-RTO before back-off.
    rto: Dur,
    /// The booster B.
    booster: f64,
    /// RTT_previous; `None` until the first data sample.
    prev_rtt: Option<Dur>,
    /// S-related context of the last sample, reused by the spurious-timeout re-seed.
    last_flight: u32,
    last_from_timestamps: bool,
    backoff: u32,
}

impl PeakHopper {
    /// A fresh estimator for a new connection, before its SYN is sent.
    pub fn new(cfg: PeakHopperConfig) -> Self {
        PeakHopper {
            // III.C: at t_0, RTO = 3 seconds.
            rto: cap(cfg.initial_rto, cfg.max_rto),
            cfg,
            booster: 0.0,
            prev_rtt: None,
            last_flight: 1,
            last_from_timestamps: false,
            backoff: 0,
        }
    }

    /// The booster B, for traces and tests.
    pub fn booster(&self) -> f64 {
        self.booster
    }

    /// One data sample: the III.C re-initialisation for the first, Steps 1-5 after.
    fn on_data_sample(&mut self, rtt: Dur, flight: u32, from_timestamps: bool) {
        match self.prev_rtt {
            None => self.initialise(rtt),
            Some(prev) => self.step(rtt, prev, flight, from_timestamps),
        }
        self.prev_rtt = Some(rtt);
        self.last_flight = flight;
        self.last_from_timestamps = from_timestamps;
        // RFC 2988 section 5 (timer management the paper keeps): a new sample
        // recomputes the RTO, collapsing any back-off.
        self.backoff = 0;
    }

    /// The first data sample, RTT_SEGMENT.
    fn initialise(&mut self, rtt_segment: Dur) {
        // III.C: B_INIT is the initial value of the booster.
        self.booster = self.cfg.b_init;
        // III.C: RTO = (1 + B_INIT) * RTT_SEGMENT.
        self.rto = self.bounded(scale(rtt_segment, 1.0 + self.cfg.b_init), rtt_segment);
    }

    /// Steps 1-5 of III.B for a sample after the first.
    fn step(&mut self, rtt: Dur, prev: Dur, flight: u32, from_timestamps: bool) {
        // Step 1: delta = (RTT_sample - RTT_previous) / RTT_previous.
        let delta = normalised_change(rtt, prev);
        // Step 2: D = 1 - 1/(F*S).
        let d = self.decay(flight, from_timestamps);
        // Step 3: B <- min(max(2*delta, D*B), B_max).
        let b_max = self.b_max(from_timestamps);
        self.booster = (self.cfg.delta_gain * delta)
            .max(d * self.booster)
            .min(b_max);
        // Step 4: RTT_max = max(RTT_sample, RTT_previous).
        let rtt_max = rtt.max(prev);
        // Step 5: RTO <- max(D*RTO, (1+B)*RTT_max, RTO_min) (RTO_min in `bounded`).
        let long_term = scale(self.rto, d);
        let short_term = scale(rtt_max, 1.0 + self.booster);
        self.rto = self.bounded(long_term.max(short_term), rtt_max);
    }

    /// Step 2's D for a sample: S = flight size with timestamps, 1 without (III.B).
    fn decay(&self, flight: u32, from_timestamps: bool) -> f64 {
        let (fader, s) = if from_timestamps {
            (self.cfg.fader_timestamps, flight.max(1))
        } else {
            (self.cfg.fader_no_timestamps, 1)
        };
        1.0 - 1.0 / (fader * f64::from(s))
    }

    /// B_max: 0.5 with timestamps, 1 without (III.B).
    fn b_max(&self, from_timestamps: bool) -> f64 {
        if from_timestamps {
            self.cfg.b_max_timestamps
        } else {
            self.cfg.b_max_no_timestamps
        }
    }

    /// `rto` raised to RTO_min and capped at the maximum.
    fn bounded(&self, rto: Dur, rtt_max: Dur) -> Dur {
        // III.D: RTO_min = RTT_max + 2*G.
        let rto_min = rtt_max + self.cfg.granularity * 2;
        cap(rto.max(rto_min), self.cfg.max_rto)
    }
}

/// Step 1's delta as a real number (see the module docs for RTT_previous = 0).
fn normalised_change(rtt: Dur, prev: Dur) -> f64 {
    if prev == Dur::ZERO {
        return if rtt > prev { f64::INFINITY } else { 0.0 };
    }
    (rtt.0 as f64 - prev.0 as f64) / prev.0 as f64
}

impl RtoEstimator for PeakHopper {
    fn on_syn_sample(&mut self, rtt: Dur) {
        if self.cfg.use_syn_sample && self.prev_rtt.is_none() {
            // III.C: at t_1, RTO = 3 * RTT_SYN.
            self.rto = self.bounded(rtt * self.cfg.syn_rto_factor, rtt);
            self.backoff = 0;
        }
    }

    fn on_rtt_sample(&mut self, sample: &RttSample) {
        self.on_data_sample(sample.rtt, sample.flight_segments, sample.from_timestamps);
    }

    fn on_timeout(&mut self) {
        // RFC 2988 (5.5), kept by the paper: back off the timer.
        self.backoff = self.backoff.saturating_add(1);
    }

    fn on_spurious_timeout_reseed(&mut self, rtt: Dur, _rule: ReseedRule) {
        self.on_data_sample(rtt, self.last_flight, self.last_from_timestamps);
    }

    fn rto(&self) -> Dur {
        backed_off(self.rto, self.backoff, self.cfg.max_rto)
    }

    fn max_rto(&self) -> Option<Dur> {
        self.cfg.max_rto
    }

    fn backoff_count(&self) -> u32 {
        self.backoff
    }

    /// The PH-RTO keeps no smoothed RTT.
    fn srtt(&self) -> Option<Dur> {
        None
    }
}

impl Bounded for PeakHopperConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let c = self;
        initial_rto(p, c.initial_rto)?;
        int(
            &p.key("syn_rto_factor"),
            c.syn_rto_factor,
            1,
            MAX_THRESHOLD,
            "",
        )?;
        real(
            &p.key("b_init"),
            c.b_init,
            |x| x >= 0.0,
            "finite and at least 0",
        )?;
        // The decay 1 - 1/(F s) of Step 4 lies in [0, 1) only for F >= 1.
        let fader = |x: f64| x >= 1.0;
        real(
            &p.key("fader_timestamps"),
            c.fader_timestamps,
            fader,
            "at least 1",
        )?;
        real(
            &p.key("fader_no_timestamps"),
            c.fader_no_timestamps,
            fader,
            "at least 1",
        )?;
        gain(&p.key("b_max_timestamps"), c.b_max_timestamps)?;
        gain(&p.key("b_max_no_timestamps"), c.b_max_no_timestamps)?;
        gain(&p.key("delta_gain"), c.delta_gain)?;
        dur(&p.key("granularity"), c.granularity)?;
        if let Some(max) = c.max_rto {
            dur_in(&p.key("max_rto"), max, MIN_RTO_CEILING, MAX_DUR)?;
        }
        Ok(())
    }
}

impl Exports for PeakHopperConfig {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35 has no Peak-Hopper timer",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("a Linux host always runs its own estimator (`tcp_rtt_estimator()`)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Time;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }
    fn sample(rtt_ms: f64, flight: u32, ts: bool) -> RttSample {
        RttSample {
            now: Time::ZERO,
            rtt: Dur((rtt_ms * 1e6).round() as u64),
            flight_segments: flight,
            from_timestamps: ts,
        }
    }
    /// Equal to the hand-worked value within 1 us (each product is rounded to 1 ns).
    fn assert_ms(actual: Dur, want_ms: f64, what: &str) {
        let got = actual.as_millis_f64();
        assert!(
            (got - want_ms).abs() < 1e-3,
            "{what}: {got} ms, want {want_ms} ms"
        );
    }
    /// An estimator past III.C with RTT_SEGMENT = `first_ms`.
    fn started(first_ms: f64, ts: bool) -> PeakHopper {
        let mut e = PeakHopper::new(PeakHopperConfig::default());
        e.on_rtt_sample(&sample(first_ms, 1, ts));
        e
    }

    #[test]
    fn initialisation_goes_3s_then_3_rtt_syn_then_1_25_rtt_segment() {
        let mut e = PeakHopper::new(PeakHopperConfig::default());
        // III.C t_0: RTO = 3 s.
        assert_eq!(e.rto(), ms(3000));
        // t_1: RTT_SYN = 100 -> RTO = 3*100 = 300 (RTO_min 100+20 = 120).
        e.on_syn_sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        // t_2: RTT_SEGMENT = 200 -> RTO = 1.25*200 = 250 (RTO_min 220); B = B_INIT.
        e.on_rtt_sample(&sample(200.0, 1, false));
        assert_eq!(e.rto(), ms(250));
        assert_eq!(e.booster(), 0.25);
    }

    #[test]
    fn initial_values_respect_rto_min_for_tiny_rtts() {
        // RTT_SYN = 5 ms: 3*5 = 15 < 5+2*10 = 25 -> 25. RTT_SEGMENT = 8: 1.25*8 = 10
        // < 8+20 = 28 -> 28.
        let mut e = PeakHopper::new(PeakHopperConfig::default());
        e.on_syn_sample(ms(5));
        assert_eq!(e.rto(), ms(25));
        e.on_rtt_sample(&sample(8.0, 1, false));
        assert_eq!(e.rto(), ms(28));
    }

    #[test]
    fn steps_without_timestamps_by_hand() {
        // F = 24, S = 1: D = 23/24 = 0.958333; B_max = 1; G = 10 ms.
        // Start: RTT_SEGMENT = 200 -> RTO = 250, B = 0.25.
        let mut e = started(200.0, false);
        let d = 23.0 / 24.0;
        let table = [
            // R=200: delta=0; B=max(0, D*0.25)=0.2395833; RTT_max=200;
            //   RTO=max(D*250=239.5833, 1.2395833*200=247.9167, 220)=247.9167.
            (200.0, d * 0.25, (1.0 + d * 0.25) * 200.0),
            // R=300: delta=0.5; B=max(1.0, D*0.2396=0.2296)=1.0 (= B_max);
            //   RTT_max=300; RTO=max(D*247.92=237.59, 2*300=600, 320)=600.
            (300.0, 1.0, 600.0),
            // R=900: delta=2 -> 2*delta=4, bounded by B_max=1; RTT_max=900;
            //   RTO=max(D*600=575, 2*900=1800, 920)=1800: the RTO hops at once.
            (900.0, 1.0, 1800.0),
            // R=300: delta=-2/3 -> B=D*1=0.958333; RTT_max=max(300, 900)=900 (the last
            //   two samples); RTO=max(D*1800=1725, 1.958333*900=1762.5, 920)=1762.5.
            (300.0, d, 1762.5),
            // R=300: delta=0 -> B=D^2=0.918403; RTT_max=300;
            //   RTO=max(D*1762.5=1689.0625, 1.918403*300=575.52, 320)=1689.0625.
            (300.0, d * d, 1689.0625),
        ];
        for (i, (r, b, rto)) in table.into_iter().enumerate() {
            e.on_rtt_sample(&sample(r, 1, false));
            assert!((e.booster() - b).abs() < 1e-12, "B after row {i}");
            assert_ms(e.rto(), rto, &format!("RTO after row {i}"));
        }
    }

    #[test]
    fn steps_with_timestamps_scale_the_decay_with_flight_size() {
        // F = 16, B_max = 0.5. RTT_SEGMENT = 100 -> RTO = 125, B = 0.25.
        let mut e = started(100.0, true);
        // R=100, S=4: D = 1 - 1/64 = 0.984375; B = 0.984375*0.25 = 0.24609375;
        //   RTO = max(D*125=123.046875, 1.24609375*100=124.609375, 120) = 124.609375.
        e.on_rtt_sample(&sample(100.0, 4, true));
        assert_ms(e.rto(), 124.609375, "stable");
        // R=300, S=4: delta=2 -> 4, bounded by B_max=0.5; RTO = 1.5*300 = 450.
        e.on_rtt_sample(&sample(300.0, 4, true));
        assert_eq!(e.booster(), 0.5);
        assert_ms(e.rto(), 450.0, "spike");
        // R=300, S=4: B = D*0.5 = 0.4921875; RTO = max(D*450=442.96875,
        //   1.4921875*300=447.65625, 320) = 447.65625.
        e.on_rtt_sample(&sample(300.0, 4, true));
        assert_ms(e.rto(), 447.65625, "S=4");
        // R=300, S=1: D = 1 - 1/16 = 0.9375 decays faster: B = 0.9375*0.4921875
        //   = 0.46142578125; RTO = max(0.9375*447.65625=419.677734375,
        //   1.46142578125*300=438.427734375, 320) = 438.427734375.
        e.on_rtt_sample(&sample(300.0, 1, true));
        assert_ms(e.rto(), 438.427734375, "S=1");
    }

    #[test]
    fn zero_flight_counts_as_one_segment() {
        let mut a = started(100.0, true);
        let mut b = a.clone();
        a.on_rtt_sample(&sample(150.0, 0, true));
        b.on_rtt_sample(&sample(150.0, 1, true));
        assert_eq!(a.rto(), b.rto());
    }

    #[test]
    fn rto_min_is_rtt_max_of_the_last_two_samples_plus_2g() {
        // Steady 40 ms: B decays to ~0 and D*RTO decays down to RTO_min = 40+20 = 60.
        let mut e = started(40.0, false);
        for _ in 0..600 {
            e.on_rtt_sample(&sample(40.0, 1, false));
        }
        assert_eq!(e.rto(), ms(60));
        // R=5: RTT_max = max(5, 40) = 40 -> RTO_min = 60 still beats D*60 = 57.5.
        e.on_rtt_sample(&sample(5.0, 1, false));
        assert_eq!(e.rto(), ms(60));
        // R=5: RTT_max = 5, RTO_min = 25; RTO = D*60 = 57.5.
        e.on_rtt_sample(&sample(5.0, 1, false));
        assert_ms(e.rto(), 57.5, "decay below the old floor");
    }

    /// Samples from the RTO's peak after a one-sample spike until it is at most half
    /// of that peak, with `s` segments in flight.
    fn half_life_in_samples(ts: bool, s: u32) -> usize {
        let mut e = started(100.0, ts);
        for _ in 0..2000 {
            e.on_rtt_sample(&sample(100.0, s, ts));
        }
        e.on_rtt_sample(&sample(2000.0, s, ts));
        let peak = e.rto();
        let mut n = 0;
        while e.rto() > Dur(peak.0 / 2) {
            e.on_rtt_sample(&sample(100.0, s, ts));
            n += 1;
        }
        n
    }

    #[test]
    fn spike_hops_at_once_then_decays_with_half_life_of_about_f_s_ln2_samples() {
        // III.A/B: the RTO jumps to (1+B_max)*RTT on the spike's own sample...
        let mut e = started(100.0, false);
        e.on_rtt_sample(&sample(100.0, 1, false));
        e.on_rtt_sample(&sample(2000.0, 1, false));
        assert_eq!(e.rto(), ms(4000));
        // ...then decays by D = 1 - 1/(F*S) per sample: half-life ln 2 / -ln D, about
        // F*S*ln 2 samples (plus one for the RTT_max of the spike's successor).
        for (ts, s, fs) in [(false, 1, 24.0), (true, 1, 16.0), (true, 10, 160.0)] {
            let n = half_life_in_samples(ts, s) as f64;
            let want = fs * std::f64::consts::LN_2;
            assert!(
                (n - want).abs() <= 2.0,
                "F*S={fs}: {n} samples, want ~{want}"
            );
        }
    }

    #[test]
    fn with_timestamps_the_half_life_in_rtts_is_nearly_independent_of_flight_size() {
        // S samples arrive per RTT, so the decay per RTT is D^S = (1 - 1/(F*S))^S,
        // about e^(-1/F) whatever S (III.B's scaling with the flight size).
        let per_rtt = |s: u32| half_life_in_samples(true, s) as f64 / f64::from(s);
        let (small, large) = (per_rtt(4), per_rtt(20));
        assert!((small - large).abs() <= 1.0, "{small} vs {large} RTTs");
    }

    #[test]
    fn a_higher_fader_decays_more_slowly_as_in_figure_5() {
        // III.B, Figure 5: F = 64 decays "considerably slower" than F = 8. After the
        // same spike and 20 ordinary samples, D^20 is 0.73 for F=64 and 0.07 for F=8.
        let after = |fader: f64| {
            let cfg = PeakHopperConfig {
                fader_no_timestamps: fader,
                ..PeakHopperConfig::default()
            };
            let mut e = PeakHopper::new(cfg);
            e.on_rtt_sample(&sample(100.0, 1, false));
            e.on_rtt_sample(&sample(1000.0, 1, false));
            for _ in 0..20 {
                e.on_rtt_sample(&sample(100.0, 1, false));
            }
            e.rto().as_millis_f64()
        };
        let (slow, fast) = (after(64.0), after(8.0));
        assert!(
            slow > 1400.0 && fast < 200.0,
            "F=64: {slow} ms, F=8: {fast} ms"
        );
    }

    #[test]
    fn backoff_doubles_the_ph_rto_up_to_60s_and_a_sample_collapses_it() {
        let mut e = PeakHopper::new(PeakHopperConfig::default());
        let want = [3, 6, 12, 24, 48, 60, 60];
        for secs in want {
            assert_eq!(e.rto(), Dur::from_secs(secs));
            e.on_timeout();
        }
        // First data sample 200 ms: RTO = 250, back-off cleared.
        e.on_rtt_sample(&sample(200.0, 1, false));
        assert_eq!((e.rto(), e.backoff_count()), (ms(250), 0));
    }

    #[test]
    fn reseed_runs_the_delayed_sample_through_the_steps() {
        // III.B: no active adaptation; the delayed sample raises B like any spike.
        // RTT_SEGMENT=200 (RTO 250); timeout (500); delayed R=1000 without
        // timestamps: delta=4 -> B=1, RTO = 2*1000 = 2000, back-off cleared.
        let mut e = started(200.0, false);
        e.on_timeout();
        e.on_spurious_timeout_reseed(ms(1000), ReseedRule::Rfc4015);
        assert_eq!((e.rto(), e.backoff_count()), (ms(2000), 0));
        assert_eq!(e.srtt(), None);
    }
}
