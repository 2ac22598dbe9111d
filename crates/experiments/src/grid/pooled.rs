//! Results by flow group, and numbers over runs pooled across cells.
//!
//! * A grid with `group_axis` unfolds its results ([`unfold`]): every cell gives one
//!   row per `[[grid.group]]`, labelled with the group's name and its `labels`, whose
//!   flow-group metrics are taken over that group's flows. Per-run CSV files write a
//!   run's groups together ([`run_rows`]).
//! * In expressions, a metric's name (one the grid collects, not a grid value) stands
//!   for its per-run samples pooled over every cell the reference matches
//!   ([`Samples::stat`]): `timer_w95[config=ts, group=ph].max` is the largest W_95 of
//!   any run of those cells; `.mean`, `.ci95`, `.n`, `.min`, `.sum` likewise.
//! * `[[comparison]]`: one of our numbers (an expression) beside the paper's, shown in
//!   the layout's `comparisons:<block>`.

use super::expr;
use super::spec::{ComparisonSpec, ExperimentSpec, Grid};
use super::values::{fill, GridEnv};
use crate::report::Comparison;
use spikelab_scenario::{FieldPath, Invalid};
use std::collections::BTreeMap;

/// Checks every comparison names a grid of `spec` and its expressions parse.
pub fn check(spec: &ExperimentSpec) -> Result<(), Invalid> {
    for (i, c) in spec.comparison.iter().enumerate() {
        let at = FieldPath::root("comparison").index(i);
        if spec.grid(&c.grid).is_none() {
            let why = format!("comparison `{}`: no grid `{}`", c.what, c.grid);
            return Err(Invalid::new(at.key("grid"), why));
        }
        for (field, e) in [("value", Some(&c.value)), ("ci95", c.ci95.as_ref())] {
            // A pick's `{label}`s are filled in before parsing ([`super::picks::check`]).
            if let Some(e) = e.filter(|_| c.pick.is_none()) {
                let e = expr::parse(e).map_err(|e| Invalid::new(at.key(field), e))?;
                let g = spec.grid(&c.grid).map(|g| &g.axis[..]).unwrap_or_default();
                let axes: Vec<&str> = g.iter().map(|a| a.name.as_str()).collect();
                super::over_axis::check_calls(&e, &axes).map_err(|e| {
                    Invalid::new(at.key(field), format!("comparison `{}`: {e}", c.what))
                })?;
            }
        }
    }
    for (i, g) in spec.grid.iter().enumerate() {
        if g.group_axis.is_some() && g.group.is_empty() {
            let why = format!("grid `{}`: `group_axis` needs `[[grid.group]]`s", g.name);
            return Err(Invalid::new(
                FieldPath::root("grid").index(i).key("group_axis"),
                why,
            ));
        }
    }
    Ok(())
}

/// The comparisons of layout block `block`, evaluated with `env_of(grid, where)`.
pub fn comparisons<'a>(
    spec: &ExperimentSpec,
    block: &str,
    env_of: impl Fn(&str, BTreeMap<String, String>) -> anyhow::Result<GridEnv<'a>>,
) -> anyhow::Result<Vec<Comparison>> {
    let at = |c: &ComparisonSpec, e: String| anyhow::anyhow!("comparison `{}`: {e}", c.what);
    spec.comparison
        .iter()
        .filter(|c| c.block == block)
        .map(|c| {
            let c = &super::picks::resolve(spec, c, &env_of)?;
            let env = env_of(&c.grid, c.filter.clone())?;
            let eval = |text: &str| {
                expr::parse(text)
                    .and_then(|e| expr::eval(&e, &env))
                    .map_err(|e| at(c, e))
            };
            let ours = eval(&c.value)?;
            let what = c.what_if_nan.as_ref().filter(|_| ours.is_nan());
            Ok(Comparison {
                what: expr::render(what.unwrap_or(&c.what), &env).map_err(|e| at(c, e))?,
                ours,
                ours_ci95: c.ci95.as_deref().map(eval).transpose()?,
                paper: c.paper,
                unit: c.unit.clone(),
            })
        })
        .collect()
}

