//! Segments cut at the receive window's right edge, and Minshall's variant of Nagle's
//! algorithm that decides when such a sub-MSS segment may go out (Linux 6.x,
//! net/ipv4/tcp_output.c).
//!
//! `tcp_write_xmit` sends from the head of the write queue one skb at a time; with
//! `tcp_grow_skb` the head skb holds as much of the queue as cwnd admits, so a bulk
//! sender's skb reaches past the window's right edge whenever the receiver's window,
//! not cwnd, is the limit. `tcp_snd_wnd_test` lets the skb out if its first full
//! segment fits in the window; `tcp_mss_split_point` then cuts it at the window's
//! edge, `min(skb->len, tcp_wnd_end - seq)`, and keeps the sub-MSS remainder
//! (`needed % mss_now`) in that cut unless `tcp_nagle_check` holds it. The cut
//! happens only when cwnd admits one more packet than the whole segments up to the
//! edge (`max_len <= needed` returns the cwnd limit instead). A sender whose first
//! segment does not fit sends nothing, so a sub-MSS segment at the edge is always
//! the tail of a burst that began with a whole segment in the same pass.
//!
//! `tcp_nagle_check(partial, tp, nonagle)` with `nonagle` 0 (no `TCP_NODELAY`) holds
//! a partial while packets are out and `tcp_minshall_check` finds a small segment
//! still unacknowledged: `snd_sml`, the end of the last sent skb shorter than its
//! segment count times the MSS (`tcp_minshall_update`), lies in `(snd_una,
//! snd_nxt]`.
//!
//! The sender offers the cut ([`crate::stacks::StackRules::cuts_at_window_edge`])
//! only within one send pass that has already sent a whole new segment, and only
//! with data beyond the edge; cwnd is checked as for any segment (the bytes of
//! one sub-MSS segment in flight round up to the packet the kernel counts).

/// The end of the last small segment sent (`tp->snd_sml`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Minshall {
    snd_sml: u64,
}

impl Minshall {
    /// `tcp_minshall_update`: a new-data segment `[start, end)` shorter than `mss`
    /// went out.
    pub fn on_small_sent(&mut self, end: u64) {
        self.snd_sml = end;
    }

    /// `tcp_minshall_check`: a small segment is still unacknowledged.
    pub fn small_in_flight(&self, snd_una: u64, snd_nxt: u64) -> bool {
        self.snd_sml > snd_una && self.snd_sml <= snd_nxt
    }

    /// `tcp_mss_split_point` through `tcp_nagle_check`: a sub-MSS remainder at the
    /// window's edge goes out in the cut (packets are out: the pass sent some).
    pub fn sends_partial(&self, snd_una: u64, snd_nxt: u64) -> bool {
        !self.small_in_flight(snd_una, snd_nxt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_goes_out_when_no_small_segment_is_unacknowledged() {
        let m = Minshall::default();
        assert!(m.sends_partial(0, 10_000));
    }

    #[test]
    fn an_unacknowledged_small_segment_holds_the_next_partial() {
        let mut m = Minshall::default();
        m.on_small_sent(5_056);
        assert!(!m.sends_partial(0, 10_000), "snd_sml in (snd_una, snd_nxt]");
        assert!(
            m.sends_partial(5_056, 10_000),
            "acknowledged: no longer in flight"
        );
    }

    #[test]
    fn the_small_segment_ending_at_snd_nxt_is_in_flight() {
        let mut m = Minshall::default();
        m.on_small_sent(5_056);
        assert!(m.small_in_flight(5_055, 5_056));
    }
}
