//! Real IPv4/TCP packets (and CBR's UDP datagrams) in and out of crates/net's packet
//! model.
//!
//! [`parse`] reads the fields the model carries from a raw packet (etherparse);
//! [`FlowSeq`] maps the kernel's 32-bit sequence numbers, which start at a random ISN
//! and wrap (RFC 793 3.3), onto the model's 64-bit byte offsets that start at 0 with
//! the first payload byte; [`rewrite`] writes changed sequence/ACK numbers back into a
//! raw packet with a fresh checksum.

use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice, TcpOptionElement};
use spikelab_core::{FlowId, Packet, PacketKind, SackBlocks, Time, Timestamps};

/// The TCP fields of one raw IPv4 packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u32,
    pub ack: u32,
    pub ack_flag: bool,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    pub window: u16,
    pub payload: u32,
    pub ts: Option<(u32, u32)>,
    pub sack: Vec<(u32, u32)>,
    pub wscale: Option<u8>,
    /// IPv4 total length: the packet's size on the link.
    pub wire: u32,
}

/// The TCP segment in `raw`, or `None` for anything that is not unfragmented IPv4/TCP.
pub fn parse(raw: &[u8]) -> Option<Segment> {
    let ip = Ipv4HeaderSlice::from_slice(raw).ok()?;
    if ip.protocol() != etherparse::IpNumber::TCP || ip.is_fragmenting_payload() {
        return None;
    }
    let ip_len = ip.slice().len();
    let total = (ip.total_len() as usize).min(raw.len());
    let tcp = TcpHeaderSlice::from_slice(raw.get(ip_len..total)?).ok()?;
    let payload = (total - ip_len - tcp.slice().len()) as u32;
    let mut s = Segment {
        seq: tcp.sequence_number(),
        ack: tcp.acknowledgment_number(),
        ack_flag: tcp.ack(),
        syn: tcp.syn(),
        fin: tcp.fin(),
        rst: tcp.rst(),
        window: tcp.window_size(),
        payload,
        ts: None,
        sack: Vec::new(),
        wscale: None,
        wire: total as u32,
    };
    for opt in tcp.options_iterator().flatten() {
        match opt {
            TcpOptionElement::Timestamp(v, e) => s.ts = Some((v, e)),
            TcpOptionElement::WindowScale(w) => s.wscale = Some(w),
            TcpOptionElement::SelectiveAcknowledgement(first, rest) => {
                s.sack.push(first);
                s.sack.extend(rest.iter().flatten());
            }
            _ => {}
        }
    }
    Some(s)
}

/// The model packet for a raw IPv4/UDP datagram (CBR cross traffic): a
/// [`PacketKind::Datagram`] of its payload length, sized as the real packet. `None` for
/// anything that is not unfragmented IPv4/UDP.
pub fn datagram(raw: &[u8], flow: FlowId, now: Time) -> Option<Packet> {
    let ip = Ipv4HeaderSlice::from_slice(raw).ok()?;
    if ip.protocol() != etherparse::IpNumber::UDP || ip.is_fragmenting_payload() {
        return None;
    }
    let ip_len = ip.slice().len();
    let total = (ip.total_len() as usize).min(raw.len());
    let udp = etherparse::UdpHeaderSlice::from_slice(raw.get(ip_len..total)?).ok()?;
    let mut p = Packet::new(0, flow, PacketKind::Datagram, now);
    p.len = (udp.length() as u32).saturating_sub(8);
    p.seal_as(total as u32);
    Some(p)
}

/// Unwraps 32-bit offsets into a 64-bit byte space: each value is taken as the 64-bit
/// number nearest to the highest seen so far with the same low 32 bits (valid while
/// the numbers in use span less than 2^31, which TCP's window rules guarantee,
/// RFC 7323 2.3).
#[derive(Clone, Copy, Debug, Default)]
pub struct Unwrap {
    high: u64,
}

impl Unwrap {
    /// The 64-bit value of the 32-bit offset `off`.
    pub fn map(&mut self, off: u32) -> u64 {
        let diff = off.wrapping_sub(self.high as u32) as i32 as i64;
        let v = (self.high as i64 + diff).max(0) as u64;
        self.high = self.high.max(v);
        v
    }

    /// The 32-bit offset of a 64-bit value (the inverse of `map`).
    pub fn low(v: u64) -> u32 {
        v as u32
    }
}

/// Which end of the flow a packet came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sender,
    Receiver,
}

/// Per flow: both ends' ISNs and window scales, and the two unwrapped byte spaces.
#[derive(Clone, Debug, Default)]
pub struct FlowSeq {
    isn_s: Option<u32>,
    isn_r: Option<u32>,
    wscale_s: u8,
    wscale_r: u8,
    space_s: Unwrap,
    space_r: Unwrap,
}

