//! Congestion controllers behind one trait, one file each.
//!
//! The sender owns the sequence space and decides *when* the window changes (an ACK
//! of new data, the start of fast recovery, a timeout, an undo); the controller
//! decides *by how much* cwnd grows, and keeps whatever state that needs (Linux's
//! `snd_cwnd_cnt`, CUBIC's epoch and W_max, HyStart's rounds). How ssthresh is
//! halved on a loss stays the window's `SsthreshRule`, which a
//! `linux` host derives from its controller (`LinuxSysctls::apply` in the linux stack's profile).
//!
//! The controllers, one per file:
//!
//! * [`rfc5681`]: RFC 5681's slow start and byte-counted congestion avoidance.
//! * [`ns2_opencwnd`]: ns-2.35's `TcpAgent::opencwnd()` as the 2002 agents ran it
//!   (`windowOption_` 1: cwnd_ += 1/cwnd_ in packets).
//! * [`linux_reno`]: the kernel's `tcp_reno_cong_avoid` (net/ipv4/tcp_cong.c).
//! * [`cubic`]: the kernel's CUBIC (net/ipv4/tcp_cubic.c, RFC 9438).
//! * [`bbr`]: the kernel's BBR v1 (net/ipv4/tcp_bbr.c), which takes over cwnd on every
//!   ACK from delivery-rate samples ([`CongestionControl::controls_cwnd`]) and paces.
//! * [`bbr3`]: BBRv3 from google/bbr's v3 branch, which no kernel here runs (its
//!   differences from v1 are listed there).
//!
//! A new controller is one file here with its `pub mod` line and one line in the
//! `controllers!` list below, which generates [`CcKind`] (names, Linux module name,
//! ns-2 export and kernel settings) and [`Cc`] (the [`CongestionControl`] dispatch by
//! `match`, see [`spikelab_core::dispatch_enum!`]). Each file states the Linux module
//! it models ([`Declared::LINUX_MODULE`]) and, as every algorithm of every family does
//! ([`crate::exports::Exports`]), its ns-2 export or the reason ns-2 cannot run it and
//! the kernel module `spikelab emulate` runs for it (`tcp_congestion_control`).

pub mod bbr;
pub mod bbr3;
mod bbr_shared;
pub mod cubic;
pub mod linux_reno;
pub mod ns2_opencwnd;
pub mod rfc5681;

use crate::exports::{Exports, Kernel, Ns2Export};
use crate::linux_cwnd_limited::CwndUsage;
use crate::rate::RateSample;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use spikelab_core::{Dur, SimRng, Time};

/// The window a controller reads, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwndView {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Sender maximum segment size (SMSS).
    pub mss: u64,
}

/// An ACK that may grow the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSample {
    /// When the ACK arrived.
    pub now: Time,
    /// Bytes it acknowledged cumulatively (RFC 5681's "bytes acknowledged").
    pub newly_acked: u64,
    /// Bytes it delivered for the first time: the cumulatively acknowledged bytes not
    /// SACKed before plus the bytes it SACKed (the kernel's `acked_sacked` =
    /// `tp->delivered - prior_delivered`).
    pub delivered: u64,
    /// The window before this ACK's growth.
    pub w: CwndView,
    /// Whether cwnd limited the sender of late (`tcp_is_cwnd_limited`; only the
    /// `linux` stack keeps it, others leave the default, "never limited").
    pub cwnd_usage: CwndUsage,
}

/// An RTT sample from an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEvent {
    pub now: Time,
    pub rtt: Dur,
    /// The window before this ACK's growth.
    pub w: CwndView,
    pub snd_una: u64,
    /// snd_max: the next new byte (the kernel's snd_nxt).
    pub snd_max: u64,
}

/// The kernel's congestion state (`icsk_ca_state`) as a controller that takes over
/// cwnd reads it: Open (also Disorder and CWR), Recovery (fast recovery) or Loss
/// (after a retransmission timeout), in the kernel's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

/// The connection as a controller that takes over cwnd sees it (`struct tcp_sock`),
/// counts in segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnView {
    pub now: Time,
    /// `mss_cache` in bytes.
    pub mss: u64,
    /// `snd_cwnd`.
    pub cwnd: u64,
    /// `tcp_packets_in_flight`.
    pub in_flight: u64,
    /// `tp->delivered` and `tp->delivered_mstamp` ([`crate::rate`]).
    pub delivered: u64,
    pub delivered_mstamp: Time,
    /// `tp->lost`: segments ever marked lost.
    pub lost: u64,
    pub ca_state: CaState,
    /// The smoothed RTT and `tcp_min_rtt`, once sampled.
    pub srtt: Option<Dur>,
    pub min_rtt: Option<Dur>,
    /// `tcp_wstamp_ns`: when pacing lets the next segment leave (the `pacing` module).
    pub wstamp: Time,
    /// `tp->is_cwnd_limited` ([`crate::linux_cwnd_limited`]; false outside the
    /// `linux` stack).
    pub is_cwnd_limited: bool,
}

