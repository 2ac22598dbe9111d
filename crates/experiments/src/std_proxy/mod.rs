//! Reproduction of [Kim & Cho 2003] ("Considering Spurious Timeout in Proxy
//! for Improving TCP Performance in Wireless Networks") section V: throughput,
//! throughput increase ratio and goodput of plain TCP Reno, Eifel, F-RTO and the STD
//! proxy against the last-hop rate BW, for receiver windows of 8 KB (Fig. 8) and
//! 64 KB (Fig. 9), and condition (3) of section IV.
//!
//! * [`setup`]: the cells, built from `scenarios/std-proxy.toml` (every choice cited
//!   there).
//! * [`metrics`]: one run reduced to throughput, goodput over the wireless link,
//!   timeouts and condition (3).
//! * [`results`]: the cells aggregated over repetitions, CSV files, figures, and the
//!   rate above which STD's gain fades.

pub mod metrics;
pub mod results;
pub mod setup;

use crate::report::Section;
use crate::reproduction::{Context, Reproduction};
use crate::runner::run_cells;
use setup::Plan;
use spikelab_core::BitRate;

/// The `std-proxy` reproduction.
pub struct StdProxyReproduction;

impl Reproduction for StdProxyReproduction {
    fn name(&self) -> &'static str {
        "std-proxy"
    }

    fn title(&self) -> &'static str {
        "Considering Spurious Timeout in Proxy for Improving TCP Performance in Wireless Networks (Kim, Cho)"
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<Section> {
        run_plan(ctx, &Plan::paper())
    }
}

/// Runs every cell of `plan` `ctx.reps` times, writes the CSV files and figures into
/// `ctx.dir` and returns the report's section.
pub fn run_plan(ctx: &Context, plan: &Plan) -> anyhow::Result<Section> {
    let base = setup::base()?;
    let cellular = setup::cellular_index(&base);
    let cells = setup::cells(plan);
    let configs: Vec<_> = cells
        .iter()
        .map(|&c| setup::configure(&base, plan, c))
        .collect();
    let runs = run_cells(&configs, ctx.batch(), |i, _, r| {
        let c = cells[i];
        metrics::summarize(r, cellular, BitRate(c.rate_kbps * 1000), c.window)
    })?;
    let table = results::aggregate(&cells, &runs);
    results::write_csv(ctx, &table, &cells, &runs)?;
    results::section(ctx, plan, &table)
}
