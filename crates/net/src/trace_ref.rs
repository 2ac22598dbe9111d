//! A trace named by path in a configuration ([`TraceRef`]) and why one does not load
//! ([`TraceError`], [`TraceLoadError`]): a leaf module, imported by the parsers of the
//! trace kinds and by [`load_link_traces`](crate::load_link_traces), which reads them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a trace text does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{reason}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct TraceError {
    /// 1-based line number, or None for a problem with the trace as a whole.
    pub line: Option<usize>,
    /// What is wrong.
    pub reason: String,
}

impl TraceError {
    /// A problem on line `line` (1-based).
    pub fn at(line: usize, reason: impl Into<String>) -> TraceError {
        TraceError {
            line: Some(line),
            reason: reason.into(),
        }
    }
    /// A problem with the whole trace.
    pub fn whole(reason: impl Into<String>) -> TraceError {
        TraceError {
            line: None,
            reason: reason.into(),
        }
    }
}

/// A trace file could not be read or parsed.
#[derive(Debug, thiserror::Error)]
pub enum TraceLoadError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file's contents are not a valid trace.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: TraceError,
    },
}

/// A trace named by path in a scenario (`trace = "traces/lte.down"`), with its parsed
/// contents once loaded. Serialises as the path alone.
#[derive(Clone)]
pub struct TraceRef<T> {
    /// The file, relative to the scenario's directory unless absolute.
    pub path: PathBuf,
    data: Option<Arc<T>>,
}

impl<T> TraceRef<T> {
    /// A reference to `path`, not loaded yet.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        TraceRef {
            path: path.into(),
            data: None,
        }
    }
    /// A reference already holding `data` (for traces built in code).
    pub fn with_data(path: impl Into<PathBuf>, data: T) -> Self {
        TraceRef {
            path: path.into(),
            data: Some(Arc::new(data)),
        }
    }
    /// The parsed trace, if loaded.
    pub fn data(&self) -> Option<&Arc<T>> {
        self.data.as_ref()
    }
    /// The parsed trace; panics with the path if
    /// [`load_link_traces`](crate::load_link_traces) was not called.
    pub fn loaded(&self) -> &Arc<T> {
        self.data.as_ref().unwrap_or_else(|| {
            panic!(
                "trace {} was not loaded: call spikelab_net::trace::load_link_traces first",
                self.path.display()
            )
        })
    }
    /// Reads `base`/[`Self::path`] and attaches what `parse` makes of it.
    pub(crate) fn load(
        &mut self,
        base: &Path,
        parse: fn(&str) -> Result<T, TraceError>,
    ) -> Result<(), TraceLoadError> {
        let path = base.join(&self.path);
        let text = std::fs::read_to_string(&path).map_err(|source| TraceLoadError::Io {
            path: path.clone(),
            source,
        })?;
        let data = parse(&text).map_err(|source| TraceLoadError::Parse { path, source })?;
        self.data = Some(Arc::new(data));
        Ok(())
    }
}

impl<T> fmt::Debug for TraceRef<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceRef")
            .field("path", &self.path)
            .field("loaded", &self.data.is_some())
            .finish()
    }
}

impl<T> PartialEq for TraceRef<T> {
    /// Two references are equal when they name the same file.
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl<T> Serialize for TraceRef<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.path.serialize(s)
    }
}

impl<'de, T> Deserialize<'de> for TraceRef<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PathBuf::deserialize(d).map(TraceRef::new)
    }
}
