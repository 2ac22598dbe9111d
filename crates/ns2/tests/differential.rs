//! The differential suite: every case of `spikelab_ns2::cases::suite()` in spikelab and
//! in ns-2.35 (Debian's `ns2` package; scripts/test.sh installs it). Prints a loud
//! SKIPPED line when `ns` is absent.
//!
//! What it asserts: every case exports and runs in both simulators, and every case in
//! [`MATCHING`] still matches ns-2 (retransmissions and timeouts identical, completion
//! within 0.1 %). Cases that do not match yet are printed with their first diverging
//! transmission and both sides' window and timer state; docs/src/validation-ns2.md
//! holds the whole table.

use rayon::prelude::*;
use spikelab_ns2::cases::{run_case, suite};
use spikelab_ns2::ns2run::ns_available;

/// Cases that match ns-2.35 today (by `Case::name`); a change that breaks one fails.
const MATCHING: &[&str] = &[];

#[test]
fn the_ns2_2002_profile_agrees_with_ns2() {
    if !ns_available() {
        eprintln!(
            "SKIPPED: differential suite against ns-2.35: `ns` not found (apt-get install ns2)"
        );
        return;
    }
    let outcomes: Vec<_> = suite().par_iter().map(run_case).collect();
    let mut failures = Vec::new();
    let mut matching = 0;
    for o in &outcomes {
        let name = o.case.name();
        match &o.result {
            Err(e) => failures.push(format!("{name}: did not run: {e}")),
            Ok(d) if d.matches() => matching += 1,
            Ok(d) => {
                eprintln!("MISMATCH {name}\n{}", d.report());
                if MATCHING.contains(&name.as_str()) {
                    failures.push(format!("{name}: matched ns-2 before, no longer does"));
                }
            }
        }
    }
    eprintln!("{matching} of {} cases match ns-2.35", outcomes.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
