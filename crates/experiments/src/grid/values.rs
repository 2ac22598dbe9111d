//! Grid values: a metric's repetitions in one cell reduced to a number (mean with its
//! 95% half-width, sum or count), paired with a baseline cell or divided by another
//! value ([`super::spec::ValueSpec`]); and the [`Env`] expressions read them through.

use super::expr::{Env, Ref};
use super::result::{GridResult, Stat, Test};
use super::spec::{Agg, Grid, ValueSpec};
use crate::compare::decide::{holm_adjusted, two_sided_p, Sample};
use crate::compare::paired::Paired;
use spikelab_output::stats::Summary;
use std::collections::BTreeMap;

/// A grid's runs: per cell its labels and, per repetition, every metric in `names`.
pub struct Runs<'a> {
    pub labels: &'a [BTreeMap<String, String>],
    pub names: &'a [String],
    /// `raw[cell][rep][metric]`.
    pub raw: &'a [Vec<Vec<f64>>],
}

impl Runs<'_> {
    fn column(&self, cell: usize, metric: &str) -> Vec<f64> {
        let m = self
            .names
            .iter()
            .position(|n| n == metric)
            .expect("the grid collected every metric its values name");
        self.raw[cell].iter().map(|rep| rep[m]).collect()
    }

    /// The cell whose labels are `labels` with `changes` applied.
    fn changed(&self, cell: usize, changes: &BTreeMap<String, String>) -> Option<usize> {
        let mut want = self.labels[cell].clone();
        want.extend(changes.clone());
        self.labels.iter().position(|l| *l == want)
    }
}

