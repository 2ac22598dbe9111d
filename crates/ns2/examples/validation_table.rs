//! Writes the differential suite's table: `cargo run --release -p spikelab-ns2
//! --example validation_table -- docs/src/validation-ns2.md` (needs `ns`, Debian's
//! ns2 package). With `--only N` runs case N alone and prints its full report.

use rayon::prelude::*;
use spikelab_ns2::cases::{run_case, suite, table};
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
    let ok = outcomes
        .iter()
        .filter(|o| o.result.as_ref().is_ok_and(|d| d.matches()))
        .count();
    let identical = outcomes
        .iter()
        .filter(|o| o.result.as_ref().is_ok_and(|d| d.identical()))
        .count();
    let mut doc = String::new();
    let _ = writeln!(doc, "{}", include_str!("validation_intro.md").trim_end());
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
