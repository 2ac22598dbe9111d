//! The `layout` list checked when the file is read: every item names a block kind the
//! grid draws and, where the kind takes a name, a block the file defines (or, for
//! `rust:<name>`, a registered Rust block). A misspelt item is then a located error
//! before any simulation runs or any file is written, not a failure after the grids'
//! CSV files are on disk.

use spikelab_scenario::{FieldPath, Invalid};

use super::run::Grids;
use super::spec::ExperimentSpec;
use crate::context::Context;
use crate::report::Block;

/// A block computed in Rust from the run's context and the grids' results.
pub type RustBlock = fn(&Context, &Grids) -> anyhow::Result<Vec<Block>>;

/// The blocks computed in Rust where the grid cannot express them yet, by name: layout
/// item `rust:<name>`. The grid knows none: a paper registers its own
/// (`ExperimentSpec::with_rust_blocks`), and a user's file may name any paper's.
pub type RustBlocks = &'static [(&'static str, RustBlock)];

/// The block `name` of those `spec` was given.
pub fn rust_block(spec: &ExperimentSpec, name: &str) -> Option<RustBlock> {
    spec.rust_blocks
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
}

/// Checks that every `rust:<name>` layout item of `spec` names one of the Rust blocks
/// it was given.
pub fn check_rust(spec: &ExperimentSpec) -> Result<(), Invalid> {
    for (i, item) in spec.layout.iter().enumerate() {
        if let Some(name) = item.strip_prefix("rust:") {
            if rust_block(spec, name).is_none() {
                let known: Vec<&str> = spec.rust_blocks.iter().map(|(n, _)| *n).collect();
                return Err(Invalid::new(
                    FieldPath::root("layout").index(i),
                    format!(
                        "layout item `{item}`: no rust block `{name}` (known: {})",
                        known.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Checks every `layout` item of `spec`; a `rust:<name>` item is checked when the
/// file is given its Rust blocks ([`check_rust`]).
pub fn check(spec: &ExperimentSpec) -> Result<(), Invalid> {
    for (i, item) in spec.layout.iter().enumerate() {
        let at = FieldPath::root("layout").index(i);
        let (kind, name) = item.split_once(':').unwrap_or((item, ""));
        let defined = defined(spec, kind, name).ok_or_else(|| {
            Invalid::new(
                at.clone(),
                format!(
                    "unknown layout item kind `{kind}` in `{item}` (known: {})",
                    KINDS.join(", ")
                ),
            )
        })?;
        if !defined {
            return Err(Invalid::new(
                at,
                format!("layout item `{item}`: no {kind} `{name}` in this file"),
            ));
        }
    }
    Ok(())
}

/// The layout item kinds, as [`super::run::run_experiment`] draws them.
const KINDS: &[&str] = &[
    "notes",
    "thresholds",
    "table",
    "figure",
    "report_table",
    "chart",
    "text",
    "comparisons",
    "feed",
    "feed_comparisons",
    "text_table",
    "rust",
];

/// Whether block `name` of `kind` exists; `None` for an unknown kind.
fn defined(spec: &ExperimentSpec, kind: &str, name: &str) -> Option<bool> {
    Some(match kind {
        "notes" | "thresholds" => true,
        "table" => spec.table.iter().any(|t| t.file == name),
        "figure" => spec.figure.iter().any(|f| f.name == name),
        "report_table" => spec.report_table.iter().any(|t| t.name == name),
        "chart" => spec.chart.iter().any(|c| c.name == name),
        "text" => spec.text.iter().any(|t| t.name == name),
        "comparisons" => spec.comparison.iter().any(|c| c.block == name),
        "feed" | "feed_comparisons" => spec.feed.iter().any(|f| f.name == name),
        "text_table" => spec.text_table.iter().any(|t| t.name == name),
        "rust" => !name.is_empty(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::RustBlocks;
    use crate::grid::spec::ExperimentSpec;

    const BLOCKS: RustBlocks = &[("trace-mode", |_, _| Ok(vec![]))];

    fn text(layout: &str) -> String {
        format!(
            "name = \"t\"\ntitle = \"t\"\nscenario = \"gprs-eifel.toml\"\nflow = \"download\"\n\
             layout = {layout}\n[[grid]]\nname = \"g\"\n[[grid.axis]]\nname = \"a\"\n\
             values = [{{ label = \"x\" }}]\n[[chart]]\nname = \"c\"\ngrid = \"g\"\nkind = \"axis\"\n\
             title = \"t\"\nx_label = \"x\"\ny_label = \"y\"\nx = \"a\"\n\
             value = \"download_time_s\"\n"
        )
    }

    fn with_layout(layout: &str) -> Result<ExperimentSpec, String> {
        let text = text(layout);
        let spec = ExperimentSpec::parse(&text, "t.toml").map_err(|e| e.to_string())?;
        spec.with_rust_blocks(BLOCKS, &text, "t.toml")
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_layout_of_defined_blocks_is_accepted() {
        with_layout(r#"["notes", "chart:c", "rust:trace-mode"]"#).unwrap();
    }

    #[test]
    fn a_misspelt_block_name_is_a_located_error() {
        let e = with_layout(r#"["notes", "chart:cc"]"#).unwrap_err();
        assert!(e.starts_with("t.toml:5:"), "{e}");
        assert!(e.contains("no chart `cc`"), "{e}");
    }

    #[test]
    fn an_unknown_kind_is_refused_with_the_known_ones() {
        let e = with_layout(r#"["charts:c"]"#).unwrap_err();
        assert!(e.contains("unknown layout item kind `charts`"), "{e}");
    }

    #[test]
    fn a_rust_block_the_file_was_not_given_is_a_located_error() {
        let e = with_layout(r#"["rust:trace-mod"]"#).unwrap_err();
        assert!(e.starts_with("t.toml:5:"), "{e}");
        assert!(
            e.contains("no rust block `trace-mod` (known: trace-mode)"),
            "{e}"
        );
    }

    #[test]
    fn a_file_names_rust_blocks_only_once_given_them() {
        let text = text(r#"["rust:trace-mode"]"#);
        let spec = ExperimentSpec::parse(&text, "t.toml").unwrap();
        let e = spec.with_rust_blocks(&[], &text, "t.toml").unwrap_err();
        assert!(
            e.to_string()
                .contains("no rust block `trace-mode` (known: )"),
            "{e}"
        );
    }
}
