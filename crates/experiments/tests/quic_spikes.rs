//! The QUIC study (`experiments/quic-spikes.toml`, issue 42) in a smoke setting: the
//! GPRS path alone, 15 s stalls, six stacks, 3 repetitions (with the 2 s PTO cap,
//! a probe timeout computed after such a stall falls in the past and must fire at once). It is outside the default
//! set, its CSV files carry the paired statistics, and the behaviour the study reports
//! holds where it is built in: a PTO declares nothing lost, so the RFC 9002 model
//! retransmits far less of a held flight than the papers' ns-2 Reno.

use spikelab_experiments::grid::run::run_experiment;
use spikelab_experiments::grid::ExperimentSpec;
use spikelab_experiments::papers::quic_spikes::QUIC_SPIKES;
use spikelab_experiments::reproduction::{registry, studies, Context};
use spikelab_experiments::runner::Counter;

mod common;
use common::{num, rows};

fn smoke() -> ExperimentSpec {
    let mut spec = QUIC_SPIKES.spec().unwrap();
    spec.grid.retain(|g| g.name.starts_with("gprs"));
    for g in &mut spec.grid {
        for a in &mut g.axis {
            let keep: &[&str] = match a.name.as_str() {
                "stall" => &["15"],
                "stack" => &[
                    "ns2-2002",
                    "linux-cubic",
                    "quic-none",
                    "quic-msquic",
                    "quic-none-cap",
                    "quinn",
                ],
                "undo" => &["none", "msquic"],
                _ => continue,
            };
            a.values.retain(|v| keep.contains(&v.label.as_str()));
        }
    }
    spec.csv.retain(|c| c.grid.starts_with("gprs"));
    spec.report_table.retain(|t| t.grid.starts_with("gprs"));
    spec.chart.clear();
    spec.text.clear();
    spec.layout = vec!["report_table:gprs".into(), "report_table:gprs-cap".into()];
    spec
}

#[test]
fn the_study_runs_only_when_named() {
    assert!(registry().iter().all(|r| r.name() != "quic-spikes"));
    assert!(studies().iter().any(|r| r.name() == "quic-spikes"));
}

#[test]
fn quic_retransmits_less_of_a_held_flight_and_the_comparisons_are_paired_and_corrected() {
    let tmp = tempfile::tempdir().unwrap();
    let counter = Counter::default();
    let ctx = Context {
        root: tmp.path().to_path_buf(),
        dir: tmp.path().join("quic-spikes"),
        reps: 3,
        seed: 1,
        jobs: 2,
        progress: &counter,
    };
    std::fs::create_dir_all(&ctx.dir).unwrap();
    run_experiment(&smoke(), &ctx).unwrap();
    let main = rows(&ctx.dir.join("gprs.csv"));
    let get = |stack: &str| main.iter().find(|r| r["stack"] == stack).unwrap();
    assert_eq!(main.len(), 6);
    let reno = num(get("ns2-2002"), "unnecessary_retransmissions");
    for quic in ["quic-none", "quic-msquic", "quinn"] {
        let r = get(quic);
        assert_eq!(num(r, "spurious_loss_declarations"), 0.0, "{quic}");
        assert!(
            num(r, "unnecessary_retransmissions") < reno,
            "{quic}: {r:?}"
        );
        assert!(num(r, "diff_p_holm") >= num(r, "diff_p"), "{quic}");
    }
    assert!(num(get("quic-none"), "spurious_expiries") > 0.0);
    assert!(
        num(get("linux-cubic"), "diff_p").is_nan(),
        "the baseline is no test"
    );
    assert_eq!(num(get("linux-cubic"), "diff_vs_linux_cubic_s"), 0.0);
    let cap = rows(&ctx.dir.join("gprs-cap.csv"));
    assert_eq!(cap.len(), 4);
    let capped = cap
        .iter()
        .find(|r| r["undo"] == "none" && r["pto_max"] == "2s")
        .unwrap();
    let uncapped = cap
        .iter()
        .find(|r| r["undo"] == "none" && r["pto_max"] == "none")
        .unwrap();
    assert!(
        num(capped, "ptos") > num(uncapped, "ptos"),
        "a 2 s cap probes more often"
    );
    assert_eq!(
        num(capped, "download_time_s"),
        num(get("quic-none-cap"), "download_time_s"),
        "the cap grid shares the main grid's runs"
    );
}
