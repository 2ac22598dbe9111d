//! The standard retransmission timer: RFC 6298 (which obsoletes RFC 2988 and differs
//! from it only in the initial RTO, 1 s instead of 3 s).
//!
//! State: SRTT and RTTVAR, kept in integer nanoseconds. The gains alpha = 1/8 and
//! beta = 1/4 and K = 4 are the RFC's fixed constants; each weighted average is rounded
//! once, to the nearest nanosecond.
//!
//! Two variants from [Ekström & Ludwig 2004], selected by [`MinRtoMode`] and [`InitMode`]:
//!
//! * **FreeBSD-style minimum** (II.A): the fixed 1 s floor of (2.4) is *replaced* by
//!   "RTT-Sample + 2*G", where RTT-Sample is the latest valid sample. The paper says
//!   "replaced", so in this mode [`Rfc6298Config::min_rto`] is not applied at all.
//!   (FreeBSD itself takes the larger of its `t_rttmin` and the sample + 2 ticks; the
//!   paper's version has no fixed part.)
//! * **Modified initialisation** (V.A): "follow the algorithm provided in \[RFC2988\]
//!   until the first RTT measurement from a data segment arrives", then re-initialise
//!   SRTT <- RTT_SEGMENT, RTTVAR <- RTT_SEGMENT/16. So a handshake sample, if used,
//!   initialises the estimator by (2.2) (giving RTO = 3*RTT_SYN, as III.C says of the
//!   RFC2988-Timer), and the first data sample then overwrites it instead of being
//!   averaged in. The result is RTO = 1.25*RTT_SEGMENT when RTT_SEGMENT/4 >= G.
//!
//! Handshake sample: RFC 6298 (2.2) initialises on "the first RTT measurement R". A SYN
//! that was not retransmitted yields a valid measurement (Karn), and III.C of
//! [Ekström & Ludwig 2004] describes the RFC2988-Timer setting RTO = 3*RTT_SYN, so by default
//! the handshake sample is the first measurement. [`Rfc6298Config::use_syn_sample`]
//! turns that off (the first data sample then initialises).
//!
//! Spurious-timeout re-seed (RFC 4015 section 3.1): when the first timeout of a series
//! fires, step (0) saves SRTT_prev <- SRTT + 2*G and RTTVAR_prev <- RTTVAR; when the
//! delayed sample R arrives, SRTT <- max(SRTT_prev, R), RTTVAR <- max(RTTVAR_prev, R/2)
//! and RTO <- SRTT + max(G, K*RTTVAR) (then bounded as always). The freshly computed RTO
//! replaces the backed-off one, so back-off is cleared. The delayed sample counts as a
//! data sample: a later first data sample no longer triggers [`InitMode::Modified`].
//! RFC 4015's SRTT_prev includes the 2*G that its step (0) adds, so the re-seeded SRTT
//! is max(SRTT + 2*G, R), not max(SRTT, R).
//!
//! Back-off reset ([`BackoffReset`]): RFC 6298 section 5 (note after (5.7)) collapses
//! the backed-off RTO when a new measurement recomputes it, which with timestamps is any
//! ACK of new data ([`BackoffReset::AnyTimestampSample`]). ns-2 does not: in tcp.cc
//! `TcpAgent::newack()` a timestamp ACK calls `rtt_update()` (new SRTT, RTTVAR), but
//! `t_backoff_ = 1` runs only when the one Karn-timed segment is acknowledged
//! (`rtt_active_ && tcph->seqno() >= rtt_seq_`), unless `ts_resetRTO_` is set
//! ([`BackoffReset::KarnTimedAck`]). `ts_resetRTO_` ("From Andrei Gurtov"; ns-default.tcl:
//! false, "Added 2003/07/24") is the reset [Gurtov & Ludwig 2002] 5 says its authors
//! instrumented. The sender reports the timed segment's ACK through
//! [`RtoEstimator::on_timed_segment_acked`]; without timestamps the only samples are the
//! timed segment's, and both rules coincide.
//!
//! Not modelled here: RFC 6298 (5.7) (after a SYN timeout the RTO is re-initialised to
//! 3 s when data transmission begins) needs to know when the handshake completes, which
//! is the sender's business; and the optional clearing of SRTT/RTTVAR after repeated
//! back-offs (note to (5.7)) is not done.

