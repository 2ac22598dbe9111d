//! `spikelab reproduce`: runs the papers' experiments and writes `DIR/report.md` and
//! `DIR/report.html` beside each reproduction's CSV files and figures.
//!
//! As `spikelab run` does, it stages everything in `<DIR>.partial-<pid>` (removed on an
//! error or an interrupt) and publishes into DIR only when all is written. DIR must be
//! new, empty or marked as spikelab's ([`crate::outdir`]); the files spikelab wrote
//! there for the chosen experiments and the report are replaced, those of the other
//! experiments and everything spikelab did not write stay.

use crate::args::ReproduceArgs;
use crate::exit::Failure;
use crate::interrupt::{self, Staging};
use crate::outdir::{self, Scope};
use crate::run::{create_dir, publish_failure, staging_path};
use anyhow::{anyhow, Context as _};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use spikelab_experiments::report::{render_html, render_markdown, Section};
use spikelab_experiments::reproduction::on_disk::OnDisk;
use spikelab_experiments::reproduction::{every, registry, Context, Reproduction};
use spikelab_experiments::runner::{default_jobs, on_pool, Progress};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

/// An indicatif bar whose length grows as reproductions plan their runs.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn add_total(&self, n: u64) {
        self.0.inc_length(n);
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
}

fn bar(name: &str) -> Bar {
    if !std::io::stderr().is_terminal() {
        return Bar(ProgressBar::hidden());
    }
    let b = ProgressBar::new(0);
    let template = format!("{name:>16} {{bar:40}} {{pos}}/{{len}} runs {{elapsed}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        b.set_style(style);
    }
    Bar(b)
}

/// The reproductions named on the command line (all when none is and no file is
/// given), then those of the experiment files, or a usage error: an unknown name
/// (listing the known ones), a bad file (located), or two with one name.
fn select(a: &ReproduceArgs) -> Result<Vec<&'static dyn Reproduction>, Failure> {
    let mut chosen = if a.names.is_empty() && !a.experiments.is_empty() {
        vec![]
    } else {
        select_built_in(&a.names)?
    };
    for file in &a.experiments {
        // Leaked: a `Reproduction` is `'static`, and this one lives as long as the command.
        let r: &'static OnDisk = Box::leak(Box::new(OnDisk::load(file).map_err(Failure::usage)?));
        if chosen.iter().any(|c| c.name() == r.name()) {
            return Err(Failure::usage(anyhow!(
                "{}: experiment `{}` is already chosen (its outputs would overwrite each other)",
                file.display(),
                r.name()
            )));
        }
        chosen.push(r);
    }
    Ok(chosen)
}

