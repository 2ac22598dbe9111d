//! The STD proxy of [Kim & Cho 2003]: a PEP at the border of the wireless
//! network that detects spurious timeouts of the TCP sender and keeps their go-back-N
//! retransmissions off the wireless link (section III).
//!
//! One concern per file:
//!
//! * `config`: the parameters ([`StdProxyConfig`]), defaults from the paper.
//! * `flow`: per-flow state (max_seq_end, acked_seq, duplicate ACKs) and the state
//!   machine: timeout detection (III.A), verdict timer (III.B), buffering, release,
//!   local retransmission (III.B) and duplicate-ACK removal (III.D).
//! * [`filters`]: the N-filter (1) and S-filter (2) (III.C).
//! * `ack_clock`: which filter samples each ACK's inter-arrival time, and T (III.C).
//! * `wrtt`: wRTT, the PEP-to-mobile RTT behind X_th = 0.5 wRTT (III.C).
//! * `buffer`: the stored retransmissions (III.B).
//! * [`condition`]: condition (3) of section IV as a pure function.
//!
//! State is kept per flow in a `Vec` sorted by [`FlowId`], so every iteration is in
//! flow order. (A `BTreeMap` did the same at several times the cost per packet: the
//! proxy looks its flow up for every packet, and it usually carries one flow or a
//! few.) The next wake-up, asked after every call, is the earliest of the flows'
//! deadlines kept as the calls change them, not found by a scan of all flows.
//!
//! # Choices where the paper is not explicit
//!
//! 1. **What anticipates a retransmission.** III.A: "A data segment retransmitted by fast
//!    retransmission can be anticipated easily because it follows 3 duplicate
//!    acknowledgements." A retransmission is anticipated when at least
//!    `dup_ack_thresh` duplicates of the current acked_seq preceded it. The recovery
//!    such a fast retransmission opens (until acked_seq reaches the max_seq_end of that
//!    moment) also anticipates retransmissions of later holes (NewReno partial ACKs,
//!    SACK), since they never go back below an earlier retransmission; a timeout does
//!    (the sender goes back to snd_una), so "goes back below the highest retransmission"
//!    is what marks a timeout inside a recovery or an episode.
//! 2. **The first delayed ACK.** III.B: "the arrival of first delayed ACK initiates the
//!    process". Any ACK (new or duplicate) arriving after the detection starts T; the
//!    verdict is "spurious" when a later ACK advances acked_seq strictly before the
//!    deadline ("If the new ACK arrives before timer expires"), "genuine" when the
//!    deadline passes first. An ACK arriving exactly at the deadline is too late.
//! 3. **Retransmissions before the verdict.** The paper buffers only after the verdict
//!    ("When spurious timeout is detected ... DATAs ... are stored"). The retransmission
//!    that reveals the timeout, and every further one that goes back (a backed-off
//!    repeat: "multiple timeouts can occur", III.D), is forwarded, since the box cannot
//!    know yet. Other retransmissions arriving while the verdict is pending (go-back-N
//!    continuing on the first delayed ACKs) are held and, on the verdict, forwarded
//!    (genuine) or put through the buffering rule (spurious). Holding costs at most T,
//!    and forwarding them would put the very retransmissions STD exists to filter on
//!    the wireless link whenever the wired RTT is shorter than T.
//! 4. **Bounds.** "larger than acked_seq but less than sp_tout_max_seq_end": acked_seq
//!    is the next byte the receiver expects and max_seq_end is one past the highest
//!    byte seen, so a retransmission is buffered when it ends above acked_seq and starts
//!    below sp_tout_max_seq_end; one ending at or below acked_seq is absorbed without
//!    storing (the receiver acknowledged it). A full ACK is one with
//!    ack >= sp_tout_max_seq_end (it "acknowledges all outstanding DATAs at the moment
//!    that spurious timeout occurred").
//! 5. **Local retransmission.** Once per hole, when `dup_ack_thresh` duplicates of
//!    acked_seq have arrived and the segment holding byte acked_seq is buffered
//!    (immediately if it is buffered after the duplicates arrived). The duplicates are
//!    still forwarded: the paper removes duplicates only after the full ACK (III.D).
//! 6. **How many duplicate ACKs to remove.** III.D: "PEP removes incoming duplicate ACKs
//!    that are triggered from retransmission timeout. If the delay is large, multiple
//!    timeouts can occur and cause more than two duplicate ACKs." Each retransmission of
//!    the episode that reached the receiver (counted as forwarded above) comes back as
//!    one duplicate of the full ACK, so after the full ACK the proxy removes up to that
//!    many duplicates of acked_seq and stops at the first ACK that advances. Removing
//!    more would hide real losses of new data from the sender's fast retransmit.
//! 7. **A new timeout while responding** (a retransmission that goes back below the
//!    episode's highest, not anticipated): the sender timed out again, e.g. because a
//!    local retransmission was lost. The buffer is dropped and a new episode starts,
//!    forwarding that retransmission, so the box can never stall a flow.
//! 8. **Sampling periods, wRTT, fallback T**: see `ack_clock` and `wrtt`. In short: the
//!    first ACK of an STD period is not a sample (its gap spans the spike); the "normal
//!    period, which follows the STD period" takes no samples; wRTT is measured like
//!    TCP's SRTT (gain 1/8) unless configured; before any average T uses X_th, and with
//!    no wRTT either T = 0 (every timeout genuine: the box does nothing it cannot
//!    justify).

