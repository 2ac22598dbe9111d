//! Behaviour of [`LinkDir`]: timing, hiccups, counters, and a property test over random
//! operation sequences.

use super::*;
use crate::freeze::{FreezePoint, FrozenWire};
use crate::queue::{DropTailConfig, QueueConfig, QueueLimit};
use proptest::prelude::*;
use rand::SeedableRng;
use spikelab_core::{FlowId, PacketKind};

pub(crate) fn data(uid: u64, payload: u32) -> Packet {
    let mut p = Packet::new(uid, FlowId(0), PacketKind::Data, Time::ZERO);
    p.len = payload;
    p
}

pub(crate) fn ms(x: u64) -> Time {
    Time::ZERO + Dur::from_millis(x)
}

pub(crate) fn cfg(rate: u64, latency: Dur, limit: u64) -> LinkDirConfig {
    LinkDirConfig {
        queue: QueueConfig::DropTail(DropTailConfig {
            limit: QueueLimit::Packets(limit),
            drop_front: false,
        }),
        ..LinkDirConfig::new(BitRate(rate), latency)
    }
}

pub(crate) fn link(c: &LinkDirConfig) -> LinkDir {
    LinkDir::new(c, SimRng::seed_from_u64(1))
}

/// A link that keeps scheduling leads, for ns-2's order of same-instant events.
pub(crate) fn ns2_link(c: &LinkDirConfig) -> LinkDir<Packet, u32> {
    LinkDir::new(c, SimRng::seed_from_u64(1))
}

/// An input the test driver applies at a given time.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Input {
    Send(Packet),
    Suspend,
    /// A suspension with other switches than the default.
    Freeze(FreezeMode),
    Resume,
    Rate(BitRate),
}

/// What came out of a run.
#[derive(Default, Debug)]
pub(crate) struct Outcome {
    /// (uid, time reached the far end)
    pub delivered: Vec<(u64, Time)>,
    pub queue_drops: Vec<u64>,
    pub link_drops: Vec<(u64, Time)>,
}

/// A minimal engine: polls the link at each of its wakeups and applies `inputs` (sorted
/// by time; at equal times the link is polled first).
pub(crate) fn drive<L: same_instant::Lead>(
    l: &mut LinkDir<Packet, L>,
    inputs: &[(Time, Input)],
) -> Outcome {
    let mut out = Outcome::default();
    let (mut got, mut lost) = (Vec::new(), Vec::new());
    let mut next_input = 0;
    loop {
        let wake = l.next_wakeup();
        let input_at = inputs.get(next_input).map(|i| i.0);
        let now = match (wake, input_at) {
            (Some(w), Some(i)) if w <= i => w,
            (_, Some(i)) => i,
            (Some(w), None) => w,
            (None, None) => return out,
        };
        if wake == Some(now) {
            l.poll(now, &mut got, &mut lost);
            out.delivered.extend(got.drain(..).map(|p| (p.uid, now)));
            out.link_drops.extend(lost.drain(..).map(|p| (p.uid, now)));
            continue;
        }
        let (_, input) = inputs[next_input];
        next_input += 1;
        match input {
            Input::Send(p) => out.queue_drops.extend(l.enqueue(now, p).map(|d| d.uid)),
            Input::Suspend => l.suspend(now, FreezeMode::default()),
            Input::Freeze(mode) => l.suspend(now, mode),
            Input::Resume => out.queue_drops.extend(l.resume(now).iter().map(|d| d.uid)),
            Input::Rate(r) => l.set_rate(now, r),
        }
    }
}

fn burst(n: u64, at: Time) -> Vec<(Time, Input)> {
    (0..n)
        .map(|uid| (at, Input::Send(data(uid, 1000))))
        .collect()
}

#[test]
fn back_to_back_packets_are_delivered_at_exactly_the_link_rate() {
    // 1000 payload + 40 header bytes at 2 Mbit/s = 4.16 ms each ([Gurtov & Ludwig 2003] IV.A link).
    let c = cfg(2_000_000, Dur::from_millis(150), 100);
    let out = drive(&mut link(&c), &burst(20, Time::ZERO));
    assert_eq!(out.delivered.len(), 20);
    for (i, &(uid, at)) in out.delivered.iter().enumerate() {
        assert_eq!(uid, i as u64);
        let want = Time::ZERO + Dur::from_micros(4160) * (i as u64 + 1) + Dur::from_millis(150);
        assert_eq!(at, want, "packet {i}");
    }
}

#[test]
fn packets_of_different_sizes_take_their_own_wire_time() {
    let c = cfg(1_000_000, Dur::ZERO, 10);
    let mut inputs = vec![(Time::ZERO, Input::Send(data(0, 0)))]; // 40 bytes: 320 us
    inputs.push((Time::ZERO, Input::Send(data(1, 1460)))); // 1500 bytes: 12 ms
    let out = drive(&mut link(&c), &inputs);
    let us = |x| Time::ZERO + Dur::from_micros(x);
    assert_eq!(out.delivered, vec![(0, us(320)), (1, us(12_320))]);
}

#[test]
fn a_hiccup_delays_every_packet_caught_in_it_by_exactly_its_length_and_drops_none() {
    // 1 Mbit/s: 8.32 ms per packet; 100 ms latency. At 120 ms packets 0 and 1 have
    // arrived (108.32, 116.64 ms), packets 2..13 are propagating, 14 is being sent and
    // 15..19 are queued.
    let c = cfg(1_000_000, Dur::from_millis(100), 50);
    let base = drive(&mut link(&c), &burst(20, Time::ZERO));
    let d = Dur::from_secs(3);
    let mut inputs = burst(20, Time::ZERO);
    inputs.push((ms(120), Input::Suspend));
    inputs.push((ms(120) + d, Input::Resume));
    let spiked = drive(&mut link(&c), &inputs);
    assert!(spiked.queue_drops.is_empty() && spiked.link_drops.is_empty());
    assert_eq!(spiked.delivered.len(), 20);
    for (b, s) in base.delivered.iter().zip(&spiked.delivered) {
        assert_eq!(b.0, s.0);
        let shift = if b.1 <= ms(120) { Dur::ZERO } else { d };
        assert_eq!(s.1, b.1 + shift, "packet {}", b.0);
    }
}

