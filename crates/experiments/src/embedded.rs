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
    "paths/att-lte-drive.toml",
    "paths/tmobile-lte-drive.toml",
    "paths/tmobile-umts-drive.toml",
    "paths/verizon-evdo-drive.toml",
    "paths/verizon-lte-short.toml",
    "paths/starlink-leo-generated.toml",
    "paths/wifi-retry-generated.toml",
);

/// Built-in scenarios that read files beside them (a link's delivery traces): each is
/// shown, and its files looked for, at its place in the source tree the binary was
/// built from, so that the traces are found from any directory (the traces themselves,
/// megabytes each, are not built in).
const BESIDE_THEIR_FILES: &[&str] = &[
    "paths/att-lte-drive.toml",
    "paths/tmobile-lte-drive.toml",
    "paths/tmobile-umts-drive.toml",
    "paths/verizon-evdo-drive.toml",
    "paths/verizon-lte-short.toml",
    "paths/wifi-retry-generated.toml",
];

/// `experiments/*.toml`.
const EXPERIMENTS: &[(&str, &str)] = files!("experiments":
    "gprs-eifel.toml",
    "eifel-response.toml",
    "std-proxy.toml",
    "peak-hopper.toml",
    "delay-injection.toml",
    "quic-spikes.toml",
    "real-paths.toml",
);

/// The text of `scenarios/<name>`.
pub fn scenario(name: &str) -> Option<&'static str> {
    SCENARIOS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The name built-in scenario `name` is shown by and its relative paths start from:
/// its path in the source tree for [`BESIDE_THEIR_FILES`], else `name` itself.
pub fn scenario_shown_as(name: &str) -> String {
    match BESIDE_THEIR_FILES.contains(&name) {
        true => format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR")),
        false => name.to_string(),
    }
}

/// The text of `experiments/<name>`.
pub fn experiment(name: &str) -> Option<&'static str> {
    EXPERIMENTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}
