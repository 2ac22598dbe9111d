//! Estimator feeds: a synthetic RTT sequence fed straight into RTO estimators
//! ([`RtoEstimator::on_rtt_sample`], the same code the simulated senders run), without
//! a simulation, as [Ekström & Ludwig 2004] section II shows the RFC2988-RTO's problems
//! (Figs. 2 and 3). A `[[feed]]` names its sequence, the timers fed with and without
//! timestamps, and the numbers read off the result beside the paper's; the layout item
//! `feed:<name>` writes `<name>.csv` and draws `<name>.{png,svg}` (the RTT samples and
//! one RTO line per timer and timestamp setting), `feed_comparisons:<name>` shows its
//! comparisons.
//!
//! ```toml
//! [[feed]]
//! name = "ii-fig3"
//! title = "Fig. 3: ..."
//! x_label = "time (s)"
//! y_label = "seconds"
//! sequence = { kind = "ack-clock", start = "840s", stop = "856s", rtt = "500ms", flight = 8, phases = [
//!   { from = "850.5s", to = "851.5s", silent = true },
//!   { from = "851.5s", to = "852s", add = "1s" },
//! ] }
//! timers = [{ label = "RFC2988-RTO", rto = { kind = "rfc6298" } }]
//! [[feed.comparison]]
//! what = "peak RTO during the spike"
//! timer = "RFC2988-RTO"
//! timestamps = true
//! metric = "spike_peak_rto_s"
//! paper = 3.3
//! unit = "s"
//! ```

use super::spec::ExperimentSpec;
use crate::artifacts::{chart, csv_file, finish_csv, line_figure};
use crate::context::Context;
use crate::report::{Block, Comparison};
use anyhow::anyhow;
use serde::Deserialize;
use spikelab_core::{Dur, Time};
use spikelab_output::plot::Series;
use spikelab_scenario::{FieldPath, Invalid};
use spikelab_tcp::rto::{Rto, RtoConfig, RtoEstimator, RttSample};

/// One feed: a sequence, the timers, and the numbers compared with the paper's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedSpec {
    /// The base name of its CSV file and chart.
    pub name: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub sequence: Sequence,
    pub timers: Vec<FeedTimer>,
    /// The timestamp settings each timer is fed with, in order (default: with, without).
    #[serde(default = "with_and_without")]
    pub timestamps: Vec<bool>,
    #[serde(default)]
    pub comparison: Vec<FeedComparison>,
}

fn with_and_without() -> Vec<bool> {
    vec![true, false]
}

/// An RTO estimator under a label.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedTimer {
    pub label: String,
    pub rto: RtoConfig,
}

/// A number read off one timer's result ([`METRICS`]) beside the paper's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedComparison {
    pub what: String,
    pub timer: String,
    pub timestamps: bool,
    pub metric: String,
    pub paper: f64,
    pub unit: String,
}

/// A synthetic RTT sequence.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Sequence {
    /// Flights of `windows[i]` segments back to back from time zero; a flight of `w`
    /// sees the RTT `base + (w - pipe) x per_queued` (`base` while `w <= pipe`), the
    /// same for each of its segments (a step function), its `w` ACKs spread evenly
    /// over its round trip; the next flight starts when it ends.
    Flights {
        base: Dur,
        per_queued: Dur,
        pipe: u64,
        windows: Vec<u64>,
    },
    /// An ACK every `rtt / flight` from `start` until before `stop`, each with RTT
    /// `rtt`, except in `phases`: none in a `silent` one, `rtt + add` in another.
    AckClock {
        start: Dur,
        stop: Dur,
        rtt: Dur,
        flight: u64,
        #[serde(default)]
        phases: Vec<Phase>,
    },
}

/// A stretch `[from, to)` of an [`Sequence::AckClock`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phase {
    pub from: Dur,
    pub to: Dur,
    #[serde(default)]
    pub silent: bool,
    #[serde(default)]
    pub add: Option<Dur>,
}

/// One RTT measurement of a sequence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Arrival of the ACK.
    pub at: Time,
    pub rtt: Dur,
    /// Segments in flight when it arrived (Peak-Hopper's S with timestamps).
    pub flight: u32,
    /// First sample of its flight: the one a sender without timestamps times.
    pub first_of_flight: bool,
}

/// An RTO computation: the sample and the RTO that resulted (a P_j).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Computed {
    pub at: Time,
    pub rtt: Dur,
    pub rto: Dur,
}

