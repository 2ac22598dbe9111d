//! Parameters of the STD proxy, every one with the paper's value as default.

use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{
    gain, int, positive, probability, real, Bounded, Check, FieldPath, MAX_THRESHOLD,
};
use spikelab_core::Dur;

/// Parameters of the STD proxy ([Kim & Cho 2003] section III). Every field may be omitted
/// from a scenario file; the default is the paper's value, given on each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StdProxyConfig {
    /// Duplicate ACKs that announce a fast retransmission (III.A) and that trigger a
    /// local retransmission (III.B). Default 3 (III.B, footnote 3: "Default value is
    /// 3").
    pub dup_ack_thresh: u32,
    /// G in T = G * average ACK inter-arrival time. Default 2 (III.C, footnote 4: "In
    /// performance evaluation, G is set to 2").
    pub gain: f64,
    /// S of the N-filter's follower bound x_av_old / S. Default 20 (III.C: "S is
    /// selected as 20").
    pub s: f64,
    /// alpha_N of the N-filter's smoother. Default 0.9 (III.C); beta_N = 1 - alpha_N.
    pub alpha_n: f64,
    /// alpha_S of the S-filter's smoother. Default 0.9 (III.C); beta_S = 1 - alpha_S.
    pub alpha_s: f64,
    /// X_th = `x_th_factor` * wRTT, the N-filter's limiter threshold. Default 0.5
    /// (III.C: "X_th ... is assigned as 0.5wRTT").
    pub x_th_factor: f64,
    /// Gain of the moving average that estimates wRTT from the proxy's own samples
    /// (PEP -> mobile -> PEP). The paper only says "average round trip time"; default
    /// 1/8, the gain of TCP's smoothed RTT (RFC 6298), the average the paper points to
    /// in footnote 6.
    pub wrtt_gain: f64,
    /// A fixed wRTT instead of the measured one (e.g. when the mobile's RTT is known).
    /// Default: none, measure it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrtt: Option<Dur>,
    /// Whether the proxy removes the duplicate ACKs caused by the timeout's
    /// retransmissions after the full ACK (III.D). Default true.
    pub remove_dup_acks: bool,
}

impl Default for StdProxyConfig {
    fn default() -> Self {
        StdProxyConfig {
            dup_ack_thresh: 3,
            gain: 2.0,
            s: 20.0,
            alpha_n: 0.9,
            alpha_s: 0.9,
            x_th_factor: 0.5,
            wrtt_gain: 0.125,
            wrtt: None,
            remove_dup_acks: true,
        }
    }
}

impl Bounded for StdProxyConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let c = self;
        int(
            &p.key("dup_ack_thresh"),
            u64::from(c.dup_ack_thresh),
            1,
            MAX_THRESHOLD,
            "",
        )?;
        gain(&p.key("gain"), c.gain)?;
        gain(&p.key("s"), c.s)?;
        // [Kim & Cho 2003] III.C: beta = 1 - alpha, both weights of a moving average.
        probability(&p.key("alpha_n"), c.alpha_n)?;
        probability(&p.key("alpha_s"), c.alpha_s)?;
        gain(&p.key("x_th_factor"), c.x_th_factor)?;
        real(
            &p.key("wrtt_gain"),
            c.wrtt_gain,
            |x| x > 0.0 && x <= 1.0,
            "in (0, 1]",
        )?;
        if let Some(w) = c.wrtt {
            positive(&p.key("wrtt"), w)?;
        }
        Ok(())
    }
}
