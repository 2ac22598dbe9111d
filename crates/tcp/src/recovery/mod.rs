//! Loss recovery after duplicate ACKs: one algorithm per file behind [`LossRecovery`].
//!
//! The sender core decides *when* an ACK is a duplicate and when the recovery point is
//! reached; an algorithm decides whether to enter recovery, how ssthresh and cwnd
//! change, what to retransmit, and what the window allows while recovering. The
//! go-back-N phase after a timeout is the sender core's, not an algorithm's.

mod fack;
mod newreno;
pub mod ns2_fack;
pub mod ns2_sack1;
mod reno;
mod sack;

pub use fack::Fack;
pub use newreno::NewReno;
pub use reno::Reno;
pub use sack::{PipeRule, Sack};

use crate::exports::{Exports, Kernel, Ns2Export};
use crate::window::Window;
use serde::{Deserialize, Serialize};

/// What to transmit next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transmit {
    /// Retransmit the outstanding segment with this table index.
    Retransmit(usize),
    /// Send the next new segment (at `snd_max`) if the application and receiver allow.
    New,
}

/// What a new ACK below the recovery point means to the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAck {
    /// Stay in recovery; retransmit this segment at once if given.
    Stay(Option<usize>),
    /// Leave recovery now (Reno leaves on the first new ACK).
    Exit,
}

/// The hooks a loss-recovery algorithm implements.
pub trait LossRecovery {
    /// After a duplicate ACK outside recovery: start recovery now?
    fn should_enter(&self, w: &Window, dupacks: u32) -> bool;
    /// Recovery begins: reduce ssthresh and cwnd; return the segment to fast-retransmit.
    fn on_enter(&mut self, w: &mut Window) -> Option<usize>;
    /// A duplicate ACK during recovery.
    fn on_dupack(&mut self, w: &mut Window);
    /// Whether every ACK during recovery, duplicate or partial, and the one ending it run
    /// the ordinary cwnd increase (ns-2's FACK agent, [`ns2_fack`]).
    fn grows_cwnd_on_every_ack(&self) -> bool {
        false
    }
    /// Whether a timeout during recovery leaves the sender in recovery, with the same
    /// recovery point (ns-2's FACK agent, [`ns2_fack`]).
    fn timeout_keeps_recovery(&self) -> bool {
        false
    }
    /// The recovery point set on entering: recovery ends when the cumulative ACK
    /// reaches it. RFC 6582's `recover`: the highest byte sent.
    fn recovery_point(&self, w: &Window) -> u64 {
        w.snd_max
    }
    /// Segment `start` was retransmitted from the recovery's own choice (fast retransmit,
    /// [`Transmit::Retransmit`]).
    fn on_retransmitted(&mut self, _w: &Window, _start: u64) {}
    /// An ACK during recovery, cumulative `ack`, carried SACK blocks reaching `right`.
    fn on_sack_ack(&mut self, _w: &Window, _ack: u64, _right: u64) {}
    /// The retransmission timer expired.
    fn on_timeout(&mut self) {}
    /// A segment (retransmitted or new) went out during recovery.
    fn on_sent(&mut self, _w: &Window) {}
    /// A new ACK that does not reach the recovery point; `acked` bytes newly acknowledged.
    fn on_partial_ack(&mut self, w: &mut Window, acked: u64) -> PartialAck;
    /// The recovery point is acknowledged: set cwnd for leaving recovery.
    fn on_exit(&mut self, w: &mut Window);
    /// What the window allows next during recovery; `may_send_new` says whether the
    /// application and the receiver window allow one more new segment.
    fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit>;
    /// Does the algorithm need SACK information from the receiver?
    fn uses_sack(&self) -> bool {
        false
    }
    /// Switches NewReno-SACK's retransmission on partial ACKs on or off (a Reno-SACK
    /// sender may use it after a spurious timeout, [Gurtov & Ludwig 2003] III.A).
    /// Algorithms without the switch ignore it.
    fn set_retransmit_on_partial_ack(&mut self, _on: bool) {}
    /// Selects ns-2.35 `FackTcpAgent`'s rules ([`ns2_fack`]); algorithms other than
    /// FACK ignore it.
    fn set_ns2_fack(&mut self, _rules: ns2_fack::Ns2FackRules) {}
}

/// What building an algorithm may depend on besides its kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecoveryParams {
    /// How Reno-SACK and NewReno-SACK estimate the data in flight.
    pub pipe: PipeRule,
    /// ns-2's 2002 NewReno partial-ACK rules (see
    /// [`crate::config::Ns2Switches::newreno_2002_partial_ack`]).
    pub ns2_newreno: bool,
    /// ns-2 Sack1's choice of what to send in fast recovery (see
    /// [`crate::config::Ns2Switches::sack1_retransmits_every_hole_first`]).
    pub ns2_sack1_next_retran: bool,
}

