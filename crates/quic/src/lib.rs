//! A sans-I/O model of QUIC's loss recovery and congestion control: RFC 9002 on the
//! sender, RFC 9000 13.2 acknowledgement generation on the receiver, one module per
//! mechanism. The engine drives a connection through `spikelab_engine`'s transport
//! family (crates/engine/src/transport/quic.rs); nothing here knows of links or
//! events.

pub mod config;
pub mod rtt;
pub mod wire;

pub use config::{Implementation, QuicCc, QuicConfig, UndoRule};
