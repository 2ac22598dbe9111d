//! The random streams of a link, named in one place: the simulator (crates/engine) and
//! the emulator (crates/emulate) must draw the same RED drops and spike schedules from
//! the same seed, so both take their streams from here.

use crate::spike::Dir;
use spikelab_core::{RngStreams, SimRng};

/// Index of a direction in a link's pair of directions: forward 0, reverse 1.
pub fn dir_index(dir: Dir) -> usize {
    match dir {
        Dir::Forward => 0,
        Dir::Reverse => 1,
    }
}

/// The stream of link `link`'s direction `dir` (its queue's drops, its service's draws).
pub fn link_dir_rng(streams: &RngStreams, link: usize, dir: Dir) -> SimRng {
    streams.stream("link", 2 * link as u64 + dir_index(dir) as u64)
}

/// The stream of link `link`'s spike schedule `spike`.
pub fn spike_rng(streams: &RngStreams, link: usize, spike: usize) -> SimRng {
    streams.stream("spike", (link as u64) << 16 | spike as u64)
}
