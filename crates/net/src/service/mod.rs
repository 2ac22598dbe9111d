//! Service models: how long a packet occupies a link's transmitter and how much later
//! than the end of its transmission it reaches the far end (before the link's one-way
//! latency and any delay trace, which the link adds).
//!
//! * [`ServiceConfig::Rate`]: serialisation of the packet's wire bytes at the link rate
//!   (`Dur::transmission`, rounded up to a nanosecond), no extra delay.
//!
//! The transmitter is driven by [`Service::advance`]: it takes packets from the queue at
//! the exact instants the previous transmission ends (not when `poll` happens to be
//! called), so results never depend on how often the engine polls.

use crate::queue::Queue;
use serde::{Deserialize, Serialize};
use spikelab_core::{BitRate, Dur, Packet, SimRng, Time};

/// How a link direction serves packets, as written in a scenario (`kind = "rate"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ServiceConfig {
    /// Serialisation at the link rate, then the one-way latency. The default.
    #[default]
    Rate,
}

/// A packet leaving the transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure {
    /// The packet.
    pub pkt: Packet,
    /// When its transmission ended.
    pub at: Time,
    /// Delay beyond the link latency before it reaches the far end (or is discarded).
    pub extra: Dur,
    /// Lost inside the link: discarded `extra` after `at` instead of delivered.
    pub lost: bool,
}

/// The packet on the transmitter and what will happen to it.
#[derive(Clone, Copy, Debug)]
struct InService {
    departure: Departure,
}

/// The per-packet timing model of a timed (non-trace) transmitter.
#[derive(Clone, Debug)]
enum TimedModel {
    Rate { rate: BitRate },
}

impl TimedModel {
    /// Starts serving `pkt` at `start`.
    fn serve(&mut self, start: Time, pkt: Packet, _rng: &mut SimRng) -> Departure {
        match self {
            TimedModel::Rate { rate } => Departure {
                pkt,
                at: start + Dur::transmission(pkt.wire_bytes() as u64, rate.bps()),
                extra: Dur::ZERO,
                lost: false,
            },
        }
    }

    fn set_rate(&mut self, new: BitRate) {
        match self {
            TimedModel::Rate { rate } => *rate = new,
        }
    }
}

/// A link direction's transmitter. Built from a [`ServiceConfig`].
#[derive(Clone, Debug)]
pub struct Service {
    model: TimedModel,
    busy: Option<InService>,
}

impl Service {
    /// An idle transmitter at `rate`.
    pub fn new(cfg: &ServiceConfig, rate: BitRate) -> Service {
        let model = match cfg {
            ServiceConfig::Rate => TimedModel::Rate { rate },
        };
        Service { model, busy: None }
    }

    /// Runs the transmitter up to and including `now`: finishes transmissions, takes the
    /// next packet from `queue` at the instant the previous one ends, and hands every
    /// finished packet to `emit` in order.
    pub fn advance(
        &mut self,
        now: Time,
        queue: &mut Queue,
        rng: &mut SimRng,
        emit: &mut impl FnMut(Departure),
    ) {
        let mut free_at = now;
        loop {
            if let Some(s) = self.busy {
                if s.departure.at > now {
                    return;
                }
                emit(s.departure);
                self.busy = None;
                free_at = s.departure.at;
            }
            let Some(pkt) = queue.dequeue(free_at) else {
                return;
            };
            let departure = self.model.serve(free_at, pkt, rng);
            self.busy = Some(InService { departure });
        }
    }

    /// When the transmitter next has work (a transmission ending).
    pub fn next_wakeup(&self) -> Option<Time> {
        self.busy.map(|s| s.departure.at)
    }

    /// The packet being transmitted, if any.
    pub fn holding(&self) -> Option<&Packet> {
        self.busy.as_ref().map(|s| &s.departure.pkt)
    }

    /// The link was frozen at `since` for `d`: the transmission resumes where it was.
    pub fn shift(&mut self, since: Time, d: Dur) {
        if let Some(s) = &mut self.busy {
            if s.departure.at > since {
                s.departure.at += d;
            }
        }
    }

    /// Future transmissions use `rate`; the one in progress keeps its end time.
    pub fn set_rate(&mut self, rate: BitRate) {
        self.model.set_rate(rate);
    }
}
