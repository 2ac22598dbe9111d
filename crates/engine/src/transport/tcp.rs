//! TCP as a [`Transport`]: the sans-I/O [`TcpSender`] and [`TcpReceiver`] of
//! `spikelab_tcp` behind the engine's hooks. An adapter only: it translates TCP's own
//! reports ([`AckInfo`](spikelab_tcp::AckInfo), [`TimerOutcome`], the receiver's
//! `DataOutcome`) into the family's outcome enums and decides nothing itself.

use super::{
    Arrival, Declaration, Expiry, FromFlow, InNetwork, Judgements, SenderState, TimedOut,
    TimerDecision, Transport, TransportStats,
};
use crate::config::FlowKind;
use crate::facts::{Facts, Truth};
use spikelab_core::{Dur, FlowId, Packet, PacketKind, RngStreams, Time};
use spikelab_tcp::rto::{Rto, RtoEstimator};
use spikelab_tcp::{Phase, TcpConfig, TcpReceiver, TcpSender, TimerOutcome};
use std::sync::Arc;

/// One TCP connection: the sender at the flow's source, the receiver at its sink.
pub struct TcpTransport {
    sender: TcpSender<Rto>,
    receiver: TcpReceiver,
}

impl TcpTransport {
    pub fn new(flow: FlowId, tcp: &Arc<TcpConfig>) -> TcpTransport {
        TcpTransport {
            sender: TcpSender::sharing(flow, tcp.clone(), Rto::new(&tcp.rto)),
            receiver: TcpReceiver::sharing(flow, tcp.clone()),
        }
    }

    /// Data is outstanding (or the SYN is).
    fn outstanding(&self) -> bool {
        let w = self.sender.window();
        w.snd_una < w.snd_max || !self.sender.established()
    }
}

impl FromFlow for TcpTransport {
    fn from_flow(flow: FlowId, kind: &FlowKind, streams: &RngStreams) -> Option<TcpTransport> {
        match kind {
            FlowKind::Tcp { tcp, .. } => {
                let mut t = TcpTransport::new(flow, tcp);
                // The controller's random draws (BBR's gain-cycle phase).
                (t.sender).set_cc_rng(streams.stream("tcp-cc", flow.0 as u64));
                Some(t)
            }
            _ => None,
        }
    }

    fn takes(kind: &FlowKind) -> bool {
        matches!(kind, FlowKind::Tcp { .. })
    }
}

impl Transport for TcpTransport {
    /// TCP's recovery reports its retransmission timeouts ([`Expiry`]) and counts its
    /// fast retransmits, but declares no packet lost one by one.
    const DECLARES: bool = false;
    /// The RTO, delayed-ACK and probe timers are armed from the event's own time.
    const DEADLINES_MAY_PASS: bool = false;

