//! The reproduction report: each experiment contributes a [`Section`] of tables,
//! figures and comparisons with the paper's published values; [`render_markdown`]
//! and [`render_html`] lay them out for a reader to put beside the papers.

use std::fmt::Write;
use std::path::{Path, PathBuf};

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

fn fmt_num(v: f64) -> String {
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

/// The comparison rows as a table: what, ours (± CI), paper, difference.
pub fn comparison_table(cs: &[Comparison]) -> Table {
    let header = ["quantity", "ours", "paper", "difference"]
        .map(String::from)
        .to_vec();
    let rows = cs
        .iter()
        .map(|c| {
            let ours = match c.ours_ci95 {
                Some(ci) if ci.is_finite() => {
                    format!("{} ± {} {}", fmt_num(c.ours), fmt_num(ci), c.unit)
                }
                _ => format!("{} {}", fmt_num(c.ours), c.unit),
            };
            let diff = format!("{:+.0}%", c.difference_percent());
            vec![
                c.what.clone(),
                ours,
                format!("{} {}", fmt_num(c.paper), c.unit),
                diff,
            ]
        })
        .collect();
    Table {
        title: "Ours beside the paper's published values".into(),
        header,
        rows,
    }
}

/// The whole report as Markdown.
pub fn render_markdown(title: &str, intro: &str, sections: &[Section]) -> String {
    let mut out = format!("# {title}\n\n{intro}\n\n");
    for s in sections {
        let _ = writeln!(out, "## {}\n", s.title);
        for b in &s.blocks {
            match b {
                Block::Text(t) => {
                    let _ = writeln!(out, "{t}\n");
                }
                Block::Table(t) => md_table(&mut out, t),
                Block::Figure(f) => {
                    let _ = writeln!(out, "![{}]({})\n", f.title, f.png.display());
                }
                Block::Comparisons(cs) => md_table(&mut out, &comparison_table(cs)),
            }
        }
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn html_table(out: &mut String, t: &Table) {
    if !t.title.is_empty() {
        let _ = write!(out, "<p><b>{}</b></p>", escape(&t.title));
    }
    out.push_str("<table><tr>");
    for h in &t.header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr>");
    for row in &t.rows {
        out.push_str("<tr>");
        for c in row {
            let _ = write!(out, "<td>{}</td>", escape(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>\n");
}

/// The whole report as one self-contained HTML page, the SVG figures inlined.
pub fn render_html(title: &str, intro: &str, sections: &[Section], root: &Path) -> String {
    let mut out = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title><style>\
         body{{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}}\
         table{{border-collapse:collapse;margin:0.5em 0}}td,th{{border:1px solid #bbb;padding:2px 8px;text-align:right}}\
         svg{{max-width:100%;height:auto}}</style></head><body><h1>{t}</h1><p>{i}</p>\n",
        t = escape(title),
        i = escape(intro)
    );
    for s in sections {
        let _ = writeln!(out, "<h2>{}</h2>", escape(&s.title));
        for b in &s.blocks {
            match b {
                Block::Text(t) => {
                    let _ = writeln!(out, "<p>{}</p>", escape(t).replace("\n\n", "</p><p>"));
                }
                Block::Table(t) => html_table(&mut out, t),
                Block::Figure(f) => {
                    let svg = std::fs::read_to_string(root.join(&f.svg)).unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "<figure>{svg}<figcaption>{}</figcaption></figure>",
                        escape(&f.title)
                    );
                }
                Block::Comparisons(cs) => html_table(&mut out, &comparison_table(cs)),
            }
        }
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
            md.contains("| download time | 41.00 ± 2.00 s | 39.00 s | +5% |"),
            "{md}"
        );
    }

    #[test]
    fn html_escapes_text() {
        let html = render_html("Report", "intro", &[section()], Path::new("."));
        assert!(html.contains("Setup &amp; &lt;notes&gt;"));
        assert!(html.contains("<td>+5%</td>"));
    }
}
