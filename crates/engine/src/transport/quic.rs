//! QUIC as a [`Transport`]: `spikelab_quic`'s model connection (`implementation =
//! "model"`) behind the engine's hooks. An adapter only: it translates the model's
//! reports into the family's outcome enums, hands over its loss declarations and probe
//! timeouts, and states the network's facts about them; the decisions are the model's.
//!
//! QUIC has no retransmission timeout in TCP's sense: its timer is the loss timer or
//! the probe timeout, neither an [`Expiry::Data`]. Every PTO, the handshake's
//! included, is a [`Declaration::Probe`] judged when it fires; `syn_timeouts` and the
//! TCP timeout columns stay zero.

use super::{
    Arrival, Declaration, Expiry, FromFlow, InNetwork, Judgements, SenderState, TimerDecision,
    Transport, TransportStats,
};
use crate::config::FlowKind;
use crate::facts::{classify, Facts, Truth};
use spikelab_core::{Dur, FlowId, Packet, PacketKind, RngStreams, Time};
use spikelab_quic::sender::{Decided, TimerOutcome};
use spikelab_quic::{Arrived, Implementation, QuicConnection, QuicConfig};
use spikelab_tcp::spurious::UndoCounters;

/// One QUIC connection of the model: the client sender at the flow's source, the
/// server receiver at its sink.
pub struct QuicModelTransport {
    conn: QuicConnection,
    decided: Vec<Decided>,
}

impl QuicModelTransport {
    pub fn new(flow: FlowId, quic: &QuicConfig) -> QuicModelTransport {
        QuicModelTransport {
            conn: QuicConnection::new(flow, quic),
            decided: Vec::new(),
        }
    }

    /// A probe timeout's facts: is an outstanding packet (the handshake's Initial while
    /// it runs) in the network, or held by the receiver with an ACK on its way?
    fn probe_facts(&self, in_network: InNetwork<'_>) -> Facts {
        let c = &self.conn;
        if !c.sender.established() {
            return Facts {
                receiver_holds: false,
                ack_alive: false,
                data_alive: in_network(&|p| matches!(p.kind, PacketKind::Syn | PacketKind::SynAck)),
            };
        }
        let s = &c.sender;
        let receiver_holds = s.outstanding_pns().any(|pn| c.receiver.received(pn));
        let acks = |p: &Packet| {
            p.kind == PacketKind::Ack
                && c.frame(p.seq)
                    .is_some_and(|f| s.outstanding_pns().any(|pn| f.ranges.contains(pn)))
        };
        Facts {
            receiver_holds,
            ack_alive: receiver_holds && (c.receiver.ack_pending() || in_network(&acks)),
            data_alive: in_network(&|p| p.kind == PacketKind::Data && s.outstanding(p.ack)),
        }
    }

    /// A loss declaration's facts: spurious if the packet had arrived or is still in
    /// the network.
    fn loss_truth(&self, pn: u64, in_network: InNetwork<'_>) -> Truth {
        if self.conn.receiver.received(pn) {
            return Truth::SpuriousAckDelayed;
        }
        if in_network(&|p| p.kind == PacketKind::Data && p.ack == pn) {
            return Truth::SpuriousDataDelayed;
        }
        Truth::GenuineDataLost
    }
}

impl FromFlow for QuicModelTransport {
    fn from_flow(flow: FlowId, kind: &FlowKind, _: &RngStreams) -> Option<QuicModelTransport> {
        match kind {
            FlowKind::Quic { quic, .. } if quic.implementation == Implementation::Model => {
                Some(QuicModelTransport::new(flow, quic))
            }
            _ => None,
        }
    }

    fn takes(kind: &FlowKind) -> bool {
        matches!(kind, FlowKind::Quic { quic, .. } if quic.implementation == Implementation::Model)
    }
}

impl Transport for QuicModelTransport {
    const DECLARES: bool = true;
    /// RFC 9002 A.8's PTO is `time_of_last_ack_eliciting_packet + PTO`: after an ACK
    /// resets the back-off with nothing sent since a stall, it can lie in the past.
    const DEADLINES_MAY_PASS: bool = true;

