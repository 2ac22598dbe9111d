//! The congestion controllers (RFC 9002 7): one file each behind [`QuicController`],
//! registered in [`Controllers`]. Both count a recovery period from the time of the
//! congestion event that started it (7.3.2: a loss of a packet sent before then starts
//! no new one), neither reduces its window on a PTO (7.3 "a sender ... MUST NOT reduce
//! its congestion window on a probe timeout"; only persistent congestion, 7.6.2, does),
//! and both keep the state a congestion event replaced, for an undo rule to restore
//! (`undo.rs`).

pub mod cubic;
pub mod new_reno;

use crate::config::{QuicCc, QuicConfig};
use spikelab_core::Time;

/// kMinimumWindow (RFC 9002 7.2): two datagrams.
pub fn minimum_window(max_datagram_size: u64) -> u64 {
    2 * max_datagram_size
}

/// The initial window (RFC 9002 7.2): `initial_window` datagrams, at most
/// max(14720, 2 x max_datagram_size) bytes.
pub fn initial_window(c: &QuicConfig) -> u64 {
    let mds = u64::from(c.max_datagram_size);
    (c.initial_window * mds)
        .min(14_720.max(2 * mds))
        .max(2 * mds)
}

/// A congestion controller's hooks, in bytes.
pub trait QuicController {
    /// The congestion window.
    fn window(&self) -> u64;
    /// The slow-start threshold (`u64::MAX` before the first reduction).
    fn ssthresh(&self) -> u64;
    /// An in-flight packet of `bytes`, sent at `sent`, was acknowledged (B.5
    /// `OnPacketsAcked`).
    fn on_acked(&mut self, now: Time, sent: Time, bytes: u64);
    /// Packets were declared lost, the newest sent at `sent` (B.6
    /// `OnCongestionEvent`); returns whether a recovery period began (a reduction).
    fn on_congestion_event(&mut self, now: Time, sent: Time) -> bool;
    /// Persistent congestion (7.6.2): the window collapses to kMinimumWindow.
    fn on_persistent_congestion(&mut self, now: Time);
    /// A timer-based retransmission counted as a congestion event (picoquic's
    /// `picoquic_congestion_notification_timeout`, no part of RFC 9002): unless the
    /// newest outstanding packet, sent at `sent`, belongs to the recovery period, the
    /// slow-start threshold drops as on a loss and the window to kMinimumWindow.
    fn on_timer_loss(&mut self, now: Time, sent: Time);
    /// The state the last reduction replaced, while an undo can restore it.
    fn prior(&self) -> Option<Prior>;
    /// A spurious congestion event was detected: restores the state the last
    /// reduction replaced if the window is below it; returns whether it did.
    fn undo(&mut self) -> bool;
}

/// What an undo rule may ask of the state a reduction replaced (`undo.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prior {
    /// That state was in slow start (window below the slow-start threshold).
    pub slow_start: bool,
    /// When the reduction that replaced it happened (none once persistent
    /// congestion has ended the recovery period).
    pub reduced_at: Option<Time>,
}

spikelab_core::dispatch_enum! {
    /// Every registered controller.
    #[derive(Clone, Debug)]
    pub enum Controllers: QuicController {
        NewReno(new_reno::NewReno),
        Cubic(cubic::QuicCubic),
    }
    methods {
        fn window(&self) -> u64;
        fn ssthresh(&self) -> u64;
        fn on_acked(&mut self, now: Time, sent: Time, bytes: u64);
        fn on_congestion_event(&mut self, now: Time, sent: Time) -> bool;
        fn on_persistent_congestion(&mut self, now: Time);
        fn on_timer_loss(&mut self, now: Time, sent: Time);
        fn prior(&self) -> Option<Prior>;
        fn undo(&mut self) -> bool;
    }
}

impl Controllers {
    pub fn new(c: &QuicConfig) -> Controllers {
        match c.cc {
            QuicCc::NewReno => Controllers::NewReno(new_reno::NewReno::new(c)),
            QuicCc::Cubic => Controllers::Cubic(cubic::QuicCubic::new(c)),
        }
    }
}

/// Whether a packet sent at `sent` belongs to the recovery period that began at
/// `start` (RFC 9002 B.4 `InCongestionRecovery`).
pub fn in_recovery(start: Option<Time>, sent: Time) -> bool {
    start.is_some_and(|s| sent <= s)
}
