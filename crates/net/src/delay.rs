//! An optional per-packet extra one-way delay replayed from a trace.
//!
//! The trace is a piecewise-constant function of time: `(time, delay)` points, the delay
//! holding from its time until the next point's (before the first point: no extra
//! delay; after the last: the last delay). A packet gets the delay in force when its
//! transmission ends, on top of the link latency; packets stay in FIFO order (the
//! link's propagation pipe never lets a packet overtake the one before it, so a sudden
//! drop in the delay makes packets bunch up behind the last slow one, as on a path that
//! does not reorder).
//!
//! ## Format
//! One point per line, `time,delay` or `time delay` (commas, tabs or spaces). Each value
//! is a duration with an optional unit ("1.5s", "200ms"); a bare number is seconds.
//! Times must not decrease. Blank lines and lines starting with `#` are skipped.
//!
//! ## LeoReplayer's format (one value per 10 ms)
//! [`DelayTrace::parse_per_10ms`] reads the one-way-delay files of LeoReplayer
//! (github SpaceNetLab/LeoCC, `traces/README.md`, "delay_{trace_no}.txt"; read by its
//! `leoreplayer/replayer/src/frontend/delay_queue.cc`): line i (from 1) holds the one-way
//! delay in whole milliseconds for the i-th 10 ms of the trace, [10(i-1), 10i) ms; no
//! comments, no blank lines. A scenario names such a file with `delay_trace = { file =
//! "…", format = "leo-replayer" }`. Two differences from LeoReplayer's replay, both
//! stated in the book (scenario reference, "Time-varying delay"): a packet here never
//! leaves before the one ahead of it, where LeoReplayer's priority queue lets a packet
//! that met a smaller delay overtake; and past its last line the last delay holds,
//! where LeoReplayer starts the file again.
//!
//! ## Sampling
//! [`DelaySampling::Time`] (the default) replays the trace in time as above.
//! [`DelaySampling::PerPacket`] ignores the times: each packet draws one of the trace's
//! delays, every point equally likely and independently of the others (the empirical
//! distribution of the samples). This is the path of [Klein et al. 2004]'s own TCP
//! simulator as its numbers imply (section IV: the ping "RTT measurements turn out to be
//! essentially uncorrelated"; a 512-segment transfer meets 24 timeouts, far more spikes
//! than the trace holds in the seconds the transfer lasts). Packets still never overtake
//! one another.
//!
//! [`DelaySampling::PerPacketReordering`] draws as `PerPacket` does, but a packet does not
//! wait for the ones before it: it reaches the far end at its transmission's end plus
//! the latency plus its own draw, and overtakes every packet that drew a longer delay
//! (the link's pipe is kept in arrival order, ties in the order the packets left the
//! transmitter). The path then reorders, and stated as such: each packet's delay is
//! independent of the others' as the paper's pings are ("essentially uncorrelated"),
//! and a packet's timeout depends on its own delay alone ("the RTT associated with the
//! packet exceeds the RTO"), where under FIFO order a spike delays every packet behind
//! it too.

use crate::trace_ref::TraceError;
use rand::Rng;
use serde::{Deserialize, Serialize};
use spikelab_core::units::parse_duration;
use spikelab_core::{Dur, SimRng, Time};

/// How a link direction reads its delay trace (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DelaySampling {
    /// The delay in force when the packet's transmission ends. The default.
    #[default]
    Time,
    /// An independent draw per packet from the trace's delays, every point equally
    /// likely; packets stay in FIFO order.
    PerPacket,
    /// An independent draw per packet as [`DelaySampling::PerPacket`], and a packet may
    /// overtake the ones before it: the path reorders.
    PerPacketReordering,
}

impl DelaySampling {
    /// Does each packet draw its own delay (rather than read the trace in time)?
    pub fn draws_per_packet(self) -> bool {
        matches!(
            self,
            DelaySampling::PerPacket | DelaySampling::PerPacketReordering
        )
    }

    /// May a packet overtake the ones before it on the link?
    pub fn reorders(self) -> bool {
        self == DelaySampling::PerPacketReordering
    }
}