use super::{backed_off, cap, dur_or_none, ReseedRule, RtoEstimator, RttSample};
use super::{initial_rto, rto_range};
use crate::exports::{Exports, Kernel, Ns2Export};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{dur, Bounded, Check, FieldPath};
use spikelab_core::Dur;

/// Parameters of the RFC 6298 estimator. Every field may be omitted from a scenario
/// file; the default is given on each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rfc6298Config {
    /// RTO before any measurement. Default 1 s (RFC 6298 (2.1)); RFC 2988 (2.1) said
    /// 3 s; ns-2 in 2002 used 6 s (docs/src/ns2-2002-defaults.md).
    pub initial_rto: Dur,
    /// Floor of every computed RTO in [`MinRtoMode::Standard`]. Default 1 s (RFC 6298
    /// (2.4)). Ignored in [`MinRtoMode::LastSamplePlus2g`].
    pub min_rto: Dur,
    /// Ceiling of the RTO, backed-off or not, or `"none"`. Default 60 s (RFC 6298 (2.5):
    /// "at least 60 seconds").
    #[serde(with = "dur_or_none")]
    pub max_rto: Option<Dur>,
    /// Clock granularity G in RTO = SRTT + max(G, K*RTTVAR). Default 1 ms: the tick of
    /// current Linux (HZ = 1000) and FreeBSD stacks; RFC 6298 section 4 only says finer
    /// clocks (<= 100 ms) perform better. [Ekström & Ludwig 2004] and ns-2 used 10 ms.
    pub granularity: Dur,
    /// How the floor of the RTO is found. Default [`MinRtoMode::Standard`].
    pub min_rto_mode: MinRtoMode,
    /// How the first data sample initialises the estimator. Default
    /// [`InitMode::Standard`].
    pub init_mode: InitMode,
    /// Whether the handshake's RTT sample (RTT_SYN) is a measurement. Default true (RFC
    /// 6298 (2.2) "the first RTT measurement"; [Ekström & Ludwig 2004] III.C).
    pub use_syn_sample: bool,
    /// Which measurement clears the back-off (see the module docs). Default
    /// `any-timestamp-sample` (RFC 6298); the ns-2 2002 profile uses `karn-timed-ack`.
    pub backoff_reset: BackoffReset,
}

/// Which RTT measurement ends the exponential back-off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackoffReset {
    /// Every valid sample, a timestamp echo on any ACK of new data included (RFC 6298
    /// section 5, note after (5.7); ns-2 with `ts_resetRTO_` set).
    #[default]
    #[serde(alias = "any_timestamp_sample")]
    AnyTimestampSample,
    /// Only the ACK of the Karn-timed segment (ns-2 tcp.cc `TcpAgent::newack()`:
    /// `t_backoff_ = 1` under `rtt_active_ && tcph->seqno() >= rtt_seq_`).
    #[serde(alias = "karn_timed_ack")]
    KarnTimedAck,
}

impl Default for Rfc6298Config {
    fn default() -> Self {
        Rfc6298Config {
            initial_rto: Dur::from_secs(1),
            min_rto: Dur::from_secs(1),
            max_rto: Some(Dur::from_secs(60)),
            granularity: Dur::from_millis(1),
            min_rto_mode: MinRtoMode::Standard,
            init_mode: InitMode::Standard,
            use_syn_sample: true,
            backoff_reset: BackoffReset::AnyTimestampSample,
        }
    }
}

/// Where the RTO's lower bound comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MinRtoMode {
    /// The fixed [`Rfc6298Config::min_rto`] (RFC 6298 (2.4)).
    #[default]
    Standard,
    /// The latest valid RTT sample + 2*G (FreeBSD; [Ekström & Ludwig 2004] II.A).
    #[serde(rename = "last_sample_plus_2g", alias = "last-sample-plus-2g")]
    LastSamplePlus2g,
}

/// How the estimator is initialised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitMode {
    /// SRTT <- R, RTTVAR <- R/2 on the first measurement (RFC 6298 (2.2)).
    #[default]
    Standard,
    /// The first data sample re-initialises SRTT <- R, RTTVAR <- R/16
    /// ([Ekström & Ludwig 2004] V.A).
    Modified,
}

/// SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Smoothed {
    srtt: Dur,
    rttvar: Dur,
}

/// The RFC 6298 estimator (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Rfc6298 {
    cfg: Rfc6298Config,
    est: Option<Smoothed>,
    /// Whether a data segment's sample has been taken (for [`InitMode::Modified`]).
    data_sampled: bool,
    last_sample: Option<Dur>,
    backoff: u32,
    /// RFC 4015's SRTT_prev and RTTVAR_prev, saved at the first timeout of a series.
    saved: Option<Smoothed>,
}

impl Rfc6298 {
    /// A fresh estimator for a new connection, before its SYN is sent.
    pub fn new(cfg: Rfc6298Config) -> Self {
        Rfc6298 {
            cfg,
            est: None,
            data_sampled: false,
            last_sample: None,
            backoff: 0,
            saved: None,
        }
    }

    /// RTTVAR, for traces and tests; `None` before the first measurement.
    pub fn rttvar(&self) -> Option<Dur> {
        self.est.map(|e| e.rttvar)
    }

    /// The RTO before back-off: (2.1) or (2.2)/(2.3), then the floor and (2.5).
    fn base_rto(&self) -> Dur {
        let computed = match self.est {
            // RFC 6298 (2.1): until a measurement is made, RTO <- initial value.
            None => self.cfg.initial_rto,
            // RFC 6298 (2.2)/(2.3): RTO <- SRTT + max(G, K*RTTVAR), K = 4.
            Some(e) => e.srtt + self.cfg.granularity.max(e.rttvar * K),
        };
        cap(computed.max(self.floor()), self.cfg.max_rto)
    }

    /// The lower bound of a computed RTO.
    fn floor(&self) -> Dur {
        match self.cfg.min_rto_mode {
            // RFC 6298 (2.4): if RTO < 1 s, round it up to 1 s (configurable).
            MinRtoMode::Standard => self.cfg.min_rto,
            // [Ekström & Ludwig 2004] II.A: minimum = RTT-Sample + 2*G (FreeBSD).
            MinRtoMode::LastSamplePlus2g => self
                .last_sample
                .map_or(Dur::ZERO, |r| r + self.cfg.granularity * 2),
        }
    }

    /// Folds a measurement `r` into the estimator and, unless it is a timestamp sample
    /// under [`BackoffReset::KarnTimedAck`], collapses any back-off.
    fn measure(&mut self, r: Dur, is_data: bool, from_timestamps: bool) {
        let reinit = is_data && !self.data_sampled && self.cfg.init_mode == InitMode::Modified;
        self.est = Some(match self.est {
            _ if reinit => modified_init(r),
            None => first_measurement(r),
            Some(e) => update(e, r),
        });
        self.data_sampled |= is_data;
        self.last_sample = Some(r);
        // RFC 6298 section 5 (note after (5.7)): a new measurement recomputes RTO,
        // "collapsing" it after exponential back-off. ns-2's newack() updates the
        // estimate from a timestamp but keeps t_backoff_ (see BackoffReset).
        if !(from_timestamps && self.cfg.backoff_reset == BackoffReset::KarnTimedAck) {
            self.backoff = 0;
        }
    }
}

/// K in RTO = SRTT + max(G, K*RTTVAR) (RFC 6298 section 2).
const K: u64 = 4;

/// RFC 6298 (2.2): first measurement R: SRTT <- R, RTTVAR <- R/2.
fn first_measurement(r: Dur) -> Smoothed {
    Smoothed {
        srtt: r,
        rttvar: Dur(r.0 / 2),
    }
}

/// [Ekström & Ludwig 2004] V.A: SRTT <- RTT_SEGMENT, RTTVAR <- RTT_SEGMENT / 16.
fn modified_init(r: Dur) -> Smoothed {
    Smoothed {
        srtt: r,
        rttvar: Dur(r.0 / 16),
    }
}

