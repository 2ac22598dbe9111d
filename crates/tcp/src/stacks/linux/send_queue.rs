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
//! `tcp_sendmsg_locked` also marks skbs PSH (`tcp_mark_push`: the flag in the skb's
//! control block, `pushed_seq = write_seq`), in two places only: (a) when a copy fills
//! the tail skb to `size_goal` and `forced_push` holds (`write_seq` past `pushed_seq +
//! max_window / 2`), before `__tcp_push_pending_frames`; (b) `tcp_push` at the end of
//! each write(2) marks the tail skb, whose mark the next write's first copy clears if
//! it goes into the same skb (`if (!copied) ... &= ~TCPHDR_PSH`). The mark is the
//! skb's: while cwnd still lets the write send, `tso_fragment` cuts sends off the
//! tail's front and gives the mark to the remainder, which the write keeps filling.
//! With IW 10, 22-segment skbs and `tcp_tso_segs` 2: [0, 22) full, not forced, the
//! send head: `tcp_push_one` sends [0, 2); the rest refilled to [2, 24) is forced:
//! marked, `pushed_seq` 24, [2, 10) sent; [10, 24), still the tail, is refilled to
//! [10, 32) with its mark; then [32, 54) is forced (30 segments past `pushed_seq`):
//! marks at 32, 54, 98, 142, ... (every other skb, skbs a little under half the window).
//! When the first send takes 10 segments or more, at 32, 76, 120, ... The application
//! is `spikelab emulate`'s: writes of at most [`APP_WRITE_BYTES`], each returning at
//! once into a send buffer that holds the whole transfer (crates/emulate/src/host.rs),
//! all at the connection's start, so each write after the first restarts the chain at
//! its start, and the transfer's end stays marked. A send of an skb ending at a mark
//! carries PSH (`__tcp_transmit_skb` copies the control block's flags; GSO puts
//! `pcount > 1`'s forced PSH on the last segment anyway), and the receiver ACKs a
//! full-sized one at once (`tcp_measure_rcv_mss`' ICSK_ACK_PUSHED).
//!
//! `tcp_grow_skb` moves bytes (`skb_shift`), not control blocks: a grown head keeps its
//! own PSH mark, now at its grown end, and takes the flags of an skb it eats whole
//! (`tcp_eat_one_skb`). It grows the head before `tcp_snd_wnd_test` and
//! `tcp_mss_split_point`, so a receive-window cut (`tso_fragment`, which gives the mark
//! to the rest) leaves a head ending past the layout's end, mark and all; once a cut
//! lands mid-segment, each skb's last piece is grown by the difference and its mark
//! leaves that much later (AT&T LTE CUBIC 310 s: 978 segments + 56 B).
//! [`SendQueue::on_new_data_sent`] keeps that head (its end and mark) between sends.
//! A retransmission's mark is not the layout's: it is the mark of the piece of the
//! retransmission queue it ends (the sender's segment table keeps the pieces,
//! `Seg::ends_skb` and `Seg::skb_pushed`; `unpaced_skb::joins_rtx_skb`).

use std::ops::Range;

/// The largest write(2) of the application `spikelab emulate` runs: it writes a
/// transfer in pieces of 1 MiB, each a `tcp_sendmsg_locked` of its own.
pub const APP_WRITE_BYTES: u64 = 1 << 20;
/// [`SendQueue`]'s bit for the kept head's PSH mark.
const HEAD_MARK: u32 = 1 << 31;
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
/// `size_goal` (new data is never below `origin`); and `tcp_sendmsg_locked`'s PSH
/// marks on them ([`Self::pushed`]). The default, `size_goal` 0, is no write yet: the
/// head is the whole unsent rest, unmarked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendQueue {
    phase: u16,
    size_goal: u16,
    /// `max_window >> 1`: how far `write_seq` passes `pushed_seq` for `forced_push`.
    half_window: u32,
    /// The first write(2)'s marks from `origin` on, as offsets from its start: the
    /// end of the skb holding `origin` if the write marked that skb before its sends
    /// stopped (else 0), and the first mark `forced_push` set after.
    first_tail_mark: u32,
    first_forced_mark: u32,
    /// Where the application's write into the empty queue began.
    write_start: u64,
    /// The head skb as `tcp_write_xmit` last took it ([`Self::on_new_data_sent`]):
    /// its end, which `tcp_grow_skb` may have moved past the layout's, and its PSH
    /// mark; a send cut short of it leaves the rest, mark and all, as the head. Kept
    /// in 32 bits: its end's offset from `write_start` and the mark in the top bit
    /// (0: none; a head 2 GiB or more past the write's start is not kept).
    head: u32,
}

