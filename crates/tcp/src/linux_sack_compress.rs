//! The Linux receiver's SACK compression (Linux 4.18+, as in 6.18): once three
//! duplicate ACKs have gone out at once for one `rcv_nxt`, further ACKs of
//! out-of-order segments wait behind a short timer and leave as one.
//!
//! Followed from net/ipv4/tcp_input.c `__tcp_ack_snd_check` (its tail, after the
//! immediate-ACK and delayed-ACK branches), `tcp_sack_new_ofo_skb` and
//! `tcp_sack_compress_send_ack`; net/ipv4/tcp_timer.c `tcp_compressed_ack_kick`;
//! net/ipv4/tcp_output.c `tcp_event_ack_sent`; defaults from net/ipv4/tcp_ipv4.c
//! `tcp_sk_init`:
//!
//! * Only SACK flows compress (`!tcp_is_sack(tp)` goes to `send_now`).
//! * At most `tcp_comp_sack_nr` (44) ACKs are held back; the next is sent at once.
//! * A new `rcv_nxt` (`compressed_ack_rcv_nxt != rcv_nxt`) restarts the count of
//!   duplicate ACKs (`dup_ack_counter = 0`); the first `TCP_FASTRETRANS_THRESH` (3)
//!   are sent at once, so the sender's fast retransmit is never delayed.
//! * After that, each ACK is compressed (`compressed_ack++`); the first arms the
//!   hrtimer for min(`tcp_comp_sack_delay_ns` = 1 ms, 5 % of the receiver's RTT
//!   estimate); later ones leave it running (`hrtimer_is_queued`).
//! * The timer's handler sends one ACK; any ACK sent (`tcp_event_ack_sent`: the
//!   timer's, a delayed ACK, an immediate one) sets `compressed_ack` to 0 and
//!   cancels the timer. `dup_ack_counter` is not reset by a sent ACK, only by a new
//!   `rcv_nxt`.
//!
//! The hrtimer is started with a slack of `tcp_comp_sack_slack_ns` (100 us)
//! (`hrtimer_start_range_ns`): its soft expiry is `delay`, its hard expiry
//! `delay + slack`. kernel/time/hrtimer.c programs the clock event at the hard
//! expiry (`hrtimer_get_expires`) and runs a timer at the first timer interrupt
//! after its soft expiry (`__hrtimer_run_queues`: "basenow <
//! hrtimer_get_softexpires_tv64(timer)"), so with no other timer interrupt on that
//! CPU inside the window it runs at the hard expiry. The model has no other timers
//! there and takes the hard expiry, delay + 100 us. The kernel's pcaps through
//! `spikelab emulate` agree: the compressed ACK leaves 1.13-1.17 ms after the
//! segment that armed the timer (table 1 BBR seed a-3 at 2.25 s, T-Mobile UMTS
//! offset 793 s reno at 1.30 s), the soft interrupt's latency on top.
//!
//! Linux 6.19 replaces the 5 % by `tcp_comp_sack_rtt_percent` (33 %); the kernel
//! held against here is 6.18, so 5 %.

use spikelab_core::{Dur, Time};

/// `TCP_FASTRETRANS_THRESH`: duplicate ACKs always sent at once per `rcv_nxt`.
pub const FASTRETRANS_THRESH: u32 = 3;
/// `sysctl_tcp_comp_sack_nr` (default 44): ACKs compressed at most.
pub const COMP_SACK_NR: u32 = 44;
/// `sysctl_tcp_comp_sack_delay_ns` (default `NSEC_PER_MSEC`): the timer's bound.
pub const COMP_SACK_DELAY: Dur = Dur::from_millis(1);
/// `sysctl_tcp_comp_sack_slack_ns` (default 100 us): the hrtimer's slack.
pub const COMP_SACK_SLACK: Dur = Dur::from_micros(100);
/// `TCP_SACK_BLOCKS_EXPECTED` (Linux 5.8+): SACK blocks an ACK is counted on to
/// carry; `tcp_sack_new_ofo_skb` sends the held ACKs before a block would stand
/// later in the array.
pub const SACK_BLOCKS_EXPECTED: usize = 2;

