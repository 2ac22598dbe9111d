//! Forward RTO-Recovery (RFC 5682): basic F-RTO (section 2.1) and its SACK-enhanced
//! version (section 3).
//!
//! After the timeout retransmission, F-RTO sends *new* data on the first ACK instead of
//! going back N, and looks at the second ACK: if it acknowledges data that was not
//! retransmitted, the originals were only delayed. It therefore has to drive the
//! sender's transmissions; `Step::SendNew` asks for the two new segments of step 2b.
//!
//! Repeated timeouts: RFC 5682 step 1 does not re-enter step 2 when the sender is
//! already in RTO recovery (conventional go-back-N after F-RTO gave up) and recover >=
//! SND.UNA. A backed-off timeout while F-RTO itself is still waiting in step 2 or 3 is
//! not "RTO recovery" in that sense; as Linux does (tcp_enter_loss keeps F-RTO on
//! repeated timeouts), F-RTO restarts at step 2 with the original recover.

use super::{
    AckView, Ns2FrtoAgent, Requires, SpuriousDetector, Step, TimeoutView, UndoKind, Verdict,
};
use crate::exports::{Exports, Kernel, KernelRuns, Ns2Export};

/// Where F-RTO is in its steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Stage {
    #[default]
    Idle,
    /// Step 2: waiting for the first ACK after the timeout retransmission.
    FirstAck {
        recover: u64,
        retransmitted_end: u64,
    },
    /// Step 3: new segments were sent; waiting for the second ACK.
    SecondAck { recover: u64 },
    /// F-RTO declared the timeout genuine and the sender is in conventional RTO
    /// recovery until `recover` is acknowledged.
    Conventional { recover: u64 },
}

/// F-RTO's state. `sack` selects the SACK-enhanced algorithm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frto {
    sack: bool,
    stage: Stage,
}

impl Frto {
    pub fn new(sack: bool) -> Frto {
        Frto {
            sack,
            stage: Stage::Idle,
        }
    }

    fn genuine(&mut self, recover: u64) -> Step {
        self.stage = Stage::Conventional { recover };
        Step::Decided(Verdict::Genuine)
    }

    /// Step 2 of either variant.
    fn first_ack(&mut self, a: &AckView, recover: u64, retransmitted_end: u64) -> Step {
        // RFC 5682 2a / 3 step 2a: the ACK covers recover: nothing is left to probe with.
        if a.ack >= recover {
            return self.genuine(recover);
        }
        if a.duplicate {
            // Section 3 step 2b: with SACK a duplicate ACK is ignored ("do nothing");
            // section 2.1 step 2a: without SACK it means a loss.
            return if self.sack {
                Step::Pending
            } else {
                self.genuine(recover)
            };
        }
        // 2a: the ACK must acknowledge the whole retransmission.
        if a.ack < retransmitted_end {
            return self.genuine(recover);
        }
        // 2b: send up to two new segments, or revert when there is nothing new to send.
        if !a.can_send_new {
            return self.genuine(recover);
        }
        self.stage = Stage::SecondAck { recover };
        Step::SendNew(2)
    }

    /// Step 3 of either variant.
    fn second_ack(&mut self, a: &AckView, recover: u64) -> Step {
        let spurious = if self.sack {
            // Section 3 step 3a (RFC 4138 appendix B): the ACK acknowledges, cumulatively
            // or in a SACK block, a segment below recover that was not retransmitted.
            acknowledges_an_original(a, recover)
        } else {
            // Section 2.1 step 3b: the ACK advances SND.UNA; 3a: a duplicate ACK.
            !a.duplicate && a.ack > a.snd_una
        };
        if spurious {
            self.stage = Stage::Idle;
            Step::Decided(Verdict::Spurious)
        } else {
            self.genuine(recover)
        }
    }
}

/// Does the ACK newly acknowledge a segment below `recover` that was not retransmitted
/// in this episode?
fn acknowledges_an_original(a: &AckView, recover: u64) -> bool {
    let original =
        |s: &crate::segments::Seg| s.end() <= recover && !s.rexmit_in_episode && !s.sacked;
    let cumulative = a.segs.iter().take_while(|s| s.end() <= a.ack).any(original);
    let selective = a.sack.iter().any(|&(bs, be)| {
        a.segs
            .iter()
            .any(|s| s.start >= bs && s.end() <= be && original(s))
    });
    cumulative || selective
}