impl Sequence {
    /// Every measurement, in time order.
    pub fn samples(&self) -> Vec<Measured> {
        match self {
            Sequence::Flights {
                base,
                per_queued,
                pipe,
                windows,
            } => flights(*base, *per_queued, *pipe, windows),
            Sequence::AckClock {
                start,
                stop,
                rtt,
                flight,
                phases,
            } => ack_clock(*start, *stop, *rtt, *flight, phases),
        }
    }
}

fn flights(base: Dur, per_queued: Dur, pipe: u64, windows: &[u64]) -> Vec<Measured> {
    let mut at = Time::ZERO;
    let mut out = Vec::new();
    for &w in windows {
        let rtt = base + per_queued * w.saturating_sub(pipe);
        for k in 0..w {
            out.push(Measured {
                at: at + Dur(rtt.0 * k / w),
                rtt,
                flight: w as u32,
                first_of_flight: k == 0,
            });
        }
        at += rtt;
    }
    out
}

fn ack_clock(start: Dur, stop: Dur, rtt: Dur, flight: u64, phases: &[Phase]) -> Vec<Measured> {
    let gap = Dur(rtt.0 / flight.max(1));
    let (mut at, stop) = (Time::ZERO + start, Time::ZERO + stop);
    let mut out = Vec::new();
    let mut k = 0u64;
    while at < stop && gap > Dur::ZERO {
        let phase = phases
            .iter()
            .find(|p| at >= Time::ZERO + p.from && at < Time::ZERO + p.to);
        if !phase.is_some_and(|p| p.silent) {
            let add = phase.and_then(|p| p.add).unwrap_or(Dur::ZERO);
            out.push(Measured {
                at,
                rtt: rtt + add,
                flight: flight as u32,
                first_of_flight: k.is_multiple_of(flight),
            });
            k += 1;
        }
        at += gap;
    }
    out
}

/// Runs `cfg` over `samples`: every sample with timestamps, the first of each flight
/// without ([Ekström & Ludwig 2004] III.B's footnote: "one RTT sample per flight when
/// no timestamps are used"). The estimator is seeded with the first sample as its
/// handshake sample, so every timer starts from its initialisation.
pub fn feed(cfg: &RtoConfig, samples: &[Measured], timestamps: bool) -> Vec<Computed> {
    let mut rto = Rto::new(cfg);
    if let Some(first) = samples.first() {
        rto.on_syn_sample(first.rtt);
    }
    samples
        .iter()
        .filter(|m| timestamps || m.first_of_flight)
        .map(|m| {
            rto.on_rtt_sample(&RttSample {
                now: m.at,
                rtt: m.rtt,
                flight_segments: m.flight,
                from_timestamps: timestamps,
            });
            Computed {
                at: m.at,
                rtt: m.rtt,
                rto: rto.rto(),
            }
        })
        .collect()
}

/// How a timer answers a delay spike ([Ekström & Ludwig 2004] II.D, II.E, Fig. 3). The
/// delayed samples are those whose RTT is above the lowest RTT fed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpikeResponse {
    /// RTO / RTT on the first delayed sample ("just above the RTT" for RFC 2988).
    pub first_ratio: f64,
    /// The largest RTO while the RTT is raised, in seconds ("about 3.3 seconds").
    pub peak_rto_s: f64,
    /// Delayed samples after the first until that largest RTO ("another 3").
    pub samples_to_peak: usize,
    /// The largest RTO / RTT after the RTT drops back ("6 times higher").
    pub after_drop_ratio: f64,
    /// The largest RTO after the drop / the RTO on the last delayed sample: above 1 when
    /// the drop raises the RTO (the prediction flaw).
    pub after_drop_rise: f64,
}

/// Reads [`SpikeResponse`] off a run of [`feed`].
pub fn spike_response(rows: &[Computed]) -> SpikeResponse {
    let lowest = rows.iter().map(|c| c.rtt).min().unwrap_or(Dur::ZERO);
    let delayed: Vec<&Computed> = rows.iter().filter(|c| c.rtt > lowest).collect();
    let drop_at = delayed.last().map_or(Time::MAX, |c| c.at);
    let peak_idx =
        delayed.iter().enumerate().fold(
            0,
            |best, (i, c)| if c.rto > delayed[best].rto { i } else { best },
        );
    let ratio = |c: &Computed| c.rto.as_secs_f64() / c.rtt.as_secs_f64();
    let after: Vec<&Computed> = rows.iter().filter(|c| c.at > drop_at).collect();
    let max_after = after.iter().map(|c| c.rto).max();
    SpikeResponse {
        first_ratio: delayed.first().map_or(f64::NAN, |c| ratio(c)),
        peak_rto_s: delayed
            .get(peak_idx)
            .map_or(f64::NAN, |c| c.rto.as_secs_f64()),
        samples_to_peak: peak_idx,
        after_drop_ratio: after.iter().map(|c| ratio(c)).fold(f64::NAN, f64::max),
        after_drop_rise: match (max_after, delayed.last()) {
            (Some(m), Some(l)) => m.as_secs_f64() / l.rto.as_secs_f64(),
            _ => f64::NAN,
        },
    }
}

