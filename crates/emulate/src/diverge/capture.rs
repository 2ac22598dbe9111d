//! One TCP connection's capture read back: every segment with its numbers relative to
//! the connection's start (payload byte 0 = the first byte after the sender's SYN), so
//! a kernel capture and a model capture, whose initial sequence numbers differ, can be
//! compared number for number.
//!
//! Reads the classic libpcap format `spikelab run --pcap` and `spikelab emulate --pcap`
//! write (nanosecond or microsecond magic, little-endian, `LINKTYPE_RAW`, IPv4 + TCP).
//! The sender is the host that sends the first SYN without ACK; the receiver's window
//! is scaled by the shift its SYN-ACK announces when both SYNs carry one (RFC 7323
//! section 2.2).

use anyhow::{bail, Context};
use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice, TcpOptionElement};
use spikelab_output::pcap::{LINKTYPE_RAW, PCAP_MAGIC_NANOS};
use std::path::Path;

/// The microsecond variant's magic number.
const PCAP_MAGIC_MICROS: u32 = 0xa1b2_c3d4;

/// One TCP segment of a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Nanoseconds since the capture's origin.
    pub t: u64,
    /// Sent by the connection's sender (the host of the first SYN).
    pub from_sender: bool,
    /// First payload byte (sender's segments), relative to the sender's SYN + 1.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Acknowledgment of the sender's bytes (receiver's segments), relative likewise.
    pub ack: u64,
    /// SACK blocks of the sender's bytes (receiver's segments), relative likewise.
    pub sack: Vec<(u64, u64)>,
    /// Advertised window in bytes, scaled (receiver's segments after its SYN-ACK).
    pub window: u64,
    /// SYN, FIN and PSH flags.
    pub syn: bool,
    /// FIN.
    pub fin: bool,
    /// PSH.
    pub psh: bool,
    /// The IPv4 identification: one per transmission in both the kernel's packets and
    /// the model's, so a retransmission of the same bytes is told from the original.
    pub id: u16,
}

impl Segment {
    /// One past the segment's last payload byte.
    pub fn end(&self) -> u64 {
        self.seq + u64::from(self.len)
    }
}

/// The 64-bit offset of 32-bit wire value `v` nearest `reference` (both relative to
/// the same origin): sequence numbers wrap every 4 GiB, a capture's numbers move less
/// than 2 GiB between two segments.
pub fn near(reference: u64, v: u32) -> u64 {
    let delta = v.wrapping_sub(reference as u32) as i32;
    reference.saturating_add_signed(i64::from(delta))
}

/// The connection's numbering, learnt from its SYN and SYN-ACK.
#[derive(Default)]
struct Numbering {
    sender_port: Option<u16>,
    isn: u32,
    sender_scales: bool,
    shift: Option<u8>,
    /// The highest relative number seen, the reference for unwrapping.
    high: u64,
}

impl Numbering {
    fn rel(&mut self, wire: u32) -> u64 {
        let v = near(self.high, wire.wrapping_sub(self.isn).wrapping_sub(1));
        self.high = self.high.max(v);
        v
    }
}

fn window_scale(tcp: &TcpHeaderSlice<'_>) -> Option<u8> {
    tcp.options_iterator().flatten().find_map(|o| match o {
        TcpOptionElement::WindowScale(s) => Some(s),
        _ => None,
    })
}

fn sack_blocks(tcp: &TcpHeaderSlice<'_>) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for o in tcp.options_iterator().flatten() {
        if let TcpOptionElement::SelectiveAcknowledgement(first, rest) = o {
            out.push(first);
            out.extend(rest.into_iter().flatten());
        }
    }
    out
}

/// The segment of one record, numbered by `n` (which the SYNs set up).
fn segment(t: u64, pkt: &[u8], n: &mut Numbering) -> anyhow::Result<Option<Segment>> {
    let ip = Ipv4HeaderSlice::from_slice(pkt).context("not an IPv4 header")?;
    if ip.protocol() != etherparse::IpNumber::TCP {
        return Ok(None);
    }
    let tcp = TcpHeaderSlice::from_slice(&pkt[ip.slice().len()..]).context("not a TCP header")?;
    let headers = ip.slice().len() + tcp.slice().len();
    let len = (ip.total_len() as usize)
        .checked_sub(headers)
        .context("IPv4 total length below its headers")? as u32;
    if tcp.syn() && !tcp.ack() {
        n.sender_port = Some(tcp.source_port());
        n.isn = tcp.sequence_number();
        n.sender_scales = window_scale(&tcp).is_some();
    }
    let Some(port) = n.sender_port else {
        bail!("a segment before the sender's SYN: the bytes cannot be numbered");
    };
    let from_sender = tcp.source_port() == port;
    let mut s = Segment {
        t,
        from_sender,
        seq: 0,
        len,
        ack: 0,
        sack: Vec::new(),
        window: u64::from(tcp.window_size()),
        syn: tcp.syn(),
        fin: tcp.fin(),
        psh: tcp.psh(),
        id: ip.identification(),
    };
    if from_sender {
        s.seq = if s.syn {
            0
        } else {
            n.rel(tcp.sequence_number())
        };
    } else {
        if s.syn {
            n.shift = window_scale(&tcp).filter(|_| n.sender_scales);
        } else {
            s.window <<= n.shift.unwrap_or(0);
        }
        s.ack = n.rel(tcp.acknowledgment_number());
        s.sack = sack_blocks(&tcp)
            .into_iter()
            .map(|(l, r)| (n.rel(l), n.rel(r)))
            .collect();
    }
    Ok(Some(s))
}

