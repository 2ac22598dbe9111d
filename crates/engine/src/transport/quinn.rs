//! Real quinn as a [`Transport`]: `quinn-proto` 0.11.19 (crate `spikelab-quinn`) with
//! its datagrams on the flow's route and its clock the simulation's. An adapter only:
//! [`QuinnFlow`] turns quinn's datagrams into packets and its probe timeouts and loss
//! declarations into [`Declared`]s; this file maps those onto the family's outcome
//! enums and decides nothing itself (`docs/src/quinn.md`).
//!
//! What quinn does not expose is reported as absent, not invented: its RTT samples
//! (`Arrival::Feedback` carries none), its PTO value (`timeout_interval` is the
//! smoothed RTT, quinn's only RTT figure), ssthresh, and the acknowledged byte
//! (`snd_una` moves by whole messages, when quinn reports a stream acknowledged).

use super::{
    Arrival, Declaration, Expiry, FromFlow, InNetwork, Judgements, SenderState, TimerDecision,
    Transport, TransportStats,
};
use crate::config::FlowKind;
use crate::facts::{Facts, Truth};
use spikelab_core::{Dur, FlowId, Packet, PacketKind, RngStreams, Time};
use spikelab_quic::{Implementation, QuicCc, QuicConfig};
use spikelab_quinn::flow::{datagram_id, Declared, QuinnFlow, Reached, Whereabouts};
use spikelab_quinn::{Controller, QuinnConfig};

/// One QUIC connection run by real quinn: the client at the flow's source, the server
/// at its sink. Boxed: a connection's state is kilobytes, and every flow's transport
/// enum is as large as its largest variant.
pub struct QuinnTransport {
    flow: Box<QuinnFlow>,
    mss: u64,
    declared: Vec<Declared>,
}

/// [`Declaration::Loss`]'s `packet` for a loss quinn declared of a packet this flow
/// cannot place in a datagram.
const UNPLACED: u64 = u64::MAX;

/// quinn set up as the scenario's `[flow.quic]` says, where quinn can be.
fn quinn_config(q: &QuicConfig) -> QuinnConfig {
    QuinnConfig {
        initial_rtt: q.initial_rtt,
        mtu: q.max_datagram_size as u16,
        packet_threshold: q.packet_threshold as u32,
        persistent_congestion_threshold: q.persistent_congestion_threshold,
        initial_window: q.initial_window * u64::from(q.max_datagram_size),
        controller: match q.cc {
            QuicCc::NewReno => Controller::NewReno,
            QuicCc::Cubic => Controller::Cubic,
        },
        ..QuinnConfig::default()
    }
}

impl FromFlow for QuinnTransport {
    fn from_flow(flow: FlowId, kind: &FlowKind, streams: &RngStreams) -> Option<QuinnTransport> {
        match kind {
            FlowKind::Quic { quic, .. } if quic.implementation == Implementation::Quinn => {
                Some(QuinnTransport {
                    flow: Box::new(QuinnFlow::new(flow, &quinn_config(quic), streams)),
                    mss: spikelab_quic::wire::stream_bytes_per_packet(quic),
                    declared: Vec::new(),
                })
            }
            _ => None,
        }
    }

    fn takes(kind: &FlowKind) -> bool {
        matches!(kind, FlowKind::Quic { quic, .. } if quic.implementation == Implementation::Quinn)
    }
}

impl Transport for QuinnTransport {
    const DECLARES: bool = true;
    /// quinn's timers are computed as the model's are (its `poll_timeout` may return
    /// an instant already past).
    const DEADLINES_MAY_PASS: bool = true;

