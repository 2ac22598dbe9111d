//! spikelab-results: the tables a `spikelab run` writes, defined once.
//!
//! The CLI writes them as CSV files and the Python package hands them out as pandas
//! DataFrames; both go through the same row builders ([`tables`]) into a [`RowSink`]
//! ([`sink`]), so a column means the same thing, in the same order, everywhere.
//!
//! | table | one row per | columns |
//! |-------|-------------|---------|
//! | `runs` | repetition and flow | `rep, seed, flow, kind, start_s,` then every [`METRICS`] column, and every [`QUIC_METRICS`] column when a flow is QUIC |
//! | `summary` | flow name and metric | `flow, metric, n, mean, std, ci95, min, p5, median, p95, max` |
//! | `timeouts` | retransmission timeout (expiry) | `rep, flow, episode, time_s, seq, rto_s, last_rtt_s, backoff, truth, spurious, in_fast_recovery, fast, verdicts` |
//! | `detectors` | spurious-timeout detector | `detector, decided, true_positives, false_positives, true_negatives, false_negatives, undecided, ack_lost_called_spurious, precision, recall, mean_delay_s` |
//! | `links` | repetition, link and direction | `rep, link, dir, offered, delivered, dropped, in_network` |
//! | `meta` | run | version, scenario path, seeds, per-repetition engine counters, resolved configuration |
//!
//! A metric a flow does not have (the download time or goodput of an unfinished transfer) is
//! `NaN` in `runs` and left out of its summary, whose `n` counts the values
//! summarised. `summary` pools the replicas `name#i` of a counted flow with every
//! repetition under `name`.
//!
//! Everything is a function of the repetitions' [`RepOutcome`]s in repetition order, and
//! outcomes serialise, so outcomes computed in other processes (chunks of repetitions
//! on a cluster) give the same tables once put back in order.

pub mod meta;
pub mod outcome;
pub mod sink;
pub mod tables;

pub use meta::{meta_json, write_meta_json};
pub use outcome::{PcapSides, RepOutcome, RunInfo};
pub use sink::{Column, Columns, RowSink};
pub use tables::{
    base_name, builder, metrics_of, write_detectors, write_links, write_runs, write_summary,
    write_timeouts, Metric, Value, METRICS, QUIC_METRICS, TABLES,
};
