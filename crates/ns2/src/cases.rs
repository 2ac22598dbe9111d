//! The differential suite's cases: a documented covering sample of the matrix
//! (agent x bugFix x timestamps x delayed ACK x queue x window x drop pattern x path),
//! each written as a scenario file and loaded through the ordinary scenario loader, so
//! the export path is the one users take.
//!
//! Covering rule: every agent meets every path, both values of bugFix, timestamps and
//! delayed ACK, and every drop pattern; queues (3, 10, 75, 100 packets) and windows (8,
//! 20, 150 packets) vary along the list. The full cross product (4 x 2 x 2 x 2 x 4 x 3 x
//! 5 x 2 = 3840 runs) would take far longer than the suite's 3-minute budget. The last
//! seven cases are the F-RTO target: a rate drop that delays the ACK clock into a
//! spurious timeout, with ns-2's and spikelab's F-RTO and SACK-F-RTO.

use crate::compare::{compare, CaseError, FlowDiff};
use std::fmt::Write as _;

/// The papers' paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// [Gurtov & Ludwig 2002]: one 30 kbit/s link, 300 ms one way; 300 packets.
    Gprs,
    /// [Gurtov & Ludwig 2003]: a 2 Mbit/s, 150 ms bottleneck between 100 Mbit/s, 1 ms access
    /// links; 1000 packets here to keep the suite short (the 5000-packet row is
    /// a separate case).
    Dumbbell,
    /// [Gurtov & Ludwig 2003] Fig. 1b: 300 kbit/s, 100 ms, the data direction dropping to
    /// 4 kbit/s at 10 s (Fig. 1b drops to 10 kbit/s; 4 kbit/s makes one packet outlast the 1 s minimum RTO): a deterministic delay for the F-RTO comparison (item 5).
    BandwidthDrop,
    /// [Gurtov & Ludwig 2003] IV.A with its delay spikes: the 2 Mbit/s, 150 ms dumbbell, the
    /// bottleneck frozen in both directions for 6 s at 5 s (the patched ns-2's
    /// `freeze-start`/`freeze-end`), with or without the 1 Mbit/s CBR flow of 210-byte
    /// packets on the second pair (eifel-response-cbr.toml).
    Spike {
        cbr: bool,
        /// The freeze switches as TOML keys of the hiccup ("" for the defaults:
        /// after the queue, wire held, arrivals queued).
        freeze: &'static str,
    },
}

/// Deterministic losses of data segments on the flow's first link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drops {
    /// Only the queue's own drops.
    None,
    /// One segment.
    One,
    /// Four consecutive segments.
    Burst,
    /// Every other segment of a window (four of eight).
    EveryOther,
    /// A segment and its first retransmission.
    Retransmission,
}

/// One case of the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub path: Path,
    /// `recovery` key: reno, new-reno, reno-sack, fack.
    pub agent: &'static str,
    pub bugfix: bool,
    pub timestamps: bool,
    pub delack: bool,
    /// ns-2 queue limit in packets (spikelab `packets = limit - 1`).
    pub queue: u64,
    /// Receiver window in packets.
    pub window: u64,
    pub drops: Drops,
    /// Segments transferred.
    pub segments: u64,
    /// `spurious.driver`: "frto" or "sack-frto" (ns-2's `frto_enabled_` /
    /// `sfrto_enabled_`), or none.
    pub frto: Option<&'static str>,
}

impl Case {
    /// Whether the case freezes a link (it needs the patched ns-2 of tools/ns2).
    pub fn needs_freeze(&self) -> bool {
        matches!(self.path, Path::Spike { .. })
    }

    /// A short name for tables.
    pub fn name(&self) -> String {
        let path = match self.path {
            Path::Gprs => "30k/300ms".to_string(),
            Path::Dumbbell => "2M/150ms".to_string(),
            Path::BandwidthDrop => "300k->4k".to_string(),
            Path::Spike { cbr, freeze } => {
                let mode = match freeze {
                    "" => String::new(),
                    f => format!(" {}", f.replace(" = ", "=").replace('"', "")),
                };
                format!("2M/150ms spike{}{mode}", if cbr { "+cbr" } else { "" })
            }
        };
        let flags = format!(
            "{}{}{}",
            if self.bugfix { "B" } else { "b" },
            if self.timestamps { "T" } else { "t" },
            if self.delack { "D" } else { "d" }
        );
        let frto = self.frto.map_or(String::new(), |f| format!(" {f}"));
        format!(
            "{path} {}{frto} {flags} q{} w{} {:?} {}p",
            self.agent, self.queue, self.window, self.drops, self.segments
        )
    }

