//! Run metrics over a group of flows beyond [`super::RUN_METRICS`]: the rest
//! of [Ekström & Ludwig 2004] IV.C's timer counts and shares
//! ([`super::timer::TimerMetrics`], pooled over the view's flows), the flows a
//! run left unfinished, and the loss at a dumbbell's bottleneck.

use super::timer::TimerMetrics;
use super::view::{RunMetric, RunView};
use std::rc::Rc;

/// A timer metric over the view's flows (every RTO computation is recorded).
macro_rules! timer {
    ($name:literal, $f:expr) => {
        RunMetric {
            name: $name,
            over_flows: true,
            needs_rto: true,
            trace: None,
            value: |v| {
                let f: fn(&TimerMetrics) -> f64 = $f;
                f(&timer(v))
            },
        }
    };
}

/// The metrics of this module, by name.
pub const METRICS: &[RunMetric] = &[
    timer!("timer_flows", |m| m.flows as f64),
    timer!("timer_data_segments", |m| m.data_segments as f64),
    timer!("timer_timeouts", |m| m.timeouts as f64),
    timer!("timer_spurious", |m| m.spurious as f64),
    timer!("timer_fast", |m| m.fast as f64),
    timer!("timer_fast_spurious", |m| m.fast_spurious as f64),
    timer!("timer_necessary", |m| m.necessary() as f64),
    timer!("timer_p95", |m| m.p.percentile(95.0)),
    timer!("timer_rto_computations", |m| m.p.n as f64),
    timer!("timer_rfc3522_decided", |m| m.rfc3522_decided as f64),
    timer!("timer_rfc3522_spurious", |m| m.rfc3522_spurious as f64),
    timer!("timer_rfc3522_fast_spurious", |m| m.rfc3522_fast_spurious
        as f64),
    timer!("timer_rfc3522_fast_genuine", |m| m.rfc3522_fast_genuine
        as f64),
    timer!(
        "timer_rfc3522_b_norm_pct",
        TimerMetrics::b_norm_rfc3522_percent
    ),
    timer!("timer_rfc3522_w95", TimerMetrics::w95_rfc3522),
    timer!(
        "timer_fast_share_of_spurious_pct",
        TimerMetrics::fast_share_of_spurious_percent
    ),
    timer!(
        "timer_rfc3522_fast_share_of_spurious_pct",
        TimerMetrics::fast_share_of_spurious_rfc3522_percent
    ),
    RunMetric {
        name: "flows_unfinished",
        over_flows: false,
        needs_rto: false,
        trace: None,
        value: |v| {
            v.result
                .flows
                .iter()
                .filter(|f| f.completed.is_none())
                .count() as f64
        },
    },
    RunMetric {
        name: "bottleneck_loss_pct",
        over_flows: false,
        needs_rto: false,
        trace: None,
        value: bottleneck_loss_pct,
    },
];

/// IV.C's metrics pooled over the view's flows (as one group of a run), computed once
/// per run and group ([`super::view::RunMemo`]).
pub(crate) fn timer(v: &RunView) -> Rc<TimerMetrics> {
    v.memo.get(v.flows, || {
        let mut member = vec![false; v.result.flows.len()];
        for &i in v.flows {
            member[i] = true;
        }
        TimerMetrics::of_flows(v.result, |i| member.get(i).copied().unwrap_or(false))
    })
}

/// Data packets the link named `bottleneck` (a dumbbell's) dropped in the forward
/// direction, in percent of those offered to it; NaN without such a link.
fn bottleneck_loss_pct(v: &RunView) -> f64 {
    let l = v.result.links.iter();
    let mut l = l.filter(|l| l.name == "bottleneck" && l.dir == "forward");
    l.next().map_or(f64::NAN, |l| {
        100.0 * l.dropped as f64 / l.offered.max(1) as f64
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_engine::{FlowResult, LinkResult, RunResult};

    #[test]
    fn unfinished_flows_and_bottleneck_loss_read_the_whole_run() {
        let done = FlowResult {
            completed: Some(spikelab_core::Time::from_secs_f64(1.0)),
            ..FlowResult::default()
        };
        let mut r = RunResult {
            flows: vec![done, FlowResult::default(), FlowResult::default()],
            ..RunResult::default()
        };
        let link = |dir, dropped| LinkResult {
            name: "bottleneck".into(),
            dir,
            offered: 200,
            delivered: 200 - dropped,
            dropped,
            in_network: 0,
        };
        r.links = vec![link("reverse", 50), link("forward", 3)];
        let text = crate::embedded::scenario("std-proxy.toml").unwrap();
        let sim = spikelab_scenario::parse(text, "s").unwrap().to_sim();
        let v = RunView {
            result: &r,
            sim: &sim,
            flow: 0,
            flows: &[0],
            memo: &Default::default(),
        };
        let get = |n: &str| (METRICS.iter().find(|m| m.name == n).unwrap().value)(&v);
        assert_eq!(get("flows_unfinished"), 2.0);
        assert_eq!(get("bottleneck_loss_pct"), 1.5);
        let none = RunResult {
            links: vec![],
            ..r.clone()
        };
        let v = RunView {
            result: &none,
            memo: &Default::default(),
            ..v
        };
        assert!((METRICS[METRICS.len() - 1].value)(&v).is_nan());
    }
}
