//! One dotted-path setter for scenario documents, shared by experiment grids, the CLI's
//! `--set key=value` and the Python package, so a path means the same thing everywhere:
//! `flow.0.tcp.recovery` walks table keys and array indices and creates missing tables.

/// Sets `value` at the dotted `path` inside `doc`, creating missing tables.
pub fn set_path(doc: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut root = toml::Value::Table(std::mem::take(doc));
    let result = set_in(&mut root, &parts, value, path);
    if let toml::Value::Table(t) = root {
        *doc = t;
    }
    result
}

fn set_in(
    node: &mut toml::Value,
    parts: &[&str],
    value: toml::Value,
    path: &str,
) -> Result<(), String> {
    let Some((first, rest)) = parts.split_first() else {
        *node = value;
        return Ok(());
    };
    let child = match node {
        toml::Value::Table(t) => t
            .entry(first.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new())),
        toml::Value::Array(a) => {
            let k: usize = first
                .parse()
                .map_err(|_| format!("`{path}`: `{first}` is not an index"))?;
            let len = a.len();
            a.get_mut(k)
                .ok_or_else(|| format!("`{path}`: index {k} beyond {len} items"))?
        }
        _ => {
            return Err(format!(
                "`{path}`: nothing can be set inside a plain value at `{first}`"
            ))
        }
    };
    set_in(child, rest, value, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> toml::Table {
        "[[link]]\nname = \"l\"\n[[link.spikes]]\nkind = \"hiccup\"\n[[flow]]\nname = \"f\"\n"
            .parse()
            .unwrap()
    }

    #[test]
    fn set_path_reaches_into_arrays_and_creates_tables() {
        let mut d = doc();
        set_path(&mut d, "flow.0.tcp.recovery", "reno".into()).unwrap();
        set_path(&mut d, "link.0.spikes.0.first", "5s".into()).unwrap();
        let text = toml::to_string(&d).unwrap();
        assert!(text.contains("recovery = \"reno\""), "{text}");
        assert!(text.contains("first = \"5s\""), "{text}");
    }

    #[test]
    fn set_path_reports_a_bad_index() {
        let mut d = doc();
        let e = set_path(&mut d, "flow.3.name", "x".into()).unwrap_err();
        assert!(e.contains("index 3 beyond 1 items"), "{e}");
    }
}
