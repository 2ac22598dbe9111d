//! Text over several grids: in a `[[text]]`, a reference with the selector
//! `grid=<name>` reads that grid's values (`timeouts[grid=paper, selection=none]`);
//! without it, the text's own `grid`. A paragraph can then set two modes of a study
//! side by side. `grid` is therefore no axis name a text can select by.

use super::expr::{self, Env, Ref};
use super::result::{GridResult, Grids};
use super::spec::TextSpec;
use super::values::{self, GridEnv};
use anyhow::anyhow;
use std::collections::BTreeMap;

/// The text's own grid, and every grid by name.
pub struct MultiEnv<'a> {
    pub main: GridEnv<'a>,
    pub by_name: BTreeMap<&'a str, GridEnv<'a>>,
}

impl MultiEnv<'_> {
    /// The grid `r` reads and `r` without its `grid` selector.
    fn route(&self, r: &Ref) -> Result<(&GridEnv<'_>, Ref), String> {
        let Some(i) = r.sel.iter().position(|(k, _)| k == "grid") else {
            return Ok((&self.main, r.clone()));
        };
        let name = &r.sel[i].1;
        let env = self
            .by_name
            .get(name.as_str())
            .ok_or_else(|| format!("`{}`: no grid `{name}`", r.name))?;
        let mut rest = r.clone();
        rest.sel.remove(i);
        Ok((env, rest))
    }
}

impl Env for MultiEnv<'_> {
    fn lookup(&self, r: &Ref) -> Result<f64, String> {
        let (env, r) = self.route(r)?;
        env.lookup(&r)
    }
    fn sum(&self, r: &Ref) -> Result<f64, String> {
        let (env, r) = self.route(r)?;
        env.sum(&r)
    }
    fn each(&self, r: &Ref) -> Result<Vec<f64>, String> {
        let (env, r) = self.route(r)?;
        env.each(&r)
    }
}

/// `t` rendered over its own grid `g` and every grid of `grids`.
pub fn text(
    t: &TextSpec,
    g: Option<&GridResult>,
    grids: &Grids,
    reps: u32,
) -> anyhow::Result<String> {
    let empty = GridResult::empty();
    let env = MultiEnv {
        main: values::env(g.unwrap_or(&empty), BTreeMap::new(), reps),
        by_name: grids
            .iter()
            .map(|(name, g)| (*name, values::env(g, BTreeMap::new(), reps)))
            .collect(),
    };
    expr::render(t.text.trim(), &env).map_err(|e| anyhow!("text `{}`: {e}", t.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::result::Stat;

    fn grid(x: f64) -> GridResult {
        let labels = vec![BTreeMap::from([("k".to_string(), "a".to_string())])];
        let mut g = GridResult::of_runs(labels, vec![], vec![vec![]]);
        let s = Stat {
            mean: x,
            ci95: 0.0,
            n: 1,
            test: None,
        };
        g.values[0].insert("v".into(), s);
        g
    }

    fn spec(text: &str) -> TextSpec {
        TextSpec {
            name: "t".into(),
            grid: None,
            text: text.into(),
        }
    }

    #[test]
    fn a_grid_selector_reads_that_grid_and_none_the_texts_own() {
        let grids: Grids = BTreeMap::from([("one", grid(1.0)), ("two", grid(2.0))]);
        let own = grid(7.0);
        let s = text(
            &spec("{v[k=a]:.0} {v[grid=two, k=a]:.0} {count(v[grid=one] < 2):.0}"),
            Some(&own),
            &grids,
            3,
        )
        .unwrap();
        assert_eq!(s, "7 2 1");
    }

    #[test]
    fn an_unknown_grid_is_an_error() {
        let grids: Grids = BTreeMap::new();
        let e = text(&spec("{v[grid=nope]}"), None, &grids, 3).unwrap_err();
        assert!(e.to_string().contains("no grid `nope`"), "{e}");
    }
}
