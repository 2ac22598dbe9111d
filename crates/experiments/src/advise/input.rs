//! What `spikelab advise PATH` reads: a scenario file, or a measured trace wrapped into
//! a path with documented defaults.
//!
//! * A `.toml` file is a scenario: its links and spikes are the path, its flows the
//!   workload. It is checked as `spikelab run` checks it (a located error otherwise),
//!   and the trace files it names are made absolute so the rows' scenarios can be
//!   rerun from the output folder.
//! * Anything else is a trace, by content unless [`TraceKind`] says which:
//!   - a Mahimahi packet-delivery trace (one whole number of ms per line, not
//!     decreasing): the data direction of a link delivers packets at the trace's
//!     opportunities (1500 bytes each, replayed cyclically); ACKs return at
//!     [`WRAP_RATE`]; each repetition starts at a random point of one trace period;
//!   - a one-way delay trace (`time,delay` per line, spikelab's delay-trace format): the
//!     data direction's delay; each repetition starts at a random point of the trace;
//!   - an RTT trace (one RTT in ms per line, e.g. a ping log): laid out in time as a
//!     sequential pinger measured it and replayed as the data direction's delay, as the
//!     delay-injection reproduction does (`delay_injection::path`).
//!
//!   The wrapped path has one link of [`WRAP_RATE`] with no latency of its own (the
//!   trace is the delay) and a drop-tail buffer of [`WRAP_BUFFER`] packets, so the only
//!   losses are the ones the trace implies; the workload is one bulk download of
//!   [`WRAP_BYTES`] with the `modern` TCP profile (RFC 6298 timer, new-reno). The wrapper
//!   scenario is written as `path.toml` beside the results, the trace copied under
//!   `trace/`.

use crate::papers::delay_injection::path::delay_trace_text;
use crate::papers::delay_injection::trace::parse_rtt_trace;
use spikelab_core::Dur;
use spikelab_net::delay::DelayTrace;
use spikelab_net::service::MahimahiTrace;
use spikelab_net::TraceError;
use std::path::{Path, PathBuf};

/// The rate of a wrapped trace's link (both directions; a Mahimahi trace replaces it
/// in the data direction): the 3G peak rate scenarios/delay-injection.toml uses for a
/// path whose delay comes from a trace, fast enough that the trace's delay, not a
/// queue, sets the round-trip time of a window-limited sender.
pub const WRAP_RATE: &str = "2Mbit/s";
/// The drop-tail buffer of a wrapped trace's link, in packets.
pub const WRAP_BUFFER: u32 = 1000;
/// The one-way latency of a wrapped Mahimahi trace's link (a delivery trace holds no
/// propagation delay; 20 ms as the cellular link of scenarios/reference.toml). Delay
/// and RTT traces are the delay themselves: their link has none of its own.
pub const WRAP_MAHIMAHI_LATENCY: &str = "20ms";
/// The bulk download of a wrapped trace.
pub const WRAP_BYTES: &str = "1MB";

/// How to read a PATH that is not a scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceKind {
    /// Scenario if it ends in `.toml`, else the trace format its content matches.
    #[default]
    Auto,
    Mahimahi,
    Delay,
    Rtt,
}

