//! The row builders of every table, and the per-flow metrics of `runs` and `summary`.

use crate::outcome::RepOutcome;
use crate::sink::RowSink;
use spikelab_engine::{FlowKind, FlowResult, SimConfig, TimeoutRecord};
use spikelab_output::stats::Summary;
use spikelab_tcp::spurious::UndoCounters;
use std::collections::hash_map::{Entry, HashMap};
use std::io;

/// A metric's value in one row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A count.
    Int(u64),
    /// A real number; `None` when the flow has no such value.
    Real(Option<f64>),
}

impl Value {
    fn as_f64(self) -> f64 {
        match self {
            Value::Int(v) => v as f64,
            Value::Real(v) => v.unwrap_or(f64::NAN),
        }
    }
}

/// A per-flow metric: its column name and how to read it from a [`FlowResult`].
pub struct Metric {
    /// Column name in `runs`, row label in `summary`.
    pub name: &'static str,
    /// The value for one flow in one repetition.
    pub value: fn(&FlowResult) -> Value,
}

/// Every per-flow metric, in column order. Formulas live on [`FlowResult`].
pub const METRICS: &[Metric] = &[
    Metric {
        name: "completed",
        value: |f| Value::Int(f.completed.is_some() as u64),
    },
    Metric {
        name: "download_time_s",
        value: |f| Value::Real(f.download_time()),
    },
    Metric {
        name: "throughput_bps",
        value: |f| Value::Real(f.throughput_bps()),
    },
    Metric {
        name: "goodput",
        value: |f| Value::Real(Some(f.goodput())),
    },
    Metric {
        name: "bytes",
        value: |f| Value::Int(f.bytes),
    },
    Metric {
        name: "data_segments_sent",
        value: |f| Value::Int(f.data_segments_sent),
    },
    Metric {
        name: "min_segments",
        value: |f| Value::Int(f.min_segments),
    },
    Metric {
        name: "retransmissions",
        value: |f| Value::Int(f.retransmissions),
    },
    Metric {
        name: "unnecessary_retransmissions",
        value: |f| Value::Int(f.unnecessary_retransmissions),
    },
    Metric {
        name: "fast_retransmits",
        value: |f| Value::Int(f.fast_retransmits),
    },
    Metric {
        name: "timeouts",
        value: |f| Value::Int(f.timeouts),
    },
    Metric {
        name: "spurious_timeouts",
        value: |f| Value::Int(f.spurious_timeouts),
    },
    Metric {
        name: "genuine_timeouts",
        value: |f| Value::Int(f.genuine_timeouts),
    },
    Metric {
        name: "timeout_episodes",
        value: |f| Value::Int(f.timeout_episodes),
    },
    Metric {
        name: "spurious_timeout_episodes",
        value: |f| Value::Int(f.spurious_timeout_episodes),
    },
    Metric {
        name: "genuine_timeout_episodes",
        value: |f| Value::Int(f.genuine_timeout_episodes),
    },
    Metric {
        name: "delivered",
        value: |f| Value::Int(f.delivered),
    },
    // The undo events and failed recoveries, under the kernel's counter names, last so
    // that the columns before them keep their places.
    Metric {
        name: UndoCounters::NAMES[0],
        value: |f| Value::Int(f.undos.values()[0]),
    },
    Metric {
        name: UndoCounters::NAMES[1],
        value: |f| Value::Int(f.undos.values()[1]),
    },
    Metric {
        name: UndoCounters::NAMES[2],
        value: |f| Value::Int(f.undos.values()[2]),
    },
    Metric {
        name: UndoCounters::NAMES[3],
        value: |f| Value::Int(f.undos.values()[3]),
    },
    Metric {
        name: UndoCounters::NAMES[4],
        value: |f| Value::Int(f.undos.values()[4]),
    },
    Metric {
        name: UndoCounters::NAMES[5],
        value: |f| Value::Int(f.undos.values()[5]),
    },
    Metric {
        name: UndoCounters::NAMES[6],
        value: |f| Value::Int(f.undos.values()[6]),
    },
];

/// The metrics of a QUIC sender's loss declarations and probe timeouts (RFC 9002 6),
/// judged by ground truth. They are columns of `runs` and rows of `summary` only when
/// the scenario has a QUIC flow, so that TCP-only outputs keep their columns.
pub const QUIC_METRICS: &[Metric] = &[
    Metric {
        name: "ptos",
        value: |f| Value::Int(f.declarations.ptos),
    },
    Metric {
        name: "spurious_ptos",
        value: |f| Value::Int(f.declarations.spurious_ptos),
    },
    Metric {
        name: "loss_declarations",
        value: |f| Value::Int(f.declarations.loss_declarations),
    },
    Metric {
        name: "spurious_loss_declarations",
        value: |f| Value::Int(f.declarations.spurious_loss_declarations),
    },
    Metric {
        name: "persistent_congestion",
        value: |f| Value::Int(f.declarations.persistent_congestion),
    },
    Metric {
        name: "undos",
        value: |f| Value::Int(f.declarations.undos),
    },
];

