//! The run metrics of [Kim & Cho 2003] that are not generic: condition (3) for every
//! timeout the STD proxy called spurious, registered in the metric registry as
//! `std_episodes`, `std_cond3_met`, `std_cwnd_bytes`, `std_cond3_met_flight` and
//! `std_flight_bytes`. Throughput and goodput over the wireless link are the generic
//! `throughput_bps` and `goodput_last_hop` (V: "minimum amount of data required for
//! completing data transfer divided by actual amount of data transmitted over a
//! wireless link").
//!
//! * Condition (3) (IV): cwnd_STD / RTT > BW, with `std_condition_met` of the net
//!   crate. cwnd_STD is "the size of congestion window after spurious timeout", read
//!   from the run's trace as the window in force when the sender first sends new data
//!   after the timeout (its go-back-N retransmissions, filtered by the proxy, come
//!   first), capped by the receiver window, which limits what the sender may send ("the
//!   size of cwnd_STD is determined by the flight size before sudden delay which is
//!   limited by receiver buffer size", V). RTT is the path's smallest RTT sample of the
//!   run: the link has just drained during the delay, so the window travels over the
//!   empty path.
//! * cwnd_STD read as the paper reads it (V: "the size of cwnd_STD is determined by the
//!   flight size before sudden delay which is limited by receiver buffer size"): the
//!   flight at the timeout, i.e. the highest byte sent before it minus the timed-out
//!   segment's first byte, capped by the receiver window ([`flight_from`]). Both
//!   readings are evaluated on the same runs.

use crate::metrics::view::{RunMetric, RunView, TraceNeed};
use spikelab_core::trace::{TraceEvent, TraceKinds, TraceRecord};
use spikelab_core::{BitRate, Dur, Time};
use spikelab_engine::{FlowKind, MiddleboxSpec, RunResult, SimConfig, TimeoutRecord};
use spikelab_net::middlebox::std_proxy::std_condition_met;
use spikelab_net::MiddleboxConfig;
use spikelab_tcp::spurious::{DetectorKind, Verdict};

/// The metrics of this file, by name (registered by one line in the metric registry).
pub const METRICS: &[RunMetric] = &[
    RunMetric {
        name: "std_episodes",
        over_flows: false,
        needs_rto: false,
        trace: Some(TRACE),
        value: |v| f64::from(of_run(v).std_episodes),
    },
    RunMetric {
        name: "std_cond3_met",
        over_flows: false,
        needs_rto: false,
        trace: Some(TRACE),
        value: |v| f64::from(of_run(v).std_condition_met),
    },
    RunMetric {
        name: "std_cwnd_bytes",
        over_flows: false,
        needs_rto: false,
        trace: Some(TRACE),
        value: |v| of_run(v).cwnd_std_sum as f64,
    },
    RunMetric {
        name: "std_cond3_met_flight",
        over_flows: false,
        needs_rto: false,
        trace: Some(TRACE),
        value: |v| f64::from(of_run(v).flight_condition_met),
    },
    RunMetric {
        name: "std_flight_bytes",
        over_flows: false,
        needs_rto: false,
        trace: Some(TRACE),
        value: |v| of_run(v).flight_sum as f64,
    },
];

/// What [`episodes`] reads of a run's trace: the segments sent ([`SentBefore`],
/// [`cwnd_after`]), the RTT samples ([`min_rtt`]) and the window changes
/// ([`cwnd_after`]); and only of a run with an STD proxy, the others having no
/// episodes ([`of_run`]).
pub const TRACE: TraceNeed = TraceNeed {
    kinds: TraceKinds::SEND
        .union(TraceKinds::RTT_SAMPLE)
        .union(TraceKinds::CWND),
    of: |sim| std_proxy(sim).is_some(),
};

/// The run's STD proxy, if it has one.
fn std_proxy(sim: &SimConfig) -> Option<&MiddleboxSpec> {
    sim.middleboxes
        .iter()
        .find(|m| matches!(m.config, MiddleboxConfig::StdProxy(_)))
}

/// Condition (3) over the STD proxy's spurious episodes of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StdEpisodes {
    /// Episodes the STD proxy called spurious, for which a cwnd_STD was found.
    pub std_episodes: u32,
    /// Of those, how many met condition (3).
    pub std_condition_met: u32,
    /// Sum of cwnd_STD over those episodes, in bytes (for the mean).
    pub cwnd_std_sum: u64,
    /// Of the same episodes, how many met condition (3) with cwnd_STD read as the
    /// flight before the delay (the paper's reading).
    pub flight_condition_met: u32,
    /// Sum of that flight over the episodes, in bytes.
    pub flight_sum: u64,
}

