//! The interface every paper reproduction implements, and the registry that
//! `spikelab reproduce` runs.

use crate::report::Section;
use crate::runner::{Batch, Progress};
use std::path::{Path, PathBuf};

/// What a reproduction is given: where to write, how many repetitions, how many
/// threads, and where to report progress.
pub struct Context<'a> {
    /// The report's root directory (`--out`); figures are referenced relative to it.
    pub root: PathBuf,
    /// This reproduction's own directory, `root/<name>`.
    pub dir: PathBuf,
    /// Repetitions per cell (`--reps`).
    pub reps: u32,
    /// Base seed (`--seed`).
    pub seed: u64,
    /// Threads (`--jobs`).
    pub jobs: usize,
    /// Progress sink.
    pub progress: &'a dyn Progress,
}

impl Context<'_> {
    /// The runner settings of this context.
    pub fn batch(&self) -> Batch<'_> {
        Batch {
            reps: self.reps,
            seed: self.seed,
            jobs: self.jobs,
            progress: self.progress,
        }
    }

    /// `path` (inside `dir`) relative to the report's root, for links in the report.
    pub fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// One paper's reproduction.
pub trait Reproduction: Sync {
    /// The name used on the command line and as the output directory.
    fn name(&self) -> &'static str;
    /// The paper's title.
    fn title(&self) -> &'static str;
    /// Runs every experiment of the paper, writes CSV files and figures into
    /// `ctx.dir`, and returns the report's section.
    fn run(&self, ctx: &Context) -> anyhow::Result<Section>;
}

/// Every reproduction, in the order of the report.
pub fn registry() -> Vec<&'static dyn Reproduction> {
    vec![
        &crate::eifel::GPRS_EIFEL,
        &crate::eifel::EIFEL_RESPONSE,
        &crate::peak_hopper::PEAK_HOPPER,
        &crate::eifel::STD_PROXY,
        &crate::delay_injection::reproduction::DelayInjectionReproduction,
    ]
}

/// The reproduction called `name`.
pub fn find(name: &str) -> Option<&'static dyn Reproduction> {
    registry().into_iter().find(|r| r.name() == name)
}