/// The per-flow metrics of a run of `sim`: [`METRICS`], then [`QUIC_METRICS`] when a
/// flow is QUIC.
pub fn metrics_of(sim: &SimConfig) -> impl Iterator<Item = &'static Metric> {
    let quic = sim
        .flows
        .iter()
        .any(|f| matches!(f.kind, FlowKind::Quic { .. }));
    let extra: &'static [Metric] = if quic { QUIC_METRICS } else { &[] };
    METRICS.iter().chain(extra)
}

/// A table's builder: writes the header and every row of one table into a sink.
pub type Builder<S> = fn(&mut S, &SimConfig, &[RepOutcome]) -> io::Result<()>;

/// Every table by name, in the order the CLI writes them.
pub const TABLES: &[&str] = &["runs", "summary", "timeouts", "links", "detectors"];

/// The builder of the table called `name` (one of [`TABLES`]).
pub fn builder<S: RowSink>(name: &str) -> Option<Builder<S>> {
    Some(match name {
        "runs" => write_runs,
        "summary" => write_summary,
        "timeouts" => write_timeouts,
        "links" => |w, _, o| write_links(w, o),
        "detectors" => |w, _, o| write_detectors(w, o),
        _ => return None,
    })
}

/// `runs`: one row per repetition and flow.
pub fn write_runs(
    w: &mut impl RowSink,
    sim: &SimConfig,
    outcomes: &[RepOutcome],
) -> io::Result<()> {
    // Collected once: `metrics_of` looks at every flow, and a run has a row per flow.
    let metrics: Vec<&Metric> = metrics_of(sim).collect();
    let mut header = vec!["rep", "seed", "flow", "kind", "start_s"];
    header.extend(metrics.iter().map(|m| m.name));
    w.header(&header)?;
    for o in outcomes {
        for (f, flow) in o.flows.iter().enumerate() {
            w.u64(o.rep as u64)?;
            w.u64(o.seed)?;
            w.str(&flow.name)?;
            w.str(kind_name(&sim.flows[f].kind))?;
            w.dur(flow.start.saturating_since(spikelab_core::Time::ZERO))?;
            for m in &metrics {
                match (m.value)(flow) {
                    Value::Int(v) => w.u64(v)?,
                    Value::Real(v) => w.f64(v.unwrap_or(f64::NAN))?,
                }
            }
            w.end_row()?;
        }
    }
    Ok(())
}

fn kind_name(kind: &FlowKind) -> &'static str {
    kind.name()
}

/// The flow name a replica is summarised under: `name` for `name#i`.
pub fn base_name(flow: &str) -> &str {
    flow.rsplit_once('#').map_or(flow, |(base, _)| base)
}

/// Flow names in first-appearance order with every result of each, all repetitions.
///
/// A name's group is found through a map from name to its place in the list (looked up,
/// never iterated, so the order stays the first appearance's): a scan of the groups per
/// flow was quadratic, 10^8 string comparisons for 10 000 distinct names.
pub fn group_by_base(outcomes: &[RepOutcome]) -> Vec<(&str, Vec<&FlowResult>)> {
    let mut groups: Vec<(&str, Vec<&FlowResult>)> = Vec::new();
    let mut place: HashMap<&str, usize> = HashMap::new();
    for f in outcomes.iter().flat_map(|o| &o.flows) {
        let base = base_name(&f.name);
        match place.entry(base) {
            Entry::Occupied(e) => groups[*e.get()].1.push(f),
            Entry::Vacant(e) => {
                e.insert(groups.len());
                groups.push((base, vec![f]));
            }
        }
    }
    groups
}

