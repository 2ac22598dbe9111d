//! Figures of one flow's trace, and small generic charts for result figures.
//!
//! Every figure is written twice, `<base>.png` and `<base>.svg`, from one drawing
//! function generic over the plotters backend. Text is rendered with the bundled DejaVu
//! Sans (`assets/DejaVuSans.ttf`, Bitstream Vera licence in
//! `assets/DejaVuSans-LICENSE.txt`) through plotters' `ab_glyph` feature, registered as
//! the `sans-serif` family, so no system font library is needed.
//!
//! * [`time_sequence_plot`]: the papers' time-sequence plot: sequence number (KB, 1000
//!   bytes, of the segment's first byte) against time; first transmissions, retransmissions,
//!   ACKs, drops and timer expiries with their own markers; delay spikes shaded.
//! * [`window_timer_plot`]: two panels: cwnd and ssthresh (KB), and RTO, SRTT and RTT
//!   samples (ms), against time, spikes shaded in both.
//! * [`bbr_plot`]: a model-based controller's estimates (BBR): bandwidth estimate and
//!   pacing rate (Mbit/s), and min_rtt (ms), against time, from the trace's `Bbr` records.
//! * [`line_chart`], [`scatter_chart`], [`bar_chart`]: labelled series with optional
//!   confidence whiskers.
//!
//! An ssthresh at or above [`SSTHRESH_INFINITE`] means "not set yet" and is not drawn.

use crate::error::{OutputError, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use spikelab_core::trace::{TraceEvent, TraceRecord};
use spikelab_core::{FlowId, Time};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// ssthresh values at or above this many bytes (1 GiB) are treated as infinite.
pub const SSTHRESH_INFINITE: u64 = 1 << 30;
/// The font family every figure uses (DejaVu Sans, bundled).
pub const FONT_FAMILY: &str = "sans-serif";

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static FONT_REGISTERED: OnceLock<bool> = OnceLock::new();

/// Registers the bundled font once per process; errors if it cannot be parsed.
fn ensure_font() -> Result<()> {
    let ok = *FONT_REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT_FAMILY, FontStyle::Normal, FONT).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| OutputError::Plot("bundled font could not be loaded".into()))
}

fn plot_err<E: std::fmt::Display>(e: E) -> OutputError {
    OutputError::Plot(e.to_string())
}

/// The two files a figure is written to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotFiles {
    /// `<base>.png`
    pub png: PathBuf,
    /// `<base>.svg`
    pub svg: PathBuf,
}

fn with_suffix(base: &Path, ext: &str) -> PathBuf {
    let mut s = OsString::from(base.as_os_str());
    s.push(ext);
    PathBuf::from(s)
}

/// Something that can draw itself on any plotters backend.
trait Figure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>;
}

/// Draws `fig` into `<base>.png` and `<base>.svg`, `size` pixels.
fn render(fig: &impl Figure, base: &Path, size: (u32, u32)) -> Result<PlotFiles> {
    ensure_font()?;
    let files = PlotFiles {
        png: with_suffix(base, ".png"),
        svg: with_suffix(base, ".svg"),
    };
    {
        let root = BitMapBackend::new(&files.png, size).into_drawing_area();
        fig.draw(&root)?;
        root.present().map_err(plot_err)?;
    }
    {
        let root = SVGBackend::new(&files.svg, size).into_drawing_area();
        fig.draw(&root)?;
        root.present().map_err(plot_err)?;
    }
    Ok(files)
}

/// The records of `flow` plus every [`TraceEvent::Spike`] (spikes belong to paths).
pub fn flow_records(records: &[TraceRecord], flow: FlowId) -> Vec<TraceRecord> {
    records
        .iter()
        .filter(|r| r.flow == flow || matches!(r.event, TraceEvent::Spike { .. }))
        .copied()
        .collect()
}

fn secs(t: Time) -> f64 {
    t.as_secs_f64()
}

fn kb(bytes: u64) -> f64 {
    bytes as f64 / 1000.0
}

