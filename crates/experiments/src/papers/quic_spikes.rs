//! Not a paper: the study of issue 42, TCP beside QUIC (the RFC 9002 model under each
//! undo rule, with and without a PTO cap, and real quinn) on the papers' paths and a
//! cellular trace path with stalls of 1-15 s. All of it `experiments/quic-spikes.toml`
//! over `scenarios/gprs-eifel.toml`, `scenarios/eifel-response.toml` and
//! `scenarios/paths/tmobile-lte-drive.toml`; docs/src/study-quic-spikes.md. It is not
//! in the default set of `spikelab reproduce` (the registry lists it among the studies).

use crate::reproduction::from_file::FromFile;

/// The study.
pub static QUIC_SPIKES: FromFile = FromFile::new(
    "quic-spikes",
    "QUIC under delay spikes: RFC 9002 recovery and real quinn beside TCP (issue 42)",
    "quic-spikes.toml",
);
