//! The Linux kernel's undo of a retransmission timeout, as `tcp_process_loss`,
//! `tcp_try_undo_loss`, `tcp_may_undo`, `tcp_packet_delayed`, `tcp_try_undo_recovery`,
//! `tcp_try_undo_dsack` and the D-SACK accounting of `tcp_check_dsack` /
//! `tcp_sacktag_one` run them (net/ipv4/tcp_input.c, Linux 6.x).
//!
//! One state machine, because the kernel runs its three undo tests in one function
//! and in a fixed order on every ACK in the Loss state (`tcp_process_loss`):
//!
//! 1. the ACK advanced snd_una and `tcp_may_undo` holds: the undo marker is set and
//!    either every retransmission of the episode was reported by a D-SACK
//!    (`undo_retrans` == 0) or the ACK echoes a timestamp older than the episode's
//!    first retransmission (`tcp_packet_delayed`) -> undo (`TCPLossUndo`);
//! 2. with F-RTO on (`tp->frto`, RFC 5682 section 3, the SACK-enhanced variant), the
//!    ACK acknowledged, cumulatively or by SACK, a segment that was never
//!    retransmitted (`FLAG_ORIG_SACK_ACKED`) -> undo (`TCPSpuriousRTOs`); new data
//!    sent since `high_seq` and this ACK SACKs data or is a duplicate -> the loss was
//!    real, F-RTO is off (step 3a); snd_una advanced but the episode is not over ->
//!    `high_seq` = snd_nxt and send new data if the window allows (step 2b), else F-RTO
//!    is off;
//! 3. snd_una reached `high_seq` (`recovered`): `tcp_try_undo_recovery` undoes if
//!    `tcp_may_undo` holds, else the Loss state ends without undo;
//!
//! and, after a Loss state that ended without undo, the undo marker survives: D-SACKs
//! that account for every retransmission undo it later (`tcp_try_undo_dsack`,
//! `TCPDSACKUndo`), until the next loss re-initialises it (`tcp_init_undo`).
//!
//! The kernel's sequence numbers map onto the sender's: `undo_marker` is snd_una at the
//! timeout (`tcp_init_undo`), `high_seq` snd_max at the timeout (`tcp_enter_loss`:
//! `tp->high_seq = tp->snd_nxt`; the kernel never moves snd_nxt back),
//! `retrans_stamp` the TSval of the episode's first retransmission. What the undo does
//! to cwnd and ssthresh is [`crate::response::Restore::LinuxUndo`].
//!
//! A fast-recovery episode (`TCP_CA_Recovery`) has its own undo tests, run by
//! `tcp_fastretrans_alert` on every ACK in this order:
//!
//! 1. (section D, state exit) snd_una reached `high_seq`: `tcp_try_undo_recovery`
//!    undoes if `tcp_may_undo` holds (`TCPFullUndo`), else recovery ends and the
//!    marker is kept for a later D-SACK undo;
//! 2. (section E) the ACK advanced snd_una: `tcp_try_undo_partial` undoes if the
//!    marker is set, `tcp_packet_delayed` holds and no retransmission is still in
//!    flight (`retrans_out` == 0, `TCPPartialUndo`);
//! 3. `tcp_try_undo_dsack`: every retransmission was D-SACKed (`TCPDSACKUndo`).
//!
//! `tcp_enter_recovery` re-initialises the marker (`tcp_init_undo`) with `high_seq` =
//! snd_nxt (`tcp_init_cwnd_reduction`); the undo restores what it saved
//! ([`crate::response::Restore::LinuxUndo`]) and the sender leaves recovery
//! ([`Step::UndoRecovery`]).
//!
//! Simplifications: each D-SACK block counts as one D-SACKed retransmission (the
//! kernel divides the block by the MSS; spikelab's receiver reports one duplicate
//! segment per block). A timeout during fast recovery while snd_una < `high_seq`
//! keeps the recovery's marker (`tcp_enter_loss` skips `tcp_init_undo`; the sender
//! keeps the recovery's ssthresh and prior values). Not modelled: Reno without
//! SACK holding the Recovery state until data above `high_seq` is acknowledged
//! (`tcp_try_undo_recovery` returning true); `tcp_try_undo_partial`'s early return
//! while retransmissions are in flight (no further loss marking on that ACK). Its
//! `tcp_check_sack_reordering` is modelled: a partial ACK whose echoed timestamp
//! predates the episode's first retransmission hands the sender snd_una before it
//! (`take_delayed_hole`), which RACK's reordering accounting takes as reordering
//! (`crate::rack::Rack::on_delayed_hole`).