/// Every TCP segment of the one connection in capture `path`, in capture order.
pub fn read_capture(path: &Path) -> anyhow::Result<Vec<Segment>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    parse(&bytes).with_context(|| format!("{}", path.display()))
}

fn parse(bytes: &[u8]) -> anyhow::Result<Vec<Segment>> {
    let mut n = Numbering::default();
    let mut out = Vec::new();
    for (record, (t, body)) in records(bytes)?.into_iter().enumerate() {
        let s = segment(t, body, &mut n).with_context(|| format!("record {}", record + 1))?;
        out.extend(s);
    }
    Ok(out)
}

/// One UDP datagram of a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// Nanoseconds since the capture's origin.
    pub t: u64,
    /// UDP payload bytes.
    pub len: u32,
    /// The IPv4 identification: one per datagram its sender sent.
    pub id: u16,
}

/// Every UDP datagram of the one datagram flow in capture `path` (those from the
/// first datagram's source port), in capture order.
pub fn read_datagrams(path: &Path) -> anyhow::Result<Vec<Datagram>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    parse_datagrams(&bytes).with_context(|| format!("{}", path.display()))
}

fn parse_datagrams(bytes: &[u8]) -> anyhow::Result<Vec<Datagram>> {
    let (mut port, mut out) = (None, Vec::new());
    for (record, (t, body)) in records(bytes)?.into_iter().enumerate() {
        let d = datagram(t, body).with_context(|| format!("record {}", record + 1))?;
        let Some((d, src)) = d else { continue };
        if *port.get_or_insert(src) == src {
            out.push(d);
        }
    }
    Ok(out)
}

/// The datagram of one record and its source port, if it is UDP.
fn datagram(t: u64, pkt: &[u8]) -> anyhow::Result<Option<(Datagram, u16)>> {
    let ip = Ipv4HeaderSlice::from_slice(pkt).context("not an IPv4 header")?;
    if ip.protocol() != etherparse::IpNumber::UDP {
        return Ok(None);
    }
    let udp = etherparse::UdpHeaderSlice::from_slice(&pkt[ip.slice().len()..])
        .context("not a UDP header")?;
    let len = u32::from(udp.length()).saturating_sub(8);
    let id = ip.identification();
    Ok(Some((Datagram { t, len, id }, udp.source_port())))
}

/// The records of a classic little-endian `LINKTYPE_RAW` capture: (time in ns since
/// its origin, packet bytes).
fn records(bytes: &[u8]) -> anyhow::Result<Vec<(u64, &[u8])>> {
    let le32 = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let frac_ns = match le32(0) {
        Some(PCAP_MAGIC_NANOS) => 1,
        Some(PCAP_MAGIC_MICROS) => 1_000,
        _ => bail!("not a little-endian classic pcap file (magic number)"),
    };
    if le32(20) != Some(LINKTYPE_RAW) {
        bail!(
            "link type {:?}: only LINKTYPE_RAW (101) captures are read",
            le32(20)
        );
    }
    let (mut at, mut out) = (24, Vec::new());
    while at < bytes.len() {
        let record = out.len() + 1;
        let (Some(sec), Some(frac), Some(len)) = (le32(at), le32(at + 4), le32(at + 8)) else {
            bail!("record {record}: truncated header at byte {at}");
        };
        let body = bytes
            .get(at + 16..at + 16 + len as usize)
            .with_context(|| format!("record {record}: truncated at byte {at}"))?;
        out.push((
            u64::from(sec) * 1_000_000_000 + u64::from(frac) * frac_ns,
            body,
        ));
        at += 16 + len as usize;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_unwrap_across_the_32_bit_boundary() {
        assert_eq!(near(0, 5), 5);
        assert_eq!(near(u32::MAX as u64 - 10, 20), u32::MAX as u64 + 21);
        assert_eq!(near((1 << 32) + 100, 90), (1 << 32) + 90);
        // A number just below the origin stays at the origin.
        assert_eq!(near(3, u32::MAX), 0);
    }

    #[test]
    fn a_file_that_is_not_a_pcap_is_refused_with_why() {
        let e = parse(b"GIF89a not a capture at all").unwrap_err();
        assert!(format!("{e:#}").contains("magic number"), "{e:#}");
    }

    #[test]
    fn a_truncated_record_names_its_number() {
        let mut b = Vec::new();
        b.extend(PCAP_MAGIC_NANOS.to_le_bytes());
        b.extend([2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
        b.extend(LINKTYPE_RAW.to_le_bytes());
        b.extend([0; 8]);
        b.extend(60u32.to_le_bytes());
        b.extend(60u32.to_le_bytes());
        b.extend([0x45; 10]);
        let e = parse(&b).unwrap_err();
        assert!(format!("{e:#}").contains("record 1: truncated"), "{e:#}");
    }
}
