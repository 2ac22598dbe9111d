//! The transport family: what the engine knows of a flow's two endpoints.
//!
//! The world drives a connection's sender and receiver only through [`Transport`]'s
//! `on_<event>` hooks (the application's start and writes, a packet's arrival, each
//! endpoint's timer) and learns what they decided from the outcome enums they return:
//! an [`Arrival`] for every packet, an [`Expiry`] (asked before the sender's timer
//! fires, while the network still holds what ground truth needs) and a
//! [`TimerDecision`] after it. A transport whose recovery declares packets lost, or
//! fires probe timeouts that are no retransmission timeouts (QUIC, RFC 9002 6), hands
//! those over as [`Declaration`]s after each event at its sender, and states the
//! network's facts about each ([`Transport::declaration_truth`]). Ground truth,
//! metrics, traces and captures are built from these reports alone, so they work for
//! any transport that makes them.
//!
//! The registered transports are the variants of [`Transports`] (one line each in
//! [`transports!`]); dispatch is static ([`spikelab_core::dispatch_enum!`]): with one
//! registered transport the match compiles away, and every packet's hook is a direct,
//! inlinable call.
//!
//! Adding a transport: one file beside `tcp.rs` implementing [`Transport`] and
//! [`FromFlow`], and one line in the `transports!` list below
//! (`docs/src/architecture.md`).

use crate::config::FlowKind;
use crate::facts::{Facts, Truth};
use spikelab_core::{Dur, FlowId, Packet, RngStreams, Time};
use spikelab_tcp::spurious::{EpisodeVerdict, UndoCounters};

/// What a packet reaching the end of its route did at the endpoint that took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Data reached the receiver; `unnecessary`: a retransmission of data it already
    /// held in full.
    Data { unnecessary: bool },
    /// A connection-setup packet (TCP's SYN) reached the receiver.
    Setup,
    /// Feedback (an ACK) reached the sender: whether it was a duplicate, and the RTT
    /// sample it gave.
    Feedback {
        duplicate: bool,
        rtt_sample: Option<Dur>,
    },
    /// A packet neither endpoint takes (a datagram on a connection's route): nothing
    /// was decided, but either endpoint may be looked at again.
    Unclaimed,
}

/// What the sender's timer is, asked when it is due and before the sender acts (the
/// network still holds what ground truth classifies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// The connection-setup packet is outstanding.
    Setup,
    /// A retransmission timeout of data: the sender's state as it fires.
    Data(TimedOut),
    /// A timer that declares no timeout: a loss probe, a reordering timer, a timer
    /// running with nothing outstanding.
    NoTimeout,
}

/// The sender's state when its retransmission timer fires on data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedOut {
    /// The first unacknowledged sequence number: what timed out.
    pub seq: u64,
    /// The timeout the timer was last started with.
    pub rto: Dur,
    /// The last RTT sample before the timeout.
    pub last_rtt: Option<Dur>,
    /// Timeouts of this data before this one.
    pub backoff: u32,
    /// The timer fired during loss recovery.
    pub in_recovery: bool,
}

/// What the sender's timer decided, as the sender reports it; must agree with the
/// [`Expiry`] the world saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerDecision {
    /// Nothing was due after all.
    NotDue,
    /// The connection-setup packet was retransmitted.
    SetupTimeout,
    /// A retransmission timeout of data; `number` counts the flow's data timeouts from
    /// 0 in order, and verdicts on them name them by it ([`Judgements`]).
    Timeout { number: u64 },
    /// No timeout (`what`: a loss probe, a reordering timer, an idle timer).
    NoTimeout { what: &'static str },
}

/// A recovery decision of the sender that ground truth judges, besides its
/// retransmission timeouts: made during an event at the sender, handed over right
/// after it ([`Transport::take_declarations`]) while the network is still as the
/// sender saw it (its new packets not yet sent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declaration {
    /// The sender declared the packet numbered `packet` lost (RFC 9002 6.1); its data
    /// will go again in new packets.
    Loss { packet: u64 },
    /// A probe timeout fired (RFC 9002 6.2): probes go out, nothing is declared lost.
    /// `backoff`: probe timeouts before it with no acknowledgement in between.
    Probe { backoff: u32 },
}

