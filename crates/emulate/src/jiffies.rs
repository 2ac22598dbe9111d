//! The run's time zero on a boundary of the kernel's timer wheel, where the model puts
//! its own.
//!
//! The kernel's TCP timers (retransmission, loss probe, RACK's reordering timer, the
//! delayed ACK) are `timer_list` timers in jiffies: each fires on a jiffy, and a long
//! one on a bucket boundary of its wheel level (`calc_index` rounds the expiry up to a
//! multiple of `8^level` jiffies). The model counts jiffies from 0 at time 0
//! (`spikelab_tcp::linux_timer_wheel`); a real host's phase is arbitrary, so the
//! kernel's timers fired 0 to 4 ms (a 2 s RTO: up to 256 ms) away from the model's,
//! differently in each run. The emulator starts its clock at a jiffy whose count is a
//! multiple of [`ALIGN_JIFFIES`], so that the buckets of every level an RTO up to
//! `tcp_rto_max` uses fall where the model's do.
//!
//! Since Linux 5.x the tick is aligned to a multiple of `TICK_NSEC` on
//! `CLOCK_MONOTONIC` (kernel/time/tick-common.c `tick_init_jiffy_update`,
//! kernel/time/tick-sched.c), and `jiffies` counts those ticks from a fixed offset;
//! `/proc/timer_list` gives the clock ("now at N nsecs") and the count ("jiffies: J")
//! from which the offset is read.

use spikelab_tcp::linux_timer_wheel::JIFFY;
use std::time::{Duration, Instant};

/// `8^3` jiffies: the bucket of wheel level 3, which holds timers up to 129 s ahead at
/// HZ 250 (`tcp_rto_max` is 120 s).
pub const ALIGN_JIFFIES: u64 = 512;

/// The clock and the jiffies count of one reading of `/proc/timer_list`.
pub fn parse_timer_list(text: &str) -> Option<(u64, u64)> {
    let now = text
        .lines()
        .find_map(|l| l.strip_prefix("now at ")?.strip_suffix(" nsecs"))?
        .parse()
        .ok()?;
    let jiffies = text
        .lines()
        .find_map(|l| l.strip_prefix("jiffies: "))?
        .trim()
        .parse()
        .ok()?;
    Some((now, jiffies))
}

/// `jiffies - now / JIFFY` of a reading (wrapping, as the kernel's counter does).
fn offset(now_ns: u64, jiffies: u64) -> u64 {
    jiffies.wrapping_sub(now_ns / JIFFY.0)
}

/// The first `CLOCK_MONOTONIC` instant at or after `earliest_ns` that is a tick whose
/// jiffies count (`tick / JIFFY + offset`) is a multiple of [`ALIGN_JIFFIES`].
pub fn aligned_tick(earliest_ns: u64, offset: u64) -> u64 {
    let first = earliest_ns.div_ceil(JIFFY.0);
    let count = first.wrapping_add(offset);
    let wait = (ALIGN_JIFFIES - count % ALIGN_JIFFIES) % ALIGN_JIFFIES;
    (first + wait) * JIFFY.0
}

/// The offset read twice alike from `/proc/timer_list` (a tick between the clock and
/// the count moves it by one), or `None` when the file cannot be read.
fn read_offset() -> Option<u64> {
    let read = || {
        let text = std::fs::read_to_string("/proc/timer_list").ok()?;
        let (now, jiffies) = parse_timer_list(&text)?;
        Some(offset(now, jiffies))
    };
    (0..5).find_map(|_| {
        let a = read()?;
        (read()? == a).then_some(a)
    })
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The run's time zero: the first aligned tick at least `lead` from now (as an
/// `Instant`, which is `CLOCK_MONOTONIC` on Linux), or now plus `lead` when the
/// kernel's count cannot be read (then the phase is the host's).
pub fn origin(lead: Duration) -> (Instant, bool) {
    let (at, now) = (Instant::now(), monotonic_ns());
    let earliest = now + lead.as_nanos() as u64;
    match read_offset() {
        Some(off) => (
            at + Duration::from_nanos(aligned_tick(earliest, off) - now),
            true,
        ),
        None => (at + lead, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "Timer List Version: v0.10\nHRTIMER_MAX_CLOCK_BASES: 8\n\
        now at 12895016218699 nsecs\n\ncpu: 0\n  .last_jiffies   : 4298115990\n\
        jiffies: 4298115990\n";

    #[test]
    fn the_clock_and_the_count_are_read_from_timer_list() {
        assert_eq!(
            parse_timer_list(TEXT),
            Some((12_895_016_218_699, 4_298_115_990))
        );
        assert_eq!(parse_timer_list("now at x nsecs\njiffies: 1\n"), None);
        assert_eq!(parse_timer_list("jiffies: 1\n"), None);
    }

    #[test]
    fn time_zero_is_a_tick_whose_count_is_a_multiple_of_the_alignment() {
        let (now, jiffies) = parse_timer_list(TEXT).unwrap();
        let off = offset(now, jiffies);
        let t = aligned_tick(now + 10_000_000, off);
        assert_eq!(t % JIFFY.0, 0, "a tick");
        assert_eq!((t / JIFFY.0).wrapping_add(off) % ALIGN_JIFFIES, 0);
        assert!(t >= now + 10_000_000);
        assert!(t < now + 10_000_000 + ALIGN_JIFFIES * JIFFY.0);
    }

    #[test]
    fn an_aligned_instant_is_its_own_origin() {
        let off = 7;
        let t = (ALIGN_JIFFIES * 100 - off) * JIFFY.0;
        assert_eq!(aligned_tick(t, off), t);
        assert_eq!(aligned_tick(t + 1, off), t + ALIGN_JIFFIES * JIFFY.0);
    }
}
