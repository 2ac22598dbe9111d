//! `spikelab reproduce NAME --readings`: the grids the findings read, run under every
//! reading ([`super::readings`]): the default, then each reading's other options one at
//! a time (or every combination, `reading_plan = "all-combinations"`), repetition r of
//! every reading with the same seed, so with the same spike schedule. Writes
//! `readings.csv` and `readings.md` (the readings declared and the findings × readings
//! matrix) into the paper's folder and returns the report's section.

use super::expr::{self, Env, Ref};
use super::readings::{Condition, FindingSpec, Verdict};
use super::readings_check::grids_read;
use super::result::GridResult;
use super::run::{expand, plan_grid, run_grid, Planned};
use super::spec::{base_text, ExperimentSpec, Grid};
use crate::context::Context;
use crate::report::{table_to_markdown, Block, Section, Table};
use crate::shared_runs::SharedRuns;
use anyhow::{anyhow, Context as _};
use rayon::prelude::*;
use spikelab_output::csv::CsvWriter;
use spikelab_output::stats::Summary;
use spikelab_scenario::FieldPath;

/// One column of the matrix: an option chosen for every reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// `default`, or the non-default choices, `input: option; ...`.
    pub label: String,
    /// Per reading (in file order), the index of its option.
    pub choice: Vec<usize>,
}

/// The readings' variants in the order of the matrix's columns, the default first.
pub fn variants(spec: &ExperimentSpec) -> Vec<Variant> {
    let defaults: Vec<usize> = spec.reading.iter().map(|r| r.default_index()).collect();
    let choices: Vec<Vec<usize>> = match spec.reading_plan {
        super::readings::ReadingPlan::OneAtATime => {
            let mut out = vec![defaults.clone()];
            for (i, r) in spec.reading.iter().enumerate() {
                for j in (0..r.option.len()).filter(|&j| j != defaults[i]) {
                    let mut c = defaults.clone();
                    c[i] = j;
                    out.push(c);
                }
            }
            out
        }
        super::readings::ReadingPlan::AllCombinations => {
            let mut out: Vec<Vec<usize>> = vec![vec![]];
            for r in &spec.reading {
                out = out
                    .into_iter()
                    .flat_map(|c| {
                        (0..r.option.len()).map(move |j| {
                            let mut next = c.clone();
                            next.push(j);
                            next
                        })
                    })
                    .collect();
            }
            // The default first, the rest in product order.
            out.sort_by_key(|c| *c != defaults);
            out
        }
    };
    choices
        .into_iter()
        .map(|choice| Variant {
            label: label(spec, &choice, &defaults),
            choice,
        })
        .collect()
}

fn label(spec: &ExperimentSpec, choice: &[usize], defaults: &[usize]) -> String {
    let changed: Vec<String> = spec
        .reading
        .iter()
        .enumerate()
        .filter(|(i, _)| choice[*i] != defaults[*i])
        .map(|(i, r)| format!("{}: {}", r.input, r.option[choice[i]].name))
        .collect();
    if changed.is_empty() {
        "default".into()
    } else {
        changed.join("; ")
    }
}

