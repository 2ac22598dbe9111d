//! pcap files read back by tshark.
//!
//! * A small synthetic conversation: handshake, ten data segments of which the third
//!   is lost, duplicate ACKs with SACK, one fast retransmission, and the final
//!   cumulative ACK, as seen at the sender.
//! * A simulated transfer through a delay spike (a spurious timeout), captured at both
//!   ends: valid checksums, real (scaled) windows, a FIN exchange, and Wireshark's
//!   spurious retransmissions at the receiver equal to the simulator's unnecessary
//!   retransmissions.
//!
//! Needs `tshark` (Debian package `tshark`). Without it the test fails under CI (env
//! `CI` set) and prints a loud SKIPPED notice elsewhere.

use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time, Timestamps};
use spikelab_engine::{Endpoint, RunResult};
use spikelab_output::pcap::{create_pcap, records_at, Seen, Vantage};
use std::path::{Path, PathBuf};
use std::process::Command;

const MSS: u64 = 1000;
/// Frame number (1-based) of the one retransmission in [`conversation`].
const RETX_FRAME: usize = 18;

struct Builder {
    uid: u64,
    out: Vec<(Time, Packet)>,
}

impl Builder {
    fn push(&mut self, ms: f64, kind: PacketKind, f: impl FnOnce(&mut Packet)) {
        let t = Time(Dur::from_secs_f64(ms / 1000.0).0);
        let mut p = Packet::new(self.uid, FlowId(0), kind, t);
        p.rwnd = 64_000;
        p.set_ts(Some(Timestamps {
            val: (ms * 10.0) as u64,
            ecr: 7,
        }));
        f(&mut p);
        self.uid += 1;
        self.out.push((t, p));
    }

    fn data(&mut self, ms: f64, seg: u64, retx: bool) {
        self.push(ms, PacketKind::Data, |p| {
            p.seq = seg * MSS;
            p.len = MSS as u32;
            p.retx = retx;
        });
    }

    /// An ACK of `ack` segments, SACKing segments 3..=`sacked_to` (if any).
    fn ack(&mut self, ms: f64, ack: u64, sacked_to: Option<u64>) {
        self.push(ms, PacketKind::Ack, |p| {
            p.ack = ack * MSS;
            if let Some(hi) = sacked_to {
                p.push_sack(3 * MSS, (hi + 1) * MSS);
            }
        });
    }
}

fn conversation() -> Vec<(Time, Packet)> {
    let mut b = Builder {
        uid: 1,
        out: Vec::new(),
    };
    b.push(0.0, PacketKind::Syn, |_| {});
    b.push(100.0, PacketKind::SynAck, |_| {});
    for seg in 0..10 {
        b.data(100.0 + seg as f64, seg, false);
    }
    b.ack(200.0, 1, None);
    b.ack(201.0, 2, None);
    // Segment 2 (the third) was lost: segments 3..=9 each raise a duplicate ACK.
    for seg in 3..=9 {
        b.ack(200.0 + seg as f64, 2, Some(seg));
        if seg == 5 {
            b.data(205.5, 2, true); // fast retransmit after the third duplicate
        }
    }
    b.ack(305.5, 10, None);
    b.out
}

fn write_conversation(path: &Path) -> usize {
    let packets = conversation();
    let mut w = create_pcap(path).unwrap().with_window(64_000);
    for (t, p) in &packets {
        w.write_packet(*t, p).unwrap();
    }
    w.into_inner().unwrap();
    packets.len()
}

fn tshark_available() -> bool {
    let found = Command::new("tshark").arg("--version").output().is_ok();
    if !found && std::env::var_os("CI").is_some() {
        panic!("tshark is not on PATH but CI is set: CI must install tshark (apt-get install -y tshark)");
    }
    if !found {
        eprintln!("\n********************************************************************");
        eprintln!("*** SKIPPED: tshark not found; pcap files were NOT checked.      ***");
        eprintln!("*** Install it: DEBIAN_FRONTEND=noninteractive apt-get install -y tshark");
        eprintln!("********************************************************************\n");
    }
    found
}

