//! Service models: how long a packet occupies a link's transmitter and how much later
//! than the end of its transmission it reaches the far end (before the link's one-way
//! latency and any delay trace, which the link adds).
//!
//! * [`ServiceConfig::Rate`]: serialisation of the packet's wire bytes at the link rate
//!   (`Dur::transmission`, rounded up to a nanosecond), no extra delay, see [`rate`].
//! * [`ServiceConfig::Wcdma`]: a radio bearer with link-layer (RLC) retransmissions,
//!   see [`wcdma`].
//! * [`ServiceConfig::Mahimahi`]: replay of a Mahimahi packet-delivery trace, see
//!   [`mahimahi`].
//!
//! The transmitter is driven by [`Service::advance`]: it takes packets from the queue at
//! the exact instants the previous transmission ends (or a delivery opportunity
//! occurs), not when `poll` happens to be called, so results never depend on how often
//! the engine polls.
//!
//! Every model implements [`ServiceModel`]; `service_models!` below is the one list that
//! registers them (config enum, runtime enum, dispatch): a new model is one file and
//! one line there.

pub mod mahimahi;
pub mod rate;
pub mod wcdma;

pub use mahimahi::{MahimahiConfig, MahimahiTrace};
pub use rate::RateConfig;
pub use wcdma::WcdmaConfig;

use crate::link::same_instant::Lead;
use crate::queue::Queue;
use mahimahi::TraceTransmitter;
use rate::Rate;
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{Bounded, Check, FieldPath};
use spikelab_core::{BitRate, Dur, Packet, SimRng, Time, Wire};
use wcdma::Wcdma;

/// The hooks of a service model (a link direction's transmitter): the link drives it
/// with [`ServiceModel::advance`] and asks [`ServiceModel::next_wakeup`] when to come
/// back. `L` is what its departures keep of when their ends were scheduled
/// ([`crate::link::same_instant::Lead`]: nothing by default).
pub trait ServiceModel<P: Wire, L: Lead = ()> {
    /// Runs the transmitter up to and including `now`: finishes transmissions, takes
    /// the next packet from `queue` when the transmitter frees up, and hands every
    /// finished packet to `emit` in order.
    fn advance<F: FnMut(Departure<P, L>)>(
        &mut self,
        now: Time,
        queue: &mut Queue<P>,
        rng: &mut SimRng,
        emit: &mut F,
    );
    /// When the transmitter next has work, given the queue in front of it.
    fn next_wakeup(&self, queue: &Queue<P>) -> Option<Time>;
    /// The transmission in progress when its departure is already fixed: when it ends
    /// and its extra delay. `None` when none is in progress or the model decides at
    /// the end (a trace's delivery opportunities).
    fn known_departure(&self) -> Option<(Time, Dur)> {
        None
    }
    /// The packet being transmitted, if any.
    fn holding(&self) -> Option<&P>;
    /// When the end of the transmission ending exactly at `at` was scheduled, if one
    /// does (a trace's delivery opportunities have no schedule: `None`).
    fn end_scheduled_at(&self, _at: Time) -> Option<Time> {
        None
    }
    /// The link was frozen from `since` until `now`.
    fn resume(&mut self, since: Time, now: Time);
    /// Future transmissions use `rate` (a model whose capacity is not the link rate
    /// ignores it).
    fn set_rate(&mut self, _rate: BitRate) {}
}