/// `summary`: one row per flow name and metric, over every repetition.
pub fn write_summary(
    w: &mut impl RowSink,
    sim: &SimConfig,
    outcomes: &[RepOutcome],
) -> io::Result<()> {
    w.header(&[
        "flow", "metric", "n", "mean", "std", "ci95", "min", "p5", "median", "p95", "max",
    ])?;
    let metrics: Vec<&Metric> = metrics_of(sim).collect();
    for (name, flows) in group_by_base(outcomes) {
        for m in &metrics {
            let xs: Vec<f64> = flows
                .iter()
                .map(|f| (m.value)(f).as_f64())
                .filter(|x| x.is_finite())
                .collect();
            let s = Summary::of(&xs);
            w.str(name)?;
            w.str(m.name)?;
            w.u64(s.n as u64)?;
            for v in [
                s.mean, s.std_dev, s.ci95, s.min, s.p5, s.median, s.p95, s.max,
            ] {
                w.f64(v)?;
            }
            w.end_row()?;
        }
    }
    Ok(())
}

/// `timeouts`: one row per retransmission timeout.
pub fn write_timeouts(
    w: &mut impl RowSink,
    sim: &SimConfig,
    outcomes: &[RepOutcome],
) -> io::Result<()> {
    w.header(&[
        "rep",
        "flow",
        "episode",
        "time_s",
        "seq",
        "rto_s",
        "last_rtt_s",
        "backoff",
        "truth",
        "spurious",
        "in_fast_recovery",
        "fast",
        "verdicts",
    ])?;
    for o in outcomes {
        // Per flow, the number (1, 2, ...) of the episode each expiry belongs to.
        let mut episode = vec![0u64; sim.flows.len()];
        for t in &o.timeouts {
            let e = &mut episode[t.flow as usize];
            *e += t.starts_episode() as u64;
            w.u64(o.rep as u64)?;
            w.str(&sim.flows[t.flow as usize].name)?;
            w.u64(*e)?;
            w.dur(t.time.saturating_since(spikelab_core::Time::ZERO))?;
            w.u64(t.seq)?;
            w.dur(t.rto)?;
            match t.last_rtt {
                Some(d) => w.dur(d)?,
                None => w.missing()?,
            }
            w.u64(t.backoff as u64)?;
            w.str(t.truth.label())?;
            w.bool(t.truth.is_spurious())?;
            w.bool(t.in_fast_recovery)?;
            w.bool(t.fast)?;
            w.str(&verdicts_label(t))?;
            w.end_row()?;
        }
    }
    Ok(())
}

/// `eifel:spurious;dsack:genuine`: every detector's verdict on a timeout, in the order
/// they were reached (`*` marks the one that drove the response).
fn verdicts_label(t: &TimeoutRecord) -> String {
    let one = |v: &spikelab_engine::DetectorVerdict| {
        let what = match v.verdict {
            spikelab_tcp::spurious::Verdict::Spurious => "spurious",
            spikelab_tcp::spurious::Verdict::Genuine => "genuine",
        };
        format!(
            "{}{}:{what}",
            v.detector.label(),
            if v.drove { "*" } else { "" }
        )
    };
    t.verdicts.iter().map(one).collect::<Vec<_>>().join(";")
}

/// `detectors`: every detector's confusion matrix against the ground truth, over all
/// repetitions.
pub fn write_detectors(w: &mut impl RowSink, outcomes: &[RepOutcome]) -> io::Result<()> {
    w.header(&[
        "detector",
        "decided",
        "true_positives",
        "false_positives",
        "true_negatives",
        "false_negatives",
        "undecided",
        "ack_lost_called_spurious",
        "precision",
        "recall",
        "mean_delay_s",
    ])?;
    for s in merged_scores(outcomes) {
        let Some(d) = s.detector else { continue };
        w.str(d.label())?;
        for v in [
            s.decided(),
            s.true_positives,
            s.false_positives,
            s.true_negatives,
            s.false_negatives,
        ] {
            w.u64(v)?;
        }
        w.u64(s.undecided)?;
        w.u64(s.ack_lost_called_spurious)?;
        let tp = s.true_positives as f64;
        w.f64(tp / (tp + s.false_positives as f64))?;
        w.f64(tp / (tp + s.false_negatives as f64))?;
        w.f64(s.mean_delay_s())?;
        w.end_row()?;
    }
    Ok(())
}

/// Scores of every repetition added up, per detector, in detector order.
fn merged_scores(outcomes: &[RepOutcome]) -> Vec<spikelab_engine::DetectorScore> {
    let mut merged: Vec<spikelab_engine::DetectorScore> = Vec::new();
    for o in outcomes {
        for s in spikelab_engine::score_detectors(&o.flows, &o.timeouts) {
            match merged.iter_mut().find(|m| m.detector == s.detector) {
                Some(m) => m.merge(&s),
                None => merged.push(s),
            }
        }
    }
    merged.sort_by_key(|s| s.detector);
    merged
}

