//! The Linux receiver's acknowledgment clock: quick-ACK mode and the adaptive
//! delayed-ACK timeout (`ato`), as `tcp_event_data_recv`, `tcp_incr_quickack`,
//! `tcp_enter_quickack_mode`, `tcp_dec_quickack_mode`, `__tcp_ack_snd_check` and
//! `tcp_send_delayed_ack` run them (net/ipv4/tcp_input.c, tcp_output.c, Linux 6.x).
//!
//! * Quick-ACK: the first data segment, a gap between arrivals longer than the RTO
//!   (an outage), and a duplicate segment put the receiver in quick-ACK mode for up
//!   to 16 ACKs (`TCP_MAX_QUICKACKS`, at most rcv_wnd / (2 * rcv_mss)): every
//!   segment is acknowledged at once, which lets slow start grow faster after it.
//! * Otherwise an ACK goes out once more than one full segment is unacknowledged
//!   (`rcv_nxt - rcv_wup > rcv_mss`), else after `ato`: 40 ms (`TCP_ATO_MIN`),
//!   halved toward the inter-arrival time, doubled each time the delayed-ACK timer
//!   has to send the ACK (`tcp_delack_timer_handler`), at most the RTO, then bounded
//!   by the smoothed RTT and 500 ms, and by `tcp_delack_max` (196 ms).
//!
//! The advertised window and its growth are [`crate::linux_rcvbuf`]'s; each growth
//! step asks for one immediate ACK here ([`LinuxAck::on_window_growth`]).
//!
//! A full-sized segment marked PSH that would wait for a second one is acknowledged
//! at once (`ICSK_ACK_PUSHED` and `__tcp_cleanup_rbuf`, Linux 6.6+): the receiver's
//! part (the receiver's `linux_pushed`) of what the Linux sender's PSH on every
//! skb of two or more segments does (the `pacing` module). So is a segment shorter
//! than `rcv_mss` (`tcp_measure_rcv_mss`'s other branch, PSH or not, unless it repeats
//! a small MSS: `crate::linux_rcvbuf::short_segment`).
//!
//! Not modelled: ping-pong (interactive) mode, which a bulk receiver never enters.

use crate::linux_timer_wheel::{jiffies, usecs_to_jiffies, HZ, JIFFY};
use spikelab_core::{Dur, Time};

/// `TCP_ATO_MIN` (HZ / 25) and `TCP_DELACK_MIN`: 40 ms.
pub const ATO_MIN: Dur = Dur(ATO_MIN_J * JIFFY.0);
/// `TCP_MAX_QUICKACKS`.
pub const MAX_QUICKACKS: u64 = 16;
/// HZ / 2: the delayed-ACK bound outside ping-pong mode, in jiffies.
const MAX_ATO_J: u64 = HZ / 2;
/// `tcp_delack_max` with the default `icsk_delack_max` (`TCP_DELACK_MAX`, HZ / 5: 50
/// jiffies) and `tcp_rto_min` (200 ms: 50 jiffies): min(50, max(50, 2) - 1) = 49
/// jiffies, 196 ms at HZ 250 ("tcp: derive delack_max from rto_min", Linux 6.7). A
/// host with another `tcp_rto_min_us` would have another bound; every recorded
/// receiver ran the default.
const DELACK_MAX_J: u64 = HZ / 5 - 1;

/// The receiver's `icsk_ack` state, its times in jiffies as the kernel keeps them
/// (`tcp_jiffies32`, [`crate::linux_timer_wheel`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinuxAck {
    /// ACKs still to send at once (`icsk_ack.quick`).
    quick: u64,
    /// `icsk_ack.ato` in jiffies; `None` before the first data segment.
    ato: Option<u64>,
    /// The jiffy the last data segment arrived in (`icsk_ack.lrcvtime`).
    last_rcv: u64,
}

/// `TCP_ATO_MIN` (HZ / 25) in jiffies.
const ATO_MIN_J: u64 = HZ / 25;

/// A duration in whole jiffies, rounded up (`usecs_to_jiffies` of the kernel's
/// microsecond values).
fn to_jiffies(d: Dur) -> u64 {
    usecs_to_jiffies(d.0 / 1000)
}

impl LinuxAck {
    /// `tcp_incr_quickack`: at least min(rcv_wnd / (2 * rcv_mss), 16) quick ACKs
    /// (2 when the window holds less than two segments).
    fn incr_quickack(&mut self, rcv_wnd: u64, rcv_mss: u64) {
        let mut q = rcv_wnd / (2 * rcv_mss.max(1));
        if q == 0 {
            q = 2;
        }
        self.quick = self.quick.max(q.min(MAX_QUICKACKS));
    }

    /// `tcp_enter_quickack_mode`: a duplicate or out-of-window segment.
    pub fn enter_quickack_mode(&mut self, rcv_wnd: u64, rcv_mss: u64) {
        self.incr_quickack(rcv_wnd, rcv_mss);
        self.ato = Some(ATO_MIN_J);
    }

