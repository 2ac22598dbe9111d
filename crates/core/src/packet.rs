//! The one packet type that crosses links.
//!
//! A packet carries exactly the protocol fields the endpoints and middleboxes read,
//! plus bookkeeping the simulator needs for ground truth (`uid`, `retx`, `timed`).
//! Its size on the wire is computed from those fields with honest header overhead, so
//! link rates mean what they say: IPv4 20 bytes + TCP 20 bytes + options (timestamps
//! 10 bytes, SACK 2 + 8 per block, padded with NOPs to a multiple of 4, RFC 793 / 7323 /
//! 2018), or IPv4 20 + UDP 8 for datagrams.

use crate::ids::FlowId;
use crate::time::Time;

/// IPv4 header without options (RFC 791).
pub const IP_HEADER: u32 = 20;
/// TCP header without options (RFC 793).
pub const TCP_HEADER: u32 = 20;
/// UDP header (RFC 768).
pub const UDP_HEADER: u32 = 8;
/// Timestamps option: kind, length, TSval, TSecr (RFC 7323 section 3).
pub const TS_OPTION: u32 = 10;
/// TCP's option space: the data offset's 15 words less the 5 of the header (RFC 793;
/// Linux's `MAX_TCP_OPTION_SPACE`).
pub const MAX_OPTION_SPACE: u32 = 40;
/// Most SACK blocks carried: four fill TCP's 40 option bytes (2 + 8 * 4 = 34, RFC 2018
/// section 3; Linux's `TCP_NUM_SACKS`), three when the timestamps option takes 12 of
/// them ([`sack_blocks_that_fit`]).
pub const MAX_SACK_BLOCKS: usize = 4;

/// How many SACK blocks fit in the option space of an ACK that carries the timestamps
/// option or not: 3 with it, 4 without. RFC 2018 section 3 ("the 40 bytes available
/// for TCP options can specify a maximum of 4 blocks ... a maximum of 3 SACK blocks
/// will be allowed" beside timestamps), computed as Linux's `tcp_established_options`
/// (net/ipv4/tcp_output.c) does: `(MAX_TCP_OPTION_SPACE - size -
/// TCPOLEN_SACK_BASE_ALIGNED) / TCPOLEN_SACK_PERBLOCK`, where `size` is the aligned
/// timestamps option (`TCPOLEN_TSTAMP_ALIGNED`, 12) when present, the SACK option's
/// kind and length aligned by two NOPs (`TCPOLEN_SACK_BASE_ALIGNED`, 4) and 8 bytes per
/// block (`TCPOLEN_SACK_PERBLOCK`): (40 - 12 - 4) / 8 = 3, (40 - 4) / 8 = 4.
pub const fn sack_blocks_that_fit(timestamps: bool) -> usize {
    const TSTAMP_ALIGNED: u32 = 12;
    const SACK_BASE_ALIGNED: u32 = 4;
    const SACK_PERBLOCK: u32 = 8;
    let size = if timestamps { TSTAMP_ALIGNED } else { 0 };
    let n = ((MAX_OPTION_SPACE - size - SACK_BASE_ALIGNED) / SACK_PERBLOCK) as usize;
    if n < MAX_SACK_BLOCKS {
        n
    } else {
        MAX_SACK_BLOCKS
    }
}

/// How a packet's size on the wire is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WireModel {
    /// Real headers: IPv4 + TCP/UDP + options padded to 4 bytes.
    #[default]
    Standard,
    /// ns-2's one-way TCP agents (`TcpAgent::headersize()`, `TcpSink::ack()`, the
    /// Sacker's `ch->size() += sack_index * 8`): data = payload + 40 (+ 10 with
    /// timestamps), SYN 40, ACK 40 + 8 per SACK block.
    Ns2OneWay,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A TCP segment carrying payload (sender to receiver).
    Data,
    /// A pure TCP acknowledgment (receiver to sender).
    Ack,
    /// The connection request (sender to receiver), no payload.
    Syn,
    /// The receiver's SYN-ACK.
    SynAck,
    /// A UDP-like datagram of cross traffic; never acknowledged.
    Datagram,
}