/// RFC 6298 (2.3): a subsequent measurement R'.
fn update(e: Smoothed, r: Dur) -> Smoothed {
    let deviation = Dur(e.srtt.0.abs_diff(r.0));
    Smoothed {
        // RFC 6298 (2.3): RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'|, beta = 1/4
        // (with the SRTT from before this update, as the RFC requires).
        rttvar: weighted(e.rttvar, deviation, 4),
        // RFC 6298 (2.3): SRTT <- (1 - alpha) * SRTT + alpha * R', alpha = 1/8.
        srtt: weighted(e.srtt, r, 8),
    }
}

/// (1 - 1/n) * old + (1/n) * new, rounded to the nearest nanosecond.
fn weighted(old: Dur, new: Dur, n: u64) -> Dur {
    let n = u128::from(n);
    let sum = u128::from(old.0) * (n - 1) + u128::from(new.0);
    Dur(((sum + n / 2) / n) as u64)
}

/// RFC 4015 section 3.1 step (0): SRTT_prev <- SRTT + 2*G, RTTVAR_prev <- RTTVAR.
fn snapshot(e: Smoothed, g: Dur) -> Smoothed {
    Smoothed {
        srtt: e.srtt + g * 2,
        rttvar: e.rttvar,
    }
}

/// RFC 4015 section 3.1 (timer adaptation): SRTT <- max(SRTT_prev, R),
/// RTTVAR <- max(RTTVAR_prev, R/2). Without a saved state this is (2.2).
fn reseed(saved: Option<Smoothed>, r: Dur) -> Smoothed {
    let fresh = first_measurement(r);
    saved.map_or(fresh, |p| Smoothed {
        srtt: p.srtt.max(fresh.srtt),
        rttvar: p.rttvar.max(fresh.rttvar),
    })
}

impl RtoEstimator for Rfc6298 {
    fn on_syn_sample(&mut self, rtt: Dur) {
        if self.cfg.use_syn_sample {
            self.measure(rtt, false, false);
        }
    }

    fn on_rtt_sample(&mut self, sample: &RttSample) {
        self.measure(sample.rtt, true, sample.from_timestamps);
    }

    fn on_timed_segment_acked(&mut self) {
        // ns-2 tcp.cc newack(): `if (rtt_active_ && tcph->seqno() >= rtt_seq_)
        // { t_backoff_ = 1; ... }`, whatever ts_resetRTO_ says.
        self.backoff = 0;
    }

    fn on_timeout(&mut self) {
        if self.backoff == 0 {
            let g = self.cfg.granularity;
            self.saved = self.est.map(|e| snapshot(e, g));
        }
        // RFC 6298 (5.5): RTO <- RTO * 2, applied in `rto()` via the back-off count.
        self.backoff = self.backoff.saturating_add(1);
    }

    fn on_spurious_timeout_reseed(&mut self, rtt: Dur, rule: ReseedRule) {
        let g = self.cfg.granularity;
        let saved = self.saved.take().or(self.est.map(|e| snapshot(e, g)));
        self.est = Some(match rule {
            ReseedRule::Reinit => first_measurement(rtt),
            ReseedRule::Rfc4015 => reseed(saved, rtt),
        });
        self.data_sampled = true;
        self.last_sample = Some(rtt);
        self.backoff = 0;
    }

    fn rto(&self) -> Dur {
        backed_off(self.base_rto(), self.backoff, self.cfg.max_rto)
    }

    fn max_rto(&self) -> Option<Dur> {
        self.cfg.max_rto
    }

    fn backoff_count(&self) -> u32 {
        self.backoff
    }

    fn srtt(&self) -> Option<Dur> {
        self.est.map(|e| e.srtt)
    }
}

impl Bounded for Rfc6298Config {
    fn bounds(&self, p: &FieldPath) -> Check {
        let c = self;
        initial_rto(p, c.initial_rto)?;
        dur(&p.key("granularity"), c.granularity)?;
        rto_range(p, ("min_rto", c.min_rto), ("max_rto", c.max_rto))
    }
}

