//! Classic libpcap files of simulated packets, readable by tshark and Wireshark.
//!
//! # File format
//! The nanosecond variant of the classic format (magic `0xa1b23c4d`, version 2.4,
//! little-endian), link type `LINKTYPE_RAW` (101): each record starts with an IPv4
//! header. Record timestamps are the simulated [`Time`] exactly.
//!
//! # Vantage points
//! A flow can be captured at its sender or at its receiver ([`Vantage`]). The sender
//! sees what it sends when it hands it to the network and what it receives when it
//! arrives; the receiver likewise, after the path (queueing, spikes, middleboxes). So a
//! receiver capture shows a spurious retransmission arriving after the original was
//! already acknowledged, which Wireshark flags as `tcp.analysis.spurious_retransmission`;
//! a sender capture cannot show that (the sender never retransmits acknowledged data).
//!
//! # What a record holds
//! Headers only by default: the captured length is the IPv4 + TCP (or UDP) header, the
//! original length is the whole packet, so files stay small and tshark marks the payload
//! as "not captured" while its sequence analysis still sees every byte.
//! [`PcapWriter::with_payload`] also writes the payload (zero bytes, see checksums).
//!
//! * IPv4 (built and checksummed with `etherparse`): version 4, IHL 5, DF set, TTL 64,
//!   identification = low 16 bits of the packet uid, protocol 6 (TCP) or 17 (UDP), a
//!   correct header checksum. Addresses come from the flow index `f`: the sender is
//!   `10.<f>>8>.<f&255>.1`, the receiver `10.<f>>8>.<f&255>.2` (flow indices above 65535
//!   share addresses). The total length is the packet's [`Packet::wire_bytes`] (but see
//!   window scaling).
//! * TCP ports: sender `10000 + f` (mod 2^16), receiver 80. UDP datagrams go from
//!   `10000 + f` to port 9 (discard).
//! * Sequence numbers: the simulator counts payload bytes from 0 and does not put the
//!   SYN in that space. On the wire the SYN carries the per-flow ISN ([`isn_sender`]),
//!   and payload byte `s` is `ISN + 1 + s` (mod 2^32); an acknowledgment or SACK edge
//!   `a` is written the same way, so a SYN-ACK with `ack = 0` acknowledges the SYN. The
//!   receiver's SYN-ACK carries [`isn_receiver`] and its later segments that + 1; the
//!   sender's data segments acknowledge it.
//! * Flags: SYN; SYN+ACK; data ACK, with PSH where the sending stack set it
//!   ([`Packet::push`], [`PcapWriter::with_stack_push`]: a `linux` sender marks the
//!   last segment of each skb of two or more) or, for a stack that does not choose,
//!   on every data segment; pure ACK; FIN+ACK (the synthesised close).
//! * Checksums: every TCP and UDP checksum is correct for the packet with a payload of
//!   zero bytes, the payload [`PcapWriter::with_payload`] writes (the simulator carries
//!   no payload bytes). Wireshark with `tcp.check_checksum:TRUE` reports segments
//!   without payload (SYN, ACK, FIN) as good, and data segments as good in payload
//!   files and "unverified" (not bad) in header-only files, whose payload it lacks.
//!
//! # Windows
//! The simulator's packets carry a window only where a TCP reads one: the receiver's
//! advertised window on ACKs and SYN-ACKs ([`Packet::rwnd`]). The sender's own receive
//! window, which its segments advertise on a real wire, is not simulated (a bulk
//! sender receives no data); the writer takes the hosts' receive buffer from
//! [`Hosts::window`] (the flow's `receiver_window`: both hosts of a flow run the same
//! TCP configuration) and advertises it in every sender segment, so no segment shows a
//! zero window.
//!
//! Window scaling (RFC 7323 section 2): when [`Hosts::window`] exceeds 65535, both the
//! SYN and the SYN-ACK carry a window-scale option with the smallest shift (at most 14)
//! that brings the window into 16 bits ([`window_shift`]); every later segment writes
//! its window right-shifted by it (rounded down, as Linux does), and SYN and SYN-ACK
//! windows are never scaled (RFC 7323 section 2.2). Those two records then carry four
//! option bytes (NOP + window scale) that the simulated SYN does not count: the core's
//! header budget ([`Packet::tcp_option_bytes`]) has no window-scale option, and adding
//! one there would change every SYN's serialisation time and hence every result. Every
//! other record matches the simulated wire size byte for byte. Windows that fit in 16
//! bits are written unscaled, without the option, exactly as simulated. A flow that
//! does not simulate the handshake ([`Hosts::handshake`] false, the `modern` profile's
//! default) has no SYN to agree scaling in, so its windows are written unscaled and
//! capped at 65535: a window above that is understated, never shown as zero.
//!
//! # Options
//! In Linux's order and with Linux's NOP padding whenever the byte budget allows: SYN:
//! MSS ([`Hosts::mss`]), SACK-permitted, timestamps, window scale
//! (`02 04 mss 04 02 08 0a ... 01 03 03 s`, or `02 04 mss 01 01 04 02 01 03 03 s`
//! without timestamps); others: `01 01 08 0a TSval TSecr` and `01 01 05 len blocks`.
//! When both timestamps and SACK are present the budget is exactly 12 + 8n bytes, so
//! the two options are packed without NOPs (`08 0a ... 05 len ...`, valid TCP). TSval
//! and TSecr are the low 32 bits of the simulated values. More SACK blocks than fit
//! into TCP's 40 option bytes are cut from the end (then the record's lengths follow
//! the written header).
//!
//! # Connection close
//! The simulator does not model FIN: a transfer ends when its last byte is
//! acknowledged. Simulating a close would put extra packets on the links, where they
//! could queue ahead of other flows' packets and change results, so the close is
//! synthesised here instead, for captures only ([`close_exchange`]): when the sender
//! receives the final ACK of a finished transfer it sends FIN+ACK at once; the receiver
//! answers FIN+ACK on arrival (an application that closes as soon as it reads the end
//! of the stream); the sender acknowledges that. Each close segment takes the path's
//! last measured one-way delay in its direction (the last data segment's at the
//! receiver, the final ACK's at the sender); none of them queues, is lost or delays
//! anything. Timestamps, if the flow uses them, repeat each host's last TSval (the
//! writer does not know the hosts' timestamp clocks) and echo the peer's.

