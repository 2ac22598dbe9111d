//! What a QUIC packet of the model occupies on the wire, and how it rides in the
//! simulator's one packet type ([`spikelab_core::Packet`], which has TCP's fields).
//!
//! Sizes are those of real QUIC v1 packets (RFC 9000 17, 19): a 1-RTT packet is a
//! short header (1 byte of flags, an 8-byte destination connection ID as quinn uses,
//! a packet number of at most 4 bytes), its frames, and the AEAD tag of 16 bytes (RFC
//! 9001 5.3); the datagram adds UDP's 8 and IPv4's 20 bytes. A STREAM frame is counted
//! at its largest header (type, stream ID, an 8-byte offset, a 2-byte length), so a
//! full packet carries [`stream_bytes_per_packet`] bytes of stream data.
//!
//! The mapping onto [`Packet`]'s fields (the network reads only sizes and identity):
//!
//! | QUIC packet | `kind` | `seq` | `len` | `ack` |
//! |---|---|---|---|---|
//! | client Initial (handshake, 1200 B padded) | `Syn` | 0 | 0 | 0 |
//! | server Initial + Handshake (one datagram) | `SynAck` | 0 | 0 | 0 |
//! | 1-RTT STREAM (or PING) | `Data` | stream offset | stream bytes | packet number |
//! | 1-RTT ACK only | `Ack` | its packet number | 0 | largest acknowledged |
//!
//! `retx` marks a packet carrying stream bytes sent before (a retransmission is new
//! data in a new packet, RFC 9002 2). The ACK frame's ranges and ack_delay do not fit
//! a [`Packet`]; the transport keeps them beside the connection, keyed by the ACK
//! packet's number (the ack module's `AckFrame`).

use crate::config::QuicConfig;
use spikelab_core::packet::{IP_HEADER, UDP_HEADER};

/// Short header: flags, an 8-byte destination connection ID, a 4-byte packet number.
pub const SHORT_HEADER: u32 = 1 + 8 + 4;
/// AEAD_AES_128_GCM's tag (RFC 9001 5.3).
pub const AEAD_TAG: u32 = 16;
/// STREAM frame header at its largest: type, stream ID, 8-byte offset, 2-byte length.
pub const STREAM_FRAME_HEADER: u32 = 1 + 1 + 8 + 2;
/// The client's Initial datagram is padded to at least 1200 bytes (RFC 9000 14.1).
pub const CLIENT_INITIAL: u32 = 1200;

/// Stream bytes a full-sized packet carries.
pub fn stream_bytes_per_packet(c: &QuicConfig) -> u64 {
    (c.max_datagram_size - SHORT_HEADER - AEAD_TAG - STREAM_FRAME_HEADER) as u64
}

/// IP bytes of a datagram with `udp_payload` bytes of QUIC.
pub fn ip_bytes(udp_payload: u32) -> u32 {
    IP_HEADER + UDP_HEADER + udp_payload
}

/// IP bytes of a 1-RTT packet carrying `stream_bytes` of one stream.
pub fn data_packet_bytes(stream_bytes: u32) -> u32 {
    ip_bytes(SHORT_HEADER + STREAM_FRAME_HEADER + stream_bytes + AEAD_TAG)
}

/// Bytes of a variable-length integer (RFC 9000 16).
pub fn varint_len(v: u64) -> u32 {
    match v {
        0..=63 => 1,
        64..=16_383 => 2,
        16_384..=1_073_741_823 => 4,
        _ => 8,
    }
}

/// IP bytes of a packet holding only an ACK frame of `frame` bytes.
pub fn ack_packet_bytes(frame: u32) -> u32 {
    ip_bytes(SHORT_HEADER + frame + AEAD_TAG)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_packet_fills_the_datagram_exactly() {
        let c = QuicConfig::default();
        let n = stream_bytes_per_packet(&c) as u32;
        assert_eq!(data_packet_bytes(n), ip_bytes(c.max_datagram_size));
        assert_eq!(n, 1159);
    }

    #[test]
    fn varints_take_one_two_four_or_eight_bytes() {
        assert_eq!(
            [0, 63, 64, 16_383, 16_384, 1 << 30].map(varint_len),
            [1, 1, 2, 2, 4, 8]
        );
    }
}
