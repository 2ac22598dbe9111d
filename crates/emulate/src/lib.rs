//! spikelab-emulate: `spikelab emulate SCENARIO` runs real Linux TCP through the same
//! path models `spikelab run` simulates.
//!
//! ```text
//!  sender ns i                 this process                      receiver ns i
//!  kernel TCP ─▶ TUN <prefix>s<i> ─▶ forwarder: crates/net links, ─▶ TUN <prefix>r<i> ─▶ kernel TCP
//!  (bulk writer,  ◀──────────────    spikes, middleboxes, truth  ◀──────────────        (reader)
//!   TCP_INFO poller)
//! ```
//!
//! * [`sandbox`]: namespaces under a per-run prefix, removed on every exit path;
//! * [`host`]: devices, sysctls, the bulk sender and receiver on kernel sockets;
//! * [`forwarder`]: the real-time loop over crates/net ([`wire`] maps packets);
//! * [`truth`]: ground truth for every retransmission; [`report`]: results in the
//!   engine's types so the CLI's writers write `runs.csv` etc.;
//! * [`kernel`]: scenario settings -> kernel settings, TCP_INFO and counters;
//! * [`outputs`]: the emulator's own files (kernel.csv, meta.json's `emulation`) and
//!   `--compare`.

pub mod diverge;
pub mod forwarder;
pub mod host;
pub mod jiffies;
pub mod kernel;
pub mod outputs;
pub mod report;
pub mod sandbox;
pub mod sys;
pub mod truth;
pub mod wire;

use anyhow::anyhow;
use forwarder::{FlowFds, Forwarder};
use host::{App, Endpoints, FlowHost, FlowPlan};
use kernel::KernelSettings;
use rand::Rng;
use report::{FlowInputs, FlowKernel, Lateness, RepReport};
use sandbox::Sandbox;
use spikelab_core::{RngStreams, Time};
use spikelab_engine::{FlowKind, SimConfig, StartTime, Workload};
use spikelab_net::middlebox::Selection;
use spikelab_net::MiddleboxConfig;
use spikelab_scenario::error::{FieldPath, Invalid, Locator};
use spikelab_scenario::schema::FlowKindName;
use spikelab_scenario::{Scenario, ScenarioError};
use spikelab_tcp::exports::{Exports, Kernel};
use std::collections::BTreeMap;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wire::Side;

/// `spikelab emulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct EmulateArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Base seed (default: the scenario's `run.seed`); repetition r uses
    /// `RngStreams::repetition_seed(seed, r)`, so spikes fall where `spikelab run` puts them.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of repetitions (default: the scenario's `run.reps`). Each takes real time.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: Option<u32>,
    /// Output directory (default: out/<scenario name>-emulate).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write pcap/rep<r>-<flow>-sender.pcap and -receiver.pcap (both ends, real packets).
    #[arg(long)]
    pub pcap: bool,
    /// Write tcp_info/rep<r>-<flow>.csv: every change of the sender's TCP_INFO seen by
    /// the 1 ms poller (cwnd, ssthresh, ca_state, sacked, lost, retrans, reordering,
    /// rto, bytes acknowledged, ...), to follow the kernel's window over time; and
    /// tcp_info/rep<r>-<flow>-receiver.csv: the receiver's (its delayed-ACK timeout
    /// ato, rcv_mss, rcv_ssthresh, rcv_rtt, rcv_space, bytes received).
    #[arg(long)]
    pub tcp_info: bool,
    /// A kernel setting for both namespaces of every flow, NAME=VALUE with NAME one of
    /// tcp_timestamps, tcp_sack, tcp_dsack, tcp_frto, tcp_recovery, tcp_early_retrans,
    /// tcp_rto_min_us, tcp_rto_max_ms (repeatable; overrides what the scenario implies).
    #[arg(long = "sysctl", value_name = "NAME=VALUE")]
    pub sysctl: Vec<String>,
    /// Congestion control module of every sender, overriding the flows'
    /// `kernel.congestion` (default: that, else the module the flow's congestion
    /// controller declares: reno, or a `linux` host's `tcp_congestion_control`).
    #[arg(long)]
    pub cc: Option<String>,
    /// Repetitions run at once (each in its own namespaces). Check the lateness in
    /// meta.json before trusting parallel runs on a loaded machine.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: u32,
    /// After the run, print the simulation's summary (a `spikelab run` output
    /// directory) beside the kernel's; with `--pcap` here and there, also the first
    /// diverging decision of each flow (`divergence.csv`, as `spikelab diverge`).
    #[arg(long, value_name = "SIM_DIR")]
    pub compare: Option<PathBuf>,
}

