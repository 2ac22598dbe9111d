//! `spikelab export ns2`: one repetition of a scenario as an ns-2.35 Tcl script.
//!
//! The script builds the same links (simplex links per direction, drop-tail queues in
//! packets), the one-way TCP agents (`Agent/TCP/Reno`, `Newreno`, `Sack1`, `Fack`) with
//! `TCPSink`, `TCPSink/DelAck`, `TCPSink/Sack1` or `TCPSink/Sack1/DelAck` sinks, bulk
//! FTP, CBR over UDP, `[[drop]]` rules as `ErrorModel/List`, bandwidth steps, and
//! hiccups and outages as the link freeze of the patched ns-2 (tools/ns2), with the
//! repetition's spike times and the three freeze switches. Every
//! ns-2 default that changed after 2002 is set explicitly to its 2002 value (see
//! [`DEFAULTS_2002`]), so the script never relies on ns-2.35's later defaults.
//!
//! What ns-2.35 cannot express is refused with a [`Refused`] naming the key, before
//! anything is written.
//!
//! Drops: ns-2's `ErrorModel/List` drops the n-th packet entering a link, not a segment
//! number, so the exporter runs the scenario's repetition in spikelab (traced) and lists
//! the positions, among the packets of the flow entering the link, of the transmissions
//! spikelab dropped. Up to the first packet where the two simulators diverge this is
//! exactly the scenario's rule; after a divergence the differential suite has already
//! reported the first diverging packet. A drop is exported only on the flow's first link
//! with no other flow entering it in that direction, so the positions count that flow
//! alone.

use spikelab_core::trace::TraceEvent;
use spikelab_core::{Dur, FlowId, Time};
use spikelab_engine::{DropTarget, FlowKind, SimConfig, StartTime, Workload};
use spikelab_net::queue::{QueueConfig, QueueLimit};
use spikelab_net::service::ServiceConfig;
use spikelab_net::spike::{Dirs, LinkControl, Schedule, SpikeConfig};
use spikelab_net::streams::dir_index;
use spikelab_net::{Dir, FreezePoint, FrozenArrivals, FrozenWire};
use spikelab_tcp::exports::{Exports, Ns2Export};
use spikelab_tcp::recovery::PipeRule;
use spikelab_tcp::response::SpuriousConfig;
use spikelab_tcp::stacks::congestion_controller;
use spikelab_tcp::window::SsthreshRule;
use spikelab_tcp::{EchoRule, RecoveryKind, TcpConfig, TimeoutRetransmit};
use std::fmt::Write as _;

/// A key of the scenario that ns-2.35 cannot express, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{key}`: ns-2.35 cannot express this: {why}")]
pub struct Refused {
    /// The key as `link[0].service = wcdma`.
    pub key: String,
    /// Why ns-2 has no equivalent.
    pub why: String,
}

fn refuse<T>(key: impl Into<String>, why: impl Into<String>) -> Result<T, Refused> {
    Err(Refused {
        key: key.into(),
        why: why.into(),
    })
}

/// The exported script and what the comparison needs to read ns-2's output.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// The Tcl text.
    pub tcl: String,
    /// Per TCP flow (engine order): the ns-2 ids of the nodes of its first link, for
    /// reading its transmissions from `queue.tr`, and whether it sends a SYN (packet 0).
    pub tcp_flows: Vec<TcpFlowInfo>,
    /// The script freezes a link (`freeze-start`): it needs ns-2.35 patched with
    /// tools/ns2/patches/10-link-freeze.patch, as `bash tools/ns2/build.sh` builds it.
    pub needs_freeze: bool,
}

/// What the trace reader needs about one exported TCP flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpFlowInfo {
    /// Index of the flow in the engine's configuration.
    pub flow: usize,
    /// ns-2 `fid_` of the flow's packets.
    pub fid: usize,
    /// ns-2 node ids of the first hop (from, to).
    pub first_hop: (usize, usize),
    /// ns-2 sequence number 0 is the `syn_` packet; data segment n is seqno n + 1.
    pub syn: bool,
    /// Payload bytes per segment.
    pub mss: u32,
    /// The agent is `Agent/TCP/Fack`, whose `FackTcpAgent::timeout()` never counts a
    /// timeout in `nrexmit_`: its timeouts are read from the traced `backoff_` instead.
    pub fack: bool,
}

