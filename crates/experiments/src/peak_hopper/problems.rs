//! The three problems of the RFC2988-RTO in [Ekström & Ludwig 2004] section II, shown by
//! feeding RTT sequences straight into the estimators
//! ([`RtoEstimator::on_rtt_sample`]), as the paper's Figs. 2 and 3 show them:
//!
//! * II.C "Fixed gains don't scale" (Fig. 2): with every packet timed, the RTT rising in
//!   steps as a queue builds, SRTT converges to the RTT and RTTVAR to zero, so the RTO
//!   hugs the RTT.
//! * II.D "Sluggish response to delay-spikes" (Fig. 3): after a 1 s spike the RTO computed
//!   on the first delayed sample "lies just above the RTT" and takes "another 3
//!   RTT-Samples" to reach "about 3.3 seconds".
//! * II.E "The prediction flaw" (Fig. 3): when the RTT drops back, RTTVAR grows and "the
//!   RTO shoots up to a level 6 times higher than the RTT".
//!
//! The paper does not publish its sequences, so ours are synthetic and stated in full in
//! [`fig2_samples`] and [`fig3_samples`].

use super::{comparison, line_figure, ts_label, write_csv, Cell};
use crate::report::{Block, Comparison};
use crate::reproduction::Context;
use spikelab_core::{Dur, Time};
use spikelab_output::plot::Series;
use spikelab_tcp::rto::{PeakHopperConfig, Rto, RtoConfig, RtoEstimator, RttSample};

/// One RTT measurement of a synthetic sequence.
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

/// Runs `cfg` over `samples`: every sample with timestamps, the first of each flight
/// without (III.B's footnote: "one RTT sample per flight when no timestamps are used").
/// The estimator is seeded with the first sample as its handshake sample, so both
/// timers start from their III.C / V.A initialisation.
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

/// Fig. 2's windows, segments per flight: slow start from 2 to 128, then six flights
/// at 128 (a receiver window of 128 segments).
const FIG2_WINDOWS: [u64; 13] = [2, 4, 8, 16, 32, 64, 128, 128, 128, 128, 128, 128, 128];