/// Why an emulation did not produce results.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// The scenario or a flag asks for something the emulator cannot do (exit 2).
    #[error("{0}")]
    Unsupported(String),
    /// Not root, no TUN, no `ip` (exit 2).
    #[error("{0}")]
    Environment(String),
    /// SIGINT or SIGTERM: everything created was removed.
    #[error("interrupted; every namespace and device of the run was removed")]
    Interrupted,
    /// Anything else while running.
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// Checks that this process can emulate: root, /dev/net/tun, iproute2.
pub fn preflight() -> Result<(), EmuError> {
    if !sys::is_root() {
        return Err(EmuError::Environment(
            "spikelab emulate needs root (it creates network namespaces and TUN devices)".into(),
        ));
    }
    if !Path::new("/dev/net/tun").exists() {
        return Err(EmuError::Environment(
            "/dev/net/tun is missing: load the tun module or run where TUN devices exist".into(),
        ));
    }
    if std::process::Command::new("ip").arg("-V").output().is_err() {
        return Err(EmuError::Environment(
            "`ip` (iproute2) is not installed".into(),
        ));
    }
    Ok(())
}

/// Can this process emulate? (For tests: they print SKIPPED when not.)
pub fn can_emulate() -> bool {
    preflight().is_ok()
}

/// A checked scenario, ready to emulate.
#[derive(Clone, Debug)]
pub struct Plan {
    pub sim: SimConfig,
    pub kernel: Vec<KernelSettings>,
    /// Each flow's built-in application.
    pub apps: Vec<App>,
    /// Payload bytes each TCP flow writes (0 for CBR).
    pub bytes: Vec<u64>,
    /// Each TCP flow's segment size; a CBR flow's datagram payload.
    pub mss: Vec<u64>,
    pub flow_names: Vec<String>,
    pub pcap: bool,
    /// Write each TCP sender's TCP_INFO series (`--tcp-info`).
    pub tcp_info: bool,
    /// Name prefix (default: a fresh one per repetition).
    pub prefix: Option<String>,
    /// Record every forward packet's passage ([`forwarder::Transits`], in
    /// [`RepReport::transits`]); for tests comparing the path with the link model.
    pub record_transits: bool,
}

/// Parses `--sysctl NAME=VALUE` flags.
pub fn parse_sysctls(flags: &[String]) -> Result<BTreeMap<String, String>, EmuError> {
    let mut out = BTreeMap::new();
    for f in flags {
        let Some((k, v)) = f.split_once('=') else {
            return Err(EmuError::Unsupported(format!(
                "--sysctl {f}: write NAME=VALUE"
            )));
        };
        let k = k.trim().trim_start_matches("net.ipv4.");
        if !kernel::SYSCTLS.contains(&k) {
            return Err(EmuError::Unsupported(format!(
                "--sysctl {f}: `{k}` is not one of {}",
                kernel::SYSCTLS.join(", ")
            )));
        }
        if v.trim().parse::<i64>().is_err() {
            return Err(EmuError::Unsupported(format!(
                "--sysctl {f}: the value must be an integer"
            )));
        }
        out.insert(k.to_owned(), v.trim().to_owned());
    }
    Ok(out)
}

