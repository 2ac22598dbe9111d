//! The RTO estimator of [Klein et al. 2004] section II, its equations (1)-(3), applied
//! to a vector of RTT samples, and the paper's notion of a timeout in a trace (the
//! delay-injection reproduction's trace mode, Figs. 1-3, reads it).
//!
//! ```text
//! S[k]   = (1 - g) S[k-1] + g RTT[k]              (1)
//! V[k]   = (1 - h) V[k-1] + h |RTT[k] - S[k]|     (2)
//! RTO[k] = S[k] + m V[k]                          (3)
//! ```
//!
//! with g = 1/8, h = 1/4, m = 4 ("typical value", "typically taken as", "the standard
//! choice"). The extracted text of (2) reads "h RTT\[k\] - S\[k\]": the absolute-value
//! bars were lost; the paper calls V "the mean deviation", which is the mean of
//! |RTT - S|.
//!
//! # Why it is not a sender's timer (not in `estimators!`)
//!
//! The paper defines it over ping samples, offline: real-valued milliseconds, every
//! sample taken, no back-off, no bounds, no clock granularity. A sender's timer
//! ([`super::RtoEstimator`]) needs all four, which the paper does not state, and runs
//! in integer simulated time, which would move the trace mode's numbers. So it is a pure
//! function over a sample vector, kept here beside the estimators it is compared with,
//! and a scenario's `rto.kind` cannot name it.
//!
//! # How this differs from RFC 6298 ([`super::Rfc6298`])
//!
//! * (2) uses S\[k\], the mean *already updated* by (1) with RTT\[k\]. RFC 6298 (2.3)
//!   updates RTTVAR first, with the *previous* SRTT: RTTVAR <- (1 - beta) RTTVAR +
//!   beta |SRTT - R'|, then SRTT. The paper's deviation is therefore slightly smaller
//!   after a jump (the updated mean has already moved towards the sample).
//! * No clock granularity (RFC: SRTT + max(G, K RTTVAR)), no 1 s minimum (2.4), no
//!   maximum (2.5), no back-off: these are ping samples, and the paper's Fig. 1 shows
//!   RTOs of a few hundred ms after its scaling, which a 1 s floor would forbid.
//! * Every sample updates S and V, spikes included (a ping trace has no Karn ambiguity).
//!
//! # Choices the paper leaves open
//!
//! * **Initialisation.** The paper gives no S\[0\], V\[0\]; the first sample sets S = RTT,
//!   V = RTT / 2, as 4.4BSD's `tcp_xmit_timer` (described by its reference \[11\]) and
//!   RFC 6298 (2.2) do.
//! * **Which RTO a sample is compared with.** "A timeout is declared if the RTT
//!   measurement exceeds the RTO threshold for that packet": the threshold in force
//!   when the packet was sent, RTO\[k-1\], computed before RTT\[k\] is known (RTO\[k\]
//!   already contains the spike and would hide it). The first sample has no threshold
//!   and cannot time out. "Exceeds" is strict: RTT\[k\] > RTO\[k-1\].

/// The gains of equations (1)-(3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KleinRtoParams {
    /// g of (1). Default 1/8.
    pub g: f64,
    /// h of (2). Default 1/4.
    pub h: f64,
    /// m of (3). Default 4.
    pub m: f64,
}

impl Default for KleinRtoParams {
    fn default() -> Self {
        KleinRtoParams {
            g: 0.125,
            h: 0.25,
            m: 4.0,
        }
    }
}

/// One sample k and the estimator after it (all in ms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KleinRtoRow {
    /// RTT\[k\].
    pub rtt: f64,
    /// S\[k\], equation (1).
    pub srtt: f64,
    /// V\[k\], equation (2).
    pub var: f64,
    /// RTO\[k\], equation (3).
    pub rto: f64,
    /// RTO\[k-1\], the threshold RTT\[k\] is compared with; `None` for the first sample.
    pub threshold: Option<f64>,
    /// RTT\[k\] > RTO\[k-1\]: a (spurious) timeout.
    pub timeout: bool,
}

