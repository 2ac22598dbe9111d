//! The retransmission-timer metrics of [Ekström & Ludwig 2004] section IV.C, and the two
//! metrics its section V.D adds for delay spikes, as pure functions over
//! [`RunResult`]s.
//!
//! * **Accuracy** (IV.C.1): B_norm = #spurious timeouts / #data segments, in percent.
//! * **Promptness** (IV.C.2): W = mean of W_i = RTO_i / RTT_i over the *necessary*
//!   (not spurious) timeouts, RTO_i the value the timer was last started with, RTT_i the
//!   last RTT sample before the timeout ([`TimeoutRecord::rto`], [`TimeoutRecord::last_rtt`]).
//! * **Predictability** (IV.C.3): W_95, the value 95 % of the W_i are below (the 95th
//!   percentile, [`spikelab_output::stats::percentile`]).
//! * **Proximity** (IV.C.4): P = mean of P_j = RTO_j / RTT_j over every RTO computation
//!   ([`FlowResult::rto_samples`]), and its distribution (Fig. 16) as a [`PHistogram`].
//! * **Fast timeouts** (V.B.1, VI): timeouts after which the duplicate ACK that would have
//!   triggered fast retransmit arrived, counted apart.
//! * **Outages that caused a spurious timeout** (V.D, Fig. 17): [`outage_hits`].
//! * **RTO half-life** (V.D, Fig. 18): [`rto_half_life`].
//!
//! Which timeouts are spurious, two ways. IV.C.2: "We call a timeout \"necessary\" if it
//! is not spurious according to the definition of a spurious timeout provided in
//! \[RFC3522\]": the paper's simulator asked the Eifel detector. We count both: by the
//! ground truth ([`TimeoutRecord::truth`]: was a copy of the segment or of its ACK still
//! in the network?) and by the verdict of the RFC 3522 detector run as an observer
//! (`spurious.observe = ["eifel"]` in the scenario files; it needs timestamps, so runs
//! without them have no RFC 3522 count). The two differ where the first ACK after the
//! retransmission echoes an older timestamp although the segment was lost, e.g. when
//! that ACK was sent for a later segment before the retransmission arrived.
//!
//! Which timeouts count (IV.C): "we only consider timeouts that initiate an error
//! recovery phase, i.e., we neither consider multiple timeouts for the same segment nor
//! timeouts that occur during fast recovery" ([`starts_recovery`]). Timeouts of the SYN
//! are excluded as the paper says (IV.C.2); the engine never records them as
//! [`TimeoutRecord`]s. #DataSegments counts every data segment the flows sent, first
//! transmissions and retransmissions ("injected into the network by all senders").

use spikelab_core::trace::{TraceEvent, TraceRecord};
use spikelab_core::{Dur, Time};
use spikelab_engine::results::RtoSample;
use spikelab_engine::{FlowResult, RunResult, TimeoutRecord};
use spikelab_net::spike::OutageConfig;
use spikelab_output::stats::percentile;
use spikelab_tcp::spurious::{DetectorKind, Verdict};

/// IV.C: does this timeout start a recovery phase (first timeout of its segment, not in
/// fast recovery)?
pub fn starts_recovery(rec: &TimeoutRecord) -> bool {
    rec.backoff == 0 && !rec.in_fast_recovery
}

/// W_i = RTO_i / RTT_i of one timeout (IV.C.2); `None` without an RTT sample.
pub fn w_i(rec: &TimeoutRecord) -> Option<f64> {
    ratio(rec.rto, rec.last_rtt?)
}

/// P_j = RTO_j / RTT_j of one RTO computation (IV.C.4).
pub fn p_j(s: &RtoSample) -> Option<f64> {
    ratio(s.rto, s.rtt)
}

/// RTO / RTT from the integer nanoseconds, rounded once.
fn ratio(rto: Dur, rtt: Dur) -> Option<f64> {
    (rtt > Dur::ZERO).then(|| rto.0 as f64 / rtt.0 as f64)
}

/// The distribution of P values in bins of [`PHistogram::WIDTH`] from 0, exact in count
/// and sum (so the mean is exact) and mergeable over runs, so that millions of P_j
/// (Scenario B: one per ACK for 400 s, 100 runs per cell) take constant memory.
#[derive(Clone, Debug, PartialEq)]
pub struct PHistogram {
    /// Values in `[i W, (i + 1) W)`; the last bin also holds everything larger.
    pub counts: Vec<u64>,
    /// Number of values.
    pub n: u64,
    /// Sum of the values.
    pub sum: f64,
}

