//! Retransmission-timer estimators behind one trait.
//!
//! The sender never computes an RTO itself: it feeds the estimator events (RTT samples,
//! timeouts) and asks [`RtoEstimator::rto`] for the value to arm the timer with. A new
//! estimator therefore never touches the sender. The sender applies Karn's rule (which
//! samples are valid) before calling [`RtoEstimator::on_rtt_sample`]; the estimator owns
//! its bounds, granularity and exponential back-off.
//!
//! Selection at run time is by the [`Rto`] enum built from [`RtoConfig`], not by
//! `Box<dyn>`, so the hot path stays monomorphic; both enums are generated from the one
//! list in `estimators!` (see [`spikelab_core::dispatch_enum!`]).
//!
//! The estimators, one per file:
//!
//! * [`rfc6298`]: RFC 6298 / RFC 2988 (SRTT, RTTVAR, K = 4, granularity G), with the two
//!   variants [Ekström & Ludwig 2004] used for its "RFC2988-Timer": the FreeBSD-style minimum
//!   (last sample + 2G, section II.A) and the modified initialisation (section V.A).
//! * [`peak_hopper`]: the Peak-Hopper RTO ([Ekström & Ludwig 2004] section III).
//! * [`linux`]: the Linux kernel's estimator (`tcp_rtt_estimator`, `tcp_set_rto`).
//! * [`ns2`]: ns-2's own timer in its integer tick arithmetic.
//! * [`fixed`]: a constant RTO (with back-off), the baseline and test oracle.
//!
//! A new estimator is one file here, its `mod`/`use` line, and one line in the
//! `estimators!` list below, which generates everything that selects it.
//!
//! Shared rules live here, each in one place: exponential back-off (`backed_off`),
//! scaling a duration by a real factor (`scale`) and the `"none"`-or-duration serde
//! form of an optional maximum (`dur_or_none`).
//!
//! Back-off is kept apart from each estimator's own value: the estimator's RTO is the
//! "base", [`RtoEstimator::rto`] returns `min(base * 2^backoff, max)`. A valid sample
//! sets the back-off count to zero, which "collapses" the RTO back to the base (RFC 6298
//! section 5, note after (5.7); Karn's algorithm).

pub mod fixed;
pub mod klein;
pub mod linux;
pub mod ns2;
pub mod peak_hopper;
pub mod rfc6298;

pub use fixed::{Fixed, FixedConfig};
pub use linux::{Linux, LinuxConfig};
pub use ns2::{Ns2Rto, Ns2RtoConfig};
pub use peak_hopper::{PeakHopper, PeakHopperConfig};
pub use rfc6298::{BackoffReset, InitMode, MinRtoMode, Rfc6298, Rfc6298Config};

use crate::exports::{Exports, Kernel, Ns2Export};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{
    dur, dur_in, ordered, Bounded, Check, FieldPath, MAX_DUR, MIN_RTO_CEILING,
};
use spikelab_core::{Dur, Time};

/// One RTT measurement and what the sender knew when it took it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RttSample {
    /// When the ACK that produced the sample arrived.
    pub now: Time,
    /// The measured round-trip time.
    pub rtt: Dur,
    /// Segments outstanding when the ACK that produced the sample arrived, before it
    /// was processed (Peak-Hopper's S with timestamps; [Ekström & Ludwig 2004] III.B).
    pub flight_segments: u32,
    /// Whether the sample came from the timestamps option (every ACK timed) or from
    /// timing one segment per flight.
    pub from_timestamps: bool,
}

