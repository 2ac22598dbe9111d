//! The experiment files under `experiments/`: a base scenario, grids of overrides,
//! the tables to write, the paper's published values, and the figures to draw.
//!
//! ```toml
//! name = "gprs-eifel"
//! title = "..."
//! scenario = "gprs-eifel.toml"        # a file of scenarios/ (or beside a file on disk)
//! flow = "download"                   # the flow the tables report
//! notes = "model choices, as Markdown"
//!
//! [[grid]]
//! name = "main"
//! [[grid.axis]]
//! name = "tcp"
//! values = [{ label = "reno", set = { "flow.0.tcp.recovery" = "reno" } }, ...]
//!
//! [[table]]
//! grid = "main"
//! file = "table2_download_time.csv"
//! keys = ["scenario", "buffer_kb", "tcp", "eifel"]
//! metrics = [{ column = "mean", metric = "download_time_s" }]
//! rows = ["buffer_kb", "scenario"]     # the Markdown layout, like the paper's
//! columns = ["tcp", "eifel"]
//! [[table.paper]]                       # only where the paper publishes numbers
//! cell = { eifel = "off" }
//! values = { time_s = 138.0 }
//!
//! [[figure]]
//! name = "fig2"
//! kind = "time-sequence"                # or "window-timer"
//! set = { "link.0.spikes.0" = { kind = "hiccup", at = [{ start = "3s", duration = "5s" }] } }
//! ```
//!
//! A `set` key is a dotted path into the scenario's TOML: table keys and array indices
//! (`flow.0.tcp.recovery`); missing tables are created.

use super::result::RustBlocks;
use anyhow::{anyhow, Context as _};
use serde::Deserialize;
use spikelab_scenario::error::Locator;
use spikelab_scenario::{FieldPath, Invalid, ScenarioError};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One experiment file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    pub name: String,
    pub title: String,
    /// The base scenario: a file name in `scenarios/` (built in), or, for a file read
    /// from disk (`reproduce --experiment`), a path relative to the experiment file.
    pub scenario: String,
    /// The flow whose metrics the tables report.
    pub flow: String,
    /// Setup and model choices, shown in the report.
    #[serde(default)]
    pub notes: String,
    #[serde(default)]
    pub grid: Vec<Grid>,
    #[serde(default)]
    pub table: Vec<TableSpec>,
    #[serde(default)]
    pub figure: Vec<FigureSpec>,
    /// CSV files with chosen columns: per cell (grid values) or per repetition.
    #[serde(default)]
    pub csv: Vec<CsvSpec>,
    /// Report tables whose cells are templates over grid values.
    #[serde(default)]
    pub report_table: Vec<ReportTableSpec>,
    /// Line charts of a grid value against an axis, one series per label of another.
    #[serde(default)]
    pub chart: Vec<ChartSpec>,
    /// "Largest value of an axis up to which a condition holds", beside the paper's.
    #[serde(default)]
    pub threshold: Vec<ThresholdSpec>,
    /// Report text with `{...}` placeholders (see [`crate::grid::expr`]).
    #[serde(default)]
    pub text: Vec<TextSpec>,
    /// The order of the report's blocks: `notes`, `table:<file>`, `figure:<name>`,
    /// `report_table:<name>`, `chart:<name>`, `thresholds`, `text:<name>`,
    /// `comparisons:<block>`, `feed:<name>`, `feed_comparisons:<name>`. Empty: the
    /// notes, then every table, then every figure (the Eifel experiments' layout).
    #[serde(default)]
    pub layout: Vec<String>,
    /// Our numbers beside the paper's, each an expression (`comparisons:<block>`).
    #[serde(default)]
    pub comparison: Vec<ComparisonSpec>,
    /// Synthetic RTT sequences fed straight into estimators (`feed:<name>`,
    /// `feed_comparisons:<name>`; `rtt_feed`).
    #[serde(default)]
    pub feed: Vec<crate::grid::rtt_feed::FeedSpec>,
    /// Best cells by their values, read by comparisons (`picks`).
    #[serde(default)]
    pub pick: Vec<PickSpec>,
    /// Delay traces of the scenario's links written as files (`trace_file`).
    #[serde(default)]
    pub trace_file: Vec<TraceFileSpec>,
    /// Tables of explicit rows of templates (`text_table:<name>`,
    /// `text_table`).
    #[serde(default)]
    pub text_table: Vec<TextTableSpec>,
    /// The inputs the paper leaves unstated, each with its named readings
    /// (`spikelab reproduce NAME --readings`; [`crate::grid::readings`]).
    #[serde(default)]
    pub reading: Vec<crate::grid::readings::ReadingSpec>,
    /// How `--readings` combines the readings: one at a time (default) or all.
    #[serde(default)]
    pub reading_plan: crate::grid::readings::ReadingPlan,
    /// The findings the paper states, each a statement over a grid's values, scored
    /// under every reading.
    #[serde(default)]
    pub finding: Vec<crate::grid::readings::FindingSpec>,
    /// Where the scenario files it names are read: `None` for the built-in
    /// `scenarios/`, else this directory (that of an experiment file read from disk).
    #[serde(skip)]
    pub scenario_dir: Option<PathBuf>,
    /// The Rust blocks its layout items `rust:<name>` name ([`Self::with_rust_blocks`]);
    /// none for a file just parsed.
    #[serde(skip)]
    pub rust_blocks: RustBlocks,
}