use super::{AckView, RecoveryView, SpuriousDetector, Step, TimeoutView, Verdict};
use crate::exports::{Exports, Kernel, Ns2Export};

pub use super::undo_counters::UndoKind;

/// Which kind of episode set the undo marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Episode {
    /// A retransmission timeout (`tcp_enter_loss`).
    Loss,
    /// Fast recovery (`tcp_enter_recovery`).
    Recovery,
}

/// Where the kernel's congestion state machine is, for undo purposes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// No undo information (`undo_marker` == 0).
    #[default]
    Idle,
    /// `TCP_CA_Loss` until `high_seq` is acknowledged.
    Loss { high_seq: u64, frto: bool },
    /// `TCP_CA_Recovery` until `high_seq` is acknowledged.
    Recovery { high_seq: u64 },
    /// The episode ended without undo; the marker is kept for D-SACK undo.
    Open { after: Episode },
}

/// The undo bookkeeping of one connection. `frto` is the `tcp_frto` sysctl (non-zero).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxUndo {
    frto_enabled: bool,
    state: State,
    /// `undo_marker`: snd_una when the episode began.
    undo_marker: u64,
    /// `undo_retrans`: retransmissions not yet reported by a D-SACK; -1 before the first.
    undo_retrans: i64,
    /// `retrans_stamp`: TSval of the episode's first retransmission (0: none).
    retrans_stamp: u64,
    /// Every undo, in order.
    undos: Vec<UndoKind>,
    /// snd_una before the last ACK, when that ACK filled a recovery hole with the
    /// delayed original (`tcp_try_undo_partial`'s `tcp_check_sack_reordering`).
    delayed_hole: Option<u64>,
    /// The ACK being handled ended a Loss or Recovery episode: no ACK has been
    /// processed in the Open state since, so `retrans_stamp` is still the episode's
    /// (the kernel clears it only in `tcp_fastretrans_alert`'s Open state).
    ended_this_ack: bool,
}

impl LinuxUndo {
    pub fn new(frto_enabled: bool) -> LinuxUndo {
        LinuxUndo {
            frto_enabled,
            ..LinuxUndo::default()
        }
    }

    /// Every undo so far, by kind.
    pub fn undos(&self) -> &[UndoKind] {
        &self.undos
    }

    /// `tcp_packet_delayed`: the ACK echoes a timestamp from before the first
    /// retransmission (`tcp_tsopt_ecr_before`: a non-zero TSecr, strictly before).
    fn packet_delayed(&self, a: &AckView) -> bool {
        self.retrans_stamp != 0 && a.tsecr.is_some_and(|e| e != 0 && e < self.retrans_stamp)
    }

    /// `tcp_may_undo`: `undo_marker && (!undo_retrans || tcp_packet_delayed(tp))`.
    fn may_undo(&self, a: &AckView) -> bool {
        self.state != State::Idle && (self.undo_retrans == 0 || self.packet_delayed(a))
    }

    /// `tcp_undo_cwnd_reduction` clears `undo_marker`.
    fn undo(&mut self, kind: UndoKind) -> Step {
        self.state = State::Idle;
        self.undos.push(kind);
        Step::Decided(Verdict::Spurious)
    }

    /// The same for a fast-recovery episode: not a verdict about a timeout.
    fn undo_recovery(&mut self, kind: UndoKind) -> Step {
        self.undo(kind);
        Step::UndoRecovery { kind }
    }

