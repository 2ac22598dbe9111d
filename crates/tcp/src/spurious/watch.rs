//! Running several detectors side by side on one flow, recording every verdict, and
//! telling the sender what the driving one wants.

use super::{
    AckView, Detector, DetectorKind, RecoveryView, SpuriousDetector, Step, TimeoutView, UndoKind,
    Verdict,
};
use crate::response::SpuriousConfig;
use spikelab_core::Time;

/// One detector's conclusion about the timeouts numbered `from_timeout..=to_timeout`
/// of the flow (0 = the flow's first retransmission timeout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpisodeVerdict {
    pub detector: DetectorKind,
    pub verdict: Verdict,
    /// When the verdict was reached.
    pub at: Time,
    pub from_timeout: u64,
    pub to_timeout: u64,
    /// This detector drove the response.
    pub drove: bool,
}

#[derive(Clone, Debug)]
struct Watch {
    kind: DetectorKind,
    det: Detector,
    drives: bool,
    /// The timeout number that armed the detector for the current episode.
    armed_from: Option<u64>,
    /// The detector follows fast-recovery episodes and sees every ACK from the first.
    follows_recovery: bool,
}

/// The detectors of one flow. The driver, if any, comes first.
#[derive(Clone, Debug, Default)]
pub struct Watchers {
    watches: Vec<Watch>,
    verdicts: Vec<EpisodeVerdict>,
    /// The number of the latest timeout announced.
    last_timeout: u64,
}

impl Watchers {
    pub fn new(cfg: &SpuriousConfig) -> Watchers {
        let driver = cfg.driver.map(|k| (k, true));
        let observers = cfg
            .observe
            .iter()
            .filter(|k| Some(**k) != cfg.driver)
            .map(|k| (*k, false));
        let watches = driver
            .into_iter()
            .chain(observers)
            .filter_map(|(kind, drives)| {
                let det = Detector::new(kind)?;
                Some(Watch {
                    kind,
                    det,
                    drives,
                    armed_from: None,
                    follows_recovery: false,
                })
            })
            .collect();
        Watchers {
            watches,
            verdicts: Vec::new(),
            last_timeout: 0,
        }
    }

    /// Is any detector configured?
    pub fn is_empty(&self) -> bool {
        self.watches.is_empty()
    }

    /// The driving detector, if any.
    pub fn driver(&self) -> Option<DetectorKind> {
        self.watches.first().filter(|w| w.drives).map(|w| w.kind)
    }

    /// The ns-2 F-RTO agent the driver models, if any
    /// ([`super::SpuriousDetector::ns2_agent`]).
    pub fn driver_ns2_agent(&self) -> Option<super::Ns2FrtoAgent> {
        (self.watches.first())
            .filter(|w| w.drives)
            .and_then(|w| w.det.ns2_agent())
    }

    /// Does the driver want go-back-N held back while it probes (F-RTO)?
    pub fn driver_holds_retransmissions(&self) -> bool {
        self.watches
            .first()
            .is_some_and(|w| w.drives && w.det.holds_retransmissions())
    }

    /// The driver's evidence of a delayed original in fast recovery, if the last ACK
    /// brought any ([`super::SpuriousDetector::take_delayed_hole`]).
    pub fn take_delayed_hole(&mut self) -> Option<u64> {
        let w = self.watches.first_mut().filter(|w| w.drives)?;
        w.det.take_delayed_hole()
    }

    /// The kernel counter the driver's latest "spurious" verdict counts in
    /// ([`super::SpuriousDetector::undo_kind`]).
    pub fn driver_undo_kind(&self) -> UndoKind {
        (self.watches.first())
            .filter(|w| w.drives)
            .map_or(UndoKind::Loss, |w| w.det.undo_kind())
    }

    /// Every verdict so far.
    pub fn verdicts(&self) -> &[EpisodeVerdict] {
        &self.verdicts
    }

    /// The retransmission timer fired (see [`TimeoutView`]).
    pub fn on_timeout(&mut self, t: &TimeoutView) {
        let number = t.number;
        self.last_timeout = number;
        for w in &mut self.watches {
            w.det.on_timeout(t);
            if t.first || w.armed_from.is_none() {
                w.armed_from = Some(number);
            }
        }
    }

    /// Fast recovery began (see [`RecoveryView`]).
    pub fn on_fast_recovery(&mut self, r: &RecoveryView) {
        for w in &mut self.watches {
            w.follows_recovery |= w.det.on_fast_recovery(r);
        }
    }

    /// A segment was retransmitted.
    pub fn on_retransmit(&mut self, start: u64, end: u64) {
        for w in &mut self.watches {
            w.det.on_retransmit(start, end);
        }
    }

    /// An ACK arrived; returns what the driver wants (Pending when there is none).
    pub fn on_ack(&mut self, a: &AckView) -> Step {
        let mut driver_step = Step::Pending;
        let last = self.last_timeout;
        for w in &mut self.watches {
            if w.armed_from.is_none() && !w.follows_recovery {
                continue;
            }
            let step = w.det.on_ack(a);
            let from = w.armed_from.unwrap_or(last);
            if let Step::Decided(verdict) = step {
                w.armed_from = None;
                let v = EpisodeVerdict {
                    detector: w.kind,
                    verdict,
                    at: a.now,
                    from_timeout: from,
                    to_timeout: last,
                    drove: w.drives,
                };
                self.verdicts.push(v);
            }
            if w.drives {
                driver_step = step;
            }
        }
        driver_step
    }
}