/// Every ns-2 default of the one-way TCP agents and sinks that ns-2.35 changed after
/// 2002, or that a later version added, set to the value that reproduces 2002's
/// behaviour (docs/src/ns2-2002-defaults.md; `tcl/lib/ns-default.tcl` of ns-2.35 records each change).
pub const DEFAULTS_2002: &[(&str, &str, &str)] = &[
    ("Agent/TCP", "minrto_", "1"),
    ("Agent/TCP", "maxrto_", "100000"),
    ("Agent/TCP", "rtxcur_init_", "6.0"),
    ("Agent/TCP", "tcpTick_", "0.01"),
    ("Agent/TCP", "rfc2988_", "true"),
    ("Agent/TCP", "windowInit_", "2"),
    ("Agent/TCP", "windowInitOption_", "1"),
    ("Agent/TCP", "syn_", "true"),
    ("Agent/TCP", "delay_growth_", "true"),
    ("Agent/TCP", "useHeaders_", "true"),
    ("Agent/TCP", "tcpip_base_hdr_size_", "40"),
    ("Agent/TCP", "ts_option_size_", "10"),
    ("Agent/TCP", "singledup_", "1"),
    ("Agent/TCP", "LimTransmitFix_", "false"),
    ("Agent/TCP", "maxburst_", "0"),
    // Added 2003/06/02 "no change to default behavior".
    ("Agent/TCP", "aggressive_maxburst_", "1"),
    // Added 2003/07/28; false is "the old behavior" (dupwnd_ set on the third
    // duplicate even when bugFix_ suppressed the fast retransmit).
    ("Agent/TCP", "exitFastRetrans_", "false"),
    ("Agent/TCP", "bugFix_ack_", "false"),
    ("Agent/TCP", "bugFix_ts_", "false"),
    ("Agent/TCP", "ts_resetRTO_", "false"),
    // Default changed to true on 2006/01/24.
    ("Agent/TCP", "precisionReduce_", "false"),
    // Added 2006/06/13.
    ("Agent/TCP", "bugfix_ss_", "0"),
    ("Agent/TCP", "numdupacksFrac_", "-1"),
    ("Agent/TCP", "partial_ack_", "false"),
    ("Agent/TCP", "max_connects_", "-1"),
    ("Agent/TCP", "slow_start_restart_", "true"),
    ("Agent/TCP", "restart_bugfix_", "true"),
    ("Agent/TCP", "timerfix_", "true"),
    ("Agent/TCP", "frto_enabled_", "0"),
    ("Agent/TCP", "sfrto_enabled_", "0"),
    ("Agent/TCP", "spurious_response_", "1"),
    ("Agent/TCP", "window_", "20"),
    ("Agent/TCP", "packetSize_", "1000"),
    ("Agent/TCP", "numdupacks_", "3"),
    ("Agent/TCP", "bugFix_", "true"),
    ("Agent/TCP", "timestamps_", "false"),
    ("Agent/TCP/Newreno", "newreno_changes_", "0"),
    // Both changed to 1 on 2003/05/05 "to reflect RFC 2582".
    ("Agent/TCP/Newreno", "newreno_changes1_", "0"),
    ("Agent/TCP/Newreno", "partial_window_deflation_", "0"),
    ("Agent/TCP/Newreno", "exit_recovery_fix_", "0"),
    // Changed to true on 2003/08/13: before, the sink echoed the TSval of the packet
    // that triggered the ACK.
    ("Agent/TCPSink", "ts_echo_bugfix_", "false"),
    ("Agent/TCPSink", "ts_echo_rfc1323_", "false"),
    ("Agent/TCPSink", "maxSackBlocks_", "3"),
    ("Agent/TCPSink", "generateDSacks_", "false"),
    ("Agent/TCPSink", "RFC2581_immediate_ack_", "true"),
    // Added 2010/02/02: before, the DelAck sink delayed the ACK of the SYN too.
    ("Agent/TCPSink", "SYN_immediate_ack_", "false"),
    ("Agent/TCPSink/DelAck", "interval_", "0.1"),
    ("Agent/TCPSink/Sack1/DelAck", "interval_", "0.1"),
];

/// Seconds as ns-2 reads them.
fn secs(d: Dur) -> String {
    format!("{:.9}", d.as_secs_f64())
}

/// Union-find over link endpoints: endpoint 2i is link i's first end, 2i+1 its second.
struct Nodes {
    parent: Vec<usize>,
}

impl Nodes {
    fn new(links: usize) -> Nodes {
        Nodes {
            parent: (0..2 * links).collect(),
        }
    }
    fn root(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }
    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
    }
}

/// Endpoint a hop enters by and leaves by.
fn hop_ends(link: usize, dir: Dir) -> (usize, usize) {
    match dir {
        Dir::Forward => (2 * link, 2 * link + 1),
        Dir::Reverse => (2 * link + 1, 2 * link),
    }
}

/// ns-2 node ids: endpoint roots numbered in order of first appearance.
fn number_nodes(sim: &SimConfig) -> Result<Vec<usize>, Refused> {
    let mut nodes = Nodes::new(sim.links.len());
    for f in &sim.flows {
        for w in f.route.windows(2) {
            let (_, out) = hop_ends(w[0].link, w[0].dir);
            let (inn, _) = hop_ends(w[1].link, w[1].dir);
            nodes.join(out, inn);
        }
    }
    let mut id_of_root = vec![usize::MAX; 2 * sim.links.len()];
    let mut ids = Vec::with_capacity(2 * sim.links.len());
    let mut next = 0;
    for e in 0..2 * sim.links.len() {
        let r = nodes.root(e);
        if id_of_root[r] == usize::MAX {
            id_of_root[r] = next;
            next += 1;
        }
        ids.push(id_of_root[r]);
    }
    for (i, l) in sim.links.iter().enumerate() {
        if ids[2 * i] == ids[2 * i + 1] {
            return refuse(
                format!("link[{i}] ({})", l.name),
                "a route makes this link a loop from a node to itself",
            );
        }
    }
    // ns-2 routes by shortest path: the routes are those paths only in a forest.
    let mut forest = Nodes::new(next);
    for (i, l) in sim.links.iter().enumerate() {
        let (a, b) = (ids[2 * i], ids[2 * i + 1]);
        if forest.root(a) == forest.root(b) {
            return refuse(
                format!("link[{i}] ({})", l.name),
                "the links form a cycle; ns-2 routes by shortest path, not by the scenario's routes",
            );
        }
        forest.join(a, b);
    }
    Ok(ids)
}

/// Exports repetition `rep` (run with `seed`) of `sim` as an ns-2.35 script.
pub fn export(sim: &SimConfig, seed: u64) -> Result<Script, Refused> {
    check_links(sim)?;
    if !sim.middleboxes.is_empty() {
        return refuse("middlebox[0]", "ns-2.35 has no STD proxy or delay injector");
    }
    let ids = number_nodes(sim)?;
    let node_count = ids.iter().max().map_or(0, |m| m + 1);
    let mut tcl = String::new();
    header(&mut tcl, node_count);
    links(&mut tcl, sim, &ids);
    let needs_freeze = freezes(&mut tcl, sim, seed, &ids)?;
    if needs_freeze {
        tcl.insert_str(
            0,
            "# Freezes a link: run it with ns-2.35 patched by tools/ns2 (bash tools/ns2/build.sh).\n",
        );
    }
    let mut tcp_flows = Vec::new();
    for (f, spec) in sim.flows.iter().enumerate() {
        let first = spec.route.first().ok_or(Refused {
            key: format!("flow[{f}].route"),
            why: "empty route".into(),
        })?;
        let last = spec.route.last().expect("non-empty");
        let src = ids[hop_ends(first.link, first.dir).0];
        let dst = ids[hop_ends(last.link, last.dir).1];
        let start = match spec.start {
            StartTime::At(d) => d,
            StartTime::Uniform { .. } => {
                return refuse(
                    format!("flow[{f}].start"),
                    "a random start time: export a scenario with fixed starts",
                )
            }
        };
        match &spec.kind {
            FlowKind::Tcp { tcp, workload } => {
                let bytes = match workload {
                    Workload::Bulk { bytes } => bytes.0,
                    Workload::PingPong { .. } => {
                        return refuse(
                            format!("flow[{f}].workload.kind = ping-pong"),
                            "ns-2's FTP sends one bulk transfer",
                        )
                    }
                };
                tcp_flow(&mut tcl, f, tcp, src, dst, start, bytes)?;
                let hop = hop_ends(first.link, first.dir);
                tcp_flows.push(TcpFlowInfo {
                    flow: f,
                    fid: f,
                    first_hop: (ids[hop.0], ids[hop.1]),
                    syn: tcp.handshake,
                    mss: tcp.mss,
                    fack: tcp.recovery == RecoveryKind::Fack,
                });
            }
            FlowKind::Quic { .. } => {
                return refuse(format!("flow[{f}].kind = quic"), "ns-2 has no QUIC agent")
            }
            FlowKind::Cbr {
                rate,
                payload_bytes,
                stop,
            } => cbr_flow(
                &mut tcl,
                f,
                rate.bps(),
                *payload_bytes,
                src,
                dst,
                start,
                *stop,
            ),
        }
    }
    drops(&mut tcl, sim, seed, &ids, &tcp_flows)?;
    footer(&mut tcl, sim, &tcp_flows);
    Ok(Script {
        tcl,
        tcp_flows,
        needs_freeze,
    })
}

