//! The per-run metrics a table can report, by name: the flow metrics of the
//! experiment's flow ([`NAMES`]), and metrics over the whole run, its links and its
//! middleboxes ([`RUN_METRICS`]), each a pure function of one run.

pub mod distributions;
pub mod group;
pub mod outage;
pub mod quic;
pub mod timer;
pub mod view;

pub use view::{split_group, trace_kinds, RunMemo, RunMetric, RunView, TraceNeed};

use spikelab_engine::FlowResult;
use std::rc::Rc;
use timer::TimerMetrics;

/// Every run metric: the registry experiment files name.
pub const RUN_METRICS: &[RunMetric] = &[
    RunMetric {
        name: "throughput_bps",
        over_flows: false,
        needs_rto: false,
        trace: None,
        value: |v| v.result.flows[v.flow].throughput_bps().unwrap_or(f64::NAN),
    },
    RunMetric {
        name: "goodput_last_hop",
        over_flows: false,
        needs_rto: false,
        trace: None,
        value: goodput_last_hop,
    },
    RunMetric {
        name: "timer_b_norm_pct",
        over_flows: true,
        needs_rto: true,
        trace: None,
        value: |v| timer(v).b_norm_percent(),
    },
    RunMetric {
        name: "timer_p",
        over_flows: true,
        needs_rto: true,
        trace: None,
        value: |v| timer(v).p_mean(),
    },
    RunMetric {
        name: "timer_w",
        over_flows: true,
        needs_rto: true,
        trace: None,
        value: |v| timer(v).w_mean(),
    },
    RunMetric {
        name: "timer_w95",
        over_flows: true,
        needs_rto: true,
        trace: None,
        value: |v| timer(v).w95(),
    },
    RunMetric {
        name: "packets_dropped",
        over_flows: false,
        needs_rto: false,
        trace: None,
        value: |v| v.result.links.iter().map(|l| l.dropped).sum::<u64>() as f64,
    },
];

/// The flow's minimum segments over the data packets the last link of its route
/// delivered in the flow's direction ([Kim & Cho 2003] V's goodput "over a wireless
/// link": retransmissions a middlebox filtered before that link do not count).
fn goodput_last_hop(v: &RunView) -> f64 {
    let hop = v.sim.flows[v.flow].route.last().expect("a route has a hop");
    let dir = usize::from(hop.dir != spikelab_net::spike::Dir::Forward);
    let delivered = v.result.links[2 * hop.link + dir].delivered;
    v.result.flows[v.flow].min_segments as f64 / delivered.max(1) as f64
}

/// [Ekström & Ludwig 2004] IV.C's timer metrics pooled over the view's flows (every
/// flow's RTO computations and timeouts together, as one group of a run).
fn timer(v: &RunView) -> Rc<TimerMetrics> {
    group::timer(v)
}

/// Every run metric: [`RUN_METRICS`] and those of [`group`], [`outage`], [`quic`] and the
/// papers' own (one line each).
fn run_metrics() -> impl Iterator<Item = &'static RunMetric> {
    RUN_METRICS
        .iter()
        .chain(crate::papers::std_proxy::metrics::METRICS)
        .chain(group::METRICS)
        .chain(outage::METRICS)
        .chain(quic::METRICS)
}

/// Whether `name` (without its group) is a flow metric or a run metric.
pub fn known(name: &str) -> bool {
    let name = split_group(name).0;
    NAMES.contains(&name)
        || run_metrics().any(|m| m.name == name)
        || distributions::find(name).is_some()
}

/// Whether metric `name` (without its group) may be taken over a group of flows.
pub fn takes_group(name: &str) -> bool {
    let name = split_group(name).0;
    run_metrics().any(|m| m.name == name && m.over_flows)
        || distributions::find(name).is_some_and(|d| d.over_flows)
}

