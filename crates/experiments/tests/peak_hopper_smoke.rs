//! The peak-hopper reproduction end to end at [`Scale::Smoke`] with 2 repetitions: it
//! writes its CSV files and figures, and the claims the paper makes robustly hold.

use spikelab_experiments::papers::peak_hopper::{PeakHopperRto, Scale};
use spikelab_experiments::report::Block;
use spikelab_experiments::reproduction::{Context, Reproduction};
use spikelab_experiments::runner::Counter;
use std::collections::BTreeMap;
use std::path::Path;

/// The rows of a CSV file as maps from header to field (our files quote nothing: no
/// field holds a comma).
fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn num(row: &BTreeMap<String, String>, key: &str) -> f64 {
    row[key].parse().unwrap()
}

/// Outages that caused a spurious timeout, summed over runs, for (timer, timestamps,
/// kbit/s, d).
fn hits(
    rows: &[BTreeMap<String, String>],
    timer: &str,
    ts: &str,
    kbps: &str,
    d: f64,
) -> (f64, f64) {
    rows.iter()
        .filter(|r| r["timer"] == timer && r["timestamps"] == ts && r["kbps"] == kbps)
        .filter(|r| (num(r, "d_s") - d).abs() < 1e-9)
        .fold((0.0, 0.0), |(h, n), r| {
            (h + num(r, "hits"), n + num(r, "outages"))
        })
}

fn mean_half_life(rows: &[BTreeMap<String, String>], timer: &str) -> f64 {
    let v: Vec<f64> = rows
        .iter()
        .filter(|r| r["timer"] == timer && r["timestamps"] == "1")
        .map(|r| num(r, "half_life_s"))
        .filter(|v| v.is_finite())
        .collect();
    assert!(!v.is_empty(), "{timer} never halved");
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn smoke_run_writes_outputs_and_keeps_the_papers_robust_claims() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("peak-hopper");
    std::fs::create_dir_all(&dir).unwrap();
    let progress = Counter::default();
    let ctx = Context {
        root: root.path().to_path_buf(),
        dir: dir.clone(),
        reps: 2,
        seed: 1,
        jobs: 2,
        progress: &progress,
    };
    let section = PeakHopperRto {
        scale: Scale::Smoke,
    }
    .run(&ctx)
    .unwrap();
    assert_eq!(section.name, "peak-hopper");

    // Every figure the section names exists, as PNG and SVG.
    let figures: Vec<_> = section
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Figure(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    assert!(figures.len() >= 20, "{} figures", figures.len());
    for f in &figures {
        assert!(root.path().join(&f.png).is_file(), "{}", f.png.display());
        assert!(root.path().join(&f.svg).is_file(), "{}", f.svg.display());
    }
    let comparisons = section
        .blocks
        .iter()
        .filter(|b| matches!(b, Block::Comparisons(_)))
        .count();
    assert_eq!(comparisons, 4, "one comparison table per part");
    for csv in [
        "ii-fig2",
        "ii-fig3",
        "a-runs",
        "b-runs",
        "b-p-cdf",
        "c-outages",
        "c-fig18",
        "c-fig18-trace",
    ] {
        let rows = read_csv(&dir.join(format!("{csv}.csv")));
        assert!(!rows.is_empty(), "{csv}.csv is empty");
    }

    // V.D / Fig. 17: for mid-size outages PH-RTO causes no more spurious timeouts than
    // RFC 2988 with timestamps.
    let outages = read_csv(&dir.join("c-outages.csv"));
    for kbps in ["384", "64"] {
        let (ph, n) = hits(&outages, "PH-RTO", "1", kbps, 1.0);
        let (rfc, _) = hits(&outages, "RFC2988-RTO", "1", kbps, 1.0);
        assert!(n > 0.0);
        assert!(ph <= rfc, "{kbps} kbit/s: PH {ph} > RFC {rfc} of {n}");
    }

    // V.D / Fig. 18: with timestamps RFC 2988's RTO halves faster than PH-RTO's.
    let f18 = read_csv(&dir.join("c-fig18.csv"));
    let rfc = mean_half_life(&f18, "RFC2988-RTO");
    let ph = mean_half_life(&f18, "PH-RTO");
    assert!(rfc < ph, "half-lives: RFC {rfc} s, PH {ph} s");

    // V.A / Fig. 13: the original RFC 2988 initialisation is less prompt (larger P) for
    // interactive users than the modified one.
    let a = read_csv(&dir.join("a-runs.csv"));
    let p_of = |config: &str, timer: &str| -> f64 {
        let v: Vec<f64> = a
            .iter()
            .filter(|r| r["config"] == config && r["timer"] == timer)
            .filter(|r| r["workload"] == "interactive")
            .map(|r| num(r, "p"))
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let original = p_of("ts-original-init", "RFC2988-RTO (original init)");
    let modified = p_of("ts", "RFC2988-RTO");
    assert!(
        original > modified,
        "P original {original} vs modified {modified}"
    );
}
