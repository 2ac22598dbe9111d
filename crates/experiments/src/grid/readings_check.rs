//! Checking an experiment file's `[[reading]]`s and `[[finding]]`s ([`super::readings`]):
//! every name they use names something, every statement parses and reads plain grid
//! values of one cell each, no reading sets what a grid or axis already sets, and every
//! reading's default option leaves the grids' configurations as they are. Each problem
//! is located at its field.

use super::expr::{self, Expr, Ref};
use super::readings::{Condition, FindingSpec, ReadingSpec};
use super::spec::{Agg, ExperimentSpec, Grid};
use spikelab_scenario::{FieldPath, Invalid};

/// The grids the findings read, in the file's order.
pub fn grids_read(spec: &ExperimentSpec) -> Vec<&Grid> {
    let read = |g: &&Grid| spec.finding.iter().any(|f| f.grid == g.name);
    spec.grid.iter().filter(read).collect()
}

/// Every reference of `e`.
pub fn refs(e: &Expr) -> Vec<&Ref> {
    match e {
        Expr::Num(_) => vec![],
        Expr::Ref(r) => vec![r],
        Expr::Neg(a) => refs(a),
        Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) => refs(a).into_iter().chain(refs(b)).collect(),
        Expr::Call(_, args) => args.iter().flat_map(refs).collect(),
    }
}

/// The parse-level checks (no scenario read).
pub fn check(spec: &ExperimentSpec) -> Result<(), Invalid> {
    for (i, r) in spec.reading.iter().enumerate() {
        check_reading(spec, r, FieldPath::root("reading").index(i))?;
    }
    let inputs = spec.reading.iter().map(|r| &r.input);
    if let Some(i) = first_repeat(inputs) {
        let why = format!("input `{}` is declared twice", spec.reading[i].input);
        return Err(Invalid::new(
            FieldPath::root("reading").index(i).key("input"),
            why,
        ));
    }
    for (i, f) in spec.finding.iter().enumerate() {
        check_finding(spec, f, FieldPath::root("finding").index(i))?;
    }
    if let Some(i) = first_repeat(spec.finding.iter().map(|f| &f.name)) {
        let why = format!("finding `{}` is declared twice", spec.finding[i].name);
        return Err(Invalid::new(
            FieldPath::root("finding").index(i).key("name"),
            why,
        ));
    }
    if !spec.reading.is_empty() && spec.finding.is_empty() {
        let why = "readings without a `[[finding]]` to score them against";
        return Err(Invalid::new(FieldPath::root("reading"), why));
    }
    Ok(())
}

/// The index of the first item equal to an earlier one.
fn first_repeat<'a>(items: impl Iterator<Item = &'a String>) -> Option<usize> {
    let items: Vec<&String> = items.collect();
    (0..items.len()).find(|&i| items[..i].contains(&items[i]))
}

fn check_reading(spec: &ExperimentSpec, r: &ReadingSpec, at: FieldPath) -> Result<(), Invalid> {
    let what = format!("reading `{}`", r.input);
    for (field, text) in [
        ("quote", &r.quote),
        ("rule", &r.rule),
        ("source", &r.source),
    ] {
        if text.trim().is_empty() {
            let why = format!("{what}: `{field}` is empty: say what it interprets and why");
            return Err(Invalid::new(at.key(field), why));
        }
    }
    if r.option.len() < 2 {
        let why = format!("{what}: a reading needs at least two options");
        return Err(Invalid::new(at.key("option"), why));
    }
    if let Some(j) = first_repeat(r.option.iter().map(|o| &o.name)) {
        let why = format!("{what}: option `{}` is declared twice", r.option[j].name);
        return Err(Invalid::new(at.key("option").index(j).key("name"), why));
    }
    if !r.option.iter().any(|o| o.name == r.default) {
        let names: Vec<&str> = r.option.iter().map(|o| o.name.as_str()).collect();
        let why = format!(
            "{what}: default `{}` names no option (options: {})",
            r.default,
            names.join(", ")
        );
        return Err(Invalid::new(at.key("default"), why));
    }
    for (j, g) in r.grids.iter().enumerate() {
        if spec.grid(g).is_none() {
            return Err(Invalid::new(
                at.key("grids").index(j),
                format!("{what}: no grid `{g}`"),
            ));
        }
    }
    for (j, o) in r.option.iter().enumerate() {
        let o_at = at.key("option").index(j).key("set");
        for g in grids_read(spec)
            .into_iter()
            .filter(|g| r.applies_to(&g.name))
        {
            for path in o.set.keys() {
                if let Some(theirs) = grid_sets(g).find(|p| overlaps(p, path)) {
                    let why = format!(
                        "{what} option `{}` sets `{path}`, which grid `{}` sets too (`{theirs}`): \
                         a reading must not be undone by the grid it is read in",
                        o.name, g.name
                    );
                    return Err(Invalid::new(o_at, why));
                }
            }
        }
    }
    Ok(())
}

/// Every path grid `g` sets: its own `set` and its axes' and products' values'.
fn grid_sets(g: &Grid) -> impl Iterator<Item = &String> {
    let axes = g.axis.iter().chain(g.product.iter().flat_map(|p| &p.axis));
    let values = axes.flat_map(|a| &a.values).flat_map(|v| v.set.keys());
    g.set
        .keys()
        .chain(values)
        .chain(g.computed_set.iter().map(|c| &c.path))
}

