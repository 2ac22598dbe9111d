//! The delay jitter algorithm of [Klein et al. 2004]:
//! "inject additional random delay (by holding back a packet or acknowledgment
//! somewhere along the round-trip path) so as to increase the variance of the RTT,
//! without significantly increasing its average value" (section III).
//!
//! # The three methods (section III), one function: [`Injector::next_delay`]
//!
//! For the k-th tracked packet (k = 1, 2, ...):
//!
//! * **FTFD**: "D\[k\] = D0 whenever k = iN and D\[k\] = 0 otherwise", i.e. the N-th,
//!   2N-th, ... tracked packet.
//! * **RTFD**: "D\[k\] = D0 with probability p and D\[k\] = 0 with probability 1 - p";
//!   p = 1/N unless set ("by choosing p = 1/N the average additional delay ... is the
//!   same for both FTFD and RTFD").
//! * **RTRD**: with probability p, D\[k\] is drawn from a density "with mean D0 (taken to
//!   be exponential in our simulations)".
//!
//! The same [`Injector`] drives the RTT-trace mode of the experiments crate, so the
//! three rules exist once.
//!
//! # Which packets are "tracked"
//!
//! "in practice it only makes sense to inject delay only to those packets that are being
//! tracked for the RTO calculation" (footnote 2), and the paper's simulator did exactly
//! that ("in our implementation only one packet per window of transmitted packets is
//! being tracked", IV). It also says that "Identifying the tracked packets to enable
//! efficient delay injection ... remains an open research problem" (IV), so a real box
//! has to guess. [`Selection`] offers both:
//!
//! * `oracle` (default, the paper's simulator): data packets with
//!   [`Packet::timed`](spikelab_core::Packet::timed) set (the sender sets it on exactly
//!   the segments it times); in the ACK direction, an ACK that newly covers the end of
//!   a timed segment the box saw (the ACK that ends the sender's measurement). A
//!   retransmission without timestamps ends the sender's measurement (Karn), so it
//!   clears the segments the box remembers.
//! * `every-nth`: blind, every `select_every`-th packet of the flow in the chosen
//!   direction is a candidate (1 = every packet).
//! * `probability`: blind, each packet of the flow in the chosen direction is a
//!   candidate with probability `select_p`.
//!
//! The method then runs over the candidates (k counts candidates). So the blind box
//! "delay D0 on every N-th packet of the flow" is `select = "every-nth"`,
//! `select_every = 1`, `method = "ftfd"`, `n = N`.
//!
//! # Order: a delayed packet lets the others pass (default)
//!
//! IV: "To inject a given delay to a packet, it can be temporarily put in a buffer for
//! the specified amount of delay before being released to the rest of the communication
//! path. Although this may cause packets to arrive out of order at the receiving end,
//! TCP duplicate acknowledgements and buffering out-of-sequence packets at the receiver
//! will ensure proper reception". The delayed packet sits aside and later packets
//! overtake it ([`InjectionOrder::Reorder`]); the paper's estimate of the RTT increase,
//! p D0 / W, also assumes only the tracked packet is slowed. [`InjectionOrder::Fifo`]
//! instead holds every later packet of the same direction (all flows) behind it, as a
//! queue would.

use super::{MbEventKind, MbOutput, Middlebox};
use crate::distribution::Distribution;
use rand::Rng;
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{dur, int, probability, real, Bounded, Check, FieldPath, MAX_PACKETS};
use spikelab_core::{Dur, FlowId, Packet, PacketKind, SimRng, Time};
use std::collections::{BTreeMap, BTreeSet};

/// The injection methods of section III.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InjectionMethod {
    /// Fixed Time - Fixed Delay: D0 on every N-th tracked packet.
    #[default]
    Ftfd,
    /// Random Time - Fixed Delay: D0 with probability p.
    Rtfd,
    /// Random Time - Random Delay: exponential of mean D0 with probability p.
    Rtrd,
}

/// Which packets are delayed: data segments or acknowledgments (section III: "holding
/// back a packet or acknowledgment").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InjectDirection {
    /// Data segments (sender to receiver).
    #[default]
    Data,
    /// Pure ACKs (receiver to sender).
    Ack,
}

/// How the box picks the candidate ("tracked") packets; see the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// The packets the sender times (ground truth; the paper's simulator).
    #[default]
    Oracle,
    /// Blind: every `select_every`-th packet of the flow in the direction.
    EveryNth,
    /// Blind: each packet of the flow in the direction with probability `select_p`.
    Probability,
}

/// Whether a delayed packet holds back the packets behind it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InjectionOrder {
    /// Later packets pass the delayed one (the paper's buffer-aside, IV).
    #[default]
    Reorder,
    /// Later packets of the same direction wait behind it, as in a queue.
    Fifo,
}