/// A number of one timer's RTO computations.
pub struct FeedMetric {
    pub name: &'static str,
    pub value: fn(&[Computed]) -> f64,
}

/// Every feed metric, by name.
pub const METRICS: &[FeedMetric] = &[
    FeedMetric {
        name: "spike_first_ratio",
        value: |r| spike_response(r).first_ratio,
    },
    FeedMetric {
        name: "spike_peak_rto_s",
        value: |r| spike_response(r).peak_rto_s,
    },
    FeedMetric {
        name: "spike_samples_to_peak",
        value: |r| spike_response(r).samples_to_peak as f64,
    },
    FeedMetric {
        name: "spike_after_drop_ratio",
        value: |r| spike_response(r).after_drop_ratio,
    },
    FeedMetric {
        name: "spike_after_drop_rise",
        value: |r| spike_response(r).after_drop_rise,
    },
    FeedMetric {
        name: "last_rto_over_rtt",
        value: |r| {
            r.last()
                .map_or(f64::NAN, |c| c.rto.as_secs_f64() / c.rtt.as_secs_f64())
        },
    },
];

fn metric(name: &str) -> Option<&'static FeedMetric> {
    METRICS.iter().find(|m| m.name == name)
}

/// Every feed's comparisons name one of its timers and a known metric, and feed names
/// are unique.
pub fn check(spec: &ExperimentSpec) -> Result<(), Invalid> {
    for (i, f) in spec.feed.iter().enumerate() {
        let at = FieldPath::root("feed").index(i);
        if spec.feed[..i].iter().any(|o| o.name == f.name) {
            let why = format!("feed `{}`: a second feed of that name", f.name);
            return Err(Invalid::new(at.key("name"), why));
        }
        for (j, c) in f.comparison.iter().enumerate() {
            let c_at = at.key("comparison").index(j);
            if !f.timers.iter().any(|t| t.label == c.timer) {
                let why = format!("feed `{}`: no timer `{}`", f.name, c.timer);
                return Err(Invalid::new(c_at.key("timer"), why));
            }
            if metric(&c.metric).is_none() {
                let known: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
                let why = format!(
                    "feed `{}`: unknown feed metric `{}` (known: {})",
                    f.name,
                    c.metric,
                    known.join(", ")
                );
                return Err(Invalid::new(c_at.key("metric"), why));
            }
        }
    }
    Ok(())
}

/// "with timestamps" / "without timestamps".
fn ts_label(ts: bool) -> &'static str {
    if ts {
        "with timestamps"
    } else {
        "without timestamps"
    }
}

/// Layout item `feed:<name>`: writes `<name>.csv` (timer, time_s, rtt_s, rto_s: every
/// RTO computation of every timer and setting) and draws `<name>.{png,svg}`.
pub fn block(ctx: &Context, f: &FeedSpec) -> anyhow::Result<Block> {
    let samples = f.sequence.samples();
    let mut series = vec![Series {
        label: "RTT sample".into(),
        points: samples
            .iter()
            .map(|m| (m.at.as_secs_f64(), m.rtt.as_secs_f64()))
            .collect(),
        ci: vec![],
    }];
    let header = ["timer", "time_s", "rtt_s", "rto_s"];
    let mut w = csv_file(&ctx.dir.join(format!("{}.csv", f.name)), &header)?;
    for t in &f.timers {
        for &ts in &f.timestamps {
            let name = format!("{} {}", t.label, ts_label(ts));
            let rows = feed(&t.rto, &samples, ts);
            for c in &rows {
                w.field_str(&name)?;
                for v in [c.at, Time::ZERO + c.rtt, Time::ZERO + c.rto] {
                    w.field_f64(v.as_secs_f64())?;
                }
                w.end_row()?;
            }
            series.push(Series {
                label: format!("RTO, {name}"),
                points: rows
                    .iter()
                    .map(|c| (c.at.as_secs_f64(), c.rto.as_secs_f64()))
                    .collect(),
                ci: vec![],
            });
        }
    }
    finish_csv(w)?;
    let ch = chart(&f.title, &f.x_label, &f.y_label);
    Ok(Block::Figure(line_figure(ctx, &f.name, ch, &series)?))
}