    /// `tcp_event_data_recv` for a data segment arriving at `now`; `rto` is the
    /// receiver's own RTO (`icsk_rto`).
    pub fn on_data(&mut self, now: Time, rcv_wnd: u64, rcv_mss: u64, rto: Dur) {
        let now = jiffies(now);
        match self.ato {
            // "The _first_ data packet received, initialize delayed ACK engine."
            None => {
                self.incr_quickack(rcv_wnd, rcv_mss);
                self.ato = Some(ATO_MIN_J);
            }
            Some(ato) => {
                let (m, rto) = (now.saturating_sub(self.last_rcv), to_jiffies(rto));
                if m <= ATO_MIN_J / 2 {
                    self.ato = Some((ato >> 1) + ATO_MIN_J / 2);
                } else if m < ato {
                    self.ato = Some(((ato >> 1) + m).min(rto));
                } else if m > rto {
                    // "Too long gap. Apparently sender failed to restart window."
                    self.incr_quickack(rcv_wnd, rcv_mss);
                }
            }
        }
        self.last_rcv = now;
    }

    /// `tcp_delack_timer_handler`: the delayed-ACK timer fired with an ACK owed
    /// (`inet_csk_ack_scheduled`), outside ping-pong mode: "Delayed ACK missed:
    /// inflate ATO", `ato = min(ato << 1, icsk_rto)`, before the timer's
    /// `tcp_send_ack` (whose `tcp_dec_quickack_mode` may deflate it again); `rto` is
    /// the receiver's own RTO.
    pub fn on_delack_timer(&mut self, rto: Dur) {
        if let Some(ato) = self.ato {
            self.ato = Some((ato << 1).min(to_jiffies(rto)));
        }
    }

    /// `tcp_grow_window` raised `rcv_ssthresh`: `icsk_ack.quick |= 1`.
    pub fn on_window_growth(&mut self) {
        self.quick |= 1;
    }

    /// `tcp_in_quickack_mode` (outside ping-pong mode).
    pub fn in_quickack_mode(&self) -> bool {
        self.quick > 0
    }

    /// `tcp_event_ack_sent -> tcp_dec_quickack_mode`: an ACK went out; it uses up a
    /// quick ACK only when one was scheduled (`inet_csk_ack_scheduled`: data arrived
    /// for it), not a `tcp_send_dupack` with no ACK owed, such as PAWS's answer to
    /// an old segment. Leaving quick-ACK mode deflates ato to `TCP_ATO_MIN`.
    pub fn on_ack_sent(&mut self, scheduled: bool) {
        if self.quick == 0 || !scheduled {
            return;
        }
        self.quick -= 1;
        if self.quick == 0 {
            self.ato = Some(ATO_MIN_J);
        }
    }

