//! The syntax tree of the expression language of experiment files and what an
//! expression reads ([`Env`]): the leaf the language's functions (`count`, the
//! reductions over an axis) share with the evaluator, which hands itself to them as an
//! [`Eval`], so that neither imports the other.

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Num(f64),
    /// A grid value (or a variable, when `sel` is empty and the name is one).
    Ref(Ref),
    Call(String, Vec<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
    Cmp(&'static str, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
}

/// `name[k=v, ...].stat`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ref {
    pub name: String,
    pub sel: Vec<(String, String)>,
    /// `mean` (the default), `ci95` or `n`.
    pub stat: String,
}

/// What an expression reads: grid values and variables.
pub trait Env {
    /// The value `r` names in the one cell it picks.
    fn lookup(&self, r: &Ref) -> Result<f64, String>;
    /// The sum of `r` over every cell it matches.
    fn sum(&self, r: &Ref) -> Result<f64, String>;
    /// The labels of `axis` among the cells the context picks, in grid order (for
    /// reductions over an axis, `max_over` and `argmax_over`).
    fn axis_labels(&self, axis: &str) -> Result<Vec<String>, String> {
        Err(format!("no axis `{axis}` to reduce over here"))
    }
    /// This environment with `axis` fixed to `label`.
    fn fixing(&self, axis: &str, label: &str) -> Result<Box<dyn Env + '_>, String> {
        Err(format!("cannot fix `{axis}` = `{label}` here"))
    }
    /// `r` in every cell it matches (for `count`).
    fn each(&self, r: &Ref) -> Result<Vec<f64>, String> {
        Err(format!("`{}`: cells cannot be counted here", r.name))
    }
}

/// The evaluator (`expr::eval`), as the functions of the language receive it
/// to evaluate their arguments.
pub type Eval = fn(&Expr, &dyn Env) -> Result<f64, String>;
