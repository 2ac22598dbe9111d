//! Every file in `scenarios/` loads and resolves to what its comments promise.

use spikelab_core::{BitRate, ByteSize, Dur};
use spikelab_engine::{FlowKind, SimConfig, StartTime, Workload};
use spikelab_net::{Dir, QueueConfig, QueueLimit};
use spikelab_scenario::{load, Scenario};
use spikelab_tcp::RecoveryKind;
use std::path::PathBuf;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn example(name: &str) -> Scenario {
    load(scenarios_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn queue_packets(q: &QueueConfig) -> u64 {
    match q {
        QueueConfig::DropTail(d) => match d.limit {
            QueueLimit::Packets(n) => n,
            QueueLimit::Bytes(b) => panic!("byte limit {b:?}"),
        },
        other => panic!("not drop-tail: {other:?}"),
    }
}

fn tcp_of(sim: &SimConfig, flow: usize) -> (&spikelab_tcp::TcpConfig, Workload) {
    match &sim.flows[flow].kind {
        FlowKind::Tcp { tcp, workload } => (tcp, *workload),
        other => panic!("flow {flow} is {}", other.name()),
    }
}

#[test]
fn every_example_scenario_loads_and_is_named_after_its_file() {
    let mut paths: Vec<_> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 6, "{paths:?}");
    for path in paths {
        let s = load(&path).unwrap_or_else(|e| panic!("{e}"));
        let stem = path.file_stem().unwrap().to_str().unwrap();
        assert_eq!(s.run().name, stem);
        assert!(!s.run().description.is_empty(), "{stem}");
    }
}

#[test]
fn gprs_eifel_is_the_papers_difficult_scenario() {
    let s = example("gprs-eifel.toml");
    let sim = s.to_sim();
    assert_eq!(s.run().reps, 100);
    let link = &sim.links[0];
    assert_eq!(
        (link.rate, link.latency),
        (BitRate(30_000), Dur::from_millis(300))
    );
    assert_eq!(queue_packets(&link.queue), 9);
    assert_eq!(link.spikes.len(), 1);
    let (tcp, workload) = tcp_of(&sim, 0);
    assert_eq!(
        workload,
        Workload::Bulk {
            bytes: ByteSize(300_000)
        }
    );
    assert!(tcp.timestamps && !tcp.careful_fast_retransmit && tcp.handshake);
    assert_eq!((tcp.mss, tcp.receiver_window), (1000, 20_000));
    let big = example("gprs-eifel-100kb.toml").to_sim();
    assert_eq!(queue_packets(&big.links[0].queue), 99);
}

#[test]
fn eifel_response_is_a_one_pair_dumbbell_with_reno_sack() {
    let sim = example("eifel-response.toml").to_sim();
    let names: Vec<_> = sim.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["bottleneck", "access-src-0", "access-dst-0"]);
    let b = &sim.links[0];
    assert_eq!(
        (b.rate, b.latency),
        (BitRate(2_000_000), Dur::from_millis(150))
    );
    assert_eq!(queue_packets(&b.queue), 74);
    assert_eq!(b.spikes.len(), 1);
    let hops: Vec<_> = sim.flows[0].route.iter().map(|h| (h.link, h.dir)).collect();
    assert_eq!(
        hops,
        [(1, Dir::Forward), (0, Dir::Forward), (2, Dir::Forward)]
    );
    let (tcp, workload) = tcp_of(&sim, 0);
    assert_eq!(
        workload,
        Workload::Bulk {
            bytes: ByteSize(5_000_000)
        }
    );
    assert_eq!(tcp.recovery, RecoveryKind::RenoSack);
    assert_eq!(
        (tcp.mss, tcp.receiver_window, tcp.timestamps),
        (1000, 150_000, true)
    );
}

#[test]
fn eifel_response_cbr_adds_a_1_mbit_flow_on_the_second_pair() {
    let sim = example("eifel-response-cbr.toml").to_sim();
    assert_eq!(sim.flows.len(), 2);
    let FlowKind::Cbr {
        rate,
        payload_bytes,
        stop,
    } = sim.flows[1].kind
    else {
        panic!("second flow is not CBR");
    };
    // ns-2's default CBR packet: 210 bytes on the wire = 182 payload + 28 IPv4/UDP.
    assert_eq!((rate, payload_bytes, stop), (BitRate(1_000_000), 182, None));
    assert_eq!(sim.links[sim.flows[1].route[0].link].name, "access-src-1");
}

#[test]
fn dumbbell_100_has_a_pair_per_flow() {
    let sim = example("dumbbell-100.toml").to_sim();
    assert_eq!(sim.flows.len(), 100);
    assert_eq!(sim.links.len(), 201);
    assert_eq!(sim.stop_at, Dur::from_secs(60));
    assert_eq!(sim.flows[99].name, "bulk#99");
    assert_eq!(sim.links[sim.flows[99].route[0].link].name, "access-src-99");
    let start = StartTime::Uniform {
        min: Dur::ZERO,
        max: Dur::from_secs(1),
    };
    assert!(sim.flows.iter().all(|f| f.start == start));
}

#[test]
fn quickstart_runs_in_well_under_a_second() {
    let sim = example("quickstart.toml").to_sim();
    let t0 = std::time::Instant::now();
    let r = spikelab_engine::run(&sim, 1).unwrap();
    assert!(t0.elapsed().as_millis() < 500, "{:?}", t0.elapsed());
    assert!(r.flows[0].completed.is_some());
}

#[test]
fn bandwidth_drop_causes_a_spurious_timeout_as_in_fig_1b() {
    let sim = example("bandwidth-drop.toml").to_sim();
    let r = spikelab_engine::run(&sim, 1).unwrap();
    assert!(!r.timeouts.is_empty());
    assert!(
        r.timeouts.iter().all(|t| t.truth.is_spurious()),
        "{:?}",
        r.timeouts
    );
    assert!(
        r.timeouts[0].time.as_secs_f64() > 10.0,
        "after the drop at 10 s"
    );
}

#[test]
fn no_scenario_comment_says_a_feature_is_missing_that_exists() {
    for entry in std::fs::read_dir(scenarios_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
        for stale in ["not yet expressible", "does not load link traces"] {
            assert!(!text.contains(stale), "{}: `{stale}`", path.display());
        }
    }
}

#[test]
fn the_eifel_line_the_gprs_and_eifel_comments_suggest_loads() {
    use spikelab_tcp::spurious::DetectorKind;
    for (file, line) in [
        ("gprs-eifel.toml", "spurious = { driver = \"eifel\" }"),
        (
            "eifel-response.toml",
            "spurious = { driver = \"eifel\", response = { restore = \"option1\" } }",
        ),
    ] {
        let path = scenarios_dir().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("`{line}`")),
            "{file} suggests another line"
        );
        let edited = text.replacen("tcp = { ", &format!("tcp = {{ {line}, "), 1);
        let s = spikelab_scenario::parse(&edited, &path.display().to_string())
            .unwrap_or_else(|e| panic!("{e}"));
        let (tcp, _) = tcp_of(s.sim(), 0);
        assert_eq!(tcp.spurious.driver, Some(DetectorKind::Eifel), "{file}");
    }
}
