//! A sender's undo events and failed fast recoveries, counted as the Linux kernel's SNMP
//! counters count them, under the names `nstat` prints, so that `spikelab run` and
//! `spikelab emulate` write the same columns for the simulated and the real sender.
//!
//! Which event increments which counter (net/ipv4/tcp_input.c, tcp_timer.c, Linux 6.x):
//!
//! - `TcpExtTCPLossUndo`: a retransmission timeout's reduction undone, by
//!   `tcp_try_undo_loss` (timestamps or D-SACKs in `tcp_may_undo`, or F-RTO) or by
//!   `tcp_try_undo_recovery` in the Loss state;
//! - `TcpExtTCPSpuriousRTOs`: of these, the undos by F-RTO (`tcp_try_undo_loss(sk,
//!   true)` increments both counters);
//! - `TcpExtTCPDSACKUndo`: `tcp_try_undo_dsack`, D-SACKs accounting for every
//!   retransmission, in fast recovery or after a Loss or Recovery state ended without
//!   undo;
//! - `TcpExtTCPFullUndo`: `tcp_try_undo_recovery` ending fast recovery (not Loss);
//! - `TcpExtTCPPartialUndo`: `tcp_try_undo_partial`, a partial ACK of fast recovery
//!   echoing a timestamp older than the first retransmission;
//! - `TcpExtTCPSackRecoveryFail` / `TcpExtTCPRenoRecoveryFail`: `tcp_retransmit_timer`'s
//!   first expiry (`icsk_retransmits == 0`) in the Recovery state, with and without SACK.
//!
//! A detector other than the kernel's (Eifel, RFC 5682 F-RTO, RFC 3708 D-SACK) undoes a
//! timeout as the kernel's test of the same evidence would count it
//! ([`super::SpuriousDetector::undo_kind`]).

use serde::{Deserialize, Serialize};

/// Which undo test fired: the kernel's counter for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UndoKind {
    /// `tcp_try_undo_loss(sk, false)` / `tcp_try_undo_recovery` in the Loss state:
    /// timestamps or D-SACKs (`TCPLossUndo`).
    Loss,
    /// `tcp_try_undo_loss(sk, true)`: F-RTO (`TCPSpuriousRTOs`, also `TCPLossUndo`).
    Frto,
    /// `tcp_try_undo_dsack` after the Loss state ended, or in or after fast recovery
    /// (`TCPDSACKUndo`).
    Dsack,
    /// `tcp_try_undo_recovery` ending fast recovery (`TCPFullUndo`).
    Full,
    /// `tcp_try_undo_partial` on a partial ACK of fast recovery (`TCPPartialUndo`).
    Partial,
}

/// The counters, one field per kernel counter (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoCounters {
    pub loss_undo: u64,
    pub spurious_rtos: u64,
    pub dsack_undo: u64,
    pub full_undo: u64,
    pub partial_undo: u64,
    pub sack_recovery_fail: u64,
    pub reno_recovery_fail: u64,
}

/// How many counters there are.
pub const UNDO_COUNTERS: usize = 7;

impl UndoCounters {
    /// The counters' names as `nstat` prints them, in the order of [`Self::values`]:
    /// the column names of `runs` and the row labels of `summary`.
    pub const NAMES: [&'static str; UNDO_COUNTERS] = [
        "TcpExtTCPLossUndo",
        "TcpExtTCPSpuriousRTOs",
        "TcpExtTCPDSACKUndo",
        "TcpExtTCPFullUndo",
        "TcpExtTCPPartialUndo",
        "TcpExtTCPSackRecoveryFail",
        "TcpExtTCPRenoRecoveryFail",
    ];

    /// The values in the order of [`Self::NAMES`].
    pub fn values(&self) -> [u64; UNDO_COUNTERS] {
        [
            self.loss_undo,
            self.spurious_rtos,
            self.dsack_undo,
            self.full_undo,
            self.partial_undo,
            self.sack_recovery_fail,
            self.reno_recovery_fail,
        ]
    }

    /// The counters from a kernel's, read by `nstat` name (`counter("TcpExtTCPLossUndo")`).
    pub fn from_kernel(counter: impl Fn(&str) -> u64) -> UndoCounters {
        let [loss_undo, spurious_rtos, dsack_undo, full_undo, partial_undo, sack_recovery_fail, reno_recovery_fail] =
            Self::NAMES.map(counter);
        UndoCounters {
            loss_undo,
            spurious_rtos,
            dsack_undo,
            full_undo,
            partial_undo,
            sack_recovery_fail,
            reno_recovery_fail,
        }
    }

    /// One undo of kind `kind`: the counters the kernel increments for it.
    pub fn count_undo(&mut self, kind: UndoKind) {
        match kind {
            UndoKind::Loss => self.loss_undo += 1,
            UndoKind::Frto => {
                self.loss_undo += 1;
                self.spurious_rtos += 1;
            }
            UndoKind::Dsack => self.dsack_undo += 1,
            UndoKind::Full => self.full_undo += 1,
            UndoKind::Partial => self.partial_undo += 1,
        }
    }

    /// A retransmission timeout's first expiry in fast recovery (`tcp_retransmit_timer`).
    pub fn count_recovery_fail(&mut self, sack: bool) {
        if sack {
            self.sack_recovery_fail += 1;
        } else {
            self.reno_recovery_fail += 1;
        }
    }

    /// The undos the kernel's `TCPLossUndo` + `TCPDSACKUndo` count together: every
    /// timeout undo and every D-SACK undo (`TCPSpuriousRTOs` is within `TCPLossUndo`).
    pub fn loss_and_dsack_undos(&self) -> u64 {
        self.loss_undo + self.dsack_undo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_frto_undo_counts_as_a_loss_undo_and_a_spurious_rto() {
        let mut c = UndoCounters::default();
        c.count_undo(UndoKind::Frto);
        c.count_undo(UndoKind::Loss);
        assert_eq!((c.loss_undo, c.spurious_rtos), (2, 1));
        assert_eq!(c.loss_and_dsack_undos(), 2);
    }

    #[test]
    fn recovery_undos_count_apart_from_timeout_undos() {
        let mut c = UndoCounters::default();
        for k in [UndoKind::Full, UndoKind::Partial, UndoKind::Dsack] {
            c.count_undo(k);
        }
        c.count_recovery_fail(true);
        c.count_recovery_fail(false);
        assert_eq!(c.values(), [0, 0, 1, 1, 1, 1, 1]);
    }

    #[test]
    fn kernel_counters_are_read_by_their_nstat_names() {
        let c = UndoCounters::from_kernel(|n| match n {
            "TcpExtTCPLossUndo" => 3,
            "TcpExtTCPSpuriousRTOs" => 2,
            "TcpExtTCPSackRecoveryFail" => 1,
            _ => 0,
        });
        assert_eq!(c.values(), [3, 2, 0, 0, 0, 1, 0]);
    }
}
