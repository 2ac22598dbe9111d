//! The answer written out: the ranked table (text for the terminal, CSV), every
//! repetition (CSV), the scenario of each row (to rerun it with `spikelab run`), and an
//! HTML page with plots.

use super::answer::{answer, percent};
use super::fixes::COLUMNS;
use super::format::{self, mean_ci, number, objective_title};
use super::{metric_index, Advice, Row, Stop, METRICS};
use crate::report::{render_html, render_markdown, Block, Figure, Section, Table};
use anyhow::Context as _;
use spikelab_output::csv::CsvWriter;
use spikelab_output::plot::{bar_chart, scatter_chart, Bar, Chart, Series};
use std::fmt::Write as _;
use std::path::Path;

/// How many rows the terminal table and the bar chart show.
pub const SHOWN: usize = 20;

/// The file a row's scenario is written to, relative to the output folder.
pub fn scenario_file(label: &str) -> String {
    format!("scenarios/{}.toml", label.replace(':', "-"))
}

/// "baseline", or the row's decision: better, equivalent, worse or unclear.
pub fn verdict(r: &Row) -> &'static str {
    r.decision().map_or("baseline", |d| d.label())
}

/// The ranked table: the first `shown` rows and the baseline, as text columns.
pub fn table(a: &Advice, shown: usize) -> Table {
    let header = [
        "rank",
        "fix",
        "side",
        objective_title(a),
        "vs baseline",
        "%",
        "decision",
        "spurious RTOs",
        "genuine RTOs",
        "unneeded retx",
        "goodput",
    ]
    .map(String::from)
    .to_vec();
    let m = metric_index(a.objective.metric());
    let s = |r: &Row, k: &str| {
        let st = &r.summary[metric_index(k)];
        mean_ci(st.mean, st.ci95)
    };
    let same = |r: &Row| {
        let n = a
            .rows
            .iter()
            .filter(|o| o.same_as.as_deref() == Some(&r.candidate.label))
            .count();
        if n == 0 {
            r.candidate.label.clone()
        } else {
            format!("{} (+{n} same)", r.candidate.label)
        }
    };
    let rows = a
        .rows
        .iter()
        .filter(|r| r.same_as.is_none())
        .enumerate()
        .filter(|(i, r)| *i < shown || r.candidate.fix.is_none())
        .map(|(_, r)| {
            let (vs, pct) = match r.verdict {
                None => ("-".into(), "-".into()),
                Some(v) => (
                    signed(r.vs_baseline.mean, v.half_width),
                    percent(a, r.vs_baseline.mean).map_or("-".into(), format::signed),
                ),
            };
            vec![
                r.rank.to_string(),
                same(r),
                r.candidate.side().map_or("-", |s| s.label()).to_string(),
                mean_ci(r.summary[m].mean, r.summary[m].ci95),
                vs,
                pct,
                verdict(r).to_string(),
                s(r, "spurious_timeouts"),
                s(r, "genuine_timeouts"),
                s(r, "unnecessary_retransmissions"),
                s(r, "goodput"),
            ]
        })
        .collect();
    Table {
        title: format!(
            "Fixes ranked by {} ({} repetitions, seed {}, margin ±{})",
            objective_title(a),
            a.reps,
            a.seed,
            number(a.margin.value)
        ),
        header,
        rows,
    }
}