/// Parameters of the delay injector ([Klein et al. 2004] section III). Every field may be
/// omitted; defaults are the parameters of the paper's Figs. 2 and 3 (D0 = 100 ms,
/// N = 3, FTFD), which also minimised the timeouts in Figs. 4-7.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DelayInjectionConfig {
    /// FTFD, RTFD or RTRD. Default FTFD.
    pub method: InjectionMethod,
    /// D0: the fixed delay (FTFD, RTFD) or the mean delay (RTRD). Default 100 ms.
    pub d0: Dur,
    /// N: the jitter period (FTFD), and p = 1/N (RTFD, RTRD) unless `p` is set.
    /// Default 3.
    pub n: u32,
    /// p of RTFD and RTRD, overriding 1/N. Default: none (1/N, as in section IV).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// Data segments or ACKs. Default data.
    pub direction: InjectDirection,
    /// Which packets are candidates. Default oracle.
    pub select: Selection,
    /// Period of [`Selection::EveryNth`]. Default 1 (every packet).
    pub select_every: u32,
    /// Probability of [`Selection::Probability`]. Default 1 (every packet).
    pub select_p: f64,
    /// Reorder (default) or FIFO.
    pub order: InjectionOrder,
}

impl Default for DelayInjectionConfig {
    fn default() -> Self {
        DelayInjectionConfig {
            method: InjectionMethod::Ftfd,
            d0: Dur::from_millis(100),
            n: 3,
            p: None,
            direction: InjectDirection::Data,
            select: Selection::Oracle,
            select_every: 1,
            select_p: 1.0,
            order: InjectionOrder::Reorder,
        }
    }
}

/// The schedule D\[k\] of one connection (section III): the one implementation of FTFD,
/// RTFD and RTRD.
#[derive(Clone, Debug, PartialEq)]
pub struct Injector {
    method: InjectionMethod,
    d0: Dur,
    n: u32,
    p: f64,
    /// Tracked packets seen so far (k of the last one).
    k: u64,
}

impl Injector {
    /// A schedule with `n` >= 1 (0 is taken as 1) and p = `p`, else 1/N.
    pub fn new(method: InjectionMethod, d0: Dur, n: u32, p: Option<f64>) -> Injector {
        let n = n.max(1);
        Injector {
            method,
            d0,
            n,
            p: p.unwrap_or(1.0 / n as f64),
            k: 0,
        }
    }

    /// The schedule a [`DelayInjectionConfig`] describes.
    pub fn from_config(cfg: &DelayInjectionConfig) -> Injector {
        Injector::new(cfg.method, cfg.d0, cfg.n, cfg.p)
    }

    /// The injection probability p (RTFD, RTRD).
    pub fn probability(&self) -> f64 {
        self.p
    }

    /// D\[k\] for the next tracked packet k (section III). FTFD draws nothing; RTFD draws
    /// one uniform number; RTRD one, plus an exponential when it injects.
    pub fn next_delay(&mut self, rng: &mut SimRng) -> Dur {
        self.k += 1;
        match self.method {
            // "D[k] = D0 whenever k = iN and D[k] = 0 otherwise".
            InjectionMethod::Ftfd if self.k.is_multiple_of(self.n as u64) => self.d0,
            InjectionMethod::Ftfd => Dur::ZERO,
            // "D[k] = D0 with probability p".
            InjectionMethod::Rtfd if rng.random::<f64>() < self.p => self.d0,
            InjectionMethod::Rtfd => Dur::ZERO,
            // "with probability p, D[k] = d where d is chosen according to [an
            // exponential density with mean D0]".
            InjectionMethod::Rtrd if rng.random::<f64>() < self.p => {
                Distribution::Exponential { mean: self.d0 }.sample(rng)
            }
            InjectionMethod::Rtrd => Dur::ZERO,
        }
    }
}

/// What the injector remembers of one flow.
#[derive(Clone, Debug, PartialEq)]
struct FlowSel {
    injector: Injector,
    /// Packets of the flow in the chosen direction (for `every-nth`).
    seen: u64,
    /// Ends of timed data segments whose covering ACK has not passed (oracle, ACKs).
    timed_ends: BTreeSet<u64>,
}

/// The delay-injection middlebox (see the module docs).
#[derive(Clone, Debug)]
pub struct DelayInjector {
    cfg: DelayInjectionConfig,
    rng: SimRng,
    flows: BTreeMap<FlowId, FlowSel>,
    /// Held packets by (release time, arrival number).
    held: BTreeMap<(Time, u64), Packet>,
    arrivals: u64,
    /// Latest release time held in each direction (forward, backward), for FIFO.
    last_due: [Time; 2],
}

impl DelayInjector {
    /// A box that has seen nothing; `rng` is its own stream.
    pub fn new(cfg: DelayInjectionConfig, rng: SimRng) -> DelayInjector {
        DelayInjector {
            cfg,
            rng,
            flows: BTreeMap::new(),
            held: BTreeMap::new(),
            arrivals: 0,
            last_due: [Time::ZERO; 2],
        }
    }

