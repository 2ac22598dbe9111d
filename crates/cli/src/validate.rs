//! `spikelab validate`: check a scenario file (with any `--set` overrides) without
//! running it. Prints one `OK` line on stdout and exits 0, or the usual located
//! one-line error with exit code 2; it writes nothing.

use crate::args::ValidateArgs;
use crate::exit::Failure;
use spikelab_scenario::Scenario;

/// Runs `spikelab validate`.
pub fn validate_command(a: &ValidateArgs) -> Result<(), Failure> {
    let s = crate::overrides::load(&a.scenario, &a.set)?;
    let line = format!("{}\n", ok_line(&s));
    let _ = std::io::Write::write_all(&mut std::io::stdout(), line.as_bytes());
    Ok(())
}

/// `OK scenarios/x.toml: run `x`, 1 link, 2 flows, 100 repetitions, stop 3600 s`.
pub fn ok_line(s: &Scenario) -> String {
    let sim = s.sim();
    let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    format!(
        "OK {}: run `{}`, {}, {}, {}, stop {} s",
        s.source().display(),
        s.run().name,
        plural(sim.links.len(), "link"),
        plural(sim.flows.len(), "flow"),
        plural(s.run().reps as usize, "repetition"),
        sim.stop_at.as_secs_f64()
    )
}
