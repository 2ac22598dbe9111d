//! Linux's TSO deferral, "a kind of TSO Nagle test" (net/ipv4/tcp_output.c,
//! `tcp_tso_should_defer`, John Heffner's algorithm): `tcp_write_xmit` asks it before
//! sending an skb of more than one segment (not for a loss probe's `push_one`), and
//! a deferred skb stays at the head of the send queue until the next
//! `tcp_write_xmit`. The head is the rest of an skb `tcp_sendmsg_locked` built,
//! grown to the cwnd room by `tcp_grow_skb` ([`super::send_queue`]); one of a single
//! segment is never asked. What it holds back is the segment of room an ACK frees
//! while the others' ACKs are near, from a head of more, which then leaves with the
//! next ACK's room as an skb of two.
//!
//! Who calls `tcp_write_xmit` next in these runs: the next ACK
//! (`tcp_data_snd_check`), the pacing timer of a paced sender (`tcp_pace_kick`,
//! which finds the same conditions), a loss probe (`tcp_send_loss_probe` sends with
//! `push_one = 2`: never deferred) and the retransmission timer (the Loss state:
//! never deferred). The TSQ tasklet runs only for a sender TCP Small Queues
//! throttled, and the application's writes (`tcp_push`) meet the same test.
//!
//! Linux 6.18 as recorded (6.18.44): the test of how near the next ACK is comes
//! from commit 295ce1eb36ae ("tcp: fix tcp_tso_should_defer() vs large RTT", in
//! 6.18 and the stable kernels): the skb waits only for an ACK expected (the
//! retransmission queue's head sent plus srtt) within min(1 ms, srtt/2) from now,
//! or overdue. Before it, the head had only to be older than srtt/2.

use crate::stacks::{DeferredBy, SkbSend, SkbStart};
use spikelab_core::{Dur, Time};

/// `net.ipv4.tcp_tso_win_divisor` (default 3): room for a third of the window is
/// used at once.
const TSO_WIN_DIVISOR: u64 = 3;
/// "allowing defer only if the last write was recent (1 ms)".
const RECENT_WRITE: Dur = Dur::from_millis(1);
/// The farthest an expected ACK may be for the skb to wait for it (`NSEC_PER_MSEC`
/// in the threshold `min(srtt/2, 1 ms)`).
const ACK_HORIZON: Dur = Dur::from_millis(1);

/// `tcp_tso_should_defer`, its conditions in the kernel's order.
pub fn decide(v: &SkbStart) -> SkbSend {
    // "if (icsk->icsk_ca_state >= TCP_CA_Recovery) goto send_now".
    if !v.below_recovery {
        return SkbSend::SendNow;
    }
    // tcp_clock_cache - tcp_wstamp_ns - 1 ms > 0: the last write is not recent (a
    // paced sender's clock in the future counts as recent).
    if v.now.saturating_since(v.wstamp) > RECENT_WRITE {
        return SkbSend::SendNow;
    }
    // The kernel asks only past tcp_cwnd_test (BUG_ON cwnd <= in_flight); a segment
    // the model's window admits beyond it goes as before.
    if v.in_flight >= v.cwnd {
        return SkbSend::SendNow;
    }
    let cong_win = (v.cwnd - v.in_flight) * v.mss;
    let limit = v.send_win.min(cong_win);
    // "If a full-sized TSO skb can be sent, do it."
    if limit >= v.max_segs * v.mss {
        return SkbSend::SendNow;
    }
    // "Middle in queue won't get any more data, full sendable already?" (the send
    // queue's skbs: [`super::send_queue`]).
    if !v.head_is_tail && limit >= v.head_len {
        return SkbSend::SendNow;
    }
    // With tcp_tso_win_divisor: "If at least some fraction of a window is available,
    // just use it."
    let chunk = v.snd_wnd.min(v.cwnd * v.mss) / TSO_WIN_DIVISOR;
    if limit >= chunk {
        return SkbSend::SendNow;
    }
    // tcp_rtx_queue_head: nothing outstanding, no ACK to wait for.
    let Some(head) = v.head_sent else {
        return SkbSend::SendNow;
    };
    if ack_too_far(v.now, head, v.srtt) {
        return SkbSend::SendNow;
    }
    // "Ok, it looks like it is advisable to defer": cwnd- or rwnd-limited by this skb.
    if cong_win < v.send_win {
        if cong_win <= v.head_len {
            return SkbSend::Defer(DeferredBy::Cwnd);
        }
    } else if v.send_win <= v.head_len {
        return SkbSend::Defer(DeferredBy::Rwnd);
    }
    // The whole rest fits: the transfer's last skb, FIN on it ("If this packet won't
    // get more data, do not wait").
    SkbSend::SendNow
}

