//! The simulations of [Ekström & Ludwig 2004] Scenarios B and C as edits of the scenario
//! files `scenarios/peak-hopper-{b,c}.toml`, so every cell goes through the one scenario
//! schema and the files stay the single place where each modelling choice is written and
//! cited. A cell changes only what the paper varies: the timer, timestamps, the bearer
//! rate, the outage duration. (Scenario A is `experiments/peak-hopper.toml`.)

use anyhow::{anyhow, Context as _};
use spikelab_engine::SimConfig;
use spikelab_tcp::rto::{InitMode, PeakHopperConfig, RtoConfig};
use toml::{Table, Value};

/// Scenario B (IV.B.2).
pub const SCENARIO_B: &str = include_str!("../../../../scenarios/peak-hopper-b.toml");
/// Scenario C (IV.B.3).
pub const SCENARIO_C: &str = include_str!("../../../../scenarios/peak-hopper-c.toml");

/// The retransmission timers the paper compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The PH-RTO (III) with the paper's parameters ([`PeakHopperConfig::default`]).
    PeakHopper,
    /// The "RFC2988-Timer" of the paper: FreeBSD-style minimum (II.A) and the modified
    /// initialisation (V.A) ([`RtoConfig::peak_hopper_paper_rfc2988`]).
    Rfc2988,
    /// The same with RFC 2988's own initialisation (V.A, Fig. 13).
    Rfc2988OriginalInit,
}

impl Timer {
    /// The estimator configuration.
    pub fn rto_config(self) -> RtoConfig {
        match self {
            Timer::PeakHopper => RtoConfig::PeakHopper(PeakHopperConfig::default()),
            Timer::Rfc2988 => RtoConfig::peak_hopper_paper_rfc2988(),
            Timer::Rfc2988OriginalInit => match RtoConfig::peak_hopper_paper_rfc2988() {
                RtoConfig::Rfc6298(mut c) => {
                    c.init_mode = InitMode::Standard;
                    RtoConfig::Rfc6298(c)
                }
                other => other,
            },
        }
    }

    /// A short label for CSV files and legends.
    pub fn label(self) -> &'static str {
        match self {
            Timer::PeakHopper => "PH-RTO",
            Timer::Rfc2988 => "RFC2988-RTO",
            Timer::Rfc2988OriginalInit => "RFC2988-RTO (original init)",
        }
    }
}

/// Payload bytes of a 1500-byte IP packet: 20 + 20 header bytes, plus the timestamps
/// option (10 bytes padded to 12) when it is on (the scenario files explain the size).
pub fn mss(timestamps: bool) -> i64 {
    if timestamps {
        1448
    } else {
        1460
    }
}

/// A scenario file being edited.
#[derive(Clone, Debug)]
pub struct Doc {
    name: String,
    root: Value,
}

impl Doc {
    /// Parses scenario `text` (one of the constants above).
    pub fn parse(text: &str, name: &str) -> anyhow::Result<Doc> {
        let table = text
            .parse::<Table>()
            .with_context(|| format!("{name}: TOML"))?;
        Ok(Doc {
            name: name.to_owned(),
            root: Value::Table(table),
        })
    }

    /// Sets the value at a dotted path with the one setter grids, `--set` and Python
    /// use ([`spikelab_scenario::set_path`]): numeric segments index arrays
    /// (`"flow.0.tcp.timestamps"`), missing tables are created.
    pub fn set(&mut self, path: &str, value: impl Into<Value>) -> anyhow::Result<()> {
        let Value::Table(t) = &mut self.root else {
            return Err(anyhow!("{}: not a table", self.name));
        };
        spikelab_scenario::set_path(t, path, value.into())
            .map_err(|e| anyhow!("{}: {e}", self.name))
    }

    /// Number of `[[flow]]` entries.
    pub fn flow_count(&self) -> usize {
        self.root
            .get("flow")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }

    /// Sets flow `i`'s retransmission timer.
    pub fn set_timer(&mut self, i: usize, timer: Timer) -> anyhow::Result<()> {
        let rto = Value::try_from(timer.rto_config()).context("RtoConfig as TOML")?;
        self.set(&format!("flow.{i}.tcp.rto"), rto)
    }

    /// Turns the timestamps option on or off for flow `i`, keeping 1500-byte IP packets
    /// and a 20-packet window; a ping-pong message stays one full segment. The RFC 3522
    /// detector the files run as an observer (the paper's definition of a spurious
    /// timeout, IV.C.2) needs timestamps, so it observes only when they are on.
    pub fn set_timestamps(&mut self, i: usize, on: bool) -> anyhow::Result<()> {
        let mss = mss(on);
        let observe: Vec<Value> = if on {
            vec![Value::from("eifel")]
        } else {
            vec![]
        };
        self.set(&format!("flow.{i}.tcp.spurious.observe"), observe)?;
        self.set(&format!("flow.{i}.tcp.timestamps"), on)?;
        self.set(&format!("flow.{i}.tcp.mss"), mss)?;
        self.set(&format!("flow.{i}.tcp.receiver_window"), 20 * mss)?;
        Ok(())
    }

    /// The engine configuration, with every RTO computation recorded.
    pub fn to_sim(&self) -> anyhow::Result<SimConfig> {
        let text = toml::to_string(&self.root).context("scenario as TOML")?;
        let scenario = spikelab_scenario::parse(&text, &self.name).map_err(|e| anyhow!("{e}"))?;
        let mut sim = scenario.to_sim();
        sim.record_rto = true;
        Ok(sim)
    }
}