    /// One ACK in the current state.
    fn process_ack(&mut self, a: &AckView) -> Step {
        match self.state {
            State::Idle => Step::Pending,
            State::Loss { high_seq, frto } => self.process_loss(a, high_seq, frto),
            State::Recovery { high_seq } => self.process_recovery(a, high_seq),
            // tcp_try_undo_dsack (state <= Disorder): `undo_marker && !undo_retrans`.
            State::Open { after } if self.undo_retrans == 0 => match after {
                Episode::Loss => self.undo(UndoKind::Dsack),
                Episode::Recovery => self.undo_recovery(UndoKind::Dsack),
            },
            State::Open { .. } => Step::Pending,
        }
    }

    /// `tcp_fastretrans_alert` in `TCP_CA_Recovery`, in the kernel's order.
    fn process_recovery(&mut self, a: &AckView, high_seq: u64) -> Step {
        // Section D: `!before(tp->snd_una, tp->high_seq)` -> tcp_try_undo_recovery.
        if a.ack >= high_seq {
            if self.may_undo(a) {
                return self.undo_recovery(UndoKind::Full);
            }
            self.state = State::Open {
                after: Episode::Recovery,
            };
            return Step::Pending;
        }
        // Section E: FLAG_SND_UNA_ADVANCED -> tcp_try_undo_partial.
        let delayed = self.packet_delayed(a);
        if a.ack > a.snd_una && delayed {
            // "Plain luck! Hole if filled with delayed packet, rather than with a
            // retransmit. Check reordering." (tcp_check_sack_reordering(sk,
            // prior_snd_una, 1), TCPTSReorder), whether or not it can undo.
            self.delayed_hole = Some(a.snd_una);
        }
        if a.ack > a.snd_una && delayed && retrans_out(a) == 0 {
            return self.undo_recovery(UndoKind::Partial);
        }
        // tcp_try_undo_dsack: `undo_marker && !undo_retrans`.
        if self.undo_retrans == 0 {
            return self.undo_recovery(UndoKind::Dsack);
        }
        Step::Pending
    }

    /// `tcp_check_dsack` / `tcp_sacktag_one`: a D-SACK of data above the undo marker
    /// accounts for one retransmission.
    fn count_dsack(&mut self, a: &AckView) {
        if let Some((_, end)) = a.dsack {
            if self.state != State::Idle && self.undo_retrans > 0 && end > self.undo_marker {
                self.undo_retrans -= 1;
            }
        }
    }

    /// `tcp_process_loss`, in the kernel's order.
    fn process_loss(&mut self, a: &AckView, high_seq: u64, frto: bool) -> Step {
        let advanced = a.ack > a.snd_una;
        if advanced && self.may_undo(a) {
            return self.undo(UndoKind::Loss);
        }
        let mut frto = frto;
        let mut high_seq = high_seq;
        if frto {
            if orig_sack_acked(a, high_seq) {
                return self.undo(UndoKind::Frto);
            }
            let recovered = a.ack >= high_seq;
            if a.snd_max > high_seq {
                // Step 3a: new data went out and still SACKs or duplicates arrive.
                if newly_sacked(a) || a.duplicate {
                    frto = false;
                }
            } else if advanced && !recovered {
                high_seq = a.snd_max;
                // Step 2b: new data if the window allows (REXMIT_NEW), else fall back.
                if a.can_send_new {
                    self.state = State::Loss { high_seq, frto };
                    return Step::SendNew(2);
                }
                frto = false;
            }
        }
        if a.ack >= high_seq {
            // tcp_try_undo_recovery; without undo the marker is kept (state Open).
            if self.may_undo(a) {
                return self.undo(UndoKind::Loss);
            }
            self.state = State::Open {
                after: Episode::Loss,
            };
            return Step::Pending;
        }
        self.state = State::Loss { high_seq, frto };
        Step::Pending
    }
}

/// `FLAG_ORIG_SACK_ACKED`: the ACK covers, cumulatively or by a new SACK block, a
/// segment sent before the timeout (ending at or below `high_seq`) that was never
/// retransmitted and not SACKed before (`tcp_clean_rtx_queue`: "else if (!(sacked &
/// TCPCB_SACKED_ACKED))" then "if (!after(scb->end_seq, tp->high_seq))";
/// `tcp_sacktag_one` the same for a newly SACKed one). A cumulative ACK over segments
/// SACKed before the timeout is no evidence that the timeout was spurious.
fn orig_sack_acked(a: &AckView, high_seq: u64) -> bool {
    let original = |s: &crate::segments::Seg| s.retx_count == 0 && s.end() <= high_seq;
    let cum = a
        .segs
        .iter()
        .take_while(|s| s.end() <= a.ack)
        .any(|s| original(s) && !s.sacked);
    let sacked = a.sack.iter().any(|&(st, en)| {
        a.segs
            .iter()
            .any(|s| s.start >= st && s.end() <= en && !s.sacked && original(s))
    });
    cum || sacked
}