/// The registration macro: from one list, one line per service model, it generates
/// [`ServiceConfig`] (the scenario's `kind` tag names), [`ServiceConfig::KINDS`],
/// [`Service`] with its forwarding to each model's [`ServiceModel`] hooks,
/// [`Service::new`], and the range checks of [`ServiceConfig`] through each
/// configuration's [`Bounded`] hook. A line reads
/// `"kind" => Variant(ConfigType): Type = |config, rate| constructor,` where `Type`
/// implements [`ServiceModel`] (a model that serves one packet at a time for a
/// computed duration is a [`TimedModel`] inside [`Timed`]). A new service model is one
/// file and one line here.
macro_rules! service_models {
    ($( $(#[$doc:meta])* $name:literal => $V:ident($Cfg:ty): $T:ty = |$c:ident, $r:ident| $new:expr, )*) => {
        /// How a link direction serves packets, as written in a scenario (`kind =` one
        /// of [`ServiceConfig::KINDS`]).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum ServiceConfig {
            $( $(#[$doc])* #[serde(rename = $name)] $V($Cfg), )*
        }

        impl ServiceConfig {
            /// Every service model's `kind` name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$($name),*];
        }

        impl Bounded for ServiceConfig {
            /// The kind's own checks ([`Bounded`] on its configuration type).
            fn bounds(&self, at: &FieldPath) -> Check {
                match self { $( ServiceConfig::$V(c) => c.bounds(at), )* }
            }
        }

        /// A link direction's transmitter, built from a [`ServiceConfig`] (enum
        /// dispatch: the link drives it once per event). `L`: what it keeps of when
        /// transmission ends were scheduled ([`crate::link::same_instant::Lead`]).
        #[derive(Clone, Debug)]
        pub enum Service<P = Packet, L = ()> {
            $( $(#[$doc])* $V($T), )*
        }

        impl<P: Wire, L: Lead> Service<P, L> {
            /// Runs the transmitter up to and including `now` ([`ServiceModel::advance`]).
            pub fn advance(
                &mut self,
                now: Time,
                queue: &mut Queue<P>,
                rng: &mut SimRng,
                emit: &mut impl FnMut(Departure<P, L>),
            ) {
                match self { $( Service::$V(s) => ServiceModel::<P, L>::advance(s, now, queue, rng, emit), )* }
            }
            /// When the transmitter next has work ([`ServiceModel::next_wakeup`]).
            pub fn next_wakeup(&self, queue: &Queue<P>) -> Option<Time> {
                match self { $( Service::$V(s) => ServiceModel::<P, L>::next_wakeup(s, queue), )* }
            }
            /// The transmission in progress when its departure is fixed
            /// ([`ServiceModel::known_departure`]).
            #[inline]
            pub fn known_departure(&self) -> Option<(Time, Dur)> {
                match self { $( Service::$V(s) => ServiceModel::<P, L>::known_departure(s), )* }
            }
            /// The packet being transmitted, if any.
            pub fn holding(&self) -> Option<&P> {
                match self { $( Service::$V(s) => ServiceModel::<P, L>::holding(s), )* }
            }
            /// When the end of a transmission ending exactly at `at` was scheduled
            /// ([`ServiceModel::end_scheduled_at`]).
            pub fn end_scheduled_at(&self, at: Time) -> Option<Time> {
                match self { $( Service::$V(s) => ServiceModel::<P, L>::end_scheduled_at(s, at), )* }
            }
            /// The link was frozen from `since` until `now` ([`ServiceModel::resume`]).
            pub fn resume(&mut self, since: Time, now: Time) {
                match self { $( Service::$V(s) => ServiceModel::<P, L>::resume(s, since, now), )* }
            }
            /// Future transmissions use `rate` ([`ServiceModel::set_rate`]).
            pub fn set_rate(&mut self, rate: BitRate) {
                match self { $( Service::$V(s) => ServiceModel::<P, L>::set_rate(s, rate), )* }
            }
        }

        impl<P: Wire, L: Lead> Service<P, L> {
            /// An idle transmitter at `rate`. Panics if a trace the model replays was
            /// not loaded (see [`crate::load_link_traces`]).
            pub fn new(cfg: &ServiceConfig, rate: BitRate) -> Service<P, L> {
                match cfg {
                    $( ServiceConfig::$V($c) => {
                        let $r = rate;
                        Service::$V($new)
                    } )*
                }
            }
        }
    };
}

service_models! {
    /// Serialisation at the link rate, then the one-way latency. The default.
    "rate" => Rate(RateConfig): Timed<Rate, P, L> = |c, rate| Timed::new(Rate::new(c, rate)),
    /// WCDMA-like bearer at the link rate with RLC block retransmissions. Boxed: its
    /// parameters (40 bytes) would double the size of every link's transmitter, and
    /// most links are plain rate.
    "wcdma" => Wcdma(WcdmaConfig): Timed<Box<Wcdma>, P, L> = |c, rate| Timed::new(Box::new(Wcdma::new(c, rate))),
    /// Delivery opportunities replayed from a Mahimahi trace (the link rate is unused).
    "mahimahi" => Mahimahi(MahimahiConfig): TraceTransmitter<P> = |c, _rate| TraceTransmitter::new(c),
}

impl Default for ServiceConfig {
    /// Plain serialisation at the link rate.
    fn default() -> Self {
        ServiceConfig::Rate(RateConfig {})
    }
}

/// A packet leaving the transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure<P = Packet, L = ()> {
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
    /// order of same-instant events keeps it (`L = u32`, [`crate::link::same_instant`]);
    /// otherwise `()`.
    pub lead: L,
}

/// The per-packet timing model of a transmitter that serves one packet at a time for a
/// computed duration ([`Timed`]).
pub trait TimedModel {
    /// Starts serving `pkt` at `start`; returns when and how it leaves.
    fn serve<P: Wire, L: Lead>(&mut self, start: Time, pkt: P, rng: &mut SimRng)
        -> Departure<P, L>;
    /// Future transmissions use `rate`.
    fn set_rate(&mut self, rate: BitRate);
}

impl<M: TimedModel> TimedModel for Box<M> {
    fn serve<P: Wire, L: Lead>(
        &mut self,
        start: Time,
        pkt: P,
        rng: &mut SimRng,
    ) -> Departure<P, L> {
        (**self).serve(start, pkt, rng)
    }
    fn set_rate(&mut self, rate: BitRate) {
        (**self).set_rate(rate)
    }
}

/// A transmitter that serves one packet at a time for a model-given duration (rate or
/// WCDMA).
#[derive(Clone, Debug)]
pub struct Timed<M, P = Packet, L = ()> {
    model: M,
    busy: Option<Departure<P, L>>,
}

impl<M, P, L> Timed<M, P, L> {
    /// An idle transmitter with `model`.
    pub fn new(model: M) -> Timed<M, P, L> {
        Timed { model, busy: None }
    }
}

impl<M: TimedModel, P: Wire, L: Lead> Timed<M, P, L> {
    /// Is a packet being sent (or sent and not yet passed on by `advance`)?
    #[inline(always)]
    pub fn is_busy(&self) -> bool {
        self.busy.is_some()
    }

    /// Has the transmission in progress ended by `now` (so that `advance` has work)?
    #[inline(always)]
    pub fn ended_by(&self, now: Time) -> bool {
        self.busy.as_ref().is_some_and(|d| d.at <= now)
    }

    /// [`ServiceModel::advance`] with the queue's dequeue as `take` (`take(at)` hands
    /// over the queue's head when the transmitter frees up at `at`): the link runs a
    /// plain drop-tail queue through this directly, without the dispatch over every
    /// queue discipline in its loop.
    #[inline(always)]
    pub fn run<F: FnMut(Departure<P, L>)>(
        &mut self,
        now: Time,
        mut take: impl FnMut(Time) -> Option<P>,
        rng: &mut SimRng,
        emit: &mut F,
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
            let Some(pkt) = take(free_at) else {
                return;
            };
            self.busy = Some(self.model.serve(free_at, pkt, rng));
        }
    }
}

impl<M, P, L> Timed<M, P, L> {
    /// The transmitter sending `d` (a plain link's hand-over to the staged form,
    /// `link::plain`).
    pub(crate) fn start_busy(&mut self, d: Departure<P, L>) {
        self.busy = Some(d);
    }

    /// The transmission in progress, if any.
    pub(crate) fn sending(&self) -> Option<&Departure<P, L>> {
        self.busy.as_ref()
    }

    /// The model that times transmissions.
    pub(crate) fn model(&self) -> &M {
        &self.model
    }
}

impl<P: Wire, L: Lead> Timed<Rate, P, L> {
    /// Starts sending `pkt` at `now` on an idle transmitter (the caller has checked
    /// [`Timed::is_busy`]), as [`ServiceModel::advance`] would on taking it from the
    /// queue at `now`; hands it back, with nothing changed, when the transmission would
    /// already have ended by `now` (a zero duration: `advance` then passes it on at
    /// once). Plain serialisation draws nothing, so a refused start leaves no trace (the
    /// fast path of [`crate::LinkDir::enqueue`]).
    #[inline(always)]
    pub fn start_idle(&mut self, now: Time, pkt: P, rng: &mut SimRng) -> Result<(), P> {
        debug_assert!(self.busy.is_none(), "start_idle on a busy transmitter");
        let d = self.model.serve(now, pkt, rng);
        if d.at <= now {
            return Err(d.pkt);
        }
        self.busy = Some(d);
        Ok(())
    }
}

impl<M: TimedModel, P: Wire, L: Lead> ServiceModel<P, L> for Timed<M, P, L> {
    fn advance<F: FnMut(Departure<P, L>)>(
        &mut self,
        now: Time,
        queue: &mut Queue<P>,
        rng: &mut SimRng,
        emit: &mut F,
    ) {
        self.run(now, |at| queue.dequeue(at), rng, emit);
    }

    fn next_wakeup(&self, _queue: &Queue<P>) -> Option<Time> {
        self.busy.map(|d| d.at)
    }

    /// A timed transmission's end and extra delay are drawn when it starts
    /// ([`TimedModel::serve`]).
    fn known_departure(&self) -> Option<(Time, Dur)> {
        self.busy.as_ref().map(|d| (d.at, d.extra))
    }

    fn holding(&self) -> Option<&P> {
        self.busy.as_ref().map(|d| &d.pkt)
    }

    fn end_scheduled_at(&self, at: Time) -> Option<Time> {
        self.busy
            .as_ref()
            .filter(|d| d.at == at)
            .map(|d| d.lead.scheduled(d.at))
    }

    /// A timed transmission resumes where it was: its end moves by `now - since`.
    fn resume(&mut self, since: Time, now: Time) {
        if let Some(d) = self.busy.as_mut().filter(|d| d.at > since) {
            d.at += now - since;
            // The patched ns-2's `LinkDelay::freeze_end()` schedules the
            // transmission's end anew when the freeze ends.
            d.lead = L::of(d.at, now);
        }
    }

    fn set_rate(&mut self, rate: BitRate) {
        self.model.set_rate(rate);
    }
}
