//! The QUIC sender: RFC 9002's loss detection and congestion control around one stream
//! (pseudocode A.5-A.10, B.5-B.8), the mechanisms in their own modules ([`crate::rtt`],
//! [`crate::loss`], [`crate::pto`], [`crate::persistent`], [`crate::cc`],
//! [`crate::undo`]). The handshake is abstracted to its round trip: the client
//! Initial goes out (and again on each PTO, 6.2.4) until the server's answer arrives,
//! which gives the first RTT sample (ack_delay 0, as in the Initial space) and
//! confirms the handshake (the model sends 1-RTT data at once; the client's Handshake
//! packet, which would ride with it, is not modelled). Options beyond RFC 9002:
//! quinn's send gate and pacer (`pacing`, [`crate::pacing`]), quinn's packing of
//! datagrams (`framing`, [`crate::wire`]), the idle timeout (`idle_timeout`, RFC 9000
//! 10.1, the client's side). Not modelled: the application-limited check (7.8), ECN,
//! MTU discovery.

use crate::ack::AckFrame;
use crate::cc::{minimum_window, Controllers, QuicController};
use crate::config::{AckOrder, Pacing, QuicConfig};
use crate::loss;
use crate::pacing::Pacer;
use crate::persistent;
use crate::pto;
use crate::rtt::RttEstimator;
use crate::sent::{SentPacket, SentPackets};
use crate::stream::{Chunk, StreamSend};
use crate::undo::{LostMemory, Pass};
use crate::wire::{
    coalesced_bytes, data_packet_bytes, ip_bytes, stream_bytes_per_packet, stream_packet_overhead,
    CLIENT_INITIAL,
};
use spikelab_core::packet::{IP_HEADER, UDP_HEADER};
use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time};

/// A decision for ground truth to judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// Packet `pn` declared lost (6.1).
    Lost { pn: u64 },
    /// A probe timeout (6.2), after `backoff` others without an acknowledgement.
    Probe { backoff: u32 },
}

/// What the sender's timer did (A.9 `OnLossDetectionTimeout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOutcome {
    NotDue,
    /// The time threshold ran out for packets below the largest acknowledged.
    LossTime,
    /// A probe timeout: probes sent, nothing declared lost.
    Probe,
    /// The pacer let the next packets go.
    Paced,
    /// The idle timeout closed the connection (RFC 9000 10.1).
    IdleClosed,
}

/// What an acknowledgement did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOutcome {
    /// It acknowledged nothing new.
    pub duplicate: bool,
    pub rtt_sample: Option<Dur>,
}

/// The sender's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// 1-RTT packets sent (data, probes, PINGs).
    pub packets_sent: u64,
    /// Packets carrying stream bytes sent before.
    pub retransmissions: u64,
    pub ptos: u64,
    pub loss_declarations: u64,
    pub persistent_congestion: u64,
    /// Spurious congestion events the undo rule detected.
    pub spurious_events: u64,
    /// Of those, the ones that restored the window.
    pub undos: u64,
}

#[derive(Clone, Debug)]
enum Phase {
    /// Client Initials sent, by their packet number in the Initial space.
    Handshake {
        initials: Vec<Time>,
    },
    Established,
    /// Closed by the idle timeout: nothing more is sent or taken.
    Closed,
}

/// One connection's sender.
#[derive(Clone, Debug)]
pub struct QuicSender {
    flow: FlowId,
    cfg: QuicConfig,
    phase: Phase,
    /// The next 1-RTT packet number (never reused, RFC 9000 12.3).
    next_pn: u64,
    sent: SentPackets,
    last_eliciting: Option<Time>,
    largest_acked: Option<u64>,
    /// When the largest acknowledged packet was sent.
    largest_acked_sent: Option<Time>,
    rtt: RttEstimator,
    first_sample: Option<Time>,
    pto_count: u32,
    loss_time: Option<Time>,
    cc: Controllers,
    stream: StreamSend,
    memory: LostMemory,
    declared: Vec<Decided>,
    stats: SenderStats,
    /// `pacing = "quinn"`: the token bucket, and when it lets the next packet go.
    pacer: Option<Pacer>,
    pace_at: Option<Time>,
    /// The idle timer (RFC 9000 10.1): when the connection closes unless a packet
    /// arrives first; whether an ack-eliciting packet sent may restart it (once after
    /// each packet received, as quinn's `permit_idle_reset`).
    idle_at: Option<Time>,
    permit_idle_reset: bool,
}

