//! Plots of a synthetic trace: a bulk transfer hit by one delay spike that causes a
//! spurious timeout, drawn as PNG and SVG.

use spikelab_core::trace::{TraceEvent, TraceRecord};
use spikelab_core::{Dur, FlowId, Time};
use spikelab_output::plot::{
    bar_chart, flow_records, line_chart, scatter_chart, time_sequence_plot, window_timer_plot, Bar,
    Chart, PlotFiles, Series,
};
use std::path::PathBuf;

const MSS: u64 = 1000;
const RTT_MS: u64 = 200;

fn at(ms: u64, event: TraceEvent) -> TraceRecord {
    TraceRecord {
        time: Time(Dur::from_millis(ms).0),
        flow: FlowId(0),
        event,
    }
}

fn send(ms: u64, seg: u64, retx: bool) -> TraceRecord {
    let ev = TraceEvent::Send {
        seq: seg * MSS,
        len: MSS as u32,
        retx,
    };
    at(ms, ev)
}

fn ack(ms: u64, seg: u64) -> TraceRecord {
    at(
        ms,
        TraceEvent::AckRecv {
            ack: seg * MSS,
            dup: false,
        },
    )
}

/// One segment every 50 ms, ACKed one RTT later, except while a spike holds every
/// packet from 2.0 s to 3.0 s; the RTO fires spuriously at 2.6 s; segment 5 is dropped.
fn synthetic_trace() -> Vec<TraceRecord> {
    let mut r = vec![
        at(
            2000,
            TraceEvent::Spike {
                start: true,
                link: 0,
            },
        ),
        at(
            3000,
            TraceEvent::Spike {
                start: false,
                link: 0,
            },
        ),
        at(
            0,
            TraceEvent::Cwnd {
                cwnd: 2 * MSS,
                ssthresh: u64::MAX,
            },
        ),
        at(
            1,
            TraceEvent::Rto {
                rto: Dur::from_secs(1),
                backoff: 0,
            },
        ),
        at(
            250,
            TraceEvent::Drop {
                seq: 5 * MSS,
                len: MSS as u32,
                is_ack: false,
                link: 0,
            },
        ),
        at(
            2600,
            TraceEvent::Timeout {
                seq: 35 * MSS,
                spurious: true,
            },
        ),
        send(2600, 35, true),
        at(
            2600,
            TraceEvent::Cwnd {
                cwnd: MSS,
                ssthresh: 6 * MSS,
            },
        ),
        at(
            2600,
            TraceEvent::Rto {
                rto: Dur::from_secs(2),
                backoff: 1,
            },
        ),
    ];
    for seg in 0..60u64 {
        let t = seg * 50;
        let in_spike = (2000..2600).contains(&t);
        if seg != 5 && !in_spike {
            r.push(send(t, seg, false));
        }
        let ack_at = (t + RTT_MS).max(if (1800..3000).contains(&(t + RTT_MS)) {
            3000
        } else {
            0
        });
        if !in_spike && seg != 5 {
            r.push(ack(ack_at + seg % 3, seg + 1));
            let rtt = Dur::from_millis(ack_at - t);
            r.push(at(ack_at + seg % 3, TraceEvent::RttSample { rtt }));
            let srtt = Dur::from_millis(RTT_MS + seg);
            r.push(at(ack_at + seg % 3, TraceEvent::Srtt { srtt }));
            let cwnd = (2 + seg.min(20)) * MSS;
            r.push(at(
                ack_at + seg % 3,
                TraceEvent::Cwnd {
                    cwnd,
                    ssthresh: if ack_at > 2600 { 6 * MSS } else { u64::MAX },
                },
            ));
        }
    }
    r.push(send(420, 5, true));
    r.sort_by_key(|x| x.time);
    r
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spikelab-output-plots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn assert_png_and_svg(files: &PlotFiles, svg_must_contain: &[&str]) {
    let png = std::fs::read(&files.png).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}", files.png.display());
    assert!(
        png.len() > 10_000,
        "{} is only {} bytes",
        files.png.display(),
        png.len()
    );
    let svg = std::fs::read_to_string(&files.svg).unwrap();
    assert!(svg.starts_with("<svg"), "{}", files.svg.display());
    for text in svg_must_contain {
        assert!(svg.contains(text), "{} lacks `{text}`", files.svg.display());
    }
}