    /// `tcp_send_delayed_ack`: how long the ACK may wait; `srtt` is the receiver's
    /// smoothed RTT, if it has one.
    pub fn delay(&self, srtt: Option<Dur>) -> Dur {
        let ato = self.ato.unwrap_or(ATO_MIN_J);
        let ato = match ato <= ATO_MIN_J {
            true => ato,
            false => {
                // "If some rtt estimate is known, use it to bound delayed ack."
                let max_ato = srtt.map_or(MAX_ATO_J, |r| to_jiffies(r).clamp(ATO_MIN_J, MAX_ATO_J));
                ato.min(max_ato)
            }
        };
        // `ato = min_t(u32, ato, tcp_delack_max(sk))`.
        Dur(ato.min(DELACK_MAX_J) * JIFFY.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    const RTO: Dur = Dur::from_millis(900);

    /// A receiver whose first segment arrived at 0 and whose quick ACKs are used up.
    fn past_quick_acks() -> LinuxAck {
        let mut a = LinuxAck::default();
        a.on_data(ms(0), 65_535, 1000, RTO);
        while a.in_quickack_mode() {
            a.on_ack_sent(true);
        }
        a
    }

    #[test]
    fn the_first_segments_are_acknowledged_at_once_sixteen_times() {
        let mut a = LinuxAck::default();
        a.on_data(ms(0), 65_535, 1000, RTO);
        for _ in 0..16 {
            assert!(a.in_quickack_mode());
            a.on_ack_sent(true);
        }
        assert!(!a.in_quickack_mode());
        assert_eq!(a.delay(None), ATO_MIN);
    }

    #[test]
    fn a_small_window_allows_fewer_quick_acks() {
        let mut a = LinuxAck::default();
        a.on_data(ms(0), 6000, 1000, RTO); // 6000 / 2000 = 3
        let mut n = 0;
        while a.in_quickack_mode() {
            a.on_ack_sent(true);
            n += 1;
        }
        assert_eq!(n, 3);
    }

    #[test]
    fn a_gap_longer_than_the_rto_restarts_quick_acks() {
        let mut a = past_quick_acks();
        a.on_data(ms(500), 65_535, 1000, RTO);
        assert!(!a.in_quickack_mode(), "500 ms < RTO");
        a.on_data(ms(2000), 65_535, 1000, RTO);
        assert!(a.in_quickack_mode(), "1.5 s > RTO: an outage");
    }

    #[test]
    fn ato_follows_slow_arrivals_up_to_the_srtt_bound_in_whole_jiffies() {
        let mut a = LinuxAck::default();
        a.on_data(ms(0), 65_535, 1000, RTO);
        // Arrivals at 35 and 70 ms fall in jiffies 8 and 17 (4 ms each): m = 8, so
        // ato = 10 / 2 + 8 = 13 jiffies (52 ms), then m = 9: 13 >> 1 + 9 = 15 (60 ms).
        a.on_data(ms(35), 65_535, 1000, RTO);
        assert_eq!(a.delay(None), Dur::from_millis(52));
        a.on_data(ms(70), 65_535, 1000, RTO);
        assert_eq!(a.delay(None), Dur::from_millis(60));
        // A 50 ms SRTT is usecs_to_jiffies' 13 jiffies: the bound.
        assert_eq!(a.delay(Some(Dur::from_millis(50))), Dur::from_millis(52));
        // An arrival in the same jiffy pulls it back toward 40 ms: 15 >> 1 + 5 = 12.
        a.on_data(ms(71), 65_535, 1000, RTO);
        assert_eq!(a.delay(None), Dur::from_millis(48));
    }

    /// Arrivals each a little sooner than ato (9, 13, 19, 28, 41 jiffies apart) raise
    /// it to 10 -> 14 -> 20 -> 29 -> 42 -> 62 jiffies (248 ms), under HZ / 2 and the
    /// RTO of 900 ms, but the timer is never set beyond `tcp_delack_max` (49 jiffies).
    #[test]
    fn ato_never_exceeds_tcp_delack_max() {
        let mut a = LinuxAck::default();
        let mut t = 0;
        a.on_data(ms(t), 65_535, 1000, RTO);
        for gap in [9, 13, 19, 28, 41] {
            t += 4 * gap;
            a.on_data(ms(t), 65_535, 1000, RTO);
        }
        assert_eq!(a.delay(None), Dur::from_millis(196));
        assert_eq!(a.delay(Some(Dur::from_millis(400))), Dur::from_millis(196));
        assert_eq!(a.delay(Some(Dur::from_millis(100))), Dur::from_millis(100));
    }

    #[test]
    fn an_ack_sent_with_none_scheduled_uses_no_quick_ack() {
        let mut a = LinuxAck::default();
        a.enter_quickack_mode(4000, 1000); // two quick ACKs
        a.on_ack_sent(false);
        a.on_ack_sent(true);
        assert!(a.in_quickack_mode(), "one left");
        a.on_ack_sent(true);
        assert!(!a.in_quickack_mode());
    }

    #[test]
    fn window_growth_owes_one_immediate_ack() {
        let mut a = past_quick_acks();
        a.on_window_growth();
        assert!(a.in_quickack_mode());
        a.on_ack_sent(true);
        assert!(!a.in_quickack_mode());
    }

    /// "Delayed ACK missed: inflate ATO": 10 -> 20 -> 40 jiffies (80, 160 ms), then
    /// `tcp_delack_max` (196 ms) bounds the timer though ato is 80 jiffies.
    #[test]
    fn each_ack_the_delayed_ack_timer_sends_doubles_ato() {
        let mut a = past_quick_acks();
        for want in [80, 160, 196] {
            a.on_delack_timer(RTO);
            a.on_ack_sent(true);
            assert_eq!(a.delay(None), Dur::from_millis(want));
        }
        // The next arrival 20 jiffies later halves it toward the gap: 80 / 2 + 20.
        a.on_data(ms(80), 65_535, 1000, RTO);
        assert_eq!(
            a.delay(None),
            Dur::from_millis(196),
            "60 jiffies, still above 49"
        );
        a.on_data(ms(100), 65_535, 1000, RTO);
        assert_eq!(
            a.delay(None),
            Dur::from_millis(140),
            "60 / 2 + 5 = 35 jiffies"
        );
    }

    /// `min(ato << 1, icsk_rto)`: a 100 ms RTO (25 jiffies) caps the doubling.
    #[test]
    fn the_inflated_ato_never_exceeds_the_receivers_rto() {
        let mut a = past_quick_acks();
        for _ in 0..3 {
            a.on_delack_timer(Dur::from_millis(100));
        }
        assert_eq!(a.delay(None), Dur::from_millis(100));
    }

    /// The timer inflates before its ACK leaves; that ACK, the last quick one,
    /// deflates ato to `TCP_ATO_MIN` (`tcp_dec_quickack_mode`).
    #[test]
    fn a_timer_ack_that_ends_quick_ack_mode_leaves_the_minimum_ato() {
        let mut a = LinuxAck::default();
        a.enter_quickack_mode(4000, 1000); // two quick ACKs
        a.on_ack_sent(true);
        a.on_delack_timer(RTO);
        a.on_ack_sent(true);
        assert!(!a.in_quickack_mode());
        assert_eq!(a.delay(None), ATO_MIN);
    }

    #[test]
    fn a_duplicate_enters_quick_ack_mode_with_the_minimum_ato() {
        let mut a = past_quick_acks();
        a.enter_quickack_mode(65_535, 1000);
        assert!(a.in_quickack_mode());
        assert_eq!(a.delay(None), ATO_MIN);
    }
}
