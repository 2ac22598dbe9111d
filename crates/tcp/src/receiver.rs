//! The TCP receiver: cumulative ACKs, delayed ACKs, SACK (RFC 2018), D-SACK (RFC 2883)
//! and the timestamp echo rules (RFC 7323 section 4.3, or ns-2's pre-2003 rule).
//!
//! The application reads instantly, so the advertised window is constant, except
//! under the `linux` profile, whose window grows ([`crate::linux_rcvbuf`]).

use crate::config::{EchoRule, TcpConfig};
use crate::linux_paws;
use crate::linux_rcvbuf::{Growth, LinuxRcvBuf, RcvBufConfig};
use crate::linux_receiver::LinuxAck;
use crate::linux_sack_array::SackArray;
use crate::linux_sack_compress::{Decision, SackCompress, SACK_BLOCKS_EXPECTED};
use crate::linux_synack_rtt::{HandshakeAck, OwnRtt, TsEcho};
use crate::rto::Rto;
use crate::ts_clock::TsClock;
use crate::wire_size::WireSizes;
use spikelab_core::packet::MAX_SACK_BLOCKS;
use spikelab_core::{Dur, FlowId, Packet, PacketKind, SackBlocks, Time, Timestamps};
use std::sync::Arc;

/// An out-of-order block held above `rcv_nxt`, with when it last grew (for the SACK
/// rule that the first block reports the most recently received segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OooBlock {
    start: u64,
    end: u64,
    touched: u64,
}

/// A placeholder for the unused places of [`most_recent_blocks`]'s list.
const EMPTY_BLOCK: OooBlock = OooBlock {
    start: 0,
    end: 0,
    touched: 0,
};

/// What one arriving data segment was, for the engine's ground truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataOutcome {
    /// Bytes the receiver did not hold before (in order or out of order).
    pub new_bytes: u64,
    /// Every byte of the segment was already held: the transmission was unnecessary.
    pub duplicate: bool,
}

/// Counters kept by the receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub segments: u64,
    pub duplicate_segments: u64,
    pub acks_sent: u64,
    /// Data segments a `linux` receiver's PAWS test discarded (`TcpExtPAWSEstab`).
    pub paws_rejected: u64,
}

/// One flow's receiving endpoint.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    flow: FlowId,
    cfg: Arc<TcpConfig>,
    rcv_nxt: u64,
    ooo: Vec<OooBlock>,
    arrivals: u64,
    pending_dsack: Option<(u64, u64)>,
    unacked_full_segments: u32,
    delack_deadline: Option<Time>,
    ts_recent: u64,
    /// What ns-2's header echoes (`Packet::ns2_ts_echo`): a data packet's send time,
    /// kept by the same echo rule as `ts_recent`, with or without the option.
    ns2_ts_recent: u64,
    last_ack_sent: u64,
    /// A SYN-ACK held by the delayed-ACK timer (ns-2's `delayed_syn_ack`).
    syn_ack_pending: bool,
    stats: ReceiverStats,
    /// The `linux` profile's ACK clock ([`crate::linux_receiver`]).
    linux_ack: Option<LinuxAck>,
    /// The `linux` profile's advertised window ([`crate::linux_rcvbuf`]); boxed, as
    /// other profiles have none (136 bytes kept for nothing).
    linux_rcvbuf: Option<Box<LinuxRcvBuf>>,
    /// The `linux` profile's SACK compression, SACK flows only
    /// ([`crate::linux_sack_compress`]).
    linux_sack_compress: Option<SackCompress>,
    /// The `linux` profile's SACK array, SACK flows only ([`crate::linux_sack_array`]):
    /// the blocks its ACKs report.
    linux_sack_array: Option<Box<SackArray>>,
    /// The receiver's own RTT estimate, from its handshake ([`crate::linux_synack_rtt`]).
    own_rtt: OwnRtt,
    /// The segment the next ACK answers (`ack(opkt)`'s `opkt` in ns-2's sink), and the
    /// one that armed the delayed-ACK timer (ns-2 `DelAckSink`'s `save_`).
    answering: Option<Answered>,
    delayed: Option<Answered>,
    /// ns-2's SACK history (`Ns2Switches::sink_sack_history_stack`).
    sack_history: crate::ns2_sack_sink::SackHistory,
    /// The sizes of the flow's ACKs ([`crate::wire_size`]).
    sizes: WireSizes,
    /// The SACK blocks an ACK carries at most ([`crate::stacks::sack_blocks_per_ack`]).
    sack_blocks_per_ack: u8,
    /// The timestamp clock ([`TcpConfig::timestamp_tick`], [`crate::ts_clock`]).
    ts_clock: TsClock,
}

/// A data segment an ACK answers: its byte range and whether it was all held before
/// (ns-2 `Acker::is_dup_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Answered {
    start: u64,
    end: u64,
    duplicate: bool,
}

/// What the `linux` receiver's window growth and `tcp_measure_rcv_mss` read of an
/// arriving data segment.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    /// Payload bytes.
    len: u64,
    /// The segment carries PSH.
    psh: bool,
    /// It starts at or below `rcv_nxt`.
    in_order: bool,
    /// Bytes it brought that were not held yet.
    new: u64,
}

impl TcpReceiver {
    /// A receiver expecting byte 0 first.
    pub fn new(flow: FlowId, cfg: &TcpConfig) -> TcpReceiver {
        Self::sharing(flow, Arc::new(cfg.clone()))
    }

    /// [`Self::new`] with a configuration shared with other endpoints (as
    /// [`crate::TcpSender::sharing`]).
    pub fn sharing(flow: FlowId, cfg: Arc<TcpConfig>) -> TcpReceiver {
        TcpReceiver {
            flow,
            cfg: cfg.clone(),
            rcv_nxt: 0,
            ooo: Vec::new(),
            arrivals: 0,
            pending_dsack: None,
            unacked_full_segments: 0,
            delack_deadline: None,
            ts_recent: 0,
            ns2_ts_recent: 0,
            last_ack_sent: 0,
            syn_ack_pending: false,
            stats: ReceiverStats::default(),
            linux_ack: cfg.linux.as_ref().map(|_| LinuxAck::default()),
            linux_rcvbuf: cfg.linux.as_ref().map(|l| {
                Box::new(LinuxRcvBuf::new(&RcvBufConfig {
                    tcp_rmem: l.tcp_rmem,
                    // sock_setsockopt(SO_RCVBUF): sk_rcvbuf = 2 x val, locked.
                    locked_rcvbuf: l.so_rcvbuf.map(|v| 2 * v),
                    window_clamp: cfg.receiver_window,
                    advmss: cfg.mss as u64,
                    header_bytes: WireSizes::new(&cfg).data_header() as u64,
                }))
            }),
            linux_sack_compress: (cfg.linux.is_some() && cfg.sack_enabled())
                .then(SackCompress::default),
            linux_sack_array: (cfg.linux.is_some() && cfg.sack_enabled()).then(Box::default),
            own_rtt: OwnRtt::Listening,
            answering: None,
            delayed: None,
            sack_history: crate::ns2_sack_sink::SackHistory::default(),
            sizes: WireSizes::new(&cfg),
            sack_blocks_per_ack: crate::stacks::sack_blocks_per_ack(&cfg) as u8,
            ts_clock: TsClock::new(cfg.timestamp_tick),
        }
    }

    /// Next byte expected.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Does the receiver hold byte `seq` (in order or out of order)?
    pub fn holds(&self, seq: u64) -> bool {
        seq < self.rcv_nxt || self.ooo.iter().any(|b| b.start <= seq && seq < b.end)
    }