/// `links`: one row per repetition, link and direction.
pub fn write_links(w: &mut impl RowSink, outcomes: &[RepOutcome]) -> io::Result<()> {
    w.header(&[
        "rep",
        "link",
        "dir",
        "offered",
        "delivered",
        "dropped",
        "in_network",
    ])?;
    for o in outcomes {
        for l in &o.links {
            w.u64(o.rep as u64)?;
            w.str(&l.name)?;
            w.str(l.dir)?;
            for v in [l.offered, l.delivered, l.dropped, l.in_network] {
                w.u64(v)?;
            }
            w.end_row()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_are_summarised_under_their_base_name() {
        assert_eq!(base_name("bulk#12"), "bulk");
        assert_eq!(base_name("bulk"), "bulk");
    }

    fn outcome_of(names: &[&str]) -> RepOutcome {
        RepOutcome {
            rep: 0,
            seed: 1,
            end: spikelab_core::Time::ZERO,
            events: 0,
            data_packets_delivered: 0,
            flows: names
                .iter()
                .map(|n| FlowResult {
                    name: n.to_string(),
                    ..FlowResult::default()
                })
                .collect(),
            timeouts: Vec::new(),
            links: Vec::new(),
        }
    }

    #[test]
    fn groups_keep_the_first_appearance_order_across_repetitions() {
        let outcomes = [
            outcome_of(&["b#0", "a", "b#1", "c#0"]),
            outcome_of(&["b#0", "a", "b#1", "c#0"]),
        ];
        let groups = group_by_base(&outcomes);
        let shape: Vec<(&str, usize)> = groups.iter().map(|(n, v)| (*n, v.len())).collect();
        assert_eq!(shape, [("b", 4), ("a", 2), ("c", 2)]);
        let b: Vec<&str> = groups[0].1.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            b,
            ["b#0", "b#1", "b#0", "b#1"],
            "results in repetition order"
        );
    }

    #[test]
    fn metric_names_are_unique() {
        let mut names: Vec<_> = METRICS.iter().chain(QUIC_METRICS).map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), METRICS.len() + QUIC_METRICS.len());
    }

    fn sim_of(kind: FlowKind) -> SimConfig {
        SimConfig {
            links: Vec::new(),
            flows: vec![spikelab_engine::FlowSpec {
                name: "f".into(),
                route: Vec::new(),
                start: Default::default(),
                kind,
            }],
            drops: Vec::new(),
            middleboxes: Vec::new(),
            stop_at: spikelab_core::Dur::from_secs(1),
            trace: spikelab_engine::TraceKinds::NONE,
            pcap: false,
            record_rto: false,
        }
    }

    #[test]
    fn quic_columns_appear_only_when_a_flow_is_quic() {
        let workload = spikelab_engine::Workload::Bulk {
            bytes: spikelab_core::ByteSize(1),
        };
        let tcp = sim_of(FlowKind::Tcp {
            tcp: Default::default(),
            workload,
        });
        let quic = sim_of(FlowKind::Quic {
            quic: Box::default(),
            workload,
        });
        assert_eq!(metrics_of(&tcp).count(), METRICS.len());
        let names: Vec<_> = metrics_of(&quic).map(|m| m.name).collect();
        assert_eq!(names.len(), METRICS.len() + QUIC_METRICS.len());
        assert!(names.contains(&"spurious_ptos") && names.contains(&"undos"));
    }

    #[test]
    fn the_undo_counters_are_columns_under_the_kernel_names_after_delivered() {
        let f = FlowResult {
            undos: UndoCounters {
                loss_undo: 2,
                spurious_rtos: 1,
                full_undo: 4,
                ..UndoCounters::default()
            },
            ..FlowResult::default()
        };
        let at = |name: &str| METRICS.iter().position(|m| m.name == name).unwrap();
        assert_eq!(at("TcpExtTCPLossUndo"), at("delivered") + 1);
        assert_eq!((METRICS[at("TcpExtTCPLossUndo")].value)(&f), Value::Int(2));
        assert_eq!(
            (METRICS[at("TcpExtTCPSpuriousRTOs")].value)(&f),
            Value::Int(1)
        );
        assert_eq!((METRICS[at("TcpExtTCPFullUndo")].value)(&f), Value::Int(4));
        assert_eq!((METRICS[at("TcpExtTCPDSACKUndo")].value)(&f), Value::Int(0));
    }

    #[test]
    fn every_table_name_has_a_builder() {
        for name in TABLES {
            assert!(builder::<crate::Columns>(name).is_some(), "{name}");
        }
        assert!(builder::<crate::Columns>("nope").is_none());
    }
}
