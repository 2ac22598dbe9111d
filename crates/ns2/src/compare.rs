//! One differential case: the same scenario in spikelab and in ns-2.35, compared per
//! TCP flow on completion time, data segments sent, retransmissions, timeouts, fast
//! retransmits and the (time, sequence) series of every data transmission.

use crate::export::{export, Refused, TcpFlowInfo};
use crate::ns2run::{self, Ns2Flow};
use spikelab_core::trace::{TraceEvent, TraceRecord};
use spikelab_core::{Dur, FlowId, Time};
use spikelab_engine::{FlowResult, SimConfig};
use std::fmt::Write as _;

/// Per-flow metrics of one simulator.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Completion time in seconds (`None`: unfinished at the stop time).
    pub completed: Option<f64>,
    pub data_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
}

/// The first transmission where the series differ, with both sides' state.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// Index in the series of data transmissions.
    pub index: usize,
    /// What each side sent there: (seconds, segment number) or nothing.
    pub ns2: Option<(f64, u64)>,
    pub spikelab: Option<(f64, u64)>,
    /// Each side's window and timer state just before.
    pub ns2_state: String,
    pub spikelab_state: String,
}

/// One flow compared.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowDiff {
    pub ns2: Metrics,
    pub spikelab: Metrics,
    /// Transmissions compared (the shorter series' length if they never diverge).
    pub series_len: (usize, usize),
    pub divergence: Option<Divergence>,
}

/// Tolerance on one send time: ns-2 prints 15 significant digits.
const TIME_TOLERANCE_S: f64 = 1e-6;
/// Completion times agree when within 0.1 %.
pub const COMPLETION_TOLERANCE: f64 = 0.001;

impl FlowDiff {
    /// Retransmissions and timeouts identical, completion within 0.1 %.
    pub fn matches(&self) -> bool {
        let (a, b) = (self.ns2, self.spikelab);
        let completion = match (a.completed, b.completed) {
            (Some(x), Some(y)) => (x - y).abs() <= COMPLETION_TOLERANCE * x,
            (None, None) => true,
            _ => false,
        };
        completion && a.retransmissions == b.retransmissions && a.timeouts == b.timeouts
    }

    /// Every transmission at the same time with the same segment.
    pub fn identical(&self) -> bool {
        self.divergence.is_none()
    }

    /// The mismatch report: metrics of both and the first diverging packet.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "  ns-2:     {:?}", self.ns2);
        let _ = writeln!(s, "  spikelab: {:?}", self.spikelab);
        if let Some(d) = &self.divergence {
            let _ = writeln!(
                s,
                "  first diverging transmission #{}: ns-2 {:?}, spikelab {:?} (time s, segment)",
                d.index, d.ns2, d.spikelab
            );
            let _ = writeln!(s, "    ns-2 state:     {}", d.ns2_state);
            let _ = writeln!(s, "    spikelab state: {}", d.spikelab_state);
        }
        s
    }
}

/// Why a case could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error("spikelab: {0}")]
    Spikelab(String),
    #[error("ns-2: {0}")]
    Ns2(String),
}

/// Runs `sim` with `seed` in both simulators and compares every TCP flow.
pub fn compare(sim: &SimConfig, seed: u64) -> Result<Vec<FlowDiff>, CaseError> {
    let script = export(sim, seed)?;
    let dir = tempfile::tempdir().map_err(|e| CaseError::Ns2(e.to_string()))?;
    let ns = ns2run::run(&script, dir.path()).map_err(CaseError::Ns2)?;
    let mut traced = sim.clone();
    traced.trace = spikelab_engine::TraceKinds::ALL;
    let run =
        spikelab_engine::run(&traced, seed).map_err(|e| CaseError::Spikelab(e.to_string()))?;
    Ok(script
        .tcp_flows
        .iter()
        .zip(&ns)
        .map(|(info, n)| diff_flow(info, n, &run.flows[info.flow], &run.trace))
        .collect())
}

fn ns2_metrics(info: &TcpFlowInfo, n: &Ns2Flow) -> Metrics {
    let first_data = u64::from(info.syn);
    let mut seen = std::collections::BTreeSet::new();
    let (mut data, mut rtx, mut syn_sends) = (0, 0, 0u64);
    for s in &n.sends {
        if s.seqno < first_data {
            syn_sends += 1;
            continue;
        }
        data += 1;
        if !seen.insert(s.seqno) {
            rtx += 1;
        }
    }
    let syn_timeouts = syn_sends.saturating_sub(1);
    // FackTcpAgent::timeout() handles the retransmission timer itself and never runs
    // TcpAgent::timeout()'s ++nrexmit_; every timeout backs the timer off
    // (reset_rtx_timer(.., 1) -> rtt_backoff()), so each rise of t_backoff_ (traced as
    // `backoff_`, its Tcl name) is one.
    let expiries = if info.fack {
        backoff_rises(n)
    } else {
        n.nrexmit
    };
    let timeouts = expiries.saturating_sub(syn_timeouts);
    Metrics {
        completed: n.completed,
        data_sent: data,
        retransmissions: rtx,
        timeouts,
        // slowdown() runs once per timeout (counted in nrexmit_) and once per fast
        // retransmit; nothing else calls it in these agents on a loss.
        fast_retransmits: n.ncwndcuts.saturating_sub(n.nrexmit),
    }
}

