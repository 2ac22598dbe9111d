//! ns-2.35's one-way agents as the 2002 papers ran them: every [`Ns2Switches`] the
//! sender departs from the RFCs by is read here, combined with the agent it belongs
//! to (Reno, NewReno, Sack1 = Reno-SACK / NewReno-SACK, FACK), and answered at the
//! sender's extension points ([`StackRules`]). Each answer cites the ns-2.35
//! function it follows (`tcp/tcp.cc`, `tcp/tcp-reno.cc`, `tcp/tcp-newreno.cc`,
//! `tcp/tcp-sack1.cc`, `tcp/tcp-fack.cc`, `tcp/tcp-frto.cc`); the switches' own docs
//! say what each one is.

use super::{AckArrival, OldAck, StackRules};
use crate::config::{Ns2Switches, RecoveryKind, TcpConfig};
use crate::recovery::ns2_fack::Ns2FackRules;
use crate::recovery::ns2_sack1::Sack1DupAcks;
use crate::recovery::{PipeRule, RecoveryParams};
use crate::response::restore::Ns2SpuriousResponse;

/// The 2002 agents: the switches, the agent they apply to, and the agents' own state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ns2Agents {
    sw: Ns2Switches,
    recovery: RecoveryKind,
    timestamps: bool,
    /// Sack1's rules for counting duplicate ACKs (`sack1_dupack_rules`).
    sack1_dupacks: Sack1DupAcks,
    /// `spurious_response_` 1's state (`frto_spurious_response_1`).
    spurious: Ns2SpuriousResponse,
    /// FACK: the ACK being handled neither opens cwnd nor sends.
    hold: bool,
    /// The ACK being handled carries SACK blocks.
    has_sack: bool,
    /// The uninflated `cwnd_` = halfwin during a Reno or NewReno fast recovery
    /// (`fast_recovery_from_t_seqno`): not floored at 2 like ssthresh.
    halfwin: Option<u64>,
}

impl Ns2Agents {
    pub fn new(cfg: &TcpConfig) -> Ns2Agents {
        Ns2Agents {
            sw: cfg.ns2,
            recovery: cfg.recovery,
            timestamps: cfg.timestamps,
            sack1_dupacks: Sack1DupAcks::default(),
            spurious: Ns2SpuriousResponse::default(),
            hold: false,
            has_sack: false,
            halfwin: None,
        }
    }

    fn fack(&self) -> bool {
        self.recovery == RecoveryKind::Fack
    }

    /// Reno and NewReno, which inflate cwnd by one segment per duplicate ACK.
    fn reno_like(&self) -> bool {
        matches!(self.recovery, RecoveryKind::Reno | RecoveryKind::NewReno)
    }

    /// `FackTcpAgent::recv()`: "No SACK blocks indicates fast recovery is over".
    fn exit_needs_ack_without_sack(&self) -> bool {
        self.sw.fack_exit_needs_ack_without_sack && self.fack()
    }

    /// ns-2's Sack1 agent (Reno-SACK or NewReno-SACK).
    fn sack1(&self) -> bool {
        matches!(
            self.recovery,
            RecoveryKind::RenoSack | RecoveryKind::NewRenoSack
        )
    }
}

impl StackRules for Ns2Agents {
    /// `TcpAgent::reset()`: `ssthresh_ = window_`.
    fn initial_ssthresh(&self, configured: u64, rwnd: u64) -> u64 {
        if self.sw.ssthresh_starts_at_window {
            configured.min(rwnd)
        } else {
            configured
        }
    }

    /// NewReno's 2002 partial-ACK rule; Sack1's `GetNextRetran()` (half of the agent,
    /// its `pipe_` the other: with RFC 6675's SetPipe the sender keeps NextSeg); FACK's.
    fn recovery_params(&self, pipe: PipeRule) -> (RecoveryParams, Ns2FackRules) {
        let p = RecoveryParams {
            pipe,
            ns2_newreno: self.sw.newreno_2002_partial_ack,
            ns2_sack1_next_retran: self.sw.sack1_retransmits_every_hole_first
                && pipe == PipeRule::Ns2Sack1,
        };
        (p, self.sw.fack_rules())
    }

    /// FACK outside fast recovery: an ACK with SACK blocks runs `oldack()` and sends
    /// only when `dupacks_ == 0` (`fack_sack_acks_send_nothing`), and so does a
    /// duplicate without blocks (`fack_duplicate_acks_send_nothing`).
    /// `FackTcpAgent::recv()` hands to `oldack()` every ACK in fast recovery, and
    /// outside it a duplicate or an ACK with SACK blocks; only a new ACK without blocks
    /// outside recovery takes `newack()`.
    #[inline]
    fn on_ack_arrival(&mut self, a: &AckArrival) -> bool {
        let sw = &self.sw;
        self.hold = self.fack()
            && !a.recovering
            && ((sw.fack_sack_acks_send_nothing && a.has_sack)
                || (sw.fack_duplicate_acks_send_nothing && !a.has_sack && a.ack == a.snd_una));
        self.has_sack = a.has_sack;
        self.fack() && (a.recovering || a.has_sack || a.ack <= a.snd_una)
    }

