//! Two walks over `scenarios/reference.toml` that keep the schema, its checks and its
//! documentation together:
//!
//! * every field of every table of the schema (and every `kind` of every tagged table)
//!   appears in the reference. The schema is discovered, not listed: each table of the
//!   reference gets an unknown key `__probe`, and the loader's "unknown field, expected
//!   one of ..." names all the keys that table's type accepts (every schema type denies
//!   unknown keys); each `kind`/`dist` tag is set to `__probe` likewise. A field added to
//!   the schema and not to the reference fails this test.
//! * every number in the reference has a range check: each is set to absurd values
//!   (durations of 99999999999 h, rates of 10^15 bit/s, 0 and 2^32-1 for integers, NaN
//!   and -1/0/1e300 for reals) and the loader must refuse one of them at that field.
//!   With the first walk, a new numeric field without a check fails this test.

use spikelab_core::units::{parse_duration, parse_rate, parse_size};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use toml::{Table, Value};

fn reference_path() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/reference.toml")
        .display()
        .to_string()
}

fn reference() -> Table {
    std::fs::read_to_string(reference_path())
        .unwrap()
        .parse()
        .unwrap()
}

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

type Path = Vec<Seg>;

/// The path as the loader prints it: `link[0].queue.limit`.
fn show(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => s.push_str(&format!(".{k}")),
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn at<'v>(v: &'v mut Value, path: &[Seg]) -> &'v mut Value {
    path.iter().fold(v, |v, seg| match seg {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Index(i) => &mut v[*i],
    })
}

/// Every node of `v` with its path, depth first.
fn walk(v: &Value, path: Path, out: &mut Vec<(Path, Value)>) {
    out.push((path.clone(), v.clone()));
    match v {
        Value::Table(t) => {
            for (k, child) in t {
                let mut p = path.clone();
                p.push(Seg::Key(k.clone()));
                walk(child, p, out);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                let mut p = path.clone();
                p.push(Seg::Index(i));
                walk(child, p, out);
            }
        }
        _ => {}
    }
}

fn nodes() -> Vec<(Path, Value)> {
    let mut out = Vec::new();
    walk(&Value::Table(reference()), Vec::new(), &mut out);
    out
}

/// Loads the reference with the value at `path` replaced by `value`: the error's field
/// and message, or None if it loads.
fn load_with(path: &[Seg], value: Value) -> Option<(String, String)> {
    let mut root = Value::Table(reference());
    *at(&mut root, path) = value;
    let text = toml::to_string(&root).unwrap();
    spikelab_scenario::parse(&text, &reference_path())
        .err()
        .map(|e| (e.field.unwrap_or_default(), e.message))
}

/// The backquoted names after "expected" in a serde message.
fn expected_names(message: &str) -> Option<BTreeSet<String>> {
    if message.contains("there are no fields") || message.contains("there are no variants") {
        return Some(BTreeSet::new());
    }
    let rest = &message[message.find("expected")?..];
    Some(
        rest.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect(),
    )
}

#[test]
fn every_field_and_kind_of_the_schema_appears_in_the_reference() {
    // Keyed by the set of names a type accepts (which identifies the type), the names
    // the reference uses in any table of that type.
    let mut used: BTreeMap<BTreeSet<String>, BTreeSet<String>> = BTreeMap::new();
    let mut probed = 0;
    for (path, node) in nodes() {
        let Value::Table(t) = &node else { continue };
        let mut probe = t.clone();
        probe.insert("__probe".into(), Value::Integer(0));
        let mut probe_path = path.clone();
        if let Some((field, msg)) = load_with(&path, Value::Table(probe)) {
            probe_path.push(Seg::Key("__probe".into()));
            if field == show(&probe_path) && msg.contains("unknown field `__probe`") {
                let names = expected_names(&msg).unwrap_or_default();
                used.entry(names).or_default().extend(t.keys().cloned());
                probed += 1;
            }
        }
        for tag in ["kind", "dist"] {
            let Some(Value::String(v)) = t.get(tag) else {
                continue;
            };
            let mut tag_path = path.clone();
            tag_path.push(Seg::Key(tag.into()));
            let (_, msg) = load_with(&tag_path, Value::String("__probe".into()))
                .unwrap_or_else(|| panic!("`{}` = \"__probe\" loaded", show(&tag_path)));
            assert!(msg.contains("unknown variant `__probe`"), "{msg}");
            let names = expected_names(&msg).unwrap();
            used.entry(names).or_default().insert(v.clone());
        }
    }
    assert!(
        probed >= 30,
        "only {probed} tables probed: the probe is broken"
    );
    let missing: Vec<String> = used
        .iter()
        .flat_map(|(schema, used)| schema.difference(used).cloned().collect::<Vec<_>>())
        .collect();
    assert!(
        missing.is_empty(),
        "schema names missing from scenarios/reference.toml: {missing:?}"
    );
}

/// What kind of number a leaf is.
#[derive(Debug)]
enum Number {
    Integer,
    Real,
    Duration,
    Rate,
    Size,
}

fn number(v: &Value) -> Option<Number> {
    match v {
        Value::Integer(_) => Some(Number::Integer),
        Value::Float(_) => Some(Number::Real),
        Value::String(s) if parse_duration(s).is_ok() => Some(Number::Duration),
        Value::String(s) if parse_rate(s).is_ok() => Some(Number::Rate),
        Value::String(s) if parse_size(s).is_ok() => Some(Number::Size),
        _ => None,
    }
}

/// Numbers every value of whose type is meaningful, with the reason.
const EXEMPT: &[(&str, &str)] = &[
    ("run.seed", "every u64 is a seed"),
    ("link[0].reverse.delay_trace.seed", "every u64 is a seed"),
    ("link[3].forward.delay_trace.seed", "every u64 is a seed"),
];

#[test]
fn every_numeric_field_of_the_reference_has_a_range_check() {
    let mut checked = 0;
    let mut unchecked = Vec::new();
    for (path, node) in nodes() {
        let Some(kind) = number(&node) else { continue };
        let name = show(&path);
        if EXEMPT.iter().any(|(p, _)| *p == name) {
            continue;
        }
        let parent = show(&path[..path.len() - 1]);
        let refused_here = |v: Value| {
            load_with(&path, v).is_some_and(|(field, _)| field == name || field == parent)
        };
        let s = |x: &str| Value::String(x.into());
        let ok = match kind {
            Number::Integer => [0, u32::MAX as i64]
                .map(Value::Integer)
                .into_iter()
                .any(refused_here),
            Number::Real => {
                refused_here(Value::Float(f64::NAN))
                    && [-1.0, 0.0, 1e300]
                        .map(Value::Float)
                        .into_iter()
                        .any(refused_here)
            }
            Number::Duration => refused_here(s("99999999999h")),
            Number::Rate => refused_here(s("1000000Gbit/s")),
            Number::Size => [s("0B"), s("999999GB")].into_iter().any(refused_here),
        };
        checked += 1;
        if !ok {
            unchecked.push(format!("{name} ({kind:?})"));
        }
    }
    assert!(
        checked >= 100,
        "only {checked} numbers found: the walk is broken"
    );
    assert!(
        unchecked.is_empty(),
        "numbers accepted at absurd values (add a check in bounds.rs): {unchecked:?}"
    );
}
