//! Path-event schedules: delay spikes ("hiccups"), one-direction outages, bandwidth steps
//! and bandwidth oscillation, as sans-I/O generators of [`LinkControl`]s.
//!
//! The engine builds one [`Schedule`] per [`SpikeConfig`], asks it for the next event with
//! [`Schedule::next`] (passing the schedule's own random stream), applies the control to
//! the link's directions at that time, and asks again. Events come in non-decreasing
//! time order; a schedule that has nothing more to say returns `None`.
//!
//! ## Hiccup: how the interval between spikes is measured
//!
//! [Gurtov & Ludwig 2002] section 4 draws "intervals between cell reselections" uniformly from
//! [80,140], [40,80] or [20,40] s, and reselections last U[3,15] s, chosen so that "for a
//! typical download time of 120 s on average one, two and three delay spikes occur"
//! (easy, mediocre, difficult). Counting spikes in 120 s:
//!
//! | scenario  | start-to-start: 120/E[I] | end-to-start: 120/(E[I]+E[D]) |
//! |-----------|--------------------------|-------------------------------|
//! | easy      | 120/110 = 1.09           | 120/119 = 1.01                |
//! | mediocre  | 120/60  = 2.00           | 120/69  = 1.74                |
//! | difficult | 120/30  = 4.00           | 120/39  = 3.08                |
//!
//! End-to-start matches "one, two, three" better overall (the difficult scenario rules
//! out start-to-start), and [Kim & Cho 2003] V, which reuses this model, calls the interval
//! the "inter delay time", i.e. the time between delays. So by default the interval is
//! the quiet time from the end of one spike to the start of the next
//! ([`IntervalFrom::End`]); [`IntervalFrom::Start`] measures between starts (a spike
//! then never starts before the previous one ended). The first spike starts one drawn
//! interval after time zero unless `first` says otherwise. [Gurtov & Ludwig 2003] IV.A ("delay
//! spikes ... uniformly distributed between 3 and 15 s; they occur at the interval of
//! 20-40 s") gives the defaults.
//!
//! A hiccup suspends *both* directions *after* the queue ([Gurtov & Ludwig 2002] 4: "suspend data
//! flow in both directions and after the queue"); see [`crate::LinkDir::suspend`]. The
//! readings the papers leave open are the `freeze_at`, `wire` and `arrivals` switches of
//! hiccups and outages ([`crate::freeze`]).

use crate::distribution::Distribution;
use crate::freeze::{FreezeMode, FreezePoint, FrozenArrivals, FrozenWire};
use serde::{Deserialize, Serialize};
use spikelab_core::{BitRate, Dur, SimRng, Time};

/// One direction of a full-duplex link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dir {
    /// From the link's first endpoint to its second.
    Forward,
    /// From the second endpoint to the first.
    Reverse,
}

/// The directions a control applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dirs {
    /// Both directions.
    Both,
    /// Only [`Dir::Forward`].
    Forward,
    /// Only [`Dir::Reverse`].
    Reverse,
}

impl Dirs {
    /// Does this set include `dir`?
    pub fn includes(self, dir: Dir) -> bool {
        match self {
            Dirs::Both => true,
            Dirs::Forward => dir == Dir::Forward,
            Dirs::Reverse => dir == Dir::Reverse,
        }
    }
}

/// What a schedule asks the engine to do to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkControl {
    /// Call [`crate::LinkDir::suspend`] on these directions, freezing them this way.
    Suspend(Dirs, FreezeMode),
    /// Call [`crate::LinkDir::resume`] on these directions.
    Resume(Dirs),
    /// Call [`crate::LinkDir::set_rate`] on these directions.
    SetRate(Dirs, BitRate),
}

/// How [`HiccupConfig::interval`] is measured (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalFrom {
    /// From the end of one spike to the start of the next (default).
    #[default]
    End,
    /// From the start of one spike to the start of the next.
    Start,
}

/// One explicitly placed spike or outage: `{ start = "20s", duration = "0.9s" }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpikeAt {
    /// When it starts, from the beginning of the run.
    pub start: Dur,
    /// How long it lasts.
    pub duration: Dur,
}

