//! Configurations whose simulated time cannot advance end with an error naming the
//! spike schedule responsible, instead of hanging (the scenario schema rejects them up
//! front; the engine does not rely on it). Each run happens on a helper thread with a
//! wall-clock limit, so a regression fails the test instead of hanging it.

mod common;

use common::*;
use spikelab_core::{BitRate, Dur};
use spikelab_engine::*;
use spikelab_net::spike::{BandwidthOscillationConfig, HiccupConfig, RateLevel};
use spikelab_net::{Dirs, Distribution, SpikeConfig};
use spikelab_tcp::RecoveryKind;
use std::sync::mpsc;
use std::time::Duration;

fn fixed(d: Dur) -> Distribution {
    Distribution::Fixed { value: d }
}

/// Runs `cfg` on a thread; panics if it has not returned after `limit`.
fn run_within(cfg: SimConfig, limit: Duration) -> Result<RunResult, InvariantViolation> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run(&cfg, 1));
    });
    rx.recv_timeout(limit)
        .expect("the run did not end: the watchdog let simulated time stall")
}

fn with_spike(spike: SpikeConfig) -> SimConfig {
    let mut l = link("gprs", 100_000, 50, 20);
    l.spikes.push(spike);
    sim(
        vec![l],
        vec![bulk("a", tcp(RecoveryKind::NewReno, 20), 50_000)],
    )
}

fn assert_stalled_on_gprs(r: Result<RunResult, InvariantViolation>) {
    let e = r.expect_err("a stalled run must end with an error");
    assert!(
        e.what.contains("stopped advancing") && e.what.contains("spikes[0] of link `gprs`"),
        "{e}"
    );
}

#[test]
fn a_hiccup_with_zero_interval_and_duration_ends_with_an_error() {
    let spike = SpikeConfig::Hiccup(HiccupConfig {
        interval: fixed(Dur::ZERO),
        duration: fixed(Dur::ZERO),
        first: Some(Dur::from_secs(1)),
        ..HiccupConfig::default()
    });
    assert_stalled_on_gprs(run_within(with_spike(spike), Duration::from_secs(120)));
}

#[test]
fn a_bandwidth_oscillation_with_zero_holds_ends_with_an_error() {
    let level = |bps| RateLevel {
        rate: BitRate(bps),
        hold: fixed(Dur::ZERO),
    };
    let spike = SpikeConfig::BandwidthOscillation(BandwidthOscillationConfig {
        levels: vec![level(100_000), level(10_000)],
        start: Dur::from_millis(300),
        dirs: Dirs::Both,
    });
    assert_stalled_on_gprs(run_within(with_spike(spike), Duration::from_secs(120)));
}

#[test]
fn an_event_budget_ends_a_long_run_with_an_error() {
    let cfg = sim(
        vec![link("l", 1_000_000, 10, 20)],
        vec![bulk("a", tcp(RecoveryKind::NewReno, 20), 1_000_000)],
    );
    let e = World::new(&cfg, 1)
        .with_event_budget(100)
        .run()
        .expect_err("100 events cannot move 1 MB");
    assert!(e.what.contains("event budget of 100"), "{e}");
    assert!(World::new(&cfg, 1)
        .with_event_budget(1_000_000)
        .run()
        .is_ok());
}