impl Default for PHistogram {
    fn default() -> Self {
        PHistogram {
            counts: vec![0; Self::BINS],
            n: 0,
            sum: 0.0,
        }
    }
}

impl PHistogram {
    /// Bin width.
    pub const WIDTH: f64 = 0.01;
    /// Number of bins: values up to 30 are resolved to [`PHistogram::WIDTH`].
    pub const BINS: usize = 3000;

    /// Adds one value.
    pub fn add(&mut self, p: f64) {
        let bin = ((p / Self::WIDTH).floor().max(0.0) as usize).min(Self::BINS - 1);
        self.counts[bin] += 1;
        self.n += 1;
        self.sum += p;
    }

    /// Adds every value of `o`.
    pub fn merge(&mut self, o: &PHistogram) {
        for (c, oc) in self.counts.iter_mut().zip(&o.counts) {
            *c += oc;
        }
        self.n += o.n;
        self.sum += o.sum;
    }

    /// The exact mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        self.sum / self.n as f64
    }

    /// The `q`-th percentile (0..=100) to within one bin: the upper edge of the first
    /// bin at which the cumulative share reaches `q` % (NaN when empty).
    pub fn percentile(&self, q: f64) -> f64 {
        let target = (q / 100.0).clamp(0.0, 1.0) * self.n as f64;
        let mut acc = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            acc += c;
            if c > 0 && acc as f64 >= target {
                return (i + 1) as f64 * Self::WIDTH;
            }
        }
        f64::NAN
    }

    /// The empirical CDF at the upper edge of every bin up to `max_p`: (x, F(x)).
    pub fn cdf(&self, max_p: f64) -> Vec<(f64, f64)> {
        let last = ((max_p / Self::WIDTH).ceil() as usize).min(Self::BINS);
        let mut acc = 0u64;
        self.counts[..last]
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                acc += c;
                (
                    (i + 1) as f64 * Self::WIDTH,
                    acc as f64 / self.n.max(1) as f64,
                )
            })
            .collect()
    }
}

/// The IV.C metrics of a set of flows (one flow, or every flow of a group in a run, or
/// several runs merged).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimerMetrics {
    /// Flows covered.
    pub flows: u64,
    /// Data segments sent, retransmissions included (#DataSegments).
    pub data_segments: u64,
    /// Timeouts that start a recovery phase ([`starts_recovery`]).
    pub timeouts: u64,
    /// Of those, spurious by the ground truth (#SpuriousTimeouts).
    pub spurious: u64,
    /// Of those, fast timeouts.
    pub fast: u64,
    /// Spurious timeouts that were also fast timeouts.
    pub fast_spurious: u64,
    /// Timeouts (starting a recovery phase) on which the RFC 3522 detector decided.
    pub rfc3522_decided: u64,
    /// Of those, spurious by the RFC 3522 detector (the paper's #SpuriousTimeouts).
    pub rfc3522_spurious: u64,
    /// RFC 3522-spurious timeouts that were also fast timeouts.
    pub rfc3522_fast_spurious: u64,
    /// Fast timeouts the RFC 3522 detector called genuine: the ones a detector deciding
    /// on the first ACK after the retransmission, duplicates included, would call
    /// spurious (that ACK is the late duplicate, echoing an older timestamp).
    pub rfc3522_fast_genuine: u64,
    /// W_i of every timeout the RFC 3522 detector called genuine (the paper's
    /// "necessary" timeouts), in order.
    pub rfc3522_w: Vec<f64>,
    /// Every timeout, whether or not it starts a recovery phase.
    pub all_timeouts: u64,
    /// W_i of every necessary timeout that starts a recovery phase, in order.
    pub w: Vec<f64>,
    /// The P_j of every RTO computation.
    pub p: PHistogram,
}

impl TimerMetrics {
    /// The metrics of flow `f` of `run`.
    pub fn of_flow(run: &RunResult, f: usize) -> TimerMetrics {
        Self::of_flows(run, |i| i == f)
    }

