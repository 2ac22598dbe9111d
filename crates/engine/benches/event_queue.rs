//! Criterion benchmark of the event queue in the engine's steady state: about a
//! thousand pending events (one timer per flow, one wake-up per busy link direction),
//! each pop followed by a push a little later, as serialisation ends and timers re-arm.
//!
//! `std BinaryHeap` runs the same workload on a binary heap keyed by (time, insertion
//! order), the structure the engine used before its radix heap, as the reference.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use spikelab_core::Time;
use spikelab_engine::events::{Event, EventQueue};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The re-arm delay after the `x`-th step: a deterministic spread of 10 us .. 10 ms.
fn delay(x: &mut u64) -> u64 {
    *x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
    10_000 + (*x >> 44) % 10_000_000
}

fn steady_state(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_queue");
    for pending in [100u32, 1000, 10_000] {
        group.bench_function(format!("pop+push {pending} pending"), |b| {
            let mut q = EventQueue::new();
            for i in 0..pending {
                q.push(Time(u64::from(i) * 997), Event::FlowStart { flow: i });
            }
            let mut x = 1u64;
            b.iter(|| {
                let (t, ev) = q.pop().expect("never empty");
                q.push(Time(t.0 + delay(&mut x)), black_box(ev));
            })
        });
        group.bench_function(format!("std BinaryHeap pop+push {pending} pending"), |b| {
            let mut heap = BinaryHeap::new();
            let mut seq = 0u64;
            for i in 0..pending {
                heap.push(Reverse((u64::from(i) * 997, seq, i)));
                seq += 1;
            }
            let mut x = 1u64;
            b.iter(|| {
                let Reverse((t, _, flow)) = heap.pop().expect("never empty");
                heap.push(Reverse((t + delay(&mut x), seq, black_box(flow))));
                seq += 1;
            })
        });
    }
    group.finish();
}

criterion_group!(benches, steady_state);
criterion_main!(benches);
