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

#[test]
fn a_leo_replayer_delay_file_combines_with_the_delivery_trace_on_the_same_link() {
    let tmp = tempfile::tempdir().unwrap();
    let down: String = (1..=1000).map(|t| format!("{}\n", 2 * t)).collect();
    write(tmp.path(), "cell.down", &down);
    // 30 ms for the first second, then 80 ms.
    let owd: String = (0..200)
        .map(|i| if i < 100 { "30\n" } else { "80\n" })
        .collect();
    write(tmp.path(), "delay_1.txt", &owd);
    let text = SCENARIO.replace(
        "delay_trace = \"owd.csv\"",
        "delay_trace = { file = \"delay_1.txt\", format = \"leo-replayer\" }",
    );
    write(tmp.path(), "s.toml", &text);
    let s = load(tmp.path().join("s.toml")).unwrap();
    let sim = s.to_sim();
    let trace = sim.links[0].delay_trace.as_ref().unwrap().loaded();
    let ms = |x| spikelab_core::Time::ZERO + spikelab_core::Dur::from_millis(x);
    assert_eq!(trace.delay_at(ms(999)), spikelab_core::Dur::from_millis(30));
    assert_eq!(
        trace.delay_at(ms(1000)),
        spikelab_core::Dur::from_millis(80)
    );
    let r = spikelab_engine::run(&sim, 1).unwrap();
    assert!(r.flows[0].completed.is_some());
    // A bad line of the delay file is named with the file.
    write(tmp.path(), "delay_1.txt", "30\n30\n3O\n");
    let e = load(tmp.path().join("s.toml")).unwrap_err().to_string();
    assert!(e.contains("delay_1.txt") && e.contains("line 3"), "{e}");
}

#[test]
fn a_leo_reconfiguration_generator_is_checked_at_its_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let down: String = (1..=1000).map(|t| format!("{}\n", 2 * t)).collect();
    write(tmp.path(), "cell.down", &down);
    let leo = |offset: &str, min: &str| {
        format!(
            "delay_trace = {{ generator = \"leo-reconfiguration\", seed = 1, interval = \"15s\", \
             offset = \"{offset}\", delay = {{ min = \"{min}\", max = \"50ms\" }}, duration = \"60s\" }}"
        )
    };
    write(
        tmp.path(),
        "s.toml",
        &SCENARIO.replace("delay_trace = \"owd.csv\"", &leo("12s", "30ms")),
    );
    let s = load(tmp.path().join("s.toml")).unwrap();
    let trace = s.to_sim().links[0].delay_trace.clone().unwrap();
    let first = trace.loaded().delay_at(spikelab_core::Time::ZERO);
    assert!((30..=50).contains(&(first.0 / 1_000_000)), "{first}");
    for (offset, min, field) in [("16s", "30ms", "offset"), ("12s", "60ms", "delay.min")] {
        write(
            tmp.path(),
            "s.toml",
            &SCENARIO.replace("delay_trace = \"owd.csv\"", &leo(offset, min)),
        );
        let e = load(tmp.path().join("s.toml")).unwrap_err().to_string();
        assert!(e.contains(&format!("link[0].delay_trace.{field}")), "{e}");
    }
}
