//! The emulator end to end: real kernel TCP in namespaces through the forwarder.
//!
//! These need root and /dev/net/tun. Without them each test prints a loud SKIPPED line
//! and returns, except under CI (`CI` set), where the machine is root with TUN and a
//! skip would hide a regression: there they fail instead. They run one at a time (real
//! time: parallel runs would compete for the CPU) and take about a minute in all.

use spikelab_core::{FlowId, Packet, PacketKind, RngStreams, Time};
use spikelab_emulate::forwarder::Transits;
use spikelab_emulate::report::RepReport;
use spikelab_emulate::{plan, run_rep, sandbox, EmuError, Plan};
use spikelab_net::streams::link_dir_rng;
use spikelab_net::{Dir, LinkDir};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn skipped(test: &str) -> bool {
    if spikelab_emulate::can_emulate() {
        return false;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: CI runs as root with /dev/net/tun, so the emulator tests must run there"
    );
    eprintln!("SKIPPED: {test}: needs root and /dev/net/tun (spikelab emulate)");
    true
}

fn plan_of(toml: &str, sysctls: &[(&str, &str)]) -> Plan {
    try_plan(toml, sysctls).unwrap()
}

/// The emulation plan of a scenario text, or why `plan` refuses it.
fn try_plan(toml: &str, sysctls: &[(&str, &str)]) -> Result<Plan, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, toml).unwrap();
    let s = spikelab_scenario::load(&path).unwrap();
    let over: BTreeMap<String, String> = sysctls
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    plan(&s, &over, None).map_err(|e| e.to_string())
}

fn run(p: &Plan) -> RepReport {
    let dir = tempfile::tempdir().unwrap();
    let r = run_rep(p, 0, 1, dir.path()).unwrap();
    eprintln!(
        "lateness p50 {:.3} ms p99 {:.3} ms max {:.3} ms over {} packets (SCHED_FIFO {})",
        r.lateness.p50_ms, r.lateness.p99_ms, r.lateness.max_ms, r.lateness.packets, r.sched_fifo
    );
    r
}

/// [Gurtov & Ludwig 2003]'s Table 1 path: 2 Mbit/s, 150 ms, 75-packet drop-tail, MSS 1000,
/// window 150 kB, Reno-SACK with timestamps; `extra` adds spikes to the bottleneck.
fn eifel_path(bytes: &str, extra: &str) -> String {
    format!(
        r#"
[run]
name = "eifel-path"
stop = "60s"
[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "100Mbit/s", latency = "1ms" }}
[topology.bottleneck]
rate = "2Mbit/s"
latency = "150ms"
queue = {{ kind = "drop-tail", limit = {{ packets = 74 }} }}
{extra}
[[flow]]
name = "tcp"
route = "pair"
tcp = {{ timestamps = true, mss = 1000, receiver_window = 150000, recovery = "reno-sack" }}
workload = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    )
}

#[test]
fn five_megabytes_on_the_eifel_path_take_the_time_the_link_allows() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("five_megabytes_on_the_eifel_path") {
        return;
    }
    let r = run(&plan_of(&eifel_path("5MB", ""), &[]));
    let f = &r.flows[0];
    // 5000 segments of 1000 payload + 52 header bytes (IPv4, TCP, timestamps) at 2 Mbit/s.
    let link_time = 5000.0 * 1052.0 * 8.0 / 2e6;
    let t = f.download_time().expect("the transfer completes");
    eprintln!("5 MB in {t:.2} s; the link alone needs {link_time:.2} s");
    assert!(t >= link_time * 0.99, "faster than the link: {t} s");
    assert!(
        t <= link_time * 1.25,
        "{t} s is far above the link's {link_time} s"
    );
    assert_eq!(r.kernel[0].bytes_received, 5_000_000);
    assert!(f.delivered >= 5000);
    // Every data segment and (delayed) ACK written out has a lateness sample.
    assert!(r.lateness.packets > 7_000, "{} samples", r.lateness.packets);
}

/// `--tcp-info` keeps the receiver's side of TCP_INFO too: its delayed-ACK timeout
/// from `TCP_ATO_MIN` (40 ms at HZ 250, never below it: `tcp_event_data_recv` halves
/// toward at least that) once data arrives, the MSS it measured, and the bytes
/// received in order, which reach the transfer by the time the sender sees them all
/// acknowledged.
#[test]
fn the_receivers_tcp_info_series_shows_its_ack_clock() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_receivers_tcp_info_series_shows_its_ack_clock") {
        return;
    }
    let mut p = plan_of(&eifel_path("200kB", ""), &[]);
    p.tcp_info = true;
    let dir = tempfile::tempdir().unwrap();
    run_rep(&p, 0, 1, dir.path()).unwrap();
    let path = dir.path().join("tcp_info/rep0-tcp-receiver.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(spikelab_emulate::kernel::ReceiverInfo::SERIES_HEADER)
    );
    let rows: Vec<Vec<f64>> = (lines.map(|l| l.split(',').map(|v| v.parse().unwrap())))
        .map(Iterator::collect)
        .collect();
    // Before the first segment the accepted socket's ato is 0 (no ACK engine yet).
    let rows: Vec<&Vec<f64>> = rows.iter().filter(|r| r[6] > 0.0).collect();
    assert!(rows.len() > 2, "{} changes", rows.len());
    assert_eq!(rows[0][1], 40.0, "ato starts at TCP_ATO_MIN");
    assert!(rows.iter().all(|r| r[1] >= 40.0), "ato below 40 ms");
    let last = rows.last().unwrap();
    assert_eq!(
        (last[2], last[6]),
        (1000.0, 200_000.0),
        "rcv_mss, bytes received"
    );
}

