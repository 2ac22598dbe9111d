//! The first diverging decision of a datagram flow (a CBR flow or any other UDP flow)
//! between two runs: its sender decides nothing from what it sees, so its decisions are
//! the path's (which datagram a full queue drops) and the sender's timing.
//!
//! | stream | who decides | compared |
//! |---|---|---|
//! | datagram fate | the path: whether the n-th datagram sent reaches the receiver | delivered or not, sender's capture against the receiver's (a FIFO path) |
//! | datagram timing | the sender's clock: when the n-th datagram is sent | send times more than the tolerance apart |
//!
//! On a shared bottleneck the first datagram one queue drops in one run and not in the
//! other is often where the runs part, before any TCP flow's own decision differs
//! ([`super::compare_dirs`] says which flow parted first).

use super::capture::Datagram;
use std::fmt::Write as _;

/// One datagram flow's captures at both ends.
pub struct Datagrams {
    /// At the sender, as they leave.
    pub sent: Vec<Datagram>,
    /// At the receiver, as they arrive.
    pub arrived: Vec<Datagram>,
}

/// Which decisions a datagram flow's divergence is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stream {
    /// Whether each datagram reached the receiver.
    Fate,
    /// The same datagram sent more than the tolerance apart.
    Timing,
    /// One run sent fewer datagrams.
    Count,
}

impl Stream {
    /// The name in `divergence.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Fate => "datagram_fate",
            Stream::Timing => "datagram_timing",
            Stream::Count => "datagram",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Stream::Fate => "the path's fate of datagram",
            Stream::Timing => "the send time of datagram",
            Stream::Count => "the sender's datagram",
        }
    }
}

/// Where two runs of a datagram flow first part.
#[derive(Debug)]
pub struct Divergence<'a> {
    pub stream: Stream,
    /// The datagram's index in sending order (0-based).
    pub index: usize,
    /// Each run's datagram there (none if it sent fewer).
    pub a: Option<&'a Datagram>,
    pub b: Option<&'a Datagram>,
    /// Whether it was delivered in each run.
    pub delivered: (Option<bool>, Option<bool>),
}

impl Divergence<'_> {
    /// When it happened: the earlier side's send time.
    pub fn t(&self) -> u64 {
        super::earlier(self.a.map(|d| d.t), self.b.map(|d| d.t))
    }
}

/// Two runs of a datagram flow compared.
#[derive(Debug)]
pub struct Comparison<'a> {
    pub first: Option<Divergence<'a>>,
    /// Datagrams both runs sent, and delivered or lost alike, before it.
    pub agreed: usize,
    /// The largest difference in send time over those datagrams (ns).
    pub max_drift_ns: u64,
}

/// For each datagram sent, whether it arrived (FIFO: the arrivals are the datagrams
/// sent, in order, without the lost ones; a datagram is known by its identification
/// and length).
fn fates(d: &Datagrams) -> Vec<bool> {
    super::fates(&d.sent, &d.arrived, |x| (x.id, x.len))
}

/// Compares run `a` with run `b`; the same datagram's send times may differ by up to
/// `tolerance_ns`.
pub fn compare<'a>(a: &'a Datagrams, b: &'a Datagrams, tolerance_ns: u64) -> Comparison<'a> {
    let (fa, fb) = (fates(a), fates(b));
    let n = a.sent.len().min(b.sent.len());
    let drift = |i: usize| a.sent[i].t.abs_diff(b.sent[i].t);
    let candidates = [
        (Stream::Fate, (0..n).find(|&i| fa[i] != fb[i])),
        (Stream::Timing, (0..n).find(|&i| drift(i) > tolerance_ns)),
        (Stream::Count, (a.sent.len() != b.sent.len()).then_some(n)),
    ];
    let first = candidates
        .into_iter()
        .filter_map(|(stream, i)| {
            let i = i?;
            Some(Divergence {
                stream,
                index: i,
                a: a.sent.get(i),
                b: b.sent.get(i),
                delivered: (fa.get(i).copied(), fb.get(i).copied()),
            })
        })
        .min_by_key(|d| (d.t(), d.stream));
    let agreed = first.as_ref().map_or(n, |d| {
        (0..n)
            .take_while(|&i| a.sent[i].t.min(b.sent[i].t) < d.t())
            .count()
    });
    Comparison {
        first,
        agreed,
        max_drift_ns: (0..agreed).map(drift).max().unwrap_or(0),
    }
}

fn describe(d: Option<&Datagram>, delivered: Option<bool>) -> String {
    let Some(d) = d else {
        return "(no more: it sent fewer)".to_owned();
    };
    let fate = match delivered {
        Some(true) => "delivered",
        _ => "lost on the path",
    };
    format!("{} B datagram; {fate}", d.len)
}

