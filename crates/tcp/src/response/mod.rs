//! Responses to a detected spurious timeout ([Gurtov & Ludwig 2003] III; RFC 4015):
//! restoring the congestion-control state ([`restore`]), adapting the retransmission
//! timer ([`rto_adapt`]), and the options for what the sender does next.

pub mod restore;
pub mod rto_adapt;

pub use restore::{Restore, Snapshot};
pub use rto_adapt::{RtoAdapt, RtoAdaptState};

use crate::spurious::{Detector, DetectorKind, Requires, SpuriousDetector};
use serde::{Deserialize, Serialize};

/// How the sender responds once its driving detector calls a timeout spurious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResponseConfig {
    /// Restoring ssthresh and cwnd. Default: `eifel-original` ([Gurtov & Ludwig 2002] 3).
    pub restore: Restore,
    /// Adapting the timer ([Gurtov & Ludwig 2003] III.C). Default: `none`.
    pub rto_adapt: RtoAdapt,
    /// Resume with the next unsent segment (snd_nxt = snd_max) instead of continuing
    /// go-back-N ([Gurtov & Ludwig 2003] III, Fig. 2). Default: true.
    pub resume_with_new_data: bool,
    /// Allow fast retransmit below the recovery point after a detected spurious
    /// timeout ([Gurtov & Ludwig 2003] III.A, Fig. 3b). Default: false (as the original
    /// Eifel, Fig. 3a).
    pub fast_retransmit_below_recovery_point: bool,
    /// A Reno-SACK sender behaves as NewReno-SACK (one retransmission per partial ACK)
    /// after a detected spurious timeout until the recovery point is acknowledged
    /// ([Gurtov & Ludwig 2003] III.A, the "extra precaution"). Default: false.
    pub newreno_sack_until_recovery_point: bool,
}

impl Default for ResponseConfig {
    fn default() -> Self {
        ResponseConfig {
            restore: Restore::EifelOriginal,
            rto_adapt: RtoAdapt::None,
            resume_with_new_data: true,
            fast_retransmit_below_recovery_point: false,
            newreno_sack_until_recovery_point: false,
        }
    }
}

/// Which spurious-timeout detectors a flow runs, and which one acts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpuriousConfig {
    /// The detector whose verdict triggers the response. Default: none (a conventional
    /// sender).
    pub driver: Option<DetectorKind>,
    /// Detectors that only record their verdicts, side by side. Default: none.
    pub observe: Vec<DetectorKind>,
    /// The response to the driver's "spurious" verdict.
    pub response: ResponseConfig,
}

impl SpuriousConfig {
    /// Checks the combination; the error says why it cannot work.
    pub fn validate(&self, timestamps: bool, sack: bool) -> Result<(), String> {
        if let Some(k) = self.observe.iter().find(|k| k.must_drive()) {
            return Err(format!(
                "`{}` decides by changing what the sender transmits after a timeout, so it can only be the `driver`, not observe",
                k.label()
            ));
        }
        let all = self.driver.iter().chain(&self.observe);
        for k in all {
            let Some(det) = Detector::new(*k) else {
                let name = k.label();
                return Err(format!(
                    "`{name}` runs in the network: place a `{name}` middlebox on a link instead"
                ));
            };
            match det.requires() {
                Requires::Timestamps if !timestamps => {
                    return Err(format!(
                        "`{}` needs the timestamps option (`timestamps = true`)",
                        k.label()
                    ))
                }
                Requires::Sack if !sack => {
                    return Err(format!(
                        "`{}` needs SACK: use a SACK recovery (reno-sack, new-reno-sack, fack)",
                        k.label()
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }
}
