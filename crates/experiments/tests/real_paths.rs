//! The real-path study (`experiments/real-paths.toml`, issue 41): it is in the default
//! set, it covers every path of `scenarios/paths/`, every fix of a path meets the same
//! start point of the drive on the same seed (the pairing its differences rest on), and
//! in a smoke setting (three fixes, 300 kB, 3 repetitions) its CSV files carry the
//! paired statistics with Holm's correction.

use spikelab_experiments::grid::run::{expand, run_experiment};
use spikelab_experiments::grid::spec::base_text;
use spikelab_experiments::grid::ExperimentSpec;
use spikelab_experiments::papers::real_paths::REAL_PATHS;
use spikelab_experiments::reproduction::{registry, Context};
use spikelab_experiments::runner::Counter;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::{num, rows};

fn library() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/paths")
}

/// The library's scenario files, as the study names them (`paths/<file>`).
fn library_files() -> BTreeSet<String> {
    std::fs::read_dir(library())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| format!("paths/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect()
}

/// The study with each grid's download cut to 300 kB (the path is the file's).
fn short() -> ExperimentSpec {
    let mut spec = REAL_PATHS.spec().unwrap();
    for g in &mut spec.grid {
        g.set
            .insert("flow.0.workload.bytes".into(), toml::Value::from("300kB"));
    }
    spec
}

#[test]
fn the_study_is_in_the_default_set_and_runs_every_path_of_the_library() {
    assert!(registry().iter().any(|r| r.name() == "real-paths"));
    let spec = REAL_PATHS.spec().unwrap();
    let studied: BTreeSet<String> = spec
        .grid
        .iter()
        .map(|g| g.scenario.clone().unwrap())
        .collect();
    assert_eq!(
        studied,
        library_files(),
        "a path of scenarios/paths/ is missing from experiments/real-paths.toml (or the reverse)"
    );
    for g in &spec.grid {
        let fixes: Vec<&str> = g.axis[0].values.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(
            fixes[0], "no-detection",
            "{}: the baseline row first",
            g.name
        );
        assert_eq!(fixes.len(), 10, "{}: every fix on every path", g.name);
    }
}

#[test]
fn every_fix_of_a_path_starts_at_the_same_point_of_the_drive_on_the_same_seed() {
    let spec = short();
    for g in &spec.grid {
        let (base, name) = base_text(&spec, g.scenario.as_deref().unwrap()).unwrap();
        let cells = expand(&base, &name, g).unwrap();
        let starts: Vec<Vec<f64>> = (0..3)
            .map(|rep| {
                let seed = spikelab_core::RngStreams::repetition_seed(1, rep);
                cells
                    .iter()
                    .map(|c| {
                        let r = spikelab_engine::run(&c.scenario.to_sim(), seed).unwrap();
                        r.flows[0].start.as_secs_f64()
                    })
                    .collect()
            })
            .collect();
        for (rep, s) in starts.iter().enumerate() {
            assert!(
                s.iter().all(|x| *x == s[0]),
                "{}: rep {rep}: the fixes start at {s:?}",
                g.name
            );
        }
        assert_ne!(
            starts[0][0], starts[1][0],
            "{}: reps sample the path",
            g.name
        );
    }
}

#[test]
fn each_path_writes_its_fixes_paired_with_the_rfc_host_and_holm_corrected() {
    let mut spec = short();
    let keep = ["no-detection", "eifel:rfc4015:rfc4015", "linux-reno"];
    for g in &mut spec.grid {
        g.axis[0]
            .values
            .retain(|v| keep.contains(&v.label.as_str()));
    }
    spec.text.clear();
    spec.layout = spec
        .report_table
        .iter()
        .map(|t| format!("report_table:{}", t.name))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let counter = Counter::default();
    let ctx = Context {
        root: tmp.path().to_path_buf(),
        dir: tmp.path().join("real-paths"),
        reps: 3,
        seed: 1,
        jobs: 2,
        progress: &counter,
    };
    std::fs::create_dir_all(&ctx.dir).unwrap();
    run_experiment(&spec, &ctx).unwrap();
    for file in library_files() {
        let stem = Path::new(&file).file_stem().unwrap().to_str().unwrap();
        let csv = rows(&ctx.dir.join(format!("{stem}.csv")));
        let get = |fix: &str| csv.iter().find(|r| r["fix"] == fix).unwrap();
        assert_eq!(csv.len(), 3, "{stem}");
        for r in &csv {
            assert_eq!(num(r, "completed"), 1.0, "{stem}: {r:?}");
        }
        let base = get("no-detection");
        assert!(
            num(base, "diff_p").is_nan(),
            "{stem}: the baseline is no test"
        );
        assert_eq!(num(base, "diff_vs_no_detection_s"), 0.0, "{stem}");
        assert_eq!(
            num(get("linux-reno"), "diff_vs_linux_reno_s"),
            0.0,
            "{stem}"
        );
        for fix in ["eifel:rfc4015:rfc4015", "linux-reno"] {
            let r = get(fix);
            let (p, holm) = (num(r, "diff_p"), num(r, "diff_p_holm"));
            assert!(p.is_nan() || holm >= p, "{stem} {fix}: {r:?}");
        }
    }
}