/// Delay spikes at random (or listed) times, on both directions unless `dirs` says
/// otherwise ([Gurtov & Ludwig 2002] 4, [Gurtov & Ludwig 2003] IV.A, [Kim & Cho 2003] V).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HiccupConfig {
    /// Time between spikes (see `interval_from`).
    /// Default: uniform 20-40 s ([Gurtov & Ludwig 2003] IV.A).
    #[serde(default = "default_hiccup_interval")]
    pub interval: Distribution,
    /// Length of each spike. Default: uniform 3-15 s ([Gurtov & Ludwig 2002] 4).
    #[serde(default = "default_hiccup_duration")]
    pub duration: Distribution,
    /// Whether `interval` runs from the previous spike's end or start. Default: end.
    #[serde(default)]
    pub interval_from: IntervalFrom,
    /// Start of the first spike. Default: one `interval` draw after time zero.
    #[serde(default)]
    pub first: Option<Dur>,
    /// Start the run at a random point of an already running spike process instead of
    /// at the start of a quiet interval: a connection then meets spikes at the
    /// long-run rate, E[spikes] = T / (E[interval] + E[duration]), which is how
    /// [Gurtov & Ludwig 2002] 4 sizes its scenarios ("for a typical download time of 120 s on
    /// average one, two and three delay spikes occur"). Default: false.
    #[serde(default)]
    pub stationary: bool,
    /// Start the first spike when the N-th data segment enters the link's forward
    /// direction instead of at a time; the spikes after it follow `interval`. With N
    /// within the initial window the spike falls on it, [Gurtov & Ludwig 2003] V's "best
    /// case for Eifel [...] when one of the segments in the initial window experiences a
    /// spurious timeout". Every data segment counts, retransmissions too. Not with
    /// `first`, `stationary` or `at`. Default: none (not written out then, so the
    /// configurations recorded before it existed read the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_after_segments: Option<u32>,
    /// Explicit spikes, in order, not overlapping; when given, the random pattern above
    /// is not used. Default: empty.
    #[serde(default)]
    pub at: Vec<SpikeAt>,
    /// Which direction(s) a spike freezes. Default: both, as [Gurtov & Ludwig 2002] 4's
    /// hiccup tool does; one direction is the reading of a spike that stops the data
    /// only ([Kim & Cho 2003] V: the "Base Station stops transmitting data segment") or
    /// the ACKs only, at the same random times.
    #[serde(default = "default_rate_dirs")]
    pub dirs: Dirs,
    /// Where the freeze stops the link ([`crate::freeze`]). Default: after the queue.
    #[serde(default)]
    pub freeze_at: FreezePoint,
    /// Packets propagating when a spike starts: held or delivered. Default: held.
    #[serde(default)]
    pub wire: FrozenWire,
    /// Packets arriving during a spike: queued or dropped. Default: queued.
    #[serde(default)]
    pub arrivals: FrozenArrivals,
}

fn default_hiccup_interval() -> Distribution {
    Distribution::Uniform {
        min: Dur::from_secs(20),
        max: Dur::from_secs(40),
    }
}

fn default_hiccup_duration() -> Distribution {
    Distribution::Uniform {
        min: Dur::from_secs(3),
        max: Dur::from_secs(15),
    }
}

impl Default for HiccupConfig {
    fn default() -> Self {
        HiccupConfig {
            interval: default_hiccup_interval(),
            duration: default_hiccup_duration(),
            interval_from: IntervalFrom::End,
            first: None,
            stationary: false,
            first_after_segments: None,
            at: Vec::new(),
            dirs: Dirs::Both,
            freeze_at: FreezePoint::default(),
            wire: FrozenWire::default(),
            arrivals: FrozenArrivals::default(),
        }
    }
}

