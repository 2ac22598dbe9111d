//! The small expression language of experiment files: thresholds (`holds`) and the
//! numbers quoted in report text (`{...}` placeholders).
//!
//! ```text
//! increase[scheme=STD] >= 0.5 * max(increase[scheme=Eifel], increase[scheme=F-RTO], 0)
//! cond_met[scheme=STD] / std_episodes[scheme=STD]
//! sum(dropped[window=8192])        throughput[scheme=TCP].ci95        reps
//! ```
//!
//! A reference `name[axis=label, ...]` is a grid value (see `[[grid.value]]`) of the one
//! cell the labels pick, together with the labels the context already fixes (a table's
//! row, a threshold's axis value); `.ci95` and `.n` pick its confidence half-width or
//! its number of repetitions instead of its mean. `sum(...)` adds a reference over every
//! cell it matches; `max` and `min` fold left with `f64::max`/`f64::min` (so NaN gives
//! way); `ceil` and `floor` round; comparisons give 1 or 0 (0 when either side is NaN).

use std::fmt::Write;

pub use super::expr_syntax::{Env, Eval, Expr, Ref};

/// Parses `text` as one expression.
pub fn parse(text: &str) -> Result<Expr, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let e = p.cmp()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("`{text}`: unexpected `{}`", &text[p.i..]));
    }
    Ok(e)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(tok.as_bytes()) {
            self.i += tok.len();
            return true;
        }
        false
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(self.s).into_owned()
    }

    fn cmp(&mut self) -> Result<Expr, String> {
        let lhs = self.sum()?;
        for op in [">=", "<=", "==", ">", "<"] {
            if self.eat(op) {
                return Ok(Expr::Cmp(op, Box::new(lhs), Box::new(self.sum()?)));
            }
        }
        Ok(lhs)
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.prod()?;
        loop {
            let op = if self.eat("+") {
                '+'
            } else if self.eat("-") {
                '-'
            } else {
                return Ok(e);
            };
            e = Expr::Bin(op, Box::new(e), Box::new(self.prod()?));
        }
    }

    fn prod(&mut self) -> Result<Expr, String> {
        let mut e = self.unary()?;
        loop {
            let op = if self.eat("*") {
                '*'
            } else if self.eat("/") {
                '/'
            } else {
                return Ok(e);
            };
            e = Expr::Bin(op, Box::new(e), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> String {
        let start = self.i;
        while self.s.get(self.i).is_some_and(|&c| f(c)) {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    fn atom(&mut self) -> Result<Expr, String> {
        if self.eat("(") {
            let e = self.cmp()?;
            return self.expect(")").map(|_| e);
        }
        self.ws();
        let c = *self
            .s
            .get(self.i)
            .ok_or_else(|| format!("`{}`: unexpected end", self.text()))?;
        if c.is_ascii_digit() || c == b'.' {
            let n = self.take_while(|c| c.is_ascii_digit() || c == b'.');
            return n
                .parse()
                .map(Expr::Num)
                .map_err(|_| format!("`{}`: bad number `{n}`", self.text()));
        }
        let name = self.take_while(|c| c.is_ascii_alphanumeric() || c == b'_');
        if name.is_empty() {
            return Err(format!("`{}`: unexpected `{}`", self.text(), c as char));
        }
        if self.eat("(") {
            let mut args = vec![self.cmp()?];
            while self.eat(",") {
                args.push(self.cmp()?);
            }
            self.expect(")")?;
            return Ok(Expr::Call(name, args));
        }
        let mut sel = Vec::new();
        if self.eat("[") {
            loop {
                let k = self
                    .take_while(|c| c != b'=' && c != b']')
                    .trim()
                    .to_string();
                self.expect("=")?;
                let v = self
                    .take_while(|c| c != b',' && c != b']')
                    .trim()
                    .to_string();
                sel.push((k, v));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("]")?;
        }
        let stat = if self.eat(".") {
            self.take_while(|c| c.is_ascii_alphanumeric() || c == b'_')
        } else {
            "mean".into()
        };
        let known = [
            "mean", "ci95", "n", "dz", "p", "p_holm", "max", "min", "sum",
        ]
        .contains(&stat.as_str());
        if !known && crate::metrics::distributions::percentile_of(&stat).is_none() {
            return Err(format!(
                "`{}`: `.{stat}`: a value has .mean, .ci95 and .n, a paired difference also .dz, .p and .p_holm (a pooled metric also .max, .min, .sum, .pNN)",
                self.text()
            ));
        }
        Ok(Expr::Ref(Ref { name, sel, stat }))
    }

    fn expect(&mut self, tok: &str) -> Result<(), String> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(format!("`{}`: expected `{tok}`", self.text()))
        }
    }
}

/// Evaluates `e` in `env`.
pub fn eval(e: &Expr, env: &dyn Env) -> Result<f64, String> {
    Ok(match e {
        Expr::Num(v) => *v,
        Expr::Ref(r) => env.lookup(r)?,
        Expr::Neg(a) => -eval(a, env)?,
        Expr::Bin(op, a, b) => {
            let (a, b) = (eval(a, env)?, eval(b, env)?);
            match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                _ => a / b,
            }
        }
        Expr::Cmp(op, a, b) => {
            let (a, b) = (eval(a, env)?, eval(b, env)?);
            let holds = match *op {
                ">=" => a >= b,
                "<=" => a <= b,
                ">" => a > b,
                "<" => a < b,
                _ => a == b,
            };
            f64::from(u8::from(holds))
        }
        Expr::Call(f, args) => call(f, args, env)?,
    })
}

fn call(f: &str, args: &[Expr], env: &dyn Env) -> Result<f64, String> {
    if let Some(v) = super::over_axis::call(f, args, env, eval) {
        return v;
    }
    if f == "sum" {
        return match args {
            [Expr::Ref(r)] => env.sum(r),
            _ => Err("sum(...) takes one value reference".into()),
        };
    }
    if f == "count" {
        return super::count::count(args, env, eval);
    }
    if f == "ceil" || f == "floor" {
        let [a] = args else {
            return Err(format!("{f}(...) takes one argument"));
        };
        let v = eval(a, env)?;
        return Ok(if f == "ceil" { v.ceil() } else { v.floor() });
    }
    let fold: fn(f64, f64) -> f64 = match f {
        "max" => f64::max,
        "min" => f64::min,
        _ => {
            return Err(format!(
                "unknown function `{f}` (known: max, min, sum, count, ceil, floor, max_over, argmax_over)"
            ))
        }
    };
    let mut vals = args.iter().map(|a| eval(a, env));
    let first = vals.next().unwrap_or(Ok(f64::NAN))?;
    vals.try_fold(first, |acc, v| v.map(|v| fold(acc, v)))
}

/// Replaces every `{expr}` or `{expr:fmt}` of `text` by its value; `fmt` is `.N` (N
/// decimals; the default is Rust's shortest form) or `±N` (mean ± 95% half-width with
/// N decimals, the half-width left out when undefined). `{{` and `}}` are braces.
pub fn render(text: &str, env: &dyn Env) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let (c, after) = (rest.as_bytes()[i], &rest[i + 1..]);
        if after.as_bytes().first() == Some(&c) {
            out.push(c as char);
            rest = &after[1..];
            continue;
        }
        if c == b'}' {
            return Err(format!("unmatched `}}` in `{text}`"));
        }
        let end = after
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{text}`"))?;
        placeholder(&mut out, &after[..end], env)?;
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn placeholder(out: &mut String, p: &str, env: &dyn Env) -> Result<(), String> {
    let (expr, fmt) = match p.rsplit_once(':') {
        Some((e, f)) => (e, f.trim()),
        None => (p, ""),
    };
    let e = parse(expr)?;
    let v = eval(&e, env)?;
    if let Some(d) = fmt.strip_prefix('±') {
        let d: usize = d.parse().map_err(|_| format!("`{p}`: bad format"))?;
        let Expr::Ref(r) = &e else {
            return Err(format!("`{p}`: ± needs a value reference"));
        };
        let ci = env.lookup(&Ref {
            stat: "ci95".into(),
            ..r.clone()
        })?;
        let _ = if ci.is_finite() {
            write!(out, "{v:.d$} ± {ci:.d$}")
        } else {
            write!(out, "{v:.d$}")
        };
    } else if let Some(d) = fmt.strip_prefix('.') {
        let d: usize = d.parse().map_err(|_| format!("`{p}`: bad format"))?;
        let _ = write!(out, "{v:.d$}");
    } else if let Some(d) = fmt.strip_prefix("+.") {
        // Signed: a change quoted beside the paper's shows its direction.
        let d: usize = d.parse().map_err(|_| format!("`{p}`: bad format"))?;
        let _ = write!(out, "{v:+.d$}");
    } else if fmt.is_empty() {
        let _ = write!(out, "{v}");
    } else {
        return Err(format!("`{p}`: format `{fmt}` is neither .N, +.N nor ±N"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x[k=a]` is 2, `x[k=b]` is NaN, `y` is 10 (ci95 1), `sum(x)` is 5.
    struct Fixed;
    impl Env for Fixed {
        fn lookup(&self, r: &Ref) -> Result<f64, String> {
            match (r.name.as_str(), r.sel.first().map(|(_, v)| v.as_str())) {
                ("x", Some("a")) => Ok(2.0),
                ("x", Some("b")) => Ok(f64::NAN),
                ("y", None) if r.stat == "ci95" => Ok(1.0),
                ("y", None) => Ok(10.0),
                _ => Err(format!("no `{}`", r.name)),
            }
        }
        fn sum(&self, _: &Ref) -> Result<f64, String> {
            Ok(5.0)
        }
    }

    fn ev(s: &str) -> f64 {
        eval(&parse(s).unwrap(), &Fixed).unwrap()
    }

    #[test]
    fn arithmetic_follows_precedence_and_max_lets_nan_give_way() {
        assert_eq!(ev("1 + 2 * 3"), 7.0);
        assert_eq!(ev("(1 + 2) * 3 - -1"), 10.0);
        assert_eq!(ev("0.5 * max(x[k=a], x[k=b], 0)"), 1.0);
        assert_eq!(ev("min(y, x[k=a]) / sum(x[k=a])"), 0.4);
        assert_eq!(ev("max(1, ceil(y / 50))"), 1.0);
        assert_eq!(ev("ceil(y * 10 / 50) + floor(2.5)"), 4.0);
    }

    #[test]
    fn comparisons_are_false_on_nan() {
        assert_eq!(ev("x[k=a] >= 2"), 1.0);
        assert_eq!(ev("x[k=a] > 2"), 0.0);
        assert_eq!(ev("x[k=b] >= 0"), 0.0);
        assert_eq!(ev("x[k=b] < 0"), 0.0);
    }

    #[test]
    fn selectors_take_labels_with_dashes_and_stats() {
        let e = parse("inc[scheme=F-RTO, bw = 10].ci95").unwrap();
        assert_eq!(
            e,
            Expr::Ref(Ref {
                name: "inc".into(),
                sel: vec![
                    ("scheme".into(), "F-RTO".into()),
                    ("bw".into(), "10".into())
                ],
                stat: "ci95".into(),
            })
        );
        assert!(parse("inc.median").is_err());
        let Expr::Ref(r) = parse("d[stack=quinn].p_holm").unwrap() else {
            panic!("a reference")
        };
        assert_eq!(r.stat, "p_holm");
        assert!(parse("1 +").is_err());
        assert!(parse("1 2").is_err());
    }

    #[test]
    fn templates_format_decimals_and_mean_with_ci() {
        let s = render("a {x[k=a]:.1}% {{b}} {y:±2} {sum(x[k=a]):.0}", &Fixed).unwrap();
        assert_eq!(s, "a 2.0% {b} 10.00 ± 1.00 5");
        assert!(render("{nope}", &Fixed).is_err());
        assert!(render("open {y", &Fixed).is_err());
    }

    #[test]
    fn a_signed_format_writes_the_direction_of_a_change() {
        let s = render("{x[k=a]:+.0} {0 - y:+.1}", &Fixed).unwrap();
        assert_eq!(s, "+2 -10.0");
    }
}
