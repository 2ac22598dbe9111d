//! Source routing and the placement of links and middleboxes, as pure functions: the
//! engine's event loop ([`World`](crate::World)) and the emulator's real-time forwarder
//! (crates/emulate) both move packets with these, so a packet crosses the same links,
//! in the same directions, past the same boxes in both.
//!
//! A flow's route lists the links its data crosses, in order; its ACKs (every packet
//! of a kind that is not [`spikelab_core::PacketKind::is_forward`]) cross the same
//! links backwards, each in the opposite direction. A packet's `hop` counts the links
//! it has crossed. A middlebox sits at its link's first endpoint.

use crate::config::{Hop, MiddleboxSpec};
use spikelab_core::{RngStreams, SimRng, Wire};
use spikelab_net::link::same_instant::Lead;
use spikelab_net::{Dir, LinkConfig, LinkDir, Schedule};

/// The other direction.
pub fn flip(dir: Dir) -> Dir {
    match dir {
        Dir::Forward => Dir::Reverse,
        Dir::Reverse => Dir::Forward,
    }
}

/// The link and direction a packet crosses next, having crossed `hop` links of
/// `route` (`forward`: a data-direction packet); `None` at the route's end.
pub fn next_hop(route: &[Hop], forward: bool, hop: u16) -> Option<(usize, Dir)> {
    let h = hop as usize;
    if forward {
        route.get(h).map(|hop| (hop.link, hop.dir))
    } else {
        let n = route.len();
        (h < n)
            .then(|| route[n - 1 - h])
            .map(|hop| (hop.link, flip(hop.dir)))
    }
}

/// A flow's route packed into its own record, for the packets' hops: the next link
/// of a packet is then read from the flow's record, which its endpoints touch anyway,
/// instead of from a separate allocation (one cache line fewer per packet per hop),
/// and whether a box sits at that link comes with it instead of from a table by link.
/// Each direction of travel has its own table, in the order its packets cross the
/// links and with the direction they cross each in ([`next_hop`]'s rule, applied
/// once here). Routes longer than [`PackedRoute::HOPS`] hops are not packed
/// ([`PackedRoute::packed`]; the route is then read as a list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedRoute {
    /// Per direction of travel (data, ACKs), the hops in crossing order, each
    /// `link << 2 | boxed << 1 | reverse`.
    hops: [[u32; PackedRoute::HOPS]; 2],
    /// The number of hops; 0 if the route is not packed.
    len: u8,
    /// The route is not packed.
    long: bool,
}

/// The next hop of a packet read from a [`PackedRoute`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextHop {
    pub link: usize,
    pub dir: Dir,
    /// A middlebox sits at the link's first endpoint.
    pub boxed: bool,
}

impl PackedRoute {
    /// The longest route packed: the two tables fill 40 bytes, so that the flow's
    /// record has room on the same cache line for what its endpoints read first.
    pub const HOPS: usize = 5;

    /// Packs `route`; `boxed(link)` says whether a middlebox sits at a link.
    pub fn new(route: &[Hop], boxed: impl Fn(usize) -> bool) -> PackedRoute {
        let mut packed = PackedRoute {
            hops: [[0; PackedRoute::HOPS]; 2],
            len: 0,
            long: true,
        };
        if route.len() > PackedRoute::HOPS || route.iter().any(|h| h.link >= 1 << 30) {
            return packed;
        }
        for (t, forward) in [true, false].into_iter().enumerate() {
            for h in 0..route.len() {
                let (link, dir) = next_hop(route, forward, h as u16).expect("h is on the route");
                let reverse = (dir == Dir::Reverse) as u32;
                packed.hops[t][h] = (link as u32) << 2 | (boxed(link) as u32) << 1 | reverse;
            }
        }
        packed.len = route.len() as u8;
        packed.long = false;
        packed
    }

    /// [`next_hop`] of the packed route, with whether a box sits at the link; `None`
    /// at the route's end, and for a route that is not packed ([`Self::packed`]).
    #[inline(always)]
    pub fn get(&self, forward: bool, hop: u16) -> Option<NextHop> {
        let h = hop as usize;
        if h >= self.len as usize {
            return None;
        }
        let w = self.hops[!forward as usize][h];
        Some(NextHop {
            link: (w >> 2) as usize,
            dir: if w & 1 == 1 {
                Dir::Reverse
            } else {
                Dir::Forward
            },
            boxed: w & 2 != 0,
        })
    }

    /// Is the route packed? If not, [`Self::get`] answers `None` for every hop.
    #[inline(always)]
    pub fn packed(&self) -> bool {
        !self.long
    }
}

