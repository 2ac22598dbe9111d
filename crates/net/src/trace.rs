//! Trace files referenced by scenario configurations, kept out of the sans-I/O types.
//!
//! A configuration names a trace by path ([`TraceRef`]); the parsers take `&str` and
//! report the line and the reason of the first problem ([`TraceError`]); the one
//! function here that touches the file system, [`load_link_traces`], reads every trace a
//! [`LinkConfig`] references and attaches the parsed data, or says which file and line
//! is wrong ([`TraceLoadError`]).

use crate::config::{DirOverride, LinkConfig};
use crate::delay::DelayTrace;
use crate::delay_source::DelaySource;
use crate::service::{MahimahiTrace, ServiceConfig};
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
    /// The parsed trace; panics with the path if [`load_link_traces`] was not called.
    pub fn loaded(&self) -> &Arc<T> {
        self.data.as_ref().unwrap_or_else(|| {
            panic!(
                "trace {} was not loaded: call spikelab_net::trace::load_link_traces first",
                self.path.display()
            )
        })
    }
    fn load(
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

fn load_service(s: &mut ServiceConfig, base: &Path) -> Result<(), TraceLoadError> {
    match s {
        ServiceConfig::Mahimahi(m) => m.trace.load(base, MahimahiTrace::parse),
        ServiceConfig::Rate(_) | ServiceConfig::Wcdma(_) => Ok(()),
    }
}

/// Loads a delay-trace file, or generates a generated one.
fn load_delay(d: &mut Option<DelaySource>, base: &Path) -> Result<(), TraceLoadError> {
    match d {
        Some(DelaySource::File(t)) => t.load(base, DelayTrace::parse),
        Some(DelaySource::Generated(g)) => {
            g.materialise();
            Ok(())
        }
        None => Ok(()),
    }
}

fn load_override(o: &mut DirOverride, base: &Path) -> Result<(), TraceLoadError> {
    if let Some(s) = &mut o.service {
        load_service(s, base)?;
    }
    load_delay(&mut o.delay_trace, base)?;
    Ok(())
}

/// Reads and parses every trace `cfg` references (Mahimahi delivery traces and one-way
/// delay traces), resolving relative paths against `base` (usually the scenario file's
/// directory), and generates the generated delay traces.
pub fn load_link_traces(cfg: &mut LinkConfig, base: &Path) -> Result<(), TraceLoadError> {
    load_service(&mut cfg.service, base)?;
    load_delay(&mut cfg.delay_trace, base)?;
    load_override(&mut cfg.forward, base)?;
    load_override(&mut cfg.reverse, base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loading_a_missing_file_names_the_path() {
        let mut cfg: LinkConfig = toml::from_str(
            r#"name = "lte"
               rate = "10Mbit/s"
               latency = "20ms"
               service = { kind = "mahimahi", trace = "no-such-file.down" }"#,
        )
        .unwrap();
        let e = load_link_traces(&mut cfg, Path::new("/nonexistent-dir")).unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent-dir/no-such-file.down"),
            "{e}"
        );
    }

    #[test]
    fn loading_a_bad_file_names_the_path_line_and_reason() {
        let dir = std::env::temp_dir().join(format!("spikelab-net-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.down"), "1\n2\nx3\n").unwrap();
        let mut cfg: LinkConfig = toml::from_str(
            r#"name = "lte"
               rate = "10Mbit/s"
               latency = "20ms"
               reverse = { service = { kind = "mahimahi", trace = "bad.down" } }"#,
        )
        .unwrap();
        let e = load_link_traces(&mut cfg, &dir).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(e.contains("bad.down: line 3: `x3`"), "{e}");
    }

    #[test]
    fn loading_a_good_file_attaches_the_data() {
        let dir = std::env::temp_dir().join(format!("spikelab-net-ok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ok.down"), "0\n5\n5\n10\n").unwrap();
        std::fs::write(dir.join("d.csv"), "0,10ms\n1,20ms\n").unwrap();
        let mut cfg: LinkConfig = toml::from_str(
            r#"name = "lte"
               rate = "10Mbit/s"
               latency = "20ms"
               delay_trace = "d.csv"
               service = { kind = "mahimahi", trace = "ok.down" }"#,
        )
        .unwrap();
        load_link_traces(&mut cfg, &dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        match &cfg.service {
            ServiceConfig::Mahimahi(m) => assert_eq!(m.trace.loaded().len(), 4),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            cfg.delay_trace.as_ref().unwrap().loaded().last_time().0,
            1_000_000_000
        );
    }
}
