//! Memory per flow and per link: the sizes of the structs the engine keeps once per
//! flow, per link direction and per packet, held to bounds so that they cannot grow by
//! accident. Every cache line a flow or link takes is paid at every packet when
//! thousands of them are touched in no order (docs/src/performance.md, "Memory per
//! flow and per link"), and by every flow's share of the run's RSS.
//!
//! The bounds are the sizes of today's layout in a test (debug) build; a release
//! build drops the debug-only fields and is never larger. To grow a struct on purpose,
//! change its bound here and its row in docs/src/performance.md in the same commit,
//! saying in the message what the bytes buy; a struct that shrank can have its bound
//! lowered the same way.

use super::flows::{Connection, Flow, FlowState};
use super::forwarding::{Direction, LinkState};
use crate::arena::Slot;
use crate::events::TimerSlot;
use crate::transport::tcp::TcpTransport;
use crate::transport::Transports;
use spikelab_core::Packet;
use spikelab_net::LinkDir;
use spikelab_tcp::rto::Rto;
use spikelab_tcp::{TcpReceiver, TcpSender};
use std::mem::size_of;

/// `(struct, what it is kept per, its size, its bound)`, in the order of the docs' table.
fn sizes() -> Vec<(&'static str, &'static str, usize, usize)> {
    vec![
        ("Flow", "flow", size_of::<Flow<Transports>>(), 640),
        ("FlowState", "flow", size_of::<FlowState<Transports>>(), 192),
        (
            "Connection (boxed)",
            "connection",
            size_of::<Connection<Transports>>(),
            1536,
        ),
        ("Transports", "connection", size_of::<Transports>(), 1424),
        (
            "TcpTransport",
            "connection",
            size_of::<TcpTransport>(),
            1424,
        ),
        (
            "TcpSender<Rto>",
            "connection",
            size_of::<TcpSender<Rto>>(),
            1072,
        ),
        ("TcpReceiver", "connection", size_of::<TcpReceiver>(), 352),
        ("TimerSlot", "endpoint", size_of::<TimerSlot>(), 24),
        ("LinkState", "link", size_of::<LinkState<()>>(), 640),
        (
            "Direction (cache-line aligned)",
            "link direction",
            size_of::<Direction<()>>(),
            320,
        ),
        (
            "LinkDir<Slot>",
            "link direction",
            size_of::<LinkDir<Slot, ()>>(),
            272,
        ),
        (
            "LinkDir<Slot, u32>",
            "link direction (ns-2 order)",
            size_of::<LinkDir<Slot, u32>>(),
            272,
        ),
        ("Slot", "packet in a queue or pipe", size_of::<Slot>(), 8),
        (
            "Packet",
            "packet in the network (arena)",
            size_of::<Packet>(),
            112,
        ),
    ]
}

#[test]
fn per_flow_per_link_and_per_packet_structs_stay_within_their_bounds() {
    let mut grown = Vec::new();
    println!(
        "{:<22} {:<32} {:>6} {:>6}",
        "struct", "kept per", "bytes", "bound"
    );
    for (name, per, size, bound) in sizes() {
        println!("{name:<22} {per:<32} {size:>6} {bound:>6}");
        if size > bound {
            grown.push(format!("{name}: {size} bytes > {bound}"));
        }
    }
    assert!(
        grown.is_empty(),
        "grown beyond their bounds: {grown:?}; if on purpose, raise the bounds in \
         crates/engine/src/world/sizes.rs and the table in docs/src/performance.md"
    );
}

/// The simulation is built, returned and run by value: every byte of it is copied
/// through the stack several frames deep (`World::new`'s four arms, `Sim::run`, the
/// CLI's frames that inline `spikelab_engine::run`), and a process keeps the deepest
/// stack it ever reached resident. With the event queue's 704 buckets inline it was
/// 17 KiB and a one-flow run's stack 196 KiB (docs/src/performance.md, "Issue 44,
/// memory round 4").
#[test]
fn the_simulation_is_small_enough_to_pass_by_value() {
    use super::Sim;
    use crate::transport::Single;
    let sizes = [
        size_of::<Sim<(), Single>>(),
        size_of::<Sim<u32, Single>>(),
        size_of::<Sim<(), Transports>>(),
        size_of::<Sim<u32, Transports>>(),
    ];
    println!("Sim: {sizes:?} bytes");
    assert!(
        sizes.iter().all(|&s| s <= 2048),
        "Sim grew to {sizes:?} bytes: box what made it grow"
    );
}
