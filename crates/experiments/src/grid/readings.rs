//! Readings and findings as data: the inputs a paper leaves unstated, each with its
//! named readings, and the findings the paper states, each a machine-checkable
//! statement over a grid's metrics (`spikelab reproduce NAME --readings`).
//!
//! ```toml
//! reading_plan = "one-at-a-time"        # or "all-combinations" (every combination)
//!
//! [[reading]]
//! input = "freeze semantics"            # the unstated input
//! source = "[Gurtov & Ludwig 2003] IV.A"
//! quote = "suspends transmission in both directions simultaneously"
//! default = "held"                      # the option the file's grids already run
//! rule = "the reading most consistent with the paper's published Table 1"
//! grids = ["table2"]                    # where it applies (default: every grid read)
//! [[reading.option]]
//! name = "held"
//! set = {}                              # the file's own configuration
//! [[reading.option]]
//! name = "delivered-dropped"
//! set = { "link.1.spikes.0.wire" = "delivered", "link.1.spikes.0.arrivals" = "dropped" }
//!
//! [[finding]]
//! name = "fack-43"
//! source = "[Gurtov & Ludwig 2003] IV.B"
//! quote = "FACK with Eifel achieves 43% reduction in download time over Reno-SACK"
//! grid = "table2"
//! measure = "time[tcp=fack, eifel=on] / time[tcp=reno-sack, eifel=off]"
//! holds = "<= 0.57"                     # or ">= x", "< x", "> x", "in [a, b]"
//! ```
//!
//! A finding's `measure` is evaluated repetition by repetition (every reference a cell's
//! metric in that repetition, so the cells it compares ran with the same seed and the
//! same spikes) and reduced to a mean with its 95% half-width: a paired confidence
//! interval. The finding holds under a reading when the mean satisfies `holds`; the
//! verdict is *firm* when no boundary of `holds` lies inside the interval.
//!
//! The default option of every reading sets nothing the file's grids do not already
//! run (checked), so the default column of the matrix is the reproduction itself; the
//! rule that chose it is written in the file, before looking at the effect.

use serde::Deserialize;

/// How `--readings` combines the readings of a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadingPlan {
    /// The default, then each reading's other options one at a time, every other
    /// reading at its default.
    #[default]
    OneAtATime,
    /// Every combination of every reading's options (the file says it is cheap enough).
    AllCombinations,
}

/// One named reading of an unstated input: the configuration it sets.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadingOption {
    pub name: String,
    /// Overrides applied to every cell of the grids the reading applies to (dotted
    /// paths, as a grid's `set`).
    #[serde(default)]
    pub set: toml::Table,
    /// What this reading means, in a sentence.
    #[serde(default)]
    pub note: String,
}

/// An input the paper does not state, the sentence it interprets, and its readings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadingSpec {
    pub input: String,
    /// Where the sentence is (paper and section).
    pub source: String,
    /// The paper's sentence this input interprets.
    pub quote: String,
    /// The option the file's own grids run.
    pub default: String,
    /// The rule that chose the default, written before looking at the effect.
    pub rule: String,
    /// The grids it applies to; empty: every grid a finding reads.
    #[serde(default)]
    pub grids: Vec<String>,
    pub option: Vec<ReadingOption>,
}

impl ReadingSpec {
    /// The index of the default option.
    pub fn default_index(&self) -> usize {
        self.option
            .iter()
            .position(|o| o.name == self.default)
            .unwrap_or(0)
    }

    /// Whether it applies to grid `grid`.
    pub fn applies_to(&self, grid: &str) -> bool {
        self.grids.is_empty() || self.grids.iter().any(|g| g == grid)
    }
}

/// A finding the paper states (a published cell or a quoted claim), as a statement
/// over one grid's metrics.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindingSpec {
    pub name: String,
    /// Where the paper states it (table or section).
    pub source: String,
    /// Its words (or the published cell).
    pub quote: String,
    pub grid: String,
    /// An expression of the grid's values (each a plain mean of one metric) or
    /// metrics, evaluated per repetition.
    pub measure: String,
    /// The condition on the measure: `>= x`, `<= x`, `> x`, `< x` or `in [a, b]`.
    pub holds: String,
    /// How the measure reads, e.g. "FACK+Eifel / Reno-SACK download time".
    #[serde(default)]
    pub reads: String,
}

/// A condition of a comparison's bound.
type MakeCondition = fn(f64) -> Condition;

/// A finding's condition on its measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Condition {
    AtLeast(f64),
    AtMost(f64),
    Above(f64),
    Below(f64),
    Within(f64, f64),
}

