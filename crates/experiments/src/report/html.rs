//! The report as one self-contained HTML page: prose rendered from Markdown
//! (pulldown-cmark, [`spikelab_output::markdown`]), citations linked to the reference
//! list at the end, SVG figures inlined, nothing fetched from a network.

use super::bibliography::{self, Entry};
use super::{comparison_table, without_undefined, Block, Figure, Section, Table};
use spikelab_output::markdown::{
    escape, inline_to_html, to_html, Links, REPORT_CSS as STYLE, REPORT_JS,
};
use std::fmt::Write;
use std::path::Path;

/// The page's links: citations to the reference list, links into the book dropped.
struct Page {
    works: Vec<Entry>,
}

impl Page {
    fn cite(&self, key: &str) -> Option<String> {
        self.works
            .iter()
            .find(|e| e.key == key)
            .map(|e| format!("#{}", bibliography::anchor(e)))
    }

    fn block(&self, md: &str) -> String {
        to_html(
            md,
            &Links {
                cite: &|k| self.cite(k),
                keep: &bibliography::keep_link,
            },
        )
    }

    fn inline(&self, md: &str) -> String {
        inline_to_html(
            md,
            &Links {
                cite: &|k| self.cite(k),
                keep: &bibliography::keep_link,
            },
        )
    }

    fn table(&self, out: &mut String, t: &Table) {
        let (t, note) = without_undefined(t);
        out.push_str("<div class=\"table\">");
        if !t.title.is_empty() {
            let _ = write!(out, "<p class=\"caption\">{}</p>", self.inline(&t.title));
        }
        out.push_str("<table><thead><tr>");
        for h in &t.header {
            let _ = write!(out, "<th>{}</th>", self.inline(h));
        }
        out.push_str("</tr></thead><tbody>");
        for row in &t.rows {
            out.push_str("<tr>");
            for c in row {
                let class = cell_class(c);
                let text = match class {
                    "num ci" => break_before_ci(c),
                    _ => c.clone(),
                };
                let _ = write!(out, "<td class=\"{class}\">{}</td>", self.inline(&text));
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
        if let Some(n) = note {
            let _ = write!(out, "<p class=\"note\">{}</p>", self.inline(&n));
        }
        out.push_str("</div>\n");
    }

    fn figure(&self, out: &mut String, f: &Figure, root: &Path) {
        let svg = std::fs::read_to_string(root.join(&f.svg)).ok();
        let body = match svg {
            Some(s) => strip_xml_prolog(&s).to_string(),
            None => format!(
                "<img src=\"{}\" alt=\"{}\">",
                escape(&f.png.display().to_string()),
                escape(&f.title)
            ),
        };
        let _ = writeln!(
            out,
            "<figure>{body}<figcaption>{} <span class=\"files\">(<a href=\"{png}\">PNG</a>, \
             <a href=\"{svg}\">SVG</a>)</span></figcaption></figure>",
            self.inline(&f.title),
            png = escape(&f.png.display().to_string()),
            svg = escape(&f.svg.display().to_string()),
        );
    }

    fn references(&self, out: &mut String) {
        if self.works.is_empty() {
            return;
        }
        out.push_str("<h2 id=\"references\">References</h2><ul class=\"references\">");
        for e in &self.works {
            let _ = write!(
                out,
                "<li id=\"{}\"><b class=\"key\">{}</b> {}</li>",
                bibliography::anchor(e),
                escape(&e.key),
                self.inline(&e.text)
            );
        }
        out.push_str("</ul>\n");
    }
}

/// A cell's layout: numbers right-aligned and kept on one line (`mean ± ci` may put its
/// `± ci` on a second line, so a wide table narrows before it must scroll), words
/// left-aligned, long text wrapped.
fn cell_class(c: &str) -> &'static str {
    let numeric = c.starts_with(|ch: char| ch.is_ascii_digit() || "+-−.".contains(ch))
        || c == "n/a"
        || c == "≈";
    match (numeric, c.chars().count() <= 28) {
        (true, _) if c.contains(" ± ") => "num ci",
        (true, _) => "num",
        (false, true) => "word",
        (false, false) => "text",
    }
}

/// `c` with every space made non-breaking but the one before each `±`, the one place a
/// `mean ± ci` cell ([`cell_class`] `ci`) may wrap.
fn break_before_ci(c: &str) -> String {
    c.split(" ± ")
        .map(|part| part.replace(' ', "\u{a0}"))
        .collect::<Vec<_>>()
        .join(" ±\u{a0}")
}

/// An SVG file's text without its `<?xml ...?>` line, to sit inside HTML.
fn strip_xml_prolog(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

/// The anchor of a section.
fn section_id(s: &Section) -> String {
    format!("sec-{}", s.name)
}

/// The whole report as one self-contained HTML page, the SVG figures inlined (read
/// from `root`, the folder the figures' paths are relative to).
pub fn render_html(title: &str, intro: &str, sections: &[Section], root: &Path) -> String {
    let page = Page {
        works: bibliography::cited(&super::markdown_body(title, intro, sections)),
    };
    let mut out = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><style>{STYLE}</style></head><body><main><h1>{t}</h1>{i}",
        t = escape(title),
        i = page.block(intro)
    );
    if sections.len() > 1 {
        out.push_str("<nav><p>Contents</p><ol>");
        for s in sections {
            let _ = write!(
                out,
                "<li><a href=\"#{}\">{}</a></li>",
                section_id(s),
                page.inline(&s.title)
            );
        }
        out.push_str("</ol></nav>\n");
    }
    for s in sections {
        let _ = writeln!(
            out,
            "<section id=\"{}\"><h2>{}</h2>",
            section_id(s),
            page.inline(&s.title)
        );
        for b in &s.blocks {
            match b {
                Block::Text(t) => out.push_str(&page.block(t)),
                Block::Table(t) => page.table(&mut out, t),
                Block::Figure(f) => page.figure(&mut out, f, root),
                Block::Comparisons(cs) => page.table(&mut out, &comparison_table(cs)),
            }
        }
        out.push_str("</section>\n");
    }
    page.references(&mut out);
    let _ = writeln!(out, "</main><script>{REPORT_JS}</script></body></html>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mean_with_its_interval_may_wrap_only_before_the_plus_minus() {
        assert_eq!(cell_class("4.09 ± 0.073 s"), "num ci");
        assert_eq!(cell_class("+5.13 %"), "num");
        assert_eq!(
            break_before_ci("4.09 ± 0.073 s"),
            "4.09 ±\u{a0}0.073\u{a0}s"
        );
    }
}
