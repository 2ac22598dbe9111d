//! `meta`: what produced the tables, enough to reproduce them.

use crate::outcome::{PcapSides, RepOutcome, RunInfo};
use serde::Serialize;
use std::io::Write;
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
    let mut bytes = Vec::new();
    write_meta_json(&mut bytes, scenario_path, scenario, info, outcomes)?;
    Ok(String::from_utf8(bytes).expect("serde_json writes UTF-8"))
}

/// [`meta_json`]'s text written into `w` as it is produced, never held whole: a
/// 10 000-flow dumbbell's record (20 001 links) is about 19 MB of text.
pub fn write_meta_json(
    mut w: impl Write,
    scenario_path: &Path,
    scenario: impl Serialize,
    info: &RunInfo,
    outcomes: &[RepOutcome],
) -> serde_json::Result<()> {
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
    serde_json::to_writer_pretty(&mut w, &meta)?;
    w.write_all(b"\n").map_err(serde_json::Error::io)
}