/// A raw packet as the model sees it, and whether a middlebox may see it.
pub struct Modelled {
    pub pkt: Packet,
    /// Packets outside the model's vocabulary (the sender's pure ACKs and FINs, the
    /// receiver's FIN, resets) cross the links but pass middleboxes untouched.
    pub box_eligible: bool,
}

impl FlowSeq {
    /// The model packet for `seg` from `side`, or `None` before the handshake told the
    /// ISN (a stray packet).
    pub fn model(
        &mut self,
        seg: &Segment,
        side: Side,
        flow: FlowId,
        now: Time,
    ) -> Option<Modelled> {
        if seg.syn {
            self.note_syn(seg, side);
        }
        let (isn_s, isn_r) = (self.isn_s?, self.isn_r);
        let ack_s = |me: &mut Self| me.space_s.map(seg.ack.wrapping_sub(isn_s.wrapping_add(1)));
        let mut p;
        let eligible;
        match side {
            Side::Sender => {
                let has_data = seg.payload > 0 && !seg.syn;
                p = Packet::new(
                    0,
                    flow,
                    if seg.syn {
                        PacketKind::Syn
                    } else {
                        PacketKind::Data
                    },
                    now,
                );
                if !seg.syn {
                    p.seq = self
                        .space_s
                        .map(seg.seq.wrapping_sub(isn_s.wrapping_add(1)));
                    p.len = seg.payload;
                }
                if let (true, Some(r)) = (seg.ack_flag, isn_r) {
                    p.ack = self.space_r.map(seg.ack.wrapping_sub(r.wrapping_add(1)));
                }
                p.rwnd = (seg.window as u32) << self.wscale_s;
                eligible = (seg.syn || has_data) && !seg.rst;
            }
            Side::Receiver => {
                let r = isn_r?;
                let kind = if seg.syn {
                    PacketKind::SynAck
                } else {
                    PacketKind::Ack
                };
                p = Packet::new(0, flow, kind, now);
                if !seg.syn {
                    p.seq = self.space_r.map(seg.seq.wrapping_sub(r.wrapping_add(1)));
                }
                p.ack = ack_s(self);
                p.rwnd = (seg.window as u32) << self.wscale_r;
                let mut sack = SackBlocks::new();
                for &(a, b) in &seg.sack {
                    let (a, b) = (
                        self.space_s.map(a.wrapping_sub(isn_s.wrapping_add(1))),
                        self.space_s.map(b.wrapping_sub(isn_s.wrapping_add(1))),
                    );
                    if a < b {
                        sack.push(a, b);
                    }
                }
                p.set_sack(&sack);
                eligible = seg.payload == 0 && !seg.fin && !seg.rst;
            }
        }
        p.set_ts(seg.ts.map(|(v, e)| Timestamps {
            val: v as u64,
            ecr: e as u64,
        }));
        p.seal_as(seg.wire);
        Some(Modelled {
            pkt: p,
            box_eligible: eligible,
        })
    }

    fn note_syn(&mut self, seg: &Segment, side: Side) {
        let scale = seg.wscale.unwrap_or(0).min(14);
        match side {
            Side::Sender => {
                self.isn_s = Some(seg.seq);
                self.wscale_s = scale;
            }
            Side::Receiver => {
                self.isn_r = Some(seg.seq);
                self.wscale_r = scale;
            }
        }
    }

    /// The 32-bit sequence and ACK numbers that model packet `p` stands for.
    pub fn wire_numbers(&self, p: &Packet) -> Option<(u32, u32)> {
        let (s, r) = (self.isn_s?, self.isn_r?);
        let off = |isn: u32, v: u64| isn.wrapping_add(1).wrapping_add(Unwrap::low(v));
        Some(if p.kind.is_forward() {
            (off(s, p.seq), off(r, p.ack))
        } else {
            (off(r, p.seq), off(s, p.ack))
        })
    }
}