/// Spike intervals `[start, end)` in seconds; a spike still open ends at `t_end`.
fn spike_intervals(records: &[TraceRecord], t_end: f64) -> Vec<(f64, f64)> {
    let mut open: Vec<(u32, f64)> = Vec::new();
    let mut done = Vec::new();
    for r in records {
        if let TraceEvent::Spike { start, link } = r.event {
            if start {
                open.push((link, secs(r.time)));
            } else if let Some(i) = open.iter().position(|&(l, _)| l == link) {
                done.push((open.remove(i).1, secs(r.time)));
            }
        }
    }
    done.extend(open.into_iter().map(|(_, s)| (s, t_end)));
    done
}

/// Last event time in seconds, and at least a small positive span.
fn end_time(records: &[TraceRecord]) -> f64 {
    records
        .iter()
        .map(|r| secs(r.time))
        .fold(0.0, f64::max)
        .max(1e-3)
}

/// Shades the spike intervals over the full height of `chart`'s y range.
fn shade_spikes<'a, DB: DrawingBackend + 'a>(
    chart: &mut F64Chart<'a, DB>,
    spikes: &[(f64, f64)],
    y: (f64, f64),
) -> Result<()> {
    let fill = RGBColor(255, 200, 120).mix(0.45).filled();
    chart
        .draw_series(
            spikes
                .iter()
                .map(|&(a, b)| Rectangle::new([(a, y.0), (b, y.1)], fill)),
        )
        .map_err(plot_err)?
        .label("delay spike")
        .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], fill));
    Ok(())
}

/// Points of the time-sequence plot, in seconds and KB.
#[derive(Default)]
struct SeqPoints {
    sent: Vec<(f64, f64)>,
    retx: Vec<(f64, f64)>,
    acks: Vec<(f64, f64)>,
    drops: Vec<(f64, f64)>,
    ack_drops: Vec<(f64, f64)>,
    genuine_rto: Vec<(f64, f64)>,
    spurious_rto: Vec<(f64, f64)>,
}

impl SeqPoints {
    fn from(records: &[TraceRecord]) -> SeqPoints {
        let mut p = SeqPoints::default();
        for r in records {
            let t = secs(r.time);
            match r.event {
                TraceEvent::Send {
                    seq, retx: false, ..
                } => p.sent.push((t, kb(seq))),
                TraceEvent::Send {
                    seq, retx: true, ..
                } => p.retx.push((t, kb(seq))),
                TraceEvent::AckRecv { ack, .. } => p.acks.push((t, kb(ack))),
                TraceEvent::Drop {
                    seq, is_ack: false, ..
                } => p.drops.push((t, kb(seq))),
                TraceEvent::Drop {
                    seq, is_ack: true, ..
                } => p.ack_drops.push((t, kb(seq))),
                TraceEvent::Timeout {
                    seq,
                    spurious: false,
                } => p.genuine_rto.push((t, kb(seq))),
                TraceEvent::Timeout {
                    seq,
                    spurious: true,
                } => p.spurious_rto.push((t, kb(seq))),
                _ => {}
            }
        }
        p
    }

    fn y_max(&self) -> f64 {
        [
            &self.sent,
            &self.retx,
            &self.acks,
            &self.drops,
            &self.ack_drops,
        ]
        .iter()
        .flat_map(|v| v.iter().map(|p| p.1))
        .fold(1.0, f64::max)
    }
}

/// The time-sequence figure of one flow.
struct TimeSequence<'a> {
    records: &'a [TraceRecord],
    title: &'a str,
}

