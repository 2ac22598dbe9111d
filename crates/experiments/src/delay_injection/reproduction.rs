//! The `delay-injection` reproduction: (a) the RTT-trace mode figures (Figs. 1-3) of
//! the synthetic GPRS-like trace, (b) the TCP simulation (Figs. 4-8) over a path that
//! replays it, with the oracle's value measured against blind selection.

use super::figures::{fig1, fig2, fig3, Histogram, RttRtoWindow};
use super::inject::{timeouts_by_method, InjectionSpec};
use super::rto::PaperRtoParams;
use super::sweep::{method_label, Point, Results, METHODS};
use super::tcp::{self, Injection, Pick};
use crate::artifacts::{chart, line_figure};
use crate::grid::run::{run_experiment_with, GridResult, Grids};
use crate::grid::values::Stat;
use crate::grid::ExperimentSpec;
use crate::report::{Block, Comparison, Section, Table};
use crate::reproduction::{Context, Reproduction};
use rand::SeedableRng;
use spikelab_core::{Dur, SimRng};
use spikelab_net::middlebox::InjectionMethod;
use spikelab_output::plot::{scatter_chart, Series};
use std::collections::BTreeMap;

/// The `delay-injection` reproduction.
pub struct DelayInjectionReproduction;

impl Reproduction for DelayInjectionReproduction {
    fn name(&self) -> &'static str {
        "delay-injection"
    }

    fn title(&self) -> &'static str {
        "Avoiding Spurious TCP Timeouts in Wireless Networks by Delay Injection (Klein, Leung, Parkinson, Samuel)"
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<Section> {
        run_spec(ctx, &experiment()?)
    }
}

/// `experiments/delay-injection.toml`, parsed.
pub fn experiment() -> anyhow::Result<ExperimentSpec> {
    let file = "delay-injection.toml";
    let text = crate::embedded::experiment(file)
        .ok_or_else(|| anyhow::anyhow!("no built-in experiment `{file}`"))?;
    Ok(ExperimentSpec::parse(text, &format!("experiments/{file}"))?)
}

/// Runs `spec` (`experiments/delay-injection.toml`: the realistic sweep `sweep`, the
/// paper mode's `paper`, the ablation `ablation`, their CSV files, charts and text)
/// with `ctx.reps` repetitions into `ctx.dir`, with its `rust:` blocks from
/// [`rust_blocks`]; returns the section.
pub fn run_spec(ctx: &Context, spec: &ExperimentSpec) -> anyhow::Result<Section> {
    run_experiment_with(spec, ctx, &|name, grids| rust_blocks(ctx, name, grids))
}

/// The report blocks computed here from the grids' results: the trace mode (Figs. 1-3),
/// the oracle table, the comparisons with the paper, the findings, the side-by-side
/// and ablation tables.
fn rust_blocks(ctx: &Context, name: &str, grids: &Grids) -> anyhow::Result<Vec<Block>> {
    let grid = |g: &str| {
        grids
            .get(g)
            .ok_or_else(|| anyhow::anyhow!("delay-injection: no grid `{g}`"))
    };
    let real = || results_of(grid("sweep")?);
    let paper = || results_of(grid("paper")?);
    Ok(match name {
        "trace-mode" => {
            let mut blocks = vec![Block::Text(TRACE_TEXT.into())];
            blocks.extend(trace_mode(ctx)?);
            blocks
        }
        "oracle-table" => vec![Block::Table(oracle_table(&real()?))],
        "side-by-side" => vec![Block::Table(side_by_side(&real()?, &paper()?))],
        _ => anyhow::bail!("delay-injection: no Rust block `{name}`"),
    })
}

/// The injection a grid cell's labels (`selection`, `method`, `d0`, `n`) describe.
fn injection_of(labels: &BTreeMap<String, String>) -> anyhow::Result<Option<Injection>> {
    let get = |k: &str| {
        labels
            .get(k)
            .map(String::as_str)
            .ok_or_else(|| anyhow::anyhow!("a delay-injection cell needs label `{k}`"))
    };
    let pick = match get("selection")? {
        "none" => return Ok(None),
        "oracle" => Pick::Oracle,
        "every-nth" => Pick::EveryNth,
        "probability" => Pick::Probability,
        "oracle-fifo" => Pick::OracleFifo,
        other => anyhow::bail!("unknown selection `{other}`"),
    };
    let method = METHODS
        .into_iter()
        .find(|&m| method_label(m) == get("method").unwrap_or_default())
        .ok_or_else(|| anyhow::anyhow!("unknown method in {labels:?}"))?;
    Ok(Some(Injection {
        method,
        d0_ms: get("d0")?.parse()?,
        n: get("n")?.parse()?,
        pick,
    }))
}