/// How a grid value reduces a metric's repetitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agg {
    /// Mean with its 95% confidence half-width.
    #[default]
    Mean,
    /// Sum.
    Sum,
    /// Number of repetitions with a finite value.
    Count,
}

/// A named per-cell value of a grid (a derived column): a metric over the cell's
/// repetitions, optionally paired with a baseline cell or divided by another value.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueSpec {
    pub name: String,
    /// A metric of [`crate::metrics`].
    pub metric: String,
    #[serde(default)]
    pub agg: Agg,
    /// Only repetitions where this metric is finite and non-zero (e.g. `completed`).
    #[serde(default)]
    pub only_if: Option<String>,
    /// Paired increase in percent, 100 (x / x_base - 1), repetition by repetition,
    /// over the cell with these labels changed (the same seed, hence the same spikes).
    #[serde(default)]
    pub increase_over: Option<BTreeMap<String, String>>,
    /// Paired difference x - x_base, repetition by repetition, over the cell with these
    /// labels changed: its mean and 95 % half-width, and (`.dz`, `.p`, `.p_holm`) the
    /// effect size, the paired t test's p-value and that p-value Holm-adjusted over
    /// every cell of this value compared with another (`crate::compare`).
    #[serde(default)]
    pub diff_over: Option<BTreeMap<String, String>>,
    /// Divide by the value of this (earlier) name: a ratio of the two aggregates.
    #[serde(default)]
    pub per: Option<String>,
}

/// One column of a [`CsvSpec`]: a key label, `rep` (per-run files), a grid value's
/// statistic, or a metric (per-run files).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvColumn {
    pub name: String,
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    /// `mean` (default), `ci95` or `n` of `value`.
    #[serde(default)]
    pub stat: Option<String>,
    #[serde(default)]
    pub metric: Option<String>,
    /// Written as an integer.
    #[serde(default)]
    pub int: bool,
    /// `x` or `cdf` of a `distribution` file's bin.
    #[serde(default)]
    pub bin: Option<String>,
    /// A column of a `run_series` file's sample (`run_series`).
    #[serde(default)]
    pub column: Option<String>,
}

/// A CSV file with chosen columns, one row per cell or per repetition.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvSpec {
    pub file: String,
    pub grid: String,
    #[serde(default)]
    pub per_run: bool,
    /// One row per bin of this distribution metric merged over each cell's runs, up
    /// to `max_x`; a column with `bin = "x"` or `bin = "cdf"` writes the bin's upper
    /// edge or the distribution function there.
    #[serde(default)]
    pub distribution: Option<String>,
    #[serde(default)]
    pub max_x: Option<f64>,
    /// One row per sample of this run-series metric in each cell's first run
    /// (`run_series`); a column with `column` writes a field of the sample.
    #[serde(default)]
    pub run_series: Option<String>,
    pub columns: Vec<CsvColumn>,
}

/// A report column: its header and a template evaluated in the row's cell.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportColumn {
    pub header: String,
    pub text: String,
}