/// The registration macro: from one list, one line per algorithm, it generates
/// [`RecoveryKind`] (the scenario's `tcp.recovery` names), [`RecoveryKind::NAMES`],
/// [`Recovery`] with its [`LossRecovery`] forwarding and [`Recovery::build`]. A line
/// reads `"name" => Kind: Type = |params| constructor,`; `Type` implements [`Exports`]
/// (its ns-2 export and kernel settings), which [`RecoveryKind`] forwards to.
macro_rules! algorithms {
    ($( $(#[$doc:meta])* $name:literal => $V:ident: $T:ty = |$p:ident| $new:expr, )*) => {
        /// Which loss-recovery algorithm the sender runs after duplicate ACKs.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum RecoveryKind {
            $( $(#[$doc])* #[serde(rename = $name)] $V, )*
        }

        impl RecoveryKind {
            /// Every algorithm's name, in registration order.
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            /// The name in scenario files.
            pub fn label(self) -> &'static str {
                match self {
                    $( RecoveryKind::$V => $name, )*
                }
            }

            /// The kind registered under `name` (the inverse of [`RecoveryKind::label`]).
            pub fn from_label(name: &str) -> Option<RecoveryKind> {
                match name {
                    $( $name => Some(RecoveryKind::$V), )*
                    _ => None,
                }
            }
        }

        spikelab_core::dispatch_enum! {
            /// The algorithm selected for a flow (enum dispatch, no `Box<dyn>`).
            #[derive(Clone, Debug)]
            pub enum Recovery: LossRecovery { $( $(#[$doc])* $V($T) ),* }
            methods {
                fn should_enter(&self, w: &Window, dupacks: u32) -> bool;
                fn on_enter(&mut self, w: &mut Window) -> Option<usize>;
                fn on_dupack(&mut self, w: &mut Window);
                fn grows_cwnd_on_every_ack(&self) -> bool;
                fn timeout_keeps_recovery(&self) -> bool;
                fn recovery_point(&self, w: &Window) -> u64;
                fn on_retransmitted(&mut self, w: &Window, start: u64);
                fn on_sack_ack(&mut self, w: &Window, ack: u64, right: u64);
                fn on_timeout(&mut self);
                fn on_sent(&mut self, w: &Window);
                fn on_partial_ack(&mut self, w: &mut Window, acked: u64) -> PartialAck;
                fn on_exit(&mut self, w: &mut Window);
                fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit>;
                fn uses_sack(&self) -> bool;
                fn set_retransmit_on_partial_ack(&mut self, on: bool);
                fn set_ns2_fack(&mut self, rules: ns2_fack::Ns2FackRules);
            }
        }

        impl Recovery {
            /// Builds the algorithm of `kind`.
            pub fn build(kind: RecoveryKind, params: RecoveryParams) -> Recovery {
                match kind {
                    $( RecoveryKind::$V => {
                        let $p = params;
                        Recovery::$V($new)
                    } )*
                }
            }
        }

        impl Exports for Recovery {
            fn ns2(&self) -> Ns2Export {
                match self { $( Recovery::$V(a) => a.ns2(), )* }
            }
            fn kernel(&self) -> Kernel {
                match self { $( Recovery::$V(a) => a.kernel(), )* }
            }
        }
    };
}

algorithms! {
    /// RFC 5681 fast retransmit / fast recovery; leaves recovery on the first new ACK.
    "reno" => Reno: Reno = |_p| Reno,
    /// RFC 6582: stays in recovery until the recovery point, retransmitting on partial ACKs.
    "new-reno" => NewReno: NewReno = |p| NewReno { ns2_2002: p.ns2_newreno },
    /// RFC 6675 / 3517 conservative SACK loss recovery with the pipe estimate.
    "reno-sack" => RenoSack: Sack = |p| Sack::with_ns2_next_retran(false, p.pipe, p.ns2_sack1_next_retran),
    /// Reno-SACK that retransmits at least one segment on each partial ACK
    /// ([Gurtov & Ludwig 2003] III.A).
    "new-reno-sack" => NewRenoSack: Sack = |p| Sack::with_ns2_next_retran(true, p.pipe, p.ns2_sack1_next_retran),
    /// Forward Acknowledgment (Mathis and Mahdavi 1996).
    "fack" => Fack: Fack = |_p| Fack::default(),
}

impl Exports for RecoveryKind {
    fn ns2(&self) -> Ns2Export {
        Recovery::build(*self, RecoveryParams::default()).ns2()
    }
    fn kernel(&self) -> Kernel {
        Recovery::build(*self, RecoveryParams::default()).kernel()
    }
}

impl RecoveryKind {
    /// Does this variant need SACK information from the receiver?
    pub fn uses_sack(self) -> bool {
        Recovery::build(self, RecoveryParams::default()).uses_sack()
    }
}

impl Recovery {
    /// Builds the algorithm named in the configuration.
    pub fn new(kind: RecoveryKind, pipe: PipeRule) -> Recovery {
        Self::with_ns2_newreno(kind, pipe, false)
    }

    /// As [`Recovery::new`]; `ns2_newreno` selects ns-2's 2002 NewReno partial-ACK
    /// rules (see [`crate::config::Ns2Switches::newreno_2002_partial_ack`]).
    pub fn with_ns2_newreno(kind: RecoveryKind, pipe: PipeRule, ns2_newreno: bool) -> Recovery {
        Self::build(
            kind,
            RecoveryParams {
                pipe,
                ns2_newreno,
                ..RecoveryParams::default()
            },
        )
    }
}

/// The ordinary window rule (RFC 5681): one more segment may go out while the bytes
/// outstanding after sending it stay within cwnd (the receiver window is checked by the
/// caller through `may_send_new`). Shared by Reno and NewReno during recovery, where
/// cwnd is inflated by duplicate ACKs.
pub(crate) fn window_allows_new(w: &Window, may_send_new: bool) -> Option<Transmit> {
    (may_send_new && w.snd_max - w.snd_una + w.mss <= w.cwnd).then_some(Transmit::New)
}

#[cfg(test)]
pub(crate) mod test_util {
    use crate::window::Window;
    use spikelab_core::Time;

    /// `n` segments of 1000 bytes sent, cwnd = n segments.
    pub fn window_with(n: u64) -> Window {
        // (RFC 5681 halving of FlightSize, the default rule.)
        let mut w = Window::new(1000, n * 1000, u64::MAX / 2, 3);
        for i in 0..n {
            w.segs.push_new(i * 1000, (i + 1) * 1000, Time::ZERO);
        }
        w.snd_nxt = n * 1000;
        w.snd_max = n * 1000;
        w
    }
}