/// The run metrics the report tables, comparisons and text over grid `g` name in
/// their templates and expressions (pooled references), so that the grid collects them.
pub fn referenced(spec: &ExperimentSpec, g: &Grid) -> Vec<String> {
    let on = |grid: &str| grid == g.name;
    let tables = spec.report_table.iter().filter(|t| on(&t.grid));
    let texts = tables
        .flat_map(|t| std::iter::once(&t.title).chain(t.columns.iter().map(|c| &c.text)))
        .chain(
            spec.comparison
                .iter()
                .filter(|c| on(&c.grid))
                .flat_map(|c| [&c.what, &c.value].into_iter().chain(&c.ci95))
                .chain(
                    spec.comparison
                        .iter()
                        .filter(|c| on(&c.grid))
                        .filter_map(|c| c.what_if_nan.as_ref()),
                ),
        )
        .chain(
            spec.text
                .iter()
                .filter(|t| t.grid.as_deref().is_some_and(on))
                .map(|t| &t.text),
        );
    let mut out: Vec<String> = Vec::new();
    let csv = spec.csv.iter().filter(|c| on(&c.grid));
    out.extend(csv.filter_map(|c| c.distribution.clone()));
    for text in texts {
        let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        for w in words.filter(|w| crate::metrics::known(w) && !w.contains('@')) {
            if !out.iter().any(|o| o == w) {
                out.push(w.to_string());
            }
        }
    }
    out
}

/// The groups a grid's cell unfolds into: `[None]` without `group_axis`, else every
/// group's name.
pub fn group_rows(g: &Grid) -> Vec<Option<&str>> {
    if g.group_axis.is_none() {
        return vec![None];
    }
    g.group.iter().map(|x| Some(x.name.as_str())).collect()
}

/// The labels of row `k` of a cell labelled `labels` ([`group_rows`] order): the
/// cell's, the group's name under `group_axis`, and the group's labels with `{key}`
/// replaced by the cell's label `key`.
fn row_labels(g: &Grid, labels: &BTreeMap<String, String>, k: usize) -> BTreeMap<String, String> {
    let mut out = labels.clone();
    let (Some(axis), Some(group)) = (&g.group_axis, g.group.get(k)) else {
        return out;
    };
    for (key, value) in &group.labels {
        out.insert(key.clone(), fill(value, labels));
    }
    out.insert(axis.clone(), group.name.clone());
    out
}

/// Labels per cell and `raw[cell][rep][metric]`.
type Unfolded = (Vec<BTreeMap<String, String>>, Vec<Vec<Vec<f64>>>);

/// Per-run metrics of every row of a cell side by side (`raw[cell][rep]` holds
/// `rows * metrics` numbers, row by row) unfolded into one cell per row:
/// cell c, row k becomes cell `c * rows + k`.
pub fn unfold(
    g: &Grid,
    labels: &[BTreeMap<String, String>],
    raw: Vec<Vec<Vec<f64>>>,
    metrics: usize,
) -> Unfolded {
    let rows = group_rows(g).len();
    let mut out_labels = Vec::new();
    let mut out_raw = Vec::new();
    for (cell, reps) in labels.iter().zip(raw) {
        for k in 0..rows {
            let mut l = row_labels(g, cell, k);
            let derived: Vec<(String, String)> = g
                .labels
                .iter()
                .map(|(key, t)| (key.clone(), fill(t, &l)))
                .collect();
            l.extend(derived);
            out_labels.push(l);
            let part = |rep: &Vec<f64>| rep[k * metrics..(k + 1) * metrics].to_vec();
            out_raw.push(reps.iter().map(part).collect());
        }
    }
    (out_labels, out_raw)
}

