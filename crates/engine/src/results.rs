//! What a run produces: per-flow metrics, every retransmission timeout with its ground
//! truth, and per-link counters.

use spikelab_core::{Dur, Packet, Time};

/// What really happened to the segment a retransmission timer fired for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// A transmission of the segment was still in the network: only delayed.
    SpuriousDataDelayed,
    /// The receiver had the segment and an ACK for it was in the network or held by
    /// the delayed-ACK timer: only the ACK was late.
    SpuriousAckDelayed,
    /// The receiver had the segment but every ACK covering it was lost.
    GenuineAckLost,
    /// No copy of the segment was left in the network and the receiver lacked it.
    GenuineDataLost,
}

impl Truth {
    /// Was the timeout spurious: would the ACK have come without the retransmission?
    pub fn is_spurious(self) -> bool {
        matches!(self, Truth::SpuriousDataDelayed | Truth::SpuriousAckDelayed)
    }

    /// A short label for CSV files.
    pub fn label(self) -> &'static str {
        match self {
            Truth::SpuriousDataDelayed => "spurious-data-delayed",
            Truth::SpuriousAckDelayed => "spurious-ack-delayed",
            Truth::GenuineAckLost => "genuine-ack-lost",
            Truth::GenuineDataLost => "genuine-data-lost",
        }
    }
}

/// One retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeoutRecord {
    pub time: Time,
    pub flow: u32,
    /// snd_una: the first byte of the timed-out segment.
    pub seq: u64,
    /// The RTO the timer was last started with.
    pub rto: Dur,
    /// The last RTT sample before the timeout.
    pub last_rtt: Option<Dur>,
    /// Timeouts of this segment before this one (0 for the first).
    pub backoff: u32,
    pub truth: Truth,
}

/// Metrics of one flow in one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowResult {
    pub name: String,
    pub start: Time,
    /// When the last byte was acknowledged (TCP) — `None` if the run ended first.
    pub completed: Option<Time>,
    /// Payload bytes the application wrote (TCP) or sent (CBR).
    pub bytes: u64,
    /// Data segments handed to the network, first transmissions and retransmissions.
    pub data_segments_sent: u64,
    /// Segments the transfer needs at least: ceil(bytes / MSS).
    pub min_segments: u64,
    pub retransmissions: u64,
    /// Retransmitted segments that reached a receiver which already had every byte.
    pub unnecessary_retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub genuine_timeouts: u64,
    /// Datagrams (CBR) or segments delivered to the sink.
    pub delivered: u64,
}

impl FlowResult {
    /// Download time in seconds.
    pub fn download_time(&self) -> Option<f64> {
        self.completed.map(|c| (c - self.start).as_secs_f64())
    }
    /// Application throughput in bit/s over the download time.
    pub fn throughput_bps(&self) -> Option<f64> {
        self.download_time()
            .filter(|t| *t > 0.0)
            .map(|t| self.bytes as f64 * 8.0 / t)
    }
    /// Goodput as the papers define it: minimum segments needed / data segments sent.
    pub fn goodput(&self) -> f64 {
        if self.data_segments_sent == 0 {
            return 0.0;
        }
        self.min_segments as f64 / self.data_segments_sent as f64
    }
}

/// Counters of one link direction at the end of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    pub name: String,
    pub dir: &'static str,
    pub offered: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_network: u64,
}

/// A packet seen at a flow's sender, for pcap files: sent data or received ACKs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Captured {
    pub time: Time,
    pub packet: Packet,
}

/// Everything a run produced.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub seed: u64,
    pub end: Time,
    pub flows: Vec<FlowResult>,
    pub timeouts: Vec<TimeoutRecord>,
    pub links: Vec<LinkResult>,
    /// Events popped from the queue.
    pub events: u64,
    /// Data packets delivered to receivers (the benchmark's unit of work).
    pub data_packets_delivered: u64,
    pub trace: Vec<spikelab_core::trace::TraceRecord>,
    /// Per flow, the packets seen at its sender (only with `pcap`).
    pub captures: Vec<Vec<Captured>>,
}
