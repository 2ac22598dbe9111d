//! CUBIC congestion control (RFC 9438) as the Linux kernel runs it by default:
//! `cubictcp_cong_avoid`, `bictcp_update`, `cubictcp_recalc_ssthresh`,
//! `cubictcp_state`, `cubictcp_acked` and HyStart's `hystart_update`
//! (net/ipv4/tcp_cubic.c, Linux 6.x, module defaults: `beta` 717, `bic_scale` 41,
//! `fast_convergence` 1, `tcp_friendliness` 1, `hystart` 1 with both detectors,
//! `hystart_low_window` 16, `hystart_ack_delta_us` 2000), in whole segments and,
//! for the cubic function's clock (`epoch_start`, `last_time`, the `HZ / 32` guard,
//! the 1 s after an epoch starts), jiffies of 1/HZ s as the kernel counts
//! (`tcp_jiffies32`, HZ = 250: [`crate::linux_timer_wheel`]); HyStart's clocks are
//! microseconds (`bictcp_clock_us`).
//!
//! After a reduction the window follows W(t) = C (t - K)^3 + W_max (RFC 9438 4.2,
//! C = 0.4), K = cbrt(W_max (1 - beta) / C) (eq. 2), computed in the kernel's fixed
//! point: time in 1/1024 s (`BICTCP_HZ`), `cube_factor` = 2^40 / 410. The cubic
//! target sets how many acknowledged segments grow cwnd by one (`cnt`), which the
//! Reno-friendly estimate may lower (RFC 9438 4.3); the growth itself is
//! `tcp_cong_avoid_ai` ([`super::linux_reno`]). A reduction multiplies cwnd by
//! beta = 717/1024 (RFC 9438 4.6) and, with fast convergence, lowers W_max further
//! when cwnd did not regain the last W_max (4.7). Slow start is the kernel's
//! (`tcp_slow_start`), ended early by HyStart (ACK trains spanning half the minimum
//! RTT, or a round's minimum RTT rising by 1/8 of it, clamped to 4..16 ms).
//!
//! Simplifications: the cube root is exact (the kernel's table lookup plus one
//! Newton step is within 0.2 %); `hystart_ack_delay` is its 1 ms bound (it is
//! min(1 ms, 4 * GSO size / pacing rate), 1 ms below 262 MB/s of pacing); the idle
//! restart (`CA_EVENT_TX_START`) is not modelled (bulk transfers are never
//! application-limited while data is outstanding); `tcp_is_cwnd_limited` is, in
//! [`super::linux_reno::in_segments`] as for Reno.

use super::linux_reno::LinuxReno;
use super::{AckSample, CongestionControl, CwndView, Declared, RttEvent};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::linux_timer_wheel::{jiffies, usecs_to_jiffies, HZ};
use spikelab_core::{Dur, Time};

