//! spikelab-scenario: one TOML schema for scenario files.
//!
//! * [`schema`]: the tables and keys, with meaning, unit and default of each.
//! * [`load`] / [`parse`]: text to a checked [`Scenario`], or a one-line
//!   [`ScenarioError`] `FILE:LINE:COL: field `path`: why`.
//! * [`Scenario::to_sim`]: the engine's [`SimConfig`] (names resolved to indices,
//!   topology presets expanded, counted flows replicated).
//!
//! Loading runs in four steps, each reporting its own kind of mistake:
//!
//! 1. TOML syntax (toml_edit keeps the spans that give every later error its line);
//! 2. preparation ([`prepare`]): TCP profiles merged under the `tcp` keys, default names;
//! 3. deserialisation into [`ScenarioFile`] with `serde_path_to_error`, which names the
//!    field of a type error, unknown key, misspelt variant or bad unit;
//! 4. resolution ([`resolve`]): the rules types cannot express (names that must exist,
//!    valid spike schedules, ...), after [`bounds`] has checked the range of every
//!    number.
//!
//! Paths inside a scenario (for future trace files) are relative to the directory of the
//! scenario file: see [`Scenario::resolve_path`].

pub mod bounds;
pub mod dotted;
pub mod error;
pub mod prepare;
pub mod resolve;
pub mod schema;

spikelab_core::built_from!();

pub use dotted::set_path;
pub use error::{FieldPath, Invalid, ScenarioError, Seg};
pub use resolve::replica_name;
pub use schema::{
    DropEntry, Dumbbell, FlowEntry, KernelEntry, Profile, Route, RunSection, ScenarioFile,
};

use error::Locator;
use serde::Serialize;
use spikelab_engine::{SimConfig, StartTime};
use spikelab_net::LinkConfig;
use std::path::{Path, PathBuf};
use toml_edit::ImDocument;

/// A loaded, checked scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    source: PathBuf,
    file: ScenarioFile,
    sim: SimConfig,
}

impl Scenario {
    /// The file the scenario came from, as given.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// The configuration as loaded: profiles merged, defaults filled in.
    pub fn file(&self) -> &ScenarioFile {
        &self.file
    }

    /// The `[run]` settings.
    pub fn run(&self) -> &RunSection {
        &self.file.run
    }

    /// The engine's configuration (tracing and pcap capture off).
    pub fn to_sim(&self) -> SimConfig {
        self.sim.clone()
    }

    /// The engine's configuration, borrowed.
    pub fn sim(&self) -> &SimConfig {
        &self.sim
    }

    /// Turns the engine's tracing and pcap capture on or off in place: the
    /// configuration is the run's without a copy (a dumbbell's links and flows are most
    /// of a large scenario's memory), and neither setting is part of [`Scenario::record`].
    pub fn set_capture(&mut self, trace: spikelab_engine::TraceKinds, pcap: bool) {
        self.sim.trace = trace;
        self.sim.pcap = pcap;
    }

    /// Names of the resolved flows in engine order (`name#i` for replicas).
    pub fn flow_names(&self) -> Vec<&str> {
        self.sim.flows.iter().map(|f| f.name.as_str()).collect()
    }

    /// A path written inside the scenario, resolved against the scenario's directory
    /// (absolute paths are kept).
    pub fn resolve_path(&self, p: impl AsRef<Path>) -> PathBuf {
        let dir = self.source.parent().unwrap_or(Path::new(""));
        dir.join(p)
    }

    /// A serialisable record of everything the scenario resolved to (for `meta.json`).
    pub fn record(&self) -> Record<'_> {
        Record {
            source: &self.source,
            config: &self.file,
            links: &self.sim.links,
            flows: self.sim.flows.iter().map(|f| self.flow_record(f)).collect(),
        }
    }

    fn flow_record<'s>(&'s self, f: &'s spikelab_engine::FlowSpec) -> FlowRecord<'s> {
        let route = f
            .route
            .iter()
            .map(|h| {
                let name = &self.sim.links[h.link].name;
                match h.dir {
                    spikelab_net::Dir::Forward => name.clone(),
                    spikelab_net::Dir::Reverse => format!("{name}:reverse"),
                }
            })
            .collect();
        let kind = f.kind.name();
        FlowRecord {
            name: &f.name,
            route,
            start: f.start,
            kind,
        }
    }
}

