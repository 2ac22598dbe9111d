//! The QUIC receiver: answers the client Initial with the server's flight, holds the
//! stream bytes, and acknowledges ([`crate::ack`], RFC 9000 13.2) in ACK-only packets
//! of its own packet numbers.

use crate::ack::{AckDue, AckFrame, AckState};
use crate::config::QuicConfig;
use crate::ranges::RangeSet;
use crate::wire::{ack_packet_bytes, ip_bytes};
use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time};

#[derive(Clone, Debug)]
pub struct QuicReceiver {
    flow: FlowId,
    threshold: u32,
    max_ack_delay: Dur,
    server_flight: u32,
    ack: AckState,
    /// Its own next packet number (ACK-only packets).
    next_pn: u64,
    held: RangeSet,
}

impl QuicReceiver {
    pub fn new(flow: FlowId, cfg: &QuicConfig) -> QuicReceiver {
        QuicReceiver {
            flow,
            threshold: cfg.ack_eliciting_threshold,
            max_ack_delay: cfg.max_ack_delay,
            server_flight: ip_bytes(cfg.max_datagram_size),
            ack: AckState::new(),
            next_pn: 0,
            held: RangeSet::new(),
        }
    }

    /// A client Initial arrived: the server's Initial and Handshake go back in one
    /// full-sized datagram, answering that Initial (`ack`).
    pub fn on_initial(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) {
        let mut a = Packet::new(0, self.flow, PacketKind::SynAck, now);
        a.ack = p.seq;
        a.seal_as(self.server_flight);
        out.push(a);
    }

    /// A 1-RTT packet arrived; returns whether it carried only stream bytes already
    /// held (an unnecessary retransmission) and, if an ACK goes now, its frame.
    pub fn on_data(
        &mut self,
        now: Time,
        p: &Packet,
        out: &mut Vec<Packet>,
    ) -> (bool, Option<(u64, AckFrame)>) {
        let len = u64::from(p.len);
        let held = len > 0 && self.held.covers(p.seq, p.seq + len - 1);
        if len > 0 {
            self.held.insert(p.seq, p.seq + len - 1);
        }
        let due = self
            .ack
            .on_packet(now, p.ack, true, self.threshold, self.max_ack_delay);
        // The client's first 1-RTT packet rides with its Handshake packet, whose
        // Finished completes the handshake at the server: the server's
        // HANDSHAKE_DONE goes at once (RFC 9001 4.1.2) and carries an ACK frame.
        let first = p.ack == 0;
        let frame = (due == AckDue::Now || first).then(|| self.send_ack(now, out));
        (held, frame)
    }

    /// The ACK timer fires: the frame sent, if one was due.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> Option<(u64, AckFrame)> {
        if self.ack.deadline().is_none_or(|d| d > now) {
            return None;
        }
        Some(self.send_ack(now, out))
    }

    fn send_ack(&mut self, now: Time, out: &mut Vec<Packet>) -> (u64, AckFrame) {
        let frame = self.ack.frame(now);
        let pn = self.next_pn;
        self.next_pn += 1;
        let mut a = Packet::new(0, self.flow, PacketKind::Ack, now);
        a.seq = pn;
        a.ack = frame.largest();
        a.seal_as(ack_packet_bytes(frame.bytes()));
        out.push(a);
        (pn, frame)
    }

    pub fn deadline(&self) -> Option<Time> {
        self.ack.deadline()
    }
    /// Packet `pn` arrived (as far as the ranges remember).
    pub fn received(&self, pn: u64) -> bool {
        self.ack.received(pn)
    }
    /// An ACK is owed for ack-eliciting packets received.
    pub fn ack_pending(&self) -> bool {
        self.ack.pending()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(pn: u64) -> Packet {
        let mut p = Packet::new(0, FlowId(0), PacketKind::Data, Time::ZERO);
        p.ack = pn;
        p.seq = pn * 1000;
        p.len = 1000;
        p
    }

    #[test]
    fn the_first_1rtt_packet_is_acknowledged_at_once_then_every_second() {
        let mut r = QuicReceiver::new(FlowId(0), &QuicConfig::default());
        let mut out = Vec::new();
        let acks = |r: &mut QuicReceiver, pn, out: &mut Vec<Packet>| {
            r.on_data(Time::ZERO, &data(pn), out).1.is_some()
        };
        assert!(acks(&mut r, 0, &mut out), "HANDSHAKE_DONE carries an ACK");
        assert!(!acks(&mut r, 1, &mut out));
        assert!(acks(&mut r, 2, &mut out));
    }
}
