//! One repetition's results in the engine's result types, so `spikelab run`'s writers
//! write them: per-flow metrics from the forwarder (segments, retransmissions,
//! unnecessary ones, deliveries) and the kernel (completion, timeouts, undo counters),
//! and one timeout record per kernel RTO.
//!
//! Each kernel timeout (`tcpi_total_rto` grew between two polls) is matched to the
//! first retransmission of the flow that reached the forwarder after the earlier poll
//! (the kernel sends it from the timer handler) and takes that retransmission's ground
//! truth and sequence number. A growth of `TCPSpuriousRTOs` (F-RTO, `tcp_try_undo_loss`
//! with `frto_undo`) or `TCPLossUndo` (undo after an RTO from timestamps or D-SACKs,
//! `tcp_may_undo`) is the kernel's verdict "spurious" on the latest timeout before it
//! and on the backed-off timeouts of the same episode.

use crate::forwarder::{FlowCounts, RetxRecord};
use crate::host::{SenderReport, TimeoutObs};
use crate::kernel::{KernelSettings, TcpInfo};
use serde::Serialize;
use spikelab_core::{Dur, Time};
use spikelab_engine::{DetectorVerdict, FlowResult, LinkResult, TimeoutRecord, Truth};
use spikelab_tcp::spurious::{DetectorKind, UndoCounters, Verdict};
use std::collections::BTreeMap;

/// How late the forwarder released packets (actual minus scheduled), milliseconds.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Lateness {
    pub packets: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// Above this p99 lateness a run does not follow its model closely enough.
pub const HONEST_P99_MS: f64 = 5.0;

impl Lateness {
    /// The percentiles of `ns` (nearest rank).
    pub fn of(ns: &[u64]) -> Lateness {
        if ns.is_empty() {
            return Lateness::default();
        }
        let mut v = ns.to_vec();
        v.sort_unstable();
        let at =
            |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1] as f64 / 1e6;
        Lateness {
            packets: v.len() as u64,
            p50_ms: at(0.5),
            p99_ms: at(0.99),
            max_ms: at(1.0),
        }
    }

    /// Did the forwarder keep to its schedule (p99 within [`HONEST_P99_MS`])?
    pub fn honest(&self) -> bool {
        self.p99_ms <= HONEST_P99_MS
    }
}

/// What the kernel said about one flow.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowKernel {
    pub flow: String,
    pub settings: Option<KernelSettings>,
    pub sysctls: BTreeMap<String, String>,
    /// The sender's congestion-control module as the kernel reports it.
    pub congestion: String,
    pub final_info: TcpInfo,
    pub sender_counters: BTreeMap<String, u64>,
    pub receiver_counters: BTreeMap<String, u64>,
    pub bytes_received: u64,
    pub timeouts_unmatched: u64,
    pub error: Option<String>,
}

/// Everything one flow contributes to a repetition's results.
pub struct FlowInputs<'a> {
    pub name: &'a str,
    pub flow: u32,
    pub start: Time,
    pub bytes: u64,
    pub mss: u64,
    /// Segments the workload needs at least (the engine's `min_segments`).
    pub min_segments: u64,
    pub counts: &'a FlowCounts,
    pub sender: &'a SenderReport,
    pub settings: &'a KernelSettings,
}

