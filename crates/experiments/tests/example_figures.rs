//! Writes PNGs of Figs. 1-3 from the synthetic trace, to look at by eye:
//! `cargo test -p spikelab-experiments --test example_figures -- --ignored`, then open
//! `target/example-figures/`. Ignored by default: drawing is slow and checks nothing
//! the unit tests do not.

use rand::SeedableRng;
use spikelab_core::{Dur, SimRng};
use spikelab_experiments::delay_injection::*;
use spikelab_net::middlebox::InjectionMethod;
use spikelab_output::plot::{line_chart, scatter_chart, Chart, Series};
use std::path::PathBuf;

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/example-figures");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn window_series(w: &RttRtoWindow) -> Vec<Series> {
    let xs = w.index.iter().map(|&k| k as f64);
    let pts = |ys: &[f64]| xs.clone().zip(ys.iter().copied()).collect::<Vec<_>>();
    vec![
        Series {
            label: "RTT".into(),
            points: pts(&w.rtt),
            ci: vec![],
        },
        Series {
            label: "RTO".into(),
            points: pts(&w.rto),
            ci: vec![],
        },
    ]
}

#[test]
#[ignore]
fn write_example_figures() {
    let trace = gprs_like_trace(
        &GprsLikeConfig::default(),
        10_000,
        &mut SimRng::seed_from_u64(2003),
    );
    let p = PaperRtoParams::default();
    let all = fig1(&trace, &p, 0, trace.len());
    // A window of 100 samples around the first timeout after sample 1000.
    let first = all.timeouts.iter().find(|&&k| k > 1000).copied().unwrap();
    let start = first - 25;
    let chart = |t: &str| Chart {
        title: t.into(),
        x_label: "sample".into(),
        y_label: "ms".into(),
    };
    let w1 = fig1(&trace, &p, start, 100);
    line_chart(
        &chart("Fig. 1: no jitter"),
        &window_series(&w1),
        &out_dir().join("fig1"),
    )
    .unwrap();
    let d0 = Dur::from_millis(100);
    let spec = InjectionSpec::new(InjectionMethod::Ftfd, d0, 3);
    let mut rng = SimRng::seed_from_u64(1);
    let w2 = fig2(&trace, &spec, &p, (start, 100), &mut rng);
    line_chart(
        &chart("Fig. 2: FTFD 100 ms, N = 3"),
        &window_series(&w2),
        &out_dir().join("fig2"),
    )
    .unwrap();
    let f = fig3(&trace, d0, 3, (0.0, 10.0, 60), &mut rng);
    let hist = |label: &str, h: &Histogram| Series {
        label: label.into(),
        points: (0..h.counts.len())
            .map(|i| (h.centre(i), h.counts[i] as f64))
            .collect(),
        ci: vec![],
    };
    let series = [
        hist("none", &f.none),
        hist("FTFD", &f.ftfd),
        hist("RTFD", &f.rtfd),
        hist("RTRD", &f.rtrd),
    ];
    let c = Chart {
        title: "Fig. 3: RTT histograms, D0 = 100 ms, N = 3".into(),
        x_label: "RTT (ms)".into(),
        y_label: "samples".into(),
    };
    scatter_chart(&c, &series, &out_dir().join("fig3")).unwrap();
    println!(
        "fig1 timeouts {:?}, fig2 timeouts {:?}, counts {:?}",
        w1.timeouts,
        w2.timeouts,
        timeouts_by_method(&trace, d0, 3, &p, &mut rng)
    );
}
