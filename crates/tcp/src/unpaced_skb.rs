//! The skbs of a sender that does not pace (Linux reno and cubic): which of its
//! segments leave as one skb, so that the last of an skb of two or more carries PSH.
//!
//! Linux builds skbs of up to `tcp_tso_segs` segments for every congestion control,
//! not only for the paced ones: `tcp_write_xmit` cuts `tcp_tso_autosize` segments
//! (at least `net.ipv4.tcp_min_tso_segs`, 2) from the send queue, fewer when cwnd or
//! the window leave fewer (`tcp_mss_split_point`), and `__tcp_transmit_skb` forces PSH
//! on every skb of two or more ("Force a PSH flag on all (GSO) packets to expedite GRO
//! flush at receiver"), which GSO keeps on the last segment (`tcp_gso_segment`). The
//! kernel's pcaps of reno on the real paths show it: the slow start's segments go out
//! in pairs whose second is marked PSH (AT&T 172 s: 1299 of 2766 new data segments
//! marked), and the receiver acknowledges a lone full-sized PSH segment at once
//! (`ICSK_ACK_PUSHED`, the `linux_receiver` module).
//!
//! An skb here: contiguous segments the sender emits while handling one event (one
//! ACK, one timer: one `tcp_write_xmit`), up to the stack's
//! `StackRules::unpaced_skb_segments`. The paced senders' skbs are the `pacing`
//! module's.

use spikelab_core::{Packet, PacketKind};

/// Whether the data segment starting at `start` joins the skb of the segment before it,
/// skbs holding up to `segs` segments: `out` holds what the sender sent so far while
/// handling this event (one `tcp_write_xmit`), whose contiguous run of data segments
/// ending at `start` was cut into skbs from its first segment on. The segment joins
/// unless that run fills whole skbs (its PSH flag then moves to it).
pub fn joins_skb(out: &[Packet], start: u64, segs: u64) -> bool {
    segs > 1 && run_before(out, start, |_| false) % segs != 0
}

/// The contiguous data segments at the end of `out` that end at `start`, counted back
/// until one for which `stop` holds (not counted).
#[inline]
fn run_before(out: &[Packet], start: u64, stop: impl Fn(&Packet) -> bool) -> u64 {
    let mut next = start;
    let mut run = 0;
    for p in out.iter().rev() {
        let contiguous = p.kind == PacketKind::Data && p.len > 0 && p.end_seq() == next;
        if !contiguous || stop(p) {
            break;
        }
        run += 1;
        next = p.seq;
    }
    run
}

/// Whether the retransmission starting at `start` joins the skb of the segment before
/// it. `tcp_xmit_retransmit_queue` retransmits the retransmission queue's skbs, which
/// are the pieces the segments were sent in (`tso_fragment` cut each send off the send
/// queue), cut again where a retransmission had room for fewer segments than a piece
/// held (`tcp_fragment` at `cur_mss * segs` in `__tcp_retransmit_skb`); pieces are
/// never joined. So a contiguous run of retransmissions of one event is cut into skbs
/// of up to `segs` from its first segment on, as new data is, and again after every
/// segment that ends a piece (`ends_skb(seq)`, for the segment starting at `seq`).
pub fn joins_rtx_skb(
    out: &[Packet],
    start: u64,
    segs: u64,
    ends_skb: impl Fn(u64) -> bool,
) -> bool {
    segs > 1 && run_before(out, start, |p| !p.retx || ends_skb(p.seq)) % segs != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::{FlowId, Time};

    fn data(seq: u64) -> Packet {
        let mut p = Packet::new(0, FlowId(0), PacketKind::Data, Time::ZERO);
        (p.seq, p.len) = (seq, 1000);
        p
    }

    /// Which of `n` contiguous segments from 0 join the skb before them.
    fn joined(n: u64, segs: u64) -> Vec<bool> {
        let mut out = Vec::new();
        (0..n)
            .map(|i| {
                let j = joins_skb(&out, i * 1000, segs);
                out.push(data(i * 1000));
                j
            })
            .collect()
    }

    #[test]
    fn contiguous_segments_of_one_event_form_skbs_from_the_first_on() {
        assert_eq!(joined(5, 2), [false, true, false, true, false]);
        assert_eq!(joined(4, 3), [false, true, true, false]);
    }

    /// Which of `n` contiguous retransmissions from 0 join the skb before them, the
    /// segments in `ends` ending pieces of the retransmission queue.
    fn rtx_joined(n: u64, segs: u64, ends: &[u64]) -> Vec<bool> {
        let mut out = Vec::new();
        (0..n)
            .map(|i| {
                let j = joins_rtx_skb(&out, i * 1000, segs, |seq| ends.contains(&(seq / 1000)));
                let mut p = data(i * 1000);
                p.retx = true;
                out.push(p);
                j
            })
            .collect()
    }

    #[test]
    fn retransmissions_restart_their_skbs_after_each_piece_the_segments_were_sent_in() {
        // AT&T LTE CUBIC 172 s: sent as [302, 303] [304, 305] ..., retransmitted from
        // 303 at 0.934 s as 303 | 304 305 | 306 307 (PSH on 305 and 307).
        assert_eq!(
            rtx_joined(5, 2, &[0, 2, 4]),
            [false, false, true, false, true]
        );
        assert_eq!(rtx_joined(5, 2, &[]), [false, true, false, true, false]);
        assert_eq!(rtx_joined(4, 3, &[0]), [false, false, true, true]);
    }

    #[test]
    fn new_data_never_joins_a_retransmissions_skb() {
        let out = vec![data(0)];
        assert!(
            !joins_rtx_skb(&out, 1000, 2, |_| false),
            "not a retransmission"
        );
    }

    #[test]
    fn skbs_of_one_segment_never_join() {
        assert_eq!(joined(3, 1), [false, false, false]);
    }

    #[test]
    fn a_gap_or_a_header_only_segment_starts_an_skb() {
        let out = vec![data(0)];
        assert!(!joins_skb(&out, 5000, 2), "not contiguous");
        let mut ack = data(0);
        ack.len = 0;
        assert!(!joins_skb(&[ack], 0, 2), "the handshake's ACK");
        assert!(joins_skb(&out, 1000, 2));
    }
}