/// A parsed delay trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayTrace {
    points: Vec<(Time, Dur)>,
}

impl DelayTrace {
    /// A trace from points sorted by time.
    pub fn from_points(points: Vec<(Time, Dur)>) -> DelayTrace {
        debug_assert!(points.windows(2).all(|w| w[0].0 <= w[1].0));
        DelayTrace { points }
    }

    /// Parses the text of a trace file (see the module docs for the format).
    pub fn parse(text: &str) -> Result<DelayTrace, TraceError> {
        let mut points: Vec<(Time, Dur)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (t, d) = parse_point(line).map_err(|r| TraceError::at(i + 1, r))?;
            if let Some(&(prev, _)) = points.last().filter(|(prev, _)| t < *prev) {
                let reason = format!(
                    "time {t} is before the previous point's ({prev}): times must not decrease"
                );
                return Err(TraceError::at(i + 1, reason));
            }
            points.push((t, d));
        }
        if points.is_empty() {
            return Err(TraceError::whole(
                "empty delay trace: no (time, delay) points",
            ));
        }
        Ok(DelayTrace { points })
    }

    /// Parses LeoReplayer's one-way-delay format (see the module docs): one whole
    /// number of milliseconds per line, line i for [10(i-1), 10i) ms. Runs of equal
    /// values become one point.
    pub fn parse_per_10ms(text: &str) -> Result<DelayTrace, TraceError> {
        const STEP: Dur = Dur::from_millis(10);
        let mut points: Vec<(Time, Dur)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let ms: u64 = line.parse().map_err(|_| {
                let found = if line.is_empty() { "an empty line".to_string() } else { format!("`{line}`") };
                TraceError::at(
                    i + 1,
                    format!("expected the one-way delay of this 10 ms in whole milliseconds (LeoReplayer's format), found {found}"),
                )
            })?;
            let d = Dur::from_millis(ms);
            if points.last().is_none_or(|&(_, prev)| prev != d) {
                points.push((Time::ZERO + STEP * i as u64, d));
            }
        }
        if points.is_empty() {
            return Err(TraceError::whole("empty delay trace: no 10 ms intervals"));
        }
        Ok(DelayTrace { points })
    }

    /// The trace as the text of a `time,delay` file (seconds, to the nanosecond) under
    /// a `#` comment line: [`DelayTrace::parse`] reads it back as it was.
    pub fn to_text(&self, comment: &str) -> String {
        let secs = |ns: u64| format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
        let mut out = format!("# {comment}\n");
        for &(t, d) in &self.points {
            out.push_str(&format!("{},{}\n", secs(t.0), secs(d.0)));
        }
        out
    }

    /// The time of the last point: from then on the last delay holds.
    pub fn last_time(&self) -> Time {
        self.points.last().map_or(Time::ZERO, |p| p.0)
    }

    /// The extra delay for a packet whose transmission ends at `t`.
    pub fn delay_at(&self, t: Time) -> Dur {
        let n = self.points.partition_point(|&(at, _)| at <= t);
        n.checked_sub(1).map_or(Dur::ZERO, |i| self.points[i].1)
    }

    /// One of the trace's delays, every point equally likely ([`DelaySampling::PerPacket`]).
    pub fn draw(&self, rng: &mut SimRng) -> Dur {
        self.points[rng.random_range(0..self.points.len())].1
    }

    /// The extra delay of a packet whose transmission ends at `t`, read as `sampling`
    /// says (`rng` is drawn from only when sampling per packet).
    pub fn delay_for(&self, sampling: DelaySampling, t: Time, rng: &mut SimRng) -> Dur {
        match sampling {
            DelaySampling::Time => self.delay_at(t),
            DelaySampling::PerPacket | DelaySampling::PerPacketReordering => self.draw(rng),
        }
    }
}

