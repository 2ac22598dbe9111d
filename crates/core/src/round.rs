//! Rounding a float to the nearest whole number without calling the runtime's `round`.
//!
//! `f64::round` (half away from zero) compiles to a call into a software routine unless
//! the target has SSE4.1's `roundsd`, which the release build does not assume: on
//! per-ACK paths that call costs more than the arithmetic around it. For the values
//! those paths produce, adding one half and truncating gives the same whole number
//! with one addition and one conversion.

/// `x.round() as u64`, for every `x` (NaN, infinities and negatives included).
///
/// On `[0.5, 2^52)` it is `(x + 0.5) as u64`. There `x`'s unit in the last place is at
/// most 1/2, so it divides 1/2 and `x + 0.5` is exact, unless the sum reaches the next
/// power of two `2^k` (k >= 0, an integer). Then `x >= 2^k - 1/2`: `x.round()` is `2^k`,
/// and the exact sum, in `[2^k, 2^k + 1/2)`, rounds on the coarser grid above `2^k`
/// (spacing at most 1) to at most `2^k + 1/2`, which truncates to `2^k` too. Elsewhere
/// it is `f64::round` itself: below 1/2 the sum may round up (`0.49999999999999994 +
/// 0.5` is 1.0), and from `2^52`, where `x` is whole, `x + 0.5` is a tie that rounds to
/// even.
#[inline]
pub fn round_u64(x: f64) -> u64 {
    const EXACT: std::ops::Range<f64> = 0.5..4_503_599_627_370_496.0; // 2^52
    if EXACT.contains(&x) {
        (x + 0.5) as u64
    } else {
        x.round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same(x: f64) {
        assert_eq!(round_u64(x), x.round() as u64, "{x:e} ({:#x})", x.to_bits());
    }

    /// Each value, its neighbours a few units in the last place away, and the same
    /// for halves and powers of two, where adding one half may round.
    #[test]
    fn equals_f64_round_at_the_edges() {
        let mut edges = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, -0.5];
        edges.extend([0.49999999999999994, 0.5, 1.5, 2.5, 1e300, u64::MAX as f64]);
        for k in 0..64 {
            let p = (1u64 << k) as f64;
            edges.extend([p, p - 0.5, p + 0.5, p - 1.5, p + 1.5]);
        }
        let wholes: [u64; 9] = [1, 2, 3, 1447, 1448, 1449, 1 << 40, (1 << 52) - 1, 1 << 52];
        for n in wholes.map(|n| n as f64) {
            edges.extend([n - 0.5, n + 0.5, n]);
        }
        for x in edges {
            let mut y = x;
            for _ in 0..8 {
                y = y.next_down();
            }
            for _ in 0..17 {
                same(y);
                y = y.next_up();
            }
        }
    }

    proptest! {
        #[test]
        fn equals_f64_round_on_any_bits(bits in any::<u64>()) {
            same(f64::from_bits(bits));
        }

        #[test]
        fn equals_f64_round_on_cwnd_sized_values(x in 0.0f64..1e12) {
            same(x);
        }
    }
}
