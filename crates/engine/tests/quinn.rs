//! Real quinn (quinn-proto 0.11.19, crates/quinn-sim) as a transport of the engine:
//! `kind = "quic"` with `implementation = "quinn"` runs through the same links, spikes
//! and drop rules as TCP, deterministically, and its probe timeouts and loss
//! declarations reach ground truth.

mod common;

use common::*;
use spikelab_core::{ByteSize, Dur};
use spikelab_engine::*;
use spikelab_net::spike::{HiccupConfig, SpikeAt};
use spikelab_net::{MiddleboxConfig, SpikeConfig};
use spikelab_quic::{Implementation, QuicConfig};

fn quinn_flow(bytes: u64) -> FlowSpec {
    let mut f = bulk("q", Default::default(), bytes);
    f.kind = FlowKind::Quic {
        quic: Box::new(QuicConfig {
            implementation: Implementation::Quinn,
            ..QuicConfig::default()
        }),
        workload: Workload::Bulk {
            bytes: ByteSize(bytes),
        },
    };
    f
}

/// The papers' 2 Mbit/s path, 150 ms each way on one link, a queue of 100 packets.
fn path(freeze: Option<(u64, u64)>) -> SimConfig {
    let mut l = link("l", 2_000_000, 150, 100);
    if let Some((start_ms, secs)) = freeze {
        l.spikes.push(SpikeConfig::Hiccup(HiccupConfig {
            at: vec![SpikeAt {
                start: Dur::from_millis(start_ms),
                duration: Dur::from_secs(secs),
            }],
            ..HiccupConfig::default()
        }));
    }
    sim(vec![l], vec![quinn_flow(300_000)])
}

#[test]
fn a_quinn_flow_completes_and_replays_identically() {
    let cfg = path(None);
    let a = spikelab_engine::run(&cfg, 1).expect("no invariant broken");
    let b = spikelab_engine::run(&cfg, 1).expect("no invariant broken");
    let f = &a.flows[0];
    let done = f.completed.expect("the transfer completes");
    // 300 kB at 2 Mbit/s is 1.2 s of serialisation, plus the handshake's round trips.
    assert!(
        (done - spikelab_core::Time::ZERO).as_secs_f64() > 1.5
            && (done - spikelab_core::Time::ZERO).as_secs_f64() < 3.5,
        "{done}"
    );
    assert_eq!(f.declarations.ptos, 0);
    assert_eq!(f.declarations.loss_declarations, 0);
    assert!(f.data_segments_sent >= 300_000 / 1200);
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(a.trace, b.trace);
}

#[test]
fn a_dropped_segment_is_one_genuine_loss_declaration() {
    let mut cfg = path(None);
    drop_segments(&mut cfg, &[40]);
    let r = spikelab_engine::run(&cfg, 1).expect("no invariant broken");
    let d = r.flows[0].declarations;
    assert!(r.flows[0].completed.is_some());
    assert_eq!((d.loss_declarations, d.spurious_loss_declarations), (1, 0));
    // Its bytes go again in a new packet, or two when quinn packs the tail of the range
    // with new data.
    assert!((1..=2).contains(&r.flows[0].retransmissions));
}

#[test]
fn a_freeze_makes_quinn_probe_and_every_probe_is_spurious() {
    let r = spikelab_engine::run(&path(Some((1000, 5))), 1).expect("no invariant broken");
    let f = &r.flows[0];
    assert!(f.completed.is_some());
    let d = f.declarations;
    // The link holds everything during the freeze: each probe fired with packets of
    // the flow still in it.
    assert!(d.ptos >= 3, "{d:?}");
    assert_eq!(d.spurious_ptos, d.ptos);
    assert_eq!(f.timeouts, 0, "a PTO is no retransmission timeout");
}

#[test]
fn a_delay_injection_box_holds_quinns_datagrams_as_it_holds_tcp_segments() {
    let run = |inject: bool| {
        let mut cfg = path(None);
        if inject {
            let text = "kind = \"delay-injection\"\nmethod = \"ftfd\"\nd0 = \"200ms\"\nn = 1\nselect = \"every-nth\"\nselect_every = 1";
            let config: MiddleboxConfig = toml::from_str(text).expect("a box");
            cfg.middleboxes.push(MiddleboxSpec { link: 0, config });
        }
        spikelab_engine::run(&cfg, 1).expect("no invariant broken")
    };
    let done = |r: &RunResult| r.flows[0].completed.expect("completes");
    let (plain, held) = (run(false), run(true));
    assert!(
        done(&held) > done(&plain),
        "{} vs {}",
        done(&held),
        done(&plain)
    );
}
