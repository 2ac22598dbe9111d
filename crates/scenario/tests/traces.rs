//! Trace files named in a scenario are read relative to the scenario's folder, and a
//! missing or malformed one is reported with the scenario line and the trace's line.

use spikelab_scenario::load;

const SCENARIO: &str = r#"[run]
name = "lte"

[[link]]
name = "cell"
rate = "10Mbit/s"
latency = "20ms"
service = { kind = "mahimahi", trace = "cell.down" }
delay_trace = "owd.csv"

[[flow]]
name = "f"
route = ["cell"]
workload = { kind = "bulk", bytes = "30KB" }
"#;

fn write(dir: &std::path::Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn traces_next_to_the_scenario_are_loaded_and_the_run_uses_them() {
    let tmp = tempfile::tempdir().unwrap();
    // One 1500-byte delivery opportunity every 2 ms: 6 Mbit/s.
    let down: String = (1..=1000).map(|t| format!("{}\n", 2 * t)).collect();
    write(tmp.path(), "cell.down", &down);
    write(tmp.path(), "owd.csv", "0,0ms\n1,50ms\n");
    write(tmp.path(), "s.toml", SCENARIO);
    let s = load(tmp.path().join("s.toml")).unwrap();
    let r = spikelab_engine::run(&s.to_sim(), 1).unwrap();
    assert!(r.flows[0].completed.is_some());
}

#[test]
fn a_missing_trace_names_the_scenario_line_and_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "owd.csv", "0,0ms\n");
    write(tmp.path(), "s.toml", SCENARIO);
    let e = load(tmp.path().join("s.toml")).unwrap_err().to_string();
    assert!(e.contains("s.toml:4:1: field `link[0]`"), "{e}");
    assert!(e.contains("cell.down"), "{e}");
}

#[test]
fn a_malformed_trace_names_its_own_line() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), "cell.down", "2\n4\nsix\n");
    write(tmp.path(), "owd.csv", "0,0ms\n");
    write(tmp.path(), "s.toml", SCENARIO);
    let e = load(tmp.path().join("s.toml")).unwrap_err().to_string();
    assert!(e.contains("line 3"), "{e}");
}

#[test]
fn a_missing_trace_of_a_relative_scenario_names_the_absolute_path_looked_for() {
    let text = SCENARIO.replace("delay_trace = \"owd.csv\"\n", "");
    let e = spikelab_scenario::parse(&text, "no-such-dir/s.toml")
        .unwrap_err()
        .to_string();
    let want = std::env::current_dir()
        .unwrap()
        .join("no-such-dir")
        .join("cell.down");
    assert!(e.contains(&want.display().to_string()), "{e}");
}
