//! [Ekström & Ludwig 2004]'s scenario files and `experiments/peak-hopper.toml`: the
//! files load, every flow recovers as the paper's (RFC 3517 SACK), Scenario C's cells
//! change only what the paper varies, and a misspelt name in the experiment file is a
//! located error before anything runs.

use spikelab_engine::{FlowKind, SimConfig};
use spikelab_experiments::embedded;
use spikelab_experiments::grid::run::expand;
use spikelab_experiments::grid::ExperimentSpec;
use spikelab_tcp::rto::RtoConfig;

const FILES: [&str; 3] = [
    "peak-hopper-a.toml",
    "peak-hopper-b.toml",
    "peak-hopper-c.toml",
];

fn tcp(sim: &SimConfig, i: usize) -> &spikelab_tcp::TcpConfig {
    match &sim.flows[i].kind {
        FlowKind::Tcp { tcp, .. } => tcp,
        FlowKind::Cbr { .. } => panic!("a TCP flow"),
    }
}

fn experiment() -> (&'static str, ExperimentSpec) {
    let text = embedded::experiment("peak-hopper.toml").unwrap();
    (
        text,
        ExperimentSpec::parse(text, "peak-hopper.toml").unwrap(),
    )
}

/// The paper's SACK recovery is RFC 3517's (IV.A): on the `ns2-2002` profile the files
/// turn off ns-2 Sack1's pipe, duplicate-ACK and go-back-N rules for every flow.
#[test]
fn every_flow_of_every_file_recovers_by_rfc_3517_not_by_ns2_sack1() {
    for name in FILES {
        let s = spikelab_scenario::parse(embedded::scenario(name).unwrap(), name).unwrap();
        let sim = s.sim();
        assert!(!sim.flows.is_empty(), "{name}");
        for i in 0..sim.flows.len() {
            let t = tcp(sim, i);
            assert_eq!(
                t.sack_pipe,
                spikelab_tcp::recovery::PipeRule::Rfc6675,
                "{name} flow {i}"
            );
            assert!(!t.ns2.sack1_dupack_rules, "{name} flow {i}");
            assert!(!t.ns2.sack1_go_back_n_resends_sacked, "{name} flow {i}");
        }
    }
}

#[test]
fn scenario_cs_cells_set_the_outage_rate_timestamps_and_timer() {
    let (_, spec) = experiment();
    let g = spec.grid("c").unwrap();
    let text = embedded::scenario("peak-hopper-c.toml").unwrap();
    let cells = expand(text, "peak-hopper-c.toml", g).unwrap();
    assert_eq!(cells.len(), 12 * 2 * 2 * 2, "d x rate x timestamps x timer");
    let pick = |d: &str, kbps: &str, ts: &str, timer: &str| {
        let c = cells.iter().find(|c| {
            c.labels["d"] == d
                && c.labels["kbps"] == kbps
                && c.labels["timestamps"] == ts
                && c.labels["timer"] == timer
        });
        c.unwrap().scenario.to_sim()
    };
    let sim = pick("1.25", "64", "0", "RFC2988-RTO");
    assert_eq!(sim.links[2].rate.bps(), 64_000);
    assert_eq!(sim.links[2].spikes.len(), 1);
    assert!(!tcp(&sim, 0).timestamps);
    assert_eq!(tcp(&sim, 0).mss, 1460);
    assert_eq!(tcp(&sim, 0).rto, RtoConfig::peak_hopper_paper_rfc2988());
    let sim = pick("2.20", "384", "1", "PH-RTO");
    assert_eq!(sim.links[2].rate.bps(), 384_000);
    assert!(tcp(&sim, 0).timestamps);
    assert!(matches!(tcp(&sim, 0).rto, RtoConfig::PeakHopper(_)));
    let g18 = spec.grid("c18").unwrap();
    for c in expand(text, "peak-hopper-c.toml", g18).unwrap() {
        let sim = c.scenario.to_sim();
        assert_eq!(sim.stop_at.as_secs_f64(), 60.0);
        assert_eq!(sim.links[2].rate.bps(), 384_000);
    }
}

/// `needle` replaced by `with` once in the experiment file; the parse error and the
/// line of the change.
fn misspelt(needle: &str, with: &str) -> (String, usize) {
    let (text, _) = experiment();
    let at = text.find(needle).expect("the file has it");
    let bad = text.replacen(needle, with, 1);
    let line = 1 + text[..at].matches('\n').count();
    let err = ExperimentSpec::parse(&bad, "peak-hopper.toml").unwrap_err();
    (err.to_string(), line)
}

#[test]
fn a_misspelt_run_series_metric_or_axis_is_located_in_the_file() {
    let (err, line) = misspelt("metric = \"rto_samples\"", "metric = \"rto_sample\"");
    assert!(
        err.starts_with(&format!("peak-hopper.toml:{line}:1: field `chart[")),
        "{err}"
    );
    assert!(err.contains("unknown run series `rto_sample`"), "{err}");
    let (err, line) = misspelt(
        "{ name = \"rtt_s\", column = \"rtt_s\" }",
        "{ name = \"rtt_s\", column = \"rtt\" }",
    );
    assert!(
        err.starts_with(&format!("peak-hopper.toml:{line}:")),
        "{err}"
    );
    assert!(err.contains("no column `rtt`"), "{err}");
    let (err, line) = misspelt("value = \"max_over(d,", "value = \"max_over(dd,");
    assert!(
        err.starts_with(&format!("peak-hopper.toml:{line}:1: field `comparison[")),
        "{err}"
    );
    assert!(
        err.contains("the axis is one of d, kbps, timestamps, timer"),
        "{err}"
    );
    let (err, _) = misspelt(
        "metric = \"outage_hit_pct\"",
        "metric = \"outage_hits_pct\"",
    );
    assert!(err.contains("unknown metric `outage_hits_pct`"), "{err}");
    let (err, _) = misspelt("x_from = 15.0", "x_form = 15.0");
    assert!(err.contains("x_form"), "{err}");
}