#[test]
fn time_sequence_plot_has_axes_legend_and_markers() {
    let trace = flow_records(&synthetic_trace(), FlowId(0));
    let files =
        time_sequence_plot(&trace, "flow 0: one delay spike", &out_dir().join("seq")).unwrap();
    assert_png_and_svg(
        &files,
        &[
            "time (s)",
            "sequence number (KB)",
            "retransmission",
            "delay spike",
            "timeout (spurious)",
        ],
    );
}

#[test]
fn window_timer_plot_has_both_panels() {
    let files = window_timer_plot(
        &synthetic_trace(),
        "flow 0: windows and timers",
        &out_dir().join("cwnd_rto"),
    )
    .unwrap();
    assert_png_and_svg(
        &files,
        &[
            "window (KB)",
            "time (ms)",
            "ssthresh",
            "RTO",
            "SRTT",
            "RTT sample",
        ],
    );
}

#[test]
fn plots_are_byte_identical_across_runs() {
    let trace = synthetic_trace();
    let a = window_timer_plot(&trace, "t", &out_dir().join("same_a")).unwrap();
    let b = window_timer_plot(&trace, "t", &out_dir().join("same_b")).unwrap();
    assert_eq!(
        std::fs::read(&a.png).unwrap(),
        std::fs::read(&b.png).unwrap()
    );
    assert_eq!(
        std::fs::read(&a.svg).unwrap(),
        std::fs::read(&b.svg).unwrap()
    );
}

fn chart() -> Chart {
    Chart {
        title: "download time vs spike length".into(),
        x_label: "spike length (s)".into(),
        y_label: "download time (s)".into(),
    }
}

fn series() -> Vec<Series> {
    let mk = |label: &str, k: f64| Series {
        label: label.into(),
        points: (1..=6).map(|i| (i as f64, 10.0 + k * i as f64)).collect(),
        ci: (1..=6).map(|i| 0.2 * i as f64).collect(),
    };
    vec![mk("RFC 6298", 2.0), mk("Peak-Hopper", 1.2)]
}

#[test]
fn line_and_scatter_charts_carry_labels_and_whiskers() {
    let files = line_chart(&chart(), &series(), &out_dir().join("line")).unwrap();
    assert_png_and_svg(
        &files,
        &["spike length (s)", "download time (s)", "Peak-Hopper"],
    );
    let files = scatter_chart(&chart(), &series(), &out_dir().join("scatter")).unwrap();
    assert_png_and_svg(&files, &["RFC 6298"]);
}

#[test]
fn bar_chart_labels_each_category() {
    let bars = [
        ("Reno", 12.0, 0.8),
        ("NewReno", 10.5, 0.5),
        ("SACK", 9.8, f64::NAN),
    ]
    .map(|(l, v, ci)| Bar {
        label: l.into(),
        value: v,
        ci,
    });
    let files = bar_chart(&chart(), &bars, &out_dir().join("bars")).unwrap();
    assert_png_and_svg(&files, &["NewReno", "SACK", "download time (s)"]);
}

#[test]
fn empty_inputs_still_draw() {
    let files = time_sequence_plot(&[], "empty", &out_dir().join("empty_seq")).unwrap();
    assert!(files.png.exists() && files.svg.exists());
    line_chart(&chart(), &[], &out_dir().join("empty_line")).unwrap();
    bar_chart(&chart(), &[], &out_dir().join("empty_bars")).unwrap();
}
