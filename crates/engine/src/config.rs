//! A fully resolved simulation: links by index, flows with their routes. The scenario
//! crate builds this from a file (names resolved, topology presets expanded); tests and
//! experiments may build it directly.

use serde::{Deserialize, Serialize};
use spikelab_core::trace::TraceKinds;
use spikelab_core::{BitRate, Dur};
use spikelab_net::{Dir, LinkConfig};
use spikelab_quic::QuicConfig;
use spikelab_tcp::spurious::DetectorKind;
use spikelab_tcp::TcpConfig;
use std::sync::Arc;

/// One hop of a flow's forward route: a link and the direction data crosses it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub link: usize,
    pub dir: Dir,
}

/// What the application above a TCP flow does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Workload {
    /// Write `bytes` at once and close: a bulk download.
    Bulk { bytes: spikelab_core::ByteSize },
    /// Write one message of `bytes`, the next only when the previous is acknowledged,
    /// `packets` times ([Ekström & Ludwig 2004] Scenario A's interactive flows).
    PingPong {
        packets: u64,
        bytes: spikelab_core::ByteSize,
    },
}

impl Workload {
    /// Every byte the application writes.
    pub fn bytes(&self) -> u64 {
        match *self {
            Workload::Bulk { bytes } => bytes.0,
            Workload::PingPong { packets, bytes } => packets * bytes.0,
        }
    }

    /// The data packets of `mss` payload bytes the transfer needs at least (a message
    /// starts a packet of its own).
    pub fn min_segments(&self, mss: u64) -> u64 {
        match *self {
            Workload::Bulk { bytes } => bytes.0.div_ceil(mss),
            Workload::PingPong { packets, bytes } => packets * bytes.0.div_ceil(mss),
        }
    }

    /// The first write, when the connection opens.
    pub fn first_write(&self) -> u64 {
        match *self {
            Workload::Bulk { bytes } | Workload::PingPong { bytes, .. } => bytes.0,
        }
    }

    /// The next write once everything written is acknowledged, `written` messages in;
    /// `None` when the application has nothing more to write.
    pub fn next_write(&self, written: u64) -> Option<u64> {
        match *self {
            Workload::PingPong { packets, bytes } if written > 0 && written < packets => {
                Some(bytes.0)
            }
            _ => None,
        }
    }
}

/// When a flow starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StartTime {
    /// At a fixed time ("0s").
    At(Dur),
    /// Uniformly at random in `[min, max)`, drawn from the flow's own stream.
    Uniform { min: Dur, max: Dur },
}

impl Default for StartTime {
    fn default() -> Self {
        StartTime::At(Dur::ZERO)
    }
}

/// The traffic a flow carries.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// A TCP connection.
    Tcp {
        /// Shared by the replicas of a scenario's `count` and by each connection's
        /// sender and receiver, which keep it for their life (issue 44: a copy per
        /// replica and endpoint was 888 bytes of every flow).
        tcp: Arc<TcpConfig>,
        workload: Workload,
    },
    /// A QUIC connection (`quic.implementation` names the registered transport that
    /// runs it).
    Quic {
        quic: Box<QuicConfig>,
        workload: Workload,
    },
    /// Constant-bit-rate datagrams (UDP-like cross traffic), from start until `stop`
    /// (or the end of the run).
    Cbr {
        rate: BitRate,
        payload_bytes: u32,
        stop: Option<Dur>,
    },
}

impl FlowKind {
    /// The kind as a scenario file names it (`kind = "tcp"`).
    pub fn name(&self) -> &'static str {
        match self {
            FlowKind::Tcp { .. } => "tcp",
            FlowKind::Quic { .. } => "quic",
            FlowKind::Cbr { .. } => "cbr",
        }
    }

    /// A connection's application and its segment size (payload bytes per data
    /// packet); `None` for a CBR source.
    pub fn connection(&self) -> Option<(Workload, u64)> {
        match self {
            FlowKind::Tcp { tcp, workload } => Some((*workload, tcp.mss as u64)),
            FlowKind::Quic { quic, workload } => Some((
                *workload,
                spikelab_quic::wire::stream_bytes_per_packet(quic),
            )),
            FlowKind::Cbr { .. } => None,
        }
    }

    /// The spurious-timeout detectors the flow's sender runs (driver and observers).
    pub fn detectors(&self) -> Vec<DetectorKind> {
        match self {
            FlowKind::Tcp { tcp, .. } => {
                let s = &tcp.spurious;
                s.driver.iter().chain(&s.observe).copied().collect()
            }
            FlowKind::Quic { .. } | FlowKind::Cbr { .. } => Vec::new(),
        }
    }

    /// The flow asks for ns-2's order of same-instant events
    /// (`spikelab_net::link::same_instant`), which then holds for the whole network.
    pub fn ns2_same_instant_order(&self) -> bool {
        matches!(self, FlowKind::Tcp { tcp, .. } if tcp.ns2.same_instant_in_scheduling_order)
    }
}