impl Exports for Rfc6298Config {
    /// ns-2's timer with the same constants: its `rtt_update()` is RFC 6298's arithmetic
    /// in ticks of `tcpTick_` = G, from the first sample on.
    fn ns2(&self) -> Ns2Export {
        if self.min_rto_mode != MinRtoMode::Standard {
            return Ns2Export::Refused {
                field: Some("min_rto_mode"),
                why: "ns-2's minrto_ is a fixed floor",
            };
        }
        if self.init_mode != InitMode::Standard {
            return Ns2Export::Refused {
                field: Some("init_mode"),
                why: "ns-2 initialises from its first sample (rtt_update)",
            };
        }
        super::Ns2RtoConfig {
            tick: self.granularity,
            initial_rto: self.initial_rto,
            min_rto: self.min_rto,
            max_rto: self.max_rto,
            reset_backoff_on_any_sample: false,
        }
        .ns2()
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
    /// Fractional milliseconds, exact for the values used here (multiples of 1 ns).
    fn msf(v: f64) -> Dur {
        Dur((v * 1e6).round() as u64)
    }
    fn sample(rtt: Dur) -> RttSample {
        RttSample {
            now: Time::ZERO,
            rtt,
            flight_segments: 1,
            from_timestamps: false,
        }
    }
    fn cfg(g: Dur, min: Dur, max: Option<Dur>) -> Rfc6298Config {
        Rfc6298Config {
            granularity: g,
            min_rto: min,
            max_rto: max,
            ..Rfc6298Config::default()
        }
    }

    #[test]
    fn worked_sequence_matches_the_rfc_by_hand() {
        // G = 10 ms, min 100 ms, max 2 s. Columns: sample, SRTT, RTTVAR, RTO (ms).
        let mut e = Rfc6298::new(cfg(ms(10), ms(100), Some(ms(2000))));
        // (2.1): before any sample, RTO = initial = 1000.
        assert_eq!(e.rto(), ms(1000));
        let table = [
            // (2.2) R=400: SRTT=400, RTTVAR=200, RTO=400+max(10, 4*200)=1200.
            (400.0, 400.0, 200.0, 1200.0),
            // (2.3) R=200: RTTVAR=3/4*200+1/4*|400-200|=150+50=200;
            //       SRTT=7/8*400+1/8*200=350+25=375; RTO=375+800=1175.
            (200.0, 375.0, 200.0, 1175.0),
            // R=375: RTTVAR=3/4*200+0=150; SRTT=375; RTO=375+600=975.
            (375.0, 375.0, 150.0, 975.0),
            // R=375: RTTVAR=3/4*150=112.5; SRTT=375; RTO=375+450=825.
            (375.0, 375.0, 112.5, 825.0),
            // R=1975 (spike): RTTVAR=3/4*112.5+1/4*1600=84.375+400=484.375;
            //       SRTT=7/8*375+1/8*1975=328.125+246.875=575;
            //       RTO=575+1937.5=2512.5 -> max clamp (2.5) -> 2000.
            (1975.0, 575.0, 484.375, 2000.0),
            // R=575: RTTVAR=3/4*484.375=363.28125; SRTT=575;
            //       RTO=575+1453.125=2028.125 -> 2000.
            (575.0, 575.0, 363.28125, 2000.0),
        ];
        for (i, (r, srtt, rttvar, rto)) in table.into_iter().enumerate() {
            e.on_rtt_sample(&sample(msf(r)));
            assert_eq!(e.srtt(), Some(msf(srtt)), "SRTT after sample {i}");
            assert_eq!(e.rttvar(), Some(msf(rttvar)), "RTTVAR after sample {i}");
            assert_eq!(e.rto(), msf(rto), "RTO after sample {i}");
        }
    }

    #[test]
    fn granularity_dominates_a_small_variance() {
        // G = 10 ms, min 5 ms. R=2: SRTT=2, RTTVAR=1, K*RTTVAR=4 < G -> RTO=2+10=12.
        let mut e = Rfc6298::new(cfg(ms(10), ms(5), Some(ms(60_000))));
        e.on_rtt_sample(&sample(ms(2)));
        assert_eq!(e.rto(), ms(12));
        // R=2: RTTVAR=0.75, K*RTTVAR=3 < 10 -> RTO=2+10=12.
        e.on_rtt_sample(&sample(ms(2)));
        assert_eq!(e.rttvar(), Some(msf(0.75)));
        assert_eq!(e.rto(), ms(12));
    }

    #[test]
    fn small_rto_is_rounded_up_to_the_one_second_minimum() {
        // Defaults: G=1 ms, min 1 s. R=100: RTO=100+200=300 -> (2.4) -> 1000.
        let mut e = Rfc6298::new(Rfc6298Config::default());
        e.on_rtt_sample(&sample(ms(100)));
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn backoff_doubles_until_the_maximum_then_stays() {
        // Defaults: initial 1 s, max 60 s: 1, 2, 4, 8, 16, 32, 60, 60.
        let mut e = Rfc6298::new(Rfc6298Config::default());
        let want = [1, 2, 4, 8, 16, 32, 60, 60];
        for (n, secs) in want.into_iter().enumerate() {
            assert_eq!(e.backoff_count(), n as u32);
            assert_eq!(e.rto(), Dur::from_secs(secs), "after {n} timeouts");
            e.on_timeout();
        }
    }

    #[test]
    fn backoff_without_a_maximum_keeps_doubling() {
        let mut e = Rfc6298::new(cfg(ms(10), ms(1000), None));
        for _ in 0..7 {
            e.on_timeout();
        }
        // 1 s * 2^7 = 128 s.
        assert_eq!(e.rto(), Dur::from_secs(128));
    }

    #[test]
    fn a_valid_sample_clears_the_backoff() {
        // G=10 ms, min 100 ms. R=400: RTO=1200; three timeouts: 9600; R=400 again:
        // RTTVAR=3/4*200+0=150, SRTT=400, RTO=400+600=1000, back-off 0.
        let mut e = Rfc6298::new(cfg(ms(10), ms(100), Some(ms(60_000))));
        e.on_rtt_sample(&sample(ms(400)));
        for _ in 0..3 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), ms(9600));
        e.on_rtt_sample(&sample(ms(400)));
        assert_eq!(e.backoff_count(), 0);
        assert_eq!(e.rto(), ms(1000));
    }

