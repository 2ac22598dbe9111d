//! Per-flow TCP configuration, deserialised straight from scenario files.
//!
//! Defaults follow today's standards (RFC 5681, 6298, 7323, 3042); the constructor
//! [`TcpConfig::ns2_2002`] gives the settings the papers' simulator used (see
//! `docs/src/ns2-2002-defaults.md`), named and documented field by field.

use crate::exports::{Exports, Kernel, Ns2Export};
use crate::linux_profile::LinuxSysctls;
use crate::recovery::PipeRule;
pub use crate::recovery::RecoveryKind;
use crate::response::SpuriousConfig;
use crate::rto::RtoConfig;
use crate::window::SsthreshRule;
use serde::{Deserialize, Serialize};
use spikelab_core::Dur;

/// What the sender retransmits when its timer fires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeoutRetransmit {
    /// A conventional sender: resend everything from snd_una in slow start.
    #[default]
    GoBackN,
    /// Resend only the timed-out segment and continue from snd_nxt
    /// ([Klein et al. 2004] IV: the paper's simulator "retransmits only the packet
    /// that timed out").
    SelectiveRepeat,
}

/// Which TSval the receiver echoes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EchoRule {
    /// RFC 7323 section 4.3: TS.Recent is updated only by a segment with
    /// SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent, so an out-of-order segment
    /// echoes the timestamp of the segment that last advanced the window.
    Rfc7323,
    /// ns-2's sink before 2003 (`ts_echo_bugfix_ false`): echo the newest arrival's TSval.
    Latest,
}

/// Delayed-ACK policy of the receiver (RFC 5681 section 4.2, RFC 1122 4.2.3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DelayedAck {
    /// Delay ACKs at all. Default: true.
    pub enabled: bool,
    /// ACK at least every this many full-sized segments. Default: 2 (RFC 5681).
    pub every: u32,
    /// Send a pending ACK after this long. Default: 100 ms (ns-2's DelAck interval;
    /// RFC 5681 allows up to 500 ms).
    pub timeout: Dur,
}

impl Default for DelayedAck {
    fn default() -> Self {
        DelayedAck {
            enabled: true,
            every: 2,
            timeout: Dur::from_millis(100),
        }
    }
}

/// Where ns-2.35 takes one of [`Ns2Switches`] from, which decides how `spikelab export
/// ns2` (`spikelab-ns2`) treats it: a switch on is ns-2's behaviour and exports as is;
/// a switch off is refused with [`Ns2Source::refusal_when_off`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns2Source {
    /// Tcl variables at their 2002 values (class, variable, value), which the exported
    /// script sets among its 2002 defaults. Their later values are ns-2's own fixes,
    /// which the differential suite has not compared with the switch off.
    Tcl(&'static [(&'static str, &'static str, &'static str)]),
    /// The named C++ function of ns-2.35 always behaves this way: no Tcl variable turns
    /// it off.
    Code(&'static str),
}

impl Ns2Source {
    /// Why ns-2.35 cannot run the switch off.
    pub fn refusal_when_off(&self) -> String {
        match self {
            Ns2Source::Code(f) => {
                format!("ns-2.35's `{f}` always behaves this way (no Tcl variable turns it off)")
            }
            Ns2Source::Tcl(vars) => {
                let set: Vec<String> = vars
                    .iter()
                    .map(|(c, v, x)| format!("`{c} set {v} {x}`"))
                    .collect();
                format!(
                    "the script sets {} as in 2002; the later values are not compared with this switch off",
                    set.join(", ")
                )
            }
        }
    }
}

/// One switch of [`Ns2Switches`] as its declaration states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns2Switch {
    /// The field, also the key of `[flow.tcp.ns2]` in scenario files.
    pub name: &'static str,
    /// The field's documentation.
    pub doc: &'static str,
    /// Where ns-2.35 takes it from (its export).
    pub ns2: Ns2Source,
}

