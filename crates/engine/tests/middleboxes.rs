//! Middleboxes hosted on a path: the STD proxy at a base station and delay injection.

mod common;

use common::*;
use spikelab_core::Dur;
use spikelab_engine::*;
use spikelab_net::middlebox::StdProxyConfig;
use spikelab_net::MiddleboxConfig;
use spikelab_tcp::spurious::{DetectorKind, Verdict};
use spikelab_tcp::{RecoveryKind, TcpConfig};

/// A server behind a fast wired link, a base station, and a 100 kbit/s cellular last
/// hop that stops transmitting for 5 s at 10 s ([Kim & Cho 2003] V in miniature, with its
/// 8 KB receiver window, so queues stay short and the RTO small).
fn cellular(with_proxy: bool) -> RunResult {
    let wired = link("wired", 10_000_000, 20, 1000);
    let cell = with_hiccup(link("cell", 100_000, 100, 50), 10.0, 5.0);
    let tcp = TcpConfig {
        mss: 1460,
        receiver_window: 8 * 1024,
        recovery: RecoveryKind::Reno,
        ..TcpConfig::default()
    };
    let mut f = bulk("download", tcp, 600_000);
    f.route = two_hops();
    let mut cfg = sim(vec![wired, cell], vec![f]);
    if with_proxy {
        let config = MiddleboxConfig::StdProxy(StdProxyConfig::default());
        cfg.middleboxes.push(MiddleboxSpec { link: 1, config });
    }
    spikelab_engine::run(&cfg, 1).unwrap()
}

fn cell_data_packets(r: &RunResult) -> u64 {
    r.links
        .iter()
        .find(|l| l.name == "cell" && l.dir == "forward")
        .unwrap()
        .offered
}

#[test]
fn the_std_proxy_absorbs_go_back_n_after_a_spurious_timeout_it_detected() {
    let plain = cellular(false);
    let proxied = cellular(true);
    assert!(
        plain.timeouts.iter().any(|t| t.truth.is_spurious()),
        "{:?}",
        plain.timeouts
    );
    let t = proxied
        .timeouts
        .iter()
        .find(|t| t.truth.is_spurious())
        .expect("a spurious timeout");
    let std = t
        .verdicts
        .iter()
        .find(|v| v.detector == DetectorKind::StdProxy)
        .expect("the proxy judged it");
    assert_eq!(std.verdict, Verdict::Spurious);
    // The wireless link carries fewer segments: the retransmissions stopped at the box.
    assert!(
        cell_data_packets(&proxied) < cell_data_packets(&plain),
        "{} vs {}",
        cell_data_packets(&proxied),
        cell_data_packets(&plain)
    );
    assert!(proxied.flows[0].completed.is_some());
}

#[test]
fn ftfd_oracle_with_n_1_delays_every_timed_segment_by_d0() {
    let tcp = TcpConfig {
        mss: 1000,
        timestamps: false,
        ..TcpConfig::default()
    };
    let run = |inject: bool| {
        let mut cfg = sim(
            vec![link("l", 10_000_000, 50, 1000)],
            vec![bulk("f", tcp.clone(), 100_000)],
        );
        if inject {
            let text = "kind = \"delay-injection\"\nmethod = \"ftfd\"\nd0 = \"100ms\"\nn = 1\nselect = \"oracle\"";
            let config: MiddleboxConfig = toml::from_str(text).unwrap();
            cfg.middleboxes.push(MiddleboxSpec { link: 0, config });
        }
        spikelab_engine::run(&cfg, 1).unwrap()
    };
    let base = run(false);
    let injected = run(true);
    let min = |r: &RunResult| r.flows[0].rto_samples.iter().map(|s| s.rtt).min().unwrap();
    // Every timed segment is held 100 ms at the box: no RTT sample can be shorter than
    // the 2 x 50 ms propagation plus the 100 ms held, while without injection they are.
    assert!(min(&base) < Dur::from_millis(110), "{:?}", min(&base));
    assert!(
        min(&injected) >= Dur::from_millis(200),
        "{:?}",
        min(&injected)
    );
}

/// The engine scores a box's verdicts under the detector name the box reports; every
/// registered box must name a registered network detector (one without sender state),
/// or none.
#[test]
fn every_box_that_judges_timeouts_names_a_registered_network_detector() {
    use spikelab_core::RngStreams;
    use spikelab_net::{Mb, Middlebox};
    use spikelab_tcp::spurious::Detector;
    let mut judges = Vec::new();
    for (i, kind) in MiddleboxConfig::KINDS.iter().enumerate() {
        let cfg: MiddleboxConfig = toml::from_str(&format!("kind = \"{kind}\"")).unwrap();
        let mb = Mb::new(&cfg, RngStreams::new(1).stream("middlebox", i as u64));
        if let Some(name) = mb.detector() {
            let k = DetectorKind::from_label(name).unwrap_or_else(|| panic!("{name}"));
            assert!(Detector::new(k).is_none(), "`{name}` has sender-side state");
            judges.push(k);
        }
    }
    assert_eq!(judges, [DetectorKind::StdProxy]);
}
