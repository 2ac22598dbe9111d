//! The std-proxy experiment (`experiments/std-proxy.toml`) in a smoke setting: two rates
//! (20 and 200 kbit/s), both windows, a 200 KB transfer (about seven hiccup cycles at
//! 20 kbit/s, so spurious timeouts still happen), 2 repetitions. The pipeline writes its
//! files, the cells change only what their labels name, and the paper's robust claim
//! holds: at a low rate with an 8 KB window STD raises throughput over plain Reno and
//! keeps go-back-N retransmissions off the wireless link.

use spikelab_core::{BitRate, ByteSize};
use spikelab_engine::{FlowKind, Workload};
use spikelab_experiments::grid::run::{expand, run_experiment};
use spikelab_experiments::grid::ExperimentSpec;
use spikelab_experiments::papers::std_proxy::STD_PROXY;
use spikelab_experiments::report::Block;
use spikelab_experiments::reproduction::Context;
use spikelab_experiments::runner::Counter;
use spikelab_net::MiddleboxConfig;
use spikelab_tcp::spurious::DetectorKind;
use std::collections::BTreeMap;

mod common;
use common::rows;

/// The experiment reduced to BW in {20, 200} kbit/s and a 200 KB transfer, without the
/// findings text (it quotes the full sweep's ends, 10 and 400 kbit/s).
fn smoke() -> ExperimentSpec {
    let mut spec = STD_PROXY.spec().unwrap();
    let g = &mut spec.grid[0];
    let bw = g.axis.iter_mut().find(|a| a.name == "bw").unwrap();
    bw.values.retain(|v| v.label == "20" || v.label == "200");
    g.set.insert(
        "flow.0.workload.bytes".into(),
        toml::Value::Integer(200_000),
    );
    spec.layout.retain(|l| l != "text:findings");
    spec
}

#[test]
fn the_smoke_run_writes_csv_figures_a_section_and_std_beats_plain_reno_at_a_low_rate() {
    let tmp = tempfile::tempdir().unwrap();
    let counter = Counter::default();
    let ctx = Context {
        root: tmp.path().to_path_buf(),
        dir: tmp.path().join("std-proxy"),
        reps: 2,
        seed: 1,
        jobs: 2,
        progress: &counter,
    };
    std::fs::create_dir_all(&ctx.dir).unwrap();
    let section = run_experiment(&smoke(), &ctx).unwrap();
    for f in [
        "results.csv",
        "runs.csv",
        "fig8-throughput-8k.png",
        "fig9-goodput-64k.svg",
    ] {
        assert!(ctx.dir.join(f).exists(), "{f} missing");
    }
    let figures = section
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::Figure(_)))
        .count();
    assert_eq!(figures, 6);
    assert!(section
        .blocks
        .iter()
        .any(|b| matches!(b, Block::Comparisons(v) if v.len() == 6)));
    let results = rows(&ctx.dir.join("results.csv"));
    assert_eq!(results.len(), 2 * 4 * 2);
    assert_eq!(rows(&ctx.dir.join("runs.csv")).len(), 2 * 4 * 2 * 2);
    let at = |scheme: &str| {
        results
            .iter()
            .find(|r| r["window_bytes"] == "8192" && r["scheme"] == scheme && r["bw_kbps"] == "20")
            .unwrap()
    };
    let num = |r: &BTreeMap<String, String>, c: &str| r[c].parse::<f64>().unwrap();
    let (plain, std) = (at("TCP"), at("STD"));
    assert!(
        num(plain, "spurious_timeouts") > 0.0,
        "the hiccups cause spurious timeouts"
    );
    assert!(num(std, "throughput_kbps") > num(plain, "throughput_kbps"));
    assert!(num(std, "goodput_wireless") > num(plain, "goodput_wireless"));
    assert!(num(std, "std_episodes") > 0.0 && num(std, "cond3_met") > 0.0);
    assert_eq!(num(plain, "std_episodes"), 0.0, "no proxy, no STD episodes");
    assert!(results
        .iter()
        .all(|r| r["dropped"] == "0" && r["completed"] == r["reps"]));
}

fn cell(scheme: &str) -> spikelab_engine::SimConfig {
    let spec = STD_PROXY.spec().unwrap();
    let text = spikelab_experiments::embedded::scenario(&spec.scenario).unwrap();
    expand(text, &spec.scenario, &spec.grid[0])
        .unwrap()
        .into_iter()
        .find(|c| {
            c.labels["window"] == "65535" && c.labels["scheme"] == scheme && c.labels["bw"] == "120"
        })
        .unwrap()
        .scenario
        .to_sim()
}

fn tcp(sim: &spikelab_engine::SimConfig) -> &spikelab_tcp::TcpConfig {
    let FlowKind::Tcp { tcp, .. } = &sim.flows[0].kind else {
        panic!("a TCP download")
    };
    tcp
}

#[test]
fn the_scenario_file_is_the_papers_std_cell() {
    let text = spikelab_experiments::embedded::scenario("std-proxy.toml").unwrap();
    let b = spikelab_scenario::parse(text, "std-proxy.toml")
        .unwrap()
        .to_sim();
    let c = b.links.iter().position(|l| l.name == "cellular").unwrap();
    assert_eq!(b.links[c].rate, BitRate(50_000));
    assert_eq!(b.middleboxes.len(), 1);
    assert_eq!(b.middleboxes[0].link, c);
    assert!(matches!(
        b.middleboxes[0].config,
        MiddleboxConfig::StdProxy(_)
    ));
    assert_eq!((tcp(&b).mss, tcp(&b).receiver_window), (1460, 8192));
    let FlowKind::Tcp { workload, .. } = &b.flows[0].kind else {
        panic!()
    };
    assert_eq!(
        *workload,
        Workload::Bulk {
            bytes: ByteSize(10_000_000)
        }
    );
}

#[test]
fn schemes_change_only_what_they_name() {
    let eifel = cell("Eifel");
    assert!(tcp(&eifel).timestamps && tcp(&eifel).spurious.driver == Some(DetectorKind::Eifel));
    assert_eq!(tcp(&eifel).receiver_window, 65_535);
    assert!(eifel.middleboxes.is_empty());
    let frto = cell("F-RTO");
    assert!(!tcp(&frto).timestamps && tcp(&frto).spurious.driver == Some(DetectorKind::Frto));
    let std = cell("STD");
    assert_eq!(std.middleboxes.len(), 1);
    assert_eq!(std.links[1].rate, BitRate(120_000));
    assert!(!tcp(&std).timestamps && tcp(&std).spurious.driver.is_none());
    let plain = cell("TCP");
    assert!(plain.middleboxes.is_empty() && tcp(&plain).spurious.driver.is_none());
}
