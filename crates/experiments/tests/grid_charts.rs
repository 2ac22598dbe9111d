//! The grid's scatter and distribution-function charts, end to end on a small grid of
//! the gprs-eifel scenario (a 30 KB download, 3 repetitions), and the errors a chart
//! that names no metric or an unknown one gets.

use spikelab_experiments::grid::run::run_experiment;
use spikelab_experiments::grid::ExperimentSpec;
use spikelab_experiments::report::Block;
use spikelab_experiments::reproduction::Context;
use spikelab_experiments::runner::Counter;

const SPEC: &str = r#"
name = "charts"
title = "charts"
scenario = "gprs-eifel.toml"
flow = "download"
layout = ["chart:scatter", "chart:cdf"]

[[grid]]
name = "g"
set = { "flow.0.workload.bytes" = "30KB" }
[[grid.axis]]
name = "buffer"
values = [
  { label = "9", set = { "link.0.queue.limit.packets" = 9 } },
  { label = "99", set = { "link.0.queue.limit.packets" = 99 } },
]
[[grid.axis]]
name = "tcp"
values = [
  { label = "reno", set = { "flow.0.tcp.recovery" = "reno" } },
  { label = "newreno", set = { "flow.0.tcp.recovery" = "new-reno" } },
]

[[chart]]
name = "scatter"
grid = "g"
kind = "scatter"
title = "download time per run"
x_label = "buffer (packets)"
y_label = "s"
x = "buffer"
series = "tcp"
metric = "download_time_s"

[[chart]]
name = "cdf"
grid = "g"
kind = "cdf"
title = "download time"
x_label = "s"
y_label = "fraction of runs"
series = "tcp"
metric = "download_time_s"
"#;

#[test]
fn scatter_and_cdf_charts_are_drawn_from_every_repetition() {
    let spec = ExperimentSpec::parse(SPEC, "charts.toml").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let counter = Counter::default();
    let ctx = Context {
        root: tmp.path().to_path_buf(),
        dir: tmp.path().join("charts"),
        reps: 3,
        seed: 1,
        jobs: 2,
        progress: &counter,
    };
    std::fs::create_dir_all(&ctx.dir).unwrap();
    let section = run_experiment(&spec, &ctx).unwrap();
    let figures: Vec<_> = section
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Figure(f) => Some(f.title.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(figures, ["download time per run", "download time"]);
    for f in ["scatter.svg", "scatter.png", "cdf.svg", "cdf.png"] {
        assert!(ctx.dir.join(f).exists(), "{f} missing");
    }
    let svg = std::fs::read_to_string(ctx.dir.join("cdf.svg")).unwrap();
    assert!(svg.contains("newreno"), "a series per tcp label");
}

#[test]
fn a_chart_needs_a_known_metric() {
    let bad = SPEC.replace(
        "kind = \"cdf\"\ntitle = \"download time\"\nx_label = \"s\"\ny_label = \"fraction of runs\"\nseries = \"tcp\"\nmetric = \"download_time_s\"",
        "kind = \"cdf\"\ntitle = \"download time\"\nx_label = \"s\"\ny_label = \"fraction of runs\"\nseries = \"tcp\"\nmetric = \"nope\"",
    );
    assert_ne!(bad, SPEC);
    let e = ExperimentSpec::parse(&bad, "charts.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("chart `cdf`: unknown metric `nope`"), "{e}");
    let no_x = SPEC.replace("x = \"buffer\"\n", "");
    let e = ExperimentSpec::parse(&no_x, "charts.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("a scatter chart needs `x`"), "{e}");
}
