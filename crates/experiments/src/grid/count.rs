//! Counting cells: `count(x[sel] < y)` in an expression is the number of cells the
//! reference `x[sel]` matches (with the context's labels) where the comparison holds,
//! the right side evaluated once; `count(x[sel])` is the number of matching cells.
//!
//! ```text
//! count(timeouts[selection=oracle, method=FTFD] < timeouts[selection=none])
//! sum(fast_retransmits[selection=oracle]) / max(count(fast_retransmits[selection=oracle]), 1)
//! ```

use super::expr_syntax::{Env, Eval, Expr};

/// `count(...)` over `env`, the right side of a comparison evaluated by `eval`.
pub fn count(args: &[Expr], env: &dyn Env, eval: Eval) -> Result<f64, String> {
    let each = |e: &Expr| match e {
        Expr::Ref(r) => env.each(r),
        _ => Err("count(...) takes a value reference, or one compared with a number".into()),
    };
    match args {
        [Expr::Cmp(op, a, b)] => {
            let xs = each(a)?;
            let y = eval(b, env)?;
            let holds = |x: f64| match *op {
                ">=" => x >= y,
                "<=" => x <= y,
                ">" => x > y,
                "<" => x < y,
                _ => x == y,
            };
            Ok(xs.into_iter().filter(|&x| holds(x)).count() as f64)
        }
        [e] => Ok(each(e)?.len() as f64),
        _ => Err("count(...) takes one argument".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::expr::{self, Ref};
    use super::*;

    /// Cells with x = 1, 2, 3, 4; `y` is 2.5.
    struct Cells;

    impl Env for Cells {
        fn lookup(&self, r: &Ref) -> Result<f64, String> {
            match r.name.as_str() {
                "y" => Ok(2.5),
                n => Err(format!("no {n}")),
            }
        }
        fn sum(&self, r: &Ref) -> Result<f64, String> {
            Ok(self.each(r)?.iter().sum())
        }
        fn each(&self, _: &Ref) -> Result<Vec<f64>, String> {
            Ok(vec![1.0, 2.0, 3.0, 4.0])
        }
    }

    fn value(text: &str) -> Result<f64, String> {
        expr::eval(&expr::parse(text)?, &Cells)
    }

    #[test]
    fn count_counts_the_cells_where_the_comparison_holds() {
        assert_eq!(value("count(x[k=a] < y)").unwrap(), 2.0);
        assert_eq!(value("count(x[k=a] >= 3)").unwrap(), 2.0);
    }

    #[test]
    fn count_of_a_bare_reference_counts_its_cells() {
        assert_eq!(value("count(x[k=a])").unwrap(), 4.0);
        assert_eq!(value("sum(x[k=a]) / count(x[k=a])").unwrap(), 2.5);
    }

    #[test]
    fn count_refuses_anything_but_a_reference_on_the_left() {
        assert!(value("count(1 < 2)").is_err());
    }
}
