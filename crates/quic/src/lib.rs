//! A sans-I/O model of QUIC's loss recovery and congestion control: RFC 9002 on the
//! sender, RFC 9000 13.2 acknowledgement generation on the receiver, one module per
//! mechanism. The engine drives a connection through its transport family
//! (crates/engine/src/transport/quic.rs); nothing here knows of links or events.
//!
//! | mechanism | module |
//! |---|---|
//! | settings, `[flow.quic]` | [`config`] |
//! | packet sizes and the mapping onto `Packet` | [`wire`] |
//! | RTT estimation (RFC 9002 5) | [`rtt`] |
//! | sent-packet records | [`sent`] |
//! | loss detection by packet and time thresholds (6.1) | [`loss`] |
//! | probe timeout and its back-off, `pto_max` (6.2) | [`pto`] |
//! | persistent congestion (7.6) | [`persistent`] |
//! | NewReno (7.3, B) and CUBIC | [`cc`] |
//! | spurious-loss undo rules (quinn, msquic, quiche, picoquic) | [`undo`] |
//! | quinn's pacer (`pacing = "quinn"`) | [`pacing`] |
//! | ACK frames, ranges, ack_delay, the ACK policy (RFC 9000 13.2, 19.3) | [`ack`], [`ranges`] |
//! | the stream: bytes to send, resend, acknowledged | [`stream`] |
//! | the sender, the receiver, the connection | [`sender`], [`receiver`], [`connection`] |

pub mod ack;
pub mod cc;
pub mod config;
pub mod connection;
pub mod loss;
pub mod pacing;
pub mod persistent;
pub mod pto;
pub mod ranges;
pub mod receiver;
pub mod rtt;
pub mod sender;
pub mod sent;
pub mod stream;
pub mod undo;
pub mod wire;

spikelab_core::built_from!();

pub use config::{AckOrder, Framing, Implementation, Pacing, QuicCc, QuicConfig, UndoRule};
pub use connection::{Arrived, QuicConnection};
