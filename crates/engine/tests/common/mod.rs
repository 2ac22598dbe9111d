//! Small builders for engine scenario tests.
#![allow(dead_code)]

use spikelab_core::{BitRate, ByteSize, Dur};
use spikelab_engine::*;
use spikelab_net::{Dir, DropTailConfig, LinkConfig, QueueConfig, QueueLimit, ServiceConfig};
use spikelab_tcp::TcpConfig;

pub fn link(name: &str, bps: u64, latency_ms: u64, queue_packets: u64) -> LinkConfig {
    LinkConfig {
        name: name.into(),
        rate: BitRate(bps),
        latency: Dur::from_millis(latency_ms),
        queue: QueueConfig::DropTail(DropTailConfig {
            limit: QueueLimit::Packets(queue_packets),
            drop_front: false,
        }),
        service: ServiceConfig::default(),
        forward: Default::default(),
        reverse: Default::default(),
        delay_trace: None,
        delay_sampling: Default::default(),
        spikes: Vec::new(),
    }
}

pub fn bulk(name: &str, tcp: TcpConfig, bytes: u64) -> FlowSpec {
    FlowSpec {
        name: name.into(),
        route: vec![Hop {
            link: 0,
            dir: Dir::Forward,
        }],
        start: StartTime::At(Dur::ZERO),
        kind: FlowKind::Tcp {
            tcp: std::sync::Arc::new(tcp),
            workload: Workload::Bulk {
                bytes: ByteSize(bytes),
            },
        },
    }
}

pub fn sim(links: Vec<LinkConfig>, flows: Vec<FlowSpec>) -> SimConfig {
    SimConfig {
        links,
        flows,
        drops: Vec::new(),
        middleboxes: Vec::new(),
        stop_at: Dur::from_secs(3600),
        trace: spikelab_engine::TraceKinds::ALL,
        pcap: false,
        record_rto: true,
    }
}

/// A TCP configuration with 1000-byte segments and a fixed receiver window.
pub fn tcp(recovery: spikelab_tcp::RecoveryKind, window_segments: u64) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        receiver_window: window_segments * 1000,
        recovery,
        ..TcpConfig::default()
    }
}

/// Drops the first transmission of each listed segment of flow 0 on link 0.
pub fn drop_segments(cfg: &mut SimConfig, segments: &[u64]) {
    for &s in segments {
        cfg.drops.push(DropRule {
            link: 0,
            flow: 0,
            target: DropTarget::Segments {
                from: s,
                to: s + 1,
                which: DropWhich::First,
            },
            after: Dur::ZERO,
            until: None,
        });
    }
}

/// Times (s) at which flow 0 sent a retransmission.
pub fn retransmission_times(r: &RunResult) -> Vec<f64> {
    use spikelab_core::trace::TraceEvent;
    r.trace
        .iter()
        .filter(|t| matches!(t.event, TraceEvent::Send { retx: true, .. }))
        .map(|t| t.time.as_secs_f64())
        .collect()
}

/// A link with one explicit hiccup: both directions suspended after the queue from
/// `start_s` for `dur_s` seconds.
pub fn with_hiccup(mut l: LinkConfig, start_s: f64, dur_s: f64) -> LinkConfig {
    use spikelab_net::spike::{HiccupConfig, SpikeAt};
    let at = vec![SpikeAt {
        start: Dur::from_secs_f64(start_s),
        duration: Dur::from_secs_f64(dur_s),
    }];
    l.spikes
        .push(spikelab_net::SpikeConfig::Hiccup(HiccupConfig {
            at,
            ..HiccupConfig::default()
        }));
    l
}

/// The papers' GPRS flow: ns-2 2002 Reno with timestamps and the "bug fix" off
/// ([Gurtov & Ludwig 2002] 4).
pub fn gprs_reno() -> TcpConfig {
    TcpConfig {
        timestamps: true,
        careful_fast_retransmit: false,
        ..TcpConfig::ns2_2002()
    }
}

/// Data crossing link 0 then link 1, both forward.
pub fn two_hops() -> Vec<Hop> {
    vec![
        Hop {
            link: 0,
            dir: Dir::Forward,
        },
        Hop {
            link: 1,
            dir: Dir::Forward,
        },
    ]
}
