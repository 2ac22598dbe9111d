//! The delay-injection reproduction in its smoke setting (`Plan::smoke`: N in {1, 3, 10},
//! D0 in {40, 100} ms, 2 repetitions; the transfer keeps the paper's 512 segments): the
//! pipeline writes its files and sections; and what the simulation says about the
//! paper's setting FTFD (100 ms, N = 3) is checked as it is, not forced.

use spikelab_experiments::delay_injection::reproduction::run_plan;
use spikelab_experiments::delay_injection::sweep::{self, Plan};
use spikelab_experiments::delay_injection::tcp::{self, Injection, Pick};
use spikelab_experiments::report::Block;
use spikelab_experiments::reproduction::Context;
use spikelab_experiments::runner::Counter;
use spikelab_net::middlebox::InjectionMethod;

#[test]
fn the_smoke_run_writes_csv_figures_and_a_section() {
    let root = std::env::temp_dir().join(format!("spikelab-di-{}", std::process::id()));
    let counter = Counter::default();
    let ctx = Context {
        root: root.clone(),
        dir: root.join("delay-injection"),
        reps: 2,
        seed: 1,
        jobs: 2,
        progress: &counter,
    };
    std::fs::create_dir_all(&ctx.dir).unwrap();
    let section = run_plan(&ctx, &Plan::smoke()).unwrap();
    for f in [
        "sweep.csv",
        "path-delay.csv",
        "fig1-rtt-rto.png",
        "fig3-histogram.svg",
        "fig4-timeouts-d0-40.png",
        "fig8-throughput-ftfd.png",
        "oracle-timeouts-d0-100.png",
    ] {
        assert!(ctx.dir.join(f).exists(), "{f} missing");
    }
    let comparisons = section
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::Comparisons(_)))
        .count();
    assert_eq!(comparisons, 2);
    std::fs::remove_dir_all(&root).unwrap();
}

fn mean_timeouts(inj: Option<Injection>, reps: u64) -> (f64, f64) {
    let cfg = tcp::configure(&tcp::base().unwrap(), inj);
    let runs: Vec<_> = (0..reps)
        .map(|s| sweep::summarize(&spikelab_engine::run(&cfg, s).unwrap()))
        .collect();
    let p = sweep::point(inj, &runs);
    (p.timeouts.0, p.fast_retransmits.0)
}

#[test]
fn reordering_injection_at_the_papers_setting_triggers_fast_retransmits() {
    // The paper's claim "FTFD (100 ms, N = 3) gives fewer timeouts than no injection"
    // does not hold on our path (see the report): the delayed segment is overtaken and
    // fast-retransmitted. What holds robustly is the mechanism, checked here.
    let ftfd = Injection {
        method: InjectionMethod::Ftfd,
        d0_ms: 100,
        n: 3,
        pick: Pick::Oracle,
    };
    let (_, fr_none) = mean_timeouts(None, 8);
    let (_, fr_ftfd) = mean_timeouts(Some(ftfd), 8);
    assert_eq!(fr_none, 0.0);
    assert!(fr_ftfd > 1.0, "{fr_ftfd}");
    // Without reordering, the same injection causes no fast retransmission.
    let fifo = Injection {
        pick: Pick::OracleFifo,
        ..ftfd
    };
    assert_eq!(mean_timeouts(Some(fifo), 8).1, 0.0);
}
