//! The one error type of this crate.

use thiserror::Error;

/// What can go wrong while writing or reading an output.
#[derive(Debug, Error)]
pub enum OutputError {
    /// Reading or writing a file failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// A trace CSV line could not be parsed (`line` counts from 1, the header included).
    #[error("trace CSV line {line}: {msg}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        msg: String,
    },
    /// A packet cannot be written as a pcap record.
    #[error("pcap: {0}")]
    Pcap(String),
    /// Drawing a figure failed.
    #[error("plot: {0}")]
    Plot(String),
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, OutputError>;