    /// Is an ACK owed but held back by the delayed-ACK timer (or, under `linux`,
    /// the compressed-ACK timer)?
    pub fn ack_pending(&self) -> bool {
        self.delack_deadline.is_some() || self.linux_compress_deadline().is_some()
    }

    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }

    /// When the delayed-ACK timer (or, under `linux`, the compressed-ACK timer)
    /// fires, if armed.
    pub fn next_deadline(&self) -> Option<Time> {
        match self.linux_compress_deadline() {
            None => self.delack_deadline,
            Some(c) => Some(self.delack_deadline.map_or(c, |d| d.min(c))),
        }
    }

    /// The delayed-ACK timer fired: send the pending ACK.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.linux_compress_kick(now) {
            // tcp_compressed_ack_kick: one ACK for those held.
            self.send_ack(now, out);
            return;
        }
        if self.delack_deadline.is_some_and(|d| d <= now) {
            if std::mem::take(&mut self.syn_ack_pending) {
                self.delack_deadline = None;
                let p = self.syn_ack_packet(now);
                out.push(p);
                return;
            }
            self.answering = self.delayed;
            let rto = self.own_rtt.rto();
            if let Some(a) = self.linux_ack.as_mut() {
                a.on_delack_timer(rto); // tcp_delack_timer_handler: inflate ATO
            }
            self.send_ack(now, out);
        }
    }

    /// A SYN arrived: answer with a SYN-ACK at once (RFC 793 section 3.4).
    pub fn on_syn(&mut self, now: Time, syn: &Packet, out: &mut Vec<Packet>) {
        if let Some(ts) = syn.ts() {
            self.ts_recent = ts.val;
        }
        if self.cfg.ns2.delayed_syn_ack && self.cfg.delayed_ack.enabled {
            // ns-2 DelAckSink::recv() before SYN_immediate_ack_: packet 0 is delayed
            // like any in-order packet.
            self.syn_ack_pending = true;
            self.delack_deadline
                .get_or_insert(now + self.cfg.delayed_ack.timeout);
            return;
        }
        let p = self.syn_ack_packet(now);
        out.push(p);
        self.own_rtt.on_syn_ack_sent(now);
    }

    /// A segment acknowledging the SYN-ACK arrived (the handshake's third segment, or
    /// a data segment): on a `linux` receiver the first one times the SYN-ACK
    /// ([`crate::linux_synack_rtt`]).
    pub fn on_handshake_ack(&mut self, now: Time, p: &Packet) {
        if self.linux_ack.is_none() || !matches!(self.own_rtt, OwnRtt::Handshake { .. }) {
            return;
        }
        let echo = p.ts().map(|t| TsEcho {
            now_ts: self.ts_clock.read(now),
            ecr: t.ecr,
            tick: self.cfg.timestamp_tick,
        });
        let cfg = &self.cfg.rto;
        (self.own_rtt).on_handshake_ack(&HandshakeAck { now, echo }, || Rto::new(cfg));
    }

    /// A data segment arrived.
    pub fn on_data(&mut self, now: Time, seg: &Packet, out: &mut Vec<Packet>) -> DataOutcome {
        self.stats.segments += 1;
        // The handshake's bare ACK lost: the first data segment completes it.
        self.on_handshake_ack(now, seg);
        if self.linux_paws_rejects(seg) {
            return self.linux_paws_dupack(now, seg, out);
        }
        self.update_ts_recent(seg);
        let (start, end) = (seg.seq, seg.end_seq());
        let was_in_order = start <= self.rcv_nxt;
        let had_holes = !self.ooo.is_empty();
        let flushed = self.linux_flush_compressed(now, start, end, out);
        let new_bytes = self.absorb(start, end);
        self.linux_update_sack_array(start, end, was_in_order, had_holes);
        let duplicate = new_bytes == 0;
        if duplicate {
            self.stats.duplicate_segments += 1;
        }
        self.answering = Some(Answered {
            start,
            end,
            duplicate,
        });
        let quick = self.linux_on_data(now, was_in_order && !duplicate, duplicate);
        let arrival = Arrival {
            len: seg.len as u64,
            psh: seg.push(),
            in_order: was_in_order,
            new: new_bytes,
        };
        let quick = self.linux_grow_window(now, arrival) || quick;
        let pushed = self.linux_pushed();
        let immediate = !was_in_order
            || had_holes
            || duplicate
            || !self.cfg.delayed_ack.enabled
            || quick
            || pushed;
        if flushed {
            // The held ACKs' ACK cleared ICSK_ACK_SCHED (`tcp_event_ack_sent` ->
            // `inet_csk_clear_xmit_timer(ICSK_TIME_DACK)`) after `tcp_data_queue_ofo`
            // scheduled it: `tcp_ack_snd_check` finds no ACK owed for this segment,
            // whose block the next ACK reports.
        } else if immediate && self.linux_compresses(now) {
            // The linux receiver holds this duplicate ACK back (SACK compression).
        } else if immediate {
            // RFC 5681 4.2: out-of-order segments, segments that fill a hole, and (with
            // D-SACK) duplicates are acknowledged at once.
            self.send_ack(now, out);
        } else {
            self.delay_ack(now, seg.len, out);
        }
        if let Some(b) = self.linux_rcvbuf.as_mut() {
            // After __tcp_ack_snd_check: the receiving application's turn.
            b.on_segment_processed();
        }
        DataOutcome {
            new_bytes,
            duplicate,
        }
    }

    /// RFC 7323 section 4.3 (2), or ns-2's newest-arrival rule.
    ///
    /// Under RFC 7323 a segment lying wholly below RCV.NXT fails the RFC 793
    /// acceptability test and is answered with an ACK before TS.Recent is considered
    /// (RFC 7323 section 5.3, steps R2 before R3), so a duplicate echoes the timestamp
    /// of the original: the case [Gurtov & Ludwig 2003] II.B discusses, where a timeout
    /// caused by lost ACKs looks spurious to Eifel.
    ///
    /// ns-2's header carries the segment's send time as `ts()` whether or not the
    /// option is on, and the sink echoes it by the same rule (`Acker::update_ts()`,
    /// `TcpSink::ack()`): kept apart for [`Packet::ns2_ts_echo`].
    fn update_ts_recent(&mut self, seg: &Packet) {
        self.ns2_ts_recent = self.echoed(self.ns2_ts_recent, seg.sent_at.0, seg);
        let Some(ts) = seg.ts() else { return };
        self.ts_recent = self.echoed(self.ts_recent, ts.val, seg);
    }

    /// The value to echo after `seg`, carrying `val`, arrived, when `recent` was.
    fn echoed(&self, recent: u64, val: u64, seg: &Packet) -> u64 {
        match self.cfg.echo_rule {
            EchoRule::Rfc7323 => {
                let acceptable = seg.end_seq() > self.rcv_nxt;
                if acceptable && val >= recent && seg.seq <= self.last_ack_sent {
                    val
                } else {
                    recent
                }
            }
            EchoRule::Latest => val,
        }
    }

    /// Stores `[start, end)`; returns the bytes not held before and notes a D-SACK
    /// block for any duplicate part (RFC 2883 section 4).
    fn absorb(&mut self, start: u64, end: u64) -> u64 {
        self.arrivals += 1;
        let before = self.held_bytes_in(start, end);
        if before > 0 && self.cfg.dsack {
            self.pending_dsack = Some(self.first_duplicate_range(start, end));
        }
        if end > self.rcv_nxt {
            if start <= self.rcv_nxt && self.ooo.is_empty() {
                // In order with no hole above: what the block insertion and
                // advance_rcv_nxt would do, without the block.
                self.rcv_nxt = end;
            } else {
                self.insert_ooo(start.max(self.rcv_nxt), end);
                self.advance_rcv_nxt();
            }
        }
        (end - start) - before
    }

    fn held_bytes_in(&self, start: u64, end: u64) -> u64 {
        let below = self.rcv_nxt.min(end).saturating_sub(start);
        let above: u64 = self
            .ooo
            .iter()
            .map(|b| end.min(b.end).saturating_sub(start.max(b.start)))
            .sum();
        below + above
    }

    /// The first contiguous already-held range inside `[start, end)`.
    fn first_duplicate_range(&self, start: u64, end: u64) -> (u64, u64) {
        if start < self.rcv_nxt {
            return (start, end.min(self.rcv_nxt));
        }
        self.ooo
            .iter()
            .find(|b| b.start < end && b.end > start)
            .map(|b| (start.max(b.start), end.min(b.end)))
            .unwrap_or((start, end))
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let mut block = OooBlock {
            start,
            end,
            touched: self.arrivals,
        };
        // Merge every block overlapping or adjacent to the new one.
        self.ooo.retain(|b| {
            let touches = b.start <= block.end && b.end >= block.start;
            if touches {
                block.start = block.start.min(b.start);
                block.end = block.end.max(b.end);
            }
            !touches
        });
        let at = self.ooo.partition_point(|b| b.start < block.start);
        self.ooo.insert(at, block);
    }

    fn advance_rcv_nxt(&mut self) {
        while let Some(first) = self.ooo.first() {
            if first.start > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(first.end);
            self.ooo.remove(0);
        }
    }

    /// The `linux` receiver's SACK array after segment `[start, end)` was taken:
    /// queued out of order (`tcp_data_queue_ofo`), or in order (`tcp_sack_remove`).
    #[inline]
    fn linux_update_sack_array(&mut self, start: u64, end: u64, in_order: bool, had_holes: bool) {
        let (rcv_nxt, empty) = (self.rcv_nxt, self.ooo.is_empty());
        let Some(a) = self.linux_sack_array.as_mut() else {
            return;
        };
        if in_order {
            a.on_rcv_nxt(rcv_nxt, empty);
        } else {
            a.on_out_of_order(start, end, !had_holes);
        }
    }

    /// The `linux` receiver's PAWS test on a data segment ([`crate::linux_paws`]).
    fn linux_paws_rejects(&self, seg: &Packet) -> bool {
        let tsval = seg.ts().map(|t| t.val);
        self.linux_ack.is_some() && tsval.is_some_and(|v| linux_paws::rejects(self.ts_recent, v))
    }

    /// `tcp_send_dupack` for a segment PAWS discarded: its bytes are not taken; below
    /// `rcv_nxt` it is reported in a D-SACK block and puts the receiver in quick-ACK
    /// mode (`TCP_MAX_QUICKACKS`); an ACK goes out at once (`tcp_send_ack`).
    fn linux_paws_dupack(&mut self, now: Time, seg: &Packet, out: &mut Vec<Packet>) -> DataOutcome {
        self.stats.paws_rejected += 1;
        let (start, end) = (seg.seq, seg.end_seq());
        let duplicate = self.held_bytes_in(start, end) == end - start;
        if start < self.rcv_nxt {
            if let Some(a) = self.linux_ack.as_mut() {
                a.enter_quickack_mode(self.cfg.receiver_window, self.cfg.mss as u64);
            }
            if self.cfg.dsack {
                self.pending_dsack = Some(self.first_duplicate_range(start, end));
            }
        }
        self.answering = Some(Answered {
            start,
            end,
            duplicate,
        });
        // No ACK is owed for the discarded segment (tcp_send_dupack schedules none).
        let scheduled = self.ack_pending();
        self.send_ack_as(now, out, scheduled);
        DataOutcome {
            new_bytes: 0,
            duplicate,
        }
    }

    /// The `linux` profile: `tcp_event_data_recv` for new in-order data, quick-ACK
    /// mode for a duplicate (`tcp_data_queue`: "A retransmit ... Force an immediate
    /// ack"); returns whether the ACK goes out at once (`tcp_in_quickack_mode`).
    #[inline]
    fn linux_on_data(&mut self, now: Time, new_in_order: bool, duplicate: bool) -> bool {
        self.linux_ack.is_some() && self.linux_ack_on_data(now, new_in_order, duplicate)
    }

    /// [`Self::linux_on_data`] on a `linux` receiver.
    fn linux_ack_on_data(&mut self, now: Time, new_in_order: bool, duplicate: bool) -> bool {
        let rto = self.own_rtt.rto();
        let (wnd, mss) = (self.cfg.receiver_window, self.cfg.mss as u64);
        let Some(a) = self.linux_ack.as_mut() else {
            return false;
        };
        if duplicate {
            a.enter_quickack_mode(wnd, mss);
        }
        if new_in_order {
            a.on_data(now, wnd, mss, rto);
        }
        a.in_quickack_mode()
    }

    /// The `linux` receiver's `ICSK_ACK_PUSHED` (`tcp_measure_rcv_mss`, decided in
    /// [`LinuxRcvBuf::on_in_order_segment`]: a full-sized segment with PSH, "likely
    /// the end of an application write", or a shorter one): the application's read
    /// that empties the receive queue then sends the ACK the segment would have
    /// delayed (`__tcp_cleanup_rbuf`: `ICSK_ACK_PUSHED`, not ping-pong, nothing left
    /// in `sk_rmem_alloc`). The model's application reads in-order data at once, so
    /// the queue is empty unless segments wait out of order.
    #[inline]
    fn linux_pushed(&self) -> bool {
        self.linux_rcvbuf.as_ref().is_some_and(|b| b.pushed()) && self.ooo.is_empty()
    }

    /// The `linux` profile's window growth: `tcp_grow_window` for new data (in order
    /// from `tcp_event_data_recv`; out of order from `tcp_data_queue_ofo`, SACK
    /// flows only), then `tcp_rcv_space_adjust` as the application reads the
    /// in-order bytes. Returns whether the growth asks for an immediate ACK.
    #[inline]
    fn linux_grow_window(&mut self, now: Time, a: Arrival) -> bool {
        self.linux_rcvbuf.is_some() && self.linux_rcvbuf_grow(now, a)
    }

    /// [`Self::linux_grow_window`] on a `linux` receiver.
    fn linux_rcvbuf_grow(&mut self, now: Time, a: Arrival) -> bool {
        let Arrival {
            len,
            psh,
            in_order,
            new,
        } = a;
        let held = self.held_out_of_order();
        let srtt = self.own_rtt.srtt();
        let (rcv_nxt, sack) = (self.rcv_nxt, self.cfg.sack_enabled());
        let Some(b) = self.linux_rcvbuf.as_mut() else {
            return false;
        };
        if in_order && new > 0 {
            // tcp_event_data_recv: tcp_measure_rcv_mss before tcp_grow_window.
            b.on_in_order_segment(len, psh);
        }
        let grew = new > 0 && (in_order || sack) && b.on_segment(len, held) == Growth::Grew;
        if in_order {
            b.on_read(now, rcv_nxt, srtt);
        }
        if grew {
            if let Some(a) = self.linux_ack.as_mut() {
                a.on_window_growth();
                return in_order && a.in_quickack_mode();
            }
        }
        false
    }

    /// The `linux` profile's SACK compression ([`crate::linux_sack_compress`]) for
    /// an ACK owed at once: whether it is held back.
    #[inline]
    fn linux_compresses(&mut self, now: Time) -> bool {
        self.linux_sack_compress.is_some() && self.linux_compress(now)
    }

    /// [`Self::linux_compresses`] on a SACK flow's `linux` receiver: the rest of
    /// `__tcp_ack_snd_check` once the out-of-order queue is known not empty.
    fn linux_compress(&mut self, now: Time) -> bool {
        // The immediate-ACK branch comes first: "More than one full frame received"
        // since the last ACK (rcv_nxt - rcv_wup > rcv_mss; its window clause is
        // taken to hold), or quick-ACK mode (a duplicate, a window growth, the first
        // segments); an empty out-of-order queue (the hole filled: ICSK_ACK_NOW)
        // never reaches the compression branch.
        let quick = self.linux_ack.is_some_and(|a| a.in_quickack_mode());
        let full_frame = self.rcv_nxt - self.last_ack_sent > self.cfg.mss as u64;
        if self.ooo.is_empty() || quick || full_frame {
            return false;
        }
        let srtt = self.own_rtt.srtt();
        let Some(c) = self.linux_sack_compress else {
            return false;
        };
        let (next, decision) = c.decide(now, self.rcv_nxt, srtt);
        self.linux_sack_compress = Some(next);
        matches!(decision, Decision::Compress { .. })
    }

    /// `tcp_sack_new_ofo_skb` for an out-of-order segment `[start, end)` on a SACK
    /// flow's `linux` receiver, before the segment is queued: the held ACKs leave
    /// first (`tcp_sack_compress_send_ack`, reporting the blocks as they were) when
    /// the segment's block would otherwise stand past the first
    /// `TCP_SACK_BLOCKS_EXPECTED` (2) of the SACK array, or push one there
    /// ([`Self::sack_array_pushes_past_two`]).
    /// Returns whether it sent them.
    #[inline]
    fn linux_flush_compressed(
        &mut self,
        now: Time,
        start: u64,
        end: u64,
        out: &mut Vec<Packet>,
    ) -> bool {
        let held = self
            .linux_sack_compress
            .is_some_and(|c| c.flushes_for_new_block());
        let flush = held
            && start > self.rcv_nxt
            && self.held_bytes_in(start, end) < end - start
            && self.sack_array_pushes_past_two(start, end);
        if flush {
            self.send_ack(now, out);
        }
        flush
    }

    /// `tcp_sack_new_ofo_skb`'s two flush conditions over `tp->selective_acks`
    /// ([`crate::linux_sack_array`]): the segment extends (`tcp_sack_extend`:
    /// overlaps or abuts) the block at index 2 or later, or extends none while 2 or
    /// more are held ("before a range is in third or fourth position, at least one
    /// ACK packet included it in first/second position", Linux 5.8+).
    fn sack_array_pushes_past_two(&self, start: u64, end: u64) -> bool {
        let Some(a) = self.linux_sack_array.as_deref() else {
            return false;
        };
        match a.extended_by(start, end) {
            Some(i) => i >= SACK_BLOCKS_EXPECTED,
            None => a.blocks().len() >= SACK_BLOCKS_EXPECTED,
        }
    }

    /// The compressed-ACK timer's expiry, if armed.
    fn linux_compress_deadline(&self) -> Option<Time> {
        self.linux_sack_compress.and_then(|c| c.deadline())
    }

    /// The compressed-ACK timer at `now`: does it send an ACK?
    fn linux_compress_kick(&mut self, now: Time) -> bool {
        self.linux_sack_compress
            .as_mut()
            .is_some_and(|c| c.kick(now))
    }

    /// Bytes queued out of order (`sk_rmem_alloc`: in-order bytes are read at once).
    fn held_out_of_order(&self) -> u64 {
        self.ooo.iter().map(|b| b.end - b.start).sum()
    }

    /// The window an ACK offers: `receiver_window`, or the Linux receiver's.
    fn advertised_window(&mut self) -> u64 {
        if self.linux_rcvbuf.is_none() {
            return self.cfg.receiver_window;
        }
        // Only the Linux receiver's window depends on what is held (a sum over the
        // out-of-order blocks, on every ACK).
        let held = self.held_out_of_order();
        let rcv_nxt = self.rcv_nxt;
        match self.linux_rcvbuf.as_mut() {
            Some(b) => b.window(rcv_nxt, held),
            None => self.cfg.receiver_window,
        }
    }

    /// The delayed-ACK timeout: the configured one, or the Linux receiver's `ato`.
    fn delack_timeout(&self) -> Dur {
        let srtt = self.own_rtt.srtt();
        self.linux_ack
            .map_or(self.cfg.delayed_ack.timeout, |a| a.delay(srtt))
    }

    /// When a delayed-ACK timer armed at `now` fires. The `linux` receiver's is a
    /// `timer_list` timer: `tcp_send_delayed_ack` arms `icsk_delack_timer` at
    /// `jiffies + ato` (`sk_reset_timer`), and the timer wheel runs it on the jiffy
    /// after that (`calc_index`: "a timer does not fire early"), so 40 to 44 ms after
    /// the segment at HZ 250, not 40 ([`crate::linux_timer_wheel::fires_at`]).
    fn delack_fires_at(&self, now: Time) -> Time {
        let timeout = self.delack_timeout();
        match self.linux_ack {
            Some(_) => crate::linux_timer_wheel::fires_at(now, timeout),
            None => now + timeout,
        }
    }

    /// Delayed ACK: acknowledge every `every`-th full-sized segment, else arm the timer.
    fn delay_ack(&mut self, now: Time, len: u32, out: &mut Vec<Packet>) {
        if len as u64 >= self.cfg.mss as u64 {
            self.unacked_full_segments += 1;
        }
        if self.unacked_full_segments >= self.cfg.delayed_ack.every {
            self.send_ack(now, out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(self.delack_fires_at(now));
            self.delayed = self.answering;
        }
    }

    /// A SYN-ACK: no SACK blocks, and its window is not scaled (RFC 7323 2.2), so
    /// at most 65535 B (`tcp_make_synack`: min(rsk_rcv_wnd, 65535)) under `linux`.
    fn syn_ack_packet(&mut self, now: Time) -> Packet {
        match self.linux_rcvbuf.as_ref().map(|b| b.syn_ack_window()) {
            Some(w) => self.ack_packet(now, PacketKind::SynAck, w.min(65_535)),
            None => {
                let rwnd = self.advertised_window();
                self.ack_packet(now, PacketKind::SynAck, rwnd)
            }
        }
    }

    /// An acknowledgment of `kind` offering window `rwnd`, without SACK blocks. Always
    /// inlined: built where it is pushed, its fields are written straight into the
    /// output instead of into a packet on the stack copied there.
    #[inline(always)]
    fn ack_packet(&self, now: Time, kind: PacketKind, rwnd: u64) -> Packet {
        let mut p = Packet::new(0, self.flow, kind, now);
        p.wire_model = crate::wire_size::wire_model(&self.cfg);
        p.ack = self.rcv_nxt;
        p.rwnd = rwnd.min(u32::MAX as u64) as u32;
        p.ns2_ts_echo = Time(self.ns2_ts_recent);
        if self.cfg.timestamps {
            p.set_ts(Some(Timestamps {
                val: self.ts_clock.read(now),
                ecr: self.ts_recent,
            }));
        }
        p
    }

    /// Sends the ACK. What it carries is settled first (its SACK blocks, its window)
    /// and the packet built last, with no call in between, so that it is written
    /// straight into `out`.
    fn send_ack(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.send_ack_as(now, out, true);
    }

    /// [`Self::send_ack`]; `scheduled`: data arrived that owes this ACK
    /// (`inet_csk_ack_scheduled`), for the `linux` receiver's quick-ACK count.
    fn send_ack_as(&mut self, now: Time, out: &mut Vec<Packet>, scheduled: bool) {
        let sack = self.sack_option();
        let rwnd = self.advertised_window();
        self.pending_dsack = None;
        self.unacked_full_segments = 0;
        self.delack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        self.stats.acks_sent += 1;
        if let Some(a) = self.linux_ack.as_mut() {
            a.on_ack_sent(scheduled); // tcp_event_ack_sent -> tcp_dec_quickack_mode
        }
        if let Some(c) = self.linux_sack_compress.as_mut() {
            c.on_ack_sent(); // tcp_event_ack_sent: compressed_ack = 0, timer cancelled
        }
        let mut p = self.ack_packet(now, PacketKind::Ack, rwnd);
        p.set_sack(&sack);
        self.sizes.seal_ack(&mut p);
        out.push(p);
    }

    /// The SACK blocks of the next ACK: none without SACK, ns-2's sink's or RFC 2018's.
    fn sack_option(&mut self) -> SackBlocks {
        if !self.cfg.sack_enabled() {
            return SackBlocks::new();
        }
        if self.cfg.ns2.sink_sack_history_stack {
            self.ns2_sack_blocks()
        } else {
            self.sack_blocks()
        }
    }

    /// ns-2's `Sacker::append_ack()` (`tcp/tcp-sink.cc`,
    /// `Ns2Switches::sink_sack_history_stack`): a D-SACK block first when enabled, then
    /// the block around the answered segment, then the history stack
    /// ([`crate::ns2_sack_sink`]).
    fn ns2_sack_blocks(&mut self) -> SackBlocks {
        let mut s = SackBlocks::new();
        if let Some((a, b)) = self.pending_dsack {
            s.push(a, b);
        }
        let Some(seg) = self.answering else {
            return s;
        };
        let view = crate::ns2_sack_sink::SinkView {
            rcv_nxt: self.rcv_nxt,
            highest_end: self.ooo.last().map_or(self.rcv_nxt, |b| b.end),
            around: self
                .ooo
                .iter()
                .find(|b| b.start <= seg.start && seg.start < b.end)
                .map(|b| (b.start, b.end)),
            answered_above_ack: seg.start >= self.rcv_nxt,
            duplicate: seg.duplicate,
        };
        let nblocks = self.sack_blocks_per_ack as usize;
        for (a, b) in self.sack_history.append_ack(&view, nblocks, s.len()) {
            s.push(a, b);
        }
        s
    }

    /// RFC 2883: a D-SACK block first; RFC 2018 section 4: then the block holding the
    /// most recently received segment, then the other blocks, most recent first.
    fn sack_blocks(&self) -> SackBlocks {
        let mut s = SackBlocks::new();
        let max = self.sack_blocks_per_ack as usize;
        if let Some((a, b)) = self.pending_dsack {
            s.push(a, b);
        }
        // The blocks go out most recent first (ties, which distinct arrivals never
        // make, by sequence): only as many as fit are picked, without sorting them all.
        if self.ooo.is_empty() {
            return s;
        }
        let room = max.saturating_sub(s.len());
        if let Some(a) = self.linux_sack_array.as_deref() {
            for &(l, r) in a.blocks().iter().take(room) {
                s.push(l, r);
            }
            return s;
        }
        for b in most_recent_blocks(&self.ooo, room) {
            s.push(b.start, b.end);
        }
        s
    }
}