use crate::error::{OutputError, Result};
use etherparse::{IpNumber, Ipv4Header, TcpHeader, UdpHeader};
use spikelab_core::{FlowId, Packet, PacketKind, Time, Timestamps};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Magic number of the nanosecond-resolution classic pcap format.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// `LINKTYPE_RAW`: every record begins with an IPv4 or IPv6 header.
pub const LINKTYPE_RAW: u32 = 101;
/// MSS announced in SYNs unless [`Hosts::mss`] says otherwise.
pub const DEFAULT_MSS: u16 = 1460;
/// Hosts' receive window unless [`Hosts::window`] says otherwise (the largest unscaled).
pub const DEFAULT_WINDOW: u64 = 65_535;
/// Receiver-side TCP port.
pub const SERVER_PORT: u16 = 80;
/// Destination port of datagrams (discard).
pub const DATAGRAM_PORT: u16 = 9;
/// The QUIC receiver's UDP port (HTTP/3's).
pub const QUIC_PORT: u16 = 443;
/// Snapshot length written in the file header.
const SNAPLEN: u32 = 65_535;
/// IPv4 header + the largest TCP header.
const MAX_HEADERS: usize = 20 + 60;
/// TCP's limit on option bytes (data offset is 4 bits of 32-bit words).
const MAX_OPTION_BYTES: usize = 40;
/// The payload every record stands for: zero bytes (see the module docs).
static ZEROS: [u8; 65_535] = [0; 65_535];
/// TCP's largest unscaled window and the largest shift (RFC 7323 section 2.3).
const MAX_UNSCALED: u64 = 65_535;
const MAX_SHIFT: u8 = 14;

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

/// RFC 7323 section 2.3: the window-scale shift for a receive window of `window`
/// bytes, the smallest that brings it into 16 bits and at most 14; `None` when the
/// window fits unscaled (then no window-scale option is written).
pub fn window_shift(window: u64) -> Option<u8> {
    (window > MAX_UNSCALED)
        .then(|| (1..=MAX_SHIFT).find(|&s| window >> s <= MAX_UNSCALED))
        .map(|s| s.unwrap_or(MAX_SHIFT))
}

/// The 16-bit window field for `bytes`: shifted by `shift` (none on SYNs), rounded
/// down, capped at 65535.
fn window_field(bytes: u64, shift: Option<u8>) -> u16 {
    (bytes >> shift.unwrap_or(0)).min(MAX_UNSCALED) as u16
}

/// What the writer needs to know of a TCP flow's two hosts that its packets do not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hosts {
    /// MSS announced in SYN and SYN-ACK.
    pub mss: u16,
    /// Receive buffer of both hosts in bytes: the sender's advertised window, and the
    /// window scaling of the connection (see the module docs).
    pub window: u64,
    /// Whether the flow opens with a SYN exchange, the only place window scaling can
    /// be agreed (RFC 7323 section 2.2).
    pub handshake: bool,
    /// Whether the sending stack chooses which data segments carry PSH
    /// ([`Packet::push`]); if not, every data segment carries it.
    pub stack_push: bool,
}

impl Hosts {
    /// The connection's window-scale shift: [`window_shift`] of the hosts' window if
    /// the SYNs can announce it, else none (windows are then capped at 65535).
    fn shift(&self) -> Option<u8> {
        window_shift(self.window).filter(|_| self.handshake)
    }
}

impl Default for Hosts {
    fn default() -> Self {
        Hosts {
            mss: DEFAULT_MSS,
            window: DEFAULT_WINDOW,
            handshake: true,
            stack_push: false,
        }
    }
}

/// Where a packet was seen: at the flow's sender or at its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vantage {
    /// Where the sender hands packets to the network and receives ACKs.
    Sender,
    /// Where the receiver gets packets off the path and sends ACKs.
    Receiver,
}

/// A packet one endpoint of a flow sent or received, and when it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seen {
    /// When the endpoint sent or received the packet.
    pub time: Time,
    /// The packet.
    pub packet: Packet,
    /// Which endpoint.
    pub at: Vantage,
}

/// The three segments of the synthesised close, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseStep {
    /// The sender's FIN+ACK.
    Fin,
    /// The receiver's FIN+ACK, acknowledging the sender's FIN.
    FinAck,
    /// The sender's ACK of the receiver's FIN.
    LastAck,
}

impl CloseStep {
    /// Does the sender send this segment?
    fn sent_by_sender(self) -> bool {
        self != CloseStep::FinAck
    }
}

/// One segment of the synthesised close of `flow`, whose byte stream is `end` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CloseSegment {
    /// The flow.
    pub flow: FlowId,
    /// Which of the three segments.
    pub step: CloseStep,
    /// Bytes of the sender's stream: the FIN's sequence number in simulator terms.
    pub end: u64,
    /// The receiver's advertised window (what its last ACK said).
    pub rwnd: u32,
    /// Timestamps option, if the flow uses timestamps.
    pub ts: Option<Timestamps>,
}

/// A close segment, when its endpoint sends it and when the peer receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closing {
    /// The segment.
    pub segment: CloseSegment,
    /// When its endpoint sends it.
    pub sent: Time,
    /// When the peer receives it.
    pub arrived: Time,
}