    /// The scenario file of this case; `until` ends the drop rule of
    /// [`Drops::Retransmission`] (seconds), found by [`retransmission_window`].
    pub fn scenario(&self, until: Option<f64>) -> String {
        let mut s = String::from("[run]\nname = \"ns2diff\"\nstop = \"1200s\"\n\n");
        let queue = format!(
            "{{ kind = \"drop-tail\", limit = {{ packets = {} }} }}",
            self.queue - 1
        );
        let route = match self.path {
            Path::Gprs => {
                let _ = writeln!(
                    s,
                    "[[link]]\nname = \"path\"\nrate = \"30kbit/s\"\nlatency = \"300ms\"\nqueue = {queue}\n"
                );
                "[\"path\"]"
            }
            Path::Dumbbell => {
                let _ = writeln!(
                    s,
                    "[topology]\nkind = \"dumbbell\"\npairs = 1\naccess = {{ rate = \"100Mbit/s\", latency = \"1ms\" }}\n\
                     bottleneck = {{ rate = \"2Mbit/s\", latency = \"150ms\", queue = {queue} }}\n"
                );
                "\"pair\""
            }
            Path::Spike { cbr, freeze } => {
                let _ = writeln!(
                    s,
                    "[topology]\nkind = \"dumbbell\"\npairs = {}\naccess = {{ rate = \"100Mbit/s\", latency = \"1ms\" }}\n\
                     [topology.bottleneck]\nrate = \"2Mbit/s\"\nlatency = \"150ms\"\nqueue = {queue}\n\
                     [[topology.bottleneck.spikes]]\nkind = \"hiccup\"\nat = [{{ start = \"5s\", duration = \"6s\" }}]\n{freeze}\n",
                    if cbr { 2 } else { 1 }
                );
                "{ pair = 0 }"
            }
            Path::BandwidthDrop => {
                let _ = writeln!(
                    s,
                    "[[link]]\nname = \"path\"\nrate = \"300kbit/s\"\nlatency = \"100ms\"\nqueue = {queue}\n\
                     [[link.spikes]]\nkind = \"bandwidth-step\"\nto = \"4kbit/s\"\nat = \"10s\"\ndirs = \"forward\"\n"
                );
                "[\"path\"]"
            }
        };
        let spurious = self.frto.map_or(String::new(), |f| {
            format!(", spurious = {{ driver = \"{f}\" }}")
        });
        let _ = writeln!(
            s,
            "[[flow]]\nname = \"tcp\"\nroute = {route}\nprofile = \"ns2-2002\"\n\
             tcp = {{ recovery = \"{}\", careful_fast_retransmit = {}, timestamps = {}, \
             delayed_ack = {{ enabled = {} }}, receiver_window = {}{spurious} }}\n\
             workload = {{ kind = \"bulk\", bytes = {} }}\n",
            self.agent,
            self.bugfix,
            self.timestamps,
            self.delack,
            self.window * 1000,
            self.segments * 1000
        );
        if let Path::Spike { cbr: true, .. } = self.path {
            s.push_str(
                "[[flow]]\nname = \"cbr\"\nkind = \"cbr\"\nroute = { pair = 1 }\nrate = \"1Mbit/s\"\npayload = \"182B\"\n\n",
            );
        }
        let first_link = match self.path {
            Path::Gprs | Path::BandwidthDrop => "path",
            Path::Dumbbell | Path::Spike { .. } => "access-src-0",
        };
        let drop = |from: u64, to: u64, which: &str| {
            let until = until.map_or(String::new(), |u| format!("until = \"{u:.6}s\"\n"));
            format!(
                "[[drop]]\nlink = \"{first_link}\"\nflow = \"tcp\"\nsegments = [{from}, {to}]\nwhich = \"{which}\"\n{until}"
            )
        };
        match self.drops {
            Drops::None => {}
            Drops::One => s.push_str(&drop(30, 31, "first")),
            Drops::Burst => s.push_str(&drop(30, 34, "first")),
            Drops::EveryOther => {
                for k in [30, 32, 34, 36] {
                    s.push_str(&drop(k, k + 1, "first"));
                }
            }
            // Dropped twice: the first transmission and the first retransmission; the
            // rule ends between the second and third transmission.
            Drops::Retransmission => s.push_str(&drop(30, 31, "every")),
        }
        s
    }
}

