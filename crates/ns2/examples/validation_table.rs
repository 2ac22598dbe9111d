//! Writes the differential suite's table: `cargo run --release -p spikelab-ns2
//! --example validation_table -- docs/src/validation-ns2.md` (needs `ns`, Debian's
//! ns2 package). With `--only N` runs case N alone and prints its full report.

use rayon::prelude::*;
use spikelab_ns2::cases::{run_case, suite, table, Outcome};
use spikelab_ns2::compare::FlowDiff;
use std::fmt::Write as _;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cases = suite();
    if let Some(i) = args.iter().position(|a| a == "--only") {
        let n: usize = args[i + 1].parse().expect("case number");
        let o = run_case(&cases[n]);
        println!("{}\n{}", o.case.name(), o.case.scenario(None));
        match &o.result {
            Ok(d) => println!("matches: {}\n{}", d.matches(), d.report()),
            Err(e) => println!("error: {e}"),
        }
        return;
    }
    let outcomes: Vec<_> = cases.par_iter().map(run_case).collect();
    let (ok, identical) = counts(&outcomes);
    let intro = include_str!("validation_intro.md").trim_end();
    let (title, rest) = intro
        .split_once('\n')
        .expect("the intro opens with its title");
    let mut doc = String::new();
    let _ = writeln!(doc, "{title}\n\n{}{}", answer(&outcomes), rest.trim_start());
    let _ = writeln!(
        doc,
        "\n{ok} of {} cases match (retransmissions and timeouts identical, completion within 0.1 %); {identical} are identical packet by packet.\n",
        outcomes.len()
    );
    doc.push_str(&table(&outcomes));
    match args.first() {
        Some(path) => std::fs::write(path, doc).expect("write the table"),
        None => print!("{doc}"),
    }
}

/// Cases that match, and cases identical packet by packet.
fn counts(outcomes: &[Outcome]) -> (usize, usize) {
    let count = |f: fn(&FlowDiff) -> bool| {
        outcomes
            .iter()
            .filter(|o| o.result.as_ref().is_ok_and(f))
            .count()
    };
    (count(FlowDiff::matches), count(FlowDiff::identical))
}

/// Completion-time difference of spikelab from ns-2, in % of ns-2's (None when either
/// did not finish).
fn completion_diff_pct(d: &FlowDiff) -> Option<f64> {
    let (a, b) = (d.ns2.completed?, d.spikelab.completed?);
    Some(100.0 * (b - a) / a)
}

/// The page's opening section (issue 39): what was validated, against what, how close,
/// from the same outcomes as the table.
fn answer(outcomes: &[Outcome]) -> String {
    let (ok, identical) = counts(outcomes);
    let mut s = String::from("## The answer\n\n");
    let _ = writeln!(
        s,
        "* **What:** spikelab's `ns2-2002` profile, {} cases (agents, flags, queues, windows, \
         drop patterns, the papers' two paths, spikes and F-RTO; [below](#the-cases)), per flow.",
        outcomes.len()
    );
    let _ = writeln!(
        s,
        "* **Against:** ns-2.35 (Debian's `ns2` package; the spike rows in ns-2.35 patched \
         with the link freeze, [ns2-freeze.md](ns2-freeze.md))."
    );
    let _ = writeln!(
        s,
        "* **How close:** {ok} of {} cases match (retransmissions and timeouts identical, \
         completion within 0.1 %); {identical} of them are identical packet by packet.",
        outcomes.len()
    );
    let rest: Vec<_> = outcomes
        .iter()
        .filter(|o| !o.result.as_ref().is_ok_and(FlowDiff::matches))
        .collect();
    if rest.is_empty() {
        return s + "\n";
    }
    let _ = writeln!(
        s,
        "* **The other {}** (causes under \
         [Known causes of the remaining differences](#known-causes-of-the-remaining-differences)):",
        rest.len()
    );
    for o in rest {
        let _ = match &o.result {
            Ok(d) => writeln!(
                s,
                "  * {}: completion {}, retransmissions {} / {}, timeouts {} / {} (spikelab / ns-2)",
                o.case.name(),
                completion_diff_pct(d).map_or("unfinished on one side".to_string(), |p| format!("{p:+.2} %")),
                d.spikelab.retransmissions,
                d.ns2.retransmissions,
                d.spikelab.timeouts,
                d.ns2.timeouts
            ),
            Err(e) => writeln!(s, "  * {}: error: {e}", o.case.name()),
        };
    }
    s + "\n"
}