/// `tp->retrans_out` after this ACK: retransmitted segments neither acknowledged
/// cumulatively nor SACKed, before or by this ACK.
fn retrans_out(a: &AckView) -> usize {
    let sacked_now = |s: &crate::segments::Seg| {
        a.sack
            .iter()
            .any(|&(st, en)| s.start >= st && s.end() <= en)
    };
    a.segs
        .iter()
        .filter(|s| s.retx_count > 0 && s.end() > a.ack && !s.sacked && !sacked_now(s))
        .count()
}

/// `FLAG_DATA_SACKED`: the ACK SACKs data not SACKed before.
fn newly_sacked(a: &AckView) -> bool {
    a.sack.iter().any(|&(st, en)| {
        a.segs
            .iter()
            .any(|s| s.start >= st && s.end() <= en && !s.sacked)
    })
}

impl SpuriousDetector for LinuxUndo {
    /// `tcp_enter_loss`: a new episode (`tcp_init_undo`, F-RTO on per the sysctl) or a
    /// repeated timeout of the same one (marker kept, F-RTO kept on: "recurring
    /// timeouts on the same SND.UNA", RFC 5682 section 3.2). A timeout in fast
    /// recovery before `high_seq` is acknowledged is no new episode either: the kernel
    /// calls `tcp_init_undo` only when "ssthresh has not yet been made inside this
    /// window" (`icsk_ca_state <= TCP_CA_Disorder || !after(high_seq, snd_una) ||
    /// (Loss && !icsk_retransmits)`), so the recovery's `undo_marker`, `undo_retrans`
    /// and `retrans_stamp` carry over into the Loss state.
    ///
    /// F-RTO starts only from a state below `TCP_CA_Recovery` or on a backed-off
    /// repeat (`tp->frto = sysctl_tcp_frto && (new_recovery || icsk_retransmits)`,
    /// `new_recovery = icsk_ca_state < TCP_CA_Recovery`): a first timeout in fast
    /// recovery or in the Loss state goes back N (RFC 5682 section 3: F-RTO is not
    /// entered while loss recovery is under way).
    fn on_timeout(&mut self, t: &TimeoutView) {
        let repeat = matches!(self.state, State::Loss { .. }) && !t.first;
        let inside_recovery =
            matches!(self.state, State::Recovery { high_seq } if t.snd_una < high_seq);
        let new_recovery = !matches!(self.state, State::Loss { .. } | State::Recovery { .. });
        let frto = self.frto_enabled && (new_recovery || !t.first);
        if !repeat && !inside_recovery {
            self.undo_marker = t.snd_una;
            // tcp_init_undo (-1), then the timeout's own retransmission, which the
            // sender announced through `on_retransmit` before this call (counted there
            // for a repeated timeout, whose episode is already running).
            self.undo_retrans = 1;
            self.retrans_stamp = t.retransmit_tsval.unwrap_or(0);
        }
        self.state = State::Loss {
            high_seq: t.snd_max,
            frto,
        };
    }