/// A report table: one row per label of axis `rows` (cells restricted by `where`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportTableSpec {
    pub name: String,
    pub grid: String,
    pub title: String,
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
    pub rows: String,
    pub row_header: String,
    /// A second key column: one row per combination of the `rows` and `sub_rows`
    /// labels present (in grid order), headed `sub_row_header`.
    #[serde(default)]
    pub sub_rows: Option<String>,
    #[serde(default)]
    pub sub_row_header: String,
    pub columns: Vec<ReportColumn>,
}

/// What a [`ChartSpec`] draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChartKind {
    /// Lines: grid value `value` (mean, 95% half-width) against the numeric labels of
    /// axis `x`.
    #[default]
    Axis,
    /// Points: every repetition's `metric` against the numeric labels of axis `x`.
    Scatter,
    /// Empirical distribution functions of `metric`, pooled over each series' cells
    /// and repetitions (a distribution metric: every sample, up to `max_x`).
    Cdf,
    /// Bars: grid value `value` (mean, 95% half-width) of every cell `where` picks, in
    /// grid order, each under the label `bar_label` (a template of its labels).
    Bar,
    /// Lines through the samples of run-series metric `metric` in the first run of the one
    /// cell `where` picks: column `x` along x, one line per `lines` entry
    /// (`run_series`).
    Run,
}

/// A chart of a grid, one series per label of axis `series` (all, or
/// `series_values`), over the cells `where` picks.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartSpec {
    pub name: String,
    pub grid: String,
    #[serde(default)]
    pub kind: ChartKind,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The axis along x (`axis` and `scatter`).
    #[serde(default)]
    pub x: String,
    /// The axis whose labels are the series (every kind but `run`).
    #[serde(default)]
    pub series: String,
    #[serde(default)]
    pub series_values: Vec<String>,
    /// A grid value (`axis`).
    #[serde(default)]
    pub value: String,
    /// A metric (`scatter`, `cdf`).
    #[serde(default)]
    pub metric: String,
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
    /// A label whose value (in a series' first cell) names the series, instead of the
    /// series' own label.
    #[serde(default)]
    pub legend: Option<String>,
    /// `scatter`: series k of n is drawn `dodge * (k - (n - 1) / 2)` right of its x,
    /// so that series at the same x do not hide each other.
    #[serde(default)]
    pub dodge: f64,
    /// `cdf` of a distribution metric: the largest x drawn.
    #[serde(default)]
    pub max_x: Option<f64>,
    /// `bar`: each bar's label, `{key}` a label of its cell.
    #[serde(default)]
    pub bar_label: String,
    /// `run`: the lines, each a column of the run-series metric's samples.
    #[serde(default)]
    pub lines: Vec<LineSpec>,
    /// `run`: only the samples at x >= `x_from`.
    #[serde(default)]
    pub x_from: Option<f64>,
    /// `axis`: reference lines, each the value of one other cell drawn flat
    /// (`baselines`).
    #[serde(default)]
    pub baseline: Vec<Baseline>,
}

/// The largest label of `axis` (read as a number) up to which `holds` is true at every
/// label in axis order, set beside the paper's `paper`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdSpec {
    pub what: String,
    /// The label instead, when the condition held at the last label of the axis.
    #[serde(default)]
    pub what_if_last: Option<String>,
    pub grid: String,
    pub axis: String,
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
    pub holds: String,
    pub paper: f64,
    pub unit: String,
}

/// Report text; `{...}` are expressions over `grid`'s values (and `reps`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextSpec {
    pub name: String,
    #[serde(default)]
    pub grid: Option<String>,
    pub text: String,
}

/// Overrides applied to the base scenario (`set`), under a label.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisValue {
    pub label: String,
    #[serde(default)]
    pub set: toml::Table,
    /// Extra key labels this value implies (e.g. `cc_restore = "-"` when Eifel is off).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

/// One dimension of a grid.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    pub name: String,
    pub values: Vec<AxisValue>,
}

