//! The sender's one stream: the bytes the application wrote, sent, acknowledged, and
//! to send again. A retransmission is the same stream bytes in a new packet (RFC 9002
//! 2: "QUIC ... never retransmits a packet; ... the data ... is sent in new packets").

use crate::ranges::RangeSet;

/// What the next packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub offset: u64,
    pub len: u64,
    /// Bytes sent before.
    pub retx: bool,
}

#[derive(Clone, Debug, Default)]
pub struct StreamSend {
    /// Bytes the application wrote.
    app_end: u64,
    /// One past the highest byte sent.
    sent_end: u64,
    acked: RangeSet,
    /// Bytes declared lost and not acknowledged since: sent again first.
    lost: RangeSet,
}

impl StreamSend {
    pub fn write(&mut self, bytes: u64) {
        self.app_end += bytes;
    }

    pub fn app_end(&self) -> u64 {
        self.app_end
    }

    pub fn sent_end(&self) -> u64 {
        self.sent_end
    }

    /// Something to send: lost bytes, or bytes never sent.
    pub fn has_data(&self) -> bool {
        !self.lost.is_empty() || self.sent_end < self.app_end
    }

    /// The next chunk of at most `max` bytes: lost bytes first, lowest first.
    pub fn next_chunk(&mut self, max: u64) -> Option<Chunk> {
        self.next_chunk_at(|_| max)
    }

    /// The next chunk, of at most `max(offset)` bytes when it starts at `offset` (a
    /// STREAM frame's header grows with its offset, [`crate::wire`]).
    pub fn next_chunk_at(&mut self, max: impl Fn(u64) -> u64) -> Option<Chunk> {
        if let Some(lo) = self.lost.min() {
            let hi = self.lost.iter().next().map_or(lo, |r| r.1);
            let len = (hi - lo + 1).min(max(lo));
            self.lost.remove(lo, lo + len - 1);
            return Some(Chunk {
                offset: lo,
                len,
                retx: true,
            });
        }
        if self.sent_end >= self.app_end {
            return None;
        }
        let len = (self.app_end - self.sent_end).min(max(self.sent_end));
        let c = Chunk {
            offset: self.sent_end,
            len,
            retx: false,
        };
        self.sent_end += len;
        Some(c)
    }

    /// Bytes `offset..offset + len` were acknowledged.
    pub fn on_acked(&mut self, offset: u64, len: u64) {
        if len > 0 {
            self.acked.insert(offset, offset + len - 1);
            self.lost.remove(offset, offset + len - 1);
        }
    }

    /// The packet carrying `offset..offset + len` was declared lost: what of it is not
    /// acknowledged goes again.
    pub fn on_lost(&mut self, offset: u64, len: u64) {
        if len == 0 {
            return;
        }
        let (lo, hi) = (offset, offset + len - 1);
        self.lost.insert(lo, hi);
        let covered: Vec<_> = self
            .acked
            .iter()
            .filter(|&(a, b)| a <= hi && b >= lo)
            .collect();
        for (a, b) in covered {
            self.lost.remove(a.max(lo), b.min(hi));
        }
    }

    /// Whether bytes `offset..offset + len` are all acknowledged.
    pub fn is_acked(&self, offset: u64, len: u64) -> bool {
        len == 0 || self.acked.covers(offset, offset + len - 1)
    }

    /// Every byte written is acknowledged.
    pub fn all_acked(&self) -> bool {
        self.is_acked(0, self.app_end)
    }

    /// The first byte not acknowledged.
    pub fn first_unacked(&self) -> u64 {
        match self.acked.iter().next() {
            Some((0, hi)) => hi + 1,
            _ => 0,
        }
    }

    pub fn check(&self) -> Result<(), String> {
        if self.acked.max().is_some_and(|m| m >= self.sent_end) {
            return Err(format!(
                "bytes acknowledged beyond the {} sent",
                self.sent_end
            ));
        }
        if self.lost.max().is_some_and(|m| m >= self.sent_end) {
            return Err(format!("bytes lost beyond the {} sent", self.sent_end));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_bytes_go_before_new_ones_and_acknowledged_ones_never_again() {
        let mut s = StreamSend::default();
        s.write(3000);
        assert_eq!(
            s.next_chunk(1000),
            Some(Chunk {
                offset: 0,
                len: 1000,
                retx: false
            })
        );
        assert_eq!(s.next_chunk(1000).unwrap().offset, 1000);
        s.on_acked(500, 200);
        s.on_lost(0, 1000);
        assert_eq!(
            s.next_chunk(1000),
            Some(Chunk {
                offset: 0,
                len: 500,
                retx: true
            })
        );
        assert_eq!(
            s.next_chunk(1000),
            Some(Chunk {
                offset: 700,
                len: 300,
                retx: true
            })
        );
        assert_eq!(
            s.next_chunk(1000),
            Some(Chunk {
                offset: 2000,
                len: 1000,
                retx: false
            })
        );
        assert_eq!(s.next_chunk(1000), None);
        assert_eq!(s.first_unacked(), 0);
    }
}
