//! Applying a spike schedule's [`LinkControl`] to one direction of a link: the one
//! place the engine's event loop and the emulator's real-time forwarder both call, so
//! that a suspension, a resumption and a rate change mean the same in either.

use crate::link::same_instant::Lead;
use crate::link::LinkDir;
use crate::spike::{Dir, LinkControl};
use spikelab_core::{Time, Wire};

/// Applies `control` to direction `d` of a link (`dir`) at `now`. `None` when the
/// control does not name `d`; otherwise the packets its resumption drops (the arrivals
/// a freeze held in front of the queue, [`crate::freeze`]), empty for the others.
pub fn apply<P: Wire, L: Lead>(
    control: LinkControl,
    d: Dir,
    dir: &mut LinkDir<P, L>,
    now: Time,
) -> Option<Vec<P>> {
    match control {
        LinkControl::Suspend(ds, mode) if ds.includes(d) => {
            dir.suspend(now, mode);
            Some(Vec::new())
        }
        LinkControl::Resume(ds) if ds.includes(d) => Some(dir.resume(now)),
        LinkControl::SetRate(ds, rate) if ds.includes(d) => {
            dir.set_rate(now, rate);
            Some(Vec::new())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spike::Dirs;
    use crate::FreezeMode;
    use spikelab_core::Dur;

    fn link() -> LinkDir<spikelab_core::Packet> {
        let cfg =
            crate::LinkDirConfig::new(spikelab_core::BitRate(1_000_000), Dur::from_millis(10));
        LinkDir::new(&cfg, crate::tests_rng(1))
    }

    #[test]
    fn a_control_naming_the_other_direction_leaves_this_one_alone() {
        let mut dir = link();
        let forward_only = LinkControl::Suspend(Dirs::Forward, FreezeMode::default());
        assert_eq!(
            apply(forward_only, Dir::Reverse, &mut dir, Time::ZERO),
            None
        );
        assert!(apply(forward_only, Dir::Forward, &mut dir, Time::ZERO).is_some());
    }

    #[test]
    fn a_resumption_of_a_suspended_direction_applies_and_drops_nothing_unheld() {
        let mut dir = link();
        let both = Dirs::Both;
        let suspend = LinkControl::Suspend(both, FreezeMode::default());
        apply(suspend, Dir::Forward, &mut dir, Time::ZERO);
        let resumed = apply(LinkControl::Resume(both), Dir::Forward, &mut dir, Time(5));
        assert_eq!(resumed.map(|v| v.len()), Some(0));
    }
}
