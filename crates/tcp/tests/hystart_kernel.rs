//! CUBIC's HyStart (`cubictcp_acked` / `hystart_update`, net/ipv4/tcp_cubic.c) fed the
//! ACKs a Linux 6.18.44 sender received, ends slow start at the congestion window
//! the kernel itself reported (`TcpExt.TCPHystartDelayCwnd`, one delay detection each).
//!
//! `tests/data/hystart-kernel-acks.csv` holds, per recording, every ACK of new data
//! from the first one to about 40 segments past the exit, read from the sender-side
//! pcap of the real-path recordings (`scripts/record_kernel_paths.py --pcap`, rows of
//! crates/scenario/tests/data/kernel-6.18.44-fc-v1272/paths.csv, repetition 1): the
//! arrival time, the segments it acknowledged, the RTT of the newest segment it
//! acknowledged (the kernel's `ca_rtt_us`, what `pkts_acked` hears), snd_una after
//! it and snd_nxt before the sender's answer (relative sequence numbers). The model
//! grows cwnd by `cubictcp_cong_avoid` (slow start: one segment per segment
//! acknowledged) from the initial 10, as the kernel does on these ACKs: the
//! recordings chosen are cwnd-limited up to the exit (on paths whose receive window
//! caps the flight, `tcp_is_cwnd_limited` lets cwnd grow to twice the flight instead,
//! which this replay does not model).
//!
//! Which ACKs there are (the receiver's quick ACKs, the path's delivery times) is the
//! recording's; the test holds the controller's decision on them.

use spikelab_core::{Dur, Time};
use spikelab_tcp::cc::cubic::{Cubic, RttView};

const DATA: &str = include_str!("data/hystart-kernel-acks.csv");

/// The kernel's `TcpExt.TCPHystartDelayCwnd` of each recording (kernel.csv of its
/// emulate run; `TCPHystartDelayDetect` = 1 in each).
const KERNEL_EXIT: [(&str, u64); 4] = [
    ("tmobile-umts-drive-cubic-frto2-292-r1", 96),
    ("tmobile-umts-drive-cubic-frto2-376-r1", 56),
    ("att-lte-drive-cubic-frto2-104-r1", 28),
    ("tmobile-lte-drive-cubic-frto2-327-r1", 176),
];

struct Ack {
    now: Time,
    acked: u64,
    rtt: Dur,
    snd_una: u64,
    snd_nxt: u64,
}

fn acks(recording: &str) -> Vec<Ack> {
    DATA.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[0] == recording)
        .map(|f| {
            let n = |i: usize| f[i].parse::<u64>().unwrap();
            Ack {
                now: Time(n(1) * 1000),
                acked: n(2),
                rtt: Dur::from_micros(n(3)),
                snd_una: n(4),
                snd_nxt: n(5),
            }
        })
        .collect()
}

/// The cwnd (segments) at which HyStart set ssthresh, if it did on these ACKs.
fn hystart_exit(acks: &[Ack]) -> Option<u64> {
    let mut cc = Cubic::default();
    let (mut cwnd, ssthresh) = (10, u64::MAX);
    for a in acks {
        // tcp_clean_rtx_queue -> pkts_acked, then tcp_cong_control -> cong_avoid.
        let v = RttView {
            now: a.now,
            rtt: a.rtt,
            cwnd,
            ssthresh,
            snd_una: a.snd_una,
            snd_nxt: a.snd_nxt,
        };
        if cc.acked(&v).is_some() {
            return Some(cwnd);
        }
        cwnd = cc.cong_avoid(a.now, cwnd, ssthresh, a.acked);
    }
    None
}

#[test]
fn hystart_leaves_slow_start_at_the_kernels_cwnd_on_the_kernels_acks() {
    for (recording, kernel) in KERNEL_EXIT {
        let acks = acks(recording);
        assert!(acks.len() > 20, "{recording}: {} ACKs", acks.len());
        assert_eq!(hystart_exit(&acks), Some(kernel), "{recording}");
    }
}

#[test]
fn without_the_rtt_rise_hystart_stays_in_slow_start() {
    // The same ACKs with every sample at the path's minimum: no round's minimum RTT
    // exceeds delay_min by the threshold, and the ACK trains of these paths never
    // span half the minimum RTT.
    for (recording, _) in KERNEL_EXIT {
        let mut acks = acks(recording);
        let min = acks.iter().map(|a| a.rtt).min().unwrap();
        for a in &mut acks {
            a.rtt = min;
        }
        assert_eq!(hystart_exit(&acks), None, "{recording}");
    }
}