/// The flow's result and its timeout records.
pub fn flow_result(i: &FlowInputs) -> (FlowResult, Vec<TimeoutRecord>, u64) {
    let (mut records, unmatched) = timeout_records(i);
    attach_undos(i, &mut records);
    let c = |k: &str| i.sender.counters.get(k).copied().unwrap_or(0);
    let data: Vec<&TimeoutRecord> = records.iter().collect();
    let spurious = data.iter().filter(|r| r.truth.is_spurious()).count() as u64;
    let syn_timeouts = i.sender.timeouts.iter().filter(|t| !t.established).count() as u64;
    // An episode is a series of backed-off expiries, classed by its first (as the engine).
    // The kernel reports icsk_backoff after the expiry, so an episode's first reads 1.
    let episodes: Vec<&&TimeoutRecord> = data.iter().filter(|r| r.backoff <= 1).collect();
    let spurious_episodes = episodes.iter().filter(|r| r.truth.is_spurious()).count() as u64;
    let r = FlowResult {
        name: i.name.to_owned(),
        start: i.start,
        completed: i.sender.completed.map(Time),
        bytes: i.bytes,
        data_segments_sent: i.counts.data_segments_sent,
        min_segments: i.min_segments,
        retransmissions: i.counts.retransmissions,
        unnecessary_retransmissions: i.counts.unnecessary_retransmissions,
        // Recovery episodes, as the engine counts them (its sender's entries into fast
        // recovery): tcp_enter_recovery's counters. TCPFastRetrans counts segments.
        fast_retransmits: c("TcpExt.TCPSackRecovery") + c("TcpExt.TCPRenoRecovery"),
        timeouts: data.len() as u64,
        spurious_timeouts: spurious,
        genuine_timeouts: data.len() as u64 - spurious,
        timeout_episodes: episodes.len() as u64,
        spurious_timeout_episodes: spurious_episodes,
        genuine_timeout_episodes: episodes.len() as u64 - spurious_episodes,
        syn_timeouts,
        // Every timeout undo counts in TCPLossUndo, F-RTO's too (tcp_try_undo_loss
        // increments TCPSpuriousRTOs beside it); a D-SACK undo after the Loss state
        // (TCPDSACKUndo) does not say whether a timeout's or a recovery's reduction
        // was undone, and is left out.
        spurious_responses: c("TcpExt.TCPLossUndo"),
        undos: UndoCounters::from_kernel(|name| c(&kernel_key(name))),
        delivered: i.counts.delivered,
        detectors: i.settings.detectors(),
        unmatched_box_verdicts: 0,
        rto_samples: Vec::new(),
        declarations: Default::default(),
    };
    (r, records, unmatched)
}

/// One metric `--compare` puts side by side: what it counts (the same on both sides)
/// and where the kernel's value comes from ([`flow_result`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSource {
    /// The metric's name in runs.csv and summary.csv.
    pub metric: &'static str,
    /// What one unit of it is, in the simulation and in the kernel alike.
    pub counts: &'static str,
    /// Where [`flow_result`] takes the kernel's value from.
    pub source: &'static str,
}

/// The metrics whose kernel value means what the simulation's does, in the order
/// `--compare` prints them; a metric not listed is not compared.
pub fn kernel_sources() -> Vec<KernelSource> {
    let row = |metric, counts, source| KernelSource {
        metric,
        counts,
        source,
    };
    let mut rows = vec![
        row(
            "completed",
            "transfers",
            "TCP_INFO: all written data acknowledged",
        ),
        row(
            "download_time_s",
            "s",
            "TCP_INFO poll (1 ms): last byte acknowledged",
        ),
        row(
            "data_segments_sent",
            "segments",
            "forwarder: data segments from the sender",
        ),
        row(
            "retransmissions",
            "segments",
            "forwarder: data segments below the highest sent",
        ),
        row(
            "unnecessary_retransmissions",
            "segments",
            "forwarder: ground truth",
        ),
        row(
            "fast_retransmits",
            "recovery episodes",
            "TcpExtTCPSackRecovery + TcpExtTCPRenoRecovery",
        ),
        row(
            "timeouts",
            "expiries",
            "TCP_INFO: tcpi_total_rto growth, established",
        ),
        row(
            "spurious_timeouts",
            "expiries",
            "forwarder: ground truth of the RTO's retransmission",
        ),
        row(
            "timeout_episodes",
            "episodes",
            "TCP_INFO: expiries with tcpi_backoff <= 1",
        ),
        row(
            "delivered",
            "segments",
            "forwarder: data segments delivered",
        ),
    ];
    rows.extend(UndoCounters::NAMES.map(|name| row(name, "events", name)));
    rows
}

/// A CBR flow's result, as the engine counts one: datagrams (and their payload bytes)
/// that entered the path, and datagrams delivered to the sink.
pub fn cbr_result(i: &FlowInputs) -> FlowResult {
    FlowResult {
        name: i.name.to_owned(),
        start: i.start,
        completed: None,
        bytes: i.counts.data_segments_sent * i.mss,
        data_segments_sent: i.counts.data_segments_sent,
        min_segments: 0,
        retransmissions: 0,
        unnecessary_retransmissions: 0,
        fast_retransmits: 0,
        timeouts: 0,
        spurious_timeouts: 0,
        genuine_timeouts: 0,
        timeout_episodes: 0,
        spurious_timeout_episodes: 0,
        genuine_timeout_episodes: 0,
        syn_timeouts: 0,
        spurious_responses: 0,
        undos: UndoCounters::default(),
        delivered: i.counts.delivered,
        detectors: Vec::new(),
        unmatched_box_verdicts: 0,
        rto_samples: Vec::new(),
        declarations: Default::default(),
    }
}

