//! Delivery-rate sampling as the kernel runs it for a controller that takes over the
//! window (net/ipv4/tcp_rate.c, Linux 6.x): every transmission snapshots the
//! connection's delivery state in the segment (`tcp_rate_skb_sent`); every ACK picks,
//! among the segments it newly delivers (cumulatively or by SACK), the one sent last
//! (`tcp_rate_skb_delivered`) and turns the deliveries since that segment was sent
//! into a rate sample (`tcp_rate_gen`); a write that finds less than a segment of
//! unsent data while cwnd is not full marks the connection application-limited
//! (`tcp_rate_check_app_limited`).
//!
//! Counts are in segments (the kernel's packets, no TSO); times in the simulator's
//! integer time. Only a sender whose controller takes over cwnd (BBR) keeps one.

use spikelab_core::{Dur, Time};
use std::collections::BTreeMap;

/// What a transmission snapshots (`TCP_SKB_CB(skb)->tx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TxRecord {
    end: u64,
    /// When it was (last) sent (`tcp_skb_timestamp_us`).
    sent: Time,
    /// `tx.first_tx_mstamp`: the start of the send phase it belongs to.
    first_tx: Time,
    /// `tx.delivered_mstamp`.
    delivered_mstamp: Time,
    /// `tx.delivered`: segments delivered when it was sent.
    delivered: u64,
    /// `tx.is_app_limited`.
    app_limited: bool,
    /// Retransmitted at least once (`TCPCB_RETRANS`).
    retrans: bool,
    /// `tx.in_flight`: segments in flight once it was sent, itself included
    /// (`tcp_set_tx_in_flight`, google/bbr v3's tcp_rate.c).
    in_flight: u64,
    /// `tx.lost`: `tp->lost` when it was sent (v3's `bbr_skb_marked_lost` reads it).
    lost: u64,
}

/// One ACK's rate sample (`struct rate_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// `prior_delivered`: the connection's deliveries when the sampled segment was sent.
    pub prior_delivered: u64,
    /// Segments delivered over the interval; `None` is the kernel's -1 (no timing).
    pub delivered: Option<u64>,
    /// The sampling interval, max(send phase, ACK phase); `None` is -1 (no timing, or
    /// shorter than the minimum RTT).
    pub interval: Option<Dur>,
    /// Segments this ACK newly delivered, cumulatively or by SACK (`acked_sacked`).
    pub acked_sacked: u64,
    /// Segments newly marked lost while this ACK was processed (`losses`).
    pub losses: u64,
    /// Segments in flight before this ACK (`prior_in_flight`).
    pub prior_in_flight: u64,
    /// This ACK's RTT sample (`rtt_us`, -1 when none).
    pub rtt: Option<Dur>,
    /// The sampled segment was sent while application-limited (`is_app_limited`).
    pub is_app_limited: bool,
    /// The ACK may have been delayed (`is_ack_delayed`, `FLAG_ACK_MAYBE_DELAYED`).
    pub is_ack_delayed: bool,
    /// Segments in flight when the sampled segment was sent, itself included
    /// (`tx_in_flight`, google/bbr v3; BBR v1 ignores it).
    pub tx_in_flight: u64,
    /// Segments marked lost since the sampled segment was sent (`rs->lost` =
    /// `tp->lost - tx.lost`, google/bbr v3; BBR v1 ignores it).
    pub lost: u64,
}

/// The connection's delivery state (`tp->delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`) and the snapshots of the segments outstanding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryRate {
    /// Snapshots by segment start; a segment leaves when it is delivered.
    tx: BTreeMap<u64, TxRecord>,
    delivered: u64,
    delivered_mstamp: Time,
    first_tx_mstamp: Time,
    /// `tp->app_limited`: 0, or the delivered count that ends the bubble.
    app_limited: u64,
    /// The sample this ACK is building (`tcp_rate_skb_delivered` calls).
    pending: RateSample,
    /// Its `prior_mstamp` (0 in the kernel: no segment with timing was delivered).
    prior_mstamp: Option<Time>,
    /// The sampled segment's `tx.lost`.
    prior_lost: u64,
    /// The sampled segment's end (`rs->last_end_seq`, 0 at each ACK's start).
    last_end_seq: u64,
    /// Segments the ACK being processed delivered so far.
    newly: u64,
    /// Send times of the latest never-retransmitted segments it acknowledged
    /// cumulatively and by SACK (`last_ackt`, `sack->last_sackt`), and whether it
    /// cumulatively acknowledged retransmitted data (`FLAG_RETRANS_DATA_ACKED`).
    last_ackt: Option<Time>,
    last_sackt: Option<Time>,
    retrans_acked: bool,
}

