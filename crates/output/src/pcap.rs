//! Classic libpcap files of simulated packets, readable by tshark and Wireshark.
//!
//! # File format
//! The nanosecond variant of the classic format (magic `0xa1b23c4d`, version 2.4,
//! little-endian), link type `LINKTYPE_RAW` (101): each record starts with an IPv4
//! header. Record timestamps are the simulated [`Time`] exactly.
//!
//! # What a record holds
//! Headers only: the captured length is the IPv4 + TCP (or UDP) header, the original
//! length is the whole packet, so files stay small and tshark marks the payload as
//! "not captured" while its sequence analysis still sees every byte. The IPv4 total
//! length is the packet's [`Packet::wire_bytes`].
//!
//! * IPv4: version 4, IHL 5, DF set, TTL 64, identification = low 16 bits of the packet
//!   uid, protocol 6 (TCP) or 17 (datagrams, UDP), a correct header checksum.
//!   Addresses come from the flow index `f`: the sender is `10.<f>>8>.<f&255>.1`, the
//!   receiver `10.<f>>8>.<f&255>.2` (flow indices above 65535 share addresses).
//! * TCP ports: sender `10000 + f` (mod 2^16), receiver 80. UDP datagrams go from
//!   `10000 + f` to port 9 (discard) with checksum 0 ("none", RFC 768).
//! * Sequence numbers: the simulator counts payload bytes from 0 and does not put the
//!   SYN in that space. On the wire the SYN carries the per-flow ISN ([`isn_sender`]),
//!   and payload byte `s` is `ISN + 1 + s` (mod 2^32); an acknowledgment or SACK edge
//!   `a` is written the same way, so a SYN-ACK with `ack = 0` acknowledges the SYN. The
//!   receiver's SYN-ACK carries [`isn_receiver`] and its later segments that + 1; the
//!   sender's data segments acknowledge it.
//! * Flags: SYN; SYN+ACK; data ACK+PSH; pure ACK.
//! * Window: `min(rwnd, 65535)`, unscaled. No window-scale option is written, because
//!   the core's header budget ([`Packet::tcp_option_bytes`]) has no room for one, and
//!   the pcap must match the simulated wire size byte for byte.
//! * Options, in Linux's order and with Linux's NOP padding whenever the core's byte
//!   budget allows: SYN: MSS ([`DEFAULT_MSS`] unless set), SACK-permitted, timestamps
//!   (`02 04 mss 04 02 08 0a ...`, or `02 04 mss 01 01 04 02` without timestamps);
//!   others: `01 01 08 0a TSval TSecr` and `01 01 05 len blocks`. When both timestamps
//!   and SACK are present the budget is exactly 12 + 8n bytes, so the two options are
//!   packed without NOPs (`08 0a ... 05 len ...`, valid TCP). TSval and TSecr are the low
//!   32 bits of the simulated values. More SACK blocks than fit into TCP's 40 option
//!   bytes are cut from the end (then the record's lengths follow the written header).
//! * The TCP checksum is 0: it covers the payload, which the simulator does not have.
//!   tshark does not verify TCP checksums by default.

use crate::error::{OutputError, Result};
use spikelab_core::{FlowId, Packet, PacketKind, Time};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Magic number of the nanosecond-resolution classic pcap format.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// `LINKTYPE_RAW`: every record begins with an IPv4 or IPv6 header.
pub const LINKTYPE_RAW: u32 = 101;
/// MSS announced in SYNs unless [`PcapWriter::with_mss`] sets another.
pub const DEFAULT_MSS: u16 = 1460;
/// Receiver-side TCP port.
pub const SERVER_PORT: u16 = 80;
/// Destination port of datagrams (discard).
pub const DATAGRAM_PORT: u16 = 9;
/// Snapshot length written in the file header.
const SNAPLEN: u32 = 65_535;
/// IPv4 header + the largest TCP header.
const MAX_HEADERS: usize = 20 + 60;
/// TCP's limit on option bytes (data offset is 4 bits of 32-bit words).
const MAX_OPTION_BYTES: usize = 40;

/// The sender's initial sequence number of flow `flow` (a fixed function of the flow,
/// so files are reproducible).
pub fn isn_sender(flow: FlowId) -> u32 {
    flow.0.wrapping_mul(0x9e37_79b9).wrapping_add(0x1000_0000)
}

