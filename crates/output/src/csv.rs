//! A small CSV writer and the trace CSV format.
//!
//! # Writer
//! [`CsvWriter`] writes fields straight into any `io::Write` (no per-row allocation).
//! Fields containing a comma, a double quote, CR or LF are quoted and inner quotes
//! doubled (RFC 4180 section 2). Rows end with `\n` (not RFC 4180's CRLF: every CSV
//! reader accepts LF, and diffs stay clean). Floats are written with a fixed number of
//! decimals, [`FLOAT_DECIMALS`] unless changed with [`CsvWriter::with_float_decimals`],
//! `-0` as `0`, and non-finite values as `NaN`, `inf`, `-inf`; so the same values give
//! byte-identical files on every run and platform.
//!
//! # Trace CSV
//! One header line `time_s,flow,event,a,b,c`, then one line per [`TraceRecord`]:
//!
//! | event      | variant                     | a         | b        | c         |
//! |------------|-----------------------------|-----------|----------|-----------|
//! | `send`     | `Send`                      | seq       | len      | retx 0/1  |
//! | `ack`      | `AckRecv`                   | ack       | dup 0/1  |           |
//! | `deliver`  | `Deliver`                   | seq       | len      |           |
//! | `drop`     | `Drop`, `is_ack` false      | seq       | len      | link      |
//! | `drop_ack` | `Drop`, `is_ack` true       | seq       | len      | link      |
//! | `cwnd`     | `Cwnd`                      | cwnd      | ssthresh |           |
//! | `rto`      | `Rto`                       | rto (s)   | backoff  |           |
//! | `srtt`     | `Srtt`                      | srtt (s)  |          |           |
//! | `rtt`      | `RttSample`                 | rtt (s)   |          |           |
//! | `snd`      | `SndState`                  | snd_una   | snd_nxt  | snd_max   |
//! | `timeout`  | `Timeout`                   | seq       | spurious 0/1 |       |
//! | `spike`    | `Spike`                     | start 0/1 | link     |           |
//! | `bbr`      | `Bbr`                       | bw (B/s)  | min_rtt (s) | pacing rate (B/s) |
//!
//! `time_s` and durations are seconds with exactly nine decimals, printed from the
//! integer nanoseconds (no floating point), so reading a trace back is exact. `flow` is
//! the flow index; sequence numbers and windows are integer bytes; unused columns are
//! empty.

use crate::error::{OutputError, Result};
use spikelab_core::trace::{TraceEvent, TraceRecord};
use spikelab_core::{Dur, FlowId, Time};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Decimals written for `f64` fields unless [`CsvWriter::with_float_decimals`] says otherwise.
pub const FLOAT_DECIMALS: usize = 6;

/// The header line of a trace CSV (without the newline).
pub const TRACE_HEADER: &str = "time_s,flow,event,a,b,c";

/// Writes CSV rows field by field into `W`.
pub struct CsvWriter<W: Write> {
    out: W,
    decimals: usize,
    row_started: bool,
}

impl<W: Write> CsvWriter<W> {
    /// A writer with [`FLOAT_DECIMALS`] decimals for floats.
    pub fn new(out: W) -> Self {
        CsvWriter {
            out,
            decimals: FLOAT_DECIMALS,
            row_started: false,
        }
    }

    /// Uses `decimals` digits after the point for every `f64` field.
    pub fn with_float_decimals(mut self, decimals: usize) -> Self {
        self.decimals = decimals;
        self
    }

    fn separator(&mut self) -> io::Result<()> {
        if self.row_started {
            self.out.write_all(b",")?;
        }
        self.row_started = true;
        Ok(())
    }

