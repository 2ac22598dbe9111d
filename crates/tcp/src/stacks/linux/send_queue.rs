//! The skbs of Linux's send queue as a bulk write leaves them, and the head skb
//! `tcp_write_xmit` (net/ipv4/tcp_output.c, Linux 6.18) sends from.
//!
//! `tcp_sendmsg_locked` (net/ipv4/tcp.c) copies the application's bytes into skbs of
//! `size_goal` bytes (`tcp_send_mss` -> `tcp_xmit_size_goal`: the GSO limit bound to
//! half the largest receive window seen, `tcp_bound_to_half_wnd`, in whole MSS). While
//! the tail skb is the send head, each time it is full the write sends from it
//! (`tcp_push_one`, or `__tcp_push_pending_frames` when `forced_push`), cutting
//! `tcp_tso_segs` segments off with `tso_fragment`, whose remainder is the new tail the
//! write keeps filling to `size_goal`. Once cwnd stops those sends the tail stays
//! unsent: the skbs then end at `origin + k * size_goal`, `origin` where the write's
//! sends stopped (snd_nxt after the initial window), and later writes fill the tail
//! skb before adding more (`copy = size_goal - skb->len`). A bulk transfer written at
//! the connection's start keeps that layout to its end: the kernel's captures of the
//! real paths show it, their lone PSH segments (an skb's last, `tcp_mark_push`) ending
//! at 10 + 22 k segments (IW 10; 65,535 / 2 B = 22 segments of 1448 B).
//!
//! `tcp_write_xmit` sends the send head: it first grows it to `cwnd_quota` =
//! min(cwnd room, `tcp_tso_segs`) segments from the skbs behind it (`tcp_grow_skb`,
//! not for the queue's last skb), and asks `tcp_tso_should_defer` only of an skb of
//! more than one segment (`tso_segs == 1` meets Nagle's test alone, which a
//! full-sized segment passes). So with room for one segment the last segment of a
//! `size_goal` skb goes at once where a larger head would wait
//! (the `tso_defer` module beside this one).
//!
//! Simplification: a head grown by `tcp_grow_skb` and then deferred keeps its new end
//! in the kernel; here the layout alone sets the head. It matters only for a head grown
//! to fewer than `tcp_tso_segs` segments that the receive window then holds back
//! (cwnd room alone sends such a head: "Middle in queue won't get any more data").

/// `GSO_LEGACY_MAX_SIZE`, the veth devices' `gso_max_size` (`sk_gso_max_size`).
const GSO_MAX_SIZE: u64 = 65_536;
/// `MAX_TCP_HEADER` on x86-64: `L1_CACHE_ALIGN(128 + MAX_HEADER)`.
const MAX_TCP_HEADER: u64 = 320;
/// `TCP_MSS_DEFAULT`: `tcp_bound_to_half_wnd` halves only windows above it.
const TCP_MSS_DEFAULT: u64 = 536;

/// `tcp_xmit_size_goal`: the bytes `tcp_sendmsg_locked` puts in one skb, given the
/// largest receive window seen (`max_window`) and the MSS.
pub fn size_goal(max_window: u64, mss: u64) -> u64 {
    let gso = GSO_MAX_SIZE - 1 - MAX_TCP_HEADER;
    // tcp_bound_to_half_wnd: "there is no use in packetizing to sub-MSS pieces".
    let cutoff = if max_window > TCP_MSS_DEFAULT {
        max_window >> 1
    } else {
        max_window
    };
    let goal = if cutoff > 0 { gso.min(cutoff) } else { gso };
    (goal / mss * mss).max(mss)
}

/// The send queue's skb boundaries: from the write's `origin` on, one every
/// `size_goal` bytes (at most 64 KiB: `sk_gso_max_size`), kept as `origin` modulo
/// `size_goal` (new data is never below `origin`). The default, `size_goal` 0, is no
/// write yet: the head is the whole unsent rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendQueue {
    phase: u32,
    size_goal: u32,
}

impl SendQueue {
    /// The write's sends stopped at `origin`; `max_window` and `mss` as it began.
    pub fn new(origin: u64, max_window: u64, mss: u64) -> SendQueue {
        let goal = size_goal(max_window, mss);
        SendQueue {
            phase: (origin % goal) as u32,
            size_goal: goal as u32,
        }
    }

    /// The end of the skb `tcp_sendmsg_locked` put the byte `seq` (at or past the
    /// write's origin) in.
    pub fn skb_end(&self, seq: u64) -> u64 {
        let (phase, goal) = (self.phase as u64, self.size_goal as u64);
        if seq < phase {
            return phase;
        }
        phase + ((seq - phase) / goal + 1) * goal
    }