/// The sender's congestion and timer state, traced whenever it changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderState {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// The timeout the running timer was started with, and its back-off count.
    pub rto: Dur,
    pub backoff: u32,
    pub srtt: Option<Dur>,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// A model-based controller's (bandwidth, min_rtt, pacing rate), if it keeps one.
    pub bbr: Option<(u64, Option<Dur>, u64)>,
}

/// A flow's counters at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransportStats {
    /// Data packets handed to the network, first transmissions and retransmissions.
    pub data_segments_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    /// Spurious-timeout responses applied.
    pub spurious_responses: u64,
    /// Losses declared persistent congestion (RFC 9002 7.6).
    pub persistent_congestion: u64,
    /// Congestion responses undone after a spurious loss declaration (QUIC's undo
    /// rules).
    pub undos: u64,
    /// TCP's undos and failed recoveries under the kernel's counter names (zero for a
    /// transport without them).
    pub undo_counters: UndoCounters,
}

/// The sender's judgements on its own timeouts, named by [`TimerDecision::Timeout`]'s
/// number; attached to the ground truth when the run ends.
pub struct Judgements<'a> {
    /// Numbers of the data timeouts that turned out to be fast timeouts.
    pub fast_timeouts: &'a [u64],
    /// Every detector's verdict, naming the timeouts it judged.
    pub verdicts: &'a [EpisodeVerdict],
}

/// Whether a packet of the flow is in the network (a link or a box), asked by ground
/// truth with the transport's own test of the packet.
pub type InNetwork<'a> = &'a dyn Fn(&dyn Fn(&Packet) -> bool) -> bool;

/// How a transport is built for a flow: `None` when the flow's kind is not its own;
/// `streams` are the run's seeded random streams.
pub trait FromFlow: Sized {
    fn from_flow(flow: FlowId, kind: &FlowKind, streams: &RngStreams) -> Option<Self>;
    /// Whether a flow of `kind` is this transport's ([`FromFlow::from_flow`] gives
    /// `Some`), asked without building it.
    fn takes(kind: &FlowKind) -> bool;
}