/// Grid `g` under `choice`: every applying reading's option set added to the grid's own.
fn grid_under(spec: &ExperimentSpec, g: &Grid, choice: &[usize]) -> Grid {
    let mut out = g.clone();
    for (r, &j) in spec.reading.iter().zip(choice) {
        if r.applies_to(&g.name) {
            out.set
                .extend(r.option[j].set.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    out
}

/// Checks every option of every reading applies to the grids it reads in (each cell a
/// valid scenario), and that every default leaves every cell's configuration as the
/// grid already runs it: the default column is the reproduction itself. The problem is
/// located at the option's `set`.
pub fn check_scenarios(spec: &ExperimentSpec) -> Result<(), (FieldPath, anyhow::Error)> {
    for g in grids_read(spec) {
        let (base, name) = base_text(spec, g.scenario.as_deref().unwrap_or(&spec.scenario))
            .map_err(|e| (FieldPath::root("scenario"), e))?;
        let own = expand(&base, &name, g).map_err(|e| (FieldPath::root("grid"), e))?;
        for (i, r) in spec
            .reading
            .iter()
            .enumerate()
            .filter(|(_, r)| r.applies_to(&g.name))
        {
            for (j, o) in r.option.iter().enumerate() {
                let at = FieldPath::root("reading")
                    .index(i)
                    .key("option")
                    .index(j)
                    .key("set");
                // This option alone, so that a problem is located at its own `set`.
                let mut under = g.clone();
                under
                    .set
                    .extend(o.set.iter().map(|(k, v)| (k.clone(), v.clone())));
                let cells = expand(&base, &name, &under).map_err(|e| (at.clone(), e))?;
                if j != r.default_index() {
                    continue;
                }
                let changed = own
                    .iter()
                    .zip(&cells)
                    .find(|(a, b)| a.scenario.to_sim() != b.scenario.to_sim());
                if let Some((cell, _)) = changed {
                    let why = anyhow!(
                        "reading `{}`: default `{}` changes cell {:?} of grid `{}`: the default \
                         must be what the grids already run",
                        r.input,
                        o.name,
                        cell.labels,
                        g.name
                    );
                    return Err((at, why));
                }
            }
        }
    }
    Ok(())
}

/// A measure's references read in one repetition: each the metric of a plain grid value
/// in the one cell its labels pick.
struct OneRep<'a> {
    grid: &'a Grid,
    result: &'a GridResult,
    rep: usize,
}

impl Env for OneRep<'_> {
    fn lookup(&self, r: &Ref) -> Result<f64, String> {
        let cells: Vec<usize> = (0..self.result.labels.len())
            .filter(|&c| {
                let l = &self.result.labels[c];
                r.sel.iter().all(|(k, v)| l.get(k) == Some(v))
            })
            .collect();
        let [cell] = cells[..] else {
            return Err(format!(
                "`{}` with {:?} picks {} cells of grid `{}`, not one",
                r.name,
                r.sel,
                cells.len(),
                self.grid.name
            ));
        };
        let metric = self
            .grid
            .value
            .iter()
            .find(|v| v.name == r.name)
            .map(|v| &v.metric)
            .ok_or_else(|| format!("no value `{}` in grid `{}`", r.name, self.grid.name))?;
        let m = self.result.names.iter().position(|n| n == metric);
        let m = m.ok_or_else(|| format!("grid `{}` did not collect `{metric}`", self.grid.name))?;
        let reps = &self.result.raw[cell];
        Ok(reps.get(self.rep).map_or(f64::NAN, |x| x[m]))
    }

    fn sum(&self, r: &Ref) -> Result<f64, String> {
        Err(format!(
            "`sum({})`: a measure reads one cell per reference",
            r.name
        ))
    }
}

/// Finding `f` scored on grid `g`'s results: its measure per repetition, paired.
pub fn score(f: &FindingSpec, g: &Grid, result: &GridResult) -> anyhow::Result<Verdict> {
    let e = expr::parse(&f.measure).map_err(|e| anyhow!("finding `{}`: {e}", f.name))?;
    let cond = Condition::parse(&f.holds).map_err(|e| anyhow!("finding `{}`: {e}", f.name))?;
    let reps = result.raw.iter().map(Vec::len).max().unwrap_or(0);
    let xs = (0..reps)
        .map(|rep| {
            let env = OneRep {
                grid: g,
                result,
                rep,
            };
            expr::eval(&e, &env).map_err(|e| anyhow!("finding `{}`: {e}", f.name))
        })
        .collect::<anyhow::Result<Vec<f64>>>()?;
    let xs: Vec<f64> = xs.into_iter().filter(|x| x.is_finite()).collect();
    let s = Summary::of(&xs);
    Ok(Verdict::of(cond, s.mean, s.ci95, s.n))
}

/// Runs the grids the findings read under every variant and scores every finding.
fn run_all(
    spec: &ExperimentSpec,
    ctx: &Context,
    variants: &[Variant],
) -> anyhow::Result<Vec<Vec<Verdict>>> {
    let read = grids_read(spec);
    let grids: Vec<Grid> = variants
        .iter()
        .flat_map(|v| read.iter().map(|g| grid_under(spec, g, &v.choice)))
        .collect();
    let planned = grids
        .iter()
        .map(|g| plan_grid(spec, g, ctx))
        .collect::<anyhow::Result<Vec<Planned>>>()?;
    let sims: Vec<_> = planned.iter().map(|p| (p.sims(), p.reps())).collect();
    let shared = SharedRuns::plan(&sims);
    let ran: Vec<anyhow::Result<GridResult>> = crate::runner::on_pool(ctx.jobs, || {
        grids
            .par_iter()
            .zip(&planned)
            .enumerate()
            .map(|(i, (g, p))| run_grid(spec, g, ctx, p, (&shared, i)))
            .collect()
    });
    let ran = ran
        .into_iter()
        .collect::<anyhow::Result<Vec<GridResult>>>()?;
    variants
        .iter()
        .enumerate()
        .map(|(v, _)| {
            spec.finding
                .iter()
                .map(|f| {
                    let k = read
                        .iter()
                        .position(|g| g.name == f.grid)
                        .expect("a grid read");
                    score(f, &grids[v * read.len() + k], &ran[v * read.len() + k])
                })
                .collect()
        })
        .collect()
}

/// The readings declared: one row per option.
fn readings_table(spec: &ExperimentSpec) -> Table {
    let rows = spec
        .reading
        .iter()
        .flat_map(|r| {
            r.option.iter().map(move |o| {
                let default = if o.name == r.default {
                    format!("default: {}", r.rule)
                } else {
                    String::new()
                };
                let set: Vec<String> = o.set.iter().map(|(k, v)| format!("`{k} = {v}`")).collect();
                vec![
                    r.input.clone(),
                    format!("{}: \"{}\"", r.source, r.quote),
                    o.name.clone(),
                    if set.is_empty() {
                        "(the file's own)".into()
                    } else {
                        set.join(", ")
                    },
                    o.note.clone(),
                    default,
                ]
            })
        })
        .collect();
    let header = [
        "input",
        "the paper says",
        "reading",
        "sets",
        "meaning",
        "default by",
    ];
    Table {
        title: format!(
            "Readings of the inputs the paper leaves unstated ({})",
            spec.name
        ),
        header: header.iter().map(|h| h.to_string()).collect(),
        rows,
    }
}

/// The findings × readings matrix.
fn matrix(spec: &ExperimentSpec, variants: &[Variant], verdicts: &[Vec<Verdict>]) -> Table {
    let mut header = vec![
        "finding".to_string(),
        "the paper says".into(),
        "measure".into(),
        "holds if".into(),
    ];
    header.extend(variants.iter().map(|v| v.label.clone()));
    let rows = spec
        .finding
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let reads = if f.reads.is_empty() {
                &f.measure
            } else {
                &f.reads
            };
            let mut row = vec![
                f.name.clone(),
                format!("{}: \"{}\"", f.source, f.quote),
                reads.clone(),
                f.holds.clone(),
            ];
            row.extend(verdicts.iter().map(|v| v[i].cell()));
            row
        })
        .collect();
    Table {
        title:
            "Findings × readings (each cell: verdict, paired mean ± 95% half-width of the measure)"
                .into(),
        header,
        rows,
    }
}