/// A switch on is ns-2's own behaviour: its Tcl variables at their 2002 values, or its
/// C++ code; a Linux host runs its own stack instead (the `linux` profile).
impl Exports for Ns2Switch {
    fn ns2(&self) -> Ns2Export {
        match self.ns2 {
            Ns2Source::Tcl(vars) => {
                Ns2Export::Settings(vars.iter().map(|(_, v, x)| (*v, x.to_string())).collect())
            }
            Ns2Source::Code(f) => Ns2Export::Native(f),
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing("a behaviour of ns-2's 2002 agents; a Linux host runs its own stack")
    }
}

/// The declaration of [`Ns2Switches`]: every field with its documentation and its
/// [`Ns2Source`] (`pub field: bool = source,`). From it come the struct (whose field
/// names serde uses as the scenario keys), [`Ns2Switches::DECLARED`],
/// [`Ns2Switches::all`] and [`Ns2Switches::iter`], so a switch cannot exist without a
/// stated export.
macro_rules! ns2_switches {
    (
        $(#[$meta:meta])*
        pub struct Ns2Switches {
            $( $(#[doc = $doc:literal])* pub $f:ident: bool = $ns2:expr, )*
        }
    ) => {
        $(#[$meta])*
        pub struct Ns2Switches {
            $( $(#[doc = $doc])* pub $f: bool, )*
        }

        impl Ns2Switches {
            /// Every switch in declaration order.
            pub const DECLARED: &'static [Ns2Switch] = &[
                $( Ns2Switch {
                    name: stringify!($f),
                    doc: concat!($($doc, "\n",)*),
                    ns2: $ns2,
                }, )*
            ];

            /// Every switch on: ns-2's agents (and scheduler) as they ran in 2002.
            pub fn all() -> Ns2Switches {
                Ns2Switches { $( $f: true, )* }
            }

            /// Every switch with its value, in declaration order.
            pub fn iter(&self) -> impl Iterator<Item = (&'static Ns2Switch, bool)> {
                Self::DECLARED.iter().zip([$( self.$f, )*])
            }
        }
    };
}

ns2_switches! {
    /// Behaviours of ns-2's 2002 one-way agents and sinks that no RFC describes, each a
    /// named switch cited to the ns-2.35 function it follows (`tcp/tcp.cc`,
    /// `tcp/tcp-reno.cc`, `tcp/tcp-sink.cc`). All off by default (the `modern` profile);
    /// [`TcpConfig::ns2_2002`] turns them on. Found by the differential suite against
    /// ns-2.35 (`spikelab-ns2`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct Ns2Switches {
        /// `TcpAgent::reset()`: `ssthresh_ = window_`, so slow start ends at the
        /// advertised window instead of at the first loss.
        pub ssthresh_starts_at_window: bool = Ns2Source::Code("TcpAgent::reset()"),
        /// `DelAckSink::recv()` before `SYN_immediate_ack_` (added 2010/02/02): the SYN,
        /// ns-2's packet 0, is an in-order packet whose ACK waits for the delayed-ACK
        /// timer, so the handshake's RTT includes the timer.
        pub delayed_syn_ack: bool =
            Ns2Source::Tcl(&[("Agent/TCPSink", "SYN_immediate_ack_", "false")]),
        /// Wire sizes of `TcpAgent::output()` / `headersize()` (`useHeaders_` true) and
        /// `TcpSink::ack()`: a data packet is payload + `tcpip_base_hdr_size_` 40 (+
        /// `ts_option_size_` 10 with timestamps, no padding), the SYN 40, an ACK 40 + 8
        /// per SACK block.
        pub header_sizes: bool = Ns2Source::Tcl(&[
            ("Agent/TCP", "useHeaders_", "true"),
            ("Agent/TCP", "tcpip_base_hdr_size_", "40"),
            ("Agent/TCP", "ts_option_size_", "10"),
        ]),
        /// `RenoTcpAgent::dupack_action()` and `Sack1TcpAgent`'s: `reset_rtx_timer(1, 0)`
        /// restarts the retransmission timer at a fast retransmit.
        pub restart_timer_on_fast_retransmit: bool =
            Ns2Source::Code("RenoTcpAgent::dupack_action()"),
        /// `dupack_action()` with `bugFix_`: `recover_` is set to `maxseq_` by every fast
        /// retransmit as well as by a timeout, so no new fast retransmit starts until the
        /// ACKs pass the highest segment sent before the last one.
        pub careful_after_fast_retransmit: bool = Ns2Source::Code("dupack_action()"),
        /// `RenoTcpAgent::recv()` with `exitFastRetrans_` false (the behaviour before
        /// 2003/07/28): the window is inflated by one packet per duplicate ACK from the
        /// DupThresh-th on (`dupwnd_`) even when `bugFix_` suppressed the fast retransmit.
        pub inflate_without_fast_retransmit: bool =
            Ns2Source::Tcl(&[("Agent/TCP", "exitFastRetrans_", "false")]),
        /// `RenoTcpAgent::recv()` / `NewRenoTcpAgent::recv()`: the ACK that ends fast
        /// recovery also runs `opencwnd()`, so cwnd leaves recovery at ssthresh plus one
        /// congestion-avoidance step (Reno and NewReno only: `Sack1TcpAgent::recv()` calls
        /// just `newack()` there).
        pub grow_on_recovery_exit: bool = Ns2Source::Code("RenoTcpAgent::recv()"),
        /// `opencwnd()`: ns-2 keeps cwnd_ as a real number of packets and adds 1/cwnd_ per
        /// ACK in congestion avoidance; spikelab's integer bytes then round the step to the
        /// nearest byte instead of truncating MSS*MSS/cwnd.
        pub cwnd_increase_in_packets: bool = Ns2Source::Code("opencwnd()"),
        /// `NewRenoTcpAgent::partialnewack()` with 2002's `partial_window_deflation_` 0
        /// and `exit_recovery_fix_` 0: a partial ACK removes the whole inflation (window =
        /// ssthresh, then one more per duplicate ACK) and leaving recovery keeps cwnd at
        /// ssthresh instead of RFC 6582's min(ssthresh, FlightSize + SMSS).
        pub newreno_2002_partial_ack: bool = Ns2Source::Tcl(&[
            ("Agent/TCP/Newreno", "partial_window_deflation_", "0"),
            ("Agent/TCP/Newreno", "exit_recovery_fix_", "0"),
        ]),
        /// `TcpAgent::send_one()` (`singledup_`): the first two duplicate ACKs each release
        /// the packet at `t_seqno_` while `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`,
        /// also when that packet is a go-back-N retransmission after a timeout (RFC 3042
        /// sends only new data).
        pub limited_transmit_in_go_back_n: bool = Ns2Source::Code("TcpAgent::send_one()"),
        /// `TcpAgent::recv_newack_helper()`: F-RTO falls back to conventional recovery at
        /// the first new ACK unless `recover_ + 1 < highest_ack_ + wnd_`, i.e. unless the
        /// advertised window has room for two new segments (RFC 5682 step 2b needs one).
        pub frto_needs_room_for_two: bool = Ns2Source::Code("TcpAgent::recv_newack_helper()"),
        /// `Sack1TcpAgent::recv()` outside fast recovery (Reno-SACK only): a duplicate ACK
        /// counts (towards fast retransmit, and for `send_one()`) only when `timeout_` is
        /// false, i.e. not between a timeout and the next new ACK, and when its SACK blocks
        /// changed the scoreboard (`ScoreBoard::CheckUpdate()`), which every new ACK and
        /// every timeout clears ([`crate::recovery::ns2_sack1`]); and fast retransmit
        /// starts exactly at the DupThresh-th counted duplicate (`++dupacks_ ==
        /// numdupacks(cwnd_)`), never earlier by RFC 6675's IsLost(HighACK + 1).
        pub sack1_dupack_rules: bool = Ns2Source::Code("Sack1TcpAgent::recv()"),
        /// `Sack1TcpAgent::send_much()` outside fast recovery (Reno-SACK only): go-back-N
        /// after a timeout sends every segment from `t_seqno_` on, SACKed or not; the
        /// scoreboard (`GetNextRetran()`) is empty there, since every new ACK and every
        /// timeout clears it and a duplicate ACK that fills it stops `send_much()`.
        pub sack1_go_back_n_resends_sacked: bool = Ns2Source::Code("Sack1TcpAgent::send_much()"),
        /// `Sack1TcpAgent::send_much()` in fast recovery (Reno-SACK and NewReno-SACK, both
        /// ns-2's Sack1 agent): while `pipe_ < cwnd_` it sends `ScoreBoard::GetNextRetran()`,
        /// the first packet between the cumulative ACK and the highest SACKed packet that
        /// is neither SACKed nor already retransmitted, before any new data, whether or not
        /// RFC 6675's IsLost() deems it lost (NextSeg's rule 1 needs DupThresh SACKed
        /// segments above a hole; its rule 3 comes only after new data). Only with
        /// `sack_pipe = "ns2-sack1"`, the agent's other half: with RFC 6675's SetPipe the
        /// sender keeps RFC 6675's NextSeg.
        pub sack1_retransmits_every_hole_first: bool =
            Ns2Source::Code("Sack1TcpAgent::send_much()"),
        /// `Sack1TcpAgent::timeout()` (Reno-SACK and NewReno-SACK with an F-RTO driver): "F-RTO
        /// is not allowed if earlier SACK fast recovery is underway": a timeout during
        /// fast recovery sets `frto_ = 0` after `TcpAgent::timeout()`, so it is recovered by
        /// go-back-N without F-RTO's probe; RFC 5682 and RFC 6675 have no such exception.
        pub sack1_no_frto_in_fast_recovery: bool = Ns2Source::Code("Sack1TcpAgent::timeout()"),
        /// `RenoTcpAgent::timeout()` (Reno and NewReno): `dupwnd_ = 0` before
        /// `TcpAgent::timeout()`, so a timeout during fast recovery halves the window
        /// without its inflation (ns-2 keeps the inflation in `dupwnd_`, apart from `cwnd_`
        /// = ssthresh): spikelab's cwnd, inflated by one segment per duplicate ACK, drops
        /// to ssthresh before the timeout's halving (RFC 5681 halves FlightSize instead).
        pub timeout_drops_inflation: bool = Ns2Source::Code("RenoTcpAgent::timeout()"),
        /// `TcpAgent::recv_frto_helper()` (Reno and NewReno F-RTO): the duplicate ACK that
        /// ends F-RTO as a genuine timeout sets `dupacks_ = -1`, which `recv()` raises to 0,
        /// so it does not count as a duplicate and releases no Limited Transmit segment
        /// (`send_one()`): slow start retransmits only what cwnd allows.
        pub frto_fallback_dupack_uncounted: bool = Ns2Source::Code("TcpAgent::recv_frto_helper()"),
        /// `TcpAgent::spurious_timeout()` with `spurious_response_` 1 (F-RTO and SACK-F-RTO):
        /// a timeout F-RTO declares spurious sets `cwnd_ = t_seqno_ - prev_highest_ack_`
        /// (the packets outstanding before the last new ACK, plus one) and `ssthresh_ =
        /// pipe_prev_`, which `TcpAgent::timeout()` sets at every expiry, before reducing,
        /// to `max(window(), ssthresh_)` (`window()` = min(cwnd_, wnd_) in whole packets),
        /// and clears `recover_`, in place of the configured `spurious.response.restore`.
        pub frto_spurious_response_1: bool =
            Ns2Source::Tcl(&[("Agent/TCP", "spurious_response_", "1")]),
        /// `FackTcpAgent::recv()` (FACK only): fast recovery starts when `fack_ - last_ack_
        /// - 1 >= numdupacks_` on any ACK with SACK blocks, new or duplicate, whatever the
        /// duplicate count and `bugFix_` ([`crate::recovery::ns2_fack`]).
        pub fack_enters_by_forward_ack: bool = Ns2Source::Code("FackTcpAgent::recv()"),
        /// `FackTcpAgent::recv()` with `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`
        /// (FACK only): fast recovery restarts cwnd at one packet, every ACK in it runs
        /// `opencwnd()`, leaving keeps the grown window, and `send_much()` counts the window
        /// in whole packets ([`crate::recovery::ns2_fack`]).
        pub fack_restarts_window_in_recovery: bool = Ns2Source::Code("FackTcpAgent::recv()"),
        /// `FackTcpAgent::recv()` outside fast recovery (FACK only): an ACK with SACK blocks
        /// runs `oldack()` (no `opencwnd()`) and sends nothing (`dupacks_ != 0`), so no
        /// Limited Transmit ([`crate::recovery::ns2_fack`]).
        pub fack_sack_acks_send_nothing: bool = Ns2Source::Code("FackTcpAgent::recv()"),
        /// `FackTcpAgent::recv()` outside fast recovery (FACK only): a duplicate ACK
        /// without SACK blocks also takes `oldack()` and sets `dupacks_ = (fack_ -
        /// last_ack_) - 1` = -1 (no block lifts `fack_` above `last_ack_`), so `if
        /// (dupacks_ == 0) send_much()` sends nothing; the agent has no `send_one()`, so no
        /// Limited Transmit. ns-2's SACK sink sends such ACKs for duplicates of held data,
        /// e.g. go-back-N's resends after a spurious timeout.
        pub fack_duplicate_acks_send_nothing: bool = Ns2Source::Code("FackTcpAgent::recv()"),
        /// `FackTcpAgent::oldack()` (FACK only), run for every ACK that acknowledges
        /// nothing new: `newtimer()` restarts the retransmission timer while data is
        /// outstanding, so duplicate ACKs postpone the timeout.
        pub fack_restarts_timer_on_every_ack: bool = Ns2Source::Code("FackTcpAgent::oldack()"),
        /// `FackTcpAgent::oldack()` (FACK only): `rtt_update(now - ts_echo())` on every ACK
        /// that acknowledges nothing new, so duplicate ACKs feed the RTT estimator (with
        /// timestamps the option's echo; without them see
        /// `fack_samples_rtt_from_header_echo`).
        pub fack_samples_rtt_on_every_ack: bool = Ns2Source::Code("FackTcpAgent::oldack()"),
        /// `FackTcpAgent::oldack()` (FACK only, with `fack_samples_rtt_on_every_ack`) without
        /// the timestamps option: the sample is still `now - ts_echo()`, since every ns-2
        /// TCP header carries the sender's `ts()` (`TcpAgent::output()`) and the sink
        /// echoes it whatever the option (`TcpSink::ack()`); spikelab's ACKs carry that
        /// echo, off the wire, as `Packet::ns2_ts_echo`.
        pub fack_samples_rtt_from_header_echo: bool = Ns2Source::Code("FackTcpAgent::oldack()"),
        /// `FackTcpAgent::timeout()` (FACK only): "Do not clear fastrecov_ or alter
        /// recover_": a timeout during fast recovery leaves the agent in it, and every ACK
        /// there raises `t_seqno_` to `fack_ + 1`, so go-back-N skips to the forward-most
        /// SACKed segment ([`crate::recovery::ns2_fack`]).
        pub fack_timeout_keeps_recovery: bool = Ns2Source::Code("FackTcpAgent::timeout()"),
        /// `ScoreBoard::CheckSndNxt()` (FACK only): a SACK block beyond snd_nxt as it was
        /// when a fast-recovery retransmission went out marks that retransmission lost
        /// again and shuts sending off (`timeout_ = TRUE`) until the timer expires or fast
        /// recovery ends ([`crate::recovery::ns2_fack`]).
        pub fack_stops_when_lost_again: bool = Ns2Source::Code("ScoreBoard::CheckSndNxt()"),
        /// `FackTcpAgent::recv()` (FACK only): `recover_ = t_seqno_` on entering fast
        /// recovery and it ends at `last_ack_ >= recover_`, one packet beyond the highest
        /// sent ([`crate::recovery::ns2_fack`]).
        pub fack_exit_beyond_recover: bool = Ns2Source::Code("FackTcpAgent::recv()"),
        /// `CalendarScheduler::insert()` (`common/scheduler.cc`): events of equal time run
        /// in the order they were scheduled, so a packet reaching a link at the instant a
        /// transmission there ends enters the queue first when its arrival was scheduled
        /// first (at its transmission's start on the previous link, `LinkDelay::recv()`).
        /// A network-wide setting of the engine (`spikelab_net::link::same_instant`): on
        /// when any flow turns it on (the `ns2-2002` profile does).
        pub same_instant_in_scheduling_order: bool = Ns2Source::Code("CalendarScheduler::insert()"),
        /// `Sacker::append_ack()` (`tcp/tcp-sink.cc`; SACK sinks): an ACK's SACK blocks are
        /// the block around the packet it answers, then a history stack of the blocks
        /// earlier ACKs reported first (as deep as `maxSackBlocks_`, entries the new block
        /// covers popped), instead of RFC 2018's every held block, most recently changed
        /// first; a block pushed off the stack is not reported until a packet arrives in it
        /// ([`crate::ns2_sack_sink`]).
        pub sink_sack_history_stack: bool = Ns2Source::Code("Sacker::append_ack()"),
        /// `FackTcpAgent::recv()` in fast recovery (FACK only): "No SACK blocks indicates
        /// fast recovery is over": recovery ends at `last_ack_ >= recover_` only on an ACK
        /// without SACK blocks, so an ACK at the recovery point that still carries blocks
        /// (ns-2's sink reports its history, [`crate::ns2_sack_sink`]) keeps it going.
        pub fack_exit_needs_ack_without_sack: bool = Ns2Source::Code("FackTcpAgent::recv()"),
        /// `TcpAgent::slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)` from
        /// `RenoTcpAgent::dupack_action()` / `NewRenoTcpAgent::dupack_action()` (Reno and
        /// NewReno only): a fast retransmit sets `cwnd_ = halfwin` = (int)(window() / 2)
        /// with no floor (only `ssthresh_` is raised to 2), so a fast retransmit in slow
        /// start after a timeout (window 1) leaves `cwnd_` 0 plus `dupwnd_`; partial ACKs
        /// and the end of recovery clear `dupwnd_` and keep that `cwnd_`. And
        /// `send_much()` sends from `t_seqno_` while `t_seqno_ <= highest_ack_ + cwnd_ +
        /// dupwnd_`: recovery's window is counted from snd_nxt, so a fast retransmit during
        /// go-back-N (bugFix off) keeps going back N, one segment per window opening,
        /// where RFC 5681 counts the whole flight up to snd_max.
        pub fast_recovery_from_t_seqno: bool = Ns2Source::Code("RenoTcpAgent::dupack_action()"),
    }
}

impl Ns2Switches {
    /// The FACK agent's switches as [`crate::recovery::ns2_fack::Ns2FackRules`].
    pub fn fack_rules(&self) -> crate::recovery::ns2_fack::Ns2FackRules {
        crate::recovery::ns2_fack::Ns2FackRules {
            enters_by_forward_ack: self.fack_enters_by_forward_ack,
            restarts_window_in_recovery: self.fack_restarts_window_in_recovery,
            sack_acks_send_nothing: self.fack_sack_acks_send_nothing,
            timeout_keeps_recovery: self.fack_timeout_keeps_recovery,
            stops_when_lost_again: self.fack_stops_when_lost_again,
            exit_beyond_recover: self.fack_exit_beyond_recover,
        }
    }
}

/// Everything a flow's endpoints need to know. Scenario files write it as a table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpConfig {
    /// Payload bytes per full-sized segment (SMSS). Default: 1460.
    pub mss: u32,
    /// Initial congestion window in segments. Default: 2 (RFC 5681 for SMSS > 1095).
    pub initial_window: u32,
    /// Receiver's advertised window in bytes. Default: 65535.
    pub receiver_window: u64,
    /// Initial slow-start threshold in bytes. Default: effectively infinite.
    pub initial_ssthresh: u64,
    /// Loss recovery after duplicate ACKs. Default: new-reno.
    pub recovery: RecoveryKind,
    /// How Reno-SACK and NewReno-SACK estimate the data in flight. Default: rfc6675.
    pub sack_pipe: PipeRule,
    /// How ssthresh is halved on a loss, and whether repeated timeouts halve it again.
    /// Default: rfc5681.
    pub ssthresh_rule: SsthreshRule,
    /// Reno's careful fast retransmit ("bug fix", RFC 6582 section 4.1): no fast
    /// retransmit for duplicate ACKs below the point recorded at the last timeout.
    /// Default: true. ns-2's `bugFix_`; [Gurtov & Ludwig 2002] turns it off.
    pub careful_fast_retransmit: bool,
    /// What a timeout retransmits. Default: go-back-n.
    pub timeout_retransmit: TimeoutRetransmit,
    /// Karn's rule (RFC 6298 section 3) for the timed segment when timestamps are off:
    /// a timeout or retransmission ends its measurement. Default: true. With false the
    /// timed segment stays timed from its first transmission until an ACK covers it, so
    /// a segment that was only delayed gives its whole RTT to the estimator, as
    /// [Klein et al. 2004] III has it ("RTT_new\[k\] = RTT\[k\] + D\[k\] (used for the
    /// calculation of S and V)"); a sample of a really lost segment then includes the
    /// time to its retransmission (the ambiguity Karn's rule exists for).
    pub karn: bool,
    /// Limited Transmit (RFC 3042). Default: true.
    pub limited_transmit: bool,
    /// Duplicate ACKs that trigger fast retransmit (DupThresh). Default: 3.
    pub dupack_threshold: u32,
    /// Use the timestamps option (RFC 7323). Default: true.
    pub timestamps: bool,
    /// Timestamp clock tick. Default: 1 ms (RFC 7323 section 5.4 suggests 1 ms to 1 s).
    pub timestamp_tick: Dur,
    /// Receiver's timestamp echo rule. Default: rfc7323.
    pub echo_rule: EchoRule,
    /// Receiver's delayed ACKs.
    pub delayed_ack: DelayedAck,
    /// Most SACK blocks per ACK, 1 to 4. RFC 2018 section 3 fits 4 in the 40 option
    /// bytes and 3 beside the timestamps option: with real headers at most as many as
    /// fit are sent (the stacks' `sack_blocks_per_ack`); ns-2's header model
    /// (`maxSackBlocks_`) has no such limit. Not read under the `linux` profile, whose
    /// receiver sends as many as fit, as the kernel does (4 without timestamps). Default:
    /// 3 (ns-2's `maxSackBlocks_`, and what fits beside the default timestamps).
    pub max_sack_blocks: u32,
    /// Report duplicate segments with D-SACK (RFC 2883). Default: true.
    pub dsack: bool,
    /// Exchange SYN / SYN-ACK before data; the handshake gives RTT_SYN. Default: false.
    pub handshake: bool,
    /// The retransmission-timer estimator.
    pub rto: RtoConfig,
    /// Spurious-timeout detection and response. Default: none (a conventional sender).
    pub spurious: SpuriousConfig,
    /// ns-2 behaviours (see [`Ns2Switches`]). Default: all off.
    pub ns2: Ns2Switches,
    /// The Linux host's sysctls (`profile = "linux"`; see [`LinuxSysctls`]): when
    /// present they decide `timestamps`, `recovery`, `dsack` and `spurious.driver`.
    /// Default: absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linux: Option<LinuxSysctls>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_window: 2,
            receiver_window: 65_535,
            initial_ssthresh: u64::MAX / 2,
            recovery: RecoveryKind::NewReno,
            sack_pipe: PipeRule::Rfc6675,
            ssthresh_rule: SsthreshRule::Rfc5681,
            careful_fast_retransmit: true,
            timeout_retransmit: TimeoutRetransmit::GoBackN,
            karn: true,
            limited_transmit: true,
            dupack_threshold: 3,
            timestamps: true,
            timestamp_tick: Dur::from_millis(1),
            echo_rule: EchoRule::Rfc7323,
            delayed_ack: DelayedAck::default(),
            max_sack_blocks: 3,
            dsack: true,
            handshake: false,
            rto: RtoConfig::default(),
            spurious: SpuriousConfig::default(),
            ns2: Ns2Switches::default(),
            linux: None,
        }
    }
}

impl TcpConfig {
    /// The one-way ns-2.1b9a agents of 2002 as docs/src/ns2-2002-defaults.md lists them:
    /// 1000-byte segments (`packetSize_`), initial window 2 (`windowInit_`), advertised
    /// window 20 segments (`window_`), the `sack1` agent's pipe estimate for SACK
    /// recovery, ssthresh halved from min(cwnd, window) on every loss (`slowdown()`), careful fast retransmit on (`bugFix_`), Limited
    /// Transmit on (`singledup_`), delayed ACK every 2nd segment with a 100 ms timer, 3
    /// SACK blocks, the pre-2003 echo rule (newest TSval), SYN exchange on (`syn_`), and
    /// the 2002 timer in ns-2's own tick arithmetic (tcpTick_ 10 ms, min 1 s, initial
    /// 6 s, no maximum; [`crate::rto::Ns2Rto`]), timestamps at the clock's resolution
    /// and every behaviour of [`Ns2Switches`].
    ///
    /// Differences that remain: ns-2 counts sequence numbers in packets; spikelab in bytes.
    pub fn ns2_2002() -> TcpConfig {
        TcpConfig {
            mss: 1000,
            initial_window: 2,
            receiver_window: 20 * 1000,
            initial_ssthresh: u64::MAX / 2,
            recovery: RecoveryKind::Reno,
            sack_pipe: PipeRule::Ns2Sack1,
            ssthresh_rule: SsthreshRule::Ns2,
            careful_fast_retransmit: true,
            timeout_retransmit: TimeoutRetransmit::GoBackN,
            karn: true,
            limited_transmit: true,
            dupack_threshold: 3,
            timestamps: false,
            // ns-2 stamps packets with the simulator clock (a double).
            timestamp_tick: Dur::from_nanos(1),
            echo_rule: EchoRule::Latest,
            delayed_ack: DelayedAck::default(),
            max_sack_blocks: 3,
            dsack: false,
            handshake: true,
            rto: RtoConfig::Ns2(crate::rto::Ns2RtoConfig::default()),
            spurious: SpuriousConfig::default(),
            ns2: Ns2Switches::all(),
            linux: None,
        }
    }

    /// Whether the receiver sends SACK blocks for this flow.
    pub fn sack_enabled(&self) -> bool {
        self.recovery.uses_sack()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_switches_are_exactly_the_scenario_keys() {
        let table = toml::Value::try_from(Ns2Switches::all()).unwrap();
        let keys: Vec<&str> = table
            .as_table()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        let mut declared: Vec<&str> = Ns2Switches::DECLARED.iter().map(|s| s.name).collect();
        declared.sort_unstable();
        assert_eq!(keys, declared);
    }

    #[test]
    fn each_declared_switch_reads_its_own_field() {
        for (i, s) in Ns2Switches::DECLARED.iter().enumerate() {
            let one: Ns2Switches = toml::from_str(&format!("{} = true", s.name)).unwrap();
            let on: Vec<usize> = one
                .iter()
                .enumerate()
                .filter(|(_, (_, v))| *v)
                .map(|(j, _)| j)
                .collect();
            assert_eq!(on, [i], "{}", s.name);
        }
        assert!(Ns2Switches::all().iter().all(|(_, on)| on));
        assert!(Ns2Switches::default().iter().all(|(_, on)| !on));
    }

    #[test]
    fn every_switch_states_its_ns2_source_and_docs() {
        for s in Ns2Switches::DECLARED {
            assert!(s.doc.trim().len() > 20, "{} has no documentation", s.name);
            match s.ns2 {
                Ns2Source::Code(f) => assert!(f.ends_with("()") && s.doc.contains(f), "{}", s.name),
                Ns2Source::Tcl(vars) => {
                    assert!(!vars.is_empty(), "{}", s.name);
                    for (class, var, _) in vars {
                        assert!(
                            class.starts_with("Agent/TCP") && var.ends_with('_'),
                            "{}",
                            s.name
                        );
                        assert!(
                            s.doc.contains(var),
                            "{}: the docs do not name {var}",
                            s.name
                        );
                    }
                }
            }
            assert!(!s.ns2.refusal_when_off().is_empty());
        }
    }
}
