//! Random Early Detection (Floyd & Jacobson 1993, "Random Early Detection Gateways for
//! Congestion Avoidance") as ns-2 implements it in queue/red.cc, and Adaptive RED
//! (Floyd, Gummadi & Shenker 2001, "Adaptive RED: An Algorithm for Increasing the
//! Robustness of RED's Active Queue Management").
//!
//! Per arrival, in this order (red.cc `REDQueue::enque`):
//! 1. Average: `avg <- avg (1-w)^(m+1) + w q` ([`ewma`]), where `q` is the number of
//!    packets waiting *before* the arrival and `m = floor(ptc * idle time)` counts the
//!    packets the link could have sent while it was idle (`ptc = rate / (8 *
//!    mean_pktsize)`), so the average decays over idle periods as if `m` empty-queue
//!    arrivals had happened (F&J section 4, red.cc `idle_`).
//! 2. Adaptive RED only: if `interval` has passed since the last adaptation, adapt max_p.
//! 3. `count` (arrivals since the last drop) increases by one.
//! 4. If `avg >= min_thresh` and more than one packet waits:
//!    * `avg >= max_thresh` (or `>= 2 max_thresh` in gentle mode): forced drop;
//!    * else, on the first arrival of such a period, `count = 1` and no drop (red.cc `old`);
//!    * else an early drop with probability `p_a` ([`spread_prob`]) of the base
//!      probability `p_b` ([`base_prob`]); a drop resets `count` to 0.
//!
//!    Otherwise `count` stops mattering (the next period starts afresh).
//! 5. Without an early drop, the arrival is appended; a forced drop, or exceeding the
//!    hard `limit`, then drops the head (drop-from-front) or the arrival (red.cc
//!    `pickPacketToDrop`). As in ns-2, early drops always take the arrival.
//!
//! RED here counts packets (ns-2's default `queue-in-bytes_ false`); `mean_pktsize` only
//! sets the idle decay rate `ptc`.

use super::{PacketFifo, QueueDiscipline};
use rand::Rng;
use serde::{Deserialize, Serialize};
use spikelab_core::{BitRate, ByteSize, Dur, Packet, SimRng, Time, Wire};

/// RED parameters; defaults are ns-2's (tcl/lib/ns-default.tcl, `Queue/RED`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// `thresh_`: average queue (packets) where early drops begin. Default: 5.
    #[serde(default = "default_min_thresh")]
    pub min_thresh: f64,
    /// `maxthresh_`: average queue (packets) where p_b reaches max_p. Default: 15.
    #[serde(default = "default_max_thresh")]
    pub max_thresh: f64,
    /// `q_weight_`: EWMA weight of the average queue. Default: 0.002.
    #[serde(default = "default_q_weight")]
    pub q_weight: f64,
    /// `linterm_`: max_p = 1 / linterm. Default: 10.
    #[serde(default = "default_linterm")]
    pub linterm: f64,
    /// `gentle_`: between max_thresh and 2 max_thresh, p_b rises from max_p to 1
    /// instead of jumping to 1. Default: true (ns-2's default since 2001).
    #[serde(default = "yes")]
    pub gentle: bool,
    /// `wait_`: wait at least 1/p_b arrivals between early drops (F&J's "uniform"
    /// spreading with a wait). Default: true.
    #[serde(default = "yes")]
    pub wait: bool,
    /// `drop_front_`: forced and overflow drops take the head. Default: false.
    #[serde(default)]
    pub drop_front: bool,
    /// Hard limit on packets waiting (see the queue module docs): `limit = 50` or, as
    /// drop-tail writes it, `limit = { packets = 50 }`. Default: 50.
    #[serde(default = "default_red_limit", deserialize_with = "packet_limit")]
    pub limit: u64,
    /// `mean_pktsize_`: bytes per packet for the idle decay rate. Default: 500 B.
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: ByteSize,
}

