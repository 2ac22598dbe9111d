//! Best-cell selection: a `[[pick]]` names the cell of a grid that does best by its
//! values (the fewest timeouts, the most throughput), among the cells `where` picks. A
//! comparison with `pick = "<name>"` reads that cell: its `where` gains the cell's
//! labels, and `{label}` in its `what`, `value` and `ci95` is the cell's label (so a
//! comparison can name the setting it found, or compare the setting itself).
//!
//! ```toml
//! [[pick]]
//! name = "fewest-timeouts"
//! grid = "sweep"
//! where = { selection = "oracle" }
//! by = [{ min = "timeouts" }, { max = "throughput" }]   # then the most throughput
//!
//! [[comparison]]
//! block = "realistic"
//! grid = "sweep"
//! pick = "fewest-timeouts"
//! what = "fewest timeouts ({selection} {method} D0 = {d0} ms, N = {n})"
//! value = "timeouts"
//! paper = 0.1
//! unit = ""
//! ```
//!
//! `by` compares the cells' means objective after objective; a NaN makes two cells
//! equal, and of equal cells the later in grid order wins.

use super::result::Stat;
use super::spec::{ComparisonSpec, ExperimentSpec, Objective, PickSpec};
use super::values::{fill, GridEnv};
use spikelab_scenario::{FieldPath, Invalid};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Every pick names a grid of `spec` and every comparison's pick is one of them.
pub fn check(spec: &ExperimentSpec) -> Result<(), Invalid> {
    for (i, p) in spec.pick.iter().enumerate() {
        if spec.grid(&p.grid).is_none() {
            let why = format!("pick `{}`: no grid `{}`", p.name, p.grid);
            return Err(Invalid::new(
                FieldPath::root("pick").index(i).key("grid"),
                why,
            ));
        }
    }
    for (i, c) in spec.comparison.iter().enumerate() {
        let Some(name) = &c.pick else { continue };
        if !spec.pick.iter().any(|p| &p.name == name) {
            let why = format!("comparison `{}`: no pick `{name}`", c.what);
            let at = FieldPath::root("comparison").index(i).key("pick");
            return Err(Invalid::new(at, why));
        }
        for (field, e) in [("value", Some(&c.value)), ("ci95", c.ci95.as_ref())] {
            if let Some(e) = e {
                let at = FieldPath::root("comparison").index(i).key(field);
                super::expr::parse(&placeholders_as_zero(e)).map_err(|e| Invalid::new(at, e))?;
            }
        }
    }
    Ok(())
}