/// Runs tshark on `file` with `args`; asserts success and returns the output lines.
fn tshark(file: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(args)
        .output()
        .expect("tshark runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark {args:?} failed: {stderr}");
    for bad in ["error", "corrupt", "damaged", "malformed"] {
        assert!(
            !stderr.to_lowercase().contains(bad),
            "tshark {args:?}: {stderr}"
        );
    }
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn pcap_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn tshark_reads_every_frame_and_counts_exactly_our_retransmission() {
    if !tshark_available() {
        return;
    }
    let file = pcap_path("conversation.pcap");
    let n = write_conversation(&file);
    let frames = tshark(&file, &["-T", "fields", "-e", "frame.number"]);
    assert_eq!(frames.len(), n);
    let retx = tshark(
        &file,
        &[
            "-Y",
            "tcp.analysis.retransmission",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ],
    );
    assert_eq!(retx, vec![RETX_FRAME.to_string()]);
    let malformed = tshark(
        &file,
        &["-Y", "_ws.malformed || _ws.expert.severity == error"],
    );
    assert!(malformed.is_empty(), "{malformed:?}");
}

#[test]
fn tshark_verifies_ip_checksums_and_decodes_sequence_space() {
    if !tshark_available() {
        return;
    }
    let file = pcap_path("conversation_fields.pcap");
    write_conversation(&file);
    let bad = tshark(
        &file,
        &[
            "-o",
            "ip.check_checksum:TRUE",
            "-Y",
            "ip.checksum.status != 1",
        ],
    );
    assert!(bad.is_empty(), "bad IP checksums: {bad:?}");
    let fields = [
        "-T",
        "fields",
        "-E",
        "separator=;",
        "-e",
        "tcp.seq",
        "-e",
        "tcp.len",
        "-e",
        "tcp.options.sack_le",
        "-e",
        "tcp.options.sack_re",
        "-e",
        "tcp.window_size_value",
    ];
    let rows = tshark(&file, &fields);
    // Relative sequence numbers: the SYN is 0, payload byte s is s + 1.
    assert_eq!(rows[0], "0;0;;;64000");
    assert_eq!(rows[RETX_FRAME - 1], "2001;1000;;;64000");
    // The third duplicate ACK SACKs segments 3..=5 relative to the sender's ISN.
    assert_eq!(rows[16], "1;0;3001;6001;64000");
}

/// A 300 KB transfer over 1 Mbit/s, 50 ms, with a buffer that never overflows and a
/// 3 s hiccup at 1 s: the RFC 6298 timer (min 1 s) expires during it, spuriously, and
/// go-back-N resends segments the receiver already has. A 150 000-byte window needs
/// window scaling; timestamps and SACK fill the options.
const HICCUP: &str = r#"
[run]
name = "pcap-hiccup"
stop = "60s"

[[link]]
name = "path"
rate = "1Mbit/s"
latency = "50ms"
queue = { kind = "drop-tail", limit = { packets = 1000 } }

[[link.spikes]]
kind = "hiccup"
at = [{ start = "1s", duration = "3s" }]

[[flow]]
name = "bulk"
route = ["path"]
profile = "modern"
tcp = { mss = 1000, receiver_window = 150000, recovery = "reno-sack", timestamps = true, handshake = true }
workload = { kind = "bulk", bytes = "300KB" }
"#;

fn hiccup_run() -> RunResult {
    let scenario = spikelab_scenario::parse(HICCUP, "hiccup.toml").unwrap();
    let mut sim = scenario.to_sim();
    sim.pcap = true;
    spikelab_engine::run(&sim, 1).unwrap()
}

/// Writes flow 0 of `r` as seen at `at` (payload included if `payload`).
fn write_flow(r: &RunResult, at: Vantage, payload: bool, name: &str) -> PathBuf {
    let seen: Vec<Seen> = r.captures[0]
        .iter()
        .map(|c| Seen {
            time: c.time,
            packet: c.packet,
            at: match c.at {
                Endpoint::Sender => Vantage::Sender,
                Endpoint::Receiver => Vantage::Receiver,
            },
        })
        .collect();
    let path = pcap_path(name);
    let mut w = create_pcap(&path)
        .unwrap()
        .with_mss(1000)
        .with_window(150_000)
        .with_payload(payload);
    for (t, rec) in records_at(&seen, at, r.flows[0].completed) {
        w.write_record(t, &rec).unwrap();
    }
    w.into_inner().unwrap();
    path
}

/// Frames of `file` matching `filter` with checksum validation on.
fn matching(file: &Path, filter: &str) -> Vec<String> {
    tshark(
        file,
        &[
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
            "-Y",
            filter,
            "-T",
            "fields",
            "-e",
            "frame.number",
        ],
    )
}

#[test]
fn receiver_capture_shows_exactly_the_unnecessary_retransmissions_as_spurious() {
    if !tshark_available() {
        return;
    }
    let r = hiccup_run();
    let f = &r.flows[0];
    assert!(f.completed.is_some() && f.spurious_timeouts >= 1, "{f:?}");
    assert!(f.unnecessary_retransmissions >= 1, "{f:?}");
    let receiver = write_flow(&r, Vantage::Receiver, false, "hiccup-receiver.pcap");
    let sender = write_flow(&r, Vantage::Sender, false, "hiccup-sender.pcap");
    let spurious = "tcp.analysis.spurious_retransmission";
    assert_eq!(
        matching(&receiver, spurious).len() as u64,
        f.unnecessary_retransmissions
    );
    // The sender never resends what it has seen acknowledged: nothing to flag there.
    assert_eq!(matching(&sender, spurious), Vec::<String>::new());
    assert!(matching(&sender, "tcp.analysis.retransmission").len() as u64 >= f.retransmissions);
}

#[test]
fn both_captures_have_valid_checksums_real_windows_and_a_fin_exchange() {
    if !tshark_available() {
        return;
    }
    let r = hiccup_run();
    let flows = [
        write_flow(&r, Vantage::Sender, false, "hiccup-s.pcap"),
        write_flow(&r, Vantage::Receiver, false, "hiccup-r.pcap"),
        write_flow(&r, Vantage::Receiver, true, "hiccup-r-payload.pcap"),
    ];
    for file in &flows {
        let all = matching(file, "frame");
        assert!(all.len() > 300, "{}", file.display());
        // Bad checksums, incomplete segments (no payload) whose checksum is not good,
        // zero windows, malformed frames, errors: none.
        let bad = "tcp.checksum.status == 0 || ip.checksum.status == 0 \
                   || (tcp.len == 0 && tcp.checksum.status != 1) || tcp.analysis.zero_window \
                   || _ws.malformed || _ws.expert.severity == error";
        assert_eq!(
            matching(file, bad),
            Vec::<String>::new(),
            "{}",
            file.display()
        );
        // Windows as Wireshark computes them with the SYNs' scale option: the hosts'
        // 150 000 bytes both ways, once the handshake is over.
        let windows = tshark(
            file,
            &[
                "-Y",
                "tcp.flags.syn == 0",
                "-T",
                "fields",
                "-e",
                "tcp.window_size",
            ],
        );
        assert!(windows.iter().all(|w| w == "150000"), "{windows:?}");
        // FIN from each side, the second one acknowledging the first, then the last ACK.
        let fins = tshark(
            file,
            &[
                "-Y",
                "tcp.flags.fin == 1",
                "-T",
                "fields",
                "-e",
                "tcp.srcport",
                "-e",
                "tcp.seq",
                "-e",
                "tcp.ack",
            ],
        );
        assert_eq!(fins, ["10000\t300001\t1", "80\t1\t300002"]);
        let frames = tshark(
            file,
            &[
                "-T",
                "fields",
                "-e",
                "tcp.seq",
                "-e",
                "tcp.ack",
                "-e",
                "tcp.flags.str",
            ],
        );
        let last = frames.last().unwrap();
        assert!(last.starts_with("300002\t2\t"), "not the last ACK: {last}");
    }
    // With the payload written every checksum verifies, data segments' too.
    assert_eq!(
        matching(&flows[2], "tcp.checksum.status != 1"),
        Vec::<String>::new()
    );
}

/// At a receiver: segment 1 is lost, segment 2 arrives out of order and is SACKed, then
/// a resend of segment 2 arrives while the hole is still open. spikelab counts that
/// resend as unnecessary (the receiver held every byte of it); Wireshark does not call
/// it spurious, because its rule is `seq + len <= the receiver's last ACK`, and the
/// cumulative ACK (1000) does not cover it. Once the hole is filled, a resend of
/// segment 0 is below the ACK and both call it so.
#[test]
fn wireshark_calls_spurious_only_what_the_cumulative_ack_covers() {
    if !tshark_available() {
        return;
    }
    let mut b = Builder {
        uid: 1,
        out: Vec::new(),
    };
    b.push(0.0, PacketKind::Syn, |_| {});
    b.push(0.0, PacketKind::SynAck, |_| {});
    b.data(100.0, 0, false);
    b.ack(100.0, 1, None);
    b.data(102.0, 2, false); // segment 1 was lost
    b.push(102.0, PacketKind::Ack, |p| {
        p.ack = MSS;
        p.push_sack(2 * MSS, 3 * MSS);
    });
    b.data(400.0, 2, true); // held out of order: unnecessary, not covered by the ACK
    b.push(400.0, PacketKind::Ack, |p| {
        p.ack = MSS;
        p.push_sack(2 * MSS, 3 * MSS); // D-SACK
    });
    b.data(401.0, 1, true); // fills the hole
    b.ack(401.0, 3, None);
    b.data(700.0, 0, true); // below the cumulative ACK: spurious to both
    b.ack(700.0, 3, None);
    let file = pcap_path("ooo-resend.pcap");
    let mut w = create_pcap(&file).unwrap().with_window(64_000);
    for (t, p) in &b.out {
        w.write_packet(*t, p).unwrap();
    }
    w.into_inner().unwrap();
    let flagged =
        |filter: &str| tshark(&file, &["-Y", filter, "-T", "fields", "-e", "frame.number"]);
    assert_eq!(flagged("tcp.analysis.spurious_retransmission"), ["11"]);
    assert!(flagged("tcp.analysis.retransmission").contains(&"7".to_owned()));
}

/// A Linux receiver without timestamps sends four SACK blocks (34 option bytes after
/// two NOPs): tshark reads all four, with their edges relative to the sender's ISN.
#[test]
fn tshark_reads_four_sack_blocks_on_an_ack_without_timestamps() {
    if !tshark_available() {
        return;
    }
    let mut b = Builder {
        uid: 1,
        out: Vec::new(),
    };
    b.push(0.0, PacketKind::Syn, |p| p.set_ts(None));
    b.push(0.0, PacketKind::SynAck, |p| p.set_ts(None));
    b.push(100.0, PacketKind::Ack, |p| {
        p.set_ts(None);
        p.ack = MSS;
        for i in [8, 6, 4, 2] {
            p.push_sack(i * MSS, (i + 1) * MSS);
        }
    });
    let file = pcap_path("four-sack-blocks.pcap");
    let mut w = create_pcap(&file).unwrap().with_window(64_000);
    for (t, p) in &b.out {
        w.write_packet(*t, p).unwrap();
    }
    w.into_inner().unwrap();
    let fields = tshark(
        &file,
        &[
            "-Y",
            "frame.number == 3",
            "-T",
            "fields",
            "-e",
            "tcp.options.sack.count",
            "-e",
            "tcp.options.sack_le",
            "-e",
            "tcp.options.sack_re",
            "-e",
            "tcp.len",
            "-e",
            "tcp.hdr_len",
        ],
    );
    assert_eq!(
        fields,
        ["4\t8001,6001,4001,2001\t9001,7001,5001,3001\t0\t56"]
    );
}
