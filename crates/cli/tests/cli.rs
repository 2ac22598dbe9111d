//! The `spikelab` binary end to end: determinism across `--jobs`, `--seed` replay,
//! clean failures, pcaps that tshark agrees with, and plots.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn quickstart() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml")
}

/// Runs `spikelab` with `args` in `cwd`.
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

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

fn run_quickstart(tmp: &Path, out: &str, extra: &[&str]) {
    let q = quickstart();
    let mut args = vec!["run", q.to_str().unwrap(), "--out", out];
    args.extend_from_slice(extra);
    assert_ok(&spikelab(tmp, &args));
}

#[test]
fn outputs_are_byte_identical_whatever_jobs_is() {
    let tmp = tempfile::tempdir().unwrap();
    let common = ["--reps", "4", "--trace", "--pcap"];
    run_quickstart(tmp.path(), "one", &[&common[..], &["--jobs", "1"]].concat());
    run_quickstart(tmp.path(), "two", &[&common[..], &["--jobs", "2"]].concat());
    let (a, b) = (tmp.path().join("one"), tmp.path().join("two"));
    let names = files(&a);
    assert_eq!(names, files(&b));
    for want in [
        "runs.csv",
        "summary.csv",
        "timeouts.csv",
        "links.csv",
        "meta.json",
    ] {
        assert!(
            names.contains(&PathBuf::from(want)),
            "{want} missing: {names:?}"
        );
    }
    assert!(names.contains(&PathBuf::from("trace/rep3.csv")));
    assert!(names.contains(&PathBuf::from("pcap/rep3-bulk.pcap")));
    assert_same_bytes(&a, &b, &names);
}

/// Every file of `names` has the same bytes under `a` (written with `--jobs 1`) and `b`
/// (`--jobs 2`).
fn assert_same_bytes(a: &Path, b: &Path, names: &[PathBuf]) {
    for n in names {
        let (x, y) = (
            std::fs::read(a.join(n)).unwrap(),
            std::fs::read(b.join(n)).unwrap(),
        );
        assert!(
            x == y,
            "{} differs between --jobs 1 and --jobs 2",
            n.display()
        );
    }
}

/// `spikelab reproduce` runs its papers, their grids and their runs as tasks of one
/// thread pool; what it writes does not depend on how many threads ran them.
#[test]
fn two_papers_at_once_write_the_bytes_one_thread_writes() {
    let tmp = tempfile::tempdir().unwrap();
    for (jobs, out) in [("1", "one"), ("2", "two")] {
        let args = [
            "reproduce",
            "gprs-eifel",
            "eifel-response",
            "--reps",
            "2",
            "--jobs",
            jobs,
            "--out",
            out,
        ];
        assert_ok(&spikelab(tmp.path(), &args));
    }
    let (a, b) = (tmp.path().join("one"), tmp.path().join("two"));
    let names = files(&a);
    assert_eq!(names, files(&b));
    assert!(names.contains(&PathBuf::from("report.md")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("eifel-response")));
    assert_same_bytes(&a, &b, &names);
}