impl SpuriousDetector for Frto {
    fn on_timeout(&mut self, t: &TimeoutView) {
        if t.frto_barred {
            // ns-2.35 Sack1TcpAgent::timeout(): "F-RTO is not allowed if earlier SACK
            // fast recovery is underway" (frto_ = 0 after TcpAgent::timeout()): this
            // timeout is recovered conventionally; the next one, outside fast recovery,
            // starts F-RTO again (TcpAgent::timeout() sets frto_ = 1 at every expiry).
            self.stage = Stage::Idle;
            return;
        }
        self.stage = match self.stage {
            // Step 1: already in conventional RTO recovery with recover >= SND.UNA: stay.
            Stage::Conventional { recover } if recover >= t.snd_una => {
                Stage::Conventional { recover }
            }
            Stage::FirstAck { recover, .. } | Stage::SecondAck { recover } if !t.first => {
                Stage::FirstAck {
                    recover,
                    retransmitted_end: t.retransmitted_end,
                }
            }
            // Step 1: recover <- SND.MAX; go to step 2.
            _ => Stage::FirstAck {
                recover: t.snd_max,
                retransmitted_end: t.retransmitted_end,
            },
        };
    }

    fn on_ack(&mut self, a: &AckView) -> Step {
        match self.stage {
            Stage::FirstAck {
                recover,
                retransmitted_end,
            } => self.first_ack(a, recover, retransmitted_end),
            Stage::SecondAck { recover } => self.second_ack(a, recover),
            Stage::Conventional { recover } => {
                if a.ack >= recover {
                    self.stage = Stage::Idle;
                }
                Step::Pending
            }
            Stage::Idle => Step::Pending,
        }
    }

    fn holds_retransmissions(&self) -> bool {
        matches!(self.stage, Stage::FirstAck { .. } | Stage::SecondAck { .. })
    }

    /// F-RTO decides by sending new data after the timeout (RFC 5682 step 2b).
    fn must_drive(&self) -> bool {
        true
    }

    /// The kernel counts an F-RTO undo in `TCPSpuriousRTOs` (and `TCPLossUndo`).
    fn undo_kind(&self) -> UndoKind {
        UndoKind::Frto
    }

    /// ns-2.35's F-RTO agents implement both variants (tcp-frto.cc).
    fn ns2_agent(&self) -> Option<Ns2FrtoAgent> {
        Some(if self.sack {
            Ns2FrtoAgent::SackFrto
        } else {
            Ns2FrtoAgent::Frto
        })
    }

    /// The SACK-enhanced variant reads SACK blocks (RFC 5682 section 3).
    fn requires(&self) -> Requires {
        if self.sack {
            Requires::Sack
        } else {
            Requires::Nothing
        }
    }
}

