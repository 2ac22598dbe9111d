//! [Kim & Cho 2003] ("Considering Spurious Timeout in Proxy for Improving TCP
//! Performance in Wireless Networks") section V is `experiments/std-proxy.toml` over
//! `scenarios/std-proxy.toml`; what remains here is its one non-generic metric,
//! condition (3) of section IV over the STD proxy's spurious episodes ([`metrics`]).

pub mod metrics;

use crate::reproduction::from_file::FromFile;

/// The reproduction.
pub static STD_PROXY: FromFile = FromFile::new(
    "std-proxy",
    "Considering Spurious Timeout in Proxy for Improving TCP Performance in Wireless Networks (Kim, Cho)",
    "std-proxy.toml",
);