/// Adaptive RED parameters (Floyd, Gummadi & Shenker 2001, sections 4 and 5). Unset
/// thresholds and weight are derived from the link rate `C` in packets/s
/// (`C = rate / (8 mean_pktsize)`): `min_thresh = max(5, target_delay C / 2)`,
/// `max_thresh = 3 min_thresh`, `q_weight = 1 - exp(-1 / C)`. Gentle mode is on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveRedConfig {
    /// Target queueing delay. Default: 5 ms (ns-2 `targetdelay_`).
    #[serde(default = "default_target_delay")]
    pub target_delay: Dur,
    /// Time between max_p adaptations. Default: 0.5 s.
    #[serde(default = "default_interval")]
    pub interval: Dur,
    /// Cap of the additive increase: max_p += min(alpha, max_p / 4). Default: 0.01.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Multiplicative decrease: max_p *= beta. Default: 0.9.
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Initial max_p. Default: 0.1 (ns-2's 1 / linterm_).
    #[serde(default = "default_initial_max_p")]
    pub initial_max_p: f64,
    /// Average queue (packets) where early drops begin. Default: automatic.
    #[serde(default)]
    pub min_thresh: Option<f64>,
    /// Average queue (packets) where p_b reaches max_p. Default: 3 min_thresh.
    #[serde(default)]
    pub max_thresh: Option<f64>,
    /// EWMA weight. Default: automatic, 1 - exp(-1/C).
    #[serde(default)]
    pub q_weight: Option<f64>,
    /// Forced and overflow drops take the head. Default: false.
    #[serde(default)]
    pub drop_front: bool,
    /// Hard limit on packets waiting: `limit = 50` or `limit = { packets = 50 }`.
    /// Default: 50.
    #[serde(default = "default_red_limit", deserialize_with = "packet_limit")]
    pub limit: u64,
    /// Bytes per packet for C and the idle decay. Default: 500 B.
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize: ByteSize,
}

fn default_min_thresh() -> f64 {
    5.0
}
fn default_max_thresh() -> f64 {
    15.0
}
fn default_q_weight() -> f64 {
    0.002
}
fn default_linterm() -> f64 {
    10.0
}
fn yes() -> bool {
    true
}
fn default_red_limit() -> u64 {
    50
}

/// RED's `limit` as a number of packets, or drop-tail's `{ packets = N }` form (RED
/// counts packets, so `{ bytes = ... }` is refused with a hint).
fn packet_limit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    use serde::de::{self, MapAccess, Visitor};
    struct Packets;
    impl<'de> Visitor<'de> for Packets {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number of packets or { packets = N }")
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<u64, E> {
            Ok(n)
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<u64, E> {
            u64::try_from(n)
                .map_err(|_| E::custom(format!("{n} packets: the limit cannot be negative")))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
            let mut limit = None;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "packets" => limit = Some(map.next_value::<u64>()?),
                    "bytes" => {
                        return Err(de::Error::custom(
                            "RED counts its limit in packets: write { packets = N }",
                        ))
                    }
                    other => return Err(de::Error::unknown_field(other, &["packets"])),
                }
            }
            limit.ok_or_else(|| de::Error::missing_field("packets"))
        }
    }
    d.deserialize_any(Packets)
}
fn default_mean_pktsize() -> ByteSize {
    ByteSize(500)
}
fn default_target_delay() -> Dur {
    Dur::from_millis(5)
}
fn default_interval() -> Dur {
    Dur::from_millis(500)
}
fn default_alpha() -> f64 {
    0.01
}
fn default_beta() -> f64 {
    0.9
}
fn default_initial_max_p() -> f64 {
    0.1
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_thresh: default_min_thresh(),
            max_thresh: default_max_thresh(),
            q_weight: default_q_weight(),
            linterm: default_linterm(),
            gentle: true,
            wait: true,
            drop_front: false,
            limit: default_red_limit(),
            mean_pktsize: default_mean_pktsize(),
        }
    }
}

/// The EWMA of the queue after `rounds` samples, the last of which saw `q` packets and
/// the others an empty queue: `avg (1-w)^rounds + w q` (F&J section 4; red.cc
/// `estimator`).
pub fn ewma(avg: f64, q: f64, w: f64, rounds: u64) -> f64 {
    avg * decay(1.0 - w, rounds) + w * q
}

/// `keep^rounds`. One round (an arrival at a busy link, nearly all of them) is `keep`
/// itself, without a call to `pow`: `pow(x, 1)` is `x` exactly (glibc's `pow` errs by
/// under 1 ULP and `x` is representable; test `one_round_decays_exactly_as_pow_does`).
/// `pow` was 1.9 % of the instructions of `reproduce peak-hopper`.
#[inline]
fn decay(keep: f64, rounds: u64) -> f64 {
    match rounds {
        1 => keep,
        _ => keep.powf(rounds as f64),
    }
}

