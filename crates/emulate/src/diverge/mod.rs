//! The first diverging decision between two runs of the same flow: the kernel's
//! (`spikelab emulate --pcap`) and the model's (`spikelab run --pcap`), or any two
//! runs with captures at both ends.
//!
//! A run is a sequence of decisions, each taken by one party from what it has seen:
//!
//! | stream | who decides | compared |
//! |---|---|---|
//! | data | the sender: which bytes its next segment carries (new data, a retransmission) | seq and length, in the sender's capture |
//! | data fate | the path: whether that segment reaches the receiver (a queue drop, a loss) | delivered or not, sender's capture against the receiver's (a FIFO path) |
//! | ACKs | the receiver: each ACK it sends | cumulative ACK, SACK blocks, window, in the receiver's capture |
//! | ACK fate | the path: whether that ACK reaches the sender | delivered or not |
//! | timing | a timer, the pacer or the path's timing: when the same data segment is sent | send times more than the tolerance apart |
//! | ACK timing | the receiver's delayed-ACK timer or the path's timing: when the same ACK is sent | send times more than the tolerance apart, in the receiver's capture |
//!
//! Once one decision differs, the rest follow from it, so the earliest is the one to
//! explain: each stream's first difference is found, and the earliest of them in time
//! is reported, with what each side had seen just before it. The connection's close
//! is not compared (the model synthesises it): every stream ends at the first FIN.

pub mod capture;
pub mod datagrams;

use anyhow::{bail, Context};
use capture::{read_capture, Segment};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How far apart the same data segment's send times may be (ms) unless asked
/// otherwise: above the kernel's few milliseconds of start-up offset and scheduling,
/// below a delayed-ACK or retransmission timer.
pub const DEFAULT_TOLERANCE_MS: f64 = 10.0;

/// Packets of each capture shown before a divergence unless asked otherwise.
pub const DEFAULT_CONTEXT: usize = 6;

/// Which decisions a divergence is in (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stream {
    /// The sender's data segments.
    Data,
    /// Whether each data segment reached the receiver.
    DataFate,
    /// The receiver's ACKs.
    Ack,
    /// Whether each ACK reached the sender.
    AckFate,
    /// The same data segment sent more than the tolerance apart.
    Timing,
    /// The same ACK sent more than the tolerance apart.
    AckTiming,
}

impl Stream {
    /// The name in `divergence.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Data => "data",
            Stream::DataFate => "data_fate",
            Stream::Ack => "ack",
            Stream::AckFate => "ack_fate",
            Stream::Timing => "timing",
            Stream::AckTiming => "ack_timing",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Stream::Data => "the sender's data segment",
            Stream::DataFate => "the path's fate of data segment",
            Stream::Ack => "the receiver's ACK",
            Stream::AckFate => "the path's fate of ACK",
            Stream::Timing => "the send time of data segment",
            Stream::AckTiming => "the send time of ACK",
        }
    }

    /// Whether the stream's segments are the sender's (else the receiver's).
    fn of_data(self) -> bool {
        matches!(self, Stream::Data | Stream::DataFate | Stream::Timing)
    }
}

/// One flow's captures at both ends.
pub struct Run {
    /// At the sender: its data as it leaves, ACKs as they arrive.
    pub sender: Vec<Segment>,
    /// At the receiver: data as it arrives, its ACKs as they leave.
    pub receiver: Vec<Segment>,
}

/// The segments before the first FIN that `pick` keeps.
fn before_fin(capture: &[Segment], pick: impl Fn(&Segment) -> bool) -> Vec<&Segment> {
    capture
        .iter()
        .take_while(|s| !s.fin)
        .filter(|s| pick(s))
        .collect()
}

fn is_data(s: &Segment) -> bool {
    s.from_sender && !s.syn && s.len > 0
}

fn is_ack(s: &Segment) -> bool {
    !s.from_sender && !s.syn
}

/// For each packet `sent`, whether it is in `arrived`: the path is FIFO, so the
/// arrivals are the sent packets in order with the lost ones left out; a packet is
/// known by `key`, which holds its IPv4 identification (one per transmission: it tells
/// a retransmission of the same bytes from the original).
fn fates<T, K: PartialEq>(sent: &[T], arrived: &[T], key: impl Fn(&T) -> K) -> Vec<bool> {
    let mut next = arrived.iter().peekable();
    sent.iter()
        .map(|s| {
            let hit = next.peek().is_some_and(|a| key(a) == key(s));
            if hit {
                next.next();
            }
            hit
        })
        .collect()
}

fn data_key(s: &Segment) -> (u64, u32) {
    (s.seq, s.len)
}

fn ack_key(s: &Segment) -> (u64, &[(u64, u64)], u64) {
    (s.ack, &s.sack, s.window)
}

/// The decisions of one run, stream by stream.
struct Decisions<'a> {
    data: Vec<&'a Segment>,
    data_fate: Vec<bool>,
    acks: Vec<&'a Segment>,
    ack_fate: Vec<bool>,
}