/// Layout item `feed_comparisons:<name>`: the feed's numbers beside the paper's.
pub fn comparisons(f: &FeedSpec) -> anyhow::Result<Block> {
    let samples = f.sequence.samples();
    let cs = f
        .comparison
        .iter()
        .map(|c| {
            let t = f.timers.iter().find(|t| t.label == c.timer);
            let t = t.ok_or_else(|| anyhow!("feed `{}`: no timer `{}`", f.name, c.timer))?;
            let m = metric(&c.metric).ok_or_else(|| anyhow!("no feed metric `{}`", c.metric))?;
            Ok(Comparison {
                what: c.what.clone(),
                ours: (m.value)(&feed(&t.rto, &samples, c.timestamps)),
                ours_ci95: None,
                paper: c.paper,
                unit: c.unit.clone(),
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Block::Comparisons(cs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(text: &str) -> Sequence {
        #[derive(Deserialize)]
        struct S {
            sequence: Sequence,
        }
        toml::from_str::<S>(text).unwrap().sequence
    }

    #[test]
    fn flights_form_a_step_function_spread_over_each_round_trip() {
        let s = seq(r#"sequence = { kind = "flights", base = "100ms", per_queued = "5ms", pipe = 2, windows = [2, 4] }"#)
            .samples();
        assert_eq!(s.len(), 6);
        assert!(s[..2].iter().all(|m| m.rtt == Dur::from_millis(100)));
        assert_eq!(s[1].at, Time::ZERO + Dur::from_millis(50));
        assert!(s[2..].iter().all(|m| m.rtt == Dur::from_millis(110)));
        assert_eq!(s[2].at, Time::ZERO + Dur::from_millis(100));
        assert_eq!(s[3].at, Time::ZERO + Dur::from_micros(127_500));
        let firsts: Vec<bool> = s.iter().map(|m| m.first_of_flight).collect();
        assert_eq!(firsts, [true, false, true, false, false, false]);
    }

    #[test]
    fn an_ack_clock_skips_silent_phases_and_raises_the_rtt_in_others() {
        let s = seq(r#"sequence = { kind = "ack-clock", start = "1s", stop = "3s", rtt = "400ms", flight = 4, phases = [{ from = "1.5s", to = "2s", silent = true }, { from = "2s", to = "2.2s", add = "1s" }] }"#)
            .samples();
        // Every 100 ms from 1 s to 2.9 s, less the 5 silent ones.
        assert_eq!(s.len(), 20 - 5);
        assert!(s.iter().all(|m| m.at < Time::ZERO + Dur::from_millis(1500)
            || m.at >= Time::ZERO + Dur::from_secs(2)));
        let raised: Vec<_> = s.iter().filter(|m| m.rtt > Dur::from_millis(400)).collect();
        assert_eq!(raised.len(), 2);
        assert_eq!(raised[0].rtt, Dur::from_millis(1400));
        assert!(s[0].first_of_flight && s[4].first_of_flight && !s[5].first_of_flight);
    }

    #[test]
    fn without_timestamps_only_the_first_sample_of_a_flight_is_fed() {
        let s = seq(r#"sequence = { kind = "flights", base = "100ms", per_queued = "5ms", pipe = 20, windows = [2, 4, 8] }"#)
            .samples();
        let cfg = RtoConfig::peak_hopper_paper_rfc2988();
        assert_eq!(feed(&cfg, &s, true).len(), 14);
        assert_eq!(feed(&cfg, &s, false).len(), 3);
    }

    #[test]
    fn the_spike_response_reads_the_peak_and_the_rise_after_the_drop() {
        let ms = |v: u64| Dur::from_millis(v);
        let row = |t: u64, rtt: u64, rto: u64| Computed {
            at: Time::ZERO + ms(t),
            rtt: ms(rtt),
            rto: ms(rto),
        };
        let rows = [
            row(0, 500, 700),
            row(100, 1500, 1600),
            row(200, 1500, 2500),
            row(300, 1500, 2400),
            row(400, 500, 3000),
            row(500, 500, 2000),
        ];
        let r = spike_response(&rows);
        assert_eq!(r.samples_to_peak, 1);
        assert_eq!(r.peak_rto_s, 2.5);
        assert!((r.first_ratio - 1600.0 / 1500.0).abs() < 1e-12);
        assert_eq!(r.after_drop_ratio, 6.0);
        assert_eq!(r.after_drop_rise, 3000.0 / 2400.0);
    }
}