/// What `__tcp_ack_snd_check`'s compression branch does with this segment's ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// `goto send_now`.
    SendNow,
    /// Held back; the compressed-ACK timer fires at `until`.
    Compress { until: Time },
}

/// The socket's SACK-compression fields (`struct tcp_sock`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackCompress {
    /// `compressed_ack_rcv_nxt`: the `rcv_nxt` the duplicate ACKs are counted for.
    compressed_ack_rcv_nxt: u64,
    /// `dup_ack_counter`: duplicate ACKs sent at once for that `rcv_nxt`.
    dup_ack_counter: u32,
    /// `compressed_ack`: ACKs held back since the last ACK sent.
    compressed_ack: u32,
    /// `compressed_ack_timer`'s expiry, while queued.
    timer: Option<Time>,
}

/// The timer's delay: min(`tcp_comp_sack_delay_ns`, 5 % of `rtt`), where `rtt` is
/// `rcv_rtt_est.rtt_us`, or `srtt_us` when smaller and non-zero (both kept << 3 by
/// the kernel, hence its `rtt * (NSEC_PER_USEC >> 3) / 20`). Without an estimate
/// the kernel's `rtt` is 0 and so is the delay.
pub fn timer_delay(rtt: Option<Dur>) -> Dur {
    let rtt = rtt.map_or(0, |r| r.0);
    Dur((rtt / 20).min(COMP_SACK_DELAY.0))
}

/// When a timer armed at `now` runs: its hard expiry, `now + delay + slack`.
pub fn timer_expiry(now: Time, rtt: Option<Dur>) -> Time {
    now + timer_delay(rtt) + COMP_SACK_SLACK
}

impl SackCompress {
    /// `__tcp_ack_snd_check` past its immediate-ACK branch with the out-of-order
    /// queue not empty, for a SACK flow: the new state and what to do with the ACK.
    /// `rtt` is the receiver's RTT estimate ([`timer_delay`]).
    pub fn decide(self, now: Time, rcv_nxt: u64, rtt: Option<Dur>) -> (SackCompress, Decision) {
        let mut s = self;
        if s.compressed_ack >= COMP_SACK_NR {
            return (s, Decision::SendNow);
        }
        if s.compressed_ack_rcv_nxt != rcv_nxt {
            s.compressed_ack_rcv_nxt = rcv_nxt;
            s.dup_ack_counter = 0;
        }
        if s.dup_ack_counter < FASTRETRANS_THRESH {
            s.dup_ack_counter += 1;
            return (s, Decision::SendNow);
        }
        s.compressed_ack += 1;
        let until = *s.timer.get_or_insert_with(|| timer_expiry(now, rtt));
        (s, Decision::Compress { until })
    }

    /// `tcp_event_ack_sent`: an ACK left; the held ones went with it and the timer
    /// is cancelled (`hrtimer_try_to_cancel`).
    pub fn on_ack_sent(&mut self) {
        self.compressed_ack = 0;
        self.timer = None;
    }

    /// The compressed-ACK timer's expiry, while it is queued.
    pub fn deadline(&self) -> Option<Time> {
        self.timer
    }

    /// `tcp_compressed_ack_kick` at `now`: does the timer send its ACK? (It sends
    /// one when ACKs are held; the send itself is [`Self::on_ack_sent`].)
    pub fn kick(&mut self, now: Time) -> bool {
        if self.timer.is_none_or(|t| t > now) {
            return false;
        }
        self.timer = None;
        self.compressed_ack > 0
    }

    /// `tcp_sack_new_ofo_skb` about to leave a block past the first
    /// [`SACK_BLOCKS_EXPECTED`]: `tcp_sack_compress_send_ack` sends the held ACKs
    /// first, if any.
    pub fn flushes_for_new_block(&self) -> bool {
        self.compressed_ack > 0
    }