impl<'a> Decisions<'a> {
    fn of(run: &'a Run) -> Self {
        let data = before_fin(&run.sender, is_data);
        let acks = before_fin(&run.receiver, is_ack);
        let arrived = before_fin(&run.receiver, is_data);
        let data_fate = fates(&data, &arrived, |s| (s.id, data_key(s)));
        let heard = before_fin(&run.sender, is_ack);
        let ack_fate = fates(&acks, &heard, |s| (s.id, ack_key(s)));
        Decisions {
            data,
            data_fate,
            acks,
            ack_fate,
        }
    }
}

impl<'a> Decisions<'a> {
    /// The divergence of `self` from `other` at decision `i` of `stream`.
    fn divergence(&self, other: &Decisions<'a>, stream: Stream, i: usize) -> Divergence<'a> {
        let pick = |d: &Decisions<'a>| {
            let v = if stream.of_data() { &d.data } else { &d.acks };
            v.get(i).copied()
        };
        let fate = |d: &Decisions<'a>| match stream {
            Stream::DataFate => d.data_fate.get(i).copied(),
            Stream::AckFate => d.ack_fate.get(i).copied(),
            _ => None,
        };
        Divergence {
            stream,
            index: i,
            a: pick(self),
            b: pick(other),
            delivered: fate(self).zip(fate(other)),
        }
    }
}

/// The first index at which `a` and `b` differ, or at which the shorter one ends.
fn first_difference<T, K: PartialEq>(a: &[T], b: &[T], key: impl Fn(&T) -> K) -> Option<usize> {
    let n = a.len().min(b.len());
    (0..n)
        .find(|&i| key(&a[i]) != key(&b[i]))
        .or((a.len() != b.len()).then_some(n))
}

/// Where two runs first part.
#[derive(Debug)]
pub struct Divergence<'a> {
    /// In which decisions.
    pub stream: Stream,
    /// The decision's index in its stream (0-based).
    pub index: usize,
    /// The first run's segment there (none if its stream ended).
    pub a: Option<&'a Segment>,
    /// The second run's.
    pub b: Option<&'a Segment>,
    /// For a fate stream, whether the segment was delivered in each run.
    pub delivered: Option<(bool, bool)>,
}

impl Divergence<'_> {
    /// When it happened: the earlier side's time.
    pub fn t(&self) -> u64 {
        earlier(self.a.map(|s| s.t), self.b.map(|s| s.t))
    }
}

/// "the first diverging decision is" `what` number `index + 1`, with each side's time
/// (`-` where its stream ended).
fn headline(
    what: &str,
    index: usize,
    (la, lb): (&str, &str),
    (ta, tb): (Option<u64>, Option<u64>),
) -> String {
    let time = |t: Option<u64>| t.map_or("-".to_owned(), |t| format!("{:.6} s", t as f64 / 1e9));
    format!(
        "the first diverging decision is {what} {} ({la} at {}, {lb} at {})",
        index + 1,
        time(ta),
        time(tb)
    )
}

/// The earlier of two sides' times, either of which may be missing (its stream ended);
/// 0 when both are.
fn earlier(a: Option<u64>, b: Option<u64>) -> u64 {
    a.into_iter().chain(b).min().unwrap_or(0)
}

/// Two runs compared.
#[derive(Debug)]
pub struct Comparison<'a> {
    /// The earliest diverging decision, if any.
    pub first: Option<Divergence<'a>>,
    /// Data segments and ACKs both sides sent alike before it.
    pub agreed: (usize, usize),
    /// The largest difference in send time over those data segments (ns).
    pub max_drift_ns: u64,
}

/// Compares run `a` with run `b`; send times of the same data segment may differ by
/// up to `tolerance_ns`.
pub fn compare<'a>(a: &'a Run, b: &'a Run, tolerance_ns: u64) -> Comparison<'a> {
    let (da, db) = (Decisions::of(a), Decisions::of(b));
    let data = first_difference(&da.data, &db.data, |s| data_key(s));
    let acks = first_difference(&da.acks, &db.acks, |s| ack_key(s));
    let same_data = data.unwrap_or(da.data.len());
    let same_acks = acks.unwrap_or(da.acks.len());
    let drift = |i: usize| da.data[i].t.abs_diff(db.data[i].t);
    let ack_drift = |i: usize| da.acks[i].t.abs_diff(db.acks[i].t);
    let fate = |fa: &[bool], fb: &[bool], n: usize| (0..n).find(|&i| fa[i] != fb[i]);
    let candidates = [
        (Stream::Data, data),
        (
            Stream::DataFate,
            fate(&da.data_fate, &db.data_fate, same_data),
        ),
        (Stream::Ack, acks),
        (Stream::AckFate, fate(&da.ack_fate, &db.ack_fate, same_acks)),
        (
            Stream::Timing,
            (0..same_data).find(|&i| drift(i) > tolerance_ns),
        ),
        (
            Stream::AckTiming,
            (0..same_acks).find(|&i| ack_drift(i) > tolerance_ns),
        ),
    ];
    let first = candidates
        .into_iter()
        .filter_map(|(stream, i)| Some(da.divergence(&db, stream, i?)))
        .min_by_key(|d| (d.t(), d.stream));
    let until = first.as_ref().map_or(u64::MAX, Divergence::t);
    let agreed_data = (0..same_data)
        .take_while(|&i| da.data[i].t.min(db.data[i].t) < until)
        .count();
    let agreed_acks = (0..same_acks)
        .take_while(|&i| da.acks[i].t.min(db.acks[i].t) < until)
        .count();
    Comparison {
        first,
        agreed: (agreed_data, agreed_acks),
        max_drift_ns: (0..agreed_data).map(drift).max().unwrap_or(0),
    }
}