impl TraceKind {
    /// The names accepted on the command line.
    pub const NAMES: [&'static str; 4] = ["auto", "mahimahi", "delay", "rtt"];

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<TraceKind> {
        Some(match name {
            "auto" => TraceKind::Auto,
            "mahimahi" => TraceKind::Mahimahi,
            "delay" => TraceKind::Delay,
            "rtt" => TraceKind::Rtt,
            _ => return None,
        })
    }
}

/// A bad PATH: the located one-line message (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// The path to advise on, as scenario text ready for the grid.
#[derive(Clone, Debug)]
pub struct Input {
    /// The scenario text (trace paths absolute, or relative to `name`'s folder).
    pub text: String,
    /// The file name the text is parsed as (its folder is the base of relative paths).
    pub name: String,
    /// The seed when none is given: the scenario's `run.seed`, else 1.
    pub seed: u64,
    /// How the path was read, for the report.
    pub description: String,
}

/// Reads `path`; a trace is wrapped into `dir/path.toml` with the trace copied (or an
/// RTT trace converted) into `dir/trace/`.
pub fn read(path: &Path, kind: TraceKind, dir: &Path) -> Result<Input, InputError> {
    let is_toml = path.extension().is_some_and(|e| e == "toml");
    if kind == TraceKind::Auto && is_toml {
        return scenario(path);
    }
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("{shown}: cannot read the trace: {e}")))?;
    let kind = if kind == TraceKind::Auto {
        sniff(&text)
    } else {
        kind
    };
    let located = |e: TraceError| {
        InputError(match e.line {
            Some(l) => format!("{shown}:{l}:1: {}", e.reason),
            None => format!("{shown}: {}", e.reason),
        })
    };
    let stem = path
        .file_stem()
        .map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned());
    let (file, trace_text, wrap) = match kind {
        TraceKind::Mahimahi => {
            let t = MahimahiTrace::parse(&text).map_err(located)?;
            let file = format!("{stem}.mahimahi");
            let wrap = Wrap::Mahimahi { period: t.period() };
            (file, text.clone(), wrap)
        }
        TraceKind::Delay => {
            let t = DelayTrace::parse(&text).map_err(located)?;
            let span = t.last_time() - spikelab_core::Time::ZERO;
            (
                format!("{stem}.delay.csv"),
                text.clone(),
                Wrap::Delay {
                    span,
                    what: "one-way delay trace",
                },
            )
        }
        TraceKind::Rtt | TraceKind::Auto => {
            let rtts = parse_rtt_trace(&text, None).map_err(located)?;
            let span_ms: f64 = rtts.iter().sum();
            let span = Dur::from_nanos((span_ms * 1e6).round() as u64);
            (
                format!("{stem}.delay.csv"),
                delay_trace_text(&rtts),
                Wrap::Delay {
                    span,
                    what: "RTT trace",
                },
            )
        }
    };
    write_wrapped(dir, &file, &trace_text, &wrap, &shown, &stem)
}

/// The format a trace's text matches: two fields per line is a delay trace; whole,
/// non-decreasing milliseconds a Mahimahi trace; anything else one RTT per line.
fn sniff(text: &str) -> TraceKind {
    let data: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let two_fields = |l: &&str| {
        l.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .count()
            == 2
    };
    if data.iter().any(two_fields) {
        return TraceKind::Delay;
    }
    if MahimahiTrace::parse(text).is_ok() {
        return TraceKind::Mahimahi;
    }
    TraceKind::Rtt
}

/// How a trace becomes a link.
enum Wrap {
    Mahimahi { period: Dur },
    Delay { span: Dur, what: &'static str },
}

fn secs(d: Dur) -> String {
    format!("{}s", d.as_secs_f64())
}

fn write_wrapped(
    dir: &Path,
    file: &str,
    trace_text: &str,
    wrap: &Wrap,
    shown: &str,
    stem: &str,
) -> Result<Input, InputError> {
    let io = |e: std::io::Error| InputError(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir.join("trace")).map_err(io)?;
    std::fs::write(dir.join("trace").join(file), trace_text).map_err(io)?;
    let (direction, span, what, latency) = match wrap {
        Wrap::Mahimahi { period } => (
            format!(
                "forward = {{ service = {{ kind = \"mahimahi\", trace = \"trace/{file}\", opportunity_bytes = 1500 }} }}"
            ),
            *period,
            "Mahimahi delivery trace",
            WRAP_MAHIMAHI_LATENCY,
        ),
        Wrap::Delay { span, what } => (
            format!("forward = {{ delay_trace = \"trace/{file}\" }}"),
            *span,
            *what,
            "0ms",
        ),
    };
    let stop = secs(span + Dur::from_secs(600));
    let text = format!(
        "# spikelab advise: the {what} {shown} wrapped into a path (defaults in docs/src/advise.md)\n\
         [run]\nname = \"{stem}\"\nseed = 1\nstop = \"{stop}\"\n\n\
         [[link]]\nname = \"path\"\nrate = \"{WRAP_RATE}\"\nlatency = \"{latency}\"\n\
         queue = {{ kind = \"drop-tail\", limit = {{ packets = {WRAP_BUFFER} }} }}\n{direction}\n\n\
         [[flow]]\nname = \"download\"\nroute = [\"path\"]\nstart = {{ min = \"0s\", max = \"{}\" }}\n\
         workload = {{ kind = \"bulk\", bytes = \"{WRAP_BYTES}\" }}\n",
        secs(span)
    );
    let path_toml = dir.join("path.toml");
    std::fs::write(&path_toml, &text).map_err(io)?;
    let name = absolute(&path_toml).display().to_string();
    spikelab_scenario::parse(&text, &name).map_err(|e| InputError(e.to_string()))?;
    Ok(Input {
        text,
        name,
        seed: 1,
        description: format!("the {what} {shown}, wrapped into path.toml"),
    })
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        return p.to_path_buf();
    }
    std::env::current_dir().map_or_else(|_| p.to_path_buf(), |cwd| cwd.join(p))
}

