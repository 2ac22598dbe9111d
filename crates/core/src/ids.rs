//! Typed indices. They are plain `u32` newtypes so that a flow index can never be
//! passed where a link index is expected.

use serde::{Deserialize, Serialize};

/// Index of a flow (a TCP connection or a cross-traffic source) within one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FlowId(pub u32);

/// Index of a full-duplex link within one run's topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LinkId(pub u32);

impl FlowId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl LinkId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
