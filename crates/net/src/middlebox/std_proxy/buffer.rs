//! The proxy's store of go-back-N retransmissions ([Kim & Cho 2003] III.B): "DATAs with
//! sequence number larger than acked_seq but less than sp_tout_max_seq_end are stored
//! temporarily in PEP ... used for local retransmission upon the arrival of delayed
//! duplicated ACK or removed later if received ACK acknowledges them."

use spikelab_core::Packet;
use std::collections::BTreeMap;

/// Buffered segments of one flow, by first byte.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RetxBuffer {
    segs: BTreeMap<u64, Packet>,
}

impl RetxBuffer {
    /// Stores `pkt` (a later copy of the same segment replaces the earlier one).
    pub fn store(&mut self, pkt: Packet) {
        self.segs.insert(pkt.seq, pkt);
    }

    /// Removes every segment that ends at or below `ack`; returns how many.
    pub fn release_acked(&mut self, ack: u64) -> u32 {
        let before = self.segs.len();
        self.segs.retain(|_, p| p.end_seq() > ack);
        (before - self.segs.len()) as u32
    }

    /// The buffered segment holding byte `seq`, if any.
    pub fn covering(&self, seq: u64) -> Option<&Packet> {
        self.segs
            .range(..=seq)
            .next_back()
            .map(|(_, p)| p)
            .filter(|p| p.end_seq() > seq)
    }

    /// Number of buffered segments.
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    /// Whether nothing is buffered.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// The buffered segments in sequence order.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.segs.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::{FlowId, PacketKind, Time};

    fn seg(seq: u64) -> Packet {
        let mut p = Packet::new(0, FlowId(0), PacketKind::Data, Time::ZERO);
        p.seq = seq;
        p.len = 100;
        p
    }

    #[test]
    fn release_removes_exactly_the_fully_acknowledged_segments() {
        let mut b = RetxBuffer::default();
        for s in [0, 100, 200] {
            b.store(seg(s));
        }
        assert_eq!(b.release_acked(150), 1);
        assert_eq!(b.covering(150).map(|p| p.seq), Some(100));
        assert_eq!(b.covering(300), None);
        assert_eq!(b.release_acked(300), 2);
        assert!(b.is_empty());
    }
}
