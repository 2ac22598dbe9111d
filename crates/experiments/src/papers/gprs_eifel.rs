//! [Gurtov & Ludwig 2002] ("Evaluating the Eifel algorithm for TCP in a GPRS
//! network"): all of it `experiments/gprs-eifel.toml` over `scenarios/gprs-eifel.toml`
//! and `scenarios/gprs-eifel-100kb.toml`.

use crate::reproduction::from_file::FromFile;

/// The reproduction.
pub static GPRS_EIFEL: FromFile = FromFile::new(
    "gprs-eifel",
    "Evaluating the Eifel algorithm for TCP in a GPRS network",
    "gprs-eifel.toml",
);