fn check_links(sim: &SimConfig) -> Result<(), Refused> {
    for (i, l) in sim.links.iter().enumerate() {
        for (dname, dir) in [("forward", Dir::Forward), ("reverse", Dir::Reverse)] {
            let d = l.dir(dir);
            let key = |k: &str| format!("link[{i}] ({}).{dname}.{k}", l.name);
            match &d.service {
                ServiceConfig::Rate(_) => {}
                ServiceConfig::Wcdma(_) => {
                    return refuse(
                        format!("link[{i}].service = wcdma"),
                        "ns-2.35 has no WCDMA bearer model",
                    )
                }
                ServiceConfig::Mahimahi(_) => {
                    return refuse(
                        format!("link[{i}].service = mahimahi"),
                        "ns-2.35 cannot replay Mahimahi traces",
                    )
                }
            }
            if d.delay_sampling.reorders() {
                return refuse(
                    key("delay_sampling = per-packet-reordering"),
                    "ns-2.35 links deliver in FIFO order: a packet never overtakes the one before it",
                );
            }
            if d.delay_trace.is_some() {
                return refuse(key("delay_trace"), "ns-2.35 links have a fixed delay");
            }
            match &d.queue {
                QueueConfig::DropTail(q) => {
                    if let QueueLimit::Bytes(_) = q.limit {
                        return refuse(key("queue.limit.bytes"), "exported queues count packets");
                    }
                }
                QueueConfig::Red(_) => return refuse(key("queue.kind = red"), "RED export is not implemented (its random drops cannot be compared packet by packet)"),
                QueueConfig::AdaptiveRed(_) => return refuse(key("queue.kind = adaptive-red"), "Adaptive RED export is not implemented"),
            }
        }
        for (s, spike) in l.spikes.iter().enumerate() {
            let key = |k: &str| format!("link[{i}].spikes[{s}].kind = {k}");
            match spike {
                SpikeConfig::BandwidthStep(_) => {}
                SpikeConfig::Hiccup(h) if h.first_after_segments.is_some() => {
                    return refuse(
                        format!("link[{i}].spikes[{s}].first_after_segments"),
                        "the export writes each freeze at a time drawn beforehand; ns-2.35 \
                         has no freeze started by a packet count",
                    )
                }
                // Exported as the patched ns-2's freeze (tools/ns2, [`freezes`]).
                SpikeConfig::Hiccup(_) | SpikeConfig::Outage(_) => {}
                SpikeConfig::BandwidthOscillation(_) => {
                    return refuse(
                        key("bandwidth-oscillation"),
                        "random rate holds are not exported",
                    )
                }
            }
        }
    }
    Ok(())
}

fn header(tcl: &mut String, nodes: usize) {
    tcl.push_str("# ns-2.35 script written by `spikelab export ns2`.\n");
    tcl.push_str("# Every default that ns-2 changed after 2002 is set to its 2002 value.\n");
    tcl.push_str("set ns [new Simulator]\n");
    for (class, var, value) in DEFAULTS_2002 {
        let _ = writeln!(tcl, "{class} set {var} {value}");
    }
    tcl.push_str("set qtr [open queue.tr w]\nset vtr [open vars.tr w]\n");
    for n in 0..nodes {
        let _ = writeln!(tcl, "set n({n}) [$ns node]");
    }
}

fn links(tcl: &mut String, sim: &SimConfig, ids: &[usize]) {
    for (i, l) in sim.links.iter().enumerate() {
        for dir in [Dir::Forward, Dir::Reverse] {
            let (a, b) = hop_ends(i, dir);
            let (a, b) = (ids[a], ids[b]);
            let d = l.dir(dir);
            let _ = writeln!(
                tcl,
                "$ns simplex-link $n({a}) $n({b}) {} {} DropTail",
                d.rate.bps(),
                secs(d.latency)
            );
            if let QueueConfig::DropTail(q) = &d.queue {
                if let QueueLimit::Packets(p) = q.limit {
                    // spikelab counts waiting packets; ns-2's limit_ includes the one
                    // being transmitted (drop-tail.cc enque: length + 1 >= qlim_).
                    let _ = writeln!(tcl, "$ns queue-limit $n({a}) $n({b}) {}", p + 1);
                }
                if q.drop_front {
                    let _ = writeln!(
                        tcl,
                        "[[$ns link $n({a}) $n({b})] queue] set drop_front_ true"
                    );
                }
            }
        }
        for spike in &l.spikes {
            if let SpikeConfig::BandwidthStep(s) = spike {
                for dir in step_dirs(s.dirs) {
                    let (a, b) = hop_ends(i, dir);
                    let (a, b) = (ids[a], ids[b]);
                    let set =
                        |r: u64| format!("[[$ns link $n({a}) $n({b})] link] set bandwidth_ {r}");
                    if let Some(from) = s.from {
                        let _ = writeln!(tcl, "{}", set(from.bps()));
                    }
                    let _ = writeln!(tcl, "$ns at {} \"{}\"", secs(s.at), set(s.to.bps()));
                }
            }
        }
    }
}