/// What the sender had seen just before sending a segment.
#[derive(Default)]
struct SenderView {
    snd_una: u64,
    snd_max: u64,
    last_ack: Option<u64>,
    dupacks: u32,
}

/// The sender's view before `s`, one of `capture`'s segments.
fn sender_view(capture: &[Segment], s: &Segment) -> SenderView {
    let mut v = SenderView::default();
    for x in capture.iter().take_while(|x| !std::ptr::eq(*x, s)) {
        if x.from_sender && x.syn {
            continue;
        }
        if x.from_sender {
            v.snd_max = v.snd_max.max(x.end());
            continue;
        }
        if x.ack > v.snd_una {
            (v.snd_una, v.dupacks) = (x.ack, 0);
        } else if x.len == 0 && !x.syn {
            v.dupacks += 1;
        }
        v.last_ack = Some(x.t);
    }
    v
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// A data segment of `capture` and why the sender sent it.
fn describe_data(capture: &[Segment], s: &Segment) -> String {
    let v = sender_view(capture, s);
    let why = if s.seq >= v.snd_max {
        "new data".to_owned()
    } else if s.seq == v.snd_una {
        let since = v.last_ack.map_or(String::new(), |t| {
            format!(" {:.1} ms after the last ACK", ms(s.t - t))
        });
        format!(
            "retransmission of the first unacknowledged byte{since} ({} duplicate ACKs since it advanced)",
            v.dupacks
        )
    } else {
        format!(
            "retransmission {} B above the first unacknowledged byte",
            s.seq - v.snd_una
        )
    };
    let psh = if s.psh { " PSH" } else { "" };
    let outstanding = v.snd_max.saturating_sub(v.snd_una);
    format!(
        "data {}..{} ({} B{psh}) {why}; {outstanding} B outstanding before it",
        s.seq,
        s.end(),
        s.len
    )
}

/// An ACK of the receiver's `capture` and how long after the last data segment it
/// left: the delayed-ACK timer's wait when that segment is what it acknowledges.
fn describe_ack_timing(capture: &[Segment], s: &Segment) -> String {
    let last_data = capture
        .iter()
        .take_while(|x| !std::ptr::eq(*x, s))
        .filter(|x| is_data(x))
        .last();
    let after = last_data.map_or(String::new(), |d| {
        format!(
            ", {:.1} ms after data {}..{} arrived",
            ms(s.t - d.t),
            d.seq,
            d.end()
        )
    });
    format!("{}{after}", describe_ack(s))
}

fn describe_ack(s: &Segment) -> String {
    let blocks: Vec<String> = s.sack.iter().map(|(l, r)| format!("{l}-{r}")).collect();
    let sack = if blocks.is_empty() {
        "none".to_owned()
    } else {
        blocks.join(" ")
    };
    format!("ACK {} SACK {sack} window {}", s.ack, s.window)
}

/// One side's decision at divergence `d`, described.
fn describe(d: &Divergence<'_>, run: &Run, s: Option<&Segment>, delivered: Option<bool>) -> String {
    let Some(s) = s else {
        return "(no more: its stream ended)".to_owned();
    };
    let what = match d.stream {
        Stream::AckTiming => describe_ack_timing(&run.receiver, s),
        _ if d.stream.of_data() => describe_data(&run.sender, s),
        _ => describe_ack(s),
    };
    match delivered {
        Some(true) => format!("{what}; delivered"),
        Some(false) => format!("{what}; lost on the path"),
        None => what,
    }
}

/// One line of a capture, for the context before a divergence.
fn line(s: &Segment) -> String {
    let t = s.t as f64 / 1e9;
    if s.syn {
        let who = if s.from_sender { "SYN" } else { "SYN-ACK" };
        return format!("{t:12.6}  {who}");
    }
    if s.from_sender {
        let psh = if s.psh { " PSH" } else { "" };
        format!("{t:12.6}  data {}..{}{psh}", s.seq, s.end())
    } else {
        format!("{t:12.6}  {}", describe_ack(s))
    }
}

/// The `n` segments of the capture `d`'s stream lives in, before `s`.
fn context(d: &Divergence<'_>, run: &Run, s: &Segment, n: usize) -> Vec<String> {
    let capture = if d.stream.of_data() {
        &run.sender
    } else {
        &run.receiver
    };
    let before = capture
        .iter()
        .position(|x| std::ptr::eq(x, s))
        .unwrap_or(capture.len());
    capture[before.saturating_sub(n)..before]
        .iter()
        .map(line)
        .collect()
}

/// One flow's two runs and their names in the report.
pub struct Pair<'a> {
    /// Repetition.
    pub rep: u32,
    /// Flow name.
    pub flow: &'a str,
    /// The two runs' labels ("kernel", "model").
    pub labels: (&'a str, &'a str),
    /// The two runs.
    pub runs: (&'a Run, &'a Run),
}

