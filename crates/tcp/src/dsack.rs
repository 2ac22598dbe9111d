//! An ACK's SACK blocks as RFC 2883 reads them: the D-SACK block, if any, and the
//! others.

use spikelab_core::{Packet, SackBlocks};

/// A SACK block `[start, end)`.
pub type SackBlock = (u64, u64);

/// The highest right edge among an ACK's SACK blocks (D-SACK excluded).
#[inline]
pub fn sack_right_edge(pkt: &Packet) -> Option<u64> {
    split_dsack(pkt).1.iter().map(|b| b.1).max()
}

/// Splits an ACK's SACK blocks into the D-SACK block, if any, and the others
/// (RFC 2883 section 4: the first block reports a duplicate when it lies below the
/// cumulative ACK or inside the second block).
#[inline]
pub fn split_dsack(pkt: &Packet) -> (Option<SackBlock>, OtherBlocks) {
    let blocks = pkt.sack();
    let inside_second = |s: u64, e: u64| blocks.get(1).is_some_and(|&(s2, e2)| s >= s2 && e <= e2);
    match blocks.first() {
        Some(&(s, e)) if e <= pkt.ack || inside_second(s, e) => (
            Some((s, e)),
            OtherBlocks {
                all: blocks,
                from: 1,
            },
        ),
        _ => (
            None,
            OtherBlocks {
                all: blocks,
                from: 0,
            },
        ),
    }
}

/// An ACK's SACK blocks after its D-SACK block ([`split_dsack`]), read as a slice.
#[derive(Clone, Copy, Debug)]
pub struct OtherBlocks {
    all: SackBlocks,
    from: u8,
}

impl std::ops::Deref for OtherBlocks {
    type Target = [SackBlock];
    #[inline]
    fn deref(&self) -> &[SackBlock] {
        &self.all[self.from as usize..]
    }
}