    /// The metrics of the flows of `run` that `keep` selects (by index).
    pub fn of_flows(run: &RunResult, keep: impl Fn(usize) -> bool) -> TimerMetrics {
        let mut m = TimerMetrics::default();
        for (_, f) in run.flows.iter().enumerate().filter(|(i, _)| keep(*i)) {
            m.add_flow(f);
        }
        for rec in run.timeouts.iter().filter(|r| keep(r.flow as usize)) {
            m.add_timeout(rec);
        }
        m
    }

    fn add_flow(&mut self, f: &FlowResult) {
        self.flows += 1;
        self.data_segments += f.data_segments_sent;
        for p in f.rto_samples.iter().filter_map(p_j) {
            self.p.add(p);
        }
    }

    fn add_timeout(&mut self, rec: &TimeoutRecord) {
        self.all_timeouts += 1;
        if !starts_recovery(rec) {
            return;
        }
        self.timeouts += 1;
        self.fast += rec.fast as u64;
        if rec.truth.is_spurious() {
            self.spurious += 1;
            self.fast_spurious += rec.fast as u64;
        } else if let Some(w) = w_i(rec) {
            self.w.push(w);
        }
        match rfc3522_verdict(rec) {
            Some(Verdict::Spurious) => {
                self.rfc3522_decided += 1;
                self.rfc3522_spurious += 1;
                self.rfc3522_fast_spurious += rec.fast as u64;
            }
            Some(Verdict::Genuine) => {
                self.rfc3522_decided += 1;
                self.rfc3522_fast_genuine += rec.fast as u64;
                self.rfc3522_w.extend(w_i(rec));
            }
            None => {}
        }
    }

    /// Adds everything `o` covers (e.g. another run).
    pub fn merge(&mut self, o: &TimerMetrics) {
        self.flows += o.flows;
        self.data_segments += o.data_segments;
        self.timeouts += o.timeouts;
        self.spurious += o.spurious;
        self.fast += o.fast;
        self.fast_spurious += o.fast_spurious;
        self.rfc3522_decided += o.rfc3522_decided;
        self.rfc3522_spurious += o.rfc3522_spurious;
        self.rfc3522_fast_spurious += o.rfc3522_fast_spurious;
        self.rfc3522_fast_genuine += o.rfc3522_fast_genuine;
        self.rfc3522_w.extend_from_slice(&o.rfc3522_w);
        self.all_timeouts += o.all_timeouts;
        self.w.extend_from_slice(&o.w);
        self.p.merge(&o.p);
    }

    /// B_norm in percent (IV.C.1); NaN without data segments.
    pub fn b_norm_percent(&self) -> f64 {
        if self.data_segments == 0 {
            return f64::NAN;
        }
        100.0 * self.spurious as f64 / self.data_segments as f64
    }

    /// Necessary timeouts that start a recovery phase (M of IV.C.2).
    pub fn necessary(&self) -> u64 {
        self.timeouts - self.spurious
    }

    /// W (IV.C.2); NaN without necessary timeouts.
    pub fn w_mean(&self) -> f64 {
        spikelab_output::stats::mean(&self.w)
    }

    /// W_95 (IV.C.3); NaN without necessary timeouts.
    pub fn w95(&self) -> f64 {
        percentile(&self.w, 95.0)
    }

    /// P (IV.C.4); NaN without RTO computations.
    pub fn p_mean(&self) -> f64 {
        self.p.mean()
    }

    /// Share of the spurious timeouts that were fast timeouts, in percent (V.B.1).
    pub fn fast_share_of_spurious_percent(&self) -> f64 {
        share(self.fast_spurious, self.spurious)
    }

    /// B_norm in percent with the RFC 3522 detector's count (the paper's reading);
    /// NaN when the detector decided on no timeout (timestamps off) or no data.
    pub fn b_norm_rfc3522_percent(&self) -> f64 {
        if self.rfc3522_decided == 0 && self.timeouts > 0 {
            return f64::NAN;
        }
        share(self.rfc3522_spurious, self.data_segments)
    }

    /// W_95 over the timeouts the RFC 3522 detector called genuine.
    pub fn w95_rfc3522(&self) -> f64 {
        percentile(&self.rfc3522_w, 95.0)
    }