impl Condition {
    /// Parses `>= x`, `<= x`, `> x`, `< x` or `in [a, b]` (a <= b).
    pub fn parse(text: &str) -> Result<Condition, String> {
        let t = text.trim();
        let num = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("`{text}`: `{}` is not a number", s.trim()))
        };
        if let Some(range) = t.strip_prefix("in") {
            let inner = range
                .trim()
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'));
            let (a, b) = inner
                .and_then(|r| r.split_once(','))
                .ok_or_else(|| format!("`{text}`: a range is written `in [a, b]`"))?;
            let (a, b) = (num(a)?, num(b)?);
            if a > b {
                return Err(format!("`{text}`: the range's ends are reversed"));
            }
            return Ok(Condition::Within(a, b));
        }
        let ops: [(&str, MakeCondition); 4] = [
            (">=", Condition::AtLeast),
            ("<=", Condition::AtMost),
            (">", Condition::Above),
            ("<", Condition::Below),
        ];
        for (op, make) in ops {
            if let Some(x) = t.strip_prefix(op) {
                return Ok(make(num(x)?));
            }
        }
        Err(format!(
            "`{text}`: write `>= x`, `<= x`, `> x`, `< x` or `in [a, b]`"
        ))
    }

    /// Whether `x` satisfies it (NaN satisfies nothing).
    pub fn holds(self, x: f64) -> bool {
        match self {
            Condition::AtLeast(b) => x >= b,
            Condition::AtMost(b) => x <= b,
            Condition::Above(b) => x > b,
            Condition::Below(b) => x < b,
            Condition::Within(a, b) => x >= a && x <= b,
        }
    }

    /// Its boundaries.
    fn bounds(self) -> Vec<f64> {
        match self {
            Condition::AtLeast(b)
            | Condition::AtMost(b)
            | Condition::Above(b)
            | Condition::Below(b) => vec![b],
            Condition::Within(a, b) => vec![a, b],
        }
    }
}

/// A finding under one reading: the measure's paired mean and half-width, and whether
/// the condition holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub mean: f64,
    pub ci95: f64,
    pub n: usize,
    pub holds: bool,
    /// No boundary of the condition inside mean ± ci95 (a single repetition is never
    /// firm).
    pub firm: bool,
}

impl Verdict {
    /// The verdict of `cond` on a measure's per-repetition values `xs` (finite ones).
    pub fn of(cond: Condition, mean: f64, ci95: f64, n: usize) -> Verdict {
        let (lo, hi) = (mean - ci95, mean + ci95);
        let firm = ci95.is_finite() && !cond.bounds().iter().any(|&b| b >= lo && b <= hi);
        Verdict {
            mean,
            ci95,
            n,
            holds: cond.holds(mean),
            firm,
        }
    }

    /// The matrix cell: `holds 2.41 ± 0.31`, `fails 0.93 ± 0.10`, `?` after the word
    /// when the interval crosses a boundary.
    pub fn cell(&self) -> String {
        if self.n == 0 {
            return "no runs".into();
        }
        let word = if self.holds { "holds" } else { "fails" };
        let mark = if self.firm { "" } else { "?" };
        let digits = if self.mean.abs() >= 100.0 {
            0
        } else if self.mean.abs() >= 1.0 {
            2
        } else {
            3
        };
        let ci = if self.ci95.is_finite() {
            format!(" ± {:.*}", digits, self.ci95)
        } else {
            String::new()
        };
        format!("{word}{mark} {:.*}{ci}", digits, self.mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_parse_every_form_and_refuse_others() {
        assert_eq!(Condition::parse("<= 0.57"), Ok(Condition::AtMost(0.57)));
        assert_eq!(Condition::parse(">=2"), Ok(Condition::AtLeast(2.0)));
        assert_eq!(Condition::parse("> 1"), Ok(Condition::Above(1.0)));
        assert_eq!(Condition::parse("< 1"), Ok(Condition::Below(1.0)));
        assert_eq!(
            Condition::parse("in [0.9, 1.1]"),
            Ok(Condition::Within(0.9, 1.1))
        );
        assert!(Condition::parse("in [2, 1]").is_err());
        assert!(Condition::parse("about 3").is_err());
        assert!(Condition::parse("<= x").is_err());
    }

    #[test]
    fn a_verdict_is_firm_only_when_its_interval_misses_every_boundary() {
        let c = Condition::AtMost(0.57);
        let firm = Verdict::of(c, 0.50, 0.05, 10);
        assert!(firm.holds && firm.firm);
        let straddles = Verdict::of(c, 0.55, 0.05, 10);
        assert!(straddles.holds && !straddles.firm);
        let fails = Verdict::of(c, 0.80, 0.05, 10);
        assert!(!fails.holds && fails.firm);
        let range = Verdict::of(Condition::Within(1.0, 2.0), 3.0, 2.5, 10);
        assert!(!range.holds && !range.firm);
        assert!(!Verdict::of(c, 0.5, f64::NAN, 1).firm);
    }

    #[test]
    fn a_matrix_cell_says_the_verdict_and_the_number() {
        let v = Verdict::of(Condition::AtLeast(2.0), 2.41, 0.31, 10);
        assert_eq!(v.cell(), "holds 2.41 ± 0.31");
        let v = Verdict::of(Condition::AtLeast(2.0), 1.9, 0.31, 10);
        assert_eq!(v.cell(), "fails? 1.90 ± 0.31");
    }
}
