//! Time-varying delay (a link's delay trace) and the ground truth: a timeout that fires
//! while a delay step holds the segment, or its ACK, in the link is spurious, whatever
//! the step's size; a packet held by a step is delayed, never lost or reordered.

mod common;

use common::*;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{Dur, Time};
use spikelab_engine::*;
use spikelab_net::{DelaySource, DelayTrace, Dir};
use spikelab_tcp::RecoveryKind;

/// 1 Mbit/s, 30 ms, a 500 KB download; from 1 s to 2 s the given direction adds
/// `step` of one-way delay (LeoReplayer's per-10 ms format), 0 before and after.
fn stepped(dir: Dir, step_ms: u64) -> RunResult {
    let per_10ms: String = (0..300)
        .map(|i| {
            if (100..200).contains(&i) {
                format!("{step_ms}\n")
            } else {
                "0\n".into()
            }
        })
        .collect();
    let trace = DelaySource::with_data("step", DelayTrace::parse_per_10ms(&per_10ms).unwrap());
    let mut l = link("sat", 1_000_000, 30, 100);
    match dir {
        Dir::Forward => l.forward.delay_trace = Some(Box::new(trace)),
        Dir::Reverse => l.reverse.delay_trace = Some(Box::new(trace)),
    }
    let flow = bulk("f", tcp(RecoveryKind::NewReno, 64), 500_000);
    spikelab_engine::run(&sim(vec![l], vec![flow]), 1).unwrap()
}

fn in_step(t: Time) -> bool {
    (Time::ZERO + Dur::from_secs(1)..Time::ZERO + Dur::from_secs(5)).contains(&t)
}

#[test]
fn a_timeout_while_a_delay_step_holds_the_data_is_spurious_data_delayed() {
    let r = stepped(Dir::Forward, 3_000);
    let first = r.timeouts.first().expect("a 3 s step outlasts the RTO");
    assert!(in_step(first.time), "{:?}", first.time);
    assert_eq!(first.truth, Truth::SpuriousDataDelayed, "{first:?}");
    assert!(
        r.timeouts.iter().all(|t| t.truth.is_spurious()),
        "nothing was lost"
    );
    assert!(r.flows[0].completed.is_some());
    assert!(r.links.iter().all(|l| l.dropped == 0), "{:?}", r.links);
}

#[test]
fn a_timeout_while_a_delay_step_holds_the_acks_is_spurious_ack_delayed() {
    let r = stepped(Dir::Reverse, 3_000);
    let first = r.timeouts.first().expect("a 3 s step outlasts the RTO");
    assert!(in_step(first.time), "{:?}", first.time);
    assert_eq!(first.truth, Truth::SpuriousAckDelayed, "{first:?}");
    assert!(r.flows[0].completed.is_some());
}

#[test]
fn a_step_shorter_than_the_rto_causes_no_timeout_and_no_reordering() {
    let r = stepped(Dir::Forward, 50);
    assert!(r.timeouts.is_empty(), "{:?}", r.timeouts);
    // The data reaches the receiver in order, so no duplicate ACK comes back.
    let delivered: Vec<u64> = r
        .trace
        .iter()
        .filter_map(|t| match t.event {
            TraceEvent::Deliver { seq, .. } => Some(seq),
            _ => None,
        })
        .collect();
    assert!(delivered.len() > 300, "{}", delivered.len());
    assert!(delivered.windows(2).all(|w| w[0] < w[1]), "reordered");
    let dup = |t: &&spikelab_core::trace::TraceRecord| {
        matches!(t.event, TraceEvent::AckRecv { dup: true, .. })
    };
    assert_eq!(r.trace.iter().filter(dup).count(), 0);
}