/// A grid: every combination of its axes' values is one cell, run `reps` times.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    pub name: String,
    /// A base scenario for this grid instead of the experiment's.
    #[serde(default)]
    pub scenario: Option<String>,
    /// Overrides shared by every cell of the grid.
    #[serde(default)]
    pub set: toml::Table,
    /// Repetitions per cell as an expression of `reps` (`--reps`), e.g.
    /// `max(1, ceil(reps / 50))` where one run is itself a large sample; default `reps`.
    #[serde(default)]
    pub reps: Option<String>,
    #[serde(default)]
    pub axis: Vec<Axis>,
    /// Named per-cell values (derived columns) for CSV files, report tables, charts,
    /// thresholds and text.
    #[serde(default)]
    pub value: Vec<ValueSpec>,
    /// Flow groups: a run metric named `metric@group` is taken over the group's flows.
    #[serde(default)]
    pub group: Vec<FlowGroup>,
    /// Unfold the results by group (`pooled`): each cell gives one row
    /// per group, labelled `<group_axis> = <group name>` and the group's `labels`, and
    /// a flow-group metric named without `@group` is taken over that row's group.
    #[serde(default)]
    pub group_axis: Option<String>,
    /// Labels every cell (row) carries, derived from its others: `{key}` is the label
    /// `key` (e.g. a legend `"{timer}, {ts}"` naming a combination of axes).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// The flow whose metrics this grid reads instead of the experiment's `flow` (a
    /// grid over another base scenario).
    #[serde(default)]
    pub flow: Option<String>,
    /// Further cells after the product of `axis` (`products`).
    #[serde(default)]
    pub product: Vec<Product>,
    /// Overrides computed from each cell's labels (`computed_set`).
    #[serde(default)]
    pub computed_set: Vec<ComputedSet>,
}

/// A set of flows by name; a counted flow's replicas (`name#r`) belong to its name.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    pub name: String,
    pub flows: Vec<String>,
    /// Labels of the group's rows (with `group_axis`); `{key}` in a value is the
    /// cell's label `key`.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

impl FlowGroup {
    /// Whether the flow called `flow` is in the group.
    pub fn contains(&self, flow: &str) -> bool {
        let base = flow.split_once('#').map_or(flow, |(b, _)| b);
        self.flows.iter().any(|f| f == flow || f == base)
    }
}

/// A metric column of a table: `column` in the CSV, `metric` a [`crate::metrics`] name.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricColumn {
    pub column: String,
    pub metric: String,
}

/// Published values for one cell (the labels in `cell` pick it).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperValues {
    pub cell: BTreeMap<String, String>,
    pub values: BTreeMap<String, f64>,
}

/// A table written as CSV and Markdown.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub grid: String,
    /// The CSV file.
    pub file: String,
    /// The Markdown file, laid out like the paper's table.
    pub markdown: String,
    pub title: String,
    /// Key columns in order: axis names, or names given a fixed value in `labels`.
    pub keys: Vec<String>,
    /// Fixed key values for keys that are not axes of the grid.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    pub metrics: Vec<MetricColumn>,
    /// Axes laid out as rows and columns of the Markdown table.
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    #[serde(default)]
    pub paper: Vec<PaperValues>,
}

/// A figure: one run of the base scenario with `set` applied, traced and plotted.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    pub name: String,
    /// A base scenario for this figure instead of the experiment's.
    #[serde(default)]
    pub scenario: Option<String>,
    pub title: String,
    /// `time-sequence` or `window-timer`.
    pub kind: String,
    #[serde(default)]
    pub set: toml::Table,
    #[serde(default)]
    pub seed: Option<u64>,
    /// The event the paper's figure shows; the caption says whether the plotted run
    /// shows it too, and if not, the first seed whose run does
    /// ([`crate::report::caption`]).
    #[serde(default)]
    pub shows: Option<crate::report::caption::Shows>,
    /// How the plotted seed is chosen when `seed` is not given: `"run"` (the default:
    /// the run's seed) or `"first-showing"` (the first seed whose run shows `shows`,
    /// the rule stated in the caption: for a figure the paper draws to illustrate one
    /// mechanism, such as [Gurtov & Ludwig 2002] Fig. 7).
    #[serde(default)]
    pub seed_rule: SeedRule,
}

/// How a figure's plotted seed is chosen ([`FigureSpec::seed_rule`]).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SeedRule {
    /// The run's seed (`--seed`), or the figure's `seed`.
    #[default]
    Run,
    /// The first seed in 1..=100 whose run shows the figure's `shows` event.
    FirstShowing,
}