impl SendQueue {
    /// The application wrote `write` (its bytes' sequence range, in write(2)s of
    /// [`APP_WRITE_BYTES`]) into an empty queue and the write's sends stopped at
    /// `origin`; `max_window` and `mss` as it began, and `first_skb` the bytes of the
    /// first skb it sent (`tcp_push_one`: `tcp_tso_segs` segments, at most cwnd's room).
    pub fn new(
        origin: u64,
        max_window: u64,
        mss: u64,
        write: Range<u64>,
        first_skb: u64,
    ) -> SendQueue {
        let goal = size_goal(max_window, mss);
        let half = (max_window >> 1).min(u32::MAX as u64);
        let mut q = SendQueue {
            phase: (origin % goal) as u16,
            size_goal: goal as u16,
            half_window: half as u32,
            first_tail_mark: 0,
            first_forced_mark: 0,
            write_start: write.start,
            head: 0,
        };
        let first_end = write.end.min(write.start + APP_WRITE_BYTES);
        if origin < first_end {
            let first = write.start..first_end;
            let stop = FirstWrite::until_sends_stop(first, origin, goal, half, first_skb);
            let forced = q.skb_end((stop.pushed_seq + half).max(origin));
            let tail = if stop.tail_marked {
                q.skb_end(origin)
            } else {
                write.start
            };
            // Both within the first write and the skb past it: well inside u32.
            q.first_forced_mark = (forced - write.start) as u32;
            q.first_tail_mark = (tail - write.start) as u32;
        }
        q
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

    /// Whether the skb ending at `end` carries `tcp_sendmsg_locked`'s PSH mark
    /// (`tcp_mark_push`), the last write(2) ending at `app_end`: the transfer's end
    /// (`tcp_push` at the last write's end), a write's end that ends an skb (`tcp_push`,
    /// the next write starting a new skb; inside one, the next write's first copy
    /// clears it), or an skb a write filled while `forced_push` held. Marks below
    /// `origin` (skbs the first write marked and sent whole) are not modelled.
    #[inline]
    pub fn pushed(&self, end: u64, app_end: u64) -> bool {
        if end == app_end {
            return true;
        }
        let inside = self.size_goal != 0 && end > self.write_start && end < app_end;
        inside && self.skb_end(end - 1) == end && self.pushed_skb_end(end)
    }

    /// [`Self::pushed`] for an skb's end inside the transfer.
    fn pushed_skb_end(&self, end: u64) -> bool {
        // The write(2) holding the skb's last byte.
        let piece = (end - 1 - self.write_start) / APP_WRITE_BYTES;
        let start = self.write_start + piece * APP_WRITE_BYTES;
        if end == start + APP_WRITE_BYTES {
            return true;
        }
        let first = if piece > 0 {
            // tcp_push at the previous write's end left pushed_seq at this one's start.
            self.skb_end(start + self.half_window as u64)
        } else if end == start + self.first_tail_mark as u64 {
            return true;
        } else {
            start + self.first_forced_mark as u64
        };
        // Then every `period` bytes: the fewest whole skbs that take write_seq past
        // pushed_seq + max_window / 2.
        let goal = self.size_goal as u64;
        let period = (self.half_window as u64 / goal + 1) * goal;
        end >= first && (end - first).is_multiple_of(period)
    }

    /// `tcp_write_xmit`'s head skb at `snd_nxt` once `tcp_grow_skb` has grown it to
    /// `quota` bytes (`cwnd_quota * mss_now`): its length, and whether it is the send
    /// queue's last (the transfer ends at `app_end`).
    pub fn head(&self, snd_nxt: u64, app_end: u64, quota: u64) -> (u64, bool) {
        let (end, _) = self.grown_head(snd_nxt, app_end, quota);
        (end - snd_nxt, end >= app_end)
    }

    /// The end of the skb at `seq` as `tcp_sendmsg_locked` laid it out, and its mark.
    fn layout_skb(&self, seq: u64, app_end: u64) -> (u64, bool) {
        let end = if self.size_goal == 0 {
            app_end
        } else {
            self.skb_end(seq).min(app_end)
        };
        (end, self.pushed(end, app_end))
    }

    /// `tcp_write_xmit`'s head skb at `snd_nxt` after `tcp_grow_skb` with `quota`
    /// bytes of room: its end and PSH mark. The head is the rest of the last head a
    /// send was cut from (a receive-window or cwnd cut), else the layout's skb;
    /// `tcp_grow_skb` then takes from the skbs behind until it holds `quota` bytes
    /// ("if (tcp_skb_is_last(sk, skb)) return;"): `skb_shift` moves bytes, the head
    /// keeps its own control block, so its mark moves to the grown end, and an skb
    /// eaten whole gives its flags to the head (`tcp_eat_one_skb`: `tcp_flags |=`).
    fn grown_head(&self, snd_nxt: u64, app_end: u64, quota: u64) -> (u64, bool) {
        let (head_end, head_marked) = self.kept_head();
        let (mut end, mut marked) = if snd_nxt < head_end {
            (head_end, head_marked)
        } else {
            self.layout_skb(snd_nxt, app_end)
        };
        if end < app_end && end - snd_nxt < quota {
            let grown = (snd_nxt + quota).min(app_end);
            while end < grown {
                let (next, next_marked) = self.layout_skb(end, app_end);
                marked |= next <= grown && next_marked;
                end = next;
            }
            end = grown;
        }
        (end, marked)
    }

    /// New data `[start, end)` goes out, `quota` (`cwnd_quota * mss_now`) given when it
    /// starts an skb of its own (`tcp_write_xmit` took the head at `start`), else it
    /// joins the skb sent before it: whether it carries the head skb's PSH mark, as
    /// its last segment when sent to the head's end (`__tcp_transmit_skb`; a send cut
    /// short of it, `tso_fragment`, gives the mark to the rest: "PSH and FIN should
    /// only be set in the second packet").
    pub fn on_new_data_sent(
        &mut self,
        start: u64,
        end: u64,
        app_end: u64,
        quota: Option<u64>,
    ) -> bool {
        if let Some(quota) = quota {
            let (head_end, marked) = self.grown_head(start, app_end, quota);
            let offset = head_end.saturating_sub(self.write_start);
            self.head = if offset < HEAD_MARK as u64 {
                offset as u32 | if marked { HEAD_MARK } else { 0 }
            } else {
                0
            };
            return end == head_end && marked;
        }
        let (head_end, marked) = self.kept_head();
        end == head_end && marked
    }

    /// The head skb kept by [`Self::on_new_data_sent`]: its end (`write_start` if none)
    /// and mark.
    #[inline]
    fn kept_head(&self) -> (u64, bool) {
        let end = self.write_start + (self.head & !HEAD_MARK) as u64;
        (end, self.head & HEAD_MARK != 0)
    }
}

/// Where the first write(2)'s `tcp_sendmsg_locked` stands once cwnd stops its sends:
/// `pushed_seq`, and whether the tail skb (the one holding `origin`) is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FirstWrite {
    pushed_seq: u64,
    tail_marked: bool,
}