/// Condition (3) for every episode of the run `v` that the STD proxy called spurious:
/// BW is the rate of the link the proxy sits on, the receiver window the flow's.
/// Nothing without an STD proxy. Computed once per run and flow
/// ([`crate::metrics::view::RunMemo`]): five metrics read it.
pub fn of_run(v: &RunView) -> StdEpisodes {
    *v.memo.get(&[v.flow], || of_run_once(v))
}

fn of_run_once(v: &RunView) -> StdEpisodes {
    let Some(proxy) = std_proxy(v.sim) else {
        return StdEpisodes::default();
    };
    let rate = v.sim.links[proxy.link].rate;
    let FlowKind::Tcp { tcp, .. } = &v.sim.flows[v.flow].kind else {
        return StdEpisodes::default();
    };
    episodes(v.result, rate, tcp.receiver_window)
}

/// Condition (3) over the run's episodes; `rate` is the last hop's BW and `rwnd` the
/// receiver window.
pub fn episodes(r: &RunResult, rate: BitRate, rwnd: u64) -> StdEpisodes {
    let mut s = StdEpisodes::default();
    let Some(rtt) = min_rtt(&r.trace) else {
        return s;
    };
    // In time order, so that one forward pass over the trace finds every timeout's
    // flight ([`SentBefore`]); the sums and counts do not depend on the order.
    let mut spurious: Vec<&TimeoutRecord> = r
        .timeouts
        .iter()
        .filter(|t| std_called_spurious(t))
        .collect();
    spurious.sort_by_key(|t| t.time);
    let mut sent = SentBefore::new(&r.trace);
    for t in spurious {
        let highest = sent.highest(t.time);
        if let Some(cwnd) = cwnd_after(&r.trace, t.time) {
            let cwnd = cwnd.min(rwnd);
            s.std_episodes += 1;
            s.cwnd_std_sum += cwnd;
            s.std_condition_met += u32::from(std_condition_met(cwnd, rtt, rate));
            let flight = flight_from(highest, t.seq).min(rwnd);
            s.flight_sum += flight;
            s.flight_condition_met += u32::from(std_condition_met(flight, rtt, rate));
        }
    }
    s
}

/// The first timeout of an episode the STD proxy judged spurious.
fn std_called_spurious(t: &TimeoutRecord) -> bool {
    t.backoff == 0
        && t.verdicts
            .iter()
            .any(|v| v.detector == DetectorKind::StdProxy && v.verdict == Verdict::Spurious)
}

/// The smallest RTT sample in the trace.
fn min_rtt(trace: &[TraceRecord]) -> Option<Dur> {
    trace
        .iter()
        .filter_map(|r| match r.event {
            TraceEvent::RttSample { rtt } => Some(rtt),
            _ => None,
        })
        .min()
}

/// The highest byte sent before each of a run's timeouts, found in one forward pass
/// over the (time-ordered) trace for all of them: asked in increasing time, it resumes
/// where the previous question stopped instead of re-reading the trace from its start.
struct SentBefore<'a> {
    trace: &'a [TraceRecord],
    /// The first record not yet read.
    next: usize,
    /// The end of the highest segment sent in `trace[..next]`.
    highest: Option<u64>,
}

impl<'a> SentBefore<'a> {
    fn new(trace: &'a [TraceRecord]) -> Self {
        SentBefore {
            trace,
            next: 0,
            highest: None,
        }
    }

    /// The end of the highest segment sent before `at` (None if nothing was); `at`
    /// must not be earlier than in the previous call.
    fn highest(&mut self, at: Time) -> Option<u64> {
        debug_assert!(self.next == 0 || self.trace[self.next - 1].time < at);
        while let Some(r) = self.trace.get(self.next).filter(|r| r.time < at) {
            if let TraceEvent::Send { seq, len, .. } = r.event {
                self.highest = self.highest.max(Some(seq + u64::from(len)));
            }
            self.next += 1;
        }
        self.highest
    }
}

/// The flight at a timeout of the segment starting at `una`, given the end of the
/// highest segment sent before it: that end minus `una` (0 if nothing beyond `una` was
/// sent).
fn flight_from(highest: Option<u64>, una: u64) -> u64 {
    highest.map_or(0, |end| end.saturating_sub(una))
}