/// The report of `c` for repetition `rep`'s flow `flow`, the runs labelled `labels`.
pub fn report(rep: u32, flow: &str, labels: (&str, &str), c: &Comparison<'_>) -> String {
    let (la, lb) = labels;
    let drift = c.max_drift_ns as f64 / 1e6;
    let mut out = format!("rep {rep}, flow {flow}: ");
    let Some(d) = &c.first else {
        let _ = writeln!(
            out,
            "no decision differs ({} datagrams; send times up to {drift:.3} ms apart)",
            c.agreed
        );
        return out;
    };
    let times = (d.a.map(|x| x.t), d.b.map(|x| x.t));
    let _ = writeln!(
        out,
        "{}",
        super::headline(d.stream.what(), d.index, labels, times)
    );
    let w = la.len().max(lb.len()) + 1;
    for (label, x, f) in [(la, d.a, d.delivered.0), (lb, d.b, d.delivered.1)] {
        let _ = writeln!(out, "  {:<w$} {}", format!("{label}:"), describe(x, f));
    }
    let _ = writeln!(
        out,
        "  agreed before it: {} datagrams; send times up to {drift:.3} ms apart",
        c.agreed
    );
    out
}

/// The row of `c` in `divergence.csv` (`super::CSV_HEADER`; no ACKs).
pub fn csv_row(rep: u32, flow: &str, labels: (&str, &str), c: &Comparison<'_>) -> String {
    let t = |d: Option<&Datagram>| d.map_or(String::new(), |d| format!("{:.9}", d.t as f64 / 1e9));
    let (stream, index, ta, tb, a, b) = match &c.first {
        None => Default::default(),
        Some(d) => (
            d.stream.name().to_owned(),
            (d.index + 1).to_string(),
            t(d.a),
            t(d.b),
            describe(d.a, d.delivered.0),
            describe(d.b, d.delivered.1),
        ),
    };
    let stream = if stream.is_empty() {
        "none".to_owned()
    } else {
        stream
    };
    let fields = [
        rep.to_string(),
        flow.to_owned(),
        stream,
        index,
        labels.0.to_owned(),
        ta,
        a,
        labels.1.to_owned(),
        tb,
        b,
        c.agreed.to_string(),
        "0".to_owned(),
        format!("{:.3}", c.max_drift_ns as f64 / 1e6),
    ];
    let row: Vec<String> = fields.iter().map(|f| super::csv_field(f)).collect();
    row.join(",") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Datagrams every 10 ms from id 100; `lost` are dropped on the path, `late` sent
    /// 15 ms late.
    fn cbr(n: usize, lost: &[usize], late: &[usize]) -> Datagrams {
        let sent: Vec<Datagram> = (0..n)
            .map(|i| Datagram {
                t: (10 * i as u64 + if late.contains(&i) { 15 } else { 0 }) * MS,
                len: 182,
                id: 100 + i as u16,
            })
            .collect();
        let arrived = (sent.iter().enumerate())
            .filter(|(i, _)| !lost.contains(i))
            .map(|(_, d)| Datagram {
                t: d.t + 5 * MS,
                ..d.clone()
            })
            .collect();
        Datagrams { sent, arrived }
    }

    #[test]
    fn the_same_datagrams_dropped_alike_differ_in_nothing() {
        let (a, b) = (cbr(20, &[7], &[]), cbr(20, &[7], &[]));
        let c = compare(&a, &b, 10 * MS);
        assert!(c.first.is_none(), "{:?}", c.first);
        assert_eq!(c.agreed, 20);
    }

    #[test]
    fn the_datagram_a_queue_drops_in_one_run_only_is_the_paths_decision() {
        // Datagram 954 dropped in one run, 955 in the other (Table 2's first overflow).
        let (a, b) = (cbr(20, &[9], &[]), cbr(20, &[10], &[]));
        let c = compare(&a, &b, 10 * MS);
        let d = c.first.as_ref().unwrap();
        assert_eq!((d.stream, d.index), (Stream::Fate, 9));
        assert_eq!(d.delivered, (Some(false), Some(true)));
        assert_eq!(c.agreed, 9);
        let text = report(0, "cbr", ("kernel", "model"), &c);
        assert!(
            text.starts_with("rep 0, flow cbr: the first diverging decision is the path's fate of datagram 10 (kernel at 0.090000 s, model at 0.090000 s)"),
            "{text}"
        );
        assert!(
            text.contains("kernel: 182 B datagram; lost on the path"),
            "{text}"
        );
        assert!(text.contains("model:  182 B datagram; delivered"), "{text}");
    }

    #[test]
    fn a_datagram_sent_later_than_the_tolerance_is_a_timing_difference() {
        let (a, b) = (cbr(20, &[], &[]), cbr(20, &[], &[4]));
        let d = compare(&a, &b, 10 * MS).first.unwrap();
        assert_eq!((d.stream, d.index), (Stream::Timing, 4));
        assert!(compare(&a, &b, 20 * MS).first.is_none());
    }

    #[test]
    fn a_run_that_sent_fewer_diverges_where_it_stopped() {
        let (a, b) = (cbr(20, &[], &[]), cbr(12, &[], &[]));
        let c = compare(&a, &b, 10 * MS);
        let d = c.first.as_ref().unwrap();
        assert_eq!((d.stream, d.index, d.b), (Stream::Count, 12, None));
        let row = csv_row(0, "cbr", ("kernel", "model"), &c);
        assert!(row.starts_with("0,cbr,datagram,13,kernel,0.120000000,182 B datagram; delivered,model,,(no more: it sent fewer),12,0,"), "{row}");
    }
}
