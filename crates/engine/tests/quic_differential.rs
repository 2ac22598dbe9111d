//! The differential test of issue 42 (item 2): the RFC 9002 model (crates/quic), set up
//! as quinn is, against real quinn (quinn-proto 0.11.19, crates/quinn-sim) on the same
//! deterministic paths: no loss, a drop pattern, one freeze, and a freeze longer than
//! quinn's idle timeout. Equal: probe timeouts and loss declarations; completion within
//! 1 %. Where they differ, the test names the first diverging decision and checks it.
//!
//! Measured (2 Mbit/s, 150 ms each way, 300 kB):
//!
//! | path | model: done, PTOs, losses | quinn: done, PTOs, losses |
//! |---|---|---|
//! | clean | 2.4991 s, 0, 0 | 2.4993 s, 0, 0 (+0.01 %) |
//! | segment 40 dropped | 3.6709 s, 0, 1 | 3.6711 s, 0, 1 (+0.01 %) |
//! | 5 s freeze at 1 s | 8.0685 s, 3, 0 | 8.0753 s, 3, 0 (+0.08 %) |
//! | 40 s freeze at 1 s | closed by the idle timeout, 6, 0 | closed by the idle timeout, 6, 0 |
//!
//! What it takes, each a `[flow.quic]` option whose default is RFC behaviour:
//! quinn's packing (`framing = "quinn"`: 1170 stream bytes a packet, 1168 above
//! offset 16384, 910 in the first, which shares its datagram with the client's
//! Handshake packet); its send gate and pacer (`pacing = "quinn"`; without it the
//! model resumes 7 % faster after the 5 s freeze); its order of an ACK's effects
//! (`ack_order = "acked-first"`: the window grows for the ACK's packets before the
//! loss it reveals halves it; without it the drop path is 1.5 % slower); and the idle
//! timeout (`idle_timeout = "30s"`; without it the model completes the 40 s freeze).
//!
//! The first diverging decision, the same on every path, is the stream bytes of the
//! client's packet after the server's HANDSHAKE_DONE: quinn acknowledges that
//! ack-eliciting packet with an ACK frame (and other frames, 33 bytes) in its next
//! data packet, which carries 1137 stream bytes, the model's 1170; quinn's client
//! later sends a few more 5-byte ACK frames. The model's client sends no ACK frames;
//! the stream offsets differ by these bytes from then on, and the pacer's releases by
//! up to 25 ms (the drop path from its 196th packet, the 5 s freeze from its 84th).
//!
//! "Set up as quinn is": kInitialRtt 333 ms, max_ack_delay 25 ms, an ACK every second
//! ack-eliciting packet, kPacketThreshold 3, kTimeThreshold 9/8, 1200-byte datagrams,
//! an initial window of 10 datagrams, NewReno on both sides (RFC 9002 7.3 and quinn's
//! congestion/new_reno.rs).

mod common;

use common::*;
use spikelab_core::{ByteSize, Dur, Time};
use spikelab_engine::*;
use spikelab_net::freeze::{FreezePoint, FrozenArrivals};
use spikelab_net::spike::{HiccupConfig, SpikeAt};
use spikelab_net::SpikeConfig;
use spikelab_quic::{AckOrder, Framing, Implementation, Pacing, QuicCc, QuicConfig};

const BYTES: u64 = 300_000;

fn flow(quic: QuicConfig) -> FlowSpec {
    let mut f = bulk("q", Default::default(), BYTES);
    f.kind = FlowKind::Quic {
        quic: Box::new(quic),
        workload: Workload::Bulk {
            bytes: ByteSize(BYTES),
        },
    };
    f
}

/// The model set up as quinn is: quinn's packing, send gate and pacer, order of an
/// ACK's effects and idle timeout (30 s); NewReno on both sides.
fn as_quinn(implementation: Implementation) -> QuicConfig {
    let model = implementation == Implementation::Model;
    QuicConfig {
        implementation,
        cc: QuicCc::NewReno,
        framing: Framing::Quinn,
        pacing: Pacing::Quinn,
        idle_timeout: model.then_some(Dur::from_secs(30)),
        ack_order: AckOrder::AckedFirst,
        ..QuicConfig::default()
    }
}

/// How a path is disturbed.
#[derive(Clone, Copy, Debug)]
enum Path {
    Clean,
    /// The first transmission of segment 40 is dropped.
    Drop,
    /// The link holds everything for `secs` from 1 s.
    Freeze(u64),
}

/// The papers' 2 Mbit/s path, 150 ms each way; the queue holds a whole slow start (the
/// model does not pace, quinn does).
fn run(path: Path, implementation: Implementation) -> RunResult {
    run_cfg(path, as_quinn(implementation))
}

fn run_cfg(path: Path, quic: QuicConfig) -> RunResult {
    let mut l = link("l", 2_000_000, 150, 1000);
    if let Path::Freeze(secs) = path {
        l.spikes.push(SpikeConfig::Hiccup(HiccupConfig {
            at: vec![SpikeAt {
                start: Dur::from_secs(1),
                duration: Dur::from_secs(secs),
            }],
            freeze_at: FreezePoint::AfterQueue,
            arrivals: FrozenArrivals::Queued,
            ..HiccupConfig::default()
        }));
    }
    let mut cfg = sim(vec![l], vec![flow(quic)]);
    cfg.stop_at = Dur::from_secs(120);
    if let Path::Drop = path {
        drop_segments(&mut cfg, &[40]);
    }
    spikelab_engine::run(&cfg, 1).expect("no invariant broken")
}