/// The estimator interface. Every hook is named by the event that fires it.
pub trait RtoEstimator {
    /// An RTT sample from the connection handshake (RTT_SYN). Called at most once,
    /// before any data sample.
    fn on_syn_sample(&mut self, rtt: Dur);
    /// A valid RTT sample (Karn's rule already applied by the sender). Clears back-off.
    fn on_rtt_sample(&mut self, sample: &RttSample);
    /// The ACK just sampled covers the one segment the sender timed by Karn's rule
    /// (ns-2's `rtt_active_` / `rtt_seq_`), with or without timestamps. Only ns-2's
    /// timer acts on it (its back-off reset in `newack()`); the others already cleared
    /// their back-off on the sample.
    fn on_timed_segment_acked(&mut self) {}
    /// Where the sender's sequence space stands as it hands over the next sample:
    /// snd_una (after the ACK that gave it) and the highest sequence sent (the
    /// kernel's `snd_nxt`). Only the Linux estimator reads it, to end its round trips
    /// as the kernel does (`rtt_seq`).
    fn on_sequence(&mut self, _snd_una: u64, _snd_nxt: u64) {}
    /// The retransmission timer expired: back off (RFC 6298 (5.5)).
    fn on_timeout(&mut self);
    /// A spurious-timeout response decided to adapt the timer ([Gurtov & Ludwig 2003] III.C
    /// option 1, RFC 4015 section 3.1): fires once, when the ACK that revealed the
    /// timeout as spurious brings `rtt`, the RTT of the delayed original transmission.
    /// The sender calls this *after* [`RtoEstimator::on_rtt_sample`] for that sample, so
    /// the rule overrides the ordinary update. Clears back-off. `rule` selects the
    /// paper's re-initialisation or RFC 4015's; each estimator documents what they mean
    /// for it.
    fn on_spurious_timeout_reseed(&mut self, rtt: Dur, rule: ReseedRule);
    /// The largest value [`RtoEstimator::rto`] may return, if bounded.
    fn max_rto(&self) -> Option<Dur>;
    /// The value to arm the timer with now: bounds, granularity and back-off applied.
    fn rto(&self) -> Dur;
    /// Number of consecutive back-offs in force (0 when not backed off).
    fn backoff_count(&self) -> u32;
    /// The smoothed RTT, where the estimator keeps one (for traces and metrics).
    fn srtt(&self) -> Option<Dur>;
}

/// How a spurious-timeout response re-seeds the estimator from the delayed sample R.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReseedRule {
    /// [Gurtov & Ludwig 2003] III.C option 1: "re-initialize SRTT and RTTVAR" from R as for a
    /// first measurement (RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2).
    Reinit,
    /// RFC 4015 section 3.1: SRTT <- max(SRTT_prev, R), RTTVAR <- max(RTTVAR_prev, R/2)
    /// with SRTT_prev = SRTT + 2G saved at the first timeout.
    Rfc4015,
}

