//! `meta`: what produced the tables, enough to reproduce them.

use crate::outcome::{PcapSides, RepOutcome, RunInfo};
use serde::Serialize;
use std::path::Path;

#[derive(Serialize)]
struct Meta<'a, R: Serialize> {
    spikelab_version: &'static str,
    scenario_path: &'a Path,
    base_seed: u64,
    reps: u32,
    seeds: &'a [u64],
    trace: bool,
    pcap: Option<PcapSides>,
    overrides: &'a [String],
    repetitions: Vec<RepMeta>,
    scenario: R,
}

/// Engine counters of one repetition.
#[derive(Serialize)]
struct RepMeta {
    rep: u32,
    seed: u64,
    end_s: f64,
    events: u64,
    data_packets_delivered: u64,
}

/// The pretty-printed JSON of `meta.json` (with a final newline): the run settings,
/// each repetition's engine counters and `scenario`, the scenario's resolved record.
pub fn meta_json(
    scenario_path: &Path,
    scenario: impl Serialize,
    info: &RunInfo,
    outcomes: &[RepOutcome],
) -> serde_json::Result<String> {
    let meta = Meta {
        spikelab_version: env!("CARGO_PKG_VERSION"),
        scenario_path,
        base_seed: info.seed,
        reps: info.reps,
        seeds: &info.seeds,
        trace: info.trace,
        pcap: info.pcap,
        overrides: &info.overrides,
        repetitions: outcomes
            .iter()
            .map(|o| RepMeta {
                rep: o.rep,
                seed: o.seed,
                end_s: o.end.as_secs_f64(),
                events: o.events,
                data_packets_delivered: o.data_packets_delivered,
            })
            .collect(),
        scenario,
    };
    let mut text = serde_json::to_string_pretty(&meta)?;
    text.push('\n');
    Ok(text)
}
