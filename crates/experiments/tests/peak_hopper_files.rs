//! [Ekström & Ludwig 2004]'s scenario files and `experiments/peak-hopper.toml`: the
//! files load, every flow recovers as the paper's (RFC 3517 SACK), Scenario C's cells
//! change only what the paper varies, section II's sequences show the three problems
//! of the RFC2988-RTO (Figs. 2 and 3), and a misspelt name in the experiment file is a
//! located error before anything runs.

use spikelab_engine::{FlowKind, SimConfig};
use spikelab_experiments::embedded;
use spikelab_experiments::grid::rtt_feed;
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
        FlowKind::Quic { .. } | FlowKind::Cbr { .. } => panic!("a TCP flow"),
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

/// Section II's feed `name` of the experiment file: its samples and its timers.
fn feed_of(name: &str) -> (Vec<rtt_feed::Measured>, RtoConfig, RtoConfig) {
    let (_, spec) = experiment();
    let f = spec.feed.iter().find(|f| f.name == name).unwrap();
    let timer = |l: &str| f.timers.iter().find(|t| t.label == l).unwrap().rto.clone();
    (f.sequence.samples(), timer("RFC2988-RTO"), timer("PH-RTO"))
}

#[test]
fn section_iis_timers_are_the_papers_rfc2988_rto_and_the_default_ph_rto() {
    for name in ["ii-fig2", "ii-fig3"] {
        let (_, rfc, ph) = feed_of(name);
        assert_eq!(rfc, RtoConfig::peak_hopper_paper_rfc2988(), "{name}");
        assert_eq!(ph, RtoConfig::PeakHopper(Default::default()), "{name}");
    }
}

/// II.C: with every packet timed, the RFC2988-RTO falls onto its floor RTT + 2G; the
/// PH-RTO keeps a margin, and without timestamps the RFC2988-RTO keeps more of one.
#[test]
fn fig2_rfc_with_timestamps_hugs_the_rtt_and_ph_keeps_a_margin() {
    let (s, rfc, ph) = feed_of("ii-fig2");
    assert_eq!(s.len(), 2 + 4 + 8 + 16 + 32 + 64 + 7 * 128);
    let margin = |rows: &[rtt_feed::Computed]| {
        let last = rows.last().unwrap();
        last.rto.as_secs_f64() / last.rtt.as_secs_f64()
    };
    let rfc_ts = rtt_feed::feed(&rfc, &s, true);
    // The floor RTT + 2G is all that is left: 640 ms + 20 ms.
    assert!(margin(&rfc_ts) < 1.05, "{}", margin(&rfc_ts));
    assert!(margin(&rtt_feed::feed(&rfc, &s, false)) > margin(&rfc_ts));
    assert!(margin(&rtt_feed::feed(&ph, &s, true)) > 1.2);
}

/// II.D and II.E: the RFC2988-RTO is sluggish after the spike and shoots up when the RTT
/// drops back; the PH-RTO hops at once and does not rise on the drop.
#[test]
fn fig3_shows_sluggishness_and_the_prediction_flaw_for_rfc_only() {
    let (s, rfc, ph) = feed_of("ii-fig3");
    let rfc_ts = rtt_feed::spike_response(&rtt_feed::feed(&rfc, &s, true));
    assert!(rfc_ts.first_ratio < 1.25, "{rfc_ts:?}");
    assert!(rfc_ts.samples_to_peak >= 2, "{rfc_ts:?}");
    assert!(rfc_ts.after_drop_ratio > 4.0, "{rfc_ts:?}");
    assert!(rfc_ts.after_drop_rise > 1.0, "{rfc_ts:?}");
    let ph_ts = rtt_feed::spike_response(&rtt_feed::feed(&ph, &s, true));
    assert!(ph_ts.first_ratio >= 1.5 - 1e-9, "{ph_ts:?}");
    assert_eq!(ph_ts.samples_to_peak, 0);
    assert!(ph_ts.after_drop_rise <= 1.0, "{ph_ts:?}");
}

#[test]
fn a_misspelt_feed_metric_or_timer_is_located_in_the_file() {
    let (err, line) = misspelt(
        "metric = \"spike_peak_rto_s\"",
        "metric = \"spike_peak_rto\"",
    );
    assert!(
        err.starts_with(&format!(
            "peak-hopper.toml:{line}:1: field `feed[1].comparison[1].metric`"
        )),
        "{err}"
    );
    assert!(
        err.contains("unknown feed metric `spike_peak_rto`"),
        "{err}"
    );
    let (err, _) = misspelt(
        "timer = \"RFC2988-RTO\"\ntimestamps = true",
        "timer = \"RFC-RTO\"\ntimestamps = true",
    );
    assert!(err.contains("field `feed[1].comparison[0].timer`"), "{err}");
    let (err, _) = misspelt("per_queued = \"5ms\"", "per_queue = \"5ms\"");
    assert!(err.contains("per_queue"), "{err}");
}