/// Periodic outages of one direction ([Ekström & Ludwig 2004] Scenario C: every P_B = 50 s
/// for d = 0.5..3 s, on the data path only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutageConfig {
    /// Time between outage starts (P_B). Required unless `at` is given.
    #[serde(default)]
    pub period: Option<Dur>,
    /// Length of each outage (d). Required unless `at` is given.
    #[serde(default)]
    pub duration: Option<Dur>,
    /// Start of the first outage. Default: one `period` after time zero.
    #[serde(default)]
    pub first: Option<Dur>,
    /// Explicit outages, in order, not overlapping ([Ekström & Ludwig 2004] Fig. 18: 0.9 s at
    /// 20 s and 27 s); replaces the periodic pattern. Default: empty.
    #[serde(default)]
    pub at: Vec<SpikeAt>,
    /// Which direction(s) go down. Default: forward.
    #[serde(default = "default_outage_dirs")]
    pub dirs: Dirs,
    /// Where the freeze stops the link ([`crate::freeze`]). Default: after the queue.
    #[serde(default)]
    pub freeze_at: FreezePoint,
    /// Packets propagating when an outage starts: held or delivered. Default: held.
    #[serde(default)]
    pub wire: FrozenWire,
    /// Packets arriving during an outage: queued or dropped. Default: queued.
    #[serde(default)]
    pub arrivals: FrozenArrivals,
}

fn default_outage_dirs() -> Dirs {
    Dirs::Forward
}

/// A single rate change ([Gurtov & Ludwig 2003] Fig. 1b: 300 kbit/s down to 10 kbit/s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandwidthStepConfig {
    /// Rate set at time zero. Default: none (the link's configured rate stays).
    #[serde(default)]
    pub from: Option<BitRate>,
    /// Rate from `at` on. Required.
    pub to: BitRate,
    /// When the rate changes. Required.
    pub at: Dur,
    /// Which direction(s) change. Default: both.
    #[serde(default = "default_rate_dirs")]
    pub dirs: Dirs,
}

fn default_rate_dirs() -> Dirs {
    Dirs::Both
}

/// One level of a bandwidth oscillation: `{ rate = "300kbps", hold = { dist = "fixed", value = "5s" } }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLevel {
    /// The rate while at this level.
    pub rate: BitRate,
    /// How long the level holds before the next one (drawn anew each visit).
    pub hold: Distribution,
}

/// Rate switching through `levels` cyclically ([Gurtov & Ludwig 2003] II.C: cdma-2000
/// "bandwidth oscillation" when a high-speed channel is shared between users).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandwidthOscillationConfig {
    /// The levels, visited in order and then again from the first. Required, non-empty.
    pub levels: Vec<RateLevel>,
    /// When the first level starts. Default: time zero.
    #[serde(default)]
    pub start: Dur,
    /// Which direction(s) change. Default: both.
    #[serde(default = "default_rate_dirs")]
    pub dirs: Dirs,
}

/// A path-event model, as written in a scenario (`kind = "hiccup"`, `"outage"`,
/// `"bandwidth-step"` or `"bandwidth-oscillation"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SpikeConfig {
    /// Random or listed delay spikes on both directions (or one: `dirs`).
    Hiccup(HiccupConfig),
    /// Periodic or listed outages of one direction.
    Outage(OutageConfig),
    /// One rate change.
    BandwidthStep(BandwidthStepConfig),
    /// Cyclic rate changes.
    BandwidthOscillation(BandwidthOscillationConfig),
}

/// A configuration that cannot produce a schedule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpikeError {
    /// Explicit spikes overlap or are out of order.
    #[error("explicit spike {index} (start {start}) begins before the previous one ends")]
    Overlap {
        /// Index in the `at` list.
        index: usize,
        /// Its start.
        start: Dur,
    },
    /// An outage without `at` needs both `period` and `duration`.
    #[error("an outage needs `period` and `duration`, or an explicit `at` list")]
    OutageIncomplete,
    /// A periodic outage needs a positive period.
    #[error("an outage period must be positive")]
    ZeroPeriod,
    /// A bandwidth oscillation needs at least one level.
    #[error("a bandwidth oscillation needs at least one level")]
    NoLevels,
}

