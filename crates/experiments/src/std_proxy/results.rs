//! [Kim & Cho 2003] V's figures from the runs: per (window, scheme, BW) means with 95%
//! confidence half-widths, the CSV files, the figures (Figs. 8 and 9: throughput,
//! throughput increase ratio, goodput), condition (3), and the report's section.

use super::metrics::{CwndReading, RunSummary};
use super::setup::{Cell, Plan, Scheme};
use crate::artifacts::{chart, csv_file, finish_csv, line_figure, mean_ci};
use crate::report::{Block, Comparison, Section, Table};
use crate::reproduction::Context;
use spikelab_output::plot::Series;

/// One cell aggregated over its repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub cell: Cell,
    /// Repetitions, and how many finished the download.
    pub n: usize,
    pub completed: usize,
    /// Throughput in kbit/s (finished runs): mean, 95% half-width.
    pub throughput: (f64, f64),
    /// Throughput increase over plain TCP in the same repetition (same hiccups), in
    /// percent: mean, 95% half-width.
    pub increase: (f64, f64),
    /// Goodput over the wireless link: mean, 95% half-width.
    pub goodput: (f64, f64),
    /// Mean timeouts per run, and mean spurious ones.
    pub timeouts: f64,
    pub spurious: f64,
    /// Packets dropped over all runs (0 in a setup without congestion loss).
    pub dropped: u64,
    /// STD only: episodes called spurious, how many met condition (3), mean cwnd_STD.
    pub cond_episodes: u32,
    pub cond_met: u32,
    pub cwnd_std_mean: f64,
    /// The same episodes with cwnd_STD read as the flight before the delay (the
    /// paper's reading): how many met condition (3), and the mean flight.
    pub cond_met_flight: u32,
    pub flight_mean: f64,
}

impl Point {
    /// The fraction of STD's spurious episodes that met condition (3) (NaN if none),
    /// cwnd_STD read as `reading` says.
    pub fn cond_fraction(&self, reading: CwndReading) -> f64 {
        let met = match reading {
            CwndReading::Resumed => self.cond_met,
            CwndReading::FlightBefore => self.cond_met_flight,
        };
        met as f64 / self.cond_episodes as f64
    }
}

/// Every cell's point, in the order of [`super::setup::cells`].
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    pub points: Vec<Point>,
}

impl Results {
    /// The point of (window, scheme, rate).
    pub fn get(&self, window: u64, scheme: Scheme, rate_kbps: u64) -> &Point {
        self.points
            .iter()
            .find(|p| {
                p.cell
                    == Cell {
                        window,
                        scheme,
                        rate_kbps,
                    }
            })
            .expect("every cell of the plan has a point")
    }
}

/// Aggregates `runs[i]` (the repetitions of `cells[i]`).
pub fn aggregate(cells: &[Cell], runs: &[Vec<RunSummary>]) -> Results {
    let plain_of = |c: &Cell| {
        let i = cells
            .iter()
            .position(|p| {
                *p == Cell {
                    scheme: Scheme::Plain,
                    ..*c
                }
            })
            .expect("the plan runs plain TCP in every cell");
        &runs[i]
    };
    let points = cells
        .iter()
        .zip(runs)
        .map(|(c, rs)| point(*c, rs, plain_of(c)))
        .collect();
    Results { points }
}

fn point(cell: Cell, rs: &[RunSummary], plain: &[RunSummary]) -> Point {
    let done: Vec<&RunSummary> = rs.iter().filter(|r| r.completed).collect();
    let kbps: Vec<f64> = done.iter().map(|r| r.throughput_bps / 1000.0).collect();
    let increase: Vec<f64> = rs
        .iter()
        .zip(plain)
        .filter(|(a, b)| a.completed && b.completed)
        .map(|(a, b)| 100.0 * (a.throughput_bps / b.throughput_bps - 1.0))
        .collect();
    let goodput: Vec<f64> = done.iter().map(|r| r.goodput_wireless).collect();
    let mean_of = |f: fn(&RunSummary) -> u64| {
        rs.iter().map(|r| f(r) as f64).sum::<f64>() / rs.len().max(1) as f64
    };
    let episodes: u32 = rs.iter().map(|r| r.std_episodes).sum();
    Point {
        cell,
        n: rs.len(),
        completed: done.len(),
        throughput: mean_ci(&kbps),
        increase: mean_ci(&increase),
        goodput: mean_ci(&goodput),
        timeouts: mean_of(|r| r.timeouts),
        spurious: mean_of(|r| r.spurious_timeouts),
        dropped: rs.iter().map(|r| r.dropped).sum(),
        cond_episodes: episodes,
        cond_met: rs.iter().map(|r| r.std_condition_met).sum(),
        cwnd_std_mean: rs.iter().map(|r| r.cwnd_std_sum).sum::<u64>() as f64 / f64::from(episodes),
        cond_met_flight: rs.iter().map(|r| r.flight_condition_met).sum(),
        flight_mean: rs.iter().map(|r| r.flight_sum).sum::<u64>() as f64 / f64::from(episodes),
    }
}

