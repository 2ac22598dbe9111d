//! The range checks of RED's and Adaptive RED's parameters ([`Bounded`]).

use super::{AdaptiveRedConfig, RedConfig};
use crate::queue::queue_limit;
use spikelab_core::bounds::{
    bytes, fail, positive, real, Bounded, Check, FieldPath, MAX_PACKETS, MAX_PACKET_BYTES,
};

/// A RED threshold: an average queue length in packets.
fn threshold(p: &FieldPath, x: f64) -> Check {
    let packets = |x: f64| (0.0..=MAX_PACKETS as f64).contains(&x);
    real(p, x, packets, "between 0 and 1000000000 packets")
}

/// RED's thresholds with min < max (p_b divides by max_thresh - min_thresh, Floyd &
/// Jacobson 1993 section 4).
fn thresholds(p: &FieldPath, min: f64, max: f64) -> Check {
    threshold(&p.key("min_thresh"), min)?;
    threshold(&p.key("max_thresh"), max)?;
    if min >= max {
        return fail(
            &p.key("min_thresh"),
            format!("min_thresh {min} must be below max_thresh {max}"),
        );
    }
    Ok(())
}

/// The EWMA weight w_q of the average queue, in (0, 1].
fn q_weight(p: &FieldPath, w: f64) -> Check {
    real(p, w, |w| w > 0.0 && w <= 1.0, "in (0, 1]")
}

impl Bounded for RedConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let r = self;
        thresholds(p, r.min_thresh, r.max_thresh)?;
        q_weight(&p.key("q_weight"), r.q_weight)?;
        // max_p = 1 / linterm is a probability.
        real(
            &p.key("linterm"),
            r.linterm,
            |x| x >= 1.0,
            "at least 1 (max_p = 1/linterm)",
        )?;
        queue_limit(&p.key("limit"), r.limit, MAX_PACKETS, " packets")?;
        bytes(&p.key("mean_pktsize"), r.mean_pktsize, MAX_PACKET_BYTES)
    }
}

impl Bounded for AdaptiveRedConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let a = self;
        positive(&p.key("target_delay"), a.target_delay)?;
        positive(&p.key("interval"), a.interval)?;
        // Floyd, Gummadi & Shenker 2001, Fig. 2: max_p += alpha, max_p *= beta.
        real(
            &p.key("alpha"),
            a.alpha,
            |x| x > 0.0 && x <= 1.0,
            "in (0, 1]",
        )?;
        real(&p.key("beta"), a.beta, |x| x > 0.0 && x < 1.0, "in (0, 1)")?;
        real(
            &p.key("initial_max_p"),
            a.initial_max_p,
            |x| x > 0.0 && x <= 1.0,
            "in (0, 1]",
        )?;
        if let Some(min) = a.min_thresh {
            threshold(&p.key("min_thresh"), min)?;
        }
        if let Some(max) = a.max_thresh {
            threshold(&p.key("max_thresh"), max)?;
        }
        if let (Some(min), Some(max)) = (a.min_thresh, a.max_thresh) {
            thresholds(p, min, max)?;
        }
        if let Some(w) = a.q_weight {
            q_weight(&p.key("q_weight"), w)?;
        }
        queue_limit(&p.key("limit"), a.limit, MAX_PACKETS, " packets")?;
        bytes(&p.key("mean_pktsize"), a.mean_pktsize, MAX_PACKET_BYTES)
    }
}
