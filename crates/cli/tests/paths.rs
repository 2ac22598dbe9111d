//! Every path of the real-path library (`scenarios/paths/`) through every entry point of
//! the command line: `validate`, `run` (a short download), `advise` (two repetitions of
//! one fix) and `emulate` (a short transfer through the real kernel, beside `run` of the
//! same pinned copy). The directory is iterated, so a path added later is tested
//! without editing this file. The experiment files are the other entry point:
//! `experiments/real-paths.toml` runs every path (crates/experiments/tests/real_paths.rs
//! fails when one is missing from it). A path whose link varies its delay by a
//! `delay_trace` (the LEO path's generator, the Wi-Fi path's per-packet draws) must
//! lengthen its download by it in `run`, and `emulate` must agree with `run` there.
//!
//! The emulator test needs root and /dev/net/tun: without them it prints a loud SKIPPED
//! line and returns, except under CI (`CI` set), where a skip would hide a regression.

use spikelab_engine::StartTime;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn library() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/paths")
}

fn path_files() -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(library())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "{files:?}");
    files
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_str().unwrap().to_owned()
}

fn spikelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .args(args)
        .output()
        .expect("the spikelab binary runs")
}

fn assert_ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Column `name` of the first data line of `path` whose first field is `key`.
fn field(path: &Path, key: &str, name: &str) -> f64 {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|h| *h == name).unwrap();
    let line = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[0] == key)
        .unwrap_or_else(|| panic!("{}: no row `{key}`", path.display()));
    line[i].parse().unwrap()
}

/// The mean of `metric` of flow `download` in a `run` or `emulate` summary.csv.
fn summary(dir: &Path, metric: &str) -> f64 {
    let text = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("download,{metric},")))
        .unwrap_or_else(|| panic!("{}: no {metric}", dir.display()));
    line.split(',').nth(3).unwrap().parse().unwrap()
}

/// A copy of `path` that runs anywhere and soon: its trace files named by absolute
/// path, its download started at 1 s (not at a drawn point of a drive, which `emulate`
/// would wait for in real time) and cut to 300 kB.
fn pinned_copy(path: &Path, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(path).unwrap();
    let traces = format!("\"{}/traces/", library().display());
    let mut pinned: Vec<String> = Vec::new();
    for line in text.replace("\"traces/", &traces).lines() {
        pinned.push(match line {
            l if l.starts_with("start = ") => "start = \"1s\"".into(),
            l if l.starts_with("reps = ") => "reps = 1".into(),
            l => l.replace("bytes = \"4MB\"", "bytes = \"300kB\""),
        });
    }
    let pinned = pinned.join("\n");
    for (key, want) in [("start", "start = \"1s\""), ("bytes", "\"300kB\"")] {
        assert!(
            pinned.contains(want),
            "{}: its {key} line moved",
            path.display()
        );
    }
    let copy = dir.join(format!("{}.toml", stem(path)));
    std::fs::write(&copy, pinned).unwrap();
    copy
}

#[test]
fn every_path_validates() {
    for p in path_files() {
        let out = spikelab(&["validate", p.to_str().unwrap()]);
        assert_ok(&stem(&p), &out);
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.starts_with("OK"), "{}: {said}", stem(&p));
    }
}

#[test]
fn a_short_download_over_every_path_completes_in_run() {
    let tmp = tempfile::tempdir().unwrap();
    for p in path_files() {
        let out = tmp.path().join(stem(&p));
        let args = [
            "run",
            p.to_str().unwrap(),
            "--reps",
            "2",
            "--set",
            "flow.0.workload.bytes=300kB",
            "--out",
            out.to_str().unwrap(),
        ];
        assert_ok(&stem(&p), &spikelab(&args));
        assert_eq!(summary(&out, "completed"), 1.0, "{}", stem(&p));
    }
}

