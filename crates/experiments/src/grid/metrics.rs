//! The per-run metrics a table can report, by name: the flow metrics of the
//! experiment's flow ([`NAMES`]), and metrics over the whole run, its links and its
//! middleboxes ([`RUN_METRICS`]), each a pure function of one run.

use crate::std_proxy::metrics::StdEpisodes;
use crate::timer_metrics::TimerMetrics;
use spikelab_engine::{FlowResult, RunResult, SimConfig, TraceKinds};
use std::cell::RefCell;
use std::rc::Rc;

/// What a run metric sees: the run, the configuration it ran, and the flows it is
/// about: the experiment's flow, or every flow of a group (`metric@group`).
pub struct RunView<'a> {
    pub result: &'a RunResult,
    pub sim: &'a SimConfig,
    /// The experiment's flow.
    pub flow: usize,
    /// The flows the metric covers (`[flow]` without a group).
    pub flows: &'a [usize],
    /// What several metrics of this run share, computed once (one memo per run).
    pub memo: &'a RunMemo,
}

/// Values that several run metrics derive alike from one run, computed on first use:
/// each of [Ekström & Ludwig 2004] IV.C's timer metrics reads every RTO computation of
/// its flows, each STD-proxy metric the run's whole trace, and a table names many of
/// them for every run. A memo serves the views of one run (one [`RunResult`] and
/// [`SimConfig`]); it is keyed by what else the values read (the flows, the flow).
#[derive(Default)]
pub struct RunMemo {
    timer: RefCell<Vec<(Vec<usize>, Rc<TimerMetrics>)>>,
    std: RefCell<Vec<(usize, StdEpisodes)>>,
}

impl RunMemo {
    /// The timer metrics of `flows`, computed by `of` the first time.
    pub fn timer(&self, flows: &[usize], of: impl FnOnce() -> TimerMetrics) -> Rc<TimerMetrics> {
        if let Some((_, m)) = self.timer.borrow().iter().find(|(f, _)| f == flows) {
            return Rc::clone(m);
        }
        let m = Rc::new(of());
        self.timer
            .borrow_mut()
            .push((flows.to_vec(), Rc::clone(&m)));
        m
    }

    /// The STD-proxy episodes of `flow`, computed by `of` the first time.
    pub fn std(&self, flow: usize, of: impl FnOnce() -> StdEpisodes) -> StdEpisodes {
        if let Some(&(_, e)) = self.std.borrow().iter().find(|(f, _)| *f == flow) {
            return e;
        }
        let e = of();
        self.std.borrow_mut().push((flow, e));
        e
    }
}

/// What of a run's trace a metric reads, and of which runs: the grid records those
/// kinds of record in the cells whose configuration `of` accepts, and nothing for the
/// metric in the others (the whole trace in every cell cost std-proxy's reproduction
/// about a tenth of its time: 19.9 against 17.9 s user at `--reps 20`).
#[derive(Clone, Copy)]
pub struct TraceNeed {
    pub kinds: TraceKinds,
    pub of: fn(&SimConfig) -> bool,
}

/// A metric over a whole run.
pub struct RunMetric {
    pub name: &'static str,
    /// The trace records it reads, if any.
    pub trace: Option<TraceNeed>,
    /// It reads every RTO computation (`FlowResult::rto_samples`; the grid records them).
    pub needs_rto: bool,
    /// It reads every flow of [`RunView::flows`], so it may be taken over a group
    /// (`metric@group`); the others read [`RunView::flow`] alone.
    pub over_flows: bool,
    pub value: fn(&RunView) -> f64,
}

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
    RunMetric {
        name: "std_episodes",
        over_flows: false,
        needs_rto: false,
        trace: Some(crate::std_proxy::metrics::TRACE),
        value: |v| f64::from(crate::std_proxy::metrics::of_run(v).std_episodes),
    },
    RunMetric {
        name: "std_cond3_met",
        over_flows: false,
        needs_rto: false,
        trace: Some(crate::std_proxy::metrics::TRACE),
        value: |v| f64::from(crate::std_proxy::metrics::of_run(v).std_condition_met),
    },
    RunMetric {
        name: "std_cwnd_bytes",
        over_flows: false,
        needs_rto: false,
        trace: Some(crate::std_proxy::metrics::TRACE),
        value: |v| crate::std_proxy::metrics::of_run(v).cwnd_std_sum as f64,
    },
    RunMetric {
        name: "std_cond3_met_flight",
        over_flows: false,
        needs_rto: false,
        trace: Some(crate::std_proxy::metrics::TRACE),
        value: |v| f64::from(crate::std_proxy::metrics::of_run(v).flight_condition_met),
    },
    RunMetric {
        name: "std_flight_bytes",
        over_flows: false,
        needs_rto: false,
        trace: Some(crate::std_proxy::metrics::TRACE),
        value: |v| crate::std_proxy::metrics::of_run(v).flight_sum as f64,
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
    super::group_metrics::timer(v)
}

/// Every run metric: [`RUN_METRICS`] and those of [`super::group_metrics`] and
/// [`super::outage_metrics`].
fn run_metrics() -> impl Iterator<Item = &'static RunMetric> {
    RUN_METRICS
        .iter()
        .chain(super::group_metrics::METRICS)
        .chain(super::outage_metrics::METRICS)
}

/// A metric name and the flow group it is taken over: `timer_p@ph-bulk`.
pub fn split_group(name: &str) -> (&str, Option<&str>) {
    match name.split_once('@') {
        Some((m, g)) => (m, Some(g)),
        None => (name, None),
    }
}

/// Whether `name` (without its group) is a flow metric or a run metric.
pub fn known(name: &str) -> bool {
    let name = split_group(name).0;
    NAMES.contains(&name)
        || run_metrics().any(|m| m.name == name)
        || super::distributions::find(name).is_some()
}

/// Whether metric `name` (without its group) may be taken over a group of flows.
pub fn takes_group(name: &str) -> bool {
    let name = split_group(name).0;
    run_metrics().any(|m| m.name == name && m.over_flows)
        || super::distributions::find(name).is_some_and(|d| d.over_flows)
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
        || super::distributions::find(name).is_some_and(|d| d.needs_rto)
}

/// What of the trace metric `name` reads, if anything.
pub fn trace_need(name: &str) -> Option<TraceNeed> {
    let name = split_group(name).0;
    run_metrics().find(|m| m.name == name)?.trace
}

/// The trace records the metrics `needs` read of a run of `sim`.
pub fn trace_kinds(needs: &[TraceNeed], sim: &SimConfig) -> TraceKinds {
    needs
        .iter()
        .filter(|n| (n.of)(sim))
        .fold(TraceKinds::NONE, |k, n| k.union(n.kinds))
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

    #[test]
    fn a_memo_computes_each_groups_timer_metrics_once() {
        let memo = RunMemo::default();
        let calls = std::cell::Cell::new(0);
        let of = |flows: u64| {
            calls.set(calls.get() + 1);
            TimerMetrics {
                flows,
                ..TimerMetrics::default()
            }
        };
        assert_eq!(memo.timer(&[0, 1], || of(2)).flows, 2);
        assert_eq!(memo.timer(&[0, 1], || of(99)).flows, 2);
        assert_eq!(memo.timer(&[1], || of(1)).flows, 1);
        assert_eq!(calls.get(), 2);
        let e = StdEpisodes {
            std_episodes: 3,
            ..StdEpisodes::default()
        };
        assert_eq!(memo.std(0, || e), e);
        assert_eq!(memo.std(0, StdEpisodes::default), e);
        assert_eq!(memo.std(1, StdEpisodes::default), StdEpisodes::default());
    }
}
