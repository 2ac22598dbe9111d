//! Run metrics over a link outage schedule, for [Ekström & Ludwig 2004] Scenario C
//! (IV.B.3, V.D): how many of a run's outages caused a spurious timeout (Fig. 17), and
//! the RTO's peak and half-life after the last outage (Fig. 18).

use super::timer::{outage_hits, outages_from_schedule, rto_half_life, HalfLife, Outage};
use super::view::{RunMetric, RunView};
use spikelab_core::Dur;
use spikelab_engine::{RunResult, SimConfig};
use spikelab_net::spike::OutageConfig;
use spikelab_net::SpikeConfig;

/// Outages of one run and how many caused a spurious timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutageCount {
    pub hits: u64,
    pub outages: u64,
}

impl OutageCount {
    /// Percentage of the outages that caused a spurious timeout.
    pub fn percent(&self) -> f64 {
        100.0 * self.hits as f64 / self.outages.max(1) as f64
    }
}

/// The outages of the run's first outage schedule (any link) that ended before the run
/// did; none without a schedule.
pub fn scheduled_outages(sim: &SimConfig, r: &RunResult) -> Vec<Outage> {
    first_schedule(sim).map_or_else(Vec::new, |o| outages_from_schedule(o, r.end))
}

/// The outage duration of the run's first outage schedule (any link): the first listed
/// outage's ([`outages_from_schedule`]'s order of precedence), else its `duration`;
/// `None` without one.
pub fn scheduled_duration(sim: &SimConfig) -> Option<Dur> {
    let schedule = first_schedule(sim)?;
    match schedule.at.first() {
        Some(first) => Some(first.duration),
        None => schedule.duration,
    }
}

/// The run's first outage schedule, on any link.
fn first_schedule(sim: &SimConfig) -> Option<&OutageConfig> {
    sim.links
        .iter()
        .flat_map(|l| &l.spikes)
        .find_map(|s| match s {
            SpikeConfig::Outage(o) => Some(o),
            _ => None,
        })
}

/// Counts a run's scheduled outages and those that caused a spurious timeout
/// ([`outage_hits`]).
pub fn count_outages(sim: &SimConfig, r: &RunResult) -> OutageCount {
    let (hits, outages) = outage_hits(&scheduled_outages(sim, r), &r.timeouts, r.end);
    OutageCount { hits, outages }
}

/// Flow `flow`'s RTO peak and half-life after the last scheduled outage began (Fig.
/// 18's second outage); `None` without an outage or an RTO computation after it.
pub fn half_life_after_last_outage(
    sim: &SimConfig,
    r: &RunResult,
    flow: usize,
) -> Option<HalfLife> {
    let last = scheduled_outages(sim, r).last().copied()?;
    rto_half_life(&r.flows[flow].rto_samples, last.start, r.end)
}

fn half_life(v: &RunView) -> Option<HalfLife> {
    half_life_after_last_outage(v.sim, v.result, v.flow)
}

/// An outage metric of the whole run.
macro_rules! outage {
    ($name:literal, $f:expr) => {
        RunMetric {
            name: $name,
            over_flows: false,
            needs_rto: false,
            trace: None,
            value: |v| {
                let f: fn(OutageCount) -> f64 = $f;
                f(count_outages(v.sim, v.result))
            },
        }
    };
}