/// `raw` with its TCP sequence and ACK numbers set to `seq`, `ack` and the TCP
/// checksum recomputed (RFC 793 3.1); `None` if `raw` is not IPv4/TCP.
pub fn rewrite(raw: &[u8], seq: u32, ack: u32) -> Option<Vec<u8>> {
    let ip = Ipv4HeaderSlice::from_slice(raw).ok()?;
    let ip_len = ip.slice().len();
    let total = (ip.total_len() as usize).min(raw.len());
    let tcp_slice = TcpHeaderSlice::from_slice(raw.get(ip_len..total)?).ok()?;
    let tcp_len = tcp_slice.slice().len();
    let mut tcp = tcp_slice.to_header();
    tcp.sequence_number = seq;
    tcp.acknowledgment_number = ack;
    let payload = &raw[ip_len + tcp_len..total];
    tcp.checksum = tcp
        .calc_checksum_ipv4_raw(ip.source(), ip.destination(), payload)
        .ok()?;
    let mut out = raw[..total].to_vec();
    let mut head = Vec::with_capacity(tcp_len);
    tcp.write(&mut head).ok()?;
    out[ip_len..ip_len + tcp_len].copy_from_slice(&head);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;
    use proptest::prelude::*;

    fn tcp_packet(seq: u32, ack: u32, syn: bool, payload: &[u8]) -> Vec<u8> {
        let mut b = PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .tcp(40000, 5001, seq, 1000)
            .ack(ack);
        if syn {
            b = b.syn();
        }
        let b = b.options(&[TcpOptionElement::Timestamp(7, 9)]).unwrap();
        let mut out = Vec::new();
        b.write(&mut out, payload).unwrap();
        out
    }

    #[test]
    fn a_segment_parses_with_its_payload_length_and_timestamps() {
        let raw = tcp_packet(5, 6, false, &[0u8; 100]);
        let s = parse(&raw).unwrap();
        assert_eq!((s.seq, s.ack, s.payload), (5, 6, 100));
        assert_eq!(s.ts, Some((7, 9)));
        assert_eq!(s.wire as usize, raw.len());
    }

    #[test]
    fn sequence_numbers_start_at_zero_after_the_syn_even_across_the_wrap() {
        let isn = u32::MAX - 10;
        let mut fs = FlowSeq::default();
        let syn = parse(&tcp_packet(isn, 0, true, &[])).unwrap();
        fs.model(&syn, Side::Sender, FlowId(0), Time::ZERO).unwrap();
        let synack = parse(&tcp_packet(77, isn.wrapping_add(1), true, &[])).unwrap();
        fs.model(&synack, Side::Receiver, FlowId(0), Time::ZERO)
            .unwrap();
        let d = parse(&tcp_packet(
            isn.wrapping_add(1).wrapping_add(1000),
            78,
            false,
            &[1; 10],
        ))
        .unwrap();
        let m = fs.model(&d, Side::Sender, FlowId(0), Time::ZERO).unwrap();
        assert_eq!(
            (m.pkt.seq, m.pkt.len, m.pkt.kind),
            (1000, 10, PacketKind::Data)
        );
        assert!(m.box_eligible);
        assert_eq!(fs.wire_numbers(&m.pkt), Some((d.seq, d.ack)));
    }

    #[test]
    fn the_senders_pure_ack_bypasses_middleboxes() {
        let mut fs = FlowSeq::default();
        fs.model(
            &parse(&tcp_packet(1, 0, true, &[])).unwrap(),
            Side::Sender,
            FlowId(0),
            Time::ZERO,
        );
        fs.model(
            &parse(&tcp_packet(9, 2, true, &[])).unwrap(),
            Side::Receiver,
            FlowId(0),
            Time::ZERO,
        );
        let m = fs
            .model(
                &parse(&tcp_packet(2, 10, false, &[])).unwrap(),
                Side::Sender,
                FlowId(0),
                Time::ZERO,
            )
            .unwrap();
        assert!(!m.box_eligible);
        assert!(m.pkt.kind.is_forward());
    }

    #[test]
    fn a_udp_datagram_becomes_a_model_datagram_of_its_payload() {
        let mut raw = Vec::new();
        PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(40000, 5001)
            .write(&mut raw, &[7u8; 210])
            .unwrap();
        let p = datagram(&raw, FlowId(3), Time::ZERO).unwrap();
        assert_eq!(
            (p.kind, p.len, p.flow),
            (PacketKind::Datagram, 210, FlowId(3))
        );
        assert_eq!(p.wire_bytes(), 238);
        assert!(datagram(&tcp_packet(1, 2, false, &[0; 10]), FlowId(0), Time::ZERO).is_none());
        assert!(parse(&raw).is_none());
    }

    #[test]
    fn rewrite_sets_numbers_and_a_valid_checksum() {
        let raw = tcp_packet(5, 6, false, &[3u8; 50]);
        let out = rewrite(&raw, 1234, 5678).unwrap();
        let ip = Ipv4HeaderSlice::from_slice(&out).unwrap();
        let tcp = TcpHeaderSlice::from_slice(&out[20..]).unwrap();
        assert_eq!(
            (tcp.sequence_number(), tcp.acknowledgment_number()),
            (1234, 5678)
        );
        let want = tcp
            .calc_checksum_ipv4_raw(
                ip.source(),
                ip.destination(),
                &out[20 + tcp.slice().len()..],
            )
            .unwrap();
        assert_eq!(tcp.checksum(), want);
        assert_ne!(out, raw);
    }

    proptest! {
        #[test]
        fn unwrapping_a_walk_recovers_the_64_bit_values(start in 0u64..(1 << 40), steps in proptest::collection::vec(-(1i64 << 30)..(1i64 << 30), 1..50)) {
            let mut u = Unwrap { high: start };
            let mut v = start as i64;
            let mut high = start as i64;
            for s in steps {
                v = (v + s).max(high - (1 << 30)).max(0);
                prop_assert_eq!(u.map(v as u32), v as u64);
                high = high.max(v);
            }
        }
    }
}