impl QuicSender {
    pub fn new(flow: FlowId, cfg: &QuicConfig) -> QuicSender {
        QuicSender {
            flow,
            cfg: cfg.clone(),
            phase: Phase::Handshake {
                initials: Vec::new(),
            },
            next_pn: 0,
            sent: SentPackets::new(),
            last_eliciting: None,
            largest_acked: None,
            largest_acked_sent: None,
            rtt: RttEstimator::new(cfg.initial_rtt),
            first_sample: None,
            pto_count: 0,
            loss_time: None,
            cc: Controllers::new(cfg),
            stream: StreamSend::default(),
            memory: LostMemory::new(cfg.undo),
            declared: Vec::new(),
            stats: SenderStats::default(),
            pacer: None,
            pace_at: None,
            idle_at: None,
            permit_idle_reset: true,
        }
    }

    /// The connection opens: the client Initial goes out.
    pub fn on_start(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.cfg.pacing == Pacing::Quinn {
            let mds = u64::from(self.cfg.max_datagram_size);
            let (srtt, w) = (self.rtt.smoothed(), self.cc.window());
            self.pacer = Some(Pacer::new(srtt, w, mds, now));
        }
        self.send_initial(now, out);
    }

    /// The application writes `bytes` more.
    pub fn on_app_write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        self.stream.write(bytes);
        self.fill(now, out);
    }

    fn send_initial(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Phase::Handshake { initials } = &mut self.phase else {
            return;
        };
        let mut p = Packet::new(0, self.flow, PacketKind::Syn, now);
        p.seq = initials.len() as u64;
        p.seal_as(ip_bytes(CLIENT_INITIAL));
        initials.push(now);
        self.last_eliciting = Some(now);
        out.push(p);
        self.on_sent_eliciting(now, u64::from(CLIENT_INITIAL));
    }

    /// An ack-eliciting packet of `bytes` (UDP payload) went out in flight.
    fn on_sent_eliciting(&mut self, now: Time, bytes: u64) {
        if let Some(pacer) = &mut self.pacer {
            pacer.on_transmit(bytes);
        }
        if self.permit_idle_reset {
            self.restart_idle_timer(now);
        }
        self.permit_idle_reset = false;
    }

    /// A packet from the peer arrived.
    fn on_peer_packet(&mut self, now: Time) {
        self.restart_idle_timer(now);
        self.permit_idle_reset = true;
    }

    /// RFC 9000 10.1: the idle timeout, at least three times the current PTO (without
    /// back-off, as quinn's `reset_idle_timeout`).
    fn restart_idle_timer(&mut self, now: Time) {
        let Some(timeout) = self.cfg.idle_timeout else {
            return;
        };
        let mad = self.pto_max_ack_delay();
        let pto = pto::duration(&self.rtt, mad, 0, None);
        self.idle_at = Some(now + timeout.max(pto * 3));
    }

    fn pto_max_ack_delay(&self) -> Dur {
        if self.established() {
            self.cfg.max_ack_delay
        } else {
            Dur::ZERO
        }
    }

    /// The server's Initial and Handshake answer the client Initial `p.ack`.
    pub fn on_handshake_answer(
        &mut self,
        now: Time,
        p: &Packet,
        out: &mut Vec<Packet>,
    ) -> AckOutcome {
        let Phase::Handshake { initials } = &self.phase else {
            return AckOutcome {
                duplicate: true,
                rtt_sample: None,
            };
        };
        let sample = now.saturating_since(initials[p.ack as usize]);
        self.on_peer_packet(now);
        // The Initial space: ack_delay is not subtracted (5.3 "ignore ... for Initial").
        self.rtt.update(sample, Dur::ZERO);
        self.first_sample = Some(now);
        self.phase = Phase::Established;
        self.pto_count = 0;
        self.last_eliciting = None;
        self.fill(now, out);
        AckOutcome {
            duplicate: false,
            rtt_sample: Some(sample),
        }
    }

    pub fn established(&self) -> bool {
        matches!(self.phase, Phase::Established)
    }

    /// Sends what the window allows (7: bytes_in_flight never above the window, a
    /// full datagram at a time) and the pacer, if any, lets go.
    fn fill(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.established() {
            return;
        }
        self.pace_at = None;
        while self.window_open() && self.stream.has_data() {
            if let Some(at) = self.paced_until(now) {
                self.pace_at = Some(at);
                break;
            }
            let Some(c) = self.next_chunk() else {
                break;
            };
            self.send(now, c, out);
        }
    }

    /// Whether a full datagram fits the window: RFC 9002 7 lets bytes in flight reach
    /// it; quinn's `poll_transmit` stops once they would.
    fn window_open(&self) -> bool {
        let next = self.sent.bytes_in_flight() + u64::from(self.cfg.max_datagram_size);
        match self.cfg.pacing {
            Pacing::None => next <= self.cc.window(),
            Pacing::Quinn => next < self.cc.window(),
        }
    }

    /// When the pacer holds the next full datagram back to, if it does.
    fn paced_until(&mut self, now: Time) -> Option<Time> {
        let mds = u64::from(self.cfg.max_datagram_size);
        let (srtt, window) = (self.rtt.smoothed(), self.cc.window());
        self.pacer.as_mut()?.delay(srtt, mds, mds, window, now)
    }

    /// The next chunk of stream bytes, as many as the next packet holds.
    fn next_chunk(&mut self) -> Option<Chunk> {
        let (pn, la, first) = (self.next_pn, self.largest_acked, self.next_pn == 0);
        let (cfg, mds) = (&self.cfg, u64::from(self.cfg.max_datagram_size));
        let room = |off| mds - u64::from(stream_packet_overhead(cfg, off, pn, la, first));
        self.stream.next_chunk_at(room)
    }

    fn send(&mut self, now: Time, c: Chunk, out: &mut Vec<Packet>) {
        let pn = self.next_pn;
        let first = pn == 0;
        let overhead = stream_packet_overhead(&self.cfg, c.offset, pn, self.largest_acked, first);
        self.next_pn += 1;
        let mut p = Packet::new(0, self.flow, PacketKind::Data, now);
        p.seq = c.offset;
        p.len = c.len as u32;
        p.ack = pn;
        p.retx = c.retx;
        let ip = data_packet_bytes(c.len as u32, overhead);
        p.seal_as(ip);
        let record = SentPacket {
            time_sent: now,
            bytes: u64::from(ip - IP_HEADER - UDP_HEADER - coalesced_bytes(&self.cfg, first)),
            ack_eliciting: true,
            in_flight: true,
            offset: c.offset,
            len: c.len,
        };
        self.sent.on_sent(pn, record);
        self.last_eliciting = Some(now);
        self.stats.packets_sent += 1;
        self.stats.retransmissions += c.retx as u64;
        out.push(p);
        self.on_sent_eliciting(now, record.bytes);
    }

    /// An ACK frame arrived (A.7 `OnAckReceived`).
    pub fn on_ack(&mut self, now: Time, frame: &AckFrame, out: &mut Vec<Packet>) -> AckOutcome {
        if matches!(self.phase, Phase::Closed) {
            return AckOutcome {
                duplicate: true,
                rtt_sample: None,
            };
        }
        self.on_peer_packet(now);
        let largest = frame.largest();
        let new_largest = self.largest_acked.is_none_or(|l| largest > l);
        if new_largest {
            self.largest_acked = Some(largest);
        }
        // quinn runs its spurious-loss test on every ACK frame first.
        if self.memory.on_ack_frame(frame) {
            self.stats.spurious_events += 1;
            let (prior, srtt) = (self.cc.prior(), self.rtt.smoothed());
            if self.memory.restores(self.cfg.cc, prior, now, srtt) && self.cc.undo() {
                self.stats.undos += 1;
            }
        }
        let mut newly: Vec<(u64, SentPacket)> = Vec::new();
        for (lo, hi) in frame.ranges.iter() {
            newly.extend(self.sent.range(lo, hi).map(|(pn, p)| (pn, *p)));
        }
        if newly.is_empty() {
            return AckOutcome {
                duplicate: true,
                rtt_sample: None,
            };
        }
        let sample = self.rtt_sample(now, largest, frame.ack_delay, &newly);
        if let Some((_, p)) = newly.iter().find(|(pn, _)| *pn == largest) {
            self.largest_acked_sent = Some(p.time_sent);
        }
        for &(pn, p) in &newly {
            self.sent.remove(pn);
            self.stream.on_acked(p.offset, p.len);
        }
        match self.cfg.ack_order {
            AckOrder::LossFirst => {
                self.detect_and_handle_loss(now, new_largest);
                self.grow(now, &newly);
            }
            AckOrder::AckedFirst => {
                self.grow(now, &newly);
                self.detect_and_handle_loss(now, new_largest);
            }
        }
        // A.7: "Reset pto_count unless the client is unsure if the server has
        // validated the client's address" (the handshake is done).
        self.pto_count = 0;
        self.fill(now, out);
        AckOutcome {
            duplicate: false,
            rtt_sample: sample,
        }
    }

    /// B.5 `OnPacketsAcked` for the in-flight packets among `newly`.
    fn grow(&mut self, now: Time, newly: &[(u64, SentPacket)]) {
        for (_, p) in newly.iter().filter(|(_, p)| p.in_flight) {
            self.cc.on_acked(now, p.time_sent, p.bytes);
        }
    }

    /// 5.1: a sample when the largest acknowledged is newly acknowledged and an
    /// ack-eliciting packet is among the newly acknowledged.
    fn rtt_sample(
        &mut self,
        now: Time,
        largest: u64,
        ack_delay: Dur,
        newly: &[(u64, SentPacket)],
    ) -> Option<Dur> {
        let (_, p) = newly.iter().find(|(pn, _)| *pn == largest)?;
        if !newly.iter().any(|(_, p)| p.ack_eliciting) {
            return None;
        }
        let latest = now.saturating_since(p.time_sent);
        // 5.3: ack_delay limited to max_ack_delay once the handshake is confirmed.
        self.rtt
            .update(latest, ack_delay.min(self.cfg.max_ack_delay));
        self.first_sample.get_or_insert(now);
        Some(latest)
    }

    /// A.10 and B.8: declares lost what the thresholds say, responds once.
    fn detect_and_handle_loss(&mut self, now: Time, new_largest: bool) {
        let Some(la) = self.largest_acked else {
            return;
        };
        let scan = loss::detect(
            &self.sent,
            la,
            now,
            self.rtt.loss_delay(),
            self.cfg.packet_threshold,
        );
        self.loss_time = scan.loss_time;
        let mad = self.cfg.max_ack_delay;
        self.memory.on_detection(&Pass {
            now,
            new_largest,
            largest_acked: la,
            largest_acked_sent: self.largest_acked_sent,
            oldest_outstanding: self
                .sent
                .iter()
                .find(|(pn, _)| !scan.lost.contains(pn))
                .map(|(pn, _)| pn),
            rtt: &self.rtt,
            max_ack_delay: mad,
        });
        let mut lost = Vec::with_capacity(scan.lost.len());
        for pn in scan.lost {
            let p = self
                .sent
                .remove(pn)
                .expect("detected among the outstanding");
            self.stream.on_lost(p.offset, p.len);
            self.memory.on_lost(pn, p.time_sent, now);
            self.declared.push(Decided::Lost { pn });
            self.stats.loss_declarations += 1;
            lost.push((pn, p));
        }
        let Some(&(_, newest)) = lost.last() else {
            return;
        };
        if !lost.iter().any(|(_, p)| p.in_flight && p.ack_eliciting) {
            return;
        }
        self.cc.on_congestion_event(now, newest.time_sent);
        let period = persistent::duration(&self.rtt, mad, self.cfg.persistent_congestion_threshold);
        let times: Vec<(u64, Time)> = lost.iter().map(|(pn, p)| (*pn, p.time_sent)).collect();
        if persistent::established(&times, self.first_sample, period) {
            self.cc.on_persistent_congestion(now);
            self.stats.persistent_congestion += 1;
        }
    }

    /// The PTO period now (no max_ack_delay during the handshake, 6.2.1).
    pub fn pto_period(&self) -> Dur {
        let mad = self.pto_max_ack_delay();
        pto::duration(&self.rtt, mad, self.pto_count, self.cfg.pto_max)
    }

    /// When the sender's next timer fires: loss detection, the pacer or the idle
    /// timeout.
    pub fn deadline(&self) -> Option<Time> {
        if matches!(self.phase, Phase::Closed) {
            return None;
        }
        [self.recovery_deadline(), self.pace_at, self.idle_at]
            .into_iter()
            .flatten()
            .min()
    }

    /// When the loss-detection timer fires (A.8 `SetLossDetectionTimer`).
    fn recovery_deadline(&self) -> Option<Time> {
        if let Some(t) = self.loss_time {
            return Some(t);
        }
        if self.established() && self.sent.eliciting_in_flight() == 0 {
            return None;
        }
        Some(self.last_eliciting? + self.pto_period())
    }

    /// A timer fires: the idle timeout first, then loss detection (A.9
    /// `OnLossDetectionTimeout`), then the pacer.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerOutcome {
        let due = |t: Option<Time>| t.is_some_and(|t| t <= now);
        if matches!(self.phase, Phase::Closed) {
            return TimerOutcome::NotDue;
        }
        if due(self.idle_at) {
            self.phase = Phase::Closed;
            (self.pace_at, self.idle_at, self.loss_time) = (None, None, None);
            return TimerOutcome::IdleClosed;
        }
        if due(self.recovery_deadline()) {
            return self.on_loss_detection_timeout(now, out);
        }
        if due(self.pace_at) {
            self.fill(now, out);
            return TimerOutcome::Paced;
        }
        TimerOutcome::NotDue
    }

    fn on_loss_detection_timeout(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerOutcome {
        if self.loss_time.is_some() {
            self.detect_and_handle_loss(now, true);
            self.fill(now, out);
            return TimerOutcome::LossTime;
        }
        self.declared.push(Decided::Probe {
            backoff: self.pto_count,
        });
        self.stats.ptos += 1;
        if self.established() {
            self.timer_response(now);
            self.send_probes(now, out);
        } else {
            self.send_initial(now, out);
        }
        self.pto_count += 1;
        TimerOutcome::Probe
    }

    /// What the undo rule does on a probe timeout beyond RFC 9002's probes: picoquic
    /// remembers the outstanding packets as retransmitted and drops the window
    /// ([`crate::undo`]).
    fn timer_response(&mut self, now: Time) {
        let outstanding = self.sent.iter().map(|(pn, p)| (pn, p.time_sent));
        self.memory.on_probe_timeout(now, outstanding);
        let newest = self.sent.iter().last().map(|(_, p)| p.time_sent);
        if let Some(sent) = newest.filter(|_| self.memory.timer_is_congestion()) {
            self.cc.on_timer_loss(now, sent);
        }
    }

    /// 6.2.4: `probe_packets` ack-eliciting packets, outside the window: new or lost
    /// data if there is some, else the oldest outstanding data again, else a PING.
    fn send_probes(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mut again = self
            .sent
            .iter()
            .filter(|(_, p)| p.len > 0)
            .map(|(_, p)| Chunk {
                offset: p.offset,
                len: p.len,
                retx: true,
            })
            .collect::<Vec<_>>()
            .into_iter();
        for _ in 0..self.cfg.probe_packets {
            let c = self.next_chunk().or_else(|| again.next()).unwrap_or(Chunk {
                offset: self.stream.first_unacked(),
                len: 0,
                retx: false,
            });
            self.send(now, c, out);
        }
    }

    /// Moves the decisions since the last call into `into`.
    pub fn take_declared(&mut self, into: &mut Vec<Decided>) {
        into.append(&mut self.declared);
    }

    /// Packet `pn` is outstanding: sent, not acknowledged, not declared lost.
    pub fn outstanding(&self, pn: u64) -> bool {
        self.sent.get(pn).is_some()
    }

    /// The outstanding packet numbers, ascending.
    pub fn outstanding_pns(&self) -> impl Iterator<Item = u64> + '_ {
        self.sent.iter().map(|(pn, _)| pn)
    }

    /// Stream bytes a full packet carries.
    pub fn max_stream_bytes(&self) -> u64 {
        stream_bytes_per_packet(&self.cfg)
    }

    pub fn all_acked(&self) -> bool {
        self.established() && self.stream.all_acked()
    }
    pub fn app_end(&self) -> u64 {
        self.stream.app_end()
    }
    pub fn window(&self) -> u64 {
        self.cc.window()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    pub fn pto_count(&self) -> u32 {
        self.pto_count
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn first_unacked(&self) -> u64 {
        self.stream.first_unacked()
    }
    pub fn sent_end(&self) -> u64 {
        self.stream.sent_end()
    }
    pub fn bytes_in_flight(&self) -> u64 {
        self.sent.bytes_in_flight()
    }
    pub fn stats(&self) -> SenderStats {
        self.stats
    }

    /// The sender's invariants: flight counters agree with the records, nothing
    /// acknowledged or lost beyond what was sent, packet numbers below the next, the
    /// window at least kMinimumWindow.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.sent.check()?;
        self.stream.check()?;
        if let Some((pn, _)) = self
            .sent
            .iter()
            .last()
            .filter(|(pn, _)| *pn >= self.next_pn)
        {
            return Err(format!(
                "packet {pn} recorded, next number {}",
                self.next_pn
            ));
        }
        if self.largest_acked.is_some_and(|l| l >= self.next_pn) {
            return Err(format!(
                "largest acknowledged {:?} was never sent",
                self.largest_acked
            ));
        }
        let min = minimum_window(u64::from(self.cfg.max_datagram_size));
        if self.cc.window() < min {
            return Err(format!(
                "window {} below kMinimumWindow {min}",
                self.cc.window()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{QuicCc, UndoRule};
    use crate::ranges::RangeSet;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    fn frame(ranges: &[(u64, u64)]) -> AckFrame {
        let mut r = RangeSet::new();
        for &(lo, hi) in ranges {
            r.insert(lo, hi);
        }
        AckFrame {
            ranges: r,
            ack_delay: Dur::ZERO,
        }
    }

    /// A sender past the handshake (RTT 100 ms) with 10 packets of data out.
    fn sending(cc: QuicCc, undo: UndoRule) -> QuicSender {
        let cfg = QuicConfig {
            cc,
            undo,
            ..QuicConfig::default()
        };
        let (s, out) = established(&cfg);
        assert_eq!(out.len(), 10, "the initial window");
        s
    }

    /// A sender with `cfg` past the handshake at 100 ms, and what it sent then.
    fn established(cfg: &QuicConfig) -> (QuicSender, Vec<Packet>) {
        let mut s = QuicSender::new(FlowId(0), cfg);
        let mut out = Vec::new();
        s.on_start(t(0), &mut out);
        s.on_app_write(t(0), 100_000, &mut out);
        let mut answer = Packet::new(0, FlowId(0), PacketKind::SynAck, t(100));
        answer.ack = out[0].seq;
        out.clear();
        s.on_handshake_answer(t(100), &answer, &mut out);
        (s, out)
    }

    #[test]
    fn quinns_order_grows_the_window_for_the_acks_packets_before_halving_it() {
        let cfg = QuicConfig {
            ack_order: AckOrder::AckedFirst,
            ..QuicConfig::default()
        };
        let (mut s, _) = established(&cfg);
        let mut out = Vec::new();
        // 0 and 4..=6 acknowledged in slow start: 12000 + 4 x 1200, then halved.
        s.on_ack(t(200), &frame(&[(0, 0), (4, 6)]), &mut out);
        assert_eq!(s.window(), 8_400);
    }

    #[test]
    fn quinns_send_gate_stops_a_datagram_short_of_the_window_and_the_pacer_releases_later() {
        let cfg = QuicConfig {
            pacing: Pacing::Quinn,
            ..QuicConfig::default()
        };
        let (mut s, out) = established(&cfg);
        assert_eq!(
            out.len(),
            9,
            "in flight + a datagram must stay below the window"
        );
        let mut out = Vec::new();
        // Eight acknowledged at 110 ms: the window is 21600, the bucket nearly empty.
        s.on_ack(t(110), &frame(&[(0, 7)]), &mut out);
        let pace = s.deadline().expect("a timer");
        assert!(pace < t(110) + s.pto_period(), "the pacer's, not the PTO's");
        let before = out.len();
        assert_eq!(s.on_timer(pace, &mut out), TimerOutcome::Paced);
        assert!(out.len() > before);
    }

    #[test]
    fn the_idle_timeout_closes_a_connection_that_hears_nothing() {
        let cfg = QuicConfig {
            idle_timeout: Some(Dur::from_secs(30)),
            ..QuicConfig::default()
        };
        let (mut s, _) = established(&cfg);
        let mut out = Vec::new();
        let mut outcomes = Vec::new();
        while let Some(d) = s.deadline() {
            outcomes.push((d, s.on_timer(d, &mut out)));
        }
        let (closed_at, last) = *outcomes.last().unwrap();
        assert_eq!(last, TimerOutcome::IdleClosed);
        // 30 s after the server's answer, the last packet received.
        assert_eq!(closed_at, t(100) + Dur::from_secs(30));
        assert!(outcomes[..outcomes.len() - 1]
            .iter()
            .all(|&(_, o)| o == TimerOutcome::Probe));
        let late = s.on_ack(t(40_000), &frame(&[(0, 9)]), &mut out);
        assert!(late.duplicate && !s.all_acked(), "closed: nothing taken");
    }

    #[test]
    fn packet_numbers_grow_and_a_loss_goes_again_in_a_new_packet() {
        let mut s = sending(QuicCc::NewReno, UndoRule::None);
        let mut out = Vec::new();
        // 0 and 4..=6 acknowledged: 1, 2, 3 are 3 below the largest, lost (6.1.1).
        s.on_ack(t(200), &frame(&[(0, 0), (4, 6)]), &mut out);
        let mut declared = Vec::new();
        s.take_declared(&mut declared);
        let lost: Vec<_> = declared
            .iter()
            .map(|d| match d {
                Decided::Lost { pn } => *pn,
                _ => 99,
            })
            .collect();
        assert_eq!(lost, [1, 2, 3]);
        assert_eq!(s.window(), 6_000, "one halving for the three");
        let again: Vec<_> = out.iter().filter(|p| p.retx).collect();
        assert!(!again.is_empty());
        assert!(
            again.iter().all(|p| p.ack >= 10),
            "retransmissions carry new numbers"
        );
        assert_eq!(again[0].seq, 1159, "packet 1's stream bytes first");
        assert!(s.check_invariants().is_ok());
    }

    fn spurious_ack(s: &mut QuicSender, at_ms: u64) {
        let mut out = Vec::new();
        s.on_ack(t(200), &frame(&[(0, 0), (4, 6)]), &mut out);
        s.on_ack(t(at_ms), &frame(&[(0, 6)]), &mut out);
    }

    #[test]
    fn quinn_undoes_cubics_reduction_when_every_lost_packet_is_acknowledged() {
        let mut s = sending(QuicCc::Cubic, UndoRule::Quinn);
        spurious_ack(&mut s, 210);
        assert_eq!((s.stats().spurious_events, s.stats().undos), (1, 1));
        assert!(
            s.window() >= 12_000,
            "the window before the reduction: {}",
            s.window()
        );
    }

    #[test]
    fn quinns_newreno_detects_the_spurious_event_but_keeps_its_reduction() {
        let mut s = sending(QuicCc::NewReno, UndoRule::Quinn);
        spurious_ack(&mut s, 210);
        assert_eq!((s.stats().spurious_events, s.stats().undos), (1, 0));
    }

    #[test]
    fn rfc_9002_undoes_nothing_and_msquic_undoes_newreno_too() {
        let mut none = sending(QuicCc::NewReno, UndoRule::None);
        spurious_ack(&mut none, 210);
        assert_eq!(none.stats().spurious_events, 0);
        let mut ms = sending(QuicCc::NewReno, UndoRule::Msquic);
        spurious_ack(&mut ms, 210);
        assert_eq!(ms.stats().undos, 1);
    }

    #[test]
    fn a_late_ack_after_quinns_two_ptos_finds_nothing_to_undo() {
        // After two 100 ms samples pto_base is 100 + 4 x 37.5 = 250 ms; packets 1-3,
        // sent at 100 ms, are forgotten by a detection pass after 600 ms: here one
        // at 701 ms run by an ACK of 7 and 8 that gives no RTT sample (its largest, 9,
        // was acknowledged before).
        let mut s = sending(QuicCc::Cubic, UndoRule::Quinn);
        let mut out = Vec::new();
        s.on_ack(t(200), &frame(&[(0, 0), (4, 6), (9, 9)]), &mut out);
        s.on_ack(t(701), &frame(&[(0, 0), (4, 9)]), &mut out);
        s.on_ack(t(710), &frame(&[(0, 9)]), &mut out);
        assert_eq!(s.stats().spurious_events, 0);
        let mut kept = sending(QuicCc::Cubic, UndoRule::Quinn);
        kept.on_ack(t(200), &frame(&[(0, 0), (4, 6), (9, 9)]), &mut out);
        kept.on_ack(t(600), &frame(&[(0, 0), (4, 9)]), &mut out);
        kept.on_ack(t(610), &frame(&[(0, 9)]), &mut out);
        assert_eq!(
            kept.stats().spurious_events,
            1,
            "still remembered at 600 ms"
        );
    }

    #[test]
    fn a_pto_sends_two_probes_outside_the_window_and_declares_nothing_lost() {
        let mut s = sending(QuicCc::NewReno, UndoRule::None);
        let due = s.deadline().unwrap();
        // The last packet went at 100 ms; PTO = 100 + 4 * 50 + 25 = 325 ms.
        assert_eq!(due, t(425));
        let mut out = Vec::new();
        assert_eq!(s.on_timer(due, &mut out), TimerOutcome::Probe);
        assert_eq!(out.len(), 2);
        let mut declared = Vec::new();
        s.take_declared(&mut declared);
        assert_eq!(declared, [Decided::Probe { backoff: 0 }]);
        assert_eq!(s.window(), 12_000, "no reduction on a PTO (7.3)");
        assert_eq!(
            s.deadline(),
            Some(due + Dur::from_millis(650)),
            "doubled, from the probes"
        );
    }

    #[test]
    fn the_time_threshold_declares_a_packet_lost_when_the_loss_timer_fires() {
        let mut s = sending(QuicCc::NewReno, UndoRule::None);
        let mut out = Vec::new();
        // 1 and 2 acknowledged, 0 not: only 2 above it, so the loss timer is armed at
        // 100 ms + 9/8 x max(srtt, latest).
        s.on_ack(t(200), &frame(&[(1, 2)]), &mut out);
        let due = s.deadline().unwrap();
        assert_eq!(due, t(100) + Dur::from_micros(112_500));
        assert_eq!(s.on_timer(due, &mut out), TimerOutcome::LossTime);
        let mut declared = Vec::new();
        s.take_declared(&mut declared);
        assert_eq!(declared, [Decided::Lost { pn: 0 }]);
    }
}
