//! What a reproduction, and every experiment it runs, is given: where to write, how
//! many repetitions, how many threads, and where to report progress. A leaf: the grid
//! language and every paper read it, and it reads neither.

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
