//! Drop-tail: first in, first out, with a limit in packets or in wire bytes.
//!
//! Follows ns-2's `DropTail::enque` (queue/drop-tail.cc): when the arrival would overflow
//! the queue, either the arrival is dropped or, with `drop_front`, the arrival is
//! appended and the head is dropped instead (Lakshman, Neidhardt & Ott 1996 showed
//! drop-from-front shortens TCP's loss-detection time; [Ekström & Ludwig 2004] Scenario A
//! uses it). See the parent module for what the limit counts.

use super::queue_limit;
use super::{PacketFifo, QueueDiscipline};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{Bounded, Check, FieldPath, MAX_BYTES, MAX_PACKETS};
use spikelab_core::{ByteSize, Packet, SimRng, Time, Wire};

/// A queue limit: `{ packets = 10 }` or `{ bytes = "10KB" }` in a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum QueueLimit {
    /// At most this many packets wait (ns-2 counts packets; `queue-in-bytes_ false`).
    Packets(u64),
    /// At most this many wire bytes (headers included) wait.
    Bytes(ByteSize),
}

/// Drop-tail parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {
    /// How much may wait (excluding the packet being transmitted).
    /// Default: `{ packets = 50 }` (ns-2's `Queue set limit_ 50`).
    #[serde(default = "default_limit")]
    pub limit: QueueLimit,
    /// On overflow drop the head of the queue instead of the arrival. Default: false.
    #[serde(default)]
    pub drop_front: bool,
}

fn default_limit() -> QueueLimit {
    QueueLimit::Packets(50)
}

impl Bounded for DropTailConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        match self.limit {
            QueueLimit::Packets(n) => queue_limit(&p.key("limit"), n, MAX_PACKETS, " packets"),
            QueueLimit::Bytes(b) => queue_limit(&p.key("limit"), b.0, MAX_BYTES, " bytes"),
        }
    }
}

impl Default for DropTailConfig {
    fn default() -> Self {
        DropTailConfig {
            limit: default_limit(),
            drop_front: false,
        }
    }
}

/// A drop-tail queue with its packets.
#[derive(Clone, Debug)]
pub struct DropTail<P = Packet> {
    fifo: PacketFifo<P>,
    limit: QueueLimit,
    drop_front: bool,
}

impl QueueLimit {
    /// Would `fifo` exceed this limit if `extra` were appended?
    pub fn overflows_with<P: Wire>(self, fifo: &PacketFifo<P>, extra: &P) -> bool {
        self.overflows(fifo.len() as u64, fifo.bytes(), extra.wire_bytes())
    }

    /// Would `packets` waiting, of `bytes` wire bytes, exceed this limit if a packet of
    /// `extra` wire bytes joined them?
    #[inline(always)]
    pub fn overflows(self, packets: u64, bytes: u64, extra: u32) -> bool {
        match self {
            QueueLimit::Packets(n) => packets + 1 > n,
            QueueLimit::Bytes(b) => bytes + extra as u64 > b.bytes(),
        }
    }
}

impl<P: Wire> DropTail<P> {
    /// An empty queue.
    pub fn new(cfg: &DropTailConfig) -> DropTail<P> {
        DropTail {
            fifo: PacketFifo::new(),
            limit: cfg.limit,
            drop_front: cfg.drop_front,
        }
    }

    /// Appends `pkt` unless the queue is full; returns the dropped packet.
    ///
    /// With `drop_front` the head is dropped if that makes room for the arrival. In byte
    /// mode one head may not free enough bytes for a larger arrival; then the arrival is
    /// dropped, so the byte limit always holds (ns-2 drops one head regardless and can
    /// exceed its byte limit).
    pub fn enqueue(&mut self, pkt: P) -> Option<P> {
        if !self.limit.overflows_with(&self.fifo, &pkt) {
            self.fifo.push(pkt);
            return None;
        }
        if self.drop_front && self.head_drop_makes_room(&pkt) {
            let head = self.fifo.pop();
            self.fifo.push(pkt);
            return head;
        }
        Some(pkt)
    }