    fn ts_sample(rtt: Dur) -> RttSample {
        RttSample {
            from_timestamps: true,
            ..sample(rtt)
        }
    }
    fn with_reset(rule: BackoffReset) -> Rfc6298 {
        Rfc6298::new(Rfc6298Config {
            backoff_reset: rule,
            ..cfg(ms(10), ms(100), None)
        })
    }

    #[test]
    fn any_timestamp_sample_clears_the_backoff_on_the_first_ack_after_a_timeout() {
        // RFC 6298 / ns-2 with ts_resetRTO_: R=400 -> RTO 1200; three timeouts -> 9600;
        // a timestamp sample R=400 -> RTO 1000, back-off gone.
        let mut e = with_reset(BackoffReset::AnyTimestampSample);
        e.on_rtt_sample(&ts_sample(ms(400)));
        (0..3).for_each(|_| e.on_timeout());
        assert_eq!(e.rto(), ms(9600));
        e.on_rtt_sample(&ts_sample(ms(400)));
        assert_eq!((e.backoff_count(), e.rto()), (0, ms(1000)));
    }

    #[test]
    fn karn_timed_ack_keeps_the_backoff_until_the_timed_segment_is_acked() {
        // ns-2 newack(): the timestamp sample updates SRTT/RTTVAR (RTO base 1000) but
        // t_backoff_ stays 8 until the Karn-timed segment's ACK.
        let mut e = with_reset(BackoffReset::KarnTimedAck);
        e.on_rtt_sample(&ts_sample(ms(400)));
        (0..3).for_each(|_| e.on_timeout());
        e.on_rtt_sample(&ts_sample(ms(400)));
        e.on_rtt_sample(&ts_sample(ms(400)));
        assert_eq!(e.backoff_count(), 3);
        // Second update: RTTVAR = 3/4*150 = 112.5, RTO = 400 + 450 = 850, times 8.
        assert_eq!(e.rto(), ms(6800));
        e.on_timed_segment_acked();
        assert_eq!((e.backoff_count(), e.rto()), (0, ms(850)));
    }

    #[test]
    fn without_timestamps_both_reset_rules_clear_on_the_timed_sample() {
        for rule in [BackoffReset::AnyTimestampSample, BackoffReset::KarnTimedAck] {
            let mut e = with_reset(rule);
            e.on_rtt_sample(&sample(ms(400)));
            e.on_timeout();
            e.on_rtt_sample(&sample(ms(400)));
            assert_eq!(e.backoff_count(), 0, "{rule:?}");
        }
    }