const AGENTS: [&str; 4] = ["reno", "new-reno", "reno-sack", "fack"];

/// The suite's cases (see the module docs for the covering rule).
pub fn suite() -> Vec<Case> {
    let mut cases = Vec::new();
    // The issue's own table: GPRS path, 10-packet queue, bugFix off, timestamps and
    // delayed ACKs on, 300 packets; and the 2 Mbit/s path's Reno and NewReno rows.
    for agent in AGENTS {
        cases.push(Case {
            path: Path::Gprs,
            agent,
            bugfix: false,
            timestamps: true,
            delack: true,
            queue: 10,
            window: 20,
            drops: Drops::None,
            segments: 300,
            frto: None,
        });
    }
    for agent in ["new-reno", "reno"] {
        cases.push(Case {
            path: Path::Dumbbell,
            agent,
            bugfix: true,
            timestamps: true,
            delack: true,
            queue: 75,
            window: 150,
            drops: Drops::None,
            segments: 5000,
            frto: None,
        });
    }
    // The covering sample: per agent, every drop pattern on both paths, with the flags,
    // queues and windows rotating through their values.
    let drops = [
        Drops::One,
        Drops::Burst,
        Drops::EveryOther,
        Drops::Retransmission,
    ];
    let mut k = 0usize;
    for agent in AGENTS {
        for (d, &pattern) in drops.iter().enumerate() {
            for path in [Path::Gprs, Path::Dumbbell] {
                let bits = k;
                k += 1;
                let (queue, window, segments) = match path {
                    Path::BandwidthDrop | Path::Spike { .. } => {
                        unreachable!("not in the drop sample")
                    }
                    Path::Gprs => ([3, 10, 100][bits % 3], [8, 20][d % 2], 120),
                    Path::Dumbbell => ([10, 75, 100][bits % 3], [20, 150, 8][(bits / 2) % 3], 400),
                };
                cases.push(Case {
                    path,
                    agent,
                    bugfix: bits.is_multiple_of(2),
                    timestamps: (bits / 2).is_multiple_of(2),
                    delack: (bits / 4).is_multiple_of(2),
                    queue,
                    window,
                    drops: pattern,
                    segments,
                    frto: None,
                });
            }
        }
    }
    // F-RTO (item 5): ns-2.35's own F-RTO and SACK-F-RTO against spikelab's, and the
    // plain agents, on the rate drop that delays the ACK clock deterministically.
    for (agent, frto, window) in [
        ("reno", None, 8),
        ("reno", Some("frto"), 8),
        ("new-reno", Some("frto"), 8),
        ("reno-sack", None, 8),
        ("reno-sack", Some("sack-frto"), 8),
        // A window with room for F-RTO's two new segments, so that it probes.
        ("reno", Some("frto"), 20),
        ("reno-sack", Some("sack-frto"), 20),
    ] {
        cases.push(Case {
            path: Path::BandwidthDrop,
            agent,
            bugfix: true,
            timestamps: true,
            delack: true,
            queue: 10,
            window,
            drops: Drops::None,
            segments: 400,
            frto,
        });
    }
    // Spikes (item 3): the eifel-response path frozen once, every agent with and
    // without CBR under the default freeze switches; Reno-SACK with CBR under the other
    // readings of the freeze; ns-2's F-RTO and SACK-F-RTO. ns-2.35 has no Eifel
    // algorithm, so spikelab's Eifel rows have no counterpart and are not here.
    let spike = |agent, cbr, freeze, frto| Case {
        path: Path::Spike { cbr, freeze },
        agent,
        bugfix: true,
        timestamps: true,
        delack: true,
        queue: 75,
        window: 150,
        drops: Drops::None,
        segments: 5000,
        frto,
    };
    for agent in AGENTS {
        for cbr in [false, true] {
            cases.push(spike(agent, cbr, "", None));
        }
    }
    for freeze in [
        "wire = \"delivered\"",
        "arrivals = \"dropped\"",
        "freeze_at = \"before-queue\"",
    ] {
        cases.push(spike("reno-sack", true, freeze, None));
    }
    for cbr in [false, true] {
        cases.push(spike("reno", cbr, "", Some("frto")));
        cases.push(spike("reno-sack", cbr, "", Some("sack-frto")));
    }
    cases
}

