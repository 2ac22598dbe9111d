//! A property harness from scenario text to engine results: valid-shaped scenarios with
//! extreme values (rates of 1 bit/s, latencies of 0 and 10 s, 1-byte segments, windows
//! of 2^30, queue limits of 1, RED weights of 1, BLER of 1, spikes every millisecond,
//! RTO floors of 0, middleboxes at the ends of their ranges, ...) are loaded and, when
//! the loader accepts them, run with a short stop and an event budget. For every case:
//!
//! * the loader never panics, and refuses only with a located error (line or field);
//! * the engine never panics and never exceeds the budget (no hang): the stop is at most
//!   1 s and rates at most 10 Mbit/s, so a run has at most a few 10^5 events;
//! * the engine's own invariant checks pass (packet conservation, sequence sanity);
//! * the metrics are finite or explicitly NaN, goodput is at most 1, counts add up.
//!
//! Two extremes are kept apart because their cost is not bounded by events (see
//! docs/src/robustness.md): queues of more than 10^5 packets (each timeout scans the
//! packets in the network for its ground truth) and WCDMA with 1-byte blocks, BLER 1
//! and 1000 retransmissions (every attempt of every block is drawn).
//!
//! `fuzz_engine_default` runs 1000 cases in CI (about 15 s at the test profile's
//! opt-level 1). `fuzz_engine_long` (ignored) runs
//! `SPIKELAB_FUZZ_CASES` cases (default 100000): `cargo test --release -p
//! spikelab-scenario --test fuzz_engine -- --ignored --nocapture`. Both draw from a
//! fixed generator seed, so a failure is reproducible; proptest shrinks it to a small
//! scenario, printed in the failure.

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use spikelab_engine::World;
use std::cell::RefCell;

/// Events one run may use: far above what a 1 s run at 10 Mbit/s needs.
const BUDGET: u64 = 3_000_000;

fn link(name: &'static str) -> impl Strategy<Value = String> {
    let rate = select(vec![
        "1bit/s",
        "300bit/s",
        "9600bit/s",
        "64kbit/s",
        "2Mbit/s",
        "10Mbit/s",
    ]);
    let latency = select(vec!["0s", "1ns", "1ms", "1ms", "10ms", "300ms", "1000000s"]);
    let queue = select(vec![
        "{ kind = \"drop-tail\", limit = { packets = 1 } }",
        "{ kind = \"drop-tail\", limit = { packets = 100000 } }",
        "{ kind = \"drop-tail\", limit = { bytes = \"1B\" }, drop_front = true }",
        "{ kind = \"drop-tail\", limit = { bytes = \"1MB\" } }",
        "{ kind = \"red\", min_thresh = 0, max_thresh = 1e-9, q_weight = 1.0, linterm = 1.0, limit = { packets = 1 } }",
        "{ kind = \"red\", min_thresh = 0, max_thresh = 1000000000, limit = 100000, q_weight = 1e-300, linterm = 1e300, gentle = false, wait = false, drop_front = true, mean_pktsize = \"1B\" }",
        "{ kind = \"adaptive-red\", target_delay = \"1ns\", interval = \"1ns\", alpha = 1.0, beta = 1e-9, initial_max_p = 1.0 }",
        "{ kind = \"adaptive-red\", target_delay = \"1000000s\", interval = \"1000000s\", alpha = 1e-300, beta = 0.999999, initial_max_p = 1e-300, mean_pktsize = \"65535B\", limit = 1 }",
    ]);
    let service = select(vec![
        "{ kind = \"rate\" }",
        // Not 1-byte blocks with BLER 1 and 1000 retransmissions together: the bearer
        // draws every attempt of every block, 6.5 * 10^7 draws for one 64 KB packet (see
        // docs/src/robustness.md).
        "{ kind = \"wcdma\", block_bytes = \"1B\", bler = 1.0, retx_delay = \"0s\", max_retx = 3 }",
        "{ kind = \"wcdma\", block_bytes = \"65535B\", bler = 0.0, retx_delay = \"1000000s\", max_retx = 0 }",
        "{ kind = \"wcdma\", block_bytes = \"40B\", bler = 0.5, retx_delay = \"1ns\", max_retx = 3 }",
    ]);
    let spike = select(vec![
        "",
        "[[link.spikes]]\nkind = \"hiccup\"\ninterval = { dist = \"fixed\", value = \"0s\" }\nduration = { dist = \"fixed\", value = \"1ms\" }\n",
        "[[link.spikes]]\nkind = \"hiccup\"\ninterval = { dist = \"uniform\", min = \"1ms\", max = \"1ms\" }\nduration = { dist = \"exponential\", mean = \"0s\" }\ninterval_from = \"start\"\n",
        "[[link.spikes]]\nkind = \"hiccup\"\ninterval = { dist = \"exponential\", mean = \"1ms\" }\nduration = { dist = \"fixed\", value = \"1000000s\" }\nstationary = true\n",
        "[[link.spikes]]\nkind = \"hiccup\"\nfirst = \"0s\"\nat = [{ start = \"0s\", duration = \"1ns\" }, { start = \"1ns\", duration = \"1000000s\" }]\n",
        "[[link.spikes]]\nkind = \"outage\"\nperiod = \"1ms\"\nduration = \"1ms\"\nfirst = \"0s\"\ndirs = \"both\"\n",
        "[[link.spikes]]\nkind = \"outage\"\nperiod = \"1000000s\"\nduration = \"1ns\"\ndirs = \"reverse\"\n",
        "[[link.spikes]]\nkind = \"bandwidth-step\"\nfrom = \"10Mbit/s\"\nto = \"1bit/s\"\nat = \"1ns\"\n",
        "[[link.spikes]]\nkind = \"bandwidth-oscillation\"\nlevels = [{ rate = \"1bit/s\", hold = { dist = \"fixed\", value = \"0s\" } }, { rate = \"10Mbit/s\", hold = { dist = \"exponential\", mean = \"1ms\" } }]\n",
        // Refused up front: a cycle that cannot advance time.
        "[[link.spikes]]\nkind = \"hiccup\"\ninterval = { dist = \"fixed\", value = \"1ns\" }\nduration = { dist = \"fixed\", value = \"0s\" }\n",
    ]);
    (rate, latency, queue, service, spike).prop_map(move |(r, l, q, s, sp)| {
        format!(
            "[[link]]\nname = \"{name}\"\nrate = \"{r}\"\nlatency = \"{l}\"\nqueue = {q}\nservice = {s}\n{sp}\n"
        )
    })
}