/// What a controller that takes over cwnd sets on an ACK (`cong_control`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    /// `snd_cwnd` in segments.
    pub cwnd: u64,
    /// A new `snd_ssthresh` in segments, if set.
    pub ssthresh: Option<u64>,
    /// Mark the connection application-limited (`tp->app_limited = ...`).
    pub mark_app_limited: bool,
}

/// A controller's random draws: values a recorded kernel run drew, replayed first
/// in the order it drew them (`linux.bbr_cycle_draws`, for holding the model against
/// that run), then the flow's seeded stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CcRandom {
    pub stream: SimRng,
    /// The values still to replay, the next one last.
    replay: Vec<u8>,
}

impl CcRandom {
    /// `stream`'s draws after the values of `replay`, in order.
    pub fn new(stream: SimRng, replay: &[u8]) -> CcRandom {
        let replay = replay.iter().rev().copied().collect();
        CcRandom { stream, replay }
    }

    /// A draw from `0..n` (`get_random_u32_below(n)`): the next replayed value, else
    /// the stream's; a replayed draw leaves the stream untouched.
    pub fn below(&mut self, n: u8) -> u8 {
        match self.replay.pop() {
            Some(v) => {
                debug_assert!(v < n, "a replayed draw {v} outside 0..{n}");
                v
            }
            None => rand::Rng::random_range(&mut self.stream, 0..n),
        }
    }
}

impl From<SimRng> for CcRandom {
    fn from(stream: SimRng) -> CcRandom {
        CcRandom::new(stream, &[])
    }
}

/// What a model-based controller estimates, for traces (BBR's `bbr_get_info`): the
/// bandwidth estimate and pacing rate in bytes per second, min_rtt once sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelEstimates {
    pub bw: u64,
    pub min_rtt: Option<Dur>,
    pub pacing_rate: u64,
}

/// The controller interface. Every hook is named by the event that fires it; the
/// per-ACK hooks run on every ACK of the hot path.
pub trait CongestionControl {
    /// An ACK of new data outside fast recovery (or in the Loss state's slow start),
    /// and the ACKs the ns-2 2002 agents open cwnd on in fast recovery: returns the
    /// new cwnd in bytes.
    fn on_ack(&mut self, ack: &AckSample) -> u64;
    /// An ACK of new data brought a valid RTT sample (Karn's rule applied), before
    /// [`Self::on_ack`] for that ACK: returns a new ssthresh in bytes when the
    /// controller ends slow start (HyStart). Default: no change.
    #[inline]
    fn on_rtt_sample(&mut self, _s: &RttEvent) -> Option<u64> {
        None
    }
    /// cwnd is about to be reduced for a loss: fast recovery begins, a Tail Loss
    /// Probe revealed a repaired loss, or an episode's first timeout. `w` is the
    /// window before the reduction (the kernel's `ssthresh()` hook and
    /// `tcp_init_cwnd_reduction`). Default: nothing to note.
    fn on_congestion_event(&mut self, _w: &CwndView) {}
    /// The retransmission timer expired and cwnd is now the loss window
    /// (`tcp_enter_loss`: `set_state(TCP_CA_Loss)`); `snd_max` is the next new byte.
    /// Default: nothing to note.
    fn on_timeout(&mut self, _now: Time, _snd_max: u64) {}
    /// A reduction was undone (a spurious-timeout response or a fast-recovery undo):
    /// `w` is the restored window (the kernel's `undo_cwnd`, whose value the sender's
    /// restore rule already computed). Default: nothing to restore.
    fn on_undo(&mut self, _w: &CwndView) {}
    /// Whether the controller sets cwnd itself on every ACK from delivery-rate samples
    /// (the kernel's `cong_control` op: `tcp_cong_control` then skips slow start,
    /// congestion avoidance and PRR, and `tcp_end_cwnd_reduction` leaves cwnd alone).
    /// Default: no; the hooks below then never run.
    fn controls_cwnd(&self) -> bool {
        false
    }
    /// The connection is set up (`init`); `rng` is the flow's seeded stream for the
    /// controller's random draws. Default: nothing to set up.
    fn on_init(&mut self, _c: &ConnView, _rng: &CcRandom) {}
    /// Every ACK, after loss detection and undo (`cong_control` with the ACK's
    /// `struct rate_sample`). Default: cwnd as it is.
    fn on_cong_control(&mut self, _rs: &RateSample, c: &ConnView) -> Control {
        Control {
            cwnd: c.cwnd,
            ssthresh: None,
            mark_app_limited: false,
        }
    }
    /// Sending starts with nothing in flight (`CA_EVENT_TX_START`); `app_limited`:
    /// the connection is application-limited. Returns cwnd in segments. Default: as it is.
    fn on_tx_start(&mut self, c: &ConnView, _app_limited: bool) -> u64 {
        c.cwnd
    }
    /// A retransmission timeout entered the Loss state (`set_state(TCP_CA_Loss)`),
    /// its losses marked. Default: nothing to note.
    fn on_enter_loss(&mut self, _c: &ConnView) {}
    /// The pacing rate in bytes per second (`sk_pacing_rate`), if the controller
    /// paces. Default: none (the sender does not pace).
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Segments per skb (`tcp_tso_segs`): how many a paced transmission sends back to
    /// back (the `pacing` module). Default: one.
    fn tso_segs(&self, _c: &ConnView) -> u64 {
        1
    }
    /// The model's estimates, if the controller keeps a model (for traces).
    /// Default: none.
    fn estimates(&self) -> Option<ModelEstimates> {
        None
    }
}