/// The scenario's receive window bounds the real receiver: with a 30 kB window on the
/// 2 Mbit/s, 304 ms path (BDP 76 kB), 1 MB needs about 33 window-limited round trips
/// (10.1 s), where slow start and the link alone would carry it in about 5 s. Without the clamp held on the
/// accepted socket, Linux widens the window to its buffer's size once data flows and
/// the transfer is link-limited.
#[test]
fn the_scenarios_receive_window_bounds_the_kernel_receiver() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_scenarios_receive_window_bounds_the_kernel_receiver") {
        return;
    }
    let toml = eifel_path("1MB", "").replace("receiver_window = 150000", "receiver_window = 30000");
    let r = run(&plan_of(&toml, &[]));
    let t = r.flows[0].download_time().expect("the transfer completes");
    let window_limited = 1_000_000.0 / 30_000.0 * 0.304;
    eprintln!("1 MB through a 30 kB window in {t:.2} s; window-limited {window_limited:.2} s");
    assert!(
        t >= 0.9 * window_limited,
        "{t} s: faster than a 30 kB window allows ({window_limited} s)"
    );
}

/// Calls `f` with the IPv4 and TCP headers and the payload length of every packet in a
/// pcap the emulator wrote (LINKTYPE_RAW, IPv4, TCP), in order.
fn each_tcp_packet(
    pcap: &std::path::Path,
    mut f: impl FnMut(&etherparse::TcpHeaderSlice<'_>, u32),
) {
    each_tcp_packet_at(pcap, |_, tcp, payload| f(tcp, payload));
}

/// [`each_tcp_packet`] with each packet's capture time, as the file's two time fields
/// hold it (seconds, and the fraction in the unit the file's magic number names).
fn each_tcp_packet_at(
    pcap: &std::path::Path,
    mut f: impl FnMut(u64, &etherparse::TcpHeaderSlice<'_>, u32),
) {
    use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice};
    let bytes = std::fs::read(pcap).unwrap();
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let nanos = word(0) == 0xa1b2_3c4d;
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let (sec, frac) = (word(at) as u64, word(at + 4) as u64);
        let time = sec * 1_000_000_000 + if nanos { frac } else { frac * 1000 };
        let len = word(at + 8) as usize;
        let pkt = &bytes[at + 16..at + 16 + len];
        at += 16 + len;
        let ip = Ipv4HeaderSlice::from_slice(pkt).unwrap();
        let tcp = TcpHeaderSlice::from_slice(&pkt[ip.slice().len()..]).unwrap();
        let payload = ip.total_len() as usize - ip.slice().len() - tcp.slice().len();
        f(time, &tcp, payload as u32);
    }
}

/// The windows (scaled, bytes) of the receiver's segments in a pcap the emulator
/// wrote: the SYN-ACK's unscaled, every later one shifted by the SYN-ACK's window
/// scale.
fn receiver_windows(pcap: &std::path::Path) -> Vec<u64> {
    use etherparse::TcpOptionElement;
    let (mut sender_port, mut shift, mut out) = (None, 0, Vec::new());
    each_tcp_packet(pcap, |tcp, _| {
        if tcp.syn() && !tcp.ack() {
            sender_port = Some(tcp.source_port());
            return;
        }
        if Some(tcp.source_port()) == sender_port {
            return;
        }
        if tcp.syn() {
            for o in tcp.options_iterator().flatten() {
                if let TcpOptionElement::WindowScale(w) = o {
                    shift = w;
                }
            }
            out.push(tcp.window_size() as u64);
        } else {
            out.push((tcp.window_size() as u64) << shift);
        }
    });
    out
}

/// The payload sizes of the sender's first transmissions in a pcap the emulator wrote.
fn sender_payloads(pcap: &std::path::Path) -> Vec<u64> {
    let (mut sender_port, mut high, mut out) = (None, 0u32, Vec::new());
    each_tcp_packet(pcap, |tcp, payload| {
        if tcp.syn() && !tcp.ack() {
            sender_port = Some(tcp.source_port());
        }
        let end = tcp.sequence_number().wrapping_add(payload);
        let new = high == 0 || end.wrapping_sub(high) as i32 > 0;
        if Some(tcp.source_port()) == sender_port && payload > 0 && new {
            high = end;
            out.push(payload as u64);
        }
    });
    out
}

/// The real-path scenario `scenarios/paths/att-lte-drive.toml` with its download at
/// `offset` s of the drive: both traces shifted there (as scripts/record_kernel_paths.py
/// records them), written into `dir`.
fn att_lte_at(dir: &std::path::Path, offset: u64) -> String {
    let traces = ["ATT-LTE-driving.down", "ATT-LTE-driving.up"];
    drive_at(dir, "att-lte-drive", &traces, "690s", offset)
}

/// [`att_lte_at`] for the library's path `name`, whose traces are `traces/<trace>` for
/// each of `traces` and whose download starts uniformly in [0, `max_start`].
fn drive_at(
    dir: &std::path::Path,
    name: &str,
    traces: &[&str],
    max_start: &str,
    offset: u64,
) -> String {
    let paths = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/paths");
    let mut text = std::fs::read_to_string(paths.join(format!("{name}.toml"))).unwrap();
    for name in traces {
        let trace = std::fs::read_to_string(paths.join("traces").join(name)).unwrap();
        let ms = offset * 1000;
        let shifted: Vec<String> = (trace.split_whitespace())
            .map(|t| t.parse::<u64>().unwrap())
            .filter(|&t| t >= ms)
            .map(|t| (t - ms).to_string())
            .collect();
        let file = dir.join(name);
        std::fs::write(&file, shifted.join("\n") + "\n").unwrap();
        text = text.replace(
            &format!("traces/{name}\""),
            &format!("{}\"", file.display()),
        );
    }
    let start = format!("start = {{ min = \"0s\", max = \"{max_start}\" }}");
    assert_eq!(text.matches(&start).count(), 1, "{name}: {start}");
    text.replace(&start, "start = \"0s\"")
}