/// Hiccups and outages as the patched ns-2's link freeze (tools/ns2,
/// 10-link-freeze.patch): each frozen direction's `DelayLink` gets the three freeze
/// switches, is made freezable with its queue, and is frozen and thawed at the
/// repetition's spike times. The times are drawn exactly as the engine draws them
/// (`Schedule` with the link's spike stream, `spikelab_net::streams::spike_rng`), up
/// to the scenario's stop time. Returns whether any freeze was written.
fn freezes(tcl: &mut String, sim: &SimConfig, seed: u64, ids: &[usize]) -> Result<bool, Refused> {
    let streams = spikelab_core::RngStreams::new(seed);
    let mut any = false;
    for (i, l) in sim.links.iter().enumerate() {
        for (k, spike) in l.spikes.iter().enumerate() {
            let dirs = match spike {
                SpikeConfig::Hiccup(h) => h.dirs,
                SpikeConfig::Outage(o) => o.dirs,
                _ => continue,
            };
            let mut schedule = Schedule::new(spike).map_err(|e| Refused {
                key: format!("link[{i}].spikes[{k}]"),
                why: e.to_string(),
            })?;
            let mut rng = spikelab_net::streams::spike_rng(&streams, i, k);
            let mut events = Vec::new();
            let mut mode = None;
            while let Some((at, control)) = schedule.next(&mut rng) {
                if at.0 > sim.stop_at.0 {
                    break;
                }
                match control {
                    LinkControl::Suspend(_, m) => {
                        mode = Some(m);
                        events.push((at, "freeze-start"));
                    }
                    LinkControl::Resume(_) => events.push((at, "freeze-end")),
                    LinkControl::SetRate(..) => {}
                }
            }
            let Some(mode) = mode else { continue };
            any = true;
            for dir in step_dirs(dirs) {
                let (a, b) = hop_ends(i, dir);
                let (a, b) = (ids[a], ids[b]);
                let v = format!("fz({i},{k},{})", dir_index(dir));
                let bit = |on: bool| u8::from(on);
                let _ = writeln!(
                    tcl,
                    "set {v} [[$ns link $n({a}) $n({b})] link]\n\
                     ${v} set freezeBeforeQueue_ {}\n${v} set freezeHoldsWire_ {}\n\
                     ${v} set freezeDropsArrivals_ {}\n\
                     ${v} freeze-enable\n${v} freeze-queue [[$ns link $n({a}) $n({b})] queue]",
                    bit(mode.at == FreezePoint::BeforeQueue),
                    bit(mode.wire == FrozenWire::Held),
                    bit(mode.arrivals == FrozenArrivals::Dropped),
                );
                for (at, cmd) in &events {
                    let _ = writeln!(tcl, "$ns at {} \"${v} {cmd}\"", secs(*at - Time::ZERO));
                }
            }
        }
    }
    Ok(any)
}

fn step_dirs(d: Dirs) -> Vec<Dir> {
    match d {
        Dirs::Forward => vec![Dir::Forward],
        Dirs::Reverse => vec![Dir::Reverse],
        Dirs::Both => vec![Dir::Forward, Dir::Reverse],
    }
}

/// The agent and sink classes for a flow's configuration.
fn agent_classes(f: usize, tcp: &TcpConfig) -> Result<(&'static str, &'static str), Refused> {
    let agent = match tcp.recovery.ns2() {
        Ns2Export::Agent(class) => class,
        other => {
            return refused(
                format!("flow[{f}].tcp.recovery = {}", tcp.recovery.label()),
                other,
            )
        }
    };
    let sink = match (tcp.recovery.uses_sack(), tcp.delayed_ack.enabled) {
        (false, false) => "Agent/TCPSink",
        (false, true) => "Agent/TCPSink/DelAck",
        (true, false) => "Agent/TCPSink/Sack1",
        (true, true) => "Agent/TCPSink/Sack1/DelAck",
    };
    Ok((agent, sink))
}

/// The ns-2 `Agent/TCP` settings of a flow, or the first key ns-2 cannot express.
fn agent_settings(f: usize, tcp: &TcpConfig) -> Result<Vec<(&'static str, String)>, Refused> {
    let key = |k: &str| format!("flow[{f}].tcp.{k}");
    let mss = tcp.mss as u64;
    if !tcp.receiver_window.is_multiple_of(mss) {
        return refuse(
            key("receiver_window"),
            "ns-2's window_ counts whole packets",
        );
    }
    if tcp.initial_ssthresh < tcp.receiver_window {
        return refuse(
            key("initial_ssthresh"),
            "ns-2 starts with ssthresh_ = window_",
        );
    }
    if tcp.ssthresh_rule != SsthreshRule::Ns2 {
        return refuse(
            key("ssthresh_rule = rfc5681"),
            "ns-2 halves min(cwnd, window) on every loss (slowdown())",
        );
    }
    if tcp.recovery.uses_sack() && tcp.sack_pipe != PipeRule::Ns2Sack1 {
        return refuse(
            key("sack_pipe = rfc6675"),
            "ns-2's Sack1 keeps Fall and Floyd's pipe",
        );
    }
    if tcp.timeout_retransmit != TimeoutRetransmit::GoBackN {
        return refuse(
            key("timeout_retransmit = selective-repeat"),
            "ns-2 goes back N after a timeout",
        );
    }
    if !tcp.karn {
        return refuse(
            key("karn = false"),
            "ns-2 ends the RTT measurement on a timeout (Karn's rule)",
        );
    }
    if tcp.delayed_ack.enabled && tcp.delayed_ack.every != 2 {
        return refuse(
            key("delayed_ack.every"),
            "ns-2's DelAck sink acknowledges every second packet",
        );
    }
    // Every declared switch: on is ns-2's own behaviour (a Tcl variable among the 2002
    // defaults, or the agent's code); off is refused with the reason it declares.
    if let Some((s, _)) = tcp.ns2.iter().find(|(_, on)| !on) {
        return refuse(
            format!("flow[{f}].tcp.ns2.{} = false", s.name),
            s.ns2.refusal_when_off(),
        );
    }
    if tcp.dsack {
        return refuse(key("dsack = true"), "the 2002 agents do not use D-SACK");
    }
    let rto = settings(
        key(&format!("rto.kind = {}", tcp.rto.kind())),
        &key("rto"),
        tcp.rto.ns2(),
    )?;
    let sp = &tcp.spurious;
    if !sp.observe.is_empty() {
        return refuse(
            key("spurious.observe"),
            "ns-2.35 has no passive spurious-timeout detectors",
        );
    }
    let detector = match sp.driver {
        None => NO_DRIVER.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        Some(d) => settings(
            key(&format!("spurious.driver = {}", d.label())),
            &key("spurious"),
            d.ns2(),
        )?,
    };
    let response = response_settings(&key, sp)?;
    let cc = congestion_controller(tcp);
    let cc = settings(key(&format!("cc = {}", cc.name())), &key("cc"), cc.ns2())?;
    let b = |v: bool| if v { "true" } else { "false" }.to_string();
    Ok([
        ("packetSize_", tcp.mss.to_string()),
        ("windowInit_", tcp.initial_window.to_string()),
        ("window_", (tcp.receiver_window / mss).to_string()),
        ("bugFix_", b(tcp.careful_fast_retransmit)),
        ("singledup_", (tcp.limited_transmit as u8).to_string()),
        ("numdupacks_", tcp.dupack_threshold.to_string()),
        ("timestamps_", b(tcp.timestamps)),
        ("syn_", b(tcp.handshake)),
    ]
    .into_iter()
    .chain(rto)
    .chain(detector)
    .chain(response)
    .chain(cc)
    .collect())
}