/// RED's base drop probability p_b at average queue `avg` (F&J eq. in section 4; the
/// gentle extension of Floyd 2000, red.cc `calculate_p_new`):
/// `max_p (avg - min) / (max - min)` for `min <= avg < max`,
/// `max_p + (1 - max_p) (avg - max) / max` for `max <= avg < 2 max` when gentle, and 1
/// beyond (0 below `min`).
pub fn base_prob(avg: f64, min: f64, max: f64, max_p: f64, gentle: bool) -> f64 {
    let p = if avg < min {
        0.0
    } else if avg < max {
        max_p * (avg - min) / (max - min)
    } else if gentle {
        max_p + (1.0 - max_p) * (avg - max) / max
    } else {
        1.0
    };
    p.clamp(0.0, 1.0)
}

/// The per-arrival drop probability p_a after `count` arrivals since the last drop
/// (F&J section 4; red.cc `modify_p`). Without `wait`: `p_b / (1 - count p_b)`, so drops
/// are spread uniformly over 1..1/p_b arrivals. With `wait`: 0 while `count p_b < 1`,
/// then `p_b / (2 - count p_b)`, spreading them over 1/p_b..2/p_b. Capped at 1.
pub fn spread_prob(p_b: f64, count: u64, wait: bool) -> f64 {
    let cp = count as f64 * p_b;
    let p = match wait {
        true if cp < 1.0 => 0.0,
        true if cp < 2.0 => p_b / (2.0 - cp),
        false if cp < 1.0 => p_b / (1.0 - cp),
        _ => 1.0,
    };
    p.min(1.0)
}

/// Link capacity in packets of `mean_pktsize` per second (red.cc `ptc`).
fn packets_per_sec(rate: BitRate, mean_pktsize: ByteSize) -> f64 {
    rate.bps() as f64 / (8.0 * mean_pktsize.bytes().max(1) as f64)
}

/// Adaptive RED's state (FGS 2001 Fig. 5).
#[derive(Clone, Debug)]
struct Adapt {
    interval: Dur,
    alpha: f64,
    beta: f64,
    last: Time,
}

impl Adapt {
    /// One adaptation step of max_p toward keeping `avg` in the middle of the thresholds
    /// (target band `[min + 0.4 (max - min), min + 0.6 (max - min)]`; max_p kept in
    /// [0.01, 0.5]).
    fn step(&self, avg: f64, min: f64, max: f64, max_p: f64) -> f64 {
        let (lo, hi) = (min + 0.4 * (max - min), min + 0.6 * (max - min));
        if avg > hi && max_p <= 0.5 {
            max_p + self.alpha.min(max_p / 4.0)
        } else if avg < lo && max_p >= 0.01 {
            max_p * self.beta
        } else {
            max_p
        }
    }
}

/// What RED decided for one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Accept,
    Early,
    Forced,
}

/// A RED (or Adaptive RED) queue with its packets.
#[derive(Clone, Debug)]
pub struct Red<P = Packet> {
    fifo: PacketFifo<P>,
    min_th: f64,
    max_th: f64,
    q_w: f64,
    max_p: f64,
    gentle: bool,
    wait: bool,
    drop_front: bool,
    limit: u64,
    mean_pktsize: ByteSize,
    ptc: f64,
    avg: f64,
    count: u64,
    in_drop_region: bool,
    idle_since: Option<Time>,
    adapt: Option<Adapt>,
}

impl<P: Wire> Red<P> {
    /// A plain RED queue on a link of `rate`.
    pub fn new(cfg: &RedConfig, rate: BitRate) -> Red<P> {
        Red {
            fifo: PacketFifo::new(),
            min_th: cfg.min_thresh,
            max_th: cfg.max_thresh,
            q_w: cfg.q_weight,
            max_p: 1.0 / cfg.linterm,
            gentle: cfg.gentle,
            wait: cfg.wait,
            drop_front: cfg.drop_front,
            limit: cfg.limit,
            mean_pktsize: cfg.mean_pktsize,
            ptc: packets_per_sec(rate, cfg.mean_pktsize),
            avg: 0.0,
            count: 0,
            in_drop_region: false,
            // ns-2 starts idle at time 0 (red.cc `reset`).
            idle_since: Some(Time::ZERO),
            adapt: None,
        }
    }

    /// An Adaptive RED queue on a link of `rate`, parameters derived as documented on
    /// [`AdaptiveRedConfig`].
    pub fn adaptive(cfg: &AdaptiveRedConfig, rate: BitRate) -> Red<P> {
        let c = packets_per_sec(rate, cfg.mean_pktsize);
        let min_th = cfg
            .min_thresh
            .unwrap_or_else(|| (cfg.target_delay.as_secs_f64() * c / 2.0).max(5.0));
        let base = RedConfig {
            min_thresh: min_th,
            max_thresh: cfg.max_thresh.unwrap_or(3.0 * min_th),
            q_weight: cfg.q_weight.unwrap_or_else(|| 1.0 - (-1.0 / c).exp()),
            linterm: 1.0 / cfg.initial_max_p,
            gentle: true,
            wait: true,
            drop_front: cfg.drop_front,
            limit: cfg.limit,
            mean_pktsize: cfg.mean_pktsize,
        };
        let mut red = Red::new(&base, rate);
        red.adapt = Some(Adapt {
            interval: cfg.interval,
            alpha: cfg.alpha,
            beta: cfg.beta,
            last: Time::ZERO,
        });
        red
    }

