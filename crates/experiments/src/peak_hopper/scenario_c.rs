//! Scenario C of [Ekström & Ludwig 2004] (IV.B.3, results V.D): the WCDMA-like link's data
//! path goes down for d seconds every 50 s; the share of outages that caused a spurious
//! timeout (Fig. 17), and the microscopic view of two 0.9 s outages at 20 s and 27 s
//! (Fig. 18) with the RTO's peak and half-life after the second.

use super::setup::{scenario_fig18, scenario_wcdma, Timer, WcdmaCell};
use super::{comparison, line_figure, ts_label, write_csv, Cell, Scale};
use crate::grid::outage_metrics::{count_outages, half_life_after_last_outage, OutageCount};
use crate::report::{Block, Comparison, Table};
use crate::reproduction::Context;
use crate::runner::{run_cells, Batch};
use crate::timer_metrics::{starts_recovery, HalfLife};
use spikelab_core::Time;
use spikelab_engine::results::RtoSample;
use spikelab_engine::{RunResult, SimConfig};
use spikelab_output::plot::Series;
use spikelab_output::stats::Summary;

/// The timers and timestamp settings, in the order of Fig. 18's panels: a) PH without
/// timestamps, b) RFC 2988 without, c) PH with, d) RFC 2988 with.
const COMBOS: [(Timer, bool); 4] = [
    (Timer::PeakHopper, false),
    (Timer::Rfc2988, false),
    (Timer::PeakHopper, true),
    (Timer::Rfc2988, true),
];

/// Fig. 17's cells: every outage duration, rate, timestamp setting and timer.
pub fn cells(scale: Scale) -> Vec<WcdmaCell> {
    let mut out = Vec::new();
    for d in scale.c_durations_ms() {
        for kbps in [384, 64] {
            for (timer, timestamps) in COMBOS {
                out.push(WcdmaCell {
                    timer,
                    timestamps,
                    kbps,
                    outage_ms: Some(d),
                    stop_s: scale.c_stop_s(),
                });
            }
        }
    }
    out
}

/// Fig. 17's cells and, per cell, every run's outage count.
pub fn simulate_outages(
    ctx: &Context,
    scale: Scale,
) -> anyhow::Result<(Vec<WcdmaCell>, Vec<Vec<OutageCount>>)> {
    let cells = cells(scale);
    let sims = cells
        .iter()
        .map(scenario_wcdma)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let batch = Batch {
        reps: scale.c_runs_per_cell(ctx.reps),
        ..ctx.batch()
    };
    let runs = run_cells(&sims, batch, |c, _, r| count_outages(&sims[c], r))?;
    Ok((cells, runs))
}

/// One Fig. 18 run of one timer.
#[derive(Clone, Debug)]
pub struct Fig18Run {
    /// The RTO's peak and half-life after the second outage (27 s).
    pub half: Option<HalfLife>,
    /// Spurious timeouts that start a recovery phase.
    pub spurious: u64,
    /// Every RTO computation.
    pub samples: Vec<RtoSample>,
}

/// Fig. 18's length, seconds: 33 s after the second outage, enough for the slowest
/// half-life the paper reports (10 s) three times over.
pub const FIG18_STOP_S: u32 = 60;