#[test]
fn arrivals_during_a_hiccup_queue_and_overflow_a_small_drop_tail_queue() {
    let c = cfg(1_000_000, Dur::from_millis(100), 5);
    let mut inputs = vec![(ms(0), Input::Suspend)];
    inputs.extend((0..10).map(|uid| (ms(10 + uid), Input::Send(data(uid, 1000)))));
    inputs.push((ms(1000), Input::Resume));
    let mut l = link(&c);
    let out = drive(&mut l, &inputs);
    assert_eq!(out.queue_drops, vec![5, 6, 7, 8, 9]);
    let first_arrival = ms(1000) + Dur::from_micros(8320) + Dur::from_millis(100);
    assert_eq!(out.delivered[0], (0, first_arrival));
    assert_eq!(out.delivered.len(), 5);
    let k = l.counters();
    assert_eq!(k.offered.packets, 10);
    assert_eq!(k.dropped.packets, 5);
    assert_eq!(k.delivered.packets, 5);
    assert_eq!(k.in_network.packets, 0);
}

/// The burst of `a_hiccup_delays_every_packet...` with a 3 s freeze at 120 ms under
/// `mode`: (undisturbed run, frozen run).
fn burst_frozen_at_120ms(mode: FreezeMode, limit: u64) -> (Outcome, Outcome) {
    let c = cfg(1_000_000, Dur::from_millis(100), limit);
    let base = drive(&mut link(&c), &burst(20, Time::ZERO));
    let mut inputs = burst(20, Time::ZERO);
    inputs.push((ms(120), Input::Freeze(mode)));
    inputs.push((ms(3120), Input::Resume));
    (base, drive(&mut link(&c), &inputs))
}

#[test]
fn a_freeze_that_delivers_the_wire_holds_only_the_packet_being_sent_and_the_queue() {
    // Packets 2..13 were propagating at 120 ms: on time. 14 was being sent, 15..19 queued.
    let mode = FreezeMode {
        wire: FrozenWire::Delivered,
        ..FreezeMode::default()
    };
    let (base, frozen) = burst_frozen_at_120ms(mode, 50);
    assert_eq!(frozen.delivered.len(), 20);
    for (b, f) in base.delivered.iter().zip(&frozen.delivered) {
        let shift = if b.0 >= 14 {
            Dur::from_secs(3)
        } else {
            Dur::ZERO
        };
        assert_eq!(f.1, b.1 + shift, "packet {}", b.0);
    }
}

#[test]
fn a_freeze_in_front_of_the_queue_lets_the_link_drain() {
    // Everything was already inside the link at 120 ms: nothing is held.
    let mode = FreezeMode {
        at: FreezePoint::BeforeQueue,
        ..FreezeMode::default()
    };
    let (base, frozen) = burst_frozen_at_120ms(mode, 50);
    assert_eq!(frozen.delivered, base.delivered);
}

#[test]
fn arrivals_at_a_freeze_in_front_of_the_queue_wait_and_overflow_it_on_thaw() {
    // Queue of 5: packets 0..9 arrive during the freeze and wait in front of the queue
    // (none dropped during it); at the thaw 0 starts, 1..5 fill the queue, 6..9 drop.
    let c = cfg(1_000_000, Dur::from_millis(100), 5);
    let mode = FreezeMode {
        at: FreezePoint::BeforeQueue,
        ..FreezeMode::default()
    };
    let mut inputs = vec![(ms(0), Input::Freeze(mode))];
    inputs.extend((0..10).map(|uid| (ms(10 + uid), Input::Send(data(uid, 1000)))));
    inputs.push((ms(1000), Input::Resume));
    let mut l = link(&c);
    let out = drive(&mut l, &inputs);
    assert_eq!(out.queue_drops, vec![6, 7, 8, 9]);
    let first_arrival = ms(1000) + Dur::from_micros(8320) + Dur::from_millis(100);
    assert_eq!(out.delivered[0], (0, first_arrival));
    assert_eq!(out.delivered.len(), 6);
    assert_eq!(l.counters().in_network.packets, 0);
}

#[test]
fn a_freeze_that_drops_arrivals_keeps_what_was_inside() {
    let c = cfg(1_000_000, Dur::from_millis(100), 50);
    for at in [FreezePoint::AfterQueue, FreezePoint::BeforeQueue] {
        let mode = FreezeMode {
            at,
            arrivals: FrozenArrivals::Dropped,
            ..FreezeMode::default()
        };
        let mut inputs = burst(3, Time::ZERO);
        inputs.push((ms(1), Input::Freeze(mode)));
        inputs.extend((3..6).map(|uid| (ms(10 + uid), Input::Send(data(uid, 1000)))));
        inputs.push((ms(1000), Input::Resume));
        inputs.push((ms(1000), Input::Send(data(6, 1000))));
        let out = drive(&mut link(&c), &inputs);
        assert_eq!(out.queue_drops, vec![3, 4, 5], "{at:?}");
        let uids: Vec<u64> = out.delivered.iter().map(|d| d.0).collect();
        assert_eq!(uids, vec![0, 1, 2, 6], "{at:?}");
    }
}

#[test]
fn a_suspended_link_reports_no_wakeup_and_holds_its_packets() {
    let c = cfg(1_000_000, Dur::from_millis(100), 5);
    let mut l = link(&c);
    l.enqueue(Time::ZERO, data(0, 1000));
    l.suspend(ms(1), FreezeMode::default());
    assert!(l.is_suspended());
    assert_eq!(l.next_wakeup(), None);
    let mut seen = Vec::new();
    l.for_each_in_network(|p| seen.push(p.uid));
    assert_eq!(seen, vec![0]);
    l.resume(ms(11));
    // The transmission's end moved to 18.32 ms; nothing propagates, so the link wakes
    // for the packet's arrival, 100 ms later.
    assert_eq!(
        l.next_wakeup(),
        Some(Time::ZERO + Dur::from_micros(118_320))
    );
}