/// Checks that the emulator can run `s` and derives each flow's kernel settings.
/// What it cannot do is a located error naming the key.
pub fn plan(
    s: &Scenario,
    sysctls: &BTreeMap<String, String>,
    cc: Option<&str>,
) -> Result<Plan, ScenarioError> {
    if let Some((path, why)) = unsupported(s) {
        return Err(locate(s, path, why));
    }
    let sim = s.to_sim();
    let mut p = Plan {
        kernel: Vec::new(),
        apps: Vec::new(),
        bytes: Vec::new(),
        mss: Vec::new(),
        flow_names: sim.flows.iter().map(|f| f.name.clone()).collect(),
        sim,
        pcap: false,
        tcp_info: false,
        prefix: None,
        record_transits: false,
    };
    let entries = kernel_entries(s);
    for (f, entry) in p.sim.flows.iter().zip(entries) {
        let (app, k, mss) = match &f.kind {
            FlowKind::Tcp { tcp, workload } => {
                let app = match *workload {
                    Workload::Bulk { bytes } => App::Bulk { bytes: bytes.0 },
                    Workload::PingPong { packets, bytes } => App::PingPong {
                        messages: packets,
                        bytes: bytes.0,
                    },
                };
                (
                    app,
                    KernelSettings::for_flow(tcp, entry, sysctls, cc),
                    tcp.mss as u64,
                )
            }
            FlowKind::Quic { .. } => unreachable!("`unsupported` refuses QUIC flows"),
            FlowKind::Cbr {
                rate,
                payload_bytes,
                stop,
            } => (
                App::Cbr {
                    payload: *payload_bytes,
                    interval: Duration::from_nanos(cbr_interval(*payload_bytes, *rate).0),
                    stop: stop.map(|d| Duration::from_nanos(d.0)),
                },
                // The namespaces still get settings (a CBR flow has no TCP to apply them to).
                KernelSettings::for_flow(&Default::default(), None, sysctls, cc),
                *payload_bytes as u64,
            ),
        };
        p.bytes.push(app.tcp_bytes());
        p.apps.push(app);
        p.kernel.push(k);
        p.mss.push(mss);
    }
    Ok(p)
}

/// Each engine flow's `[flow.kernel]` table: entries in file order, each repeated for
/// its `count` replicas (the order `spikelab_scenario` resolves flows in).
fn kernel_entries(s: &Scenario) -> Vec<Option<&spikelab_scenario::KernelEntry>> {
    s.file()
        .flow
        .iter()
        .flat_map(|e| std::iter::repeat_n(e.kernel.as_ref(), e.count as usize))
        .collect()
}

/// The engine's CBR spacing: one datagram's wire time (payload plus 28 bytes of
/// IPv4/UDP header) at the flow's rate.
fn cbr_interval(payload: u32, rate: spikelab_core::BitRate) -> spikelab_core::Dur {
    spikelab_core::Dur::transmission(payload as u64 + 28, rate.0)
}

/// The first thing in `s` the emulator cannot do, as a file path and a reason.
fn unsupported(s: &Scenario) -> Option<(FieldPath, String)> {
    let file = s.file();
    for (i, m) in file.middlebox.iter().enumerate() {
        if let MiddleboxConfig::DelayInjection(c) = &m.config {
            if c.select == Selection::Oracle {
                let at = FieldPath::root("middlebox")
                    .index(i)
                    .key("config")
                    .key("select");
                return Some((at, "`oracle` needs to know which segment the sender times, which a box on real packets cannot; use `every-nth` or `probability`".into()));
            }
        }
    }
    if let Some(i) = file.flow.iter().position(|e| e.kind == FlowKindName::Quic) {
        let at = FieldPath::root("flow").index(i).key("kind");
        return Some((
            at,
            "the emulator runs kernel TCP sockets; a QUIC flow runs in `spikelab run`".into(),
        ));
    }
    if let Some(at) = controller_without_kernel(s) {
        return Some(at);
    }
    if let Some(at) = replayed_draws(s) {
        return Some(at);
    }
    if s.sim().flows.len() > 250 * 250 {
        return Some((
            FieldPath::root("flow"),
            "more flows than the emulator has addresses for".into(),
        ));
    }
    None
}