/// A flow with its resolved route.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    pub route: Vec<Hop>,
    pub start: StartTime,
    pub kind: FlowKind,
}

/// Which transmissions of a data segment a [`DropRule`] removes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropWhich {
    /// Only the first transmission (retransmissions pass).
    #[default]
    First,
    /// Every transmission.
    Every,
}

/// What a [`DropRule`] removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropTarget {
    /// Data segments whose first byte falls in `[from * MSS, to * MSS)`; `which` says
    /// whether retransmissions are dropped too.
    Segments {
        from: u64,
        to: u64,
        which: DropWhich,
    },
    /// Every ACK of the flow.
    Acks,
}

/// Deterministic loss: drop packets of `flow` when they enter `link` between `after`
/// and `until` (the papers' "segments 9 to 15 are deliberately dropped",
/// [Gurtov & Ludwig 2003] Fig. 4; or lost ACKs, [Gurtov & Ludwig 2003] II.B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropRule {
    pub link: usize,
    pub flow: usize,
    pub target: DropTarget,
    /// Drop only from this time on.
    pub after: Dur,
    /// Drop only before this time (`None`: until the end).
    pub until: Option<Dur>,
}

impl DropRule {
    /// Does this rule remove `p`, a packet of a flow with segment size `mss`, entering
    /// `link` at `now`?
    pub fn matches(
        &self,
        link: usize,
        p: &spikelab_core::Packet,
        mss: u64,
        now: spikelab_core::Time,
    ) -> bool {
        use spikelab_core::{PacketKind, Time};
        let in_time =
            now >= Time::ZERO + self.after && self.until.is_none_or(|u| now < Time::ZERO + u);
        if self.link != link || self.flow != p.flow.index() || !in_time {
            return false;
        }
        match self.target {
            DropTarget::Acks => p.kind == PacketKind::Ack,
            DropTarget::Segments { from, to, which } => {
                p.kind == PacketKind::Data
                    && (from..to).contains(&(p.seq / mss))
                    && (which == DropWhich::Every || !p.retx)
            }
        }
    }
}

/// A middlebox (STD proxy, delay injector) at the first endpoint of `link`: packets
/// crossing the link in its forward direction pass the box just before entering it,
/// packets crossing it in reverse pass the box just after leaving it. In the papers'
/// setups the wireless link's first endpoint is the base station.
#[derive(Clone, Debug, PartialEq)]
pub struct MiddleboxSpec {
    pub link: usize,
    pub config: spikelab_net::MiddleboxConfig,
}

/// Everything a run needs besides its seed.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    pub links: Vec<LinkConfig>,
    pub flows: Vec<FlowSpec>,
    /// Deterministic data losses.
    pub drops: Vec<DropRule>,
    /// Middleboxes, at most one per link.
    pub middleboxes: Vec<MiddleboxSpec>,
    /// The run ends at this simulated time even if flows are unfinished.
    pub stop_at: Dur,
    /// The kinds of trace record to keep: [`TraceKinds::ALL`] for `--trace` and plots,
    /// fewer for a metric that reads only those, [`TraceKinds::NONE`] for none.
    pub trace: TraceKinds,
    /// Record every packet at both endpoints of every flow for pcap files (passive:
    /// results are the same with and without).
    pub pcap: bool,
    /// Record every RTO computation per flow (timer metrics, [Ekström & Ludwig 2004] IV.C).
    pub record_rto: bool,
}