impl Exports for Frto {
    /// ns-2.35's `frto_enabled_` (RFC 5682 section 2) and `sfrto_enabled_` (section 3).
    fn ns2(&self) -> Ns2Export {
        let (frto, sfrto) = if self.sack { ("0", "1") } else { ("1", "0") };
        Ns2Export::Settings(vec![
            ("frto_enabled_", frto.to_string()),
            ("sfrto_enabled_", sfrto.to_string()),
        ])
    }
    /// `tcp_frto` non-zero turns the kernel's F-RTO on (`tcp_enter_loss()`,
    /// net/ipv4/tcp_input.c); it runs the SACK-enhanced steps when SACK is negotiated.
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_frto", "2")])
    }
    /// `tcp_frto` non-zero; the SACK-enhanced steps with SACK, the basic ones without.
    fn kernel_runs_when(&self) -> Option<KernelRuns> {
        if self.sack {
            Some(&[("tcp_frto", true), ("tcp_sack", true)])
        } else {
            Some(&[("tcp_frto", true), ("tcp_sack", false)])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::SegmentTable;
    use crate::spurious::test_util::{ack, timeout};
    use spikelab_core::Time;

    /// Ten segments outstanding, the first retransmitted by the timeout.
    fn table() -> SegmentTable {
        let mut t = SegmentTable::new();
        for i in 0..10 {
            t.push_new(i * 1000, (i + 1) * 1000, Time::ZERO);
        }
        t.get_mut(0).unwrap().rexmit_in_episode = true;
        t
    }

    #[test]
    fn each_variant_names_its_ns2_agent() {
        assert_eq!(Frto::new(false).ns2_agent(), Some(Ns2FrtoAgent::Frto));
        assert_eq!(Frto::new(true).ns2_agent(), Some(Ns2FrtoAgent::SackFrto));
    }

    #[test]
    fn basic_frto_declares_spurious_when_the_second_ack_advances() {
        let segs = table();
        let mut f = Frto::new(false);
        f.on_timeout(&timeout(0, 10_000, None));
        assert_eq!(
            f.on_ack(&ack(&segs, 0, 10_000, 1000, None)),
            Step::SendNew(2)
        );
        assert_eq!(
            f.on_ack(&ack(&segs, 1000, 12_000, 2000, None)),
            Step::Decided(Verdict::Spurious)
        );
    }

    #[test]
    fn a_barred_timeout_sends_no_probe_and_the_next_timeout_probes_again() {
        let segs = table();
        let mut f = Frto::new(true);
        let barred = TimeoutView {
            frto_barred: true,
            ..timeout(0, 10_000, None)
        };
        f.on_timeout(&barred);
        assert!(!f.holds_retransmissions());
        assert_eq!(f.on_ack(&ack(&segs, 0, 10_000, 1000, None)), Step::Pending);
        f.on_timeout(&timeout(1000, 10_000, None));
        assert!(f.holds_retransmissions());
    }

    #[test]
    fn basic_frto_declares_genuine_on_a_duplicate_second_ack() {
        let segs = table();
        let mut f = Frto::new(false);
        f.on_timeout(&timeout(0, 10_000, None));
        f.on_ack(&ack(&segs, 0, 10_000, 1000, None));
        assert_eq!(
            f.on_ack(&ack(&segs, 1000, 12_000, 1000, None)),
            Step::Decided(Verdict::Genuine)
        );
    }

    #[test]
    fn a_duplicate_first_ack_reverts_basic_frto_but_not_sack_frto() {
        let segs = table();
        let mut basic = Frto::new(false);
        basic.on_timeout(&timeout(0, 10_000, None));
        assert_eq!(
            basic.on_ack(&ack(&segs, 0, 10_000, 0, None)),
            Step::Decided(Verdict::Genuine)
        );
        let mut sack = Frto::new(true);
        sack.on_timeout(&timeout(0, 10_000, None));
        assert_eq!(sack.on_ack(&ack(&segs, 0, 10_000, 0, None)), Step::Pending);
    }

    #[test]
    fn an_ack_covering_recover_gives_frto_nothing_to_probe_with() {
        let segs = table();
        let mut f = Frto::new(false);
        f.on_timeout(&timeout(0, 10_000, None));
        assert_eq!(
            f.on_ack(&ack(&segs, 0, 10_000, 10_000, None)),
            Step::Decided(Verdict::Genuine)
        );
    }

    #[test]
    fn sack_frto_needs_an_original_segment_acknowledged() {
        let segs = table();
        // Second ACK only SACKs the two new segments above recover: genuine.
        let mut f = Frto::new(true);
        f.on_timeout(&timeout(0, 10_000, None));
        f.on_ack(&ack(&segs, 0, 10_000, 1000, None));
        let mut a = ack(&segs, 1000, 12_000, 1000, None);
        let blocks = [(10_000, 12_000)];
        a.sack = &blocks;
        assert_eq!(f.on_ack(&a), Step::Decided(Verdict::Genuine));
        // Second ACK SACKs original segment 5: spurious.
        let mut f = Frto::new(true);
        f.on_timeout(&timeout(0, 10_000, None));
        f.on_ack(&ack(&segs, 0, 10_000, 1000, None));
        let blocks = [(5000, 6000)];
        a.sack = &blocks;
        assert_eq!(f.on_ack(&a), Step::Decided(Verdict::Spurious));
    }

    #[test]
    fn no_new_data_to_send_reverts_to_conventional_recovery() {
        let segs = table();
        let mut f = Frto::new(false);
        f.on_timeout(&timeout(0, 10_000, None));
        let mut a = ack(&segs, 0, 10_000, 1000, None);
        a.can_send_new = false;
        assert_eq!(f.on_ack(&a), Step::Decided(Verdict::Genuine));
    }
}