#[test]
fn a_link_with_nothing_propagating_wakes_only_for_the_arrival_of_the_packet_in_service() {
    // 1 Mbit/s, 20 ms: packet 0 is sent 0 .. 8.32 ms and arrives at 28.32 ms; packet 1
    // waits. The end of the transmission is no wakeup of its own: the poll at the
    // arrival completes it (and starts packet 1 at 8.32 ms) exactly.
    let c = cfg(1_000_000, Dur::from_millis(20), 10);
    let mut l = link(&c);
    l.enqueue(Time::ZERO, data(0, 1000));
    l.enqueue(Time::ZERO, data(1, 1000));
    let us = |x| Time::ZERO + Dur::from_micros(x);
    assert_eq!(l.next_wakeup(), Some(us(28_320)));
    assert_eq!(l.skipped_end_wakeup(), Some(us(8_320)));
    let (mut got, mut lost) = (Vec::new(), Vec::new());
    l.poll(us(28_320), &mut got, &mut lost);
    assert_eq!(got.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![0]);
    assert_eq!(l.next_wakeup(), Some(us(36_640)));
    // So does a link in ns-2's same-instant order: its leads decide an arrival at the
    // end's instant, not whether the end has run.
    let mut kept = ns2_link(&c);
    kept.enqueue(Time::ZERO, data(0, 1000));
    assert_eq!(kept.next_wakeup(), Some(us(28_320)));
    assert_eq!(kept.skipped_end_wakeup(), Some(us(8_320)));
}

#[test]
fn a_per_packet_delay_trace_keeps_the_wakeup_at_the_transmission_end() {
    // The packet's traced delay is drawn when it leaves the transmitter: its arrival is
    // not known before.
    let trace = crate::delay::DelayTrace::parse("0,500ms\n0.01,0\n").unwrap();
    let c = LinkDirConfig {
        delay_trace: Some(crate::DelaySource::with_data("d", trace)),
        delay_sampling: DelaySampling::PerPacket,
        ..cfg(1_000_000, Dur::from_millis(100), 10)
    };
    let mut l = link(&c);
    l.enqueue(Time::ZERO, data(0, 1000));
    assert_eq!(l.next_wakeup(), Some(Time::ZERO + Dur::from_micros(8_320)));
    // Read at the departure instant, a trace gives the arrival in advance.
    let mut timed = link(&LinkDirConfig {
        delay_sampling: DelaySampling::Time,
        ..c
    });
    timed.enqueue(Time::ZERO, data(0, 1000));
    assert_eq!(
        timed.next_wakeup(),
        Some(Time::ZERO + Dur::from_micros(608_320))
    );
}

#[test]
fn a_rate_change_lets_the_packet_in_service_finish_at_the_old_rate() {
    let c = cfg(1_000_000, Dur::ZERO, 10);
    let mut inputs = burst(2, Time::ZERO);
    inputs.push((ms(1), Input::Rate(BitRate(500_000))));
    let out = drive(&mut link(&c), &inputs);
    let us = |x| Time::ZERO + Dur::from_micros(x);
    assert_eq!(out.delivered, vec![(0, us(8_320)), (1, us(8_320 + 16_640))]);
}

/// A 1-packet drop-tail queue at 2 Mbit/s: packet 0 starts at 1 ms and ends at
/// 5.16 ms, packet 1 waits; packet 2 arrives at exactly 5.16 ms, its arrival scheduled
/// at `scheduled`. Returns the queue's drops and the delivery times.
fn arrival_at_a_transmission_end(scheduled: Option<Time>) -> (Vec<u64>, Vec<(u64, Time)>) {
    let c = cfg(2_000_000, Dur::ZERO, 1);
    let mut l = ns2_link(&c);
    let mut drops: Vec<u64> = [
        l.enqueue(ms(1), data(0, 1000)),
        l.enqueue(ms(1), data(1, 1000)),
    ]
    .into_iter()
    .flatten()
    .map(|p| p.uid)
    .collect();
    let end = ms(1) + Dur::from_micros(4160);
    assert_eq!(l.next_wakeup(), Some(end));
    drops.extend(
        match scheduled {
            Some(s) => l.enqueue_scheduled(end, data(2, 1000), s),
            None => l.enqueue(end, data(2, 1000)),
        }
        .map(|p| p.uid),
    );
    let out = drive(&mut l, &[]);
    (drops, out.delivered)
}

#[test]
fn an_arrival_scheduled_before_a_transmission_that_ends_with_it_finds_the_queue_full() {
    // ns-2: the arrival's event was scheduled (0.5 ms) before the transmission's end (1 ms).
    let (drops, delivered) =
        arrival_at_a_transmission_end(Some(Time::ZERO + Dur::from_micros(500)));
    assert_eq!(drops, vec![2]);
    assert_eq!(
        delivered.iter().map(|d| d.0).collect::<Vec<_>>(),
        vec![0, 1]
    );
}

#[test]
fn an_arrival_scheduled_after_a_transmission_that_ends_with_it_finds_room() {
    // Scheduled at 1.5 ms, after the transmission's end (at its start, 1 ms); and a
    // tie of scheduling instants completes the transmission first too.
    let want_times = arrival_at_a_transmission_end(None).1;
    for s in [Time::ZERO + Dur::from_micros(1500), ms(1)] {
        let (drops, delivered) = arrival_at_a_transmission_end(Some(s));
        assert!(drops.is_empty(), "scheduled at {s}");
        assert_eq!(delivered, want_times, "the same times as plain enqueue");
    }
    assert_eq!(want_times.len(), 3);
}