/// Generates (start, duration) pairs of suspensions.
#[derive(Clone, Debug)]
enum SpikeSource {
    List {
        spikes: Vec<SpikeAt>,
        next: usize,
    },
    Random {
        interval: Distribution,
        duration: Distribution,
        from: IntervalFrom,
        first: Option<Dur>,
        stationary: bool,
        /// Data segments still to enter the link before the first spike (see
        /// [`Schedule::waits_for_segments`]); nothing is drawn while some are.
        waiting: Option<u32>,
        last: Option<(Time, Time)>,
    },
    Periodic {
        next_start: Time,
        period: Dur,
        duration: Dur,
    },
}

impl SpikeSource {
    /// The next spike as (start, end). Starts never precede the previous end.
    fn next(&mut self, rng: &mut SimRng) -> Option<(Time, Time)> {
        match self {
            SpikeSource::List { spikes, next } => {
                let s = spikes.get(*next)?;
                *next += 1;
                Some((Time::ZERO + s.start, Time::ZERO + s.start + s.duration))
            }
            SpikeSource::Random {
                interval,
                duration,
                from,
                first,
                stationary,
                waiting,
                last,
            } => {
                if waiting.is_some() {
                    return None;
                }
                if *stationary && last.is_none() {
                    *last = Some(warm_start(*interval, *duration, *from, rng));
                    return *last;
                }
                let gap = interval.sample(rng);
                let len = duration.sample(rng);
                let start = match (*last, first.take()) {
                    (_, Some(f)) => Time::ZERO + f,
                    (None, None) => Time::ZERO + gap,
                    (Some(prev), None) => next_start(prev, gap, *from),
                };
                *last = Some((start, start + len));
                *last
            }
            SpikeSource::Periodic {
                next_start,
                period,
                duration,
            } => {
                let start = *next_start;
                *next_start = start + *period;
                Some((start, start + *duration))
            }
        }
    }
}

/// When the spike after `prev` = (start, end) starts, `gap` after the end or the start.
fn next_start((start, end): (Time, Time), gap: Dur, from: IntervalFrom) -> Time {
    match from {
        IntervalFrom::End => end + gap,
        IntervalFrom::Start => (start + gap).max(end),
    }
}

/// Cycles the process runs before the run starts, in units of its mean cycle.
const WARMUP_CYCLES: u64 = 32;

/// The first spike of a process observed from a fixed time after a long warm-up:
/// the process runs from virtual time 0, the run starts at virtual time T0 =
/// WARMUP_CYCLES mean cycles (renewal theory: its state there is close to the
/// stationary one), and the first spike still ending after T0 is returned shifted by
/// -T0 (cut at time zero if it is under way).
fn warm_start(
    interval: Distribution,
    duration: Distribution,
    from: IntervalFrom,
    rng: &mut SimRng,
) -> (Time, Time) {
    let cycle = interval.mean() + duration.mean();
    let t0 = Time::ZERO + Dur(cycle.0.saturating_mul(WARMUP_CYCLES).max(1));
    let mut prev: Option<(Time, Time)> = None;
    loop {
        let gap = interval.sample(rng);
        let len = duration.sample(rng);
        let start = prev.map_or(Time::ZERO + gap, |p| next_start(p, gap, from));
        let end = start + len;
        if end > t0 {
            return (Time(start.0.saturating_sub(t0.0)), Time(end.0 - t0.0));
        }
        prev = Some((start, end));
    }
}

fn check_list(at: &[SpikeAt]) -> Result<(), SpikeError> {
    let mut prev_end = Dur::ZERO;
    for (index, s) in at.iter().enumerate() {
        if s.start < prev_end {
            return Err(SpikeError::Overlap {
                index,
                start: s.start,
            });
        }
        prev_end = s.start + s.duration;
    }
    Ok(())
}

