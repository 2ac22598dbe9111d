//! Link configuration as written in scenario files (serde, `deny_unknown_fields`).
//!
//! A [`LinkConfig`] describes a full-duplex point-to-point link; [`LinkConfig::dir`]
//! resolves one direction into the [`LinkDirConfig`] that builds a
//! [`crate::LinkDir`]. "Forward" is the direction from the link's first endpoint to its
//! second (in the papers' setups, the one that carries the data).

use crate::delay::DelaySampling;
use crate::delay_source::DelaySource;
use crate::queue::QueueConfig;
use crate::service::ServiceConfig;
use crate::spike::{Dir, Schedule, SpikeConfig, SpikeError};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use spikelab_core::{BitRate, Dur};
use std::fmt;
use std::ops::{Deref, DerefMut};

/// Everything one direction of a link needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkDirConfig {
    /// Transmission rate in bit/s ("2Mbit/s"). Required.
    pub rate: BitRate,
    /// One-way propagation latency ("150ms"), added after the transmission. Required.
    pub latency: Dur,
    /// The queue in front of the transmitter. Default: drop-tail, 50 packets.
    #[serde(default)]
    pub queue: QueueConfig,
    /// How packets are served. Default: `{ kind = "rate" }`.
    #[serde(default)]
    pub service: ServiceConfig,
    /// Extra one-way delay replayed from a `(time, delay)` trace file or generated
    /// ([`crate::delay_source`]), added to `latency` (see [`crate::delay`]). Default:
    /// none.
    #[serde(default)]
    pub delay_trace: Option<DelaySource>,
    /// How `delay_trace` is read: replayed in time ("time"), one independent draw per
    /// packet in FIFO order ("per-packet"), or one independent draw per packet that may
    /// overtake the packets before it ("per-packet-reordering"; see [`crate::delay`]).
    /// Default: time.
    #[serde(default)]
    pub delay_sampling: DelaySampling,
}

impl LinkDirConfig {
    /// A direction with the given rate and latency and every other field at its default.
    pub fn new(rate: BitRate, latency: Dur) -> LinkDirConfig {
        LinkDirConfig {
            rate,
            latency,
            queue: QueueConfig::default(),
            service: ServiceConfig::default(),
            delay_trace: None,
            delay_sampling: DelaySampling::Time,
        }
    }
}

/// Settings of one direction that differ from the link's shared ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirOverride {
    /// Rate of this direction. Default: the link's `rate`.
    #[serde(default)]
    pub rate: Option<BitRate>,
    /// Latency of this direction. Default: the link's `latency`.
    #[serde(default)]
    pub latency: Option<Dur>,
    /// Queue of this direction. Default: the link's `queue`. (Boxed, as are the
    /// service and delay trace: nearly every link overrides nothing, and two unboxed
    /// overrides were 528 of a link's 824 bytes, held per link for the whole run.)
    #[serde(default)]
    pub queue: Option<Box<QueueConfig>>,
    /// Service model of this direction. Default: the link's `service`.
    #[serde(default)]
    pub service: Option<Box<ServiceConfig>>,
    /// Delay trace of this direction. Default: the link's `delay_trace`.
    #[serde(default)]
    pub delay_trace: Option<Box<DelaySource>>,
    /// How this direction reads its delay trace. Default: the link's `delay_sampling`.
    #[serde(default)]
    pub delay_sampling: Option<DelaySampling>,
}

/// No override: what a direction without one reads through [`Overrides`].
static NO_OVERRIDE: DirOverride = DirOverride {
    rate: None,
    latency: None,
    queue: None,
    service: None,
    delay_trace: None,
    delay_sampling: None,
};