/// A bulk transfer's bytes are all there at its start, as in the model: the sending
/// application never waits for send-buffer room, so every segment is a whole one but
/// the last and those cut at the receive window's edge (262144 = 181 x 1448 + 56). With
/// the kernel's own buffer (46080 B after the handshake) the first 64 KiB write
/// blocked after its first 65160-byte skb, and its 376-byte tail left alone (or not,
/// as autocorking raced the forwarder): the real path at 104 s, recorded so.
#[test]
fn a_bulk_senders_segments_are_whole_ones_but_the_last_and_the_window_edges() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("a_bulk_senders_segments_are_whole_ones_but_the_last") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan_of(&att_lte_at(dir.path(), 104), &[]);
    p.pcap = true;
    let r = run_rep(&p, 0, 1, dir.path()).unwrap();
    assert!(r.flows[0].completed.is_some());
    let sizes = sender_payloads(&dir.path().join("pcap/rep0-download-sender.pcap"));
    assert_eq!(sizes.iter().sum::<u64>(), 4_000_000);
    let odd: Vec<u64> = sizes[..sizes.len() - 1]
        .iter()
        .copied()
        .filter(|&s| s != 1448 && s != 56)
        .collect();
    assert!(odd.is_empty(), "segments of neither 1448 nor 56 B: {odd:?}");
}

/// What the kernel sends while it processes a delivery enters the path at the
/// delivery's model time, as a model host answers at the instant a packet reaches it
/// (`Forwarder::take_responses`), and the SYN at the flow's start. Read later with the
/// host's clock, no data segment of this download shared its ACK's time (the SYN came
/// 1.2 ms after the start), and the CPU's time per packet decided which packet of a
/// burst the 50-packet LAN queue dropped: 86 retransmissions against the model's 57.
#[test]
fn the_kernels_answer_to_an_ack_enters_the_path_at_the_acks_time() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_kernels_answer_to_an_ack_enters_the_path_at_the_acks_time") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan_of(&att_lte_at(dir.path(), 172), &[]);
    p.pcap = true;
    let r = run_rep(&p, 0, 1, dir.path()).unwrap();
    assert!(r.flows[0].completed.is_some());
    let (mut first, mut last_ack, mut data, mut same) = (None, None, 0u32, 0u32);
    each_tcp_packet_at(
        &dir.path().join("pcap/rep0-download-sender.pcap"),
        |time, tcp, payload| {
            first.get_or_insert((time, tcp.syn()));
            if payload == 0 {
                last_ack = Some(time);
                return;
            }
            data += 1;
            same += u32::from(last_ack == Some(time));
        },
    );
    eprintln!("{same} of {data} data segments at their ACK's time; first packet {first:?}");
    assert_eq!(first, Some((0, true)), "the SYN leaves at the flow's start");
    assert!(
        f64::from(same) >= 0.95 * f64::from(data),
        "{same} of {data} data segments at the time of the ACK before them"
    );
}

/// The forwarder sees the kernel's segments in the kernel's order: its count of
/// retransmitted segments (bytes below the highest sent) is the kernel's own
/// `Tcp.RetransSegs`. BBR on the T-Mobile LTE drive at 135 s sends from its pacing
/// timer between ACKs; when the loop held a paced segment it had read while it wrote
/// the deliveries due before it, the answers to those deliveries went in first, and
/// the forwarder counted 117-119 retransmissions against the kernel's 52-54.
#[test]
fn the_forwarder_counts_the_retransmissions_the_kernel_counts() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_forwarder_counts_the_retransmissions_the_kernel_counts") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = drive_at(
        dir.path(),
        "tmobile-lte-drive",
        &["TMobile-LTE-driving.down"],
        "385s",
        135,
    );
    let text = text.replace("linux = {", "linux = { tcp_congestion_control = \"bbr\",");
    let r = run(&plan_of(&text, &[]));
    let f = &r.flows[0];
    assert!(f.completed.is_some());
    let kernel = r.kernel[0].sender_counters.get("Tcp.RetransSegs").copied();
    eprintln!(
        "forwarder {} retransmitted segments, kernel {kernel:?}",
        f.retransmissions
    );
    assert!(kernel.is_some_and(|k| k > 0), "the path loses segments");
    assert_eq!(Some(f.retransmissions), kernel);
}

/// A path whose cell delivers five segments at once every 5 ms (a Mahimahi trace with
/// five opportunities per line's millisecond, as cellular traces have), so that the
/// forwarder writes segments into the receiver back to back; 150 kB window, MSS 1000.
fn bursty_path(dir: &std::path::Path) -> String {
    let trace = dir.join("bursts.down");
    let lines: Vec<String> = (1..=5000u32)
        .map(|k| (5 * k.div_ceil(5)).to_string())
        .collect();
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    format!(
        r#"
[run]
name = "bursts"
stop = "60s"
[[link]]
name = "lan"
rate = "100Mbit/s"
latency = "1ms"
[[link]]
name = "cell"
rate = "100Mbit/s"
latency = "40ms"
queue = {{ kind = "drop-tail", limit = {{ packets = 100 }} }}
forward = {{ service = {{ kind = "mahimahi", trace = "{}", opportunity_bytes = 1500 }} }}
[[flow]]
name = "tcp"
route = ["lan", "cell"]
tcp = {{ timestamps = true, mss = 1000, receiver_window = 150000, recovery = "reno-sack" }}
workload = {{ kind = "bulk", bytes = "300KB" }}
"#,
        trace.display()
    )
}