#[test]
fn advise_ranks_a_fix_on_every_path() {
    let tmp = tempfile::tempdir().unwrap();
    for p in path_files() {
        let out = tmp.path().join(stem(&p));
        let args = [
            "advise",
            p.to_str().unwrap(),
            "--reps",
            "2",
            "--fix",
            "std-proxy",
            "--no-combine",
            "--out",
            out.to_str().unwrap(),
        ];
        assert_ok(&stem(&p), &spikelab(&args));
        let csv = out.join("advise.csv");
        let reps = field(&csv, &find_rank(&csv, "std-proxy"), "reps");
        assert_eq!(reps, 2.0, "{}", stem(&p));
    }
}

/// The rank (first field) of the advise.csv row of fix `fix`.
fn find_rank(csv: &Path, fix: &str) -> String {
    let text = std::fs::read_to_string(csv).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[1] == fix)
        .unwrap_or_else(|| panic!("{}: no row {fix}", csv.display()))[0]
        .to_owned()
}

/// Whether any direction of any link of `sim` varies its delay by a trace.
fn strip_delay_traces(sim: &mut spikelab_engine::SimConfig) -> bool {
    let mut had = false;
    for l in &mut sim.links {
        had |= l.delay_trace.take().is_some();
        for o in [&mut l.forward, &mut l.reverse] {
            had |= o.delay_trace.take().is_some();
        }
    }
    had
}

#[test]
fn a_paths_delay_trace_lengthens_its_download_in_run() {
    let tmp = tempfile::tempdir().unwrap();
    let mut varying = Vec::new();
    for p in path_files() {
        let copy = pinned_copy(&p, tmp.path());
        let s = spikelab_scenario::load(&copy).unwrap_or_else(|e| panic!("{e}"));
        let with = s.to_sim();
        assert!(matches!(with.flows[0].start, StartTime::At(_)));
        let mut without = with.clone();
        if !strip_delay_traces(&mut without) {
            continue;
        }
        let time = |sim: &spikelab_engine::SimConfig| {
            let r = spikelab_engine::run(sim, 1).unwrap();
            r.flows[0].download_time().expect("the download completes")
        };
        let (a, b) = (time(&with), time(&without));
        assert!(
            a > b,
            "{}: {a} s with its delay trace, {b} s without",
            stem(&p)
        );
        varying.push(stem(&p));
    }
    assert!(
        varying.iter().any(|s| s.starts_with("starlink")),
        "the LEO path varies its delay: {varying:?}"
    );
}

#[test]
fn emulate_carries_a_short_transfer_over_every_path_as_run_simulates_it() {
    if !spikelab_emulate::can_emulate() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root with /dev/net/tun, so the emulator test of the paths must run there"
        );
        eprintln!(
            "\n*** SKIPPED: emulate_carries_a_short_transfer_over_every_path: needs root and \
             /dev/net/tun (spikelab emulate); the paths were NOT emulated. ***\n"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for p in path_files() {
        let copy = pinned_copy(&p, tmp.path());
        let (sim, emu) = (
            tmp.path().join(format!("{}-run", stem(&p))),
            tmp.path().join(format!("{}-emulate", stem(&p))),
        );
        let run = [
            "run",
            copy.to_str().unwrap(),
            "--out",
            sim.to_str().unwrap(),
        ];
        assert_ok(&stem(&p), &spikelab(&run));
        let args = [
            "emulate",
            copy.to_str().unwrap(),
            "--reps",
            "1",
            "--out",
            emu.to_str().unwrap(),
        ];
        assert_ok(&format!("{}: emulate", stem(&p)), &spikelab(&args));
        assert_eq!(summary(&emu, "completed"), 1.0, "{}", stem(&p));
        let (t_sim, t_emu) = (
            summary(&sim, "download_time_s"),
            summary(&emu, "download_time_s"),
        );
        eprintln!("{}: run {t_sim:.3} s, emulate {t_emu:.3} s", stem(&p));
        // The same path in both: a link or delay trace the emulator ignored (or applied
        // twice) would put the kernel's time far from the model's.
        assert!(
            t_emu > 0.5 * t_sim && t_emu < 2.0 * t_sim,
            "{}: run {t_sim} s, emulate {t_emu} s",
            stem(&p)
        );
    }
}
