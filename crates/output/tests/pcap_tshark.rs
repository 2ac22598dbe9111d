//! A small synthetic conversation written as pcap and read back by tshark: handshake,
//! ten data segments of which the third is lost, duplicate ACKs with SACK, one fast
//! retransmission, and the final cumulative ACK, as seen at the sender.
//!
//! Needs `tshark` (Debian package `tshark`). Without it the test fails under CI (env
//! `CI` set) and prints a skip notice elsewhere.

use spikelab_core::{Dur, FlowId, Packet, PacketKind, Time, Timestamps};
use spikelab_output::pcap::create_pcap;
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
        p.ts = Some(Timestamps {
            val: (ms * 10.0) as u64,
            ecr: 7,
        });
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
                p.sack.push(3 * MSS, (hi + 1) * MSS);
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
    let mut w = create_pcap(path).unwrap();
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
