//! What a run produces: per-flow metrics, every retransmission timeout with its ground
//! truth, and per-link counters.
//!
//! The per-repetition results serialise (serde) so a repetition run in another process,
//! e.g. a Ray worker of the Python package, can be summarised exactly as a local one.

use serde::{Deserialize, Serialize};
use spikelab_core::{Dur, Packet, Time};
use spikelab_tcp::spurious::{DetectorKind, Verdict};

pub use crate::facts::Truth;

/// One detector's verdict on a timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DetectorVerdict {
    pub detector: DetectorKind,
    pub verdict: Verdict,
    /// When the detector reached it.
    pub at: Time,
    /// The detector drove the sender's response.
    pub drove: bool,
}

/// One retransmission timeout of an established connection (SYN timeouts are counted
/// in [`FlowResult::syn_timeouts`] only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// The timer fired during fast recovery ([Ekström & Ludwig 2004] IV.C leaves these out).
    pub in_fast_recovery: bool,
    /// A "fast timeout": the duplicate ACK that would have triggered fast retransmit
    /// arrived after it ([Ekström & Ludwig 2004] VI).
    pub fast: bool,
    /// Every enabled detector's verdict on the episode this timeout belongs to.
    pub verdicts: Vec<DetectorVerdict>,
}

impl TimeoutRecord {
    /// The first expiry of a timeout episode: the series of backed-off expiries with
    /// no new data acknowledged in between (one delay spike's timeouts). The papers
    /// count such a series as one timeout: [Gurtov & Ludwig 2003] Table 1's 4.68 "spurious
    /// RTOs" in 138 s is one per spike at one spike every 30 s, while a 3-15 s spike
    /// fires a 1 s timer several times.
    pub fn starts_episode(&self) -> bool {
        self.backoff == 0
    }
}

/// Metrics of one flow in one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// Retransmission timeouts counted per expiry of the timer.
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub genuine_timeouts: u64,
    /// Timeouts counted per episode ([`TimeoutRecord::starts_episode`]); an episode is
    /// spurious or genuine as its first expiry is (the one Eifel judges by its
    /// retransmission's timestamp, [Gurtov & Ludwig 2003] II.B).
    pub timeout_episodes: u64,
    pub spurious_timeout_episodes: u64,
    pub genuine_timeout_episodes: u64,
    /// Retransmissions of the SYN.
    pub syn_timeouts: u64,
    /// Spurious-timeout responses the sender applied.
    pub spurious_responses: u64,
    /// Fast-recovery reductions undone by D-SACK (`profile = "linux"`: the kernel
    /// counts them in `TCPDSACKUndo`, beside the D-SACK undos of a timeout).
    #[serde(default)]
    pub recovery_dsack_undos: u64,
    /// Datagrams (CBR) or segments delivered to the sink.
    pub delivered: u64,
    /// A QUIC sender's loss declarations and probe timeouts with their ground truth
    /// (all zero for TCP, which reports neither).
    #[serde(default)]
    pub declarations: DeclarationCounts,
    /// Spurious-timeout detectors the flow ran (driver and observers).
    pub detectors: Vec<DetectorKind>,
    /// Verdicts of a middlebox's detector that covered none of the flow's timeouts: the
    /// box took a retransmission that was no timeout's (a fast retransmission, a SYN
    /// retransmission) for one (see the ground truth's ledger, `truth`).
    #[serde(default)]
    pub unmatched_box_verdicts: u64,
    /// Every RTO computation after an RTT sample (only with `SimConfig::record_rto`).
    pub rto_samples: Vec<RtoSample>,
}

/// Counts of a sender's [`Declaration`](crate::transport::Declaration)s, judged by
/// ground truth, and of its responses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclarationCounts {
    /// Probe timeouts (RFC 9002 6.2), counted per expiry.
    pub ptos: u64,
    /// Probe timeouts while an outstanding packet, or an ACK of one, was still in the
    /// network (or the ACK was due at the receiver).
    pub spurious_ptos: u64,
    /// Packets declared lost (RFC 9002 6.1).
    pub loss_declarations: u64,
    /// Packets declared lost that were still in the network or had arrived.
    pub spurious_loss_declarations: u64,
    /// Losses declared persistent congestion (RFC 9002 7.6).
    pub persistent_congestion: u64,
    /// Congestion responses undone after spurious loss declarations.
    pub undos: u64,
}