/// Linux 6.7+ replaces TCP_WINDOW_CLAMP once data flows (`tcp_measure_rcv_mss`:
/// `tcp_win_from_space(sk_rcvbuf)`), and the forwarder sets it again right after
/// the delivery that made the kernel replace it, so the wider clamp acts on that one
/// segment: its ACK offers 150000 + 2 x 1000 B (one `tcp_grow_window` step) and the
/// next keeps that right edge (151000 B); every later ACK is within the clamp. With
/// the receiving application left to set it again (on its next read), a busy machine
/// let the kernel offer more on 2 to 27 ACKs (the real paths' pcaps), each growth step
/// one more quick ACK; here, without it, 17 ACKs offered more (152 to 164 kB). Three
/// spinning threads keep both cores busy.
#[test]
fn the_replaced_receive_window_acts_on_one_segment_even_on_a_busy_machine() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_replaced_receive_window_acts_on_one_segment") {
        return;
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spinners: Vec<_> = (0..3)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan_of(&bursty_path(dir.path()), &[]);
    p.pcap = true;
    let r = run_rep(&p, 0, 1, dir.path()).unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    spinners.into_iter().for_each(|t| t.join().unwrap());
    let windows = receiver_windows(&dir.path().join("pcap/rep0-tcp-sender.pcap"));
    let above: Vec<u64> = windows.iter().copied().filter(|&w| w > 150_000).collect();
    eprintln!(
        "clamp set again {} times; windows above the clamp {above:?}",
        r.clamp_resets
    );
    assert!(r.flows[0].completed.is_some());
    assert_eq!(r.clamp_resets, 1, "the kernel replaces the clamp once");
    assert_eq!(above, [152_000, 151_000], "{windows:?}");
}

/// The in-order, full-sized data segments carrying PSH in a receiver-side pcap the
/// emulator wrote, and whether the receiver acknowledged each one's end exactly (by
/// an ACK of its own, not one covering later segments too). Segments above a hole
/// and those after the first loss are left out.
fn pushed_segments_acked_alone(pcap: &std::path::Path, mss: u32) -> Vec<(u32, bool)> {
    let (mut sender_port, mut next, mut lossless) = (None, None::<u32>, true);
    let (mut pushed, mut acks) = (Vec::new(), std::collections::BTreeSet::new());
    each_tcp_packet(pcap, |tcp, payload| {
        if tcp.syn() {
            if !tcp.ack() {
                sender_port = Some(tcp.source_port());
                next = Some(tcp.sequence_number().wrapping_add(1));
            }
            return;
        }
        if Some(tcp.source_port()) != sender_port {
            acks.insert(tcp.acknowledgment_number());
            return;
        }
        let in_order = next == Some(tcp.sequence_number());
        lossless &= in_order || payload == 0;
        if payload > 0 && in_order {
            let end = tcp.sequence_number().wrapping_add(payload);
            next = Some(end);
            if lossless && tcp.psh() && payload == mss {
                pushed.push(end);
            }
        }
    });
    pushed.into_iter().map(|e| (e, acks.contains(&e))).collect()
}

/// Linux acknowledges a lone full-sized segment carrying PSH from the application's
/// read (`ICSK_ACK_PUSHED`, `__tcp_cleanup_rbuf`), about 50 us after its delivery.
/// The model's application reads each segment the moment it arrives, so each such
/// segment gets an ACK of its own; the forwarder waits for the read before the next
/// write, so the kernel's does too, even when a cellular trace delivers five segments
/// in one millisecond (the sender's two-segment skbs put PSH on every second).
/// Written back to back, the reading thread woke after several and one ACK covered
/// them.
#[test]
fn each_pushed_segment_is_acknowledged_by_the_read_before_the_next_arrives() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("each_pushed_segment_is_acknowledged_by_the_read") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut p = plan_of(&bursty_path(dir.path()), &[]);
    p.pcap = true;
    let r = run_rep(&p, 0, 1, dir.path()).unwrap();
    let pushed = pushed_segments_acked_alone(&dir.path().join("pcap/rep0-tcp-receiver.pcap"), 1000);
    let alone = pushed.iter().filter(|(_, a)| *a).count();
    eprintln!(
        "{} of {} pushed segments ACKed alone; {} read waits, {} timed out",
        alone,
        pushed.len(),
        r.read_waits,
        r.read_wait_timeouts
    );
    assert!(r.flows[0].completed.is_some());
    assert!(
        pushed.len() >= 50,
        "too few PSH segments to tell: {}",
        pushed.len()
    );
    assert_eq!(r.read_wait_timeouts, 0);
    let missed: Vec<u32> = pushed.iter().filter(|(_, a)| !a).map(|(e, _)| *e).collect();
    assert!(
        missed.is_empty(),
        "pushed segments ACKed with later ones: {missed:?}"
    );
}

#[test]
fn a_six_second_freeze_makes_kernel_rtos_that_the_truth_calls_spurious() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("a_six_second_freeze") {
        return;
    }
    let freeze = r#"[[topology.bottleneck.spikes]]