/// Whether one dotted path is the other or lies under it.
fn overlaps(a: &str, b: &str) -> bool {
    let under = |x: &str, y: &str| x == y || x.starts_with(&format!("{y}."));
    under(a, b) || under(b, a)
}

fn check_finding(spec: &ExperimentSpec, f: &FindingSpec, at: FieldPath) -> Result<(), Invalid> {
    let what = format!("finding `{}`", f.name);
    let Some(g) = spec.grid(&f.grid) else {
        let why = format!("{what}: no grid `{}`", f.grid);
        return Err(Invalid::new(at.key("grid"), why));
    };
    Condition::parse(&f.holds)
        .map_err(|e| Invalid::new(at.key("holds"), format!("{what}: {e}")))?;
    let e = expr::parse(&f.measure)
        .map_err(|e| Invalid::new(at.key("measure"), format!("{what}: {e}")))?;
    for r in refs(&e) {
        plain_value(g, r).map_err(|e| Invalid::new(at.key("measure"), format!("{what}: {e}")))?;
    }
    Ok(())
}

/// `r` reads a plain grid value of `g` (the mean of one metric, unpaired, undivided),
/// the only kind a repetition has.
fn plain_value(g: &Grid, r: &Ref) -> Result<(), String> {
    if r.stat != "mean" {
        return Err(format!(
            "`{}.{}`: a measure is taken per repetition; its interval is computed, not read",
            r.name, r.stat
        ));
    }
    let v = g.value.iter().find(|v| v.name == r.name).ok_or_else(|| {
        let names: Vec<&str> = g.value.iter().map(|v| v.name.as_str()).collect();
        format!(
            "`{}` is no value of grid `{}` (values: {})",
            r.name,
            g.name,
            names.join(", ")
        )
    })?;
    let derived = v.increase_over.is_some() || v.per.is_some() || v.only_if.is_some();
    if derived || v.agg != Agg::Mean {
        return Err(format!(
            "value `{}` of grid `{}` is derived (paired, divided, filtered or summed): \
             a measure reads plain means and derives itself",
            r.name, g.name
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
name = "t"
title = "t"
scenario = "gprs-eifel.toml"
flow = "download"
[[grid]]
name = "main"
[[grid.axis]]
name = "eifel"
values = [{ label = "off" }, { label = "on", set = { "flow.0.tcp.spurious.driver" = "eifel" } }]
[[grid.value]]
name = "time"
metric = "download_time_s"
[[grid.value]]
name = "up"
metric = "download_time_s"
increase_over = { eifel = "off" }
"#;

    const READING: &str = r#"
[[reading]]
input = "spike direction"
source = "[Kim & Cho 2003] V"
quote = "Base Station stops transmitting data segment"
default = "both"
rule = "the hiccup tool the paper cites freezes both directions"
[[reading.option]]
name = "both"
[[reading.option]]
name = "data-only"
set = { "link.1.spikes.0.dirs" = "forward" }
"#;

    const FINDING: &str = r#"
[[finding]]
name = "faster"
source = "Table 1"
quote = "Eifel is faster"
grid = "main"
measure = "time[eifel=on] / time[eifel=off]"
holds = "< 1"
"#;

    fn parse(text: &str) -> Result<ExperimentSpec, String> {
        ExperimentSpec::parse(text, "t.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn a_file_with_readings_and_findings_parses() {
        let spec = parse(&format!("{BASE}{READING}{FINDING}")).unwrap();
        assert_eq!(spec.reading[0].default_index(), 0);
        assert_eq!(grids_read(&spec).len(), 1);
    }

    #[test]
    fn a_default_naming_no_option_is_located_at_its_field() {
        let text = format!(
            "{BASE}{}{FINDING}",
            READING.replace("\"both\"\nrule", "\"none\"\nrule")
        );
        let e = parse(&text).unwrap_err();
        assert!(
            e.contains("t.toml:") && e.contains("reading[0].default"),
            "{e}"
        );
        assert!(e.contains("default `none` names no option"), "{e}");
    }

    #[test]
    fn a_measure_reading_a_derived_value_is_refused() {
        let text = format!(
            "{BASE}{READING}{}",
            FINDING.replace("time[eifel=on]", "up[eifel=on]")
        );
        let e = parse(&text).unwrap_err();
        assert!(
            e.contains("finding[0].measure") && e.contains("derived"),
            "{e}"
        );
    }

    #[test]
    fn a_reading_that_a_grid_axis_overrides_is_refused() {
        let text = format!(
            "{BASE}{}{FINDING}",
            READING.replace("link.1.spikes.0.dirs", "flow.0.tcp.spurious")
        );
        let e = parse(&text).unwrap_err();
        assert!(
            e.contains("reading[0].option[1].set") && e.contains("grid `main` sets too"),
            "{e}"
        );
    }

    #[test]
    fn readings_without_findings_and_bad_conditions_are_refused() {
        let e = parse(&format!("{BASE}{READING}")).unwrap_err();
        assert!(e.contains("without a `[[finding]]`"), "{e}");
        let e = parse(&format!("{BASE}{}", FINDING.replace("< 1", "smaller"))).unwrap_err();
        assert!(e.contains("finding[0].holds"), "{e}");
    }

    #[test]
    fn paths_overlap_when_one_lies_under_the_other() {
        assert!(overlaps("link.1.spikes", "link.1.spikes.0.dirs"));
        assert!(overlaps("a.b", "a.b"));
        assert!(!overlaps("link.1.spikes.0.dirs", "link.1.spikes.0.dir"));
    }
}