impl HiccupConfig {
    fn source(&self) -> Result<SpikeSource, SpikeError> {
        if !self.at.is_empty() {
            check_list(&self.at)?;
            return Ok(SpikeSource::List {
                spikes: self.at.clone(),
                next: 0,
            });
        }
        Ok(SpikeSource::Random {
            interval: self.interval,
            duration: self.duration,
            from: self.interval_from,
            first: self.first,
            stationary: self.stationary && self.first.is_none(),
            waiting: self.first_after_segments,
            last: None,
        })
    }
}

impl OutageConfig {
    fn source(&self) -> Result<SpikeSource, SpikeError> {
        if !self.at.is_empty() {
            check_list(&self.at)?;
            return Ok(SpikeSource::List {
                spikes: self.at.clone(),
                next: 0,
            });
        }
        let (Some(period), Some(duration)) = (self.period, self.duration) else {
            return Err(SpikeError::OutageIncomplete);
        };
        if period == Dur::ZERO {
            return Err(SpikeError::ZeroPeriod);
        }
        Ok(SpikeSource::Periodic {
            next_start: Time::ZERO + self.first.unwrap_or(period),
            period,
            // Never longer than the period: outages do not overlap.
            duration: duration.min(period),
        })
    }
}

#[derive(Clone, Debug)]
enum Kind {
    Spikes {
        source: SpikeSource,
        dirs: Dirs,
        mode: FreezeMode,
        pending_resume: Option<Time>,
    },
    Steps {
        steps: Vec<(Time, BitRate)>,
        next: usize,
        dirs: Dirs,
    },
    Oscillation {
        levels: Vec<RateLevel>,
        next_level: usize,
        next_at: Time,
        dirs: Dirs,
    },
}

/// The event generator of one [`SpikeConfig`].
#[derive(Clone, Debug)]
pub struct Schedule {
    kind: Kind,
}

impl Schedule {
    /// Builds the generator; fails on inconsistent explicit lists or missing fields.
    pub fn new(cfg: &SpikeConfig) -> Result<Schedule, SpikeError> {
        let kind = match cfg {
            SpikeConfig::Hiccup(h) => Kind::Spikes {
                source: h.source()?,
                dirs: h.dirs,
                mode: FreezeMode {
                    at: h.freeze_at,
                    wire: h.wire,
                    arrivals: h.arrivals,
                },
                pending_resume: None,
            },
            SpikeConfig::Outage(o) => Kind::Spikes {
                source: o.source()?,
                dirs: o.dirs,
                mode: FreezeMode {
                    at: o.freeze_at,
                    wire: o.wire,
                    arrivals: o.arrivals,
                },
                pending_resume: None,
            },
            SpikeConfig::BandwidthStep(s) => Kind::Steps {
                steps: s
                    .from
                    .map(|r| (Time::ZERO, r))
                    .into_iter()
                    .chain([(Time::ZERO + s.at, s.to)])
                    .collect(),
                next: 0,
                dirs: s.dirs,
            },
            SpikeConfig::BandwidthOscillation(o) if o.levels.is_empty() => {
                return Err(SpikeError::NoLevels)
            }
            SpikeConfig::BandwidthOscillation(o) => Kind::Oscillation {
                levels: o.levels.clone(),
                next_level: 0,
                next_at: Time::ZERO + o.start,
                dirs: o.dirs,
            },
        };
        Ok(Schedule { kind })
    }

    /// How many data segments must enter the link's forward direction before the
    /// first spike (`first_after_segments`): the engine counts them and calls
    /// [`Schedule::start_first_at`] at the N-th. Until then [`Schedule::next`] says
    /// nothing. `None` for a schedule placed in time.
    pub fn waits_for_segments(&self) -> Option<u32> {
        match &self.kind {
            Kind::Spikes {
                source: SpikeSource::Random { waiting, .. },
                ..
            } => *waiting,
            _ => None,
        }
    }

    /// Places the first spike at `now` (the N-th data segment has just entered the
    /// link) and lets [`Schedule::next`] run the process from there.
    pub fn start_first_at(&mut self, now: Time) {
        if let Kind::Spikes {
            source: SpikeSource::Random { waiting, first, .. },
            ..
        } = &mut self.kind
        {
            if waiting.take().is_some() {
                *first = Some(Dur(now.0));
            }
        }
    }