pub mod ack_clock;
mod buffer;
pub mod condition;
mod config;
pub mod filters;
mod flow;
mod wrtt;

#[cfg(test)]
mod tests;

pub use ack_clock::Period;
pub use condition::{std_condition_met, std_sending_rate_bps};
pub use config::StdProxyConfig;
pub use flow::{FlowView, StdPhase};

use super::{MbOutput, Middlebox};
use flow::{Flow, Io};
use spikelab_core::{FlowId, Packet, Time};

/// The STD proxy ([Kim & Cho 2003] section III); see the module docs.
#[derive(Clone, Debug)]
pub struct StdProxy {
    cfg: StdProxyConfig,
    /// Per flow, sorted by flow.
    flows: Vec<(FlowId, Flow)>,
    /// The earliest deadline of any flow ([`Middlebox::next_wakeup`]).
    wake: Option<Time>,
}

impl StdProxy {
    /// A proxy that has seen nothing yet.
    pub fn new(cfg: StdProxyConfig) -> StdProxy {
        StdProxy {
            cfg,
            flows: Vec::new(),
            wake: None,
        }
    }

    /// The earliest deadline of any flow, by a scan of them all.
    fn earliest_deadline(&self) -> Option<Time> {
        self.flows.iter().filter_map(|(_, f)| f.deadline()).min()
    }

    /// Keeps [`Self::wake`] the earliest deadline after one flow's deadline went from
    /// `before` to `after`: a flow that did not hold the earliest one can only bring
    /// it forward, while one that did may have moved it anywhere (a scan then finds it).
    fn on_deadline_moved(&mut self, before: Option<Time>, after: Option<Time>) {
        self.wake = match (before == self.wake, after, self.wake) {
            (true, _, _) => self.earliest_deadline(),
            (false, Some(a), Some(w)) => Some(a.min(w)),
            (false, a, w) => a.or(w),
        };
    }

    /// Where `flow` is, or would be inserted, in `flows`.
    fn position(&self, flow: FlowId) -> Result<usize, usize> {
        self.flows.binary_search_by_key(&flow, |&(id, _)| id)
    }

    /// The parameters.
    pub fn config(&self) -> &StdProxyConfig {
        &self.cfg
    }

    /// What the proxy knows of `flow`, if it has seen it.
    pub fn flow(&self, flow: FlowId) -> Option<FlowView> {
        let i = self.position(flow).ok()?;
        Some(self.flows[i].1.view())
    }
}

impl Middlebox for StdProxy {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut MbOutput) {
        let flow = pkt.flow;
        let i = self.position(flow).unwrap_or_else(|i| {
            self.flows.insert(i, (flow, Flow::default()));
            i
        });
        let mut io = Io {
            now,
            flow,
            cfg: &self.cfg,
            out,
        };
        let f = &mut self.flows[i].1;
        let before = f.deadline();
        f.on_packet(&mut io, pkt);
        let after = f.deadline();
        if after != before {
            self.on_deadline_moved(before, after);
        }
    }

    fn next_wakeup(&self) -> Option<Time> {
        debug_assert_eq!(self.wake, self.earliest_deadline());
        self.wake
    }

    fn on_wakeup(&mut self, now: Time, out: &mut MbOutput) {
        for &mut (flow, ref mut f) in self.flows.iter_mut() {
            let mut io = Io {
                now,
                flow,
                cfg: &self.cfg,
                out,
            };
            f.expire(&mut io);
        }
        self.wake = self.earliest_deadline();
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Packet)) {
        for (_, flow) in &self.flows {
            flow.for_each_held(f);
        }
    }

    /// STD is a spurious-timeout detector in the network ([Kim & Cho 2003] III.B).
    fn detector(&self) -> Option<&'static str> {
        Some("std-proxy")
    }
}
