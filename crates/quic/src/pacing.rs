//! quinn's pacer (`pacing = "quinn"`): quinn-proto 0.11.19 connection/pacing.rs, read
//! from its source, in integer simulated time. A token bucket whose capacity is the
//! window's share of a 2 ms burst interval (`optimal_capacity`: window x 2 ms /
//! smoothed RTT, clamped to 10..=256 datagrams), refilled at 5/4 of a window per
//! smoothed RTT (RFC 9002 7.7's N = 1.25) and capped at the capacity; every packet sent
//! in flight takes its size (`on_transmit`). `delay` answers when a datagram of
//! `bytes` may go: at once if the bucket holds it, else when the bucket would have
//! refilled to max(bytes, capacity), scaled by 4/5 ("the time at which the pacing
//! window becomes empty"). quinn refills in `f64` (`window * 1.25 * elapsed_rtts`); the
//! model in integers, which can differ from it by a byte per refill.

use spikelab_core::{Dur, Time};

/// `BURST_INTERVAL_NANOS`: 2 ms.
const BURST_INTERVAL: Dur = Dur::from_millis(2);
/// `MIN_BURST_SIZE`, `MAX_BURST_SIZE`: datagrams.
const MIN_BURST: u64 = 10;
const MAX_BURST: u64 = 256;

/// The token bucket (`Pacer`).
#[derive(Clone, Debug)]
pub struct Pacer {
    capacity: u64,
    last_window: u64,
    tokens: u64,
    prev: Time,
}

/// `optimal_capacity`: window x 2 ms / smoothed RTT, 10 to 256 datagrams of `mtu`.
fn capacity(srtt: Dur, window: u64, mtu: u64) -> u64 {
    let rtt = u128::from(srtt.0.max(1));
    let c = (u128::from(window) * u128::from(BURST_INTERVAL.0) / rtt) as u64;
    c.clamp(MIN_BURST * mtu, MAX_BURST * mtu)
}

impl Pacer {
    /// `Pacer::new`: a full bucket.
    pub fn new(srtt: Dur, window: u64, mtu: u64, now: Time) -> Pacer {
        let capacity = capacity(srtt, window, mtu);
        Pacer {
            capacity,
            last_window: window,
            tokens: capacity,
            prev: now,
        }
    }

    /// A packet of `bytes` went out in flight.
    pub fn on_transmit(&mut self, bytes: u64) {
        self.tokens = self.tokens.saturating_sub(bytes);
    }

    /// `Pacer::delay`: `None` if `bytes` may go now, else when to ask again.
    pub fn delay(
        &mut self,
        srtt: Dur,
        bytes: u64,
        mtu: u64,
        window: u64,
        now: Time,
    ) -> Option<Time> {
        if window != self.last_window {
            self.capacity = capacity(srtt, window, mtu);
            self.tokens = self.tokens.min(self.capacity);
            self.last_window = window;
        }
        if self.tokens >= bytes || window > u64::from(u32::MAX) || srtt == Dur::ZERO {
            return None;
        }
        let elapsed = now.saturating_since(self.prev);
        // window x 1.25 x elapsed / srtt.
        let new = u128::from(window) * 5 * u128::from(elapsed.0) / (4 * u128::from(srtt.0));
        let new = u64::try_from(new).unwrap_or(u64::MAX);
        self.tokens = self.tokens.saturating_add(new).min(self.capacity);
        self.prev = now;
        if self.tokens >= bytes {
            return None;
        }
        let missing = bytes.max(self.capacity) - self.tokens;
        let unscaled = u128::from(srtt.0) * u128::from(missing) / u128::from(window);
        let unscaled = Dur(u64::try_from(unscaled).unwrap_or(u64::MAX / 2));
        Some(self.prev + Dur(unscaled.0 / 5 * 4))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn the_capacity_is_a_2ms_share_of_the_window_within_10_and_256_datagrams() {
        let ms = Dur::from_millis;
        assert_eq!(
            capacity(ms(300), 12_000, 1200),
            12_000,
            "10 datagrams at least"
        );
        assert_eq!(capacity(ms(1), 1_000_000, 1200), 256 * 1200);
        assert_eq!(capacity(ms(10), 1_000_000, 1200), 200_000);
    }

    #[test]
    fn an_empty_bucket_waits_four_fifths_of_the_refill_time() {
        let srtt = Dur::from_millis(300);
        let mut p = Pacer::new(srtt, 12_000, 1200, t(0));
        for _ in 0..10 {
            assert_eq!(p.delay(srtt, 1200, 1200, 12_000, t(0)), None);
            p.on_transmit(1200);
        }
        // Empty: refilling 12000 bytes at 12000 / 300 ms takes 300 ms; 4/5 of it.
        assert_eq!(p.delay(srtt, 1200, 1200, 12_000, t(0)), Some(t(240)));
        // After 24 ms, 12000 x 1.25 x 24 / 300 = 1200 tokens: one datagram may go.
        assert_eq!(p.delay(srtt, 1200, 1200, 12_000, t(24)), None);
    }

    #[test]
    fn a_smaller_window_clamps_the_tokens() {
        let srtt = Dur::from_millis(10);
        let mut p = Pacer::new(srtt, 1_000_000, 1200, t(0));
        assert_eq!(p.tokens, 200_000);
        p.delay(srtt, 1200, 1200, 12_000, t(0));
        assert_eq!(p.tokens, 12_000);
    }
}
