//! `spikelab reproduce --experiment` with a copy of `experiments/peak-hopper.toml` whose
//! Scenario C or section II block, or a layout item, names something that does not exist: a located
//! one-line error, exit 2, before anything runs or is written.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// Runs the file with `needle` replaced by `with`; its stderr and the changed line.
fn misspelt(dir: &Path, needle: &str, with: &str) -> (String, usize) {
    let text = std::fs::read_to_string(repo("experiments/peak-hopper.toml")).unwrap();
    let at = text.find(needle).expect("the file has it");
    let line = 1 + text[..at].matches('\n').count();
    std::fs::write(dir.join("study.toml"), text.replacen(needle, with, 1)).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .current_dir(dir)
        .args(["reproduce", "--experiment", "study.toml", "--out", "o"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!dir.join("o").exists(), "no output folder");
    (err, line)
}

#[test]
fn a_misspelt_run_series_reduction_axis_or_feed_metric_exits_2_located() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "metric = \"rto_samples\"",
            "metric = \"rto_sample\"",
            "unknown run series `rto_sample`",
        ),
        (
            "value = \"max_over(d,",
            "value = \"max_over(D,",
            "the axis is one of d, kbps, timestamps, timer",
        ),
        (
            "metric = \"spike_peak_rto_s\"",
            "metric = \"spike_peak\"",
            "unknown feed metric `spike_peak`",
        ),
        (
            "metric = \"outage_hit_pct\"",
            "metric = \"outage_hit_pc\"",
            "unknown metric `outage_hit_pc`",
        ),
        (
            "\"chart:c-fig18a\"",
            "\"chart:c-fig18x\"",
            "layout item `chart:c-fig18x`: no chart `c-fig18x` in this file",
        ),
    ];
    for (needle, with, why) in cases {
        let (err, line) = misspelt(tmp.path(), needle, with);
        assert!(err.contains(&format!("study.toml:{line}:")), "{err}");
        assert!(err.contains(why), "{err}");
    }
}