fn rto() -> impl Strategy<Value = &'static str> {
    select(vec![
        "{ kind = \"rfc6298\", initial_rto = \"1ms\", min_rto = \"0s\", max_rto = \"1ms\", granularity = \"0s\" }",
        "{ kind = \"rfc6298\", initial_rto = \"1000000s\", min_rto = \"1000000s\", max_rto = \"none\", granularity = \"1000000s\", min_rto_mode = \"last_sample_plus_2g\", init_mode = \"modified\" }",
        "{ kind = \"peak-hopper\", initial_rto = \"1ms\", syn_rto_factor = 1, b_init = 0.0, fader_timestamps = 1.0, fader_no_timestamps = 1e300, b_max_timestamps = 1e-300, b_max_no_timestamps = 1e300, delta_gain = 1e300, granularity = \"0s\", max_rto = \"1ms\" }",
        "{ kind = \"peak-hopper\", syn_rto_factor = 1000, b_init = 1e300, use_syn_sample = false, max_rto = \"none\" }",
        "{ kind = \"linux\", initial_rto = \"1ms\", rto_min = \"0s\", rto_max = \"1ms\" }",
        "{ kind = \"linux\", initial_rto = \"1000000s\", rto_min = \"1000000s\", rto_max = \"none\", use_syn_sample = false }",
    ])
}

fn tcp() -> impl Strategy<Value = String> {
    let recovery = select(vec![
        "reno",
        "new-reno",
        "reno-sack",
        "new-reno-sack",
        "fack",
    ]);
    // 1-byte segments with windows of 2^30 bytes: SACK recovery's scoreboard queries
    // cost in proportion to SACK holes and retransmissions, not to segments in flight.
    let mss = select(vec![1u32, 536, 1460, 65495]);
    let window = (
        select(vec![1u32, 3, 1000, 1_000_000]),
        any::<bool>(),
        any::<bool>(),
    );
    let acks = (
        select(vec![1u32, 2, 1000]),
        any::<bool>(),
        select(vec!["0s", "1ns", "499ms"]),
    );
    let options = (
        any::<bool>(),
        select(vec!["1ns", "1ms", "1s"]),
        1u32..=4,
        any::<bool>(),
        any::<bool>(),
    );
    let spurious = select(vec![
        "",
        "spurious = { driver = \"eifel\" }, ",
        "spurious = { driver = \"frto\", observe = [\"ack-timing\"] }, ",
        "spurious = { driver = \"sack-frto\", observe = [\"dsack\"] }, ",
        "spurious = { driver = \"dsack\", response = { restore = \"option4\", rto_adapt = \"rfc4015\" } }, ",
        "spurious = { driver = \"ack-timing\", response = { restore = \"rfc4015\", rto_adapt = \"min-rto-increase\", resume_with_new_data = false } }, ",
    ]);
    (recovery, mss, window, acks, options, rto(), spurious).prop_map(
        |(rec, mss, (iw, big_rwnd, big_ssthresh), (every, delack, timeout), (ts, tick, blocks, dsack, handshake), rto, spurious)| {
            let rwnd = if big_rwnd { 1u64 << 30 } else { u64::from(mss) };
            let ssthresh = if big_ssthresh { u64::MAX >> 1 } else { 2 * u64::from(mss) };
            format!(
                "{{ {spurious}recovery = \"{rec}\", mss = {mss}, initial_window = {iw}, receiver_window = {rwnd}, \
                 initial_ssthresh = {ssthresh}, dupack_threshold = {every}, timestamps = {ts}, timestamp_tick = \"{tick}\", \
                 delayed_ack = {{ enabled = {delack}, every = {every}, timeout = \"{timeout}\" }}, max_sack_blocks = {blocks}, \
                 dsack = {dsack}, handshake = {handshake}, limited_transmit = {dsack}, careful_fast_retransmit = {ts}, rto = {rto} }}"
            )
        },
    )
}

