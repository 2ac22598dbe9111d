//! What is kept of each repetition, and the run-level settings.

use serde::{Deserialize, Serialize};
use spikelab_core::{RngStreams, Time};
use spikelab_engine::{FlowResult, LinkResult, RunResult, TimeoutRecord};

/// The run-level settings every output records.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// Base seed.
    pub seed: u64,
    /// Number of repetitions.
    pub reps: u32,
    /// Seed of each repetition.
    pub seeds: Vec<u64>,
    /// Whether traces were written.
    pub trace: bool,
    /// Which pcaps were written (`--pcap`).
    pub pcap: Option<PcapSides>,
    /// The `--set KEY=VALUE` overrides applied to the scenario file, in order.
    pub overrides: Vec<String>,
}

/// Where `spikelab run --pcap` captures each flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PcapSides {
    /// At the sender: what it sends, and ACKs as they arrive.
    Sender,
    /// At the receiver, after the path: where Wireshark can tell spurious
    /// retransmissions (data arriving already acknowledged).
    Receiver,
    /// Both, one file each.
    Both,
}

impl PcapSides {
    /// The names `--pcap` takes, in the order of [`PcapSides::from_name`].
    pub const NAMES: [&'static str; 3] = ["sender", "receiver", "both"];

    /// The side named `name` (one of [`PcapSides::NAMES`]).
    pub fn from_name(name: &str) -> Option<PcapSides> {
        match name {
            "sender" => Some(PcapSides::Sender),
            "receiver" => Some(PcapSides::Receiver),
            "both" => Some(PcapSides::Both),
            _ => None,
        }
    }

    /// Does this selection include the sender's (`true`) or the receiver's capture?
    pub fn includes(self, sender: bool) -> bool {
        self == PcapSides::Both || (self == PcapSides::Sender) == sender
    }
}

impl RunInfo {
    /// `reps` repetitions from base `seed`: repetition r runs with
    /// `RngStreams::repetition_seed(seed, r)`, whatever runs it and wherever.
    pub fn new(seed: u64, reps: u32) -> RunInfo {
        RunInfo {
            seed,
            reps,
            seeds: (0..reps as u64)
                .map(|r| RngStreams::repetition_seed(seed, r))
                .collect(),
            trace: false,
            pcap: None,
            overrides: Vec::new(),
        }
    }
}

/// What is kept of one repetition once its trace and captures are written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepOutcome {
    /// Repetition number.
    pub rep: u32,
    /// Its seed.
    pub seed: u64,
    /// Simulated time at the end of the run.
    pub end: Time,
    /// Events processed.
    pub events: u64,
    /// Data packets delivered to receivers.
    pub data_packets_delivered: u64,
    /// Per-flow metrics.
    pub flows: Vec<FlowResult>,
    /// Every retransmission timeout.
    pub timeouts: Vec<TimeoutRecord>,
    /// Per-link-direction counters.
    #[serde(with = "links_serde")]
    pub links: Vec<LinkResult>,
}

impl RepOutcome {
    /// Keeps the summary parts of `r`.
    pub fn from_result(rep: u32, seed: u64, r: RunResult) -> RepOutcome {
        RepOutcome {
            rep,
            seed,
            end: r.end,
            events: r.events,
            data_packets_delivered: r.data_packets_delivered,
            flows: r.flows,
            timeouts: r.timeouts,
            links: r.links,
        }
    }
}

/// Link counters as `(name, dir, offered, delivered, dropped, in_network)`: the
/// engine labels directions with `&'static str`, which serde cannot borrow from input.
mod links_serde {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use spikelab_engine::LinkResult;

    type Row = (String, String, u64, u64, u64, u64);

    pub fn serialize<S: Serializer>(links: &[LinkResult], s: S) -> Result<S::Ok, S::Error> {
        let rows: Vec<Row> = links
            .iter()
            .map(|l| {
                let dir = l.dir.to_owned();
                (
                    l.name.clone(),
                    dir,
                    l.offered,
                    l.delivered,
                    l.dropped,
                    l.in_network,
                )
            })
            .collect();
        rows.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<LinkResult>, D::Error> {
        let rows = Vec::<Row>::deserialize(d)?;
        rows.into_iter()
            .map(|(name, dir, offered, delivered, dropped, in_network)| {
                let dir = ["forward", "reverse"]
                    .into_iter()
                    .find(|d| *d == dir)
                    .ok_or_else(|| {
                        serde::de::Error::custom(format!("unknown link direction `{dir}`"))
                    })?;
                Ok(LinkResult {
                    name,
                    dir,
                    offered,
                    delivered,
                    dropped,
                    in_network,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_back_from_json_are_equal() {
        let s = spikelab_scenario::load("../../scenarios/reference.toml").unwrap();
        let r = spikelab_engine::run(s.sim(), 5).unwrap();
        let o = RepOutcome::from_result(0, 5, r);
        assert!(
            !o.timeouts.is_empty() && !o.links.is_empty(),
            "a telling example"
        );
        let text = serde_json::to_string(&o).unwrap();
        let back: RepOutcome = serde_json::from_str(&text).unwrap();
        assert_eq!(back, o);
    }

    #[test]
    fn repetition_seeds_are_the_documented_derivation() {
        let info = RunInfo::new(7, 3);
        assert_eq!(info.seeds[0], 7, "repetition 0 uses the base seed itself");
        assert_eq!(info.seeds[2], RngStreams::repetition_seed(7, 2));
    }
}