/// The report of `c` for pair `p`, with `n` lines of context per side.
pub fn report(p: &Pair<'_>, c: &Comparison<'_>, n: usize) -> String {
    let (la, lb) = p.labels;
    let mut out = format!("rep {}, flow {}: ", p.rep, p.flow);
    let drift = ms(c.max_drift_ns);
    let Some(d) = &c.first else {
        let _ = writeln!(
            out,
            "no decision differs ({} data segments, {} ACKs; send times up to {drift:.3} ms apart)",
            c.agreed.0, c.agreed.1
        );
        return out;
    };
    let times = (d.a.map(|s| s.t), d.b.map(|s| s.t));
    let _ = writeln!(
        out,
        "{}",
        headline(d.stream.what(), d.index, p.labels, times)
    );
    let w = la.len().max(lb.len()) + 1;
    let (fa, fb) = d.delivered.unzip();
    let _ = writeln!(
        out,
        "  {:<w$} {}",
        format!("{la}:"),
        describe(d, p.runs.0, d.a, fa)
    );
    let _ = writeln!(
        out,
        "  {:<w$} {}",
        format!("{lb}:"),
        describe(d, p.runs.1, d.b, fb)
    );
    let _ = writeln!(
        out,
        "  agreed before it: {} data segments, {} ACKs; send times up to {drift:.3} ms apart",
        c.agreed.0, c.agreed.1
    );
    for (label, run, s) in [(la, p.runs.0, d.a), (lb, p.runs.1, d.b)] {
        let Some(s) = s else { continue };
        let _ = writeln!(out, "  {label}, before it:");
        for l in context(d, run, s, n) {
            let _ = writeln!(out, "    {l}");
        }
    }
    out
}

/// The header of `divergence.csv`.
pub const CSV_HEADER: &str =
    "rep,flow,stream,index,a,a_time_s,a_decision,b,b_time_s,b_decision,agreed_data,agreed_acks,max_drift_ms\n";

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The row of `c` for pair `p` in `divergence.csv` (stream `none` when no decision
/// differs).
pub fn csv_row(p: &Pair<'_>, c: &Comparison<'_>) -> String {
    let t = |s: Option<&Segment>| s.map_or(String::new(), |s| format!("{:.9}", s.t as f64 / 1e9));
    let (stream, index, ta, tb, a, b) = match &c.first {
        None => (
            "none",
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ),
        Some(d) => {
            let (fa, fb) = d.delivered.unzip();
            (
                d.stream.name(),
                (d.index + 1).to_string(),
                t(d.a),
                t(d.b),
                describe(d, p.runs.0, d.a, fa),
                describe(d, p.runs.1, d.b, fb),
            )
        }
    };
    let fields = [
        p.rep.to_string(),
        p.flow.to_owned(),
        stream.to_owned(),
        index,
        p.labels.0.to_owned(),
        ta,
        a,
        p.labels.1.to_owned(),
        tb,
        b,
        c.agreed.0.to_string(),
        c.agreed.1.to_string(),
        format!("{:.3}", ms(c.max_drift_ns)),
    ];
    let row: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
    row.join(",") + "\n"
}

/// How a folder holds its captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `spikelab emulate --pcap`: `pcap/rep<r>-<flow>-sender.pcap`, `-receiver.pcap`.
    Kernel,
    /// `spikelab run --pcap`: `pcap/rep<r>-<flow>.pcap`, `pcap/receiver/rep<r>-<flow>.pcap`.
    Model,
}

impl Layout {
    fn label(self) -> &'static str {
        match self {
            Layout::Kernel => "kernel",
            Layout::Model => "model",
        }
    }
}

/// Each (repetition, flow)'s captures: (sender's, receiver's).
pub type Captures = BTreeMap<(u32, String), (PathBuf, PathBuf)>;

/// `rep<r>-<flow>` of a capture's file name (without its suffix).
fn rep_flow(stem: &str) -> Option<(u32, String)> {
    let (rep, flow) = stem.strip_prefix("rep")?.split_once('-')?;
    Some((rep.parse().ok()?, flow.to_owned()))
}