impl Figure for TimeSequence<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        root.fill(&WHITE).map_err(plot_err)?;
        let pts = SeqPoints::from(self.records);
        let t_end = end_time(self.records) * 1.02;
        let y_top = pts.y_max() * 1.05;
        let mut chart = ChartBuilder::on(root)
            .caption(self.title, (FONT_FAMILY, 24))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(75)
            .build_cartesian_2d(0.0..t_end, 0.0..y_top)
            .map_err(plot_err)?;
        mesh(&mut chart, "time (s)", "sequence number (KB)")?;
        shade_spikes(
            &mut chart,
            &spike_intervals(self.records, t_end),
            (0.0, y_top),
        )?;
        let series: [(Points<'_>, &str, RGBColor, Marker); 7] = [
            (
                &pts.acks,
                "ACK received",
                RGBColor(0, 150, 0),
                Marker::Dot(2),
            ),
            (&pts.sent, "segment sent", BLUE, Marker::Dot(3)),
            (&pts.retx, "retransmission", RED, Marker::Triangle(6)),
            (&pts.drops, "segment dropped", BLACK, Marker::Cross(6)),
            (&pts.ack_drops, "ACK dropped", MAGENTA, Marker::Cross(5)),
            (
                &pts.genuine_rto,
                "timeout (genuine)",
                RGBColor(150, 0, 0),
                Marker::Square(6),
            ),
            (
                &pts.spurious_rto,
                "timeout (spurious)",
                RGBColor(230, 120, 0),
                Marker::Square(6),
            ),
        ];
        for (points, label, color, marker) in series {
            if !points.is_empty() {
                draw_points(&mut chart, points, label, color, marker)?;
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    }
}

/// Points in data coordinates.
type Points<'a> = &'a [(f64, f64)];
/// Points with a legend label and a colour.
type Styled<'a> = (Points<'a>, &'a str, RGBColor);

/// How a point series is marked.
#[derive(Clone, Copy)]
enum Marker {
    Dot(u32),
    Triangle(u32),
    Cross(u32),
    Square(u32),
}

type F64Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Draws `points` with `marker` in `color` and adds a legend entry.
fn draw_points<'a, DB: DrawingBackend + 'a>(
    chart: &mut F64Chart<'a, DB>,
    points: &[(f64, f64)],
    label: &str,
    color: RGBColor,
    marker: Marker,
) -> Result<()> {
    let style = color.filled();
    let thin = color.stroke_width(2);
    let pts = points.iter().copied();
    let anno = match marker {
        Marker::Dot(r) => chart.draw_series(pts.map(|c| Circle::new(c, r, style))),
        Marker::Triangle(r) => chart.draw_series(pts.map(|c| TriangleMarker::new(c, r, style))),
        Marker::Cross(r) => chart.draw_series(pts.map(|c| Cross::new(c, r, thin))),
        Marker::Square(r) => {
            let r = r as i32;
            let square = move |c| EmptyElement::at(c) + Rectangle::new([(-r, -r), (r, r)], thin);
            chart.draw_series(pts.map(square))
        }
    }
    .map_err(plot_err)?
    .label(label);
    match marker {
        Marker::Dot(_) => anno.legend(move |(x, y)| Circle::new((x + 7, y), 4, style)),
        Marker::Triangle(_) => anno.legend(move |(x, y)| TriangleMarker::new((x + 7, y), 6, style)),
        Marker::Cross(_) => anno.legend(move |(x, y)| Cross::new((x + 7, y), 5, thin)),
        Marker::Square(_) => {
            anno.legend(move |(x, y)| Rectangle::new([(x + 2, y - 5), (x + 12, y + 5)], thin))
        }
    };
    Ok(())
}

/// Light grid, axis descriptions and readable label fonts.
fn mesh<'a, DB: DrawingBackend + 'a>(chart: &mut F64Chart<'a, DB>, x: &str, y: &str) -> Result<()> {
    chart
        .configure_mesh()
        .x_desc(x)
        .y_desc(y)
        .axis_desc_style((FONT_FAMILY, 18))
        .label_style((FONT_FAMILY, 15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(plot_err)
}

/// A framed legend at `pos`.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut F64Chart<'a, DB>,
    pos: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(pos)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT_FAMILY, 15))
        .draw()
        .map_err(plot_err)
}

/// Draws the time-sequence plot of one flow's records into `<base>.png` / `.svg`.
/// Pass one flow's records (see [`flow_records`]).
pub fn time_sequence_plot(records: &[TraceRecord], title: &str, base: &Path) -> Result<PlotFiles> {
    render(&TimeSequence { records, title }, base, (1200, 750))
}

/// A value that holds until the next change, drawn as steps up to `t_end`.
fn steps(points: &[(f64, f64)], t_end: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2 + 1);
    for (i, &(t, v)) in points.iter().enumerate() {
        if i > 0 {
            out.push((t, points[i - 1].1));
        }
        out.push((t, v));
    }
    if let Some(&(_, v)) = points.last() {
        out.push((t_end, v));
    }
    out
}

/// Series of the window / timer figure, in seconds, KB and ms.
#[derive(Default)]
struct WindowPoints {
    cwnd: Vec<(f64, f64)>,
    ssthresh: Vec<(f64, f64)>,
    rto: Vec<(f64, f64)>,
    srtt: Vec<(f64, f64)>,
    rtt: Vec<(f64, f64)>,
}