kind = "outage"
dirs = "both"
at = [{ start = "3s", duration = "6s" }]"#;
    let r = run(&plan_of(&eifel_path("1MB", freeze), &[]));
    let f = &r.flows[0];
    let kernel_timeouts = r.kernel[0]
        .sender_counters
        .get("TcpExt.TCPTimeouts")
        .copied();
    eprintln!(
        "timeouts {:?}, kernel TCPTimeouts {kernel_timeouts:?}",
        r.timeouts
    );
    assert!(f.completed.is_some());
    assert!(f.timeouts >= 1, "a 6 s freeze must fire the kernel's timer");
    assert_eq!(
        Some(f.timeouts),
        kernel_timeouts,
        "every kernel RTO has a record"
    );
    for t in &r.timeouts {
        let in_freeze = (3.0..9.2).contains(&t.time.as_secs_f64());
        if in_freeze {
            // The segment is frozen in the forward pipe, or delivered with its ACK
            // frozen in the reverse one: either way the timer fired for nothing.
            assert!(t.truth.is_spurious(), "{t:?}");
        }
    }
    assert!(r.timeouts.iter().any(|t| t.truth.is_spurious()));
    assert!(r
        .timeouts
        .iter()
        .all(|t| t.truth != spikelab_engine::Truth::GenuineAckLost));
    assert!(f.unnecessary_retransmissions >= 1);
}

#[test]
fn the_std_proxy_acts_on_the_kernels_go_back_n_retransmissions() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_std_proxy") {
        return;
    }
    let toml = r#"
[run]
name = "std"
stop = "60s"
[[link]]
name = "wired"
rate = "10Mbit/s"
latency = "20ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
[[link]]
name = "cellular"
rate = "400kbit/s"
latency = "300ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
[[link.spikes]]
kind = "outage"
dirs = "both"
at = [{ start = "3s", duration = "6s" }]
[[middlebox]]
link = "cellular"
config = { kind = "std-proxy" }
[[flow]]
name = "download"
route = ["wired", "cellular"]
tcp = { mss = 1460, receiver_window = 65535, recovery = "reno", timestamps = false }
workload = { kind = "bulk", bytes = "400KB" }
"#;
    let r = run(&plan_of(toml, &[]));
    let b = &r.box_counts;
    eprintln!("proxy decisions: {b:?}; timeouts {:?}", r.timeouts);
    assert!(r.flows[0].completed.is_some());
    assert!(
        b.timeouts_detected >= 1,
        "the proxy saw the kernel's timeout"
    );
    assert!(b.verdicts_spurious >= 1, "and judged it spurious");
    assert!(
        b.buffered + b.discarded >= 1,
        "and absorbed go-back-N retransmissions"
    );
    // Bytes of packets that left the path are forgotten: far fewer held than carried.
    let carried = r.lateness.packets;
    eprintln!(
        "raw bytes of at most {} packets held, {carried} carried",
        r.raw_peak
    );
    // (Kept for the whole run, they would number at least the packets carried.)
    assert!(r.raw_peak < carried as usize * 3 / 4, "{} held", r.raw_peak);
}

#[test]
fn a_delay_injector_delays_the_kernels_segments() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("a_delay_injector") {
        return;
    }
    let toml = r#"
[run]
name = "inject"
stop = "60s"
[[link]]
name = "radio"
rate = "10Mbit/s"
latency = "20ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }
[[middlebox]]
link = "radio"
config = { kind = "delay-injection", method = "ftfd", d0 = "200ms", n = 1, select = "every-nth", select_every = 1 }
[[flow]]
name = "ftp"
route = ["radio"]
tcp = { mss = 1000, receiver_window = 16000, recovery = "reno-sack" }
workload = { kind = "bulk", bytes = "200KB" }
"#;
    let r = run(&plan_of(toml, &[]));
    let srtt_ms = r.kernel[0].final_info.rtt_us as f64 / 1000.0;
    eprintln!("kernel srtt {srtt_ms} ms, box {:?}", r.box_counts);
    assert!(r.flows[0].completed.is_some());
    assert!(r.box_counts.delayed >= 100, "every data segment is delayed");
    // Without the box this path's RTT is at most 40 ms + a 16 kB queue at 10 Mbit/s.
    assert!(srtt_ms >= 200.0, "the kernel measured {srtt_ms} ms");
    assert!(r.raw_peak <= 300, "{} packets' bytes held", r.raw_peak);
}

/// A 1 Mbit/s CBR flow for 3 s across a 2 Mbit/s link: nothing is lost, and the
/// datagrams sent and delivered are the ones the engine counts on the same scenario.
#[test]
fn cbr_over_udp_sends_and_delivers_what_the_simulator_counts() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("cbr_over_udp") {
        return;
    }
    let toml = r#"
[run]
name = "cbr"
stop = "4s"
[[link]]
name = "path"
rate = "2Mbit/s"
latency = "50ms"
queue = { kind = "drop-tail", limit = { packets = 50 } }
[[flow]]
name = "cross"
kind = "cbr"
route = ["path"]
rate = "1Mbit/s"
payload = "1000B"
stop = "3s"
"#;
    let p = plan_of(toml, &[]);
    let sim = spikelab_engine::run(&p.sim, 1).unwrap();
    let r = run(&p);
    let (k, s) = (&r.flows[0], &sim.flows[0]);
    eprintln!(
        "kernel: sent {} delivered {} bytes {}; simulated: sent {} delivered {} bytes {}",
        k.data_segments_sent, k.delivered, k.bytes, s.data_segments_sent, s.delivered, s.bytes
    );
    // 3 s / (1028 B * 8 / 1 Mbit/s) = 364.8 -> 365 datagrams in the engine.
    assert_eq!(s.data_segments_sent, 365);
    assert!(
        k.data_segments_sent.abs_diff(s.data_segments_sent) <= 1,
        "the kernel's source keeps the engine's spacing"
    );
    assert_eq!(
        k.delivered, k.data_segments_sent,
        "a 2 Mbit/s link loses none"
    );
    assert_eq!(k.bytes, 1000 * k.data_segments_sent);
    assert_eq!(
        r.kernel[0].bytes_received, k.bytes,
        "the sink read every byte"
    );
    assert!(k.completed.is_none() && r.timeouts.is_empty());
    assert!(r.end_s >= 3.9, "a CBR-only run lasts until its stop time");
}

