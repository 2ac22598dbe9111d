//! How many segments an skb of a Linux sender that does not pace holds: the pacing rate
//! `tcp_update_pacing_rate` sets for every congestion control after each ACK
//! (net/ipv4/tcp_input.c, from `tcp_cong_control`), and the skb size
//! `tcp_tso_autosize` draws from it (net/ipv4/tcp_output.c, `tcp_tso_segs`, asked once
//! per `tcp_write_xmit`). Reno and CUBIC do not pace, but their skbs follow the rate:
//! about a millisecond of it (`sk_pacing_rate >> sk_pacing_shift`), at least
//! `net.ipv4.tcp_min_tso_segs` (2). On the 100 Mbit/s outage path the kernel's pcaps
//! show skbs of 2 to 6 segments, and up to 31 in slow start; on the 2 Mbit/s paths
//! always 2.
//!
//! The rate is state: set after the SYN-ACK's and each later ACK's congestion control,
//! it stays as it was through a timeout (`tcp_enter_loss` does not update it) until the
//! next ACK.

/// `net.ipv4.tcp_min_tso_segs`.
pub const TCP_MIN_TSO_SEGS: u64 = 2;
/// `net.ipv4.tcp_pacing_ss_ratio` (percent), while cwnd < ssthresh / 2.
const PACING_SS_RATIO: u64 = 200;
/// `net.ipv4.tcp_pacing_ca_ratio` (percent), otherwise.
const PACING_CA_RATIO: u64 = 120;
/// `sk_pacing_shift` of a TCP socket (`tcp_init_sock`): bytes of about 1 ms of rate.
const PACING_SHIFT: u32 = 10;
/// `net.ipv4.tcp_tso_rtt_log`: for every 2^9 us of min_rtt the RTT allowance halves.
const TSO_RTT_LOG: u32 = 9;
/// `sk_gso_max_size`: the TUN device's `gso_ipv4_max_size` (65536, `ip -d link`) less
/// `MAX_TCP_HEADER + 1` (`sk_setup_caps`; `MAX_TCP_HEADER` = L1_CACHE_ALIGN(128 +
/// `MAX_HEADER`) = 320 on x86-64 with `LL_MAX_HEADER` 128 and the tunnels' 48).
const GSO_MAX_SIZE: u64 = 65_536 - 321;

/// What `tcp_update_pacing_rate` reads, in the kernel's units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacingInputs {
    /// `mss_cache`.
    pub mss: u64,
    /// `snd_cwnd`, `snd_ssthresh` and `packets_out`, in segments.
    pub cwnd: u64,
    pub ssthresh: u64,
    pub packets_out: u64,
    /// `srtt_us` (the smoothed RTT in microseconds, times 8); 0 before any sample.
    pub srtt_us8: u64,
    /// `tcp_min_rtt` in microseconds, if there is a sample.
    pub min_rtt_us: Option<u64>,
}

/// `tcp_update_pacing_rate`: bytes per second, 200 % of mss x max(cwnd, packets_out)
/// / srtt in slow start's first half, 120 % after it. Without an RTT sample the
/// kernel does not divide; the rate is then as large as the product.
pub fn pacing_rate(v: &PacingInputs) -> u64 {
    let ratio = if v.cwnd < v.ssthresh / 2 {
        PACING_SS_RATIO
    } else {
        PACING_CA_RATIO
    };
    // rate = mss * ((USEC_PER_SEC / 100) << 3) * ratio * max(cwnd, packets_out).
    let rate = v.mss * (10_000 << 3) * ratio * v.cwnd.max(v.packets_out);
    match v.srtt_us8 {
        0 => rate,
        s => rate / s,
    }
}

/// `tcp_tso_autosize` with `tcp_min_tso_segs`: about 1 ms of the pacing rate, plus
/// the GSO size halved for every 2^`tcp_tso_rtt_log` us of min_rtt, at most the GSO
/// size, in whole segments of `mss`, at least two.
pub fn tso_segs(rate: u64, mss: u64, min_rtt_us: Option<u64>) -> u64 {
    let mut bytes = rate >> PACING_SHIFT;
    // tcp_min_rtt is ~0U without a sample: no allowance.
    let r = min_rtt_us.map_or(u64::MAX, |m| m >> TSO_RTT_LOG);
    if r < 32 {
        bytes += GSO_MAX_SIZE >> r;
    }
    (bytes.min(GSO_MAX_SIZE) / mss.max(1)).max(TCP_MIN_TSO_SEGS)
}

/// The segments per skb the last congestion-control step left (`tcp_tso_segs` of the
/// next `tcp_write_xmit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TsoAutosize {
    segs: u64,
}

impl Default for TsoAutosize {
    fn default() -> Self {
        TsoAutosize {
            segs: TCP_MIN_TSO_SEGS,
        }
    }
}

impl TsoAutosize {
    /// `tcp_update_pacing_rate` at the end of `tcp_cong_control`.
    pub fn on_cong_control(&mut self, v: &PacingInputs) {
        self.segs = tso_segs(pacing_rate(v), v.mss, v.min_rtt_us);
    }

    pub fn segs(&self) -> u64 {
        self.segs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(cwnd: u64, ssthresh: u64, srtt_ms: u64) -> PacingInputs {
        PacingInputs {
            mss: 1448,
            cwnd,
            ssthresh,
            packets_out: 0,
            srtt_us8: srtt_ms * 1000 * 8,
            min_rtt_us: Some(40_000),
        }
    }

    #[test]
    fn slow_start_paces_at_twice_the_window_per_rtt_and_congestion_avoidance_at_1_2() {
        // 10 x 1448 B per 44 ms = 329090 B/s.
        assert_eq!(pacing_rate(&inputs(10, u64::MAX, 44)), 658_181);
        assert_eq!(
            pacing_rate(&inputs(10, 20, 44)),
            394_909,
            "cwnd >= ssthresh / 2"
        );
    }

    #[test]
    fn packets_out_above_cwnd_counts() {
        let v = PacingInputs {
            packets_out: 20,
            ..inputs(10, 20, 44)
        };
        assert_eq!(pacing_rate(&v), 2 * pacing_rate(&inputs(10, 20, 44)));
    }

    #[test]
    fn an_skb_holds_about_a_millisecond_of_the_rate_and_at_least_two_segments() {
        // (rate B/s, segments): 1 ms of 658 kB/s is under one segment; 4.45 MB/s >> 10
        // = 4345 B is three; the GSO size caps at 45.
        let table = [
            (658_181, 2),
            (4_448_256, 3),
            (5_930_000, 3),
            (5_931_008, 4),
            (1_000_000_000, 45),
        ];
        for (rate, segs) in table {
            assert_eq!(tso_segs(rate, 1448, Some(40_000)), segs, "{rate}");
        }
    }

    #[test]
    fn a_short_min_rtt_adds_a_share_of_the_gso_size() {
        // min_rtt 2 ms: 2000 >> 9 = 3, 65215 >> 3 = 8151 B more: 8793 B, six segments.
        assert_eq!(tso_segs(658_181, 1448, Some(2_000)), 6);
        assert_eq!(tso_segs(658_181, 1448, None), 2, "no sample: no allowance");
    }

    #[test]
    fn the_skb_size_is_the_last_ack_s_until_the_next() {
        let mut a = TsoAutosize::default();
        assert_eq!(a.segs(), 2);
        // 300 segments per 44 ms in congestion avoidance: 11.85 MB/s, 11569 B per
        // 1.024 ms: 7 segments.
        a.on_cong_control(&inputs(300, 400, 44));
        assert_eq!(a.segs(), 7);
    }
}
