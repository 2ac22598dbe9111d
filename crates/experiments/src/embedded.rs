//! The scenario and experiment files built into the binary, so `spikelab reproduce`
//! runs from any directory and a reproduction always uses the files it was built with.

macro_rules! files {
    ($dir:literal: $($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../../", $dir, "/", $name)))),*]
    };
}

/// `scenarios/*.toml` used by the reproductions.
const SCENARIOS: &[(&str, &str)] = files!("scenarios":
    "gprs-eifel.toml",
    "gprs-eifel-100kb.toml",
    "eifel-response.toml",
    "eifel-response-cbr.toml",
    "std-proxy.toml",
    "peak-hopper-a.toml",
    "peak-hopper-b.toml",
    "peak-hopper-c.toml",
    "delay-injection.toml",
    "delay-injection-paper.toml",
);

/// `experiments/*.toml`.
const EXPERIMENTS: &[(&str, &str)] = files!("experiments":
    "gprs-eifel.toml",
    "eifel-response.toml",
    "std-proxy.toml",
    "peak-hopper.toml",
    "delay-injection.toml",
);

/// The text of `scenarios/<name>`.
pub fn scenario(name: &str) -> Option<&'static str> {
    SCENARIOS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The text of `experiments/<name>`.
pub fn experiment(name: &str) -> Option<&'static str> {
    EXPERIMENTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}