/// Twenty 1000-byte messages, each written only when the previous one is acknowledged:
/// the transfer takes at least twenty round trips, where a bulk write would take one.
#[test]
fn ping_pong_writes_each_message_after_the_previous_is_acknowledged() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("ping_pong") {
        return;
    }
    let toml = r#"
[run]
name = "pingpong"
stop = "30s"
[[link]]
name = "path"
rate = "10Mbit/s"
latency = "40ms"
queue = { kind = "drop-tail", limit = { packets = 100 } }
[[flow]]
name = "chat"
route = ["path"]
tcp = { mss = 1000, recovery = "reno-sack" }
workload = { kind = "ping-pong", packets = 20, bytes = "1000B" }
"#;
    let p = plan_of(toml, &[]);
    let sim = spikelab_engine::run(&p.sim, 1).unwrap();
    let r = run(&p);
    let (k, s) = (&r.flows[0], &sim.flows[0]);
    let t = k.download_time().expect("the exchange completes");
    let ts = s.download_time().unwrap();
    eprintln!(
        "kernel {t:.3} s, {} segments; simulated {ts:.3} s, {} segments",
        k.data_segments_sent, s.data_segments_sent
    );
    assert_eq!(r.kernel[0].bytes_received, 20_000);
    assert_eq!((k.bytes, k.min_segments), (20_000, 20));
    assert_eq!(k.min_segments, s.min_segments);
    assert!(k.data_segments_sent >= 20 && k.delivered >= 20);
    // Handshake plus twenty message round trips of at least 80 ms each.
    assert!(
        t >= 21.0 * 0.080,
        "{t} s: the messages did not wait for their ACKs"
    );
    assert!(t <= 20.0 * 0.5, "{t} s is far above twenty round trips");
}

/// A flow's `[flow.kernel]` table reaches its socket and both namespaces, per flow:
/// the second flow keeps the defaults.
#[test]
fn the_flows_kernel_table_sets_its_module_and_sysctls_per_flow() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("the_flows_kernel_table") {
        return;
    }
    let toml = r#"
[run]
name = "kernel"
stop = "30s"
[[link]]
name = "path"
rate = "20Mbit/s"
latency = "10ms"
queue = { kind = "drop-tail", limit = { packets = 100 } }
[[flow]]
name = "tuned"
route = ["path"]
workload = { kind = "bulk", bytes = "200KB" }
kernel = { congestion = "cubic", rcvbuf = "300KB", tcp_recovery = 0, tcp_early_retrans = 0 }
[[flow]]
name = "plain"
route = ["path"]
workload = { kind = "bulk", bytes = "200KB" }
"#;
    let p = plan_of(toml, &[("tcp_sack", "0")]);
    assert_eq!(p.kernel[0].rcvbuf, 300_000);
    let r = run(&p);
    let (tuned, plain) = (&r.kernel[0], &r.kernel[1]);
    assert!(r.flows.iter().all(|f| f.completed.is_some()));
    assert_eq!(tuned.congestion, "cubic");
    assert_eq!(plain.congestion, "reno");
    assert_eq!(tuned.sysctls["tcp_recovery"], "0");
    assert_eq!(tuned.sysctls["tcp_early_retrans"], "0");
    assert_ne!(
        plain.sysctls["tcp_recovery"], "0",
        "the kernel's default (RACK) stays"
    );
    // The command line's --sysctl reaches every flow.
    assert!(r.kernel.iter().all(|k| k.sysctls["tcp_sack"] == "0"));
}

/// The simulator's model of link 0's forward direction, fed the arrivals the
/// forwarder recorded: when it releases each packet (uid -> time).
fn replay(p: &Plan, seed: u64, t: &Transits) -> BTreeMap<u64, Time> {
    let streams = RngStreams::new(seed);
    let cfg = p.sim.links[0].dir(Dir::Forward);
    let mut dir = LinkDir::new(&cfg, link_dir_rng(&streams, 0, Dir::Forward));
    let (mut out, mut delivered, mut dropped) = (BTreeMap::new(), Vec::new(), Vec::new());
    let mut until = |dir: &mut LinkDir, limit: Time, out: &mut BTreeMap<u64, Time>| {
        while let Some(w) = dir.next_wakeup().filter(|w| *w <= limit) {
            dir.poll(w, &mut delivered, &mut dropped);
            out.extend(delivered.drain(..).map(|q: Packet| (q.uid, w)));
            dropped.clear();
        }
    };
    for &(uid, bytes, read) in &t.arrivals {
        until(&mut dir, read, &mut out);
        let mut q = Packet::new(uid, FlowId(0), PacketKind::Datagram, read);
        q.len = bytes - 28;
        q.seal_as(bytes);
        dir.enqueue(read, q);
    }
    until(&mut dir, Time(u64::MAX), &mut out);
    out
}

