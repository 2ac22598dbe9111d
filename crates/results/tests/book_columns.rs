//! Every column of every table, every key of `meta.json` and every column of the trace
//! file has an entry on the book's output page, `docs/src/outputs.md`: a table row
//! starting with the backquoted name, under the section of its file. The names come
//! from the code that writes them (the row builders, `meta_json`, the trace header), so
//! a column added there and not documented fails here.

use spikelab_results::{builder, meta_json, Columns, RepOutcome, RunInfo, TABLES};
use std::path::PathBuf;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn page() -> String {
    std::fs::read_to_string(repo("docs/src/outputs.md")).expect("docs/src/outputs.md")
}

/// The text of the section whose `## ` heading contains `title`, up to the next `## `.
fn section<'p>(page: &'p str, title: &str) -> &'p str {
    let start = page
        .match_indices("\n## ")
        .map(|(i, _)| i + 1)
        .find(|&i| page[i..].lines().next().unwrap().contains(title))
        .unwrap_or_else(|| panic!("docs/src/outputs.md has no `## ` section for {title}"));
    let rest = &page[start + 3..];
    let end = rest.find("\n## ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

/// Names in `names` that have no row `| `name` |` in `text`.
fn undocumented<'n>(text: &str, names: impl IntoIterator<Item = &'n str>) -> Vec<String> {
    names
        .into_iter()
        .filter(|n| !text.contains(&format!("| `{n}` |")))
        .map(str::to_owned)
        .collect()
}

fn scenario() -> spikelab_scenario::Scenario {
    spikelab_scenario::load(repo("scenarios/quickstart.toml")).unwrap()
}

#[test]
fn every_column_of_every_table_has_an_entry_in_its_section() {
    let s = scenario();
    let page = page();
    let mut missing = Vec::new();
    for name in TABLES {
        let mut cols = Columns::default();
        builder::<Columns>(name).unwrap()(&mut cols, s.sim(), &[]).unwrap();
        assert!(cols.names.len() >= 5, "{name}: header not built");
        let text = section(&page, &format!("`{name}.csv`"));
        for col in undocumented(text, cols.names.iter().map(String::as_str)) {
            missing.push(format!("{name}.csv: {col}"));
        }
    }
    assert!(
        missing.is_empty(),
        "columns with no entry in docs/src/outputs.md: {missing:?}"
    );
}

#[test]
fn every_key_of_meta_json_has_an_entry() {
    let s = scenario();
    let r = spikelab_engine::run(s.sim(), 1).unwrap();
    let outcome = RepOutcome::from_result(0, 1, r);
    let text = meta_json(s.source(), s.record(), &RunInfo::new(1, 1), &[outcome]).unwrap();
    let meta: serde_json::Value = serde_json::from_str(&text).unwrap();
    let top: Vec<&str> = meta
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let rep: Vec<&str> = meta["repetitions"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert!(top.len() >= 8 && rep.len() >= 4, "meta.json not read");
    let page = page();
    let text = section(&page, "`meta.json`");
    let mut missing = undocumented(text, top);
    missing.extend(undocumented(text, rep));
    // The resolved scenario's parts are named in the prose of the section.
    for key in meta["scenario"].as_object().unwrap().keys() {
        if !text.contains(&format!("`{key}`")) {
            missing.push(format!("scenario.{key}"));
        }
    }
    assert!(
        missing.is_empty(),
        "meta.json keys with no entry in docs/src/outputs.md: {missing:?}"
    );
}

#[test]
fn every_column_of_the_trace_file_is_named_in_its_section() {
    let page = page();
    let text = section(&page, "`trace/rep<r>.csv`");
    let header = spikelab_output::csv::TRACE_HEADER;
    let documented = format!("`{}`", header.replace(',', ", "));
    assert!(
        text.contains(&documented),
        "docs/src/outputs.md's trace section must list the columns as {documented}"
    );
}

#[test]
fn a_missing_entry_is_reported() {
    let text = "| `rep` | index | x |\n| `seed` | - | y |";
    assert_eq!(undocumented(text, ["rep", "flow", "seed"]), vec!["flow"]);
    let page = "# t\n\n## `a.csv`\n| `x` |\n## `b.csv`\n| `y` |\n";
    assert_eq!(section(page, "`a.csv`"), "`a.csv`\n| `x` |\n");
    assert_eq!(section(page, "`b.csv`"), "`b.csv`\n| `y` |\n");
}
