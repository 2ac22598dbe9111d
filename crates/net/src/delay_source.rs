//! Where a link direction's extra one-way delay comes from: a `(time, delay)` trace
//! file (`delay_trace = "owd.csv"`, see [`crate::delay`]), a file of one delay per 10 ms
//! as LeoReplayer writes them (`delay_trace = { file = "delay_1.txt", format =
//! "leo-replayer" }`, [`DelayTrace::parse_per_10ms`]), or a trace generated from
//! parameters written in the scenario (`delay_trace = { generator = "ping-trace", seed
//! = 2003, ... }`), materialised by [`crate::load_link_traces`] once the
//! parameters are checked, and the same for the same parameters on every machine.
//!
//! Generators, one file each (the `generator` key names one):
//!
//! * `ping-trace`: [`crate::ping_trace::PingTrace`], a seeded synthetic ping trace (a
//!   uniform base RTT plus rare uniform spikes) laid out in time as a sequential
//!   pinger measured it ([Klein et al. 2004] IV's GPRS trace, which is not public).
//! * `leo-reconfiguration`: [`crate::leo_trace::LeoReconfiguration`], a LEO path's
//!   one-way delay that steps at every periodic reconfiguration (Starlink's 15 s).

use crate::delay::DelayTrace;
use crate::leo_trace::LeoReconfiguration;
use crate::ping_trace::PingTrace;
use crate::trace_ref::TraceRef;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A delay-trace generator and its parameters, tagged by `generator`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "generator", rename_all = "kebab-case")]
pub enum DelayGenerator {
    /// [`PingTrace`].
    PingTrace(PingTrace),
    /// [`LeoReconfiguration`].
    LeoReconfiguration(LeoReconfiguration),
}

impl DelayGenerator {
    /// What is wrong with the parameters, if anything.
    pub fn check(&self) -> Result<(), String> {
        match self {
            DelayGenerator::PingTrace(p) => p.check(),
            DelayGenerator::LeoReconfiguration(l) => l.check(),
        }
    }

    /// The trace the parameters make.
    pub fn generate(&self) -> DelayTrace {
        match self {
            DelayGenerator::PingTrace(p) => p.delay_trace(),
            DelayGenerator::LeoReconfiguration(l) => l.delay_trace(),
        }
    }
}

/// A direction's delay trace: a file, or generated. Written as a path string, as a
/// table with a `file` key (and a `format`), or as a table with a `generator` key.
#[derive(Clone, Debug, PartialEq)]
pub enum DelaySource {
    /// A trace file, loaded by [`crate::load_link_traces`].
    File(TraceRef<DelayTrace>),
    /// A file in LeoReplayer's one-delay-per-10-ms format, loaded by
    /// [`crate::load_link_traces`] with [`DelayTrace::parse_per_10ms`].
    Per10ms(TraceRef<DelayTrace>),
    /// A generated trace (materialised by [`crate::load_link_traces`] or
    /// [`DelaySource::generated`]).
    Generated(Generated),
}

/// A generator with the trace it made, once made.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The parameters.
    pub generator: DelayGenerator,
    trace: Option<Arc<DelayTrace>>,
}

impl Generated {
    /// Makes the trace if not made yet, or shares the one made for the same parameters
    /// a moment ago ([`recently_generated`]).
    pub fn materialise(&mut self) {
        if self.trace.is_none() {
            self.trace = Some(recently_generated(&self.generator));
        }
    }
}

/// How many generated traces [`recently_generated`] keeps.
const RECENT_TRACES: usize = 4;