/// The key of the sender's counters for the counter `nstat` calls `name`
/// (`TcpExtTCPLossUndo` -> `TcpExt.TCPLossUndo`).
fn kernel_key(name: &str) -> String {
    match name.strip_prefix("TcpExt") {
        Some(rest) => format!("TcpExt.{rest}"),
        None => name.to_owned(),
    }
}

/// One record per data-phase kernel timeout; also the number left without a
/// retransmission to match.
fn timeout_records(i: &FlowInputs) -> (Vec<TimeoutRecord>, u64) {
    let mut used = vec![false; i.counts.retx.len()];
    let mut out = Vec::new();
    let mut unmatched = 0;
    for t in i.sender.timeouts.iter().filter(|t| t.established) {
        match match_retx(t, &i.counts.retx, &mut used) {
            Some(r) => out.push(record(i.flow, t, Some(r))),
            None => {
                unmatched += 1;
                out.push(record(i.flow, t, None));
            }
        }
    }
    (out, unmatched)
}

/// The earliest unused retransmission that reached the forwarder after the poll
/// before the timeout and within 50 ms of the poll that saw it.
fn match_retx<'a>(
    t: &TimeoutObs,
    retx: &'a [RetxRecord],
    used: &mut [bool],
) -> Option<&'a RetxRecord> {
    let window = t.before..=t.seen + 50_000_000;
    let k = (0..retx.len()).find(|&k| !used[k] && window.contains(&retx[k].time.0))?;
    used[k] = true;
    Some(&retx[k])
}

fn record(flow: u32, t: &TimeoutObs, r: Option<&RetxRecord>) -> TimeoutRecord {
    TimeoutRecord {
        time: r.map_or(Time(t.seen), |r| r.time),
        flow,
        seq: r.map_or(0, |r| r.seq),
        rto: Dur::from_micros(t.rto_us as u64),
        last_rtt: (t.rtt_us > 0).then(|| Dur::from_micros(t.rtt_us as u64)),
        backoff: t.backoff as u32,
        // Unmatched: nothing was retransmitted, so nothing was seen to survive.
        truth: r.map_or(Truth::GenuineDataLost, |r| r.truth.class),
        in_fast_recovery: t.in_recovery,
        fast: false,
        verdicts: Vec::new(),
    }
}

/// Attaches each undo counter's growth as a "spurious" verdict (see the module docs).
fn attach_undos(i: &FlowInputs, records: &mut [TimeoutRecord]) {
    let on = |k: &str| i.settings.sysctls.get(k).is_some_and(|v| v != "0");
    for u in &i.sender.undos {
        let detector = match u.counter {
            "TcpExt.TCPSpuriousRTOs" if on("tcp_sack") => DetectorKind::SackFrto,
            "TcpExt.TCPSpuriousRTOs" => DetectorKind::Frto,
            "TcpExt.TCPLossUndo" if on("tcp_timestamps") => DetectorKind::Eifel,
            "TcpExt.TCPLossUndo" => DetectorKind::Dsack,
            _ => continue,
        };
        let Some(last) = records.iter().rposition(|r| r.time.0 <= u.seen) else {
            continue;
        };
        let mut k = last;
        loop {
            let r = &mut records[k];
            if !r.verdicts.iter().any(|v| v.detector == detector) {
                r.verdicts.push(DetectorVerdict {
                    detector,
                    verdict: Verdict::Spurious,
                    at: Time(u.seen),
                    drove: true,
                });
            }
            if r.backoff <= 1 || k == 0 {
                break;
            }
            k -= 1;
        }
    }
}

/// A repetition's results.
#[derive(Clone, Debug, Default)]
pub struct RepReport {
    pub rep: u32,
    pub seed: u64,
    pub end_s: f64,
    pub flows: Vec<FlowResult>,
    pub timeouts: Vec<TimeoutRecord>,
    pub links: Vec<LinkResult>,
    pub kernel: Vec<FlowKernel>,
    pub lateness: Lateness,
    pub box_counts: crate::forwarder::BoxCounts,
    pub packets_ignored: u64,
    pub write_errors: u64,
    /// Deliveries after which the receiver's window clamp was set again
    /// ([`crate::host::ReceivingApp`]; one per connection when nothing else moved it).
    pub clamp_resets: u64,
    /// Data deliveries that waited for the receiving application's `accept`.
    pub accept_waits: u64,
    /// Data deliveries after which the forwarder waited for the application's read
    /// ([`crate::host::ReceivingApp::wait_read`]), and those whose wait ran out.
    pub read_waits: u64,
    pub read_wait_timeouts: u64,
    /// Packets the kernel sent while processing a delivery, let into the path at the
    /// delivery's time ([`crate::forwarder::Forwarder::take_responses`]).
    pub responses_at_delivery: u64,
    /// Whether time zero was a jiffy whose count is a multiple of
    /// [`crate::jiffies::ALIGN_JIFFIES`] (`/proc/timer_list` readable).
    pub jiffies_aligned: bool,
    /// Deliveries to a sender that waited for its application's first write.
    pub write_waits: u64,
    /// The most packets whose bytes the forwarder held at once.
    pub raw_peak: usize,
    pub sched_fifo: bool,
    pub prefix: String,
    /// Per flow, each forward packet's passage (empty unless the plan records them).
    pub transits: Vec<crate::forwarder::Transits>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::UndoObs;
    use crate::truth::RetxTruth;

