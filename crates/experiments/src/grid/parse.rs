//! Reading an experiment file: [`ExperimentSpec::parse`] parses it and checks it
//! against the grid's blocks (every name it uses names something the file or the crate
//! defines), each problem located at its field.

use super::result::RustBlocks;
use super::spec::{ChartKind, ExperimentSpec, Grid, TableSpec};
use crate::metrics;
use spikelab_scenario::error::Locator;
use spikelab_scenario::{FieldPath, Invalid, ScenarioError};

/// Checks the group of metric `m` (if any) is a group of `g` and `m` a run metric.
fn group_of(g: &Grid, what: &str, m: &str) -> Result<(), String> {
    let Some(group) = metrics::split_group(m).1 else {
        return Ok(());
    };
    if !metrics::takes_group(m) {
        return Err(format!(
            "{what}: `{m}`: this metric reads the experiment's flow alone and takes no group"
        ));
    }
    if !g.group.iter().any(|x| x.name == group) {
        return Err(format!(
            "{what}: `{m}`: no group `{group}` in grid `{}`",
            g.name
        ));
    }
    Ok(())
}

/// Checks `m` names a known metric.
fn metric(what: &str, m: &str) -> Result<(), String> {
    if metrics::known(m) {
        Ok(())
    } else {
        Err(format!(
            "{what}: unknown metric `{m}` (known: {})",
            metrics::known_names()
        ))
    }
}

/// `m` is a known metric of grid `g` (its group, if any, one of `g`'s), or the
/// problem at `path`.
fn grid_metric(g: Option<&Grid>, what: &str, m: &str, path: FieldPath) -> Result<(), Invalid> {
    metric(what, m)
        .and_then(|()| g.map_or(Ok(()), |g| group_of(g, what, m)))
        .map_err(|e| Invalid::new(path, e))
}

impl ExperimentSpec {
    /// Parses an experiment file; `name` (the file as the user named it) starts every
    /// error, which is located `name:line:col: field `path`: why`.
    pub fn parse(text: &str, name: &str) -> Result<ExperimentSpec, ScenarioError> {
        let doc = toml_edit::ImDocument::parse(text).map_err(|e| {
            Locator::new(name, text, None).at_offset(
                e.span().map_or(0, |s| s.start),
                format!("TOML syntax: {}", e.message()),
            )
        })?;
        let at = Locator::new(name, text, Some(&doc));
        let spec: ExperimentSpec = toml::from_str(text).map_err(|e: toml::de::Error| {
            at.at_offset(e.span().map_or(0, |s| s.start), e.message().to_owned())
        })?;
        spec.check().map_err(|e| at.locate(e))?;
        Ok(spec)
    }

    /// This file, parsed from `text` named `name`, with the Rust blocks its layout
    /// items `rust:<name>` may name; an item naming none of them is a located error.
    pub fn with_rust_blocks(
        mut self,
        blocks: RustBlocks,
        text: &str,
        name: &str,
    ) -> Result<ExperimentSpec, ScenarioError> {
        self.rust_blocks = blocks;
        crate::grid::layout::check_rust(&self).map_err(|e| Self::locate(text, name, e))?;
        Ok(self)
    }

    fn check(&self) -> Result<(), Invalid> {
        let plain = |c: char| c.is_ascii_alphanumeric() || "._-".contains(c);
        if self.name.is_empty() || self.name.starts_with('.') || !self.name.chars().all(plain) {
            return Err(Invalid::new(
                FieldPath::root("name"),
                format!(
                    "`{}` cannot name the output folder: use letters, digits, `.`, `_`, `-`",
                    self.name
                ),
            ));
        }
        for (i, t) in self.table.iter().enumerate() {
            self.check_table(t, FieldPath::root("table").index(i))?;
        }
        self.check_values()?;
        self.check_grids_named()?;
        self.check_csv()?;
        crate::grid::run_series::check(self)?;
        crate::grid::rtt_feed::check(&self.feed)?;
        crate::grid::pooled::check(self)?;
        crate::grid::picks::check(self)?;
        crate::grid::layout::check(self)?;
        crate::grid::readings_check::check(self)?;
        self.check_charts()
    }

