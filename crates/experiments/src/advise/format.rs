//! The numbers advise prints, by the report's one rule ([`crate::report::number`]), and
//! the objective's name.

use super::Advice;

pub use crate::report::number;

/// `mean ± ci` by the report's one rule ([`number`]; "-" when the mean is undefined,
/// the half-width left out when it is).
pub fn mean_ci(mean: f64, ci: f64) -> String {
    if !mean.is_finite() {
        return "-".into();
    }
    crate::report::number_ci(mean, Some(ci), "")
}

/// A signed value by [`number`]'s rule (`+1.30`, `-0.412`).
pub fn signed(x: f64) -> String {
    let sign = if x > 0.0 { "+" } else { "" };
    format!("{sign}{}", number(x))
}

/// The objective in words.
pub fn objective_title(a: &Advice) -> &'static str {
    match a.objective {
        super::Objective::Time => "download time (s)",
        super::Objective::Goodput => "goodput",
        super::Objective::Retransmissions => "retransmissions",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advise_writes_numbers_as_the_report_does() {
        for (mean, ci) in [(1234.4, 12.34), (41.0, 2.0), (0.41234, 0.0021)] {
            assert_eq!(
                mean_ci(mean, ci),
                crate::report::number_ci(mean, Some(ci), "")
            );
        }
        assert_eq!(mean_ci(1234.4, 12.34), "1234 ± 12.34");
        assert_eq!(mean_ci(f64::NAN, 1.0), "-");
        assert_eq!(mean_ci(2.5, f64::NAN), "2.50");
    }

    #[test]
    fn a_signed_value_keeps_the_rule_and_shows_its_sign() {
        assert_eq!(signed(1.3), "+1.30");
        assert_eq!(signed(-0.4123), "-0.412");
        assert_eq!(signed(150.4), "+150");
    }
}
