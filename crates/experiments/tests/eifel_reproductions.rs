//! The two Eifel reproductions, run with a few repetitions: every file the issue names
//! is written with its columns, and the papers' robust qualitative claims hold.

use spikelab_experiments::papers::eifel_response::EIFEL_RESPONSE;
use spikelab_experiments::papers::gprs_eifel::GPRS_EIFEL;
use spikelab_experiments::reproduction::{Context, Reproduction};
use spikelab_experiments::runner::Counter;
use std::collections::BTreeMap;
use std::path::Path;

mod common;

fn run(r: &dyn Reproduction, reps: u32, root: &Path) -> spikelab_experiments::report::Section {
    let progress = Counter::default();
    let dir = root.join(r.name());
    std::fs::create_dir_all(&dir).unwrap();
    let ctx = Context {
        root: root.to_path_buf(),
        dir,
        reps,
        seed: 1,
        jobs: 2,
        progress: &progress,
    };
    r.run(&ctx).unwrap()
}

fn num(row: &BTreeMap<String, String>, col: &str) -> f64 {
    row[col].parse().unwrap()
}

#[test]
fn every_experiment_file_parses_and_names_its_files() {
    for r in [&GPRS_EIFEL, &EIFEL_RESPONSE] {
        let spec = r.spec().unwrap();
        assert!(
            !spec.table.is_empty() && !spec.figure.is_empty(),
            "{}",
            spec.name
        );
    }
}

#[test]
fn gprs_eifel_writes_tables_2_and_3_and_eifel_raises_goodput_without_congestion() {
    let tmp = tempfile::tempdir().unwrap();
    let section = run(&GPRS_EIFEL, 4, tmp.path());
    let dir = tmp.path().join("gprs-eifel");
    for f in [
        "table2.md",
        "table3.md",
        "fig2.png",
        "fig2.svg",
        "fig3.png",
        "fig7.png",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let (header, t2) = common::table(&dir.join("table2_download_time.csv"));
    assert_eq!(
        header,
        [
            "scenario",
            "buffer_kb",
            "tcp",
            "eifel",
            "mean",
            "ci95",
            "reps"
        ]
    );
    assert_eq!(t2.len(), 36);
    let (_, t3) = common::table(&dir.join("table3_goodput.csv"));
    // [Gurtov & Ludwig 2002] 5: with the 100 KB buffer "the goodput for all three TCP flavors
    // with Eifel is close to 100 percent", above the flavors without it.
    for on in t3
        .iter()
        .filter(|r| r["buffer_kb"] == "100" && r["eifel"] == "on" && r["scenario"] == "difficult")
    {
        let off = t3
            .iter()
            .find(|r| {
                r["buffer_kb"] == "100"
                    && r["eifel"] == "off"
                    && r["scenario"] == "difficult"
                    && r["tcp"] == on["tcp"]
            })
            .unwrap();
        assert!(
            num(on, "mean") > 0.97 && num(on, "mean") > num(off, "mean"),
            "{on:?} vs {off:?}"
        );
    }
    assert!(section.blocks.len() >= 6);
}

#[test]
fn eifel_response_writes_tables_1_to_4_with_the_issues_columns_beside_the_paper() {
    let tmp = tempfile::tempdir().unwrap();
    let section = run(&EIFEL_RESPONSE, 2, tmp.path());
    let dir = tmp.path().join("eifel-response");
    let want = [
        "tcp",
        "eifel",
        "cc_restore",
        "rto_adapt",
        "time_s",
        "segments_sent",
        "spurious_rtos",
        "genuine_rtos",
        "spurious_expiries",
        "genuine_expiries",
        "time_s_ci95",
        "segments_sent_ci95",
        "spurious_rtos_ci95",
        "genuine_rtos_ci95",
        "spurious_expiries_ci95",
        "genuine_expiries_ci95",
        "reps",
    ];
    for (n, cells) in [(1, 2), (2, 6), (3, 4), (4, 4)] {
        let (header, t) = common::table(&dir.join(format!("table{n}.csv")));
        assert_eq!(header, want, "table{n}");
        assert_eq!(t.len(), cells, "table{n}");
        assert!(dir.join(format!("table{n}.md")).exists());
        // The paper's RTO columns count episodes; each has at least one expiry.
        for row in &t {
            assert!(num(row, "spurious_rtos") <= num(row, "spurious_expiries"));
            assert!(num(row, "genuine_rtos") <= num(row, "genuine_expiries"));
        }
    }
    let (_, t1) = common::table(&dir.join("table1.csv"));
    assert_eq!(
        (t1[0]["eifel"].as_str(), t1[0]["cc_restore"].as_str()),
        ("off", "-")
    );
    // Table 1 is published: the section sets ours beside it.
    let comparisons = section
        .blocks
        .iter()
        .any(|b| matches!(b, spikelab_experiments::report::Block::Comparisons(c) if c.len() == 8));
    assert!(comparisons);
    for f in ["fig8a", "fig8b", "fig9a", "fig9b", "fig9c"] {
        assert!(dir.join(format!("{f}.png")).exists(), "{f}");
    }
}