/// A registered controller: a fresh state for a new connection, what it states about
/// the other simulators ([`Exports`]: its ns-2 export or refusal, and the kernel's
/// `tcp_congestion_control` that `spikelab emulate` runs for it), and the Linux
/// module it models.
pub trait Declared: CongestionControl + Default + Exports {
    /// The Linux module (`net.ipv4.tcp_congestion_control`) this controller models,
    /// if it models one: a `linux` host selects it by this name.
    const LINUX_MODULE: Option<&'static str>;
}

/// The type a controller is kept as inside [`Cc`]: its own, or the `as` type of its
/// registration line (a `Box` for the large ones).
macro_rules! stored {
    ($T:ty) => {
        $T
    };
    ($T:ty, $S:ty) => {
        $S
    };
}

/// The registration macro: from one list, one line per controller
/// (`"name" => Variant(Type),`, or `... as Box<Type>,` to keep a large one boxed), it
/// generates [`CcKind`] with its names and declarations and [`Cc`] with its
/// [`CongestionControl`] forwarding.
macro_rules! controllers {
    ($( $(#[$doc:meta])* $name:literal => $V:ident($T:ty) $(as $S:ty)?, )*) => {
        /// Which congestion controller a flow runs.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum CcKind {
            $( $(#[$doc])* $V, )*
        }

        impl CcKind {
            /// Every controller, in registration order.
            pub const ALL: &'static [CcKind] = &[$(CcKind::$V),*];

            /// The controller's registry name.
            pub fn name(self) -> &'static str {
                match self { $( CcKind::$V => $name, )* }
            }

            /// The Linux module the controller models, if any.
            pub fn linux_module(self) -> Option<&'static str> {
                match self { $( CcKind::$V => <$T as Declared>::LINUX_MODULE, )* }
            }
        }

        impl Exports for CcKind {
            fn ns2(&self) -> Ns2Export {
                match self { $( CcKind::$V => <$T>::default().ns2(), )* }
            }
            fn kernel(&self) -> Kernel {
                match self { $( CcKind::$V => <$T>::default().kernel(), )* }
            }
        }

        spikelab_core::dispatch_enum! {
            /// The controller a flow runs; dispatches by `match`.
            #[derive(Clone, Debug, PartialEq, Eq)]
            pub enum Cc: CongestionControl { $( $(#[$doc])* $V(stored!($T $(, $S)?)) ),* }
            methods {
                #[inline]
                fn on_ack(&mut self, ack: &AckSample) -> u64;
                #[inline]
                fn on_rtt_sample(&mut self, s: &RttEvent) -> Option<u64>;
                fn on_congestion_event(&mut self, w: &CwndView);
                fn on_timeout(&mut self, now: Time, snd_max: u64);
                fn on_undo(&mut self, w: &CwndView);
                #[inline]
                fn controls_cwnd(&self) -> bool;
                fn on_init(&mut self, c: &ConnView, rng: &CcRandom);
                fn on_cong_control(&mut self, rs: &RateSample, c: &ConnView) -> Control;
                fn on_tx_start(&mut self, c: &ConnView, app_limited: bool) -> u64;
                fn on_enter_loss(&mut self, c: &ConnView);
                #[inline]
                fn pacing_rate(&self) -> Option<u64>;
                fn tso_segs(&self, c: &ConnView) -> u64;
                fn estimates(&self) -> Option<ModelEstimates>;
            }
        }

        impl Cc {
            /// A fresh controller of `kind` for a new connection.
            pub fn new(kind: CcKind) -> Cc {
                match kind { $( CcKind::$V => Cc::$V(<$T>::default().into()), )* }
            }
        }
    };
}

controllers! {
    /// RFC 5681 section 3.1: slow start and byte-counted congestion avoidance.
    "rfc5681-reno" => Rfc5681Reno(rfc5681::Rfc5681Reno),
    /// ns-2.35 `TcpAgent::opencwnd()` with `windowOption_` 1.
    "ns2-opencwnd" => Ns2Opencwnd(ns2_opencwnd::Ns2Opencwnd),
    /// The kernel's Reno (`tcp_reno_cong_avoid`).
    "linux-reno" => LinuxReno(linux_reno::LinuxReno),
    /// The kernel's CUBIC (`tcp_cubic.c`).
    "cubic" => Cubic(cubic::Cubic) as Box<cubic::Cubic>,
    /// The kernel's BBR v1 (`tcp_bbr.c`).
    "bbr" => Bbr(bbr::Bbr) as Box<bbr::Bbr>,
    /// BBRv3 from google/bbr's v3 branch (no kernel here runs it).
    "bbr3" => Bbr3(bbr3::Bbr3),
}

/// `net.ipv4.tcp_congestion_control`: a controller with a Linux module name, written
/// in scenarios by that name (`"reno"`, `"cubic"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxModule(CcKind);

impl LinuxModule {
    /// The module of this name, if a registered controller models it.
    pub fn named(name: &str) -> Option<LinuxModule> {
        let is = |k: &&CcKind| k.linux_module() == Some(name);
        CcKind::ALL.iter().find(is).map(|&k| LinuxModule(k))
    }

    /// The module names a scenario may write, in registration order.
    pub fn names() -> Vec<&'static str> {
        (CcKind::ALL.iter())
            .filter_map(|k| k.linux_module())
            .collect()
    }

    /// The controller.
    pub fn kind(self) -> CcKind {
        self.0
    }

    /// The kernel's module name.
    pub fn name(self) -> &'static str {
        self.0.linux_module().unwrap_or_default()
    }
}

impl Default for LinuxModule {
    /// `reno` (the kernel's default is cubic; spikelab's and the emulator's is reno).
    fn default() -> Self {
        LinuxModule(CcKind::LinuxReno)
    }
}

impl Serialize for LinuxModule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for LinuxModule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        LinuxModule::named(&name).ok_or_else(|| {
            let known = LinuxModule::names();
            serde::de::Error::custom(format!(
                "unknown variant `{name}`, expected one of {}",
                known
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_controller_names_the_kernel_module_emulate_runs_or_says_why_none() {
        for k in CcKind::ALL {
            match k.kernel() {
                Kernel::Sysctls(_) => {
                    let module = k.kernel().sysctl("tcp_congestion_control");
                    assert!(module.is_some_and(|m| !m.is_empty()), "{}", k.name());
                }
                Kernel::Nothing(why) => assert!(!why.is_empty(), "{}", k.name()),
            }
        }
        assert!(matches!(CcKind::Bbr3.kernel(), Kernel::Nothing(_)));
    }

    #[test]
    fn a_controller_modelling_a_linux_module_asks_the_kernel_for_it() {
        for k in CcKind::ALL {
            if let (Some(m), Kernel::Sysctls(_)) = (k.linux_module(), k.kernel()) {
                assert_eq!(k.kernel().sysctl("tcp_congestion_control"), Some(m));
            }
        }
    }

    #[test]
    fn a_linux_host_names_reno_cubic_and_bbr_by_their_module_names() {
        assert_eq!(LinuxModule::names(), ["reno", "cubic", "bbr", "bbr3"]);
        assert_eq!(
            LinuxModule::named("cubic").map(LinuxModule::kind),
            Some(CcKind::Cubic)
        );
        assert_eq!(
            LinuxModule::named("bbr").map(LinuxModule::kind),
            Some(CcKind::Bbr)
        );
        assert_eq!(LinuxModule::named("vegas"), None);
        assert_eq!(LinuxModule::default().name(), "reno");
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = CcKind::ALL.iter().map(|k| k.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CcKind::ALL.len());
    }
}