/// Every value of `g` in every cell.
pub fn compute(g: &Grid, runs: &Runs) -> Result<Vec<BTreeMap<String, Stat>>, String> {
    let mut all = (0..runs.labels.len())
        .map(|cell| {
            let mut out: BTreeMap<String, Stat> = BTreeMap::new();
            for v in &g.value {
                let stat = value(v, runs, cell, &out)?;
                out.insert(v.name.clone(), stat);
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>, String>>()?;
    for v in g.value.iter().filter(|v| v.diff_over.is_some()) {
        holm_over_cells(&mut all, &v.name);
    }
    Ok(all)
}

/// Sets `p_holm` of value `name` in every cell that holds a test (every cell compared
/// with another): the family is the value's comparisons in this grid.
fn holm_over_cells(all: &mut [BTreeMap<String, Stat>], name: &str) {
    let tested: Vec<usize> = (0..all.len())
        .filter(|&c| all[c].get(name).is_some_and(|s| s.test.is_some()))
        .collect();
    let ps: Vec<f64> = tested
        .iter()
        .map(|&c| all[c][name].test.map_or(1.0, |t| t.p))
        .collect();
    for (&c, adjusted) in tested.iter().zip(holm_adjusted(&ps)) {
        if let Some(t) = all[c].get_mut(name).and_then(|s| s.test.as_mut()) {
            t.p_holm = adjusted;
        }
    }
}

/// The paired difference of `metric` between `cell` and the cell with `base` changed,
/// repetition by repetition; no test when the cell is its own baseline.
fn paired_difference(
    v: &ValueSpec,
    runs: &Runs,
    cell: usize,
    base: &BTreeMap<String, String>,
) -> Result<Stat, String> {
    if v.increase_over.is_some() || v.only_if.is_some() || v.per.is_some() || v.agg != Agg::Mean {
        return Err(format!(
            "value `{}`: `diff_over` is a mean of paired differences and takes no \
             increase_over, only_if, per nor agg",
            v.name
        ));
    }
    let b = runs
        .changed(cell, base)
        .ok_or_else(|| format!("value `{}`: no baseline cell {base:?}", v.name))?;
    let p = Paired::of(&runs.column(cell, &v.metric), &runs.column(b, &v.metric));
    let test = (b != cell).then(|| Test {
        dz: p.effect_size(),
        p: two_sided_p(Sample {
            mean: p.mean,
            se: p.se,
            n: p.n,
        }),
        p_holm: f64::NAN,
    });
    Ok(Stat {
        mean: p.mean,
        ci95: p.ci95,
        n: p.n,
        test,
    })
}

fn value(
    v: &ValueSpec,
    runs: &Runs,
    cell: usize,
    earlier: &BTreeMap<String, Stat>,
) -> Result<Stat, String> {
    if let Some(base) = &v.diff_over {
        return paired_difference(v, runs, cell, base);
    }
    let mut xs = runs.column(cell, &v.metric);
    if let Some(base) = &v.increase_over {
        let b = runs
            .changed(cell, base)
            .ok_or_else(|| format!("value `{}`: no baseline cell {base:?}", v.name))?;
        let bs = runs.column(b, &v.metric);
        xs = xs
            .iter()
            .zip(&bs)
            .map(|(a, b)| 100.0 * (a / b - 1.0))
            .collect();
    }
    if let Some(cond) = &v.only_if {
        let keep = runs.column(cell, cond);
        xs = xs
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| k.is_finite() && *k != 0.0)
            .map(|(x, _)| x)
            .collect();
    }
    let xs: Vec<f64> = xs.into_iter().filter(|x| x.is_finite()).collect();
    let mut stat = match v.agg {
        Agg::Mean => {
            let s = Summary::of(&xs);
            Stat {
                mean: s.mean,
                ci95: s.ci95,
                n: s.n,
                test: None,
            }
        }
        Agg::Sum => Stat {
            mean: xs.iter().sum(),
            ci95: f64::NAN,
            n: xs.len(),
            test: None,
        },
        Agg::Count => Stat {
            mean: xs.len() as f64,
            ci95: f64::NAN,
            n: xs.len(),
            test: None,
        },
    };
    if let Some(per) = &v.per {
        let d = earlier
            .get(per)
            .ok_or_else(|| format!("value `{}`: `per` names no earlier value `{per}`", v.name))?;
        stat.mean /= d.mean;
        stat.ci95 = f64::NAN;
    }
    Ok(stat)
}

/// Expressions over one grid's values: references pick cells by `fixed` plus their
/// own labels; `reps` is the experiment's repetitions.
pub struct GridEnv<'a> {
    pub labels: &'a [BTreeMap<String, String>],
    pub values: &'a [BTreeMap<String, Stat>],
    pub fixed: BTreeMap<String, String>,
    pub reps: u32,
    /// Per-run metrics a reference to a metric pools (`pooled`).
    pub samples: Option<Samples<'a>>,
}

impl GridEnv<'_> {
    fn matching(&self, r: &Ref) -> Vec<usize> {
        let mut want = self.fixed.clone();
        want.extend(r.sel.iter().cloned());
        (0..self.labels.len())
            .filter(|&c| want.iter().all(|(k, v)| self.labels[c].get(k) == Some(v)))
            .collect()
    }

    fn stat(&self, cell: usize, r: &Ref) -> Result<f64, String> {
        if ["max", "min", "sum"].contains(&r.stat.as_str()) {
            return Err(format!(
                "`{}.{}`: .max, .min and .sum are of metrics pooled over runs, not of grid values",
                r.name, r.stat
            ));
        }
        self.values[cell]
            .get(&r.name)
            .map(|s| s.get(&r.stat))
            .ok_or_else(|| format!("no grid value `{}`", r.name))
    }
}

