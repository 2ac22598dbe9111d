//! The delay-injection reproduction in its smoke setting (`experiments/delay-injection.toml`
//! reduced to N in {1, 3, 5}, D0 in {40, 100} ms and 70 ms for the throughput figure,
//! 2 repetitions; the transfer keeps the paper's 512 segments): the pipeline writes its
//! files and sections; and what the simulation says about the paper's setting FTFD
//! (100 ms, N = 3) is checked as it is, not forced.

use spikelab_core::Dur;
use spikelab_engine::SimConfig;
use spikelab_experiments::grid::run::{base_text, expand};
use spikelab_experiments::papers::delay_injection::reproduction::{experiment, run_spec};
use spikelab_experiments::papers::delay_injection::sweep;
use spikelab_experiments::report::Block;
use spikelab_experiments::reproduction::Context;
use spikelab_experiments::runner::Counter;
use spikelab_net::middlebox::Selection;
use spikelab_net::MiddleboxConfig;

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
                    "n" => &["1", "3", "5"],
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

/// The scenario of the cell of `grid` in `experiments/delay-injection.toml` whose
/// labels include `want`.
fn cell(grid: &str, want: &[(&str, &str)]) -> SimConfig {
    let spec = experiment().unwrap();
    let g = spec.grid(grid).unwrap();
    let (base, name) = base_text(&spec, g.scenario.as_deref().unwrap_or(&spec.scenario)).unwrap();
    let cells = expand(&base, &name, g).unwrap();
    let mut found = cells.into_iter().filter(|c| {
        want.iter()
            .all(|(k, v)| c.labels.get(*k).map(String::as_str) == Some(*v))
    });
    let one = found.next().expect("a cell with these labels");
    assert!(found.next().is_none(), "{want:?} picks one cell");
    one.scenario.to_sim()
}

/// Mean timeouts and fast retransmissions of `cfg` over seeds 0..8.
fn means(cfg: &SimConfig) -> sweep::Point {
    let runs: Vec<_> = (0..8)
        .map(|s| sweep::summarize(&spikelab_engine::run(cfg, s).unwrap()))
        .collect();
    sweep::point(None, &runs)
}

fn ftfd(selection: &'static str) -> [(&'static str, &'static str); 4] {
    [
        ("selection", selection),
        ("method", "FTFD"),
        ("d0", "100"),
        ("n", "3"),
    ]
}

#[test]
fn reordering_injection_at_the_papers_setting_triggers_fast_retransmits() {
    // The paper's claim "FTFD (100 ms, N = 3) gives fewer timeouts than no injection"
    // does not hold on our path (see the report): the delayed segment is overtaken and
    // fast-retransmitted. What holds robustly is the mechanism, checked here.
    let none = means(&cell("sweep", &[("selection", "none")]));
    let reorder = means(&cell("sweep", &ftfd("oracle")));
    assert_eq!(none.fast_retransmits.0, 0.0);
    assert!(reorder.fast_retransmits.0 > 1.0, "{reorder:?}");
    // Without reordering, the same injection causes no fast retransmission.
    let fifo = means(&cell("sweep", &ftfd("oracle-fifo")));
    assert_eq!(fifo.fast_retransmits.0, 0.0);
}

#[test]
fn the_paper_mode_never_fast_retransmits_and_lets_the_injected_delay_reach_the_rto() {
    // The paper's simulator: no fast retransmit whatever the box reorders, and the
    // injected samples widen the RTO, so FTFD (100 ms, N = 3) times out less than the
    // same box on a sender that applies Karn's rule.
    let paper = means(&cell("paper", &ftfd("oracle")));
    let karn = means(&cell(
        "ablation",
        &[("variant", "+ Karn's rule"), ("d0", "100"), ("n", "3")],
    ));
    assert_eq!(paper.fast_retransmits.0, 0.0);
    assert!(paper.timeouts.0 < karn.timeouts.0, "{paper:?} {karn:?}");
}

#[test]
fn blind_probability_selection_delays_each_packet_with_one_in_n() {
    // The selection sets n = 1 and the computed set select_p = 1/N.
    let cfg = cell(
        "sweep",
        &[("selection", "probability"), ("d0", "60"), ("n", "4")],
    );
    let [m] = cfg.middleboxes.as_slice() else {
        panic!("one box")
    };
    let MiddleboxConfig::DelayInjection(c) = &m.config else {
        panic!("a delay injector")
    };
    assert_eq!(
        (c.select, c.select_p, c.n, c.d0),
        (Selection::Probability, 0.25, 1, Dur::from_millis(60))
    );
    assert!(cell("sweep", &[("selection", "none")])
        .middleboxes
        .is_empty());
}

#[test]
fn a_misspelt_key_in_the_experiment_is_a_located_error() {
    let text = spikelab_experiments::embedded::experiment("delay-injection.toml").unwrap();
    let bad = text.replacen("by = [{ min", "bye = [{ min", 1);
    let line = bad.lines().position(|l| l.starts_with("bye = ")).unwrap();
    let e = spikelab_experiments::grid::ExperimentSpec::parse(&bad, "di.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `bye`"), "{e}");
    // Located in the `[[pick]]` table that holds it (serde reports the table).
    let at: usize = e.split(':').nth(1).unwrap().parse().unwrap();
    assert!(at <= line + 1 && at + 5 >= line, "{e} (line {})", line + 1);
}
