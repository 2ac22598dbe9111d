//! Reductions over an axis in expressions: the largest value over the labels of an
//! axis at which a condition holds, and the label where it is reached.
//!
//! ```text
//! max_over(d, 100 * (1 - hits[timer=PH] / hits[timer=RFC]), hits[timer=RFC] >= 10)
//! argmax_over(d, 100 * (1 - hits[timer=PH] / hits[timer=RFC]), hits[timer=RFC] >= 10)
//! ```
//!
//! Each label of axis `d` among the cells the context picks (in grid order) is fixed in
//! turn; where the condition is true (a comparison on NaN is false), the value is
//! evaluated. `max_over` is the first of the largest values and `argmax_over` its label
//! read as a number; both are NaN when the condition never holds. A value that is NaN
//! where the condition holds first stays the result (no later value is larger than
//! NaN), as a fold that starts from the first candidate does.

use super::expr_syntax::{Env, Eval, Expr};
use std::collections::BTreeMap;

/// `f(args)` when `f` is a reduction over an axis, its arguments evaluated by `eval`;
/// `None` for another function.
pub fn call(f: &str, args: &[Expr], env: &dyn Env, eval: Eval) -> Option<Result<f64, String>> {
    let argmax = match f {
        "max_over" => false,
        "argmax_over" => true,
        _ => return None,
    };
    Some(best(f, args, env, eval).and_then(|b| {
        match b {
            None => Ok(f64::NAN),
            Some((_, v)) if !argmax => Ok(v),
            Some((label, _)) => label
                .parse()
                .map_err(|_| format!("{f}(...): label `{label}` is not a number")),
        }
    }))
}

/// The label and value of the first largest value where the condition holds.
fn best(
    f: &str,
    args: &[Expr],
    env: &dyn Env,
    eval: Eval,
) -> Result<Option<(String, f64)>, String> {
    let [Expr::Ref(axis), value, condition] = args else {
        return Err(format!(
            "{f}(axis, value, condition) takes an axis name and two expressions"
        ));
    };
    if !axis.sel.is_empty() || axis.stat != "mean" {
        return Err(format!(
            "{f}(...): the first argument is an axis name, not `{}[...]`",
            axis.name
        ));
    }
    let mut best: Option<(String, f64)> = None;
    for label in env.axis_labels(&axis.name)? {
        let at = env.fixing(&axis.name, &label)?;
        if eval(condition, &*at)? == 0.0 {
            continue;
        }
        let v = eval(value, &*at)?;
        best = match best {
            Some(b) if v > b.1 => Some((label, v)),
            Some(b) => Some(b),
            None => Some((label, v)),
        };
    }
    Ok(best)
}

/// The functions expressions know (the evaluator's and this module's).
const FUNCTIONS: [&str; 7] = [
    "max",
    "min",
    "sum",
    "ceil",
    "floor",
    "max_over",
    "argmax_over",
];

/// Checks, before anything runs, that every function `e` calls is known and that every
/// reduction over an axis names one of `axes` with three arguments.
pub fn check_calls(e: &Expr, axes: &[&str]) -> Result<(), String> {
    match e {
        Expr::Num(_) | Expr::Ref(_) => Ok(()),
        Expr::Neg(a) => check_calls(a, axes),
        Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) => {
            check_calls(a, axes).and_then(|()| check_calls(b, axes))
        }
        Expr::Call(f, args) => {
            if !FUNCTIONS.contains(&f.as_str()) {
                let known = FUNCTIONS.join(", ");
                return Err(format!("unknown function `{f}` (known: {known})"));
            }
            if f.ends_with("_over") {
                match args.first() {
                    Some(Expr::Ref(r)) if axes.contains(&r.name.as_str()) && args.len() == 3 => {}
                    _ => {
                        let known = axes.join(", ");
                        return Err(format!(
                            "{f}(axis, value, condition): the axis is one of {known}"
                        ));
                    }
                }
            }
            args.iter().try_for_each(|a| check_calls(a, axes))
        }
    }
}