/// The metrics of this module, by name.
pub const METRICS: &[RunMetric] = &[
    outage!("outages", |c| c.outages as f64),
    outage!("outage_hits", |c| c.hits as f64),
    outage!("outage_hit_pct", |c| c.percent()),
    RunMetric {
        name: "rto_peak_after_last_outage_s",
        over_flows: false,
        needs_rto: true,
        trace: None,
        value: |v| half_life(v).map_or(f64::NAN, |h| h.peak.as_secs_f64()),
    },
    RunMetric {
        name: "rto_peak_at_after_last_outage_s",
        over_flows: false,
        needs_rto: true,
        trace: None,
        value: |v| half_life(v).map_or(f64::NAN, |h| h.peak_at.as_secs_f64()),
    },
    RunMetric {
        name: "outage_duration_s",
        over_flows: false,
        needs_rto: false,
        trace: None,
        value: |v| scheduled_duration(v.sim).map_or(f64::NAN, |d| d.as_secs_f64()),
    },
    RunMetric {
        name: "run_stop_s",
        over_flows: false,
        needs_rto: false,
        trace: None,
        value: |v| v.sim.stop_at.as_secs_f64(),
    },
    RunMetric {
        name: "rto_half_life_after_last_outage_s",
        over_flows: false,
        needs_rto: true,
        trace: None,
        value: |v| {
            half_life(v)
                .and_then(|h| h.half_life)
                .map_or(f64::NAN, |d| d.as_secs_f64())
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::of_run;
    use spikelab_core::Time;

    /// Fig. 18's run as `experiments/peak-hopper.toml`'s grid `c18` makes it (the
    /// RFC2988-RTO with timestamps), `stop` long.
    fn fig18(stop: &str) -> SimConfig {
        let mut doc: toml::Table = crate::embedded::scenario("peak-hopper-c.toml")
            .unwrap()
            .parse()
            .unwrap();
        let sets = format!(
            r#""run.stop" = "{stop}"
"flow.0.tcp.rto" = {{ kind = "rfc6298", initial_rto = "3s", min_rto_mode = "last_sample_plus_2g", init_mode = "modified", granularity = "10ms", max_rto = "60s" }}
"link.2.spikes" = [{{ kind = "outage", dirs = "forward", at = [{{ start = "20s", duration = "900ms" }}, {{ start = "27s", duration = "900ms" }}] }}]"#
        );
        for (path, value) in sets.parse::<toml::Table>().unwrap() {
            spikelab_scenario::set_path(&mut doc, &path, value).unwrap();
        }
        let text = toml::to_string(&doc).unwrap();
        let mut sim = spikelab_scenario::parse(&text, "fig18").unwrap().to_sim();
        sim.record_rto = true;
        sim
    }

    #[test]
    fn a_run_without_outages_has_no_hit_share_rather_than_a_division_by_zero() {
        let none = OutageCount {
            hits: 0,
            outages: 0,
        };
        assert_eq!(none.percent(), 0.0);
        let some = OutageCount {
            hits: 1,
            outages: 4,
        };
        assert_eq!(some.percent(), 25.0);
    }

    #[test]
    fn the_outage_duration_is_the_periodic_schedules_and_none_without_one() {
        let text = crate::embedded::scenario("peak-hopper-c.toml").unwrap();
        let sim = spikelab_scenario::parse(text, "c").unwrap().to_sim();
        assert_eq!(scheduled_duration(&sim), Some(Dur::from_millis(2200)));
        let text = crate::embedded::scenario("peak-hopper-b.toml").unwrap();
        let sim = spikelab_scenario::parse(text, "b").unwrap().to_sim();
        assert_eq!(scheduled_duration(&sim), None);
    }

    #[test]
    fn fig18s_two_outages_are_counted_and_the_peak_is_taken_after_the_second() {
        let sim = fig18("40s");
        let result = spikelab_engine::run(&sim, 1).unwrap();
        let v = RunView {
            result: &result,
            sim: &sim,
            flow: 0,
            flows: &[0],
            memo: &Default::default(),
        };
        assert_eq!(of_run("outages", &v), 2.0);
        let hits = of_run("outage_hits", &v);
        assert_eq!(of_run("outage_hit_pct", &v), 100.0 * hits / 2.0);
        let second = Time::from_secs_f64(27.0);
        let peak = result.flows[0]
            .rto_samples
            .iter()
            .filter(|s| s.time >= second)
            .map(|s| s.rto.as_secs_f64())
            .fold(f64::NAN, f64::max);
        assert!(peak > 0.0);
        assert_eq!(of_run("rto_peak_after_last_outage_s", &v), peak);
        let half = of_run("rto_half_life_after_last_outage_s", &v);
        assert!(half.is_nan() || (half > 0.0 && half < 13.0), "{half}");
        let peak_at = of_run("rto_peak_at_after_last_outage_s", &v);
        assert!((27.0..40.0).contains(&peak_at), "{peak_at}");
        assert_eq!(
            of_run("outage_duration_s", &v),
            0.9,
            "the first listed outage's"
        );
        assert_eq!(of_run("run_stop_s", &v), 40.0);
    }
}