impl DeliveryRate {
    /// Segments delivered over the connection's life (`tp->delivered`).
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// When the last delivery was seen (`tp->delivered_mstamp`).
    pub fn delivered_mstamp(&self) -> Time {
        self.delivered_mstamp
    }

    /// The handshake's SYN was acknowledged: it counts in `tp->delivered` as a
    /// segment. `tcp_clean_rtx_queue` walks the SYN's skb as any other ("Initial
    /// outgoing SYN's get put onto the write_queue just like anything else we
    /// transmit") and counts its one segment (`tcp_count_delivered`, or
    /// `tcp_remove_reno_sacks` without SACK); only `FLAG_DATA_ACKED` leaves it out. So
    /// the active opener's data starts with `tp->delivered` = 1, which BBR's
    /// `tp->delivered < TCP_INIT_CWND` test in `bbr_set_cwnd` reads. No sample is
    /// kept: the SYN-ACK's own sample goes to `bbr_main` before `bbr_init` resets the
    /// filters, and the first data segment restarts the send phase (`!packets_out`).
    pub fn on_syn_delivered(&mut self) {
        self.delivered += 1;
    }

    /// `tcp_rate_skb_sent`: segment `[start, end)` goes out at `now`; `idle`: nothing
    /// was outstanding (`!tp->packets_out`), so a new send phase starts; `tx` the
    /// flight with it and `tp->lost` at that moment.
    pub fn on_sent(&mut self, start: u64, end: u64, now: Time, idle: bool, tx: TxFlight) {
        let retrans = self.tx.contains_key(&start);
        if idle {
            self.first_tx_mstamp = now;
            self.delivered_mstamp = now;
        }
        let rec = TxRecord {
            end,
            sent: now,
            first_tx: self.first_tx_mstamp,
            delivered_mstamp: self.delivered_mstamp,
            delivered: self.delivered,
            app_limited: self.app_limited != 0,
            retrans,
            in_flight: tx.in_flight,
            lost: tx.lost,
        };
        self.tx.insert(start, rec);
    }

    /// The ACK cumulatively acknowledges everything below `ack`.
    pub fn on_cumulative_ack(&mut self, ack: u64) {
        let kept = self.tx.split_off(&ack);
        let acked = std::mem::replace(&mut self.tx, kept);
        for rec in acked.into_values() {
            match rec.retrans {
                false => self.last_ackt = self.last_ackt.max(Some(rec.sent)),
                true => self.retrans_acked = true,
            }
            self.deliver(rec);
        }
    }

    /// The ACK SACKs `[start, end)`: every segment wholly inside is delivered.
    pub fn on_sack_block(&mut self, start: u64, end: u64) {
        let inside: Vec<u64> = (self.tx.range(start..end))
            .filter(|(_, r)| r.end <= end)
            .map(|(&s, _)| s)
            .collect();
        for s in inside {
            if let Some(rec) = self.tx.remove(&s) {
                if !rec.retrans {
                    self.last_sackt = self.last_sackt.max(Some(rec.sent));
                }
                self.deliver(rec);
            }
        }
    }

