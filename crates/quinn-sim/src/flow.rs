//! A [`QuinnPair`] as one spikelab flow: its datagrams as [`Packet`]s on the flow's
//! route, its decisions as the declarations the engine's ground truth judges. The
//! engine's transport file for quinn maps these onto its `Transport` hooks.
//!
//! A datagram rides in a [`Packet`] as QUIC's model transport puts its packets
//! (`spikelab_quic::wire`): the network reads only the packet's size and identity.
//!
//! | quinn datagram | `kind` | `seq` | `len` | `ack` |
//! |---|---|---|---|---|
//! | client's, before its handshake completes | `Syn` | datagram id | 0 | 0 |
//! | server's, before its handshake completes | `SynAck` | datagram id | 0 | 0 |
//! | client's after | `Data` | first stream byte carried | stream bytes | datagram id |
//! | server's after | `Ack` | datagram id | 0 | bytes the server has read |
//!
//! `retx` marks a datagram carrying stream bytes sent before, and the packet's size
//! is the datagram's: its UDP payload plus UDP's and IPv4's headers.

use crate::config::QuinnConfig;
use crate::pair::{Datagram, Decision, End, Fate, QuinnPair};
use crate::seed::PairSeeds;
use spikelab_core::packet::{IP_HEADER, UDP_HEADER};
use spikelab_core::rng::RngStreams;
use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time};

/// What a packet reaching the end of its route was to the flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reached {
    /// A client datagram of the handshake reached the server.
    Setup,
    /// A client datagram reached the server; `unnecessary`: all its stream bytes had
    /// been read already.
    Data { unnecessary: bool },
    /// A server datagram reached the client.
    Feedback,
    /// Not one of this flow's datagrams still travelling.
    Unclaimed,
}

/// A decision of the client (the flow's sender) that ground truth judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    /// It declared lost a packet that datagram `datagram` carried (`None`: quinn
    /// named a packet this pair cannot place).
    Loss { datagram: Option<u64> },
    /// A probe timeout fired; `backoff`: quinn's count of PTOs before it since the
    /// last acknowledgement.
    Probe { backoff: u32 },
}

/// Where a datagram declared lost was when the declaration was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whereabouts {
    /// Still in the network: the declaration was spurious.
    InNetwork,
    /// Already delivered: spurious.
    Delivered,
    /// Neither: the network lost it, the declaration was genuine.
    Gone,
}

/// The client's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Datagrams carrying stream bytes, and those carrying some sent before.
    pub data_datagrams: u64,
    pub retransmissions: u64,
    pub ptos: u64,
    pub losses: u64,
    /// quinn's `path.congestion_events` (it counts every call, also those its
    /// controller ignores because the loss was sent before recovery began).
    pub congestion_events: u64,
    /// Congestion events after which the window was quinn's minimum (2 datagrams), as
    /// persistent congestion (RFC 9002 7.6) leaves it. Inferred: quinn does not report
    /// persistent congestion, and a small window halved can reach the minimum too.
    pub collapses: u64,
}

/// One flow run by real quinn.
pub struct QuinnFlow {
    flow: FlowId,
    pair: QuinnPair,
    mtu: u64,
    made: Vec<Datagram>,
    decided: Vec<Decision>,
    declared: Vec<Declared>,
    /// quinn's PTO count after the last one the client fired.
    backoff: u32,
    counters: Counters,
}

impl QuinnFlow {
    /// The flow's pair, seeded from the run's streams and the flow's index, so each
    /// repetition (each run seed) draws its own connection ids and greasing values.
    pub fn new(flow: FlowId, cfg: &QuinnConfig, streams: &RngStreams) -> QuinnFlow {
        let seeds = PairSeeds::new(*streams, flow.index() as u64);
        QuinnFlow {
            flow,
            pair: QuinnPair::new(cfg, seeds),
            mtu: u64::from(cfg.mtu),
            made: Vec::new(),
            decided: Vec::new(),
            declared: Vec::new(),
            backoff: 0,
            counters: Counters::default(),
        }
    }

    pub fn pair(&self) -> &QuinnPair {
        &self.pair
    }