/// One connection: its sender and receiver, driven by the world through these hooks.
pub trait Transport {
    /// Whether the transport ever makes [`Declaration`]s: when not, the world never
    /// asks for them ([`Transport::take_declarations`] after every event at the sender).
    const DECLARES: bool;
    /// Whether a deadline the transport gives may lie before the event that produced
    /// it: a timer "set in the past", which fires at once (RFC 9002 A.8: a PTO computed
    /// from a probe sent long ago, after an ACK reset the back-off; quinn's
    /// `poll_timeout`). The world then arms it at the current instant; a transport
    /// whose deadlines never pass (TCP: checked in debug builds) pays nothing.
    const DEADLINES_MAY_PASS: bool;
    /// The application opens the connection.
    fn on_start(&mut self, now: Time, out: &mut Vec<Packet>);
    /// The application writes `bytes` more.
    fn on_app_write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>);
    /// `p` reached the end of its route, at whichever endpoint takes it.
    fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) -> Arrival;
    /// When the sender's timer fires, if armed.
    fn sender_deadline(&self) -> Option<Time>;
    /// When the receiver's timer (delayed acknowledgement) fires, if armed.
    fn receiver_deadline(&self) -> Option<Time>;
    /// What the sender's timer is if it fires at `now`; `None` if it is not due.
    fn expiry(&self, now: Time) -> Option<Expiry>;
    /// The network's facts about the data a timeout at `seq` fired for.
    fn timeout_facts(&self, seq: u64, in_network: InNetwork<'_>) -> Facts;
    /// The sender's timer fires.
    fn on_sender_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerDecision;
    /// The receiver's timer fires.
    fn on_receiver_timer(&mut self, now: Time, out: &mut Vec<Packet>);
    /// Everything the application wrote has been acknowledged.
    fn all_acked(&self) -> bool;
    /// Bytes the application has written so far.
    fn app_end(&self) -> u64;
    /// The largest payload of one data packet.
    fn segment_size(&self) -> u64;
    /// The timeout the sender would arm now.
    fn timeout_interval(&self) -> Dur;
    /// The sender's traced state.
    fn sender_state(&self) -> SenderState;
    /// The sender's invariants.
    fn check_invariants(&self) -> Result<(), String>;
    /// The counters for the flow's result.
    fn stats(&self) -> TransportStats;
    /// The sender's judgements on its timeouts.
    fn judgements(&self) -> Judgements<'_>;
    /// Moves the [`Declaration`]s made since the last call into `into`.
    fn take_declarations(&mut self, into: &mut Vec<Declaration>);
    /// What the network held for a declaration just taken: spurious when the packet
    /// declared lost (or, for a probe timeout, an outstanding packet or an ACK of one)
    /// was still in the network or had already arrived.
    fn declaration_truth(&self, d: Declaration, in_network: InNetwork<'_>) -> Truth;
}

/// The registration list: one line per transport, `module: Variant(Type)`; it declares
/// the transport's module (its file beside this one) and its variant of [`Transports`].
macro_rules! transports {
    ($($m:ident: $V:ident($T:ident)),* $(,)?) => {
        $(pub mod $m;)*

        spikelab_core::dispatch_enum! {
            /// Every registered transport ([`Transport`] by a static `match`).
            pub enum Transports: Transport { $($V($m::$T)),* }
            consts {
                const DECLARES: bool = $(<$m::$T as Transport>::DECLARES)||*;
                const DEADLINES_MAY_PASS: bool = $(<$m::$T as Transport>::DEADLINES_MAY_PASS)||*;
            }
            methods {
                #[inline]
                fn on_start(&mut self, now: Time, out: &mut Vec<Packet>);
                #[inline]
                fn on_app_write(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>);
                #[inline(always)]
                fn on_packet(&mut self, now: Time, p: &Packet, out: &mut Vec<Packet>) -> Arrival;
                #[inline]
                fn sender_deadline(&self) -> Option<Time>;
                #[inline]
                fn receiver_deadline(&self) -> Option<Time>;
                #[inline]
                fn expiry(&self, now: Time) -> Option<Expiry>;
                fn timeout_facts(&self, seq: u64, in_network: InNetwork<'_>) -> Facts;
                #[inline]
                fn on_sender_timer(&mut self, now: Time, out: &mut Vec<Packet>) -> TimerDecision;
                #[inline]
                fn on_receiver_timer(&mut self, now: Time, out: &mut Vec<Packet>);
                #[inline]
                fn all_acked(&self) -> bool;
                #[inline]
                fn app_end(&self) -> u64;
                #[inline]
                fn segment_size(&self) -> u64;
                #[inline]
                fn timeout_interval(&self) -> Dur;
                #[inline]
                fn sender_state(&self) -> SenderState;
                #[inline]
                fn check_invariants(&self) -> Result<(), String>;
                fn stats(&self) -> TransportStats;
                fn judgements(&self) -> Judgements<'_>;
                #[inline]
                fn take_declarations(&mut self, into: &mut Vec<Declaration>);
                fn declaration_truth(&self, d: Declaration, in_network: InNetwork<'_>) -> Truth;
            }
        }

        impl FromFlow for Transports {
            /// The transport of a flow of `kind`: the first registered one that takes
            /// it, or `None` for a flow that is no connection (a CBR source, which the
            /// world runs itself).
            fn from_flow(flow: FlowId, kind: &FlowKind, streams: &RngStreams) -> Option<Transports> {
                $(
                    if let Some(t) = <$m::$T as FromFlow>::from_flow(flow, kind, streams) {
                        return Some(Transports::$V(t));
                    }
                )*
                None
            }

            fn takes(kind: &FlowKind) -> bool {
                $(<$m::$T as FromFlow>::takes(kind))||*
            }
        }
    };
}

/// The transport a run whose connections are all its own is built over alone
/// (`World::new`), so that every hook on every packet is a direct, inlinable call with
/// no `match` over [`Transports`]: the common case (every paper's scenarios, the
/// harness). Any other run is built over [`Transports`].
pub type Single = tcp::TcpTransport;

transports! {
    tcp: Tcp(TcpTransport),
    quic: QuicModel(QuicModelTransport),
    quinn: Quinn(QuinnTransport),
}
