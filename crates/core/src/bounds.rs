//! Range checks of configuration values, shared by every crate whose configuration a
//! scenario writes: the rules (see `spikelab_scenario::bounds` for the list), the
//! [`FieldPath`] a problem names, and [`Bounded`], the hook through which each
//! algorithm family's registration list checks its own kinds' fields (so a new kind
//! brings its checks in its own file, not in a central match).

use crate::{BitRate, ByteSize, Dur};
use std::fmt;

/// One step of a [`FieldPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A table key.
    Key(String),
    /// An array element (from 0).
    Index(usize),
}

/// The keys and indices that lead to a value, e.g. `flow[1].tcp.recovery`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(pub Vec<Seg>);

impl FieldPath {
    /// The path of a top-level key.
    pub fn root(key: &str) -> FieldPath {
        FieldPath(vec![Seg::Key(key.to_owned())])
    }

    /// This path extended by `key`.
    pub fn key(&self, key: &str) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Seg::Key(key.to_owned()));
        p
    }

    /// This path extended by array index `i`.
    pub fn index(&self, i: usize) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }

    /// Whether the path is empty (the whole file).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A problem found after parsing: the field and what is wrong, not yet located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// The field concerned.
    pub path: FieldPath,
    /// What is wrong.
    pub message: String,
}

impl Invalid {
    /// A problem with `path`.
    pub fn new(path: FieldPath, message: impl Into<String>) -> Invalid {
        Invalid {
            path,
            message: message.into(),
        }
    }
}

/// A configuration that checks its own numbers, reporting each problem at its field
/// under `at` (the path of the configuration itself).
pub trait Bounded {
    /// Every number in range, or the first problem.
    fn bounds(&self, at: &FieldPath) -> Check;
}

/// Longest duration anywhere in a scenario: 10^6 s.
pub const MAX_DUR: Dur = Dur::from_secs(1_000_000);
/// Fastest link or CBR rate: 1 Tbit/s.
pub const MAX_RATE: u64 = 1_000_000_000_000;
/// Largest byte count (transfer, message, byte-limited queue): 1 TB.
pub const MAX_BYTES: u64 = 1_000_000_000_000;
/// Largest packet count (queue limits, ping-pong messages): 10^9.
pub const MAX_PACKETS: u64 = 1_000_000_000;
/// Most repetitions of one scenario.
pub const MAX_REPS: u32 = 1_000_000;
/// Largest small threshold (duplicate ACKs, ACK every N, RLC retransmissions, ...).
pub const MAX_THRESHOLD: u64 = 1000;
/// Largest IP packet: bounds per-packet sizes (RED's mean packet, radio blocks,
/// Mahimahi delivery opportunities).
pub const MAX_PACKET_BYTES: u64 = 65_535;
/// Shortest cycle of a spike schedule (quiet interval plus spike, a whole outage period,
/// all levels of an oscillation): the papers' spikes last seconds, and a cycle of 0 s
/// would keep simulated time from advancing.
pub const MIN_CYCLE: Dur = Dur::from_millis(1);
/// Most samples of a generated ping trace: 10^7, a thousand times the paper's 10 000.
pub const MAX_PING_SAMPLES: u64 = 10_000_000;
/// Shortest initial RTO and RTO ceiling: a timer that may expire every nanosecond
/// turns each round trip into thousands of timeouts.
pub const MIN_RTO_CEILING: Dur = Dur::from_millis(1);
/// Largest TCP window: 2^30 bytes, the most window scaling can express (RFC 7323 2.3).
pub const MAX_WINDOW: u64 = 1 << 30;
/// Largest initial window: 1000 segments, a hundred times RFC 6928's 10. A larger one
/// only puts a whole window (up to 2^30 bytes) into the network at time zero, which no
/// study means and which the fuzz harness found costing minutes per run.
pub const MAX_INITIAL_WINDOW: u64 = 1000;

/// The outcome of a range check.
pub type Check = Result<(), Invalid>;

/// `message` about the field at `path`.
pub fn fail(path: &FieldPath, message: impl Into<String>) -> Check {
    Err(Invalid::new(path.clone(), message))
}

/// `x` in `lo..=hi`, in `unit`.
pub fn int(path: &FieldPath, x: u64, lo: u64, hi: u64, unit: &str) -> Check {
    if (lo..=hi).contains(&x) {
        return Ok(());
    }
    fail(
        path,
        format!("{x} is out of range: must be between {lo} and {hi}{unit}"),
    )
}

/// A rate of 1 bit/s to [`MAX_RATE`].
pub fn rate(path: &FieldPath, r: BitRate) -> Check {
    if r.0 == 0 {
        return fail(path, "the rate must be positive");
    }
    int(path, r.0, 1, MAX_RATE, " bit/s")
}

/// 1 to `hi` bytes.
pub fn bytes(path: &FieldPath, b: ByteSize, hi: u64) -> Check {
    int(path, b.0, 1, hi, " bytes")
}

/// A duration in `lo..=hi`.
pub fn dur_in(path: &FieldPath, d: Dur, lo: Dur, hi: Dur) -> Check {
    if d > hi {
        return fail(path, format!("{d} is longer than the {hi} allowed here"));
    }
    if d < lo {
        return fail(path, format!("{d} is shorter than the {lo} needed here"));
    }
    Ok(())
}

/// Any duration up to [`MAX_DUR`].
pub fn dur(path: &FieldPath, d: Dur) -> Check {
    dur_in(path, d, Dur::ZERO, MAX_DUR)
}

/// A positive duration up to [`MAX_DUR`].
pub fn positive(path: &FieldPath, d: Dur) -> Check {
    dur_in(path, d, Dur(1), MAX_DUR)
}

/// A finite real for which `ok` holds; `range` says which in the message.
pub fn real(path: &FieldPath, x: f64, ok: fn(f64) -> bool, range: &str) -> Check {
    if x.is_finite() && ok(x) {
        return Ok(());
    }
    fail(path, format!("{x} is out of range: must be {range}"))
}

/// A probability in \[0, 1\].
pub fn probability(path: &FieldPath, x: f64) -> Check {
    real(
        path,
        x,
        |x| (0.0..=1.0).contains(&x),
        "a probability in [0, 1]",
    )
}

/// A finite positive gain.
pub fn gain(path: &FieldPath, x: f64) -> Check {
    real(path, x, |x| x > 0.0, "finite and positive")
}

/// `min <= max`, reported at `min`.
pub fn ordered<T: PartialOrd + std::fmt::Display>(
    path: &FieldPath,
    min: T,
    max: T,
    what: &str,
) -> Check {
    if min > max {
        return fail(path, format!("min {min} is larger than max {max}{what}"));
    }
    Ok(())
}
