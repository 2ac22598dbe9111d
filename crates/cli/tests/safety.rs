//! The `spikelab` binary never loses a user's file, never leaves a staging folder after
//! an interrupt, never aborts on a huge `--jobs`, never prints a goodput above 1; and
//! `validate`, `--set` and the per-flow summary work end to end.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/{name}.toml"))
}

fn spikelab(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("the spikelab binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        text(&out.stderr)
    );
}

/// Every file under `dir` with its content, relative paths, sorted.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let content = std::fs::read(&p).unwrap();
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), content));
            }
        }
    }
    out.sort();
    out
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn run(cwd: &Path, scenario_name: &str, out: &str, extra: &[&str]) -> Output {
    let s = scenario(scenario_name);
    let mut args = vec!["run", s.to_str().unwrap(), "--out", out];
    args.extend_from_slice(extra);
    spikelab(cwd, &args)
}

// ----- item 1: never lose a user's file ----------------------------------------------

#[test]
fn a_user_folder_with_a_meta_json_and_sources_survives_run_and_reproduce() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    write(&project.join("meta.json"), "{\"mine\": true}");
    write(&project.join("src/main.rs"), "fn main() {}");
    let before = snapshot(tmp.path());
    let out = run(tmp.path(), "quickstart", "project", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(".spikelab-output"),
        "{}",
        text(&out.stderr)
    );
    let out = spikelab(
        tmp.path(),
        &["reproduce", "gprs-eifel", "--reps", "1", "--out", "project"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(snapshot(tmp.path()), before, "nothing written or deleted");
}

#[test]
fn a_rerun_replaces_its_own_files_and_keeps_plots_and_notes() {
    let tmp = tempfile::tempdir().unwrap();
    assert_ok(&run(tmp.path(), "quickstart", "res", &["--trace"]));
    assert_ok(&spikelab(tmp.path(), &["plot", "res"]));
    let res = tmp.path().join("res");
    write(&res.join("notes.txt"), "what I saw");
    let plots: Vec<_> = snapshot(&res.join("plots"));
    assert!(!plots.is_empty());
    assert_ok(&run(tmp.path(), "quickstart", "res", &["--reps", "2"]));
    assert_eq!(snapshot(&res.join("plots")), plots, "plots/ kept");
    assert_eq!(
        std::fs::read_to_string(res.join("notes.txt")).unwrap(),
        "what I saw"
    );
    assert!(
        !res.join("trace").exists(),
        "the earlier run's trace is gone"
    );
    let runs = std::fs::read_to_string(res.join("runs.csv")).unwrap();
    assert_eq!(
        runs.lines().count(),
        3,
        "the new run (2 repetitions): {runs}"
    );
    let marker = std::fs::read_to_string(res.join(".spikelab-output")).unwrap();
    assert!(
        marker.contains("\"runs.csv\"") && !marker.contains("notes.txt"),
        "{marker}"
    );
}

#[test]
fn a_file_in_the_way_of_a_new_output_is_not_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    assert_ok(&run(tmp.path(), "quickstart", "res", &[]));
    let mine = tmp.path().join("res/trace/rep0.csv");
    write(&mine, "my own trace");
    let out = run(tmp.path(), "quickstart", "res", &["--trace"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my own trace");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "no staging folder left");
}

// ----- item 3: goodput is at most 1, every metric finite or NaN -----------------------

/// 10 MB offered in 3 s to a 10 Mbit/s link, stopped at 4 s: about 120 flows finish;
/// of the rest, the old ratio (whole-transfer minimum / segments sent so far) put
/// more than 500 above 1.
const THOUSAND_FLOWS: &str = r#"
[run]
name = "thousand"
stop = "4s"

[[link]]
name = "path"
rate = "10Mbit/s"
latency = "20ms"
queue = { kind = "drop-tail", limit = { packets = 50 } }

[[flow]]
name = "f"
route = ["path"]
count = 1000
start = { min = "0s", max = "3s" }
tcp = { mss = 1000, receiver_window = 64000 }
workload = { kind = "bulk", bytes = "10KB" }
"#;

#[test]
fn a_short_run_of_1000_flows_reports_no_goodput_above_one() {
    let tmp = tempfile::tempdir().unwrap();
    write(&tmp.path().join("thousand.toml"), THOUSAND_FLOWS);
    assert_ok(&spikelab(
        tmp.path(),
        &["run", "thousand.toml", "--out", "o"],
    ));
    let runs = std::fs::read_to_string(tmp.path().join("o/runs.csv")).unwrap();
    let mut lines = runs.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (goodput, completed) = (col("goodput"), col("completed"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 1000);
    let mut finished = 0;
    for r in &rows {
        for v in &r[5..] {
            let x: f64 = v
                .parse()
                .unwrap_or_else(|_| panic!("`{v}` is not a number"));
            assert!(x.is_finite() || x.is_nan(), "{r:?}");
        }
        let g: f64 = r[goodput].parse().unwrap();
        assert!(g.is_nan() || (0.0..=1.0).contains(&g), "goodput {g}: {r:?}");
        if r[completed] == "1" {
            finished += 1;
            assert!(g.is_finite(), "a finished flow has a goodput: {r:?}");
        }
    }
    // The stop cuts the load short: both kinds of flow are in the test.
    assert!(finished > 0 && finished < 1000, "{finished} finished");
    let summary = std::fs::read_to_string(tmp.path().join("o/summary.csv")).unwrap();
    let row = summary
        .lines()
        .find(|l| l.starts_with("f,goodput,"))
        .unwrap();
    let max: f64 = row.split(',').next_back().unwrap().parse().unwrap();
    assert!(max <= 1.0, "{row}");
}

// ----- item 5: interrupts and --jobs ---------------------------------------------------

/// Starts `spikelab ARGS --out res` (a long command), sends `signal` once `inside` exists
/// in its staging folder, and checks the exit code and that no staging folder (or
/// output) is left.
fn interrupt_removes_the_staging_folder(args: &[&str], inside: &str, signal: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .current_dir(tmp.path())
        .args(args)
        .args(["--out", "res"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stage = tmp.path().join(format!("res.partial-{}", child.id()));
    let started = Instant::now();
    while !stage.join(inside).exists() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no staging folder appeared"
        );
        if let Some(status) = child.try_wait().unwrap() {
            panic!("spikelab ended early: {status:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A traced run long enough to be interrupted (5000 repetitions on one thread).
fn long_run() -> Vec<String> {
    let s = scenario("gprs-eifel");
    [
        "run",
        s.to_str().unwrap(),
        "--reps",
        "5000",
        "--jobs",
        "1",
        "--trace",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn sigint_removes_the_staging_folder_and_exits_130() {
    let args = long_run();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    interrupt_removes_the_staging_folder(&args, "trace/rep0.csv", "INT");
}

#[test]
fn sigterm_removes_the_staging_folder_and_exits_130() {
    let args = long_run();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    interrupt_removes_the_staging_folder(&args, "trace/rep0.csv", "TERM");
}

#[test]
fn sigint_during_reproduce_removes_its_staging_folder_and_exits_130() {
    let args = ["reproduce", "gprs-eifel", "--reps", "1000", "--jobs", "1"];
    interrupt_removes_the_staging_folder(&args, "gprs-eifel", "INT");
}

#[test]
fn a_huge_jobs_is_refused_with_exit_2_and_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "quickstart", "res", &["--jobs", "100000"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1..=1024"),
        "{}",
        text(&out.stderr)
    );
    let out = spikelab(tmp.path(), &["reproduce", "--jobs", "100000", "--out", "r"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none());
    // The largest accepted value runs (never more threads than repetitions).
    assert_ok(&run(tmp.path(), "quickstart", "res", &["--jobs", "1024"]));
}

// ----- item 4: validate, --set, the summary --------------------------------------------

#[test]
fn validate_prints_one_ok_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let s = scenario("gprs-eifel");
    let out = spikelab(tmp.path(), &["validate", s.to_str().unwrap()]);
    assert_ok(&out);
    let line = text(&out.stdout);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.starts_with("OK ")
            && line.contains("run `gprs-eifel`, 1 link, 1 flow, 100 repetitions"),
        "{line}"
    );
    write(&tmp.path().join("bad.toml"), "[run]\nreps = \"many\"\n");
    let out = spikelab(tmp.path(), &["validate", "bad.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: bad.toml:2:"), "{err}");
    assert!(err.contains("run.reps"), "{err}");
    let files: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(files.len(), 1, "only bad.toml");
}

#[test]
fn set_overrides_a_value_by_its_dotted_path_and_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let eifel = ["--set", "flow.0.tcp.spurious.driver=eifel"];
    assert_ok(&run(tmp.path(), "quickstart", "with", &eifel));
    assert_ok(&run(tmp.path(), "quickstart", "without", &[]));
    let detectors =
        |d: &str| std::fs::read_to_string(tmp.path().join(d).join("detectors.csv")).unwrap();
    assert!(
        detectors("with").contains("\neifel,"),
        "{}",
        detectors("with")
    );
    assert!(!detectors("without").contains("\neifel,"));
    let meta = std::fs::read_to_string(tmp.path().join("with/meta.json")).unwrap();
    assert!(
        meta.contains("\"flow.0.tcp.spurious.driver=eifel\""),
        "{meta}"
    );
    // validate takes the same overrides.
    let s = scenario("quickstart");
    let out = spikelab(
        tmp.path(),
        &["validate", s.to_str().unwrap(), "--set", "run.reps=7"],
    );
    assert_ok(&out);
    assert!(
        text(&out.stdout).contains("7 repetitions"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_bad_set_exits_2_naming_the_key_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for (set, want) in [
        (
            "flow.0.tcp.recovery=bogus",
            "--set flow.0.tcp.recovery=bogus: field `flow[0].tcp.recovery`: unknown variant",
        ),
        (
            "flow.4.name=x",
            "--set flow.4.name=x: `flow.4.name`: index 4 beyond 1 items",
        ),
        (
            "link.0.rate=fast",
            "--set link.0.rate=fast: field `link[0].rate`",
        ),
        (
            "no-equals-sign",
            "--set `no-equals-sign`: expected KEY=VALUE",
        ),
    ] {
        let out = run(tmp.path(), "quickstart", "res", &["--set", set]);
        assert_eq!(out.status.code(), Some(2), "{set}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.starts_with(&format!("error: {want}")), "{set}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none());
}

#[test]
fn a_run_prints_a_per_flow_summary_with_the_repetitions() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(tmp.path(), "quickstart", "res", &["--reps", "3"]);
    assert_ok(&out);
    let table = text(&out.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].contains("over 3 repetition(s)"), "{table}");
    for col in [
        "time_s", "RTOs", "spurious", "genuine", "retrans", "goodput",
    ] {
        assert!(lines[1].contains(col), "{table}");
    }
    let cells: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(&cells[..3], ["bulk", "3", "3"], "{table}");
    // The quickstart's 2 s spike: one spurious timeout per repetition, by the truth.
    let spurious: f64 = cells[5].parse().unwrap();
    let rtos: f64 = cells[4].parse().unwrap();
    let genuine: f64 = cells[6].parse().unwrap();
    assert!(
        spurious >= 1.0 && (spurious + genuine - rtos).abs() < 0.02,
        "{table}"
    );
}