/// Equations (1)-(3) over `rtts` (ms), one row per sample (see the module docs).
pub fn klein_rto(rtts: &[f64], p: &KleinRtoParams) -> Vec<KleinRtoRow> {
    let mut rows: Vec<KleinRtoRow> = Vec::with_capacity(rtts.len());
    for &rtt in rtts {
        let prev = rows.last();
        let (srtt, var) = match prev {
            None => (rtt, rtt / 2.0),
            Some(r) => {
                let s = (1.0 - p.g) * r.srtt + p.g * rtt; // (1)
                let v = (1.0 - p.h) * r.var + p.h * (rtt - s).abs(); // (2), with S[k]
                (s, v)
            }
        };
        let threshold = prev.map(|r| r.rto);
        rows.push(KleinRtoRow {
            rtt,
            srtt,
            var,
            rto: srtt + p.m * var, // (3)
            threshold,
            timeout: threshold.is_some_and(|t| rtt > t),
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// RTT = 100, 120, 80, 300, 100 ms worked by hand:
    ///
    /// | k | RTT | S           | V              | RTO           | threshold | timeout |
    /// |---|-----|-------------|----------------|---------------|-----------|---------|
    /// | 1 | 100 | 100         | 50             | 300           | -         | no      |
    /// | 2 | 120 | 102.5       | 41.875         | 270           | 300       | no      |
    /// | 3 |  80 | 99.6875     | 36.328125      | 245           | 270       | no      |
    /// | 4 | 300 | 124.7265625 | 71.064453125   | 408.984375    | 245       | yes     |
    /// | 5 | 100 | 121.6357421875 | 58.707275390625 | 356.46484375 | 408.984375 | no |
    ///
    /// e.g. k = 2: S = 7/8 * 100 + 1/8 * 120 = 102.5; V = 3/4 * 50 + 1/4 * |120 - 102.5|
    /// = 37.5 + 4.375 = 41.875; RTO = 102.5 + 4 * 41.875 = 270.
    #[test]
    fn equations_match_a_hand_worked_five_sample_table() {
        let rows = klein_rto(
            &[100.0, 120.0, 80.0, 300.0, 100.0],
            &KleinRtoParams::default(),
        );
        let want = [
            (100.0, 50.0, 300.0, None, false),
            (102.5, 41.875, 270.0, Some(300.0), false),
            (99.6875, 36.328125, 245.0, Some(270.0), false),
            (124.7265625, 71.064453125, 408.984375, Some(245.0), true),
            (
                121.6357421875,
                58.707275390625,
                356.46484375,
                Some(408.984375),
                false,
            ),
        ];
        for (r, w) in rows.iter().zip(want) {
            assert!(
                close(r.srtt, w.0) && close(r.var, w.1) && close(r.rto, w.2),
                "{r:?}"
            );
            assert_eq!((r.threshold, r.timeout), (w.3, w.4), "{r:?}");
        }
    }

    #[test]
    fn deviation_uses_the_updated_mean_unlike_rfc_6298() {
        let rows = klein_rto(&[100.0, 120.0], &KleinRtoParams::default());
        // RFC 6298 (2.3) would give 3/4 * 50 + 1/4 * |100 - 120| = 42.5.
        assert!(close(rows[1].var, 41.875));
    }

    #[test]
    fn a_sample_equal_to_the_threshold_is_not_a_timeout() {
        // RTO after 100 ms is 300 ms.
        let rows = klein_rto(&[100.0, 300.0, 300.0001], &KleinRtoParams::default());
        assert!(!rows[1].timeout);
        assert!(klein_rto(&[100.0, 300.0001], &KleinRtoParams::default())[1].timeout);
        assert!(klein_rto(&[], &KleinRtoParams::default()).is_empty());
    }
}
