//! What the loader does to the parsed TOML before the schema types see it.
//!
//! * Each TCP flow's `tcp` table is laid over its profile's settings (a deep merge of
//!   TOML tables): the user's keys win, the profile fills in the rest, and an unknown
//!   user key survives the merge so that deserialisation still rejects it. A nested
//!   table tagged by `kind` (the `rto` estimator) whose `kind` differs from the
//!   profile's replaces the profile's table whole, since the other estimator's
//!   parameters do not apply.
//! * Default names are filled in: `run.name` from the file name, and
//!   `topology.access.name` / `topology.bottleneck.name`, so that those tables can be
//!   plain `LinkConfig`s.
//!
//! Anything of an unexpected type is left alone for deserialisation to report.

use crate::schema::Profile;
use toml::{Table, Value};

/// Applies every preparation step to the document `doc` of the file named `stem`.
pub fn prepare(doc: &mut Table, stem: &str) {
    default_run_name(doc, stem);
    default_topology_names(doc);
    if let Some(Value::Array(flows)) = doc.get_mut("flow") {
        for flow in flows.iter_mut() {
            if let Value::Table(t) = flow {
                merge_profile(t);
            }
        }
    }
}

fn default_run_name(doc: &mut Table, stem: &str) {
    let run = doc
        .entry("run")
        .or_insert_with(|| Value::Table(Table::new()));
    if let Value::Table(run) = run {
        run.entry("name")
            .or_insert_with(|| Value::String(stem.to_owned()));
    }
}

fn default_topology_names(doc: &mut Table) {
    let Some(Value::Table(topo)) = doc.get_mut("topology") else {
        return;
    };
    for (key, name) in [("access", "access"), ("bottleneck", "bottleneck")] {
        if let Some(Value::Table(t)) = topo.get_mut(key) {
            t.entry("name")
                .or_insert_with(|| Value::String(name.to_owned()));
        }
    }
}

/// Replaces a TCP flow's `tcp` table by its profile's settings with the table on top.
fn merge_profile(flow: &mut Table) {
    let is_tcp = match flow.get("kind") {
        None => true,
        Some(Value::String(k)) => k == "tcp",
        Some(_) => false,
    };
    let profile = match flow.get("profile") {
        None => Some(Profile::default()),
        Some(Value::String(name)) => Profile::from_name(name),
        Some(_) => None,
    };
    let (true, Some(profile)) = (is_tcp, profile) else {
        return;
    };
    let Ok(Value::Table(mut base)) = Value::try_from(profile.config()) else {
        return;
    };
    match flow.remove("tcp") {
        None => {}
        Some(Value::Table(user)) => deep_merge(&mut base, user),
        Some(other) => {
            flow.insert("tcp".into(), other);
            return;
        }
    }
    flow.insert("tcp".into(), Value::Table(base));
}

/// Lays `over` onto `base`, key by key, recursing into tables of the same `kind`.
pub fn deep_merge(base: &mut Table, over: Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(Value::Table(b)), Value::Table(o)) if same_kind(b, &o) => deep_merge(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// Two tables describe the same tagged variant unless both name different `kind`s.
fn same_kind(a: &Table, b: &Table) -> bool {
    match (a.get("kind"), b.get("kind")) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        text.parse().unwrap()
    }

    #[test]
    fn user_keys_override_and_the_rest_is_kept() {
        let mut base = table("a = 1\nb = 2\n[t]\nx = 1\ny = 2");
        deep_merge(&mut base, table("b = 3\n[t]\ny = 5\nz = 6"));
        assert_eq!(base, table("a = 1\nb = 3\n[t]\nx = 1\ny = 5\nz = 6"));
    }

    #[test]
    fn a_table_of_another_kind_replaces_the_base_table() {
        let mut base = table("[rto]\nkind = \"rfc6298\"\nmin_rto = \"1s\"");
        deep_merge(&mut base, table("[rto]\nkind = \"linux\""));
        assert_eq!(base, table("[rto]\nkind = \"linux\""));
    }

    #[test]
    fn a_tcp_flow_gets_its_profile_under_the_user_keys() {
        let mut doc = table("[[flow]]\nprofile = \"ns2-2002\"\ntcp = { timestamps = true }");
        prepare(&mut doc, "x");
        let tcp = &doc["flow"][0]["tcp"];
        assert_eq!(tcp["timestamps"], Value::Boolean(true));
        assert_eq!(tcp["mss"], Value::Integer(1000));
        assert_eq!(doc["run"]["name"], Value::String("x".into()));
    }

    #[test]
    fn cbr_flows_and_unknown_profiles_are_left_alone() {
        let mut doc = table("[[flow]]\nkind = \"cbr\"\n[[flow]]\nprofile = \"ns3\"");
        prepare(&mut doc, "x");
        assert!(doc["flow"][0].get("tcp").is_none());
        assert!(doc["flow"][1].get("tcp").is_none());
    }
}
