//! Tables of explicit rows: `[[text_table]]` has a header and rows whose cells are
//! templates (`{...}` expressions, as in `[[text]]`, over every grid with `grid=<name>`
//! selectors, [`super::multi_grid`]). A cell given as `{ text, pick }` first fills the
//! picked cell's labels into its text (`{d0}`, as in a comparison, `picks`),
//! so a row can name the best setting a grid found and quote its values.
//!
//! ```toml
//! [[text_table]]
//! name = "side-by-side"
//! title = "The paper, the realistic mode and the paper mode side by side"
//! header = ["quantity", "paper", "realistic", "paper mode"]
//! rows = [
//!   ["timeouts without jitter", "24", "{timeouts[grid=sweep, selection=none]:±2}", "..."],
//!   ["fewest timeouts", "D0 = 100 ms, N = 3", { pick = "fewest-sweep", text = "D0 = {d0} ms" }, "..."],
//! ]
//! ```

use super::multi_grid::MultiEnv;
use super::picks;
use super::result::{GridResult, Grids};
use super::spec::{CellSpec, ExperimentSpec, TextTableSpec};
use super::values::{self, fill};
use crate::report::Table;
use anyhow::anyhow;
use std::collections::BTreeMap;

/// Renders one cell.
fn cell(spec: &ExperimentSpec, c: &CellSpec, env: &MultiEnv) -> anyhow::Result<String> {
    let text = match c {
        CellSpec::Text(t) => t.clone(),
        CellSpec::Picked { pick, text } => {
            let p = spec
                .pick
                .iter()
                .find(|p| &p.name == pick)
                .ok_or_else(|| anyhow!("no pick `{pick}`"))?;
            let g = env
                .by_name
                .get(p.grid.as_str())
                .ok_or_else(|| anyhow!("pick `{pick}`: no grid `{}`", p.grid))?;
            fill(text, &picks::labels(p, g).map_err(anyhow::Error::msg)?)
        }
    };
    super::expr::render(&text, env).map_err(anyhow::Error::msg)
}

/// The table `t` over every grid of `grids`.
pub fn table(
    spec: &ExperimentSpec,
    t: &TextTableSpec,
    grids: &Grids,
    reps: u32,
) -> anyhow::Result<Table> {
    let empty = GridResult::empty();
    let env = MultiEnv {
        main: values::env(&empty, BTreeMap::new(), reps),
        by_name: grids
            .iter()
            .map(|(name, g)| (*name, values::env(g, BTreeMap::new(), reps)))
            .collect(),
    };
    let rows = t
        .rows
        .iter()
        .map(|r| r.iter().map(|c| cell(spec, c, &env)).collect())
        .collect::<anyhow::Result<Vec<Vec<String>>>>()
        .map_err(|e| anyhow!("text_table `{}`: {e:#}", t.name))?;
    Ok(Table {
        title: t.title.clone(),
        header: t.header.clone(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::result::Stat;

    fn grid() -> GridResult {
        let labels = ["1", "2"]
            .map(|n| BTreeMap::from([("n".to_string(), n.to_string())]))
            .to_vec();
        let mut g = GridResult::of_runs(labels, vec![], vec![vec![]; 2]);
        for (c, v) in [3.0, 1.0].iter().enumerate() {
            let s = Stat {
                mean: *v,
                ci95: 0.5,
                n: 2,
                test: None,
            };
            g.values[c].insert("t".into(), s);
        }
        g
    }

    #[test]
    fn a_text_table_renders_each_cell_and_fills_a_picked_cells_labels() {
        let spec = ExperimentSpec::parse(
            r#"
            name = "x"
            title = "x"
            scenario = "s.toml"
            flow = "f"
            [[grid]]
            name = "g"
            [[pick]]
            name = "least"
            grid = "g"
            by = [{ min = "t" }]
            [[text_table]]
            name = "tt"
            title = "T"
            header = ["what", "value"]
            rows = [
              ["first", "{t[grid=g, n=1]:±1}"],
              ["least", { pick = "least", text = "N = {n}: {t[grid=g, n={n}]:.0}" }],
            ]
        "#,
            "x.toml",
        )
        .unwrap();
        let grids: Grids = BTreeMap::from([("g", grid())]);
        let t = table(&spec, &spec.text_table[0], &grids, 2).unwrap();
        assert_eq!(t.header, ["what", "value"]);
        assert_eq!(t.rows, [["first", "3.0 ± 0.5"], ["least", "N = 2: 1"]]);
    }
}