/// One direction's [`DirOverride`], boxed only when it overrides something: nearly
/// every link overrides nothing, and the scenario's links are kept for the whole run
/// (two inline overrides were 128 of a link's 272 bytes; 8 bytes each now). It reads
/// as a `DirOverride` (`Deref`; all `None` when absent), is written and compared as
/// one, and serialises as one, so scenarios and `meta.json` are unchanged. A mutable
/// borrow ([`DerefMut`]) boxes an absent override first; [`Overrides::get_mut`] does
/// not.
#[derive(Clone, Default)]
pub struct Overrides(Option<Box<DirOverride>>);

impl Overrides {
    /// The override, if it was given (and overrides something) or written to.
    pub fn get_mut(&mut self) -> Option<&mut DirOverride> {
        self.0.as_deref_mut()
    }
}

impl From<DirOverride> for Overrides {
    fn from(o: DirOverride) -> Self {
        Overrides((o != NO_OVERRIDE).then(|| Box::new(o)))
    }
}

impl Deref for Overrides {
    type Target = DirOverride;
    fn deref(&self) -> &DirOverride {
        self.0.as_deref().unwrap_or(&NO_OVERRIDE)
    }
}

impl DerefMut for Overrides {
    fn deref_mut(&mut self) -> &mut DirOverride {
        self.0.get_or_insert_with(Box::default)
    }
}

impl PartialEq for Overrides {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl fmt::Debug for Overrides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for Overrides {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Overrides {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        DirOverride::deserialize(d).map(Overrides::from)
    }
}

/// A full-duplex point-to-point link and the path events on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Name used in outputs and error messages. Required.
    pub name: String,
    /// Rate of both directions, bit/s ("30kbps"). Required.
    pub rate: BitRate,
    /// One-way latency of both directions ("300ms"). Required.
    pub latency: Dur,
    /// Queue of both directions. Default: drop-tail, 50 packets.
    #[serde(default)]
    pub queue: QueueConfig,
    /// Service model of both directions. Default: `{ kind = "rate" }`.
    #[serde(default)]
    pub service: ServiceConfig,
    /// Delay trace file applied to both directions (see [`crate::delay`]). Default: none.
    /// Boxed, as `DirOverride`'s: most links have none, and the scenario's links are
    /// kept for the whole run (72 bytes inline, 8 boxed).
    #[serde(default)]
    pub delay_trace: Option<Box<DelaySource>>,
    /// How both directions read their delay trace: "time", "per-packet" or
    /// "per-packet-reordering" (see [`crate::delay`]). Default: time.
    #[serde(default)]
    pub delay_sampling: DelaySampling,
    /// Overrides for the forward direction. Default: none.
    #[serde(default)]
    pub forward: Overrides,
    /// Overrides for the reverse direction. Default: none.
    #[serde(default)]
    pub reverse: Overrides,
    /// Delay spikes, outages and bandwidth changes on this link. Default: none.
    #[serde(default)]
    pub spikes: Vec<SpikeConfig>,
}

impl LinkConfig {
    /// One event generator per entry of `spikes`, in order.
    pub fn schedules(&self) -> Result<Vec<Schedule>, SpikeError> {
        self.spikes.iter().map(Schedule::new).collect()
    }