    /// Share of the RFC 3522-spurious timeouts that were fast timeouts, in percent.
    pub fn fast_share_of_spurious_rfc3522_percent(&self) -> f64 {
        share(self.rfc3522_fast_spurious, self.rfc3522_spurious)
    }

    /// The same share if the detector decided on the first ACK after the
    /// retransmission, duplicates included (RFC 3522 waits for an "acceptable" ACK, one
    /// that acknowledges new data): every fast timeout then counts as spurious.
    pub fn fast_share_of_spurious_first_ack_percent(&self) -> f64 {
        let fast = self.rfc3522_fast_spurious + self.rfc3522_fast_genuine;
        share(fast, self.rfc3522_spurious + self.rfc3522_fast_genuine)
    }

    /// Share of all timeouts (starting a recovery phase) that were fast timeouts, in
    /// percent (VI: "more than 90 percent of all timeouts were fast timeouts").
    pub fn fast_share_of_timeouts_percent(&self) -> f64 {
        share(self.fast, self.timeouts)
    }
}

/// 100 a / b; NaN when b is 0.
fn share(a: u64, b: u64) -> f64 {
    if b == 0 {
        return f64::NAN;
    }
    100.0 * a as f64 / b as f64
}

/// The RFC 3522 (Eifel) detector's verdict on this timeout's episode, if it ran and
/// decided.
pub fn rfc3522_verdict(rec: &TimeoutRecord) -> Option<Verdict> {
    rec.verdicts
        .iter()
        .find(|v| v.detector == DetectorKind::Eifel)
        .map(|v| v.verdict)
}

/// One outage of a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    pub start: Time,
    pub end: Time,
}

/// The outages of `link` recorded in a trace: each [`TraceEvent::Spike`] start paired
/// with the next end on the same link. An outage still open at the end is left out.
pub fn outages_from_trace(trace: &[TraceRecord], link: u32) -> Vec<Outage> {
    let mut out = Vec::new();
    let mut open = None;
    for r in trace {
        match r.event {
            TraceEvent::Spike {
                start: true,
                link: l,
            } if l == link => open = Some(r.time),
            TraceEvent::Spike {
                start: false,
                link: l,
            } if l == link => {
                if let Some(start) = open.take() {
                    out.push(Outage { start, end: r.time });
                }
            }
            _ => {}
        }
    }
    out
}

/// The outages an [`OutageConfig`] schedules that end by `until`: its explicit `at`
/// list, or every `period` from `first` (default one period in), each `duration` long
/// (capped at the period, as [`spikelab_net::spike`] does).
pub fn outages_from_schedule(cfg: &OutageConfig, until: Time) -> Vec<Outage> {
    let listed = cfg.at.iter().map(|s| Outage {
        start: Time::ZERO + s.start,
        end: Time::ZERO + s.start + s.duration,
    });
    if !cfg.at.is_empty() {
        return listed.filter(|o| o.end <= until).collect();
    }
    let (Some(period), Some(d)) = (cfg.period, cfg.duration) else {
        return Vec::new();
    };
    if period == Dur::ZERO {
        return Vec::new();
    }
    let first = Time::ZERO + cfg.first.unwrap_or(period);
    (0..)
        .map(|k| first + period * k)
        .map(|start| Outage {
            start,
            end: start + d.min(period),
        })
        .take_while(|o| o.end <= until)
        .collect()
}

/// How many of `outages` caused a spurious timeout (V.D, Fig. 17): outage k counts if
/// a spurious timeout that starts a recovery phase fires between its start and the
/// next outage's start (or `run_end` for the last). With outages 50 s apart and no other
/// source of spurious timeouts in Scenario C, nothing else can be blamed. Returns
/// (outages that caused one, outages).
pub fn outage_hits(outages: &[Outage], timeouts: &[TimeoutRecord], run_end: Time) -> (u64, u64) {
    let hits = outages
        .iter()
        .enumerate()
        .filter(|(k, o)| {
            let until = outages.get(k + 1).map_or(run_end, |n| n.start);
            timeouts.iter().any(|r| {
                starts_recovery(r) && r.truth.is_spurious() && r.time >= o.start && r.time < until
            })
        })
        .count();
    (hits as u64, outages.len() as u64)
}