    fn on_start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.flow.start(now, out);
    }

    fn on_app_write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.flow.write(now, bytes, out);
    }

    fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) -> Arrival {
        match self.flow.on_packet(now, p, out) {
            Reached::Setup => Arrival::Setup,
            Reached::Data { unnecessary } => Arrival::Data { unnecessary },
            Reached::Feedback => Arrival::Feedback {
                duplicate: false,
                rtt_sample: None,
            },
            Reached::Unclaimed => Arrival::Unclaimed,
        }
    }

    fn sender_deadline(&self) -> Option<Time> {
        self.flow.sender_deadline()
    }

    fn receiver_deadline(&self) -> Option<Time> {
        self.flow.receiver_deadline()
    }

    /// quinn's one timer (loss detection, PTO, idle, pacing, ACK delay, ...) is no
    /// retransmission timeout: a PTO declares nothing lost (RFC 9002 6.2) and is
    /// reported as a [`Declaration::Probe`] once quinn says it fired.
    fn expiry(&self, now: Time) -> Option<Expiry> {
        let due = self.flow.sender_deadline().is_some_and(|d| d <= now);
        due.then_some(Expiry::NoTimeout)
    }

    fn timeout_facts(&self, seq: u64, _in_network: InNetwork<'_>) -> Facts {
        unreachable!("quinn reports no data timeout, yet one at {seq} was judged")
    }

    fn on_sender_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerDecision {
        let what = if self.flow.on_sender_timer(now, out) {
            "PTO"
        } else {
            "quinn timer"
        };
        TimerDecision::NoTimeout { what }
    }

    fn on_receiver_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.flow.on_receiver_timer(now, out);
    }

    fn all_acked(&self) -> bool {
        self.flow.pair().all_acked()
    }

    fn app_end(&self) -> u64 {
        self.flow.pair().written()
    }

    fn segment_size(&self) -> u64 {
        self.mss
    }

    fn timeout_interval(&self) -> Dur {
        self.flow.srtt().unwrap_or(Dur::ZERO)
    }

    fn sender_state(&self) -> SenderState {
        let sent = self.flow.pair().sent_end();
        SenderState {
            cwnd: self.flow.cwnd(),
            ssthresh: u64::MAX,
            rto: Dur::ZERO,
            backoff: self.flow.backoff(),
            srtt: self.flow.srtt(),
            snd_una: self.flow.pair().acked_bytes(),
            snd_nxt: sent,
            snd_max: sent,
            bbr: None,
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        Ok(())
    }

    fn stats(&self) -> TransportStats {
        let c = self.flow.counters();
        TransportStats {
            data_segments_sent: c.data_datagrams,
            retransmissions: c.retransmissions,
            persistent_congestion: c.collapses,
            ..TransportStats::default()
        }
    }

    fn judgements(&self) -> Judgements<'_> {
        Judgements {
            fast_timeouts: &[],
            verdicts: &[],
        }
    }

    /// A loss names the datagram that carried the packet (its id, as the packet's
    /// `seq` or `ack` holds it: [`datagram_id`]).
    fn take_declarations(&mut self, into: &mut Vec<Declaration>) {
        self.flow.take_declarations(&mut self.declared);
        into.extend(self.declared.drain(..).map(|d| match d {
            Declared::Probe { backoff } => Declaration::Probe { backoff },
            Declared::Loss { datagram } => Declaration::Loss {
                packet: datagram.unwrap_or(UNPLACED),
            },
        }));
    }

    /// A datagram declared lost still travelling: only delayed; delivered: spurious
    /// if an ACK was on its way (a server datagram in the network, or the server's
    /// timer armed), else its ACKs were lost; neither: genuinely lost. A probe timeout
    /// is spurious when any datagram of the flow was still travelling.
    fn declaration_truth(&self, d: Declaration, in_network: InNetwork<'_>) -> Truth {
        let Declaration::Loss { packet } = d else {
            return match in_network(&|_| true) {
                true => Truth::SpuriousDataDelayed,
                false => Truth::GenuineDataLost,
            };
        };
        let held = |id: u64| in_network(&|p: &Packet| datagram_id(p) == id);
        let ack_alive = || {
            let from_server = |p: &Packet| matches!(p.kind, PacketKind::Ack | PacketKind::SynAck);
            in_network(&from_server) || self.flow.receiver_deadline().is_some()
        };
        match (packet != UNPLACED).then(|| self.flow.whereabouts(packet, held)) {
            Some(Whereabouts::InNetwork) => Truth::SpuriousDataDelayed,
            Some(Whereabouts::Delivered) if ack_alive() => Truth::SpuriousAckDelayed,
            Some(Whereabouts::Delivered) => Truth::GenuineAckLost,
            Some(Whereabouts::Gone) | None => Truth::GenuineDataLost,
        }
    }
}