impl FirstWrite {
    /// Follows the write's copies from its start (where `pushed_seq` stands: the queue
    /// was empty) one full tail skb at a time: `forced_push` marks the tail and
    /// `__tcp_push_pending_frames` sends up to cwnd (`origin`); else the tail, the send
    /// head, goes by `tcp_push_one`, one skb of `first_skb` bytes. `tso_fragment` leaves
    /// the rest, with its mark, as the tail, which the write refills to `goal`.
    fn until_sends_stop(
        write: Range<u64>,
        origin: u64,
        goal: u64,
        half: u64,
        first_skb: u64,
    ) -> FirstWrite {
        let mut at = FirstWrite {
            pushed_seq: write.start,
            tail_marked: false,
        };
        let (mut nxt, mut tail) = (write.start, write.start);
        while nxt < origin {
            let full = tail + goal;
            // "if (!msg_data_left(msg)) goto out": tcp_push sends the rest.
            if full >= write.end {
                break;
            }
            // forced_push: after(write_seq, pushed_seq + (max_window >> 1)).
            if full - at.pushed_seq > half {
                at = FirstWrite {
                    pushed_seq: full,
                    tail_marked: true,
                };
                nxt = full.min(origin);
            } else {
                nxt = (nxt + first_skb.max(1)).min(full).min(origin);
            }
            if nxt < full {
                tail = nxt;
            } else {
                (tail, at.tail_marked) = (full, false);
            }
        }
        at
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
        let q = SendQueue::new(10 * MSS, 65_535, MSS, 0..4_000_000, 2 * MSS);
        assert_eq!(q.skb_end(10 * MSS), 32 * MSS);
        assert_eq!(q.skb_end(31 * MSS), 32 * MSS);
        assert_eq!(q.skb_end(32 * MSS), 54 * MSS);
        assert_eq!(q.skb_end(229 * MSS), 230 * MSS);
    }