/// STD's gain is "similar" to the end-to-end schemes' (V: "the largest data rate that
/// STD can give throughput similar to end-to-end schemes such as Eifel and F-RTO")
/// when it is at least half the better of Eifel's and F-RTO's mean increase (or the
/// end-to-end schemes gain nothing). The paper gives no number for "similar"; half is
/// our reading, stated in the report.
pub fn std_gain_similar(r: &Results, window: u64, rate_kbps: u64) -> bool {
    let gain = |s| r.get(window, s, rate_kbps).increase.0;
    let e2e = gain(Scheme::Eifel).max(gain(Scheme::Frto)).max(0.0);
    gain(Scheme::Std) >= 0.5 * e2e
}

/// The largest rate of the sweep up to which `holds` is true at every rate (None if it
/// fails at the first).
pub fn largest_rate_while(plan: &Plan, mut holds: impl FnMut(u64) -> bool) -> Option<u64> {
    plan.rates_kbps
        .iter()
        .take_while(|&&b| holds(b))
        .last()
        .copied()
}

/// The largest rate up to which at least half of STD's spurious episodes met
/// condition (3) at every rate, cwnd_STD read as `reading` says.
pub fn condition_rate(r: &Results, plan: &Plan, window: u64, reading: CwndReading) -> Option<u64> {
    largest_rate_while(plan, |b| {
        r.get(window, Scheme::Std, b).cond_fraction(reading) >= 0.5
    })
}

/// The rate up to which STD's gain stays similar to the end-to-end schemes'.
pub fn fade_rate(r: &Results, plan: &Plan, window: u64) -> Option<u64> {
    largest_rate_while(plan, |b| std_gain_similar(r, window, b))
}

/// `results.csv` (one row per cell) and `runs.csv` (one row per repetition).
pub fn write_csv(
    ctx: &Context,
    r: &Results,
    cells: &[Cell],
    runs: &[Vec<RunSummary>],
) -> anyhow::Result<()> {
    let mut w = csv_file(
        &ctx.dir.join("results.csv"),
        &[
            "window_bytes",
            "scheme",
            "bw_kbps",
            "reps",
            "completed",
            "throughput_kbps",
            "throughput_ci95",
            "increase_pct",
            "increase_ci95",
            "goodput_wireless",
            "goodput_ci95",
            "timeouts",
            "spurious_timeouts",
            "dropped",
            "std_episodes",
            "cond3_met",
            "cwnd_std_mean_bytes",
            "cond3_met_flight",
            "flight_mean_bytes",
        ],
    )?;
    for p in &r.points {
        w.field_u64(p.cell.window)?;
        w.field_str(p.cell.scheme.label())?;
        w.field_u64(p.cell.rate_kbps)?;
        w.field_u64(p.n as u64)?;
        w.field_u64(p.completed as u64)?;
        for v in [
            p.throughput.0,
            p.throughput.1,
            p.increase.0,
            p.increase.1,
            p.goodput.0,
            p.goodput.1,
            p.timeouts,
            p.spurious,
        ] {
            w.field_f64(v)?;
        }
        w.field_u64(p.dropped)?;
        w.field_u64(u64::from(p.cond_episodes))?;
        w.field_u64(u64::from(p.cond_met))?;
        w.field_f64(p.cwnd_std_mean)?;
        w.field_u64(u64::from(p.cond_met_flight))?;
        w.field_f64(p.flight_mean)?;
        w.end_row()?;
    }
    finish_csv(w)?;
    write_runs_csv(ctx, cells, runs)
}

