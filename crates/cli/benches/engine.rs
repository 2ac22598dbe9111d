//! Criterion benchmark of the engine on the `spikelab bench --quick` workloads.

use criterion::{criterion_group, criterion_main, Criterion};
use spikelab_cli::bench::cases;

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine");
    group.sample_size(10);
    for case in cases(true).expect("the benchmark scenarios are valid") {
        group.bench_function(&case.name, |b| {
            b.iter(|| spikelab_engine::run(&case.sim, 1).expect("no invariant violation"))
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
