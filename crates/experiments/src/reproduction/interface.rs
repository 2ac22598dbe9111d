//! The interface every paper's reproduction implements: a leaf below the papers and
//! the registry.

use crate::context::Context;
use crate::report::Section;

/// One paper's reproduction.
pub trait Reproduction: Sync {
    /// The name used on the command line and as the output directory.
    fn name(&self) -> &'static str;
    /// The paper's title.
    fn title(&self) -> &'static str;
    /// Runs every experiment of the paper, writes CSV files and figures into
    /// `ctx.dir`, and returns the report's section.
    fn run(&self, ctx: &Context) -> anyhow::Result<Section>;
    /// Reads every input its run reads (scenario files and the traces they name)
    /// without running anything, so that `reproduce` fails on a missing or bad file
    /// before any paper has run. The default: nothing beyond what `run` is given.
    fn check(&self) -> anyhow::Result<()> {
        Ok(())
    }
    /// Runs the paper's findings under each of its readings (`reproduce --readings`),
    /// writes `readings.csv` and `readings.md` into `ctx.dir`, and returns the
    /// section with the findings × readings matrix.
    fn run_readings(&self, ctx: &Context) -> anyhow::Result<Section> {
        let _ = ctx;
        Err(anyhow::anyhow!("{}: declares no readings", self.name()))
    }
}
