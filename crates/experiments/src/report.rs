//! The reproduction report: each experiment contributes a [`Section`] of tables,
//! figures and comparisons with the paper's published values; [`render_markdown`]
//! and [`render_html`] lay them out for a reader to put beside the papers.

mod bibliography;
pub mod caption;
mod html;

use std::fmt::Write;
use std::path::PathBuf;

/// A table of strings with a header row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// A figure written as PNG and SVG (paths relative to the report's directory).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub title: String,
    pub png: PathBuf,
    pub svg: PathBuf,
}

/// One number of ours set beside the paper's.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub what: String,
    pub ours: f64,
    /// 95% confidence half-width of ours, when it is a mean over repetitions.
    pub ours_ci95: Option<f64>,
    pub paper: f64,
    pub unit: String,
}

impl Comparison {
    /// (ours - paper) / paper, in percent.
    pub fn difference_percent(&self) -> f64 {
        (self.ours - self.paper) / self.paper * 100.0
    }
}

/// A piece of a section.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Text(String),
    Table(Table),
    Figure(Figure),
    Comparisons(Vec<Comparison>),
}

/// One experiment's part of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: String,
    pub title: String,
    pub blocks: Vec<Block>,
}

/// The one rule by which reports write a number: no decimals from 100 up, two from 1,
/// three below (so every value keeps two or three significant digits); `-` for a value
/// that is not finite (callers that can meet one say why beside it, see
/// [`difference_text`]).
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// `mean ± ci unit` by [`number`] (the half-width left out when it is not finite).
pub fn number_ci(mean: f64, ci: Option<f64>, unit: &str) -> String {
    let s = match ci {
        Some(ci) if ci.is_finite() => format!("{} ± {}", number(mean), number(ci)),
        _ => number(mean),
    };
    if unit.is_empty() {
        s
    } else {
        format!("{s} {unit}")
    }
}

/// A signed percentage by [`number`]'s rule: `+5.13 %`.
pub fn signed_percent(p: f64) -> String {
    let sign = if p > 0.0 { "+" } else { "" };
    format!("{sign}{} %", number(p))
}

/// The difference column of the report: ours against the paper in percent, or, where a
/// percentage is undefined, what is known instead and why.
pub fn difference_text(c: &Comparison) -> String {
    if !c.ours.is_finite() {
        return "undefined: this run gives no value of ours (the quantity says when)".into();
    }
    if c.paper == 0.0 {
        return if c.ours == 0.0 {
            "none (both 0)".into()
        } else {
            let sign = if c.ours > 0.0 { "+" } else { "" };
            format!(
                "undefined in %: the paper's value is 0 (ours − paper = {sign}{})",
                number(c.ours)
            )
        };
    }
    signed_percent(c.difference_percent())
}

/// One table as Markdown (its title in bold above it).
pub fn table_to_markdown(t: &Table) -> String {
    let mut out = String::new();
    md_table(&mut out, t);
    out
}

