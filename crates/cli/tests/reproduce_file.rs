//! `spikelab reproduce --experiment FILE`: a user's own experiment file, read from disk
//! with the scenario files it names beside it, runs as the built-in one does; a bad
//! file is a located one-line error, exit 2, and no output folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn spikelab(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the spikelab binary runs")
}

/// A temporary directory holding `study.toml` (experiments/std-proxy.toml with
/// `edit` applied) and the scenario it names, scenarios/std-proxy.toml.
fn study(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo("experiments/std-proxy.toml")).unwrap();
    std::fs::write(tmp.path().join("study.toml"), edit(&text)).unwrap();
    std::fs::copy(
        repo("scenarios/std-proxy.toml"),
        tmp.path().join("std-proxy.toml"),
    )
    .unwrap();
    tmp
}

/// The `.csv` files of `dir`, sorted by name, with their bytes.
fn csvs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_copy_of_a_built_in_experiment_file_gives_the_built_in_csv_files() {
    let tmp = study(str::to_owned);
    let built_in = spikelab(
        tmp.path(),
        &["reproduce", "std-proxy", "--reps", "1", "--out", "a"],
    );
    assert!(
        built_in.status.success(),
        "{}",
        String::from_utf8_lossy(&built_in.stderr)
    );
    let file = spikelab(
        tmp.path(),
        &[
            "reproduce",
            "--experiment",
            "study.toml",
            "--reps",
            "1",
            "--out",
            "b",
        ],
    );
    assert!(
        file.status.success(),
        "{}",
        String::from_utf8_lossy(&file.stderr)
    );
    let a = csvs(&tmp.path().join("a/std-proxy"));
    let b = csvs(&tmp.path().join("b/std-proxy"));
    assert!(a.len() >= 2, "the built-in wrote its CSV files: {a:?}");
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between the built-in and the file");
    }
    // Only the file's experiment ran: no other reproduction's folder.
    let dirs: Vec<_> = std::fs::read_dir(tmp.path().join("b"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && !n.starts_with("report"))
        .collect();
    assert_eq!(dirs, ["std-proxy"]);
}

#[test]
fn an_unknown_metric_is_a_located_error_and_no_output_folder() {
    let tmp = study(|t| {
        let bad = t.replacen(
            "metric = \"throughput_kbps\"",
            "metric = \"throughput_kbpz\"",
            1,
        );
        assert_ne!(bad, t, "the experiment names throughput_kbps");
        bad
    });
    let text = std::fs::read_to_string(tmp.path().join("study.toml")).unwrap();
    let line = 1 + text
        .lines()
        .position(|l| l.contains("throughput_kbpz"))
        .unwrap();
    let run = spikelab(
        tmp.path(),
        &["reproduce", "--experiment", "study.toml", "--out", "o"],
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("study.toml:{line}:1: field `grid[0].value[")),
        "{err}"
    );
    assert!(err.contains("unknown metric `throughput_kbpz`"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!tmp.path().join("o").exists(), "no output folder");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "nothing written beside the files: {left:?}");
}

#[test]
fn a_missing_scenario_is_located_at_the_field_that_names_it() {
    let tmp = study(|t| {
        t.replacen(
            "scenario = \"std-proxy.toml\"",
            "scenario = \"nope.toml\"",
            1,
        )
    });
    let run = spikelab(
        tmp.path(),
        &["reproduce", "--experiment", "study.toml", "--out", "o"],
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("study.toml:"), "{err}");
    assert!(
        err.contains(": field `scenario`: cannot read scenario"),
        "{err}"
    );
    assert!(!tmp.path().join("o").exists(), "no output folder");
}

#[test]
fn a_default_reading_that_changes_the_grid_is_located_at_its_set() {
    let tmp = study(|t| {
        let bad = t.replacen(
            "set = { \"link.1.spikes.0.dirs\" = \"both\" }",
            "set = { \"link.1.spikes.0.dirs\" = \"forward\" }",
            1,
        );
        assert_ne!(
            bad, t,
            "the experiment declares the spike-direction reading"
        );
        bad
    });
    let run = spikelab(
        tmp.path(),
        &[
            "reproduce",
            "--experiment",
            "study.toml",
            "--readings",
            "--out",
            "o",
        ],
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("study.toml:"), "{err}");
    assert!(err.contains(": field `reading[1].option[0].set`"), "{err}");
    assert!(
        err.contains("the default must be what the grids already run"),
        "{err}"
    );
    assert!(!tmp.path().join("o").exists(), "no output folder");
}

#[test]
fn readings_score_every_finding_under_every_reading_in_csv_and_report() {
    let tmp = study(str::to_owned);
    let run = spikelab(
        tmp.path(),
        &[
            "reproduce",
            "--experiment",
            "study.toml",
            "--readings",
            "--reps",
            "1",
            "--out",
            "o",
        ],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let csv = std::fs::read_to_string(tmp.path().join("o/std-proxy/readings.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("finding,reading,mean,ci95,n,holds,firm"));
    // Five findings under the default and three other readings, one at a time.
    assert_eq!(lines.count(), 5 * 4, "{csv}");
    assert!(
        csv.contains("frto-gains-20,F-RTO room rule: room-for-one,"),
        "{csv}"
    );
    let report = std::fs::read_to_string(tmp.path().join("o/report.md")).unwrap();
    assert!(report.contains("Findings × readings"), "{report}");
    assert!(
        !tmp.path().join("o/std-proxy/results.csv").exists(),
        "--readings runs the findings, not the tables"
    );
}
