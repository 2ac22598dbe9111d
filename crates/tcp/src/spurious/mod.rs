//! Spurious-timeout detection: one algorithm per file behind [`SpuriousDetector`].
//!
//! A detector watches one retransmission-timeout episode (from the first timeout of a
//! segment until its verdict) through two hooks: [`SpuriousDetector::on_timeout`] when
//! the timer fires (also for repeated, backed-off timeouts of the same segment) and
//! [`SpuriousDetector::on_ack`] for every ACK that follows. It returns a [`Step`]:
//! still pending, a request to send new data (F-RTO's probe), or a [`Verdict`].
//!
//! Several detectors can watch one flow side by side; the sender records every verdict
//! and lets at most one of them (the configured driver) trigger the response.

mod ack_timing;
mod dsack;
mod eifel;
mod frto;
pub mod linux_undo;
mod watch;

pub use ack_timing::AckTiming;
pub use dsack::DsackDetector;
pub use eifel::Eifel;
pub use frto::Frto;
pub use linux_undo::LinuxUndo;
pub use watch::{EpisodeVerdict, Watchers};

use crate::exports::{Exports, Kernel, KernelRuns, Ns2Export};
use crate::segments::SegmentTable;
use serde::{Deserialize, Serialize};
use spikelab_core::{Dur, Time};