impl Closing {
    /// When the endpoint at `at` sees this segment (sends or receives it).
    pub fn time_at(&self, at: Vantage) -> Time {
        if self.segment.step.sent_by_sender() == (at == Vantage::Sender) {
            self.sent
        } else {
            self.arrived
        }
    }
}

/// A record of a pcap file: a simulated packet or a synthesised close segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Record {
    /// A simulated packet.
    Packet(Packet),
    /// A segment of the synthesised close.
    Close(CloseSegment),
    /// A QUIC packet (spikelab-quic's model) as the UDP datagram it is: IPv4 + UDP
    /// between the flow's two hosts, port [`QUIC_PORT`] at the receiver, of the
    /// packet's size on the wire, its QUIC bytes zeros (the model has no header
    /// bytes, only sizes).
    Quic(Packet),
}

/// The close of a transfer that `completed` when its sender received the final ACK,
/// synthesised from the flow's captures `seen` at both endpoints (see the module
/// docs); `None` when `seen` holds no ACK reaching the sender at `completed`.
pub fn close_exchange(seen: &[Seen], completed: Time) -> Option<[Closing; 3]> {
    let is_final =
        |s: &&Seen| s.at == Vantage::Sender && s.time == completed && !s.packet.kind.is_forward();
    let last_ack = seen.iter().filter(is_final).max_by_key(|s| s.packet.ack)?;
    let back = completed - last_ack.packet.sent_at;
    let there = seen
        .iter()
        .filter(|s| s.at == Vantage::Receiver && s.packet.kind == PacketKind::Data)
        .rfind(|s| s.time <= completed)
        .map_or(back, |s| s.time - s.packet.sent_at);
    // (sender's last TSval, receiver's last TSval), each repeated, each echoing the other.
    let ts = last_ack.packet.ts().map(|r| (last_tsval_sent(seen), r.val));
    let segment = |step, from_sender: bool| CloseSegment {
        flow: last_ack.packet.flow,
        step,
        end: last_ack.packet.ack,
        rwnd: last_ack.packet.rwnd,
        ts: ts.map(|(s, r)| {
            let (val, ecr) = if from_sender { (s, r) } else { (r, s) };
            Timestamps { val, ecr }
        }),
    };
    let fin_arrives = completed + there;
    let fin_ack_arrives = fin_arrives + back;
    Some([
        Closing {
            segment: segment(CloseStep::Fin, true),
            sent: completed,
            arrived: fin_arrives,
        },
        Closing {
            segment: segment(CloseStep::FinAck, false),
            sent: fin_arrives,
            arrived: fin_ack_arrives,
        },
        Closing {
            segment: segment(CloseStep::LastAck, true),
            sent: fin_ack_arrives,
            arrived: fin_ack_arrives + there,
        },
    ])
}

/// The largest TSval the sender sent, in `seen`.
fn last_tsval_sent(seen: &[Seen]) -> u64 {
    seen.iter()
        .filter(|s| s.at == Vantage::Sender && s.packet.kind.is_forward())
        .filter_map(|s| s.packet.ts().map(|t| t.val))
        .max()
        .unwrap_or(0)
}

/// The records of the capture at `at` of one flow: the packets `seen` there and, for a
/// transfer that `completed`, the synthesised close; in time order (a close segment
/// after the packets seen at the same instant).
pub fn records_at(seen: &[Seen], at: Vantage, completed: Option<Time>) -> Vec<(Time, Record)> {
    let mut out: Vec<(Time, Record)> = seen
        .iter()
        .filter(|s| s.at == at)
        .map(|s| (s.time, Record::Packet(s.packet)))
        .collect();
    if let Some(close) = completed.and_then(|t| close_exchange(seen, t)) {
        out.extend(
            close
                .iter()
                .map(|c| (c.time_at(at), Record::Close(c.segment))),
        );
    }
    out.sort_by_key(|(t, _)| *t); // stable: ties keep the order above
    out
}

/// The encoded headers of one record: the captured bytes and the packet's full length.
#[derive(Clone, Copy, Debug)]
pub struct Headers {
    buf: [u8; MAX_HEADERS],
    len: usize,
    orig_len: u32,
}

impl Headers {
    /// IPv4 header `ip` followed by transport header `l4`, of a `total`-byte packet.
    fn new(ip: &[u8], l4: &[u8], total: u16) -> Headers {
        let mut h = Headers {
            buf: [0; MAX_HEADERS],
            len: ip.len() + l4.len(),
            orig_len: total.into(),
        };
        h.buf[..ip.len()].copy_from_slice(ip);
        h.buf[ip.len()..h.len].copy_from_slice(l4);
        h
    }
    /// The captured bytes: IPv4 header followed by the TCP or UDP header.
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
    /// The full packet length on the wire (the IPv4 total length).
    pub fn orig_len(&self) -> u32 {
        self.orig_len
    }
}

/// Encodes the IPv4 and transport headers of `record` for a flow between `hosts`.
pub fn encode(record: &Record, hosts: &Hosts) -> Result<Headers> {
    match record {
        Record::Packet(p) if p.kind == PacketKind::Datagram => encode_udp(p),
        Record::Packet(p) => encode_tcp(&tcp_of_packet(p, hosts)),
        Record::Close(c) => encode_tcp(&tcp_of_close(c, hosts)),
        Record::Quic(p) => encode_quic(p),
    }
}

/// A QUIC packet as its UDP datagram ([`Record::Quic`]).
fn encode_quic(p: &Packet) -> Result<Headers> {
    let payload = zeros(p.wire_bytes().saturating_sub(20 + 8))?;
    let from_sender = p.kind.is_forward();
    let ip = ipv4(
        p.flow,
        from_sender,
        IpNumber::UDP,
        p.uid as u16,
        8 + payload.len(),
    )?;
    let (src, dst) = if from_sender {
        (flow_port(p.flow), QUIC_PORT)
    } else {
        (QUIC_PORT, flow_port(p.flow))
    };
    let udp = UdpHeader::with_ipv4_checksum(src, dst, &ip, payload)
        .map_err(|e| OutputError::Pcap(e.to_string()))?;
    Ok(Headers::new(&ip.to_bytes(), &udp.to_bytes(), ip.total_len))
}