    /// Offers `pkt` arriving at `now`; returns the dropped packet, if any.
    pub fn enqueue(&mut self, now: Time, pkt: P, rng: &mut SimRng) -> Option<P> {
        self.update_average(now);
        self.maybe_adapt(now);
        match self.verdict(rng) {
            Verdict::Early => Some(pkt),
            Verdict::Forced => {
                self.count = 0;
                self.push_and_drop(pkt)
            }
            Verdict::Accept if self.fifo.len() as u64 >= self.limit => self.push_and_drop(pkt),
            Verdict::Accept => {
                self.fifo.push(pkt);
                None
            }
        }
    }

    /// Removes the head; an empty queue marks the link idle from `now`.
    pub fn dequeue(&mut self, now: Time) -> Option<P> {
        let p = self.fifo.pop();
        if p.is_none() && self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
        p
    }

    /// The link rate changed: the idle decay follows it.
    pub fn set_rate(&mut self, rate: BitRate) {
        self.ptc = packets_per_sec(rate, self.mean_pktsize);
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &PacketFifo<P> {
        &self.fifo
    }
}

impl<P: Wire> QueueDiscipline<P> for Red<P> {
    fn on_enqueue(&mut self, now: Time, pkt: P, rng: &mut SimRng) -> Option<P> {
        self.enqueue(now, pkt, rng)
    }
    fn on_dequeue(&mut self, now: Time) -> Option<P> {
        self.dequeue(now)
    }
    fn on_rate_change(&mut self, rate: BitRate) {
        self.set_rate(rate)
    }
    fn fifo(&self) -> &PacketFifo<P> {
        &self.fifo
    }
}

impl<P: Wire> Red<P> {
    /// The current average queue, in packets.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The current max_p (changes only under Adaptive RED).
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// (min_thresh, max_thresh, q_weight) in use.
    pub fn thresholds(&self) -> (f64, f64, f64) {
        (self.min_th, self.max_th, self.q_w)
    }

    fn update_average(&mut self, now: Time) {
        let idle_pkts = match self.idle_since.take() {
            Some(since) => (self.ptc * now.saturating_since(since).as_secs_f64()).floor() as u64,
            None => 0,
        };
        self.avg = ewma(self.avg, self.fifo.len() as f64, self.q_w, idle_pkts + 1);
    }

    fn maybe_adapt(&mut self, now: Time) {
        let Some(a) = &mut self.adapt else { return };
        if now.saturating_since(a.last) > a.interval {
            a.last = now;
            self.max_p = a.step(self.avg, self.min_th, self.max_th, self.max_p);
        }
    }

    fn verdict(&mut self, rng: &mut SimRng) -> Verdict {
        self.count += 1;
        if self.avg < self.min_th || self.fifo.len() <= 1 {
            self.in_drop_region = false;
            return Verdict::Accept;
        }
        let hard_max = if self.gentle {
            2.0 * self.max_th
        } else {
            self.max_th
        };
        if self.avg >= hard_max {
            return Verdict::Forced;
        }
        if !self.in_drop_region {
            self.in_drop_region = true;
            self.count = 1;
            return Verdict::Accept;
        }
        let p_b = base_prob(self.avg, self.min_th, self.max_th, self.max_p, self.gentle);
        let p_a = spread_prob(p_b, self.count, self.wait);
        if rng.random::<f64>() < p_a {
            self.count = 0;
            Verdict::Early
        } else {
            Verdict::Accept
        }
    }

    /// Appends `pkt`, then drops the head (drop-from-front) or `pkt` itself.
    fn push_and_drop(&mut self, pkt: P) -> Option<P> {
        if self.drop_front && !self.fifo.is_empty() {
            let head = self.fifo.pop();
            self.fifo.push(pkt);
            head
        } else {
            Some(pkt)
        }
    }

    #[cfg(test)]
    fn hold_average(&mut self, avg: f64) {
        self.avg = avg;
        self.q_w = 0.0;
    }
}

mod bounds;
#[cfg(test)]
mod tests;