/// The registration macro: from one list, one line per detector kind, it generates
/// [`DetectorKind`] (the scenario's names, also the labels in outputs),
/// [`DetectorKind::NAMES`], [`Detector`] with its [`SpuriousDetector`] forwarding and
/// [`Detector::new`]. A `sender` line reads `"name" => Kind: Type = constructor,`; a
/// `network` line names a detector that runs in a middlebox (it reports its verdicts
/// through the box, see `spikelab_net::middlebox`) and has no sender-side state; its
/// `Type` states only its [`Exports`]. [`Exports`] for [`DetectorKind`] asks each line's
/// type, so every registered detector states its ns-2 export and kernel settings.
macro_rules! detectors {
    (
        sender { $( $(#[$doc:meta])* $name:literal => $V:ident: $T:ty = $new:expr, )* }
        network { $( $(#[$ndoc:meta])* $nname:literal => $N:ident: $NT:ident, )* }
    ) => {
        /// The detection algorithms.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum DetectorKind {
            $( $(#[$doc])* #[serde(rename = $name)] $V, )*
            $( $(#[$ndoc])* #[serde(rename = $nname)] $N, )*
        }

        impl DetectorKind {
            /// Every detector's name, in registration order.
            pub const NAMES: &'static [&'static str] = &[$($name,)* $($nname,)*];

            /// Every detector, in registration order.
            pub const ALL: &'static [DetectorKind] =
                &[$(DetectorKind::$V,)* $(DetectorKind::$N,)*];

            /// A short label for outputs (the name in scenario files).
            pub fn label(self) -> &'static str {
                match self {
                    $( DetectorKind::$V => $name, )*
                    $( DetectorKind::$N => $nname, )*
                }
            }

            /// The kind registered under `name` (the inverse of [`DetectorKind::label`]).
            pub fn from_label(name: &str) -> Option<DetectorKind> {
                match name {
                    $( $name => Some(DetectorKind::$V), )*
                    $( $nname => Some(DetectorKind::$N), )*
                    _ => None,
                }
            }
        }

        spikelab_core::dispatch_enum! {
            /// A detector selected at run time (enum dispatch).
            #[derive(Clone, Debug)]
            pub enum Detector: SpuriousDetector { $( $(#[$doc])* $V($T) ),* }
            methods {
                fn on_timeout(&mut self, t: &TimeoutView);
                fn on_fast_recovery(&mut self, r: &RecoveryView) -> bool;
                fn on_retransmit(&mut self, start: u64, end: u64);
                fn on_ack(&mut self, a: &AckView) -> Step;
                fn holds_retransmissions(&self) -> bool;
                fn must_drive(&self) -> bool;
                fn requires(&self) -> Requires;
                fn take_delayed_hole(&mut self) -> Option<u64>;
                fn ns2_agent(&self) -> Option<Ns2FrtoAgent>;
            }
        }

        impl Detector {
            /// The sender-side detector of this kind; `None` for a `network` kind, which
            /// lives in a middlebox.
            pub fn new(kind: DetectorKind) -> Option<Detector> {
                match kind {
                    $( DetectorKind::$V => Some(Detector::$V($new)), )*
                    $( DetectorKind::$N => None, )*
                }
            }
        }

        impl Exports for DetectorKind {
            fn ns2(&self) -> Ns2Export {
                match self {
                    $( DetectorKind::$V => ($new).ns2(), )*
                    $( DetectorKind::$N => $NT.ns2(), )*
                }
            }
            fn kernel(&self) -> Kernel {
                match self {
                    $( DetectorKind::$V => ($new).kernel(), )*
                    $( DetectorKind::$N => $NT.kernel(), )*
                }
            }
            fn kernel_runs_when(&self) -> Option<KernelRuns> {
                match self {
                    $( DetectorKind::$V => ($new).kernel_runs_when(), )*
                    $( DetectorKind::$N => $NT.kernel_runs_when(), )*
                }
            }
        }
    };
}

detectors! {
    sender {
        /// Eifel detection with timestamps (RFC 3522; [Gurtov & Ludwig 2003] II.B).
        "eifel" => Eifel: Eifel = Eifel::default(),
        /// Basic F-RTO (RFC 5682 section 2).
        "frto" => Frto: Frto = Frto::new(false),
        /// SACK-enhanced F-RTO (RFC 5682 section 3).
        "sack-frto" => SackFrto: Frto = Frto::new(true),
        /// Late detection from D-SACK reports (RFC 3708).
        "dsack" => Dsack: DsackDetector = DsackDetector::default(),
        /// Allman and Paxson's ACK-timing heuristic ([Gurtov & Ludwig 2003] II.C).
        "ack-timing" => AckTiming: AckTiming = AckTiming::default(),
        /// The Linux kernel's undo after a timeout, from timestamps and D-SACKs, without
        /// F-RTO (`tcp_frto = 0`; see [`linux_undo`]).
        "linux-undo" => LinuxUndo: LinuxUndo = LinuxUndo::new(false),
        /// The Linux kernel's undo with its SACK-enhanced F-RTO (`tcp_frto` != 0).
        "linux-frto" => LinuxFrto: LinuxUndo = LinuxUndo::new(true),
    }
    network {
        /// The STD proxy in the network ([Kim & Cho 2003] III.B); placed as a middlebox on
        /// a link, never configured on a sender.
        "std-proxy" => StdProxy: StdProxyExports,
    }
}

/// What the STD proxy (`spikelab_net::middlebox`, [Kim & Cho 2003] III.B) states
/// about the other simulators; it has no sender-side type of its own.
pub struct StdProxyExports;

impl Exports for StdProxyExports {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35 has no STD proxy",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("a middlebox on the path, not a setting of the host's kernel")
    }
}

impl DetectorKind {
    /// F-RTO decides by changing what the sender transmits after the timeout, so it
    /// can only run as the driver, never as a silent observer. False for a network
    /// detector.
    pub fn must_drive(self) -> bool {
        Detector::new(self).is_some_and(|d| d.must_drive())
    }
}

/// The ns-2.35 agent whose F-RTO a detector models (`Agent/TCP/Newreno/FRTO` and
/// `Agent/TCP/Sack1/SFRTO`, tcp-frto.cc): the ns-2 2002 switches about F-RTO's
/// response and fallback apply to flows it drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns2FrtoAgent {
    /// Basic F-RTO (`FrtoTcpAgent`).
    Frto,
    /// SACK-enhanced F-RTO (`SFrtoTcpAgent`).
    SackFrto,
}

/// What a detector needs the connection to negotiate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requires {
    /// Nothing beyond plain TCP.
    Nothing,
    /// The timestamps option (RFC 7323).
    Timestamps,
    /// SACK (RFC 2018).
    Sack,
}

/// A detector's conclusion about an episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Spurious,
    Genuine,
}

/// What a detector wants after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// No conclusion yet.
    Pending,
    /// F-RTO step 2b: transmit up to this many new segments, then keep watching.
    SendNew(u32),
    /// The conclusion.
    Decided(Verdict),
    /// A fast-recovery episode's reduction turned out unnecessary: restore cwnd and
    /// ssthresh and leave recovery (Linux's `tcp_try_undo_recovery`,
    /// `tcp_try_undo_partial`, `tcp_try_undo_dsack`; see [`linux_undo`]). Not a verdict
    /// about a timeout. `dsack`: by `tcp_try_undo_dsack`, which the kernel counts in
    /// `TCPDSACKUndo` together with the D-SACK undos of a timeout.
    UndoRecovery { dsack: bool },
}

/// What the sender knows when it enters fast recovery.
#[derive(Clone, Copy, Debug)]
pub struct RecoveryView {
    pub snd_una: u64,
    pub snd_max: u64,
    /// Retransmissions in flight, neither acknowledged nor SACKed nor marked lost
    /// again (`tp->retrans_out`; non-zero when recovery takes over from a timeout).
    pub retrans_out: u64,
    /// TSval carried by the recovery's first retransmission, sent now (timestamps on).
    pub retransmit_tsval: Option<u64>,
}

/// What the sender knows when its retransmission timer fires.
#[derive(Clone, Copy, Debug)]
pub struct TimeoutView {
    pub now: Time,
    /// The sender's number for this retransmission timeout (0 = the flow's first; see
    /// [`crate::TimerOutcome::Timeout`]). Verdicts name the timeouts they judge
    /// by it.
    pub number: u64,
    /// The first timeout of this segment (false for a backed-off repeat).
    pub first: bool,
    pub snd_una: u64,
    pub snd_max: u64,
    /// End of the segment retransmitted now.
    pub retransmitted_end: u64,
    /// TSval carried by the retransmission sent now (timestamps on).
    pub retransmit_tsval: Option<u64>,
    /// Smallest RTT sample so far.
    pub min_rtt: Option<Dur>,
    /// Smoothed RTT, if the estimator keeps one.
    pub srtt: Option<Dur>,
    /// F-RTO may not start at this timeout (ns-2's Sack1 agent in fast recovery,
    /// [`crate::Ns2Switches::sack1_no_frto_in_fast_recovery`]).
    pub frto_barred: bool,
}

/// One arriving ACK, seen before the sender applies it.
#[derive(Clone, Copy, Debug)]
pub struct AckView<'a> {
    pub now: Time,
    pub ack: u64,
    pub snd_una: u64,
    pub snd_max: u64,
    pub duplicate: bool,
    /// The echoed timestamp (timestamps on).
    pub tsecr: Option<u64>,
    /// SACK blocks that are not D-SACK.
    pub sack: &'a [(u64, u64)],
    /// The D-SACK block, if the ACK carried one.
    pub dsack: Option<(u64, u64)>,
    /// The outstanding segments before this ACK.
    pub segs: &'a SegmentTable,
    pub srtt: Option<Dur>,
    /// New data is available and the receiver window admits it.
    pub can_send_new: bool,
}

/// The hooks of a detection algorithm.
pub trait SpuriousDetector {
    /// The retransmission timer fired and the first unacknowledged segment was
    /// retransmitted.
    fn on_timeout(&mut self, t: &TimeoutView);
    /// Fast recovery began (before its first retransmission is announced); returns
    /// whether this detector follows fast-recovery episodes and wants their ACKs.
    fn on_fast_recovery(&mut self, _r: &RecoveryView) -> bool {
        false
    }
    /// A segment was retransmitted during the episode (go-back-N or fast retransmit).
    fn on_retransmit(&mut self, _start: u64, _end: u64) {}
    /// An ACK arrived while the episode is undecided.
    fn on_ack(&mut self, a: &AckView) -> Step;
    /// Must the sender hold back go-back-N retransmissions while this detector
    /// probes? (Only F-RTO's steps 2 and 3.)
    fn holds_retransmissions(&self) -> bool {
        false
    }
    /// Does this detector decide by changing what the sender transmits (F-RTO), so that
    /// it can only be the driver, never an observer?
    fn must_drive(&self) -> bool {
        false
    }
    /// What the connection must negotiate for the detector to work.
    fn requires(&self) -> Requires {
        Requires::Nothing
    }
    /// The last ACK showed that a hole of fast recovery was filled by the delayed
    /// original, not by its retransmission: snd_una before that ACK, which the sender's
    /// reordering accounting takes as the lowest reordered sequence (Linux's
    /// `tcp_try_undo_partial` -> `tcp_check_sack_reordering`). Taken once.
    fn take_delayed_hole(&mut self) -> Option<u64> {
        None
    }
    /// The ns-2 F-RTO agent this detector models, if any.
    fn ns2_agent(&self) -> Option<Ns2FrtoAgent> {
        None
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;

    pub fn timeout(una: u64, max: u64, tsval: Option<u64>) -> TimeoutView {
        TimeoutView {
            now: Time(1_000_000_000),
            number: 0,
            first: true,
            snd_una: una,
            snd_max: max,
            retransmitted_end: una + 1000,
            retransmit_tsval: tsval,
            min_rtt: Some(Dur::from_millis(100)),
            srtt: Some(Dur::from_millis(100)),
            frto_barred: false,
        }
    }

    pub fn ack<'a>(
        segs: &'a SegmentTable,
        una: u64,
        max: u64,
        ack: u64,
        tsecr: Option<u64>,
    ) -> AckView<'a> {
        AckView {
            now: Time(1_200_000_000),
            ack,
            snd_una: una,
            snd_max: max,
            duplicate: ack == una,
            tsecr,
            sack: &[],
            dsack: None,
            segs,
            srtt: Some(Dur::from_millis(100)),
            can_send_new: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Named {
        k: DetectorKind,
    }

    #[test]
    fn every_registered_name_parses_to_its_kind_and_back() {
        for name in DetectorKind::NAMES {
            let k = DetectorKind::from_label(name).unwrap();
            assert_eq!(k.label(), *name);
            let parsed: Named = toml::from_str(&format!("k = \"{name}\"")).unwrap();
            assert_eq!(parsed.k, k);
        }
        assert_eq!(DetectorKind::from_label("eifle"), None);
    }

    #[test]
    fn only_sender_detectors_are_built_and_only_frto_must_drive() {
        let built: Vec<_> = DetectorKind::NAMES
            .iter()
            .map(|n| DetectorKind::from_label(n).unwrap())
            .filter(|k| Detector::new(*k).is_some())
            .collect();
        assert!(!built.contains(&DetectorKind::StdProxy));
        assert_eq!(built.len(), DetectorKind::NAMES.len() - 1);
        let drivers: Vec<_> = built.into_iter().filter(|k| k.must_drive()).collect();
        let want = [
            DetectorKind::Frto,
            DetectorKind::SackFrto,
            DetectorKind::LinuxFrto,
        ];
        assert_eq!(drivers, want);
    }
}