#[test]
fn a_burst_scheduled_before_a_transmission_that_ends_with_it_meets_it_in_service() {
    // An agent answering one ACK sends two packets in the same event: both run before
    // the transmission end, so with packet 1 waiting the second finds the queue full.
    let c = cfg(2_000_000, Dur::ZERO, 2);
    let mut l = ns2_link(&c);
    assert!(l.enqueue(ms(1), data(0, 1000)).is_none());
    assert!(l.enqueue(ms(1), data(1, 1000)).is_none());
    let end = ms(1) + Dur::from_micros(4160);
    let early = Time::ZERO + Dur::from_micros(500);
    assert!(l.enqueue_scheduled(end, data(2, 1000), early).is_none());
    assert_eq!(l.next_wakeup(), Some(end), "packet 0 is still in service");
    assert_eq!(
        l.enqueue_scheduled(end, data(3, 1000), early)
            .map(|p| p.uid),
        Some(3)
    );
    let out = drive(&mut l, &[]);
    let sent: Vec<u64> = out.delivered.iter().map(|d| d.0).collect();
    assert_eq!(sent, vec![0, 1, 2]);
    assert_eq!(out.delivered[1].1, end + Dur::from_micros(4160));
}

#[test]
fn a_freeze_reschedules_the_held_transmission_end_at_the_thaw() {
    // Packet 0 (1 ms .. 5.16 ms) is held by a freeze from 2 ms to 10 ms: its end moves
    // to 13.16 ms and, as in the patched ns-2's `LinkDelay::freeze_end()`, counts as
    // scheduled at 10 ms. An arrival then scheduled at 9 ms runs first.
    let c = cfg(2_000_000, Dur::ZERO, 1);
    let mut l = ns2_link(&c);
    assert!(l.enqueue(ms(1), data(0, 1000)).is_none());
    l.suspend(ms(2), FreezeMode::default());
    assert!(l.enqueue(ms(3), data(1, 1000)).is_none());
    assert!(l.resume(ms(10)).is_empty());
    let end = ms(10) + Dur::from_micros(3160);
    assert_eq!(l.next_wakeup(), Some(end));
    let mut early = l.clone();
    assert_eq!(
        early
            .enqueue_scheduled(end, data(2, 1000), ms(9))
            .map(|p| p.uid),
        Some(2)
    );
    assert!(l
        .enqueue_scheduled(end, data(2, 1000), ms(10) + Dur::from_micros(1))
        .is_none());
}

