//! The book's scenario page, `docs/src/scenario-reference.md`, shows
//! `scenarios/reference.toml` in full (mdBook's `{{#include}}`), so every key the schema
//! walk (`schema_walk.rs`) finds in the reference is on the page by construction; and it
//! has a section for every table of the reference.

use std::path::PathBuf;

fn repo(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The table headers of a TOML text, as written: `[run]`, `[[link]]`, `[flow.tcp]` ...
fn table_headers(toml: &str) -> Vec<String> {
    let mut out: Vec<String> = toml
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('['))
        .map(|l| l[..=l.find(']').unwrap() + usize::from(l.starts_with("[["))].to_owned())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_page_includes_the_whole_reference() {
    let page = repo("docs/src/scenario-reference.md");
    assert!(
        page.contains("{{#include ../../scenarios/reference.toml}}"),
        "docs/src/scenario-reference.md must include scenarios/reference.toml whole"
    );
}

#[test]
fn every_table_of_the_reference_has_a_section_on_the_page() {
    let page = repo("docs/src/scenario-reference.md");
    let headers = table_headers(&repo("scenarios/reference.toml"));
    assert!(headers.len() >= 8, "only {headers:?}: the scan is broken");
    let missing: Vec<&String> = headers
        .iter()
        .filter(|h| !page.contains(&format!("### `{h}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "tables of scenarios/reference.toml without a `### ` section in docs/src/scenario-reference.md: {missing:?}"
    );
}

#[test]
fn table_headers_are_read_as_written() {
    let toml = "[run]\nx = 1\n[[link]]\n[[link.spikes]] # c\n[flow.tcp]\n[[link]]\n";
    assert_eq!(
        table_headers(toml),
        ["[[link.spikes]]", "[[link]]", "[flow.tcp]", "[run]"]
    );
}