    /// Is the queue empty and would it take `pkt`? Then [`DropTail::enqueue`] followed
    /// by [`DropTail::dequeue`] hands back `pkt` and leaves the queue as it was: an
    /// idle transmitter may take it directly (drop-tail keeps no state beyond its
    /// packets).
    #[inline(always)]
    pub fn passes_straight(&self, pkt: &P) -> bool {
        self.fifo.is_empty() && !self.limit.overflows_with(&self.fifo, pkt)
    }

    fn head_drop_makes_room(&self, pkt: &P) -> bool {
        match (self.limit, self.fifo.front()) {
            (_, None) => false,
            (QueueLimit::Packets(_), Some(_)) => true,
            (QueueLimit::Bytes(b), Some(head)) => {
                self.fifo.bytes() - head.wire_bytes() as u64 + pkt.wire_bytes() as u64 <= b.bytes()
            }
        }
    }

    /// Removes the head.
    pub fn dequeue(&mut self) -> Option<P> {
        self.fifo.pop()
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &PacketFifo<P> {
        &self.fifo
    }

    /// The limit on what may wait.
    pub fn limit(&self) -> QueueLimit {
        self.limit
    }
}

impl<P: Wire> QueueDiscipline<P> for DropTail<P> {
    fn on_enqueue(&mut self, _now: Time, pkt: P, _rng: &mut SimRng) -> Option<P> {
        self.enqueue(pkt)
    }
    fn on_dequeue(&mut self, _now: Time) -> Option<P> {
        self.dequeue()
    }
    fn fifo(&self) -> &PacketFifo<P> {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::{FlowId, PacketKind, Time};

    fn pkt(uid: u64, payload: u32) -> Packet {
        let mut p = Packet::new(uid, FlowId(0), PacketKind::Data, Time::ZERO);
        p.len = payload;
        p
    }

    fn queue(limit: QueueLimit, drop_front: bool) -> DropTail {
        DropTail::new(&DropTailConfig { limit, drop_front })
    }

    #[test]
    fn packet_limit_accepts_exactly_limit_packets_then_drops_the_arrival() {
        let mut q = queue(QueueLimit::Packets(3), false);
        for uid in 0..3 {
            assert_eq!(q.enqueue(pkt(uid, 1000)), None);
        }
        assert_eq!(q.enqueue(pkt(3, 1000)).map(|p| p.uid), Some(3));
        assert_eq!(q.fifo().len(), 3);
    }

    #[test]
    fn byte_limit_accepts_up_to_the_exact_byte_count() {
        // 1040 + 1040 + 40 = 2120 bytes fit exactly; one more byte does not.
        let mut q = queue(QueueLimit::Bytes(ByteSize(2120)), false);
        assert_eq!(q.enqueue(pkt(0, 1000)), None);
        assert_eq!(q.enqueue(pkt(1, 1000)), None);
        assert_eq!(q.enqueue(pkt(2, 1)).map(|p| p.uid), Some(2)); // 41 bytes: 2121 > 2120
        assert_eq!(q.enqueue(pkt(3, 0)), None); // 40 bytes: exactly 2120
        assert_eq!(q.fifo().bytes(), 2120);
    }

    #[test]
    fn drop_front_drops_the_head_and_keeps_the_arrival() {
        let mut q = queue(QueueLimit::Packets(2), true);
        q.enqueue(pkt(0, 1000));
        q.enqueue(pkt(1, 1000));
        assert_eq!(q.enqueue(pkt(2, 1000)).map(|p| p.uid), Some(0));
        let left: Vec<u64> = q.fifo().iter().map(|p| p.uid).collect();
        assert_eq!(left, vec![1, 2]);
    }

    #[test]
    fn drop_front_in_bytes_drops_the_arrival_when_one_head_is_not_enough() {
        let mut q = queue(QueueLimit::Bytes(ByteSize(1100)), true);
        q.enqueue(pkt(0, 0)); // 40 bytes
        q.enqueue(pkt(1, 500)); // 540 bytes, 580 in total
        assert_eq!(q.enqueue(pkt(2, 1000)).map(|p| p.uid), Some(2));
        assert_eq!(q.enqueue(pkt(3, 500)).map(|p| p.uid), Some(0));
    }

    #[test]
    fn limit_zero_drops_every_arrival() {
        let mut q = queue(QueueLimit::Packets(0), false);
        assert!(q.enqueue(pkt(0, 10)).is_some());
    }
}