    #[test]
    fn backoff_reset_reads_from_scenario_names() {
        let c: Rfc6298Config = toml::from_str("backoff_reset = \"karn-timed-ack\"").unwrap();
        assert_eq!(c.backoff_reset, BackoffReset::KarnTimedAck);
        assert_eq!(
            Rfc6298Config::default().backoff_reset,
            BackoffReset::AnyTimestampSample
        );
    }

    #[test]
    fn syn_sample_is_the_first_measurement_by_default() {
        // RTT_SYN=50: SRTT=50, RTTVAR=25, RTO=50+100=150 = 3*RTT_SYN (min 100 ms).
        let mut e = Rfc6298::new(cfg(ms(10), ms(100), Some(ms(60_000))));
        e.on_syn_sample(ms(50));
        assert_eq!(e.rto(), ms(150));
        let mut off = Rfc6298::new(Rfc6298Config {
            use_syn_sample: false,
            ..cfg(ms(10), ms(100), Some(ms(60_000)))
        });
        off.on_syn_sample(ms(50));
        assert_eq!(off.rto(), ms(1000), "ignored: still the initial RTO");
    }

    fn freebsd() -> Rfc6298Config {
        Rfc6298Config {
            min_rto_mode: MinRtoMode::LastSamplePlus2g,
            ..cfg(ms(10), ms(1000), Some(ms(60_000)))
        }
    }

    #[test]
    fn freebsd_minimum_follows_the_last_sample_plus_2g() {
        // G = 10 ms; the fixed 1 s minimum is not applied in this mode.
        let mut e = Rfc6298::new(freebsd());
        // R=4: SRTT=4, RTTVAR=2, RTO=4+max(10, 8)=14 < 4+2*10=24 -> 24.
        e.on_rtt_sample(&sample(ms(4)));
        assert_eq!(e.rto(), ms(24));
        // R=8: RTTVAR=3/4*2+1/4*4=2.5; SRTT=7/8*4+1/8*8=4.5; RTO=4.5+max(10, 10)=14.5
        //      < 8+20=28 -> 28.
        e.on_rtt_sample(&sample(ms(8)));
        assert_eq!(e.rto(), ms(28));
        // R=4: RTTVAR=3/4*2.5+1/4*0.5=2; SRTT=7/8*4.5+1/8*4=4.4375;
        //      RTO=4.4375+10=14.4375 < 4+20=24 -> 24 (the last sample, not the max).
        e.on_rtt_sample(&sample(ms(4)));
        assert_eq!(e.srtt(), Some(msf(4.4375)));
        assert_eq!(e.rto(), ms(24));
        // R=100: RTTVAR=3/4*2+1/4*95.5625=1.5+23.890625=25.390625;
        //      SRTT=7/8*4.4375+1/8*100=3.8828125+12.5=16.3828125;
        //      RTO=16.3828125+101.5625=117.9453125 < 100+20=120 -> 120.
        e.on_rtt_sample(&sample(ms(100)));
        assert_eq!(e.rto(), ms(120));
    }

    #[test]
    fn freebsd_minimum_is_inactive_when_the_formula_is_larger() {
        // R=100: RTO=100+4*50=300 > 100+20=120, and not rounded up to 1 s.
        let mut e = Rfc6298::new(freebsd());
        e.on_rtt_sample(&sample(ms(100)));
        assert_eq!(e.rto(), ms(300));
    }

    fn modified() -> Rfc6298Config {
        Rfc6298Config {
            init_mode: InitMode::Modified,
            ..freebsd()
        }
    }

    #[test]
    fn modified_init_restarts_from_the_first_data_sample() {
        // G = 10 ms, FreeBSD minimum (the paper's RFC2988-Timer).
        let mut e = Rfc6298::new(modified());
        // RTT_SYN=50: (2.2) SRTT=50, RTTVAR=25, RTO=50+100=150 = 3*RTT_SYN.
        e.on_syn_sample(ms(50));
        assert_eq!(e.rto(), ms(150));
        // RTT_SEGMENT=200: SRTT=200, RTTVAR=200/16=12.5, RTO=200+max(10, 50)=250
        // = 1.25*RTT_SEGMENT (floor 220).
        e.on_rtt_sample(&sample(ms(200)));
        assert_eq!(e.srtt(), Some(ms(200)));
        assert_eq!(e.rttvar(), Some(msf(12.5)));
        assert_eq!(e.rto(), ms(250));
        // R=200: (2.3) RTTVAR=3/4*12.5=9.375; RTO=200+37.5=237.5.
        e.on_rtt_sample(&sample(ms(200)));
        assert_eq!(e.rto(), msf(237.5));
    }