/// The registration macro: from one list, one line per estimator, it generates
/// [`RtoConfig`] (the scenario's `kind` tag names), [`Rto`] with its [`RtoEstimator`]
/// forwarding, [`Rto::new`] and [`RtoConfig::KINDS`]. A line reads
/// `"kind" => Variant(ConfigType) -> EstimatorType,`; the estimator type has
/// `fn new(ConfigType) -> Self`; the configuration type implements [`Exports`] (its
/// ns-2 export and kernel settings), which [`RtoConfig`] forwards to.
macro_rules! estimators {
    ($( $(#[$doc:meta])* $name:literal => $V:ident($Cfg:ty) -> $T:ident, )*) => {
        /// Which estimator a flow uses, with its parameters; read from scenario files as a
        /// table tagged by `kind` (one of [`RtoConfig::KINDS`]). Omitted fields take the
        /// defaults documented on each variant's struct.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum RtoConfig {
            $( $(#[$doc])* #[serde(rename = $name)] $V($Cfg), )*
        }

        impl Bounded for RtoConfig {
            /// The estimator's own checks ([`Bounded`] on its configuration type).
            fn bounds(&self, at: &FieldPath) -> Check {
                match self { $( RtoConfig::$V(c) => c.bounds(at), )* }
            }
        }

        impl RtoConfig {
            /// Every estimator's `kind` name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$($name),*];

            /// This configuration's `kind` name.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( RtoConfig::$V(_) => $name, )*
                }
            }
        }

        spikelab_core::dispatch_enum! {
            /// The estimator selected by an [`RtoConfig`]; dispatches by `match`.
            #[derive(Clone, Debug, PartialEq)]
            pub enum Rto: RtoEstimator { $( $(#[$doc])* $V($T) ),* }
            // The hooks the sender calls on every ACK (a sample, the timer's restart)
            // inlined there, the match with them.
            methods {
                fn on_syn_sample(&mut self, rtt: Dur);
                #[inline]
                fn on_rtt_sample(&mut self, sample: &RttSample);
                #[inline]
                fn on_timed_segment_acked(&mut self);
                #[inline]
                fn on_sequence(&mut self, snd_una: u64, snd_nxt: u64);
                fn on_timeout(&mut self);
                fn on_spurious_timeout_reseed(&mut self, rtt: Dur, rule: ReseedRule);
                #[inline]
                fn max_rto(&self) -> Option<Dur>;
                #[inline]
                fn rto(&self) -> Dur;
                #[inline]
                fn backoff_count(&self) -> u32;
                #[inline]
                fn srtt(&self) -> Option<Dur>;
            }
        }

        impl Rto {
            /// A fresh estimator for a new connection, before its SYN is sent.
            pub fn new(config: &RtoConfig) -> Rto {
                match config {
                    $( RtoConfig::$V(c) => Rto::$V(<$T>::new(c.clone())), )*
                }
            }
        }

        impl Exports for RtoConfig {
            fn ns2(&self) -> Ns2Export {
                match self { $( RtoConfig::$V(c) => c.ns2(), )* }
            }
            fn kernel(&self) -> Kernel {
                match self { $( RtoConfig::$V(c) => c.kernel(), )* }
            }
        }
    };
}

estimators! {
    /// RFC 6298 / RFC 2988 and the variants of [Ekström & Ludwig 2004] II.A and V.A.
    "rfc6298" => Rfc6298(Rfc6298Config) -> Rfc6298,
    /// The Peak-Hopper RTO of [Ekström & Ludwig 2004] III.
    "peak-hopper" => PeakHopper(PeakHopperConfig) -> PeakHopper,
    /// The Linux kernel's estimator.
    "linux" => Linux(LinuxConfig) -> Linux,
    /// ns-2's own timer in its integer tick arithmetic (`tcp.cc` rtt_update/rtt_timeout).
    "ns2" => Ns2(Ns2RtoConfig) -> Ns2Rto,
    /// A constant RTO with RFC 6298 back-off: the "RTO = const" baseline.
    "fixed" => Fixed(FixedConfig) -> Fixed,
}

/// Every estimator's RTO before its first sample: at least the smallest ceiling.
pub(crate) fn initial_rto(p: &FieldPath, rto: Dur) -> Check {
    dur_in(&p.key("initial_rto"), rto, MIN_RTO_CEILING, MAX_DUR)
}

/// A ceiling `max` (if any) at or above the floor `min`.
pub(crate) fn rto_range(
    p: &FieldPath,
    (min_key, min): (&str, Dur),
    (max_key, max): (&str, Option<Dur>),
) -> Check {
    dur(&p.key(min_key), min)?;
    if let Some(max) = max {
        dur_in(&p.key(max_key), max, MIN_RTO_CEILING, MAX_DUR)?;
        ordered(&p.key(min_key), min, max, &format!(" (`{max_key}`)"))?;
    }
    Ok(())
}

impl Default for RtoConfig {
    /// RFC 6298 with its own defaults: initial RTO 1 s, minimum 1 s, maximum 60 s,
    /// G = 1 ms (see [`Rfc6298Config`]).
    fn default() -> Self {
        RtoConfig::Rfc6298(Rfc6298Config::default())
    }
}

impl RtoConfig {
    /// The RFC 2988 timer as ns-2 ran it in 2002 (docs/src/ns2-2002-defaults.md): `tcpTick_` G = 10 ms,
    /// `rtxcur_init_` 6 s, `minrto_` 1 s, `maxrto_` 100000 s, i.e. no maximum; back-off
    /// cleared only by the Karn-timed segment's ACK (tcp.cc `newack()`; `ts_resetRTO_`
    /// did not exist before 2003 and is off by default since).
    pub fn ns2_2002() -> Self {
        RtoConfig::Rfc6298(Rfc6298Config {
            initial_rto: Dur::from_secs(6),
            min_rto: Dur::from_secs(1),
            max_rto: None,
            granularity: Dur::from_millis(10),
            backoff_reset: BackoffReset::KarnTimedAck,
            ..Rfc6298Config::default()
        })
    }

    /// The "RFC2988-Timer" that [Ekström & Ludwig 2004] compared against (sections II.A, IV.A,
    /// V.A): RFC 2988's 3 s initial RTO, G = 10 ms, the FreeBSD-style minimum and the
    /// modified initialisation.
    pub fn peak_hopper_paper_rfc2988() -> Self {
        RtoConfig::Rfc6298(Rfc6298Config {
            initial_rto: Dur::from_secs(3),
            granularity: Dur::from_millis(10),
            min_rto_mode: MinRtoMode::LastSamplePlus2g,
            init_mode: InitMode::Modified,
            ..Rfc6298Config::default()
        })
    }
}

/// The timer value after `count` back-offs of `base`, bounded by `max`.
pub(crate) fn backed_off(base: Dur, count: u32, max: Option<Dur>) -> Dur {
    // RFC 6298 (5.5): RTO <- RTO * 2 on each expiry ("back off the timer"); the maximum
    // of (2.5) may bound it. Doubling `count` times is base * 2^count, saturating.
    let doubled = if count >= 64 {
        Dur::MAX
    } else {
        base * (1u64 << count)
    };
    cap(doubled, max)
}

/// `d` bounded above by `max` when there is one (RFC 6298 (2.5)).
pub(crate) fn cap(d: Dur, max: Option<Dur>) -> Dur {
    max.map_or(d, |m| d.min(m))
}

/// `d * k` for a real factor `k`, rounded once to the nearest nanosecond. The only place
/// where an estimator's real-valued gain meets integer time.
pub(crate) fn scale(d: Dur, k: f64) -> Dur {
    // `as u64` saturates: negative or NaN products become 0, huge ones Dur::MAX.
    Dur((d.0 as f64 * k).round() as u64)
}

/// Serde form of an optional maximum: a duration ("60s", 60) or the word `"none"`.
pub(crate) mod dur_or_none {
    use serde::de::{self, IntoDeserializer, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use spikelab_core::Dur;
    use std::fmt;

    pub fn serialize<S: Serializer>(v: &Option<Dur>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            None => s.serialize_str("none"),
            Some(d) => d.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Dur>, D::Error> {
        d.deserialize_any(DurOrNone)
    }

    struct DurOrNone;

    impl<'de> Visitor<'de> for DurOrNone {
        type Value = Option<Dur>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a duration such as \"60s\", a number of seconds, or \"none\"")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<Dur>, E> {
            if s.trim() == "none" {
                return Ok(None);
            }
            Dur::deserialize(s.into_deserializer()).map(Some)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<Dur>, E> {
            Dur::deserialize(v.into_deserializer()).map(Some)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<Dur>, E> {
            Dur::deserialize(v.into_deserializer()).map(Some)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<Dur>, E> {
            Dur::deserialize(v.into_deserializer()).map(Some)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<RtoConfig, toml::de::Error> {
        toml::from_str(text)
    }

    #[test]
    fn a_bare_kind_gives_that_estimators_defaults() {
        assert_eq!(parse("kind = \"rfc6298\"").unwrap(), RtoConfig::default());
        assert_eq!(
            parse("kind = \"peak-hopper\"").unwrap(),
            RtoConfig::PeakHopper(PeakHopperConfig::default())
        );
        assert_eq!(
            parse("kind = \"linux\"").unwrap(),
            RtoConfig::Linux(LinuxConfig::default())
        );
    }

    #[test]
    fn ns2_profile_can_be_written_with_units_and_none() {
        let text = "kind = \"rfc6298\"\ninitial_rto = \"6s\"\nmax_rto = \"none\"\n\
                    granularity = \"10ms\"\nbackoff_reset = \"karn-timed-ack\"";
        assert_eq!(parse(text).unwrap(), RtoConfig::ns2_2002());
    }

    #[test]
    fn paper_rfc2988_profile_parses_from_its_mode_names() {
        let text = "kind = \"rfc6298\"\ninitial_rto = 3\ngranularity = \"10ms\"\n\
                    min_rto_mode = \"last_sample_plus_2g\"\ninit_mode = \"modified\"";
        assert_eq!(parse(text).unwrap(), RtoConfig::peak_hopper_paper_rfc2988());
    }

    #[test]
    fn unknown_fields_and_kinds_are_rejected_by_name() {
        let e = parse("kind = \"linux\"\nrto_mn = \"1s\"").unwrap_err();
        assert!(e.to_string().contains("rto_mn"), "{e}");
        let e = parse("kind = \"eifel\"").unwrap_err();
        assert!(e.to_string().contains("eifel"), "{e}");
    }

    #[test]
    fn every_profile_round_trips_through_toml() {
        let ph = PeakHopperConfig {
            max_rto: None,
            ..PeakHopperConfig::default()
        };
        for cfg in [
            RtoConfig::default(),
            RtoConfig::ns2_2002(),
            RtoConfig::peak_hopper_paper_rfc2988(),
            RtoConfig::PeakHopper(ph),
            RtoConfig::Linux(LinuxConfig::default()),
        ] {
            let text = toml::to_string(&cfg).unwrap();
            assert_eq!(parse(&text).unwrap(), cfg, "{text}");
        }
    }

    #[test]
    fn rto_enum_dispatches_to_the_configured_estimator() {
        let mut rto = Rto::new(&RtoConfig::Linux(LinuxConfig::default()));
        assert!(matches!(rto, Rto::Linux(_)));
        rto.on_syn_sample(Dur::from_millis(100));
        assert_eq!(rto.rto(), Dur::from_millis(300));
        rto.on_timeout();
        assert_eq!((rto.rto(), rto.backoff_count()), (Dur::from_millis(600), 1));
        assert_eq!(rto.srtt(), Some(Dur::from_millis(100)));
    }

    #[test]
    fn backed_off_saturates_instead_of_overflowing() {
        let s = Dur::from_secs(1);
        assert_eq!(backed_off(s, 70, None), Dur::MAX);
        assert_eq!(
            backed_off(s, 40, Some(Dur::from_secs(60))),
            Dur::from_secs(60)
        );
    }

    /// What a sender may tell an estimator.
    #[derive(Clone, Debug)]
    enum Op {
        Sample {
            rtt_ms: u64,
            gap_ms: u64,
            flight: u32,
            ts: bool,
        },
        Timeout,
        /// The Karn-timed segment's ACK.
        TimedAck,
        Reseed {
            rtt_ms: u64,
        },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (1u64..5000, 0u64..3000, 0u32..64, any::<bool>()).prop_map(
                |(rtt_ms, gap_ms, flight, ts)| Op::Sample { rtt_ms, gap_ms, flight, ts }
            ),
            3 => Just(Op::Timeout),
            1 => Just(Op::TimedAck),
            1 => (1u64..8000).prop_map(|rtt_ms| Op::Reseed { rtt_ms }),
        ]
    }

    fn profiles() -> Vec<RtoConfig> {
        let mut freebsd_modified_no_syn = match RtoConfig::peak_hopper_paper_rfc2988() {
            RtoConfig::Rfc6298(c) => c,
            _ => unreachable!(),
        };
        freebsd_modified_no_syn.use_syn_sample = false;
        vec![
            RtoConfig::default(),
            RtoConfig::ns2_2002(),
            RtoConfig::peak_hopper_paper_rfc2988(),
            RtoConfig::Rfc6298(freebsd_modified_no_syn),
            RtoConfig::PeakHopper(PeakHopperConfig::default()),
            RtoConfig::Linux(LinuxConfig::default()),
            RtoConfig::Fixed(FixedConfig::default()),
        ]
    }

    /// The documented lower bound of `rto()` given the latest sample, and the maximum.
    fn bounds(cfg: &RtoConfig, last: Option<Dur>) -> (Dur, Option<Dur>) {
        let plus_2g = |g: Dur| last.map_or(Dur::ZERO, |r| r + g * 2);
        match cfg {
            RtoConfig::Rfc6298(c) => match c.min_rto_mode {
                MinRtoMode::Standard => (c.min_rto, c.max_rto),
                MinRtoMode::LastSamplePlus2g => (plus_2g(c.granularity), c.max_rto),
            },
            RtoConfig::PeakHopper(c) => (plus_2g(c.granularity), c.max_rto),
            RtoConfig::Linux(c) => (c.rto_min, c.rto_max),
            RtoConfig::Ns2(c) => (c.min_rto, c.max_rto),
            RtoConfig::Fixed(c) => (c.rto.min(c.max_rto.unwrap_or(Dur::MAX)), c.max_rto),
        }
    }

    /// Whether an RTT sample ends the back-off by itself (not so for a timestamp
    /// sample under ns-2's Karn-timed-ACK rule).
    fn sample_clears_backoff(cfg: &RtoConfig, ts: bool) -> bool {
        !matches!(cfg, RtoConfig::Rfc6298(c) if ts && c.backoff_reset == BackoffReset::KarnTimedAck)
    }

    fn syn_is_used(cfg: &RtoConfig) -> bool {
        match cfg {
            RtoConfig::Rfc6298(c) => c.use_syn_sample,
            RtoConfig::PeakHopper(c) => c.use_syn_sample,
            RtoConfig::Linux(c) => c.use_syn_sample,
            RtoConfig::Ns2(_) | RtoConfig::Fixed(_) => true,
        }
    }

    fn check_bounds(cfg: &RtoConfig, rto: &Rto, last: Option<Dur>) -> Result<(), TestCaseError> {
        let (lo, hi) = bounds(cfg, last);
        let value = rto.rto();
        prop_assert!(value >= lo, "{value} below {lo} ({cfg:?})");
        if let Some(hi) = hi {
            prop_assert!(value <= hi, "{value} above {hi} ({cfg:?})");
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn rto_stays_in_bounds_and_backoff_never_lowers_it(
            syn_ms in proptest::option::of(1u64..3000),
            ops in proptest::collection::vec(op(), 0..60),
        ) {
            for cfg in profiles() {
                let mut rto = Rto::new(&cfg);
                let mut last = None;
                let mut now = Time::ZERO;
                if let Some(s) = syn_ms {
                    rto.on_syn_sample(Dur::from_millis(s));
                    last = syn_is_used(&cfg).then_some(Dur::from_millis(s));
                }
                check_bounds(&cfg, &rto, last)?;
                for op in &ops {
                    match *op {
                        Op::Sample { rtt_ms, gap_ms, flight, ts } => {
                            now += Dur::from_millis(gap_ms);
                            let rtt = Dur::from_millis(rtt_ms);
                            let s = RttSample { now, rtt, flight_segments: flight, from_timestamps: ts };
                            let n = rto.backoff_count();
                            rto.on_rtt_sample(&s);
                            last = Some(rtt);
                            let kept = if sample_clears_backoff(&cfg, ts) { 0 } else { n };
                            prop_assert_eq!(rto.backoff_count(), kept);
                        }
                        Op::TimedAck => {
                            // Only RFC 6298's back-off waits for it; others ignore it.
                            let n = rto.backoff_count();
                            rto.on_timed_segment_acked();
                            let left = if matches!(cfg, RtoConfig::Rfc6298(_)) { 0 } else { n };
                            prop_assert_eq!(rto.backoff_count(), left);
                        }
                        Op::Timeout => {
                            let (before, n) = (rto.rto(), rto.backoff_count());
                            rto.on_timeout();
                            prop_assert!(rto.rto() >= before, "back-off lowered the RTO");
                            prop_assert_eq!(rto.backoff_count(), n + 1);
                        }
                        Op::Reseed { rtt_ms } => {
                            rto.on_spurious_timeout_reseed(Dur::from_millis(rtt_ms), ReseedRule::Rfc4015);
                            last = Some(Dur::from_millis(rtt_ms));
                            prop_assert_eq!(rto.backoff_count(), 0);
                        }
                    }
                    check_bounds(&cfg, &rto, last)?;
                }
            }
        }
    }
}