/// The response options' settings (each option's [`Exports::ns2`]), or the first
/// ns-2.35 cannot express. Without a driving detector no response ever runs, in
/// spikelab as in ns-2, so there is nothing to express.
fn response_settings(
    key: &dyn Fn(&str) -> String,
    sp: &SpuriousConfig,
) -> Result<Vec<(&'static str, String)>, Refused> {
    if sp.driver.is_none() {
        return Ok(Vec::new());
    }
    let mut all = Vec::new();
    for option in sp.response.options() {
        let (name, value) = option.key_value();
        let choice = key(&format!("spurious.response.{name} = {value}"));
        match option.ns2() {
            refusal @ Ns2Export::Refused { .. } => return refused(choice, refusal),
            export => all.extend(settings(choice, &key("spurious.response"), export)?),
        }
    }
    Ok(all)
}

/// The agent's F-RTO variables without a driving detector.
const NO_DRIVER: &[(&str, &str)] = &[("frto_enabled_", "0"), ("sfrto_enabled_", "0")];

/// An algorithm's settings (its [`Exports::ns2`]), or its refusal under `choice` (the
/// algorithm itself) or `at.field`.
fn settings(
    choice: String,
    at: &str,
    export: Ns2Export,
) -> Result<Vec<(&'static str, String)>, Refused> {
    match export {
        Ns2Export::Settings(s) => Ok(s),
        Ns2Export::Native(_) => Ok(Vec::new()),
        Ns2Export::Refused {
            field: Some(field),
            why,
        } => refuse(format!("{at}.{field}"), why),
        other => refused(choice, other),
    }
}

/// The refusal of an algorithm that ns-2.35 does not run as the exporter needs.
fn refused<T>(key: String, export: Ns2Export) -> Result<T, Refused> {
    match export {
        Ns2Export::Refused { why, .. } => refuse(key, why),
        other => refuse(key, format!("not an ns-2 export of this kind: {other:?}")),
    }
}

fn sink_settings(tcp: &TcpConfig) -> Vec<(&'static str, String)> {
    let (bugfix, rfc1323) = match tcp.echo_rule {
        EchoRule::Latest => ("false", "false"),
        EchoRule::Rfc7323 => ("true", "true"),
    };
    let mut v = vec![
        ("ts_echo_bugfix_", bugfix.to_string()),
        ("ts_echo_rfc1323_", rfc1323.to_string()),
    ];
    if tcp.recovery.uses_sack() {
        v.push(("maxSackBlocks_", tcp.max_sack_blocks.to_string()));
    }
    if tcp.delayed_ack.enabled {
        v.push((
            "interval_",
            format!("{}", tcp.delayed_ack.timeout.as_secs_f64()),
        ));
    }
    v
}

