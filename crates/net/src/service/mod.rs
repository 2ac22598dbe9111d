//! Service models: how long a packet occupies a link's transmitter and how much later
//! than the end of its transmission it reaches the far end (before the link's one-way
//! latency and any delay trace, which the link adds).
//!
//! * [`ServiceConfig::Rate`]: serialisation of the packet's wire bytes at the link rate
//!   (`Dur::transmission`, rounded up to a nanosecond), no extra delay.
//! * [`ServiceConfig::Wcdma`]: a radio bearer with link-layer (RLC) retransmissions,
//!   see [`wcdma`].
//! * [`ServiceConfig::Mahimahi`]: replay of a Mahimahi packet-delivery trace, see
//!   [`mahimahi`].
//!
//! The transmitter is driven by [`Service::advance`]: it takes packets from the queue at
//! the exact instants the previous transmission ends (or a delivery opportunity
//! occurs), not when `poll` happens to be called, so results never depend on how often
//! the engine polls.

pub mod mahimahi;
pub mod wcdma;

pub use mahimahi::{MahimahiConfig, MahimahiTrace};
pub use wcdma::WcdmaConfig;

use crate::link::same_instant;
use crate::queue::Queue;
use mahimahi::TraceTransmitter;
use serde::{Deserialize, Serialize};
use spikelab_core::{BitRate, Dur, Packet, SimRng, Time, Wire};
use wcdma::Wcdma;

/// How a link direction serves packets, as written in a scenario (`kind = "rate"`,
/// `"wcdma"` or `"mahimahi"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ServiceConfig {
    /// Serialisation at the link rate, then the one-way latency. The default.
    #[default]
    Rate,
    /// WCDMA-like bearer at the link rate with RLC block retransmissions.
    Wcdma(WcdmaConfig),
    /// Delivery opportunities replayed from a Mahimahi trace (the link rate is unused).
    Mahimahi(MahimahiConfig),
}

/// A packet leaving the transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure<P = Packet> {
    /// The packet.
    pub pkt: P,
    /// When its transmission ended.
    pub at: Time,
    /// Delay beyond the link latency before it reaches the far end (or is discarded).
    pub extra: Dur,
    /// Lost inside the link: discarded `extra` after `at` instead of delivered.
    pub lost: bool,
    /// How long before `at` the end of this transmission was scheduled, in ns
    /// (saturating): at its start, or at the end of a freeze that held it. Only ns-2's
    /// order of same-instant events reads it ([`crate::link::same_instant`]).
    pub lead: u32,
}

/// The per-packet timing model of a timed (non-trace) transmitter.
#[derive(Clone, Debug)]
enum TimedModel {
    Rate {
        rate: BitRate,
    },
    /// Boxed: its parameters (40 bytes) would double the size of every link's
    /// transmitter, and most links are plain rate.
    Wcdma(Box<Wcdma>),
}

impl TimedModel {
    /// Starts serving `pkt` at `start`; returns when and how it leaves.
    fn serve<P: Wire>(&mut self, start: Time, pkt: P, rng: &mut SimRng) -> Departure<P> {
        match self {
            TimedModel::Rate { rate } => {
                let at = start + Dur::transmission(pkt.wire_bytes() as u64, rate.bps());
                Departure {
                    pkt,
                    at,
                    extra: Dur::ZERO,
                    lost: false,
                    lead: same_instant::lead(at, start),
                }
            }
            TimedModel::Wcdma(w) => w.serve(start, pkt, rng),
        }
    }

    fn set_rate(&mut self, new: BitRate) {
        match self {
            TimedModel::Rate { rate } => *rate = new,
            TimedModel::Wcdma(w) => w.set_rate(new),
        }
    }
}

/// A transmitter that serves one packet at a time for a model-given duration (rate or
/// WCDMA).
#[derive(Clone, Debug)]
pub struct Timed<P = Packet> {
    model: TimedModel,
    busy: Option<Departure<P>>,
}

