//! The book's bibliography (docs/src/bibliography.md, the one list of cited works) as
//! the reports' reference list: a citation `[Gurtov & Ludwig 2002]` in a report's prose
//! links to its entry, and the works a report cites are listed at its end.

use std::fmt::Write;

/// The bibliography's source: each entry is a list item that opens with
/// `<a id="ID"></a>**[KEY]**` and runs until the next item or heading.
const SOURCE: &str = include_str!("../../../../docs/src/bibliography.md");

/// One work: its anchor, its key (the text between the brackets) and its description.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    pub key: String,
    pub text: String,
}

/// Every entry of the bibliography, in its order.
pub fn entries() -> Vec<Entry> {
    parse(SOURCE)
}

fn parse(src: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut open = false;
    for line in src.lines() {
        if let Some(e) = line.strip_prefix("- ").and_then(entry_head) {
            out.push(e);
            open = true;
        } else if open && line.starts_with("  ") {
            let e = out.last_mut().expect("an open entry");
            e.text.push(' ');
            e.text.push_str(line.trim());
        } else {
            open = false;
        }
    }
    out
}

/// `<a id="ID"></a>**[KEY]** text` as an entry.
fn entry_head(item: &str) -> Option<Entry> {
    let rest = item.strip_prefix("<a id=\"")?;
    let (id, rest) = rest.split_once("\"></a>**[")?;
    let (key, text) = rest.split_once("]**")?;
    Some(Entry {
        id: id.into(),
        key: key.into(),
        text: text.trim().into(),
    })
}

/// The anchor in a report of the entry with `key`.
pub fn anchor(e: &Entry) -> String {
    format!("ref-{}", e.id)
}

/// The entries `text` cites (`[KEY]`), in the bibliography's order.
pub fn cited(text: &str) -> Vec<Entry> {
    entries()
        .into_iter()
        .filter(|e| text.contains(&format!("[{}]", e.key)))
        .collect()
}

/// A link to the book's page of a reproduction is not in a report's folder: only its
/// text is kept.
pub fn keep_link(url: &str) -> bool {
    !(url.ends_with(".md") || url.contains(".md#") || url.starts_with('#'))
}

/// The references of a Markdown report: the cited entries, and a link definition per
/// key so that `[KEY]` in the report links to its entry.
pub fn markdown_references(report: &str) -> String {
    let works = cited(report);
    if works.is_empty() {
        return String::new();
    }
    let mut out = String::from("## References\n\n");
    for e in &works {
        let _ = writeln!(
            out,
            "- <a id=\"{}\"></a>**{}** {}",
            anchor(e),
            e.key,
            e.text
        );
    }
    out.push('\n');
    for e in &works {
        let _ = writeln!(out, "[{}]: #{}", e.key, anchor(e));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_of_the_book_has_an_id_a_key_and_a_text() {
        let es = entries();
        assert!(es.len() > 30, "{}", es.len());
        let e = es.iter().find(|e| e.key == "Gurtov & Ludwig 2002").unwrap();
        assert_eq!(e.id, "gurtov-ludwig-2002");
        assert!(e.text.contains("GPRS Network") && e.text.contains("Florence"));
    }

    #[test]
    fn only_cited_works_are_listed_with_link_definitions() {
        let refs = markdown_references("as [Gurtov & Ludwig 2003] shows");
        assert!(refs.contains("[Gurtov & Ludwig 2003]: #ref-gurtov-ludwig-2003"));
        assert!(!refs.contains("2002"), "{refs}");
    }
}