/// "If next ACK is likely to come too late, ie in more than min(1ms, half srtt), do
/// not defer": the ACK of the head, sent at `head`, is expected srtt later. Without an
/// RTT sample no ACK is expected: the kernel's `srtt_us` is 0 only before any, which
/// its handshake always gives, while the model's connections without a handshake
/// start with none; they send (the kernel's 0 would defer every skb until then).
fn ack_too_far(now: Time, head: Time, srtt: Option<Dur>) -> bool {
    let Some(srtt) = srtt else {
        return true;
    };
    let threshold = Dur(srtt.0 / 2).min(ACK_HORIZON);
    head + srtt > now + threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn us(v: u64) -> Time {
        Time::ZERO + Dur::from_micros(v)
    }

    /// One segment of cwnd free, 0.5 ms after the last write, the head's ACK due now:
    /// the skb waits for cwnd.
    fn waiting() -> SkbStart {
        SkbStart {
            now: ms(1_000),
            below_recovery: true,
            wstamp: us(999_500),
            mss: 1000,
            cwnd: 10,
            in_flight: 9,
            send_win: 91_000,
            snd_wnd: 100_000,
            max_segs: 2,
            head_len: 1_000_000,
            head_is_tail: true,
            head_sent: Some(ms(950)),
            srtt: Some(Dur::from_millis(50)),
        }
    }

    #[test]
    fn one_segment_of_cwnd_with_the_next_ack_due_waits_for_cwnd() {
        assert_eq!(decide(&waiting()), SkbSend::Defer(DeferredBy::Cwnd));
    }

    #[test]
    fn a_head_skb_within_the_room_short_of_the_queues_end_goes_now() {
        // "Middle in queue won't get any more data, full sendable already?": two
        // segments of room (max_segs 4), a head of two that is not the queue's last.
        let v = SkbStart {
            in_flight: 8,
            max_segs: 4,
            head_len: 2_000,
            head_is_tail: false,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
        // The queue's last skb waits (cwnd <= skb).
        let v = SkbStart {
            head_is_tail: true,
            ..v
        };
        assert_eq!(decide(&v), SkbSend::Defer(DeferredBy::Cwnd));
    }

    #[test]
    fn recovery_never_waits() {
        let v = SkbStart {
            below_recovery: false,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
    }

    #[test]
    fn a_write_more_than_a_millisecond_ago_sends_now() {
        let at = |wstamp| {
            decide(&SkbStart {
                wstamp,
                ..waiting()
            })
        };
        assert_eq!(
            at(ms(999)),
            SkbSend::Defer(DeferredBy::Cwnd),
            "exactly 1 ms"
        );
        assert_eq!(at(us(998_999)), SkbSend::SendNow);
        assert_eq!(
            at(ms(1_002)),
            SkbSend::Defer(DeferredBy::Cwnd),
            "a pacing clock ahead"
        );
    }

    #[test]
    fn room_for_a_full_skb_sends_now() {
        let v = SkbStart {
            in_flight: 8,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
        let v = SkbStart {
            max_segs: 1,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
    }

    #[test]
    fn a_third_of_the_window_free_sends_now() {
        // cwnd 3, one free: 1000 >= 3000 / 3.
        let v = SkbStart {
            cwnd: 3,
            in_flight: 2,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
        // The receive window is the smaller: 3000 / 3 again.
        let v = SkbStart {
            snd_wnd: 3000,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
    }

    #[test]
    fn nothing_outstanding_sends_now() {
        let v = SkbStart {
            head_sent: None,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
    }

    #[test]
    fn without_an_rtt_sample_no_ack_is_awaited() {
        let v = SkbStart {
            srtt: None,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
    }

    #[test]
    fn an_ack_expected_later_than_a_millisecond_sends_now() {
        let at = |head| {
            decide(&SkbStart {
                head_sent: Some(head),
                ..waiting()
            })
        };
        assert_eq!(at(ms(951)), SkbSend::Defer(DeferredBy::Cwnd), "due in 1 ms");
        assert_eq!(at(us(951_001)), SkbSend::SendNow, "due in 1.001 ms");
        assert_eq!(at(ms(900)), SkbSend::Defer(DeferredBy::Cwnd), "overdue");
    }

    #[test]
    fn with_a_short_srtt_the_horizon_is_half_of_it() {
        let v = SkbStart {
            srtt: Some(Dur::from_micros(1_000)),
            head_sent: Some(us(999_500)),
            ..waiting()
        };
        assert_eq!(
            decide(&v),
            SkbSend::Defer(DeferredBy::Cwnd),
            "due in 0.5 ms"
        );
        let v = SkbStart {
            head_sent: Some(us(999_501)),
            ..v
        };
        assert_eq!(decide(&v), SkbSend::SendNow, "due in 0.501 ms");
    }

    #[test]
    fn a_receive_window_short_of_an_skb_waits_for_the_receiver() {
        let v = SkbStart {
            in_flight: 5,
            send_win: 1_000,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::Defer(DeferredBy::Rwnd));
    }

    #[test]
    fn the_transfers_last_bytes_within_the_window_go_now() {
        let v = SkbStart {
            head_len: 999,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::SendNow);
        let v = SkbStart {
            head_len: 1000,
            ..waiting()
        };
        assert_eq!(decide(&v), SkbSend::Defer(DeferredBy::Cwnd), "cwnd <= skb");
    }
}