    /// Writes a text field, quoting it if it contains `,`, `"`, CR or LF.
    pub fn field_str(&mut self, s: &str) -> io::Result<()> {
        self.separator()?;
        if !s.contains([',', '"', '\n', '\r']) {
            return self.out.write_all(s.as_bytes());
        }
        self.out.write_all(b"\"")?;
        for (i, part) in s.split('"').enumerate() {
            if i > 0 {
                self.out.write_all(b"\"\"")?;
            }
            self.out.write_all(part.as_bytes())?;
        }
        self.out.write_all(b"\"")
    }

    /// Writes an unsigned integer field.
    pub fn field_u64(&mut self, v: u64) -> io::Result<()> {
        self.separator()?;
        write!(self.out, "{v}")
    }

    /// Writes a signed integer field.
    pub fn field_i64(&mut self, v: i64) -> io::Result<()> {
        self.separator()?;
        write!(self.out, "{v}")
    }

    /// Writes a float with the writer's fixed decimals (`NaN`, `inf`, `-inf` if not finite).
    pub fn field_f64(&mut self, v: f64) -> io::Result<()> {
        self.separator()?;
        let v = if v == 0.0 { 0.0 } else { v }; // -0 prints as 0
        write!(self.out, "{v:.*}", self.decimals)
    }

    /// Writes a boolean as `0` or `1`.
    pub fn field_bool(&mut self, v: bool) -> io::Result<()> {
        self.field_u64(v as u64)
    }

    /// Writes a duration as seconds with nine decimals (exact).
    pub fn field_dur(&mut self, d: Dur) -> io::Result<()> {
        self.separator()?;
        write_nanos_as_secs(&mut self.out, d.0)
    }

    /// Writes an empty field.
    pub fn field_empty(&mut self) -> io::Result<()> {
        self.separator()
    }

    /// Writes a whole row of text fields (e.g. a header) and ends it.
    pub fn row(&mut self, fields: &[&str]) -> io::Result<()> {
        for f in fields {
            self.field_str(f)?;
        }
        self.end_row()
    }

    /// Ends the current row.
    pub fn end_row(&mut self) -> io::Result<()> {
        self.row_started = false;
        self.out.write_all(b"\n")
    }