impl WindowPoints {
    fn from(records: &[TraceRecord]) -> WindowPoints {
        let mut p = WindowPoints::default();
        for r in records {
            let t = secs(r.time);
            match r.event {
                TraceEvent::Cwnd { cwnd, ssthresh } => {
                    p.cwnd.push((t, kb(cwnd)));
                    if ssthresh < SSTHRESH_INFINITE {
                        p.ssthresh.push((t, kb(ssthresh)));
                    }
                }
                TraceEvent::Rto { rto, .. } => p.rto.push((t, rto.as_millis_f64())),
                TraceEvent::Srtt { srtt } => p.srtt.push((t, srtt.as_millis_f64())),
                TraceEvent::RttSample { rtt } => p.rtt.push((t, rtt.as_millis_f64())),
                _ => {}
            }
        }
        p
    }
}

fn max_y(series: &[&[(f64, f64)]]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.iter().map(|p| p.1))
        .fold(1.0, f64::max)
        * 1.08
}

/// The two-panel window / timer figure of one flow.
struct WindowTimer<'a> {
    records: &'a [TraceRecord],
    title: &'a str,
}

/// One panel: step lines and point series over a shared time axis.
struct Panel<'a> {
    y_desc: &'a str,
    lines: &'a [Styled<'a>],
    points: &'a [Styled<'a>],
}

impl Panel<'_> {
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        caption: Option<&str>,
        t_end: f64,
        spikes: &[(f64, f64)],
    ) -> Result<()> {
        let all: Vec<&[(f64, f64)]> = self.lines.iter().chain(self.points).map(|s| s.0).collect();
        let y_top = max_y(&all);
        let mut b = ChartBuilder::on(area);
        if let Some(c) = caption {
            b.caption(c, (FONT_FAMILY, 24));
        }
        let mut chart = b
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(75)
            .build_cartesian_2d(0.0..t_end, 0.0..y_top)
            .map_err(plot_err)?;
        mesh(&mut chart, "time (s)", self.y_desc)?;
        shade_spikes(&mut chart, spikes, (0.0, y_top))?;
        for &(pts, label, color) in self.lines {
            chart
                .draw_series(LineSeries::new(steps(pts, t_end), color.stroke_width(2)))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        for &(pts, label, color) in self.points {
            draw_points(&mut chart, pts, label, color, Marker::Dot(3))?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    }
}

impl Figure for WindowTimer<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        root.fill(&WHITE).map_err(plot_err)?;
        let p = WindowPoints::from(self.records);
        let t_end = end_time(self.records) * 1.02;
        let spikes = spike_intervals(self.records, t_end);
        let (top, bottom) = root.split_vertically(root.dim_in_pixel().1 / 2);
        let window = Panel {
            y_desc: "window (KB)",
            lines: &[
                (&p.cwnd, "cwnd", BLUE),
                (&p.ssthresh, "ssthresh", RGBColor(200, 0, 160)),
            ],
            points: &[],
        };
        window.draw(&top, Some(self.title), t_end, &spikes)?;
        let timers = Panel {
            y_desc: "time (ms)",
            lines: &[(&p.rto, "RTO", RED), (&p.srtt, "SRTT", BLUE)],
            points: &[(&p.rtt, "RTT sample", RGBColor(0, 150, 0))],
        };
        timers.draw(&bottom, None, t_end, &spikes)
    }
}

/// Draws cwnd/ssthresh and RTO/SRTT/RTT-sample panels of one flow's records into
/// `<base>.png` / `.svg`.
pub fn window_timer_plot(records: &[TraceRecord], title: &str, base: &Path) -> Result<PlotFiles> {
    render(&WindowTimer { records, title }, base, (1200, 900))
}

/// Title and axis descriptions of a generic chart.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    /// Caption above the plot.
    pub title: String,
    /// Description of the x axis.
    pub x_label: String,
    /// Description of the y axis.
    pub y_label: String,
}

/// One labelled data series; `ci[i]` is the confidence half-width of `points[i]`
/// (leave `ci` empty, or put NaN, for no whisker).
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// (x, y) points, drawn in the given order.
    pub points: Vec<(f64, f64)>,
    /// Confidence half-widths, one per point, or empty.
    pub ci: Vec<f64>,
}

