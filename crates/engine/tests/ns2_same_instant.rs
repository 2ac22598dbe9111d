//! ns-2's order of a packet's arrival and a transmission end at the same instant, against
//! ns-2.35 itself (Debian's `ns2` package; a loud SKIPPED line when `ns` is absent).
//!
//! A CBR source sends 1000-byte packets back to back over a 2 Mbit/s, 10 ms link into a
//! 1 Mbit/s, 50 ms bottleneck whose queue holds one packet behind the one being sent
//! (ns-2's `queue-limit` 2): two arrivals per transmission, every other one at the very
//! instant a transmission ends. ns-2 runs same-time events in the order they were
//! scheduled (`CalendarScheduler::insert()`, `common/scheduler.cc`); the arrival was
//! scheduled when its packet started on the first link (14 ms before), the end when its
//! transmission started (8 ms before), so the arrival runs first, finds the queue full
//! and is dropped. Before the link stopped waking at transmission ends in that order,
//! spikelab ran the end first whenever the first link had queued the arrival's wake-up
//! after it (as here, at the delivery of the packet before), and dropped the next
//! packet instead: 26 ms instead of ns-2's 22 ms.
//!
//! Only the drops before 50 ms are compared: ns-2's clock is a double, and from the
//! arrival at 54 ms on the two sums no longer round to the same value
//! (0.040 + 0.014 = 0.054000000000000006 against 0.046 + 0.008 = 0.054), so ns-2 sees no
//! tie there while spikelab's integer clock still does.

mod common;

use common::*;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{BitRate, Dur, FlowId};
use spikelab_engine::*;
use spikelab_net::Dir;
use spikelab_tcp::TcpConfig;
use std::path::Path;
use std::process::Command;

/// Drops are compared before this instant (see the module docs).
const COMPARED_S: f64 = 0.05;

/// The drop times of the CBR packets in ns-2.35, or None when `ns` is not installed.
fn ns2_drops() -> Option<Vec<f64>> {
    let dir = std::env::temp_dir().join(format!("spikelab-same-instant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("train.tr");
    let tcl = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ns2_same_instant/train.tcl");
    let out = match Command::new("ns").arg(&tcl).arg("2").arg(&trace).output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("run ns: {e}"),
    };
    assert!(
        out.status.success(),
        "ns: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    // event time from to type size flags fid src dst seq uid
    let drops = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w[0] == "d" && w[4] == "cbr")
        .map(|w| w[1].parse().unwrap())
        .collect();
    Some(drops)
}

/// The drop times of the CBR packets in spikelab, with ns-2's same-instant order on (a
/// TCP flow of the `ns2-2002` profile on a link of its own switches it on).
fn spikelab_drops() -> Vec<f64> {
    let hop = |link| Hop {
        link,
        dir: Dir::Forward,
    };
    let cbr = FlowSpec {
        name: "cbr".into(),
        route: vec![hop(0), hop(1)],
        start: StartTime::At(Dur::ZERO),
        kind: FlowKind::Cbr {
            rate: BitRate(2_000_000),
            // 972 + 28 bytes UDP/IPv4 = ns-2's 1000-byte UDP packets.
            payload_bytes: 972,
            stop: Some(Dur::from_millis(100)),
        },
    };
    let mut tcp = bulk("tcp", TcpConfig::ns2_2002(), 1000);
    tcp.route = vec![hop(2)];
    let links = vec![
        link("access", 2_000_000, 10, 1000),
        link("bottleneck", 1_000_000, 50, 1),
        link("aside", 1_000_000, 10, 10),
    ];
    let mut cfg = sim(links, vec![cbr, tcp]);
    cfg.stop_at = Dur::from_secs(1);
    let r = run(&cfg, 1).expect("spikelab run");
    r.trace
        .iter()
        .filter(|t| t.flow == FlowId(0) && matches!(t.event, TraceEvent::Drop { .. }))
        .map(|t| t.time.as_secs_f64())
        .collect()
}

#[test]
fn an_arrival_scheduled_before_a_transmission_end_at_its_instant_runs_first_as_in_ns2() {
    let ours = spikelab_drops();
    let early = |d: &[f64]| -> Vec<String> {
        d.iter()
            .filter(|&&t| t < COMPARED_S)
            .map(|t| format!("{t:.6}"))
            .collect()
    };
    // Without ns-2: the drops its order implies (the third packet, then every other).
    assert_eq!(
        early(&ours),
        ["0.022000", "0.030000", "0.038000", "0.046000"]
    );
    let Some(ns2) = ns2_drops() else {
        eprintln!(
            "SKIPPED: the same-instant train against ns-2.35: `ns` not found (apt-get install ns2)"
        );
        return;
    };
    assert_eq!(early(&ours), early(&ns2), "spikelab {ours:?}\nns-2 {ns2:?}");
}