/// Fig. 2's sequence: "a single TCP connection runs across a bottleneck with a high
/// bandwidth-delay product, and every packet is timed. The RTT samples form a step
/// function as soon as packets start queuing at the bottleneck." Our bottleneck sends a
/// segment per 5 ms behind a 100 ms base RTT (a pipe of 20 segments); a flight of `w`
/// segments sees an RTT of 100 ms + (w - 20) x 5 ms once `w` exceeds the pipe, the
/// same for every segment of the flight (the step function), and its `w` ACKs arrive
/// evenly spread over its round trip. The windows are [`FIG2_WINDOWS`].
pub fn fig2_samples() -> Vec<Measured> {
    let (base, per_segment, pipe) = (Dur::from_millis(100), Dur::from_millis(5), 20u64);
    let mut at = Time::ZERO;
    let mut out = Vec::new();
    for w in FIG2_WINDOWS {
        let rtt = base + per_segment * w.saturating_sub(pipe);
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

/// When Fig. 3's spike begins: 850.5 s, as in the paper's figure.
pub const FIG3_SPIKE_AT: f64 = 850.5;

/// Fig. 3's sequence: 8 segments per flight and an RTT of 0.5 s, so an ACK every
/// 62.5 ms from 840 s; the spike delays every packet by 1 s: no ACK arrives between
/// 850.5 and 851.5 s, the ACKs of the next 0.5 s carry a 1.5 s RTT ("the RTT suddenly
/// increases by one second"; "the RTT remains relatively stable during that time"), and
/// from 852 s the RTT is 0.5 s again ("the RTT drops back to the level it had before").
/// 0.5 s and 8 segments are our choice (the paper gives neither); they are Scenario B's
/// RTT and window at 384 kbit/s.
pub fn fig3_samples() -> Vec<Measured> {
    let (rtt0, w) = (Dur::from_millis(500), 8u64);
    let gap = Dur(rtt0.0 / w);
    let spike = Time::from_secs_f64(FIG3_SPIKE_AT);
    let mut out = Vec::new();
    let mut at = Time::from_secs_f64(840.0);
    let mut k = 0u64;
    while at < Time::from_secs_f64(856.0) {
        let delayed = at >= spike + Dur::from_secs(1) && at < spike + Dur::from_millis(1500);
        let silent = at >= spike && at < spike + Dur::from_secs(1);
        if !silent {
            out.push(Measured {
                at,
                rtt: if delayed {
                    rtt0 + Dur::from_secs(1)
                } else {
                    rtt0
                },
                flight: w as u32,
                first_of_flight: k.is_multiple_of(w),
            });
            k += 1;
        }
        at += gap;
    }
    out
}

/// What Fig. 3 shows of one timer.
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

/// Reads [`SpikeResponse`] off a run of [`feed`] over [`fig3_samples`].
pub fn spike_response(rows: &[Computed]) -> SpikeResponse {
    let raised = Dur::from_secs(1);
    let delayed: Vec<&Computed> = rows.iter().filter(|c| c.rtt > raised).collect();
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

/// The section II part of the report: Figs. 2 and 3 as PNG/SVG and CSV, and the
/// Fig. 3 numbers beside the paper's.
pub fn report(ctx: &Context) -> anyhow::Result<Vec<Block>> {
    let timers = [
        ("RFC2988-RTO", RtoConfig::peak_hopper_paper_rfc2988()),
        ("PH-RTO", RtoConfig::PeakHopper(PeakHopperConfig::default())),
    ];
    let mut blocks = vec![Block::Text(INTRO.into())];
    for (fig, samples) in [("fig2", fig2_samples()), ("fig3", fig3_samples())] {
        let mut series = vec![rtt_series(&samples)];
        let mut rows = Vec::new();
        for (label, cfg) in &timers {
            for ts in [true, false] {
                let c = feed(cfg, &samples, ts);
                let name = format!("{label} {}", ts_label(ts));
                rows.extend(c.iter().map(|c| csv_row(&name, c)));
                series.push(rto_series(&name, &c));
            }
        }
        let base = ctx.dir.join(format!("ii-{fig}"));
        write_csv(
            &base.with_extension("csv"),
            &["timer", "time_s", "rtt_s", "rto_s"],
            &rows,
        )?;
        let title = match fig {
            "fig2" => "Fig. 2: fixed gains don't scale (every packet timed with timestamps)",
            _ => "Fig. 3: sluggish response to a delay spike, and the prediction flaw",
        };
        blocks.push(line_figure(
            ctx, &base, title, "time (s)", "seconds", &series,
        )?);
    }
    blocks.push(Block::Comparisons(fig3_comparisons(&timers[0].1)));
    Ok(blocks)
}

const INTRO: &str = "Section II's three problems of the RFC2988-RTO, shown by feeding synthetic \
RTT sequences straight into the estimators (the same code the simulated senders run). Fig. 2: \
slow start from 2 to 128 segments over a 20-segment pipe, then 6 flights at 128; every segment \
of a flight sees the same RTT (100 ms + 5 ms per queued segment, up to 640 ms), every ACK timed \
with timestamps. The RFC2988-RTO with timestamps falls onto its floor RTT + 2G within each \
flight; the PH-RTO hops by B_max on each step and decays by about 1/F per flight whatever the \
flight size (S = flight size). Fig. 3: an RTT of 0.5 s with 8 \
segments per flight, then no ACK for 1 s, 0.5 s of ACKs with a 1.5 s RTT, and 0.5 s again. The \
paper does not publish its sequences; the numbers below are what ours give.";

fn csv_row(timer: &str, c: &Computed) -> Vec<Cell> {
    vec![
        Cell::S(timer.into()),
        Cell::F(c.at.as_secs_f64()),
        Cell::F(c.rtt.as_secs_f64()),
        Cell::F(c.rto.as_secs_f64()),
    ]
}

fn rtt_series(samples: &[Measured]) -> Series {
    Series {
        label: "RTT sample".into(),
        points: samples
            .iter()
            .map(|m| (m.at.as_secs_f64(), m.rtt.as_secs_f64()))
            .collect(),
        ci: vec![],
    }
}

fn rto_series(label: &str, rows: &[Computed]) -> Series {
    Series {
        label: format!("RTO, {label}"),
        points: rows
            .iter()
            .map(|c| (c.at.as_secs_f64(), c.rto.as_secs_f64()))
            .collect(),
        ci: vec![],
    }
}

/// II.D and II.E's numbers for the RFC2988-RTO with timestamps ("every packet is timed
/// in this case").
fn fig3_comparisons(rfc: &RtoConfig) -> Vec<Comparison> {
    let r = spike_response(&feed(rfc, &fig3_samples(), true));
    vec![
        comparison(
            "Fig. 3 RFC2988-RTO: samples after the first delayed one until the peak",
            r.samples_to_peak as f64,
            None,
            3.0,
            "samples",
        ),
        comparison(
            "Fig. 3 RFC2988-RTO: peak RTO during the spike",
            r.peak_rto_s,
            None,
            3.3,
            "s",
        ),
        comparison(
            "Fig. 3 RFC2988-RTO: largest RTO / RTT after the RTT drops back",
            r.after_drop_ratio,
            None,
            6.0,
            "x RTT",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rfc() -> RtoConfig {
        RtoConfig::peak_hopper_paper_rfc2988()
    }

    fn ph() -> RtoConfig {
        RtoConfig::PeakHopper(PeakHopperConfig::default())
    }

    #[test]
    fn fig2_rfc_with_timestamps_hugs_the_rtt_and_ph_keeps_a_margin() {
        let s = fig2_samples();
        assert_eq!(s.len() as u64, FIG2_WINDOWS.iter().sum::<u64>());
        let margin = |rows: &[Computed]| {
            let last = rows.last().unwrap();
            last.rto.as_secs_f64() / last.rtt.as_secs_f64()
        };
        let rfc_ts = feed(&rfc(), &s, true);
        // The floor RTT + 2G is all that is left: 640 ms + 20 ms.
        assert!(margin(&rfc_ts) < 1.05, "{}", margin(&rfc_ts));
        assert!(margin(&feed(&rfc(), &s, false)) > margin(&rfc_ts));
        assert!(margin(&feed(&ph(), &s, true)) > 1.2);
    }

    #[test]
    fn fig3_shows_sluggishness_and_the_prediction_flaw_for_rfc_only() {
        let s = fig3_samples();
        let rfc_ts = spike_response(&feed(&rfc(), &s, true));
        assert!(rfc_ts.first_ratio < 1.25, "{rfc_ts:?}");
        assert!(rfc_ts.samples_to_peak >= 2, "{rfc_ts:?}");
        assert!(rfc_ts.after_drop_ratio > 4.0, "{rfc_ts:?}");
        assert!(rfc_ts.after_drop_rise > 1.0, "{rfc_ts:?}");
        let ph_ts = spike_response(&feed(&ph(), &s, true));
        assert!(ph_ts.first_ratio >= 1.5 - 1e-9, "{ph_ts:?}");
        assert_eq!(ph_ts.samples_to_peak, 0);
        assert!(ph_ts.after_drop_rise <= 1.0, "{ph_ts:?}");
    }
}