fn secs(t: Time) -> f64 {
    (t - Time::ZERO).as_secs_f64()
}

/// The model on `path`, set up as quinn is but for `change`.
fn run_with(path: Path, change: impl Fn(&mut QuicConfig)) -> RunResult {
    let mut c = as_quinn(Implementation::Model);
    change(&mut c);
    run_cfg(path, c)
}

/// Both implementations on `path`.
fn both(path: Path) -> [RunResult; 2] {
    [
        run(path, Implementation::Model),
        run(path, Implementation::Quinn),
    ]
}

fn counts(r: &RunResult) -> (u64, u64) {
    let d = r.flows[0].declarations;
    (d.ptos, d.loss_declarations)
}

fn done(r: &RunResult) -> Option<f64> {
    r.flows[0].completed.map(secs)
}

/// How far `b` completes from `a`, as a fraction of `a`.
fn off(a: &RunResult, b: &RunResult) -> f64 {
    let (a, b) = (done(a).expect("completes"), done(b).expect("completes"));
    b / a - 1.0
}

/// Stream bytes of the `i`-th data packet sent.
fn sent_len(r: &RunResult, i: usize) -> u32 {
    let len = |t: &spikelab_core::trace::TraceRecord| match t.event {
        spikelab_core::trace::TraceEvent::Send { len, .. } => Some(len),
        _ => None,
    };
    r.trace.iter().filter_map(len).nth(i).expect("sent")
}

#[test]
fn on_a_clean_path_quinn_and_the_model_agree_within_1_percent() {
    let [m, q] = both(Path::Clean);
    assert_eq!(counts(&m), (0, 0));
    assert_eq!(counts(&q), (0, 0));
    assert!(off(&m, &q).abs() <= 0.01, "{:+.2} %", 100.0 * off(&m, &q));
    assert_eq!(m.flows[0].data_segments_sent, 258, "quinn's packing");
    assert_eq!(q.flows[0].data_segments_sent, 258);
    // The first diverging decision: quinn's packet after HANDSHAKE_DONE carries an
    // ACK frame and 33 stream bytes fewer.
    assert_eq!((sent_len(&m, 0), sent_len(&q, 0)), (910, 910));
    assert_eq!((sent_len(&m, 10), sent_len(&q, 10)), (1170, 1137));
    let largest = run_with(Path::Clean, |c| c.framing = Framing::Largest);
    assert_eq!(
        largest.flows[0].data_segments_sent, 259,
        "1159 bytes a packet"
    );
}

#[test]
fn a_dropped_packet_is_one_loss_declaration_in_both_and_no_probe() {
    let [m, q] = both(Path::Drop);
    assert_eq!(counts(&m), (0, 1));
    assert_eq!(counts(&q), (0, 1));
    assert!(off(&m, &q).abs() <= 0.01, "{:+.2} %", 100.0 * off(&m, &q));
    // RFC 9002's order halves the window before the ACK's packets grow it.
    let rfc = run_with(Path::Drop, |c| c.ack_order = AckOrder::LossFirst);
    assert_eq!(counts(&rfc), (0, 1));
    assert!(off(&rfc, &q) < -0.01, "{:+.2} %", 100.0 * off(&rfc, &q));
}

#[test]
fn a_5s_freeze_fires_the_same_probes_and_both_pace_back_within_1_percent() {
    let [m, q] = both(Path::Freeze(5));
    assert_eq!(counts(&m), (3, 0));
    assert_eq!(counts(&q), (3, 0));
    assert!(off(&m, &q).abs() <= 0.01, "{:+.2} %", 100.0 * off(&m, &q));
    // Without quinn's pacer the model resumes at once and is 7 % faster.
    let unpaced = run_with(Path::Freeze(5), |c| c.pacing = Pacing::None);
    assert_eq!(counts(&unpaced), (3, 0));
    assert!(
        off(&unpaced, &q) > 0.05,
        "{:+.2} %",
        100.0 * off(&unpaced, &q)
    );
}

#[test]
fn a_freeze_longer_than_the_idle_timeout_closes_both_after_the_same_packets() {
    let [m, q] = both(Path::Freeze(40));
    // The same probe timeouts until the idle timeout (30 s, at least 3 PTOs, RFC 9000
    // 10.1) closes each connection; neither completes.
    assert_eq!(counts(&m), (6, 0));
    assert_eq!(counts(&q), (6, 0));
    assert_eq!((done(&m), done(&q)), (None, None));
    assert_eq!(m.flows[0].data_segments_sent, q.flows[0].data_segments_sent);
    // Without an idle timeout (RFC 9000's default) the model completes after the freeze.
    let open = run_with(Path::Freeze(40), |c| c.idle_timeout = None);
    assert!(done(&open).is_some_and(|t| t > 41.0));
}