/// `text` with every `{label}` a 0, to check that it parses before a pick fills it.
fn placeholders_as_zero(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        match rest[i..].find('}') {
            Some(j) => {
                out.push('0');
                rest = &rest[i + j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out + rest
}

/// A candidate's score: greater is better, objective by objective.
fn score(p: &PickSpec, values: &BTreeMap<String, Stat>) -> Result<Vec<f64>, String> {
    p.by.iter()
        .map(|o| {
            let (name, sign) = match o {
                Objective::Min(n) => (n, -1.0),
                Objective::Max(n) => (n, 1.0),
            };
            let v = values
                .get(name)
                .ok_or_else(|| format!("pick `{}`: no grid value `{name}`", p.name))?;
            Ok(sign * v.mean)
        })
        .collect()
}

/// The index of the best of `scores` (the later of equals, as `Iterator::max_by`).
fn best(scores: &[(usize, Vec<f64>)]) -> Option<usize> {
    scores
        .iter()
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
        .map(|(i, _)| *i)
}

/// The labels of the cell pick `p` chooses among `env`'s cells.
pub fn labels(p: &PickSpec, env: &GridEnv) -> Result<BTreeMap<String, String>, String> {
    let candidates = (0..env.labels.len()).filter(|&c| {
        p.filter
            .iter()
            .all(|(k, v)| env.labels[c].get(k) == Some(v))
    });
    let scores = candidates
        .map(|c| score(p, &env.values[c]).map(|s| (c, s)))
        .collect::<Result<Vec<_>, String>>()?;
    best(&scores)
        .map(|c| env.labels[c].clone())
        .ok_or_else(|| format!("pick `{}`: no cell matches {:?}", p.name, p.filter))
}

/// `c` with its pick resolved: the chosen cell's labels added to `where` and filled
/// into its texts (unchanged without a pick).
pub fn resolve<'a>(
    spec: &ExperimentSpec,
    c: &ComparisonSpec,
    env_of: impl Fn(&str, BTreeMap<String, String>) -> anyhow::Result<GridEnv<'a>>,
) -> anyhow::Result<ComparisonSpec> {
    let Some(name) = &c.pick else {
        return Ok(c.clone());
    };
    let p = spec
        .pick
        .iter()
        .find(|p| &p.name == name)
        .ok_or_else(|| anyhow::anyhow!("comparison `{}`: no pick `{name}`", c.what))?;
    let chosen = labels(p, &env_of(&p.grid, BTreeMap::new())?).map_err(anyhow::Error::msg)?;
    let mut out = c.clone();
    out.filter.extend(chosen.clone());
    out.what = fill(&c.what, &chosen);
    out.value = fill(&c.value, &chosen);
    out.ci95 = c.ci95.as_ref().map(|t| fill(t, &chosen));
    out.pick = None;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::result::Stat;

    type Cells = Vec<BTreeMap<String, String>>;
    type Values = Vec<BTreeMap<String, Stat>>;

    fn env_parts() -> (Cells, Values) {
        let cells = [
            ("a", 2.0, 10.0),
            ("b", 1.0, 5.0),
            ("c", 1.0, 7.0),
            ("d", 1.0, 7.0),
        ];
        let labels = cells
            .iter()
            .map(|(l, _, _)| BTreeMap::from([("k".to_string(), l.to_string())]))
            .collect();
        let stat = |mean| Stat {
            mean,
            ci95: 0.0,
            n: 1,
            test: None,
        };
        let values = cells
            .iter()
            .map(|(_, t, thr)| {
                BTreeMap::from([("t".to_string(), stat(*t)), ("thr".to_string(), stat(*thr))])
            })
            .collect();
        (labels, values)
    }

    fn pick(by: &str) -> PickSpec {
        toml::from_str(&format!("name = \"p\"\ngrid = \"g\"\nby = {by}")).unwrap()
    }

    fn chosen(by: &str) -> String {
        let (labels, values) = env_parts();
        let env = GridEnv {
            labels: &labels,
            values: &values,
            fixed: BTreeMap::new(),
            reps: 1,
            samples: None,
        };
        labels_of(&pick(by), &env)
    }

    fn labels_of(p: &PickSpec, env: &GridEnv) -> String {
        labels(p, env).unwrap()["k"].clone()
    }

    #[test]
    fn a_pick_takes_the_least_then_breaks_ties_by_the_next_objective() {
        assert_eq!(chosen("[{ min = \"t\" }, { max = \"thr\" }]"), "d");
        assert_eq!(chosen("[{ max = \"thr\" }]"), "a");
    }

    #[test]
    fn of_equal_cells_the_later_in_grid_order_wins() {
        // c and d tie on both objectives.
        assert_eq!(chosen("[{ min = \"t\" }, { max = \"thr\" }]"), "d");
        assert_eq!(chosen("[{ min = \"t\" }]"), "d");
    }

    #[test]
    fn a_picks_label_placeholders_read_as_numbers_when_checked() {
        assert_eq!(placeholders_as_zero("{d0} * 2 + {n}"), "0 * 2 + 0");
        assert!(super::super::expr::parse(&placeholders_as_zero("{d0} +")).is_err());
    }

    #[test]
    fn a_pick_without_candidates_or_with_an_unknown_value_is_an_error() {
        let (cells, values) = env_parts();
        let env = GridEnv {
            labels: &cells,
            values: &values,
            fixed: BTreeMap::new(),
            reps: 1,
            samples: None,
        };
        let mut p = pick("[{ min = \"t\" }]");
        p.filter.insert("k".into(), "zz".into());
        assert!(labels(&p, &env).unwrap_err().contains("no cell"));
        let e = labels(&pick("[{ min = \"nope\" }]"), &env).unwrap_err();
        assert!(e.contains("no grid value `nope`"), "{e}");
    }
}