/// Fig. 18 at 384 kbit/s for the four combinations, `ctx.reps` seeds each.
pub fn simulate_fig18(ctx: &Context) -> anyhow::Result<Vec<Vec<Fig18Run>>> {
    let sims = COMBOS
        .iter()
        .map(|&(timer, timestamps)| {
            scenario_fig18(&WcdmaCell {
                timer,
                timestamps,
                kbps: 384,
                outage_ms: None,
                stop_s: FIG18_STOP_S,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(run_cells(&sims, ctx.batch(), |c, _, r| {
        fig18_run(&sims[c], r)
    })?)
}

/// The half-life is taken after the schedule's last outage, the second (27 s).
fn fig18_run(sim: &SimConfig, r: &RunResult) -> Fig18Run {
    let samples = r.flows[0].rto_samples.clone();
    Fig18Run {
        half: half_life_after_last_outage(sim, r, 0),
        spurious: r
            .timeouts
            .iter()
            .filter(|t| starts_recovery(t) && t.truth.is_spurious())
            .count() as u64,
        samples,
    }
}

/// The paper's Fig. 18 numbers per combination: (peak RTO s, half-life s). V.D gives the
/// PH peaks as 3 s without and 2.7 s with timestamps, RFC 2988's as 1.9 s without and
/// 3.3 s with; half-lives 10, 7.2, 6.9 and 1.8 s.
const PAPER_FIG18: [(f64, f64); 4] = [(3.0, 10.0), (1.9, 7.2), (2.7, 6.9), (3.3, 1.8)];

/// Scenario C's part of the report.
pub fn report(ctx: &Context, scale: Scale) -> anyhow::Result<Vec<Block>> {
    let (cells, runs) = simulate_outages(ctx, scale)?;
    write_outages_csv(ctx, &cells, &runs)?;
    let mut blocks = vec![Block::Text(text(scale, ctx.reps))];
    for ts in [true, false] {
        blocks.push(fig17(ctx, &cells, &runs, ts)?);
    }
    blocks.push(Block::Table(fig17_table(
        &cells,
        &runs,
        &scale.c_durations_ms(),
    )));
    let f18 = simulate_fig18(ctx)?;
    write_fig18_csv(ctx, &f18)?;
    blocks.push(Block::Text(FIG18_TEXT.into()));
    for (k, (timer, ts)) in COMBOS.iter().enumerate() {
        blocks.push(fig18_panel(ctx, k, *timer, *ts, &f18[k][0])?);
    }
    blocks.push(Block::Table(fig18_table(&f18)));
    let mut comps = fig17_comparisons(&cells, &runs, &scale.c_durations_ms());
    comps.extend(fig18_comparisons(&f18));
    blocks.push(Block::Comparisons(comps));
    blocks.push(Block::Text(DIFFERENCES.into()));
    Ok(blocks)
}

const DIFFERENCES: &str = "Fig. 17: as in the paper, the PH-RTO is hit by fewer outages than the \
RFC2988-RTO wherever the RFC2988-RTO is below 100 %, with and without timestamps, but our curves rise at shorter \
outages (0.75-2 s at 384 kbit/s) than the paper's highlighted 2.2 s, where both of ours are at \
100 %; and at 64 kbit/s no outage up to 3 s causes a spurious timeout for either timer, because \
ns-2's 20-packet window over a 64 kbit/s link makes our RTT about 4 s, so the RTO plus the \
RTO-offset outlasts any outage. Where each curve rises is set by the RTT, i.e. by the window, \
packet size and WCDMA model the paper does not give. Fig. 18: the peaks agree within 8 %; the \
half-lives keep the paper's order with timestamps (RFC 2988's far shorter, its scaling flaw) \
and without (the PH-RTO's longer), but ours are longer than the paper's except RFC 2988's with \
timestamps; the paper read its half-lives off one trace by eye, ours average 100 seeds. Our \
RFC2988-RTO with timestamps takes about one spurious timeout per trace on average, not the two \
of the paper's single trace (c-fig18.csv has the count per seed).";

fn text(scale: Scale, reps: u32) -> String {
    format!(
        "Scenario C (IV.B.3): Scenario B's link with a 30-packet queue (larger than the \
         20-packet window, so nothing is dropped) whose data direction is suspended for d \
         every 50 s from 50 s on; {} s runs (the outages at 50, 100, ... s that end before the stop count), {} per cell. An outage counts as having \
         caused a spurious timeout when a spurious timeout that starts a recovery phase fires \
         between its start and the next outage's start (nothing else causes spurious timeouts \
         here: Scenario B has none). Fig. 17 plots the mean over runs of the per-run \
         percentage, with 95% confidence intervals.",
        scale.c_stop_s(),
        scale.c_runs_per_cell(reps)
    )
}

const FIG18_TEXT: &str = "Fig. 18: 0.9 s outages of the data path at 20 s and 27 s, 384 kbit/s \
(the paper does not say which rate; at 64 kbit/s our 20-packet window alone makes the RTT about \
4 s, far above the RTOs the figure shows). The panels show the first seed; the table and the \
comparisons average every seed. The half-life is measured as the paper measured it by eye: from \
the largest RTO computed after the second outage began to the first RTO computation at or below \
half of it.";

fn write_outages_csv(
    ctx: &Context,
    cells: &[WcdmaCell],
    runs: &[Vec<OutageCount>],
) -> anyhow::Result<()> {
    let header = [
        "timer",
        "kbps",
        "timestamps",
        "d_s",
        "rep",
        "outages",
        "hits",
    ];
    let mut rows = Vec::new();
    for (c, rs) in cells.iter().zip(runs) {
        for (rep, o) in rs.iter().enumerate() {
            rows.push(vec![
                Cell::S(c.timer.label().into()),
                Cell::U(c.kbps.into()),
                Cell::U(c.timestamps.into()),
                Cell::F(f64::from(c.outage_ms.unwrap_or(0)) / 1000.0),
                Cell::U(rep as u64),
                Cell::U(o.outages),
                Cell::U(o.hits),
            ]);
        }
    }
    write_csv(&ctx.dir.join("c-outages.csv"), &header, &rows)
}

fn percent_summary(runs: &[OutageCount]) -> Summary {
    Summary::of(&runs.iter().map(OutageCount::percent).collect::<Vec<_>>())
}

fn fig17(
    ctx: &Context,
    cells: &[WcdmaCell],
    runs: &[Vec<OutageCount>],
    ts: bool,
) -> anyhow::Result<Block> {
    let mut series = Vec::new();
    for kbps in [384, 64] {
        for timer in [Timer::PeakHopper, Timer::Rfc2988] {
            let pick = cells
                .iter()
                .zip(runs)
                .filter(|(c, _)| c.kbps == kbps && c.timestamps == ts && c.timer == timer);
            let (points, ci) = pick
                .map(|(c, rs)| {
                    let s = percent_summary(rs);
                    (
                        (f64::from(c.outage_ms.unwrap_or(0)) / 1000.0, s.mean),
                        s.ci95,
                    )
                })
                .unzip();
            series.push(Series {
                label: format!("{}, {kbps} kbit/s", timer.label()),
                points,
                ci,
            });
        }
    }
    let panel = if ts { "a" } else { "b" };
    let title = format!(
        "Fig. 17 {panel}): outages that caused a spurious timeout, {}",
        ts_label(ts)
    );
    let base = ctx.dir.join(format!("c-fig17{panel}"));
    line_figure(
        ctx,
        &base,
        &title,
        "outage duration d (s)",
        "% of outages",
        &series,
    )
}

fn fig17_percent(
    cells: &[WcdmaCell],
    runs: &[Vec<OutageCount>],
    want: (Timer, bool, u32, u32),
) -> f64 {
    cells
        .iter()
        .zip(runs)
        .find(|(c, _)| (c.timer, c.timestamps, c.kbps, c.outage_ms.unwrap_or(0)) == want)
        .map_or(f64::NAN, |(_, rs)| percent_summary(rs).mean)
}

/// V.D: "the PH-Timer is up to 70% less likely to cause a spurious timeout than the
/// RFC2988-Timer with a constant link outage time of 2.2 seconds" (Fig. 17 a, with
/// timestamps; the rate is not said, so both). Where our curves rise is set by our RTT,
/// not the paper's, so "up to" is read as the largest reduction over the durations at
/// which RFC 2988 hits at least 10 % of the outages (so that no ratio rests on a handful
/// of events); the 2.2 s values are in the label.
fn fig17_comparisons(
    cells: &[WcdmaCell],
    runs: &[Vec<OutageCount>],
    durations: &[u32],
) -> Vec<Comparison> {
    let pct = |timer, kbps, d| fig17_percent(cells, runs, (timer, true, kbps, d));
    [384, 64]
        .iter()
        .map(|&kbps| {
            let best = durations
                .iter()
                .filter(|&&d| pct(Timer::Rfc2988, kbps, d) >= 10.0)
                .map(|&d| (d, 100.0 * (1.0 - pct(Timer::PeakHopper, kbps, d) / pct(Timer::Rfc2988, kbps, d))))
                .reduce(|b, x| if x.1 > b.1 { x } else { b });
            let at = best.map_or_else(
                || "RFC2988-RTO never reaches 10 %".to_string(),
                |(d, _)| format!("at d = {:.2} s", f64::from(d) / 1000.0),
            );
            let what = format!(
                "C (Fig. 17 a): largest reduction by PH-RTO of the outages causing a spurious timeout, with timestamps, {kbps} kbit/s ({at}; at 2.2 s: PH {:.0} %, RFC {:.0} %)",
                pct(Timer::PeakHopper, kbps, 2200),
                pct(Timer::Rfc2988, kbps, 2200),
            );
            comparison(&what, best.map_or(f64::NAN, |b| b.1), None, 70.0, "%")
        })
        .collect()
}

/// Fig. 17's numbers: one row per duration, one column per rate, timestamps, timer.
fn fig17_table(cells: &[WcdmaCell], runs: &[Vec<OutageCount>], durations: &[u32]) -> Table {
    let mut header = vec!["d (s)".to_string()];
    let mut cols = Vec::new();
    for kbps in [384, 64] {
        for (timer, ts) in COMBOS {
            header.push(format!(
                "{} {kbps} {}",
                timer.label(),
                if ts { "TS" } else { "no TS" }
            ));
            cols.push((timer, ts, kbps));
        }
    }
    let rows = durations
        .iter()
        .map(|&d| {
            let mut row = vec![format!("{:.2}", f64::from(d) / 1000.0)];
            row.extend(
                cols.iter()
                    .map(|&(t, ts, k)| format!("{:.0}", fig17_percent(cells, runs, (t, ts, k, d)))),
            );
            row
        })
        .collect();
    Table {
        title: "Fig. 17: % of outages that caused a spurious timeout (mean over runs)".into(),
        header,
        rows,
    }
}

fn combo_label(timer: Timer, ts: bool) -> String {
    format!("{}, {}", timer.label(), ts_label(ts))
}

fn fig18_panel(
    ctx: &Context,
    k: usize,
    timer: Timer,
    ts: bool,
    run: &Fig18Run,
) -> anyhow::Result<Block> {
    let pts = |f: fn(&RtoSample) -> f64| -> Vec<(f64, f64)> {
        run.samples
            .iter()
            .filter(|s| s.time >= Time::from_secs_f64(15.0))
            .map(|s| (s.time.as_secs_f64(), f(s)))
            .collect()
    };
    let series = [
        Series {
            label: "RTT".into(),
            points: pts(|s| s.rtt.as_secs_f64()),
            ci: vec![],
        },
        Series {
            label: "RTO".into(),
            points: pts(|s| s.rto.as_secs_f64()),
            ci: vec![],
        },
    ];
    let panel = ["a", "b", "c", "d"][k];
    let title = format!("Fig. 18 {panel}): {}", combo_label(timer, ts));
    let base = ctx.dir.join(format!("c-fig18{panel}"));
    line_figure(ctx, &base, &title, "time (s)", "seconds", &series)
}

fn write_fig18_csv(ctx: &Context, f18: &[Vec<Fig18Run>]) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    let mut trace = Vec::new();
    for (k, runs) in f18.iter().enumerate() {
        let (timer, ts) = (Cell::S(COMBOS[k].0.label().into()), COMBOS[k].1);
        for (rep, r) in runs.iter().enumerate() {
            let h = r.half;
            rows.push(vec![
                Cell::S(COMBOS[k].0.label().into()),
                Cell::U(ts.into()),
                Cell::U(rep as u64),
                Cell::F(h.map_or(f64::NAN, |h| h.peak.as_secs_f64())),
                Cell::F(h.map_or(f64::NAN, |h| h.peak_at.as_secs_f64())),
                Cell::F(half_life_s(r)),
                Cell::U(r.spurious),
            ]);
        }
        for s in &runs[0].samples {
            trace.push(vec![
                timer.clone(),
                Cell::U(ts.into()),
                Cell::F(s.time.as_secs_f64()),
                Cell::F(s.rtt.as_secs_f64()),
                Cell::F(s.rto.as_secs_f64()),
            ]);
        }
    }
    let header = [
        "timer",
        "timestamps",
        "rep",
        "peak_rto_s",
        "peak_at_s",
        "half_life_s",
        "spurious",
    ];
    write_csv(&ctx.dir.join("c-fig18.csv"), &header, &rows)?;
    let header = ["timer", "timestamps", "time_s", "rtt_s", "rto_s"];
    write_csv(&ctx.dir.join("c-fig18-trace.csv"), &header, &trace)
}

/// The half-life of a run in seconds; NaN when the RTO never halved.
pub fn half_life_s(r: &Fig18Run) -> f64 {
    r.half
        .and_then(|h| h.half_life)
        .map_or(f64::NAN, |d| d.as_secs_f64())
}

fn peak_s(r: &Fig18Run) -> f64 {
    r.half.map_or(f64::NAN, |h| h.peak.as_secs_f64())
}

fn finite(xs: impl Iterator<Item = f64>) -> Vec<f64> {
    xs.filter(|v| v.is_finite()).collect()
}

fn fig18_table(f18: &[Vec<Fig18Run>]) -> Table {
    let rows = f18
        .iter()
        .enumerate()
        .map(|(k, runs)| {
            let peak = Summary::of(&finite(runs.iter().map(peak_s)));
            let half = Summary::of(&finite(runs.iter().map(half_life_s)));
            let spurious: Vec<f64> = runs.iter().map(|r| r.spurious as f64).collect();
            vec![
                combo_label(COMBOS[k].0, COMBOS[k].1),
                format!("{:.2} ± {:.2}", peak.mean, peak.ci95),
                format!(
                    "{:.2} ± {:.2} ({} of {} seeds halved)",
                    half.mean,
                    half.ci95,
                    half.n,
                    runs.len()
                ),
                format!("{:.2}", Summary::of(&spurious).mean),
            ]
        })
        .collect();
    let header = [
        "timer",
        "peak RTO after 27 s (s)",
        "half-life (s)",
        "spurious timeouts per run",
    ];
    Table {
        title: "Fig. 18: the RTO after the second outage, mean over seeds ± 95% CI".into(),
        header: header.map(String::from).to_vec(),
        rows,
    }
}

fn fig18_comparisons(f18: &[Vec<Fig18Run>]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (k, runs) in f18.iter().enumerate() {
        let label = combo_label(COMBOS[k].0, COMBOS[k].1);
        let (paper_peak, paper_half) = PAPER_FIG18[k];
        let peak = Summary::of(&finite(runs.iter().map(peak_s)));
        let half = Summary::of(&finite(runs.iter().map(half_life_s)));
        out.push(comparison(
            &format!("C (Fig. 18): peak RTO after the second outage, {label}"),
            peak.mean,
            Some(peak.ci95),
            paper_peak,
            "s",
        ));
        out.push(comparison(
            &format!("C (Fig. 18): RTO half-life, {label}"),
            half.mean,
            Some(half.ci95),
            paper_half,
            "s",
        ));
    }
    let rfc_ts: Vec<f64> = f18[3].iter().map(|r| r.spurious as f64).collect();
    let s = Summary::of(&rfc_ts);
    out.push(comparison(
        "C (Fig. 18 d): spurious timeouts in the two-outage trace, RFC2988-RTO with timestamps",
        s.mean,
        Some(s.ci95),
        2.0,
        "",
    ));
    out
}