fn tcp_flow(
    tcl: &mut String,
    f: usize,
    tcp: &TcpConfig,
    src: usize,
    dst: usize,
    start: Dur,
    bytes: u64,
) -> Result<(), Refused> {
    let (agent, sink) = agent_classes(f, tcp)?;
    let settings = agent_settings(f, tcp)?;
    let _ = writeln!(tcl, "set tcp({f}) [new {agent}]\n$tcp({f}) set fid_ {f}");
    for (k, v) in settings {
        let _ = writeln!(tcl, "$tcp({f}) set {k} {v}");
    }
    let _ = writeln!(tcl, "set sink({f}) [new {sink}]");
    for (k, v) in sink_settings(tcp) {
        let _ = writeln!(tcl, "$sink({f}) set {k} {v}");
    }
    let _ = writeln!(
        tcl,
        "$ns attach-agent $n({src}) $tcp({f})\n$ns attach-agent $n({dst}) $sink({f})\n\
         $ns connect $tcp({f}) $sink({f})\n\
         $tcp({f}) attach $vtr\n\
         foreach v {{cwnd_ ssthresh_ backoff_ srtt_ rttvar_ rtt_ dupacks_ nrexmit_}} {{ $tcp({f}) trace $v }}\n\
         $tcp({f}) proc done {{}} {{ global ns; puts \"done {f} [$ns now]\" }}\n\
         set ftp({f}) [new Application/FTP]\n$ftp({f}) attach-agent $tcp({f})\n\
         $ns at {} \"$ftp({f}) send {bytes}\"",
        secs(start)
    );
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn cbr_flow(
    tcl: &mut String,
    f: usize,
    rate: u64,
    payload: u32,
    src: usize,
    dst: usize,
    start: Dur,
    stop: Option<Dur>,
) {
    // spikelab counts a datagram as payload + 28 bytes of IPv4/UDP header on the wire;
    // ns-2's Agent/UDP sends packets of exactly the CBR packetSize_.
    let _ = writeln!(
        tcl,
        "set udp({f}) [new Agent/UDP]\n$udp({f}) set fid_ {f}\n\
         set null({f}) [new Agent/Null]\n\
         $ns attach-agent $n({src}) $udp({f})\n$ns attach-agent $n({dst}) $null({f})\n\
         $ns connect $udp({f}) $null({f})\n\
         set cbr({f}) [new Application/Traffic/CBR]\n$cbr({f}) attach-agent $udp({f})\n\
         $cbr({f}) set packetSize_ {}\n$cbr({f}) set rate_ {rate}\n$cbr({f}) set random_ 0\n\
         $ns at {} \"$cbr({f}) start\"",
        payload + 28,
        secs(start)
    );
    if let Some(s) = stop {
        let _ = writeln!(tcl, "$ns at {} \"$cbr({f}) stop\"", secs(s));
    }
}

/// `[[drop]]` rules as ErrorModel/List positions (see the module docs).
fn drops(
    tcl: &mut String,
    sim: &SimConfig,
    seed: u64,
    ids: &[usize],
    tcp_flows: &[TcpFlowInfo],
) -> Result<(), Refused> {
    if sim.drops.is_empty() {
        return Ok(());
    }
    for (i, d) in sim.drops.iter().enumerate() {
        let flow = &sim.flows[d.flow];
        if let DropTarget::Acks = d.target {
            return refuse(
                format!("drop[{i}].acks = true"),
                "ACK drops are not exported",
            );
        }
        let first = flow.route[0];
        if first.link != d.link {
            return refuse(
                format!("drop[{i}].link"),
                "exported drops must be on the flow's first link",
            );
        }
        let shared = sim.flows.iter().enumerate().any(|(g, o)| {
            g != d.flow
                && o.route
                    .iter()
                    .any(|h| h.link == first.link && h.dir == first.dir)
        });
        if shared {
            return refuse(
                format!("drop[{i}].link"),
                "another flow enters this link in the same direction",
            );
        }
    }
    let mut traced = sim.clone();
    traced.trace = spikelab_engine::TraceKinds::ALL;
    let run = spikelab_engine::run(&traced, seed).map_err(|e| Refused {
        key: "drop".into(),
        why: format!("the spikelab run that places the drops failed: {e}"),
    })?;
    for info in tcp_flows {
        let rules: Vec<usize> = (0..sim.drops.len())
            .filter(|&i| sim.drops[i].flow == info.flow)
            .collect();
        if rules.is_empty() {
            continue;
        }
        let link = sim.drops[rules[0]].link;
        let mut positions = Vec::new();
        let mut sent = u64::from(info.syn);
        let mut last_send: Option<(spikelab_core::Time, u64)> = None;
        for r in run
            .trace
            .iter()
            .filter(|r| r.flow == FlowId(info.flow as u32))
        {
            match r.event {
                TraceEvent::Send { seq, .. } => {
                    last_send = Some((r.time, sent));
                    sent += 1;
                    let _ = seq;
                }
                TraceEvent::Drop {
                    seq: _,
                    is_ack: false,
                    link: l,
                    ..
                } if l as usize == link => {
                    if let Some((t, pos)) = last_send.filter(|(t, _)| *t == r.time) {
                        let _ = t;
                        positions.push(pos);
                    }
                }
                _ => {}
            }
        }
        let (a, b) = hop_ends(link, sim.flows[info.flow].route[0].dir);
        let list: Vec<String> = positions.iter().map(|p| p.to_string()).collect();
        let _ = writeln!(
            tcl,
            "set em({f}) [new ErrorModel/List]\n$em({f}) droplist {{{}}}\n$ns lossmodel $em({f}) $n({}) $n({})",
            list.join(" "),
            ids[a],
            ids[b],
            f = info.flow
        );
    }
    Ok(())
}

fn footer(tcl: &mut String, sim: &SimConfig, tcp_flows: &[TcpFlowInfo]) {
    let mut hops: Vec<(usize, usize)> = tcp_flows.iter().map(|t| t.first_hop).collect();
    hops.sort();
    hops.dedup();
    for (a, b) in hops {
        let _ = writeln!(tcl, "$ns trace-queue $n({a}) $n({b}) $qtr");
    }
    tcl.push_str("proc finish {} {\n  global ns qtr vtr tcp\n");
    for t in tcp_flows {
        let f = t.flow;
        let _ = writeln!(
            tcl,
            "  puts \"counters {f} [$tcp({f}) set ndatapack_] [$tcp({f}) set nrexmitpack_] [$tcp({f}) set nrexmit_] [$tcp({f}) set ncwndcuts1_]\""
        );
    }
    let _ = writeln!(
        tcl,
        "  $ns flush-trace\n  close $qtr\n  close $vtr\n  exit 0\n}}\n$ns at {} \"finish\"\n$ns run",
        secs(sim.stop_at)
    );
}

/// Why `spikelab export ns2` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// A bad scenario, repetition or key ns-2 cannot express (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Writing the script failed (exit 1).
    #[error("{0}")]
    Io(String),
}