/// The RTO's decay after a spike (V.D, Fig. 18).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfLife {
    /// When the RTO reached its maximum after the spike.
    pub peak_at: Time,
    /// That maximum.
    pub peak: Dur,
    /// Time from the peak until the RTO was first at or below half of it; `None` if it
    /// never got there before `until`.
    pub half_life: Option<Dur>,
}

/// The half-life of the RTO after a spike starting at `from`: "the time it takes for
/// the RTO to decay from its maximum value ensuing from the \[...\] delay-spike to half of
/// that maximum" (V.D). The maximum is over the RTO computations in `[from, until)`
/// (the first of equal maxima); the RTO only changes at computations, so the half-life
/// ends at the first later computation whose RTO is at most half the peak. `None`
/// without a computation in the window.
pub fn rto_half_life(samples: &[RtoSample], from: Time, until: Time) -> Option<HalfLife> {
    let window: Vec<&RtoSample> = samples
        .iter()
        .filter(|s| s.time >= from && s.time < until)
        .collect();
    let peak = window
        .iter()
        .copied()
        .reduce(|best, s| if s.rto > best.rto { s } else { best })?;
    let half = Dur(peak.rto.0 / 2);
    let half_life = window
        .iter()
        .find(|s| s.time > peak.time && s.rto <= half)
        .map(|s| s.time - peak.time);
    Some(HalfLife {
        peak_at: peak.time,
        peak: peak.rto,
        half_life,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_engine::Truth;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }

    fn at(s: f64) -> Time {
        Time::from_secs_f64(s)
    }

    fn timeout(flow: u32, t: f64, rto: u64, rtt: u64, truth: Truth) -> TimeoutRecord {
        TimeoutRecord {
            time: at(t),
            flow,
            seq: 0,
            rto: ms(rto),
            last_rtt: Some(ms(rtt)),
            backoff: 0,
            truth,
            in_fast_recovery: false,
            fast: false,
            verdicts: Vec::new(),
        }
    }

    fn eifel(v: Verdict) -> spikelab_engine::results::DetectorVerdict {
        spikelab_engine::results::DetectorVerdict {
            detector: DetectorKind::Eifel,
            verdict: v,
            at: at(0.0),
            drove: false,
        }
    }

    #[test]
    fn spurious_timeouts_are_counted_by_ground_truth_and_by_the_rfc3522_detector_apart() {
        let mut m = TimerMetrics {
            data_segments: 100,
            ..TimerMetrics::default()
        };
        // A lost segment Eifel calls spurious (a fast timeout), one both call genuine,
        // one both call spurious, and one without timestamps (no verdict).
        let mut lost_but_eifel_spurious = timeout(0, 1.0, 300, 100, Truth::GenuineDataLost);
        lost_but_eifel_spurious.fast = true;
        lost_but_eifel_spurious.verdicts = vec![eifel(Verdict::Spurious)];
        let mut genuine = timeout(0, 2.0, 200, 100, Truth::GenuineDataLost);
        genuine.verdicts = vec![eifel(Verdict::Genuine)];
        let mut spurious = timeout(0, 3.0, 250, 100, Truth::SpuriousDataDelayed);
        spurious.verdicts = vec![eifel(Verdict::Spurious)];
        for r in [&lost_but_eifel_spurious, &genuine, &spurious] {
            m.add_timeout(r);
        }
        assert_eq!((m.spurious, m.fast_spurious), (1, 0));
        assert_eq!((m.rfc3522_spurious, m.rfc3522_fast_spurious), (2, 1));
        assert_eq!(m.b_norm_percent(), 1.0);
        assert_eq!(m.b_norm_rfc3522_percent(), 2.0);
        assert_eq!(m.fast_share_of_spurious_rfc3522_percent(), 50.0);
        assert_eq!(m.fast_share_of_timeouts_percent(), 100.0 / 3.0);
        // W over necessary timeouts: truth has two (3.0, 2.0), RFC 3522 one (2.0).
        assert_eq!(m.w, vec![3.0, 2.0]);
        assert_eq!(m.rfc3522_w, vec![2.0]);
        // A genuine fast timeout: a first-ACK detector would call it spurious too.
        let mut fast_genuine = timeout(0, 4.0, 200, 100, Truth::GenuineDataLost);
        fast_genuine.fast = true;
        fast_genuine.verdicts = vec![eifel(Verdict::Genuine)];
        m.add_timeout(&fast_genuine);
        assert_eq!(m.rfc3522_fast_genuine, 1);
        assert_eq!(m.fast_share_of_spurious_first_ack_percent(), 200.0 / 3.0);
        let mut no_ts = TimerMetrics::default();
        no_ts.add_timeout(&timeout(0, 1.0, 300, 100, Truth::SpuriousDataDelayed));
        assert!(no_ts.b_norm_rfc3522_percent().is_nan());
    }

    fn sample(t: f64, rtt: u64, rto: u64) -> RtoSample {
        RtoSample {
            time: at(t),
            rtt: ms(rtt),
            rto: ms(rto),
        }
    }

    fn flow(segments: u64, samples: Vec<RtoSample>) -> FlowResult {
        FlowResult {
            data_segments_sent: segments,
            rto_samples: samples,
            ..FlowResult::default()
        }
    }

    /// Two flows; flow 0 has four counted timeouts and two that do not count.
    fn run() -> RunResult {
        use Truth::*;
        let mut backed_off = timeout(0, 5.0, 800, 100, GenuineDataLost);
        backed_off.backoff = 1;
        let mut in_recovery = timeout(0, 6.0, 300, 100, SpuriousDataDelayed);
        in_recovery.in_fast_recovery = true;
        let mut fast = timeout(0, 7.0, 250, 200, SpuriousAckDelayed);
        fast.fast = true;
        RunResult {
            flows: vec![
                flow(
                    200,
                    vec![
                        sample(1.0, 100, 125),
                        sample(2.0, 100, 300),
                        sample(3.0, 200, 300),
                    ],
                ),
                flow(100, vec![sample(1.0, 50, 100)]),
            ],
            timeouts: vec![
                timeout(0, 1.0, 300, 100, GenuineDataLost), // W = 3
                timeout(0, 2.0, 150, 100, GenuineAckLost),  // W = 1.5
                timeout(0, 3.0, 500, 100, SpuriousDataDelayed),
                backed_off,
                in_recovery,
                fast,
                timeout(1, 4.0, 120, 60, GenuineDataLost), // W = 2
            ],
            ..RunResult::default()
        }
    }

    #[test]
    fn only_first_timeouts_outside_fast_recovery_count() {
        let m = TimerMetrics::of_flow(&run(), 0);
        assert_eq!((m.all_timeouts, m.timeouts, m.spurious), (6, 4, 2));
        assert_eq!((m.fast, m.fast_spurious, m.necessary()), (1, 1, 2));
        // B_norm = 2 spurious / 200 segments = 1 %.
        assert!((m.b_norm_percent() - 1.0).abs() < 1e-12);
        assert_eq!(m.fast_share_of_spurious_percent(), 50.0);
    }

    #[test]
    fn w_averages_necessary_timeouts_and_w95_interpolates() {
        let m = TimerMetrics::of_flow(&run(), 0);
        assert_eq!(m.w, vec![3.0, 1.5]);
        assert_eq!(m.w_mean(), 2.25);
        // Type-7 percentile of {1.5, 3}: 1.5 + 0.95 * 1.5 = 2.925.
        assert!((m.w95() - 2.925).abs() < 1e-12);
    }

    #[test]
    fn p_averages_every_rto_computation() {
        let m = TimerMetrics::of_flow(&run(), 0);
        // P_j = 1.25, 3, 1.5: mean 1.9166...
        assert_eq!(m.p.n, 3);
        assert!((m.p_mean() - 5.75 / 3.0).abs() < 1e-12);
        assert!((m.p.percentile(50.0) - 1.51).abs() < 1e-9);
        assert!((m.p.percentile(100.0) - 3.01).abs() < 1e-9);
        let cdf = m.p.cdf(2.0);
        assert_eq!(cdf.len(), 200);
        assert!((cdf[124].1 - 0.0).abs() < 1e-12, "1.25 falls in bin 125");
        assert!((cdf[125].1 - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_run_merges_its_flows_and_runs_merge() {
        let r = run();
        let all = TimerMetrics::of_flows(&r, |_| true);
        assert_eq!((all.flows, all.data_segments, all.timeouts), (2, 300, 5));
        assert_eq!(all.w, vec![3.0, 1.5, 2.0]);
        assert!((all.b_norm_percent() - 200.0 / 300.0).abs() < 1e-12);
        let mut merged = TimerMetrics::of_flow(&r, 0);
        merged.merge(&TimerMetrics::of_flow(&r, 1));
        assert_eq!(merged, all);
        let empty = TimerMetrics::default();
        assert!(empty.b_norm_percent().is_nan() && empty.w_mean().is_nan());
        assert!(empty.p_mean().is_nan() && empty.p.percentile(95.0).is_nan());
    }

    #[test]
    fn histogram_clamps_large_values_into_the_last_bin() {
        let mut h = PHistogram::default();
        h.add(1000.0);
        h.add(0.004);
        assert_eq!((h.counts[0], h.counts[PHistogram::BINS - 1]), (1, 1));
        assert!((h.mean() - 500.002).abs() < 1e-9);
    }

    fn spike(t: f64, start: bool, link: u32) -> TraceRecord {
        TraceRecord {
            time: at(t),
            flow: spikelab_core::FlowId(0),
            event: TraceEvent::Spike { start, link },
        }
    }

    #[test]
    fn trace_outages_pair_starts_with_ends_per_link() {
        let trace = [
            spike(20.0, true, 1),
            spike(20.5, true, 0),
            spike(20.9, false, 1),
            spike(21.0, false, 0),
            spike(27.0, true, 1),
        ];
        let want = vec![Outage {
            start: at(20.0),
            end: at(20.9),
        }];
        assert_eq!(outages_from_trace(&trace, 1), want);
    }

    #[test]
    fn schedule_outages_are_periodic_or_listed_and_end_in_time() {
        let periodic = OutageConfig {
            period: Some(Dur::from_secs(50)),
            duration: Some(ms(1500)),
            first: None,
            at: vec![],
            dirs: spikelab_net::spike::Dirs::Forward,
            freeze_at: Default::default(),
            wire: Default::default(),
            arrivals: Default::default(),
        };
        let o = outages_from_schedule(&periodic, at(151.0));
        let starts: Vec<f64> = o.iter().map(|o| o.start.as_secs_f64()).collect();
        assert_eq!(starts, vec![50.0, 100.0]);
        assert_eq!(o[1].end, at(101.5));
        let listed = OutageConfig {
            at: vec![spikelab_net::spike::SpikeAt {
                start: Dur::from_secs(20),
                duration: ms(900),
            }],
            ..periodic
        };
        assert_eq!(outages_from_schedule(&listed, at(30.0)).len(), 1);
    }

    #[test]
    fn an_outage_is_hit_by_a_spurious_timeout_before_the_next_one() {
        use Truth::*;
        let outages = [
            Outage {
                start: at(50.0),
                end: at(52.0),
            },
            Outage {
                start: at(100.0),
                end: at(102.0),
            },
            Outage {
                start: at(150.0),
                end: at(152.0),
            },
        ];
        let mut backed_off = timeout(0, 151.0, 500, 100, SpuriousDataDelayed);
        backed_off.backoff = 1;
        let timeouts = [
            timeout(0, 10.0, 500, 100, SpuriousDataDelayed), // before any outage
            timeout(0, 51.5, 500, 100, SpuriousDataDelayed), // hits outage 1
            timeout(0, 101.0, 500, 100, GenuineDataLost),    // necessary: no hit
            backed_off,                                      // not counted
        ];
        assert_eq!(outage_hits(&outages, &timeouts, at(200.0)), (1, 3));
    }

    #[test]
    fn half_life_runs_from_the_peak_to_the_first_rto_at_half_of_it() {
        let samples = [
            sample(19.0, 500, 3000), // before the spike: ignored
            sample(20.5, 1400, 2000),
            sample(21.0, 1300, 2800), // peak
            sample(23.0, 600, 1500),
            sample(24.5, 500, 1400), // <= 1.4 s: half-life 3.5 s
            sample(30.0, 500, 100),
        ];
        let h = rto_half_life(&samples, at(20.0), at(60.0)).unwrap();
        assert_eq!((h.peak_at, h.peak), (at(21.0), ms(2800)));
        assert_eq!(h.half_life, Some(ms(3500)));
        let cut = rto_half_life(&samples, at(20.0), at(24.0)).unwrap();
        assert_eq!(cut.half_life, None);
        assert!(rto_half_life(&samples, at(40.0), at(50.0)).is_none());
    }
}
