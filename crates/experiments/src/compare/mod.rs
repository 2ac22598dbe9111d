//! Paired comparisons of configurations run on the same seeds, and the decisions drawn
//! from many of them at once: the statistics an experiment file's paired values
//! (`diff_over`, in the grid language's values) and `spikelab advise` share.
//!
//! * [`paired`]: the per-seed difference's mean, standard error, 95 % interval, effect
//!   size and two-sided p-value.
//! * [`decide`]: one-sided and equivalence tests against a margin, and Holm's
//!   step-down correction over a family of comparisons.

pub mod decide;
pub mod paired;