fn flow(i: usize, two_links: bool) -> impl Strategy<Value = String> {
    let route = if two_links {
        select(vec![
            "[\"l0\"]",
            "[\"l0\", \"l1\"]",
            "[\"l1:reverse\", \"l0:reverse\"]",
        ])
    } else {
        select(vec!["[\"l0\"]", "[\"l0:reverse\"]"])
    };
    let start = select(vec!["\"0s\"", "\"1ns\"", "{ min = \"0s\", max = \"1ms\" }"]);
    let workload = select(vec![
        "{ kind = \"bulk\", bytes = \"1B\" }",
        "{ kind = \"bulk\", bytes = \"30KB\" }",
        "{ kind = \"bulk\", bytes = \"1000GB\" }",
        "{ kind = \"ping-pong\", packets = 1000000000, bytes = \"1B\" }",
        "{ kind = \"ping-pong\", packets = 1, bytes = \"100KB\" }",
    ]);
    let cbr = (
        select(vec!["1bit/s", "10Mbit/s"]),
        select(vec!["1B", "65507B"]),
    );
    (route, start, any::<bool>(), tcp(), workload, cbr).prop_map(
        move |(route, start, is_cbr, tcp, workload, (rate, payload))| {
            let head = format!("[[flow]]\nname = \"f{i}\"\nroute = {route}\nstart = {start}\n");
            if is_cbr {
                format!("{head}kind = \"cbr\"\nrate = \"{rate}\"\npayload = \"{payload}\"\nstop = \"1s\"\n\n")
            } else {
                format!("{head}tcp = {tcp}\nworkload = {workload}\n\n")
            }
        },
    )
}

fn middlebox() -> impl Strategy<Value = &'static str> {
    select(vec![
        "",
        "[[middlebox]]\nlink = \"l0\"\nconfig = { kind = \"std-proxy\", dup_ack_thresh = 1, gain = 1e-300, s = 1e300, alpha_n = 0.0, alpha_s = 1.0, x_th_factor = 1e-300, wrtt_gain = 1.0, wrtt = \"1ns\", remove_dup_acks = false }\n",
        "[[middlebox]]\nlink = \"l0\"\nconfig = { kind = \"std-proxy\", dup_ack_thresh = 1000, gain = 1e300, s = 1e-300, alpha_n = 1.0, alpha_s = 0.0, x_th_factor = 1e300 }\n",
        "[[middlebox]]\nlink = \"l0\"\nconfig = { kind = \"delay-injection\", method = \"rtrd\", d0 = \"1000000s\", n = 1, p = 1.0, direction = \"ack\", select = \"probability\", select_p = 1.0, order = \"fifo\" }\n",
        "[[middlebox]]\nlink = \"l0\"\nconfig = { kind = \"delay-injection\", method = \"ftfd\", d0 = \"0s\", n = 1000000000, select = \"every-nth\", select_every = 1 }\n",
        "[[middlebox]]\nlink = \"l0\"\nconfig = { kind = \"delay-injection\", method = \"rtfd\", d0 = \"1ns\", p = 1e-300, select = \"probability\", select_p = 0.0 }\n",
    ])
}