/// A grid cell's values as a sweep point.
fn point_of(
    labels: &BTreeMap<String, String>,
    v: &BTreeMap<String, Stat>,
) -> anyhow::Result<Point> {
    let stat = |k: &str| {
        v.get(k)
            .copied()
            .ok_or_else(|| anyhow::anyhow!("a delay-injection grid needs value `{k}`"))
    };
    let pair = |k: &str| stat(k).map(|s| (s.mean, s.ci95));
    Ok(Point {
        inj: injection_of(labels)?,
        n: stat("reps")?.mean as usize,
        completed: stat("completed")?.mean as usize,
        timeouts: pair("timeouts")?,
        fast_retransmits: pair("fast_retransmits")?,
        throughput: pair("throughput")?,
    })
}

/// Every cell of a sweep grid as a point, in grid order.
fn results_of(g: &GridResult) -> anyhow::Result<Results> {
    let points = g
        .labels
        .iter()
        .zip(&g.values)
        .map(|(l, v)| point_of(l, v))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Results { points })
}

const TRACE_TEXT: &str = "(a) RTT-trace mode. The authors' GPRS ping trace is not public; \
every trace figure below uses the synthetic GPRS-like trace (10 000 independent samples, \
U[60,140] ms plus, in 1% of the samples, a spike of U[100,500] ms, i.e. after the paper's \
scaling by 1/5; seed 2003; scenarios/delay-injection.toml generates it, and spikelab_net::ping_trace \
says how each parameter follows a sentence of the paper). RTO by equations (1)-(3) with g = 1/8, h = 1/4, \
m = 4; a timeout is a sample above the RTO in force before it. Fig. 1 shows a window of 100 \
samples around the first timeout after sample 1000, Fig. 2 the same window under FTFD with \
D0 = 100 ms, N = 3; Fig. 3 the RTT histograms without jitter and under each method at the same \
parameters.";

/// The series RTT and RTO of a window (Figs. 1 and 2).
fn window_series(w: &RttRtoWindow) -> Vec<Series> {
    let pts = |ys: &[f64]| {
        w.index
            .iter()
            .zip(ys)
            .map(|(&k, &y)| (k as f64, y))
            .collect::<Vec<_>>()
    };
    vec![
        Series {
            label: "RTT".into(),
            points: pts(&w.rtt),
            ci: vec![],
        },
        Series {
            label: "RTO".into(),
            points: pts(&w.rto),
            ci: vec![],
        },
    ]
}

fn hist_series(label: &str, h: &Histogram) -> Series {
    Series {
        label: label.into(),
        points: (0..h.counts.len())
            .map(|i| (h.centre(i), h.counts[i] as f64))
            .collect(),
        ci: vec![],
    }
}

