//! Distribution metrics: a run gives a binned distribution of many samples (e.g. the
//! P_j = RTO_j / RTT_j of every RTO computation, [Ekström & Ludwig 2004] IV.C.4), which
//! the grid merges over a cell's repetitions, so that percentiles and distribution
//! functions are of every sample of every run, not of per-run summaries. A reference
//! `timer_p_dist[...].p95` is the 95th percentile of the samples of the cells it
//! matches (`.n`, `.mean`, `.pNN`); a `cdf` chart or a CSV file with `distribution`
//! draws or writes its distribution function.

use super::timer::PHistogram;
use super::view::{split_group, RunView};
use std::collections::BTreeMap;

/// A distribution over a run.
pub struct DistMetric {
    pub name: &'static str,
    /// It may be taken over a group of flows (`name@group`, or a `group_axis` row).
    pub over_flows: bool,
    /// It reads every RTO computation.
    pub needs_rto: bool,
    pub value: fn(&RunView) -> PHistogram,
}

/// Every distribution metric.
pub const DISTS: &[DistMetric] = &[DistMetric {
    name: "timer_p_dist",
    over_flows: true,
    needs_rto: true,
    value: |v| super::group::timer(v).p.clone(),
}];

/// The distribution metric called `name` (without its group).
pub fn find(name: &str) -> Option<&'static DistMetric> {
    let name = split_group(name).0;
    DISTS.iter().find(|d| d.name == name)
}

/// Per cell, each distribution metric merged over the cell's repetitions.
pub type Merged = Vec<BTreeMap<String, PHistogram>>;

/// Statistic `stat` of a distribution: `n`, `mean`, or `pNN` (the NN-th percentile, to
/// within one bin); `None` for another statistic.
pub fn stat(h: &PHistogram, stat: &str) -> Option<f64> {
    match stat {
        "n" => Some(h.n as f64),
        "mean" => Some(h.mean()),
        _ => percentile_of(stat).map(|q| h.percentile(q)),
    }
}

/// `pNN` as NN.
pub fn percentile_of(stat: &str) -> Option<f64> {
    let digits = stat.strip_prefix('p')?;
    let ok = !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit());
    ok.then(|| digits.parse().ok()).flatten()
}

/// `name`'s distribution merged over `cells` (in order); `None` if no cell has it.
pub fn merged(dists: &Merged, name: &str, cells: &[usize]) -> Option<PHistogram> {
    let mut out: Option<PHistogram> = None;
    for &c in cells {
        if let Some(h) = dists.get(c).and_then(|m| m.get(name)) {
            out.get_or_insert_with(PHistogram::default).merge(h);
        }
    }
    out
}

/// One cell's distributions: `runs[rep][row * names.len() + d]` merged over the
/// repetitions (in order), per row, as `names[d]` -> distribution.
pub fn merge_runs(
    runs: &[Vec<PHistogram>],
    rows: usize,
    names: &[String],
) -> Vec<BTreeMap<String, PHistogram>> {
    (0..rows)
        .map(|k| {
            let mut out = BTreeMap::new();
            for (d, name) in names.iter().enumerate() {
                let mut h = PHistogram::default();
                for rep in runs {
                    h.merge(&rep[k * names.len() + d]);
                }
                out.insert(name.clone(), h);
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_read_count_mean_and_percentiles_of_the_merged_samples() {
        let mut a = PHistogram::default();
        a.add(1.0);
        a.add(2.0);
        let mut b = PHistogram::default();
        b.add(3.0);
        let dists = vec![
            BTreeMap::from([("d".to_string(), a)]),
            BTreeMap::from([("d".to_string(), b)]),
        ];
        let h = merged(&dists, "d", &[0, 1]).unwrap();
        assert_eq!(stat(&h, "n"), Some(3.0));
        assert_eq!(stat(&h, "mean"), Some(2.0));
        assert!((stat(&h, "p50").unwrap() - 2.01).abs() < 1e-9);
        assert_eq!(stat(&h, "max"), None);
        assert_eq!(percentile_of("p95"), Some(95.0));
        assert_eq!(percentile_of("p"), None);
        assert!(merged(&dists, "other", &[0]).is_none());
    }
}