/// The first TCP flow whose congestion controller no kernel here runs (its
/// `Exports::kernel` is `Nothing`, e.g. BBRv3), located at its
/// `tcp.linux.tcp_congestion_control`.
fn controller_without_kernel(s: &Scenario) -> Option<(FieldPath, String)> {
    let entries = s.file().flow.iter().enumerate();
    let owner = entries.flat_map(|(i, e)| std::iter::repeat_n(i, e.count as usize));
    for (f, i) in s.sim().flows.iter().zip(owner) {
        let FlowKind::Tcp { tcp, .. } = &f.kind else {
            continue;
        };
        let cc = spikelab_tcp::stacks::congestion_controller(tcp);
        if let Kernel::Nothing(why) = cc.kernel() {
            let at = FieldPath::root("flow").index(i).key("tcp").key("linux");
            let at = at.key("tcp_congestion_control");
            return Some((at, format!("`{}`: {why}", cc.name())));
        }
    }
    None
}

/// The first flow entry that replays a kernel's BBR draws (`bbr_cycle_draws`): the
/// kernel draws its own.
fn replayed_draws(s: &Scenario) -> Option<(FieldPath, String)> {
    let i = s.file().flow.iter().position(|e| {
        (e.tcp.as_ref().and_then(|t| t.linux.as_ref())).is_some_and(|l| l.bbr_cycle_draws.is_some())
    })?;
    let at = FieldPath::root("flow").index(i).key("tcp").key("linux");
    let why = "replays a recorded kernel run's BBR draws in the model; the kernel draws its own";
    Some((at.key("bbr_cycle_draws"), why.into()))
}

fn locate(s: &Scenario, path: FieldPath, why: String) -> ScenarioError {
    let file = s.source().display().to_string();
    let text = std::fs::read_to_string(s.source()).unwrap_or_default();
    match toml_edit::ImDocument::parse(text.as_str()) {
        Ok(doc) => Locator::new(&file, &text, Some(&doc)).locate(Invalid::new(path, why)),
        Err(_) => Locator::new(&file, &text, None).locate(Invalid::new(path, why)),
    }
}

/// When flow `i` starts: the engine's draw (`flow-start` stream) for an interval.
fn start_of(start: StartTime, i: usize, streams: &RngStreams) -> Duration {
    let ns = match start {
        StartTime::At(d) => d.0,
        StartTime::Uniform { min, max } => {
            let mut rng = streams.stream("flow-start", i as u64);
            rng.random_range(min.0..max.0.max(min.0 + 1))
        }
    };
    Duration::from_nanos(ns)
}

/// Runs repetition `rep` with `seed`; pcaps (if planned) go under `dir/pcap`.
pub fn run_rep(plan: &Plan, rep: u32, seed: u64, dir: &Path) -> Result<RepReport, EmuError> {
    sys::install_stop_handler();
    let prefix = plan.prefix.clone().unwrap_or_else(sandbox::fresh_prefix);
    let mut sb = Sandbox::new(&prefix);
    let result = run_in(&mut sb, plan, rep, seed, dir);
    sb.cleanup();
    result
}