/// `spikelab export ns2 SCENARIO [--rep R] --out DIR`: writes `DIR/run.tcl` for
/// repetition `rep`; returns the file written. Nothing is written on an error.
pub fn export_command(
    scenario: &std::path::Path,
    rep: u32,
    out: &std::path::Path,
) -> Result<std::path::PathBuf, CommandError> {
    let scn = spikelab_scenario::load(scenario).map_err(|e| CommandError::Usage(e.to_string()))?;
    if rep >= scn.run().reps {
        return Err(CommandError::Usage(format!(
            "{}: --rep {rep}: the scenario has {} repetitions",
            scenario.display(),
            scn.run().reps
        )));
    }
    let seed = spikelab_core::rng::RngStreams::repetition_seed(scn.run().seed, u64::from(rep));
    let script = export(scn.sim(), seed)
        .map_err(|e| CommandError::Usage(format!("{}: {e}", scenario.display())))?;
    std::fs::create_dir_all(out)
        .map_err(|e| CommandError::Io(format!("{}: {e}", out.display())))?;
    let file = out.join("run.tcl");
    std::fs::write(&file, script.tcl)
        .map_err(|e| CommandError::Io(format!("{}: {e}", file.display())))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_tcp::response::ResponseOption;

    fn scenario(extra_link: &str, tcp: &str) -> SimConfig {
        let text = format!(
            "[[link]]\nname = \"l\"\nrate = \"30kbit/s\"\nlatency = \"300ms\"\n{extra_link}\n\
             [[flow]]\nname = \"f\"\nroute = [\"l\"]\nprofile = \"ns2-2002\"\ntcp = {{ {tcp} }}\n\
             workload = {{ kind = \"bulk\", bytes = \"10KB\" }}\n"
        );
        spikelab_scenario::parse(&text, "t.toml").unwrap().to_sim()
    }

    #[test]
    fn every_2002_default_is_written_explicitly() {
        let s = export(&scenario("", "timestamps = true"), 1).unwrap();
        for (class, var, value) in DEFAULTS_2002 {
            assert!(
                s.tcl.contains(&format!("{class} set {var} {value}\n")),
                "{var}"
            );
        }
        assert!(s.tcl.contains("$tcp(0) set minrto_ 1\n"));
        assert!(s.tcl.contains("$tcp(0) set rtxcur_init_ 6\n"));
        assert!(s.tcl.contains("$tcp(0) set maxrto_ 100000\n"));
        assert!(s.tcl.contains("[new Agent/TCP/Reno]"));
        assert!(s.tcl.contains("[new Agent/TCPSink/DelAck]"));
    }

    #[test]
    fn a_queue_of_n_waiting_packets_is_an_ns2_limit_of_n_plus_one() {
        let s = export(
            &scenario(
                "queue = { kind = \"drop-tail\", limit = { packets = 9 } }",
                "",
            ),
            1,
        )
        .unwrap();
        assert!(
            s.tcl.contains("$ns queue-limit $n(0) $n(1) 10\n"),
            "{}",
            s.tcl
        );
    }

    #[test]
    fn what_ns2_cannot_express_is_refused_by_key() {
        let e = export(&scenario("service = { kind = \"wcdma\" }", ""), 1).unwrap_err();
        assert_eq!(e.key, "link[0].service = wcdma");
        let e = export(&scenario("", "recovery = \"new-reno-sack\""), 1).unwrap_err();
        assert_eq!(e.key, "flow[0].tcp.recovery = new-reno-sack");
        let e = export(&scenario("", "ssthresh_rule = \"rfc5681\""), 1).unwrap_err();
        assert_eq!(e.key, "flow[0].tcp.ssthresh_rule = rfc5681");
    }

    #[test]
    fn a_reordering_path_is_refused_at_its_direction_before_its_delay_trace() {
        let e = export(
            &scenario("delay_sampling = \"per-packet-reordering\"", ""),
            1,
        )
        .unwrap_err();
        assert_eq!(
            e.key,
            "link[0] (l).forward.delay_sampling = per-packet-reordering"
        );
        assert!(e.why.contains("FIFO"), "{e}");
        let reverse_only = "reverse = { delay_sampling = \"per-packet-reordering\" }";
        let e = export(&scenario(reverse_only, ""), 1).unwrap_err();
        assert_eq!(
            e.key,
            "link[0] (l).reverse.delay_sampling = per-packet-reordering"
        );
        // FIFO per-packet draws without a trace draw nothing: exported as a fixed delay.
        assert!(export(&scenario("delay_sampling = \"per-packet\"", ""), 1).is_ok());
    }

    #[test]
    fn every_ns2_switch_off_is_refused_with_its_declared_reason() {
        let on = scenario("", "");
        assert!(export(&on, 1).is_ok());
        for s in spikelab_tcp::Ns2Switches::DECLARED {
            let e = export(&scenario("", &format!("ns2.{} = false", s.name)), 1).unwrap_err();
            assert_eq!(e.key, format!("flow[0].tcp.ns2.{} = false", s.name));
            assert_eq!(e.why, s.ns2.refusal_when_off());
        }
    }

    #[test]
    fn every_ns2_switch_variable_is_written_at_its_2002_value() {
        let s = export(&scenario("", ""), 1).unwrap();
        for sw in spikelab_tcp::Ns2Switches::DECLARED {
            if let spikelab_tcp::config::Ns2Source::Tcl(vars) = sw.ns2 {
                for (class, var, value) in vars {
                    assert!(
                        DEFAULTS_2002.contains(&(class, var, value)),
                        "{}: {var}",
                        sw.name
                    );
                    assert!(
                        s.tcl.contains(&format!("{class} set {var} {value}\n")),
                        "{var}"
                    );
                }
            }
        }
    }

    /// The agent's settings (or the refusal) for the 2002 profile with `change` applied.
    fn agent(change: impl Fn(&mut TcpConfig)) -> Result<Vec<(&'static str, String)>, Refused> {
        let mut tcp = TcpConfig::ns2_2002();
        tcp.timestamps = true;
        change(&mut tcp);
        agent_classes(0, &tcp)?;
        agent_settings(0, &tcp)
    }

    /// `settings` written as the export states them, or the refusal carries its reason.
    fn exported_as_stated(
        name: &str,
        got: Result<Vec<(&'static str, String)>, Refused>,
        stated: Ns2Export,
    ) {
        match (got, stated) {
            (Ok(all), Ns2Export::Settings(own)) => {
                assert!(own.iter().all(|s| all.contains(s)), "{name}: {own:?}");
            }
            (Ok(_), Ns2Export::Agent(_) | Ns2Export::Native(_)) => {}
            (Err(e), Ns2Export::Refused { why, .. }) => assert_eq!(e.why, why, "{name}"),
            (got, stated) => panic!("{name}: exported {got:?}, states {stated:?}"),
        }
    }

    #[test]
    fn every_registered_algorithm_is_exported_or_refused_as_it_states() {
        for name in spikelab_tcp::spurious::DetectorKind::NAMES {
            let k = spikelab_tcp::spurious::DetectorKind::from_label(name).unwrap();
            exported_as_stated(name, agent(|t| t.spurious.driver = Some(k)), k.ns2());
        }
        for name in RecoveryKind::NAMES {
            let k = RecoveryKind::from_label(name).unwrap();
            let got = agent(|t| t.recovery = k);
            exported_as_stated(name, got, k.ns2());
        }
        for name in spikelab_tcp::rto::RtoConfig::KINDS {
            let c: spikelab_tcp::rto::RtoConfig =
                toml::from_str(&format!("kind = \"{name}\"")).unwrap();
            exported_as_stated(name, agent(|t| t.rto = c.clone()), c.ns2());
        }
        let frto = Some(spikelab_tcp::spurious::DetectorKind::Frto);
        for o in spikelab_tcp::response::ResponseOption::all() {
            let name = format!("{o:?}");
            let got = agent(|t| {
                t.spurious.driver = frto;
                set_option(&mut t.spurious.response, o);
            });
            exported_as_stated(&name, got, o.ns2());
        }
    }

    /// Sets the one response option `o` names.
    fn set_option(r: &mut spikelab_tcp::response::ResponseConfig, o: ResponseOption) {
        match o {
            ResponseOption::Restore(x) => r.restore = x,
            ResponseOption::RtoAdapt(x) => r.rto_adapt = x,
            ResponseOption::ResumeWithNewData(x) => r.resume_with_new_data = x,
            ResponseOption::FastRetransmitBelowRecoveryPoint(x) => {
                r.fast_retransmit_below_recovery_point = x
            }
            ResponseOption::NewrenoSackUntilRecoveryPoint(x) => {
                r.newreno_sack_until_recovery_point = x
            }
        }
    }

    #[test]
    fn a_response_ns2_cannot_run_is_refused_by_its_key_and_value() {
        let e = agent(|t| {
            t.spurious.driver = Some(spikelab_tcp::spurious::DetectorKind::Frto);
            t.spurious.response.rto_adapt = spikelab_tcp::response::RtoAdapt::Reseed;
        })
        .unwrap_err();
        assert_eq!(e.key, "flow[0].tcp.spurious.response.rto_adapt = reseed");
        // Without a driver no response runs: nothing to refuse.
        let ok =
            agent(|t| t.spurious.response.rto_adapt = spikelab_tcp::response::RtoAdapt::Reseed);
        assert!(ok.is_ok());
    }

    #[test]
    fn the_agent_grows_cwnd_as_its_controller_states() {
        let all = agent(|_| {}).unwrap();
        assert!(all.contains(&("windowOption_", "1".to_string())));
    }

    #[test]
    fn the_recovery_names_its_agent_class() {
        let s = export(&scenario("", "recovery = \"fack\""), 1).unwrap();
        assert!(s.tcl.contains("[new Agent/TCP/Fack]"));
        let s = export(&scenario("", "recovery = \"new-reno\""), 1).unwrap();
        assert!(s.tcl.contains("[new Agent/TCP/Newreno]"));
    }

    #[test]
    fn a_hiccup_freezes_both_directions_with_its_switches() {
        let spike =
            "[[link.spikes]]\nkind = \"hiccup\"\nat = [{ start = \"5s\", duration = \"6s\" }]\n\
                     arrivals = \"dropped\"\n";
        let s = export(&scenario(spike, ""), 1).unwrap();
        assert!(s.needs_freeze);
        for (v, a, b) in [("fz(0,0,0)", 0, 1), ("fz(0,0,1)", 1, 0)] {
            for line in [
                format!("set {v} [[$ns link $n({a}) $n({b})] link]"),
                format!("${v} set freezeBeforeQueue_ 0"),
                format!("${v} set freezeHoldsWire_ 1"),
                format!("${v} set freezeDropsArrivals_ 1"),
                format!("${v} freeze-queue [[$ns link $n({a}) $n({b})] queue]"),
                format!("$ns at 5.000000000 \"${v} freeze-start\""),
                format!("$ns at 11.000000000 \"${v} freeze-end\""),
            ] {
                assert!(s.tcl.contains(&format!("{line}\n")), "{line}\n{}", s.tcl);
            }
        }
    }

    #[test]
    fn an_outage_freezes_only_its_direction() {
        let spike =
            "[[link.spikes]]\nkind = \"outage\"\nat = [{ start = \"2s\", duration = \"1s\" }]\n\
                     dirs = \"reverse\"\nfreeze_at = \"before-queue\"\n";
        let s = export(&scenario(spike, ""), 1).unwrap();
        assert!(s
            .tcl
            .contains("set fz(0,0,1) [[$ns link $n(1) $n(0)] link]\n"));
        assert!(s.tcl.contains("$fz(0,0,1) set freezeBeforeQueue_ 1\n"));
        assert!(!s.tcl.contains("fz(0,0,0)"), "{}", s.tcl);
    }

    /// The (start, end) pairs of every freeze the script schedules, in seconds.
    fn scheduled_freezes(tcl: &str) -> Vec<(String, String)> {
        let at = |cmd: &str| -> Vec<String> {
            tcl.lines()
                .filter(|l| l.starts_with("$ns at ") && l.ends_with(&format!("fz(0,0,0) {cmd}\"")))
                .map(|l| l.split_whitespace().nth(2).unwrap().to_string())
                .collect()
        };
        at("freeze-start")
            .into_iter()
            .zip(at("freeze-end"))
            .collect()
    }

    #[test]
    fn a_random_spike_pattern_is_exported_as_the_engine_draws_it() {
        let spike = "[[link.spikes]]\nkind = \"hiccup\"\n\
                     interval = { dist = \"uniform\", min = \"2s\", max = \"4s\" }\n\
                     duration = { dist = \"uniform\", min = \"1s\", max = \"2s\" }\n";
        let mut sim = scenario(spike, "");
        sim.stop_at = Dur::from_secs(60);
        sim.trace = spikelab_engine::TraceKinds::ALL;
        // Long enough (50 KB at 30 kbit/s) to meet several spikes before it ends.
        if let FlowKind::Tcp {
            workload: Workload::Bulk { bytes },
            ..
        } = &mut sim.flows[0].kind
        {
            bytes.0 = 50_000;
        }
        for seed in [1, 2] {
            let exported = scheduled_freezes(&export(&sim, seed).unwrap().tcl);
            let run = spikelab_engine::run(&sim, seed).unwrap();
            let edges: Vec<String> = run
                .trace
                .iter()
                .filter(|r| matches!(r.event, TraceEvent::Spike { .. }))
                .map(|r| secs(r.time - Time::ZERO))
                .collect();
            let engine: Vec<(String, String)> = edges
                .chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| (c[0].clone(), c[1].clone()))
                .collect();
            // The engine stops when the transfer is through; the script runs to 60 s.
            assert!(engine.len() >= 3 && exported.len() >= 10, "{engine:?}");
            assert_eq!(exported[..engine.len()], engine[..], "seed {seed}");
        }
    }

    #[test]
    fn sack_and_delayed_ack_choose_the_sack1_delack_sink() {
        let s = export(&scenario("", "recovery = \"reno-sack\""), 1).unwrap();
        assert!(s.tcl.contains("[new Agent/TCP/Sack1]"));
        assert!(s.tcl.contains("[new Agent/TCPSink/Sack1/DelAck]"));
    }
}