/// One Scenario B or C run's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WcdmaCell {
    pub timer: Timer,
    pub timestamps: bool,
    /// Nominal bearer rate, kbit/s (64 or 384).
    pub kbps: u32,
    /// Scenario C's outage duration d, ms (`None`: Scenario B).
    pub outage_ms: Option<u32>,
    /// Simulated seconds.
    pub stop_s: u32,
}

/// The one-pipe queue of Scenario B, in packets, at `kbps` (peak-hopper-b.toml derives
/// both values from the measured base RTT).
pub fn one_pipe_packets(kbps: u32) -> i64 {
    if kbps <= 64 {
        4
    } else {
        16
    }
}

/// Scenario B (no outage) or C (outages of `outage_ms`) for one cell.
pub fn scenario_wcdma(c: &WcdmaCell) -> anyhow::Result<SimConfig> {
    let (text, name) = match c.outage_ms {
        None => (SCENARIO_B, "peak-hopper-b.toml"),
        Some(_) => (SCENARIO_C, "peak-hopper-c.toml"),
    };
    let mut d = wcdma_doc(text, name, c)?;
    match c.outage_ms {
        None => d.set("link.2.queue.limit.packets", one_pipe_packets(c.kbps))?,
        Some(ms) => d.set("link.2.spikes.0.duration", format!("{ms}ms"))?,
    }
    d.to_sim()
}

/// Fig. 18: Scenario C with two 0.9 s outages at 20 s and 27 s instead of the periodic
/// ones, `stop_s` long.
pub fn scenario_fig18(c: &WcdmaCell) -> anyhow::Result<SimConfig> {
    let mut d = wcdma_doc(SCENARIO_C, "peak-hopper-c.toml", c)?;
    let outage = |start: &str| {
        let mut t = Table::new();
        t.insert("start".into(), start.into());
        t.insert("duration".into(), "900ms".into());
        Value::Table(t)
    };
    let mut spike = Table::new();
    spike.insert("kind".into(), "outage".into());
    spike.insert("dirs".into(), "forward".into());
    spike.insert("at".into(), vec![outage("20s"), outage("27s")].into());
    d.set("link.2.spikes", vec![Value::Table(spike)])?;
    d.to_sim()
}

fn wcdma_doc(text: &str, name: &str, c: &WcdmaCell) -> anyhow::Result<Doc> {
    let mut d = Doc::parse(text, name)?;
    d.set("run.stop", format!("{}s", c.stop_s))?;
    d.set("link.2.rate", format!("{}kbit/s", c.kbps))?;
    d.set_timestamps(0, c.timestamps)?;
    d.set_timer(0, c.timer)?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_engine::FlowKind;

    fn tcp(sim: &SimConfig, i: usize) -> &spikelab_tcp::TcpConfig {
        match &sim.flows[i].kind {
            FlowKind::Tcp { tcp, .. } => tcp,
            FlowKind::Cbr { .. } => panic!("a TCP flow"),
        }
    }

    #[test]
    fn the_scenario_files_load_as_written() {
        for (text, name) in [
            (
                crate::embedded::scenario("peak-hopper-a.toml").unwrap(),
                "a.toml",
            ),
            (SCENARIO_B, "b.toml"),
            (SCENARIO_C, "c.toml"),
        ] {
            let s = spikelab_scenario::parse(text, name).unwrap();
            assert!(!s.sim().flows.is_empty());
        }
    }

    /// The paper's SACK recovery is RFC 3517's (IV.A): on the `ns2-2002` profile the
    /// files turn off ns-2 Sack1's pipe, duplicate-ACK and go-back-N rules for every flow.
    #[test]
    fn every_flow_recovers_by_rfc_3517_not_by_ns2_sack1() {
        for (text, name) in [
            (
                crate::embedded::scenario("peak-hopper-a.toml").unwrap(),
                "a.toml",
            ),
            (SCENARIO_B, "b.toml"),
            (SCENARIO_C, "c.toml"),
        ] {
            let s = spikelab_scenario::parse(text, name).unwrap();
            let sim = s.sim();
            for i in 0..sim.flows.len() {
                let t = tcp(sim, i);
                assert_eq!(
                    t.sack_pipe,
                    spikelab_tcp::recovery::PipeRule::Rfc6675,
                    "{name} flow {i}"
                );
                assert!(!t.ns2.sack1_dupack_rules, "{name} flow {i}");
                assert!(!t.ns2.sack1_go_back_n_resends_sacked, "{name} flow {i}");
            }
        }
    }

    #[test]
    fn wcdma_cells_set_rate_queue_and_outages() {
        let mut c = WcdmaCell {
            timer: Timer::Rfc2988,
            timestamps: true,
            kbps: 64,
            outage_ms: None,
            stop_s: 100,
        };
        let b = scenario_wcdma(&c).unwrap();
        assert_eq!(b.links[2].rate.bps(), 64_000);
        assert!(b.links[2].spikes.is_empty());
        c.outage_ms = Some(1250);
        let cfg = scenario_wcdma(&c).unwrap();
        assert_eq!(cfg.links[2].spikes.len(), 1);
        let f18 = scenario_fig18(&c).unwrap();
        assert_eq!(tcp(&f18, 0).rto, Timer::Rfc2988.rto_config());
    }
}