fn write_runs_csv(ctx: &Context, cells: &[Cell], runs: &[Vec<RunSummary>]) -> anyhow::Result<()> {
    let mut w = csv_file(
        &ctx.dir.join("runs.csv"),
        &[
            "window_bytes",
            "scheme",
            "bw_kbps",
            "rep",
            "completed",
            "throughput_bps",
            "goodput_wireless",
            "timeouts",
            "spurious_timeouts",
            "std_episodes",
            "cond3_met",
            "cond3_met_flight",
        ],
    )?;
    for (c, rs) in cells.iter().zip(runs) {
        for (rep, s) in rs.iter().enumerate() {
            w.field_u64(c.window)?;
            w.field_str(c.scheme.label())?;
            w.field_u64(c.rate_kbps)?;
            w.field_u64(rep as u64)?;
            w.field_bool(s.completed)?;
            w.field_f64(s.throughput_bps)?;
            w.field_f64(s.goodput_wireless)?;
            w.field_u64(s.timeouts)?;
            w.field_u64(s.spurious_timeouts)?;
            w.field_u64(u64::from(s.std_episodes))?;
            w.field_u64(u64::from(s.std_condition_met))?;
            w.field_u64(u64::from(s.flight_condition_met))?;
            w.end_row()?;
        }
    }
    finish_csv(w)
}

/// The series of `metric` against BW for each of `schemes` at `window`.
fn series(
    r: &Results,
    plan: &Plan,
    window: u64,
    schemes: &[Scheme],
    metric: Metric,
) -> Vec<Series> {
    schemes
        .iter()
        .map(|&s| {
            let pts: Vec<&Point> = plan
                .rates_kbps
                .iter()
                .map(|&b| r.get(window, s, b))
                .collect();
            Series {
                label: s.label().into(),
                points: pts
                    .iter()
                    .map(|p| (p.cell.rate_kbps as f64, metric(p).0))
                    .collect(),
                ci: pts.iter().map(|p| metric(p).1).collect(),
            }
        })
        .collect()
}

fn window_label(window: u64) -> String {
    format!("{} KB", (window + 512) / 1024)
}

/// One panel: file name, what it shows, y label, schemes drawn, the metric.
type Panel = (
    &'static str,
    &'static str,
    &'static str,
    &'static [Scheme],
    Metric,
);
/// A point's (mean, 95% half-width) of one metric.
type Metric = fn(&Point) -> (f64, f64);

/// The three panels of Fig. 8 (8 KB) or Fig. 9 (64 KB) for `window`.
fn figures(
    ctx: &Context,
    r: &Results,
    plan: &Plan,
    window: u64,
    fig: u32,
) -> anyhow::Result<Vec<Block>> {
    let wl = window_label(window);
    let tag = (window + 512) / 1024;
    let bw = "last-hop rate BW (kbit/s)";
    let panels: [Panel; 3] = [
        (
            "throughput",
            "throughput",
            "throughput (kbit/s)",
            &Scheme::ALL,
            |p| p.throughput,
        ),
        (
            "increase",
            "throughput increase ratio over plain TCP",
            "increase (%)",
            &Scheme::ALL[1..],
            |p| p.increase,
        ),
        (
            "goodput",
            "goodput over the wireless link",
            "goodput",
            &Scheme::ALL,
            |p| p.goodput,
        ),
    ];
    panels
        .into_iter()
        .map(|(file, what, y, schemes, metric)| {
            let title = format!("Fig. {fig} (ours): {what}, receiver window {wl}");
            let s = series(r, plan, window, schemes, metric);
            let f = line_figure(
                ctx,
                &format!("fig{fig}-{file}-{tag}k"),
                chart(&title, bw, y),
                &s,
            )?;
            Ok(Block::Figure(f))
        })
        .collect()
}

fn fmt_ci((m, ci): (f64, f64), decimals: usize) -> String {
    if ci.is_finite() {
        format!("{m:.decimals$} ± {ci:.decimals$}")
    } else {
        format!("{m:.decimals$}")
    }
}

/// The numbers behind Figs. 8 and 9 for one window.
fn table(r: &Results, plan: &Plan, window: u64) -> Table {
    let mut header = vec!["BW (kbit/s)".to_string()];
    for s in Scheme::ALL {
        header.push(format!("{} thr. (kbit/s)", s.label()));
    }
    for s in &Scheme::ALL[1..] {
        header.push(format!("{} incr. (%)", s.label()));
    }
    for s in Scheme::ALL {
        header.push(format!("{} goodput", s.label()));
    }
    header.push("STD: cond. (3) met, ours".into());
    header.push("STD: cond. (3) met, flight (paper)".into());
    let rows = plan
        .rates_kbps
        .iter()
        .map(|&b| {
            let p = |s| r.get(window, s, b);
            let mut row = vec![b.to_string()];
            row.extend(Scheme::ALL.iter().map(|&s| fmt_ci(p(s).throughput, 1)));
            row.extend(Scheme::ALL[1..].iter().map(|&s| fmt_ci(p(s).increase, 1)));
            row.extend(Scheme::ALL.iter().map(|&s| fmt_ci(p(s).goodput, 3)));
            let std = p(Scheme::Std);
            row.push(format!("{}/{}", std.cond_met, std.cond_episodes));
            row.push(format!("{}/{}", std.cond_met_flight, std.cond_episodes));
            row
        })
        .collect();
    Table {
        title: format!(
            "Receiver window {}: means ± 95% half-widths; increase is paired with plain TCP in the same repetition",
            window_label(window)
        ),
        header,
        rows,
    }
}