/// One scenario text and the seed of its run.
fn scenario() -> impl Strategy<Value = (String, u64)> {
    let stop = select(vec!["2ms", "200ms", "1s", "1s"]);
    let links = (link("l0"), proptest::option::of(link("l1")));
    let flows = 1usize..=3;
    (stop, any::<u64>(), links, flows, middlebox())
        .prop_flat_map(|(stop, seed, (l0, l1), n, mb)| {
            let two = l1.is_some();
            let flows = (0..n).map(|i| flow(i, two)).collect::<Vec<_>>();
            (Just((stop, seed, l0, l1, mb)), flows)
        })
        .prop_map(|((stop, seed, l0, l1, mb), flows)| {
            let text = format!(
                "[run]\nname = \"fuzz\"\nseed = \"{seed}\"\nstop = \"{stop}\"\n\n{l0}{}{}{mb}",
                l1.unwrap_or_default(),
                flows.concat()
            );
            (text, seed)
        })
}

/// What the harness saw.
#[derive(Debug, Default)]
struct Tally {
    cases: u64,
    refused: u64,
    runs: u64,
    events: u64,
    flows: u64,
    finished: u64,
    timeouts: u64,
}

/// Finite or NaN: never an infinity.
fn sane(x: f64) -> bool {
    x.is_finite() || x.is_nan()
}

fn check_case(text: &str, seed: u64, tally: &RefCell<Tally>) -> Result<(), TestCaseError> {
    tally.borrow_mut().cases += 1;
    let scenario = match spikelab_scenario::parse(text, "fuzz.toml") {
        Ok(s) => s,
        Err(e) => {
            prop_assert!(e.line > 0 || e.field.is_some(), "unlocated error: {}", e);
            tally.borrow_mut().refused += 1;
            if std::env::var_os("SPIKELAB_FUZZ_VERBOSE").is_some() {
                eprintln!("refused: {e}");
            }
            return Ok(());
        }
    };
    let stop = scenario.sim().stop_at;
    let r = World::new(scenario.sim(), seed)
        .with_event_budget(BUDGET)
        .run();
    let r = match r {
        Ok(r) => r,
        Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
    };
    prop_assert!(
        r.end.0 <= stop.0,
        "ended at {} after the stop {}",
        r.end,
        stop
    );
    for f in &r.flows {
        prop_assert!(f.retransmissions <= f.data_segments_sent, "{f:?}");
        prop_assert!(f.unnecessary_retransmissions <= f.retransmissions, "{f:?}");
        prop_assert!(
            f.spurious_timeouts + f.genuine_timeouts <= f.timeouts,
            "{f:?}"
        );
        prop_assert!(sane(f.goodput()), "{f:?}");
        if let Some(c) = f.completed {
            prop_assert!(c >= f.start, "{f:?}");
            // Goodput of *finished* flows only: for an unfinished flow goodput() still
            // divides the whole workload's segments by those sent so far (above 1), which
            // helper cli14 is fixing in crates/engine/src/results.rs; once merged, this
            // assertion can cover every flow.
            let g = f.goodput();
            prop_assert!(g.is_nan() || (0.0..=1.0).contains(&g), "goodput {g}: {f:?}");
            prop_assert!(f.download_time().is_some_and(sane), "{f:?}");
            prop_assert!(f.throughput_bps().is_none_or(sane), "{f:?}");
        }
    }
    for l in &r.links {
        prop_assert!(l.delivered + l.dropped <= l.offered, "{l:?}");
    }
    for score in spikelab_engine::score_detectors(&r.flows, &r.timeouts) {
        prop_assert!(
            sane(score.mean_delay_s()) && score.total_delay_s >= 0.0,
            "{score:?}"
        );
    }
    let mut t = tally.borrow_mut();
    t.runs += 1;
    t.events += r.events;
    t.flows += r.flows.len() as u64;
    t.finished += r.flows.iter().filter(|f| f.completed.is_some()).count() as u64;
    t.timeouts += r.timeouts.len() as u64;
    Ok(())
}

fn harness(cases: u32) -> Tally {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let tally = RefCell::new(Tally::default());
    let outcome = runner.run(&scenario(), |(text, seed)| check_case(&text, seed, &tally));
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let t = tally.into_inner();
    eprintln!("fuzz_engine: {t:?}");
    // Both sides must be exercised, or the harness proves nothing.
    assert!(
        t.runs * 4 >= t.cases,
        "only {} of {} scenarios ran",
        t.runs,
        t.cases
    );
    assert!(
        t.refused > 0,
        "no scenario was refused: the extreme values are too tame"
    );
    t
}

#[test]
fn fuzz_engine_default() {
    harness(1000);
}

#[test]
#[ignore = "long mode: 10^5 cases, run with --release -- --ignored"]
fn fuzz_engine_long() {
    let cases = std::env::var("SPIKELAB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    harness(cases);
}