/// Writes `line` to the standard error itself, past the test harness's capture of
/// `eprintln!`, so that it shows in a passing run too.
fn loudly(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// CPU time the host has taken from this (virtual) machine so far, in ticks of 10 ms
/// (`steal` of /proc/stat's `cpu` line); 0 where it is not reported.
fn stolen_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let cpu = stat.lines().find(|l| l.starts_with("cpu ")).unwrap_or("");
    cpu.split_whitespace()
        .nth(8)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Checks that the emulated path of `r` released each datagram exactly when the link
/// model does given the same arrivals; returns the 99th percentile of the writes'
/// lateness after those releases, in ms.
fn released_as_modelled(p: &Plan, r: &RepReport) -> f64 {
    let t = &r.transits[0];
    let model = replay(p, 1, t);
    assert_eq!(
        model.len(),
        t.deliveries.len(),
        "the same packets got through"
    );
    let mut late: Vec<u64> = Vec::new();
    for &(uid, released, written) in &t.deliveries {
        assert_eq!(model.get(&uid), Some(&released), "packet {uid}");
        late.push(written.0 - released.0);
    }
    late.sort_unstable();
    late[late.len() * 99 / 100] as f64 / 1e6
}

/// Runs a 3 s CBR flow across `link` (a `[[link]]` table named "path") and checks,
/// packet by packet, that the emulated path released each datagram exactly when the
/// link model does given the same arrivals, and that the real write followed within
/// the forwarder's lateness; then that the run delivered about what the simulator
/// delivers on the same scenario. Returns (emulated, simulated) deliveries and the
/// longest transit (read to release) in seconds.
fn cbr_through(test: &str, link: &str, rate: &str) -> Option<(u64, u64, f64)> {
    if skipped(test) {
        return None;
    }
    let toml = format!(
        r#"
[run]
name = "trace"
stop = "5s"
{link}
[[flow]]
name = "cross"
kind = "cbr"
route = ["path"]
rate = "{rate}"
payload = "1000B"
stop = "3s"
"#
    );
    let mut p = plan_of(&toml, &[]);
    p.record_transits = true;
    // The release instants must equal the model's on every attempt. The writes'
    // lateness depends on the host as well: a virtual machine whose host takes its CPU
    // away for milliseconds (seen here: 0.4 to 3.4 s of steal time in runs of this
    // test, stalls of up to 23 ms) puts p99 over the bound with about a hundred
    // packets. An attempt over the bound while the host stole CPU time is said loudly
    // and made again, up to three times; over the bound with nothing stolen fails; if
    // the host stole time in all three, the bound goes unchecked, said loudly.
    let mut attempt = 0;
    let (r, p99) = loop {
        attempt += 1;
        let stolen_before = stolen_ticks();
        let r = run(&p);
        let p99 = released_as_modelled(&p, &r);
        let stolen = stolen_ticks().saturating_sub(stolen_before);
        if p99 < 2.0 {
            break (r, p99);
        }
        assert!(
            stolen > 0,
            "{test}: writes p99 {p99:.3} ms after the model's release, over the 2 ms bound, \
             with no CPU time stolen by the host"
        );
        loudly(&format!(
            "LATENESS: {test}: writes p99 {p99:.3} ms after the model's release on attempt \
             {attempt}, over the 2 ms bound, while the host stole {stolen} ticks (10 ms each) of \
             CPU time from this machine"
        ));
        if attempt == 3 {
            loudly(&format!(
                "SKIPPED: {test}: the lateness bound (p99 < 2 ms) is unchecked: the host stole \
                 CPU time during all three attempts (the releases matched the model in each)"
            ));
            break (r, p99);
        }
    };
    let t = &r.transits[0];
    let sim = spikelab_engine::run(&p.sim, 1).unwrap();
    let (k, s) = (&r.flows[0], &sim.flows[0]);
    eprintln!(
        "{test}: {} of {} delivered (simulated {} of {}); writes p99 {p99:.3} ms after the model's release",
        k.delivered, k.data_segments_sent, s.delivered, s.data_segments_sent
    );
    assert_eq!(k.delivered, t.deliveries.len() as u64);
    let read: BTreeMap<u64, Time> = t.arrivals.iter().map(|a| (a.0, a.2)).collect();
    let longest = t
        .deliveries
        .iter()
        .map(|d| (d.1 - read[&d.0]).as_secs_f64())
        .fold(0.0, f64::max);
    Some((k.delivered, s.delivered, longest))
}

#[test]
fn a_delay_trace_delays_real_datagrams_as_the_link_model_does() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("owd.csv");
    std::fs::write(&trace, "0,0ms\n1s,200ms\n2s,0ms\n").unwrap();
    let link = format!(
        "[[link]]\nname = \"path\"\nrate = \"10Mbit/s\"\nlatency = \"20ms\"\ndelay_trace = \"{}\"\n",
        trace.display()
    );
    let Some((emu, sim, longest)) = cbr_through("a_delay_trace", &link, "1Mbit/s") else {
        return;
    };
    assert_eq!(emu, sim, "a lossless path delivers every datagram in both");
    assert!(
        longest >= 0.220,
        "the trace's 200 ms were added: {longest} s"
    );
}

#[test]
fn a_leo_replayer_delay_file_and_a_delivery_trace_on_one_link_act_on_real_datagrams() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // LeoReplayer's format: 20 ms per 10 ms line, 200 ms for [1 s, 2 s).
    let owd: String = (0..300)
        .map(|i| {
            if (100..200).contains(&i) {
                "200\n"
            } else {
                "20\n"
            }
        })
        .collect();
    let delay = dir.path().join("delay_1.txt");
    std::fs::write(&delay, owd).unwrap();
    let down = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/traces/reference.down");
    let link = format!(
        "[[link]]\nname = \"path\"\nrate = \"3Mbit/s\"\nlatency = \"20ms\"\nservice = {{ kind = \"mahimahi\", trace = \"{}\", opportunity_bytes = 1500 }}\nqueue = {{ kind = \"drop-tail\", limit = {{ packets = 1000 }} }}\ndelay_trace = {{ file = \"{}\", format = \"leo-replayer\" }}\n",
        down.display(),
        delay.display()
    );
    let Some((emu, sim, longest)) = cbr_through("a_leo_replayer_delay", &link, "1Mbit/s") else {
        return;
    };
    assert!(emu.abs_diff(sim) <= 2, "{emu} vs {sim}");
    assert!(
        longest >= 0.220,
        "the step's 200 ms were added: {longest} s"
    );
}