/// The paper's thresholds beside ours (V: "70kbps may be the largest data rate that STD
/// can give throughput similar to end-to-end schemes"; 64k: "increased to as much as
/// 200kbps").
fn comparisons(r: &Results, plan: &Plan) -> Vec<Comparison> {
    let paper = |w: u64| if w <= 8192 { 70.0 } else { 200.0 };
    let as_f = |o: Option<u64>| o.map_or(f64::NAN, |b| b as f64);
    plan.windows
        .iter()
        .flat_map(|&w| {
            let wl = window_label(w);
            let cond = |reading: CwndReading| Comparison {
                what: format!(
                    "{wl}: largest BW with condition (3) met in most STD episodes, {}",
                    reading.label()
                ),
                ours: as_f(condition_rate(r, plan, w, reading)),
                ours_ci95: None,
                paper: paper(w),
                unit: "kbit/s".into(),
            };
            [
                Comparison {
                    what: fade_label(&wl, fade_rate(r, plan, w), plan),
                    ours: as_f(fade_rate(r, plan, w)),
                    ours_ci95: None,
                    paper: paper(w),
                    unit: "kbit/s".into(),
                },
                cond(CwndReading::Resumed),
                cond(CwndReading::FlightBefore),
            ]
        })
        .collect()
}

/// The comparison's label; says so when the gain never faded within the sweep.
fn fade_label(wl: &str, fade: Option<u64>, plan: &Plan) -> String {
    let base = format!("{wl}: largest BW with STD's gain similar to Eifel/F-RTO");
    if fade.is_some() && fade == plan.rates_kbps.last().copied() {
        format!("{base} (no fade within the sweep: at least this)")
    } else {
        base
    }
}

/// The report's section.
pub fn section(ctx: &Context, plan: &Plan, r: &Results) -> anyhow::Result<Section> {
    let mut blocks = vec![Block::Text(setup_text(ctx, plan))];
    for (i, &w) in plan.windows.iter().enumerate() {
        blocks.push(Block::Table(table(r, plan, w)));
        blocks.extend(figures(ctx, r, plan, w, 8 + i as u32)?);
    }
    blocks.push(Block::Comparisons(comparisons(r, plan)));
    blocks.push(Block::Text(findings(r, plan)));
    Ok(Section {
        name: "std-proxy".into(),
        title:
            "[Kim & Cho 2003] V: STD proxy vs. Eifel and F-RTO over a cellular hop with sudden delays"
                .into(),
        blocks,
    })
}

fn setup_text(ctx: &Context, plan: &Plan) -> String {
    format!(
        "Setup (scenarios/std-proxy.toml, every value cited there): a 10 MB download from a server \
         over a 10 Mbit/s, 20 ms wired path and a cellular last hop of rate BW ({} to {} kbit/s, {} \
         rates) and 300 ms one-way latency; the base station stops transmitting (both directions \
         frozen after its queue) for U[3,15] s every U[20,40] s ([Gurtov & Ludwig 2002]'s hiccup, which V says it \
         follows); no congestion loss (1000-packet buffers). TCP Reno, MSS 1460, receiver window 8 KB \
         (8192 B) and 64 KB (65 535 B), ns-2 2002 timer (RTO min 1 s), delayed ACKs, no careful fast \
         retransmit (IV shows the spurious fast retransmissions it would suppress). Schemes: plain Reno; \
         Eifel (timestamps on, its 12 bytes counted) and F-RTO, both halving cwnd and ssthresh on a \
         spurious timeout (footnote 8); STD: plain Reno with the STD proxy (paper parameters G = 2, \
         S = 20, alpha = 0.9) at the base station. {} repetitions per cell; repetition r uses the same \
         seed, hence the same hiccups, for every scheme, so the increase ratio is paired.\n\n\
         Modelling choices the paper leaves open: the wired part and both latencies (Fig. 7 is not in \
         our copy); the hiccup interval measured from the end of one delay (\"inter delay time\"); \
         goodput counts the data segments the cellular link delivered to the mobile (STD's local \
         retransmissions included, segments it filtered excluded); condition (3) is evaluated for every \
         timeout the proxy called spurious with cwnd_STD = the sender's window when it first sends new \
         data after the timeout, capped by the receiver window, and RTT = the run's smallest RTT sample \
         (the path is empty after the delay); \"similar gain\" is read as at least half the better \
         end-to-end scheme's mean increase.",
        plan.rates_kbps.first().copied().unwrap_or(0),
        plan.rates_kbps.last().copied().unwrap_or(0),
        plan.rates_kbps.len(),
        ctx.reps
    )
}