/// A difference with its sign.
fn signed(mean: f64, ci: f64) -> String {
    let s = mean_ci(mean, ci);
    if mean >= 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

/// The table as aligned text for the terminal.
pub fn text_table(t: &Table) -> String {
    let widths: Vec<usize> = (0..t.header.len())
        .map(|c| {
            std::iter::once(&t.header)
                .chain(&t.rows)
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in std::iter::once(&t.header).chain(&t.rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (v, w))| {
                let pad = w - v.chars().count();
                if c == 1 || c == 2 || c == 6 {
                    format!("{v}{}", " ".repeat(pad))
                } else {
                    format!("{}{v}", " ".repeat(pad))
                }
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    out
}

/// How the answer was reached: the margin, the correction, the repetitions, then
/// what the reader should know about the rows (`invocation` is the command without
/// `--reps`, `--budget` and `--seed`).
pub fn notes(a: &Advice, invocation: &str) -> Vec<String> {
    let mut out = vec![format!("Path: {}.", a.description)];
    out.push(format!(
        "Margin: ±{}{} ({}); a difference inside it does not matter. A fix is better \
         (worse) when its whole interval lies beyond the margin on the good (bad) side, \
         equivalent when inside it (two one-sided tests), otherwise unclear.",
        number(a.margin.value),
        a.objective.unit(),
        a.margin.why
    ));
    out.push(format!(
        "Correction: Holm over {} distinct comparisons with the baseline, so all claims \
         together are wrong with probability at most {}{}; the interval in \"vs \
         baseline\" is the corrected one each decision is read from.",
        a.comparisons,
        number(a.alpha * a.stop.looks() as f64),
        if a.stop.looks() > 1 {
            format!(
                " (each of the {n} looks at {} %/{n})",
                number(a.alpha * a.stop.looks() as f64 * 100.0),
                n = a.stop.looks()
            )
        } else {
            String::new()
        }
    ));
    out.push(repetitions(a, invocation));
    if !a.combined.is_empty() {
        out.push(format!(
            "Combinations: {} (the best sender fixes on the first {} repetitions) with \
             each network box and stack, judged on the repetitions after those only.",
            a.combined.join(", "),
            a.rows
                .iter()
                .map(|r| r.candidate.test_from)
                .max()
                .unwrap_or(0)
        ));
    }
    if let Some(l) = &a.box_link {
        out.push(format!(
            "Network boxes sit at the first endpoint of link `{l}`."
        ));
    }
    if a.rows.iter().any(|r| r.same_as.is_some()) {
        out.push(
            "A row marked (+N same) stands for N more fixes with the same result on every \
             seed (`same_as` in advise.csv): on this path they behave alike."
                .into(),
        );
    }
    out.extend(a.remarks.iter().map(|r| format!("{r}.")));
    let (repeats, others): (Vec<&String>, Vec<&String>) = a
        .skipped
        .iter()
        .partition(|s| s.contains(": the same configuration as "));
    for s in others {
        out.push(format!("Not a row: {s}."));
    }
    if !repeats.is_empty() {
        let shown: Vec<&str> = repeats.iter().take(3).map(|s| s.as_str()).collect();
        out.push(format!(
            "Not rows: {} fixes that give a configuration already planned (not run twice), \
             e.g. {}.",
            repeats.len(),
            shown.join("; ")
        ));
    }
    out
}

/// How many repetitions ran, why, and how to replay them (`invocation` carries every
/// option that changes the rows, the stopping rule's cap included).
fn repetitions(a: &Advice, invocation: &str) -> String {
    let same = "the same command gives the same bytes on any machine";
    let (why, replay) = match a.stop {
        Stop::Settled { look, looks } => (
            format!("every row decided at look {look} of {looks}; {same}"),
            format!("{invocation} --seed {}", a.seed),
        ),
        Stop::Cap { looks } => (
            format!("the cap, after {looks} looks, with rows still unclear; {same}"),
            format!("{invocation} --seed {}", a.seed),
        ),
        Stop::Given => (
            "given".into(),
            format!("{invocation} --reps {} --seed {}", a.reps, a.seed),
        ),
        Stop::Budget => (
            "chosen by the time budget".into(),
            format!("{invocation} --reps {} --seed {}", a.reps, a.seed),
        ),
    };
    format!(
        "{} repetitions per row ({why}), seed {}; replay exactly with: {replay}",
        a.reps, a.seed
    )
}

/// The CSV of every row, ranked (one line per row).
pub fn write_csv(a: &Advice, out: impl std::io::Write) -> anyhow::Result<()> {
    let mut w = CsvWriter::new(out);
    let mut header: Vec<String> = ["rank", "fix", "side", "group"].map(String::from).to_vec();
    header.extend(COLUMNS.iter().map(|c| c.to_string()));
    header.extend(
        [
            "objective",
            "mean",
            "ci95",
            "vs_baseline",
            "vs_baseline_ci95",
            "vs_baseline_pct",
            "verdict",
            "decision_half_width",
            "p_value",
            "holm_level",
            "margin",
            "tested_from_rep",
            "vs_next",
            "vs_next_ci95",
            "indistinguishable_from_next",
            "same_as",
            "reps",
        ]
        .map(String::from),
    );
    for m in METRICS {
        header.push(m.to_string());
        header.push(format!("{m}_ci95"));
    }
    header.push("scenario".into());
    w.row(&header.iter().map(String::as_str).collect::<Vec<_>>())?;
    let m = metric_index(a.objective.metric());
    for r in &a.rows {
        w.field_u64(r.rank as u64)?;
        w.field_str(&r.candidate.label)?;
        w.field_str(r.candidate.side().map_or("baseline", |s| s.label()))?;
        w.field_str(r.candidate.group().map_or("baseline", |g| g.label()))?;
        for c in COLUMNS {
            let v = r.candidate.columns().iter().find(|(k, _)| *k == c);
            w.field_str(v.map_or("", |(_, v)| v.as_str()))?;
        }
        w.field_str(a.objective.metric())?;
        w.field_f64(r.summary[m].mean)?;
        w.field_f64(r.summary[m].ci95)?;
        w.field_f64(r.vs_baseline.mean)?;
        w.field_f64(r.vs_baseline.ci95)?;
        w.field_f64(percent(a, r.vs_baseline.mean).unwrap_or(f64::NAN))?;
        w.field_str(verdict(r))?;
        let v = r.verdict;
        w.field_f64(v.map_or(f64::NAN, |v| v.half_width))?;
        w.field_f64(v.map_or(f64::NAN, |v| v.p))?;
        w.field_f64(v.map_or(f64::NAN, |v| v.level))?;
        w.field_f64(a.margin.value)?;
        w.field_u64(r.candidate.test_from as u64)?;
        w.field_f64(r.vs_next.map_or(f64::NAN, |p| p.mean))?;
        w.field_f64(r.vs_next.map_or(f64::NAN, |p| p.ci95))?;
        w.field_str(match r.vs_next {
            Some(p) if !p.significant() => "true",
            Some(_) => "false",
            None => "",
        })?;
        w.field_str(r.same_as.as_deref().unwrap_or(""))?;
        w.field_u64(r.runs.len() as u64)?;
        for s in &r.summary {
            w.field_f64(s.mean)?;
            w.field_f64(s.ci95)?;
        }
        w.field_str(&scenario_file(&r.candidate.label))?;
        w.end_row()?;
    }
    w.into_inner()?;
    Ok(())
}

/// Every repetition of every row (the pairs behind the intervals).
fn write_runs_csv(a: &Advice, path: &Path) -> anyhow::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut w = CsvWriter::new(file);
    let mut header = vec!["fix", "rep"];
    header.extend(METRICS);
    w.row(&header)?;
    for r in &a.rows {
        for (rep, vals) in r.runs.iter().enumerate() {
            w.field_str(&r.candidate.label)?;
            w.field_u64(rep as u64)?;
            for v in vals {
                w.field_f64(*v)?;
            }
            w.end_row()?;
        }
    }
    w.into_inner()?;
    Ok(())
}

/// A row's `run.name`: its label in the characters a run name takes (`spikelab run`
/// names its output folder after it): `:` as `-`, the `+` between combined fixes as
/// `_`.
fn row_run_name(label: &str) -> String {
    format!("advise-{}", label.replace(':', "-").replace('+', "_"))
}

/// Each row's scenario with the repetitions and seed of the answer, runnable with
/// `spikelab run` from the output folder (relative trace paths rebased one folder up).
fn write_scenarios(a: &Advice, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir.join("scenarios"))?;
    for r in &a.rows {
        let mut doc: toml::Table = r.candidate.text.parse()?;
        let name = row_run_name(&r.candidate.label);
        for (k, v) in [
            ("run.name", toml::Value::String(name)),
            ("run.reps", toml::Value::Integer(a.reps as i64)),
            ("run.seed", toml::Value::String(a.seed.to_string())),
        ] {
            spikelab_scenario::set_path(&mut doc, k, v).map_err(|e| anyhow::anyhow!(e))?;
        }
        super::input::map_traces(&mut doc, |p| {
            if Path::new(p).is_absolute() {
                p.to_owned()
            } else {
                format!("../{p}")
            }
        });
        let head = format!(
            "# spikelab advise: row {} `{}` ({}), rerun with `spikelab run {}`\n",
            r.rank,
            r.candidate.label,
            r.candidate
                .side()
                .map_or("the path as given", |s| s.label()),
            scenario_file(&r.candidate.label)
        );
        std::fs::write(
            dir.join(scenario_file(&r.candidate.label)),
            head + &toml::to_string(&doc)?,
        )?;
    }
    Ok(())
}

/// The plots: the shown rows' objective with CIs, and every row's paired difference to
/// the baseline.
fn figures(a: &Advice, dir: &Path) -> anyhow::Result<Vec<Figure>> {
    let m = metric_index(a.objective.metric());
    let bars: Vec<Bar> = a
        .rows
        .iter()
        .take(SHOWN)
        .map(|r| Bar {
            label: r.rank.to_string(),
            value: r.summary[m].mean,
            ci: r.summary[m].ci95,
        })
        .collect();
    let title = format!(
        "{} of the {} best rows (mean, 95 % CI), by rank",
        objective_title(a),
        bars.len()
    );
    let chart = Chart {
        title: title.clone(),
        x_label: "rank".into(),
        y_label: objective_title(a).into(),
    };
    let f1 = bar_chart(&chart, &bars, &dir.join("ranking"))?;
    let series = Series {
        label: "row - baseline".into(),
        points: a
            .rows
            .iter()
            .map(|r| (r.rank as f64, r.vs_baseline.mean))
            .collect(),
        ci: a
            .rows
            .iter()
            .map(|r| r.verdict.map_or(0.0, |v| v.half_width))
            .collect(),
    };
    let title2 = format!(
        "Paired difference to the baseline, {} (corrected interval; margin ±{}), every row by rank",
        objective_title(a),
        number(a.margin.value)
    );
    let chart2 = Chart {
        title: title2.clone(),
        x_label: "rank".into(),
        y_label: format!("{} minus baseline", objective_title(a)),
    };
    let f2 = scatter_chart(&chart2, &[series], &dir.join("vs-baseline"))?;
    let rel = |p: &Path| p.strip_prefix(dir).unwrap_or(p).to_path_buf();
    Ok(vec![
        Figure {
            title,
            png: rel(&f1.png),
            svg: rel(&f1.svg),
        },
        Figure {
            title: title2,
            png: rel(&f2.png),
            svg: rel(&f2.svg),
        },
    ])
}

/// Writes everything into `dir`: advise.csv, runs.csv, scenarios/, advise.md,
/// advise.html (with ranking.svg/png and vs-baseline.svg/png).
pub fn write_all(a: &Advice, dir: &Path, invocation: &str) -> anyhow::Result<()> {
    let csv = std::io::BufWriter::new(std::fs::File::create(dir.join("advise.csv"))?);
    write_csv(a, csv).context("writing advise.csv")?;
    write_runs_csv(a, &dir.join("runs.csv")).context("writing runs.csv")?;
    write_scenarios(a, dir).context("writing scenarios/")?;
    let mut blocks = vec![
        Block::Text(answer(a)),
        Block::Text(notes(a, invocation).join("\n\n")),
    ];
    blocks.push(Block::Table(table(a, SHOWN)));
    blocks.extend(figures(a, dir)?.into_iter().map(Block::Figure));
    let mut all = table(a, usize::MAX);
    all.title = "Every row".into();
    blocks.push(Block::Table(all));
    let section = Section {
        name: "advise".into(),
        title: format!("Which fix works on this path? ({})", objective_title(a)),
        blocks,
    };
    let title = "spikelab advise";
    let intro = "Each row is the path as given (baseline) with one fix or a combination; every \
                 row ran the same seeds, so differences are paired seed by seed, and each is \
                 decided against a margin that matters with Holm's correction over the rows. \
                 Scenarios of every row are under scenarios/.";
    let sections = [section];
    std::fs::write(
        dir.join("advise.md"),
        render_markdown(title, intro, &sections),
    )?;
    std::fs::write(
        dir.join("advise.html"),
        render_html(title, intro, &sections, dir),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::row_run_name;

    #[test]
    fn a_combined_rows_scenario_takes_its_run_name() {
        for label in ["eifel:option1:none", "peak-hopper+delay-rtfd+modern"] {
            let text = format!(
                "[run]\nname = \"{}\"\n[[link]]\nname = \"l\"\nrate = \"1Mbit/s\"\n\
                 latency = \"10ms\"\n[[flow]]\nname = \"f\"\nroute = [\"l\"]\n\
                 workload = {{ kind = \"bulk\", bytes = \"10KB\" }}\n",
                row_run_name(label)
            );
            let parsed = spikelab_scenario::parse(&text, "row.toml");
            assert!(
                parsed.is_ok(),
                "{label}: {:?}",
                parsed.err().map(|e| e.to_string())
            );
        }
    }
}
