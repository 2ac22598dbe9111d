//! Packet capture for pcap files: passive, and taken where each endpoint sees packets.

mod common;

use common::*;
use spikelab_core::PacketKind;
use spikelab_engine::{run, Endpoint, RunResult, SimConfig};
use spikelab_tcp::RecoveryKind;

/// A transfer with a handshake, a loss and a 3 s hiccup (a spurious timeout) over a 50 ms link.
fn lossy_spiky(pcap: bool) -> SimConfig {
    let l = with_hiccup(link("path", 1_000_000, 50, 20), 1.0, 3.0);
    let mut t = tcp(RecoveryKind::RenoSack, 40);
    t.handshake = true;
    let mut cfg = sim(vec![l], vec![bulk("bulk", t, 300_000)]);
    drop_segments(&mut cfg, &[30]);
    cfg.pcap = pcap;
    cfg
}

fn flow_results(r: &RunResult) -> String {
    format!("{:?} {:?} {:?} {}", r.flows, r.timeouts, r.links, r.events)
}

#[test]
fn capturing_changes_no_result() {
    let (off, on) = (
        run(&lossy_spiky(false), 7).unwrap(),
        run(&lossy_spiky(true), 7).unwrap(),
    );
    assert!(off.captures.is_empty());
    assert!(!on.captures[0].is_empty());
    assert_eq!(flow_results(&off), flow_results(&on));
}

#[test]
fn each_endpoint_sees_what_it_sends_at_once_and_what_it_receives_after_the_path() {
    let r = run(&lossy_spiky(true), 7).unwrap();
    let (f, c) = (&r.flows[0], &r.captures[0]);
    assert!(f.spurious_timeouts >= 1 && f.unnecessary_retransmissions >= 1);
    // Data segments carry payload; the one zero-length segment is the handshake's
    // third, the sender's pure ACK of the SYN-ACK, seen at both ends.
    let count = |at, kind| {
        c.iter()
            .filter(|x| x.at == at && x.packet.kind == kind)
            .filter(|x| kind != PacketKind::Data || x.packet.len > 0)
            .count() as u64
    };
    let third = |at| {
        c.iter()
            .filter(|x| x.at == at && x.packet.kind == PacketKind::Data && x.packet.len == 0)
            .count()
    };
    assert_eq!((third(Endpoint::Sender), third(Endpoint::Receiver)), (1, 1));
    assert_eq!(
        count(Endpoint::Sender, PacketKind::Data),
        f.data_segments_sent
    );
    assert_eq!(count(Endpoint::Receiver, PacketKind::Data), f.delivered);
    assert_eq!(count(Endpoint::Receiver, PacketKind::Syn), 1);
    assert_eq!(count(Endpoint::Sender, PacketKind::SynAck), 1);
    for x in c {
        let sent_here = (x.at == Endpoint::Sender) == x.packet.kind.is_forward();
        if sent_here {
            assert_eq!(x.time, x.packet.sent_at, "{x:?}");
        } else {
            // At least the 50 ms propagation delay after it was sent.
            assert!(x.time.0 >= x.packet.sent_at.0 + 50_000_000, "{x:?}");
        }
    }
    assert!(c.windows(2).all(|w| w[0].time <= w[1].time));
    // The transfer ends with the final ACK reaching the sender.
    let last_ack = c.iter().rfind(|x| x.at == Endpoint::Sender).unwrap();
    assert_eq!(
        (last_ack.time, last_ack.packet.ack),
        (f.completed.unwrap(), 300_000)
    );
}
