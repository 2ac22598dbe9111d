//! Criterion benchmark of the SACK scoreboard queries that SACK recovery asks on every
//! ACK (RFC 6675 SetPipe and IsLost through the loss boundary), on windows of 100 to
//! 100 000 segments with three holes at the front and the rest of the first thousand
//! segments SACKed: their cost follows the SACK holes and marks, not the window.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use spikelab_core::Time;
use spikelab_tcp::segments::SegmentTable;

const MSS: u64 = 1000;

fn table(segments: u64) -> SegmentTable {
    let mut t = SegmentTable::new();
    for i in 0..segments {
        t.push_new(i * MSS, (i + 1) * MSS, Time::ZERO);
    }
    let sacked_end = segments.min(1000) * MSS;
    t.on_sack_block(3 * MSS, sacked_end);
    t.get_mut(0).expect("segment 0").rexmit_in_episode = true;
    t
}

fn queries(c: &mut Criterion) {
    let mut group = c.benchmark_group("scoreboard");
    for segments in [100u64, 10_000, 100_000] {
        let t = table(segments);
        let snd_nxt = segments * MSS;
        group.bench_function(format!("pipe {segments} segments"), |b| {
            b.iter(|| black_box(&t).pipe(snd_nxt, 3, MSS))
        });
        group.bench_function(format!("lost_boundary {segments} segments"), |b| {
            b.iter(|| black_box(&t).lost_boundary(3, MSS))
        });
    }
    group.finish();
}

criterion_group!(benches, queries);
criterion_main!(benches);