/// One bar of a [`bar_chart`]: a category label, a value and its confidence half-width
/// (NaN for none).
#[derive(Clone, Debug)]
pub struct Bar {
    /// Category label under the bar.
    pub label: String,
    /// Bar height.
    pub value: f64,
    /// Confidence half-width (NaN: no whisker).
    pub ci: f64,
}

/// `(lo, hi)` of the finite values in `vals`, padded by 5%; (0, 1) if none.
fn padded_range(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vals
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo > hi {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        lo.abs().max(1.0) * 0.05
    };
    (lo - pad, hi + pad)
}

/// `(y - h, y, y + h)` for a finite confidence half-width `h`, else `None`.
fn whisker_ends(y: f64, h: f64) -> Option<(f64, f64, f64)> {
    h.is_finite().then_some((y - h, y, y + h))
}

/// The whisker `(x, lo, y, hi)` of point `i` of `s`, if it has a finite half-width.
fn whisker(s: &Series, i: usize) -> Option<(f64, f64, f64, f64)> {
    let (x, y) = s.points[i];
    let (lo, y, hi) = whisker_ends(y, *s.ci.get(i)?)?;
    Some((x, lo, y, hi))
}

/// A generic chart of series: lines or bare points, each with optional whiskers.
struct SeriesChart<'a> {
    chart: &'a Chart,
    series: &'a [Series],
    lines: bool,
}

impl Figure for SeriesChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        root.fill(&WHITE).map_err(plot_err)?;
        let xs = padded_range(
            self.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
        );
        let ys = padded_range(self.series.iter().flat_map(|s| {
            let w = (0..s.points.len()).filter_map(|i| whisker(s, i));
            s.points
                .iter()
                .map(|p| p.1)
                .chain(w.flat_map(|w| [w.1, w.3]))
        }));
        let mut chart = ChartBuilder::on(root)
            .caption(&self.chart.title, (FONT_FAMILY, 24))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(75)
            .build_cartesian_2d(xs.0..xs.1, ys.0..ys.1)
            .map_err(plot_err)?;
        mesh(&mut chart, &self.chart.x_label, &self.chart.y_label)?;
        for (i, s) in self.series.iter().enumerate() {
            self.draw_one(&mut chart, s, Palette99::pick(i).to_rgba())?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    }
}

impl SeriesChart<'_> {
    fn draw_one<'a, DB: DrawingBackend + 'a>(
        &self,
        chart: &mut F64Chart<'a, DB>,
        s: &Series,
        color: RGBAColor,
    ) -> Result<()> {
        let whiskers = (0..s.points.len()).filter_map(|i| whisker(s, i));
        chart
            .draw_series(whiskers.map(|(x, lo, y, hi)| {
                ErrorBar::new_vertical(x, lo, y, hi, color.stroke_width(1), 8)
            }))
            .map_err(plot_err)?;
        if self.lines {
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(plot_err)?;
        }
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(plot_err)?
            .label(s.label.as_str())
            .legend(move |(x, y)| Circle::new((x + 7, y), 4, color.filled()));
        Ok(())
    }
}

/// Whether `records` hold a model-based controller's estimates ([`TraceEvent::Bbr`]).
pub fn has_model_estimates(records: &[TraceRecord]) -> bool {
    records
        .iter()
        .any(|r| matches!(r.event, TraceEvent::Bbr { .. }))
}