/// The built-in reproductions named (the default set, the papers, when none is), or a
/// usage error listing the known names (studies too).
fn select_built_in(names: &[String]) -> Result<Vec<&'static dyn Reproduction>, Failure> {
    if names.is_empty() {
        return Ok(registry());
    }
    let all = every();
    let known: Vec<&str> = all.iter().map(|r| r.name()).collect();
    names
        .iter()
        .map(|n| {
            all.iter().copied().find(|r| r.name() == n).ok_or_else(|| {
                Failure::usage(anyhow!(
                    "unknown experiment `{n}` (known: {})",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// Runs `spikelab reproduce`.
pub fn reproduce_command(a: &ReproduceArgs) -> Result<(), Failure> {
    let chosen = select(a)?;
    let out = a.out.clone();
    let target = outdir::check_target(&out).map_err(Failure::usage)?;
    let stage = staging_path(&out).map_err(Failure::usage)?;
    let staging = Staging::register(stage.clone());
    let mut scope: Vec<String> = chosen.iter().map(|r| r.name().to_owned()).collect();
    scope.extend(["report.md".to_owned(), "report.html".to_owned()]);
    let result = create_dir(&stage)
        .map_err(Failure::from)
        .and_then(|()| reproduce_into(&stage, &chosen, a))
        .and_then(|()| {
            let _writing = interrupt::writing();
            outdir::publish(&stage, &out, &target, &Scope::Under(scope)).map_err(publish_failure)
        });
    if result.is_err() {
        let _writing = interrupt::writing();
        let _ = std::fs::remove_dir_all(&stage);
    } else {
        eprintln!(
            "report: {} ({} repetitions per cell)",
            out.join("report.md").display(),
            a.reps
        );
    }
    drop(staging);
    result
}

/// Runs the `chosen` reproductions with their outputs and the report under `root`.
fn reproduce_into(
    root: &Path,
    chosen: &[&'static dyn Reproduction],
    a: &ReproduceArgs,
) -> Result<(), Failure> {
    let jobs = a.jobs.map_or_else(default_jobs, |j| j as usize);
    // Every paper's inputs first: a missing file stops the command before any paper
    // has spent its minutes (the first failure in the order chosen is reported).
    let checked = on_pool(jobs, || {
        chosen
            .par_iter()
            .map(|r| {
                r.check()
                    .with_context(|| format!("reproducing {}", r.name()))
            })
            .collect::<Vec<_>>()
    });
    checked.into_iter().collect::<anyhow::Result<()>>()?;
    let started = Instant::now();
    let bars = match std::io::stderr().is_terminal() {
        true => MultiProgress::new(),
        false => MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
    };
    // The papers are tasks of one pool (`runner::on_pool`), their grids and runs too:
    // a thread done with one paper's runs takes another's instead of waiting for the
    // slowest run of a grid. Each paper writes only into its own directory, and the
    // sections are taken in the order chosen.
    let sections = on_pool(jobs, || {
        chosen
            .par_iter()
            .map(|r| reproduce_one(root, *r, a, jobs, &bars))
            .collect::<Vec<_>>()
    });
    let sections = sections.into_iter().collect::<Result<Vec<_>, Failure>>()?;
    let _writing = interrupt::writing();
    write_report(root, &sections, a)?;
    eprintln!(
        "{} repetitions per cell, {:.1} s in all, {jobs} threads",
        a.reps,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs reproduction `r` into `root/<name>` and returns its section.
fn reproduce_one(
    root: &Path,
    r: &dyn Reproduction,
    a: &ReproduceArgs,
    jobs: usize,
    bars: &MultiProgress,
) -> Result<Section, Failure> {
    let dir = root.join(r.name());
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let progress = Bar(bars.add(bar(r.name()).0));
    let ctx = Context {
        root: root.to_path_buf(),
        dir,
        reps: a.reps,
        seed: a.seed,
        jobs,
        progress: &progress,
    };
    let t = Instant::now();
    let section = match a.readings {
        true => r.run_readings(&ctx),
        false => r.run(&ctx),
    };
    let section = section.with_context(|| format!("reproducing {}", r.name()))?;
    progress.0.finish_and_clear();
    bars.suspend(|| {
        eprintln!(
            "{:>16}: done in {:.1} s",
            r.name(),
            t.elapsed().as_secs_f64()
        )
    });
    Ok(section)
}

fn write_report(root: &Path, sections: &[Section], a: &ReproduceArgs) -> Result<(), Failure> {
    let reps = a.reps;
    let (title, intro) = match a.readings {
        true => (
            "spikelab: the papers' findings under each reading of their unstated inputs",
            format!(
                "Every finding a paper states, scored under each declared reading of the inputs \
                 it leaves unstated, {reps} repetitions per reading, paired by seed."
            ),
        ),
        false => (
            "spikelab: the papers' experiments reproduced",
            report_intro(reps),
        ),
    };
    let md = render_markdown(title, &intro, sections);
    std::fs::write(root.join("report.md"), md).context("cannot write report.md")?;
    let html = render_html(title, &intro, sections, root);
    std::fs::write(root.join("report.html"), html).context("cannot write report.html")?;
    Ok(())
}

/// The report's introduction, without `--readings`.
fn report_intro(reps: u32) -> String {
    format!(
        "Every table is our simulation with {reps} repetitions per cell (mean and 95% confidence \
         half-width, Student's t). Where the paper publishes a value it stands beside ours with the \
         difference; where its table is withheld we report only what the simulation gives."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A reproduction that notes whether it ran, and whose inputs are missing or not.
    struct Fake {
        name: &'static str,
        inputs_missing: bool,
        ran: AtomicBool,
    }

    impl Reproduction for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn title(&self) -> &'static str {
            self.name
        }
        fn run(&self, _: &Context) -> anyhow::Result<Section> {
            self.ran.store(true, Ordering::SeqCst);
            Err(anyhow!("stops here: only whether it ran matters"))
        }
        fn check(&self) -> anyhow::Result<()> {
            match self.inputs_missing {
                true => Err(anyhow!("traces/missing.down: No such file or directory")),
                false => Ok(()),
            }
        }
    }

    fn fake(name: &'static str, inputs_missing: bool) -> Fake {
        let ran = AtomicBool::new(false);
        Fake {
            name,
            inputs_missing,
            ran,
        }
    }

    #[test]
    fn a_paper_with_a_missing_input_stops_reproduce_before_any_paper_runs() {
        let first: &'static Fake = Box::leak(Box::new(fake("first", false)));
        let second: &'static Fake = Box::leak(Box::new(fake("second", true)));
        let root = tempfile::tempdir().unwrap();
        let a = ReproduceArgs {
            names: vec![],
            experiments: vec![],
            reps: 1,
            out: root.path().to_path_buf(),
            seed: 1,
            jobs: Some(1),
            readings: false,
        };
        let chosen: [&'static dyn Reproduction; 2] = [first, second];
        let err = reproduce_into(root.path(), &chosen, &a).unwrap_err();
        let text = format!("{err:?}");
        assert!(text.contains("reproducing second"), "{text}");
        assert!(text.contains("missing.down"), "{text}");
        assert!(
            !first.ran.load(Ordering::SeqCst) && !second.ran.load(Ordering::SeqCst),
            "a paper ran before every paper's inputs were checked"
        );
    }
}
