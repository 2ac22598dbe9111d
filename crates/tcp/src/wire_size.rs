//! The sizes on the wire of an endpoint's data segments and ACKs, fixed when the
//! endpoint builds them.
//!
//! A packet's size ([`Packet::wire_bytes`]: headers, options padded to four bytes,
//! payload; RFC 793 / 7323 / 2018, or ns-2's header model) is fixed once by
//! [`Packet::seal`] before it enters the network. For one flow, a data segment's size
//! is its payload plus a constant (the same options on every segment) and an ACK's
//! depends only on how many SACK blocks it carries, so each endpoint asks
//! [`Packet::wire_bytes`] once, on template packets built as its own are, and seals
//! every packet it sends by a table look-up instead of the general computation
//! (about 40 instructions per packet, on every packet a host sends). The formula stays
//! in one place: the templates go through it.

use crate::config::TcpConfig;
use spikelab_core::packet::MAX_SACK_BLOCKS;
use spikelab_core::{FlowId, Packet, PacketKind, Time, Timestamps, WireModel};

/// The wire sizes of one flow's segments and ACKs ([`TcpConfig`]'s timestamps and
/// header model decide them). Headers and options are at most 100 bytes: kept in
/// `u16`s, so the five ACK sizes (0 to 4 SACK blocks) cost every endpoint no more than
/// four `u32`s did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireSizes {
    /// A data segment's bytes besides its payload.
    data_header: u16,
    /// An ACK's bytes, by the number of SACK blocks it carries.
    ack: [u16; MAX_SACK_BLOCKS + 1],
}

impl WireSizes {
    pub fn new(cfg: &TcpConfig) -> WireSizes {
        let size = |kind, blocks: u64| {
            let mut p = Packet::new(0, FlowId(0), kind, Time::ZERO);
            p.wire_model = wire_model(cfg);
            if cfg.timestamps {
                p.set_ts(Some(Timestamps::default()));
            }
            for i in 0..blocks {
                p.push_sack(2 * i, 2 * i + 1);
            }
            u16::try_from(p.wire_bytes()).expect("headers and options fit in u16")
        };
        WireSizes {
            data_header: size(PacketKind::Data, 0),
            ack: std::array::from_fn(|n| size(PacketKind::Ack, n as u64)),
        }
    }

    /// A data segment's bytes besides its payload (IP and TCP headers, options).
    pub fn data_header(&self) -> u32 {
        u32::from(self.data_header)
    }

    /// Seals data segment `p` (its fields all set as [`WireSizes::new`]'s template's).
    #[inline(always)]
    pub fn seal_data(&self, p: &mut Packet) {
        p.seal_as(u32::from(self.data_header) + p.len);
        debug_assert_eq!(p.wire_bytes(), resealed(p), "data segment size");
    }

    /// Seals pure ACK `p` (no payload; its fields all set as the template's).
    #[inline(always)]
    pub fn seal_ack(&self, p: &mut Packet) {
        p.seal_as(u32::from(self.ack[p.sack_len()]));
        debug_assert_eq!(p.wire_bytes(), resealed(p), "ACK size");
    }
}

/// How the flow's packets count their headers: ns-2's one-way agents' sizes
/// (`Ns2Switches::header_sizes`) or real headers.
pub fn wire_model(cfg: &TcpConfig) -> WireModel {
    if cfg.ns2.header_sizes {
        WireModel::Ns2OneWay
    } else {
        WireModel::Standard
    }
}

/// `p`'s size computed afresh: what [`Packet::seal`] would fix.
fn resealed(p: &Packet) -> u32 {
    let mut q = *p;
    q.seal();
    q.wire_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cfg: &TcpConfig) {
        let sizes = WireSizes::new(cfg);
        for blocks in 0..=MAX_SACK_BLOCKS as u64 {
            let mut p = Packet::new(0, FlowId(0), PacketKind::Ack, Time::ZERO);
            p.wire_model = wire_model(cfg);
            p.set_ts(cfg.timestamps.then_some(Timestamps { val: 7, ecr: 3 }));
            for i in 0..blocks {
                p.push_sack(1000 * i, 1000 * i + 500);
            }
            sizes.seal_ack(&mut p);
            assert_eq!(p.wire_bytes(), resealed(&p), "{blocks} blocks");
        }
        for len in [0, 1, 536, 1448] {
            let mut p = Packet::new(0, FlowId(0), PacketKind::Data, Time::ZERO);
            p.wire_model = wire_model(cfg);
            p.set_ts(cfg.timestamps.then_some(Timestamps { val: 7, ecr: 3 }));
            p.len = len;
            sizes.seal_data(&mut p);
            assert_eq!(p.wire_bytes(), resealed(&p), "payload {len}");
        }
    }

    #[test]
    fn the_table_gives_the_size_the_general_computation_gives() {
        for ts in [false, true] {
            for header_sizes in [false, true] {
                let mut cfg = TcpConfig {
                    timestamps: ts,
                    ..TcpConfig::default()
                };
                cfg.ns2.header_sizes = header_sizes;
                check(&cfg);
            }
        }
    }
}
