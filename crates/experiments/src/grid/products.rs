//! Cell lists that are not one product of axes: a grid's cells are the product of its
//! own `[[grid.axis]]` followed by the product of each `[[grid.product]]`'s axes, in
//! that order. A sweep whose parts differ (the no-jitter cell, the timeout figures'
//! D0s with every method, the throughput figure's extra D0s with FTFD alone) is one
//! grid this way; a product whose axes each have one value is a single explicit cell.
//!
//! ```toml
//! [[grid]]
//! name = "sweep"
//! [[grid.product]]                     # the baseline: one cell
//! axis = [{ name = "sel", values = [{ label = "none", set = { "middlebox" = [] } }] }]
//! [[grid.product]]                     # then every D0 x N x selection
//! axis = [
//!   { name = "d0", values = [{ label = "40", set = { ... } }, ...] },
//!   ...
//! ]
//! ```
//!
//! Every cell's labels must differ from every other's, or a reference to a cell would
//! be ambiguous: a repeated combination is an error.

use super::spec::{Axis, AxisValue, Grid};
use std::collections::BTreeMap;

/// The axis values one cell picks, one per axis of its block, in axis order.
pub type Choice<'g> = Vec<(&'g Axis, &'g AxisValue)>;

/// Every combination of `axes`' values, the last axis varying fastest.
fn product(axes: &[Axis]) -> Vec<Choice<'_>> {
    let mut out: Vec<Choice<'_>> = vec![vec![]];
    for axis in axes {
        out = out
            .into_iter()
            .flat_map(|c| {
                axis.values.iter().map(move |v| {
                    let mut next = c.clone();
                    next.push((axis, v));
                    next
                })
            })
            .collect();
    }
    out
}

/// The axis labels (and the labels they imply) of one choice.
pub fn labels(choice: &Choice<'_>) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> =
        choice.iter().flat_map(|(_, v)| v.labels.clone()).collect();
    out.extend(
        choice
            .iter()
            .map(|(a, v)| (a.name.clone(), v.label.clone())),
    );
    out
}

/// Every cell of `g`: the product of its axes (unless it has none and products do the
/// listing), then each product's, in order; an error names a repeated combination.
pub fn choices(g: &Grid) -> Result<Vec<Choice<'_>>, String> {
    let mut out = if g.axis.is_empty() && !g.product.is_empty() {
        vec![]
    } else {
        product(&g.axis)
    };
    for p in &g.product {
        out.extend(product(&p.axis));
    }
    let all: Vec<BTreeMap<String, String>> = out.iter().map(labels).collect();
    for (i, l) in all.iter().enumerate() {
        if all[..i].contains(l) {
            return Err(format!(
                "grid `{}`: the cell {l:?} is listed twice (a product repeats it)",
                g.name
            ));
        }
    }
    Ok(out)
}

/// Every axis of `g` with the labels it takes anywhere, merged by name in order of
/// first appearance (an axis of several products lists the labels of all).
pub fn all_axes(g: &Grid) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let blocks = std::iter::once(&g.axis).chain(g.product.iter().map(|p| &p.axis));
    for a in blocks.flatten() {
        let i = match out.iter().position(|(n, _)| *n == a.name) {
            Some(i) => i,
            None => {
                out.push((a.name.clone(), vec![]));
                out.len() - 1
            }
        };
        for v in &a.values {
            if !out[i].1.contains(&v.label) {
                out[i].1.push(v.label.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Grid {
        toml::from_str(text).unwrap()
    }

    fn label_rows(g: &Grid) -> Vec<String> {
        choices(g)
            .unwrap()
            .iter()
            .map(|c| {
                c.iter()
                    .map(|(_, v)| v.label.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect()
    }

    const SWEEP: &str = r#"
        name = "s"
        axis = []
        [[product]]
        axis = [{ name = "sel", values = [{ label = "none" }] }]
        [[product]]
        axis = [
          { name = "d0", values = [{ label = "40" }, { label = "100" }] },
          { name = "sel", values = [{ label = "a" }, { label = "b" }] },
        ]
        [[product]]
        axis = [
          { name = "d0", values = [{ label = "70" }] },
          { name = "sel", values = [{ label = "a" }] },
        ]
    "#;

    #[test]
    fn products_follow_each_other_in_order_each_varying_its_last_axis_fastest() {
        assert_eq!(
            label_rows(&grid(SWEEP)),
            ["none", "40,a", "40,b", "100,a", "100,b", "70,a"]
        );
    }

    #[test]
    fn a_grid_with_axes_and_products_lists_its_own_product_first() {
        let g = grid(
            r#"
            name = "g"
            axis = [{ name = "x", values = [{ label = "1" }, { label = "2" }] }]
            [[product]]
            axis = [{ name = "x", values = [{ label = "3" }] }]
        "#,
        );
        assert_eq!(label_rows(&g), ["1", "2", "3"]);
    }

    #[test]
    fn a_cell_listed_twice_is_an_error() {
        let g = grid(
            r#"
            name = "dup"
            axis = [{ name = "x", values = [{ label = "1" }] }]
            [[product]]
            axis = [{ name = "x", values = [{ label = "1" }] }]
        "#,
        );
        let e = choices(&g).unwrap_err();
        assert!(e.contains("listed twice"), "{e}");
    }

    #[test]
    fn all_axes_merges_the_labels_of_every_product_by_name() {
        let axes = all_axes(&grid(SWEEP));
        assert_eq!(
            axes,
            [
                (
                    "sel".to_string(),
                    vec!["none".to_string(), "a".into(), "b".into()]
                ),
                (
                    "d0".to_string(),
                    vec!["40".to_string(), "100".into(), "70".into()]
                ),
            ]
        );
    }
}