/// The outcome of one case.
#[derive(Debug)]
pub struct Outcome {
    pub case: Case,
    pub result: Result<FlowDiff, CaseError>,
}

/// For [`Drops::Retransmission`]: a time between the second and the third
/// transmission of the dropped segment, from a spikelab probe run that drops every
/// transmission of it (identical to the real run until the third transmission).
pub fn retransmission_window(case: &Case) -> Result<f64, CaseError> {
    let scn = spikelab_scenario::parse(&case.scenario(None), "ns2diff.toml")
        .map_err(|e| CaseError::Spikelab(e.to_string()))?;
    let mut sim = scn.to_sim();
    sim.trace = spikelab_engine::TraceKinds::ALL;
    sim.stop_at = spikelab_core::Dur::from_secs(300);
    let run = spikelab_engine::run(&sim, scn.run().seed)
        .map_err(|e| CaseError::Spikelab(e.to_string()))?;
    let times: Vec<f64> = run
        .trace
        .iter()
        .filter_map(|t| match t.event {
            spikelab_core::trace::TraceEvent::Send { seq: 30_000, .. } => {
                Some((t.time - spikelab_core::Time::ZERO).as_secs_f64())
            }
            _ => None,
        })
        .collect();
    match times.as_slice() {
        [_, t2, t3, ..] => Ok((t2 + t3) / 2.0),
        _ => Err(CaseError::Spikelab(
            "segment 30 was not sent three times".into(),
        )),
    }
}

/// Runs one case through both simulators (the scenario's seed; the cases are
/// deterministic).
pub fn run_case(case: &Case) -> Outcome {
    let until = match case.drops {
        Drops::Retransmission => retransmission_window(case).map(Some),
        _ => Ok(None),
    };
    let result = until
        .and_then(|u| {
            spikelab_scenario::parse(&case.scenario(u), "ns2diff.toml")
                .map_err(|e| CaseError::Spikelab(e.to_string()))
        })
        .and_then(|scn| compare(scn.sim(), scn.run().seed))
        .map(|mut flows| flows.remove(0));
    Outcome {
        case: case.clone(),
        result,
    }
}

fn cell(m: &crate::compare::Metrics) -> String {
    let t = m
        .completed
        .map_or("unfinished".to_string(), |t| format!("{t:.3} s"));
    format!(
        "{t}, {} sent, {} rtx, {} TO, {} FR",
        m.data_sent, m.retransmissions, m.timeouts, m.fast_retransmits
    )
}

/// The Markdown table of outcomes: case, ns-2, spikelab, match.
pub fn table(outcomes: &[Outcome]) -> String {
    let mut s = String::from(
        "| case | ns-2.35 | spikelab ns2-2002 | match | first diverging send |\n|---|---|---|---|---|\n",
    );
    for o in outcomes {
        match &o.result {
            Ok(d) => {
                let div = d
                    .divergence
                    .as_ref()
                    .map_or("none (identical)".to_string(), |v| {
                        format!("#{} ns-2 {:?} / spikelab {:?}", v.index, v.ns2, v.spikelab)
                    });
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} |",
                    o.case.name(),
                    cell(&d.ns2),
                    cell(&d.spikelab),
                    if d.matches() { "yes" } else { "**no**" },
                    div
                );
            }
            Err(e) => {
                let _ = writeln!(s, "| {} | error: {e} | | **no** | |", o.case.name());
            }
        }
    }
    s
}
