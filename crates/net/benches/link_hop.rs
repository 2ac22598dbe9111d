//! Criterion benchmark of one packet-hop through a link direction, in its two forms
//! (`spikelab_net::link`): a bottleneck at 100 Mbit/s with 20 ms of latency, offered
//! 1052-byte packets in pairs (an ACK-clocked sender's) at about 92 % of its rate, so
//! that a few packets wait and about 220 propagate, as at the side-by-side dumbbell's
//! bottleneck. Each step is one arrival and the wake-ups due before the next one.
//!
//! "plain" is a drop-tail direction, which the link holds as one FIFO of timed packets;
//! "staged" is the same direction with drop-from-front, which the link holds as a
//! queue, a transmitter and a propagation pipe. The queue never fills here, so the two
//! deliver the same packets at the same instants (checked before measuring).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use spikelab_core::{BitRate, Dur, SimRng, Time, Wire};
use spikelab_net::queue::{DropTailConfig, QueueConfig, QueueLimit};
use spikelab_net::{LinkDir, LinkDirConfig};

/// A packet handle as small as the engine's arena slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Handle {
    id: u32,
    wire: u32,
}

impl Wire for Handle {
    fn wire_bytes(&self) -> u32 {
        self.wire
    }
}

fn direction(drop_front: bool) -> LinkDir<Handle> {
    let cfg = LinkDirConfig {
        queue: QueueConfig::DropTail(DropTailConfig {
            limit: QueueLimit::Packets(1000),
            drop_front,
        }),
        ..LinkDirConfig::new(BitRate(100_000_000), Dur::from_millis(20))
    };
    LinkDir::new(&cfg, SimRng::seed_from_u64(1))
}

/// Drives a direction: one arrival per step, pairs of packets about 170 us apart.
struct Driver {
    link: LinkDir<Handle>,
    now: Time,
    id: u32,
    x: u64,
    got: Vec<Handle>,
    lost: Vec<Handle>,
    delivered: u64,
}

impl Driver {
    fn new(drop_front: bool) -> Driver {
        Driver {
            link: direction(drop_front),
            now: Time::ZERO,
            id: 0,
            x: 1,
            got: Vec::new(),
            lost: Vec::new(),
            delivered: 0,
        }
    }

    /// The wake-ups due before the next arrival, then the arrival; returns the
    /// packets delivered in this step (for the check that both forms agree).
    fn step(&mut self) -> &[Handle] {
        self.x = self.x.wrapping_mul(6364136223846793005).wrapping_add(1);
        let gap = match self.id % 2 {
            0 => 175_000 + (self.x >> 40) % 16_000,
            _ => 0,
        };
        let next = self.now + Dur(gap);
        self.got.clear();
        while let Some(w) = self.link.next_wakeup().filter(|&w| w <= next) {
            self.link.poll(w, &mut self.got, &mut self.lost);
        }
        self.delivered += self.got.len() as u64;
        self.now = next;
        let h = Handle {
            id: self.id,
            wire: 1052,
        };
        self.id = self.id.wrapping_add(1);
        assert!(
            self.link.enqueue(self.now, h).is_none(),
            "the queue never fills"
        );
        &self.got
    }
}

fn packet_hop(c: &mut Criterion) {
    // The two forms deliver the same packets at the same steps.
    let (mut plain, mut staged) = (Driver::new(false), Driver::new(true));
    for _ in 0..50_000 {
        assert_eq!(plain.step(), staged.step());
    }
    assert!(plain.delivered > 40_000);
    let mut group = c.benchmark_group("link_hop");
    for (name, drop_front) in [("plain", false), ("staged", true)] {
        group.bench_function(name, |b| {
            let mut d = Driver::new(drop_front);
            (0..1000).for_each(|_| {
                d.step();
            });
            b.iter(|| black_box(d.step().len()))
        });
    }
    group.finish();
}

criterion_group!(benches, packet_hop);
criterion_main!(benches);
