//! The `delay-injection` reproduction: (a) the RTT-trace mode figures (Figs. 1-3) of
//! the synthetic GPRS-like trace, (b) the TCP simulation (Figs. 4-8) over a path that
//! replays it, with the oracle's value measured against blind selection.

use super::figures::{fig1, fig2, fig3, Histogram, RttRtoWindow};
use super::inject::{timeouts_by_method, InjectionSpec};
use super::tcp;
use crate::artifacts::{chart, line_figure};
use crate::context::Context;
use crate::grid::layout::RustBlocks;
use crate::grid::run::{run_experiment, Grids};
use crate::grid::ExperimentSpec;
use crate::report::{Block, Comparison, Section};
use crate::reproduction::from_file::FromFile;
use rand::SeedableRng;
use spikelab_core::{Dur, SimRng};
use spikelab_net::middlebox::InjectionMethod;
use spikelab_output::plot::{scatter_chart, Series};
use spikelab_tcp::rto::klein::KleinRtoParams;

/// The `delay-injection` reproduction: `experiments/delay-injection.toml` with the
/// trace mode as its Rust block.
pub static DELAY_INJECTION: FromFile = FromFile::new(
    "delay-injection",
    "Avoiding Spurious TCP Timeouts in Wireless Networks by Delay Injection (Klein, Leung, Parkinson, Samuel)",
    "delay-injection.toml",
)
.with_rust_blocks(RUST_BLOCKS);

/// The Rust blocks of this paper: layout item `rust:trace-mode` ([`trace_mode_blocks`]),
/// Figs. 1-3, an analysis of the delay trace itself, not a simulation.
pub const RUST_BLOCKS: RustBlocks = &[("trace-mode", trace_mode_blocks)];

/// `experiments/delay-injection.toml`, parsed, with its Rust block.
pub fn experiment() -> anyhow::Result<ExperimentSpec> {
    DELAY_INJECTION.spec()
}

/// Runs `spec` (`experiments/delay-injection.toml`: the realistic sweep `sweep`, the
/// paper mode's `paper`, the ablation `ablation`, their CSV files, charts and text, and
/// the Rust block `rust:trace-mode`, [`trace_mode_blocks`]) with `ctx.reps`
/// repetitions into `ctx.dir`; returns the section.
pub fn run_spec(ctx: &Context, spec: &ExperimentSpec) -> anyhow::Result<Section> {
    run_experiment(spec, ctx)
}

/// Layout item `rust:trace-mode` ([`RUST_BLOCKS`]):
/// the trace mode, Figs. 1-3, an analysis of the trace itself rather than a simulation.
pub fn trace_mode_blocks(ctx: &Context, _grids: &Grids) -> anyhow::Result<Vec<Block>> {
    let mut blocks = vec![Block::Text(TRACE_TEXT.into())];
    blocks.extend(trace_mode(ctx)?);
    Ok(blocks)
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
    let p = KleinRtoParams::default();
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
