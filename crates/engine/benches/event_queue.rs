//! Criterion benchmark of the event queue in the engine's steady state: about a
//! thousand pending events (one timer per flow, one wake-up per busy link direction),
//! each pop followed by a push a little later, as serialisation ends and timers re-arm.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use spikelab_core::Time;
use spikelab_engine::events::{Event, EventQueue};

fn steady_state(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_queue");
    for pending in [100u32, 1000, 10_000] {
        group.bench_function(format!("pop+push {pending} pending"), |b| {
            let mut q = EventQueue::new();
            for i in 0..pending {
                q.push(Time(u64::from(i) * 997), Event::FlowStart { flow: i });
            }
            // Deterministic spread of re-arm delays (10 us .. 10 ms).
            let mut x = 1u64;
            b.iter(|| {
                let (t, ev) = q.pop().expect("never empty");
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                q.push(Time(t.0 + 10_000 + (x >> 44) % 10_000_000), black_box(ev));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, steady_state);
criterion_main!(benches);