fn write_csv(
    ctx: &Context,
    spec: &ExperimentSpec,
    variants: &[Variant],
    verdicts: &[Vec<Verdict>],
) -> anyhow::Result<()> {
    let path = ctx.dir.join("readings.csv");
    let mut w = CsvWriter::new(std::io::BufWriter::new(std::fs::File::create(&path)?));
    w.row(&["finding", "reading", "mean", "ci95", "n", "holds", "firm"])?;
    for (v, row) in variants.iter().zip(verdicts) {
        for (f, x) in spec.finding.iter().zip(row) {
            w.field_str(&f.name)?;
            w.field_str(&v.label)?;
            w.field_f64(x.mean)?;
            w.field_f64(x.ci95)?;
            w.field_u64(x.n as u64)?;
            w.field_u64(u64::from(x.holds))?;
            w.field_u64(u64::from(x.firm))?;
            w.end_row()?;
        }
    }
    w.into_inner()?;
    Ok(())
}

/// The intro: what ran, how it pairs, how to read a cell, the command.
fn intro(spec: &ExperimentSpec, ctx: &Context, variants: &[Variant]) -> String {
    let plan = match spec.reading_plan {
        super::readings::ReadingPlan::OneAtATime => "the default, then each other reading one at a time with every other input at its default",
        super::readings::ReadingPlan::AllCombinations => "every combination of the readings",
    };
    let grids: Vec<&str> = grids_read(spec).iter().map(|g| g.name.as_str()).collect();
    format!(
        "Produced by `spikelab reproduce {} --readings --reps {} --seed {}`: grids {} under {} ({} columns); \
         repetition r of every reading runs with the same seed, so the same spike schedule, and each \
         measure is taken per repetition and averaged (a paired 95% interval). \"holds\"/\"fails\" is \
         the mean against the paper's statement; a `?` marks an interval that crosses the statement's \
         boundary (not decided at this many repetitions).",
        spec.name,
        ctx.reps,
        ctx.seed,
        grids.join(", "),
        plan,
        variants.len()
    )
}

