//! The reproductions entirely described by a file under `experiments/` (the two Eifel
//! papers and the STD proxy's), and a user's own experiment file ([`OnDisk`]).

use crate::embedded;
use crate::grid::run::{base_text, expand, run_experiment};
use crate::grid::ExperimentSpec;
use crate::report::Section;
use crate::reproduction::{Context, Reproduction};
use anyhow::anyhow;
use spikelab_scenario::{FieldPath, Invalid};
use std::path::Path;

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
        Ok(ExperimentSpec::parse(
            text,
            &format!("experiments/{}", self.file),
        )?)
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

/// An experiment file given on the command line: read from disk, the scenario files it
/// names read beside it.
pub struct OnDisk {
    spec: ExperimentSpec,
    name: &'static str,
    title: &'static str,
}

impl OnDisk {
    /// Reads and checks the experiment file `path` and expands every grid and figure
    /// over the scenario files it names, so that a bad file fails here, before anything
    /// runs or is written. The error of a bad file is located (`file:line:col: field
    /// `path`: why`).
    pub fn load(path: &Path) -> anyhow::Result<OnDisk> {
        let shown = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| anyhow!("{shown}: cannot read: {e}"))?;
        let mut spec = ExperimentSpec::parse(&text, &shown)?;
        let dir = path.parent().unwrap_or(Path::new(""));
        spec.scenario_dir = Some(dir.to_path_buf());
        let at = |path: FieldPath, e: anyhow::Error| {
            ExperimentSpec::locate(&text, &shown, Invalid::new(path, format!("{e:#}")))
        };
        for (path, name) in spec.scenarios() {
            base_text(&spec, name).map_err(|e| at(path, e))?;
        }
        for (i, g) in spec.grid.iter().enumerate() {
            let (base, name) = base_text(&spec, g.scenario.as_deref().unwrap_or(&spec.scenario))?;
            expand(&base, &name, g).map_err(|e| at(FieldPath::root("grid").index(i), e))?;
        }
        // `Reproduction` names are `'static`; one experiment file per command lives
        // as long as the process anyway.
        let name = Box::leak(spec.name.clone().into_boxed_str());
        let title = Box::leak(spec.title.clone().into_boxed_str());
        Ok(OnDisk { spec, name, title })
    }
}

impl Reproduction for OnDisk {
    fn name(&self) -> &'static str {
        self.name
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn run(&self, ctx: &Context) -> anyhow::Result<Section> {
        run_experiment(&self.spec, ctx)
    }
}
