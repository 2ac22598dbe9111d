//! Trace files referenced by scenario configurations, kept out of the sans-I/O types.
//!
//! A configuration names a trace by path ([`TraceRef`]); the parsers take `&str` and
//! report the line and the reason of the first problem ([`TraceError`]); the one
//! function here that touches the file system, [`load_link_traces`], reads every trace a
//! [`LinkConfig`] references and attaches the parsed data, or says which file and line
//! is wrong ([`TraceLoadError`]). The types live in the leaf module
//! [`trace_ref`](crate::trace_ref), which the parsers import.

use crate::config::{DirOverride, LinkConfig};
use crate::delay::DelayTrace;
use crate::delay_source::DelaySource;
use crate::service::{MahimahiTrace, ServiceConfig};
pub use crate::trace_ref::{TraceError, TraceLoadError, TraceRef};
use std::path::Path;

fn load_service(s: &mut ServiceConfig, base: &Path) -> Result<(), TraceLoadError> {
    match s {
        ServiceConfig::Mahimahi(m) => m.trace.load(base, MahimahiTrace::parse),
        ServiceConfig::Rate(_) | ServiceConfig::Wcdma(_) => Ok(()),
    }
}

/// Loads a delay-trace file, or generates a generated one.
fn load_delay(d: Option<&mut DelaySource>, base: &Path) -> Result<(), TraceLoadError> {
    match d {
        Some(DelaySource::File(t)) => t.load(base, DelayTrace::parse),
        Some(DelaySource::Per10ms(t)) => t.load(base, DelayTrace::parse_per_10ms),
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
    load_delay(o.delay_trace.as_deref_mut(), base)?;
    Ok(())
}

/// Reads and parses every trace `cfg` references (Mahimahi delivery traces and one-way
/// delay traces), resolving relative paths against `base` (usually the scenario file's
/// directory), and generates the generated delay traces.
pub fn load_link_traces(cfg: &mut LinkConfig, base: &Path) -> Result<(), TraceLoadError> {
    load_service(&mut cfg.service, base)?;
    load_delay(cfg.delay_trace.as_deref_mut(), base)?;
    for o in [&mut cfg.forward, &mut cfg.reverse] {
        // Not through `DerefMut`, which would box an absent override.
        if let Some(o) = o.get_mut() {
            load_override(o, base)?;
        }
    }
    Ok(())
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