    /// `tcp_enter_recovery`: `tcp_init_undo` (undo_retrans = retrans_out, -1 when
    /// none; the fast retransmission that follows is counted by `on_retransmit`),
    /// `high_seq` = snd_nxt (`tcp_init_cwnd_reduction`), and `retrans_stamp` the
    /// first retransmission's stamp (`tcp_retransmit_skb`).
    fn on_fast_recovery(&mut self, r: &RecoveryView) -> bool {
        // retrans_stamp is cleared only in the Open state: recovery taking over from
        // a timeout keeps the timeout's first retransmission as the reference, and so
        // does a recovery started by the very ACK that ended the last episode
        // (tcp_fastretrans_alert: D opens the state, E's tcp_time_to_recover finds a
        // lost segment still out and calls tcp_enter_recovery on the same ACK).
        let from_loss = matches!(self.state, State::Loss { .. }) || self.ended_this_ack;
        if !(from_loss && self.retrans_stamp != 0) {
            self.retrans_stamp = r.retransmit_tsval.unwrap_or(0);
        }
        self.undo_marker = r.snd_una;
        self.undo_retrans = if r.retrans_out > 0 {
            r.retrans_out as i64
        } else {
            -1
        };
        self.state = State::Recovery {
            high_seq: r.snd_max,
        };
        true
    }

    /// `tcp_retransmit_skb`: `if (tp->undo_retrans < 0) tp->undo_retrans = 0;
    /// tp->undo_retrans += tcp_skb_pcount(skb)`.
    fn on_retransmit(&mut self, _start: u64, _end: u64) {
        if self.state != State::Idle {
            self.undo_retrans = self.undo_retrans.max(0) + 1;
        }
    }

    fn on_ack(&mut self, a: &AckView) -> Step {
        self.count_dsack(a);
        let was_episode = matches!(self.state, State::Loss { .. } | State::Recovery { .. });
        let step = self.process_ack(a);
        let episode_now = matches!(self.state, State::Loss { .. } | State::Recovery { .. });
        self.ended_this_ack = was_episode && !episode_now;
        step
    }

    /// F-RTO probes with new data instead of going back N while it is on.
    fn holds_retransmissions(&self) -> bool {
        matches!(self.state, State::Loss { frto: true, .. })
    }

    fn take_delayed_hole(&mut self) -> Option<u64> {
        self.delayed_hole.take()
    }

    /// The kind of the undo just made.
    fn undo_kind(&self) -> UndoKind {
        self.undos.last().copied().unwrap_or(UndoKind::Loss)
    }

    /// With F-RTO on, the kernel decides by what it sends after the timeout.
    fn must_drive(&self) -> bool {
        self.frto_enabled
    }
}

