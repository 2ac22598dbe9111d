//! The delay-injection reproduction in its smoke setting (`experiments/delay-injection.toml`
//! reduced to N in {1, 3, 10}, D0 in {40, 100} ms and 70 ms for the throughput figure,
//! 2 repetitions; the transfer keeps the paper's 512 segments): the pipeline writes its
//! files and sections; and what the simulation says about the paper's setting FTFD
//! (100 ms, N = 3) is checked as it is, not forced.

use spikelab_experiments::delay_injection::reproduction::{experiment, run_spec};
use spikelab_experiments::delay_injection::sweep;
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
    let mut spec = experiment().unwrap();
    for g in &mut spec.grid {
        for p in &mut g.product {
            for a in &mut p.axis {
                let keep: &[&str] = match a.name.as_str() {
                    "n" => &["1", "3", "10"],
                    "d0" => &["40", "100", "70"],
                    _ => continue,
                };
                a.values.retain(|v| keep.contains(&v.label.as_str()));
            }
        }
    }
    let section = run_spec(&ctx, &spec).unwrap();
    let sweep_rows = std::fs::read_to_string(ctx.dir.join("sweep.csv")).unwrap();
    // The header, no jitter, 2 D0 x 3 N x 6 selections, 70 ms x 3 N with oracle FTFD.
    assert_eq!(sweep_rows.lines().count(), 1 + 1 + 36 + 3);
    for f in [
        "sweep.csv",
        "path-delay.csv",
        "fig1-rtt-rto.png",
        "fig3-histogram.svg",
        "fig4-timeouts-d0-40.png",
        "fig8-throughput-ftfd.png",
        "oracle-timeouts-d0-100.png",
        "sweep-paper.csv",
        "paper-fig4-timeouts-d0-40.png",
        "paper-fig8-throughput-ftfd.png",
    ] {
        assert!(ctx.dir.join(f).exists(), "{f} missing");
    }
    let comparisons = section
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::Comparisons(_)))
        .count();
    // Trace mode, the realistic TCP simulation, the paper mode.
    assert_eq!(comparisons, 3);
    let tables: Vec<&str> = section
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Table(t) => Some(t.title.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        tables.iter().any(|t| t.contains("side by side")),
        "{tables:?}"
    );
    assert!(
        tables.iter().any(|t| t.contains("What real TCP does")),
        "{tables:?}"
    );
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

#[test]
fn the_paper_mode_never_fast_retransmits_and_lets_the_injected_delay_reach_the_rto() {
    // The paper's simulator: no fast retransmit whatever the box reorders, and the
    // injected samples widen the RTO, so FTFD (100 ms, N = 3) times out less than the
    // same box on a sender that applies Karn's rule.
    let base = tcp::base_of(tcp::Mode::Paper).unwrap();
    let ftfd = Some(Injection {
        method: InjectionMethod::Ftfd,
        d0_ms: 100,
        n: 3,
        pick: Pick::Oracle,
    });
    let cell = tcp::configure(&base, ftfd);
    let runs = |cfg: &spikelab_engine::SimConfig| {
        let rs: Vec<_> = (0..8)
            .map(|s| sweep::summarize(&spikelab_engine::run(cfg, s).unwrap()))
            .collect();
        sweep::point(ftfd, &rs)
    };
    let paper = runs(&cell);
    let karn = runs(&tcp::RealTcp::Karn.apply(&cell));
    assert_eq!(paper.fast_retransmits.0, 0.0);
    assert!(paper.timeouts.0 < karn.timeouts.0, "{paper:?} {karn:?}");
}
