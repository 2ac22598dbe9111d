//! Human units in scenario files: durations ("150ms", "1.5s", "2min"), bit rates
//! ("2Mbit/s", "30kbps") and byte sizes ("5MB", "64KiB").
//!
//! Decimal prefixes are powers of 1000 and binary ones (Ki, Mi, Gi) powers of 1024, as
//! in SI / IEC 80000-13. A bare number means seconds, bit/s or bytes. Every parser
//! returns a message that says what was expected, so a scenario error can quote it.

use crate::time::Dur;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitRate(pub u64);

/// A size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize(pub u64);

impl BitRate {
    pub fn bps(self) -> u64 {
        self.0
    }
}

impl ByteSize {
    pub fn bytes(self) -> u64 {
        self.0
    }
}

/// Splits "12.5ms" into (12.5, "ms").
fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` does not start with a number"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("`{s}` must be a non-negative number"));
    }
    Ok((value, unit.trim()))
}

/// Parses "150ms", "1.5s", "2min", "100us", "10ns", or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Dur, String> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!(
                "unknown duration unit `{other}` in `{s}` (use ns, us, ms, s, min or h)"
            ))
        }
    };
    Ok(Dur::from_secs_f64(v * scale))
}

fn prefix_scale(prefix: &str) -> Option<f64> {
    Some(match prefix {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// Parses "2Mbit/s", "30kbps", "2 Mbps", "1.5Gbit/s" or a bare number of bit/s.
pub fn parse_rate(s: &str) -> Result<BitRate, String> {
    let (v, unit) = split_number(s)?;
    let prefix = unit
        .strip_suffix("bit/s")
        .or_else(|| unit.strip_suffix("bps"))
        .or_else(|| unit.is_empty().then_some(""))
        .ok_or_else(|| {
            format!("unknown rate unit `{unit}` in `{s}` (use bit/s or bps with k, M, G)")
        })?;
    let scale = prefix_scale(prefix.trim())
        .ok_or_else(|| format!("unknown rate prefix `{prefix}` in `{s}` (use k, M or G)"))?;
    let bps = (v * scale).round();
    if bps < 1.0 {
        return Err(format!("rate `{s}` must be at least 1 bit/s"));
    }
    Ok(BitRate(bps as u64))
}

/// Parses "5MB", "300KB", "64KiB", "1500B" or a bare number of bytes.
pub fn parse_size(s: &str) -> Result<ByteSize, String> {
    let (v, unit) = split_number(s)?;
    let prefix = unit
        .strip_suffix('B')
        .or_else(|| unit.is_empty().then_some(""))
        .ok_or_else(|| format!("unknown size unit `{unit}` in `{s}` (use B, KB, MB, KiB, MiB)"))?;
    let scale = prefix_scale(prefix.trim()).ok_or_else(|| {
        format!("unknown size prefix `{prefix}` in `{s}` (use K, M, G, Ki, Mi, Gi)")
    })?;
    Ok(ByteSize((v * scale).round() as u64))
}

/// A bare integer of seconds as a [`Dur`], refusing values a `u64` of nanoseconds
/// cannot hold (about 584 years).
fn dur_from_whole_secs(v: u64) -> Result<Dur, String> {
    v.checked_mul(1_000_000_000).map(Dur).ok_or_else(|| {
        format!(
            "{v} s is out of range (at most {} s)",
            u64::MAX / 1_000_000_000
        )
    })
}

macro_rules! string_or_number_serde {
    ($ty:ty, $parse:path, $expecting:expr, $from_num:expr, $to_str:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $parse(s).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        $parse(&v.to_string()).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        if v < 0 {
                            return Err(E::custom(format!("{v} must not be negative")));
                        }
                        $from_num(v as u64).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        $from_num(v).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$to_str(self))
            }
        }
    };
}

string_or_number_serde!(
    Dur,
    parse_duration,
    "a duration such as \"150ms\" or \"1.5s\", or a number of seconds",
    dur_from_whole_secs,
    |d: &Dur| if d.0.is_multiple_of(1_000_000) {
        format!("{}ms", d.0 / 1_000_000)
    } else {
        format!("{}ns", d.0)
    }
);
string_or_number_serde!(
    BitRate,
    parse_rate,
    "a rate such as \"2Mbit/s\" or \"30kbps\", or a number of bit/s",
    |v| Ok::<_, String>(BitRate(v)),
    |r: &BitRate| format!("{}bit/s", r.0)
);
string_or_number_serde!(
    ByteSize,
    parse_size,
    "a size such as \"5MB\" or \"64KiB\", or a number of bytes",
    |v| Ok::<_, String>(ByteSize(v)),
    |b: &ByteSize| format!("{}B", b.0)
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_every_unit() {
        let cases = [
            ("150ms", Dur::from_millis(150)),
            ("1.5s", Dur::from_millis(1500)),
            ("2min", Dur::from_secs(120)),
            ("100us", Dur::from_micros(100)),
            ("3", Dur::from_secs(3)),
            (" 10 ms ", Dur::from_millis(10)),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn rates_parse_decimal_prefixes() {
        assert_eq!(parse_rate("2Mbit/s"), Ok(BitRate(2_000_000)));
        assert_eq!(parse_rate("30kbps"), Ok(BitRate(30_000)));
        assert_eq!(parse_rate("1.5 Mbit/s"), Ok(BitRate(1_500_000)));
        assert_eq!(parse_rate("64000"), Ok(BitRate(64_000)));
    }

    #[test]
    fn sizes_distinguish_decimal_and_binary_prefixes() {
        assert_eq!(parse_size("5MB"), Ok(ByteSize(5_000_000)));
        assert_eq!(parse_size("64KiB"), Ok(ByteSize(65_536)));
        assert_eq!(parse_size("1500B"), Ok(ByteSize(1500)));
    }

    #[test]
    fn serialised_values_parse_back_to_themselves() {
        for d in [Dur::from_millis(150), Dur(1_234_567), Dur::ZERO] {
            let text = serde_json::to_string(&d).unwrap();
            assert_eq!(serde_json::from_str::<Dur>(&text).unwrap(), d, "{text}");
        }
        let r = BitRate(2_000_000);
        assert_eq!(
            serde_json::from_str::<BitRate>(&serde_json::to_string(&r).unwrap()).unwrap(),
            r
        );
    }

    #[test]
    fn bad_units_say_what_is_allowed() {
        let e = parse_duration("5 fortnights").unwrap_err();
        assert!(e.contains("unknown duration unit `fortnights`"), "{e}");
        let e = parse_rate("2Mbytes").unwrap_err();
        assert!(e.contains("bit/s"), "{e}");
        let e = parse_size("abc").unwrap_err();
        assert!(e.contains("does not start with a number"), "{e}");
        assert!(parse_rate("0bps").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}