/// The `n` blocks (at most [`MAX_SACK_BLOCKS`]) of `ooo` that were touched last, in the
/// order most recent first, then lowest sequence first: the first `n` of `ooo` sorted
/// by that order, picked by insertion into a list of `n` instead of a sorted copy of
/// all of them (one allocation per ACK).
fn most_recent_blocks(ooo: &[OooBlock], n: usize) -> impl Iterator<Item = &OooBlock> {
    let before = |a: &OooBlock, b: &OooBlock| {
        a.touched > b.touched || (a.touched == b.touched && a.start < b.start)
    };
    let mut best: [&OooBlock; MAX_SACK_BLOCKS] = [&EMPTY_BLOCK; MAX_SACK_BLOCKS];
    let n = n.min(MAX_SACK_BLOCKS);
    let mut kept = 0;
    for b in ooo {
        // Insertion into the kept list, which stays sorted; a block after the last
        // kept one is not kept once the list is full.
        let mut at = kept;
        while at > 0 && before(b, best[at - 1]) {
            at -= 1;
        }
        if at < n {
            kept = (kept + 1).min(n);
            // Shifted one by one: `copy_within` called `memmove` for these two
            // pointers at most, on every ACK while a hole is open.
            for j in (at + 1..kept).rev() {
                best[j] = best[j - 1];
            }
            best[at] = b;
        }
    }
    best.into_iter().take(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sack: bool) -> TcpConfig {
        let mut c = TcpConfig {
            mss: 1000,
            ..TcpConfig::default()
        };
        if sack {
            c.recovery = crate::config::RecoveryKind::RenoSack;
        }
        c
    }

    fn seg(i: u64, tsval: u64) -> Packet {
        let mut p = Packet::new(i, FlowId(0), PacketKind::Data, Time::ZERO);
        p.seq = i * 1000;
        p.len = 1000;
        p.set_ts(Some(Timestamps { val: tsval, ecr: 0 }));
        p
    }

    fn t(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }

    proptest::proptest! {
        /// Whatever the order, duplicates and overlaps of the arrivals, RCV.NXT is the
        /// end of the data contiguous from 0, every byte received is held, and an
        /// arrival's new bytes are those not held before (in-order arrivals take the
        /// short path of `absorb`, the others the block list).
        #[test]
        fn rcv_nxt_and_new_bytes_follow_the_bytes_received(
            arrivals in proptest::collection::vec((0u64..30, 1u64..4), 1..60),
        ) {
            const UNIT: u64 = 500;
            let mut r = TcpReceiver::new(FlowId(0), &cfg(true));
            let mut held = [false; 40];
            let mut out = Vec::new();
            for (n, (i, k)) in arrivals.into_iter().enumerate() {
                let mut p = seg(0, n as u64 + 1);
                p.seq = i * UNIT;
                p.len = (k * UNIT) as u32;
                let got = r.on_data(t(n as u64), &p, &mut out);
                let units = i as usize..(i + k) as usize;
                let new = held[units.clone()].iter().filter(|h| !**h).count() as u64;
                held[units].iter_mut().for_each(|h| *h = true);
                proptest::prop_assert_eq!(got.new_bytes, new * UNIT);
                let contiguous = held.iter().take_while(|h| **h).count() as u64;
                proptest::prop_assert_eq!(r.rcv_nxt(), contiguous * UNIT);
                for (u, h) in held.iter().enumerate() {
                    proptest::prop_assert_eq!(r.holds(u as u64 * UNIT), *h, "unit {}", u);
                }
            }
        }

        /// The SACK blocks picked without sorting are the first ones of the blocks
        /// sorted most recent first, then by sequence (RFC 2018 section 4), as many as
        /// asked, for any arrival stamps (repeated ones included).
        #[test]
        fn the_most_recent_blocks_are_the_head_of_the_sorted_blocks(
            touched in proptest::collection::vec(0u64..8, 0..12),
            n in 0usize..6,
        ) {
            let ooo: Vec<OooBlock> = touched
                .iter()
                .enumerate()
                .map(|(i, &t)| OooBlock { start: 10 * i as u64, end: 10 * i as u64 + 5, touched: t })
                .collect();
            let mut sorted = ooo.clone();
            sorted.sort_by(|a, b| b.touched.cmp(&a.touched).then(a.start.cmp(&b.start)));
            sorted.truncate(n.min(MAX_SACK_BLOCKS));
            let got: Vec<OooBlock> = most_recent_blocks(&ooo, n).copied().collect();
            proptest::prop_assert_eq!(got, sorted);
        }
    }

    /// The `linux` profile with MSS 1000 and a 64000 B window.
    fn linux_cfg() -> TcpConfig {
        TcpConfig {
            mss: 1000,
            receiver_window: 64_000,
            ..TcpConfig::linux()
        }
    }

    fn linux_receiver() -> TcpReceiver {
        TcpReceiver::new(FlowId(0), &linux_cfg())
    }

    /// A linux receiver answers a SYN at 0 and its retransmission at 1.668 s; the ACK
    /// completing the handshake arrives then, echoing the first SYN-ACK's TSval (the
    /// T-Mobile UMTS drive at 42 s, Linux 6.18's capture); data follows 32 ms later,
    /// its quick ACKs are used up, and after a pause of `gap` one more segment comes:
    /// whether it is acknowledged at once (a gap longer than the receiver's RTO
    /// re-enters quick-ACK mode).
    fn acked_at_once_after_a_pause(syn_acks: u64, gap: Dur) -> bool {
        let mut r = linux_receiver();
        let mut out = Vec::new();
        let mut syn = Packet::new(0, FlowId(0), PacketKind::Syn, Time::ZERO);
        syn.set_ts(Some(Timestamps { val: 1, ecr: 0 }));
        for k in 0..syn_acks {
            r.on_syn(t(1668 * k), &syn, &mut out);
        }
        let mut ack = Packet::new(1, FlowId(0), PacketKind::Data, Time::ZERO);
        ack.set_ts(Some(Timestamps { val: 2, ecr: 1 }));
        r.on_handshake_ack(t(1668), &ack);
        for i in 0..18 {
            r.on_data(t(1700 + i), &seg(i, 3 + i), &mut out);
        }
        let before = out.len();
        r.on_data(t(1717) + gap, &seg(18, 30), &mut out);
        out.len() > before
    }

    #[test]
    fn a_linux_receiver_times_its_syn_ack_by_the_ack_completing_the_handshake() {
        // Sent once: timed from its sending to the ACK, 1.668 s (RTO 5 s, not the
        // 232 ms of timing it to the first data segment): a 1.6 s pause is no gap.
        assert!(!acked_at_once_after_a_pause(1, Dur::from_millis(1600)));
        // Sent twice: Karn, then the ACK's echo of the first, 1.668 s again.
        assert!(!acked_at_once_after_a_pause(2, Dur::from_millis(1600)));
        // A pause beyond the RTO (1.668 s + max(2 x 1.668 s, 200 ms)) is one.
        assert!(acked_at_once_after_a_pause(2, Dur::from_millis(5100)));
    }

    #[test]
    fn a_linux_receiver_acks_its_first_sixteen_segments_at_once() {
        let mut r = linux_receiver();
        let mut out = Vec::new();
        for i in 0..18 {
            r.on_data(t(i), &seg(i, i), &mut out);
        }
        // 16 quick ACKs, then one ACK per two segments (segments 16 and 17).
        assert_eq!(out.len(), 17);
        r.on_data(t(18), &seg(18, 18), &mut out);
        // TCP_ATO_MIN (10 jiffies) from jiffy 4 (16 ms): jiffy 14, run on jiffy 15.
        assert_eq!(r.next_deadline(), Some(t(60)), "TCP_ATO_MIN on the wheel");
    }

    /// `tcp_delack_timer_handler` inflates ato when its timer had to send the ACK:
    /// the next lone segment waits 20 jiffies, not `TCP_ATO_MIN`'s 10 (the T-Mobile
    /// UMTS drive at 543 s: the kernel's ACK 86 ms after the segment at 4.054 s).
    #[test]
    fn a_linux_receiver_waits_twice_as_long_after_its_delayed_ack_timer_fired() {
        let mut r = linux_receiver();
        let mut out = Vec::new();
        for i in 0..19 {
            r.on_data(t(i), &seg(i, i), &mut out);
        }
        assert_eq!(r.next_deadline(), Some(t(60)));
        r.on_timer(t(60), &mut out);
        assert_eq!(out.len(), 18, "the timer's ACK");
        r.on_data(t(200), &seg(19, 200), &mut out);
        assert_eq!(
            r.next_deadline(),
            Some(t(284)),
            "jiffy 50 + 20, on jiffy 71"
        );
    }

    /// A `linux` receiver with or without timestamps takes segments 0 to 29 in order,
    /// then `holes` (out of order), each well after the last, its timers run: the SACK
    /// blocks of the last ACK it sent.
    fn linux_last_sack(timestamps: bool, holes: &[u64]) -> Vec<(u64, u64)> {
        let mut c = linux_cfg();
        c.timestamps = timestamps;
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        let mut now = 0;
        let segment = |i: u64, tsval: u64| {
            let mut p = seg(i, tsval);
            if !timestamps {
                p.set_ts(None);
            }
            p
        };
        for i in (0..30).chain(holes.iter().copied()) {
            now += 10;
            r.on_data(t(now), &segment(i, now), &mut out);
            if let Some(due) = r.next_deadline() {
                r.on_timer(due, &mut out);
            }
        }
        out.last().unwrap().sack().to_vec()
    }

    /// `tp->selective_acks` forgets a fifth block though its data stays queued: a
    /// segment next to it is reported alone (the T-Mobile UMTS drive at 543 s).
    #[test]
    fn a_linux_receiver_reports_a_segment_next_to_a_forgotten_block_alone() {
        assert_eq!(
            linux_last_sack(false, &[32, 35, 37, 39, 41, 31]),
            [
                (31_000, 32_000),
                (41_000, 42_000),
                (39_000, 40_000),
                (37_000, 38_000)
            ]
        );
    }

    #[test]
    fn a_linux_receiver_without_timestamps_reports_four_sack_blocks() {
        // tcp_established_options: (40 - 4) / 8 = 4 blocks without the timestamps
        // option, as the kernel's receiver on Table 1's path (configurations b and c)
        // at 3.8076 s.
        assert_eq!(
            linux_last_sack(false, &[31, 33, 35, 37, 39]),
            [
                (39_000, 40_000),
                (37_000, 38_000),
                (35_000, 36_000),
                (33_000, 34_000)
            ]
        );
    }

    #[test]
    fn a_linux_receiver_with_timestamps_reports_three_sack_blocks() {
        // (40 - 12 - 4) / 8 = 3 beside the 12 aligned bytes of the timestamps option.
        assert_eq!(
            linux_last_sack(true, &[31, 33, 35, 37, 39]),
            [(39_000, 40_000), (37_000, 38_000), (35_000, 36_000)]
        );
    }

    #[test]
    fn a_linux_receiver_without_timestamps_sends_a_dsack_block_and_three_others() {
        // eff_sacks = num_sacks + dsack = 5, of which 4 fit: the D-SACK block first.
        assert_eq!(
            linux_last_sack(false, &[31, 33, 35, 37, 39, 3]),
            [
                (3_000, 4_000),
                (39_000, 40_000),
                (37_000, 38_000),
                (35_000, 36_000)
            ]
        );
    }

    #[test]
    fn a_linux_receivers_first_acks_offer_the_growth_under_the_replaced_clamp() {
        // The real paths' receiver (TCP_WINDOW_CLAMP 262144, SO_RCVBUF 1048576, MSS
        // 1448): as Linux 6.18's pcap through spikelab emulate, ack 1448 offers
        // 264984 B, ack 2896 263536 B, then the clamp, 262144 B.
        let mut c = TcpConfig {
            mss: 1448,
            receiver_window: 262_144,
            ..TcpConfig::linux()
        };
        if let Some(l) = c.linux.as_mut() {
            l.so_rcvbuf = Some(1_048_576);
        }
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        let mut syn = Packet::new(0, FlowId(0), PacketKind::Syn, Time::ZERO);
        syn.set_ts(Some(Timestamps { val: 1, ecr: 0 }));
        r.on_syn(t(0), &syn, &mut out);
        for i in 0..5 {
            let mut p = seg(i, 2 + i);
            (p.seq, p.len) = (i * 1448, 1448);
            r.on_data(t(100), &p, &mut out);
        }
        let offered: Vec<(u64, u32)> = out.iter().map(|p| (p.ack, p.rwnd)).collect();
        assert_eq!(
            offered,
            [
                (0, 65_535),
                (1448, 264_984),
                (2896, 263_536),
                (4344, 262_144),
                (5792, 262_144),
                (7240, 262_144)
            ]
        );
    }

    #[test]
    fn a_linux_receiver_acks_at_once_after_a_duplicate() {
        let mut r = linux_receiver();
        let mut out = Vec::new();
        for i in 0..20 {
            r.on_data(t(i), &seg(i, i), &mut out);
        }
        r.on_data(t(20), &seg(3, 20), &mut out); // a duplicate: quick-ACK mode
        out.clear();
        r.on_data(t(21), &seg(20, 21), &mut out);
        assert_eq!(
            out.len(),
            1,
            "acknowledged without waiting for a second segment"
        );
    }

    /// tcp_send_dupack for a segment PAWS discards below rcv_nxt enters quick-ACK
    /// mode but, with no ACK scheduled, its own ACK uses none of the quick ACKs: the
    /// delay-injection path's kernel receiver acknowledged all 10 of its next
    /// segments at once (rcv_wnd 10000 / (2 * 500)).
    #[test]
    fn a_linux_receivers_paws_dupack_uses_none_of_its_quick_acks() {
        let mut r = linux_receiver();
        let mut out = Vec::new();
        for i in 0..20 {
            r.on_data(t(i), &seg(i, 100 + i), &mut out);
        }
        assert!(!r.ack_pending());
        r.on_data(t(20), &seg(3, 3), &mut out); // PAWS: TSval 3 lags ts_recent
        assert_eq!(r.stats().paws_rejected, 1);
        out.clear();
        for i in 20..36 {
            r.on_data(t(i + 1), &seg(i, 200 + i), &mut out);
        }
        assert_eq!(out.len(), 16, "min(64000 / 2000, 16) quick ACKs");
    }

    #[test]
    fn a_linux_sack_receiver_compresses_duplicate_acks_after_the_third() {
        // __tcp_ack_snd_check: three duplicate ACKs at once, then held behind the
        // compressed-ACK timer, which sends one ACK for all of them (no SYN here,
        // so no RTT estimate: the kernel's rtt of 0 gives a delay of 0).
        let mut r = linux_receiver();
        let mut out = Vec::new();
        for i in 0..30 {
            r.on_data(t(i), &seg(i, i), &mut out);
        }
        out.clear();
        let mut acks = Vec::new();
        for i in 31..38 {
            r.on_data(t(40), &seg(i, 40), &mut out);
            acks.push(out.len());
        }
        assert_eq!(acks, [1, 2, 3, 3, 3, 3, 3], "the fourth on are held");
        assert!(r.ack_pending());
        let due = r.next_deadline().expect("the compressed-ACK timer");
        r.on_timer(due, &mut out);
        assert_eq!(out.len(), 4);
        assert_eq!(out[3].sack(), &[(31_000, 38_000)]);
        assert_eq!(r.next_deadline(), None);
    }

    #[test]
    fn a_third_block_sends_the_held_acks_first_without_it_and_owes_none_for_it() {
        // tcp_sack_new_ofo_skb (TCP_SACK_BLOCKS_EXPECTED): a new block with two held
        // sends the compressed ACKs before the block is added, as the kernel's
        // receiver on T-Mobile LTE offset 212 s at 1.03 s. That ACK clears
        // ICSK_ACK_SCHED, so the segment itself owes none (no compressed-ACK timer):
        // the same capture at 1.106 s sends nothing more until the next arrivals at
        // 1.110 s, where the model sent a compressed SACK at 1.107 s.
        let mut r = linux_receiver();
        let mut out = Vec::new();
        for i in 0..30 {
            r.on_data(t(i), &seg(i, i), &mut out);
        }
        out.clear();
        for i in [31, 32, 33, 34, 36] {
            r.on_data(t(40), &seg(i, 40), &mut out); // three at once, then held
        }
        assert_eq!(out.len(), 3);
        assert!(r.ack_pending(), "two held, two blocks");
        r.on_data(t(40), &seg(38, 40), &mut out);
        assert_eq!(out.len(), 4, "the held ACKs left first");
        assert_eq!(out[3].sack(), &[(36_000, 37_000), (31_000, 35_000)]);
        assert!(!r.ack_pending(), "no ACK owed for the new block");
        assert_eq!(r.next_deadline(), None, "no compressed-ACK timer");
        // The next arrival's ACK, held in turn, reports it.
        r.on_data(t(41), &seg(40, 41), &mut out);
        assert_eq!(out.len(), 4);
        let due = r.next_deadline().expect("the compressed-ACK timer");
        r.on_timer(due, &mut out);
        assert_eq!(out.len(), 5);
        assert_eq!(out[4].sack()[..2], [(40_000, 41_000), (38_000, 39_000)]);
    }

    #[test]
    fn extending_one_of_the_first_two_blocks_keeps_the_acks_held() {
        let mut r = linux_receiver();
        let mut out = Vec::new();
        for i in 0..30 {
            r.on_data(t(i), &seg(i, i), &mut out);
        }
        out.clear();
        for i in [31, 32, 33, 35, 36, 34] {
            r.on_data(t(40), &seg(i, 40), &mut out);
        }
        assert_eq!(out.len(), 3, "35 is a second block, 34 joins the first two");
        assert!(r.ack_pending());
    }

    #[test]
    fn an_rfc_sack_receiver_never_compresses() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(true));
        let mut out = Vec::new();
        for i in 1..8 {
            r.on_data(t(0), &seg(i, 1), &mut out);
        }
        assert_eq!(out.len(), 7);
    }

    /// A receiver of `cfg` past its quick ACKs, an ACK just sent (18 segments: 16 quick
    /// ACKs, then one for 16 and 17), and the next segment, `push` as given.
    fn after_quick_acks_then(push: bool, cfg: TcpConfig) -> (TcpReceiver, Vec<Packet>) {
        after_quick_acks_then_one_of(1000, push, cfg)
    }

    /// As [`after_quick_acks_then`], segment 18 cut to `len` bytes.
    fn after_quick_acks_then_one_of(
        len: u32,
        push: bool,
        cfg: TcpConfig,
    ) -> (TcpReceiver, Vec<Packet>) {
        let mut r = TcpReceiver::new(FlowId(0), &cfg);
        let mut out = Vec::new();
        for i in 0..18 {
            r.on_data(t(i), &seg(i, i), &mut out);
        }
        out.clear();
        let mut p = seg(18, 18);
        p.len = len;
        p.set_push(push);
        r.on_data(t(18), &p, &mut out);
        (r, out)
    }

    #[test]
    fn a_linux_receiver_acks_a_lone_full_segment_marked_push_at_once() {
        // Linux 6.18 through spikelab emulate, Table 1 (a) seed 5: after the pair ACK
        // 64001 the sender's first two-segment skb ends in segment 65 (PSH, as every
        // skb of two or more) and the receiver ACKs it alone, at once (ack 65001).
        let (r, out) = after_quick_acks_then(true, linux_cfg());
        assert_eq!(out.iter().map(|p| p.ack).collect::<Vec<_>>(), [19_000]);
        assert_eq!(r.next_deadline(), None);
        let (r, out) = after_quick_acks_then(false, linux_cfg());
        assert!(out.is_empty(), "without PSH it waits for a second segment");
        assert_eq!(r.next_deadline(), Some(t(60)), "jiffy 4 + 10, on jiffy 15");
    }

    /// The ACKs a linux receiver sends at once for segment 18 cut to `len` bytes, `push`
    /// as given ([`after_quick_acks_then_one_of`]).
    fn short_segment_after_quick_acks(len: u32, push: bool) -> Vec<u64> {
        let (_, out) = after_quick_acks_then_one_of(len, push, linux_cfg());
        out.iter().map(|p| p.ack).collect()
    }

    #[test]
    fn a_linux_receiver_acks_a_segment_shorter_than_rcv_mss_at_once() {
        // Linux 6.18 through spikelab emulate, the delivery-trace path, seed 1: the
        // sender's 56-byte cut at the receive window's edge (PSH) is ACKed at once
        // (tcp_measure_rcv_mss sets ICSK_ACK_PUSHED; the read that empties the queue
        // sends the ACK); the model delayed it and ACKed the next segment with it.
        assert_eq!(short_segment_after_quick_acks(56, true), [18_056]);
        assert_eq!(
            short_segment_after_quick_acks(56, false),
            [18_056],
            "under 88 B"
        );
        assert_eq!(short_segment_after_quick_acks(600, false), [18_600]);
        assert_eq!(
            short_segment_after_quick_acks(1000, false),
            Vec::<u64>::new(),
            "a full segment without PSH waits for a second"
        );
    }

    #[test]
    fn only_the_linux_receiver_heeds_push() {
        let (_, out) = after_quick_acks_then(true, cfg(false));
        let (_, unpushed) = after_quick_acks_then(false, cfg(false));
        assert_eq!(
            out.len(),
            unpushed.len(),
            "RFC 5681: the same ACKs either way"
        );
    }

    #[test]
    fn acks_every_second_full_segment() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(false));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(0, 1), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.next_deadline(), Some(t(100)));
        r.on_data(t(1), &seg(1, 2), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 2000);
        assert_eq!(r.next_deadline(), None);
    }

    /// The blocks of the ACK answering the last of `segs` (SACK on, no delayed ACK).
    fn last_sack(ns2_sink: bool, segs: &[u64]) -> Vec<(u64, u64)> {
        let mut c = cfg(true);
        c.delayed_ack.enabled = false;
        c.ns2.sink_sack_history_stack = ns2_sink;
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        for (k, &i) in segs.iter().enumerate() {
            r.on_data(t(k as u64), &seg(i, 1), &mut out);
        }
        out.last().unwrap().sack().to_vec()
    }

    #[test]
    fn ns2_sink_reports_from_its_history_stack_not_every_held_block() {
        let segs = [4, 2, 12, 10, 11];
        assert_eq!(
            last_sack(false, &segs),
            vec![(10_000, 13_000), (2_000, 3_000), (4_000, 5_000)],
            "RFC 2018: every block, most recent first"
        );
        assert_eq!(
            last_sack(true, &segs),
            vec![(10_000, 13_000), (2_000, 3_000)],
            "Sacker::append_ack(): (4, 5) fell off the three-deep stack"
        );
    }

    #[test]
    fn ns2_delays_the_syn_ack_like_an_in_order_packet() {
        let c = TcpConfig {
            mss: 1000,
            ..TcpConfig::ns2_2002()
        };
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        r.on_syn(
            t(0),
            &Packet::new(0, FlowId(0), PacketKind::Syn, Time::ZERO),
            &mut out,
        );
        assert!(out.is_empty());
        r.on_timer(t(100), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, PacketKind::SynAck);
    }

    #[test]
    fn delayed_ack_timer_sends_the_pending_ack() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(false));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(0, 1), &mut out);
        r.on_timer(t(100), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 1000);
    }

    #[test]
    fn out_of_order_segment_is_acked_at_once_with_a_sack_block() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(true));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(1, 1), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 0);
        assert_eq!(out[0].sack(), &[(1000, 2000)]);
    }

    #[test]
    fn first_sack_block_reports_the_most_recent_arrival() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(true));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(2, 1), &mut out);
        r.on_data(t(0), &seg(5, 2), &mut out);
        r.on_data(t(0), &seg(3, 3), &mut out);
        assert_eq!(out[2].sack(), &[(2000, 4000), (5000, 6000)]);
    }

    #[test]
    fn filling_the_hole_acks_everything_at_once() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(true));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(1, 1), &mut out);
        r.on_data(t(0), &seg(2, 2), &mut out);
        r.on_data(t(0), &seg(0, 3), &mut out);
        assert_eq!(out.last().unwrap().ack, 3000);
        assert!(out.last().unwrap().sack().is_empty());
    }

    #[test]
    fn duplicate_segment_is_reported_with_a_dsack_block() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(true));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(0, 1), &mut out);
        r.on_data(t(0), &seg(1, 1), &mut out);
        let o = r.on_data(t(5), &seg(0, 9), &mut out);
        assert!(o.duplicate);
        assert_eq!(out.last().unwrap().ack, 2000);
        assert_eq!(out.last().unwrap().sack(), &[(0, 1000)]);
        assert_eq!(r.stats().duplicate_segments, 1);
    }

    #[test]
    fn rfc7323_delayed_ack_echoes_the_earlier_segment_and_ooo_segments_change_nothing() {
        let mut r = TcpReceiver::new(FlowId(0), &cfg(true));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(0, 10), &mut out);
        // RFC 7323 4.3 case (A): with a delayed ACK the echoed TSval is the earliest
        // unacknowledged segment's, because SEG.SEQ 1000 > Last.ACK.sent 0.
        r.on_data(t(0), &seg(1, 11), &mut out);
        assert_eq!(out.last().unwrap().ts().unwrap().ecr, 10);
        // Case (B): an out-of-order segment does not update TS.Recent.
        r.on_data(t(0), &seg(3, 13), &mut out);
        assert_eq!(out.last().unwrap().ts().unwrap().ecr, 10);
        // Filling the hole: SEG.SEQ 2000 = Last.ACK.sent, TS.Recent becomes 12.
        r.on_data(t(0), &seg(2, 12), &mut out);
        assert_eq!(out.last().unwrap().ts().unwrap().ecr, 12);
    }

    #[test]
    fn ns2_latest_rule_echoes_the_newest_arrival() {
        let mut c = cfg(true);
        c.echo_rule = EchoRule::Latest;
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        r.on_data(t(0), &seg(0, 10), &mut out);
        r.on_data(t(0), &seg(1, 11), &mut out);
        r.on_data(t(0), &seg(3, 13), &mut out);
        assert_eq!(out.last().unwrap().ts().unwrap().ecr, 13);
    }

    /// Segment `i` without the timestamps option, sent at `sent` ms.
    fn untimestamped(i: u64, sent: u64) -> Packet {
        let mut p = seg(i, 0);
        p.set_ts(None);
        p.sent_at = t(sent);
        p
    }

    #[test]
    fn ns2_header_echo_carries_the_newest_arrivals_send_time_without_the_option() {
        let mut c = cfg(true);
        c.timestamps = false;
        c.echo_rule = EchoRule::Latest;
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        r.on_data(t(900), &untimestamped(0, 100), &mut out);
        r.on_data(t(910), &untimestamped(1, 110), &mut out);
        r.on_data(t(920), &untimestamped(3, 130), &mut out);
        let last = out.last().unwrap();
        assert_eq!((last.ts(), last.ns2_ts_echo), (None, t(130)));
    }

    #[test]
    fn ns2_header_echo_follows_the_rfc7323_rule_when_configured() {
        let mut c = cfg(true);
        c.timestamps = false;
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        r.on_data(t(900), &untimestamped(0, 100), &mut out);
        r.on_data(t(910), &untimestamped(1, 110), &mut out);
        r.on_data(t(920), &untimestamped(3, 130), &mut out);
        assert_eq!(
            out.last().unwrap().ns2_ts_echo,
            t(100),
            "out of order: unchanged"
        );
    }

    #[test]
    fn rfc7323_duplicate_below_rcv_nxt_echoes_the_original_timestamp() {
        // [Gurtov & Ludwig 2003] II.B: a retransmission of an acknowledged segment is not
        // acceptable, so its newer TSval is not echoed and Eifel sees the original's.
        let mut r = TcpReceiver::new(FlowId(0), &cfg(false));
        let mut out = Vec::new();
        r.on_data(t(0), &seg(0, 10), &mut out);
        r.on_data(t(0), &seg(1, 11), &mut out);
        r.on_data(t(0), &seg(0, 50), &mut out);
        assert_eq!(out.last().unwrap().ts().unwrap().ecr, 10);
    }

    #[test]
    fn ns2_latest_rule_echoes_a_duplicates_new_timestamp() {
        let mut c = cfg(false);
        c.echo_rule = EchoRule::Latest;
        let mut r = TcpReceiver::new(FlowId(0), &c);
        let mut out = Vec::new();
        r.on_data(t(0), &seg(0, 10), &mut out);
        r.on_data(t(0), &seg(1, 11), &mut out);
        r.on_data(t(0), &seg(0, 50), &mut out);
        assert_eq!(out.last().unwrap().ts().unwrap().ecr, 50);
    }
}