    /// Flushes and returns the inner writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Prints integer nanoseconds as seconds with exactly nine decimals.
fn write_nanos_as_secs<W: Write>(out: &mut W, ns: u64) -> io::Result<()> {
    write!(out, "{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// One of the three value columns of a trace line.
enum Cell {
    Empty,
    Int(u64),
    Secs(Dur),
}

/// The `event` name and columns a, b, c of one event (the table in the module docs).
fn encode(ev: &TraceEvent) -> (&'static str, [Cell; 3]) {
    use Cell::{Empty, Int, Secs};
    let b = |v: bool| Int(v as u64);
    match *ev {
        TraceEvent::Send { seq, len, retx } => ("send", [Int(seq), Int(len.into()), b(retx)]),
        TraceEvent::AckRecv { ack, dup } => ("ack", [Int(ack), b(dup), Empty]),
        TraceEvent::Deliver { seq, len } => ("deliver", [Int(seq), Int(len.into()), Empty]),
        TraceEvent::Drop {
            seq,
            len,
            is_ack,
            link,
        } => {
            let name = if is_ack { "drop_ack" } else { "drop" };
            (name, [Int(seq), Int(len.into()), Int(link.into())])
        }
        TraceEvent::Cwnd { cwnd, ssthresh } => ("cwnd", [Int(cwnd), Int(ssthresh), Empty]),
        TraceEvent::Rto { rto, backoff } => ("rto", [Secs(rto), Int(backoff.into()), Empty]),
        TraceEvent::Srtt { srtt } => ("srtt", [Secs(srtt), Empty, Empty]),
        TraceEvent::RttSample { rtt } => ("rtt", [Secs(rtt), Empty, Empty]),
        TraceEvent::SndState {
            snd_una,
            snd_nxt,
            snd_max,
        } => ("snd", [Int(snd_una), Int(snd_nxt), Int(snd_max)]),
        TraceEvent::Timeout { seq, spurious } => ("timeout", [Int(seq), b(spurious), Empty]),
        TraceEvent::Spike { start, link } => ("spike", [b(start), Int(link.into()), Empty]),
        TraceEvent::Bbr {
            bw,
            min_rtt,
            pacing_rate,
        } => {
            let rtt = min_rtt.map_or(Empty, Secs);
            ("bbr", [Int(bw), rtt, Int(pacing_rate)])
        }
    }
}

/// Writes `records` as a trace CSV (header included) into `out`.
pub fn write_trace<W: Write>(out: W, records: &[TraceRecord]) -> io::Result<()> {
    let mut w = CsvWriter::new(out);
    w.out.write_all(TRACE_HEADER.as_bytes())?;
    w.end_row()?;
    for r in records {
        w.separator()?;
        write_nanos_as_secs(&mut w.out, r.time.0)?;
        w.field_u64(r.flow.0.into())?;
        let (name, cells) = encode(&r.event);
        w.field_str(name)?;
        for cell in cells {
            match cell {
                Cell::Empty => w.field_empty()?,
                Cell::Int(v) => w.field_u64(v)?,
                Cell::Secs(d) => w.field_dur(d)?,
            }
        }
        w.end_row()?;
    }
    w.into_inner().map(drop)
}

/// Writes `records` to the file `path` as a trace CSV (see the module docs).
pub fn write_trace_csv(path: impl AsRef<Path>, records: &[TraceRecord]) -> Result<()> {
    let file = BufWriter::new(File::create(path)?);
    Ok(write_trace(file, records)?)
}

/// Reads a trace CSV file written by [`write_trace_csv`].
pub fn read_trace_csv(path: impl AsRef<Path>) -> Result<Vec<TraceRecord>> {
    parse_trace(&std::fs::read_to_string(path)?)
}

/// Parses the text of a trace CSV (header line first).
pub fn parse_trace(text: &str) -> Result<Vec<TraceRecord>> {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some(TRACE_HEADER) {
        return Err(parse_err(1, format!("header must be `{TRACE_HEADER}`")));
    }
    lines
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| parse_line(l.trim_end()).map_err(|msg| parse_err(i + 2, msg)))
        .collect()
}

fn parse_err(line: usize, msg: String) -> OutputError {
    OutputError::Parse { line, msg }
}

/// Parses one data line into a record; the error says what was wrong.
fn parse_line(line: &str) -> std::result::Result<TraceRecord, String> {
    let f: Vec<&str> = line.split(',').collect();
    let [time, flow, event, a, b, c] = f[..] else {
        return Err(format!("expected 6 fields, found {}", f.len()));
    };
    Ok(TraceRecord {
        time: Time(parse_secs(time)?),
        flow: FlowId(parse_int(flow, "flow")?),
        event: decode(event, [a, b, c])?,
    })
}

/// Inverse of [`encode`].
fn decode(name: &str, [a, b, c]: [&str; 3]) -> std::result::Result<TraceEvent, String> {
    let int = |s: &str, what: &str| parse_int::<u64>(s, what);
    let dur = |s: &str| parse_secs(s).map(Dur);
    Ok(match name {
        "send" => TraceEvent::Send {
            seq: int(a, "seq")?,
            len: parse_int(b, "len")?,
            retx: parse_bool(c, "retx")?,
        },
        "ack" => TraceEvent::AckRecv {
            ack: int(a, "ack")?,
            dup: parse_bool(b, "dup")?,
        },
        "deliver" => TraceEvent::Deliver {
            seq: int(a, "seq")?,
            len: parse_int(b, "len")?,
        },
        "drop" | "drop_ack" => TraceEvent::Drop {
            seq: int(a, "seq")?,
            len: parse_int(b, "len")?,
            is_ack: name == "drop_ack",
            link: parse_int(c, "link")?,
        },
        "cwnd" => TraceEvent::Cwnd {
            cwnd: int(a, "cwnd")?,
            ssthresh: int(b, "ssthresh")?,
        },
        "rto" => TraceEvent::Rto {
            rto: dur(a)?,
            backoff: parse_int(b, "backoff")?,
        },
        "srtt" => TraceEvent::Srtt { srtt: dur(a)? },
        "rtt" => TraceEvent::RttSample { rtt: dur(a)? },
        "snd" => TraceEvent::SndState {
            snd_una: int(a, "snd_una")?,
            snd_nxt: int(b, "snd_nxt")?,
            snd_max: int(c, "snd_max")?,
        },
        "timeout" => TraceEvent::Timeout {
            seq: int(a, "seq")?,
            spurious: parse_bool(b, "spurious")?,
        },
        "spike" => TraceEvent::Spike {
            start: parse_bool(a, "start")?,
            link: parse_int(b, "link")?,
        },
        "bbr" => TraceEvent::Bbr {
            bw: int(a, "bw")?,
            min_rtt: if b.is_empty() { None } else { Some(dur(b)?) },
            pacing_rate: int(c, "pacing_rate")?,
        },
        other => return Err(format!("unknown event `{other}`")),
    })
}

fn parse_int<T: std::str::FromStr>(s: &str, what: &str) -> std::result::Result<T, String> {
    s.parse()
        .map_err(|_| format!("{what} `{s}` is not a non-negative integer in range"))
}

fn parse_bool(s: &str, what: &str) -> std::result::Result<bool, String> {
    match s {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("{what} `{s}` must be 0 or 1")),
    }
}

/// Parses "S.FFFFFFFFF" (up to nine decimals) into integer nanoseconds, exactly.
fn parse_secs(s: &str) -> std::result::Result<u64, String> {
    let bad = || format!("`{s}` is not seconds with at most nine decimals");
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let secs: u64 = whole.parse().map_err(|_| bad())?;
    let frac_ns: u64 = format!("{frac:0<9}").parse().map_err(|_| bad())?;
    secs.checked_mul(1_000_000_000)
        .and_then(|ns| ns.checked_add(frac_ns))
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_string(f: impl FnOnce(&mut CsvWriter<Vec<u8>>) -> io::Result<()>) -> String {
        let mut w = CsvWriter::new(Vec::new());
        f(&mut w).unwrap();
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn plain_fields_are_not_quoted() {
        assert_eq!(to_string(|w| w.row(&["a", "b c", "d"])), "a,b c,d\n");
    }

    #[test]
    fn commas_quotes_and_newlines_are_quoted_per_rfc4180() {
        let s = to_string(|w| w.row(&["x,y", "say \"hi\"", "two\nlines", "cr\r"]));
        assert_eq!(s, "\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\"\n");
    }

    #[test]
    fn floats_have_fixed_decimals_and_no_negative_zero() {
        let s = to_string(|w| {
            w.field_f64(1.0 / 3.0)?;
            w.field_f64(-0.0)?;
            w.field_f64(2.5)?;
            w.field_f64(f64::NAN)?;
            w.field_f64(f64::INFINITY)?;
            w.end_row()
        });
        assert_eq!(s, "0.333333,0.000000,2.500000,NaN,inf\n");
    }

    #[test]
    fn float_decimals_can_be_changed() {
        let mut w = CsvWriter::new(Vec::new()).with_float_decimals(2);
        w.field_f64(1.23456).unwrap();
        w.field_empty().unwrap();
        w.field_i64(-4).unwrap();
        w.end_row().unwrap();
        assert_eq!(w.into_inner().unwrap(), b"1.23,,-4\n");
    }

    fn rec(ns: u64, flow: u32, event: TraceEvent) -> TraceRecord {
        TraceRecord {
            time: Time(ns),
            flow: FlowId(flow),
            event,
        }
    }

    fn every_variant() -> Vec<TraceRecord> {
        use TraceEvent::*;
        let ms = Dur::from_millis;
        vec![
            rec(
                0,
                0,
                Spike {
                    start: true,
                    link: 2,
                },
            ),
            rec(
                1,
                0,
                Send {
                    seq: 0,
                    len: 1448,
                    retx: false,
                },
            ),
            rec(
                1_000_000_001,
                3,
                Send {
                    seq: 1448,
                    len: 1448,
                    retx: true,
                },
            ),
            rec(
                2_000_000_000,
                0,
                AckRecv {
                    ack: 1448,
                    dup: false,
                },
            ),
            rec(
                2_000_000_000,
                0,
                AckRecv {
                    ack: 1448,
                    dup: true,
                },
            ),
            rec(3, 1, Deliver { seq: 0, len: 1448 }),
            rec(
                4,
                0,
                Drop {
                    seq: 2896,
                    len: 1448,
                    is_ack: false,
                    link: 1,
                },
            ),
            rec(
                5,
                0,
                Drop {
                    seq: 0,
                    len: 0,
                    is_ack: true,
                    link: 1,
                },
            ),
            rec(
                6,
                0,
                Cwnd {
                    cwnd: 14480,
                    ssthresh: u64::MAX,
                },
            ),
            rec(
                7,
                0,
                Rto {
                    rto: Dur(1_234_567_891),
                    backoff: 3,
                },
            ),
            rec(8, 0, Srtt { srtt: ms(150) }),
            rec(9, 0, RttSample { rtt: Dur(1) }),
            rec(
                10,
                0,
                SndState {
                    snd_una: 1,
                    snd_nxt: 2,
                    snd_max: 3,
                },
            ),
            rec(
                11,
                0,
                Timeout {
                    seq: 4344,
                    spurious: true,
                },
            ),
            rec(
                12,
                0,
                Bbr {
                    bw: 1_250_000,
                    min_rtt: Some(ms(80)),
                    pacing_rate: 1_237_500,
                },
            ),
            rec(
                13,
                0,
                Bbr {
                    bw: 0,
                    min_rtt: None,
                    pacing_rate: 28_000,
                },
            ),
            rec(
                u64::MAX,
                u32::MAX,
                Spike {
                    start: false,
                    link: 2,
                },
            ),
        ]
    }

    #[test]
    fn trace_lines_follow_the_documented_layout() {
        let mut out = Vec::new();
        write_trace(&mut out, &every_variant()[..4]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "time_s,flow,event,a,b,c\n\
             0.000000000,0,spike,1,2,\n\
             0.000000001,0,send,0,1448,0\n\
             1.000000001,3,send,1448,1448,1\n\
             2.000000000,0,ack,1448,0,\n"
        );
    }

    #[test]
    fn trace_round_trips_through_a_file() {
        let path = std::env::temp_dir().join(format!("spikelab-trace-{}.csv", std::process::id()));
        let records = every_variant();
        write_trace_csv(&path, &records).unwrap();
        let back = read_trace_csv(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(back, records);
    }

    #[test]
    fn parse_errors_name_the_line_and_the_problem() {
        let text = "time_s,flow,event,a,b,c\n0.1,0,send,0,10,0\n0.2,0,warp,1,2,3\n";
        let err = parse_trace(text).unwrap_err().to_string();
        assert!(
            err.contains("line 3") && err.contains("unknown event `warp`"),
            "{err}"
        );
        let err = parse_trace("nope\n").unwrap_err().to_string();
        assert!(err.contains("header"), "{err}");
        let err = parse_trace("time_s,flow,event,a,b,c\n0.1234567891,0,srtt,1,,\n").unwrap_err();
        assert!(err.to_string().contains("nine decimals"), "{err}");
    }

    #[test]
    fn short_decimals_are_read_exactly() {
        assert_eq!(parse_secs("1.5"), Ok(1_500_000_000));
        assert_eq!(parse_secs("2"), Ok(2_000_000_000));
        assert!(parse_secs("-1").is_err());
    }
}