/// The captures (sender's, receiver's) of every (repetition, flow) in output folder
/// `dir`, and its layout.
pub fn captures_in(dir: &Path) -> anyhow::Result<(Layout, Captures)> {
    let pdir = dir.join("pcap");
    let names: Vec<String> = std::fs::read_dir(&pdir)
        .with_context(|| {
            format!(
                "{}: no captures (write them with `spikelab run ... --pcap` or `spikelab emulate ... --pcap`)",
                pdir.display()
            )
        })?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let mut out = BTreeMap::new();
    let kernel = names.iter().any(|n| n.ends_with("-sender.pcap"));
    for n in &names {
        let stem = if kernel {
            n.strip_suffix("-sender.pcap")
        } else {
            n.strip_suffix(".pcap")
        };
        let Some(stem) = stem else { continue };
        let Some((rep, flow)) = rep_flow(stem) else {
            continue;
        };
        let receiver = if kernel {
            pdir.join(format!("{stem}-receiver.pcap"))
        } else {
            pdir.join("receiver").join(n)
        };
        if !receiver.exists() {
            bail!(
                "{}: missing; both ends' captures are needed (`--pcap` or `--pcap both`)",
                receiver.display()
            );
        }
        out.insert((rep, flow), (pdir.join(n), receiver));
    }
    if out.is_empty() {
        bail!("{}: no flow captures", pdir.display());
    }
    let layout = if kernel {
        Layout::Kernel
    } else {
        Layout::Model
    };
    Ok((layout, out))
}

fn read_run(paths: &(PathBuf, PathBuf)) -> anyhow::Result<Run> {
    Ok(Run {
        sender: read_capture(&paths.0)?,
        receiver: read_capture(&paths.1)?,
    })
}

fn read_datagram_run(paths: &(PathBuf, PathBuf)) -> anyhow::Result<datagrams::Datagrams> {
    Ok(datagrams::Datagrams {
        sent: capture::read_datagrams(&paths.0)?,
        arrived: capture::read_datagrams(&paths.1)?,
    })
}

/// One flow's two runs compared: its report, its `divergence.csv` row, and when (ns)
/// its first diverging decision was, if any.
type FlowComparison = (String, String, Option<u64>);

/// Compares one flow's captures: a TCP connection's decisions, or, where the captures
/// hold no TCP segment, a datagram flow's ([`datagrams`]).
fn compare_flow(
    (rep, flow): (u32, &str),
    labels: (&str, &str),
    (pa, pb): (&(PathBuf, PathBuf), &(PathBuf, PathBuf)),
    tolerance_ns: u64,
    n: usize,
) -> anyhow::Result<FlowComparison> {
    let (ra, rb) = (read_run(pa)?, read_run(pb)?);
    if ra.sender.is_empty() && rb.sender.is_empty() {
        let (da, db) = (read_datagram_run(pa)?, read_datagram_run(pb)?);
        let c = datagrams::compare(&da, &db, tolerance_ns);
        let t = c.first.as_ref().map(datagrams::Divergence::t);
        let text = datagrams::report(rep, flow, labels, &c);
        return Ok((text, datagrams::csv_row(rep, flow, labels, &c), t));
    }
    let c = compare(&ra, &rb, tolerance_ns);
    let p = Pair {
        rep,
        flow,
        labels,
        runs: (&ra, &rb),
    };
    let t = c.first.as_ref().map(Divergence::t);
    Ok((report(&p, &c, n), csv_row(&p, &c), t))
}

/// With several flows, which one parted first in repetition `rep`: on a shared
/// bottleneck one flow's different drop can be what makes another's decisions differ.
fn first_across_flows(rep: u32, firsts: &[(&str, u64)]) -> Option<String> {
    let (flow, t) = firsts.iter().min_by_key(|(_, t)| *t)?;
    let others: Vec<String> = (firsts.iter())
        .filter(|(f, _)| f != flow)
        .map(|(f, t)| format!("flow {f}'s at {:.6} s", *t as f64 / 1e9))
        .collect();
    if others.is_empty() {
        return None;
    }
    Some(format!(
        "rep {rep}: across flows, flow {flow} parts first ({:.6} s; {})\n",
        *t as f64 / 1e9,
        others.join(", ")
    ))
}