    /// The client opens the connection.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.pair.start(now, &mut self.made);
        self.after(now, out);
    }

    /// The application writes a message of `bytes`.
    pub fn write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.pair.write(now, bytes, &mut self.made);
        self.after(now, out);
    }

    /// `p` reached the end of its route.
    pub fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) -> Reached {
        let to = if p.kind.is_forward() {
            End::Server
        } else {
            End::Client
        };
        let Some(arrived) = self.pair.deliver(now, datagram_id(p), to, &mut self.made) else {
            return Reached::Unclaimed;
        };
        if arrived.to == End::Client {
            self.backoff = 0;
        }
        self.after(now, out);
        match (arrived.to, p.kind) {
            (End::Client, _) => Reached::Feedback,
            (End::Server, PacketKind::Syn) => Reached::Setup,
            (End::Server, _) => Reached::Data {
                unnecessary: arrived.unnecessary,
            },
        }
    }

    pub fn sender_deadline(&self) -> Option<Time> {
        self.pair.deadline(End::Client)
    }

    pub fn receiver_deadline(&self) -> Option<Time> {
        self.pair.deadline(End::Server)
    }

    /// The client's timers fire; whether a probe timeout was among them.
    pub fn on_sender_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> bool {
        let before = self.counters.ptos;
        self.pair.on_timeout(End::Client, now, &mut self.made);
        self.after(now, out);
        self.counters.ptos > before
    }

    /// The server's timers fire.
    pub fn on_receiver_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.pair.on_timeout(End::Server, now, &mut self.made);
        self.after(now, out);
    }

    /// Moves the client's declarations since the last call into `into`.
    pub fn take_declarations(&mut self, into: &mut Vec<Declared>) {
        into.append(&mut self.declared);
    }

    /// Where datagram `id` was: `in_network` answers whether the network holds it.
    pub fn whereabouts(&self, id: u64, in_network: impl Fn(u64) -> bool) -> Whereabouts {
        match self.pair.fate(id) {
            Some(Fate::Delivered) => Whereabouts::Delivered,
            _ if in_network(id) => Whereabouts::InNetwork,
            _ => Whereabouts::Gone,
        }
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// PTOs the client fired since its last acknowledgement.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// quinn's smoothed RTT at the client.
    pub fn srtt(&self) -> Option<Dur> {
        let rtt = self.pair.rtt(End::Client)?;
        Some(Dur(rtt.as_nanos() as u64))
    }

    /// quinn's congestion window at the client, in bytes.
    pub fn cwnd(&self) -> u64 {
        self.pair.stats(End::Client).map_or(0, |s| s.path.cwnd)
    }

    /// Turns what the last call made into packets and declarations.
    fn after(&mut self, now: Time, out: &mut Vec<Packet>) {
        for d in self.made.drain(..) {
            out.push(packet(self.flow, now, &d));
            if d.from == End::Client && d.data.is_some() {
                self.counters.data_datagrams += 1;
                self.counters.retransmissions += d.data.is_some_and(|c| c.retx) as u64;
            }
        }
        self.pair.take_decisions(&mut self.decided);
        let mut congested = false;
        for d in self.decided.drain(..) {
            match d {
                Decision::Pto {
                    end: End::Client,
                    fired,
                } => {
                    self.backoff = fired.count as u32 + 1;
                    self.counters.ptos += 1;
                    let backoff = fired.count as u32;
                    self.declared.push(Declared::Probe { backoff });
                }
                Decision::Lost {
                    end: End::Client,
                    datagram,
                    ..
                } => {
                    self.counters.losses += 1;
                    self.declared.push(Declared::Loss { datagram });
                }
                Decision::CongestionEvent { end: End::Client } => {
                    self.counters.congestion_events += 1;
                    congested = true;
                }
                _ => {}
            }
        }
        if congested && self.cwnd() == 2 * self.mtu {
            self.counters.collapses += 1;
        }
    }
}

/// The datagram a packet of the flow stands for.
pub fn datagram_id(p: &Packet) -> u64 {
    match p.kind {
        PacketKind::Data => p.ack,
        _ => p.seq,
    }
}

/// The packet a datagram rides in (see the module's table).
fn packet(flow: FlowId, now: Time, d: &Datagram) -> Packet {
    let kind = match (d.from, d.handshake) {
        (End::Client, true) => PacketKind::Syn,
        (End::Server, true) => PacketKind::SynAck,
        (End::Client, false) => PacketKind::Data,
        (End::Server, false) => PacketKind::Ack,
    };
    let mut p = Packet::new(0, flow, kind, now);
    if kind == PacketKind::Data {
        let data = d.data.unwrap_or_default();
        (p.seq, p.len, p.retx, p.ack) = (data.start, data.bytes as u32, data.retx, d.id);
    } else {
        (p.seq, p.ack) = (d.id, d.read);
    }
    p.seal_as(IP_HEADER + UDP_HEADER + d.size);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Carries every packet to its end after `delay`, in order, until nothing moves.
    fn carry(f: &mut QuinnFlow, mut now: Time, mut packets: Vec<Packet>) -> Time {
        let delay = Dur::from_millis(50);
        while !packets.is_empty() {
            now += delay;
            let mut next = Vec::new();
            for p in &packets {
                assert_eq!(p.flow, FlowId(3));
                f.on_packet(now, p, &mut next);
            }
            packets = next;
        }
        now
    }

    #[test]
    fn a_datagram_rides_as_setup_then_data_and_comes_back_by_its_id() {
        let mut f = QuinnFlow::new(FlowId(3), &QuinnConfig::default(), &RngStreams::new(0));
        let mut out = Vec::new();
        f.start(Time::ZERO, &mut out);
        assert_eq!(out[0].kind, PacketKind::Syn);
        assert_eq!(out[0].wire_bytes(), 1200 + 28);
        let now = carry(&mut f, Time::ZERO, out);
        let mut out = Vec::new();
        f.write(now, 3000, &mut out);
        let data: Vec<&Packet> = out.iter().filter(|p| p.kind == PacketKind::Data).collect();
        assert!(data.len() >= 3, "{out:?}");
        assert_eq!(data[0].seq, 0);
        assert_eq!(data.iter().map(|p| p.len as u64).sum::<u64>(), 3000);
        let first = *data[0];
        let mut replies = Vec::new();
        let reached = f.on_packet(now + Dur::from_millis(50), &first, &mut replies);
        assert_eq!(reached, Reached::Data { unnecessary: false });
        let again = f.on_packet(now + Dur::from_millis(60), &first, &mut replies);
        assert_eq!(again, Reached::Unclaimed, "each datagram arrives once");
    }
}