/// A scenario file, checked, with the trace files it names made absolute.
fn scenario(path: &Path) -> Result<Input, InputError> {
    let s = spikelab_scenario::load(path).map_err(|e| InputError(e.to_string()))?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("{}: {e}", path.display())))?;
    let mut doc: toml::Table = text
        .parse()
        .map_err(|e| InputError(format!("{}: {e}", path.display())))?;
    let dir = absolute(path)
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    absolutize_traces(&mut doc, &dir);
    Ok(Input {
        text: toml::to_string(&doc).map_err(|e| InputError(e.to_string()))?,
        name: absolute(path).display().to_string(),
        seed: s.run().seed,
        description: format!("the scenario {}", path.display()),
    })
}

/// Makes every `trace` and `delay_trace` string under `link` and `topology` absolute
/// against `dir` (the scenario's folder, the base of relative trace paths).
fn absolutize_traces(doc: &mut toml::Table, dir: &Path) {
    map_traces(doc, |p| dir.join(p).display().to_string());
}

/// Replaces every `trace` and `delay_trace` string under `link` and `topology` by `f`
/// of it.
pub fn map_traces(doc: &mut toml::Table, f: impl Fn(&str) -> String) {
    fn walk(v: &mut toml::Value, f: &dyn Fn(&str) -> String) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t.iter_mut() {
                    match v {
                        toml::Value::String(s) if k == "trace" || k == "delay_trace" => {
                            *s = f(s);
                        }
                        _ => walk(v, f),
                    }
                }
            }
            toml::Value::Array(a) => a.iter_mut().for_each(|v| walk(v, f)),
            _ => {}
        }
    }
    for key in ["link", "topology"] {
        if let Some(v) = doc.get_mut(key) {
            walk(v, &f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_tells_the_three_trace_formats_apart() {
        assert_eq!(sniff("0,0ms\n30s,200ms\n"), TraceKind::Delay);
        assert_eq!(sniff("# t d\n0 0.1\n"), TraceKind::Delay);
        assert_eq!(sniff("4\n8\n8\n12\n"), TraceKind::Mahimahi);
        assert_eq!(sniff("103.2\n98\n1200\n"), TraceKind::Rtt);
        assert_eq!(
            sniff("120\n80\n"),
            TraceKind::Rtt,
            "decreasing: not Mahimahi"
        );
    }

    #[test]
    fn relative_trace_paths_become_absolute_and_others_stay() {
        let mut doc: toml::Table = "[[link]]\nname = \"a\"\ndelay_trace = \"t.csv\"\n\
             service = { kind = \"mahimahi\", trace = \"/abs/x.down\" }\n\
             [[flow]]\nname = \"trace\"\n"
            .parse()
            .unwrap();
        absolutize_traces(&mut doc, Path::new("/base"));
        let l = &doc["link"][0];
        assert_eq!(l["delay_trace"].as_str(), Some("/base/t.csv"));
        assert_eq!(l["service"]["trace"].as_str(), Some("/abs/x.down"));
        assert_eq!(doc["flow"][0]["name"].as_str(), Some("trace"));
    }

    #[test]
    fn a_bad_trace_line_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.csv");
        std::fs::write(&p, "0,0ms\n1s,oops\n").unwrap();
        let e = read(&p, TraceKind::Auto, &dir.path().join("out")).unwrap_err();
        assert!(e.0.contains("bad.csv:2:1: bad delay"), "{e}");
    }

    #[test]
    fn a_delay_trace_wraps_into_a_checked_path_starting_inside_the_trace() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("owd.csv");
        std::fs::write(&p, "0,0ms\n30s,2s\n34s,0ms\n").unwrap();
        let out = dir.path().join("out");
        let input = read(&p, TraceKind::Auto, &out).unwrap();
        assert!(input.text.contains("max = \"34s\""), "{}", input.text);
        let s = spikelab_scenario::parse(&input.text, &input.name).unwrap();
        assert_eq!(s.sim().flows.len(), 1);
        assert!(out.join("trace/owd.delay.csv").exists());
    }
}
