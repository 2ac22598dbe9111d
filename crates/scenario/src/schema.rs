//! The scenario file schema: what each table and key means, its unit and its default.
//!
//! Every struct denies unknown keys, so a misspelt key is an error with its line, never
//! a silently ignored setting. Types the other crates already define are reused as
//! they are: links are [`LinkConfig`], TCP settings [`TcpConfig`], workloads
//! [`Workload`], start times [`StartTime`], drop selections [`DropWhich`].
//!
//! The loader fills in two things before these types see the file (its `prepare`
//! step, which builds on these types): the TCP profile under each flow's `tcp` table, and default
//! names (`run.name` from the file name, `topology.access.name = "access"`,
//! `topology.bottleneck.name = "bottleneck"`). After loading, a [`ScenarioFile`]
//! therefore holds the *resolved* configuration, which is what `meta.json` records.

use serde::de::{self, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use spikelab_core::{BitRate, ByteSize, Dur};
use spikelab_engine::{DropWhich, StartTime, Workload};
use spikelab_net::LinkConfig;
use spikelab_quic::QuicConfig;
use spikelab_tcp::TcpConfig;
use std::fmt;

/// A whole scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// `[run]`: name, seed, repetitions and stop time. Default: every field's default.
    #[serde(default)]
    pub run: RunSection,
    /// `[[link]]`: explicit point-to-point links. Default: none.
    #[serde(default)]
    pub link: Vec<LinkConfig>,
    /// `[topology]`: a preset that adds named links. Default: none.
    #[serde(default)]
    pub topology: Option<Topology>,
    /// `[[flow]]`: the traffic. At least one is required.
    #[serde(default)]
    pub flow: Vec<FlowEntry>,
    /// `[[drop]]`: deterministic data losses. Default: none.
    #[serde(default)]
    pub drop: Vec<DropEntry>,
    /// `[[middlebox]]`: STD proxies and delay injectors. Default: none.
    #[serde(default)]
    pub middlebox: Vec<MiddleboxEntry>,
}

/// `[run]`: how the scenario is run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Name of the scenario, used for the output directory (`out/<name>`); letters,
    /// digits, `-`, `_` and `.`. Default: the file name without `.toml`.
    #[serde(default)]
    pub name: String,
    /// Free text describing the scenario. Default: empty.
    #[serde(default)]
    pub description: String,
    /// Base seed; repetition r runs with `RngStreams::repetition_seed(seed, r)`.
    /// Any u64: TOML integers stop at 2^63-1, so larger seeds (such as the
    /// per-repetition seeds in outputs) are written as strings, decimal
    /// `"18446744073709551615"` or hex `"0xffffffffffffffff"`. Default: 1.
    #[serde(default = "default_seed", with = "seed")]
    pub seed: u64,
    /// Number of repetitions, at least 1. Default: 1.
    #[serde(default = "default_reps")]
    pub reps: u32,
    /// Simulated time after which a run ends even if flows are unfinished ("60s").
    /// Default: 3600 s.
    #[serde(default = "default_stop")]
    pub stop: Dur,
}

fn default_seed() -> u64 {
    1
}

fn default_reps() -> u32 {
    1
}

fn default_stop() -> Dur {
    Dur::from_secs(3600)
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            name: String::new(),
            description: String::new(),
            seed: default_seed(),
            reps: default_reps(),
            stop: default_stop(),
        }
    }
}

/// `[topology]`: a preset, tagged by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Topology {
    /// `pairs` senders and receivers sharing one bottleneck.
    Dumbbell(Dumbbell),
}

/// A dumbbell: sender i reaches the left router over `<access>-src-<i>`, the routers are
/// joined by the bottleneck, and the right router reaches receiver i over
/// `<access>-dst-<i>` (i counts from 0). A flow with `route = "pair"` crosses
/// `access-src-<k>`, `bottleneck`, `access-dst-<k>` forward.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// Number of sender/receiver pairs, at least 1. Required.
    pub pairs: u32,
    /// Template of every access link (a `[[link]]` table; `name`, default "access",
    /// is the prefix of the generated names). Required: `rate` and `latency`.
    pub access: LinkConfig,
    /// The shared link (a `[[link]]` table; `name` defaults to "bottleneck").
    /// Required: `rate` and `latency`.
    pub bottleneck: LinkConfig,
}

/// The kinds of traffic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowKindName {
    /// A TCP connection carrying a `workload`. The default.
    #[default]
    Tcp,
    /// A QUIC connection carrying a `workload`, set by the `quic` table.
    Quic,
    /// Constant-bit-rate datagrams at `rate`.
    Cbr,
}

/// Where a TCP flow's settings start before the file's `tcp` keys override them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// Today's standards: `TcpConfig::default()`. The default.
    #[default]
    Modern,
    /// The ns-2.1b9a agents of 2002: `TcpConfig::ns2_2002()` (docs/src/ns2-2002-defaults.md).
    Ns2_2002,
    /// A Linux 6.x host: `TcpConfig::linux()`, with sysctl-named switches under
    /// `tcp.linux` (docs/src/validation-linux.md).
    Linux,
}

