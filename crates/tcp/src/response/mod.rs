//! Responses to a detected spurious timeout ([Gurtov & Ludwig 2003] III; RFC 4015):
//! restoring the congestion-control state ([`restore`]), adapting the retransmission
//! timer ([`rto_adapt`]), and the options for what the sender does next.

pub mod restore;
pub mod rto_adapt;

pub use restore::{Restore, Snapshot};
pub use rto_adapt::{RtoAdapt, RtoAdaptState};

use crate::exports::{Exports, Kernel, Ns2Export};
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

/// One option of a [`ResponseConfig`] with its value: what the exports ask about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseOption {
    Restore(Restore),
    RtoAdapt(RtoAdapt),
    ResumeWithNewData(bool),
    FastRetransmitBelowRecoveryPoint(bool),
    NewrenoSackUntilRecoveryPoint(bool),
}

impl ResponseConfig {
    /// Its options, in declaration order.
    pub fn options(&self) -> [ResponseOption; 5] {
        [
            ResponseOption::Restore(self.restore),
            ResponseOption::RtoAdapt(self.rto_adapt),
            ResponseOption::ResumeWithNewData(self.resume_with_new_data),
            ResponseOption::FastRetransmitBelowRecoveryPoint(
                self.fast_retransmit_below_recovery_point,
            ),
            ResponseOption::NewrenoSackUntilRecoveryPoint(self.newreno_sack_until_recovery_point),
        ]
    }
}

impl ResponseOption {
    /// Every value of every option.
    pub fn all() -> Vec<ResponseOption> {
        let restore = Restore::ALL.iter().map(|&r| ResponseOption::Restore(r));
        let adapt = RtoAdapt::ALL.iter().map(|&a| ResponseOption::RtoAdapt(a));
        let flags = [false, true].into_iter().flat_map(|b| {
            [
                ResponseOption::ResumeWithNewData(b),
                ResponseOption::FastRetransmitBelowRecoveryPoint(b),
                ResponseOption::NewrenoSackUntilRecoveryPoint(b),
            ]
        });
        restore.chain(adapt).chain(flags).collect()
    }

    /// The option's key under `spurious.response` and its value, as a scenario writes
    /// them.
    pub fn key_value(&self) -> (&'static str, String) {
        match *self {
            ResponseOption::Restore(r) => ("restore", kebab(&format!("{r:?}"))),
            ResponseOption::RtoAdapt(a) => ("rto_adapt", kebab(&format!("{a:?}"))),
            ResponseOption::ResumeWithNewData(b) => ("resume_with_new_data", b.to_string()),
            ResponseOption::FastRetransmitBelowRecoveryPoint(b) => {
                ("fast_retransmit_below_recovery_point", b.to_string())
            }
            ResponseOption::NewrenoSackUntilRecoveryPoint(b) => {
                ("newreno_sack_until_recovery_point", b.to_string())
            }
        }
    }
}

/// A variant's name as serde's `rename_all = "kebab-case"` spells it (`EifelOriginal`
/// -> `eifel-original`): a dash before each capital but the first, all lower case.
fn kebab(variant: &str) -> String {
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// ns-2.35's response is `TcpAgent::spurious_timeout()` (tcp/tcp.cc), run by its F-RTO
/// agents only, after F-RTO's step 2 moved `t_seqno_` to new data: it sets cwnd_ and
/// ssthresh_ by `spurious_response_` and `recover_ = highest_ack_ - 1` ("If timeout
/// was spurious, bugfix is not needed"), and nothing else.
impl Exports for ResponseOption {
    fn ns2(&self) -> Ns2Export {
        use ResponseOption::*;
        match *self {
            Restore(r) => r.ns2(),
            RtoAdapt(a) => a.ns2(),
            ResumeWithNewData(true) => Ns2Export::Native(
                "F-RTO's step 2 moved t_seqno_ to new data and spurious_timeout() leaves it there",
            ),
            ResumeWithNewData(false) => Ns2Export::Refused {
                field: Some("resume_with_new_data"),
                why: "ns-2.35 does not go back N after a timeout its F-RTO found spurious",
            },
            FastRetransmitBelowRecoveryPoint(true) => {
                Ns2Export::Native("spurious_timeout() sets recover_ = highest_ack_ - 1")
            }
            FastRetransmitBelowRecoveryPoint(false) => Ns2Export::Native(
                "ns-2.35's spurious_timeout() clears recover_ whatever this says, as spikelab's \
                 ns-2 agents do (ns2.frto_spurious_response_1)",
            ),
            NewrenoSackUntilRecoveryPoint(false) => {
                Ns2Export::Native("ns-2.35's agents take no such precaution")
            }
            NewrenoSackUntilRecoveryPoint(true) => Ns2Export::Refused {
                field: Some("newreno_sack_until_recovery_point"),
                why: "ns-2.35's Sack1 agent does not behave as NewReno after a spurious timeout",
            },
        }
    }
    fn kernel(&self) -> Kernel {
        match *self {
            ResponseOption::Restore(r) => r.kernel(),
            ResponseOption::RtoAdapt(a) => a.kernel(),
            _ => Kernel::Nothing(
                "the kernel's undo decides this itself (tcp_try_undo_loss, tcp_undo_cwnd_reduction); \
                 no sysctl sets it",
            ),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Written {
        restore: Restore,
        rto_adapt: RtoAdapt,
    }

    #[test]
    fn each_option_is_named_as_a_scenario_writes_it() {
        for opt in ResponseOption::all() {
            let (key, value) = opt.key_value();
            let r = ResponseConfig::default();
            let (restore, rto_adapt) = match opt {
                ResponseOption::Restore(x) => (x, r.rto_adapt),
                ResponseOption::RtoAdapt(x) => (r.restore, x),
                _ => continue,
            };
            let text = toml::to_string(&Written { restore, rto_adapt }).unwrap();
            assert!(text.contains(&format!("{key} = \"{value}\"")), "{text}");
        }
    }

    #[test]
    fn the_default_response_is_what_ns2_runs() {
        for opt in ResponseConfig::default().options() {
            assert!(
                matches!(opt.ns2(), Ns2Export::Native(_)),
                "{opt:?}: the differential suite exports the default"
            );
        }
    }
}