/// Every known metric name, for error messages.
pub fn known_names() -> String {
    NAMES
        .iter()
        .copied()
        .chain(run_metrics().map(|m| m.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether metric `name` reads the RTO computations.
pub fn needs_rto(name: &str) -> bool {
    let name = split_group(name).0;
    run_metrics().any(|m| m.name == name && m.needs_rto)
        || distributions::find(name).is_some_and(|d| d.needs_rto)
}

/// What of the trace metric `name` reads, if anything.
pub fn trace_need(name: &str) -> Option<TraceNeed> {
    let name = split_group(name).0;
    run_metrics().find(|m| m.name == name)?.trace
}

/// The value of metric `name` (flow or run, without its group) for one run; NaN when
/// unknown.
pub fn of_run(name: &str, v: &RunView) -> f64 {
    match run_metrics().find(|m| m.name == name) {
        Some(m) => (m.value)(v),
        None => value(name, &v.result.flows[v.flow]),
    }
}

/// Every metric name an experiment file may use.
pub const NAMES: [&str; 15] = [
    "download_time_s",
    "throughput_kbps",
    "goodput",
    "data_segments_sent",
    "retransmissions",
    "unnecessary_retransmissions",
    "fast_retransmits",
    "timeouts",
    "spurious_timeouts",
    "genuine_timeouts",
    "timeout_episodes",
    "spurious_timeout_episodes",
    "genuine_timeout_episodes",
    "spurious_responses",
    "completed",
];

/// The value of metric `name` for one flow of one run (NaN when undefined, e.g. the
/// download time of a transfer the run did not finish).
pub fn value(name: &str, f: &FlowResult) -> f64 {
    let n = |v: u64| v as f64;
    match name {
        "download_time_s" => f.download_time().unwrap_or(f64::NAN),
        "throughput_kbps" => f.throughput_bps().map_or(f64::NAN, |t| t / 1000.0),
        "goodput" => f.goodput(),
        "data_segments_sent" => n(f.data_segments_sent),
        "retransmissions" => n(f.retransmissions),
        "unnecessary_retransmissions" => n(f.unnecessary_retransmissions),
        "fast_retransmits" => n(f.fast_retransmits),
        "timeouts" => n(f.timeouts),
        "spurious_timeouts" => n(f.spurious_timeouts),
        "genuine_timeouts" => n(f.genuine_timeouts),
        "timeout_episodes" => n(f.timeout_episodes),
        "spurious_timeout_episodes" => n(f.spurious_timeout_episodes),
        "genuine_timeout_episodes" => n(f.genuine_timeout_episodes),
        "spurious_responses" => n(f.spurious_responses),
        "completed" => n(f.completed.is_some() as u64),
        _ => f64::NAN,
    }
}

/// Every metric of `f`, in the order of [`NAMES`].
pub fn all(f: &FlowResult) -> [f64; NAMES.len()] {
    NAMES.map(|n| value(n, f))
}

/// The position of metric `name` in [`NAMES`].
pub fn index(name: &str) -> Option<usize> {
    NAMES.iter().position(|n| *n == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Time;

    #[test]
    fn every_name_has_a_value_and_an_unfinished_download_has_no_time_nor_goodput() {
        let f = FlowResult {
            min_segments: 10,
            data_segments_sent: 12,
            ..FlowResult::default()
        };
        let v = all(&f);
        assert!(v[0].is_nan());
        assert!(v[index("goodput").unwrap()].is_nan());
        let spike = FlowResult {
            timeouts: 3,
            timeout_episodes: 1,
            spurious_timeout_episodes: 1,
            ..f.clone()
        };
        assert_eq!(value("timeouts", &spike), 3.0);
        assert_eq!(value("timeout_episodes", &spike), 1.0);
        assert_eq!(value("spurious_timeout_episodes", &spike), 1.0);
        assert_eq!(value("genuine_timeout_episodes", &spike), 0.0);
        let done = FlowResult {
            completed: Some(Time::from_secs_f64(2.0)),
            bytes: 1000,
            ..f
        };
        assert_eq!(value("download_time_s", &done), 2.0);
        assert_eq!(value("throughput_kbps", &done), 4.0);
        assert_eq!(value("goodput", &done), 10.0 / 12.0);
    }
}
