//! The real-path library (`scenarios/paths/`): every file loads, names its trace files,
//! which exist and are described in the library's README (or, for a path no public
//! recording could be shipped for, generates its delay and says so), and a short
//! download over each path completes at a start point drawn per repetition.

use spikelab_engine::StartTime;
use spikelab_net::{DelaySource, Dir, ServiceConfig};
use spikelab_scenario::{load, parse};
use std::path::{Path, PathBuf};

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
    files
}

fn trace_of(service: &ServiceConfig) -> Option<String> {
    match service {
        ServiceConfig::Mahimahi(m) => Some(library().join(&m.trace.path).display().to_string()),
        _ => None,
    }
}

#[test]
fn every_path_loads_is_named_after_its_file_and_replays_a_shipped_trace_named_in_the_readme() {
    let readme = std::fs::read_to_string(library().join("README.md")).unwrap();
    let files = path_files();
    assert!(files.len() >= 3, "{files:?}");
    for path in files {
        let s = load(&path).unwrap_or_else(|e| panic!("{e}"));
        let stem = path.file_stem().unwrap().to_str().unwrap();
        assert_eq!(s.run().name, stem);
        assert!(readme.contains(&format!("`{stem}.toml`")), "{stem}");
        let sim = s.sim();
        let Some(cell) = sim.links.iter().find(|l| l.name == "cell") else {
            // A generated path: its varying link generates its delay, and the README
            // says it is a generator.
            let sat = sim
                .links
                .iter()
                .find(|l| l.name == "sat")
                .expect("a cell or sat link");
            assert!(
                matches!(
                    sat.dir(Dir::Forward).delay_trace,
                    Some(DelaySource::Generated(_))
                ),
                "{stem}: a path without a recorded trace generates its delay"
            );
            assert!(
                readme.contains(&format!("`{stem}.toml` (generator")),
                "{stem}"
            );
            continue;
        };
        let down = trace_of(&cell.dir(Dir::Forward).service).expect("a downlink trace");
        assert!(Path::new(&down).is_file(), "{down}");
        let name = Path::new(&down).file_name().unwrap().to_str().unwrap();
        assert!(readme.contains(&format!("`{name}`")), "{stem}: {name}");
        if let Some(up) = trace_of(&cell.dir(Dir::Reverse).service) {
            assert!(Path::new(&up).is_file(), "{up}");
        }
    }
}

#[test]
fn a_short_download_over_each_path_completes_and_repetitions_start_at_different_points() {
    for path in path_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        // 300 kB instead of 4 MB keeps the test short; the path is the file's.
        let short = text.replace("bytes = \"4MB\"", "bytes = \"300kB\"");
        assert_ne!(short, text, "{}: the workload line moved", path.display());
        let s = parse(&short, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
        let sim = s.to_sim();
        assert!(
            matches!(sim.flows[0].start, StartTime::Uniform { .. }),
            "{}: the start is drawn per repetition",
            path.display()
        );
        let starts: Vec<f64> = (0..2)
            .map(|rep| {
                let seed = spikelab_core::RngStreams::repetition_seed(1, rep);
                let r = spikelab_engine::run(&sim, seed).unwrap();
                let f = &r.flows[0];
                assert!(
                    f.completed.is_some(),
                    "{}: rep {rep} did not finish",
                    path.display()
                );
                f.start.as_secs_f64()
            })
            .collect();
        assert_ne!(starts[0], starts[1], "{}", path.display());
    }
}