/// One RTO computation: the RTT sample and the RTO that resulted from it
/// ([Ekström & Ludwig 2004] IV.C's P_j = RTO_j / RTT_j).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RtoSample {
    pub time: Time,
    pub rtt: Dur,
    pub rto: Dur,
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
    /// Goodput as the papers define it for a finished transfer ([Gurtov & Ludwig 2002] 5, Table
    /// 3: "minimum segments / segments sent"): the segments the whole transfer needs at
    /// least over the data segments the sender handed to the network. At most 1, since
    /// a finished transfer sent every one of its segments at least once (ping-pong
    /// messages are written only once the previous one is acknowledged, so none share a
    /// segment).
    ///
    /// NaN for a transfer the run did not finish, as its download time is: the minimum
    /// counts segments that were never sent, so the ratio would be neither a goodput
    /// nor bounded by 1 (a short stop gave 3.6). NaN also for flows without segments
    /// (CBR cross traffic).
    pub fn goodput(&self) -> f64 {
        if self.completed.is_none() || self.data_segments_sent == 0 || self.min_segments == 0 {
            return f64::NAN;
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

impl LinkResult {
    /// The directions in the order results list them, with their names.
    pub const DIRS: [(usize, &'static str); 2] = [(0, "forward"), (1, "reverse")];

    /// Direction `dir` of link `name`, from its counters (packets).
    pub fn from_counters(name: &str, dir: &'static str, c: &spikelab_net::LinkCounters) -> Self {
        LinkResult {
            name: name.to_owned(),
            dir,
            offered: c.offered.packets,
            delivered: c.delivered.packets,
            dropped: c.dropped.packets,
            in_network: c.in_network.packets,
        }
    }
}

/// Which endpoint of its flow saw a captured packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// Packets the sender hands to the network, and ACKs when they reach it.
    Sender,
    /// Packets when they reach the receiver (after the path), and ACKs it sends.
    Receiver,
}

/// A packet seen at one endpoint of its flow, for pcap files.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Captured {
    /// When the endpoint sent or received it.
    pub time: Time,
    pub packet: Packet,
    pub at: Endpoint,
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
    /// Per flow, the packets seen at its sender and at its receiver, in the order they
    /// were seen (only with `pcap`).
    pub captures: Vec<Vec<Captured>>,
}

/// How well one detector's verdicts matched the ground truth, over many timeouts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DetectorScore {
    pub detector: Option<DetectorKind>,
    /// Called spurious, truly spurious.
    pub true_positives: u64,
    /// Called spurious, truly genuine.
    pub false_positives: u64,
    /// Called genuine, truly genuine.
    pub true_negatives: u64,
    /// Called genuine, truly spurious.
    pub false_negatives: u64,
    /// Timeouts of flows running the detector that it never decided.
    pub undecided: u64,
    /// Of the false positives, timeouts caused only by lost ACKs ([Gurtov & Ludwig 2003]
    /// II.B discusses why Eifel calls these spurious).
    pub ack_lost_called_spurious: u64,
    /// Sum of (verdict time - timeout time) over decided timeouts, in seconds.
    pub total_delay_s: f64,
}

impl DetectorScore {
    /// Timeouts the detector decided.
    pub fn decided(&self) -> u64 {
        self.true_positives + self.false_positives + self.true_negatives + self.false_negatives
    }
    /// Mean time from the timeout to the verdict, in seconds.
    pub fn mean_delay_s(&self) -> f64 {
        match self.decided() {
            0 => f64::NAN,
            n => self.total_delay_s / n as f64,
        }
    }
    /// Adds another score of the same detector (e.g. from another repetition).
    pub fn merge(&mut self, o: &DetectorScore) {
        self.true_positives += o.true_positives;
        self.false_positives += o.false_positives;
        self.true_negatives += o.true_negatives;
        self.false_negatives += o.false_negatives;
        self.undecided += o.undecided;
        self.ack_lost_called_spurious += o.ack_lost_called_spurious;
        self.total_delay_s += o.total_delay_s;
    }

    fn count(&mut self, rec: &TimeoutRecord, v: Option<&DetectorVerdict>) {
        let Some(v) = v else {
            self.undecided += 1;
            return;
        };
        let said_spurious = v.verdict == Verdict::Spurious;
        match (said_spurious, rec.truth.is_spurious()) {
            (true, true) => self.true_positives += 1,
            (true, false) => self.false_positives += 1,
            (false, false) => self.true_negatives += 1,
            (false, true) => self.false_negatives += 1,
        }
        if said_spurious && rec.truth == Truth::GenuineAckLost {
            self.ack_lost_called_spurious += 1;
        }
        self.total_delay_s += v.at.saturating_since(rec.time).as_secs_f64();
    }
}

/// Scores every detector any flow ran against the truth of its flows' timeouts, in
/// the order of [`DetectorKind`].
pub fn score_detectors(flows: &[FlowResult], timeouts: &[TimeoutRecord]) -> Vec<DetectorScore> {
    let mut kinds: Vec<DetectorKind> = flows
        .iter()
        .flat_map(|f| f.detectors.iter().copied())
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|k| {
            let mut score = DetectorScore {
                detector: Some(k),
                ..DetectorScore::default()
            };
            for rec in timeouts {
                if flows[rec.flow as usize].detectors.contains(&k) {
                    score.count(rec, rec.verdicts.iter().find(|v| v.detector == k));
                }
            }
            score
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(completed: Option<Time>, min_segments: u64, sent: u64) -> FlowResult {
        FlowResult {
            completed,
            min_segments,
            data_segments_sent: sent,
            ..FlowResult::default()
        }
    }

    #[test]
    fn goodput_of_a_finished_transfer_is_minimum_over_sent() {
        let done = Some(Time::from_secs_f64(2.0));
        assert_eq!(flow(done, 10, 12).goodput(), 10.0 / 12.0);
        assert_eq!(flow(done, 10, 10).goodput(), 1.0);
    }

    #[test]
    fn goodput_of_an_unfinished_transfer_is_nan_not_above_one() {
        // 200 segments needed, 55 sent when the run stopped: the old ratio was 3.6.
        assert!(flow(None, 200, 55).goodput().is_nan());
        assert!(flow(None, 10, 12).goodput().is_nan());
    }

    #[test]
    fn goodput_of_a_flow_without_segments_is_nan() {
        assert!(flow(Some(Time::from_secs_f64(1.0)), 0, 0)
            .goodput()
            .is_nan());
    }
}