/// The trace `generator` makes, shared with the last [`RECENT_TRACES`] traces generated
/// in this process. A reproduction parses one scenario per grid cell, each naming the
/// same generator: generating its trace anew for every cell was 15 % of the
/// instructions of `reproduce delay-injection --reps 1` (1 605 scenarios). The same
/// parameters always make the same trace (its random stream is seeded by them), so a
/// shared one is the one a new generation would give; which traces are kept changes no
/// result.
fn recently_generated(generator: &DelayGenerator) -> Arc<DelayTrace> {
    static RECENT: Mutex<Vec<(DelayGenerator, Arc<DelayTrace>)>> = Mutex::new(Vec::new());
    let lock = || {
        RECENT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    if let Some((_, t)) = lock().iter().find(|(g, _)| g == generator) {
        return Arc::clone(t);
    }
    let trace = Arc::new(generator.generate());
    let mut recent = lock();
    if recent.len() == RECENT_TRACES {
        recent.remove(0);
    }
    recent.push((*generator, Arc::clone(&trace)));
    trace
}

impl PartialEq for Generated {
    /// Equal parameters make equal traces.
    fn eq(&self, other: &Self) -> bool {
        self.generator == other.generator
    }
}

impl DelaySource {
    /// The trace of `generator`, generated now; the reason if its parameters are bad.
    pub fn generated(generator: DelayGenerator) -> Result<DelaySource, String> {
        generator.check()?;
        Ok(DelaySource::Generated(Generated {
            trace: Some(Arc::new(generator.generate())),
            generator,
        }))
    }

    /// A trace built in code, named `name`.
    pub fn with_data(name: &str, trace: DelayTrace) -> DelaySource {
        DelaySource::File(TraceRef::with_data(name, trace))
    }

    /// The trace; panics if a file was not loaded or a trace not generated.
    pub fn loaded(&self) -> &Arc<DelayTrace> {
        match self {
            DelaySource::File(t) | DelaySource::Per10ms(t) => t.loaded(),
            DelaySource::Generated(g) => g.trace.as_ref().unwrap_or_else(|| {
                panic!(
                    "delay trace {:?} was not generated: call spikelab_net::trace::load_link_traces first",
                    g.generator
                )
            }),
        }
    }
}

/// A trace file's format, the `format` of `delay_trace = { file = "…", format = "…" }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    /// `time,delay` points ([`DelayTrace::parse`]), as a bare path string.
    #[default]
    TimeDelay,
    /// One whole number of milliseconds per 10 ms ([`DelayTrace::parse_per_10ms`]).
    LeoReplayer,
}

/// `{ file = "…", format = "…" }`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTable {
    file: PathBuf,
    #[serde(default)]
    format: FileFormat,
}

impl FileTable {
    fn into_source(self) -> DelaySource {
        let t = TraceRef::new(self.file);
        match self.format {
            FileFormat::TimeDelay => DelaySource::File(t),
            FileFormat::LeoReplayer => DelaySource::Per10ms(t),
        }
    }
}

impl From<TraceRef<DelayTrace>> for DelaySource {
    fn from(t: TraceRef<DelayTrace>) -> Self {
        DelaySource::File(t)
    }
}

