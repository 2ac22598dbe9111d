//! When a Linux timer really fires: the sender's retransmission, probe and reordering
//! timers are `timer_list` timers in jiffies, on the kernel's timer wheel
//! (kernel/time/timer.c), not exact instants.
//!
//! * `inet_csk_reset_xmit_timer(sk, what, when, ...)` arms at `jiffies + when`, with
//!   `when` in whole jiffies (`usecs_to_jiffies` rounds up).
//! * `calc_wheel_index` puts the timer on the level whose range holds
//!   `expires - clk`: level n holds deltas below `63 << 3n` jiffies, and its buckets
//!   are `8^n` jiffies wide.
//! * `calc_index` rounds the expiry up to the next bucket boundary
//!   (`expires = (expires >> LVL_SHIFT(lvl)) + 1`, "a timer does not fire early"), so
//!   a timer fires up to one bucket late: at HZ = 250 a 0.6 s RTO (level 1, 32 ms
//!   buckets) up to 32 ms late, a 2.5 s backed-off one (level 2, 256 ms) up to 256 ms.
//!
//! The jiffies counter is taken as 0 at time 0 (a real host's phase is arbitrary).
//! `HZ` is the recorded kernel's `CONFIG_HZ` (250: 4 ms jiffies).

use spikelab_core::{Dur, Time};

/// `CONFIG_HZ` of the recorded kernel (6.18.44-fc-v445, /proc/config.gz).
pub const HZ: u64 = 250;
/// One jiffy.
pub const JIFFY: Dur = Dur::from_nanos(1_000_000_000 / HZ);

/// `jiffies` / `tcp_jiffies32` at `t`: whole jiffies of 1/`HZ` s since time 0, which
/// is jiffy 0 (the emulator aligns a run's time zero to a jiffy). The one conversion
/// of a time to jiffies: the timer wheel, CUBIC and BBR all count with it.
pub const fn jiffies(t: Time) -> u64 {
    t.0 / JIFFY.0
}

/// `msecs_to_jiffies` (include/linux/jiffies.h, `_msecs_to_jiffies` for HZ dividing
/// 1000): milliseconds in whole jiffies, rounded up.
pub const fn msecs_to_jiffies(ms: u64) -> u64 {
    (ms * HZ).div_ceil(1000)
}

/// `usecs_to_jiffies` (`_usecs_to_jiffies` for HZ dividing 10^6): microseconds in
/// whole jiffies, rounded up.
pub const fn usecs_to_jiffies(us: u64) -> u64 {
    (us * HZ).div_ceil(1_000_000)
}

/// `LVL_CLK_SHIFT`: each level's buckets are 8 times wider than the one below.
const LVL_CLK_SHIFT: u32 = 3;
/// `LVL_SIZE - 1`: buckets per level, less one.
const LVL_SIZE_LESS_ONE: u64 = 63;
/// `LVL_DEPTH` (HZ > 100): levels of the wheel.
const LVL_DEPTH: u32 = 9;

/// The wheel level of a timer `delta` jiffies ahead (`calc_wheel_index`).
fn level(delta: u64) -> u32 {
    (0..LVL_DEPTH)
        .find(|&n| delta < LVL_SIZE_LESS_ONE << (LVL_CLK_SHIFT * n))
        .unwrap_or(LVL_DEPTH - 1)
}

/// When a timer armed at `now` for `delay` fires: `delay` rounded up to whole
/// jiffies, then the expiry rounded up to the next boundary of its level's buckets.
pub fn fires_at(now: Time, delay: Dur) -> Time {
    let j = JIFFY.0;
    let clk = jiffies(now);
    let expires = clk + delay.0.div_ceil(j);
    let shift = LVL_CLK_SHIFT * level(expires - clk);
    let bucket = ((expires >> shift) + 1) << shift;
    Time(bucket * j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: Time) -> u64 {
        t.0 / 1_000_000
    }

    #[test]
    fn a_short_timer_fires_on_the_jiffy_after_its_expiry() {
        // 40 ms = 10 jiffies (level 0): the bucket after jiffy 10.
        assert_eq!(ms(fires_at(Time(0), Dur::from_millis(40))), 44);
    }

    #[test]
    fn a_delay_is_rounded_up_to_whole_jiffies() {
        assert_eq!(ms(fires_at(Time(0), Dur::from_millis(41))), 48);
    }

    #[test]
    fn an_rto_of_some_hundred_ms_lands_on_a_32_ms_boundary() {
        // 616 ms = 154 jiffies: level 1, 8-jiffy buckets.
        let t = fires_at(Time(0), Dur::from_millis(616));
        assert_eq!(ms(t), 640);
        assert_eq!(t.0 % (8 * JIFFY.0), 0);
    }

    #[test]
    fn a_backed_off_rto_of_seconds_may_fire_a_quarter_second_late() {
        // 2464 ms = 616 jiffies: level 2, 64-jiffy (256 ms) buckets.
        let now = Time(Dur::from_millis(6_900).0);
        let t = fires_at(now, Dur::from_millis(2_464));
        assert_eq!(t.0 % (64 * JIFFY.0), 0);
        assert!(t.0 >= now.0 + Dur::from_millis(2_464).0);
        assert!(t.0 < now.0 + Dur::from_millis(2_464 + 256).0 + JIFFY.0);
    }

    #[test]
    fn jiffies_are_4_ms_counted_from_time_0() {
        assert_eq!(jiffies(Time(0)), 0);
        assert_eq!(jiffies(Time(Dur::from_micros(3_999).0)), 0);
        assert_eq!(jiffies(Time(Dur::from_millis(4).0)), 1);
        assert_eq!(jiffies(Time(Dur::from_millis(1_000).0)), HZ);
    }

    #[test]
    fn msecs_and_usecs_to_jiffies_round_up() {
        assert_eq!(msecs_to_jiffies(200), 50);
        assert_eq!(msecs_to_jiffies(201), 51);
        assert_eq!(msecs_to_jiffies(5_000), 1_250);
        assert_eq!(usecs_to_jiffies(1), 1);
        assert_eq!(usecs_to_jiffies(4_000), 1);
        assert_eq!(usecs_to_jiffies(4_001), 2);
        assert_eq!(usecs_to_jiffies(0), 0);
    }

    #[test]
    fn a_timer_never_fires_early() {
        for d in [1, 7, 250, 999, 5_000, 60_000] {
            let now = Time(123_456_789);
            let delay = Dur::from_millis(d);
            assert!(fires_at(now, delay).0 >= now.0 + delay.0, "{d} ms");
        }
    }
}
