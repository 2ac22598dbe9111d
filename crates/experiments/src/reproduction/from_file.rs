//! A reproduction entirely described by one built-in file under `experiments/`, with
//! the Rust blocks (layout items `rust:<name>`) its paper registers, if any.

use super::interface::Reproduction;
use crate::context::Context;
use crate::embedded;
use crate::grid::result::RustBlocks;
use crate::grid::run::{check_inputs, run_experiment};
use crate::grid::ExperimentSpec;
use crate::report::Section;
use anyhow::anyhow;

/// A reproduction defined by one experiment file.
pub struct FromFile {
    name: &'static str,
    title: &'static str,
    file: &'static str,
    rust_blocks: RustBlocks,
}

impl FromFile {
    /// The reproduction `name` (its command-line name and output folder), titled
    /// `title`, of the built-in `experiments/<file>`; its layout names no Rust block.
    pub const fn new(name: &'static str, title: &'static str, file: &'static str) -> FromFile {
        FromFile {
            name,
            title,
            file,
            rust_blocks: &[],
        }
    }

    /// The same, its layout items `rust:<name>` drawn by `blocks`.
    pub const fn with_rust_blocks(self, blocks: RustBlocks) -> FromFile {
        FromFile {
            rust_blocks: blocks,
            ..self
        }
    }

    /// The parsed experiment file, with its paper's Rust blocks.
    pub fn spec(&self) -> anyhow::Result<ExperimentSpec> {
        let text = embedded::experiment(self.file)
            .ok_or_else(|| anyhow!("no built-in experiment `{}`", self.file))?;
        let shown = format!("experiments/{}", self.file);
        let spec = ExperimentSpec::parse(text, &shown)?;
        Ok(spec.with_rust_blocks(self.rust_blocks, text, &shown)?)
    }
}

impl Reproduction for FromFile {
    fn name(&self) -> &'static str {
        self.name
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn run(&self, ctx: &Context) -> anyhow::Result<Section> {
        run_experiment(&self.spec()?, ctx)
    }
    /// Expands every grid over its scenario, which reads the scenario's files (a
    /// built-in path's delivery traces are read from the source tree).
    fn check(&self) -> anyhow::Result<()> {
        check_inputs(&self.spec()?)
    }
    fn run_readings(&self, ctx: &Context) -> anyhow::Result<Section> {
        crate::grid::readings_run::run_readings(&self.spec()?, ctx)
    }
}
