//! `spikelab advise` end to end: a trace wrapped into a path, rows that rerun with
//! `spikelab run` to the same numbers, byte-identical answers, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(p)
}

fn spikelab(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("the spikelab binary runs")
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Column `name` of every data line of the CSV file `path` whose first field is `key`.
fn column(path: &Path, key: &str, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|h| *h == name).unwrap();
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| key.is_empty() || f[0] == key)
        .map(|f| f[i].to_owned())
        .collect()
}

#[test]
fn a_delay_trace_is_advised_and_each_row_reruns_to_the_same_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo("scenarios/traces/spikes-owd.csv");
    let args = [
        "advise",
        trace.to_str().unwrap(),
        "--reps",
        "3",
        "--fix",
        "eifel:option1:none",
        "--out",
        "adv",
    ];
    let out = spikelab(tmp.path(), &args);
    assert_ok(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("eifel:option1:none") && stdout.contains("baseline"),
        "{stdout}"
    );
    assert!(stdout.contains("--reps 3 --seed 1"), "{stdout}");
    let adv = tmp.path().join("adv");
    for f in [
        "advise.csv",
        "runs.csv",
        "advise.html",
        "advise.md",
        "path.toml",
    ] {
        assert!(adv.join(f).exists(), "{f}");
    }
    assert!(adv.join("trace/spikes-owd.delay.csv").exists());
    let html = std::fs::read_to_string(adv.join("advise.html")).unwrap();
    assert!(html.matches("<svg").count() >= 2, "two plots inlined");
    // The row's scenario reruns with `spikelab run` to the download times advise saw.
    let row = adv.join("scenarios/eifel-option1-none.toml");
    let rerun = spikelab(&adv, &["run", row.to_str().unwrap(), "--out", "rerun"]);
    assert_ok(&rerun);
    let seen: Vec<f64> = column(&adv.join("runs.csv"), "eifel:option1:none", "time_s")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let again: Vec<f64> = column(&adv.join("rerun/runs.csv"), "", "download_time_s")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(seen.len(), 3);
    assert_eq!(again.len(), 3);
    for (a, b) in seen.iter().zip(&again) {
        assert!((a - b).abs() < 1e-6, "{seen:?} vs {again:?}");
    }
    // The same command again gives the same bytes.
    let out2 = spikelab(tmp.path(), &[&args[..7], &["adv2"]].concat());
    assert_ok(&out2);
    assert_eq!(
        std::fs::read(adv.join("advise.csv")).unwrap(),
        std::fs::read(tmp.path().join("adv2/advise.csv")).unwrap()
    );
}

#[test]
fn a_bad_path_exits_2_with_a_located_error_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("bad.toml"),
        "[[link]]\nname = \"l\"\nrate = \"fast\"\n",
    )
    .unwrap();
    let out = spikelab(tmp.path(), &["advise", "bad.toml", "--out", "adv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:3:"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    std::fs::write(tmp.path().join("owd.csv"), "0,0ms\n1s,2s\nlater,0ms\n").unwrap();
    let out = spikelab(tmp.path(), &["advise", "owd.csv", "--out", "adv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("owd.csv:3:1: bad time"), "{err}");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left.len(), 2, "nothing written: {left:?}");
}

#[test]
fn the_stopping_rule_gives_the_same_bytes_with_any_number_of_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = repo("scenarios/traces/spikes-owd.csv");
    let run = |jobs: &str, out: &str| {
        let args = [
            "advise",
            trace.to_str().unwrap(),
            "--fix",
            "eifel:option1:none",
            "--fix",
            "std-proxy",
            "--max-reps",
            "40",
            "--jobs",
            jobs,
            "--out",
            out,
        ];
        let o = spikelab(tmp.path(), &args);
        assert_ok(&o);
        String::from_utf8(o.stdout).unwrap()
    };
    let one = run("1", "a");
    let two = run("2", "b");
    assert_eq!(one, two);
    assert!(one.contains("--max-reps 40 --seed 1"), "{one}");
    for f in ["advise.csv", "runs.csv", "advise.md"] {
        let a = std::fs::read_to_string(tmp.path().join("a").join(f)).unwrap();
        let b = std::fs::read_to_string(tmp.path().join("b").join(f)).unwrap();
        assert_eq!(a, b, "{f}");
    }
    let md = std::fs::read_to_string(tmp.path().join("a/advise.md")).unwrap();
    assert!(md.contains("Margin: ±") && md.contains("Holm over"), "{md}");
}