impl Profile {
    /// The profile's settings.
    pub fn config(self) -> TcpConfig {
        match self {
            Profile::Modern => TcpConfig::default(),
            Profile::Ns2_2002 => TcpConfig::ns2_2002(),
            Profile::Linux => TcpConfig::linux(),
        }
    }

    /// The profile named `name` as written in a file, if any.
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::deserialize(name.into_deserializer())
            .map_err(|e: de::value::Error| e)
            .ok()
    }
}

/// `[[flow]]`: one flow, or `count` identical ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowEntry {
    /// Name in outputs; replicas are named `<name>#<i>` (i from 0). Must not contain
    /// `#` or `:`. Required.
    pub name: String,
    /// The links the data crosses, in order. Required. See [`Route`].
    pub route: Route,
    /// When the flow starts: a duration ("2s") or `{ min = "0s", max = "10s" }` drawn
    /// uniformly from `[min, max)` from the flow's own random stream. Default: 0 s.
    #[serde(default, deserialize_with = "start::deserialize")]
    pub start: StartTime,
    /// Number of identical flows this entry stands for, at least 1. Default: 1.
    #[serde(default = "default_count")]
    pub count: u32,
    /// `"tcp"`, `"quic"` or `"cbr"`. Default: `"tcp"`.
    #[serde(default)]
    pub kind: FlowKindName,
    /// TCP only: the base of `tcp`, `"modern"`, `"ns2-2002"` or `"linux"`. Default:
    /// `"modern"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// TCP only: a `TcpConfig` table; keys override the profile's (deep merge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpConfig>,
    /// QUIC only: a `QuicConfig` table (`[flow.quic]`); keys override its defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quic: Option<QuicConfig>,
    /// TCP and QUIC, required: `{ kind = "bulk", bytes = "5MB" }` or
    /// `{ kind = "ping-pong", packets = 40, bytes = "1KB" }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    /// CBR only, required: the sending rate, counted on the wire (payload plus 28 bytes
    /// of IPv4/UDP header), e.g. "1Mbit/s".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<BitRate>,
    /// CBR only: payload bytes per datagram, 1 to 65507. Default: 1000 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<ByteSize>,
    /// CBR only: when the flow stops sending. Default: the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Dur>,
    /// TCP only, `spikelab emulate` only (`run` ignores it): kernel settings beyond
    /// what `tcp` implies. See [`KernelEntry`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<KernelEntry>,
}

/// `[flow.kernel]`: what `spikelab emulate` sets on a flow's real sockets and in its
/// two network namespaces besides what the flow's `tcp` table implies (the emulator's
/// docs list that mapping). Every key is optional; a sysctl given here overrides the
/// value `tcp` implies, and `--sysctl` on the command line overrides both.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelEntry {
    /// The sender's congestion-control module (`TCP_CONGESTION`), e.g. "reno" or
    /// "cubic". Default: "reno" (or `--cc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion: Option<String>,
    /// The receiver's `SO_RCVBUF`. Default: 4 x `tcp.receiver_window`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcvbuf: Option<ByteSize>,
    /// net.ipv4.tcp_timestamps, 0..=2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_timestamps: Option<u32>,
    /// net.ipv4.tcp_sack, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_sack: Option<u32>,
    /// net.ipv4.tcp_dsack, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_dsack: Option<u32>,
    /// net.ipv4.tcp_frto, 0..=2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_frto: Option<u32>,
    /// net.ipv4.tcp_recovery, a bit mask 0..=7 (1 = RACK loss detection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_recovery: Option<u32>,
    /// net.ipv4.tcp_early_retrans, 0..=4 (3 = tail loss probes, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_early_retrans: Option<u32>,
}

impl KernelEntry {
    /// Each sysctl the entry sets, with its largest allowed value: (name, value, max).
    pub fn sysctls(&self) -> Vec<(&'static str, u32, u32)> {
        [
            ("tcp_timestamps", self.tcp_timestamps, 2),
            ("tcp_sack", self.tcp_sack, 1),
            ("tcp_dsack", self.tcp_dsack, 1),
            ("tcp_frto", self.tcp_frto, 2),
            ("tcp_recovery", self.tcp_recovery, 7),
            ("tcp_early_retrans", self.tcp_early_retrans, 4),
        ]
        .into_iter()
        .filter_map(|(n, v, max)| v.map(|v| (n, v, max)))
        .collect()
    }
}

fn default_count() -> u32 {
    1
}

/// Default CBR payload in bytes.
pub const DEFAULT_CBR_PAYLOAD: u64 = 1000;