/// Runs `spec`'s findings under its readings into `ctx.dir` and returns the section.
pub fn run_readings(spec: &ExperimentSpec, ctx: &Context) -> anyhow::Result<Section> {
    if spec.finding.is_empty() {
        return Err(anyhow!("{}: the file declares no `[[finding]]`", spec.name));
    }
    check_scenarios(spec).map_err(|(path, e)| anyhow!("{}: field `{path}`: {e:#}", spec.name))?;
    let vs = variants(spec);
    let verdicts = run_all(spec, ctx, &vs)?;
    write_csv(ctx, spec, &vs, &verdicts).context("writing readings.csv")?;
    let text = intro(spec, ctx, &vs);
    let declared = readings_table(spec);
    let m = matrix(spec, &vs, &verdicts);
    let md = format!(
        "{text}\n\n{}\n{}",
        table_to_markdown(&declared),
        table_to_markdown(&m)
    );
    std::fs::write(ctx.dir.join("readings.md"), md).context("writing readings.md")?;
    Ok(Section {
        name: spec.name.clone(),
        title: format!("{}: findings under each reading", spec.title),
        blocks: vec![Block::Text(text), Block::Table(declared), Block::Table(m)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedded;

    fn built_in(file: &str) -> ExperimentSpec {
        let text = embedded::experiment(file).unwrap();
        ExperimentSpec::parse(text, file).unwrap()
    }

    /// Every built-in file's readings apply to the grids they are read in, and every
    /// default is what those grids already run.
    #[test]
    fn every_built_in_default_reading_is_the_file_s_own_configuration() {
        for file in [
            "gprs-eifel.toml",
            "eifel-response.toml",
            "std-proxy.toml",
            "peak-hopper.toml",
            "delay-injection.toml",
        ] {
            let spec = built_in(file);
            if let Err((path, e)) = check_scenarios(&spec) {
                panic!("{file}: {path}: {e:#}");
            }
        }
    }

    #[test]
    fn a_default_that_changes_a_cell_is_refused_at_its_set() {
        let mut spec = built_in("gprs-eifel.toml");
        let r = &mut spec.reading[0];
        let d = r.default_index();
        r.option[d].set = r.option[1 - d].set.clone();
        let (path, e) = check_scenarios(&spec).unwrap_err();
        assert_eq!(path.to_string(), format!("reading[0].option[{d}].set"));
        assert!(format!("{e}").contains("the default must be what the grids already run"));
    }

    #[test]
    fn one_at_a_time_varies_each_reading_alone_from_the_default() {
        let mut spec = built_in("gprs-eifel.toml");
        let v = variants(&spec);
        let extra: usize = spec.reading.iter().map(|r| r.option.len() - 1).sum();
        assert_eq!(v.len(), 1 + extra);
        assert_eq!(v[0].label, "default");
        let defaults: Vec<usize> = spec.reading.iter().map(|r| r.default_index()).collect();
        for x in &v[1..] {
            let changed = x
                .choice
                .iter()
                .zip(&defaults)
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(changed, 1, "{}", x.label);
        }
        spec.reading_plan = super::super::readings::ReadingPlan::AllCombinations;
        let all = variants(&spec);
        let n: usize = spec.reading.iter().map(|r| r.option.len()).product();
        assert_eq!(all.len(), n);
        assert_eq!(all[0].choice, defaults);
    }

    /// A measure pairs its references repetition by repetition: the mean of the
    /// per-repetition ratios, not the ratio of the means.
    #[test]
    fn a_measure_is_taken_per_repetition_and_paired() {
        let spec = built_in("gprs-eifel.toml");
        let g = spec.grid("readings").unwrap();
        let labels = |e: &str| {
            [
                ("buffer_kb", "10"),
                ("tcp", "reno"),
                ("eifel", e),
                ("scenario", "difficult"),
            ]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
        };
        let names = vec!["download_time_s".to_string()];
        let raw = vec![vec![vec![10.0], vec![100.0]], vec![vec![20.0], vec![100.0]]];
        let result = GridResult::of_runs(vec![labels("off"), labels("on")], names, raw);
        let f = spec
            .finding
            .iter()
            .find(|f| f.name == "10k-reno-slower")
            .unwrap();
        let v = score(f, g, &result).unwrap();
        assert_eq!(v.n, 2);
        assert!(
            (v.mean - 1.5).abs() < 1e-12,
            "mean of 2.0 and 1.0, not 120/110"
        );
        assert!(v.holds);
    }
}
