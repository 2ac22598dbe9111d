//! A user's own experiment file (`spikelab reproduce --experiment FILE`), read from
//! disk, the scenario files it names read beside it; its layout may name any Rust block
//! a paper registers (`crate::papers::RUST_BLOCKS`).

use super::interface::Reproduction;
use crate::context::Context;
use crate::grid::run::{expand, run_experiment};
use crate::grid::spec::base_text;
use crate::grid::ExperimentSpec;
use crate::report::Section;
use anyhow::anyhow;
use spikelab_scenario::{FieldPath, Invalid};
use std::path::Path;

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
        let spec = ExperimentSpec::parse(&text, &shown)?;
        let mut spec = spec.with_rust_blocks(crate::papers::RUST_BLOCKS, &text, &shown)?;
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
        crate::grid::readings_run::check_scenarios(&spec).map_err(|(path, e)| at(path, e))?;
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
    fn run_readings(&self, ctx: &Context) -> anyhow::Result<Section> {
        crate::grid::readings_run::run_readings(&self.spec, ctx)
    }
}
