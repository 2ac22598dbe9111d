//! Metrics over a group of flows (`metric@group`): four replicas of the gprs-eifel
//! download share the link; a group of one flow gives that flow's value, the group of
//! all four pools their RTO computations, and a metric that reads one flow refuses a
//! group when the file is parsed.

use spikelab_experiments::grid::run::run_experiment;
use spikelab_experiments::grid::ExperimentSpec;
use spikelab_experiments::reproduction::Context;
use spikelab_experiments::runner::Counter;
use std::collections::BTreeMap;

const SPEC: &str = r#"
name = "groups"
title = "groups"
scenario = "gprs-eifel.toml"
flow = "download#0"

[[grid]]
name = "g"
set = { "flow.0.workload.bytes" = "20KB", "flow.0.count" = 4 }
group = [{ name = "first", flows = ["download#0"] }, { name = "all", flows = ["download"] }]
[[grid.axis]]
name = "tcp"
values = [{ label = "reno" }]

[[csv]]
file = "runs.csv"
grid = "g"
per_run = true
columns = [
  { name = "rep", key = "rep", int = true },
  { name = "p", metric = "timer_p" },
  { name = "p_first", metric = "timer_p@first" },
  { name = "p_all", metric = "timer_p@all" },
  { name = "sent", metric = "data_segments_sent", int = true },
]
"#;

/// Runs `spec` with `--reps 2`; the rows of its runs.csv.
fn run(spec: &str) -> anyhow::Result<Vec<BTreeMap<String, f64>>> {
    let spec = ExperimentSpec::parse(spec, "groups.toml")?;
    let tmp = tempfile::tempdir().unwrap();
    let counter = Counter::default();
    let ctx = Context {
        root: tmp.path().to_path_buf(),
        dir: tmp.path().join("groups"),
        reps: 2,
        seed: 1,
        jobs: 2,
        progress: &counter,
    };
    std::fs::create_dir_all(&ctx.dir).unwrap();
    run_experiment(&spec, &ctx)?;
    let text = std::fs::read_to_string(ctx.dir.join("runs.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    Ok(lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(|v| v.parse().unwrap()))
                .collect()
        })
        .collect())
}

#[test]
fn a_group_of_one_is_that_flow_and_the_group_of_all_pools_every_flow() {
    let rows = run(SPEC).unwrap();
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert!(r["p"].is_finite() && r["p"] > 1.0, "{r:?}");
        assert_eq!(r["p"], r["p_first"], "a group of one flow is that flow");
        assert!(r["sent"] > 0.0);
    }
    assert!(
        rows.iter().any(|r| r["p_all"] != r["p"]),
        "four flows pool more RTO computations than one: {rows:?}"
    );
}

#[test]
fn a_metric_of_the_experiments_flow_alone_takes_no_group() {
    let bad = SPEC.replace("\"data_segments_sent\"", "\"data_segments_sent@all\"");
    let e = ExperimentSpec::parse(&bad, "groups.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes no group"), "{e}");
    // Located at the column that names it, as a scenario's errors are.
    let line = 1 + bad.lines().position(|l| l.contains("sent@all")).unwrap();
    let col = 1 + bad.lines().nth(line - 1).unwrap().find("metric").unwrap();
    assert!(
        e.starts_with(&format!(
            "groups.toml:{line}:{col}: field `csv[0].columns[4].metric`: "
        )),
        "{e}"
    );
    let unknown = SPEC.replace("\"timer_p@all\"", "\"timer_p@nobody\"");
    let e = ExperimentSpec::parse(&unknown, "groups.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no group `nobody`"), "{e}");
}

#[test]
fn a_grid_may_scale_its_repetitions_from_reps() {
    let with = |expr: &str| {
        SPEC.replace(
            "name = \"g\"\n",
            &format!("name = \"g\"\nreps = \"{expr}\"\n"),
        )
    };
    assert_eq!(run(&with("max(1, ceil(reps / 50))")).unwrap().len(), 1);
    assert_eq!(run(&with("reps + 1")).unwrap().len(), 3);
    let e = run(&with("reps - 2")).unwrap_err().to_string();
    assert!(e.contains("not a count >= 1"), "{e}");
    let e = run(&with("reps +")).unwrap_err().to_string();
    assert!(e.contains("grid `g` reps"), "{e}");
}
