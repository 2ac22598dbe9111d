//! One QUIC connection as the engine sees it: the sender (client) and the receiver,
//! and the ACK frames in flight between them. The frames' ranges do not fit the
//! simulator's packet ([`crate::wire`]); they wait here, keyed by the ACK packet's
//! number, until that packet arrives (or a later one does: a lost ACK's frame is
//! dropped then, its ranges repeated by the later frame).

use crate::ack::AckFrame;
use crate::config::QuicConfig;
use crate::receiver::QuicReceiver;
use crate::sender::{AckOutcome, QuicSender};
use spikelab_core::{FlowId, Packet, PacketKind, Time};
use std::collections::BTreeMap;

/// What a packet did at the endpoint that took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrived {
    /// A 1-RTT packet at the receiver; `unnecessary`: it carried only stream bytes the
    /// receiver already held.
    Data { unnecessary: bool },
    /// The client Initial at the receiver.
    Initial,
    /// An ACK or the server's handshake flight at the sender.
    Feedback(AckOutcome),
    /// Nothing a QUIC endpoint takes.
    Other,
}

#[derive(Clone, Debug)]
pub struct QuicConnection {
    pub sender: QuicSender,
    pub receiver: QuicReceiver,
    frames: BTreeMap<u64, AckFrame>,
}

impl QuicConnection {
    pub fn new(flow: FlowId, cfg: &QuicConfig) -> QuicConnection {
        QuicConnection {
            sender: QuicSender::new(flow, cfg),
            receiver: QuicReceiver::new(flow, cfg),
            frames: BTreeMap::new(),
        }
    }

    /// `p` reached the end of its route.
    pub fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) -> Arrived {
        match p.kind {
            PacketKind::Data => {
                let (unnecessary, frame) = self.receiver.on_data(now, p, out);
                self.keep(frame);
                Arrived::Data {
                    unnecessary: p.retx && unnecessary,
                }
            }
            PacketKind::Syn => {
                self.receiver.on_initial(now, p, out);
                Arrived::Initial
            }
            PacketKind::SynAck => Arrived::Feedback(self.sender.on_handshake_answer(now, p, out)),
            PacketKind::Ack => {
                let frame = self
                    .frames
                    .remove(&p.seq)
                    .expect("every ACK packet's frame is kept");
                // Frames of earlier ACK packets still waiting were lost on the way.
                self.frames.retain(|&pn, _| pn > p.seq);
                Arrived::Feedback(self.sender.on_ack(now, &frame, out))
            }
            PacketKind::Datagram => Arrived::Other,
        }
    }

    /// The receiver's ACK timer fires.
    pub fn on_receiver_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        let frame = self.receiver.on_timer(now, out);
        self.keep(frame);
    }

    fn keep(&mut self, frame: Option<(u64, AckFrame)>) {
        if let Some((pn, f)) = frame {
            self.frames.insert(pn, f);
        }
    }

    /// The frame of the ACK packet numbered `pn`, while it is in flight.
    pub fn frame(&self, pn: u64) -> Option<&AckFrame> {
        self.frames.get(&pn)
    }
}