impl Exports for LinuxUndo {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35 has no Linux undo",
        }
    }
    /// The kernel itself, with its F-RTO (`tcp_frto`) on or off.
    fn kernel(&self) -> Kernel {
        if self.frto_enabled {
            Kernel::Sysctls(&[("tcp_frto", "2")])
        } else {
            Kernel::Sysctls(&[("tcp_frto", "0")])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::SegmentTable;
    use crate::spurious::test_util::{ack, timeout};
    use spikelab_core::Time;

    /// Ten 1000-byte segments outstanding, the first retransmitted by the timer.
    fn table() -> SegmentTable {
        let mut t = SegmentTable::new();
        for i in 0..10 {
            t.push_new(i * 1000, (i + 1) * 1000, Time::ZERO);
        }
        t.get_mut(0).unwrap().retx_count = 1;
        t
    }

    fn fired(frto: bool) -> LinuxUndo {
        let mut d = LinuxUndo::new(frto);
        d.on_timeout(&timeout(0, 10_000, Some(500)));
        d
    }

    /// Fast recovery entered with segments 0..10 outstanding; segment 0 fast-retransmitted
    /// with TSval 500.
    fn recovering() -> LinuxUndo {
        recovering_with_frto(true)
    }

    fn recovering_with_frto(frto: bool) -> LinuxUndo {
        let mut d = LinuxUndo::new(frto);
        let r = RecoveryView {
            snd_una: 0,
            snd_max: 10_000,
            retrans_out: 0,
            retransmit_tsval: Some(500),
        };
        assert!(
            d.on_fast_recovery(&r),
            "the kernel's undo follows fast recovery"
        );
        d.on_retransmit(0, 1000);
        d
    }

    /// `tcp_enter_loss` in `TCP_CA_Recovery` with snd_una < `high_seq`: no
    /// `tcp_init_undo`, so `retrans_stamp` stays the fast retransmission's (500), not
    /// the timeout's retransmission (900).
    #[test]
    fn a_timeout_in_fast_recovery_keeps_the_recoverys_undo_marker() {
        let segs = table();
        // tcp_frto = 0: only the timestamp test decides.
        let mut d = recovering_with_frto(false);
        d.on_retransmit(0, 1000); // the timeout's retransmission
        d.on_timeout(&timeout(0, 10_000, Some(900)));
        // An echo from between the fast retransmission and the timeout's: not from
        // before the episode's first retransmission, so no undo.
        let mut a = ack(&segs, 0, 10_000, 2000, None);
        a.tsecr = Some(700);
        assert_eq!(d.on_ack(&a), Step::Pending);
        assert!(d.undos().is_empty());
        // An echo from before the fast retransmission undoes the whole episode, as a
        // timeout undo (the state is Loss now: TCPLossUndo).
        let mut a = ack(&segs, 2000, 10_000, 3000, None);
        a.tsecr = Some(499);
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
        assert_eq!(d.undos(), &[UndoKind::Loss]);
    }

    /// `tcp_enter_loss`: `new_recovery` is false in `TCP_CA_Recovery`, and
    /// `icsk_retransmits` is 0 at the first timeout: F-RTO stays off; the backed-off
    /// repeat turns it on.
    #[test]
    fn frto_does_not_start_at_a_first_timeout_in_fast_recovery() {
        let mut d = recovering();
        d.on_timeout(&timeout(0, 10_000, Some(900)));
        assert!(!d.holds_retransmissions(), "go-back-N");
        let repeat = TimeoutView {
            first: false,
            ..timeout(0, 10_000, Some(1500))
        };
        d.on_timeout(&repeat);
        assert!(d.holds_retransmissions(), "F-RTO on the repeat");
        // From the Open state it starts at once.
        assert!(fired(true).holds_retransmissions());
    }

    #[test]
    fn a_timeout_after_fast_recovery_ended_starts_a_new_undo_episode() {
        let segs = table();
        let mut d = recovering_with_frto(false);
        // Recovery ends at high_seq without undo (the echo is the retransmission's).
        let mut a = ack(&segs, 0, 10_000, 10_000, None);
        a.tsecr = Some(500);
        assert_eq!(d.on_ack(&a), Step::Pending);
        d.on_retransmit(10_000, 11_000);
        d.on_timeout(&timeout(10_000, 12_000, Some(900)));
        // retrans_stamp is the timeout's now: an echo of 700 predates it.
        let mut a = ack(&segs, 10_000, 12_000, 11_000, None);
        a.tsecr = Some(700);
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
    }

    #[test]
    fn recovery_ending_on_an_echo_from_before_the_fast_retransmit_is_a_full_undo() {
        let segs = table();
        let mut d = recovering();
        let mut a = ack(&segs, 0, 10_000, 10_000, None);
        a.tsecr = Some(499);
        assert_eq!(
            d.on_ack(&a),
            Step::UndoRecovery {
                kind: UndoKind::Full
            }
        );
        assert_eq!(d.undos(), &[UndoKind::Full]);
    }

    #[test]
    fn recovery_ending_on_an_echo_of_the_retransmission_keeps_the_reduction() {
        let segs = table();
        let mut d = recovering();
        let mut a = ack(&segs, 0, 10_000, 10_000, None);
        a.tsecr = Some(500);
        assert_eq!(d.on_ack(&a), Step::Pending);
        assert!(d.undos().is_empty());
    }

    #[test]
    fn a_delayed_partial_ack_undoes_only_when_no_retransmission_is_in_flight() {
        let mut segs = table();
        segs.get_mut(3).unwrap().retx_count = 1; // a second retransmission, unacknowledged
        let mut d = recovering();
        let mut a = ack(&segs, 0, 10_000, 2000, None);
        a.tsecr = Some(499);
        assert_eq!(d.on_ack(&a), Step::Pending, "retrans_out = 1: no undo yet");
        let segs = table(); // only segment 0 was retransmitted, and 2000 covers it
        let mut a = ack(&segs, 0, 10_000, 2000, None);
        a.tsecr = Some(499);
        assert_eq!(
            d.on_ack(&a),
            Step::UndoRecovery {
                kind: UndoKind::Partial
            }
        );
        assert_eq!(d.undos(), &[UndoKind::Partial]);
    }

    #[test]
    fn a_partial_ack_of_the_delayed_original_reports_the_hole_as_reordering() {
        let mut segs = table();
        segs.get_mut(3).unwrap().retx_count = 1;
        let mut d = recovering();
        // Echoing a timestamp after the first retransmission: no evidence.
        let mut a = ack(&segs, 0, 10_000, 2000, None);
        a.tsecr = Some(501);
        d.on_ack(&a);
        assert_eq!(d.take_delayed_hole(), None);
        // Before it, with a retransmission still in flight: reordering, no undo.
        a.tsecr = Some(499);
        assert_eq!(d.on_ack(&a), Step::Pending);
        assert_eq!(d.take_delayed_hole(), Some(0));
        assert_eq!(d.take_delayed_hole(), None, "taken once");
    }

    #[test]
    fn a_dsack_of_every_fast_retransmission_undoes_during_recovery() {
        let segs = table();
        let mut d = recovering();
        let mut a = ack(&segs, 0, 10_000, 4000, None);
        a.dsack = Some((0, 1000));
        assert_eq!(
            d.on_ack(&a),
            Step::UndoRecovery {
                kind: UndoKind::Dsack
            }
        );
        assert_eq!(d.undos(), &[UndoKind::Dsack]);
    }

    #[test]
    fn recovery_ending_without_evidence_keeps_the_marker_for_a_later_dsack() {
        let segs = table();
        let mut d = recovering();
        assert_eq!(
            d.on_ack(&ack(&segs, 0, 10_000, 10_000, None)),
            Step::Pending
        );
        let mut a = ack(&segs, 10_000, 10_000, 10_000, None);
        a.dsack = Some((0, 1000));
        assert_eq!(
            d.on_ack(&a),
            Step::UndoRecovery {
                kind: UndoKind::Dsack
            },
            "not a timeout verdict"
        );
        assert_eq!(d.undos(), &[UndoKind::Dsack]);
    }

    #[test]
    fn a_new_recovery_replaces_the_marker_a_timeout_episode_left() {
        let segs = table();
        let mut d = fired(false);
        d.on_retransmit(1000, 2000);
        assert_eq!(
            d.on_ack(&ack(&segs, 0, 10_000, 10_000, None)),
            Step::Pending
        );
        // tcp_enter_recovery -> tcp_init_undo: the timeout's D-SACKs no longer count.
        let r = RecoveryView {
            snd_una: 10_000,
            snd_max: 20_000,
            retrans_out: 0,
            retransmit_tsval: None,
        };
        d.on_fast_recovery(&r);
        d.on_retransmit(10_000, 11_000);
        let mut a = ack(&segs, 10_000, 20_000, 10_000, None);
        a.dsack = Some((0, 1000));
        assert_eq!(d.on_ack(&a), Step::Pending, "below the new undo marker");
        assert!(d.undos().is_empty());
    }

    #[test]
    fn an_echo_older_than_the_first_retransmission_undoes_the_loss() {
        let segs = table();
        let mut d = fired(false);
        let mut a = ack(&segs, 0, 10_000, 2000, None);
        a.tsecr = Some(499);
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
        assert_eq!(d.undos(), &[UndoKind::Loss]);
    }

    #[test]
    fn an_echo_of_the_retransmission_itself_does_not_undo() {
        let segs = table();
        let mut d = fired(false);
        let mut a = ack(&segs, 0, 10_000, 1000, None);
        a.tsecr = Some(500);
        assert_eq!(d.on_ack(&a), Step::Pending);
        assert!(d.undos().is_empty());
    }

    #[test]
    fn frto_undoes_when_a_never_retransmitted_segment_is_acknowledged() {
        let segs = table();
        let mut d = fired(true);
        assert!(d.holds_retransmissions());
        // Segment 1 was never retransmitted: FLAG_ORIG_SACK_ACKED.
        assert_eq!(
            d.on_ack(&ack(&segs, 0, 10_000, 2000, None)),
            Step::Decided(Verdict::Spurious)
        );
        assert_eq!(d.undos(), &[UndoKind::Frto]);
    }

    /// Linux's `tcp_clean_rtx_queue` sets `FLAG_ORIG_SACK_ACKED` only for a segment
    /// not SACKed before: after a genuine timeout whose retransmission was lost, the
    /// ACK of the next retransmission also covers the segments SACKed before the
    /// timeout, and must not undo (the kernel's BBR on the congested Table 2 path,
    /// seed 2003: no undo of its genuine timeouts; the model undid one at 160.05 s).
    #[test]
    fn frto_does_not_undo_on_a_cumulative_ack_over_segments_sacked_before() {
        let mut segs = table();
        segs.on_sack_block(1000, 2000);
        let mut d = fired(true);
        let a = ack(&segs, 0, 10_000, 2000, None);
        assert_ne!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
        assert!(d.undos().is_empty());
    }

    /// Nor for data sent after the timeout (above `high_seq`): `!after(end_seq,
    /// tp->high_seq)`.
    #[test]
    fn frto_does_not_count_data_sent_after_the_timeout_as_original() {
        let mut segs = table();
        for i in 1..10 {
            segs.get_mut(i).unwrap().retx_count = 1;
        }
        segs.push_new(10_000, 11_000, Time::ZERO);
        let mut d = fired(true);
        let a = ack(&segs, 0, 11_000, 11_000, None);
        assert_ne!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
        assert!(!d.undos().contains(&UndoKind::Frto));
    }

    #[test]
    fn frto_sends_new_data_when_only_the_retransmission_is_acknowledged() {
        let segs = table();
        let mut d = fired(true);
        let a = ack(&segs, 0, 10_000, 1000, None);
        assert_eq!(d.on_ack(&a), Step::SendNew(2));
        assert!(d.holds_retransmissions());
    }

    #[test]
    fn frto_without_window_room_falls_back_to_go_back_n() {
        let segs = table();
        let mut d = fired(true);
        let mut a = ack(&segs, 0, 10_000, 1000, None);
        a.can_send_new = false;
        assert_eq!(d.on_ack(&a), Step::Pending);
        assert!(!d.holds_retransmissions(), "F-RTO off: REXMIT_LOST");
    }

    #[test]
    fn a_dsack_for_every_retransmission_undoes_after_the_loss_state_ended() {
        let segs = table();
        let mut d = fired(false);
        d.on_retransmit(1000, 2000);
        // The episode ends without undo: two retransmissions unaccounted for.
        assert_eq!(
            d.on_ack(&ack(&segs, 0, 10_000, 10_000, None)),
            Step::Pending
        );
        let mut a = ack(&segs, 0, 10_000, 10_000, None);
        a.dsack = Some((0, 1000));
        assert_eq!(d.on_ack(&a), Step::Pending, "one of two accounted for");
        a.dsack = Some((1000, 2000));
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
        assert_eq!(d.undos(), &[UndoKind::Dsack]);
    }

    #[test]
    fn each_retransmission_of_a_repeated_timeout_counts_once() {
        let segs = table();
        let mut d = fired(false);
        let mut again = timeout(0, 10_000, Some(900));
        again.first = false;
        d.on_retransmit(0, 1000); // the sender announces the retransmission first
        d.on_timeout(&again);
        // Leave the Loss state without undo, then D-SACK both copies of segment 0.
        assert_eq!(
            d.on_ack(&ack(&segs, 0, 10_000, 10_000, None)),
            Step::Pending
        );
        let mut a = ack(&segs, 10_000, 10_000, 10_000, None);
        a.dsack = Some((0, 1000));
        assert_eq!(d.on_ack(&a), Step::Pending);
        assert_eq!(d.on_ack(&a), Step::Decided(Verdict::Spurious));
    }

    #[test]
    fn a_repeated_timeout_keeps_the_first_retransmissions_stamp() {
        let segs = table();
        let mut d = fired(false);
        let mut again = timeout(0, 10_000, Some(900));
        again.first = false;
        d.on_retransmit(0, 1000);
        d.on_timeout(&again);
        let mut a = ack(&segs, 0, 10_000, 2000, None);
        // Before the repeat's stamp 900, but not before the first one's 500.
        a.tsecr = Some(700);
        assert_eq!(d.on_ack(&a), Step::Pending);
    }
}