impl Env for GridEnv<'_> {
    fn lookup(&self, r: &Ref) -> Result<f64, String> {
        if r.name == "reps" && r.sel.is_empty() {
            return Ok(f64::from(self.reps));
        }
        if !is_value(self.values, r) {
            let pooled = self.samples.as_ref();
            let cells = self.matching(r);
            if let Some(v) = pooled.and_then(|s| s.stat(&r.name, &r.stat, &cells)) {
                return Ok(v);
            }
        }
        match self.matching(r)[..] {
            [cell] => self.stat(cell, r),
            ref cells => Err(format!(
                "`{}` with {:?} and {:?} picks {} cells, not one",
                r.name,
                self.fixed,
                r.sel,
                cells.len()
            )),
        }
    }

    fn sum(&self, r: &Ref) -> Result<f64, String> {
        self.matching(r).into_iter().map(|c| self.stat(c, r)).sum()
    }

    fn axis_labels(&self, axis: &str) -> Result<Vec<String>, String> {
        super::over_axis::labels(self.labels, &self.fixed, axis)
    }

    fn fixing(&self, axis: &str, label: &str) -> Result<Box<dyn Env + '_>, String> {
        let mut fixed = self.fixed.clone();
        fixed.insert(axis.to_string(), label.to_string());
        Ok(Box::new(GridEnv { fixed, ..*self }))
    }

    fn each(&self, r: &Ref) -> Result<Vec<f64>, String> {
        self.matching(r)
            .into_iter()
            .map(|c| self.stat(c, r))
            .collect()
    }
}

/// `template` with every `{key}` replaced by the label `key` of `labels`.
pub fn fill(template: &str, labels: &BTreeMap<String, String>) -> String {
    let mut v = template.to_string();
    for (l, text) in labels {
        v = v.replace(&format!("{{{l}}}"), text);
    }
    v
}

/// A grid's per-run metrics, for references to a metric pooled over cells.
#[derive(Clone, Copy)]
pub struct Samples<'a> {
    pub names: &'a [String],
    /// `raw[cell][rep][metric]`, in the order of `names`.
    pub raw: &'a [Vec<Vec<f64>>],
    /// Per cell, its distribution metrics merged over its repetitions.
    pub dists: &'a crate::metrics::distributions::Merged,
}

impl Samples<'_> {
    /// Statistic `stat` of metric `name` over every finite per-run value of `cells`;
    /// `None` when the grid does not collect `name`.
    pub fn stat(&self, name: &str, stat: &str, cells: &[usize]) -> Option<f64> {
        if let Some(h) = crate::metrics::distributions::merged(self.dists, name, cells) {
            return crate::metrics::distributions::stat(&h, stat).or(Some(f64::NAN));
        }
        let m = self.names.iter().position(|n| n == name)?;
        let xs: Vec<f64> = cells
            .iter()
            .flat_map(|&c| self.raw[c].iter().map(move |rep| rep[m]))
            .filter(|x| x.is_finite())
            .collect();
        Some(match stat {
            "max" => xs.iter().copied().fold(f64::NAN, f64::max),
            "min" => xs.iter().copied().fold(f64::NAN, f64::min),
            "sum" => xs.iter().sum(),
            "n" => xs.len() as f64,
            "ci95" => Summary::of(&xs).ci95,
            s if crate::metrics::distributions::percentile_of(s).is_some() => {
                let q = crate::metrics::distributions::percentile_of(s).unwrap_or(f64::NAN);
                spikelab_output::stats::percentile(&xs, q)
            }
            _ => Summary::of(&xs).mean,
        })
    }
}

/// Whether `r` names a grid value (not a pooled metric) in `values`.
pub fn is_value(values: &[BTreeMap<String, Stat>], r: &Ref) -> bool {
    values.iter().any(|v| v.contains_key(&r.name))
}