    /// The next event and its time, drawing any randomness from `rng` (the schedule's
    /// own stream). `None` when the schedule is exhausted, or waits for data segments
    /// ([`Schedule::waits_for_segments`]).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self, rng: &mut SimRng) -> Option<(Time, LinkControl)> {
        match &mut self.kind {
            Kind::Spikes {
                source,
                dirs,
                mode,
                pending_resume,
            } => {
                if let Some(end) = pending_resume.take() {
                    return Some((end, LinkControl::Resume(*dirs)));
                }
                let (start, end) = source.next(rng)?;
                *pending_resume = Some(end);
                Some((start, LinkControl::Suspend(*dirs, *mode)))
            }
            Kind::Steps { steps, next, dirs } => {
                let (at, rate) = *steps.get(*next)?;
                *next += 1;
                Some((at, LinkControl::SetRate(*dirs, rate)))
            }
            Kind::Oscillation {
                levels,
                next_level,
                next_at,
                dirs,
            } => {
                let level = levels[*next_level];
                let at = *next_at;
                *next_at = at + level.hold.sample(rng);
                *next_level = (*next_level + 1) % levels.len();
                Some((at, LinkControl::SetRate(*dirs, level.rate)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn events(cfg: &SpikeConfig, n: usize, seed: u64) -> Vec<(Time, LinkControl)> {
        let mut s = Schedule::new(cfg).unwrap();
        let mut rng = SimRng::seed_from_u64(seed);
        std::iter::from_fn(|| s.next(&mut rng)).take(n).collect()
    }

    fn secs(s: u64) -> Time {
        Time::ZERO + Dur::from_secs(s)
    }

    fn fixed(s: u64) -> Distribution {
        Distribution::Fixed {
            value: Dur::from_secs(s),
        }
    }

    /// Mean number of spikes starting inside (0, horizon) over many seeds.
    fn mean_spike_starts(cfg: &HiccupConfig, horizon: Dur) -> f64 {
        let seeds = 4000;
        let mut total = 0usize;
        for seed in 0..seeds {
            let mut sched = Schedule::new(&SpikeConfig::Hiccup(cfg.clone())).unwrap();
            let mut rng = crate::tests_rng(seed);
            while let Some((t, c)) = sched.next(&mut rng) {
                if t >= Time::ZERO + horizon {
                    break;
                }
                if t > Time::ZERO && matches!(c, LinkControl::Suspend(..)) {
                    total += 1;
                }
            }
        }
        total as f64 / seeds as f64
    }

    #[test]
    fn a_stationary_start_meets_spikes_at_the_long_run_rate() {
        // [Gurtov & Ludwig 2002] "easy": intervals U[80,140] s, spikes U[3,15] s, so the mean
        // cycle is 110 + 9 = 119 s. Over 86 s, a stationary process starts
        // 86 / 119 = 0.72 spikes on average; a process that waits one interval from
        // time zero starts one only when the interval is under 86 s: (86-80)/60 = 0.10.
        let easy = HiccupConfig {
            interval: Distribution::Uniform {
                min: Dur::from_secs(80),
                max: Dur::from_secs(140),
            },
            duration: Distribution::Uniform {
                min: Dur::from_secs(3),
                max: Dur::from_secs(15),
            },
            ..HiccupConfig::default()
        };
        let fresh = mean_spike_starts(&easy, Dur::from_secs(86));
        let stationary = mean_spike_starts(
            &HiccupConfig {
                stationary: true,
                ..easy
            },
            Dur::from_secs(86),
        );
        assert!((fresh - 0.10).abs() < 0.03, "{fresh}");
        assert!((stationary - 0.72).abs() < 0.04, "{stationary}");
    }

    #[test]
    fn hiccup_interval_runs_from_the_end_of_the_previous_spike_by_default() {
        let cfg = SpikeConfig::Hiccup(HiccupConfig {
            interval: fixed(20),
            duration: fixed(5),
            ..HiccupConfig::default()
        });
        let ev = events(&cfg, 4, 1);
        assert_eq!(
            ev[0],
            (
                secs(20),
                LinkControl::Suspend(Dirs::Both, FreezeMode::default())
            )
        );
        assert_eq!(ev[1], (secs(25), LinkControl::Resume(Dirs::Both)));
        assert_eq!(
            ev[2],
            (
                secs(45),
                LinkControl::Suspend(Dirs::Both, FreezeMode::default())
            )
        );
        assert_eq!(ev[3], (secs(50), LinkControl::Resume(Dirs::Both)));
    }

    #[test]
    fn a_hiccup_of_one_direction_suspends_and_resumes_that_direction_at_the_same_times() {
        let both = SpikeConfig::Hiccup(HiccupConfig {
            interval: Distribution::Uniform {
                min: Dur::from_secs(20),
                max: Dur::from_secs(40),
            },
            ..HiccupConfig::default()
        });
        let SpikeConfig::Hiccup(h) = &both else {
            unreachable!()
        };
        let data_only = SpikeConfig::Hiccup(HiccupConfig {
            dirs: Dirs::Forward,
            ..h.clone()
        });
        let (a, b) = (events(&both, 6, 7), events(&data_only, 6, 7));
        for ((ta, ca), (tb, cb)) in a.iter().zip(&b) {
            assert_eq!(ta, tb, "the same random times");
            match (ca, cb) {
                (LinkControl::Suspend(Dirs::Both, m), LinkControl::Suspend(Dirs::Forward, n)) => {
                    assert_eq!(m, n)
                }
                (LinkControl::Resume(Dirs::Both), LinkControl::Resume(Dirs::Forward)) => {}
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn hiccup_interval_from_start_never_starts_before_the_previous_end() {
        let cfg = SpikeConfig::Hiccup(HiccupConfig {
            interval: fixed(4),
            duration: fixed(5),
            interval_from: IntervalFrom::Start,
            first: Some(Dur::from_secs(1)),
            ..HiccupConfig::default()
        });
        let times: Vec<Time> = events(&cfg, 4, 1).iter().map(|e| e.0).collect();
        assert_eq!(times, vec![secs(1), secs(6), secs(6), secs(11)]);
    }

    #[test]
    fn a_spike_placed_after_n_segments_waits_for_them_then_starts_the_process() {
        let cfg = SpikeConfig::Hiccup(HiccupConfig {
            interval: fixed(4),
            duration: fixed(5),
            first_after_segments: Some(3),
            ..HiccupConfig::default()
        });
        let mut s = Schedule::new(&cfg).unwrap();
        let mut rng = SimRng::seed_from_u64(1);
        assert_eq!(s.waits_for_segments(), Some(3));
        assert_eq!(s.next(&mut rng), None, "nothing before the segments");
        let at = Time::ZERO + Dur::from_millis(250);
        s.start_first_at(at);
        assert_eq!(s.waits_for_segments(), None);
        let times: Vec<Time> = std::iter::from_fn(|| s.next(&mut rng).map(|e| e.0))
            .take(4)
            .collect();
        let ms = |m: u64| Time::ZERO + Dur::from_millis(m);
        // The first spike at the trigger, then 4 s of quiet after each 5 s spike.
        assert_eq!(times, vec![at, ms(5250), ms(9250), ms(14250)]);
        // A schedule placed in time waits for nothing.
        let timed = Schedule::new(&SpikeConfig::Hiccup(HiccupConfig::default())).unwrap();
        assert_eq!(timed.waits_for_segments(), None);
    }

    #[test]
    fn random_hiccups_stay_within_their_distributions_and_are_reproducible() {
        let cfg = SpikeConfig::Hiccup(HiccupConfig::default());
        let ev = events(&cfg, 200, 7);
        assert_eq!(ev, events(&cfg, 200, 7));
        assert_ne!(ev, events(&cfg, 200, 8));
        let mut prev_end = Time::ZERO;
        for pair in ev.chunks(2) {
            let (start, end) = (pair[0].0, pair[1].0);
            let gap = start - prev_end;
            assert!(gap >= Dur::from_secs(20) && gap <= Dur::from_secs(40));
            let len = end - start;
            assert!(len >= Dur::from_secs(3) && len <= Dur::from_secs(15));
            prev_end = end;
        }
    }

    #[test]
    fn explicit_hiccups_are_replayed_and_overlaps_rejected() {
        let at = vec![
            SpikeAt {
                start: Dur::from_secs(20),
                duration: Dur::from_millis(900),
            },
            SpikeAt {
                start: Dur::from_secs(27),
                duration: Dur::from_millis(900),
            },
        ];
        let cfg = SpikeConfig::Hiccup(HiccupConfig {
            at: at.clone(),
            ..HiccupConfig::default()
        });
        let ev = events(&cfg, 10, 1);
        assert_eq!(ev.len(), 4);
        assert_eq!(ev[3].0, secs(27) + Dur::from_millis(900));
        let overlapping = vec![at[1], at[0]];
        let bad = SpikeConfig::Hiccup(HiccupConfig {
            at: overlapping,
            ..HiccupConfig::default()
        });
        assert!(matches!(
            Schedule::new(&bad),
            Err(SpikeError::Overlap { index: 1, .. })
        ));
    }

    #[test]
    fn periodic_outage_suspends_one_direction_every_period() {
        let cfg: SpikeConfig = toml::from_str(
            r#"kind = "outage"
               period = "50s"
               duration = "2s""#,
        )
        .unwrap();
        let ev = events(&cfg, 4, 1);
        assert_eq!(
            ev[0],
            (
                secs(50),
                LinkControl::Suspend(Dirs::Forward, FreezeMode::default())
            )
        );
        assert_eq!(ev[1], (secs(52), LinkControl::Resume(Dirs::Forward)));
        assert_eq!(
            ev[2],
            (
                secs(100),
                LinkControl::Suspend(Dirs::Forward, FreezeMode::default())
            )
        );
    }

    #[test]
    fn outage_without_period_or_list_is_an_error() {
        let cfg = SpikeConfig::Outage(OutageConfig {
            period: None,
            duration: Some(Dur::from_secs(1)),
            first: None,
            at: vec![],
            dirs: Dirs::Forward,
            freeze_at: FreezePoint::default(),
            wire: FrozenWire::default(),
            arrivals: FrozenArrivals::default(),
        });
        assert_eq!(
            Schedule::new(&cfg).err(),
            Some(SpikeError::OutageIncomplete)
        );
    }

    #[test]
    fn bandwidth_step_drops_300_to_10_kbit_at_the_given_time() {
        let cfg: SpikeConfig = toml::from_str(
            r#"kind = "bandwidth-step"
               from = "300kbps"
               to = "10kbps"
               at = "10s""#,
        )
        .unwrap();
        let ev = events(&cfg, 5, 1);
        assert_eq!(
            ev,
            vec![
                (
                    Time::ZERO,
                    LinkControl::SetRate(Dirs::Both, BitRate(300_000))
                ),
                (secs(10), LinkControl::SetRate(Dirs::Both, BitRate(10_000))),
            ]
        );
    }

    #[test]
    fn bandwidth_oscillation_cycles_through_levels_with_their_hold_times() {
        let cfg = SpikeConfig::BandwidthOscillation(BandwidthOscillationConfig {
            levels: vec![
                RateLevel {
                    rate: BitRate(300_000),
                    hold: fixed(5),
                },
                RateLevel {
                    rate: BitRate(10_000),
                    hold: fixed(1),
                },
            ],
            start: Dur::ZERO,
            dirs: Dirs::Forward,
        });
        let ev = events(&cfg, 4, 1);
        let got: Vec<(Time, BitRate)> = ev
            .iter()
            .map(|(t, c)| match c {
                LinkControl::SetRate(Dirs::Forward, r) => (*t, *r),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (secs(0), BitRate(300_000)),
                (secs(5), BitRate(10_000)),
                (secs(6), BitRate(300_000)),
                (secs(11), BitRate(10_000)),
            ]
        );
    }
}