impl Serialize for DelaySource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DelaySource::File(t) => t.serialize(s),
            DelaySource::Per10ms(t) => FileTable {
                file: t.path.clone(),
                format: FileFormat::LeoReplayer,
            }
            .serialize(s),
            DelaySource::Generated(g) => g.generator.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for DelaySource {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DelaySource;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a trace file's path, or a table with a `file` or a `generator` key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DelaySource, E> {
                Ok(DelaySource::File(TraceRef::new(v)))
            }
            /// A file table, or a generator's parameters only: the scenario's range
            /// checks come first, then [`crate::load_link_traces`] generates the trace.
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DelaySource, A::Error> {
                let table = toml::Table::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let value = toml::Value::Table(table);
                if value.get("file").is_some() {
                    let file: FileTable = value.try_into().map_err(de::Error::custom)?;
                    return Ok(file.into_source());
                }
                let generator: DelayGenerator = value.try_into().map_err(de::Error::custom)?;
                Ok(DelaySource::Generated(Generated {
                    generator,
                    trace: None,
                }))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Dur;

    #[derive(Debug, Deserialize, Serialize)]
    struct Holder {
        delay_trace: DelaySource,
    }

    #[test]
    fn a_path_is_a_file_and_a_table_is_generated_once_materialised() {
        let h: Holder = toml::from_str("delay_trace = \"owd.csv\"").unwrap();
        assert!(
            matches!(&h.delay_trace, DelaySource::File(t) if t.path.to_str() == Some("owd.csv"))
        );
        let h: Holder = toml::from_str(
            "delay_trace = { generator = \"ping-trace\", seed = 2003, samples = 10000, \
             base = { min = \"60ms\", max = \"140ms\" }, spike_probability = 0.01, \
             spike = { min = \"100ms\", max = \"500ms\" } }",
        )
        .unwrap();
        let mut h = h;
        let DelaySource::Generated(g) = &mut h.delay_trace else {
            panic!("{h:?}")
        };
        assert!(g.trace.is_none());
        g.materialise();
        let want = PingTrace::default();
        assert_eq!(h.delay_trace.loaded().as_ref(), &want.delay_trace());
        let again: Holder = toml::from_str(&toml::to_string(&h).unwrap()).unwrap();
        assert_eq!(again.delay_trace, h.delay_trace);
        assert_eq!(
            h.delay_trace.loaded().delay_at(spikelab_core::Time::ZERO),
            Dur::from_nanos((want.samples_ms()[0] * 1e6).round() as u64)
        );
    }

    #[test]
    fn the_same_parameters_share_one_generated_trace_and_others_get_their_own() {
        let params = |seed| PingTrace {
            seed,
            ..PingTrace::default()
        };
        let made = |seed| {
            let mut g = Generated {
                generator: DelayGenerator::PingTrace(params(seed)),
                trace: None,
            };
            g.materialise();
            g.trace.expect("materialised")
        };
        let (a, b, other) = (made(77), made(77), made(78));
        assert!(Arc::ptr_eq(&a, &b), "made once for the same parameters");
        assert_eq!(a.as_ref(), &params(77).delay_trace());
        assert!(!Arc::ptr_eq(&a, &other));
        assert_eq!(other.as_ref(), &params(78).delay_trace());
        assert_ne!(a.as_ref(), other.as_ref());
        // Older traces leave the memo; a trace made anew equals the first.
        for seed in 1..=RECENT_TRACES as u64 {
            made(seed);
        }
        let again = made(77);
        assert!(!Arc::ptr_eq(&a, &again));
        assert_eq!(a.as_ref(), again.as_ref());
    }

    #[test]
    fn a_file_table_names_its_format_and_writes_back_as_it_was_read() {
        let h: Holder =
            toml::from_str("delay_trace = { file = \"delay_1.txt\", format = \"leo-replayer\" }")
                .unwrap();
        assert!(
            matches!(&h.delay_trace, DelaySource::Per10ms(t) if t.path.to_str() == Some("delay_1.txt"))
        );
        let again: Holder = toml::from_str(&toml::to_string(&h).unwrap()).unwrap();
        assert_eq!(again.delay_trace, h.delay_trace);
        let h: Holder = toml::from_str("delay_trace = { file = \"owd.csv\" }").unwrap();
        assert_eq!(h.delay_trace, DelaySource::File(TraceRef::new("owd.csv")));
        let e = toml::from_str::<Holder>("delay_trace = { file = \"d.txt\", format = \"pcap\" }")
            .unwrap_err();
        assert!(e.to_string().contains("pcap"), "{e}");
    }

    #[test]
    fn bad_generator_parameters_are_refused_with_the_reason() {
        let bad = PingTrace {
            samples: 0,
            ..PingTrace::default()
        };
        let e = DelaySource::generated(DelayGenerator::PingTrace(bad)).unwrap_err();
        assert!(e.contains("samples"), "{e}");
        let e = toml::from_str::<Holder>("delay_trace = { generator = \"nope\" }").unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }
}