impl PacketKind {
    /// Does this kind travel from the flow's source to its sink (the "forward" path)?
    pub fn is_forward(self) -> bool {
        matches!(
            self,
            PacketKind::Data | PacketKind::Syn | PacketKind::Datagram
        )
    }
}

/// TCP timestamps option values, in the sender's or receiver's timestamp-clock ticks.
/// Kept as `u64` (no wrap in a simulation); the low 32 bits go into pcap files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    pub val: u64,
    pub ecr: u64,
}

/// Up to [`MAX_SACK_BLOCKS`] SACK blocks `[start, end)` in the order the receiver sent
/// them (RFC 2018 section 4; a D-SACK block first, RFC 2883 section 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends a block; returns false (and changes nothing) when full.
    pub fn push(&mut self, start: u64, end: u64) -> bool {
        debug_assert!(start < end, "empty SACK block");
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = (start, end);
            self.len += 1;
            true
        } else {
            false
        }
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Compares the blocks sent (`len` of them) with a list of blocks.
impl<const N: usize> PartialEq<&[(u64, u64); N]> for SackBlocks {
    fn eq(&self, other: &&[(u64, u64); N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<&[(u64, u64)]> for SackBlocks {
    fn eq(&self, other: &&[(u64, u64)]) -> bool {
        self.as_slice() == *other
    }
}

impl std::ops::Deref for SackBlocks {
    type Target = [(u64, u64)];
    #[inline]
    fn deref(&self) -> &[(u64, u64)] {
        self.as_slice()
    }
}

/// The sequence number nearest `near` whose low 32 bits are `low`: a SACK block's edge
/// as the wire carries it, read against the cumulative ACK (which never exceeds it by
/// 2^31 or more, RFC 2018 section 3; RFC 793's modular comparison). Below 2^31 it
/// cannot go under zero: an edge there is read as the low bits alone.
#[inline]
pub fn unwrap_edge(low: u32, near: u64) -> u64 {
    let delta = low.wrapping_sub(near as u32) as i32 as i64;
    let v = (near as i64).wrapping_add(delta);
    if v < 0 {
        low as u64
    } else {
        v as u64
    }
}

/// [`Packet`]'s `bits`: the timestamps option is present.
const HAS_TS: u8 = 1;
/// [`Packet`]'s `bits`: [`Packet::push`].
const PUSH: u8 = 2;

/// A packet in flight. `Copy` so queues can hold it inline without allocation.
///
/// The timestamps option and the SACK blocks are kept flat, their presence and count
/// as two one-byte fields beside the other small ones (read and written through
/// [`Packet::ts`], [`Packet::sack`] and their setters): an `Option<Timestamps>` and a
/// [`SackBlocks`] as fields would each pad their one-byte tag to eight. The SACK
/// blocks' edges are kept as on the wire, their low 32 bits (RFC 2018 section 3), and
/// read back against the cumulative ACK ([`Packet::sack`]): four blocks in 32 bytes
/// where three took 48 as `u64` pairs, a packet of 112 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    /// Unique within a run, in order of creation.
    pub uid: u64,
    pub flow: FlowId,
    pub kind: PacketKind,
    /// First payload byte (Data), or the SYN's sequence number.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Cumulative acknowledgment: next byte expected (Ack, SynAck).
    pub ack: u64,
    /// Advertised receive window in bytes.
    pub rwnd: u32,
    /// The timestamps option's values when [`HAS_TS`] is in `bits`, all zero otherwise.
    ts: Timestamps,
    /// One-bit fields: [`HAS_TS`] and [`PUSH`] (one byte for both: a packet is 128
    /// bytes with no room for another).
    bits: u8,
    /// The SACK blocks' edges `[start, end)`, each the low 32 bits of its sequence
    /// number as on the wire: the first `sack_len` are sent, the others are zero.
    /// [`Packet::sack`] unwraps them against `ack`.
    sack: [[u32; 2]; MAX_SACK_BLOCKS],
    sack_len: u8,
    /// Ground truth: the sender sent this payload before.
    pub retx: bool,
    /// Ground truth: the sender is timing this segment for an RTT sample (Karn-style
    /// timing without timestamps, or every segment with them). Lets an oracle middlebox
    /// act on exactly the packets whose RTT the sender tracks.
    pub timed: bool,
    /// Index of the next hop on the packet's path (kept by the engine).
    pub hop: u16,
    /// When the endpoint handed the packet to the network.
    pub sent_at: Time,
    /// ns-2's `hdr_tcp::ts_echo()` on an ACK: the send time of the data packet the sink
    /// echoes. ns-2's TCP header always carries `ts()` (`TcpAgent::output()`) and the
    /// sink always fills `ts_echo()` (`TcpSink::ack()`), whatever the timestamps
    /// option, which only decides the option's 10 bytes; `FackTcpAgent::oldack()` reads
    /// it either way. Not on the wire: no bytes, not in pcaps. Zero when not set.
    pub ns2_ts_echo: Time,
    /// How [`Packet::wire_bytes`] counts headers.
    pub wire_model: WireModel,
    /// Cached [`Packet::wire_bytes`], set by [`Packet::seal`]; 0 until then.
    wire: u32,
}

// At 128 bytes or less a packet is copied inline (endpoint to arena, arena to endpoint,
// through the middleboxes); above, every copy is a call to `memmove`, which profiles
// put at 3-4 % of the 100-flow dumbbell's and the reproductions' time.
const _: () = assert!(size_of::<Packet>() <= 128);

/// Shows the packet as its fields mean it: `ts` as an `Option`, `sack` as
/// [`SackBlocks`] (the format a derived `Debug` gave when they were stored so).
impl std::fmt::Debug for Packet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Packet")
            .field("uid", &self.uid)
            .field("flow", &self.flow)
            .field("kind", &self.kind)
            .field("seq", &self.seq)
            .field("len", &self.len)
            .field("ack", &self.ack)
            .field("rwnd", &self.rwnd)
            .field("ts", &self.ts())
            .field("sack", &self.sack_blocks())
            .field("retx", &self.retx)
            .field("timed", &self.timed)
            .field("push", &self.push())
            .field("hop", &self.hop)
            .field("sent_at", &self.sent_at)
            .field("ns2_ts_echo", &self.ns2_ts_echo)
            .field("wire_model", &self.wire_model)
            .field("wire", &self.wire)
            .finish()
    }
}