/// Figs. 1-3 and the trace-mode timeout counts, plus the path's delay file.
fn trace_mode(ctx: &Context) -> anyhow::Result<Vec<Block>> {
    let trace = tcp::path_trace()?;
    let p = PaperRtoParams::default();
    let all = fig1(&trace, &p, 0, trace.len());
    let first = all
        .timeouts
        .iter()
        .copied()
        .find(|&k| k > 1000)
        .unwrap_or(25);
    let start = first.saturating_sub(25);
    let d0 = Dur::from_millis(100);
    let spec = InjectionSpec::new(InjectionMethod::Ftfd, d0, 3);
    let mut rng = SimRng::seed_from_u64(ctx.seed);
    let w1 = fig1(&trace, &p, start, 100);
    let w2 = fig2(&trace, &spec, &p, (start, 100), &mut rng);
    let f3 = fig3(&trace, d0, 3, (0.0, 10.0, 70), &mut rng);
    let counts = timeouts_by_method(&trace, d0, 3, &p, &mut rng);
    let x = "sample k";
    let fig = |name: &str, title: &str, s: &[Series]| {
        line_figure(ctx, name, chart(title, x, "ms"), s).map(Block::Figure)
    };
    let h = [
        hist_series("none", &f3.none),
        hist_series("FTFD", &f3.ftfd),
        hist_series("RTFD", &f3.rtfd),
        hist_series("RTRD", &f3.rtrd),
    ];
    let c3 = chart(
        "Fig. 3 (ours, synthetic trace): RTT histograms, D0 = 100 ms, N = 3",
        "RTT (ms), 10 ms bins",
        "samples",
    );
    let f3files = scatter_chart(&c3, &h, &ctx.dir.join("fig3-histogram"))?;
    Ok(vec![
        fig("fig1-rtt-rto", "Fig. 1 (ours, synthetic trace): RTT and RTO without delay jitter", &window_series(&w1))?,
        fig("fig2-rtt-rto-ftfd", "Fig. 2 (ours, synthetic trace): RTT and RTO with FTFD, D0 = 100 ms, N = 3", &window_series(&w2))?,
        Block::Figure(crate::report::Figure {
            title: c3.title,
            png: ctx.relative(&f3files.png),
            svg: ctx.relative(&f3files.svg),
        }),
        Block::Text(format!(
            "Trace mode, ours: {} timeouts in the Fig. 1 window (samples {:?}), {} in the Fig. 2 window \
             (samples {:?}); the paper's windows show two and one. Over all 10 000 samples: {} timeouts \
             without jitter, {} with FTFD, {} with RTFD, {} with RTRD (D0 = 100 ms, N = 3; RTFD and RTRD \
             one draw). As in the paper, FTFD leaves the trace bimodal and RTRD grows an exponential tail.",
            w1.timeouts.len(), w1.timeouts, w2.timeouts.len(), w2.timeouts,
            counts.none, counts.ftfd, counts.rtfd, counts.rtrd
        )),
        Block::Comparisons(vec![
            cmp("Fig. 1 window: timeouts without jitter", w1.timeouts.len() as f64, None, 2.0, ""),
            cmp("Fig. 2 window: timeouts with FTFD (100 ms, N = 3)", w2.timeouts.len() as f64, None, 1.0, ""),
        ]),
    ])
}

fn cmp(what: &str, ours: f64, ci: Option<f64>, paper: f64, unit: &str) -> Comparison {
    Comparison {
        what: what.into(),
        ours,
        ours_ci95: ci,
        paper,
        unit: unit.into(),
    }
}

fn describe(p: &Point) -> String {
    match p.inj {
        None => "no jitter".into(),
        Some(i) => format!(
            "{} {} D0 = {} ms, N = {}",
            i.pick.label(),
            method_label(i.method),
            i.d0_ms,
            i.n
        ),
    }
}

