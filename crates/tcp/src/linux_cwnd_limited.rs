//! Linux grows cwnd only while cwnd limits the sender: `tcp_is_cwnd_limited`
//! (include/net/tcp.h), fed by `tcp_cwnd_validate` (net/ipv4/tcp_output.c) after each
//! `tcp_write_xmit`. `tcp_reno_cong_avoid` (net/ipv4/tcp_cong.c) and
//! `cubictcp_cong_avoid` (net/ipv4/tcp_cubic.c) return at once when it is false.
//!
//! A sender held back by the receive window (or the application) keeps its cwnd: in
//! congestion avoidance it does not grow at all, and in slow start only up to twice
//! the most segments it had out in the last window ("ensure cwnd grows to twice what
//! was ACKed"). Without this rule a receive-window-limited flow's cwnd climbs without
//! bound, and the first loss halves a window the flow never used.

/// `tp->is_cwnd_limited`, `tp->max_packets_out` and `tp->cwnd_usage_seq`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CwndUsage {
    is_cwnd_limited: bool,
    max_packets_out: u64,
    /// snd_nxt when the current window's usage began to be tracked (bytes).
    usage_seq: u64,
}

impl CwndUsage {
    /// `tcp_cwnd_validate(sk, is_cwnd_limited)` after a `tcp_write_xmit` that sent
    /// something or stopped at cwnd: a new window (snd_una reached `cwnd_usage_seq`),
    /// cwnd-limited now, or (not cwnd-limited) more segments out than before restarts
    /// the record with this transmission's state. `packets_out` counts every
    /// unacknowledged segment (SACKed ones too), as `tp->packets_out` does.
    pub fn on_write_xmit(
        &mut self,
        snd_una: u64,
        snd_nxt: u64,
        packets_out: u64,
        is_cwnd_limited: bool,
    ) {
        if snd_una >= self.usage_seq
            || is_cwnd_limited
            || (!self.is_cwnd_limited && packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = is_cwnd_limited;
            self.max_packets_out = packets_out;
            self.usage_seq = snd_nxt;
        }
    }

    /// `tp->is_cwnd_limited`: whether cwnd limited the last window's sending.
    pub fn is_cwnd_limited(&self) -> bool {
        self.is_cwnd_limited
    }

    /// `tcp_is_cwnd_limited`: cwnd may grow (segments) if the last window was
    /// cwnd-limited, or, in slow start (`cwnd < ssthresh`), while cwnd is below twice
    /// the most segments out in it.
    pub fn allows_growth(&self, cwnd: u64, ssthresh: u64) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        cwnd < ssthresh && cwnd < 2 * self.max_packets_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_that_filled_cwnd_lets_it_grow() {
        let mut u = CwndUsage::default();
        u.on_write_xmit(0, 10_000, 10, true);
        assert!(u.allows_growth(10, 5));
        assert!(u.allows_growth(10, u64::MAX));
    }

    #[test]
    fn a_receive_window_limited_slow_start_stops_at_twice_the_segments_out() {
        let mut u = CwndUsage::default();
        u.on_write_xmit(0, 150_000, 150, false);
        assert!(u.allows_growth(299, u64::MAX));
        assert!(!u.allows_growth(300, u64::MAX));
    }

    #[test]
    fn congestion_avoidance_does_not_grow_a_window_it_does_not_fill() {
        let mut u = CwndUsage::default();
        u.on_write_xmit(0, 40_000, 40, false);
        assert!(!u.allows_growth(60, 37));
    }

    #[test]
    fn a_cwnd_limited_window_is_kept_until_snd_una_passes_it() {
        let mut u = CwndUsage::default();
        u.on_write_xmit(0, 10_000, 10, true);
        // Later in the same window, a send stopped by something else does not
        // overwrite the cwnd-limited record...
        u.on_write_xmit(5_000, 12_000, 7, false);
        assert!(u.allows_growth(50, 20));
        // ...until snd_una reaches the snd_nxt at which it was taken.
        u.on_write_xmit(10_000, 15_000, 5, false);
        assert!(!u.allows_growth(50, 20));
    }

    #[test]
    fn an_undo_keeps_the_record_of_the_window_cwnd_filled_before_it() {
        // std-proxy.toml, linux-reno-nots, 64 KB window, 100 kbit/s, no proxy, seed
        // 2004: after the go-back-N the 44-segment flight fills cwnd 44 (snd_una
        // 356240, snd_nxt 420480), and the D-SACK duplicates only re-confirm that.
        // tcp_undo_cwnd_reduction then restores cwnd 88 with ssthresh unlimited but
        // leaves tcp_cwnd_validate's record alone, so every ACK until snd_una reaches
        // 420480 may still grow cwnd (88 -> 132), after which 44 out stop it.
        let (mss, una, nxt) = (1460, 356_240, 420_480);
        let mut u = CwndUsage::default();
        u.on_write_xmit(una, nxt, 44, true);
        u.on_write_xmit(una, nxt, 44, true);
        for k in 1..44 {
            assert!(u.allows_growth(88 + k - 1, u64::MAX));
            u.on_write_xmit(una + k * mss, nxt + k * mss, 44, false);
        }
        assert!(u.allows_growth(131, u64::MAX));
        u.on_write_xmit(nxt, nxt + 44 * mss, 44, false);
        assert!(!u.allows_growth(132, u64::MAX));
    }

    #[test]
    fn more_segments_out_raise_the_record_within_a_window() {
        let mut u = CwndUsage::default();
        u.on_write_xmit(0, 10_000, 10, false);
        u.on_write_xmit(1_000, 20_000, 19, false);
        assert!(u.allows_growth(37, u64::MAX));
        assert!(!u.allows_growth(38, u64::MAX));
    }
}