    /// The configuration of direction `dir`, overrides applied.
    pub fn dir(&self, dir: Dir) -> LinkDirConfig {
        let o = match dir {
            Dir::Forward => &self.forward,
            Dir::Reverse => &self.reverse,
        };
        LinkDirConfig {
            rate: o.rate.unwrap_or(self.rate),
            latency: o.latency.unwrap_or(self.latency),
            queue: o.queue.as_deref().unwrap_or(&self.queue).clone(),
            service: o.service.as_deref().unwrap_or(&self.service).clone(),
            delay_trace: o
                .delay_trace
                .as_deref()
                .or(self.delay_trace.as_deref())
                .cloned(),
            delay_sampling: o.delay_sampling.unwrap_or(self.delay_sampling),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{DropTailConfig, QueueLimit};

    const GPRS: &str = r#"
        name = "gprs"
        rate = "30kbps"
        latency = "300ms"
        queue = { kind = "drop-tail", limit = { packets = 9 } }
        reverse = { rate = "60kbps" }

        [[spikes]]
        kind = "hiccup"
        interval = { dist = "uniform", min = "20s", max = "40s" }
        duration = { dist = "uniform", min = "3s", max = "15s" }
    "#;

    #[test]
    fn a_toml_link_parses_and_overrides_apply_per_direction() {
        let link: LinkConfig = toml::from_str(GPRS).unwrap();
        let fwd = link.dir(Dir::Forward);
        let rev = link.dir(Dir::Reverse);
        assert_eq!(fwd.rate, BitRate(30_000));
        assert_eq!(rev.rate, BitRate(60_000));
        assert_eq!(rev.latency, Dur::from_millis(300));
        let want = QueueConfig::DropTail(DropTailConfig {
            limit: QueueLimit::Packets(9),
            drop_front: false,
        });
        assert_eq!(fwd.queue, want);
        assert_eq!(link.spikes.len(), 1);
    }

    /// The example of the crate's report: every kind of queue, service and spike.
    const FULL: &str = r#"
        name = "bottleneck"
        rate = "384kbps"
        latency = "50ms"
        queue = { kind = "red", min_thresh = 30, max_thresh = 100, q_weight = 0.002, linterm = 10, gentle = true, drop_front = true, limit = 200 }
        service = { kind = "wcdma", block_bytes = "40B", bler = 0.1, retx_delay = "100ms", max_retx = 10 }

        [forward]
        queue = { kind = "adaptive-red", target_delay = "5ms" }

        [reverse]
        rate = "64kbps"
        queue = { kind = "drop-tail", limit = { bytes = "10KB" }, drop_front = false }
        service = { kind = "rate" }

        [[spikes]]
        kind = "hiccup"
        interval = { dist = "uniform", min = "20s", max = "40s" }
        duration = { dist = "uniform", min = "3s", max = "15s" }
        interval_from = "end"

        [[spikes]]
        kind = "outage"
        period = "50s"
        duration = "1.5s"
        dirs = "forward"

        [[spikes]]
        kind = "outage"
        at = [{ start = "20s", duration = "0.9s" }, { start = "27s", duration = "0.9s" }]

        [[spikes]]
        kind = "bandwidth-step"
        from = "300kbps"
        to = "10kbps"
        at = "30s"

        [[spikes]]
        kind = "bandwidth-oscillation"
        levels = [
          { rate = "300kbps", hold = { dist = "exponential", mean = "5s" } },
          { rate = "10kbps", hold = { dist = "fixed", value = "1s" } },
        ]
    "#;

    #[test]
    fn the_full_example_parses_and_builds_its_schedules() {
        let link: LinkConfig = toml::from_str(FULL).unwrap();
        assert_eq!(link.schedules().unwrap().len(), 5);
        assert!(matches!(
            link.dir(Dir::Forward).queue,
            QueueConfig::AdaptiveRed(_)
        ));
        assert_eq!(link.dir(Dir::Reverse).service, ServiceConfig::default());
        assert!(matches!(
            link.dir(Dir::Forward).service,
            ServiceConfig::Wcdma(_)
        ));
        let json = serde_json::to_string(&link).unwrap();
        assert_eq!(serde_json::from_str::<LinkConfig>(&json).unwrap(), link);
    }

    #[test]
    fn unknown_fields_are_rejected_at_every_level() {
        let bad_link = GPRS.replace("name = \"gprs\"", "name = \"gprs\"\nspeed = 3");
        assert!(toml::from_str::<LinkConfig>(&bad_link).is_err());
        let bad_queue = GPRS.replace("drop_front", "x").replace(
            "limit = { packets = 9 }",
            "limit = { packets = 9 }, limt = 3",
        );
        let e = toml::from_str::<LinkConfig>(&bad_queue).unwrap_err();
        assert!(e.to_string().contains("limt"), "{e}");
    }
}