/// The receiver's initial sequence number of flow `flow`.
pub fn isn_receiver(flow: FlowId) -> u32 {
    isn_sender(flow) ^ 0x8000_0000
}

/// The IPv4 address of the sender (`host = 1`) or receiver (`host = 2`) of `flow`.
pub fn flow_addr(flow: FlowId, host: u8) -> [u8; 4] {
    [10, (flow.0 >> 8) as u8, flow.0 as u8, host]
}

/// The sender's TCP/UDP port of `flow`.
pub fn flow_port(flow: FlowId) -> u16 {
    10_000u16.wrapping_add(flow.0 as u16)
}

/// The Internet checksum (RFC 1071) of `bytes`: zero the checksum field first; a
/// header with a correct checksum sums to `0` through this function.
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The encoded headers of one packet: the captured bytes and the packet's full length.
#[derive(Clone, Copy, Debug)]
pub struct Headers {
    buf: [u8; MAX_HEADERS],
    len: usize,
    orig_len: u32,
}

impl Headers {
    /// The captured bytes: IPv4 header followed by the TCP or UDP header.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
    /// The full packet length on the wire (the IPv4 total length).
    pub fn orig_len(&self) -> u32 {
        self.orig_len
    }
}

/// Encodes the IPv4 and transport headers of `p`, announcing `mss` in SYNs.
pub fn encode_headers(p: &Packet, mss: u16) -> Result<Headers> {
    let mut h = Headers {
        buf: [0; MAX_HEADERS],
        len: 20,
        orig_len: 0,
    };
    let (proto, l4_len) = match p.kind {
        PacketKind::Datagram => (17, write_udp(p, &mut h.buf[20..])),
        _ => (6, write_tcp(p, mss, &mut h.buf[20..])),
    };
    let total = 20 + l4_len as u32 + p.len;
    let total16 = u16::try_from(total)
        .map_err(|_| OutputError::Pcap(format!("packet uid {} is {total} bytes", p.uid)))?;
    write_ipv4(p, proto, total16, &mut h.buf[..20]);
    h.len = 20 + l4_len;
    h.orig_len = total;
    Ok(h)
}