/// What `meta.json` records about a scenario.
#[derive(Debug, Serialize)]
pub struct Record<'s> {
    /// The scenario file.
    pub source: &'s Path,
    /// The loaded configuration (profiles merged, defaults filled in).
    pub config: &'s ScenarioFile,
    /// Every link in engine order, topology presets expanded.
    pub links: &'s [LinkConfig],
    /// Every flow in engine order, replicas expanded, with its route by link name.
    pub flows: Vec<FlowRecord<'s>>,
}

/// One resolved flow in a [`Record`].
#[derive(Debug, Serialize)]
pub struct FlowRecord<'s> {
    /// Final name (`name#i` for replicas).
    pub name: &'s str,
    /// Link names crossed by the data, `:reverse` where crossed backwards.
    pub route: Vec<String>,
    /// Start time or start interval.
    pub start: StartTime,
    /// `tcp` or `cbr`.
    pub kind: &'static str,
}

/// Reads and checks the scenario file at `path`.
pub fn load(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ScenarioError {
        file: name.clone(),
        line: 0,
        col: 0,
        field: None,
        message: format!("cannot read the scenario: {e}"),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| not_utf8(&name, e))?;
    parse(&text, &name)
}

/// The located error for a file that is not UTF-8 text: the line and column of the
/// first invalid byte.
fn not_utf8(file_name: &str, e: std::string::FromUtf8Error) -> ScenarioError {
    let at = e.utf8_error().valid_up_to();
    let valid = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or_default();
    Locator::new(file_name, valid, None).at_offset(
        at,
        format!(
            "not UTF-8 text: byte 0x{:02x} cannot start a character (TOML files are UTF-8)",
            e.as_bytes()[at]
        ),
    )
}

/// Checks the scenario `text`, read from the file named `file_name` (used in messages,
/// for the default run name and as the base of relative paths).
pub fn parse(text: &str, file_name: &str) -> Result<Scenario, ScenarioError> {
    let doc = ImDocument::parse(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        Locator::new(file_name, text, None)
            .at_offset(offset, format!("TOML syntax: {}", e.message()))
    })?;
    let at = Locator::new(file_name, text, Some(&doc));
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        at.at_offset(e.span().map_or(0, |s| s.start), e.message().to_owned())
    })?;
    prepare::prepare(&mut table, &file_stem(file_name));
    let file = deserialize(table).map_err(|e| at.locate(e))?;
    let mut sim = resolve::resolve(&file).map_err(|e| at.locate(e))?;
    load_traces(&mut sim, &file, file_name).map_err(|e| at.locate(e))?;
    Ok(Scenario {
        source: PathBuf::from(file_name),
        file,
        sim,
    })
}

/// Reads the trace files the links name (Mahimahi delivery traces, one-way delay
/// traces), relative to the scenario file's folder; an error names the link and the
/// trace file's own line.
fn load_traces(sim: &mut SimConfig, file: &ScenarioFile, file_name: &str) -> Result<(), Invalid> {
    // Absolute, so that an error names the file that was looked for whatever the
    // working directory.
    let dir = Path::new(file_name).parent().unwrap_or(Path::new(""));
    let base = std::env::current_dir().map_or_else(|_| dir.to_path_buf(), |cwd| cwd.join(dir));
    for (i, link) in sim.links.iter_mut().enumerate() {
        spikelab_net::load_link_traces(link, &base).map_err(|e| {
            let path = if i < file.link.len() {
                FieldPath::root("link").index(i)
            } else {
                FieldPath::root("topology")
            };
            Invalid::new(path, e.to_string())
        })?;
    }
    Ok(())
}

fn file_stem(file_name: &str) -> String {
    Path::new(file_name)
        .file_stem()
        .map_or_else(|| "scenario".into(), |s| s.to_string_lossy().into_owned())
}

