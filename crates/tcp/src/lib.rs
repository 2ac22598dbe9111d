//! spikelab-tcp: a sans-I/O TCP sender and receiver.
//!
//! Every call takes `now` and returns what to send; nothing here reads a clock or owns
//! an event loop, so the same code drives the simulator and could drive an emulator.

pub mod rto;