/// Rows of `runs.csv` in `dir` whose `rep` column is 0.
fn rep0_rows(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("runs.csv"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("0,"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn seed_replays_repetition_zero() {
    let tmp = tempfile::tempdir().unwrap();
    run_quickstart(tmp.path(), "three", &["--seed", "77", "--reps", "3"]);
    run_quickstart(tmp.path(), "one", &["--seed", "77", "--reps", "1"]);
    let three = rep0_rows(&tmp.path().join("three"));
    assert_eq!(three.len(), 1);
    assert!(three[0].starts_with("0,77,bulk,"), "{three:?}");
    assert_eq!(three, rep0_rows(&tmp.path().join("one")));
}

#[test]
fn a_bad_scenario_exits_2_with_file_and_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(quickstart())
        .unwrap()
        .replace("recovery = \"reno-sack\"", "recovery = \"renoo\"");
    std::fs::write(tmp.path().join("bad.toml"), text).unwrap();
    let out = spikelab(tmp.path(), &["run", "bad.toml", "--out", "res"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("bad.toml:35:46: field `flow[0].tcp.recovery`"),
        "{err}"
    );
    assert!(err.contains("unknown variant `renoo`"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(files(tmp.path()), [PathBuf::from("bad.toml")]);
}

#[test]
fn bad_flags_exit_2_without_output() {
    let tmp = tempfile::tempdir().unwrap();
    let q = quickstart();
    for flags in [&["--jobs", "0"][..], &["--reps", "x"], &["--frobnicate"]] {
        let mut args = vec!["run", q.to_str().unwrap(), "--out", "res"];
        args.extend_from_slice(flags);
        let out = spikelab(tmp.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).trim_end().lines().count(),
            1,
            "{}",
            stderr(&out)
        );
    }
    assert!(files(tmp.path()).is_empty());
}

#[test]
fn a_directory_that_is_not_an_earlier_output_is_never_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("keep")).unwrap();
    std::fs::write(tmp.path().join("keep/notes.txt"), "mine").unwrap();
    let q = quickstart();
    let out = spikelab(tmp.path(), &["run", q.to_str().unwrap(), "--out", "keep"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(files(tmp.path()), [PathBuf::from("keep/notes.txt")]);
    // An earlier output is replaced.
    run_quickstart(tmp.path(), "res", &[]);
    run_quickstart(tmp.path(), "res", &["--reps", "2"]);
    assert_eq!(rep0_rows(&tmp.path().join("res")).len(), 1);
}

#[test]
fn the_default_output_directory_is_named_after_the_scenario() {
    let tmp = tempfile::tempdir().unwrap();
    let q = quickstart();
    assert_ok(&spikelab(tmp.path(), &["run", q.to_str().unwrap()]));
    assert!(tmp.path().join("out/quickstart/runs.csv").is_file());
}

/// A loss-only scenario: segments 9 to 15 of a 60 KB transfer are dropped once.
const DROPS: &str = r#"
[run]
name = "drops"

[[link]]
name = "path"
rate = "2Mbit/s"
latency = "20ms"
queue = { kind = "drop-tail", limit = { packets = 100 } }

[[flow]]
name = "bulk"
route = ["path"]
tcp = { mss = 1000, receiver_window = 64000, recovery = "reno-sack" }
workload = { kind = "bulk", bytes = "60KB" }

[[drop]]
link = "path"
flow = "bulk"
segments = [9, 16]
"#;

fn tshark_available() -> bool {
    let found = Command::new("tshark").arg("--version").output().is_ok();
    if !found && std::env::var_os("CI").is_some() {
        panic!("tshark is not on PATH but CI is set: CI must install tshark");
    }
    if !found {
        eprintln!("\n*** SKIPPED: tshark not found; the pcap was NOT checked. ***\n");
    }
    found
}

/// The `column` of the single flow's row in `runs.csv`.
fn runs_value(dir: &Path, column: &str) -> String {
    let text = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|h| *h == column).unwrap();
    row[i].to_owned()
}

#[test]
fn tshark_counts_exactly_the_retransmissions_runs_csv_reports() {
    if !tshark_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("drops.toml"), DROPS).unwrap();
    assert_ok(&spikelab(
        tmp.path(),
        &["run", "drops.toml", "--pcap", "--out", "res"],
    ));
    let res = tmp.path().join("res");
    let ours: usize = runs_value(&res, "retransmissions").parse().unwrap();
    assert!(ours >= 7, "7 segments were dropped, {ours} retransmitted");
    let out = Command::new("tshark")
        .arg("-r")
        .arg(res.join("pcap/rep0-bulk.pcap"))
        .args(["-Y", "tcp.analysis.retransmission"])
        .output()
        .expect("tshark runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let theirs = String::from_utf8_lossy(&out.stdout).lines().count();
    assert_eq!(theirs, ours);
}

#[test]
fn plot_draws_png_and_svg_from_a_traced_run() {
    let tmp = tempfile::tempdir().unwrap();
    run_quickstart(tmp.path(), "res", &["--trace", "--reps", "2"]);
    assert_ok(&spikelab(
        tmp.path(),
        &["plot", "res", "--rep", "1", "--flow", "bulk"],
    ));
    let plots = tmp.path().join("res/plots");
    for kind in ["tseq", "cwnd"] {
        for ext in ["png", "svg"] {
            let p = plots.join(format!("rep1-bulk-{kind}.{ext}"));
            assert!(
                std::fs::metadata(&p).unwrap().len() > 1000,
                "{}",
                p.display()
            );
        }
    }
    let out = spikelab(tmp.path(), &["plot", "res", "--rep", "5"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn bench_quick_reports_both_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let out = spikelab(tmp.path(), &["bench", "--quick"]);
    assert_ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("single 500KB"), "{text}");
    assert!(text.contains("dumbbell 100 flows"), "{text}");
    assert!(files(tmp.path()).is_empty(), "bench writes no files");
}

/// A GPRS-like path with one 5 s hiccup in slow start; Eifel drives the response and
/// the ACK-timing heuristic observes.
const DETECTORS: &str = r#"
[run]
name = "detectors"
reps = 2

[[link]]
name = "gprs"
rate = "30kbps"
latency = "300ms"
queue = { kind = "drop-tail", limit = { packets = 99 } }
[[link.spikes]]
kind = "hiccup"
at = [{ start = "3s", duration = "5s" }]

[[flow]]
name = "download"
route = ["gprs"]
profile = "ns2-2002"
tcp = { timestamps = true, careful_fast_retransmit = false, spurious = { driver = "eifel", observe = ["ack-timing"] } }
workload = { kind = "bulk", bytes = "60KB" }
"#;

#[test]
fn detectors_csv_scores_every_detector_against_the_truth() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("d.toml"), DETECTORS).unwrap();
    assert_ok(&spikelab(tmp.path(), &["run", "d.toml", "--out", "o"]));
    let csv = std::fs::read_to_string(tmp.path().join("o/detectors.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0][..4],
        ["detector", "decided", "true_positives", "false_positives"]
    );
    let row = |name: &str| {
        rows.iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("{name} in {csv}"))
    };
    // Both repetitions see the one spurious timeout: Eifel calls it spurious,
    // the ACK-timing heuristic (the ACK comes ~2.9 s after the retransmission) misses it.
    assert_eq!(row("eifel")[1..6], ["2", "2", "0", "0", "0"]);
    assert_eq!(row("ack-timing")[1..6], ["2", "0", "0", "0", "2"]);
    let timeouts = std::fs::read_to_string(tmp.path().join("o/timeouts.csv")).unwrap();
    // One spike per repetition: one episode, numbered 1 in each.
    assert!(
        timeouts.starts_with("rep,flow,episode,time_s,"),
        "{timeouts}"
    );
    assert!(timeouts
        .lines()
        .skip(1)
        .all(|l| l.split(',').nth(2) == Some("1")));
    assert!(
        timeouts.contains("eifel*:spurious;ack-timing:genuine"),
        "{timeouts}"
    );
}

/// The linux-trace scenario run into `out` with `--pcap` (both ends) and `extra`.
fn linux_trace_pcaps(tmp: &Path, out: &str, extra: &[&str]) {
    let s = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/linux-trace.toml");
    let mut args = vec!["run", s.to_str().unwrap(), "--out", out, "--pcap"];
    args.extend_from_slice(extra);
    assert_ok(&spikelab(tmp, &args));
}

#[test]
fn diverge_finds_no_decision_between_replays_and_names_the_first_between_controllers() {
    let tmp = tempfile::tempdir().unwrap();
    linux_trace_pcaps(tmp.path(), "a", &[]);
    linux_trace_pcaps(tmp.path(), "b", &[]);
    let cubic = "flow.0.tcp.linux.tcp_congestion_control=\"cubic\"";
    linux_trace_pcaps(tmp.path(), "c", &["--set", cubic]);
    let same = spikelab(tmp.path(), &["diverge", "a", "b", "--csv", "same.csv"]);
    assert_ok(&same);
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(
        text.starts_with("rep 0, flow tcp: no decision differs ("),
        "{text}"
    );
    let csv = std::fs::read_to_string(tmp.path().join("same.csv")).unwrap();
    assert!(
        csv.lines().nth(1).unwrap().starts_with("0,tcp,none,"),
        "{csv}"
    );
    // CUBIC's window holds back a segment Reno sends on the same ACK: the same bytes
    // leave later, a difference in the sender's timing.
    let other = spikelab(tmp.path(), &["diverge", "a", "c"]);
    assert_ok(&other);
    let text = String::from_utf8_lossy(&other.stdout);
    assert!(
        text.starts_with(
            "rep 0, flow tcp: the first diverging decision is the send time of data segment"
        ),
        "{text}"
    );
    assert!(
        text.contains("model 1: data ") && text.contains("model 2: data "),
        "{text}"
    );
}

#[test]
fn diverge_without_captures_exits_2_and_says_which_flag_writes_them() {
    let tmp = tempfile::tempdir().unwrap();
    run_quickstart(tmp.path(), "a", &[]);
    let out = spikelab(tmp.path(), &["diverge", "a", "a"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no captures (write them with `spikelab run ... --pcap`"),
        "{}",
        stderr(&out)
    );
}