#[test]
fn a_mahimahi_trace_serves_real_datagrams_as_the_link_model_does() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/traces/reference.down");
    let link = format!(
        "[[link]]\nname = \"path\"\nrate = \"3Mbit/s\"\nlatency = \"20ms\"\nservice = {{ kind = \"mahimahi\", trace = \"{}\", opportunity_bytes = 1500 }}\nqueue = {{ kind = \"drop-tail\", limit = {{ packets = 1000 }} }}\n",
        trace.display()
    );
    let Some((emu, sim, _)) = cbr_through("a_mahimahi_trace", &link, "2Mbit/s") else {
        return;
    };
    assert!(emu.abs_diff(sim) <= 2, "{emu} vs {sim}");
}

#[test]
fn a_wcdma_bearer_serves_real_datagrams_as_the_link_model_does() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let link = "[[link]]\nname = \"path\"\nrate = \"384kbit/s\"\nlatency = \"50ms\"\nqueue = { kind = \"drop-tail\", limit = { packets = 50 } }\nservice = { kind = \"wcdma\", block_bytes = \"40B\", bler = 0.1, retx_delay = \"100ms\", max_retx = 10 }\n";
    let Some((emu, sim, longest)) = cbr_through("a_wcdma_bearer", link, "300kbit/s") else {
        return;
    };
    // Block losses draw from the link's stream in service order: the same seed and
    // arrivals give the same losses, up to the arrival jitter of the real source.
    assert!(emu.abs_diff(sim) <= 3, "{emu} vs {sim}");
    // 1028 B = 26 blocks at 10 % BLER: some datagram waited for a 100 ms block retry.
    assert!(
        longest >= 0.150,
        "no radio-block retransmission delayed any datagram: {longest} s"
    );
}

#[test]
fn a_bad_key_is_named_and_oracle_selection_is_refused() {
    let toml = r#"
[[link]]
name = "radio"
rate = "10Mbit/s"
latency = "20ms"
[[middlebox]]
link = "radio"
config = { kind = "delay-injection", select = "oracle" }
[[flow]]
name = "ftp"
route = ["radio"]
workload = { kind = "bulk", bytes = "2KB" }
"#;
    let e = try_plan(toml, &[]).unwrap_err();
    assert!(e.contains("middlebox[0].config.select"), "{e}");
    assert!(e.contains(":8:"), "located at the line: {e}");
}

/// One `linux` host on a 10 Mbit/s link with the flow's `linux` table set to `linux`.
fn linux_host(linux: &str) -> String {
    format!(
        r#"
[[link]]
name = "radio"
rate = "10Mbit/s"
latency = "20ms"
[[flow]]
name = "ftp"
route = ["radio"]
profile = "linux"
tcp.linux = {{ {linux} }}
workload = {{ kind = "bulk", bytes = "2KB" }}
"#
    )
}

#[test]
fn bbr3_is_refused_because_no_kernel_here_runs_it() {
    let e = try_plan(&linux_host(r#"tcp_congestion_control = "bbr3""#), &[]).unwrap_err();
    assert!(e.contains("no kernel here runs BBRv3"), "{e}");
    assert!(e.contains("tcp_congestion_control"), "{e}");
}

#[test]
fn replayed_bbr_draws_are_refused_because_the_kernel_draws_its_own() {
    let linux = r#"tcp_congestion_control = "bbr", bbr_cycle_draws = [3]"#;
    let e = try_plan(&linux_host(linux), &[]).unwrap_err();
    assert!(e.contains("flow[0].tcp.linux.bbr_cycle_draws"), "{e}");
    assert!(e.contains("the kernel draws its own"), "{e}");
}

const CHILD: &str = "SPIKELAB_EMULATE_SIGINT_CHILD";

/// Run by `cleanup_after_sigint_leaves_no_namespace` in a child process: a long
/// emulation under the prefix it is given.
#[test]
fn sigint_child() {
    let Ok(prefix) = std::env::var(CHILD) else {
        return;
    };
    let mut p = plan_of(&eifel_path("50MB", ""), &[]);
    p.prefix = Some(prefix);
    let dir = tempfile::tempdir().unwrap();
    match run_rep(&p, 0, 1, dir.path()) {
        Err(EmuError::Interrupted) => std::process::exit(42),
        other => panic!("expected an interruption, got {:?}", other.map(|r| r.end_s)),
    }
}

#[test]
fn cleanup_after_sigint_leaves_no_namespace() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("cleanup_after_sigint") {
        return;
    }
    let prefix = sandbox::fresh_prefix();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "sigint_child", "--nocapture", "--test-threads=1"])
        .env(CHILD, &prefix)
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while sandbox::existing_with_prefix(&prefix).len() < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the child never set up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(30),
            "the child ignored SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(42), "the run ended as interrupted");
    assert_eq!(sandbox::existing_with_prefix(&prefix), Vec::<String>::new());
}

#[test]
fn a_panic_still_removes_the_namespaces() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skipped("a_panic_still_removes_the_namespaces") {
        return;
    }
    let prefix = sandbox::fresh_prefix();
    let inner = prefix.clone();
    let r = std::panic::catch_unwind(move || {
        let mut sb = sandbox::Sandbox::new(&inner);
        sb.add_netns("s0").unwrap();
        assert_eq!(sandbox::existing_with_prefix(&inner).len(), 1);
        panic!("a failure half-way through a run");
    });
    assert!(r.is_err());
    assert_eq!(sandbox::existing_with_prefix(&prefix), Vec::<String>::new());
}