    #[test]
    fn with_room_for_one_the_last_segment_of_an_skb_is_a_head_of_one() {
        let q = SendQueue::new(10 * MSS, 65_535, MSS, 0..4_000_000, 2 * MSS);
        // tmobile-umts 710 s at 0.814 s: segments 227 and 228 sent, one more of room.
        assert_eq!(q.head(229 * MSS, 2763 * MSS, MSS), (MSS, false));
        // Two of room: grown from the next skb to two.
        assert_eq!(q.head(229 * MSS, 2763 * MSS, 2 * MSS), (2 * MSS, false));
        // Mid-skb the head is the rest of its skb.
        assert_eq!(q.head(223 * MSS, 2763 * MSS, MSS), (7 * MSS, false));
    }

    /// The skb ends `q` marks PSH in `0..end`, in segments (the transfer's end in
    /// bytes when it is not a whole segment).
    fn marks(q: &SendQueue, end: u64) -> Vec<u64> {
        (1..=end)
            .filter(|&e| q.pushed(e, 4_000_000))
            .map(|e| if e % MSS == 0 { e / MSS } else { e })
            .collect()
    }

    /// The marks the kernel's captures show (and the replay of `tcp_sendmsg_locked`
    /// predicts) for 4,000,000 B written in 1 MiB writes: every other skb from each
    /// write's start, the write at 1 MiB ending inside [714, 736) whose mark the
    /// next write clears, and the transfer's end.
    const CHAIN_FROM_758: [u64; 46] = [
        758, 802, 846, 890, 934, 978, 1022, 1066, 1110, 1154, 1198, 1242, 1286, 1330, 1374, 1418,
        1484, 1528, 1572, 1616, 1660, 1704, 1748, 1792, 1836, 1880, 1924, 1968, 2012, 2056, 2100,
        2144, 2210, 2254, 2298, 2342, 2386, 2430, 2474, 2518, 2562, 2606, 2650, 2694, 2738,
        4_000_000,
    ];