/// How many times the traced `backoff_` (ns-2's `t_backoff_`) rose.
fn backoff_rises(n: &Ns2Flow) -> u64 {
    let mut last = 1.0;
    let mut rises = 0;
    for v in n.vars.iter().filter(|v| v.name == "backoff_") {
        rises += u64::from(v.value > last);
        last = v.value;
    }
    rises
}

fn spikelab_metrics(r: &FlowResult) -> Metrics {
    Metrics {
        completed: r.completed.map(|t| (t - Time::ZERO).as_secs_f64()),
        data_sent: r.data_segments_sent,
        retransmissions: r.retransmissions,
        timeouts: r.timeouts,
        fast_retransmits: r.fast_retransmits,
    }
}

fn diff_flow(info: &TcpFlowInfo, n: &Ns2Flow, r: &FlowResult, trace: &[TraceRecord]) -> FlowDiff {
    let first_data = u64::from(info.syn);
    let ns_series: Vec<(f64, u64)> = n
        .sends
        .iter()
        .filter(|s| s.seqno >= first_data)
        .map(|s| (s.time, s.seqno - first_data))
        .collect();
    let flow = FlowId(info.flow as u32);
    let mine: Vec<(f64, u64)> = trace
        .iter()
        .filter(|t| t.flow == flow)
        .filter_map(|t| match t.event {
            TraceEvent::Send { seq, .. } => {
                Some(((t.time - Time::ZERO).as_secs_f64(), seq / info.mss as u64))
            }
            _ => None,
        })
        .collect();
    let diverge =
        (0..ns_series.len().max(mine.len())).find(|&i| match (ns_series.get(i), mine.get(i)) {
            (Some(a), Some(b)) => a.1 != b.1 || (a.0 - b.0).abs() > TIME_TOLERANCE_S,
            _ => true,
        });
    if let (Some(i), Ok(n)) = (diverge, std::env::var("NS2DIFF_CONTEXT")) {
        let n: usize = n.parse().unwrap_or(20);
        for j in i.saturating_sub(n)..i + n {
            eprintln!("#{j} ns2 {:?} spikelab {:?}", ns_series.get(j), mine.get(j));
        }
        // NS2DIFF_TRACE_FROM / NS2DIFF_TRACE_SPAN (seconds) move spikelab's trace window.
        let env_secs = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<f64>().ok());
        let t0 = env_secs("NS2DIFF_TRACE_FROM")
            .unwrap_or_else(|| mine.get(i).map_or(0.0, |m| m.0) - 0.01);
        let span = env_secs("NS2DIFF_TRACE_SPAN").unwrap_or(0.06);
        for t in trace.iter().filter(|t| t.flow == flow) {
            let ts = (t.time - Time::ZERO).as_secs_f64();
            if ts >= t0 && ts < t0 + span {
                eprintln!("  {ts:.6} {:?}", t.event);
            }
        }
    }
    let divergence = diverge.map(|i| {
        let at = ns_series
            .get(i)
            .map(|a| a.0)
            .into_iter()
            .chain(mine.get(i).map(|b| b.0))
            .fold(f64::INFINITY, f64::min);
        Divergence {
            index: i,
            ns2: ns_series.get(i).copied(),
            spikelab: mine.get(i).copied(),
            ns2_state: ns2_state(n, at),
            spikelab_state: spikelab_state(trace, flow, at, info.mss),
        }
    });
    FlowDiff {
        ns2: ns2_metrics(info, n),
        spikelab: spikelab_metrics(r),
        series_len: (ns_series.len(), mine.len()),
        divergence,
    }
}

/// ns-2's traced variables as they stood at `at` (their last change at or before it).
fn ns2_state(n: &Ns2Flow, at: f64) -> String {
    let mut last: Vec<(&str, f64)> = Vec::new();
    for v in n
        .vars
        .iter()
        .take_while(|v| v.time <= at + TIME_TOLERANCE_S)
    {
        match last.iter_mut().find(|(k, _)| *k == v.name) {
            Some(e) => e.1 = v.value,
            None => last.push((&v.name, v.value)),
        }
    }
    let mut s = format!("t={at:.6}");
    for (k, v) in last {
        let _ = write!(s, " {k}={v}");
    }
    s.push_str(" (srtt_ in ticks << 3, rttvar_ << 2)");
    s
}

/// spikelab's window and timer state at `at`, from the trace, in segments.
fn spikelab_state(trace: &[TraceRecord], flow: FlowId, at: f64, mss: u32) -> String {
    let limit = Time::ZERO + Dur::from_secs_f64(at + TIME_TOLERANCE_S);
    let mss = mss as f64;
    let (mut cwnd, mut rto, mut srtt, mut snd) = (None, None, None, None);
    for t in trace.iter().filter(|t| t.flow == flow && t.time <= limit) {
        match t.event {
            TraceEvent::Cwnd { cwnd: c, ssthresh } => {
                cwnd = Some((c as f64 / mss, ssthresh as f64 / mss))
            }
            TraceEvent::Rto { rto: r, backoff } => rto = Some((r.as_secs_f64(), backoff)),
            TraceEvent::Srtt { srtt: s } => srtt = Some(s.as_secs_f64()),
            TraceEvent::SndState {
                snd_una,
                snd_nxt,
                snd_max,
            } => {
                snd = Some((
                    snd_una as f64 / mss,
                    snd_nxt as f64 / mss,
                    snd_max as f64 / mss,
                ))
            }
            _ => {}
        }
    }
    format!("t={at:.6} cwnd,ssthresh={cwnd:?} rto,backoff={rto:?} srtt={srtt:?} una,nxt,max={snd:?} (segments)")
}