/// Where a packet goes on from the box at link `link`'s first endpoint: the box sees
/// a packet just before it enters the link forward and just after it left it in
/// reverse. `Enter(hop)`: into the link with that hop count; `Continue(hop)`: on
/// along the route with that hop count. `None` if the route does not cross `link`.
pub fn after_box(route: &[Hop], link: usize, forward: bool) -> Option<AfterBox> {
    let k = route.iter().position(|h| h.link == link)?;
    let (index, dir) = if forward {
        (k, route[k].dir)
    } else {
        (route.len() - 1 - k, flip(route[k].dir))
    };
    Some(match dir {
        Dir::Forward => AfterBox::Enter(index as u16),
        Dir::Reverse => AfterBox::Continue(index as u16 + 1),
    })
}

/// Where [`after_box`] sends a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterBox {
    /// Into the box's link (forward), with this hop count.
    Enter(u16),
    /// On along the route past the box's link (just crossed in reverse).
    Continue(u16),
}

/// For each of `links` links, the index of the middlebox at its first endpoint.
pub fn box_placement(links: usize, boxes: &[MiddleboxSpec]) -> Vec<Option<usize>> {
    let mut at = vec![None; links];
    for (i, m) in boxes.iter().enumerate() {
        at[m.link] = Some(i);
    }
    at
}

/// Link `i`'s two directions, forward then reverse, each with its own random stream,
/// carrying packets or handles to them (`P`), keeping scheduling leads `L`
/// ([`spikelab_net::link::same_instant::Lead`]).
pub fn link_dirs<P: Wire, L: Lead>(
    cfg: &LinkConfig,
    i: usize,
    streams: &RngStreams,
) -> [LinkDir<P, L>; 2] {
    let dir = |d: Dir| {
        LinkDir::new(
            &cfg.dir(d),
            spikelab_net::streams::link_dir_rng(streams, i, d),
        )
    };
    [dir(Dir::Forward), dir(Dir::Reverse)]
}

/// Link `i`'s spike schedules, each with its own random stream.
pub fn spike_schedules(
    cfg: &LinkConfig,
    i: usize,
    streams: &RngStreams,
) -> Vec<(Schedule, SimRng)> {
    cfg.spikes
        .iter()
        .enumerate()
        .map(|(k, s)| {
            (
                Schedule::new(s)
                    .expect("spike schedules are validated when the scenario is loaded"),
                spikelab_net::streams::spike_rng(streams, i, k),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route() -> Vec<Hop> {
        vec![
            Hop {
                link: 4,
                dir: Dir::Forward,
            },
            Hop {
                link: 7,
                dir: Dir::Reverse,
            },
            Hop {
                link: 2,
                dir: Dir::Forward,
            },
        ]
    }

    #[test]
    fn data_follows_the_route_and_acks_retrace_it_backwards() {
        let r = route();
        assert_eq!(next_hop(&r, true, 0), Some((4, Dir::Forward)));
        assert_eq!(next_hop(&r, true, 1), Some((7, Dir::Reverse)));
        assert_eq!(next_hop(&r, true, 3), None);
        assert_eq!(next_hop(&r, false, 0), Some((2, Dir::Reverse)));
        assert_eq!(next_hop(&r, false, 1), Some((7, Dir::Forward)));
        assert_eq!(next_hop(&r, false, 3), None);
    }

    #[test]
    fn a_packed_route_answers_as_the_list_does() {
        let r = route();
        let packed = PackedRoute::new(&r, |l| l == 7);
        for forward in [true, false] {
            for hop in 0..5 {
                let next = packed.get(forward, hop);
                let list = next_hop(&r, forward, hop);
                assert_eq!(next.map(|n| (n.link, n.dir)), list);
                assert_eq!(next.map(|n| n.boxed), list.map(|(l, _)| l == 7));
            }
        }
        let long = vec![r[0]; PackedRoute::HOPS + 1];
        assert!(packed.packed());
        let long = PackedRoute::new(&long, |_| false);
        assert!(!long.packed());
        assert_eq!(long.get(true, 0), None);
    }

    #[test]
    fn a_box_sends_packets_into_its_link_forward_and_past_it_in_reverse() {
        let r = route();
        // Data reaching the box on link 4 enters link 4 as its first hop.
        assert_eq!(after_box(&r, 4, true), Some(AfterBox::Enter(0)));
        // ACKs cross link 4 last, in reverse: they continue past it.
        assert_eq!(after_box(&r, 4, false), Some(AfterBox::Continue(3)));
        // Data crosses link 7 in its reverse direction: past the box, on its way.
        assert_eq!(after_box(&r, 7, true), Some(AfterBox::Continue(2)));
        assert_eq!(after_box(&r, 7, false), Some(AfterBox::Enter(1)));
        assert_eq!(after_box(&r, 9, true), None);
    }
}