pub(crate) fn env<'a>(
    g: &'a GridResult,
    fixed: BTreeMap<String, String>,
    reps: u32,
) -> GridEnv<'a> {
    GridEnv {
        labels: &g.labels,
        values: &g.values,
        fixed,
        reps,
        samples: Some(Samples {
            names: &g.names,
            raw: &g.raw,
            dists: &g.dists,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Grid {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn paired_increase_ratio_of_sums_and_only_if_follow_the_repetitions() {
        let labels: Vec<BTreeMap<String, String>> = ["base", "new"]
            .map(|s| BTreeMap::from([("scheme".to_string(), s.to_string())]))
            .to_vec();
        let names = ["x", "done", "k"].map(String::from).to_vec();
        // base: x = 10, 20 (both done); new: x = 11, 30 with the second not done.
        let raw = vec![
            vec![vec![10.0, 1.0, 2.0], vec![20.0, 1.0, 2.0]],
            vec![vec![11.0, 1.0, 3.0], vec![f64::NAN, 0.0, 5.0]],
        ];
        let runs = Runs {
            labels: &labels,
            names: &names,
            raw: &raw,
        };
        let g = spec(
            r#"name = "g"
axis = []
value = [
  { name = "inc", metric = "x", increase_over = { scheme = "base" } },
  { name = "k_sum", metric = "k", agg = "sum" },
  { name = "n", metric = "k", agg = "count" },
  { name = "k_mean", metric = "k", agg = "sum", per = "n" },
  { name = "k_done", metric = "k", only_if = "done" },
]"#,
        );
        let v = compute(&g, &runs).unwrap();
        assert_eq!(v[0]["inc"].mean, 0.0);
        assert!((v[1]["inc"].mean - 10.0).abs() < 1e-9);
        assert_eq!(v[1]["inc"].n, 1, "the unfinished repetition is left out");
        assert_eq!(v[1]["k_sum"].mean, 8.0);
        assert_eq!(v[1]["k_mean"].mean, 4.0);
        assert_eq!(v[1]["k_done"].mean, 3.0);
        let env = GridEnv {
            labels: &labels,
            values: &v,
            fixed: BTreeMap::new(),
            reps: 2,
            samples: None,
        };
        let r = |s: &str| match super::super::expr::parse(s).unwrap() {
            super::super::expr::Expr::Ref(r) => r,
            _ => unreachable!(),
        };
        assert_eq!(env.lookup(&r("k_sum[scheme=new]")).unwrap(), 8.0);
        assert_eq!(env.sum(&r("k_sum")).unwrap(), 12.0);
        assert!(env.lookup(&r("k_sum")).is_err(), "two cells, not one");
        assert_eq!(env.lookup(&r("reps")).unwrap(), 2.0);
    }

    #[test]
    fn a_paired_difference_has_its_effect_size_and_a_holm_adjusted_p_value() {
        let labels: Vec<BTreeMap<String, String>> = ["base", "same", "slower", "noisy"]
            .map(|s| BTreeMap::from([("scheme".to_string(), s.to_string())]))
            .to_vec();
        let names = vec!["x".to_string()];
        let col = |xs: [f64; 4]| xs.map(|x| vec![x]).to_vec();
        let raw = vec![
            col([10.0, 20.0, 30.0, 40.0]),
            col([10.0, 20.0, 30.0, 40.0]),
            col([12.0, 21.0, 33.0, 42.0]),
            col([11.0, 19.0, 32.0, 38.0]),
        ];
        let runs = Runs {
            labels: &labels,
            names: &names,
            raw: &raw,
        };
        let g = spec(
            r#"name = "g"
axis = []
value = [{ name = "d", metric = "x", diff_over = { scheme = "base" } }]"#,
        );
        let v = compute(&g, &runs).unwrap();
        assert_eq!(
            (v[0]["d"].mean, v[0]["d"].test),
            (0.0, None),
            "the baseline"
        );
        let slower = v[2]["d"];
        assert_eq!(slower.mean, 2.0);
        // Differences 2, 1, 3, 2: standard deviation sqrt(2/3).
        assert!((slower.get("dz") - 2.0 / (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
        let p = [1, 2, 3].map(|c| v[c]["d"].get("p"));
        let holm = [1, 2, 3].map(|c| v[c]["d"].get("p_holm"));
        assert_eq!((p[0], holm[0]), (1.0, 1.0), "equal on every seed");
        assert!(
            p[1] < 0.05 && (holm[1] - 3.0 * p[1]).abs() < 1e-12,
            "{p:?} {holm:?}"
        );
        assert!(p[2] > 0.5 && holm[2] >= p[2]);
    }
}