    /// `tcp_write_xmit`'s head skb at `snd_nxt` once `tcp_grow_skb` has grown it to
    /// `quota` bytes (`cwnd_quota * mss_now`): its length, and whether it is the send
    /// queue's last (the transfer ends at `app_end`).
    pub fn head(&self, snd_nxt: u64, app_end: u64, quota: u64) -> (u64, bool) {
        if self.size_goal == 0 {
            return (app_end - snd_nxt, true);
        }
        let end = self.skb_end(snd_nxt).min(app_end);
        let mut len = end - snd_nxt;
        // tcp_grow_skb: "if (tcp_skb_is_last(sk, skb)) return;", else it takes from
        // the skbs behind until the head holds `quota` bytes.
        if end < app_end && len < quota {
            len = quota.min(app_end - snd_nxt);
        }
        (len, snd_nxt + len >= app_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    #[test]
    fn size_goal_is_half_the_syn_acks_window_in_whole_segments() {
        // 65,535 / 2 = 32,767 B: 22 segments of 1448 B.
        assert_eq!(size_goal(65_535, MSS), 22 * MSS);
        // A window past twice the GSO limit: 65,215 B, 45 segments.
        assert_eq!(size_goal(1 << 20, MSS), 45 * MSS);
        // A window of less than a segment still gives one.
        assert_eq!(size_goal(1_000, MSS), MSS);
    }

    #[test]
    fn skbs_end_every_size_goal_from_where_the_initial_window_stopped() {
        let q = SendQueue::new(10 * MSS, 65_535, MSS);
        assert_eq!(q.skb_end(10 * MSS), 32 * MSS);
        assert_eq!(q.skb_end(31 * MSS), 32 * MSS);
        assert_eq!(q.skb_end(32 * MSS), 54 * MSS);
        assert_eq!(q.skb_end(229 * MSS), 230 * MSS);
    }

    #[test]
    fn with_room_for_one_the_last_segment_of_an_skb_is_a_head_of_one() {
        let q = SendQueue::new(10 * MSS, 65_535, MSS);
        // tmobile-umts 710 s at 0.814 s: segments 227 and 228 sent, one more of room.
        assert_eq!(q.head(229 * MSS, 2763 * MSS, MSS), (MSS, false));
        // Two of room: grown from the next skb to two.
        assert_eq!(q.head(229 * MSS, 2763 * MSS, 2 * MSS), (2 * MSS, false));
        // Mid-skb the head is the rest of its skb.
        assert_eq!(q.head(223 * MSS, 2763 * MSS, MSS), (7 * MSS, false));
    }

    #[test]
    fn before_a_write_the_head_is_the_whole_rest() {
        assert_eq!(SendQueue::default().head(5, 100, 2 * MSS), (95, true));
    }

    #[test]
    fn the_queues_last_skb_is_not_grown() {
        let q = SendQueue::new(10 * MSS, 65_535, MSS);
        assert_eq!(q.head(31 * MSS, 31 * MSS + 100, 2 * MSS), (100, true));
        // Grown up to the transfer's end, it is the last.
        assert_eq!(q.head(31 * MSS, 32 * MSS + 100, 2 * MSS), (MSS + 100, true));
    }
}

#[cfg(test)]
mod sender_tests {
    use crate::config::TcpConfig;
    use crate::rto::Rto;
    use crate::TcpSender;
    use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time};

    fn at_us(v: u64) -> Time {
        Time::ZERO + Dur::from_micros(v)
    }

    /// New data segments the sender emits on an ACK of `ack` at `now_us`.
    fn sent_on_ack<E: crate::rto::RtoEstimator>(
        s: &mut TcpSender<E>,
        now_us: u64,
        ack: u64,
    ) -> Vec<u64> {
        let mut p = Packet::new(0, FlowId(0), PacketKind::Ack, Time::ZERO);
        (p.ack, p.rwnd) = (ack, 1 << 20);
        let mut out = Vec::new();
        s.on_ack(at_us(now_us), &p, &mut out);
        out.iter()
            .filter(|p| p.kind == PacketKind::Data && p.len > 0)
            .map(|p| p.seq)
            .collect()
    }

    #[test]
    fn the_last_segment_of_an_skb_goes_with_one_segment_of_room_where_a_larger_head_waits() {
        // A 4000 B window at the write: skbs of 2000 B (half of it), the first
        // pass sends 4 segments, so the skbs end at 6000, 8000, ... 16000 B.
        let cfg = TcpConfig {
            mss: 1000,
            handshake: false,
            timestamps: false,
            receiver_window: 4000,
            initial_ssthresh: 2000,
            ..TcpConfig::linux()
        };
        let mut s = TcpSender::new(FlowId(0), &cfg, Rto::new(&cfg.rto));
        let mut out = Vec::new();
        s.on_start(Time::ZERO, &mut out);
        s.on_app_data(Time::ZERO, 100_000, &mut out);
        // 100 ms: all four acknowledged, the window opens: ten segments to 14000 B.
        assert_eq!(sent_on_ack(&mut s, 100_000, 4000).len(), 10);
        // 200 ms: one segment of room, the last write 100 ms old: one segment goes,
        // cut from the skb 14000..16000.
        assert_eq!(sent_on_ack(&mut s, 200_000, 5000), vec![14_000]);
        // 4 us later, one more of room, the oldest segment's ACK due: the head is the
        // skb's last segment, asked no deferral (a head of the whole rest waited).
        assert_eq!(sent_on_ack(&mut s, 200_004, 6000), vec![15_000]);
        // The next skb, with one of room, waits for the next ACK.
        assert_eq!(sent_on_ack(&mut s, 200_008, 7000), Vec::<u64>::new());
    }
}