    fn check_table(&self, t: &TableSpec, at: FieldPath) -> Result<(), Invalid> {
        let g = self.grid(&t.grid).ok_or_else(|| {
            Invalid::new(
                at.key("grid"),
                format!("table `{}`: no grid `{}`", t.file, t.grid),
            )
        })?;
        let axes = [("rows", &t.rows), ("columns", &t.columns)];
        for (field, keys) in axes {
            for (j, k) in keys.iter().enumerate() {
                if !g.axis.iter().any(|a| &a.name == k) {
                    return Err(Invalid::new(
                        at.key(field).index(j),
                        format!(
                            "table `{}`: `{k}` is not an axis of grid `{}`",
                            t.file, g.name
                        ),
                    ));
                }
            }
        }
        let implied = |k: &String| {
            g.axis
                .iter()
                .any(|a| a.values.iter().any(|v| v.labels.contains_key(k)))
        };
        for (j, k) in t.keys.iter().enumerate() {
            if !g.axis.iter().any(|a| &a.name == k) && !t.labels.contains_key(k) && !implied(k) {
                return Err(Invalid::new(
                    at.key("keys").index(j),
                    format!(
                        "table `{}`: key `{k}` is neither an axis nor a label",
                        t.file
                    ),
                ));
            }
        }
        for (j, m) in t.metrics.iter().enumerate() {
            if !metrics::NAMES.contains(&m.metric.as_str()) {
                let known = metrics::NAMES.join(", ");
                return Err(Invalid::new(
                    at.key("metrics").index(j).key("metric"),
                    format!(
                        "table `{}`: unknown metric `{}` (known: {known})",
                        t.file, m.metric
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every grid's `reps` parses and its values name known metrics of known groups.
    fn check_values(&self) -> Result<(), Invalid> {
        for (i, g) in self.grid.iter().enumerate() {
            let at = FieldPath::root("grid").index(i);
            if let Some(r) = &g.reps {
                crate::grid::expr::parse(r).map_err(|e| {
                    Invalid::new(at.key("reps"), format!("grid `{}` reps: {e}", g.name))
                })?;
            }
            for (j, v) in g.value.iter().enumerate() {
                let what = format!("grid `{}` value `{}`", g.name, v.name);
                let v_at = at.key("value").index(j);
                grid_metric(Some(g), &what, &v.metric, v_at.key("metric"))?;
                if let Some(m) = &v.only_if {
                    grid_metric(Some(g), &what, m, v_at.key("only_if"))?;
                }
            }
        }
        Ok(())
    }

    /// Every CSV file, report table, chart and threshold names a grid of the file.
    fn check_grids_named(&self) -> Result<(), Invalid> {
        let named = |kind: &str, i: usize, g: &String, what: &String| match self.grid(g) {
            Some(_) => Ok(()),
            None => Err(Invalid::new(
                FieldPath::root(kind).index(i).key("grid"),
                format!("`{what}`: no grid `{g}`"),
            )),
        };
        for (i, c) in self.csv.iter().enumerate() {
            named("csv", i, &c.grid, &c.file)?;
        }
        for (i, t) in self.report_table.iter().enumerate() {
            named("report_table", i, &t.grid, &t.name)?;
        }
        for (i, c) in self.chart.iter().enumerate() {
            named("chart", i, &c.grid, &c.name)?;
        }
        for (i, t) in self.threshold.iter().enumerate() {
            named("threshold", i, &t.grid, &t.what)?;
        }
        Ok(())
    }

    /// Every metric column of a CSV file is a known metric of its grid.
    fn check_csv(&self) -> Result<(), Invalid> {
        for (i, c) in self.csv.iter().enumerate() {
            let what = format!("csv `{}`", c.file);
            for (j, col) in c.columns.iter().enumerate() {
                if let Some(m) = &col.metric {
                    let at = FieldPath::root("csv").index(i).key("columns").index(j);
                    grid_metric(self.grid(&c.grid), &what, m, at.key("metric"))?;
                }
            }
        }
        Ok(())
    }

    /// Every chart has the fields its kind needs and names a known metric.
    fn check_charts(&self) -> Result<(), Invalid> {
        for (i, c) in self.chart.iter().enumerate() {
            let what = format!("chart `{}`", c.name);
            let at = FieldPath::root("chart").index(i);
            match c.kind {
                ChartKind::Axis if c.value.is_empty() || c.x.is_empty() => {
                    return Err(Invalid::new(
                        at,
                        format!("{what}: an axis chart needs `x` and `value`"),
                    ))
                }
                ChartKind::Scatter if c.x.is_empty() => {
                    return Err(Invalid::new(
                        at,
                        format!("{what}: a scatter chart needs `x`"),
                    ))
                }
                ChartKind::Scatter | ChartKind::Cdf => {
                    grid_metric(self.grid(&c.grid), &what, &c.metric, at.key("metric"))?;
                }
                ChartKind::Axis | ChartKind::Bar | ChartKind::Run => {}
            }
        }
        Ok(())
    }
}