/// The congestion window in force when the sender first sends new data after `since`
/// (None if it never does).
fn cwnd_after(trace: &[TraceRecord], since: Time) -> Option<u64> {
    let from = trace.partition_point(|r| r.time <= since);
    let at = trace[from..]
        .iter()
        .find(|r| matches!(r.event, TraceEvent::Send { retx: false, .. }))?
        .time;
    trace[..trace.partition_point(|r| r.time <= at)]
        .iter()
        .rev()
        .find_map(|r| match r.event {
            TraceEvent::Cwnd { cwnd, .. } => Some(cwnd),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::FlowId;

    fn rec(ms: u64, event: TraceEvent) -> TraceRecord {
        TraceRecord {
            time: Time::ZERO + Dur::from_millis(ms),
            flow: FlowId(0),
            event,
        }
    }

    #[test]
    fn the_papers_cwnd_std_is_the_flight_before_the_timeout() {
        let send = |seq, retx| TraceEvent::Send {
            seq,
            len: 1000,
            retx,
        };
        let trace = [
            rec(0, send(0, false)),
            rec(1, send(1000, false)),
            rec(2, send(2000, false)),
            rec(5, send(1000, true)), // at the timeout itself: not before it
            rec(9, send(3000, false)),
        ];
        let at = Time::ZERO + Dur::from_millis(5);
        let mut sent = SentBefore::new(&trace);
        assert_eq!(sent.highest(Time::ZERO), None);
        assert_eq!(flight_from(sent.highest(at), 1000), 2000);
        assert_eq!(flight_from(sent.highest(at), 5000), 0);
        let later = Time::ZERO + Dur::from_millis(10);
        assert_eq!(flight_from(sent.highest(later), 1000), 3000);
    }

    #[test]
    fn cwnd_std_is_the_window_when_new_data_resumes() {
        let cwnd = |c| TraceEvent::Cwnd {
            cwnd: c,
            ssthresh: 0,
        };
        let send = |retx| TraceEvent::Send {
            seq: 0,
            len: 1,
            retx,
        };
        let trace = [
            rec(0, cwnd(8000)),
            rec(10, send(false)),
            rec(20, cwnd(1460)), // the timeout
            rec(30, send(true)),
            rec(40, cwnd(5840)),
            rec(50, send(false)),
            rec(50, cwnd(7300)),
            rec(60, send(false)),
        ];
        let t = Time::ZERO + Dur::from_millis(20);
        assert_eq!(cwnd_after(&trace, t), Some(7300));
        let late = Time::ZERO + Dur::from_millis(60);
        assert_eq!(cwnd_after(&trace, late), None);
        assert_eq!(
            min_rtt(&[rec(1, TraceEvent::RttSample { rtt: Dur(5) })]),
            Some(Dur(5))
        );
    }

    /// The kinds of record [`TRACE`] asks for are all that [`episodes`] reads: over
    /// the paper's scenario with a 1 MB download, its counts and sums are those of the
    /// full trace. A run without the proxy asks for none.
    #[test]
    fn the_trace_kinds_asked_for_give_the_episodes_of_the_full_trace() {
        let text = include_str!("../../../../../scenarios/std-proxy.toml")
            .replace("bytes = \"10MB\"", "bytes = \"1MB\"");
        let s = spikelab_scenario::parse(&text, "std-proxy.toml").unwrap();
        let full = s.to_sim();
        assert!(full.trace.is_empty(), "the scenario traces nothing");
        let mut some = full.clone();
        some.trace = crate::metrics::trace_kinds(&[TRACE], &full);
        assert_eq!(some.trace, TRACE.kinds);
        let mut all = full.clone();
        all.trace = TraceKinds::ALL;
        let mut seen = 0;
        for seed in 1..4 {
            let a = spikelab_engine::run(&all, seed).unwrap();
            let b = spikelab_engine::run(&some, seed).unwrap();
            assert!(b.trace.len() < a.trace.len());
            let (rate, rwnd) = (full.links[1].rate, 8192);
            let e = episodes(&a, rate, rwnd);
            assert_eq!(episodes(&b, rate, rwnd), e);
            seen += e.std_episodes;
        }
        assert!(seen > 0, "no episode to compare");
        let mut plain = full;
        plain.middleboxes.clear();
        assert_eq!(
            crate::metrics::trace_kinds(&[TRACE], &plain),
            TraceKinds::NONE
        );
    }
}