/// The rows of a per-run CSV file: (unfolded cell, repetition), a run's groups
/// together, runs in cell and repetition order. `rows` groups per cell.
pub fn run_rows(raw: &[Vec<Vec<f64>>], rows: usize) -> Vec<(usize, usize)> {
    let rows = rows.max(1);
    let mut out = Vec::new();
    for c in (0..raw.len()).step_by(rows) {
        for rep in 0..raw[c].len() {
            out.extend((0..rows).map(|k| (c + k, rep)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::values::Samples;

    fn grid() -> Grid {
        toml::from_str(
            r#"name = "g"
axis = []
group_axis = "group"
group = [
  { name = "a", flows = ["x"], labels = { title = "A at {n}" } },
  { name = "b", flows = ["y"] },
]"#,
        )
        .unwrap()
    }

    #[test]
    fn unfold_gives_each_group_a_row_with_its_labels_and_metrics() {
        let labels = vec![BTreeMap::from([("n".to_string(), "4".to_string())])];
        // One cell, two reps, two groups of two metrics each.
        let raw = vec![vec![vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0, 7.0, 8.0]]];
        let (l, r) = unfold(&grid(), &labels, raw, 2);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0]["group"], "a");
        assert_eq!(l[0]["title"], "A at 4");
        assert_eq!(l[1]["group"], "b");
        assert!(!l[1].contains_key("title"));
        assert_eq!(r[0], vec![vec![1.0, 2.0], vec![5.0, 6.0]]);
        assert_eq!(r[1], vec![vec![3.0, 4.0], vec![7.0, 8.0]]);
        assert_eq!(
            run_rows(&r, 2),
            vec![(0, 0), (1, 0), (0, 1), (1, 1)],
            "a run's groups together"
        );
    }

    #[test]
    fn a_comparison_whose_value_is_nan_shows_its_what_if_nan() {
        use super::super::result::Stat;
        let spec: ExperimentSpec = toml::from_str(
            r#"name = "x"
title = "x"
scenario = "s.toml"
flow = "f"
[[grid]]
name = "g"
axis = []
[[comparison]]
block = "b"
grid = "g"
what = "v is {v}"
what_if_nan = "v is undefined"
value = "v"
paper = 1.0
unit = ""
"#,
        )
        .unwrap();
        let labels = vec![BTreeMap::new()];
        for (v, what) in [(2.0, "v is 2"), (f64::NAN, "v is undefined")] {
            let stat = Stat {
                mean: v,
                ci95: f64::NAN,
                n: 1,
                test: None,
            };
            let values = vec![BTreeMap::from([("v".to_string(), stat)])];
            let env = |_: &str, fixed| {
                Ok(GridEnv {
                    labels: &labels,
                    values: &values,
                    fixed,
                    reps: 1,
                    samples: None,
                })
            };
            let cs = comparisons(&spec, "b", env).unwrap();
            assert_eq!(cs[0].what, what);
        }
    }

    #[test]
    fn pooled_stats_take_every_finite_run_of_the_cells() {
        let names = vec!["m".to_string()];
        let raw = vec![vec![vec![1.0], vec![f64::NAN]], vec![vec![4.0], vec![3.0]]];
        let dists = vec![];
        let s = Samples {
            names: &names,
            raw: &raw,
            dists: &dists,
        };
        assert_eq!(s.stat("m", "max", &[0, 1]), Some(4.0));
        assert_eq!(s.stat("m", "min", &[0, 1]), Some(1.0));
        assert_eq!(s.stat("m", "sum", &[0, 1]), Some(8.0));
        assert_eq!(s.stat("m", "n", &[0, 1]), Some(3.0));
        assert_eq!(s.stat("m", "mean", &[1]), Some(3.5));
        assert!(s.stat("m", "max", &[]).unwrap().is_nan());
        assert_eq!(s.stat("other", "mean", &[0]), None);
    }

    #[test]
    fn a_reference_reads_a_grid_value_first_and_else_pools_the_metric_over_its_cells() {
        use super::super::expr::{Env, Expr};
        use super::super::result::Stat;
        let labels: Vec<BTreeMap<String, String>> = ["a", "b"]
            .map(|k| BTreeMap::from([("k".to_string(), k.to_string())]))
            .to_vec();
        let stat = Stat {
            mean: 7.0,
            ci95: f64::NAN,
            n: 2,
            test: None,
        };
        let values = vec![BTreeMap::from([("v".to_string(), stat)]); 2];
        let names = vec!["m".to_string()];
        let raw = vec![vec![vec![1.0], vec![2.0]], vec![vec![5.0]]];
        let dists = vec![];
        let env = GridEnv {
            labels: &labels,
            values: &values,
            fixed: BTreeMap::new(),
            reps: 2,
            samples: Some(Samples {
                names: &names,
                raw: &raw,
                dists: &dists,
            }),
        };
        let r = |s: &str| match expr::parse(s).unwrap() {
            Expr::Ref(r) => r,
            _ => unreachable!(),
        };
        assert_eq!(env.lookup(&r("m.max")).unwrap(), 5.0, "over both cells");
        assert_eq!(env.lookup(&r("m[k=a].sum")).unwrap(), 3.0);
        assert_eq!(env.lookup(&r("v[k=b]")).unwrap(), 7.0);
        assert!(env.lookup(&r("v[k=b].max")).is_err(), "a value has no max");
        assert!(env.lookup(&r("v")).is_err(), "a value of two cells");
    }
}
