//! The one rule for the numbers advise prints, and the objective's name.

use super::Advice;

/// The decimals a value of magnitude `x` is shown with: 1 from 100 on, 2 from 1, else 3
/// (the one rule for every number advise prints).
fn digits(x: f64) -> usize {
    if x.abs() >= 100.0 {
        1
    } else if x.abs() >= 1.0 {
        2
    } else {
        3
    }
}

/// `x` by the one rule ("-" when undefined).
pub fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.d$}", d = digits(x))
    } else {
        "-".into()
    }
}

/// `mean ± ci` with digits suited to the magnitude.
pub fn mean_ci(mean: f64, ci: f64) -> String {
    if mean.is_nan() {
        return "-".into();
    }
    let d = digits(mean);
    if ci.is_finite() {
        format!("{mean:.d$} ± {ci:.d$}")
    } else {
        format!("{mean:.d$}")
    }
}

/// The objective in words.
pub fn objective_title(a: &Advice) -> &'static str {
    match a.objective {
        super::Objective::Time => "download time (s)",
        super::Objective::Goodput => "goodput",
        super::Objective::Retransmissions => "retransmissions",
    }
}