/// What a link needs to know of whatever it carries: its size on the wire. Queues,
/// transmitters and propagation pipes are generic over it, so that the engine can move
/// 8-byte handles to packets kept in one arena through them instead of copying the
/// 128-byte [`Packet`] at every step of every hop.
pub trait Wire: Copy {
    /// Bytes occupied on a link: headers, options and payload.
    fn wire_bytes(&self) -> u32;
}

impl Wire for Packet {
    fn wire_bytes(&self) -> u32 {
        Packet::wire_bytes(self)
    }
}

impl Packet {
    /// A packet of `kind` with every optional field empty.
    pub fn new(uid: u64, flow: FlowId, kind: PacketKind, sent_at: Time) -> Packet {
        Packet {
            uid,
            flow,
            kind,
            seq: 0,
            len: 0,
            ack: 0,
            rwnd: 0,
            ts: Timestamps::default(),
            bits: 0,
            sack: [[0; 2]; MAX_SACK_BLOCKS],
            sack_len: 0,
            retx: false,
            timed: false,
            hop: 0,
            sent_at,
            ns2_ts_echo: Time::ZERO,
            wire_model: WireModel::Standard,
            wire: 0,
        }
    }

    /// The timestamps option (RFC 7323), if the packet carries it.
    pub fn ts(&self) -> Option<Timestamps> {
        (self.bits & HAS_TS != 0).then_some(self.ts)
    }

    /// Sets or removes the timestamps option.
    pub fn set_ts(&mut self, ts: Option<Timestamps>) {
        self.set_bit(HAS_TS, ts.is_some());
        self.ts = ts.unwrap_or_default();
    }

    /// The PSH flag as the sending stack sets it, for the receivers that react to it
    /// (the `linux` receiver's `ICSK_ACK_PUSHED`). Only a Linux sender sets it, on the
    /// last segment of each skb of two or more segments (`__tcp_transmit_skb`: "Force a
    /// PSH flag on all (GSO) packets"); pcaps show it for such a stack and mark every
    /// data segment PSH for the others.
    pub fn push(&self) -> bool {
        self.bits & PUSH != 0
    }