fn findings(r: &Results, plan: &Plan) -> String {
    let mut out = String::from(
        "The paper's Figs. 8 and 9 are drawings without tables; its text gives only the two threshold \
         rates above and the shapes: STD's throughput gain is similar to Eifel's and F-RTO's at low BW \
         and \"slowly decreases and eventually will converge to 0%\", its goodput is \"always as high as \
         that of F-RTO\", and plain TCP's goodput is valley-shaped.",
    );
    out.push_str(
        "\n\nWhy ours differ. (i) cwnd_STD: a Reno timeout sets ssthresh to half the flight and the \
         delayed ACKs then grow cwnd by slow start only up to it, so the window the sender resumes \
         with after the full ACK is about half the pre-delay flight plus a segment, not the flight \
         itself; condition (3) therefore fails at lower rates than the paper's reading (\"cwnd_STD is \
         determined by the flight size before sudden delay\") implies. (ii) With a 64 KB window most of \
         the window waits in the base station's queue, which the hiccup freezes but does not empty, so \
         the link is busy again as soon as the delay ends whatever the sender's rate: STD's gain keeps \
         pace with F-RTO's even where condition (3) fails. The same queue makes the RTT, hence the RTO, \
         large at low rates, so plain TCP has almost no spurious timeouts there (the paper's first \
         \"valley\" factor). (iii) Eifel pays its 12-byte timestamp option on every segment, about \
         0.8% of throughput, visible where there is nothing to gain.",
    );
    for &w in &plan.windows {
        let lo = plan.rates_kbps[0];
        let hi = *plan.rates_kbps.last().unwrap_or(&lo);
        let g = |s, b| r.get(w, s, b);
        out.push_str(&format!(
            "\n\nOurs, {}: STD's increase {:.1}% at {lo} kbit/s and {:.1}% at {hi} kbit/s (F-RTO {:.1}% \
             and {:.1}%, Eifel {:.1}% and {:.1}%); goodput at {hi} kbit/s: TCP {:.3}, STD {:.3}, F-RTO \
             {:.3}, Eifel {:.3}; condition (3) met in {}/{} STD episodes at {lo} kbit/s and {}/{} at {hi} \
             kbit/s (mean cwnd_STD {:.0} and {:.0} bytes); with the paper's reading (the flight before \
             the delay) in {}/{} and {}/{} (mean flight {:.0} and {:.0} bytes); packets dropped in all \
             runs: {}.",
            window_label(w),
            g(Scheme::Std, lo).increase.0,
            g(Scheme::Std, hi).increase.0,
            g(Scheme::Frto, lo).increase.0,
            g(Scheme::Frto, hi).increase.0,
            g(Scheme::Eifel, lo).increase.0,
            g(Scheme::Eifel, hi).increase.0,
            g(Scheme::Plain, hi).goodput.0,
            g(Scheme::Std, hi).goodput.0,
            g(Scheme::Frto, hi).goodput.0,
            g(Scheme::Eifel, hi).goodput.0,
            g(Scheme::Std, lo).cond_met,
            g(Scheme::Std, lo).cond_episodes,
            g(Scheme::Std, hi).cond_met,
            g(Scheme::Std, hi).cond_episodes,
            g(Scheme::Std, lo).cwnd_std_mean,
            g(Scheme::Std, hi).cwnd_std_mean,
            g(Scheme::Std, lo).cond_met_flight,
            g(Scheme::Std, lo).cond_episodes,
            g(Scheme::Std, hi).cond_met_flight,
            g(Scheme::Std, hi).cond_episodes,
            g(Scheme::Std, lo).flight_mean,
            g(Scheme::Std, hi).flight_mean,
            r.points.iter().filter(|p| p.cell.window == w).map(|p| p.dropped).sum::<u64>(),
        ));
    }
    out
}