    /// `tcp_rate_skb_delivered`: the segment sent last among those delivered by this
    /// ACK gives the sample's start. Linux 5.18 on ("tcp: ensure to use the most
    /// recently sent skb when filling the rate sample", in 5.15 stable too) picks it by send time,
    /// then sequence ([`sent_after`]), not by the highest `tx.delivered`: the segments
    /// sent between two ACKs share `tx.delivered`, and the first of them (what the
    /// older test kept) starts the send phase up to a pacing interval early.
    fn deliver(&mut self, rec: TxRecord) {
        self.newly += 1;
        // `!rs->prior_delivered || tcp_skb_sent_after(tx_tstamp, tp->first_tx_mstamp,
        // scb->end_seq, rs->last_end_seq)`
        if self.pending.prior_delivered == 0
            || sent_after(rec.sent, self.first_tx_mstamp, rec.end, self.last_end_seq)
        {
            self.last_end_seq = rec.end;
            self.pending.prior_delivered = rec.delivered;
            self.prior_mstamp = Some(rec.delivered_mstamp);
            self.pending.is_app_limited = rec.app_limited;
            self.pending.tx_in_flight = rec.in_flight;
            self.prior_lost = rec.lost;
            // "Record send time of most recently ACKed packet" and the send phase.
            self.first_tx_mstamp = rec.sent;
            self.pending.interval = Some(rec.sent.saturating_since(rec.first_tx));
        }
    }

    /// `tcp_rate_gen` at the end of an ACK: the sample, with the ACK's `losses`, RTT
    /// sample and flight before it; `min_rtt` is `tcp_min_rtt`, `lost` is `tp->lost`.
    pub fn gen(&mut self, now: Time, min_rtt: Option<Dur>, ack: AckFacts, lost: u64) -> RateSample {
        let newly = std::mem::take(&mut self.newly);
        self.delivered += newly;
        let mut rs = std::mem::take(&mut self.pending);
        let prior_mstamp = self.prior_mstamp.take();
        self.last_end_seq = 0;
        // "Clear app limited if bubble is acked and gone."
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if newly > 0 {
            self.delivered_mstamp = now;
        }
        rs.acked_sacked = newly;
        rs.losses = ack.losses;
        rs.rtt = self.ca_rtt(now, ack.rtt);
        rs.prior_in_flight = ack.prior_in_flight;
        rs.is_ack_delayed = ack.maybe_delayed;
        rs.lost = lost.saturating_sub(std::mem::take(&mut self.prior_lost));
        let Some(prior_mstamp) = prior_mstamp else {
            rs.delivered = None;
            rs.interval = None;
            return rs;
        };
        rs.delivered = Some(self.delivered - rs.prior_delivered);
        // The longer of the send and the ACK phase.
        let snd = rs.interval.unwrap_or(Dur::ZERO);
        let ack_phase = now.saturating_since(prior_mstamp);
        let interval = snd.max(ack_phase);
        // "Normally we expect interval_us >= min-rtt."
        rs.interval = (min_rtt.is_none_or(|m| interval >= m)).then_some(interval);
        rs
    }

    /// `ca_rtt_us` (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`): from the latest
    /// never-retransmitted segment newly SACKed, else cumulatively acknowledged
    /// (unless retransmitted data was), else the ACK's timestamp sample `echo`.
    fn ca_rtt(&mut self, now: Time, echo: Option<Dur>) -> Option<Dur> {
        let sackt = self.last_sackt.take();
        let ackt = self.last_ackt.take().filter(|_| !self.retrans_acked);
        self.retrans_acked = false;
        sackt.or(ackt).map(|t| now.saturating_since(t)).or(echo)
    }

    /// `tcp_rate_check_app_limited`, when the application writes: less than a segment
    /// unsent, cwnd not full, every lost segment retransmitted.
    pub fn check_app_limited(&mut self, c: AppLimitCheck) {
        if c.unsent < c.mss && c.in_flight < c.cwnd && c.lost_pending == 0 {
            self.mark_app_limited(c.in_flight);
        }
    }

    /// `tp->app_limited = (tp->delivered + tcp_packets_in_flight(tp)) ? : 1` (also set
    /// by BBR in PROBE_RTT).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Whether the connection is application-limited (`tp->app_limited != 0`).
    pub fn app_limited(&self) -> bool {
        self.app_limited != 0
    }
}

/// `tcp_skb_sent_after` (include/net/tcp.h): `t1 > t2 || (t1 == t2 && after(seq1,
/// seq2))`, the send times compared in the microseconds of `tcp_skb_timestamp_us`.
fn sent_after(t1: Time, t2: Time, seq1: u64, seq2: u64) -> bool {
    let (t1, t2) = (t1.0 / 1000, t2.0 / 1000);
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// A transmission's flight: segments in flight once it is sent, itself included
/// (`tcp_packets_in_flight + tcp_skb_pcount`), and `tp->lost` then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxFlight {
    pub in_flight: u64,
    pub lost: u64,
}