fn run_in(
    sb: &mut Sandbox,
    plan: &Plan,
    rep: u32,
    seed: u64,
    dir: &Path,
) -> Result<RepReport, EmuError> {
    let mut hosts: Vec<FlowHost> = Vec::new();
    for (i, k) in plan.kernel.iter().enumerate() {
        check_stop()?;
        hosts.push(host::setup_flow(sb, i, k)?);
    }
    let mut sockets = Vec::new();
    for ((h, k), app) in hosts.iter().zip(&plan.kernel).zip(&plan.apps) {
        sockets.push(host::sockets_in(&h.sender_ns, &h.receiver_ns, app, k)?);
    }
    let streams = RngStreams::new(seed);
    let fds: Vec<FlowFds> = hosts
        .iter()
        .map(|h| FlowFds {
            sender: h.sender_tun.as_raw_fd(),
            receiver: h.receiver_tun.as_raw_fd(),
        })
        .collect();
    // Time zero on a jiffy the model's timer wheel would also start from; the 20 ms
    // lead lets every application thread reach its start first.
    let (origin, jiffies_aligned) = jiffies::origin(Duration::from_millis(20));
    let starts: Vec<Duration> = (0..plan.sim.flows.len())
        .map(|i| start_of(plan.sim.flows[i].start, i, &streams))
        .collect();
    let mut endpoints = Vec::new();
    for (i, (s, h)) in sockets.into_iter().zip(&hosts).enumerate() {
        let p = FlowPlan {
            sender_ns: h.sender_ns.clone(),
            receiver_addr: h.receiver_addr,
            start: starts[i],
            app: plan.apps[i],
            tcp_info_series: plan.tcp_info,
        };
        endpoints.push(Endpoints::start(p, s, origin));
    }
    // As the engine: the run ends when every TCP flow completed (CBR never does).
    let done: Vec<_> = endpoints
        .iter()
        .zip(&plan.apps)
        .filter(|(_, a)| a.is_tcp())
        .map(|(e, _)| e.done.clone())
        .collect();
    let (sim, mss, pcap) = (plan.sim.clone(), plan.mss.clone(), plan.pcap);
    let record = plan.record_transits;
    let start_times: Vec<Time> = starts.iter().map(|d| Time(d.as_nanos() as u64)).collect();
    let receivers: Vec<_> = endpoints.iter().map(Endpoints::receiving_app).collect();
    let writers: Vec<_> = endpoints.iter().map(Endpoints::first_write).collect();
    let stop_at = Time::ZERO + plan.sim.stop_at;
    let fwd = std::thread::spawn(move || {
        let fifo = sys::make_timely();
        let mut fw = Forwarder::new(&sim, seed, origin, &fds, mss, pcap);
        if record {
            fw.record_transits();
        }
        fw.watch_receivers(receivers);
        fw.watch_writers(writers);
        fw.start_at(&start_times);
        let r = forward_loop(&mut fw, &fds, &done, stop_at);
        (fw, fifo, r)
    });
    let joined = fwd.join();
    let Ok((mut fw, fifo, loop_result)) = joined else {
        endpoints.into_iter().for_each(Endpoints::stop);
        return Err(anyhow!("the forwarder panicked").into());
    };
    let end = fw.now();
    wait_for_readers(&endpoints, &plan.bytes);
    let received: Vec<u64> = endpoints
        .iter()
        .map(|e| *e.received.lock().unwrap())
        .collect();
    let reports: Vec<_> = endpoints.iter().map(|e| e.report.clone()).collect();
    for e in endpoints {
        e.stop();
    }
    loop_result?;
    let receiver_counters: Vec<_> = hosts
        .iter()
        .map(|h| host::counters_in(&h.receiver_ns))
        .collect();
    let mut out = RepReport {
        rep,
        seed,
        end_s: end.as_secs_f64(),
        links: fw.link_results(),
        lateness: Lateness::of(&fw.lateness_ns),
        box_counts: fw.box_counts.clone(),
        packets_ignored: fw.ignored,
        write_errors: fw.write_errors,
        clamp_resets: fw.clamp_resets,
        accept_waits: fw.accept_waits,
        read_waits: fw.read_waits,
        read_wait_timeouts: fw.read_wait_timeouts,
        responses_at_delivery: fw.responses,
        jiffies_aligned,
        write_waits: fw.write_waits,
        raw_peak: fw.raw_peak,
        sched_fifo: fifo,
        prefix: sb.prefix().to_owned(),
        ..RepReport::default()
    };
    for (i, h) in hosts.iter().enumerate() {
        let sender = reports[i].lock().unwrap().clone();
        let start = Time(starts[i].as_nanos() as u64);
        let inputs = FlowInputs {
            name: &plan.flow_names[i],
            flow: i as u32,
            start,
            bytes: plan.bytes[i],
            mss: plan.mss[i],
            min_segments: plan.apps[i].min_segments(plan.mss[i]),
            counts: fw.flow_counts(i),
            sender: &sender,
            settings: &plan.kernel[i],
        };
        let (r, t, unmatched) = match plan.apps[i] {
            App::Cbr { .. } => (report::cbr_result(&inputs), Vec::new(), 0),
            _ => report::flow_result(&inputs),
        };
        out.flows.push(r);
        out.timeouts.extend(t);
        out.kernel.push(FlowKernel {
            flow: plan.flow_names[i].clone(),
            settings: Some(plan.kernel[i].clone()),
            sysctls: h.sysctls.clone(),
            congestion: sender.congestion.clone(),
            final_info: sender.final_info,
            sender_counters: sender.counters.clone(),
            receiver_counters: receiver_counters[i].clone(),
            bytes_received: received[i],
            timeouts_unmatched: unmatched,
            error: sender.error.clone(),
        });
        out.transits.push(fw.take_transits(i));
        if let Some((s, r)) = fw.take_captures(i) {
            outputs::write_captures(dir, rep, &plan.flow_names[i], &s, &r)?;
        }
        if plan.tcp_info && plan.apps[i].is_tcp() {
            let (s, r) = (&sender.series, &sender.receiver_series);
            outputs::write_tcp_info(dir, rep, &plan.flow_names[i], s, r)?;
        }
    }
    out.timeouts.sort_by_key(|t| (t.time, t.flow));
    drop(hosts);
    Ok(out)
}

