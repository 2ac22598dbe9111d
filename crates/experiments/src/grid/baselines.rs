//! A chart's reference lines: `baseline = [{ label, cell }]` on an axis chart draws the
//! chart's value in one other cell (picked by `cell`, e.g. the run without the
//! mechanism under study) as a flat series over the chart's x positions, after the
//! chart's own series and without a confidence band.
//!
//! ```toml
//! [[chart]]
//! name = "fig4"
//! x = "n"
//! series = "method"
//! value = "timeouts"
//! where = { d0 = "40", selection = "oracle" }
//! baseline = [{ label = "no jitter", cell = { selection = "none" } }]
//! ```

use super::expr::{Env, Ref};
use super::result::GridResult;
use super::spec::ChartSpec;
use anyhow::anyhow;
use spikelab_output::plot::Series;

/// The chart's baselines as flat series at the x positions of `series`' first series.
pub fn series(
    c: &ChartSpec,
    g: &GridResult,
    drawn: &[Series],
    reps: u32,
) -> anyhow::Result<Vec<Series>> {
    let xs: Vec<f64> = drawn
        .first()
        .map_or(vec![], |s| s.points.iter().map(|p| p.0).collect());
    c.baseline
        .iter()
        .map(|b| {
            let e = super::values::env(g, b.cell.clone(), reps);
            let r = Ref {
                name: c.value.clone(),
                sel: vec![],
                stat: "mean".into(),
            };
            let y = e
                .lookup(&r)
                .map_err(|e| anyhow!("chart {} baseline `{}`: {e}", c.name, b.label))?;
            Ok(Series {
                label: b.label.clone(),
                points: xs.iter().map(|&x| (x, y)).collect(),
                ci: vec![],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::result::Stat;
    use std::collections::BTreeMap;

    fn grid() -> GridResult {
        let labels: Vec<BTreeMap<String, String>> = [("none", "0"), ("on", "1"), ("on", "2")]
            .iter()
            .map(|(s, n)| {
                [("sel", *s), ("n", *n)]
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect();
        let mut g = GridResult::of_runs(labels, vec![], vec![vec![]; 3]);
        for (cell, y) in [7.0, 1.0, 2.0].iter().enumerate() {
            let s = Stat {
                mean: *y,
                ci95: 0.5,
                n: 3,
                test: None,
            };
            g.values[cell].insert("timeouts".into(), s);
        }
        g
    }

    fn chart(cell: &str) -> ChartSpec {
        toml::from_str(&format!(
            r#"
            name = "c"
            grid = "g"
            title = "t"
            x_label = "x"
            y_label = "y"
            x = "n"
            series = "sel"
            value = "timeouts"
            baseline = [{{ label = "no jitter", cell = {{ sel = "{cell}" }} }}]
        "#
        ))
        .unwrap()
    }

    #[test]
    fn a_baseline_is_the_picked_cells_value_flat_at_every_x_of_the_chart() {
        let drawn = [Series {
            label: "on".into(),
            points: vec![(1.0, 1.0), (2.0, 2.0)],
            ci: vec![0.5, 0.5],
        }];
        let s = series(&chart("none"), &grid(), &drawn, 3).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].label, "no jitter");
        assert_eq!(s[0].points, [(1.0, 7.0), (2.0, 7.0)]);
        assert!(s[0].ci.is_empty());
    }

    #[test]
    fn a_baseline_picking_several_cells_is_an_error() {
        let e = series(&chart("on"), &grid(), &[], 3).unwrap_err();
        assert!(e.to_string().contains("no jitter"), "{e}");
    }
}