fn md_table(out: &mut String, t: &Table) {
    if !t.title.is_empty() {
        let _ = writeln!(out, "**{}**\n", t.title);
    }
    let _ = writeln!(out, "| {} |", t.header.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(t.header.len()));
    for row in &t.rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

/// The comparison rows, in the report and in an experiment's table files (`table1.md`
/// ...) alike: what, ours (± CI), paper, and the difference by [`number`]'s rule, or,
/// where it is undefined, why ([`difference_text`]).
pub fn comparison_table(cs: &[Comparison]) -> Table {
    let header = ["quantity", "ours", "paper", "difference"]
        .map(String::from)
        .to_vec();
    let rows = cs
        .iter()
        .map(|c| {
            let ours = match c.ours_ci95 {
                Some(ci) if ci.is_finite() => {
                    format!("{} ± {} {}", number(c.ours), number(ci), c.unit)
                }
                _ => format!("{} {}", number(c.ours), c.unit),
            };
            vec![
                c.what.clone(),
                ours,
                format!("{} {}", number(c.paper), c.unit),
                difference_text(c),
            ]
        })
        .collect();
    Table {
        title: "Ours beside the paper's published values".into(),
        header,
        rows,
    }
}

/// Whether a table cell holds an undefined number (`NaN`, `inf`) where a value belongs.
pub fn undefined_cell(cell: &str) -> bool {
    cell.split(|c: char| c.is_whitespace() || c == '%' || c == '(' || c == ')')
        .any(|w| matches!(w.trim_start_matches(['+', '-']), "NaN" | "inf"))
}

/// `t` with each undefined cell ([`undefined_cell`]) written `n/a`, and the note that
/// says why under it (`None` when every cell has a value).
pub fn without_undefined(t: &Table) -> (Table, Option<String>) {
    let mut out = t.clone();
    let mut columns: Vec<&str> = Vec::new();
    for row in &mut out.rows {
        for (i, cell) in row.iter_mut().enumerate() {
            if undefined_cell(cell) {
                *cell = "n/a".into();
                let h = t.header.get(i).map_or("", String::as_str);
                if !columns.contains(&h) {
                    columns.push(h);
                }
            }
        }
    }
    let note = (!columns.is_empty()).then(|| {
        format!(
            "n/a ({}): no repetition of that row gives a value, so a mean is undefined \
             (the quantity does not exist there; the table's title says when it applies).",
            columns.join(", ")
        )
    });
    (out, note)
}

/// The whole report as Markdown; cited works are listed at its end (with link
/// definitions, so each `[Key Year]` is a link in any Markdown viewer).
pub fn render_markdown(title: &str, intro: &str, sections: &[Section]) -> String {
    let mut out = markdown_body(title, intro, sections);
    out.push_str(&bibliography::markdown_references(&out));
    out
}

/// The report as Markdown without its reference list.
fn markdown_body(title: &str, intro: &str, sections: &[Section]) -> String {
    let mut out = format!("# {title}\n\n{intro}\n\n");
    for s in sections {
        let _ = writeln!(out, "## {}\n", s.title);
        for b in &s.blocks {
            match b {
                Block::Text(t) => {
                    let _ = writeln!(out, "{t}\n");
                }
                Block::Table(t) => md_table_noted(&mut out, t),
                Block::Figure(f) => {
                    let _ = writeln!(out, "![{}]({})\n", f.title, f.png.display());
                }
                Block::Comparisons(cs) => md_table(&mut out, &comparison_table(cs)),
            }
        }
    }
    out
}

fn md_table_noted(out: &mut String, t: &Table) {
    let (t, note) = without_undefined(t);
    md_table(out, &t);
    if let Some(n) = note {
        let _ = writeln!(out, "{n}\n");
    }
}

pub use html::render_html;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn section() -> Section {
        let c = Comparison {
            what: "download time".into(),
            ours: 41.0,
            ours_ci95: Some(2.0),
            paper: 39.0,
            unit: "s".into(),
        };
        Section {
            name: "x".into(),
            title: "An experiment".into(),
            blocks: vec![
                Block::Text("Setup & <notes>".into()),
                Block::Comparisons(vec![c]),
            ],
        }
    }

    #[test]
    fn markdown_sets_ours_beside_the_paper_with_the_difference() {
        let md = render_markdown("Report", "intro", &[section()]);
        assert!(
            md.contains("| download time | 41.00 ± 2.00 s | 39.00 s | +5.13 % |"),
            "{md}"
        );
    }

    #[test]
    fn the_table_files_write_differences_by_the_report_rule_without_nan() {
        let t = comparison_table(&[cmp(41.0, 39.0), cmp(0.0, 0.0), cmp(3.0, 0.0)]);
        let md = table_to_markdown(&t);
        assert_eq!(t.rows[0][3], "+5.13 %");
        assert!(t.rows[2][3].starts_with("undefined in %"), "{md}");
        assert!(!md.contains("NaN") && !md.contains("inf"), "{md}");
    }

    fn cmp(ours: f64, paper: f64) -> Comparison {
        Comparison {
            what: "q".into(),
            ours,
            ours_ci95: None,
            paper,
            unit: String::new(),
        }
    }

    #[test]
    fn an_undefined_difference_says_why_instead_of_nan() {
        assert_eq!(difference_text(&cmp(0.0, 0.0)), "none (both 0)");
        assert!(difference_text(&cmp(0.03, 0.0)).contains("the paper's value is 0"));
        assert!(difference_text(&cmp(f64::NAN, 70.0)).starts_with("undefined: "));
        let md = render_markdown(
            "R",
            "i",
            &[Section {
                name: "s".into(),
                title: "S".into(),
                blocks: vec![Block::Comparisons(vec![cmp(f64::NAN, 70.0), cmp(0.0, 0.0)])],
            }],
        );
        assert!(!md.contains("NaN"), "{md}");
    }

    #[test]
    fn a_nan_cell_becomes_n_a_with_a_note_naming_its_column() {
        let t = Table {
            title: "t".into(),
            header: vec!["row".into(), "W_95".into()],
            rows: vec![
                vec!["a".into(), "NaN".into()],
                vec!["b".into(), "1.0 ± 0.1".into()],
            ],
        };
        let (t, note) = without_undefined(&t);
        assert_eq!(t.rows[0][1], "n/a");
        assert_eq!(t.rows[1][1], "1.0 ± 0.1");
        assert!(note.unwrap().starts_with("n/a (W_95): "));
        assert!(undefined_cell("-inf %") && !undefined_cell("Infinite"));
    }

    #[test]
    fn html_renders_prose_and_links_citations_to_the_references() {
        let mut s = section();
        s.blocks.push(Block::Text(
            "Restored *after* the spike, as in [Gurtov & Ludwig 2002].".into(),
        ));
        let html = render_html("Report", "intro", &[s], Path::new("."));
        assert!(html.contains("Setup &amp; &lt;notes&gt;"), "{html}");
        assert!(html.contains("<td class=\"num\">+5.13 %</td>"));
        assert!(html.contains("Restored <em>after</em> the spike"));
        assert!(html.contains("<a href=\"#ref-gurtov-ludwig-2002\""));
        assert!(html.contains("<li id=\"ref-gurtov-ludwig-2002\">"));
        assert!(!html.contains("ref-gurtov-ludwig-2003"));
    }

    #[test]
    fn numbers_follow_one_rule_of_magnitude() {
        assert_eq!(number(5105.4), "5105");
        assert_eq!(number(41.0), "41.00");
        assert_eq!(number(0.0123), "0.012");
        assert_eq!(number(f64::NAN), "-");
        assert_eq!(signed_percent(-2.5), "-2.50 %");
    }
}
