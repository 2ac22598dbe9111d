//! The sender's records of packets sent and not yet acknowledged or declared lost
//! (RFC 9002 A.1.1 `sent_packets`), with bytes_in_flight (A.2, B.2) kept beside them.

use spikelab_core::Time;
use std::collections::BTreeMap;

/// One sent packet (RFC 9002 A.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentPacket {
    pub time_sent: Time,
    /// sent_bytes: the UDP payload (QUIC framing included, UDP and IP not).
    pub bytes: u64,
    pub ack_eliciting: bool,
    pub in_flight: bool,
    /// The stream bytes it carried: `len` bytes from `offset`.
    pub offset: u64,
    pub len: u64,
}

/// Outstanding packets by packet number.
#[derive(Clone, Debug, Default)]
pub struct SentPackets {
    map: BTreeMap<u64, SentPacket>,
    bytes_in_flight: u64,
    eliciting_in_flight: u64,
}

impl SentPackets {
    pub fn new() -> SentPackets {
        SentPackets::default()
    }

    /// Records packet `pn` (numbers only grow: RFC 9000 12.3, never reused).
    pub fn on_sent(&mut self, pn: u64, p: SentPacket) {
        debug_assert!(self.map.last_key_value().is_none_or(|(&k, _)| k < pn));
        if p.in_flight {
            self.bytes_in_flight += p.bytes;
            self.eliciting_in_flight += p.ack_eliciting as u64;
        }
        self.map.insert(pn, p);
    }

    /// Removes packet `pn` (acknowledged or declared lost), out of flight.
    pub fn remove(&mut self, pn: u64) -> Option<SentPacket> {
        let p = self.map.remove(&pn)?;
        if p.in_flight {
            self.bytes_in_flight -= p.bytes;
            self.eliciting_in_flight -= p.ack_eliciting as u64;
        }
        Some(p)
    }

    pub fn get(&self, pn: u64) -> Option<&SentPacket> {
        self.map.get(&pn)
    }

    pub fn bytes_in_flight(&self) -> u64 {
        self.bytes_in_flight
    }

    /// Ack-eliciting packets in flight.
    pub fn eliciting_in_flight(&self) -> u64 {
        self.eliciting_in_flight
    }

    /// The outstanding packets numbered in `lo..=hi`, ascending.
    pub fn range(&self, lo: u64, hi: u64) -> impl Iterator<Item = (u64, &SentPacket)> {
        self.map.range(lo..=hi).map(|(&k, v)| (k, v))
    }

    /// Every outstanding packet, ascending.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &SentPacket)> {
        self.map.iter().map(|(&k, v)| (k, v))
    }

    /// The counters agree with the records.
    pub fn check(&self) -> Result<(), String> {
        let (mut bytes, mut eliciting) = (0, 0);
        for p in self.map.values().filter(|p| p.in_flight) {
            bytes += p.bytes;
            eliciting += p.ack_eliciting as u64;
        }
        if (bytes, eliciting) != (self.bytes_in_flight, self.eliciting_in_flight) {
            return Err(format!(
                "bytes_in_flight {} / ack-eliciting {} but the records hold {bytes} / {eliciting}",
                self.bytes_in_flight, self.eliciting_in_flight
            ));
        }
        Ok(())
    }
}
