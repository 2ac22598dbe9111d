//! Experiments as data: a base scenario, grids of overrides, tables and figures read
//! from a file under `experiments/` ([`spec`]), run by [`run::run_experiment`].

pub mod baselines;
pub mod computed_set;
pub mod count;
pub mod expr;
pub mod expr_syntax;
pub mod layout;
pub mod multi_grid;
pub mod over_axis;
pub mod parse;
pub mod picks;
pub mod pooled;
pub mod products;
pub mod readings;
pub mod readings_check;
pub mod readings_run;
pub mod result;
pub mod rtt_feed;
pub mod run;
pub mod run_series;
pub mod spec;
pub mod study;
pub mod text_table;
pub mod trace_file;
pub mod values;

pub use spec::ExperimentSpec;