fn parse_point(line: &str) -> Result<(Time, Dur), String> {
    let mut fields = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|f| !f.is_empty());
    let (Some(t), Some(d), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(format!("expected `time,delay`, found `{line}`"));
    };
    let t = parse_duration(t).map_err(|e| format!("bad time: {e}"))?;
    let d = parse_duration(d).map_err(|e| format!("bad delay: {e}"))?;
    Ok((Time::ZERO + t, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: u64) -> Time {
        Time::ZERO + Dur::from_secs(x)
    }

    #[test]
    fn delay_is_piecewise_constant_between_points() {
        let tr = DelayTrace::parse("# t, delay\n1, 100ms\n3\t0.5\n\n5 0\n").unwrap();
        assert_eq!(tr.delay_at(Time::ZERO), Dur::ZERO);
        assert_eq!(tr.delay_at(s(1)), Dur::from_millis(100));
        assert_eq!(tr.delay_at(s(2)), Dur::from_millis(100));
        assert_eq!(tr.delay_at(s(3)), Dur::from_millis(500));
        assert_eq!(tr.delay_at(s(9)), Dur::ZERO);
    }

    #[test]
    fn per_packet_sampling_draws_every_point_and_ignores_time() {
        use rand::SeedableRng;
        let tr = DelayTrace::parse("0,10ms\n1,20ms\n2,30ms\n").unwrap();
        let mut rng = SimRng::seed_from_u64(3);
        let mut seen = [0u32; 3];
        for _ in 0..3000 {
            let d = tr.delay_for(DelaySampling::PerPacket, Time::ZERO, &mut rng);
            seen[(d.as_millis_f64() / 10.0) as usize - 1] += 1;
        }
        // Each of three points about 1000 times (binomial sd about 26).
        assert!(seen.iter().all(|&n| (850..=1150).contains(&n)), "{seen:?}");
        let time = tr.delay_for(DelaySampling::Time, s(1), &mut rng);
        assert_eq!(time, Dur::from_millis(20));
    }

    #[test]
    fn a_leo_replayer_file_holds_each_line_for_its_10_ms() {
        let tr = DelayTrace::parse_per_10ms("24\n18\n18\n30\n").unwrap();
        let at = |ms| tr.delay_at(Time::ZERO + Dur::from_millis(ms));
        assert_eq!(at(0), Dur::from_millis(24));
        assert_eq!(at(9), Dur::from_millis(24));
        assert_eq!(at(10), Dur::from_millis(18));
        assert_eq!(at(29), Dur::from_millis(18));
        assert_eq!(at(30), Dur::from_millis(30));
        assert_eq!(at(10_000), Dur::from_millis(30), "the last delay holds");
        assert_eq!(tr.points.len(), 3, "equal neighbours make one point");
    }

    #[test]
    fn a_trace_written_as_text_reads_back_as_it_was() {
        let tr = DelayTrace::parse_per_10ms("24\n18\n18\n30\n").unwrap();
        let text = tr.to_text("three levels");
        assert!(
            text.starts_with("# three levels\n0.000000000,0.024000000\n"),
            "{text}"
        );
        assert_eq!(DelayTrace::parse(&text).unwrap(), tr);
    }

    #[test]
    fn a_leo_replayer_file_with_a_bad_line_names_it() {
        let e = DelayTrace::parse_per_10ms("24\n\n18\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.reason.contains("empty line"), "{e}");
        let e = DelayTrace::parse_per_10ms("24\n1.5\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.reason.contains("`1.5`"), "{e}");
        assert_eq!(DelayTrace::parse_per_10ms("").unwrap_err().line, None);
    }

    #[test]
    fn malformed_lines_name_the_line_and_the_reason() {
        let e = DelayTrace::parse("0,1ms\n1,abc\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.reason.contains("bad delay"), "{e}");
        let e = DelayTrace::parse("0,1ms\n2,1ms\n1,1ms\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.reason.contains("must not decrease"), "{e}");
        let e = DelayTrace::parse("0,1ms,3\n").unwrap_err();
        assert!(
            e.to_string().starts_with("line 1: expected `time,delay`"),
            "{e}"
        );
        assert_eq!(DelayTrace::parse("# nothing\n").unwrap_err().line, None);
    }
}