/// One of our numbers beside the paper's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComparisonSpec {
    /// The layout block (`comparisons:<block>`) it is shown in, in file order.
    pub block: String,
    pub grid: String,
    /// What is compared; `{...}` placeholders as in report text.
    pub what: String,
    /// Our value: an expression over the grid's values and pooled metrics.
    pub value: String,
    /// Its 95% half-width, if one is meaningful.
    #[serde(default)]
    pub ci95: Option<String>,
    pub paper: f64,
    pub unit: String,
    /// `what` instead when our value is NaN (e.g. a `over_axis` reduction whose
    /// condition never held).
    #[serde(default)]
    pub what_if_nan: Option<String>,
    /// Labels every reference of `what`, `value` and `ci95` is restricted to.
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
    /// A `[[pick]]` whose cell the comparison reads (`picks`).
    #[serde(default)]
    pub pick: Option<String>,
}

/// One objective of a pick: the least or the greatest mean of a grid value.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Objective {
    Min(String),
    Max(String),
}

/// A named best cell.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PickSpec {
    pub name: String,
    pub grid: String,
    /// The candidate cells.
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
    /// The objectives, the first deciding unless it ties.
    pub by: Vec<Objective>,
}

/// One trace file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceFileSpec {
    /// The file in the output folder.
    pub file: String,
    /// A base scenario instead of the experiment's.
    #[serde(default)]
    pub scenario: Option<String>,
    /// The link whose forward direction generates the trace.
    pub link: String,
    /// The file's first line, after `# `.
    pub comment: String,
}

/// One cell: a template, or a template over a picked cell's labels.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum CellSpec {
    Text(String),
    Picked { pick: String, text: String },
}

/// A table of explicit rows.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextTableSpec {
    pub name: String,
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<CellSpec>>,
}

/// One line of a `run` chart: a column of the samples and its legend.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    pub column: String,
    pub label: String,
}

/// One reference line.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Its legend.
    pub label: String,
    /// The labels that pick its one cell (the chart's `where` does not apply).
    pub cell: BTreeMap<String, String>,
}

/// One further block of cells: the product of its axes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Product {
    pub axis: Vec<Axis>,
}

/// One computed override.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputedSet {
    /// The cells it applies to (all if empty).
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, String>,
    /// A dotted path into the scenario, as in `set`.
    pub path: String,
    /// An expression over the cell's labels.
    pub value: String,
    /// Written as an integer.
    #[serde(default)]
    pub int: bool,
}

/// The base scenario `name` of `spec`: its text, and the name its messages and relative
/// paths use. A file of `spec.scenario_dir` when the experiment was read from disk,
/// else one of `scenarios/` built in.
pub fn base_text(spec: &ExperimentSpec, name: &str) -> anyhow::Result<(Cow<'static, str>, String)> {
    match &spec.scenario_dir {
        Some(dir) => {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read scenario {}", path.display()))?;
            Ok((Cow::Owned(text), path.display().to_string()))
        }
        None => {
            let text = crate::embedded::scenario(name)
                .ok_or_else(|| anyhow!("no built-in scenario `{name}`"))?;
            Ok((
                Cow::Borrowed(text),
                crate::embedded::scenario_shown_as(name),
            ))
        }
    }
}

impl ExperimentSpec {
    /// `invalid` located in the experiment file `text` named `name`.
    pub fn locate(text: &str, name: &str, invalid: Invalid) -> ScenarioError {
        let doc = toml_edit::ImDocument::parse(text).ok();
        Locator::new(name, text, doc.as_ref()).locate(invalid)
    }

    /// Every base scenario the file names, with the field that names it.
    pub fn scenarios(&self) -> Vec<(FieldPath, &str)> {
        let mut out = vec![(FieldPath::root("scenario"), self.scenario.as_str())];
        for (i, g) in self.grid.iter().enumerate() {
            if let Some(s) = &g.scenario {
                out.push((FieldPath::root("grid").index(i).key("scenario"), s.as_str()));
            }
        }
        for (i, f) in self.figure.iter().enumerate() {
            if let Some(s) = &f.scenario {
                out.push((
                    FieldPath::root("figure").index(i).key("scenario"),
                    s.as_str(),
                ));
            }
        }
        out
    }

    /// The grid called `name`.
    pub fn grid(&self, name: &str) -> Option<&Grid> {
        self.grid.iter().find(|g| g.name == name)
    }
}