/// Writes the 20-byte IPv4 header with its checksum.
fn write_ipv4(p: &Packet, proto: u8, total_len: u16, b: &mut [u8]) {
    let (src, dst) = if p.kind.is_forward() { (1, 2) } else { (2, 1) };
    b[0] = 0x45;
    b[1] = 0;
    b[2..4].copy_from_slice(&total_len.to_be_bytes());
    b[4..6].copy_from_slice(&(p.uid as u16).to_be_bytes());
    b[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF, fragment offset 0
    b[8] = 64;
    b[9] = proto;
    b[10..12].fill(0);
    b[12..16].copy_from_slice(&flow_addr(p.flow, src));
    b[16..20].copy_from_slice(&flow_addr(p.flow, dst));
    let sum = internet_checksum(&b[..20]);
    b[10..12].copy_from_slice(&sum.to_be_bytes());
}

/// Writes the 8-byte UDP header of a datagram; returns its length.
fn write_udp(p: &Packet, b: &mut [u8]) -> usize {
    b[0..2].copy_from_slice(&flow_port(p.flow).to_be_bytes());
    b[2..4].copy_from_slice(&DATAGRAM_PORT.to_be_bytes());
    let len = (8 + p.len).min(u16::MAX as u32) as u16;
    b[4..6].copy_from_slice(&len.to_be_bytes());
    b[6..8].fill(0);
    8
}

/// The wire value of a simulator sequence number `off` of the sender's byte stream.
fn wire_seq(flow: FlowId, off: u64) -> u32 {
    isn_sender(flow).wrapping_add(1).wrapping_add(off as u32)
}

/// Sequence number, acknowledgment number and flags of a TCP segment.
fn seq_ack_flags(p: &Packet) -> (u32, u32, u8) {
    const SYN: u8 = 0x02;
    const PSH: u8 = 0x08;
    const ACK: u8 = 0x10;
    let (f, r) = (p.flow, isn_receiver(p.flow));
    match p.kind {
        PacketKind::Syn => (isn_sender(f), 0, SYN),
        PacketKind::SynAck => (r, wire_seq(f, p.ack), SYN | ACK),
        PacketKind::Data => (wire_seq(f, p.seq), r.wrapping_add(1), ACK | PSH),
        PacketKind::Ack | PacketKind::Datagram => (r.wrapping_add(1), wire_seq(f, p.ack), ACK),
    }
}

/// Writes the TCP header with options; returns its length.
fn write_tcp(p: &Packet, mss: u16, b: &mut [u8]) -> usize {
    let opts = build_options(p, mss);
    let len = 20 + opts.len;
    let (seq, ack, flags) = seq_ack_flags(p);
    let (sport, dport) = if p.kind.is_forward() {
        (flow_port(p.flow), SERVER_PORT)
    } else {
        (SERVER_PORT, flow_port(p.flow))
    };
    b[0..2].copy_from_slice(&sport.to_be_bytes());
    b[2..4].copy_from_slice(&dport.to_be_bytes());
    b[4..8].copy_from_slice(&seq.to_be_bytes());
    b[8..12].copy_from_slice(&ack.to_be_bytes());
    b[12] = ((len / 4) as u8) << 4;
    b[13] = flags;
    b[14..16].copy_from_slice(&(p.rwnd.min(65_535) as u16).to_be_bytes());
    b[16..20].fill(0); // checksum (not computable without payload), urgent pointer
    b[20..len].copy_from_slice(opts.bytes());
    len
}

/// TCP option bytes under construction.
struct Options {
    buf: [u8; 64],
    len: usize,
}

impl Options {
    fn push(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }
    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Lays out the options of `p` (see the module docs): Linux's layout if it fits the
/// core's budget, else packed, with at most as many SACK blocks as fit in 40 bytes,
/// then NOP-padded to the budget.
fn build_options(p: &Packet, mss: u16) -> Options {
    let budget = p.tcp_option_bytes() as usize;
    let blocks = p.sack.as_slice();
    let mut n = blocks.len();
    loop {
        for aligned in [true, false] {
            let o = layout_options(p, mss, &blocks[..n], aligned);
            if o.len <= budget.min(MAX_OPTION_BYTES) || (!aligned && n == 0) {
                return pad_options(o, budget);
            }
        }
        n -= 1;
    }
}

/// Pads with NOPs to the budget (capped at 40 bytes) and to a multiple of four.
fn pad_options(mut o: Options, budget: usize) -> Options {
    let target = budget.min(MAX_OPTION_BYTES).max(o.len.div_ceil(4) * 4);
    while o.len < target {
        o.push(&[1]);
    }
    o
}

/// One layout of the options: with Linux's alignment NOPs or packed.
fn layout_options(p: &Packet, mss: u16, blocks: &[(u64, u64)], aligned: bool) -> Options {
    let mut o = Options {
        buf: [0; 64],
        len: 0,
    };
    let nops = |o: &mut Options| {
        if aligned {
            o.push(&[1, 1]);
        }
    };
    let syn = matches!(p.kind, PacketKind::Syn | PacketKind::SynAck);
    if syn {
        o.push(&[2, 4]);
        o.push(&mss.to_be_bytes());
        if p.ts.is_none() {
            nops(&mut o);
        }
        o.push(&[4, 2]);
    }
    if let Some(ts) = p.ts {
        if !syn {
            nops(&mut o);
        }
        o.push(&[8, 10]);
        o.push(&(ts.val as u32).to_be_bytes());
        o.push(&(ts.ecr as u32).to_be_bytes());
    }
    if !blocks.is_empty() {
        nops(&mut o);
        o.push(&[5, (2 + 8 * blocks.len()) as u8]);
        for &(start, end) in blocks {
            o.push(&wire_seq(p.flow, start).to_be_bytes());
            o.push(&wire_seq(p.flow, end).to_be_bytes());
        }
    }
    o
}

/// Writes packets into a pcap stream.
pub struct PcapWriter<W: Write> {
    out: W,
    mss: u16,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a pcap stream: writes the file header.
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(&PCAP_MAGIC_NANOS.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?; // thiszone
        out.write_all(&0u32.to_le_bytes())?; // sigfigs
        out.write_all(&SNAPLEN.to_le_bytes())?;
        out.write_all(&LINKTYPE_RAW.to_le_bytes())?;
        Ok(PcapWriter {
            out,
            mss: DEFAULT_MSS,
        })
    }

    /// Announces `mss` in the MSS option of SYNs and SYN-ACKs.
    pub fn with_mss(mut self, mss: u16) -> Self {
        self.mss = mss;
        self
    }

    /// Appends `p` as seen at `time` (headers captured, payload not).
    pub fn write_packet(&mut self, time: Time, p: &Packet) -> Result<()> {
        let h = encode_headers(p, self.mss)?;
        let secs = u32::try_from(time.0 / 1_000_000_000)
            .map_err(|_| OutputError::Pcap(format!("time {time} does not fit in pcap")))?;
        self.out.write_all(&secs.to_le_bytes())?;
        self.out
            .write_all(&((time.0 % 1_000_000_000) as u32).to_le_bytes())?;
        self.out
            .write_all(&(h.bytes().len() as u32).to_le_bytes())?;
        self.out.write_all(&h.orig_len().to_le_bytes())?;
        self.out.write_all(h.bytes())?;
        Ok(())
    }

    /// Flushes and returns the inner writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Creates the pcap file `path` and writes its header.
pub fn create_pcap(path: impl AsRef<Path>) -> Result<PcapWriter<BufWriter<File>>> {
    Ok(PcapWriter::new(BufWriter::new(File::create(path)?))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Timestamps;

    fn pkt(kind: PacketKind, flow: u32) -> Packet {
        let mut p = Packet::new(0x1_2345, FlowId(flow), kind, Time::ZERO);
        p.rwnd = 100_000;
        p
    }

    fn be16(b: &[u8], at: usize) -> u16 {
        u16::from_be_bytes([b[at], b[at + 1]])
    }

    fn be32(b: &[u8], at: usize) -> u32 {
        u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn checksum_of_a_textbook_header() {
        // Example header from the IPv4 checksum article, checksum 0xb861.
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&h), 0xb861);
        h[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert_eq!(internet_checksum(&h), 0);
    }

    #[test]
    fn syn_with_timestamps_has_linux_option_layout() {
        let mut p = pkt(PacketKind::Syn, 0x0102);
        p.ts = Some(Timestamps {
            val: 0x1_0000_0007,
            ecr: 0,
        });
        let h = encode_headers(&p, 1448).unwrap();
        let b = h.bytes();
        assert_eq!(b.len(), 20 + 20 + 16);
        assert_eq!(h.orig_len(), p.wire_bytes());
        // IPv4
        assert_eq!(b[0], 0x45);
        assert_eq!(be16(b, 2) as u32, p.wire_bytes());
        assert_eq!(be16(b, 4), 0x2345);
        assert_eq!(b[9], 6);
        assert_eq!(&b[12..16], &[10, 1, 2, 1]);
        assert_eq!(&b[16..20], &[10, 1, 2, 2]);
        assert_eq!(internet_checksum(&b[..20]), 0);
        // TCP
        let t = &b[20..];
        assert_eq!(be16(t, 0), 10_000 + 0x0102);
        assert_eq!(be16(t, 2), 80);
        assert_eq!(be32(t, 4), isn_sender(FlowId(0x0102)));
        assert_eq!(be32(t, 8), 0);
        assert_eq!(t[12], 9 << 4);
        assert_eq!(t[13], 0x02);
        assert_eq!(be16(t, 14), 65_535);
        assert_eq!(be16(t, 16), 0);
        assert_eq!(&t[20..28], &[2, 4, 0x05, 0xa8, 4, 2, 8, 10]);
        assert_eq!(be32(t, 28), 7); // low 32 bits of TSval
        assert_eq!(be32(t, 32), 0);
    }

    #[test]
    fn syn_without_timestamps_pads_sack_permitted_with_nops() {
        let h = encode_headers(&pkt(PacketKind::Syn, 0), DEFAULT_MSS).unwrap();
        assert_eq!(&h.bytes()[40..], &[2, 4, 0x05, 0xb4, 1, 1, 4, 2]);
    }

    #[test]
    fn syn_ack_acknowledges_the_syn_from_the_receiver() {
        let h = encode_headers(&pkt(PacketKind::SynAck, 3), DEFAULT_MSS).unwrap();
        let b = h.bytes();
        assert_eq!(
            (&b[12..16], &b[16..20]),
            (&[10, 0, 3, 2][..], &[10, 0, 3, 1][..])
        );
        let t = &b[20..];
        assert_eq!((be16(t, 0), be16(t, 2)), (80, 10_003));
        assert_eq!(be32(t, 4), isn_receiver(FlowId(3)));
        assert_eq!(be32(t, 8), isn_sender(FlowId(3)).wrapping_add(1));
        assert_eq!(t[13], 0x12);
    }

    #[test]
    fn data_segment_with_timestamps_and_sack() {
        let mut p = pkt(PacketKind::Data, 7);
        p.seq = 2_000;
        p.len = 1_000;
        p.ts = Some(Timestamps { val: 500, ecr: 400 });
        p.sack.push(3_000, 5_000);
        let h = encode_headers(&p, DEFAULT_MSS).unwrap();
        let (b, isn) = (h.bytes(), isn_sender(FlowId(7)));
        assert_eq!(b.len(), 40 + 20);
        assert_eq!(h.orig_len(), p.wire_bytes());
        assert_eq!(be16(b, 2) as u32, 1_060);
        assert_eq!(internet_checksum(&b[..20]), 0);
        let t = &b[20..];
        assert_eq!(be32(t, 4), isn.wrapping_add(1 + 2_000));
        assert_eq!(be32(t, 8), isn_receiver(FlowId(7)).wrapping_add(1));
        assert_eq!(t[12], 10 << 4);
        assert_eq!(t[13], 0x18); // ACK | PSH
        assert_eq!(&t[20..22], &[8, 10]); // packed: 10 + 10 bytes fill the budget
        assert_eq!((be32(t, 22), be32(t, 26)), (500, 400));
        assert_eq!(&t[30..32], &[5, 10]);
        assert_eq!(be32(t, 32), isn.wrapping_add(1 + 3_000));
        assert_eq!(be32(t, 36), isn.wrapping_add(1 + 5_000));
    }

    #[test]
    fn timestamps_alone_and_sack_alone_follow_linux_nop_layout() {
        let mut a = pkt(PacketKind::Ack, 0);
        a.ts = Some(Timestamps { val: 1, ecr: 2 });
        let h = encode_headers(&a, DEFAULT_MSS).unwrap();
        assert_eq!(&h.bytes()[40..44], &[1, 1, 8, 10]);
        let mut s = pkt(PacketKind::Ack, 0);
        s.sack.push(10, 20);
        s.sack.push(30, 40);
        let h = encode_headers(&s, DEFAULT_MSS).unwrap();
        assert_eq!(h.bytes().len(), 40 + 20);
        assert_eq!(&h.bytes()[40..44], &[1, 1, 5, 18]);
    }

    #[test]
    fn three_sack_blocks_and_timestamps_fill_the_forty_option_bytes() {
        let mut a = pkt(PacketKind::Ack, 0);
        a.ts = Some(Timestamps::default());
        for i in 0..3 {
            a.sack.push(100 * i + 10, 100 * i + 20);
        }
        let h = encode_headers(&a, DEFAULT_MSS).unwrap();
        // Linux's NOP layout would need 12 + 4 + 24 = 40 bytes; the core counts
        // 10 + 2 + 24 = 36, so the options are packed: TS at once, then SACK.
        assert_eq!(h.bytes().len(), 76);
        assert_eq!(h.bytes()[40..42], [8, 10]);
        assert_eq!(h.bytes()[50..52], [5, 26]);
        assert_eq!(be16(h.bytes(), 2) as u32, h.orig_len());
    }

    #[test]
    fn datagrams_are_udp() {
        let mut d = pkt(PacketKind::Datagram, 1);
        d.len = 972;
        let h = encode_headers(&d, DEFAULT_MSS).unwrap();
        let b = h.bytes();
        assert_eq!((b.len(), h.orig_len(), b[9]), (28, 1_000, 17));
        assert_eq!((be16(b, 20), be16(b, 22), be16(b, 24)), (10_001, 9, 980));
    }

    #[test]
    fn oversized_packets_are_refused() {
        let mut d = pkt(PacketKind::Data, 0);
        d.len = 70_000;
        assert!(encode_headers(&d, DEFAULT_MSS).is_err());
    }

    #[test]
    fn file_and_record_headers() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        let mut p = pkt(PacketKind::Data, 0);
        p.len = 100;
        w.write_packet(Time(3_000_000_042), &p).unwrap();
        let f = w.into_inner().unwrap();
        assert_eq!(&f[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&f[20..24], &101u32.to_le_bytes());
        let rec = &f[24..];
        assert_eq!(&rec[0..4], &3u32.to_le_bytes());
        assert_eq!(&rec[4..8], &42u32.to_le_bytes());
        assert_eq!(&rec[8..12], &40u32.to_le_bytes());
        assert_eq!(&rec[12..16], &140u32.to_le_bytes());
        assert_eq!(rec.len(), 16 + 40);
    }
}