    /// ACKs held back (`compressed_ack`).
    pub fn held(&self) -> u32 {
        self.compressed_ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Option<Dur> = Some(Dur::from_millis(60));

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    /// `n` ACK checks for one `rcv_nxt`, sending the ACKs the decisions send.
    fn checks(s: &mut SackCompress, n: usize, rcv_nxt: u64) -> Vec<Decision> {
        (0..n)
            .map(|_| {
                let (next, d) = s.decide(ms(0), rcv_nxt, RTT);
                *s = next;
                if d == Decision::SendNow {
                    s.on_ack_sent();
                }
                d
            })
            .collect()
    }

    #[test]
    fn the_first_three_duplicate_acks_go_at_once_and_the_fourth_is_compressed() {
        let mut s = SackCompress::default();
        let d = checks(&mut s, 4, 1000);
        assert_eq!(&d[..3], &[Decision::SendNow; 3]);
        let until = ms(1) + COMP_SACK_SLACK;
        assert_eq!(d[3], Decision::Compress { until });
        assert_eq!(s.held(), 1);
    }

    #[test]
    fn a_new_rcv_nxt_restarts_the_count_of_immediate_duplicate_acks() {
        let mut s = SackCompress::default();
        checks(&mut s, 4, 1000);
        let d = checks(&mut s, 4, 2448);
        assert_eq!(&d[..3], &[Decision::SendNow; 3]);
        assert!(matches!(d[3], Decision::Compress { .. }));
    }

    #[test]
    fn an_ack_sent_does_not_restart_the_count_for_the_same_rcv_nxt() {
        let mut s = SackCompress::default();
        checks(&mut s, 4, 1000);
        s.on_ack_sent(); // the timer's ACK, say
        assert!(matches!(
            checks(&mut s, 1, 1000)[0],
            Decision::Compress { .. }
        ));
    }

    #[test]
    fn forty_four_acks_are_compressed_then_one_is_sent() {
        let mut s = SackCompress::default();
        checks(&mut s, 3, 1000);
        for _ in 0..COMP_SACK_NR {
            let (next, d) = s.decide(ms(0), 1000, RTT);
            s = next;
            assert!(matches!(d, Decision::Compress { .. }));
        }
        assert_eq!(s.decide(ms(0), 1000, RTT).1, Decision::SendNow);
    }

    #[test]
    fn later_compressed_acks_leave_the_running_timer_alone() {
        let mut s = SackCompress::default();
        checks(&mut s, 4, 1000);
        let (_, d) = s.decide(Time(500_000), 1000, RTT);
        let until = ms(1) + COMP_SACK_SLACK;
        assert_eq!(d, Decision::Compress { until });
    }

    #[test]
    fn the_timer_waits_five_percent_of_the_rtt_at_most_one_millisecond() {
        assert_eq!(timer_delay(Some(Dur::from_millis(60))), COMP_SACK_DELAY);
        assert_eq!(timer_delay(Some(Dur::from_millis(20))), COMP_SACK_DELAY);
        assert_eq!(
            timer_delay(Some(Dur::from_millis(10))),
            Dur::from_micros(500)
        );
        assert_eq!(timer_delay(None), Dur(0), "no estimate: rtt 0");
    }

    #[test]
    fn the_timer_runs_at_its_hard_expiry() {
        assert_eq!(timer_expiry(ms(10), RTT), ms(11) + Dur::from_micros(100));
        assert_eq!(timer_expiry(ms(10), None), ms(10) + Dur::from_micros(100));
    }

    #[test]
    fn the_timer_sends_one_ack_for_those_held() {
        let mut s = SackCompress::default();
        checks(&mut s, 5, 1000);
        assert!(!s.kick(ms(1)), "not due before the slack");
        assert!(s.kick(ms(1) + COMP_SACK_SLACK));
        assert_eq!(s.deadline(), None);
    }

    #[test]
    fn an_ack_sent_cancels_the_timer() {
        let mut s = SackCompress::default();
        checks(&mut s, 4, 1000);
        assert!(s.flushes_for_new_block());
        s.on_ack_sent();
        assert_eq!(s.deadline(), None);
        assert!(!s.kick(ms(2)));
        assert!(!s.flushes_for_new_block());
    }
}
