//! `spikelab bench`: wall-clock throughput of the engine on two standard workloads.
//!
//! * (a) `single`: one 5 MB TCP transfer over 2 Mbit/s, 150 ms, a 75-packet drop-tail
//!   queue (the [Gurtov & Ludwig 2003] path without spikes);
//! * (b) `dumbbell-100`: `scenarios/dumbbell-100.toml`, 100 flows for 60 s over a
//!   100 Mbit/s, 20 ms dumbbell with a 500-packet queue.
//!
//! Each case runs three times and the fastest run is reported (the others measure
//! the machine's noise, not the engine). The wall clock is read here, around
//! `spikelab_engine::run`, never inside the engine. `--quick` shrinks both workloads
//! and runs each once: a smoke test.

use crate::args::BenchArgs;
use crate::exit::Failure;
use anyhow::anyhow;
use spikelab_core::Dur;
use spikelab_engine::SimConfig;
use std::time::{Duration, Instant};

/// Case (a) as a scenario.
const SINGLE: &str = r#"
[run]
name = "bench-single"

[[link]]
name = "bottleneck"
rate = "2Mbit/s"
latency = "150ms"
queue = { kind = "drop-tail", limit = { packets = 75 } }

[[flow]]
name = "bulk"
route = ["bottleneck"]
tcp = { mss = 1000, receiver_window = 150000, recovery = "reno-sack" }
workload = { kind = "bulk", bytes = "5MB" }
"#;

/// Case (b) as a scenario.
const DUMBBELL: &str = include_str!("../../../scenarios/dumbbell-100.toml");

/// One benchmark workload.
pub struct Case {
    /// What the case runs, in a few words.
    pub name: String,
    /// What is run.
    pub sim: SimConfig,
}

/// The two cases; `quick` shrinks them (500 KB; 5 s of the dumbbell).
pub fn cases(quick: bool) -> anyhow::Result<Vec<Case>> {
    let (bytes, secs) = if quick { ("500KB", 5) } else { ("5MB", 60) };
    let single_text = SINGLE.replace("\"5MB\"", &format!("\"{bytes}\""));
    let single = spikelab_scenario::parse(&single_text, "bench-single.toml")?.to_sim();
    let mut dumbbell = spikelab_scenario::parse(DUMBBELL, "dumbbell-100.toml")?.to_sim();
    dumbbell.stop_at = Dur::from_secs(secs);
    Ok(vec![
        Case {
            name: format!("single {bytes} 2Mbit/s 150ms q75"),
            sim: single,
        },
        Case {
            name: format!("dumbbell 100 flows 100Mbit/s {secs}s"),
            sim: dumbbell,
        },
    ])
}

/// The best of several runs of one case.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Fastest wall time.
    pub wall: Duration,
    /// Events the engine processed.
    pub events: u64,
    /// Data packets delivered to receivers.
    pub data_packets: u64,
}

impl Measurement {
    /// Data packets per wall-clock second.
    pub fn packets_per_sec(&self) -> f64 {
        self.data_packets as f64 / self.wall.as_secs_f64()
    }
    /// Events per wall-clock second.
    pub fn events_per_sec(&self) -> f64 {
        self.events as f64 / self.wall.as_secs_f64()
    }
}

/// Runs `sim` `runs` times with seed 1 and keeps the fastest.
pub fn measure(sim: &SimConfig, runs: u32) -> Result<Measurement, Failure> {
    let mut best: Option<Measurement> = None;
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let r = spikelab_engine::run(sim, 1)
            .map_err(|e| Failure::invariant(anyhow!("benchmark run: {e}")))?;
        let m = Measurement {
            wall: t0.elapsed(),
            events: r.events,
            data_packets: r.data_packets_delivered,
        };
        if best.as_ref().is_none_or(|b| m.wall < b.wall) {
            best = Some(m);
        }
    }
    best.ok_or_else(|| Failure::from(anyhow!("no benchmark run")))
}

/// Runs `spikelab bench`.
pub fn bench_command(a: &BenchArgs) -> Result<(), Failure> {
    let runs = if a.quick { 1 } else { 3 };
    println!(
        "{:<34} {:>9} {:>11} {:>11} {:>13} {:>13}",
        "case", "wall_s", "events", "data_pkts", "data_pkts/s", "events/s"
    );
    for case in cases(a.quick)? {
        let m = measure(&case.sim, runs)?;
        println!(
            "{:<34} {:>9.3} {:>11} {:>11} {:>13.0} {:>13.0}",
            case.name,
            m.wall.as_secs_f64(),
            m.events,
            m.data_packets,
            m.packets_per_sec(),
            m.events_per_sec()
        );
    }
    println!("(best of {runs} run(s) each, wall clock)");
    Ok(())
}