    #[test]
    fn with_two_segment_skbs_the_first_write_marks_32_54_98_and_every_other_skb_on() {
        // IW 10, 22-segment skbs, tcp_tso_segs 2: [10, 24) keeps the mark of the
        // forced [2, 24) and is refilled to 32; 54 is forced 30 segments past 24.
        let q = SendQueue::new(10 * MSS, 65_535, MSS, 0..4_000_000, 2 * MSS);
        let mut want = vec![32, 54];
        want.extend((98..=714).step_by(44));
        want.extend(CHAIN_FROM_758);
        assert_eq!(marks(&q, 4_000_000), want);
        // tcp_tso_segs 1 leaves the same marks: [1, 23) is the forced one.
        let q1 = SendQueue::new(10 * MSS, 65_535, MSS, 0..4_000_000, MSS);
        assert_eq!(marks(&q1, 4_000_000), want);
    }

    #[test]
    fn when_the_first_push_sends_the_whole_window_the_marks_are_32_76_120() {
        // tcp_push_one sends [0, 10); [10, 32) is forced, 32 segments past 0.
        let q = SendQueue::new(10 * MSS, 65_535, MSS, 0..4_000_000, 10 * MSS);
        let mut want: Vec<u64> = (32..=692).step_by(44).collect();
        want.extend(CHAIN_FROM_758);
        assert_eq!(marks(&q, 4_000_000), want);
    }

    #[test]
    fn a_write_ending_on_an_skb_end_keeps_its_mark() {
        // Skbs from 0 (origin 22) of 16 KiB: the 1 MiB write ends the 64th skb.
        let mss = 1024;
        let q = SendQueue::new(16 * mss, 32 * mss + 1, mss, 0..(3 << 20), 16 * mss);
        assert!(q.pushed(1 << 20, 3 << 20));
        assert!(q.pushed(2 << 20, 3 << 20));
        assert!(!q.pushed((1 << 20) - 16 * mss, 3 << 20));
    }

    #[test]
    fn before_a_write_only_its_end_is_marked() {
        assert!(!SendQueue::default().pushed(32 * MSS, 64 * MSS));
        // The tail at the write's end is marked (tcp_push).
        assert!(SendQueue::default().pushed(64 * MSS, 64 * MSS));
    }

    #[test]
    fn before_a_write_the_head_is_the_whole_rest() {
        assert_eq!(SendQueue::default().head(5, 100, 2 * MSS), (95, true));
    }

    #[test]
    fn tcp_grow_skb_moves_a_marked_heads_mark_to_its_grown_end() {
        // AT&T LTE CUBIC 310 s (tcp_frto 2), the kernel's capture at 3.37 s: the
        // receive window cuts the head [931, 934) (934 marked) 56 B into segment 932;
        // each head after grows by tcp_grow_skb to cwnd_quota (2 segments) and the
        // window cuts it again, the rest keeping the mark, until a send reaches the
        // grown end: 934's mark leaves on 936 + 56 B, 978's on 978 + 56 B, sent alone.
        let (end, ms) = (4_000_000, |segs: u64| segs * MSS);
        let mut q = SendQueue::new(10 * MSS, 65_535, MSS, 0..end, 2 * MSS);
        assert!(q.pushed(ms(934), end) && q.pushed(ms(978), end) && !q.pushed(ms(956), end));
        let two = Some(2 * MSS);
        assert!(!q.on_new_data_sent(ms(931), ms(932), end, two));
        // GSO's PSH on the 56 B segment is the sender's; the mark is not there.
        assert!(!q.on_new_data_sent(ms(932), ms(932) + 56, end, None));
        assert!(!q.on_new_data_sent(ms(932) + 56, ms(933) + 56, end, two));
        // Grown to 934 + 56 B, cut at 933 + 56 B: the layout's 934 is no skb end now.
        assert_eq!(q.head(ms(933) + 56, end, 2 * MSS), (2 * MSS, false));
        assert!(!q.on_new_data_sent(ms(933) + 56, ms(934) + 56, end, two));
        assert!(!q.on_new_data_sent(ms(934) + 56, ms(935) + 56, end, two));
        assert!(q.on_new_data_sent(ms(935) + 56, ms(936) + 56, end, None));
        // The unmarked skb ending at 956 (+ 56 B) goes, then 978's, one segment of room.
        assert!(!q.on_new_data_sent(ms(955) + 56, ms(956) + 56, end, Some(MSS)));
        assert!(!q.on_new_data_sent(ms(976) + 56, ms(977) + 56, end, Some(MSS)));
        assert!(q.on_new_data_sent(ms(977) + 56, ms(978) + 56, end, Some(MSS)));
        // Aligned: the head [1021, 1022) (1022 marked) grown to two, cut after one.
        assert!(q.pushed(ms(1022), end));
        assert!(!q.on_new_data_sent(ms(1021), ms(1022), end, two));
        assert!(q.on_new_data_sent(ms(1022), ms(1023), end, Some(MSS)));
        // An skb eaten whole gives its mark to the head (tcp_eat_one_skb).
        assert!(!q.pushed(ms(1088), end) && q.pushed(ms(1110), end));
        assert!(!q.on_new_data_sent(ms(1087), ms(1088), end, Some(23 * MSS)));
        assert!(q.on_new_data_sent(ms(1109), ms(1110), end, None));
    }