    #[inline]
    fn on_start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.sender.on_start(now, out);
    }

    #[inline]
    fn on_app_write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.sender.on_app_data(now, bytes, out);
    }

    #[inline(always)]
    fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) -> Arrival {
        match p.kind {
            // The handshake's third segment (a pure ACK of the SYN-ACK): nothing to
            // answer (RFC 9293 3.10.7.4); a Linux receiver times its SYN-ACK by it.
            PacketKind::Data if p.len == 0 => {
                self.receiver.on_handshake_ack(now, p);
                Arrival::Setup
            }
            PacketKind::Data => {
                let o = self.receiver.on_data(now, p, out);
                Arrival::Data {
                    unnecessary: p.retx && o.duplicate,
                }
            }
            PacketKind::Syn => {
                self.receiver.on_syn(now, p, out);
                Arrival::Setup
            }
            PacketKind::Ack | PacketKind::SynAck => {
                let info = self.sender.on_ack(now, p, out);
                Arrival::Feedback {
                    duplicate: info.duplicate,
                    rtt_sample: info.rtt_sample,
                }
            }
            PacketKind::Datagram => Arrival::Unclaimed,
        }
    }

    #[inline]
    fn sender_deadline(&self) -> Option<Time> {
        // The pacing timer (a pacing controller, BBR) shares the sender's slot.
        match self.sender.pacing_deadline() {
            None => self.sender.next_deadline(),
            Some(p) => Some(self.sender.next_deadline().map_or(p, |d| d.min(p))),
        }
    }

    #[inline]
    fn receiver_deadline(&self) -> Option<Time> {
        self.receiver.next_deadline()
    }

    #[inline]
    fn expiry(&self, now: Time) -> Option<Expiry> {
        let s = &self.sender;
        let runs = self.outstanding() || s.timer_runs_idle();
        if !runs || s.next_deadline().is_none_or(|d| d > now) {
            // Only the pacing timer is due: no timeout.
            let paced = s.pacing_deadline().is_some_and(|p| p <= now);
            return paced.then_some(Expiry::NoTimeout);
        }
        // A Tail Loss Probe's or RACK's reordering timer (the `linux` profile) is no
        // retransmission timeout; nor is a timer running with nothing outstanding
        // (ns-2 FACK), which retransmits nothing.
        let w = s.window();
        let idle = s.timer_runs_idle() && w.snd_una >= w.snd_max;
        if s.probe_armed() || idle {
            return Some(Expiry::NoTimeout);
        }
        if !s.established() {
            return Some(Expiry::Setup);
        }
        Some(Expiry::Data(TimedOut {
            seq: w.snd_una,
            rto: s.armed_rto(),
            last_rtt: s.last_rtt(),
            backoff: s.consecutive_timeouts(),
            in_recovery: matches!(s.phase(), Phase::Recovery { .. }),
        }))
    }

    fn timeout_facts(&self, una: u64, in_network: InNetwork<'_>) -> Facts {
        let receiver_holds = self.receiver.holds(una);
        Facts {
            receiver_holds,
            ack_alive: receiver_holds
                && (self.receiver.ack_pending()
                    || in_network(&|p| p.kind == PacketKind::Ack && p.ack > una)),
            data_alive: in_network(&|p| {
                p.kind == PacketKind::Data && p.seq <= una && una < p.end_seq()
            }),
        }
    }

    #[inline]
    fn on_sender_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerDecision {
        match self.sender.on_timer(now, out) {
            TimerOutcome::NotDue => TimerDecision::NotDue,
            TimerOutcome::SynTimeout => TimerDecision::SetupTimeout,
            TimerOutcome::Timeout { number } => TimerDecision::Timeout { number },
            TimerOutcome::LossProbe => TimerDecision::NoTimeout { what: "LossProbe" },
            TimerOutcome::ReorderTimeout => TimerDecision::NoTimeout {
                what: "ReorderTimeout",
            },
            TimerOutcome::IdleTimer => TimerDecision::NoTimeout { what: "IdleTimer" },
            TimerOutcome::Pacing => TimerDecision::NoTimeout { what: "Pacing" },
        }
    }

    #[inline]
    fn on_receiver_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.receiver.on_timer(now, out);
    }

    #[inline]
    fn all_acked(&self) -> bool {
        self.sender.all_acked()
    }

    #[inline]
    fn app_end(&self) -> u64 {
        self.sender.app_end()
    }

    #[inline]
    fn segment_size(&self) -> u64 {
        self.sender.window().mss
    }

    #[inline]
    fn timeout_interval(&self) -> Dur {
        self.sender.current_rto()
    }

    #[inline]
    fn sender_state(&self) -> SenderState {
        let s = &self.sender;
        let w = s.window();
        let est = s.estimator();
        SenderState {
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            rto: s.armed_rto(),
            backoff: est.backoff_count(),
            srtt: est.srtt(),
            snd_una: w.snd_una,
            snd_nxt: w.snd_nxt,
            snd_max: w.snd_max,
            bbr: (s.cc_estimates()).map(|e| (e.bw, e.min_rtt, e.pacing_rate)),
        }
    }

    #[inline]
    fn check_invariants(&self) -> Result<(), String> {
        self.sender.check_invariants()
    }

    fn stats(&self) -> TransportStats {
        let s = self.sender.stats();
        TransportStats {
            data_segments_sent: s.data_segments_sent,
            retransmissions: s.retransmissions,
            fast_retransmits: s.fast_retransmits,
            spurious_responses: s.spurious_responses,
            persistent_congestion: 0,
            undos: 0,
            undo_counters: s.undos,
        }
    }

    fn judgements(&self) -> Judgements<'_> {
        Judgements {
            fast_timeouts: self.sender.fast_timeouts(),
            verdicts: self.sender.verdicts(),
        }
    }

    /// Nothing to hand over ([`Transport::DECLARES`]).
    #[inline(always)]
    fn take_declarations(&mut self, _into: &mut Vec<Declaration>) {}

    fn declaration_truth(&self, d: Declaration, _in_network: InNetwork<'_>) -> Truth {
        unreachable!("TCP makes no declarations, yet {d:?} was judged")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(handshake: bool) -> TcpTransport {
        let cfg = TcpConfig {
            handshake,
            ..TcpConfig::default()
        };
        TcpTransport::new(FlowId(0), &Arc::new(cfg))
    }

    #[test]
    fn a_syn_outstanding_past_its_deadline_expires_as_setup() {
        let mut t = bulk(true);
        let mut out = Vec::new();
        t.on_start(Time::ZERO, &mut out);
        let due = t.sender_deadline().expect("the SYN arms the timer");
        assert_eq!(t.expiry(due), Some(Expiry::Setup));
        assert_eq!(
            t.on_sender_timer(due, &mut out),
            TimerDecision::SetupTimeout
        );
    }

    #[test]
    fn unacknowledged_data_expires_as_a_data_timeout_numbered_from_zero() {
        let mut t = bulk(false);
        let mut out = Vec::new();
        t.on_start(Time::ZERO, &mut out);
        t.on_app_write(Time::ZERO, 10_000, &mut out);
        let due = t.sender_deadline().expect("data arms the timer");
        assert_eq!(t.expiry(Time(due.0 - 1)), None);
        let Some(Expiry::Data(d)) = t.expiry(due) else {
            panic!("no data expiry at {due}");
        };
        assert_eq!((d.seq, d.backoff), (0, 0));
        let decision = t.on_sender_timer(due, &mut out);
        assert_eq!(decision, TimerDecision::Timeout { number: 0 });
    }

    #[test]
    fn a_segment_reaching_the_receiver_is_data_and_its_ack_feedback() {
        let mut t = bulk(false);
        let mut out = Vec::new();
        t.on_start(Time::ZERO, &mut out);
        t.on_app_write(Time::ZERO, 1_000, &mut out);
        let seg = out.pop().expect("one segment");
        let mut acks = Vec::new();
        let at = Time::ZERO + Dur::from_millis(10);
        let arrival = t.on_packet(at, &seg, &mut acks);
        assert_eq!(arrival, Arrival::Data { unnecessary: false });
        let mut none = Vec::new();
        let mut fed = None;
        for a in acks.iter().chain(t_flush(&mut t, at).iter()) {
            fed = Some(t.on_packet(at + Dur::from_millis(10), a, &mut none));
        }
        assert!(matches!(
            fed,
            Some(Arrival::Feedback {
                duplicate: false,
                ..
            })
        ));
        assert!(t.all_acked());
    }

    /// The delayed ACK, if the receiver held one back.
    fn t_flush(t: &mut TcpTransport, at: Time) -> Vec<Packet> {
        let mut out = Vec::new();
        if let Some(d) = t.receiver_deadline() {
            t.on_receiver_timer(d.max(at), &mut out);
        }
        out
    }
}