    /// Sets or clears the PSH flag ([`Packet::push`]).
    pub fn set_push(&mut self, on: bool) {
        self.set_bit(PUSH, on);
    }

    fn set_bit(&mut self, bit: u8, on: bool) {
        self.bits = if on {
            self.bits | bit
        } else {
            self.bits & !bit
        };
    }

    /// The SACK blocks, in the order the receiver sent them, as full sequence numbers:
    /// each edge is kept as its low 32 bits and unwrapped against `ack`, the nearest
    /// value to it with those bits ([`unwrap_edge`]), as a sender reads the option
    /// (RFC 2018 section 3; a block lies within 2^31 of the cumulative ACK, above it, or
    /// below it for a D-SACK block, RFC 2883). So `ack` must be final before the blocks
    /// are read; the order the two are set in does not matter.
    #[inline]
    pub fn sack(&self) -> SackBlocks {
        let mut s = SackBlocks::new();
        for (i, [a, b]) in self.sack.iter().take(self.sack_len as usize).enumerate() {
            s.blocks[i] = (unwrap_edge(*a, self.ack), unwrap_edge(*b, self.ack));
        }
        s.len = self.sack_len;
        s
    }

    /// The number of SACK blocks.
    #[inline]
    pub fn sack_len(&self) -> usize {
        self.sack_len as usize
    }

    /// The SACK blocks as one value ([`Packet::sack`]).
    pub fn sack_blocks(&self) -> SackBlocks {
        self.sack()
    }

    /// Replaces the SACK blocks (each edge kept as its low 32 bits).
    #[inline]
    pub fn set_sack(&mut self, s: &SackBlocks) {
        for (i, &(a, b)) in s.blocks.iter().enumerate() {
            self.sack[i] = [a as u32, b as u32];
        }
        self.sack_len = s.len;
    }

    /// Appends a SACK block ([`SackBlocks::push`]); returns false (and changes nothing)
    /// when full.
    pub fn push_sack(&mut self, start: u64, end: u64) -> bool {
        let mut s = self.sack_blocks();
        let pushed = s.push(start, end);
        self.set_sack(&s);
        pushed
    }

    /// One past the last payload byte.
    pub fn end_seq(&self) -> u64 {
        self.seq + self.len as u64
    }

    /// TCP option bytes, padded to a multiple of four.
    pub fn tcp_option_bytes(&self) -> u32 {
        // Four blocks beside timestamps (10 + 34 = 44) do not fit in the 40 bytes: no
        // receiver sends them (`sack_blocks_that_fit`).
        let ts = if self.bits & HAS_TS != 0 {
            TS_OPTION
        } else {
            0
        };
        let sack = if self.sack_len == 0 {
            0
        } else {
            2 + 8 * self.sack_len as u32
        };
        // SYNs also carry MSS (4) and SACK-permitted (2) (RFC 793, RFC 2018).
        let syn = if matches!(self.kind, PacketKind::Syn | PacketKind::SynAck) {
            6
        } else {
            0
        };
        (ts + sack + syn).div_ceil(4) * 4
    }

    /// Fixes the packet's size once its endpoint has filled every field, so that links
    /// and queues (which ask for it many times per hop) read it instead of recomputing.
    /// A sealed packet must not have its size-bearing fields changed.
    pub fn seal(&mut self) {
        self.wire = 0;
        self.wire = self.wire_bytes();
    }

    /// Fixes the packet's size to `bytes`, the length of a real IP packet it stands for
    /// (the emulator: a kernel's option layout, e.g. NOP padding before SACK, need not
    /// match [`Packet::tcp_option_bytes`]), or the size [`Packet::wire_bytes`] gives,
    /// known beforehand (a TCP endpoint's table of its packets' sizes). Zero leaves the
    /// packet unsealed.
    pub fn seal_as(&mut self, bytes: u32) {
        self.wire = bytes;
    }

    /// Has the packet's size been fixed ([`Packet::seal`], [`Packet::seal_as`])?
    pub fn is_sealed(&self) -> bool {
        self.wire != 0
    }

