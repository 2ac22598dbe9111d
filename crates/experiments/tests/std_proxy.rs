//! The std-proxy reproduction in its smoke setting (`Plan::smoke`: two rates, both
//! windows, a 200 KB transfer, 2 repetitions): the pipeline writes its files, and the
//! paper's robust claim holds: at a low rate with an 8 KB window STD raises throughput
//! over plain Reno and keeps go-back-N retransmissions off the wireless link.

use spikelab_experiments::report::Block;
use spikelab_experiments::reproduction::Context;
use spikelab_experiments::runner::Counter;
use spikelab_experiments::std_proxy::results::{aggregate, Results};
use spikelab_experiments::std_proxy::setup::{cells, Plan, Scheme};
use spikelab_experiments::std_proxy::{metrics, run_plan};

fn ctx<'a>(dir: &std::path::Path, progress: &'a Counter) -> Context<'a> {
    Context {
        root: dir.to_path_buf(),
        dir: dir.join("std-proxy"),
        reps: 2,
        seed: 1,
        jobs: 2,
        progress,
    }
}

#[test]
fn the_smoke_run_writes_csv_figures_and_a_section() {
    let root = std::env::temp_dir().join(format!("spikelab-std-{}", std::process::id()));
    let counter = Counter::default();
    let c = ctx(&root, &counter);
    std::fs::create_dir_all(&c.dir).unwrap();
    let section = run_plan(&c, &Plan::smoke()).unwrap();
    for f in [
        "results.csv",
        "runs.csv",
        "fig8-throughput-8k.png",
        "fig9-goodput-64k.svg",
    ] {
        assert!(c.dir.join(f).exists(), "{f} missing");
    }
    let figures = section
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::Figure(_)))
        .count();
    assert_eq!(figures, 6);
    assert!(section
        .blocks
        .iter()
        .any(|b| matches!(b, Block::Comparisons(v) if v.len() == 6)));
    std::fs::remove_dir_all(&root).unwrap();
}

fn smoke_results() -> Results {
    let plan = Plan::smoke();
    let cells = cells(&plan);
    let base = spikelab_experiments::std_proxy::setup::base().unwrap();
    let cellular = spikelab_experiments::std_proxy::setup::cellular_index(&base);
    let runs: Vec<Vec<_>> = cells
        .iter()
        .map(|&cell| {
            let cfg = spikelab_experiments::std_proxy::setup::configure(&base, &plan, cell);
            (0..2u64)
                .map(|seed| {
                    let r = spikelab_engine::run(&cfg, seed + 7).unwrap();
                    let rate = spikelab_core::BitRate(cell.rate_kbps * 1000);
                    metrics::summarize(&r, cellular, rate, cell.window)
                })
                .collect()
        })
        .collect();
    aggregate(&cells, &runs)
}

#[test]
fn std_beats_plain_reno_at_a_low_rate_with_an_8k_window() {
    let r = smoke_results();
    let plain = r.get(8192, Scheme::Plain, 20);
    let std = r.get(8192, Scheme::Std, 20);
    assert!(plain.spurious > 0.0, "the hiccups cause spurious timeouts");
    assert!(
        std.throughput.0 > plain.throughput.0,
        "{std:?} vs {plain:?}"
    );
    assert!(std.goodput.0 > plain.goodput.0, "{std:?} vs {plain:?}");
    assert!(std.cond_episodes > 0 && std.cond_met > 0, "{std:?}");
    assert!(r
        .points
        .iter()
        .all(|p| p.dropped == 0 && p.completed == p.n));
}
