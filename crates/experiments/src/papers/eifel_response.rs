//! [Gurtov & Ludwig 2003] ("Responding to spurious timeouts in TCP"): all of it
//! `experiments/eifel-response.toml` over `scenarios/eifel-response.toml` and
//! `scenarios/eifel-response-cbr.toml`.

use crate::reproduction::from_file::FromFile;

/// The reproduction.
pub static EIFEL_RESPONSE: FromFile = FromFile::new(
    "eifel-response",
    "Responding to spurious timeouts in TCP",
    "eifel-response.toml",
);