/// `[[drop]]`: drop packets of one flow deterministically as they enter a link: data
/// segments by number, or every ACK for a while (lost ACKs, [Gurtov & Ludwig 2003] II.B).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropEntry {
    /// Name of a link on the flow's route. Required.
    pub link: String,
    /// Name of a TCP flow (`<name>#<i>` for one replica of a counted flow). Required.
    pub flow: String,
    /// `[from, to)`: segment numbers dropped; segment n starts at byte n * MSS.
    /// Either this or `acks = true` is required, with from < to.
    #[serde(default)]
    pub segments: Option<[u64; 2]>,
    /// Drop the flow's ACKs instead of data segments. Default: false.
    #[serde(default)]
    pub acks: bool,
    /// `"first"` (only first transmissions) or `"every"`. Default: `"first"`.
    #[serde(default)]
    pub which: DropWhich,
    /// Drop only packets entering the link from this time on. Default: 0 s.
    #[serde(default)]
    pub after: Dur,
    /// Drop only packets entering the link before this time. Default: until the end.
    #[serde(default)]
    pub until: Option<Dur>,
}

/// `[[middlebox]]`: a box at the first endpoint of a link (the base station in front of
/// a wireless link): `config` is a `std-proxy` or `delay-injection` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MiddleboxEntry {
    /// Name of the link whose first endpoint holds the box. Required; one box per link.
    pub link: String,
    /// The box: `{ kind = "std-proxy", ... }` or `{ kind = "delay-injection", ... }`.
    pub config: spikelab_net::MiddleboxConfig,
}

/// A flow's route as written: `["a", "b:reverse"]`, `"pair"` or `{ pair = 3 }`.
///
/// Each name is a link crossed in its forward direction, or `"<name>:reverse"` (also
/// `"<name>:forward"`) for an explicit direction. ACKs take the same links back.
/// `"pair"` (dumbbell only) gives the k-th flow instance that uses it (in file order,
/// replicas included) pair `k mod pairs`; `{ pair = i }` names pair i.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// Explicit link names with optional `:reverse`.
    Links(Vec<String>),
    /// Dumbbell pairs assigned round-robin.
    AnyPair,
    /// One dumbbell pair.
    Pair(u32),
}

impl Serialize for Route {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Route::Links(names) => names.serialize(s),
            Route::AnyPair => s.serialize_str("pair"),
            Route::Pair(i) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("pair", i)?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Route {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RouteVisitor)
    }
}

struct RouteVisitor;

impl<'de> Visitor<'de> for RouteVisitor {
    type Value = Route;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of link names, \"pair\", or { pair = N }")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Route, E> {
        match s {
            "pair" => Ok(Route::AnyPair),
            _ => Err(E::custom(format!(
                "route `{s}`: write a list of link names (route = [\"{s}\"]), \"pair\" or {{ pair = N }}"
            ))),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Route, A::Error> {
        let mut names = Vec::new();
        while let Some(name) = seq.next_element::<String>()? {
            names.push(name);
        }
        Ok(Route::Links(names))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Route, A::Error> {
        let mut pair = None;
        while let Some(key) = map.next_key::<String>()? {
            if key != "pair" {
                return Err(de::Error::unknown_field(&key, &["pair"]));
            }
            pair = Some(map.next_value::<u32>()?);
        }
        pair.map(Route::Pair)
            .ok_or_else(|| de::Error::missing_field("pair"))
    }
}

/// A seed as a TOML integer or a decimal or `0x` hex string (for seeds above 2^63-1);
/// written back as an integer when TOML can hold it, as a decimal string otherwise.
mod seed {
    use super::*;

    pub fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*seed) {
            Ok(small) => s.serialize_i64(small),
            Err(_) => s.serialize_str(&seed.to_string()),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(SeedVisitor)
    }

    struct SeedVisitor;

    impl<'de> Visitor<'de> for SeedVisitor {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a seed from 0 to 18446744073709551615 (an integer, or a string such as \"18446744073709551615\" or \"0xffffffffffffffff\")")
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            let t = v.trim();
            let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => t.parse(),
            };
            parsed.map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }
}

/// `start = "2s"` or `start = { min = "0s", max = "10s" }`, into the engine's type.
mod start {
    use super::*;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<StartTime, D::Error> {
        d.deserialize_any(StartVisitor)
    }

    struct StartVisitor;

    impl StartVisitor {
        fn at<E: de::Error>(d: Result<Dur, de::value::Error>) -> Result<StartTime, E> {
            d.map(StartTime::At).map_err(|e| E::custom(e.to_string()))
        }
    }

    impl<'de> Visitor<'de> for StartVisitor {
        type Value = StartTime;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a duration such as \"2s\", or { min = \"0s\", max = \"10s\" }")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<StartTime, E> {
            Self::at(Dur::deserialize(s.into_deserializer()))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<StartTime, E> {
            Self::at(Dur::deserialize(v.into_deserializer()))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<StartTime, E> {
            Self::at(Dur::deserialize(v.into_deserializer()))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<StartTime, E> {
            Self::at(Dur::deserialize(v.into_deserializer()))
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StartTime, A::Error> {
            let (mut min, mut max) = (None, None);
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "min" => min = Some(map.next_value::<Dur>()?),
                    "max" => max = Some(map.next_value::<Dur>()?),
                    other => return Err(de::Error::unknown_field(other, &["min", "max"])),
                }
            }
            let min = min.ok_or_else(|| de::Error::missing_field("min"))?;
            let max = max.ok_or_else(|| de::Error::missing_field("max"))?;
            Ok(StartTime::Uniform { min, max })
        }
    }
}