impl<P: Wire> Timed<P> {
    fn advance(
        &mut self,
        now: Time,
        queue: &mut Queue<P>,
        rng: &mut SimRng,
        emit: &mut impl FnMut(Departure<P>),
    ) {
        let mut free_at = now;
        loop {
            if self.busy.as_ref().is_some_and(|d| d.at > now) {
                return;
            }
            if let Some(d) = self.busy.take() {
                free_at = d.at;
                emit(d);
            }
            let Some(pkt) = queue.dequeue(free_at) else {
                return;
            };
            self.busy = Some(self.model.serve(free_at, pkt, rng));
        }
    }
}

/// A link direction's transmitter. Built from a [`ServiceConfig`].
#[derive(Clone, Debug)]
pub enum Service<P = Packet> {
    /// Rate or WCDMA: one packet at a time for a computed duration.
    Timed(Timed<P>),
    /// Mahimahi trace replay.
    Trace(TraceTransmitter<P>),
}

impl<P: Wire> Service<P> {
    /// An idle transmitter at `rate`. Panics if a Mahimahi trace was not loaded (see
    /// [`crate::trace::load_link_traces`]).
    pub fn new(cfg: &ServiceConfig, rate: BitRate) -> Service<P> {
        let timed = |model| Service::Timed(Timed { model, busy: None });
        match cfg {
            ServiceConfig::Rate => timed(TimedModel::Rate { rate }),
            ServiceConfig::Wcdma(w) => timed(TimedModel::Wcdma(Box::new(Wcdma::new(w, rate)))),
            ServiceConfig::Mahimahi(m) => Service::Trace(TraceTransmitter::new(m)),
        }
    }

    /// Runs the transmitter up to and including `now`: finishes transmissions, takes the
    /// next packet from `queue` when the transmitter frees up, and hands every finished
    /// packet to `emit` in order.
    pub fn advance(
        &mut self,
        now: Time,
        queue: &mut Queue<P>,
        rng: &mut SimRng,
        emit: &mut impl FnMut(Departure<P>),
    ) {
        match self {
            Service::Timed(t) => t.advance(now, queue, rng, emit),
            Service::Trace(t) => t.advance(now, queue, emit),
        }
    }

    /// When the transmitter next has work, given the queue in front of it.
    pub fn next_wakeup(&self, queue: &Queue<P>) -> Option<Time> {
        match self {
            Service::Timed(t) => t.busy.map(|d| d.at),
            Service::Trace(t) => t.next_wakeup(queue),
        }
    }

    /// When the end of the transmission ending exactly at `at` was scheduled, if one
    /// does (a timed transmitter; a trace's delivery opportunities have no schedule).
    pub fn end_scheduled_at(&self, at: Time) -> Option<Time> {
        match self {
            Service::Timed(t) => t
                .busy
                .as_ref()
                .filter(|d| d.at == at)
                .map(|d| same_instant::scheduled(d.at, d.lead)),
            Service::Trace(_) => None,
        }
    }

    /// The packet being transmitted, if any.
    pub fn holding(&self) -> Option<&P> {
        match self {
            Service::Timed(t) => t.busy.as_ref().map(|d| &d.pkt),
            Service::Trace(t) => t.holding(),
        }
    }

    /// The link was frozen from `since` until `now`: a timed transmission resumes where
    /// it was (its end moves by `now - since`); a trace skips the opportunities that
    /// occurred meanwhile (the radio was down) and keeps the bytes already sent.
    pub fn resume(&mut self, since: Time, now: Time) {
        match self {
            Service::Timed(t) => {
                if let Some(d) = t.busy.as_mut().filter(|d| d.at > since) {
                    d.at += now - since;
                    // The patched ns-2's `LinkDelay::freeze_end()` schedules the
                    // transmission's end anew when the freeze ends.
                    d.lead = same_instant::lead(d.at, now);
                }
            }
            Service::Trace(t) => t.skip_before(now),
        }
    }

    /// Future transmissions use `rate`; the one in progress keeps its end time. A trace
    /// ignores the rate (its opportunities are the capacity).
    pub fn set_rate(&mut self, rate: BitRate) {
        if let Service::Timed(t) = self {
            t.model.set_rate(rate);
        }
    }
}