/// The zero payload of `len` bytes (see the module docs), if IPv4 can carry it.
fn zeros(len: u32) -> Result<&'static [u8]> {
    ZEROS
        .get(..len as usize)
        .ok_or_else(|| OutputError::Pcap(format!("a {len}-byte payload does not fit in IPv4")))
}

/// The IPv4 header of a packet of `flow` carrying `l4_len` bytes of `proto`.
fn ipv4(
    flow: FlowId,
    from_sender: bool,
    proto: IpNumber,
    ident: u16,
    l4_len: usize,
) -> Result<Ipv4Header> {
    let (src, dst) = if from_sender { (1, 2) } else { (2, 1) };
    let too_big = || {
        OutputError::Pcap(format!(
            "a {}-byte packet does not fit in IPv4",
            l4_len + 20
        ))
    };
    let len = u16::try_from(l4_len).map_err(|_| too_big())?;
    let mut ip = Ipv4Header::new(len, 64, proto, flow_addr(flow, src), flow_addr(flow, dst))
        .map_err(|_| too_big())?;
    ip.identification = ident;
    ip.header_checksum = ip.calc_header_checksum();
    Ok(ip)
}

/// A datagram: IPv4 + UDP with the checksum of its zero payload (RFC 768).
fn encode_udp(p: &Packet) -> Result<Headers> {
    let payload = zeros(p.len)?;
    let ip = ipv4(p.flow, true, IpNumber::UDP, p.uid as u16, 8 + payload.len())?;
    let udp = UdpHeader::with_ipv4_checksum(flow_port(p.flow), DATAGRAM_PORT, &ip, payload)
        .map_err(|e| OutputError::Pcap(e.to_string()))?;
    Ok(Headers::new(&ip.to_bytes(), &udp.to_bytes(), ip.total_len))
}

/// TCP header flags.
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;

/// The header fields of one TCP segment, from a packet or a close segment.
struct TcpWire {
    flow: FlowId,
    from_sender: bool,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    options: Options,
    payload: u32,
    ident: u16,
}

/// A TCP segment: IPv4 + TCP with the checksum of its zero payload (RFC 793 3.1).
fn encode_tcp(w: &TcpWire) -> Result<Headers> {
    let (sport, dport) = if w.from_sender {
        (flow_port(w.flow), SERVER_PORT)
    } else {
        (SERVER_PORT, flow_port(w.flow))
    };
    let mut tcp = TcpHeader::new(sport, dport, w.seq, w.window);
    tcp.acknowledgment_number = w.ack;
    tcp.fin = w.flags & FIN != 0;
    tcp.syn = w.flags & SYN != 0;
    tcp.psh = w.flags & PSH != 0;
    tcp.ack = w.flags & ACK != 0;
    tcp.set_options_raw(w.options.bytes())
        .map_err(|e| OutputError::Pcap(e.to_string()))?;
    let payload = zeros(w.payload)?;
    let l4_len = tcp.header_len() + payload.len();
    let ip = ipv4(w.flow, w.from_sender, IpNumber::TCP, w.ident, l4_len)?;
    tcp.checksum = tcp
        .calc_checksum_ipv4(&ip, payload)
        .map_err(|e| OutputError::Pcap(e.to_string()))?;
    Ok(Headers::new(&ip.to_bytes(), &tcp.to_bytes(), ip.total_len))
}

/// The wire value of a simulator sequence number `off` of the sender's byte stream.
fn wire_seq(flow: FlowId, off: u64) -> u32 {
    isn_sender(flow).wrapping_add(1).wrapping_add(off as u32)
}

/// Sequence number, acknowledgment number and flags of a simulated segment.
fn seq_ack_flags(p: &Packet, stack_push: bool) -> (u32, u32, u8) {
    let (f, r) = (p.flow, isn_receiver(p.flow));
    let push = if p.push() || !stack_push { PSH } else { 0 };
    match p.kind {
        PacketKind::Syn => (isn_sender(f), 0, SYN),
        PacketKind::SynAck => (r, wire_seq(f, p.ack), SYN | ACK),
        PacketKind::Data if p.len == 0 => (wire_seq(f, p.seq), r.wrapping_add(1), ACK),
        PacketKind::Data => (wire_seq(f, p.seq), r.wrapping_add(1), ACK | push),
        PacketKind::Ack | PacketKind::Datagram => (r.wrapping_add(1), wire_seq(f, p.ack), ACK),
    }
}

/// The TCP fields of simulated packet `p`: its window is the receiver's `rwnd` on
/// segments from the receiver and the hosts' window on the sender's (module docs).
fn tcp_of_packet(p: &Packet, hosts: &Hosts) -> TcpWire {
    let shift = hosts.shift();
    let syn = matches!(p.kind, PacketKind::Syn | PacketKind::SynAck);
    let bytes = if p.kind.is_forward() {
        hosts.window
    } else {
        p.rwnd.into()
    };
    let (seq, ack, flags) = seq_ack_flags(p, hosts.stack_push);
    TcpWire {
        flow: p.flow,
        from_sender: p.kind.is_forward(),
        seq,
        ack,
        flags,
        // RFC 7323 section 2.2: the window of a SYN segment is never scaled.
        window: window_field(bytes, if syn { None } else { shift }),
        options: build_options(p, hosts.mss, if syn { shift } else { None }),
        payload: p.len,
        ident: p.uid as u16,
    }
}