    #[test]
    fn the_queues_last_skb_is_not_grown() {
        let q = SendQueue::new(10 * MSS, 65_535, MSS, 0..4_000_000, 2 * MSS);
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
        pushes_on_ack(s, now_us, ack)
            .into_iter()
            .map(|(seq, _)| seq)
            .collect()
    }

    /// New data segments the sender emits on an ACK of `ack` at `now_us`, with their
    /// PSH flags.
    fn pushes_on_ack<E: crate::rto::RtoEstimator>(
        s: &mut TcpSender<E>,
        now_us: u64,
        ack: u64,
    ) -> Vec<(u64, bool)> {
        let mut p = Packet::new(0, FlowId(0), PacketKind::Ack, Time::ZERO);
        (p.ack, p.rwnd) = (ack, 1 << 20);
        let mut out = Vec::new();
        s.on_ack(at_us(now_us), &p, &mut out);
        out.iter()
            .filter(|p| p.kind == PacketKind::Data && p.len > 0)
            .map(|p| (p.seq, p.push()))
            .collect()
    }

    /// A Linux sender of 1000 B segments that wrote 100 000 B at 0 into a 4000 B
    /// window (ssthresh 2000 B, no handshake, no timestamps).
    fn linux_sender_with_a_4000_byte_window() -> TcpSender<Rto> {
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
        s
    }

    #[test]
    fn a_lone_segment_ending_an_skb_the_write_marked_carries_psh() {
        // A 4000 B window at the write: skbs of 2000 B, forced_push past 2000 B of
        // pushed_seq. The first pass sends [0, 2000) (tcp_push_one) and the forced
        // [2000, 4000); from 4000 the marks are every other skb: 8000, 12000, 16000.
        let mut s = linux_sender_with_a_4000_byte_window();
        assert_eq!(pushes_on_ack(&mut s, 100_000, 4000).len(), 10);
        // One segment of room at a time: [14000, 15000) ends no skb, [15000, 16000)
        // ends the marked one (Linux's receiver ACKs it at once, ICSK_ACK_PUSHED).
        assert_eq!(pushes_on_ack(&mut s, 200_000, 5000), vec![(14_000, false)]);
        assert_eq!(pushes_on_ack(&mut s, 200_004, 6000), vec![(15_000, true)]);
    }

    #[test]
    fn the_last_segment_of_an_skb_goes_with_one_segment_of_room_where_a_larger_head_waits() {
        // A 4000 B window at the write: skbs of 2000 B (half of it), the first
        // pass sends 4 segments, so the skbs end at 6000, 8000, ... 16000 B.
        let mut s = linux_sender_with_a_4000_byte_window();
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
