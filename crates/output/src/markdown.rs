//! Markdown prose as HTML, for the reports' pages (`report.html`, `advise.html`).
//!
//! The parsing is pulldown-cmark's (CommonMark with GitHub tables and strikethrough), not
//! ours: emphasis, code spans, links and lists follow the specification. Two things are
//! added on top of it:
//!
//! * **citations**: a bracketed key with no link definition, such as
//!   `[Gurtov & Ludwig 2002]`, is a CommonMark "broken" shortcut reference; [`Links::cite`]
//!   may turn it into a link (to the bibliography), else it stays text;
//! * **no raw HTML**: the prose is data written by people for Markdown readers, so a `<b>`
//!   or `<notes>` in it is shown as written, never interpreted by the browser.

/// The stylesheet of the reports' HTML pages (inlined: a report needs no other file).
pub const REPORT_CSS: &str = include_str!("../assets/report.css");

/// The script of the reports' HTML pages (inlined): hover values and legend toggles on
/// the inlined SVG figures, read from their own tick labels.
pub const REPORT_JS: &str = include_str!("../assets/report.js");

use pulldown_cmark::{html, BrokenLink, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// How the links of a piece of prose are resolved.
pub struct Links<'a> {
    /// The address of citation `key` (the text between the brackets), if it is one.
    pub cite: &'a dyn Fn(&str) -> Option<String>,
    /// Whether a written link to `url` stays a link (else only its text is kept: e.g. a
    /// link into the book, which the report's folder does not hold).
    pub keep: &'a dyn Fn(&str) -> bool,
}

impl Links<'_> {
    /// No citations resolved, every written link kept.
    pub const PLAIN: Links<'static> = Links {
        cite: &|_| None,
        keep: &|_| true,
    };
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// `md` as HTML blocks (paragraphs, lists, tables).
pub fn to_html(md: &str, links: &Links) -> String {
    let mut callback = |b: BrokenLink<'_>| {
        let key = b.reference.to_string();
        (links.cite)(&key).map(|url| (CowStr::from(url), CowStr::from(key)))
    };
    let parser = Parser::new_with_broken_link_callback(md, options(), Some(&mut callback));
    let mut dropped = 0usize;
    let events = parser.filter_map(|e| match e {
        Event::Html(s) | Event::InlineHtml(s) => Some(Event::Text(s)),
        Event::Start(Tag::Link {
            link_type,
            ref dest_url,
            ..
        }) if !is_citation(link_type) && !(links.keep)(dest_url) => {
            dropped += 1;
            None
        }
        Event::End(TagEnd::Link) if dropped > 0 => {
            dropped -= 1;
            None
        }
        e => Some(e),
    });
    let mut out = String::with_capacity(md.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// Shortcut references resolved by the callback (citations) are always kept.
fn is_citation(t: LinkType) -> bool {
    matches!(
        t,
        LinkType::ShortcutUnknown | LinkType::CollapsedUnknown | LinkType::ReferenceUnknown
    )
}

/// `md`, one line of prose (a caption, a title, a table cell), as inline HTML: no
/// paragraph around it.
pub fn inline_to_html(md: &str, links: &Links) -> String {
    let html = to_html(&without_block_marker(md), links);
    let t = html.trim_end();
    match t.strip_prefix("<p>").and_then(|t| t.strip_suffix("</p>")) {
        Some(inner) if !inner.contains("<p>") => inner.to_string(),
        _ => t.to_string(),
    }
}

/// `md` with a leading block marker escaped, so that one line stays inline text: a
/// table cell `-` (no value) is not a list item, `1.` not an ordered list, `# 3` not a
/// heading (CommonMark: a backslash before ASCII punctuation is that character).
fn without_block_marker(md: &str) -> std::borrow::Cow<'_, str> {
    let t = md.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let after = |i: usize| t[i..].chars().next().is_none_or(char::is_whitespace);
    let at = if t.starts_with(['-', '+', '*', '#', '>', '=', '|', '_', '~']) {
        Some(0)
    } else if digits > 0 && t[digits..].starts_with(['.', ')']) && after(digits + 1) {
        Some(digits)
    } else {
        None
    };
    match at {
        Some(i) => {
            let lead = md.len() - t.len();
            let mut out = md[..lead + i].to_string();
            out.push('\\');
            out.push_str(&md[lead + i..]);
            std::borrow::Cow::Owned(out)
        }
        None => std::borrow::Cow::Borrowed(md),
    }
}

/// `s` with `&`, `<`, `>` and `"` escaped, for text and attribute values.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cite(key: &str) -> Option<String> {
        key.ends_with("2002").then(|| "#ref".to_string())
    }

    #[test]
    fn emphasis_and_code_become_tags() {
        let h = to_html("resumes *after* the `spike`", &Links::PLAIN);
        assert_eq!(h, "<p>resumes <em>after</em> the <code>spike</code></p>\n");
    }

    #[test]
    fn a_citation_key_links_to_its_entry() {
        let links = Links {
            cite: &cite,
            keep: &|_| true,
        };
        let h = inline_to_html("as in [Gurtov & Ludwig 2002].", &links);
        assert_eq!(
            h,
            "as in <a href=\"#ref\" title=\"Gurtov &amp; Ludwig 2002\">Gurtov &amp; Ludwig 2002</a>."
        );
    }

    #[test]
    fn an_unknown_bracket_stays_text() {
        let links = Links {
            cite: &cite,
            keep: &|_| true,
        };
        assert_eq!(inline_to_html("U[3, 15] s", &links), "U[3, 15] s");
    }

    #[test]
    fn raw_html_is_shown_not_interpreted() {
        let h = inline_to_html("Setup & <notes> <b>x</b>", &Links::PLAIN);
        assert_eq!(h, "Setup &amp; &lt;notes&gt; &lt;b&gt;x&lt;/b&gt;");
    }

    #[test]
    fn a_link_not_kept_leaves_its_text() {
        let links = Links {
            cite: &|_| None,
            keep: &|u| !u.ends_with(".md"),
        };
        let h = inline_to_html("see [the page](x.md) and [web](https://a.b/)", &links);
        assert_eq!(h, "see the page and <a href=\"https://a.b/\">web</a>");
    }

    #[test]
    fn a_line_that_looks_like_a_block_stays_inline_text() {
        for cell in [
            "-",
            "- x",
            "+",
            "1.",
            "2) b",
            "# 3",
            "> q",
            "-0.31 ± 1.3",
            "+0.72",
        ] {
            assert_eq!(inline_to_html(cell, &Links::PLAIN), escape(cell), "{cell}");
        }
        assert_eq!(inline_to_html("2.00 ± 0.00", &Links::PLAIN), "2.00 ± 0.00");
    }

    #[test]
    fn tables_render_as_tables() {
        let h = to_html("| a | b |\n|---|---|\n| 1 | 2 |\n", &Links::PLAIN);
        assert!(h.contains("<table>") && h.contains("<td>1</td>"), "{h}");
    }
}