    fn on_start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.conn.sender.on_start(now, out);
    }

    fn on_app_write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.conn.sender.on_app_write(now, bytes, out);
    }

    fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) -> Arrival {
        match self.conn.on_packet(now, p, out) {
            Arrived::Data { unnecessary } => Arrival::Data { unnecessary },
            Arrived::Initial => Arrival::Setup,
            Arrived::Feedback(a) => Arrival::Feedback {
                duplicate: a.duplicate,
                rtt_sample: a.rtt_sample,
            },
            Arrived::Other => Arrival::Unclaimed,
        }
    }

    fn sender_deadline(&self) -> Option<Time> {
        self.conn.sender.deadline()
    }

    fn receiver_deadline(&self) -> Option<Time> {
        self.conn.receiver.deadline()
    }

    fn expiry(&self, now: Time) -> Option<Expiry> {
        let due = self.conn.sender.deadline().is_some_and(|d| d <= now);
        due.then_some(Expiry::NoTimeout)
    }

    fn timeout_facts(&self, seq: u64, _in_network: InNetwork<'_>) -> Facts {
        unreachable!("a QUIC sender reports no data timeout (asked about {seq})")
    }

    fn on_sender_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerDecision {
        match self.conn.sender.on_timer(now, out) {
            TimerOutcome::NotDue => TimerDecision::NotDue,
            TimerOutcome::LossTime => TimerDecision::NoTimeout { what: "LossTime" },
            TimerOutcome::Probe => TimerDecision::NoTimeout { what: "PTO" },
            TimerOutcome::Paced => TimerDecision::NoTimeout { what: "Pacing" },
            TimerOutcome::IdleClosed => TimerDecision::NoTimeout { what: "IdleTimeout" },
        }
    }

    fn on_receiver_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.conn.on_receiver_timer(now, out);
    }

    fn all_acked(&self) -> bool {
        self.conn.sender.all_acked()
    }

    fn app_end(&self) -> u64 {
        self.conn.sender.app_end()
    }

    fn segment_size(&self) -> u64 {
        self.conn.sender.max_stream_bytes()
    }

    fn timeout_interval(&self) -> Dur {
        self.conn.sender.pto_period()
    }

    fn sender_state(&self) -> SenderState {
        let s = &self.conn.sender;
        SenderState {
            cwnd: s.window(),
            ssthresh: s.ssthresh(),
            rto: s.pto_period(),
            backoff: s.pto_count(),
            srtt: s.rtt().sampled().then(|| s.rtt().smoothed()),
            snd_una: s.first_unacked(),
            snd_nxt: s.sent_end(),
            snd_max: s.sent_end(),
            bbr: None,
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.conn.sender.check_invariants()
    }

    fn stats(&self) -> TransportStats {
        let s = self.conn.sender.stats();
        TransportStats {
            data_segments_sent: s.packets_sent,
            retransmissions: s.retransmissions,
            fast_retransmits: 0,
            spurious_responses: 0,
            persistent_congestion: s.persistent_congestion,
            undos: s.undos,
            // QUIC's undos are its own (`undos`), none of TCP's kernel counters.
            undo_counters: UndoCounters::default(),
        }
    }

    fn judgements(&self) -> Judgements<'_> {
        Judgements {
            fast_timeouts: &[],
            verdicts: &[],
        }
    }

    fn take_declarations(&mut self, into: &mut Vec<Declaration>) {
        self.conn.sender.take_declared(&mut self.decided);
        into.extend(self.decided.drain(..).map(|d| match d {
            Decided::Lost { pn } => Declaration::Loss { packet: pn },
            Decided::Probe { backoff } => Declaration::Probe { backoff },
        }));
    }

    fn declaration_truth(&self, d: Declaration, in_network: InNetwork<'_>) -> Truth {
        match d {
            Declaration::Loss { packet } => self.loss_truth(packet, in_network),
            Declaration::Probe { .. } => classify(self.probe_facts(in_network)),
        }
    }
}