    fn is_target(&self, pkt: &Packet) -> bool {
        match self.cfg.direction {
            // The handshake's third segment is a `Data` packet of no payload: an ACK,
            // which the emulator's box never sees either (crates/emulate wire.rs).
            InjectDirection::Data => pkt.kind == PacketKind::Data && pkt.len > 0,
            InjectDirection::Ack => pkt.kind == PacketKind::Ack,
        }
    }

    /// The oracle's memory of timed segments, for the ACK direction.
    fn note_timed_data(&mut self, pkt: &Packet) {
        let oracle_acks =
            self.cfg.select == Selection::Oracle && self.cfg.direction == InjectDirection::Ack;
        if !oracle_acks || pkt.kind != PacketKind::Data {
            return;
        }
        let ends = &mut flow_sel(&mut self.flows, &self.cfg, pkt.flow).timed_ends;
        if pkt.retx && pkt.ts().is_none() {
            // Karn (RFC 6298 section 3): the sender stops timing on a retransmission.
            ends.clear();
        }
        if pkt.timed {
            ends.insert(pkt.end_seq());
        }
    }

    /// Whether `pkt` (a target packet) is a candidate for injection.
    fn is_candidate(&mut self, pkt: &Packet) -> bool {
        let f = flow_sel(&mut self.flows, &self.cfg, pkt.flow);
        f.seen += 1;
        match self.cfg.select {
            Selection::Oracle if pkt.kind == PacketKind::Data => pkt.timed,
            Selection::Oracle => oracle_ack(&mut f.timed_ends, pkt.ack),
            Selection::EveryNth => f.seen.is_multiple_of(self.cfg.select_every.max(1) as u64),
            Selection::Probability => self.rng.random::<f64>() < self.cfg.select_p,
        }
    }

    /// D\[k\] for `pkt`: zero unless it is a candidate.
    fn injected(&mut self, pkt: &Packet) -> Dur {
        if !self.is_target(pkt) || !self.is_candidate(pkt) {
            return Dur::ZERO;
        }
        let f = flow_sel(&mut self.flows, &self.cfg, pkt.flow);
        f.injector.next_delay(&mut self.rng)
    }

    fn hold(&mut self, due: Time, pkt: Packet) {
        self.arrivals += 1;
        self.held.insert((due, self.arrivals), pkt);
        let dir = direction_index(&pkt);
        self.last_due[dir] = self.last_due[dir].max(due);
    }
}

/// The state of flow `id`, created on first sight.
fn flow_sel<'a>(
    flows: &'a mut BTreeMap<FlowId, FlowSel>,
    cfg: &DelayInjectionConfig,
    id: FlowId,
) -> &'a mut FlowSel {
    flows.entry(id).or_insert_with(|| FlowSel {
        injector: Injector::from_config(cfg),
        seen: 0,
        timed_ends: BTreeSet::new(),
    })
}

/// Whether an ACK for `ack` newly covers a remembered timed segment; forgets those it
/// covers.
fn oracle_ack(timed_ends: &mut BTreeSet<u64>, ack: u64) -> bool {
    let covered = timed_ends.first().is_some_and(|&e| e <= ack);
    timed_ends.retain(|&e| e > ack);
    covered
}

fn direction_index(pkt: &Packet) -> usize {
    usize::from(!pkt.kind.is_forward())
}

impl Middlebox for DelayInjector {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut MbOutput) {
        self.note_timed_data(pkt);
        let d = self.injected(pkt);
        let mut due = now + d;
        if self.cfg.order == InjectionOrder::Fifo {
            due = due.max(self.last_due[direction_index(pkt)]);
        }
        if d > Dur::ZERO {
            out.event(now, pkt.flow, MbEventKind::Delayed { by: d });
        } else if due > now {
            out.event(now, pkt.flow, MbEventKind::HeldBehind { by: due - now });
        }
        if due > now {
            self.hold(due, *pkt);
        } else {
            out.pass();
        }
    }

    fn next_wakeup(&self) -> Option<Time> {
        self.held.first_key_value().map(|(&(due, _), _)| due)
    }

    fn on_wakeup(&mut self, now: Time, out: &mut MbOutput) {
        while let Some(entry) = self.held.first_entry() {
            if entry.key().0 > now {
                break;
            }
            out.forward.push(entry.remove());
        }
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Packet)) {
        self.held.values().for_each(f);
    }
}

impl Bounded for DelayInjectionConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let c = self;
        dur(&p.key("d0"), c.d0)?;
        int(&p.key("n"), u64::from(c.n), 1, MAX_PACKETS, "")?;
        if let Some(x) = c.p {
            real(
                &p.key("p"),
                x,
                |x| x > 0.0 && x <= 1.0,
                "a probability in (0, 1]",
            )?;
        }
        int(
            &p.key("select_every"),
            u64::from(c.select_every),
            1,
            MAX_PACKETS,
            "",
        )?;
        probability(&p.key("select_p"), c.select_p)
    }
}

#[cfg(test)]
#[path = "delay_injection/tests.rs"]
mod tests;