/// Gives each completed flow's reader up to a second to drain its socket (the kernel
/// has acknowledged everything; the application may not have read it all yet).
fn wait_for_readers(endpoints: &[Endpoints], bytes: &[u64]) {
    let t0 = Instant::now();
    for (e, &want) in endpoints.iter().zip(bytes) {
        if !e.done.load(std::sync::atomic::Ordering::SeqCst) {
            continue;
        }
        while *e.received.lock().unwrap() < want && t0.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

fn check_stop() -> Result<(), EmuError> {
    if sys::stop_requested() {
        return Err(EmuError::Interrupted);
    }
    Ok(())
}

/// Runs the forwarder until every flow completed, the stop time, or a signal.
fn forward_loop(
    fw: &mut Forwarder,
    fds: &[FlowFds],
    done: &[std::sync::Arc<std::sync::atomic::AtomicBool>],
    stop_at: Time,
) -> Result<(), EmuError> {
    let all: Vec<(usize, Side, i32)> = fds
        .iter()
        .enumerate()
        .flat_map(|(i, f)| [(i, Side::Sender, f.sender), (i, Side::Receiver, f.receiver)])
        .collect();
    let raw_fds: Vec<i32> = all.iter().map(|a| a.2).collect();
    let mut ready = Vec::new();
    let mut buf = vec![0u8; 65_536];
    loop {
        check_stop()?;
        let now = fw.now();
        let all_done = !done.is_empty()
            && done
                .iter()
                .all(|d| d.load(std::sync::atomic::Ordering::SeqCst));
        if now >= stop_at || all_done {
            return Ok(());
        }
        fw.run_due(now);
        let wait = fw
            .next_due()
            .map_or(Duration::from_millis(10), |t| {
                Duration::from_nanos(t.0.saturating_sub(fw.now().0))
            })
            .min(Duration::from_millis(10));
        sys::wait_readable(&raw_fds, wait, &mut ready).map_err(anyhow::Error::from)?;
        for &k in &ready {
            let (f, side, fd) = all[k];
            while let Some(n) = sys::read_packet(fd, &mut buf).map_err(anyhow::Error::from)? {
                let at = fw.now();
                fw.on_read(f, side, &buf[..n], at);
            }
        }
    }
}