/// `beta` / `BICTCP_BETA_SCALE`: the multiplicative decrease, 717/1024 = 0.7.
const BETA: u64 = 717;
const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: time in the cubic function counts 2^10 units per second.
const BICTCP_HZ: u32 = 10;
/// `cube_rtt_scale` = `bic_scale` * 10: C = 410 / 1024 = 0.4 (RFC 9438 4.2).
const CUBE_RTT_SCALE: u64 = 41 * 10;
/// `cube_factor` = 2^(10 + 3 * BICTCP_HZ) / (`bic_scale` * 10): 1 / C in the fixed point.
const CUBE_FACTOR: u64 = (1 << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE;
/// `beta_scale` = 8 (1 + beta) / 3 / (1 - beta): acknowledged segments per
/// Reno-friendly segment of growth, times 8 (RFC 9438 4.3, alpha = 3 (1 - beta) / (1 + beta)).
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// `hystart_low_window`: HyStart acts from 16 segments on.
const HYSTART_LOW_WINDOW: u64 = 16;
/// `hystart_ack_delta_us`: ACKs closer than this form a train.
const HYSTART_ACK_DELTA: Dur = Dur::from_micros(2000);
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
const HYSTART_MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`: the delay test's clamp.
const HYSTART_DELAY_MIN: Dur = Dur::from_micros(4000);
const HYSTART_DELAY_MAX: Dur = Dur::from_micros(16000);
/// `hystart_ack_delay`: its 1 ms bound (see the module notes).
const HYSTART_ACK_DELAY: Dur = Dur::from_micros(1000);

/// HyStart's ACK-train test: ACKs spaced within 2 ms that span more than this since
/// the round began end slow start: (delay_min + `hystart_ack_delay`) / 2, halved
/// because the socket is not paced (`SK_PACING_NONE`, `hystart_update`).
fn ack_train_threshold(delay_min: Dur) -> Dur {
    Dur((delay_min + HYSTART_ACK_DELAY).0 >> 1)
}

/// HyStart's delay test: a round's minimum RTT (over at least 8 samples) above
/// delay_min by more than this ends slow start: delay_min / 8 clamped to 4..16 ms
/// (`HYSTART_DELAY_THRESH`).
fn delay_threshold(delay_min: Dur) -> Dur {
    Dur(delay_min.0 >> 3)
        .max(HYSTART_DELAY_MIN)
        .min(HYSTART_DELAY_MAX)
}

/// `cubictcp_recalc_ssthresh`'s value: max(cwnd * beta, 2) segments.
pub fn ssthresh(cwnd: u64) -> u64 {
    (cwnd * BETA / BETA_SCALE).max(2)
}

/// Floor of the cube root.
fn cube_root(a: u64) -> u64 {
    let (mut lo, mut hi) = (0u64, 1u64 << 22); // (2^22)^3 > 2^64
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if (mid as u128).pow(3) <= a as u128 {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// HyStart's per-round state (`round_start` .. `curr_rtt`, `found`, `sample_cnt`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct HyStart {
    found: bool,
    round_start: Time,
    /// snd_nxt when the round began: the round ends when snd_una passes it.
    end_seq: u64,
    last_ack: Time,
    curr_rtt: Option<Dur>,
    sample_cnt: u8,
}

impl HyStart {
    /// `bictcp_hystart_reset`: a new round from `now`, ending at `snd_nxt`.
    fn reset(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }
}

/// CUBIC's state for one connection (`struct bictcp` and `snd_cwnd_cnt`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cubic {
    cnt: u64,
    last_max_cwnd: u64,
    last_cwnd: u64,
    last_time: u64,
    origin: u64,
    /// K in 1/1024 s.
    k: u64,
    delay_min: Option<Dur>,
    /// In jiffies; `None` is the kernel's 0 ("no epoch").
    epoch_start: Option<u64>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    hystart: HyStart,
    /// `snd_cwnd_cnt` and `tcp_cong_avoid_ai`.
    ai: LinuxReno,
}

/// What the connection knows when an RTT sample arrives (`struct ack_sample`).
#[derive(Clone, Copy, Debug)]
pub struct RttView {
    pub now: Time,
    pub rtt: Dur,
    /// cwnd and ssthresh in segments.
    pub cwnd: u64,
    pub ssthresh: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
}

impl Cubic {
    /// `cubictcp_cong_avoid` for an ACK of `acked` segments: the new cwnd.
    pub fn cong_avoid(&mut self, now: Time, cwnd: u64, ssthresh: u64, acked: u64) -> u64 {
        let (cwnd, acked) = LinuxReno::slow_start(cwnd, ssthresh, acked);
        if acked == 0 {
            return cwnd;
        }
        self.update(now, cwnd, acked);
        self.ai.cong_avoid_ai(self.cnt, cwnd, acked)
    }

    /// `bictcp_update`: segments to acknowledge per segment of growth (`cnt`). Its
    /// clock is `tcp_jiffies32`: with cwnd unchanged the function is recomputed only
    /// after more than `HZ / 32` jiffies (7 = 28 ms at HZ = 250), and at most once per
    /// jiffy (4 ms).
    fn update(&mut self, now: Time, cwnd: u64, acked: u64) {
        let now_j = jiffies(now);
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now_j.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // "The CUBIC function can update ca->cnt at most once per jiffy."
        if !(self.epoch_start.is_some() && now_j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now_j;
            self.cnt = self.cubic_cnt(now_j, cwnd, acked);
        }
        self.tcp_friendliness(cwnd);
        // At most one segment of growth per two acknowledged (1.5x per RTT).
        self.cnt = self.cnt.max(2);
    }

    /// The cubic function's `cnt` (RFC 9438 4.2, eq. 1 and 2).
    fn cubic_cnt(&mut self, now_j: u64, cwnd: u64, acked: u64) -> u64 {
        let epoch = *self.epoch_start.get_or_insert_with(|| {
            self.ack_cnt = acked;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.k = 0;
                self.origin = cwnd;
            } else {
                self.k = cube_root(CUBE_FACTOR * (self.last_max_cwnd - cwnd));
                self.origin = self.last_max_cwnd;
            }
            now_j
        });
        let t = self.cubic_t(now_j, epoch);
        let offs = t.abs_diff(self.k);
        let delta = (CUBE_RTT_SCALE * offs * offs * offs) >> (10 + 3 * BICTCP_HZ);
        let target = if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin + delta
        };
        let cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd // "very small increment"
        };
        // "The initial growth of cubic function may be too conservative."
        if self.last_max_cwnd == 0 {
            cnt.min(20)
        } else {
            cnt
        }
    }

    /// `bictcp_update`'s t: `(tcp_jiffies32 - epoch_start) +
    /// usecs_to_jiffies(delay_min)` jiffies (delay_min in whole microseconds, rounded
    /// up to a jiffy), then `(t << BICTCP_HZ) / HZ`: in 1/1024 s, moving in steps of
    /// one jiffy (4 ms at HZ = 250).
    fn cubic_t(&self, now_j: u64, epoch: u64) -> u64 {
        let delay_j = self.delay_min.map_or(0, |d| usecs_to_jiffies(d.0 / 1000));
        ((now_j - epoch + delay_j) << BICTCP_HZ) / HZ
    }

    /// The Reno-friendly region (RFC 9438 4.3): an estimate of Reno's cwnd grows one
    /// segment per `FRIENDLY_SCALE / 8 * cwnd` acknowledged; CUBIC is at least as fast.
    fn tcp_friendliness(&mut self, cwnd: u64) {
        let delta = ((cwnd * FRIENDLY_SCALE) >> 3).max(1);
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
    }

    /// `cubictcp_recalc_ssthresh` plus `tcp_init_cwnd_reduction`'s `snd_cwnd_cnt = 0`:
    /// a reduction from `cwnd` segments ends the epoch and records W_max (RFC 9438
    /// 4.6, 4.7). The new ssthresh is [`ssthresh`].
    pub fn recalc_ssthresh(&mut self, cwnd: u64) {
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd {
            cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        self.ai.reset_cnt();
    }

    /// `cubictcp_state(TCP_CA_Loss)`: a timeout forgets everything (`bictcp_reset`)
    /// and starts a HyStart round.
    pub fn enter_loss(&mut self, now: Time, snd_nxt: u64) {
        *self = Cubic::default();
        self.hystart.reset(now, snd_nxt);
    }

    /// `cubictcp_acked`: an RTT sample feeds delay_min and HyStart; returns the new
    /// ssthresh (segments) when HyStart ends slow start (`snd_ssthresh = cwnd`). Under
    /// the linux stack the sample is the kernel's `ca_rtt_us`, the newest segment an
    /// ACK acknowledges or newly SACKs ([`crate::linux_rtt::ca_rtt_sample`]), on
    /// every ACK that gives one, duplicates included.
    pub fn acked(&mut self, v: &RttView) -> Option<u64> {
        // "Discard delay samples right after fast recovery": within HZ jiffies (1 s)
        // of `epoch_start`, on `tcp_jiffies32`.
        let epoch_young = self
            .epoch_start
            .is_some_and(|e| jiffies(v.now).saturating_sub(e) < HZ);
        if epoch_young {
            return None;
        }
        let delay = v.rtt.max(Dur::from_micros(1));
        self.delay_min = Some(self.delay_min.map_or(delay, |m| m.min(delay)));
        let in_slow_start = v.cwnd < v.ssthresh;
        if self.hystart.found || !in_slow_start {
            return None;
        }
        self.hystart_update(v, delay).then_some(v.cwnd)
    }

    /// `hystart_update`: whether this sample ends slow start.
    fn hystart_update(&mut self, v: &RttView, delay: Dur) -> bool {
        if v.snd_una > self.hystart.end_seq {
            self.hystart.reset(v.now, v.snd_nxt);
        }
        if v.cwnd < HYSTART_LOW_WINDOW {
            return false;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        let h = &mut self.hystart;
        // ACK train: ACKs spaced within 2 ms span more than delay_min / 2.
        if v.now.saturating_since(h.last_ack) <= HYSTART_ACK_DELTA {
            h.last_ack = v.now;
            if v.now.saturating_since(h.round_start) > ack_train_threshold(delay_min) {
                h.found = true;
            }
        }
        // Delay increase: the round's minimum RTT over 8 samples exceeds delay_min
        // by delay_min / 8 clamped to 4..16 ms.
        h.curr_rtt = Some(h.curr_rtt.map_or(delay, |c| c.min(delay)));
        if h.sample_cnt < HYSTART_MIN_SAMPLES {
            h.sample_cnt += 1;
        } else {
            let eta = delay_threshold(delay_min);
            if h.curr_rtt.is_some_and(|c| c > delay_min + eta) {
                h.found = true;
            }
        }
        h.found
    }
}

impl Declared for Cubic {
    const LINUX_MODULE: Option<&'static str> = Some("cubic");
}

impl Exports for Cubic {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "the 2002 agents have no CUBIC (ns-2.35's Agent/TCP/Linux is not exported)",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_congestion_control", "cubic")])
    }
}

impl CongestionControl for Cubic {
    #[inline]
    fn on_ack(&mut self, a: &AckSample) -> u64 {
        super::linux_reno::in_segments(a, |cwnd, ssthresh, acked| {
            self.cong_avoid(a.now, cwnd, ssthresh, acked)
        })
    }
    #[inline]
    fn on_rtt_sample(&mut self, s: &RttEvent) -> Option<u64> {
        let mss = s.w.mss;
        let v = RttView {
            now: s.now,
            rtt: s.rtt,
            cwnd: s.w.cwnd / mss,
            ssthresh: s.w.ssthresh / mss,
            snd_una: s.snd_una,
            snd_nxt: s.snd_max,
        };
        self.acked(&v).map(|ssthresh| ssthresh * mss)
    }
    fn on_congestion_event(&mut self, w: &CwndView) {
        self.recalc_ssthresh(w.cwnd / w.mss);
    }
    fn on_timeout(&mut self, now: Time, snd_max: u64) {
        self.enter_loss(now, snd_max);
    }
    // on_undo keeps the default: `tcp_reno_undo_cwnd` (CUBIC's `undo_cwnd` in Linux 6.x) keeps no state of its own.
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000)
    }

    #[test]
    fn with_cwnd_unchanged_the_function_waits_more_than_hz_over_32_jiffies() {
        // HZ / 32 = 7 jiffies (28 ms): counted in jiffy ticks, not milliseconds.
        let mut c = Cubic {
            delay_min: Some(Dur::from_millis(100)),
            ..Default::default()
        };
        c.update(ms(1_003), 50, 1); // jiffy 250
        assert_eq!(c.last_time, 250);
        c.update(ms(1_031), 50, 1); // jiffy 257: 7 jiffies on, still within
        assert_eq!(c.last_time, 250);
        c.update(ms(1_032), 50, 1); // jiffy 258, 29 ms after the first: recomputed
        assert_eq!(c.last_time, 258);
    }

    #[test]
    fn the_cubic_function_is_recomputed_at_most_once_per_4_ms_jiffy() {
        let mut c = Cubic {
            delay_min: Some(Dur::from_millis(100)),
            last_max_cwnd: 100,
            ..Default::default()
        };
        c.update(ms(2_000), 70, 1);
        let cnt = c.cnt;
        // 3 ms later is the same jiffy: cwnd changed, yet cnt is not recomputed.
        c.update(ms(2_003), 71, 1);
        assert_eq!(c.cnt, cnt);
        assert_eq!(c.last_cwnd, 70);
        c.update(ms(2_004), 71, 1);
        assert_eq!(c.last_cwnd, 71);
        assert_ne!(c.cnt, cnt);
    }

    #[test]
    fn the_cubic_functions_t_moves_in_jiffies_with_delay_min_rounded_up() {
        let c = Cubic {
            delay_min: Some(Dur::from_micros(100_001)), // 26 jiffies (25.00025)
            ..Default::default()
        };
        let t = |now| c.cubic_t(jiffies(ms(now)), 0);
        // 1 s + 26 jiffies = 276 jiffies: 276 * 1024 / 250.
        assert_eq!(t(1_000), 276 * 1024 / 250);
        assert_eq!(t(1_003), t(1_000));
        assert_eq!(t(1_004), 277 * 1024 / 250);
    }

    #[test]
    fn a_reduction_keeps_seven_tenths_of_cwnd() {
        assert_eq!(ssthresh(100), 70);
        assert_eq!(ssthresh(2), 2);
    }

    #[test]
    fn the_cube_root_is_exact_on_cubes_and_floors_between() {
        assert_eq!(cube_root(27), 3);
        assert_eq!(cube_root(28), 3);
        assert_eq!(cube_root(1 << 63), 2_097_152);
    }

    #[test]
    fn fast_convergence_lowers_wmax_when_cwnd_did_not_regain_it() {
        let mut c = Cubic::default();
        c.recalc_ssthresh(100);
        assert_eq!(c.last_max_cwnd, 100);
        c.recalc_ssthresh(80); // below the last W_max: (1 + beta) / 2 of it
        assert_eq!(c.last_max_cwnd, 80 * 1741 / 2048);
    }

    #[test]
    fn after_a_reduction_growth_is_concave_then_convex_around_wmax() {
        let mut c = Cubic {
            delay_min: Some(Dur::from_millis(100)),
            ..Default::default()
        };
        c.recalc_ssthresh(100);
        let mut cwnd = ssthresh(100); // 70
        let mut t = 0;
        let mut trace = Vec::new();
        // One ACK of one segment every 100 / cwnd ms: one window per 100 ms RTT.
        while t < 20_000 {
            let window = cwnd;
            for _ in 0..window {
                cwnd = c.cong_avoid(ms(t), cwnd, 70, 1);
            }
            t += 100;
            trace.push(cwnd);
        }
        // K = cbrt(30 / 0.4) = 4.2 s: near W_max = 100 around 4 s (concave: growth
        // slows as it nears), then faster again (convex).
        let at = |s: usize| trace[s * 10 - 1];
        assert!((95..=101).contains(&at(4)), "{}", at(4));
        assert!(at(2) - at(1) > at(4) - at(3), "{trace:?}");
        assert!(at(8) - at(7) > at(5) - at(4), "{trace:?}");
    }

    #[test]
    fn slow_start_then_no_more_than_one_segment_per_two_acked() {
        let mut c = Cubic::default();
        assert_eq!(c.cong_avoid(ms(0), 10, 100, 2), 12);
        // In avoidance cnt >= 2: four ACKed segments grow cwnd by at most 2.
        let mut cwnd = 100;
        for i in 0..4 {
            cwnd = c.cong_avoid(ms(1000 + i), cwnd, 50, 1);
        }
        assert!(cwnd <= 102, "{cwnd}");
    }

    fn sample(now: u64, rtt: u64, cwnd: u64, una: u64) -> RttView {
        RttView {
            now: ms(now),
            rtt: Dur::from_millis(rtt),
            cwnd,
            ssthresh: u64::MAX,
            snd_una: una,
            snd_nxt: una + cwnd * 1000,
        }
    }

    #[test]
    fn hystart_ends_slow_start_when_the_rtt_rises_within_a_round() {
        let mut c = Cubic::default();
        // Round 1 at 100 ms establishes delay_min; ACKs 10 ms apart form no train.
        assert_eq!(c.acked(&sample(0, 100, 20, 1)), None);
        // Round 2 (snd_una past round 1's snd_nxt): RTTs of 120 ms.
        let mut found = None;
        for i in 1..=9 {
            found = found.or(c.acked(&sample(10 * i, 120, 20, 30_000 + i)));
        }
        // 120 ms > 100 + max(100 / 8, 4) ms after 8 samples: ssthresh = cwnd.
        assert_eq!(found, Some(20));
    }

    #[test]
    fn hystart_thresholds_follow_tcp_cubic_c_constants() {
        // (delay_min, delay test's margin, ACK train's span), tcp_cubic.c (6.x):
        // HYSTART_DELAY_THRESH(delay_min >> 3) within 4..16 ms; the train spans half
        // of delay_min plus the 1 ms hystart_ack_delay.
        let table = [
            (10, 4_000, 5_500),
            (32, 4_000, 16_500),
            (64, 8_000, 32_500),
            (90, 11_250, 45_500),
            (128, 16_000, 64_500),
            (400, 16_000, 200_500),
        ];
        for (min_ms, delay_us, train_us) in table {
            let d = Dur::from_millis(min_ms);
            let got = (delay_threshold(d), ack_train_threshold(d));
            let want = (Dur::from_micros(delay_us), Dur::from_micros(train_us));
            assert_eq!(got, want, "delay_min {min_ms} ms");
        }
    }

    #[test]
    fn hystart_tests_the_delay_on_the_ninth_sample_of_a_round() {
        // HYSTART_MIN_SAMPLES: the first 8 samples of a round only count; the 9th
        // compares the round's minimum. ACKs 10 ms apart form no train.
        let mut c = Cubic::default();
        assert_eq!(c.acked(&sample(0, 100, 20, 1)), None);
        for i in 1..=8 {
            assert_eq!(c.acked(&sample(10 * i, 130, 20, 30_000 + i)), None, "{i}");
        }
        assert_eq!(c.acked(&sample(90, 130, 20, 30_009)), Some(20));
    }

    #[test]
    fn hystart_stays_out_below_sixteen_segments() {
        let mut c = Cubic::default();
        c.acked(&sample(0, 100, 10, 1));
        for i in 1..=20 {
            assert_eq!(c.acked(&sample(10 * i, 200, 10, 1 + i)), None);
        }
    }

    #[test]
    fn a_timeout_forgets_wmax() {
        let mut c = Cubic::default();
        c.recalc_ssthresh(100);
        c.enter_loss(ms(5), 0);
        assert_eq!((c.last_max_cwnd, c.epoch_start), (0, None));
    }
}
