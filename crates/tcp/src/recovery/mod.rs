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

use crate::config::RecoveryKind;
use crate::window::Window;

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
}

/// The algorithm selected for a flow (enum dispatch, no `Box<dyn>`).
#[derive(Clone, Debug)]
pub enum Recovery {
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
    Fack(Fack),
}

impl Recovery {
    /// Builds the algorithm named in the configuration.
    pub fn new(kind: RecoveryKind, pipe: PipeRule) -> Recovery {
        Self::with_ns2_newreno(kind, pipe, false)
    }

    /// As [`Recovery::new`]; `ns2_newreno` selects ns-2's 2002 NewReno partial-ACK
    /// rules (see [`crate::config::Ns2Switches::newreno_2002_partial_ack`]).
    pub fn with_ns2_newreno(kind: RecoveryKind, pipe: PipeRule, ns2_newreno: bool) -> Recovery {
        match kind {
            RecoveryKind::Reno => Recovery::Reno(Reno),
            RecoveryKind::NewReno => Recovery::NewReno(NewReno {
                ns2_2002: ns2_newreno,
            }),
            RecoveryKind::RenoSack => Recovery::Sack(Sack::new(false, pipe)),
            RecoveryKind::NewRenoSack => Recovery::Sack(Sack::new(true, pipe)),
            RecoveryKind::Fack => Recovery::Fack(Fack::default()),
        }
    }

    /// Switches NewReno-SACK's retransmission on partial ACKs on or off (a Reno-SACK
    /// sender may use it after a spurious timeout, [Gurtov & Ludwig 2003] III.A). Other
    /// algorithms ignore it.
    pub fn set_retransmit_on_partial_ack(&mut self, on: bool) {
        if let Recovery::Sack(s) = self {
            s.set_retransmit_on_partial_ack(on);
        }
    }

    /// Selects ns-2.35 `FackTcpAgent`'s rules ([`ns2_fack`]) for FACK; other
    /// algorithms ignore it.
    pub fn set_ns2_fack(&mut self, rules: ns2_fack::Ns2FackRules) {
        if let Recovery::Fack(f) = self {
            f.ns2 = rules;
        }
    }

    fn inner(&self) -> &dyn LossRecovery {
        match self {
            Recovery::Reno(r) => r,
            Recovery::NewReno(r) => r,
            Recovery::Sack(r) => r,
            Recovery::Fack(r) => r,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn LossRecovery {
        match self {
            Recovery::Reno(r) => r,
            Recovery::NewReno(r) => r,
            Recovery::Sack(r) => r,
            Recovery::Fack(r) => r,
        }
    }
}

impl LossRecovery for Recovery {
    fn should_enter(&self, w: &Window, dupacks: u32) -> bool {
        self.inner().should_enter(w, dupacks)
    }
    fn on_enter(&mut self, w: &mut Window) -> Option<usize> {
        self.inner_mut().on_enter(w)
    }
    fn on_dupack(&mut self, w: &mut Window) {
        self.inner_mut().on_dupack(w)
    }
    fn grows_cwnd_on_every_ack(&self) -> bool {
        self.inner().grows_cwnd_on_every_ack()
    }
    fn timeout_keeps_recovery(&self) -> bool {
        self.inner().timeout_keeps_recovery()
    }
    fn recovery_point(&self, w: &Window) -> u64 {
        self.inner().recovery_point(w)
    }
    fn on_retransmitted(&mut self, w: &Window, start: u64) {
        self.inner_mut().on_retransmitted(w, start)
    }
    fn on_sack_ack(&mut self, w: &Window, ack: u64, right: u64) {
        self.inner_mut().on_sack_ack(w, ack, right)
    }
    fn on_timeout(&mut self) {
        self.inner_mut().on_timeout()
    }
    fn on_sent(&mut self, w: &Window) {
        self.inner_mut().on_sent(w)
    }
    fn on_partial_ack(&mut self, w: &mut Window, acked: u64) -> PartialAck {
        self.inner_mut().on_partial_ack(w, acked)
    }
    fn on_exit(&mut self, w: &mut Window) {
        self.inner_mut().on_exit(w)
    }
    fn next_in_recovery(&self, w: &Window, may_send_new: bool) -> Option<Transmit> {
        self.inner().next_in_recovery(w, may_send_new)
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
