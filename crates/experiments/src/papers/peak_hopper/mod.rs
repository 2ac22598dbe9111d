//! The reproduction of [Ekström & Ludwig 2004] ("The Peak-Hopper: A New
//! End-to-End Retransmission Timer for Reliable Unicast Transport"): `spikelab
//! reproduce peak-hopper`.
//!
//! The whole reproduction is data, `experiments/peak-hopper.toml` over the grid engine
//! ([`crate::grid`]); this module only registers it and reduces it for tests.
//!
//! * Section II's three problems of the RFC2988-RTO (Figs. 2, 3): synthetic RTT
//!   sequences fed straight into the estimators ([`crate::grid::rtt_feed`]).
//! * Scenario A (IV.B.1, V.A, V.B): N = 940..1036 flows, half per timer, B_norm, P, W,
//!   W_95 per run (Figs. 13, 14), over flow groups ([`crate::metrics::group`]).
//! * Scenario B (IV.B.2, V.C): the WCDMA-like link, P with confidence intervals
//!   (Fig. 15) and its distribution (Fig. 16), is data too (the same file).
//! * Scenario C (IV.B.3, V.D): outages every 50 s, the share of outages that caused a
//!   spurious timeout (Fig. 17), and the two-outage trace (Fig. 18), is data too: its
//!   per-run numbers are [`crate::metrics::outage`], Fig. 17's "largest reduction"
//!   a [`crate::grid::over_axis`] reduction and Fig. 18's panels
//!   [`crate::grid::run_series`] charts.
//!
//! The metrics are [`crate::metrics::timer`]; the estimators are spikelab_tcp's, unchanged.
//!
//! [`Scale::Paper`] is the experiment as the paper describes it; [`Scale::Smoke`] is a
//! documented reduction for tests (see each method).

use crate::context::Context;
use crate::grid::run::run_experiment;
use crate::grid::spec::AxisValue;
use crate::grid::ExperimentSpec;
use crate::report::Section;
use crate::reproduction::from_file::FromFile;
use crate::reproduction::interface::Reproduction;

/// How much of the paper's experiment to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The paper's flows, durations and parameter ranges.
    Paper,
    /// A fast run for tests: Scenario A with N and the start window both divided by
    /// 10 (so the offered load per second is the paper's), two loads; Scenario B 100 s;
    /// Scenario C 200 s (three outages) at two durations, `--reps` runs per cell
    /// ([`smoke`]). Fig. 18 and section II are unchanged (they are cheap).
    Smoke,
}

/// The paper's experiment file, as the paper describes it.
const FILE: FromFile = FromFile::new(
    "peak-hopper",
    "The Peak-Hopper: a new end-to-end retransmission timer (Ekström & Ludwig)",
    "peak-hopper.toml",
);

/// The reproduction.
pub struct PeakHopperRto {
    pub scale: Scale,
}

/// The registered instance (the paper's scale).
pub static PEAK_HOPPER: PeakHopperRto = PeakHopperRto {
    scale: Scale::Paper,
};

impl Reproduction for PeakHopperRto {
    fn name(&self) -> &'static str {
        FILE.name()
    }

    fn title(&self) -> &'static str {
        FILE.title()
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<Section> {
        run_experiment(&self.experiment()?, ctx)
    }

    fn run_readings(&self, ctx: &Context) -> anyhow::Result<Section> {
        crate::grid::readings_run::run_readings(&self.experiment()?, ctx)
    }
}

impl PeakHopperRto {
    /// `experiments/peak-hopper.toml` (Scenarios A, B and C), reduced by [`smoke`] at
    /// [`Scale::Smoke`].
    pub fn experiment(&self) -> anyhow::Result<ExperimentSpec> {
        let mut spec = FILE.spec()?;
        if self.scale == Scale::Smoke {
            smoke(&mut spec)?;
        }
        Ok(spec)
    }
}

/// Scenarios A, B and C at [`Scale::Smoke`]: A with N = 96 and 104 (the grid's `n` axis,
/// with the same settings as the file's loads), starts uniform in (0, 100) s, each run
/// stopped 200 s after the last start, one run per load; B 100 s long; C (Fig. 17) 200 s
/// long at d = 1 s and 2.2 s only, `--reps` runs per cell.
fn smoke(spec: &mut ExperimentSpec) -> anyhow::Result<()> {
    let g = spec.grid.iter_mut().find(|g| g.name == "a");
    let g = g.ok_or_else(|| anyhow::anyhow!("peak-hopper.toml: no grid `a`"))?;
    let axis = g.axis.iter_mut().find(|a| a.name == "n");
    let axis = axis.ok_or_else(|| anyhow::anyhow!("peak-hopper.toml: no axis `n`"))?;
    axis.values = [96i64, 104]
        .map(|n| {
            let mut set = toml::Table::new();
            set.insert("topology.pairs".into(), n.into());
            for i in 0..4 {
                set.insert(format!("flow.{i}.count"), (n / 4).into());
            }
            AxisValue {
                label: n.to_string(),
                set,
                labels: Default::default(),
            }
        })
        .to_vec();
    g.set.insert("run.stop".into(), "300s".into());
    for i in 0..4 {
        g.set.insert(format!("flow.{i}.start.max"), "100s".into());
    }
    g.reps = Some("1".into());
    let b = spec.grid.iter_mut().find(|g| g.name == "b");
    let b = b.ok_or_else(|| anyhow::anyhow!("peak-hopper.toml: no grid `b`"))?;
    b.set.insert("run.stop".into(), "100s".into());
    let c = spec.grid.iter_mut().find(|g| g.name == "c");
    let c = c.ok_or_else(|| anyhow::anyhow!("peak-hopper.toml: no grid `c`"))?;
    c.set.insert("run.stop".into(), "200s".into());
    c.reps = None;
    let d = c.axis.iter_mut().find(|a| a.name == "d");
    let d = d.ok_or_else(|| anyhow::anyhow!("peak-hopper.toml: no axis `d`"))?;
    d.values.retain(|v| v.label == "1.00" || v.label == "2.20");
    Ok(())
}
