//! The packets inside the network, kept in one arena while links carry 8-byte handles.
//!
//! A [`Packet`] is 128 bytes (144 before its options' tags were packed). Carried inline, it
//! was copied at every step of every hop (into the queue, out to the transmitter, into
//! the propagation pipe, out to the delivery list, into the next queue): profiles put
//! those copies at the top of the engine's cost, and the propagation pipes of a
//! 1000-flow run at half its memory.
//! Links only read a packet's size ([`Wire`]), so the engine stores each packet once
//! here and moves a [`Slot`] (index and wire size) through queues and pipes; a packet
//! continuing to its next link stays where it is.
//!
//! Which slot a packet gets never affects a result: slots are only storage, and the
//! packets' order is still kept by the queues and pipes.

use spikelab_core::{Packet, Wire};

/// A handle to a packet in the [`Arena`]: what links carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    index: u32,
    wire: u32,
}

impl Wire for Slot {
    fn wire_bytes(&self) -> u32 {
        self.wire
    }
}

/// Packets in the network, by [`Slot`]; freed slots are reused first.
#[derive(Debug, Default)]
pub struct Arena {
    packets: Vec<Packet>,
    free: Vec<u32>,
}

impl Arena {
    /// Stores a copy of `p` (sealed: its wire size is fixed) and returns its handle.
    /// Always inlined: called for every packet an endpoint or a box sends.
    #[inline(always)]
    pub fn put(&mut self, p: &Packet) -> Slot {
        let wire = p.wire_bytes();
        let index = match self.free.pop() {
            Some(i) => {
                self.packets[i as usize] = *p;
                i
            }
            None => {
                let i = u32::try_from(self.packets.len()).expect("over 2^32 packets in flight");
                self.packets.push(*p);
                i
            }
        };
        Slot { index, wire }
    }

    /// The packet behind `s`.
    pub fn get(&self, s: Slot) -> &Packet {
        &self.packets[s.index as usize]
    }

    /// Asks the processor to bring the packet behind `s` into its caches, for a read
    /// soon ([`crate::prefetch`]); changes nothing else.
    #[inline(always)]
    pub fn prefetch(&self, s: Slot) {
        if let Some(p) = self.packets.get(s.index as usize) {
            crate::prefetch::lines(p);
        }
    }

    /// The packet behind `s`, to update in place (its size must not change).
    pub fn get_mut(&mut self, s: Slot) -> &mut Packet {
        &mut self.packets[s.index as usize]
    }

    /// Removes the packet behind `s` and frees its slot.
    pub fn take(&mut self, s: Slot) -> Packet {
        self.free.push(s.index);
        self.packets[s.index as usize]
    }

    /// Frees the slot of `s`, whose packet was read in place.
    pub fn free(&mut self, s: Slot) {
        self.free.push(s.index);
    }

    /// Packets stored.
    pub fn len(&self) -> usize {
        self.packets.len() - self.free.len()
    }

    /// No packet stored?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::{FlowId, PacketKind, Time};

    fn pkt(uid: u64, len: u32) -> Packet {
        let mut p = Packet::new(uid, FlowId(0), PacketKind::Data, Time::ZERO);
        p.len = len;
        p.seal();
        p
    }

    #[test]
    fn a_slot_gives_back_the_packet_and_its_wire_size() {
        let mut a = Arena::default();
        let s = a.put(&pkt(7, 1000));
        assert_eq!(s.wire_bytes(), pkt(7, 1000).wire_bytes());
        assert_eq!(a.get(s).uid, 7);
        assert_eq!(a.take(s), pkt(7, 1000));
        assert!(a.is_empty());
    }

    #[test]
    fn freed_slots_are_reused_and_live_packets_kept() {
        let mut a = Arena::default();
        let s1 = a.put(&pkt(1, 10));
        let s2 = a.put(&pkt(2, 20));
        a.take(s1);
        let s3 = a.put(&pkt(3, 30));
        assert_eq!(s3.index, s1.index, "the freed slot is reused");
        assert_eq!(a.get(s2).uid, 2);
        assert_eq!(a.get(s3).uid, 3);
        assert_eq!(a.len(), 2);
        a.get_mut(s2).hop = 4;
        assert_eq!(a.take(s2).hop, 4);
    }
}