/// The TCP fields of close segment `c` (module docs, "Connection close").
fn tcp_of_close(c: &CloseSegment, hosts: &Hosts) -> TcpWire {
    let fin = wire_seq(c.flow, c.end);
    let r = isn_receiver(c.flow).wrapping_add(1);
    let (seq, ack, flags, bytes) = match c.step {
        CloseStep::Fin => (fin, r, FIN | ACK, hosts.window),
        CloseStep::FinAck => (r, fin.wrapping_add(1), FIN | ACK, c.rwnd.into()),
        CloseStep::LastAck => (fin.wrapping_add(1), r.wrapping_add(1), ACK, hosts.window),
    };
    let mut options = Options::new();
    if let Some(ts) = c.ts {
        options.push(&[1, 1]);
        options.push_ts(ts);
    }
    TcpWire {
        flow: c.flow,
        from_sender: c.step.sent_by_sender(),
        seq,
        ack,
        flags,
        window: window_field(bytes, hosts.shift()),
        options,
        payload: 0,
        ident: 0,
    }
}

/// TCP option bytes under construction.
struct Options {
    buf: [u8; 64],
    len: usize,
}

impl Options {
    fn new() -> Options {
        Options {
            buf: [0; 64],
            len: 0,
        }
    }
    fn push(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }
    /// The timestamps option (RFC 7323 section 3), low 32 bits of each value.
    fn push_ts(&mut self, ts: Timestamps) {
        self.push(&[8, 10]);
        self.push(&(ts.val as u32).to_be_bytes());
        self.push(&(ts.ecr as u32).to_be_bytes());
    }
    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Lays out the options of `p` (see the module docs): Linux's layout if it fits the
/// byte budget (the core's, plus four for a window-scale option `ws`), else packed,
/// with at most as many SACK blocks as fit in 40 bytes, then NOP-padded to the budget.
fn build_options(p: &Packet, mss: u16, ws: Option<u8>) -> Options {
    let budget = p.tcp_option_bytes() as usize + if ws.is_some() { 4 } else { 0 };
    let blocks = p.sack();
    let mut n = blocks.len();
    loop {
        for aligned in [true, false] {
            let o = layout_options(p, mss, ws, &blocks[..n], aligned);
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
fn layout_options(
    p: &Packet,
    mss: u16,
    ws: Option<u8>,
    blocks: &[(u64, u64)],
    aligned: bool,
) -> Options {
    let mut o = Options::new();
    let nops = |o: &mut Options, n: usize| {
        if aligned {
            o.push(&[1, 1][..n]);
        }
    };
    let syn = matches!(p.kind, PacketKind::Syn | PacketKind::SynAck);
    if syn {
        o.push(&[2, 4]);
        o.push(&mss.to_be_bytes());
        if p.ts().is_none() {
            nops(&mut o, 2);
        }
        o.push(&[4, 2]);
    }
    if let Some(ts) = p.ts() {
        if !syn {
            nops(&mut o, 2);
        }
        o.push_ts(ts);
    }
    if let Some(shift) = ws {
        nops(&mut o, 1);
        o.push(&[3, 3, shift]);
    }
    if !blocks.is_empty() {
        nops(&mut o, 2);
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
    hosts: Hosts,
    payload: bool,
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
            hosts: Hosts::default(),
            payload: false,
        })
    }

    /// Announces `mss` in the MSS option of SYNs and SYN-ACKs.
    pub fn with_mss(mut self, mss: u16) -> Self {
        self.hosts.mss = mss;
        self
    }

    /// The hosts' receive window in bytes (see the module docs, "Windows").
    pub fn with_window(mut self, window: u64) -> Self {
        self.hosts.window = window;
        self
    }

    /// Whether the flow opens with a SYN exchange (default: yes); without one, windows
    /// are not scaled (see the module docs, "Windows").
    pub fn with_handshake(mut self, handshake: bool) -> Self {
        self.hosts.handshake = handshake;
        self
    }

    /// Whether the sending stack chooses which data segments carry PSH (the `linux`
    /// stack does); if not (the default), every data segment carries it.
    pub fn with_stack_push(mut self, stack_push: bool) -> Self {
        self.hosts.stack_push = stack_push;
        self
    }

    /// Also writes each packet's payload (zero bytes), so that every checksum can be
    /// verified; files grow by the payload.
    pub fn with_payload(mut self, payload: bool) -> Self {
        self.payload = payload;
        self
    }

    /// Appends `p` as seen at `time`.
    pub fn write_packet(&mut self, time: Time, p: &Packet) -> Result<()> {
        self.write_record(time, &Record::Packet(*p))
    }

    /// Appends `record` as seen at `time`.
    pub fn write_record(&mut self, time: Time, record: &Record) -> Result<()> {
        let h = encode(record, &self.hosts)?;
        let payload = if self.payload {
            zeros(h.orig_len() - h.bytes().len() as u32)?
        } else {
            &[]
        };
        let secs = u32::try_from(time.0 / 1_000_000_000)
            .map_err(|_| OutputError::Pcap(format!("time {time} does not fit in pcap")))?;
        let caplen = (h.bytes().len() + payload.len()) as u32;
        self.out.write_all(&secs.to_le_bytes())?;
        self.out
            .write_all(&((time.0 % 1_000_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&caplen.to_le_bytes())?;
        self.out.write_all(&h.orig_len().to_le_bytes())?;
        self.out.write_all(h.bytes())?;
        self.out.write_all(payload)?;
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

    fn pkt(kind: PacketKind, flow: u32) -> Packet {
        let mut p = Packet::new(0x1_2345, FlowId(flow), kind, Time::ZERO);
        p.rwnd = 100_000;
        p
    }

    fn enc(p: &Packet, hosts: Hosts) -> Headers {
        encode(&Record::Packet(*p), &hosts).unwrap()
    }

    fn be16(b: &[u8], at: usize) -> u16 {
        u16::from_be_bytes([b[at], b[at + 1]])
    }

    fn be32(b: &[u8], at: usize) -> u32 {
        u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// RFC 1071 one's-complement sum of 16-bit words, folded, complemented.
    fn rfc1071(words: impl IntoIterator<Item = u8>) -> u16 {
        let bytes: Vec<u8> = words.into_iter().collect();
        let mut sum: u32 = bytes
            .chunks(2)
            .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
            .sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    /// Does the transport checksum of `h` verify over the pseudo-header (RFC 793 3.1,
    /// RFC 768) with a zero payload of the packet's length?
    fn transport_checksum_verifies(h: &Headers) -> bool {
        let b = h.bytes();
        let l4_len = h.orig_len() as usize - 20;
        let mut pseudo = b[12..20].to_vec();
        pseudo.extend([0, b[9]]);
        pseudo.extend((l4_len as u16).to_be_bytes());
        let zeros = l4_len - (b.len() - 20);
        rfc1071(
            pseudo
                .into_iter()
                .chain(b[20..].iter().copied())
                .chain(std::iter::repeat_n(0, zeros)),
        ) == 0
    }

    #[test]
    fn rfc1071_of_a_textbook_header() {
        // Example header from the IPv4 checksum article, checksum 0xb861.
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(rfc1071(h), 0xb861);
        h[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert_eq!(rfc1071(h), 0);
    }

    #[test]
    fn syn_with_timestamps_has_linux_option_layout() {
        let mut p = pkt(PacketKind::Syn, 0x0102);
        p.set_ts(Some(Timestamps {
            val: 0x1_0000_0007,
            ecr: 0,
        }));
        let h = enc(
            &p,
            Hosts {
                mss: 1448,
                ..Hosts::default()
            },
        );
        let b = h.bytes();
        assert_eq!(b.len(), 20 + 20 + 16);
        assert_eq!(h.orig_len(), p.wire_bytes());
        // IPv4
        assert_eq!(b[0], 0x45);
        assert_eq!(be16(b, 2) as u32, p.wire_bytes());
        assert_eq!(be16(b, 4), 0x2345);
        assert_eq!(be16(b, 6), 0x4000); // DF
        assert_eq!((b[8], b[9]), (64, 6));
        assert_eq!(&b[12..16], &[10, 1, 2, 1]);
        assert_eq!(&b[16..20], &[10, 1, 2, 2]);
        assert_eq!(rfc1071(b[..20].iter().copied()), 0);
        // TCP
        let t = &b[20..];
        assert_eq!(be16(t, 0), 10_000 + 0x0102);
        assert_eq!(be16(t, 2), 80);
        assert_eq!(be32(t, 4), isn_sender(FlowId(0x0102)));
        assert_eq!(be32(t, 8), 0);
        assert_eq!(t[12], 9 << 4);
        assert_eq!(t[13], 0x02);
        assert_eq!(be16(t, 14), 65_535);
        assert!(transport_checksum_verifies(&h));
        assert_eq!(&t[20..28], &[2, 4, 0x05, 0xa8, 4, 2, 8, 10]);
        assert_eq!(be32(t, 28), 7); // low 32 bits of TSval
        assert_eq!(be32(t, 32), 0);
    }

    #[test]
    fn syn_without_timestamps_pads_sack_permitted_with_nops() {
        let h = enc(&pkt(PacketKind::Syn, 0), Hosts::default());
        assert_eq!(&h.bytes()[40..], &[2, 4, 0x05, 0xb4, 1, 1, 4, 2]);
    }

    #[test]
    fn window_shift_is_the_smallest_that_fits_sixteen_bits() {
        assert_eq!(window_shift(65_535), None);
        assert_eq!(window_shift(65_536), Some(1));
        assert_eq!(window_shift(150_000), Some(2));
        assert_eq!(window_shift(1_000_000), Some(4));
        assert_eq!(window_shift(u64::MAX), Some(14));
    }

    #[test]
    fn large_windows_scale_and_syns_announce_the_shift() {
        let hosts = Hosts {
            mss: 1000,
            window: 150_000,
            handshake: true,
            stack_push: false,
        };
        let mut syn = pkt(PacketKind::Syn, 0);
        syn.set_ts(Some(Timestamps::default()));
        let h = enc(&syn, hosts);
        // Linux: MSS, SACK-permitted, timestamps, NOP, window scale 2; four bytes more
        // than the simulated SYN.
        assert_eq!(h.bytes().len(), 40 + 20);
        assert_eq!(h.orig_len(), syn.wire_bytes() + 4);
        assert_eq!(&h.bytes()[56..], &[1, 3, 3, 2]);
        assert_eq!(be16(h.bytes(), 34), 65_535); // SYN window unscaled
        let h = enc(&pkt(PacketKind::SynAck, 0), hosts);
        assert_eq!(
            &h.bytes()[40..],
            &[2, 4, 0x03, 0xe8, 1, 1, 4, 2, 1, 3, 3, 2]
        );
        assert!(transport_checksum_verifies(&h));
        // Later segments: the receiver's rwnd and the hosts' window, shifted by 2.
        let ack = enc(&pkt(PacketKind::Ack, 0), hosts);
        assert_eq!(be16(ack.bytes(), 34), 25_000);
        let mut data = pkt(PacketKind::Data, 0);
        data.len = 1000;
        let d = enc(&data, hosts);
        assert_eq!(be16(d.bytes(), 34), 37_500);
        assert_eq!(d.orig_len(), data.wire_bytes());
    }

    #[test]
    fn without_a_handshake_windows_are_unscaled_and_capped() {
        let hosts = Hosts {
            mss: 1000,
            window: 150_000,
            handshake: false,
            stack_push: false,
        };
        let mut data = pkt(PacketKind::Data, 0);
        data.len = 1000;
        assert_eq!(be16(enc(&data, hosts).bytes(), 34), 65_535);
        assert_eq!(
            be16(enc(&pkt(PacketKind::Ack, 0), hosts).bytes(), 34),
            65_535
        );
    }

    #[test]
    fn sender_segments_advertise_the_hosts_window_not_the_packet_field() {
        let mut data = pkt(PacketKind::Data, 0);
        data.rwnd = 0; // the simulator leaves it unset on data
        data.len = 1000;
        let h = enc(
            &data,
            Hosts {
                mss: 1000,
                window: 64_000,
                handshake: true,
                stack_push: false,
            },
        );
        assert_eq!(be16(h.bytes(), 34), 64_000);
        assert_eq!(h.bytes().len(), 40); // no window-scale option anywhere
    }

    #[test]
    fn syn_ack_acknowledges_the_syn_from_the_receiver() {
        let h = enc(&pkt(PacketKind::SynAck, 3), Hosts::default());
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
    fn psh_follows_a_stack_that_chooses_it_and_marks_every_segment_otherwise() {
        let flags = |push: bool, stack_push: bool| {
            let mut p = pkt(PacketKind::Data, 1);
            p.len = 1_000;
            p.set_push(push);
            let hosts = Hosts {
                stack_push,
                ..Hosts::default()
            };
            enc(&p, hosts).bytes()[20 + 13]
        };
        assert_eq!(flags(false, true), 0x10); // ACK: the linux stack left PSH off
        assert_eq!(flags(true, true), 0x18); // ACK | PSH: the last of its skb
        assert_eq!(flags(false, false), 0x18); // a stack that does not choose
        assert_eq!(flags(true, false), 0x18);
    }

    #[test]
    fn data_segment_with_timestamps_and_sack() {
        let mut p = pkt(PacketKind::Data, 7);
        p.seq = 2_000;
        p.len = 1_000;
        p.set_ts(Some(Timestamps { val: 500, ecr: 400 }));
        p.push_sack(3_000, 5_000);
        let h = enc(&p, Hosts::default());
        let (b, isn) = (h.bytes(), isn_sender(FlowId(7)));
        assert_eq!(b.len(), 40 + 20);
        assert_eq!(h.orig_len(), p.wire_bytes());
        assert_eq!(be16(b, 2) as u32, 1_060);
        assert!(transport_checksum_verifies(&h));
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
        a.set_ts(Some(Timestamps { val: 1, ecr: 2 }));
        let h = enc(&a, Hosts::default());
        assert_eq!(&h.bytes()[40..44], &[1, 1, 8, 10]);
        let mut s = pkt(PacketKind::Ack, 0);
        s.push_sack(10, 20);
        s.push_sack(30, 40);
        let h = enc(&s, Hosts::default());
        assert_eq!(h.bytes().len(), 40 + 20);
        assert_eq!(&h.bytes()[40..44], &[1, 1, 5, 18]);
        assert!(transport_checksum_verifies(&h));
    }

    #[test]
    fn four_sack_blocks_without_timestamps_follow_linux_nop_layout() {
        // A Linux receiver without timestamps: NOP, NOP, SACK of 2 + 8 * 4 = 34 bytes.
        let mut a = pkt(PacketKind::Ack, 0);
        for i in 0..4 {
            a.push_sack(100 * i + 10, 100 * i + 20);
        }
        let h = enc(&a, Hosts::default());
        assert_eq!(h.bytes().len(), 40 + 36);
        assert_eq!(&h.bytes()[40..44], &[1, 1, 5, 34]);
        assert_eq!(be16(h.bytes(), 2) as u32, h.orig_len());
        assert!(transport_checksum_verifies(&h));
    }

    #[test]
    fn three_sack_blocks_and_timestamps_fill_the_forty_option_bytes() {
        let mut a = pkt(PacketKind::Ack, 0);
        a.set_ts(Some(Timestamps::default()));
        for i in 0..3 {
            a.push_sack(100 * i + 10, 100 * i + 20);
        }
        let h = enc(&a, Hosts::default());
        // Linux's NOP layout would need 12 + 4 + 24 = 40 bytes; the core counts
        // 10 + 2 + 24 = 36, so the options are packed: TS at once, then SACK.
        assert_eq!(h.bytes().len(), 76);
        assert_eq!(h.bytes()[40..42], [8, 10]);
        assert_eq!(h.bytes()[50..52], [5, 26]);
        assert_eq!(be16(h.bytes(), 2) as u32, h.orig_len());
    }

    #[test]
    fn a_quic_packet_is_a_udp_datagram_of_its_sealed_size_each_way() {
        let mut data = pkt(PacketKind::Data, 1);
        data.len = 1159;
        data.seal_as(1228);
        let h = encode(&Record::Quic(data), &Hosts::default()).unwrap();
        let b = h.bytes();
        assert_eq!((b.len(), h.orig_len(), b[9]), (28, 1_228, 17));
        assert_eq!(
            (be16(b, 20), be16(b, 22), be16(b, 24)),
            (10_001, 443, 1_208)
        );
        let mut ack = pkt(PacketKind::Ack, 1);
        ack.seal_as(63);
        let h = encode(&Record::Quic(ack), &Hosts::default()).unwrap();
        assert_eq!(
            (h.orig_len(), be16(h.bytes(), 20), be16(h.bytes(), 22)),
            (63, 443, 10_001)
        );
    }

    #[test]
    fn datagrams_are_udp_with_a_checksum() {
        let mut d = pkt(PacketKind::Datagram, 1);
        d.len = 972;
        let h = enc(&d, Hosts::default());
        let b = h.bytes();
        assert_eq!((b.len(), h.orig_len(), b[9]), (28, 1_000, 17));
        assert_eq!((be16(b, 20), be16(b, 22), be16(b, 24)), (10_001, 9, 980));
        assert_ne!(be16(b, 26), 0);
        assert!(transport_checksum_verifies(&h));
    }

    #[test]
    fn oversized_packets_are_refused() {
        let mut d = pkt(PacketKind::Data, 0);
        d.len = 70_000;
        assert!(encode(&Record::Packet(d), &Hosts::default()).is_err());
        d.len = 65_535 - 40;
        assert!(encode(&Record::Packet(d), &Hosts::default()).is_ok());
        d.len += 1;
        assert!(encode(&Record::Packet(d), &Hosts::default()).is_err());
    }

    /// A finished 2000-byte transfer: data at the receiver 30 ms after it was sent, the
    /// final ACK at the sender 20 ms after the receiver sent it.
    fn finished_transfer() -> Vec<Seen> {
        let ms = |m: u64| Time(m * 1_000_000);
        let mut seen = Vec::new();
        for (i, sent) in [(0u64, 100u64), (1, 101)] {
            let mut d = pkt(PacketKind::Data, 4);
            (d.seq, d.len, d.sent_at) = (i * 1000, 1000, ms(sent));
            d.set_ts(Some(Timestamps { val: sent, ecr: 9 }));
            seen.push(Seen {
                time: ms(sent),
                packet: d,
                at: Vantage::Sender,
            });
            seen.push(Seen {
                time: ms(sent + 30),
                packet: d,
                at: Vantage::Receiver,
            });
        }
        let mut a = pkt(PacketKind::Ack, 4);
        (a.ack, a.sent_at, a.rwnd) = (2000, ms(131), 64_000);
        a.set_ts(Some(Timestamps { val: 77, ecr: 101 }));
        seen.push(Seen {
            time: ms(131),
            packet: a,
            at: Vantage::Receiver,
        });
        seen.push(Seen {
            time: ms(151),
            packet: a,
            at: Vantage::Sender,
        });
        seen
    }

    #[test]
    fn close_follows_the_final_ack_with_the_last_one_way_delays() {
        let seen = finished_transfer();
        let ms = |m: u64| Time(m * 1_000_000);
        let c = close_exchange(&seen, ms(151)).unwrap();
        let steps: Vec<_> = c
            .iter()
            .map(|c| (c.segment.step, c.sent, c.arrived))
            .collect();
        assert_eq!(
            steps,
            [
                (CloseStep::Fin, ms(151), ms(181)),
                (CloseStep::FinAck, ms(181), ms(201)),
                (CloseStep::LastAck, ms(201), ms(231)),
            ]
        );
        assert_eq!(c[0].segment.ts, Some(Timestamps { val: 101, ecr: 77 }));
        assert_eq!(c[1].segment.ts, Some(Timestamps { val: 77, ecr: 101 }));
        assert!(close_exchange(&seen, ms(150)).is_none());
    }

    #[test]
    fn close_segments_carry_fin_and_consume_one_sequence_number() {
        let seen = finished_transfer();
        let c = close_exchange(&seen, Time(151_000_000)).unwrap();
        let hosts = Hosts {
            mss: 1000,
            window: 64_000,
            handshake: true,
            stack_push: false,
        };
        let [fin, fin_ack, last] = c.map(|c| encode(&Record::Close(c.segment), &hosts).unwrap());
        let (i, r) = (isn_sender(FlowId(4)), isn_receiver(FlowId(4)));
        let fields = |h: &Headers| {
            let t = &h.bytes()[20..];
            (be32(t, 4), be32(t, 8), t[13], be16(t, 14))
        };
        assert_eq!(fields(&fin), (i + 1 + 2000, r + 1, 0x11, 64_000));
        assert_eq!(fields(&fin_ack), (r + 1, i + 1 + 2001, 0x11, 64_000));
        assert_eq!(fields(&last), (i + 1 + 2001, r + 2, 0x10, 64_000));
        assert_eq!(&fin_ack.bytes()[12..16], &[10, 0, 4, 2]);
        for h in [fin, fin_ack, last] {
            assert_eq!(h.bytes().len(), 52); // NOP NOP timestamps
            assert!(transport_checksum_verifies(&h));
        }
    }

    #[test]
    fn records_at_each_end_interleave_the_close_in_time() {
        let seen = finished_transfer();
        let at = |v| -> Vec<(u64, bool)> {
            records_at(&seen, v, Some(Time(151_000_000)))
                .iter()
                .map(|(t, r)| (t.0 / 1_000_000, matches!(r, Record::Close(_))))
                .collect()
        };
        let sender = [
            (100, false),
            (101, false),
            (151, false),
            (151, true),
            (201, true),
            (201, true),
        ];
        assert_eq!(at(Vantage::Sender), sender);
        let receiver = [
            (130, false),
            (131, false),
            (131, false),
            (181, true),
            (181, true),
            (231, true),
        ];
        assert_eq!(at(Vantage::Receiver), receiver);
        assert_eq!(records_at(&seen, Vantage::Sender, None).len(), 3);
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

    #[test]
    fn payload_files_capture_the_whole_packet() {
        let mut w = PcapWriter::new(Vec::new()).unwrap().with_payload(true);
        let mut p = pkt(PacketKind::Data, 0);
        p.len = 100;
        w.write_packet(Time::ZERO, &p).unwrap();
        let f = w.into_inner().unwrap();
        let rec = &f[24..];
        assert_eq!(&rec[8..12], &140u32.to_le_bytes());
        assert_eq!(&rec[12..16], &140u32.to_le_bytes());
        assert_eq!(rec.len(), 16 + 140);
        assert!(rec[56..].iter().all(|&b| b == 0));
    }
}
