//! spikelab-output: everything a run leaves behind, written deterministically.
//!
//! * [`stats`]: mean, sample standard deviation, Student-t 95% confidence intervals,
//!   percentiles and a [`stats::Summary`] of repetitions.
//! * [`csv`]: a small RFC 4180 CSV writer with fixed float precision, and the trace CSV
//!   format ([`csv::write_trace_csv`], [`csv::read_trace_csv`]).
//! * [`pcap`]: classic libpcap files (nanosecond timestamps, raw IPv4) with real IPv4 and
//!   TCP headers, readable by tshark / Wireshark.
//! * [`markdown`]: report prose as HTML (pulldown-cmark), citations linked, raw HTML shown
//!   as text.
//! * [`plot`]: time-sequence and window/timer plots of one flow, and small generic
//!   charts for result figures, as PNG and SVG with a bundled font.
//!
//! Nothing here reads a clock or iterates a hash map: the same inputs give byte-identical
//! files.

#![warn(missing_docs)]

pub mod csv;
pub mod error;
pub mod markdown;
pub mod pcap;
pub mod plot;
pub mod stats;

pub use error::{OutputError, Result};