    fn obs(before: u64, seen: u64, backoff: u8) -> TimeoutObs {
        TimeoutObs {
            seen,
            before,
            rto_us: 1_000_000,
            rtt_us: 300_000,
            backoff,
            in_recovery: false,
            established: true,
        }
    }

    fn retx(time: u64, class: Truth) -> RetxRecord {
        RetxRecord {
            time: Time(time),
            seq: time,
            truth: RetxTruth {
                unnecessary: class.is_spurious(),
                class,
            },
        }
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let ns: Vec<u64> = (1..=100).map(|k| k * 1_000_000).collect();
        let l = Lateness::of(&ns);
        assert_eq!((l.p50_ms, l.p99_ms, l.max_ms), (50.0, 99.0, 100.0));
        assert!(!l.honest());
        assert!(Lateness::of(&[10_000]).honest());
    }

    #[test]
    fn timeouts_take_the_truth_of_the_retransmission_they_sent_and_undos_cover_the_episode() {
        let counts = FlowCounts {
            retx: vec![
                retx(500, Truth::GenuineDataLost), // a fast retransmit before any timeout
                retx(1_000_100, Truth::SpuriousDataDelayed),
                retx(3_000_100, Truth::SpuriousDataDelayed),
            ],
            ..FlowCounts::default()
        };
        let sender = SenderReport {
            timeouts: vec![obs(1_000_000, 1_001_000, 1), obs(3_000_000, 3_001_000, 2)],
            undos: vec![UndoObs {
                seen: 4_000_000,
                counter: "TcpExt.TCPLossUndo",
            }],
            ..SenderReport::default()
        };
        let mut settings = KernelSettings::from_tcp(&Default::default(), &BTreeMap::new());
        settings.sysctls.insert("tcp_timestamps".into(), "1".into());
        let i = FlowInputs {
            name: "f",
            flow: 0,
            start: Time::ZERO,
            bytes: 1000,
            mss: 1000,
            min_segments: 1,
            counts: &counts,
            sender: &sender,
            settings: &settings,
        };
        let (r, recs, unmatched) = flow_result(&i);
        assert_eq!(unmatched, 0);
        assert_eq!(recs.len(), 2);
        assert!(recs.iter().all(|r| r.truth == Truth::SpuriousDataDelayed));
        assert_eq!(recs[0].seq, 1_000_100);
        assert!(recs
            .iter()
            .all(|r| r.verdicts.len() == 1 && r.verdicts[0].detector == DetectorKind::Eifel));
        assert_eq!((r.timeouts, r.spurious_timeouts), (2, 2));
    }

    #[test]
    fn fast_retransmits_count_recovery_episodes_as_the_engine_does_and_undos_come_by_name() {
        let counts = FlowCounts::default();
        let kernel = [
            ("TcpExt.TCPFastRetrans", 87),
            ("TcpExt.TCPSackRecovery", 2),
            ("TcpExt.TCPLossUndo", 3),
            ("TcpExt.TCPSpuriousRTOs", 1),
            ("TcpExt.TCPFullUndo", 1),
        ];
        let sender = SenderReport {
            counters: kernel.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..SenderReport::default()
        };
        let settings = KernelSettings::from_tcp(&Default::default(), &BTreeMap::new());
        let i = FlowInputs {
            name: "f",
            flow: 0,
            start: Time::ZERO,
            bytes: 1000,
            mss: 1000,
            min_segments: 1,
            counts: &counts,
            sender: &sender,
            settings: &settings,
        };
        let (r, _, _) = flow_result(&i);
        assert_eq!(
            r.fast_retransmits, 2,
            "episodes, not TCPFastRetrans's segments"
        );
        assert_eq!(r.undos.values(), [3, 1, 0, 1, 0, 0, 0]);
        assert_eq!(
            r.spurious_responses, 3,
            "F-RTO's undo is within TCPLossUndo"
        );
    }
}