/// A model-based controller's estimates against time: `<base>-rate` (bandwidth
/// estimate and pacing rate, Mbit/s) and `<base>-minrtt` (min_rtt, ms), each as PNG and
/// SVG through [`line_chart`]. Returns the files written.
pub fn bbr_plot(records: &[TraceRecord], title: &str, base: &Path) -> Result<Vec<PlotFiles>> {
    let mut bw = Vec::new();
    let mut pacing = Vec::new();
    let mut min_rtt = Vec::new();
    for r in records {
        if let TraceEvent::Bbr {
            bw: b,
            min_rtt: m,
            pacing_rate,
        } = r.event
        {
            let t = r.time.as_secs_f64();
            // One point per 10 ms at most: the estimates change on every ACK.
            if pacing.last().is_some_and(|&(last, _)| t - last < 0.01) {
                continue;
            }
            bw.push((t, b as f64 * 8e-6));
            pacing.push((t, pacing_rate as f64 * 8e-6));
            if let Some(m) = m {
                min_rtt.push((t, m.as_secs_f64() * 1e3));
            }
        }
    }
    let series = |label: &str, points: Vec<(f64, f64)>| Series {
        label: label.into(),
        points,
        ci: Vec::new(),
    };
    let chart = |y: &str| Chart {
        title: title.into(),
        x_label: "time (s)".into(),
        y_label: y.into(),
    };
    let with_suffix = |suffix: &str| {
        let mut name = base.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    let rates = [
        series("bandwidth estimate", bw),
        series("pacing rate", pacing),
    ];
    let rate = line_chart(&chart("Mbit/s"), &rates, &with_suffix("-rate"))?;
    let rtt = [series("min_rtt", min_rtt)];
    let minrtt = line_chart(&chart("ms"), &rtt, &with_suffix("-minrtt"))?;
    Ok(vec![rate, minrtt])
}

/// Draws `series` as lines with point markers and CI whiskers into `<base>.png` / `.svg`.
pub fn line_chart(chart: &Chart, series: &[Series], base: &Path) -> Result<PlotFiles> {
    render(
        &SeriesChart {
            chart,
            series,
            lines: true,
        },
        base,
        (1000, 650),
    )
}

/// Draws `series` as bare points with CI whiskers into `<base>.png` / `.svg`.
pub fn scatter_chart(chart: &Chart, series: &[Series], base: &Path) -> Result<PlotFiles> {
    render(
        &SeriesChart {
            chart,
            series,
            lines: false,
        },
        base,
        (1000, 650),
    )
}

/// A bar chart with one bar per category and CI whiskers.
struct BarChart<'a> {
    chart: &'a Chart,
    bars: &'a [Bar],
}

type BarCoord = Cartesian2d<
    plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordi32>,
    plotters::coord::types::RangedCoordf64,
>;

impl Figure for BarChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()> {
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = self.axes(root)?;
        let fill = Palette99::pick(0).mix(0.8).filled();
        let rects = self.bars.iter().enumerate().map(|(i, b)| {
            let (x0, x1) = (
                SegmentValue::Exact(i as i32),
                SegmentValue::Exact(i as i32 + 1),
            );
            let mut r = Rectangle::new([(x0, 0.0), (x1, b.value)], fill);
            r.set_margin(0, 0, 12, 12);
            r
        });
        chart.draw_series(rects).map_err(plot_err)?;
        let whiskers = self.bars.iter().enumerate().filter_map(|(i, b)| {
            let (lo, y, hi) = whisker_ends(b.value, b.ci)?;
            let x = SegmentValue::CenterOf(i as i32);
            Some(ErrorBar::new_vertical(
                x,
                lo,
                y,
                hi,
                BLACK.stroke_width(2),
                14,
            ))
        });
        chart.draw_series(whiskers).map_err(plot_err)?;
        Ok(())
    }
}

impl BarChart<'_> {
    /// Builds the chart with one labelled slot per bar and a y range from 0.
    fn axes<'a, DB: DrawingBackend + 'a>(
        &self,
        root: &'a DrawingArea<DB, Shift>,
    ) -> Result<ChartContext<'a, DB, BarCoord>> {
        let n = self.bars.len().max(1) as i32;
        let tops = self
            .bars
            .iter()
            .map(|b| whisker_ends(b.value, b.ci).map_or(b.value, |w| w.2));
        let y_top = padded_range(tops.chain([0.0])).1;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.chart.title, (FONT_FAMILY, 24))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(75)
            .build_cartesian_2d((0..n - 1).into_segmented(), 0.0..y_top)
            .map_err(plot_err)?;
        let label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => self
                .bars
                .get(*i as usize)
                .map_or("", |b| &b.label)
                .to_owned(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(self.chart.x_label.as_str())
            .y_desc(self.chart.y_label.as_str())
            .axis_desc_style((FONT_FAMILY, 18))
            .label_style((FONT_FAMILY, 15))
            .x_labels(self.bars.len().max(1))
            .x_label_formatter(&label)
            .draw()
            .map_err(plot_err)?;
        Ok(chart)
    }
}

/// Draws one bar per category with CI whiskers into `<base>.png` / `.svg`.
pub fn bar_chart(chart: &Chart, bars: &[Bar], base: &Path) -> Result<PlotFiles> {
    render(&BarChart { chart, bars }, base, (1000, 650))
}
