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

use crate::config::{Framing, QuicConfig};
use spikelab_core::packet::{IP_HEADER, UDP_HEADER};

/// Short header: flags, an 8-byte destination connection ID, a 4-byte packet number.
pub const SHORT_HEADER: u32 = 1 + 8 + 4;
/// AEAD_AES_128_GCM's tag (RFC 9001 5.3).
pub const AEAD_TAG: u32 = 16;
/// STREAM frame header at its largest: type, stream ID, 8-byte offset, 2-byte length.
pub const STREAM_FRAME_HEADER: u32 = 1 + 1 + 8 + 2;
/// The client's Initial datagram is padded to at least 1200 bytes (RFC 9000 14.1).
pub const CLIENT_INITIAL: u32 = 1200;

/// Under `framing = "quinn"` the client's first 1-RTT packet shares its datagram with
/// the client's last Handshake packet (long header, CRYPTO frame with the TLS
/// Finished, ACK, AEAD tag): bytes in the datagram, not in the 1-RTT packet, so
/// neither counted in flight with it nor acknowledged with it.
pub const QUINN_CLIENT_HANDSHAKE: u32 = 150;
/// ... and the first 1-RTT packet carries quinn's NEW_CONNECTION_ID frames besides its
/// STREAM frame. Both measured from quinn-sim, not derived: its first client 1-RTT
/// packet carries 910 stream bytes where a later one below offset 16384 carries 1170
/// (262 bytes more of other things), and its acknowledgement grows quinn's NewReno
/// window by 1050 bytes where a full packet's grows it by 1200 (150 bytes of the
/// datagram were not the 1-RTT packet's).
pub const QUINN_FIRST_PACKET_FRAMES: u32 = 112;

/// Bytes of the datagram carrying packet `first` that belong to another packet.
pub fn coalesced_bytes(c: &QuicConfig, first: bool) -> u32 {
    match (c.framing, first) {
        (Framing::Quinn, true) => QUINN_CLIENT_HANDSHAKE,
        _ => 0,
    }
}

/// Stream bytes a full-sized packet carries, every header at its largest.
pub fn stream_bytes_per_packet(c: &QuicConfig) -> u64 {
    (c.max_datagram_size - SHORT_HEADER - AEAD_TAG - STREAM_FRAME_HEADER) as u64
}

/// Packet-number bytes for packet `pn` when `largest_acked` is the largest
/// acknowledged (RFC 9000 17.1 and A.2: enough bytes for twice the distance; quinn's
/// `PacketNumber::new`).
pub fn packet_number_len(pn: u64, largest_acked: Option<u64>) -> u32 {
    let range = largest_acked.map_or(pn + 1, |l| pn.saturating_sub(l)) * 2;
    match range {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

/// Bytes of a 1-RTT packet that are not stream data, when it carries stream bytes
/// from `offset` under packet number `pn` (`first`: the client's first 1-RTT packet).
pub fn stream_packet_overhead(
    c: &QuicConfig,
    offset: u64,
    pn: u64,
    largest_acked: Option<u64>,
    first: bool,
) -> u32 {
    match c.framing {
        Framing::Largest => SHORT_HEADER + STREAM_FRAME_HEADER + AEAD_TAG,
        Framing::Quinn => {
            // RFC 9000 19.8: type and stream ID (0: one byte each), the offset only
            // when not 0, no length on the packet's last frame.
            let offset_len = if offset == 0 { 0 } else { varint_len(offset) };
            let header = 1 + 8 + packet_number_len(pn, largest_acked);
            let shared = if first {
                QUINN_CLIENT_HANDSHAKE + QUINN_FIRST_PACKET_FRAMES
            } else {
                0
            };
            header + 1 + 1 + offset_len + AEAD_TAG + shared
        }
    }
}

/// IP bytes of a datagram with `udp_payload` bytes of QUIC.
pub fn ip_bytes(udp_payload: u32) -> u32 {
    IP_HEADER + UDP_HEADER + udp_payload
}

/// IP bytes of a 1-RTT packet carrying `stream_bytes` of one stream with `overhead`
/// bytes of the rest ([`stream_packet_overhead`]).
pub fn data_packet_bytes(stream_bytes: u32, overhead: u32) -> u32 {
    ip_bytes(overhead + stream_bytes)
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
        let overhead = stream_packet_overhead(&c, 1 << 40, 1 << 30, Some(0), false);
        assert_eq!(
            data_packet_bytes(n, overhead),
            ip_bytes(c.max_datagram_size)
        );
        assert_eq!(n, 1159);
    }

    #[test]
    fn quinn_framing_packs_1170_then_1168_stream_bytes_and_910_in_the_first() {
        let c = QuicConfig {
            framing: Framing::Quinn,
            ..QuicConfig::default()
        };
        let fits = |offset, pn, la, first| {
            c.max_datagram_size - stream_packet_overhead(&c, offset, pn, la, first)
        };
        assert_eq!(fits(0, 0, None, true), 910);
        assert_eq!(fits(1170, 5, Some(2), false), 1170);
        assert_eq!(fits(20_000, 30, Some(20), false), 1168);
        assert_eq!(
            fits(20_000, 300, Some(20), false),
            1167,
            "a 2-byte packet number"
        );
    }

    #[test]
    fn the_packet_number_covers_twice_the_distance_to_the_largest_acknowledged() {
        assert_eq!(packet_number_len(127, Some(0)), 1);
        assert_eq!(packet_number_len(128, Some(0)), 2);
        assert_eq!(packet_number_len(10, None), 1);
        assert_eq!(packet_number_len(1 << 23, Some(0)), 4);
    }

    #[test]
    fn varints_take_one_two_four_or_eight_bytes() {
        assert_eq!(
            [0, 63, 64, 16_383, 16_384, 1 << 30].map(varint_len),
            [1, 1, 2, 2, 4, 8]
        );
    }
}
