//! Retransmission-timer estimators behind one trait.
//!
//! The sender never computes an RTO itself: it feeds the estimator events (RTT samples,
//! timeouts) and asks [`RtoEstimator::rto`] for the value to arm the timer with. A new
//! estimator therefore never touches the sender. The sender applies Karn's rule (which
//! samples are valid) before calling [`RtoEstimator::on_rtt_sample`]; the estimator owns
//! its bounds, granularity and exponential back-off.
//!
//! Selection at run time is by the [`Rto`] enum built from [`RtoConfig`], not by
//! `Box<dyn>`, so the hot path stays monomorphic.

use serde::{Deserialize, Serialize};
use spikelab_core::{Dur, Time};

/// One RTT measurement and what the sender knew when it took it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RttSample {
    pub now: Time,
    pub rtt: Dur,
    /// Segments outstanding when the ACK that produced the sample arrived, before it
    /// was processed (Peak-Hopper's S with timestamps; peak-hopper-rto.md III.B).
    pub flight_segments: u32,
    /// Whether the sample came from the timestamps option (every ACK timed) or from
    /// timing one segment per flight.
    pub from_timestamps: bool,
}

/// The estimator interface. Every hook is named by the event that fires it.
pub trait RtoEstimator {
    /// An RTT sample from the connection handshake (RTT_SYN). Called at most once,
    /// before any data sample.
    fn on_syn_sample(&mut self, rtt: Dur);
    /// A valid RTT sample (Karn's rule already applied by the sender). Clears back-off.
    fn on_rtt_sample(&mut self, sample: &RttSample);
    /// The retransmission timer expired: back off (RFC 6298 (5.5)).
    fn on_timeout(&mut self);
    /// The value to arm the timer with now: bounds, granularity and back-off applied.
    fn rto(&self) -> Dur;
    /// Number of consecutive back-offs in force (0 when not backed off).
    fn backoff_count(&self) -> u32;
    /// The smoothed RTT, where the estimator keeps one (for traces and metrics).
    fn srtt(&self) -> Option<Dur>;
}
