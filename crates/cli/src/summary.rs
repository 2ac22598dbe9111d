//! The short per-flow table `spikelab run` prints when it is done.
//!
//! One row per flow name (replicas `name#i` pooled, as in `summary.csv`): how many
//! flow-runs the row averages, how many finished, and the means of the completion
//! time (finished runs only), the retransmission timeouts split by ground truth into
//! spurious and genuine, the retransmissions and the goodput (finished runs only; see
//! `FlowResult::goodput`). `-` marks a mean over no values.

use crate::outputs::RepOutcome;
use spikelab_engine::FlowResult;
use spikelab_results::tables::group_by_base;
use std::fmt::Write as _;

/// At most this many rows; the rest are in `summary.csv`.
const MAX_ROWS: usize = 20;

/// The table, with a header naming the repetitions it averages.
pub fn table(outcomes: &[RepOutcome]) -> String {
    let groups = group_by_base(outcomes);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "per-flow means over {} repetition(s); RTOs split by ground truth:",
        outcomes.len()
    );
    let _ = writeln!(
        s,
        "{:<16} {:>5} {:>5} {:>10} {:>7} {:>9} {:>8} {:>8} {:>8}",
        "flow", "runs", "done", "time_s", "RTOs", "spurious", "genuine", "retrans", "goodput"
    );
    for (name, flows) in groups.iter().take(MAX_ROWS) {
        let _ = writeln!(s, "{}", row(name, flows));
    }
    if groups.len() > MAX_ROWS {
        let _ = writeln!(
            s,
            "... {} more flows in summary.csv",
            groups.len() - MAX_ROWS
        );
    }
    s
}

fn row(name: &str, flows: &[&FlowResult]) -> String {
    let count = |f: fn(&FlowResult) -> u64| mean(flows.iter().map(|x| f(x) as f64));
    let done = flows.iter().filter(|f| f.completed.is_some()).count();
    format!(
        "{:<16} {:>5} {:>5} {:>10} {:>7} {:>9} {:>8} {:>8} {:>8}",
        name,
        flows.len(),
        done,
        fmt(mean(flows.iter().filter_map(|f| f.download_time())), 3),
        fmt(count(|f| f.timeouts), 2),
        fmt(count(|f| f.spurious_timeouts), 2),
        fmt(count(|f| f.genuine_timeouts), 2),
        fmt(count(|f| f.retransmissions), 2),
        fmt(mean(flows.iter().map(|f| f.goodput())), 3),
    )
}

/// Mean of the finite values, NaN when there are none.
fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = xs
        .filter(|x| x.is_finite())
        .fold((0.0, 0u64), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

fn fmt(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        "-".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Time;

    fn outcome(rep: u32, flows: Vec<FlowResult>) -> RepOutcome {
        RepOutcome {
            rep,
            seed: 0,
            end: spikelab_core::Time::ZERO,
            events: 0,
            data_packets_delivered: 0,
            flows,
            timeouts: Vec::new(),
            links: Vec::new(),
        }
    }

    fn bulk(name: &str, done_at: Option<f64>, spurious: u64, genuine: u64) -> FlowResult {
        FlowResult {
            name: name.into(),
            completed: done_at.map(Time::from_secs_f64),
            min_segments: 10,
            data_segments_sent: 12,
            timeouts: spurious + genuine,
            spurious_timeouts: spurious,
            genuine_timeouts: genuine,
            retransmissions: 2,
            ..FlowResult::default()
        }
    }

    #[test]
    fn the_table_pools_replicas_and_means_over_repetitions() {
        let t = table(&[
            outcome(
                0,
                vec![bulk("a#0", Some(2.0), 1, 0), bulk("a#1", None, 0, 3)],
            ),
            outcome(
                1,
                vec![bulk("a#0", Some(4.0), 1, 1), bulk("a#1", Some(3.0), 0, 0)],
            ),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].contains("over 2 repetition(s)"), "{t}");
        let cells: Vec<&str> = lines[2].split_whitespace().collect();
        // runs, done, time (2+4+3)/3, RTOs 6/4, spurious 2/4, genuine 4/4, retrans, goodput
        assert_eq!(
            cells,
            ["a", "4", "3", "3.000", "1.50", "0.50", "1.00", "2.00", "0.833"]
        );
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn a_flow_that_never_finished_shows_dashes() {
        let t = table(&[outcome(0, vec![bulk("x", None, 0, 0)])]);
        let cells: Vec<&str> = t.lines().nth(2).unwrap().split_whitespace().collect();
        assert_eq!((cells[3], cells[8]), ("-", "-"));
    }
}