    #[inline]
    fn holds_ack(&self) -> bool {
        self.hold
    }

    /// `FackTcpAgent::recv()` in fast recovery: "No SACK blocks indicates fast recovery
    /// is over": `fastrecov_` is cleared only when `sa_length() == 0 && last_ack_ >=
    /// recover_` (`fack_exit_needs_ack_without_sack`).
    #[inline]
    fn holds_recovery_exit(&self) -> bool {
        self.exit_needs_ack_without_sack() && self.has_sack
    }

    /// The same test on every ACK of fast recovery, new or not.
    #[inline]
    fn ends_held_recovery(&self) -> bool {
        self.exit_needs_ack_without_sack() && !self.has_sack
    }

    /// `FackTcpAgent::oldack()`: `newtimer()` (`fack_restarts_timer_on_every_ack`)
    /// then `rtt_update()` (`fack_samples_rtt_on_every_ack`), from the header's echo
    /// without timestamps (`fack_samples_rtt_from_header_echo`).
    fn oldack(&self) -> OldAck {
        OldAck {
            restarts_timer: self.sw.fack_restarts_timer_on_every_ack,
            samples_rtt: self.sw.fack_samples_rtt_on_every_ack,
            from_header_echo: self.sw.fack_samples_rtt_from_header_echo && !self.timestamps,
        }
    }

    /// `Sack1TcpAgent::recv()`'s counting (Reno-SACK only, [`crate::recovery::ns2_sack1`]).
    #[inline]
    fn sack1_dupack_rules(&self) -> bool {
        self.sw.sack1_dupack_rules && self.recovery == RecoveryKind::RenoSack
    }

    /// Reno's and NewReno's `recv()` run `recv_newack_helper()` -> `opencwnd()` on the
    /// ACK that ends fast recovery; `Sack1TcpAgent::recv()` calls only `newack()`.
    fn grows_on_recovery_exit(&self) -> bool {
        self.sw.grow_on_recovery_exit && self.reno_like()
    }

    /// `fast_recovery_from_t_seqno`: Reno, or NewReno with its 2002 partial-ACK rule
    /// (which deflates to `cwnd_`).
    #[inline]
    fn recovery_from_snd_nxt(&self) -> bool {
        self.sw.fast_recovery_from_t_seqno
            && match self.recovery {
                RecoveryKind::Reno => true,
                RecoveryKind::NewReno => self.sw.newreno_2002_partial_ack,
                _ => false,
            }
    }

    /// `FackTcpAgent::recv()` never consults `recover_` (`fack_enters_by_forward_ack`).
    fn fast_retransmit_ignores_recover(&self) -> bool {
        self.sw.fack_enters_by_forward_ack && self.fack()
    }

    /// `dupack_action()`: `reset_rtx_timer(1, 0)` -> `set_rtx_timer()`.
    fn restarts_timer_on_fast_retransmit(&self) -> bool {
        self.sw.restart_timer_on_fast_retransmit
    }

    /// `dupack_action()`: `recover_ = maxseq_` at every fast retransmit.
    fn careful_after_fast_retransmit(&self) -> bool {
        self.sw.careful_after_fast_retransmit
    }

    /// `RenoTcpAgent::timeout()`: `dupwnd_ = 0` before `TcpAgent::timeout()`'s
    /// `slowdown()` (Reno and NewReno, in fast recovery).
    fn timeout_drops_inflation(&self, recovering: bool) -> bool {
        self.sw.timeout_drops_inflation && self.reno_like() && recovering
    }

    /// `Sack1TcpAgent::timeout()`: no F-RTO during SACK fast recovery.
    fn bars_frto(&self, recovering: bool) -> bool {
        self.sw.sack1_no_frto_in_fast_recovery && self.sack1() && recovering
    }

    /// `TcpAgent::send_one()` (`singledup_`) releases go-back-N packets too.
    #[inline]
    fn limited_transmit_in_go_back_n(&self) -> bool {
        self.sw.limited_transmit_in_go_back_n
    }

    /// `RenoTcpAgent::recv()` with `exitFastRetrans_` false: `window() = cwnd_ +
    /// dupwnd_`, `dupwnd_ = dupacks_` from the DupThresh-th duplicate on, even when
    /// `bugFix_` suppressed the fast retransmit (Reno and NewReno).
    #[inline]
    fn inflates_without_fast_retransmit(&self) -> bool {
        self.sw.inflate_without_fast_retransmit && self.reno_like()
    }

    /// `Sack1TcpAgent::send_much()` (Reno-SACK only).
    fn go_back_n_resends_sacked(&self) -> bool {
        self.sw.sack1_go_back_n_resends_sacked && self.recovery == RecoveryKind::RenoSack
    }

