//! A first spike placed by a count of data segments (`first_after_segments`) rather than
//! at a time ([Gurtov & Ludwig 2003] V: the initial window meeting a spike).

mod common;

use common::*;
use spikelab_core::trace::TraceEvent;
use spikelab_core::Dur;
use spikelab_net::spike::HiccupConfig;
use spikelab_net::{Distribution, SpikeConfig};
use spikelab_tcp::RecoveryKind;

fn fixed(s: u64) -> Distribution {
    Distribution::Fixed {
        value: Dur::from_secs(s),
    }
}

/// A 1 Mbit/s, 100 ms link whose first 2 s spike waits for `n` data segments.
fn after(n: u32) -> spikelab_engine::SimConfig {
    let mut l = link("radio", 1_000_000, 100, 100);
    l.spikes.push(SpikeConfig::Hiccup(HiccupConfig {
        interval: fixed(1000),
        duration: fixed(2),
        first_after_segments: Some(n),
        ..HiccupConfig::default()
    }));
    sim(
        vec![l],
        vec![bulk("tcp", tcp(RecoveryKind::Reno, 20), 30_000)],
    )
}

/// The times of the first transmissions of data segments and of spike starts.
fn sends_and_spikes(cfg: &spikelab_engine::SimConfig) -> (Vec<f64>, Vec<f64>) {
    let r = spikelab_engine::run(cfg, 1).unwrap();
    let at = |keep: fn(&TraceEvent) -> bool| {
        r.trace
            .iter()
            .filter(|t| keep(&t.event))
            .map(|t| t.time.as_secs_f64())
            .collect::<Vec<f64>>()
    };
    (
        at(|e| matches!(e, TraceEvent::Send { retx: false, .. })),
        at(|e| matches!(e, TraceEvent::Spike { start: true, .. })),
    )
}

#[test]
fn the_first_spike_starts_when_the_nth_data_segment_enters_the_link() {
    for n in [1, 2, 5] {
        let (sends, spikes) = sends_and_spikes(&after(n));
        assert_eq!(spikes.len(), 1, "one spike in a short transfer: {spikes:?}");
        assert_eq!(spikes[0], sends[n as usize - 1], "n = {n}");
    }
}

#[test]
fn a_spike_on_the_initial_window_holds_its_segments() {
    // The spike freezes the link as the first segment enters it, so the first
    // delivery waits out the 2 s spike: the transfer ends later than without it.
    let with = spikelab_engine::run(&after(1), 1).unwrap();
    let mut plain = after(1);
    plain.links[0].spikes.clear();
    let without = spikelab_engine::run(&plain, 1).unwrap();
    assert!(with.end.as_secs_f64() > without.end.as_secs_f64() + 1.5);
}
