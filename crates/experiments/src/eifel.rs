//! The reproductions entirely described by a file under `experiments/`: the two Eifel
//! papers and the STD proxy's.

use crate::embedded;
use crate::grid::run::run_experiment;
use crate::grid::ExperimentSpec;
use crate::report::Section;
use crate::reproduction::{Context, Reproduction};
use anyhow::anyhow;

/// A reproduction defined by one experiment file.
pub struct FromFile {
    name: &'static str,
    title: &'static str,
    file: &'static str,
}

impl FromFile {
    /// The parsed experiment file.
    pub fn spec(&self) -> anyhow::Result<ExperimentSpec> {
        let text = embedded::experiment(self.file)
            .ok_or_else(|| anyhow!("no built-in experiment `{}`", self.file))?;
        ExperimentSpec::parse(text, &format!("experiments/{}", self.file))
    }
}

impl Reproduction for FromFile {
    fn name(&self) -> &'static str {
        self.name
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn run(&self, ctx: &Context) -> anyhow::Result<Section> {
        run_experiment(&self.spec()?, ctx)
    }
}

/// [Gurtov & Ludwig 2002].
pub static GPRS_EIFEL: FromFile = FromFile {
    name: "gprs-eifel",
    title: "Evaluating the Eifel algorithm for TCP in a GPRS network",
    file: "gprs-eifel.toml",
};

/// [Gurtov & Ludwig 2003].
pub static EIFEL_RESPONSE: FromFile = FromFile {
    name: "eifel-response",
    title: "Responding to spurious timeouts in TCP",
    file: "eifel-response.toml",
};

/// [Kim & Cho 2003].
pub static STD_PROXY: FromFile = FromFile {
    name: "std-proxy",
    title: "Considering Spurious Timeout in Proxy for Improving TCP Performance in Wireless Networks (Kim, Cho)",
    file: "std-proxy.toml",
};
