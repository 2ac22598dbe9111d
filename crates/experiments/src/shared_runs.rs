//! Runs that several cells of one experiment share.
//!
//! Repetition r of a cell runs the cell's configuration with
//! `RngStreams::repetition_seed(seed, r)`, and a run is a pure function of its
//! configuration and seed. So cells with equal configurations (a baseline that several
//! tables repeat: [Gurtov & Ludwig 2003]'s Table 3 and Table 4 both start from Table
//! 2's FACK with Eifel, and the Linux tables from Table 1 and Table 2) get equal
//! results, repetition by repetition. [`SharedRuns`] runs each such repetition once,
//! for whichever of those cells gets to it first, and hands the result to every one of
//! them; it keeps a result only until the last of them has read it. Every cell still
//! summarises its own result, so the output is the same as with every run made anew.

use spikelab_engine::{InvariantViolation, RunResult, SimConfig};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The shared repetitions of an experiment's cells (see the module docs).
pub struct SharedRuns<'a> {
    /// For grid g's cell c, the group of cells it shares its runs with, if any.
    group_of: Vec<Vec<Option<usize>>>,
    groups: Vec<Group<'a>>,
    /// The runs the sharing saves.
    saved: u64,
}

/// Cells with one configuration.
struct Group<'a> {
    sim: &'a SimConfig,
    /// One slot per repetition any of the cells runs.
    reps: Vec<Mutex<Slot>>,
}

/// One shared run: the cells that have yet to read it, and its result once run (until
/// its last reader takes it).
struct Slot {
    readers: u32,
    result: Option<Ran>,
}

type Ran = Result<Arc<RunResult>, InvariantViolation>;

impl<'a> SharedRuns<'a> {
    /// Finds the cells that share runs: `grids[g]` holds grid g's cell configurations
    /// and its number of repetitions. A cell is compared in full only with the first
    /// cells of each configuration of its shape.
    pub fn plan(grids: &[(&'a [SimConfig], u32)]) -> SharedRuns<'a> {
        let shape = |s: &SimConfig| (s.links.len(), s.flows.len(), s.middleboxes.len(), s.stop_at);
        let mut firsts: BTreeMap<_, Vec<(usize, usize)>> = BTreeMap::new();
        let mut group_of: Vec<Vec<Option<usize>>> =
            grids.iter().map(|(s, _)| vec![None; s.len()]).collect();
        let mut groups: Vec<Group<'a>> = Vec::new();
        let mut readers: Vec<Vec<u32>> = Vec::new();
        for (g, &(sims, reps)) in grids.iter().enumerate() {
            for (c, sim) in sims.iter().enumerate() {
                let same = firsts.entry(shape(sim)).or_default();
                let Some(&(h, d)) = same.iter().find(|&&(h, d)| grids[h].0[d] == *sim) else {
                    same.push((g, c));
                    continue;
                };
                let k = *group_of[h][d].get_or_insert_with(|| {
                    groups.push(Group {
                        sim: &grids[h].0[d],
                        reps: Vec::new(),
                    });
                    readers.push(vec![1; grids[h].1 as usize]);
                    groups.len() - 1
                });
                group_of[g][c] = Some(k);
                let n = &mut readers[k];
                n.resize(n.len().max(reps as usize), 0);
                n[..reps as usize].iter_mut().for_each(|r| *r += 1);
            }
        }
        let saved = readers.iter().flatten().map(|&n| u64::from(n - 1)).sum();
        for (group, n) in groups.iter_mut().zip(readers) {
            let slot = |readers| {
                Mutex::new(Slot {
                    readers,
                    result: None,
                })
            };
            group.reps = n.into_iter().map(slot).collect();
        }
        SharedRuns {
            group_of,
            groups,
            saved,
        }
    }

    /// No cell shares a run (for a grid run on its own).
    pub fn none() -> SharedRuns<'static> {
        SharedRuns {
            group_of: Vec::new(),
            groups: Vec::new(),
            saved: 0,
        }
    }

    /// How many runs the sharing saves: every reader of a shared repetition after
    /// its first.
    pub fn saved(&self) -> u64 {
        self.saved
    }

    /// Repetition `rep` of grid `g`'s cell `c` with `seed`, if the cell shares its
    /// runs: run here by the first of its group's cells to ask (the others wait for
    /// it), read by each of them once; `None` for a cell that shares nothing.
    pub fn run(&self, g: usize, c: usize, rep: u32, seed: u64) -> Option<Ran> {
        let group = &self.groups[(*self.group_of.get(g)?.get(c)?)?];
        let mut slot = group.reps[rep as usize]
            .lock()
            .expect("no reader panics while holding it");
        let ran = slot
            .result
            .get_or_insert_with(|| spikelab_engine::run(group.sim, seed).map(Arc::new))
            .clone();
        slot.readers -= 1;
        if slot.readers == 0 {
            slot.result = None;
        }
        Some(ran)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::{Dur, RngStreams};

    fn sim(stop_s: u64) -> SimConfig {
        let text = include_str!("../../../scenarios/gprs-eifel.toml");
        let mut s = spikelab_scenario::parse(text, "gprs-eifel.toml")
            .unwrap()
            .to_sim();
        s.stop_at = Dur::from_secs(stop_s);
        s
    }

    #[test]
    fn equal_cells_of_any_grid_read_one_run_of_each_repetition() {
        let (a, b, c) = (sim(100), sim(200), sim(100));
        let one = [a.clone(), b.clone()];
        let two = [b, c, a];
        let runs = SharedRuns::plan(&[(&one, 3), (&two, 2)]);
        // one[0] = two[1] = two[2]: readers 3, 3, 1 of its 3 repetitions, 4 runs
        // saved; one[1] = two[0]: readers 2, 2, 1, 2 runs saved.
        assert_eq!(
            runs.group_of,
            [vec![Some(1), Some(0)], vec![Some(0), Some(1), Some(1)]]
        );
        assert_eq!(runs.saved(), 4 + 2);
        let seed = |r| RngStreams::repetition_seed(7, r);
        let alone = spikelab_engine::run(&one[0], seed(1)).unwrap();
        for (g, c) in [(1, 2), (0, 0), (1, 1)] {
            let shared = runs.run(g, c, 1, seed(1)).unwrap().unwrap();
            assert_eq!(format!("{:?}", shared.flows), format!("{:?}", alone.flows));
        }
        let slot = runs.groups[1].reps[1].lock().unwrap();
        assert!(
            slot.readers == 0 && slot.result.is_none(),
            "kept after its last reader"
        );
        drop(slot);
        // Repetition 2 of the first group: grid 0 alone runs it, but its cell shares.
        assert!(runs.run(0, 0, 2, seed(2)).unwrap().is_ok());
    }

    #[test]
    fn cells_unlike_every_other_share_nothing() {
        let (a, b) = ([sim(100)], [sim(200)]);
        let runs = SharedRuns::plan(&[(&a, 2), (&b, 2)]);
        assert_eq!(runs.saved(), 0);
        assert!(runs.run(0, 0, 0, 1).is_none() && runs.run(1, 0, 1, 1).is_none());
        assert!(SharedRuns::none().run(0, 0, 0, 1).is_none());
    }
}