    #[test]
    fn standard_init_averages_the_first_data_sample_into_the_syn_one() {
        // Same inputs as above. RTT_SYN=50 -> SRTT=50, RTTVAR=25. R=200:
        // RTTVAR=3/4*25+1/4*150=18.75+37.5=56.25; SRTT=7/8*50+1/8*200=43.75+25=68.75;
        // RTO=68.75+225=293.75.
        let mut e = Rfc6298::new(freebsd());
        e.on_syn_sample(ms(50));
        e.on_rtt_sample(&sample(ms(200)));
        assert_eq!(e.rto(), msf(293.75));
    }

    #[test]
    fn modified_init_without_syn_sample_waits_at_the_initial_rto() {
        let mut e = Rfc6298::new(Rfc6298Config {
            use_syn_sample: false,
            ..modified()
        });
        e.on_syn_sample(ms(50));
        assert_eq!(e.rto(), ms(1000));
        e.on_rtt_sample(&sample(ms(200)));
        assert_eq!(e.rto(), ms(250));
    }

    #[test]
    fn reseed_takes_the_larger_of_saved_state_and_delayed_sample() {
        // G=10 ms, min 100 ms. R=100: SRTT=100, RTTVAR=50, RTO=300.
        let base = cfg(ms(10), ms(100), Some(ms(60_000)));
        let mut e = Rfc6298::new(base.clone());
        e.on_rtt_sample(&sample(ms(100)));
        // Timeout: RFC 4015 step (0) SRTT_prev=100+2*10=120, RTTVAR_prev=50; RTO=600.
        e.on_timeout();
        assert_eq!(e.rto(), ms(600));
        // Delayed R=1000: SRTT=max(120, 1000)=1000, RTTVAR=max(50, 500)=500;
        // RTO=1000+2000=3000, back-off cleared.
        e.on_spurious_timeout_reseed(ms(1000), ReseedRule::Rfc4015);
        assert_eq!((e.srtt(), e.rttvar()), (Some(ms(1000)), Some(ms(500))));
        assert_eq!((e.rto(), e.backoff_count()), (ms(3000), 0));

        // A short delayed sample keeps the saved state: R=60: SRTT=max(120, 60)=120,
        // RTTVAR=max(50, 30)=50, RTO=120+200=320.
        let mut e = Rfc6298::new(base);
        e.on_rtt_sample(&sample(ms(100)));
        e.on_timeout();
        e.on_timeout();
        e.on_spurious_timeout_reseed(ms(60), ReseedRule::Rfc4015);
        assert_eq!(e.rto(), ms(320));
    }

    #[test]
    fn reinit_reseed_forgets_the_saved_state() {
        // [Gurtov & Ludwig 2003] III.C option 1: R=60 re-initialises as a first measurement:
        // SRTT=60, RTTVAR=30, RTO=max(60+120, 100)=180 (where RFC 4015 gave 320 above).
        let mut e = Rfc6298::new(cfg(ms(10), ms(100), Some(ms(60_000))));
        e.on_rtt_sample(&sample(ms(100)));
        e.on_timeout();
        e.on_spurious_timeout_reseed(ms(60), ReseedRule::Reinit);
        assert_eq!((e.srtt(), e.rttvar()), (Some(ms(60)), Some(ms(30))));
        assert_eq!(e.rto(), ms(180));
    }

    #[test]
    fn reseed_before_any_measurement_is_a_first_measurement() {
        // R=400: SRTT=400, RTTVAR=200, RTO=1200.
        let mut e = Rfc6298::new(cfg(ms(10), ms(100), Some(ms(60_000))));
        e.on_timeout();
        e.on_spurious_timeout_reseed(ms(400), ReseedRule::Rfc4015);
        assert_eq!(e.rto(), ms(1200));
    }
}