    /// Bytes this packet occupies on a link: headers, options and payload.
    pub fn wire_bytes(&self) -> u32 {
        if self.wire != 0 {
            return self.wire;
        }
        let base = IP_HEADER + TCP_HEADER;
        match (self.kind, self.wire_model) {
            (PacketKind::Datagram, _) => IP_HEADER + UDP_HEADER + self.len,
            (_, WireModel::Standard) => base + self.tcp_option_bytes() + self.len,
            (PacketKind::Data, WireModel::Ns2OneWay) => {
                base + if self.bits & HAS_TS != 0 {
                    TS_OPTION
                } else {
                    0
                } + self.len
            }
            (PacketKind::Syn, WireModel::Ns2OneWay) => base,
            (_, WireModel::Ns2OneWay) => base + 8 * self.sack_len as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: u32) -> Packet {
        let mut p = Packet::new(1, FlowId(0), PacketKind::Data, Time::ZERO);
        p.len = len;
        p
    }

    #[test]
    fn plain_segment_has_40_header_bytes() {
        assert_eq!(data(1000).wire_bytes(), 1040);
    }

    #[test]
    fn timestamps_add_12_bytes_after_padding() {
        let mut p = data(1000);
        p.set_ts(Some(Timestamps { val: 1, ecr: 0 }));
        assert_eq!(p.wire_bytes(), 1052);
    }

    #[test]
    fn sack_blocks_add_2_plus_8_each_padded_to_four() {
        let mut a = Packet::new(2, FlowId(0), PacketKind::Ack, Time::ZERO);
        a.push_sack(10, 20);
        assert_eq!(a.tcp_option_bytes(), 12); // 10 -> 12
        a.set_ts(Some(Timestamps::default()));
        assert_eq!(a.tcp_option_bytes(), 20); // 10 + 10
        a.push_sack(30, 40);
        a.push_sack(50, 60);
        assert_eq!(a.tcp_option_bytes(), 36); // 10 + 26 -> 36, within the 40-byte limit
    }

    #[test]
    fn a_sealed_packet_reports_the_same_size() {
        let mut p = data(1000);
        p.set_ts(Some(Timestamps { val: 1, ecr: 0 }));
        let before = p.wire_bytes();
        p.seal();
        assert_eq!(p.wire_bytes(), before);
    }

    #[test]
    fn ns2_wire_model_counts_ns2s_header_bytes() {
        let mut p = data(1000);
        p.wire_model = WireModel::Ns2OneWay;
        assert_eq!(p.wire_bytes(), 1040);
        p.set_ts(Some(Timestamps { val: 1, ecr: 0 }));
        assert_eq!(p.wire_bytes(), 1050, "ts_option_size_ 10, no padding");
        let mut a = Packet::new(1, FlowId(0), PacketKind::Ack, Time::ZERO);
        a.wire_model = WireModel::Ns2OneWay;
        a.set_ts(Some(Timestamps { val: 1, ecr: 0 }));
        a.push_sack(0, 1000);
        assert_eq!(
            a.wire_bytes(),
            48,
            "40 + 8 per SACK block, no timestamp bytes"
        );
    }

    #[test]
    fn ns2_header_echo_takes_no_wire_bytes() {
        for model in [WireModel::Standard, WireModel::Ns2OneWay] {
            let mut a = Packet::new(1, FlowId(0), PacketKind::Ack, Time::ZERO);
            a.wire_model = model;
            let without = a.wire_bytes();
            a.ns2_ts_echo = Time(1_234_567);
            assert_eq!(a.wire_bytes(), without, "{model:?}");
        }
    }

    #[test]
    fn datagram_uses_udp_header() {
        let mut d = Packet::new(3, FlowId(1), PacketKind::Datagram, Time::ZERO);
        d.len = 972;
        assert_eq!(d.wire_bytes(), 1000);
    }

    #[test]
    fn options_read_back_as_set_and_debug_shows_them_as_values() {
        let mut p = Packet::new(4, FlowId(2), PacketKind::Ack, Time::ZERO);
        assert_eq!((p.ts(), p.sack().as_slice()), (None, &[][..]));
        p.set_ts(Some(Timestamps { val: 5, ecr: 6 }));
        let mut s = SackBlocks::new();
        s.push(10, 20);
        p.set_sack(&s);
        assert!(p.push_sack(30, 40));
        assert_eq!(p.ts(), Some(Timestamps { val: 5, ecr: 6 }));
        assert_eq!(p.sack(), &[(10, 20), (30, 40)]);
        let text = format!("{p:?}");
        assert!(
            text.contains("ts: Some(Timestamps { val: 5, ecr: 6 })"),
            "{text}"
        );
        assert!(
            text.contains(
                "sack: SackBlocks { blocks: [(10, 20), (30, 40), (0, 0), (0, 0)], len: 2 }"
            ),
            "{text}"
        );
        p.set_ts(None);
        assert_eq!(p, {
            let mut q = Packet::new(4, FlowId(2), PacketKind::Ack, Time::ZERO);
            q.set_sack(&p.sack_blocks());
            q
        });
    }

    #[test]
    fn sack_blocks_refuse_a_fifth_block() {
        let mut s = SackBlocks::new();
        for i in 0..4 {
            assert!(s.push(i * 10, i * 10 + 5));
        }
        assert!(!s.push(100, 105));
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn four_sack_blocks_take_34_option_bytes_and_fit_only_without_timestamps() {
        let mut a = Packet::new(2, FlowId(0), PacketKind::Ack, Time::ZERO);
        for i in 0..4 {
            assert!(a.push_sack(100 * i + 10, 100 * i + 20));
        }
        assert_eq!(a.tcp_option_bytes(), 36); // 2 + 8 * 4 = 34 -> 36
        assert_eq!(a.wire_bytes(), 76);
        assert_eq!(sack_blocks_that_fit(false), 4);
        assert_eq!(sack_blocks_that_fit(true), 3);
    }

    fn ack_with(ack: u64, blocks: &[(u64, u64)]) -> Packet {
        let mut a = Packet::new(1, FlowId(0), PacketKind::Ack, Time::ZERO);
        a.ack = ack;
        for &(s, e) in blocks {
            assert!(a.push_sack(s, e));
        }
        a
    }

    #[test]
    fn sack_edges_read_back_across_a_32_bit_boundary() {
        const WRAP: u64 = 1 << 32;
        // The ACK just below 2^32, blocks above it (their low bits small); the ACK
        // just above, a block below it.
        let blocks = [(WRAP - 1000, WRAP + 2000), (WRAP + 3000, WRAP + 4000)];
        assert_eq!(ack_with(WRAP - 2000, &blocks).sack().as_slice(), &blocks);
        assert_eq!(ack_with(WRAP + 5000, &blocks).sack().as_slice(), &blocks);
        // Several times round, four blocks.
        let far = 7 * WRAP + (1 << 31);
        let blocks = [
            (far + 10, far + 20),
            (far + 30, far + 40),
            (far + 50, far + 60),
            (far + 70, far + 80),
        ];
        assert_eq!(ack_with(far, &blocks).sack().as_slice(), &blocks);
    }

    #[test]
    fn a_dsack_block_below_the_ack_reads_back_below_it() {
        // RFC 2883: the D-SACK block reports data below the cumulative ACK.
        for ack in [5000, (1 << 32) + 500, 3 << 31] {
            let blocks = [(ack - 3000, ack - 2000), (ack + 1000, ack + 2000)];
            assert_eq!(
                ack_with(ack, &blocks).sack().as_slice(),
                &blocks,
                "ack {ack}"
            );
        }
    }

    #[test]
    fn sack_blocks_read_the_same_whichever_of_them_and_the_ack_is_set_first() {
        let blocks = [((1 << 32) + 1000, (1 << 32) + 2000)];
        let first = ack_with((1 << 32) - 10, &blocks);
        let mut then = Packet::new(1, FlowId(0), PacketKind::Ack, Time::ZERO);
        then.push_sack(blocks[0].0, blocks[0].1);
        then.ack = (1 << 32) - 10;
        assert_eq!(then, first);
        assert_eq!(then.sack().as_slice(), &blocks);
    }

    #[test]
    fn a_packet_without_its_ack_reads_blocks_below_2_pow_32() {
        // `ack` still 0: an edge is its low 32 bits, whatever its top bit.
        let blocks = [(10, 20), (3 << 30, (3 << 30) + 1000)];
        assert_eq!(ack_with(0, &blocks).sack().as_slice(), &blocks);
    }
}
