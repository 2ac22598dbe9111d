//! Run series end to end: a grid keeps each cell's first run's RTO computations, a
//! `run_series` CSV file writes them row by row and a `run` chart draws them; a chart
//! whose `where` picks more than one cell is refused.

use spikelab_experiments::grid::run::run_experiment;
use spikelab_experiments::grid::ExperimentSpec;
use spikelab_experiments::reproduction::Context;
use spikelab_experiments::runner::Counter;

const SPEC: &str = r#"
name = "series"
title = "series"
scenario = "peak-hopper-c.toml"
flow = "bulk"

[[grid]]
name = "g"
set = { "run.stop" = "30s" }
[[grid.axis]]
name = "timer"
values = [{ label = "PH" }, { label = "RFC", set = { "flow.0.tcp.rto" = { kind = "rfc6298" } } }]

[[csv]]
file = "runs.csv"
grid = "g"
per_run = true
columns = [
  { name = "timer", key = "timer" },
  { name = "rep", key = "rep", int = true },
  { name = "n", metric = "timer_rto_computations", int = true },
]

[[csv]]
file = "trace.csv"
grid = "g"
run_series = "rto_samples"
columns = [
  { name = "timer", key = "timer" },
  { name = "t", column = "time_s" },
  { name = "rto", column = "rto_s" },
]

[[chart]]
name = "ph"
grid = "g"
kind = "run"
title = "PH"
x_label = "time (s)"
y_label = "s"
metric = "rto_samples"
x = "time_s"
x_from = 10.0
lines = [{ column = "rto_s", label = "RTO" }]
where = { timer = "PH" }
"#;

fn run(spec: &str, dir: &std::path::Path) -> anyhow::Result<()> {
    let spec = ExperimentSpec::parse(spec, "series.toml")?;
    let counter = Counter::default();
    let ctx = Context {
        root: dir.to_path_buf(),
        dir: dir.join("series"),
        reps: 2,
        seed: 1,
        jobs: 2,
        progress: &counter,
    };
    std::fs::create_dir_all(&ctx.dir).unwrap();
    let layout = spec.chart.iter().map(|c| format!("chart:{}", c.name));
    let spec = ExperimentSpec {
        layout: layout.collect(),
        ..spec
    };
    run_experiment(&spec, &ctx).map(|_| ())
}

fn rows(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let rows = text.lines().skip(1);
    rows.map(|l| l.split(',').map(String::from).collect())
        .collect()
}

#[test]
fn the_first_runs_samples_are_written_per_cell_and_drawn() {
    let tmp = tempfile::tempdir().unwrap();
    run(SPEC, tmp.path()).unwrap();
    let dir = tmp.path().join("series");
    let runs = rows(&dir.join("runs.csv"));
    let trace = rows(&dir.join("trace.csv"));
    for timer in ["PH", "RFC"] {
        let first = runs.iter().find(|r| r[0] == timer && r[1] == "0").unwrap();
        let n: usize = first[2].parse().unwrap();
        let mine: Vec<f64> = trace
            .iter()
            .filter(|r| r[0] == timer)
            .map(|r| r[1].parse().unwrap())
            .collect();
        assert!(n > 10, "{timer}: {n} computations");
        assert_eq!(
            mine.len(),
            n,
            "{timer}: the first repetition's samples only"
        );
        assert!(mine.windows(2).all(|w| w[0] <= w[1]), "in time order");
    }
    assert!(dir.join("ph.svg").is_file() && dir.join("ph.png").is_file());
}

#[test]
fn a_run_chart_of_two_cells_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let err = run(
        &SPEC.replace("where = { timer = \"PH\" }\n", ""),
        tmp.path(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("picks 2 cells"), "{err}");
}
