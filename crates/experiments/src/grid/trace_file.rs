//! Trace-file outputs: `[[trace_file]]` writes the delay trace a scenario's link
//! generates (`forward.delay_trace = { generator = "ping-trace", ... }`) as a
//! delay-trace file (`time,delay` per line, seconds, under a `#` comment), the file
//! `spikelab run` would replay, for reading and for tools that want a file.
//!
//! ```toml
//! [[trace_file]]
//! file = "path-delay.csv"
//! link = "radio"                 # its forward direction
//! comment = "the synthetic GPRS-like ping trace replayed as a one-way delay"
//! ```

use super::spec::{base_text, ExperimentSpec, TraceFileSpec};
use crate::context::Context;
use anyhow::{anyhow, Context as _};
use spikelab_net::ping_trace::ping_layout_text;
use spikelab_net::{DelayGenerator, DelaySource};

/// The text of `t`'s trace file.
pub fn text(spec: &ExperimentSpec, t: &TraceFileSpec) -> anyhow::Result<String> {
    let (base, name) = base_text(spec, t.scenario.as_deref().unwrap_or(&spec.scenario))?;
    let s = spikelab_scenario::parse(&base, &name).map_err(|e| anyhow!("{e}"))?;
    let sim = s.to_sim();
    let link = sim
        .links
        .iter()
        .find(|l| l.name == t.link)
        .ok_or_else(|| anyhow!("trace_file `{}`: no link `{}` in {name}", t.file, t.link))?;
    match link.forward.delay_trace.as_deref() {
        Some(DelaySource::Generated(g)) => match g.generator {
            DelayGenerator::PingTrace(p) => Ok(ping_layout_text(&p.samples_ms(), &t.comment)),
            DelayGenerator::LeoReconfiguration(l) => Ok(l.delay_trace().to_text(&t.comment)),
        },
        _ => Err(anyhow!(
            "trace_file `{}`: link `{}` of {name} generates no delay trace",
            t.file,
            t.link
        )),
    }
}

/// Writes every `[[trace_file]]` of `spec` into `ctx.dir`.
pub fn write_all(spec: &ExperimentSpec, ctx: &Context) -> anyhow::Result<()> {
    for t in &spec.trace_file {
        let body = text(spec, t)?;
        std::fs::write(ctx.dir.join(&t.file), body)
            .with_context(|| format!("writing {}", t.file))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_net::DelayTrace;

    fn spec(link: &str) -> ExperimentSpec {
        let text = format!(
            r#"
            name = "t"
            title = "t"
            scenario = "delay-injection.toml"
            flow = "ftp"
            [[trace_file]]
            file = "path.csv"
            link = "{link}"
            comment = "a comment"
        "#
        );
        ExperimentSpec::parse(&text, "t.toml").unwrap()
    }

    #[test]
    fn a_trace_file_is_the_trace_the_scenarios_link_replays() {
        let body = text(&spec("radio"), &spec("radio").trace_file[0]).unwrap();
        assert!(body.starts_with("# a comment\n"));
        let parsed = DelayTrace::parse(&body).unwrap();
        let scenario = crate::embedded::scenario("delay-injection.toml").unwrap();
        let sim = spikelab_scenario::parse(scenario, "s").unwrap().to_sim();
        let Some(DelaySource::Generated(g)) = sim.links[0].forward.delay_trace.as_deref() else {
            panic!("the scenario generates its trace");
        };
        let DelayGenerator::PingTrace(p) = g.generator else {
            panic!("the scenario's generator is a ping trace");
        };
        assert_eq!(
            parsed,
            spikelab_net::ping_trace::ping_layout(&p.samples_ms())
        );
    }

    #[test]
    fn a_link_that_is_missing_is_an_error() {
        let s = spec("nope");
        let e = text(&s, &s.trace_file[0]).unwrap_err();
        assert!(e.to_string().contains("no link `nope`"), "{e}");
    }
}