/// For each selection, its best FTFD point for timeouts and for throughput.
fn oracle_table(r: &Results) -> Table {
    let none = r.none();
    let mut rows = vec![vec![
        "no jitter".into(),
        "-".into(),
        format!("{:.2}", none.timeouts.0),
        format!("{:.1}", none.throughput.0),
        format!("{:.2}", none.fast_retransmits.0),
    ]];
    for pick in [
        Pick::Oracle,
        Pick::EveryNth,
        Pick::Probability,
        Pick::OracleFifo,
    ] {
        let pts = r.with(pick, Some(InjectionMethod::Ftfd));
        for (what, by_thr) in [("fewest timeouts", false), ("most throughput", true)] {
            if let Some(b) = Results::best(&pts, by_thr) {
                rows.push(vec![
                    format!("{}: {what}", pick.label()),
                    describe(b),
                    format!("{:.2} ± {:.2}", b.timeouts.0, b.timeouts.1),
                    format!("{:.1} ± {:.1}", b.throughput.0, b.throughput.1),
                    format!("{:.2}", b.fast_retransmits.0),
                ]);
            }
        }
    }
    Table {
        title:
            "How much the oracle matters: the best FTFD setting of each selection (D0 and N swept)"
                .into(),
        header: [
            "selection",
            "setting",
            "timeouts",
            "throughput (kbit/s)",
            "fast retransmits",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

fn mean_ci_cell(v: (f64, f64), digits: usize) -> String {
    format!("{:.*} ± {:.*}", digits, v.0, digits, v.1)
}

/// How many oracle-FTFD settings give fewer mean timeouts than no jitter, and how
/// many more throughput, out of how many.
fn beats_none(r: &Results) -> (usize, usize, usize) {
    let none = r.none();
    let ftfd = r.with(Pick::Oracle, Some(InjectionMethod::Ftfd));
    let fewer = ftfd
        .iter()
        .filter(|p| p.timeouts.0 < none.timeouts.0)
        .count();
    let faster = ftfd
        .iter()
        .filter(|p| p.throughput.0 > none.throughput.0)
        .count();
    (fewer, faster, ftfd.len())
}

/// The paper, the realistic mode and the paper mode, row by row.
fn side_by_side(real: &Results, paper: &Results) -> Table {
    let at = |r: &Results, m, d0, n| {
        r.get(Some(Injection {
            method: m,
            d0_ms: d0,
            n,
            pick: Pick::Oracle,
        }))
        .copied()
    };
    let to = |p: Option<Point>| p.map_or("-".into(), |p| mean_ci_cell(p.timeouts, 2));
    let thr = |p: Option<Point>| p.map_or("-".into(), |p| mean_ci_cell(p.throughput, 1));
    let best = |r: &Results, by_thr: bool| {
        Results::best(&r.with(Pick::Oracle, Some(InjectionMethod::Ftfd)), by_thr).map_or(
            "-".into(),
            |p| {
                format!(
                    "{} ({:.2} timeouts, {:.1} kbit/s)",
                    describe(p),
                    p.timeouts.0,
                    p.throughput.0
                )
            },
        )
    };
    let count = |r: &Results| {
        let (fewer, faster, n) = beats_none(r);
        format!("{fewer} / {faster} of {n}")
    };
    let ftfd = InjectionMethod::Ftfd;
    let row = |what: &str, paper_val: &str, f: &dyn Fn(&Results) -> String| {
        vec![what.to_string(), paper_val.to_string(), f(real), f(paper)]
    };
    Table {
        title: "The paper, the realistic mode and the paper mode side by side".into(),
        header: ["quantity", "paper", "realistic", "paper mode"]
            .map(String::from)
            .to_vec(),
        rows: vec![
            row("timeouts without jitter", "24 (paper mode: FITTED)", &|r| {
                to(Some(*r.none()))
            }),
            row(
                "throughput without jitter, kbit/s",
                "103.58 (paper mode: FITTED)",
                &|r| thr(Some(*r.none())),
            ),
            row("FTFD 100 ms, N = 3: timeouts", "0.1", &|r| {
                to(at(r, ftfd, 100, 3))
            }),
            row("FTFD 100 ms, N = 3: kbit/s", "101.20", &|r| {
                thr(at(r, ftfd, 100, 3))
            }),
            row("FTFD 70 ms, N = 5: kbit/s", "111.96", &|r| {
                thr(at(r, ftfd, 70, 5))
            }),
            row(
                "RTFD 100 ms, N = 3: timeouts",
                "below no jitter (Fig. 7)",
                &|r| to(at(r, InjectionMethod::Rtfd, 100, 3)),
            ),
            row(
                "RTRD 100 ms, N = 3: timeouts",
                "worst of the three (Fig. 7)",
                &|r| to(at(r, InjectionMethod::Rtrd, 100, 3)),
            ),
            row(
                "fewest timeouts, oracle FTFD",
                "D0 = 100 ms, N = 3 (0.1)",
                &|r| best(r, false),
            ),
            row(
                "most throughput, oracle FTFD",
                "D0 = 70 ms, N = 5 (111.96)",
                &|r| best(r, true),
            ),
            row(
                "oracle-FTFD settings with fewer timeouts / more throughput than no jitter",
                "most (Figs. 4-8)",
                &count,
            ),
            row(
                "FTFD 100 ms, N = 3: fast retransmits",
                "none (selective repeat)",
                &|r| {
                    at(r, ftfd, 100, 3)
                        .map_or("-".into(), |p| format!("{:.2}", p.fast_retransmits.0))
                },
            ),
        ],
    }
}
