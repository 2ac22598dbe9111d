//! The registry that `spikelab reproduce` runs, over the interface every paper's
//! reproduction implements ([`interface`]), with the two generic reproductions: one
//! built-in experiment file ([`from_file`]) and a user's file read from disk
//! ([`on_disk`]).
//!
//! The registry sits above the papers (`crate::papers`), which implement the
//! interface below it, so that no paper imports the registry nor the registry's user.

pub mod from_file;
pub mod interface;
pub mod on_disk;

pub use crate::context::Context;
pub use interface::Reproduction;

/// The default set `spikelab reproduce` runs without names: every paper's
/// reproduction, in the order of the report, then the study of the papers' fixes on
/// the real-path library (cheap: one download per cell).
pub fn registry() -> Vec<&'static dyn Reproduction> {
    vec![
        &crate::papers::gprs_eifel::GPRS_EIFEL,
        &crate::papers::eifel_response::EIFEL_RESPONSE,
        &crate::papers::peak_hopper::PEAK_HOPPER,
        &crate::papers::std_proxy::STD_PROXY,
        &crate::papers::delay_injection::reproduction::DELAY_INJECTION,
        &crate::papers::real_paths::REAL_PATHS,
    ]
}

/// Studies beyond the papers, run only when named (`spikelab reproduce quic-spikes`):
/// they are larger than the papers' grids and the default set's time stays the
/// papers'.
pub fn studies() -> Vec<&'static dyn Reproduction> {
    vec![&crate::papers::quic_spikes::QUIC_SPIKES]
}

/// Every built-in reproduction: the default set, then the studies.
pub fn every() -> Vec<&'static dyn Reproduction> {
    registry().into_iter().chain(studies()).collect()
}

/// The built-in reproduction called `name`, in the default set or a study.
pub fn find(name: &str) -> Option<&'static dyn Reproduction> {
    every().into_iter().find(|r| r.name() == name)
}