    /// `TcpAgent::recv_newack_helper()`: `recover_ + 1 < highest_ack_ + wnd_`.
    #[inline]
    fn frto_room_segments(&self) -> u64 {
        if self.sw.frto_needs_room_for_two {
            2
        } else {
            1
        }
    }

    /// `spurious_response_` 1 (tcp-frto.cc) for ns-2's F-RTO agents.
    fn spurious_response(&self, by_ns2_frto: bool, snd_max: u64, mss: u64) -> Option<(u64, u64)> {
        (self.sw.frto_spurious_response_1 && by_ns2_frto)
            .then(|| self.spurious.response(snd_max, mss))
    }

    /// `newack()`: the spurious response's and Sack1's state hear of it.
    #[inline]
    fn on_new_ack(&mut self, snd_una_before: u64) {
        self.spurious.on_new_ack(snd_una_before);
        self.sack1_dupacks.on_new_ack();
    }

    /// `slowdown(CLOSE_CWND_HALF)` with `fast_recovery_from_t_seqno`: `cwnd_ = halfwin
    /// = (int)(window() / 2)`, no floor; `dupack_action()` then sets `dupwnd_ =
    /// numdupacks_`.
    fn on_enter_recovery(&mut self, cwnd: u64, rwnd: u64, mss: u64, dupthresh: u64) -> Option<u64> {
        self.halfwin = self
            .recovery_from_snd_nxt()
            .then(|| cwnd.min(rwnd) / mss / 2 * mss);
        self.halfwin.map(|h| h + dupthresh * mss)
    }

    /// NewReno's partial ACK (`partial_window_deflation_` 0) and Reno's and NewReno's
    /// end of recovery set `dupwnd_ = 0` and leave `cwnd_` at halfwin, which is below
    /// ssthresh when halfwin < 2.
    fn recovery_floor(&self) -> Option<u64> {
        self.halfwin
    }

    fn on_exit_recovery(&mut self) {
        self.halfwin = None;
    }

    /// `TcpAgent::timeout()` (after `RenoTcpAgent::timeout()` dropped the inflation).
    fn on_timeout(&mut self, cwnd: u64, rwnd: u64, ssthresh: u64, mss: u64) {
        self.halfwin = None;
        self.spurious.on_timeout(cwnd, rwnd, ssthresh, mss);
        self.sack1_dupacks.on_timeout();
    }

    /// `Sack1TcpAgent::recv()` ([`crate::recovery::ns2_sack1`]).
    fn sack1_counts_dupack(&mut self, next: u64, blocks: &[(u64, u64)]) -> bool {
        self.sack1_dupacks.counts(next, blocks)
    }

    /// `recv_frto_helper()`: `dupacks_ = -1`, raised to 0 by `recv()`.
    fn frto_fallback_dupack_uncounted(&self) -> bool {
        self.sw.frto_fallback_dupack_uncounted
    }

    /// ns-2's one-way agents with `syn_`: the SYN's ACK starts the data, no third
    /// segment; a SYN-ACK after a retransmitted SYN gives no sample (Karn).
    fn completes_handshake_with_ack(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agents(recovery: RecoveryKind) -> Ns2Agents {
        let cfg = TcpConfig {
            recovery,
            ..TcpConfig::ns2_2002()
        };
        Ns2Agents::new(&cfg)
    }

    fn holds(recovery: RecoveryKind, recovering: bool) -> bool {
        let mut a = agents(recovery);
        a.on_ack_arrival(&AckArrival {
            recovering,
            has_sack: true,
            ack: 2000,
            snd_una: 1000,
        });
        a.holds_ack()
    }

    #[test]
    fn fack_rules_apply_to_the_fack_agent_only() {
        assert!(holds(RecoveryKind::Fack, false));
        assert!(!holds(RecoveryKind::RenoSack, false));
        // In fast recovery FACK sends as usual.
        assert!(!holds(RecoveryKind::Fack, true));
    }

    #[test]
    fn the_inflation_rules_belong_to_reno_and_newreno() {
        assert!(agents(RecoveryKind::Reno).timeout_drops_inflation(true));
        assert!(!agents(RecoveryKind::Reno).timeout_drops_inflation(false));
        assert!(!agents(RecoveryKind::RenoSack).timeout_drops_inflation(true));
        assert!(agents(RecoveryKind::NewReno).inflates_without_fast_retransmit());
        assert!(!agents(RecoveryKind::Fack).inflates_without_fast_retransmit());
    }

    #[test]
    fn sack1_bars_frto_only_in_fast_recovery() {
        assert!(agents(RecoveryKind::NewRenoSack).bars_frto(true));
        assert!(!agents(RecoveryKind::NewRenoSack).bars_frto(false));
        assert!(!agents(RecoveryKind::Reno).bars_frto(true));
    }
}
