//! Overrides whose value depends on the cell: `[[grid.computed_set]]` sets `path` to an
//! expression ([`super::expr`]) over the cell's labels read as numbers, in the cells
//! whose labels match `where`, after every axis value's own `set`.
//!
//! ```toml
//! [[grid.computed_set]]                 # blind selection with probability 1/N
//! where = { selection = "probability" }
//! path = "middlebox.0.config.select_p"
//! value = "1 / n"                       # `n`: the cell's label of axis `n`
//! ```
//!
//! A name in the expression is a label of the cell (an axis's, or one its values imply)
//! and must read as a number; `int = true` writes the result as an integer (it must be
//! one).

use super::expr::{self, Env, Ref};
use super::spec::{ComputedSet, Grid};
use std::collections::BTreeMap;

/// A cell's labels as the variables of an expression.
struct Labels<'a>(&'a BTreeMap<String, String>);

impl Env for Labels<'_> {
    fn lookup(&self, r: &Ref) -> Result<f64, String> {
        if !r.sel.is_empty() || r.stat != "mean" {
            return Err(format!("`{}`: a computed set reads plain labels", r.name));
        }
        let label = self
            .0
            .get(&r.name)
            .ok_or_else(|| format!("the cell has no label `{}`", r.name))?;
        label
            .parse::<f64>()
            .map_err(|_| format!("label `{}` = `{label}` is not a number", r.name))
    }

    fn sum(&self, r: &Ref) -> Result<f64, String> {
        self.lookup(r)
    }
}

/// The value of `c` in the cell labelled `labels`.
fn value(c: &ComputedSet, labels: &BTreeMap<String, String>) -> Result<toml::Value, String> {
    let e = expr::parse(&c.value)?;
    let x = expr::eval(&e, &Labels(labels)).map_err(|e| format!("`{}`: {e}", c.value))?;
    if !c.int {
        return Ok(toml::Value::Float(x));
    }
    if x.fract() != 0.0 || x.abs() > i64::MAX as f64 {
        return Err(format!("`{}` gives {x}, not an integer", c.value));
    }
    Ok(toml::Value::Integer(x as i64))
}

/// The overrides `g`'s computed sets make in the cell labelled `labels`, in order.
pub fn table(g: &Grid, labels: &BTreeMap<String, String>) -> Result<toml::Table, String> {
    let mut out = toml::Table::new();
    for c in &g.computed_set {
        if c.filter.iter().all(|(k, v)| labels.get(k) == Some(v)) {
            let v = value(c, labels).map_err(|e| format!("computed_set `{}`: {e}", c.path))?;
            out.insert(c.path.clone(), v);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Grid {
        toml::from_str(text).unwrap()
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const G: &str = r#"
        name = "g"
        axis = []
        [[computed_set]]
        where = { sel = "p" }
        path = "box.select_p"
        value = "1 / n"
        [[computed_set]]
        path = "box.double"
        value = "2 * n"
        int = true
    "#;

    #[test]
    fn a_computed_set_reads_the_cells_labels_as_numbers() {
        let t = table(&grid(G), &labels(&[("sel", "p"), ("n", "4")])).unwrap();
        assert_eq!(t["box.select_p"], toml::Value::Float(0.25));
        assert_eq!(t["box.double"], toml::Value::Integer(8));
    }

    #[test]
    fn where_limits_a_computed_set_to_the_matching_cells() {
        let t = table(&grid(G), &labels(&[("sel", "q"), ("n", "3")])).unwrap();
        assert!(!t.contains_key("box.select_p"));
        assert_eq!(t["box.double"], toml::Value::Integer(6));
    }

    #[test]
    fn a_missing_or_non_numeric_label_is_an_error() {
        let e = table(&grid(G), &labels(&[("sel", "p")])).unwrap_err();
        assert!(e.contains("no label `n`"), "{e}");
        let e = table(&grid(G), &labels(&[("sel", "p"), ("n", "x")])).unwrap_err();
        assert!(e.contains("not a number"), "{e}");
    }

    #[test]
    fn an_int_computed_set_refuses_a_fraction() {
        let g = grid(
            r#"
            name = "g"
            axis = []
            [[computed_set]]
            path = "x"
            value = "n / 2"
            int = true
        "#,
        );
        let e = table(&g, &labels(&[("n", "3")])).unwrap_err();
        assert!(e.contains("not an integer"), "{e}");
    }
}