/// What the sender knows about an ACK beyond its deliveries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckFacts {
    pub losses: u64,
    pub rtt: Option<Dur>,
    pub prior_in_flight: u64,
    pub maybe_delayed: bool,
}

/// The inputs of [`DeliveryRate::check_app_limited`], in bytes and segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppLimitCheck {
    /// Bytes written and not yet sent (`write_seq - snd_nxt`).
    pub unsent: u64,
    pub mss: u64,
    /// Segments in flight and cwnd, in segments.
    pub in_flight: u64,
    pub cwnd: u64,
    /// Segments marked lost and not retransmitted (`lost_out - retrans_out`).
    pub lost_pending: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn facts() -> AckFacts {
        AckFacts::default()
    }

    #[test]
    fn a_flight_acknowledged_one_rtt_later_gives_its_size_over_the_rtt() {
        let mut r = DeliveryRate::default();
        for i in 0..10 {
            r.on_sent(i * 1000, (i + 1) * 1000, ms(0), i == 0, TxFlight::default());
        }
        r.on_cumulative_ack(10_000);
        let s = r.gen(ms(100), Some(Dur::from_millis(100)), facts(), 0);
        assert_eq!(s.delivered, Some(10));
        assert_eq!(s.interval, Some(Dur::from_millis(100)));
        assert_eq!(s.acked_sacked, 10);
        assert_eq!(r.delivered(), 10);
    }

    #[test]
    fn the_acknowledged_syn_is_the_first_delivered_segment() {
        let mut r = DeliveryRate::default();
        r.on_syn_delivered();
        assert_eq!(r.delivered(), 1);
        for i in 0..10 {
            r.on_sent(i * 1000, (i + 1) * 1000, ms(0), i == 0, TxFlight::default());
        }
        r.on_cumulative_ack(3000);
        let s = r.gen(ms(100), None, facts(), 0);
        // The data's own sample is unchanged: three segments since the first was sent.
        assert_eq!(
            (s.prior_delivered, s.delivered, r.delivered()),
            (1, Some(3), 4)
        );
    }

    #[test]
    fn the_sample_starts_at_the_segment_sent_last_among_those_delivered() {
        let mut r = DeliveryRate::default();
        r.on_sent(0, 1000, ms(0), true, TxFlight::default());
        r.on_cumulative_ack(1000);
        r.gen(ms(100), None, facts(), 0);
        // Sent after one delivery: prior_delivered 1.
        r.on_sent(1000, 2000, ms(100), true, TxFlight::default());
        r.on_sent(2000, 3000, ms(110), false, TxFlight::default());
        r.on_sack_block(2000, 3000);
        let s = r.gen(ms(210), None, facts(), 0);
        assert_eq!((s.prior_delivered, s.delivered), (1, Some(1)));
        // The cumulative ACK of the first one does not count the SACKed one again.
        r.on_cumulative_ack(3000);
        let s = r.gen(ms(220), None, facts(), 0);
        assert_eq!((s.acked_sacked, r.delivered()), (1, 3));
    }

    /// `tcp_rate_skb_delivered` (Linux 5.18 on): of the segments sent between two ACKs,
    /// which share `tx.delivered`, the one sent last starts the sample, so the send
    /// phase runs to it (120 ms), not to the first of them (100 ms, shorter than the
    /// ACK phase of 105 ms).
    #[test]
    fn of_segments_sent_between_two_acks_the_one_sent_last_starts_the_sample() {
        let mut r = DeliveryRate::default();
        r.on_sent(0, 1000, ms(0), true, TxFlight::default());
        r.on_sent(1000, 2000, ms(0), false, TxFlight::default());
        r.on_cumulative_ack(1000);
        r.gen(ms(100), None, facts(), 0);
        r.on_sent(2000, 3000, ms(100), false, TxFlight::default());
        r.on_sent(3000, 4000, ms(120), false, TxFlight::default());
        r.on_cumulative_ack(4000);
        let s = r.gen(ms(205), None, facts(), 0);
        assert_eq!((s.prior_delivered, s.delivered), (1, Some(3)));
        assert_eq!(s.interval, Some(Dur::from_millis(120)));
        // Two segments of one skb leave at one instant: the higher sequence is later.
        r.on_sent(4000, 5000, ms(300), true, TxFlight::default());
        r.on_sent(5000, 6000, ms(300), false, TxFlight::default());
        r.on_cumulative_ack(6000);
        r.gen(ms(400), None, facts(), 0);
        assert_eq!(r.first_tx_mstamp, ms(300));
        assert_eq!(r.last_end_seq, 0, "reset for the next ACK");
    }

    #[test]
    fn the_rtt_is_the_latest_sent_segments_and_never_a_retransmissions() {
        let mut r = DeliveryRate::default();
        r.on_sent(0, 1000, ms(0), true, TxFlight::default());
        r.on_sent(1000, 2000, ms(10), false, TxFlight::default());
        r.on_cumulative_ack(2000);
        let echo = Some(Dur::from_millis(150));
        assert_eq!(
            r.gen(
                ms(110),
                None,
                AckFacts {
                    rtt: echo,
                    ..facts()
                },
                0
            )
            .rtt,
            Some(Dur::from_millis(100))
        );
        r.on_sent(2000, 3000, ms(200), true, TxFlight::default());
        r.on_sent(2000, 3000, ms(500), false, TxFlight::default()); // the timeout's retransmission
        r.on_cumulative_ack(3000);
        assert_eq!(
            r.gen(
                ms(600),
                None,
                AckFacts {
                    rtt: echo,
                    ..facts()
                },
                0
            )
            .rtt,
            echo
        );
    }

    #[test]
    fn an_interval_shorter_than_the_minimum_rtt_is_no_sample() {
        let mut r = DeliveryRate::default();
        r.on_sent(0, 1000, ms(0), true, TxFlight::default());
        r.on_cumulative_ack(1000);
        let s = r.gen(ms(50), Some(Dur::from_millis(100)), facts(), 0);
        assert_eq!((s.delivered, s.interval), (Some(1), None));
    }

    #[test]
    fn an_ack_delivering_nothing_has_no_timing() {
        let mut r = DeliveryRate::default();
        r.on_sent(0, 1000, ms(0), true, TxFlight::default());
        let s = r.gen(ms(50), None, facts(), 0);
        assert_eq!((s.delivered, s.interval, s.acked_sacked), (None, None, 0));
    }

    #[test]
    fn segments_sent_in_an_application_bubble_give_app_limited_samples_until_it_is_acked() {
        let mut r = DeliveryRate::default();
        let check = AppLimitCheck {
            unsent: 0,
            mss: 1000,
            in_flight: 0,
            cwnd: 10,
            lost_pending: 0,
        };
        r.check_app_limited(check);
        r.on_sent(0, 1000, ms(0), true, TxFlight::default());
        r.on_sent(1000, 2000, ms(0), false, TxFlight::default());
        r.on_cumulative_ack(1000);
        assert!(r.gen(ms(100), None, facts(), 0).is_app_limited);
        assert!(r.app_limited(), "the bubble ends after delivered passes 1");
        r.on_cumulative_ack(2000);
        r.gen(ms(101), None, facts(), 0);
        assert!(!r.app_limited());
        r.check_app_limited(AppLimitCheck {
            in_flight: 10,
            ..check
        });
        assert!(!r.app_limited(), "cwnd-limited is not app-limited");
    }

    #[test]
    fn a_sample_carries_the_flight_its_segment_was_sent_into_and_the_losses_since() {
        let mut r = DeliveryRate::default();
        let tx = |in_flight, lost| TxFlight { in_flight, lost };
        r.on_sent(0, 1000, ms(0), true, tx(1, 0));
        r.on_sent(1000, 2000, ms(1), false, tx(2, 0));
        r.on_sent(2000, 3000, ms(2), false, tx(3, 4));
        r.on_sack_block(2000, 3000);
        let s = r.gen(ms(100), None, facts(), 6);
        assert_eq!((s.tx_in_flight, s.lost), (3, 2));
        r.on_cumulative_ack(1000);
        let s = r.gen(ms(101), None, facts(), 6);
        assert_eq!((s.tx_in_flight, s.lost), (1, 6));
    }
}