/// Deserialises the prepared document, naming the field of any error.
fn deserialize(table: toml::Table) -> Result<ScenarioFile, Invalid> {
    let value = toml::Value::Table(table);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let message = e.inner().message().to_owned();
        let mut path = field_path(e.path());
        if let Some(key) = unknown_field(&message) {
            if path.0.last() != Some(&Seg::Key(key.clone())) {
                path = path.key(&key);
            }
        }
        Invalid::new(path, message)
    })
}

/// The field path of a serde_path_to_error path (variants of externally tagged enums
/// are keys in TOML; an unknown step ends the path).
fn field_path(p: &serde_path_to_error::Path) -> FieldPath {
    use serde_path_to_error::Segment;
    let mut out = FieldPath::default();
    for seg in p.iter() {
        out = match seg {
            Segment::Seq { index } => out.index(*index),
            Segment::Map { key } => out.key(key),
            Segment::Enum { variant } => out.key(variant),
            Segment::Unknown => break,
        };
    }
    out
}

/// `x` from serde's "unknown field `x`, expected ...".
fn unknown_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    Some(rest[..rest.find('`')?].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_engine::FlowKind;
    use spikelab_tcp::RecoveryKind;

    const DUMBBELL: &str = r#"
        [topology]
        kind = "dumbbell"
        pairs = 2
        access = { name = "acc", rate = "10Mbit/s", latency = "1ms" }
        bottleneck = { rate = "1Mbit/s", latency = "10ms" }
        [[flow]]
        name = "a"
        count = 3
        route = "pair"
        workload = { kind = "bulk", bytes = "1KB" }
        [[flow]]
        name = "b"
        route = ["acc-dst-1:reverse", "bottleneck:reverse", "acc-src-0:reverse"]
        profile = "ns2-2002"
        tcp = { recovery = "fack", rto = { kind = "rfc6298", min_rto = "200ms" } }
        workload = { kind = "ping-pong", packets = 3, bytes = "100B" }
    "#;

    fn scenario() -> Scenario {
        parse(DUMBBELL, "dir/db.toml").unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn counted_flows_get_replica_names_and_pairs_round_robin() {
        let s = scenario();
        assert_eq!(s.flow_names(), ["a#0", "a#1", "a#2", "b"]);
        let first_links: Vec<_> = s.sim().flows[..3]
            .iter()
            .map(|f| s.sim().links[f.route[0].link].name.as_str())
            .collect();
        assert_eq!(first_links, ["acc-src-0", "acc-src-1", "acc-src-0"]);
    }

    #[test]
    fn reverse_hops_and_the_profile_merge_reach_the_engine() {
        let s = scenario();
        let b = &s.sim().flows[3];
        assert!(b.route.iter().all(|h| h.dir == spikelab_net::Dir::Reverse));
        let FlowKind::Tcp { tcp, .. } = &b.kind else {
            panic!("b is TCP")
        };
        assert_eq!(tcp.recovery, RecoveryKind::Fack);
        assert_eq!(tcp.mss, 1000, "from the ns2-2002 profile");
        use spikelab_tcp::rto::RtoConfig;
        // The profile's timer is ns-2's own (kind "ns2"); a table of another kind
        // replaces it instead of merging into it.
        assert!(matches!(
            spikelab_tcp::TcpConfig::ns2_2002().rto,
            RtoConfig::Ns2(_)
        ));
        let want = RtoConfig::Rfc6298(spikelab_tcp::rto::Rfc6298Config {
            min_rto: spikelab_core::Dur::from_millis(200),
            ..Default::default()
        });
        assert_eq!(tcp.rto, want);
    }

    #[test]
    fn the_run_name_defaults_to_the_file_name_and_paths_are_relative_to_it() {
        let s = scenario();
        assert_eq!(s.run().name, "db");
        assert_eq!(s.run().reps, 1);
        assert_eq!(s.resolve_path("trace.txt"), PathBuf::from("dir/trace.txt"));
        assert_eq!(s.resolve_path("/abs"), PathBuf::from("/abs"));
    }

    #[test]
    fn the_record_names_routes_by_link() {
        let s = scenario();
        let r = s.record();
        assert_eq!(r.links.len(), 5);
        assert_eq!(r.flows[0].route, ["acc-src-0", "bottleneck", "acc-dst-0"]);
        assert_eq!(r.flows[3].route[0], "acc-dst-1:reverse");
    }
}