#[test]
fn a_delivered_packet_reports_when_its_arrival_was_scheduled() {
    // LinkDelay::recv(): the arrival is scheduled when the transmission starts.
    let c = cfg(2_000_000, Dur::from_millis(150), 10);
    let mut l = ns2_link(&c);
    assert!(l.enqueue(ms(1), data(0, 1000)).is_none());
    assert!(l.enqueue(ms(1), data(1, 1000)).is_none());
    let (mut got, mut sched, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    l.poll_scheduled(ms(200), &mut got, &mut sched, &mut lost);
    assert_eq!(got.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(sched, vec![ms(1), ms(1) + Dur::from_micros(4160)]);
}

#[test]
fn a_delivery_at_the_instant_a_transmission_ends_leaves_that_end_to_the_arrivals() {
    // Latency 4.16 ms: packet 0 (1 .. 5.16 ms) reaches the far end at 9.32 ms, the
    // instant packet 1's transmission (5.16 .. 9.32 ms) ends; packet 2 waits in the
    // 1-packet queue. Polling in ns-2's order delivers packet 0 and keeps packet 1 in
    // service, so an arrival scheduled before packet 1 started finds the queue full.
    let c = cfg(2_000_000, Dur::from_micros(4160), 1);
    let mut l = ns2_link(&c);
    assert!(l.enqueue(ms(1), data(0, 1000)).is_none());
    assert!(l.enqueue(ms(1), data(1, 1000)).is_none());
    assert!(l.enqueue(ms(6), data(2, 1000)).is_none());
    let at = ms(1) + Dur::from_micros(8320);
    let (mut got, mut sched, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    l.poll_scheduled(at, &mut got, &mut sched, &mut lost);
    assert_eq!(got.iter().map(|p| p.uid).collect::<Vec<_>>(), vec![0]);
    // Packet 1's end is no wake-up of its own: the next is its arrival.
    assert_eq!(
        l.skipped_end_wakeup(),
        Some(at),
        "packet 1's end is still due"
    );
    assert_eq!(l.next_wakeup(), Some(at + Dur::from_micros(4160)));
    let (mut late, mut later) = (l.clone(), l.clone());
    assert_eq!(
        l.enqueue_scheduled(at, data(3, 1000), ms(5)).map(|p| p.uid),
        Some(3)
    );
    assert!(late.enqueue_scheduled(at, data(3, 1000), ms(6)).is_none());
    // Any arrival after that instant finds the end run and packet 2 in service.
    let after = at + Dur(1);
    assert!(later
        .enqueue_scheduled(after, data(3, 1000), ms(5))
        .is_none());
}

#[test]
fn enqueue_order_of_polling_does_not_change_results() {
    // Enqueue exactly when a transmission ends, with and without polling first.
    let c = cfg(1_000_000, Dur::ZERO, 10);
    let t = Time::ZERO + Dur::from_micros(8320);
    let mut a = link(&c);
    let mut b = link(&c);
    for l in [&mut a, &mut b] {
        l.enqueue(Time::ZERO, data(0, 1000));
    }
    let (mut d, mut x) = (Vec::new(), Vec::new());
    a.poll(t, &mut d, &mut x);
    a.enqueue(t, data(1, 1000));
    b.enqueue(t, data(1, 1000));
    b.poll(t, &mut d, &mut x);
    assert_eq!(a.next_wakeup(), b.next_wakeup());
    assert_eq!(a.counters(), b.counters());
}

#[test]
fn a_delay_trace_adds_its_delay_but_never_lets_a_packet_overtake_the_one_before() {
    // 500 ms extra until 10 ms, then none: packet 0 leaves at 8.32 ms (+500 ms),
    // packet 1 at 16.64 ms (+0) and must wait for packet 0.
    let trace = crate::delay::DelayTrace::parse("0,500ms\n0.01,0\n").unwrap();
    let c = LinkDirConfig {
        delay_trace: Some(crate::DelaySource::with_data("d", trace)),
        ..cfg(1_000_000, Dur::from_millis(100), 10)
    };
    let out = drive(&mut link(&c), &burst(3, Time::ZERO));
    let us = |x| Time::ZERO + Dur::from_micros(x);
    let first = us(8_320 + 600_000);
    assert_eq!(out.delivered, vec![(0, first), (1, first), (2, first)]);
}

#[test]
fn a_delay_step_from_30_to_80_ms_delays_later_packets_by_80_ms_and_never_reorders() {
    // LeoReplayer's format: 30 ms for [0, 1 s), 80 ms for [1 s, 2 s), 30 ms after. One
    // 1000-byte packet every 5 ms at 10 Mbit/s (0.832 ms on the wire, so no queue),
    // 5 ms latency.
    let per_10ms: String = (0..300)
        .map(|i| {
            if (100..200).contains(&i) {
                "80\n"
            } else {
                "30\n"
            }
        })
        .collect();
    let trace = crate::delay::DelayTrace::parse_per_10ms(&per_10ms).unwrap();
    let c = LinkDirConfig {
        delay_trace: Some(crate::DelaySource::with_data("d", trace)),
        ..cfg(10_000_000, Dur::from_millis(5), 100)
    };
    let sent = |uid: u64| Time::ZERO + Dur::from_millis(5 * uid);
    let inputs: Vec<(Time, Input)> = (0..600)
        .map(|uid| (sent(uid), Input::Send(data(uid, 1000))))
        .collect();
    let out = drive(&mut link(&c), &inputs);
    assert_eq!(out.delivered.len(), 600);
    assert!(
        out.delivered
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1),
        "a packet left before the one ahead of it"
    );
    let tx = Dur::from_micros(832);
    let latency = Dur::from_millis(5);
    for &(uid, at) in &out.delivered {
        let end = sent(uid) + tx;
        let own = |ms| end + latency + Dur::from_millis(ms);
        match end.0 / 1_000_000 {
            // Before the step: 30 ms; from the step: 80 ms, exactly (no packet ahead
            // is later, since the delay only grew).
            0..1000 => assert_eq!(at, own(30), "packet {uid}"),
            1000..2000 => assert_eq!(at, own(80), "packet {uid}"),
            // Back down to 30 ms: the first packets wait behind the last 80 ms one
            // (FIFO), then the backlog is gone and each takes its own 30 ms.
            _ => {
                let last_slow = out.delivered[usize::try_from(uid).unwrap() - 1].1;
                assert_eq!(at, own(30).max(last_slow), "packet {uid}");
            }
        }
    }
    // The step down held some packets behind the last slow one: about 50 ms of them.
    let waited = out
        .delivered
        .iter()
        .filter(|&&(uid, at)| {
            let end = sent(uid) + tx;
            end >= Time::ZERO + Dur::from_secs(2) && at > end + latency + Dur::from_millis(30)
        })
        .count();
    assert!((9..=11).contains(&waited), "{waited} packets waited");
}

#[test]
fn a_per_packet_delay_trace_draws_each_packets_delay_from_its_points_in_fifo_order() {
    // Two points, 0 and 300 ms, both long before the packets: replayed in time every
    // packet gets 300 ms; drawn per packet some get 0 ms, some 300 ms, never another value,
    // and none overtakes the one before.
    let trace = crate::delay::DelayTrace::parse("0,0\n0.001,300ms\n").unwrap();
    let c = LinkDirConfig {
        delay_trace: Some(crate::DelaySource::with_data("d", trace)),
        delay_sampling: crate::delay::DelaySampling::PerPacket,
        ..cfg(1_000_000, Dur::from_millis(100), 100)
    };
    let start = Time::ZERO + Dur::from_secs(1);
    let out = drive(&mut link(&c), &burst(40, start));
    let tx = Dur::from_micros(8_320);
    let own: Vec<Dur> = out
        .delivered
        .iter()
        .enumerate()
        .map(|(i, &(_, at))| at - (start + tx * (i as u64 + 1) + Dur::from_millis(100)))
        .collect();
    assert!(out.delivered.windows(2).all(|w| w[0].1 <= w[1].1));
    // The last packet of a FIFO run may wait behind a slow one: its own extra delay is
    // then between 0 and 300 ms; a packet that waited nobody got exactly 0 or 300 ms.
    assert!(own.iter().all(|&d| d <= Dur::from_millis(300)), "{own:?}");
    assert!(own.contains(&Dur::ZERO), "{own:?}");
    assert!(own.contains(&Dur::from_millis(300)), "{own:?}");
}

/// A random operation on a link.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    Send { payload: u32 },
    Suspend(FreezeMode),
    Resume,
    Rate(u64),
}

pub(crate) fn freeze_mode() -> impl Strategy<Value = FreezeMode> {
    let at = prop_oneof![
        Just(FreezePoint::AfterQueue),
        Just(FreezePoint::BeforeQueue)
    ];
    let wire = prop_oneof![Just(FrozenWire::Held), Just(FrozenWire::Delivered)];
    let arrivals = prop_oneof![Just(FrozenArrivals::Queued), Just(FrozenArrivals::Dropped)];
    (at, wire, arrivals).prop_map(|(at, wire, arrivals)| FreezeMode { at, wire, arrivals })
}

pub(crate) fn op() -> impl Strategy<Value = (u64, Op)> {
    let op = prop_oneof![
        6 => (0u32..1460).prop_map(|payload| Op::Send { payload }),
        1 => freeze_mode().prop_map(Op::Suspend),
        1 => Just(Op::Resume),
        1 => (10_000u64..5_000_000).prop_map(Op::Rate),
    ];
    (0u64..30_000_000, op)
}

/// What left a link: (uid, when, delivered rather than lost), in order.
pub(crate) type Exits = Vec<(u64, Time, bool)>;

/// Applies `ops` (each after a pause of its first element in ns) to `l`, polling at every
/// wakeup, and checks the invariants after each step; returns what left the link.
pub(crate) fn check_ops<L: same_instant::Lead>(
    l: &mut LinkDir<Packet, L>,
    ops: &[(u64, Op)],
) -> Result<Exits, TestCaseError> {
    check_ops_woken(l, ops, false, true)
}

/// [`check_ops`], also polling at every transmission end the link does not wake for
/// (`every_end`): the reference a link woken at arrivals only must agree with. With
/// `fifo` the packets must leave in the order they entered; without it (a reordering
/// path) only in time order.
fn check_ops_woken<L: same_instant::Lead>(
    l: &mut LinkDir<Packet, L>,
    ops: &[(u64, Op)],
    every_end: bool,
    fifo: bool,
) -> Result<Exits, TestCaseError> {
    let mut exits = Exits::new();
    let (mut got, mut lost) = (Vec::new(), Vec::new());
    let mut now = Time::ZERO;
    let mut last_uid: Option<u64> = None;
    let mut last_delivery = Time::ZERO;
    // The next poll: the wakeup, or an end it skips; an end polled at stays the skipped
    // one while it is due, so only later ones count.
    let due = |l: &LinkDir<Packet, L>, now: Time| {
        let end = l.skipped_end_wakeup().filter(|&e| every_end && e > now);
        l.next_wakeup().into_iter().chain(end).min()
    };
    for (uid, (pause, op)) in ops.iter().enumerate() {
        let target = now + Dur(*pause);
        while let Some(w) = due(l, now).filter(|&w| w <= target) {
            prop_assert!(w >= now, "wakeup {w} before now {now}");
            now = w;
            l.poll(now, &mut got, &mut lost);
            prop_assert!(l.next_wakeup().is_none_or(|n| n > now));
            // Each list is in pipe order; together they continue after the last uid.
            for list in [&got, &lost].into_iter().filter(|_| fifo) {
                prop_assert!(list.windows(2).all(|w| w[0].uid < w[1].uid), "FIFO broken");
                prop_assert!(list.iter().all(|p| last_uid.is_none_or(|u| p.uid > u)));
            }
            if let Some(max) = got.iter().chain(&lost).map(|p| p.uid).max() {
                prop_assert!(now >= last_delivery);
                last_uid = Some(max);
                last_delivery = now;
            }
            exits.extend(got.drain(..).map(|p| (p.uid, now, true)));
            exits.extend(lost.drain(..).map(|p| (p.uid, now, false)));
            check_counters(l)?;
        }
        now = target;
        match op {
            Op::Send { payload } => {
                let (by_pipe, before) = (l.wakeup_kept_by_arrival(), l.next_wakeup());
                l.enqueue(now, data(uid as u64, *payload));
                // The engine re-arms no wakeup after such an arrival.
                if by_pipe {
                    prop_assert_eq!(l.next_wakeup(), before);
                }
            }
            Op::Suspend(mode) => l.suspend(now, *mode),
            Op::Resume => {
                l.resume(now);
            }
            Op::Rate(r) => l.set_rate(now, BitRate(*r)),
        }
        check_counters(l)?;
    }
    Ok(exits)
}

fn check_counters<L: same_instant::Lead>(l: &LinkDir<Packet, L>) -> Result<(), TestCaseError> {
    let k = l.counters();
    let sum = k.delivered.plus(k.dropped).plus(k.in_network);
    prop_assert_eq!(k.offered, sum);
    prop_assert!(l.packets_conserved());
    let mut walked = PacketBytes::default();
    l.for_each_in_network(|p| walked.add(p));
    prop_assert_eq!(walked, k.in_network);
    // `any_in_network` asks about the same packets, in its own order.
    let mut inside = Vec::new();
    l.for_each_in_network(|p| inside.push(p.uid));
    for &uid in &inside {
        prop_assert!(l.any_in_network(|p| p.uid == uid));
    }
    prop_assert!(!l.any_in_network(|p| !inside.contains(&p.uid)));
    prop_assert_eq!(l.any_in_network(|_| true), !inside.is_empty());
    Ok(())
}

proptest! {
    #[test]
    fn random_operations_keep_counts_fifo_order_and_time_monotone(
        ops in prop::collection::vec(op(), 1..200),
        limit in 0u64..20,
        drop_front in any::<bool>(),
    ) {
        let mut c = cfg(1_000_000, Dur::from_millis(20), limit);
        c.queue = QueueConfig::DropTail(DropTailConfig { limit: QueueLimit::Packets(limit), drop_front });
        check_ops(&mut link(&c), &ops)?;
    }
}

pub(crate) fn any_queue() -> impl Strategy<Value = QueueConfig> {
    prop_oneof![
        (0u64..20, any::<bool>()).prop_map(|(n, drop_front)| QueueConfig::DropTail(
            DropTailConfig {
                limit: QueueLimit::Packets(n),
                drop_front
            }
        )),
        (0u64..20_000, any::<bool>()).prop_map(|(b, drop_front)| QueueConfig::DropTail(
            DropTailConfig {
                limit: QueueLimit::Bytes(spikelab_core::ByteSize(b)),
                drop_front
            }
        )),
        (1u64..30, any::<bool>(), any::<bool>()).prop_map(|(limit, gentle, drop_front)| {
            QueueConfig::Red(Box::new(crate::queue::RedConfig {
                min_thresh: 2.0,
                max_thresh: 6.0,
                q_weight: 0.2,
                gentle,
                drop_front,
                limit,
                ..Default::default()
            }))
        }),
        Just(QueueConfig::AdaptiveRed(toml::from_str("").unwrap())),
    ]
}

pub(crate) fn any_service() -> impl Strategy<Value = crate::service::ServiceConfig> {
    use crate::service::{MahimahiConfig, MahimahiTrace, ServiceConfig, WcdmaConfig};
    use crate::trace::TraceRef;
    prop_oneof![
        Just(ServiceConfig::default()),
        (0.0f64..0.6, 0u32..4).prop_map(|(bler, max_retx)| ServiceConfig::Wcdma(WcdmaConfig {
            bler,
            max_retx,
            ..WcdmaConfig::default()
        })),
        (prop::collection::vec(0u64..5, 1..20), 200u32..3000).prop_map(|(gaps, bytes)| {
            let mut t = 1;
            let text: String = gaps
                .iter()
                .map(|g| {
                    t += g;
                    format!("{t}\n")
                })
                .collect();
            let trace = MahimahiTrace::parse(&text).unwrap();
            ServiceConfig::Mahimahi(MahimahiConfig {
                trace: TraceRef::with_data("prop", trace),
                opportunity_bytes: bytes,
            })
        }),
    ]
}

proptest! {
    #[test]
    fn random_operations_keep_invariants_for_every_queue_service_and_delay_trace(
        ops in prop::collection::vec(op(), 1..150),
        queue in any_queue(),
        service in any_service(),
        delays in prop::collection::vec((0u64..50, 0u64..200), 0..6),
        seed in any::<u64>(),
    ) {
        let mut t = 0;
        let points = delays.iter().map(|&(gap, d)| {
            t += gap;
            (ms(t), Dur::from_millis(d))
        }).collect();
        let c = LinkDirConfig {
            queue,
            service,
            delay_trace: (!delays.is_empty()).then(|| {
                crate::DelaySource::with_data("prop", crate::delay::DelayTrace::from_points(points))
            }),
            ..LinkDirConfig::new(BitRate(1_000_000), Dur::from_millis(20))
        };
        let plain = check_ops(&mut LinkDir::<Packet>::new(&c, SimRng::seed_from_u64(seed)), &ops)?;
        // Keeping leads changes nothing on the plain path (`enqueue`, `poll`); and a
        // link woken at arrivals only lets the same packets out at the same times,
        // draws and all, as one also woken at every transmission end.
        let seeded = || SimRng::seed_from_u64(seed);
        let kept = check_ops(&mut LinkDir::<Packet, u32>::new(&c, seeded()), &ops)?;
        prop_assert_eq!(&plain, &kept);
        let every_end = check_ops_woken(&mut LinkDir::<Packet, u32>::new(&c, seeded()), &ops, true, true)?;
        prop_assert_eq!(plain, every_end);
    }
}

proptest! {
    #[test]
    fn random_operations_on_a_reordering_path_keep_counts_wakeups_and_every_packets_own_arrival(
        ops in prop::collection::vec(op(), 1..150),
        queue in any_queue(),
        service in any_service(),
        delays in prop::collection::vec(0u64..200, 1..6),
        seed in any::<u64>(),
    ) {
        let points = delays.iter().map(|&d| (Time::ZERO, Dur::from_millis(d))).collect();
        let c = LinkDirConfig {
            queue,
            service,
            delay_trace: Some(crate::DelaySource::with_data("prop", crate::delay::DelayTrace::from_points(points))),
            delay_sampling: DelaySampling::PerPacketReordering,
            ..LinkDirConfig::new(BitRate(1_000_000), Dur::from_millis(20))
        };
        let seeded = || SimRng::seed_from_u64(seed);
        let plain = check_ops_woken(&mut LinkDir::<Packet>::new(&c, seeded()), &ops, false, false)?;
        let kept = check_ops_woken(&mut LinkDir::<Packet, u32>::new(&c, seeded()), &ops, false, false)?;
        prop_assert_eq!(plain, kept);
    }
}

/// A handle as small as the engine's arena slot (index and wire size).
#[derive(Clone, Copy, Debug)]
struct Handle {
    _index: u32,
    wire: u32,
}

impl Wire for Handle {
    fn wire_bytes(&self) -> u32 {
        self.wire
    }
}

#[test]
fn link_direction_hot_state_fits_in_five_cache_lines() {
    // The engine wakes thousands of links in no order, so each wake-up's cache misses
    // scale with the link's size: rarely used state (RED, WCDMA, a suspension) is
    // boxed. Before boxing it a direction took 488 bytes (eight lines).
    assert!(std::mem::size_of::<LinkDir<Handle>>() <= 5 * 64);
    // ns-2's same-instant order keeps its scheduling leads in padding.
    assert_eq!(std::mem::size_of::<InFlight<Handle, u32>>(), 24);
    assert_eq!(std::mem::size_of::<Departure<Handle, u32>>(), 32);
    assert!(std::mem::size_of::<LinkDir<Handle, u32>>() <= 5 * 64);
    assert!(
        std::mem::size_of::<Queue<Handle>>()
            <= std::mem::size_of::<crate::queue::DropTail<Handle>>() + 8
    );
}

#[test]
fn per_packet_entries_and_link_forms_stay_within_their_bounds() {
    // Memory per packet inside a link and per link direction, as the engine holds
    // them (8-byte handles; `u32` leads with ns-2's same-instant order). The bounds
    // are today's sizes in a test build (release drops debug-only fields, never
    // larger): to grow one on purpose, raise its bound here and its row in
    // docs/src/performance.md ("Memory per flow and per link") in the same commit.
    use std::mem::size_of;
    let rows = [
        ("queue entry (handle)", size_of::<Handle>(), 8),
        ("pipe entry InFlight", size_of::<InFlight<Handle, ()>>(), 24),
        (
            "pipe entry InFlight, ns-2 order",
            size_of::<InFlight<Handle, u32>>(),
            24,
        ),
        (
            "plain FIFO entry Sent",
            size_of::<super::plain::Sent<Handle, ()>>(),
            16,
        ),
        (
            "plain FIFO entry Sent, ns-2 order",
            size_of::<super::plain::Sent<Handle, u32>>(),
            24,
        ),
        (
            "transmitter Departure",
            size_of::<Departure<Handle, ()>>(),
            32,
        ),
        ("Queue", size_of::<Queue<Handle>>(), 64),
        ("staged form Staged", size_of::<Staged<Handle>>(), 272),
        // Beside it on the heap: its FIFO and its stream's 56-byte `RngState` (a boxed
        // 320-byte generator until then).
        (
            "plain form Plain",
            size_of::<super::plain::Plain<Handle, ()>>(),
            160,
        ),
        ("LinkDir", size_of::<LinkDir<Handle>>(), 272),
        // The configuration a scenario keeps per link for the whole run (its record
        // is in meta.json): 824 bytes before its directions' overrides were boxed,
        // 360 before RED's configurations were boxed in `QueueConfig` and the
        // overrides became `Overrides`, boxed only when present.
        ("LinkConfig", size_of::<crate::LinkConfig>(), 160),
        ("QueueConfig", size_of::<crate::QueueConfig>(), 24),
        ("Overrides", size_of::<crate::Overrides>(), 8),
        ("DirOverride", size_of::<crate::DirOverride>(), 64),
    ];
    let mut grown = Vec::new();
    for (name, size, bound) in rows {
        println!("{name:<36} {size:>5} bytes (bound {bound})");
        if size > bound {
            grown.push(format!("{name}: {size} > {bound}"));
        }
    }
    assert!(grown.is_empty(), "grown beyond their bounds: {grown:?}");
}

#[test]
fn the_packet_conservation_check_sees_a_packet_gone_missing() {
    let c = cfg(1_000_000, Dur::from_millis(20), 10);
    let mut l = Staged::<Packet>::new(&c, SimRng::seed_from_u64(1));
    for uid in 0..3 {
        l.enqueue(Time::ZERO, data(uid, 1000));
    }
    assert!(l.packets_conserved());
    // A packet leaving the pipe without being counted as delivered or dropped.
    let (mut got, mut lost) = (Vec::new(), Vec::new());
    l.poll(ms(30), &mut got, &mut lost);
    assert!(l.packets_conserved());
    l.pipe.pop_front();
    assert!(!l.packets_conserved());
}

/// Packets 0 and 1 of 40 bytes (320 us at 1 Mbit/s), sent at 0 and 1 ms over 100 ms of
/// latency and a trace of 500 ms and 10 ms read as `sampling`: with the link's seed
/// packet 0 draws 500 ms and packet 1 10 ms. Returns (uid, arrival) in delivery order.
fn two_packets_drawing_500_then_10_ms(sampling: DelaySampling) -> Vec<(u64, Time)> {
    let trace = crate::delay::DelayTrace::parse("0,500ms\n0.001,10ms\n").unwrap();
    let c = LinkDirConfig {
        delay_trace: Some(crate::DelaySource::with_data("d", trace)),
        delay_sampling: sampling,
        ..cfg(1_000_000, Dur::from_millis(100), 10)
    };
    let inputs = [
        (Time::ZERO, Input::Send(data(0, 0))),
        (ms(1), Input::Send(data(1, 0))),
    ];
    drive(&mut link(&c), &inputs).delivered
}

#[test]
fn a_reordering_path_lets_a_short_draw_overtake_a_long_one() {
    // Each packet's own arrival: 0.32 + 100 + 500 ms, and 1.32 + 100 + 10 ms. The link
    // wakes for packet 1 while packet 0 propagates, so it arrives on time, first.
    let us = |x| Time::ZERO + Dur::from_micros(x);
    let got = two_packets_drawing_500_then_10_ms(DelaySampling::PerPacketReordering);
    assert_eq!(got, vec![(1, us(111_320)), (0, us(600_320))]);
}

#[test]
fn a_per_packet_path_keeps_the_short_draw_behind_the_long_one() {
    let us = |x| Time::ZERO + Dur::from_micros(x);
    let got = two_packets_drawing_500_then_10_ms(DelaySampling::PerPacket);
    assert_eq!(got, vec![(0, us(600_320)), (1, us(600_320))]);
}

#[test]
fn a_reordering_path_delivers_every_packet_at_its_own_draw_in_arrival_order() {
    // 40 packets back to back, each drawing 0 or 300 ms: every one arrives exactly at
    // its transmission's end + latency + its draw (none waits for another), the
    // deliveries come in time order, and some packets overtake.
    let trace = crate::delay::DelayTrace::parse("0,0\n0.001,300ms\n").unwrap();
    let c = LinkDirConfig {
        delay_trace: Some(crate::DelaySource::with_data("d", trace)),
        delay_sampling: DelaySampling::PerPacketReordering,
        ..cfg(1_000_000, Dur::from_millis(100), 100)
    };
    let start = Time::ZERO + Dur::from_secs(1);
    let out = drive(&mut link(&c), &burst(40, start));
    assert_eq!(out.delivered.len(), 40);
    let tx = Dur::from_micros(8_320);
    for &(uid, at) in &out.delivered {
        let own = at - (start + tx * (uid + 1) + Dur::from_millis(100));
        assert!(
            own == Dur::ZERO || own == Dur::from_millis(300),
            "{uid}: {own}"
        );
    }
    assert!(out.delivered.windows(2).all(|w| w[0].1 <= w[1].1));
    assert!(
        out.delivered.windows(2).any(|w| w[0].0 > w[1].0),
        "no overtaking"
    );
}

#[test]
fn next_out_names_the_packets_in_the_order_they_reach_the_far_end() {
    // Plain form, then staged (frozen, so that its pipe holds the packets sent).
    let c = cfg(2_000_000, Dur::from_millis(150), 100);
    let mut l = link(&c);
    assert_eq!(l.next_out(0), None);
    for uid in 0..3 {
        assert_eq!(l.enqueue(Time::ZERO, data(uid, 1000)), None);
    }
    let uids = |l: &LinkDir| {
        (0..4)
            .map(|k| l.next_out(k).map(|p| p.uid))
            .collect::<Vec<_>>()
    };
    assert_eq!(uids(&l), [Some(0), Some(1), Some(2), None]);
    let (mut got, mut lost) = (Vec::new(), Vec::new());
    l.poll(ms(155), &mut got, &mut lost);
    assert_eq!(got.iter().map(|p| p.uid).collect::<Vec<_>>(), [0]);
    assert_eq!(uids(&l), [Some(1), Some(2), None, None]);
    l.suspend(ms(155), FreezeMode::default());
    assert_eq!(
        l.next_out(0).map(|p| p.uid),
        Some(1),
        "staged: the pipe's head"
    );
}