/// The report and `divergence.csv` of every (repetition, flow) both folders captured.
pub fn compare_dirs(
    a: &Path,
    b: &Path,
    tolerance_ns: u64,
    n: usize,
) -> anyhow::Result<(String, String)> {
    let (la, ca) = captures_in(a)?;
    let (lb, cb) = captures_in(b)?;
    let labels = if la == lb {
        (format!("{} 1", la.label()), format!("{} 2", lb.label()))
    } else {
        (la.label().to_owned(), lb.label().to_owned())
    };
    let labels = (labels.0.as_str(), labels.1.as_str());
    let (mut text, mut csv) = (String::new(), CSV_HEADER.to_owned());
    let mut firsts: BTreeMap<u32, Vec<(&str, u64)>> = BTreeMap::new();
    for ((rep, flow), pa) in &ca {
        let Some(pb) = cb.get(&(*rep, flow.clone())) else {
            let _ = writeln!(text, "rep {rep}, flow {flow}: only in {}", a.display());
            continue;
        };
        let (report, row, t) = compare_flow((*rep, flow), labels, (pa, pb), tolerance_ns, n)?;
        text.push_str(&report);
        csv.push_str(&row);
        firsts
            .entry(*rep)
            .or_default()
            .extend(t.map(|t| (flow.as_str(), t)));
    }
    for (rep, f) in &firsts {
        text.extend(first_across_flows(*rep, f));
    }
    for (rep, flow) in cb.keys().filter(|k| !ca.contains_key(*k)) {
        let _ = writeln!(text, "rep {rep}, flow {flow}: only in {}", b.display());
    }
    Ok((text, csv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::{FlowId, Packet, PacketKind, Time};
    use spikelab_output::pcap::create_pcap;

    const MS: u64 = 1_000_000;
    /// One-way delay of the scripted path.
    const DELAY: u64 = 5 * MS;

    /// A connection written packet by packet: what each end's capture sees.
    struct Script {
        sender: Vec<(u64, Packet)>,
        receiver: Vec<(u64, Packet)>,
    }

    /// A packet with a fresh uid, which the writer puts in the IPv4 identification.
    fn pkt(kind: PacketKind) -> Packet {
        static UID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let uid = UID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut p = Packet::new(uid, FlowId(0), kind, Time::ZERO);
        p.rwnd = 64_000;
        p
    }

    impl Script {
        /// SYN at 0, SYN-ACK back.
        fn new() -> Script {
            let (syn, synack) = (pkt(PacketKind::Syn), pkt(PacketKind::SynAck));
            Script {
                sender: vec![(0, syn), (2 * DELAY, synack)],
                receiver: vec![(DELAY, syn), (DELAY, synack)],
            }
        }

        /// The sender sends `seq..seq + 1000` at `ms`; the path delivers it or not.
        fn data(mut self, ms: u64, seq: u64, delivered: bool) -> Script {
            let mut p = pkt(PacketKind::Data);
            (p.seq, p.len) = (seq, 1000);
            self.sender.push((ms * MS, p));
            if delivered {
                self.receiver.push((ms * MS + DELAY, p));
            }
            self
        }

        /// The receiver sends ACK `ack` with `sack` at `ms`.
        fn ack(mut self, ms: u64, ack: u64, sack: &[(u64, u64)]) -> Script {
            let mut p = pkt(PacketKind::Ack);
            p.ack = ack;
            for &(l, r) in sack {
                p.push_sack(l, r);
            }
            self.receiver.push((ms * MS, p));
            self.sender.push((ms * MS + DELAY, p));
            self
        }

        fn write(&self, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
            let paths = (
                dir.join(format!("{name}-s.pcap")),
                dir.join(format!("{name}-r.pcap")),
            );
            for (path, packets) in [(&paths.0, &self.sender), (&paths.1, &self.receiver)] {
                let mut sorted = packets.clone();
                sorted.sort_by_key(|(t, _)| *t);
                let mut w = create_pcap(path).unwrap().with_window(64_000);
                for (t, p) in &sorted {
                    w.write_packet(Time(*t), p).unwrap();
                }
                w.into_inner().unwrap();
            }
            paths
        }

        fn run(&self) -> Run {
            let dir = tempfile::tempdir().unwrap();
            read_run(&self.write(dir.path(), "x")).unwrap()
        }
    }

    /// Three segments, each ACKed.
    fn three() -> Script {
        Script::new()
            .data(20, 0, true)
            .data(21, 1000, true)
            .data(22, 2000, true)
            .ack(26, 1000, &[])
            .ack(27, 3000, &[])
    }

    const TOLERANCE: u64 = 10 * MS;

    #[test]
    fn the_same_run_twice_differs_in_no_decision() {
        let (a, b) = (three().run(), three().run());
        let c = compare(&a, &b, TOLERANCE);
        assert!(c.first.is_none(), "{:?}", c.first);
        assert_eq!(c.agreed, (3, 2));
        assert_eq!(c.max_drift_ns, 0);
    }

    #[test]
    fn a_retransmission_where_the_other_sent_new_data_is_the_senders_decision() {
        let base = || {
            Script::new()
                .data(20, 0, true)
                .data(21, 1000, false)
                .data(22, 2000, true)
        };
        let a = base()
            .ack(26, 1000, &[])
            .ack(28, 1000, &[(2000, 3000)])
            .data(300, 1000, true)
            .run();
        let b = base()
            .ack(26, 1000, &[])
            .ack(28, 1000, &[(2000, 3000)])
            .data(300, 3000, true)
            .run();
        let c = compare(&a, &b, TOLERANCE);
        let d = c.first.as_ref().unwrap();
        assert_eq!((d.stream, d.index), (Stream::Data, 3));
        let p = Pair {
            rep: 0,
            flow: "tcp",
            labels: ("kernel", "model"),
            runs: (&a, &b),
        };
        let text = report(&p, &c, 3);
        assert!(
            text.contains("kernel: data 1000..2000 (1000 B PSH) retransmission of the first unacknowledged byte 267.0 ms after the last ACK (1 duplicate ACKs since it advanced); 2000 B outstanding before it"),
            "{text}"
        );
        assert!(
            text.contains(
                "model:  data 3000..4000 (1000 B PSH) new data; 2000 B outstanding before it"
            ),
            "{text}"
        );
        assert_eq!(c.agreed, (3, 2));
    }

    #[test]
    fn a_retransmission_at_the_first_unacknowledged_byte_says_how_long_after_the_last_ack() {
        let a = Script::new().data(20, 0, false).data(220, 0, true).run();
        let b = Script::new().data(20, 0, false).data(220, 1000, true).run();
        let c = compare(&a, &b, TOLERANCE);
        let d = c.first.as_ref().unwrap();
        let text = describe(d, &a, d.a, None);
        // The SYN-ACK (at 10 ms) was the last ACK: a timer, 210 ms later.
        assert_eq!(
            text,
            "data 0..1000 (1000 B PSH) retransmission of the first unacknowledged byte 210.0 ms after the last ACK (0 duplicate ACKs since it advanced); 1000 B outstanding before it"
        );
    }

    #[test]
    fn a_segment_dropped_in_one_run_only_is_the_paths_decision() {
        let a = Script::new()
            .data(20, 0, true)
            .data(21, 1000, false)
            .data(22, 2000, true);
        let b = Script::new()
            .data(20, 0, true)
            .data(21, 1000, true)
            .data(22, 2000, true);
        let (a, b) = (
            a.ack(26, 1000, &[(2000, 3000)]).run(),
            b.ack(26, 2000, &[]).run(),
        );
        let c = compare(&a, &b, TOLERANCE);
        let d = c.first.as_ref().unwrap();
        assert_eq!(
            (d.stream, d.index, d.delivered),
            (Stream::DataFate, 1, Some((false, true)))
        );
        assert!(describe(d, &a, d.a, Some(false)).ends_with("; lost on the path"));
    }

    #[test]
    fn a_different_sack_block_is_the_receivers_decision() {
        let a = Script::new()
            .data(20, 0, true)
            .data(21, 1000, true)
            .ack(26, 2000, &[])
            .run();
        let b = Script::new()
            .data(20, 0, true)
            .data(21, 1000, true)
            .ack(26, 1000, &[(5000, 6000)])
            .run();
        let c = compare(&a, &b, TOLERANCE);
        let d = c.first.as_ref().unwrap();
        assert_eq!((d.stream, d.index), (Stream::Ack, 0));
        assert_eq!(
            describe_ack(d.b.unwrap()),
            "ACK 1000 SACK 5000-6000 window 64000"
        );
    }

    #[test]
    fn the_same_segment_sent_later_than_the_tolerance_is_a_timing_difference() {
        let a = Script::new().data(20, 0, true).data(40, 1000, true).run();
        let b = Script::new().data(20, 0, true).data(55, 1000, true).run();
        let c = compare(&a, &b, TOLERANCE);
        let d = c.first.as_ref().unwrap();
        assert_eq!((d.stream, d.index), (Stream::Timing, 1));
        // Within the tolerance, the same runs agree.
        assert!(compare(&a, &b, 20 * MS).first.is_none());
        assert_eq!(compare(&a, &b, 20 * MS).max_drift_ns, 15 * MS);
    }

    /// The same ACK 36 ms later: the receiver's delayed-ACK timer waited longer (the
    /// T-Mobile UMTS drive at 543 s: 86 ms against 50 after the segment at 4.054 s).
    #[test]
    fn the_same_ack_sent_later_than_the_tolerance_is_the_receivers_timing() {
        let base = || Script::new().data(20, 0, true).data(40, 1000, true);
        let a = base().ack(26, 1000, &[]).ack(126, 2000, &[]).run();
        let b = base().ack(26, 1000, &[]).ack(90, 2000, &[]).run();
        let c = compare(&a, &b, TOLERANCE);
        let d = c.first.as_ref().unwrap();
        assert_eq!((d.stream, d.index), (Stream::AckTiming, 1));
        // Data 1000..2000 arrives at 45 ms (5 ms of path delay).
        assert_eq!(
            describe(d, &a, d.a, None),
            "ACK 2000 SACK none window 64000, 81.0 ms after data 1000..2000 arrived"
        );
        assert_eq!(c.agreed, (2, 1));
        assert!(compare(&a, &b, 40 * MS).first.is_none());
    }

    #[test]
    fn a_run_that_stops_early_diverges_where_its_stream_ends() {
        let a = three().run();
        let b = Script::new()
            .data(20, 0, true)
            .data(21, 1000, true)
            .ack(26, 1000, &[])
            .run();
        let d = compare(&a, &b, TOLERANCE).first.unwrap();
        assert_eq!((d.stream, d.index, d.b), (Stream::Data, 2, None));
    }

    /// A kernel folder and a model folder holding flow `flow` of repetition 0: three
    /// segments each ACKed, the model's run sending a fourth at 30 ms.
    fn kernel_and_model(flow: &str) -> (tempfile::TempDir, tempfile::TempDir) {
        let (k, m) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::create_dir_all(k.path().join("pcap")).unwrap();
        std::fs::create_dir_all(m.path().join("pcap/receiver")).unwrap();
        let (s, r) = three().write(k.path(), "tmp");
        std::fs::rename(&s, k.path().join(format!("pcap/rep0-{flow}-sender.pcap"))).unwrap();
        std::fs::rename(&r, k.path().join(format!("pcap/rep0-{flow}-receiver.pcap"))).unwrap();
        let (s, r) = three().data(30, 3000, true).write(m.path(), "tmp");
        std::fs::rename(&s, m.path().join(format!("pcap/rep0-{flow}.pcap"))).unwrap();
        std::fs::rename(&r, m.path().join(format!("pcap/receiver/rep0-{flow}.pcap"))).unwrap();
        (k, m)
    }

    #[test]
    fn both_layouts_pair_up_by_repetition_and_flow() {
        let (k, m) = kernel_and_model("up-link");
        let (text, csv) = compare_dirs(k.path(), m.path(), TOLERANCE, 2).unwrap();
        assert!(text.starts_with("rep 0, flow up-link: the first diverging decision is the sender's data segment 4 (kernel at -, model at 0.030000 s)"), "{text}");
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0].split(',').count(),
            rows[1].split(',').count(),
            "{csv}"
        );
        assert!(
            rows[1].starts_with(
                "0,up-link,data,4,kernel,,(no more: its stream ended),model,0.030000000,"
            ),
            "{csv}"
        );
    }

    /// A CBR flow's captures at both ends in `dir` as `rep0-cbr` in `layout`: one
    /// datagram every 10 ms, those in `lost` dropped on the path.
    fn cbr(dir: &Path, layout: Layout, n: u64, lost: &[u64]) {
        let (mut s, mut r) = (Vec::new(), Vec::new());
        for i in 0..n {
            let mut p = pkt(PacketKind::Datagram);
            p.flow = FlowId(1);
            p.len = 182;
            s.push((i * 10 * MS, p));
            if !lost.contains(&i) {
                r.push((i * 10 * MS + DELAY, p));
            }
        }
        let (sp, rp) = match layout {
            Layout::Kernel => ("pcap/rep0-cbr-sender.pcap", "pcap/rep0-cbr-receiver.pcap"),
            Layout::Model => ("pcap/rep0-cbr.pcap", "pcap/receiver/rep0-cbr.pcap"),
        };
        for (path, packets) in [(sp, s), (rp, r)] {
            let mut w = create_pcap(dir.join(path)).unwrap();
            for (t, p) in &packets {
                w.write_packet(Time(*t), p).unwrap();
            }
            w.into_inner().unwrap();
        }
    }

    #[test]
    fn a_cbr_flow_is_compared_by_its_datagrams_fates_and_the_flow_that_parts_first_is_named() {
        let (k, m) = kernel_and_model("tcp");
        // The kernel's queue drops datagram 3 (sent at 20 ms), the model's datagram 4.
        cbr(k.path(), Layout::Kernel, 8, &[2]);
        cbr(m.path(), Layout::Model, 8, &[3]);
        let (text, csv) = compare_dirs(k.path(), m.path(), TOLERANCE, 2).unwrap();
        assert!(
            text.contains("rep 0, flow cbr: the first diverging decision is the path's fate of datagram 3 (kernel at 0.020000 s, model at 0.020000 s)"),
            "{text}"
        );
        assert!(
            text.contains("kernel: 182 B datagram; lost on the path"),
            "{text}"
        );
        assert!(
            text.contains(
                "rep 0: across flows, flow cbr parts first (0.020000 s; flow tcp's at 0.030000 s)"
            ),
            "{text}"
        );
        assert!(csv.contains("\n0,cbr,datagram_fate,3,kernel,"), "{csv}");
        // Alike, the CBR flow differs in nothing and no flow is named first.
        cbr(m.path(), Layout::Model, 8, &[2]);
        let (text, _) = compare_dirs(k.path(), m.path(), TOLERANCE, 2).unwrap();
        assert!(
            text.contains("rep 0, flow cbr: no decision differs (8 datagrams"),
            "{text}"
        );
        assert!(!text.contains("across flows"), "{text}");
    }

    #[test]
    fn a_model_capture_without_the_receivers_end_is_refused_with_the_flag_to_add() {
        let m = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(m.path().join("pcap")).unwrap();
        let (s, _) = three().write(m.path(), "tmp");
        std::fs::rename(&s, m.path().join("pcap/rep0-tcp.pcap")).unwrap();
        let e = compare_dirs(m.path(), m.path(), TOLERANCE, 2).unwrap_err();
        assert!(
            format!("{e:#}")
                .contains("receiver/rep0-tcp.pcap: missing; both ends' captures are needed"),
            "{e:#}"
        );
    }
}