/// The labels of `axis` among the cells (labelled `cells`) that carry every label of
/// `fixed`, in grid order (first appearance); an error when no such cell has the axis.
pub fn labels(
    cells: &[BTreeMap<String, String>],
    fixed: &BTreeMap<String, String>,
    axis: &str,
) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let picked = cells
        .iter()
        .filter(|l| fixed.iter().all(|(k, v)| l.get(k) == Some(v)));
    for l in picked.filter_map(|l| l.get(axis)) {
        if !out.contains(l) {
            out.push(l.clone());
        }
    }
    if out.is_empty() {
        return Err(format!("no axis `{axis}` in the cells {fixed:?} picks"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::expr::{eval, parse, Ref};
    use super::*;

    /// Axis `d` with labels 1, 2, 3, 4; `y` and `c` are per-label tables, read with `d`
    /// fixed.
    struct Table {
        fixed: Option<String>,
        y: [f64; 4],
        c: [f64; 4],
    }

    impl Env for Table {
        fn lookup(&self, r: &Ref) -> Result<f64, String> {
            let d = self.fixed.as_deref().ok_or("no d fixed")?;
            let i: usize = d.parse::<usize>().map_err(|e| e.to_string())? - 1;
            match r.name.as_str() {
                "y" => Ok(self.y[i]),
                "c" => Ok(self.c[i]),
                other => Err(format!("no `{other}`")),
            }
        }
        fn sum(&self, _: &Ref) -> Result<f64, String> {
            Err("no sums".into())
        }
        fn axis_labels(&self, axis: &str) -> Result<Vec<String>, String> {
            match axis {
                "d" => Ok(["1", "2", "3", "4"].map(String::from).to_vec()),
                _ => Err(format!("no axis `{axis}`")),
            }
        }
        fn fixing(&self, _: &str, label: &str) -> Result<Box<dyn Env + '_>, String> {
            Ok(Box::new(Table {
                fixed: Some(label.to_string()),
                ..*self
            }))
        }
    }

    fn ev(t: &Table, s: &str) -> Result<f64, String> {
        eval(&parse(s).unwrap(), t)
    }

    #[test]
    fn the_largest_value_is_taken_only_where_the_condition_holds() {
        let t = Table {
            fixed: None,
            y: [50.0, 90.0, 70.0, 99.0],
            c: [20.0, 30.0, 15.0, 5.0],
        };
        assert_eq!(ev(&t, "max_over(d, y, c >= 10)").unwrap(), 90.0);
        assert_eq!(ev(&t, "argmax_over(d, y, c >= 10)").unwrap(), 2.0);
        assert_eq!(ev(&t, "max_over(d, y, c >= 0)").unwrap(), 99.0);
        assert_eq!(ev(&t, "argmax_over(d, y / 2, c < 30)").unwrap(), 4.0);
    }

    #[test]
    fn ties_keep_the_first_label_and_no_match_gives_nan() {
        let t = Table {
            fixed: None,
            y: [5.0, 7.0, 7.0, 1.0],
            c: [1.0; 4],
        };
        assert_eq!(ev(&t, "argmax_over(d, y, c > 0)").unwrap(), 2.0);
        assert!(ev(&t, "max_over(d, y, c > 1)").unwrap().is_nan());
        assert!(ev(&t, "argmax_over(d, y, c > 1)").unwrap().is_nan());
    }

    #[test]
    fn a_nan_where_the_condition_first_holds_is_kept_as_a_left_fold_would() {
        let t = Table {
            fixed: None,
            y: [f64::NAN, 3.0, 4.0, 5.0],
            c: [1.0; 4],
        };
        assert!(ev(&t, "max_over(d, y, c > 0)").unwrap().is_nan());
    }

    #[test]
    fn the_labels_are_those_of_the_picked_cells_in_grid_order() {
        let cell = |d: &str, k: &str| {
            BTreeMap::from([("d".to_string(), d.to_string()), ("k".into(), k.into())])
        };
        let cells = [
            cell("2", "a"),
            cell("1", "a"),
            cell("2", "b"),
            cell("3", "b"),
        ];
        let a = BTreeMap::from([("k".to_string(), "a".to_string())]);
        assert_eq!(labels(&cells, &a, "d").unwrap(), ["2", "1"]);
        assert_eq!(
            labels(&cells, &BTreeMap::new(), "d").unwrap(),
            ["2", "1", "3"]
        );
        assert!(labels(&cells, &a, "n").is_err());
    }

    #[test]
    fn a_check_before_running_finds_unknown_functions_and_axes() {
        let ok = parse("max(1, max_over(d, y, c > 0))").unwrap();
        check_calls(&ok, &["d"]).unwrap();
        let e = check_calls(&parse("max_ovr(d, y, c)").unwrap(), &["d"]).unwrap_err();
        assert!(e.contains("unknown function `max_ovr`"), "{e}");
        let e = check_calls(&parse("1 + argmax_over(n, y, c)").unwrap(), &["d"]).unwrap_err();
        assert!(e.contains("the axis is one of d"), "{e}");
        assert!(check_calls(&parse("max_over(d, y)").unwrap(), &["d"]).is_err());
    }

    #[test]
    fn a_misnamed_axis_or_a_selected_reference_is_an_error() {
        let t = Table {
            fixed: None,
            y: [1.0; 4],
            c: [1.0; 4],
        };
        let e = ev(&t, "max_over(n, y, c > 0)").unwrap_err();
        assert!(e.contains("no axis `n`"), "{e}");
        assert!(ev(&t, "max_over(d[k=1], y, c > 0)").is_err());
        assert!(ev(&t, "max_over(d, y)").is_err());
    }
}
