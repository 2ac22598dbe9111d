//! `spikelab plot DIR`: time-sequence and window/timer plots of a traced repetition.
//!
//! Reads `DIR/trace/rep<R>.csv` and, for each chosen flow, writes
//! `DIR/plots/rep<R>-<flow>-tseq.{png,svg}` and `DIR/plots/rep<R>-<flow>-cwnd.{png,svg}`
//! with the output crate's plots. Flow names come from `DIR/meta.json`.

use crate::args::PlotArgs;
use crate::exit::Failure;
use crate::outputs::file_safe;
use anyhow::{anyhow, Context};
use spikelab_core::trace::TraceRecord;
use spikelab_core::FlowId;
use spikelab_output::csv::read_trace_csv;
use spikelab_output::plot::{
    bbr_plot, flow_records, has_model_estimates, time_sequence_plot, window_timer_plot,
};
use std::path::Path;

/// Runs `spikelab plot`.
pub fn plot_command(a: &PlotArgs) -> Result<(), Failure> {
    let trace_path = a.dir.join("trace").join(format!("rep{}.csv", a.rep));
    if !trace_path.is_file() {
        return Err(Failure::usage(anyhow!(
            "{}: no such trace (run with --trace, and check --rep)",
            trace_path.display()
        )));
    }
    let names = flow_names(&a.dir)?;
    let chosen = choose_flows(&names, a.flow.as_deref()).map_err(Failure::usage)?;
    let records =
        read_trace_csv(&trace_path).with_context(|| format!("reading {}", trace_path.display()))?;
    let plots = a.dir.join("plots");
    std::fs::create_dir_all(&plots).with_context(|| format!("creating {}", plots.display()))?;
    for f in chosen {
        plot_flow(&records, &plots, a.rep, f, &names[f])?;
    }
    eprintln!("wrote {}", plots.display());
    Ok(())
}

/// Flow names in engine order, from `meta.json`.
fn flow_names(dir: &Path) -> anyhow::Result<Vec<String>> {
    let path = dir.join("meta.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let meta: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let flows = meta["scenario"]["flows"]
        .as_array()
        .ok_or_else(|| anyhow!("{}: no scenario.flows list", path.display()))?;
    Ok(flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            f["name"]
                .as_str()
                .map_or_else(|| i.to_string(), str::to_owned)
        })
        .collect())
}

/// The flow indices to plot: `flow` by name or index, or all.
fn choose_flows(names: &[String], flow: Option<&str>) -> anyhow::Result<Vec<usize>> {
    let Some(flow) = flow else {
        return Ok((0..names.len()).collect());
    };
    if let Some(i) = names.iter().position(|n| n == flow) {
        return Ok(vec![i]);
    }
    match flow.parse::<usize>() {
        Ok(i) if i < names.len() => Ok(vec![i]),
        _ => Err(anyhow!(
            "--flow {flow}: no such flow (flows: {})",
            names.join(", ")
        )),
    }
}

fn plot_flow(
    records: &[TraceRecord],
    plots: &Path,
    rep: u32,
    flow: usize,
    name: &str,
) -> anyhow::Result<()> {
    let mine = flow_records(records, FlowId(flow as u32));
    let stem = format!("rep{rep}-{}", file_safe(name));
    let title = format!("{name}, repetition {rep}");
    time_sequence_plot(&mine, &title, &plots.join(format!("{stem}-tseq")))
        .with_context(|| format!("plotting {name}"))?;
    window_timer_plot(&mine, &title, &plots.join(format!("{stem}-cwnd")))
        .with_context(|| format!("plotting {name}"))?;
    if has_model_estimates(&mine) {
        bbr_plot(&mine, &title, &plots.join(format!("{stem}-bbr")))
            .with_context(|| format!("plotting {name}"))?;
    }
    Ok(())
}
