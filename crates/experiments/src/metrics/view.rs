//! What a run metric is and what it sees ([`RunView`]): the interface every metric
//! of the registry implements, a leaf that the metric sets, the papers'
//! own metrics and the grid all read.

use spikelab_engine::{RunResult, SimConfig, TraceKinds};
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::rc::Rc;

/// What a run metric sees: the run, the configuration it ran, and the flows it is
/// about: the experiment's flow, or every flow of a group (`metric@group`).
pub struct RunView<'a> {
    pub result: &'a RunResult,
    pub sim: &'a SimConfig,
    /// The experiment's flow.
    pub flow: usize,
    /// The flows the metric covers (`[flow]` without a group).
    pub flows: &'a [usize],
    /// What several metrics of this run share, computed once (one memo per run).
    pub memo: &'a RunMemo,
}

/// Values that several run metrics derive alike from one run, computed on first use:
/// each of [Ekström & Ludwig 2004] IV.C's timer metrics reads every RTO computation of
/// its flows, each STD-proxy metric the run's whole trace, and a table names many of
/// them for every run. A memo serves the views of one run (one [`RunResult`] and
/// [`SimConfig`]); a value is keyed by its type and the flows it reads, so each metric
/// set keeps its own values without the memo knowing their types.
#[derive(Default)]
pub struct RunMemo {
    values: RefCell<Vec<Memoised>>,
}

/// One value of a [`RunMemo`]: its type, the flows it reads, the value.
type Memoised = (TypeId, Vec<usize>, Rc<dyn Any>);

impl RunMemo {
    /// The value of type `T` over `flows`, computed by `of` the first time.
    pub fn get<T: 'static>(&self, flows: &[usize], of: impl FnOnce() -> T) -> Rc<T> {
        let key = TypeId::of::<T>();
        let found = self
            .values
            .borrow()
            .iter()
            .find_map(|(t, f, v)| (*t == key && f == flows).then(|| Rc::clone(v)));
        if let Some(v) = found.and_then(|v| v.downcast::<T>().ok()) {
            return v;
        }
        let v = Rc::new(of());
        let any: Rc<dyn Any> = Rc::clone(&v) as Rc<dyn Any>;
        self.values.borrow_mut().push((key, flows.to_vec(), any));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memo_computes_each_type_and_flow_set_once() {
        let memo = RunMemo::default();
        let calls = std::cell::Cell::new(0);
        let count = || {
            calls.set(calls.get() + 1);
            calls.get()
        };
        assert_eq!(*memo.get(&[0, 1], count), 1);
        assert_eq!(*memo.get(&[0, 1], count), 1);
        assert_eq!(*memo.get(&[1], count), 2);
        assert_eq!(
            *memo.get(&[0, 1], || 7u64),
            7,
            "another type is another value"
        );
        assert_eq!(calls.get(), 2);
    }
}

/// What of a run's trace a metric reads, and of which runs: the grid records those
/// kinds of record in the cells whose configuration `of` accepts, and nothing for the
/// metric in the others (the whole trace in every cell cost std-proxy's reproduction
/// about a tenth of its time: 19.9 against 17.9 s user at `--reps 20`).
#[derive(Clone, Copy)]
pub struct TraceNeed {
    pub kinds: TraceKinds,
    pub of: fn(&SimConfig) -> bool,
}

/// A metric over a whole run.
pub struct RunMetric {
    pub name: &'static str,
    /// The trace records it reads, if any.
    pub trace: Option<TraceNeed>,
    /// It reads every RTO computation (`FlowResult::rto_samples`; the grid records them).
    pub needs_rto: bool,
    /// It reads every flow of [`RunView::flows`], so it may be taken over a group
    /// (`metric@group`); the others read [`RunView::flow`] alone.
    pub over_flows: bool,
    pub value: fn(&RunView) -> f64,
}

/// A metric name and the flow group it is taken over: `timer_p@ph-bulk`.
pub fn split_group(name: &str) -> (&str, Option<&str>) {
    match name.split_once('@') {
        Some((m, g)) => (m, Some(g)),
        None => (name, None),
    }
}

/// The trace records the metrics `needs` read of a run of `sim`.
pub fn trace_kinds(needs: &[TraceNeed], sim: &SimConfig) -> TraceKinds {
    needs
        .iter()
        .filter(|n| (n.of)(sim))
        .fold(TraceKinds::NONE, |k, n| k.union(n.kinds))
}
