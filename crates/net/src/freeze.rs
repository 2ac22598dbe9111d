//! How a hiccup or an outage freezes a link direction: three switches for the readings
//! the papers leave open.
//!
//! [Gurtov & Ludwig 2002] 4 says only that its improved `hiccup` tool "suspend[s] data flow in
//! both directions and *after* the queue"; [Gurtov & Ludwig 2003] IV.A that its tool
//! "suspends transmission in both directions simultaneously". What happens to packets
//! already on the wire, and to packets arriving during the freeze, is not written
//! anywhere. Each reading is a named switch, with the same meaning in spikelab
//! ([`crate::LinkDir::suspend`]) and in the patched ns-2.35 (tools/ns2, DelayLink
//! instvars in brackets):
//!
//! | switch     | values (default first)                     | ns-2.35 instvar        |
//! |------------|--------------------------------------------|------------------------|
//! | `freeze_at`| `after-queue`, `before-queue`              | `freezeBeforeQueue_`   |
//! | `wire`     | `held`, `delivered`                        | `freezeHoldsWire_`     |
//! | `arrivals` | `queued`, `dropped`                        | `freezeDropsArrivals_` |
//!
//! The defaults are spikelab's behaviour before the switches existed.

use serde::{Deserialize, Serialize};

/// Where the freeze stops the link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FreezePoint {
    /// After the queue ([Gurtov & Ludwig 2002] 4): the transmitter stops mid-packet and resumes
    /// where it was; packets wait in the queue, which fills.
    #[default]
    AfterQueue,
    /// In front of the queue: arrivals stop there (see [`FrozenArrivals`]); the queue,
    /// the transmitter and the wire keep running, so the queue drains during the freeze.
    BeforeQueue,
}

/// Packets that finished transmission before the freeze and are still propagating.
/// Only with [`FreezePoint::AfterQueue`]; in front of the queue the wire runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrozenWire {
    /// Held: each reaches the far end later by the freeze's length. Packets due at the
    /// freeze instant itself are not held.
    #[default]
    Held,
    /// Reach the far end on time, during the freeze.
    Delivered,
}

/// Packets arriving at the link while it is frozen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrozenArrivals {
    /// Kept. After the queue they enter the queue (which keeps accepting and drops at
    /// its limit); in front of the queue they wait there, in order, without limit, and
    /// enter the queue when the freeze ends (dropped then if it is full).
    #[default]
    Queued,
    /// Dropped on arrival, as by a link that is down.
    Dropped,
}

/// The three switches of one freeze (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FreezeMode {
    /// Where the link stops.
    pub at: FreezePoint,
    /// Packets propagating when the freeze starts.
    pub wire: FrozenWire,
    /// Packets arriving during the freeze.
    pub arrivals: FrozenArrivals,
}

impl FreezeMode {
    /// Does the transmitter stop (and with it everything behind it)?
    pub fn stops_transmitter(self) -> bool {
        self.at == FreezePoint::AfterQueue
    }

    /// Are packets already propagating held?
    pub fn holds_wire(self) -> bool {
        self.stops_transmitter() && self.wire == FrozenWire::Held
    }
}
