//! The Linux kernel's retransmission timer, as `tcp_rtt_estimator`, `tcp_set_rto`,
//! `tcp_bound_rto` and `tcp_rto_min` in net/ipv4/tcp_input.c behave (kernels 3.x-6.x).
//!
//! The kernel keeps scaled fixed-point state; so does this model, in nanoseconds:
//! `srtt8` = 8*SRTT, and `mdev4`, `mdev_max4`, `rttvar4` = 4 times the deviation they
//! stand for (so RTO = SRTT + `rttvar4` is "SRTT + 4*RTTVAR").
//!
//! What is modelled:
//!
//! * First sample m: SRTT = m, mdev = m/2, rttvar = max(mdev, rto_min), mdev_max = rttvar,
//!   so RTO = 3*m for m >= 100 ms ("make sure rto = 3*rtt" in the kernel).
//! * Later samples: SRTT gains 1/8 of the error; mdev gains 1/4 of (|error| - mdev),
//!   except that when the sample is below SRTT - mdev (a sharp RTT drop) the gain is
//!   1/32 (1/4 further divided by 8), so a falling RTT barely raises the variance
//!   (the kernel's answer to the Eifel "prediction flaw").
//! * `mdev_max` is the largest mdev of the current round trip; `rttvar` rises to it at
//!   once, and at each round's end decays a quarter of the way towards it; `mdev_max`
//!   then restarts at rto_min. Hence the 200 ms minimum: rttvar never falls below
//!   rto_min, so RTO >= SRTT + 200 ms.
//! * RTO = SRTT + rttvar, bounded by 120 s (`TCP_RTO_MAX`); initial 1 s
//!   (`TCP_TIMEOUT_INIT`); each expiry doubles the RTO up to 120 s (`icsk_backoff`); a
//!   valid sample clears the back-off (`tcp_ack_update_rtt`: "only reset backoff on
//!   valid RTT measurement"). The handshake sample is the first measurement, as Linux
//!   times the SYN.
//!
//! **Round trips.** The kernel ends a round when snd_una passes `rtt_seq`, the snd_nxt
//! recorded at the last round's end (`tcp_rtt_estimator`: "if (after(tp->snd_una,
//! tp->rtt_seq))"). The sender tells the estimator both before each sample
//! ([`RtoEstimator::on_sequence`]), and the round ends by that rule. A duplicate ACK's
//! sample (the SACK-based `sack_rtt_us`, [`crate::linux_rtt::sack_rtt_sample`]) thus
//! never ends a round, snd_una not having moved. Without the sequence numbers (an
//! estimator driven by samples alone, as in unit tests) a round that ended at time T is
//! over at the first sample whose timed segment was sent at or after T
//! (`now - rtt >= T`), since only data sent after T lies beyond that round's
//! `rtt_seq`; that rule agrees when the timed segment is the one the ACK newly covers,
//! and ends rounds on duplicate ACKs the kernel does not end them on.
//!
//! Left out: jiffies rounding of the RTO (`usecs_to_jiffies`), the per-route `rto_min`
//! and `RTAX_RTTVAR` metrics caching, `TCP_TIMEOUT_FALLBACK` (3 s after a
//! retransmitted SYN), `tcp_rtt_tsopt_us` sample selection, min-RTT filtering, and the
//! `max(1, srtt)` guard (a 0 ns SRTT is harmless here).
//!
//! **Spurious-timeout re-seed.** Linux has no RFC 4015 re-seed: after an undone
//! (spurious) timeout the delayed timestamp sample is an ordinary sample. So the hook
//! runs it through the same filter; with no `now`, it does not end a round.

use super::{backed_off, dur_or_none, ReseedRule, RtoEstimator, RttSample};
use super::{initial_rto, rto_range};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::linux_timer_wheel::{usecs_to_jiffies, JIFFY};
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{Bounded, Check, FieldPath};
use spikelab_core::{Dur, Time};

/// Parameters of the Linux estimator. Every field may be omitted from a scenario file;
/// the default, the kernel's, is given on each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinuxConfig {
    /// RTO before any sample. Default 1 s (`TCP_TIMEOUT_INIT`, RFC 6298 (2.1)).
    pub initial_rto: Dur,
    /// Floor of rttvar, hence RTO >= SRTT + rto_min. Default 200 ms (`TCP_RTO_MIN`).
    pub rto_min: Dur,
    /// Ceiling of the RTO, backed-off or not, or `"none"`. Default 120 s (`TCP_RTO_MAX`).
    #[serde(with = "dur_or_none")]
    pub rto_max: Option<Dur>,
    /// Whether the handshake's sample initialises the estimator. Default true (Linux
    /// times a SYN that was not retransmitted).
    pub use_syn_sample: bool,
    /// Whether the RTO is a whole number of the kernel's jiffies (4 ms: HZ = 250, as
    /// the recorded kernel runs), rounded up: `__tcp_set_rto` keeps `icsk_rto` as
    /// `usecs_to_jiffies(srtt_us / 8 + rttvar_us)`, and every back-off doubles that.
    /// Default false: the estimator in continuous time, as the papers comparing it
    /// describe it; the `linux` profile sets it.
    pub jiffies: bool,
}

impl Default for LinuxConfig {
    fn default() -> Self {
        LinuxConfig {
            initial_rto: Dur::from_secs(1),
            rto_min: Dur::from_millis(200),
            rto_max: Some(Dur::from_secs(120)),
            use_syn_sample: true,
            jiffies: false,
        }
    }
}

/// The kernel's scaled estimator state, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scaled {
    /// 8 * SRTT.
    srtt8: i128,
    /// 4 * mdev, the smoothed mean deviation.
    mdev4: i128,
    /// 4 * the largest mdev in the current round trip.
    mdev_max4: i128,
    /// 4 * RTTVAR, the variance term of the RTO.
    rttvar4: i128,
}

/// The Linux estimator (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Linux {
    cfg: LinuxConfig,
    state: Option<Scaled>,
    /// When the current round trip began (the kernel's `rtt_seq` as a time), for
    /// samples given without the sequence numbers.
    round_start: Time,
    /// The kernel's `rtt_seq`: the snd_nxt at the current round's start.
    rtt_seq: u64,
    /// snd_nxt as the sender last told it ([`RtoEstimator::on_sequence`]).
    snd_nxt: u64,
    /// Whether snd_una, as the sender last told it, is after `rtt_seq`; `None` until
    /// the sender tells the sequence numbers (then rounds end by time).
    una_after_rtt_seq: Option<bool>,
    backoff: u32,
}

impl Linux {
    /// A fresh estimator for a new connection, before its SYN is sent.
    pub fn new(cfg: LinuxConfig) -> Self {
        Linux {
            cfg,
            state: None,
            round_start: Time::ZERO,
            rtt_seq: 0,
            snd_nxt: 0,
            una_after_rtt_seq: None,
            backoff: 0,
        }
    }

    /// The kernel's `mdev` (unscaled), for traces and tests.
    pub fn mdev(&self) -> Option<Dur> {
        self.state.map(|s| to_dur(s.mdev4 / 4))
    }

    /// The kernel's `mdev_max` (unscaled), for traces and tests.
    pub fn mdev_max(&self) -> Option<Dur> {
        self.state.map(|s| to_dur(s.mdev_max4 / 4))
    }

    /// The kernel's `rttvar` (unscaled), for traces and tests.
    pub fn rttvar(&self) -> Option<Dur> {
        self.state.map(|s| to_dur(s.rttvar4 / 4))
    }

    fn rto_min4(&self) -> i128 {
        i128::from(self.cfg.rto_min.0)
    }

    /// tcp_rtt_estimator for sample `m`; `now` is `None` when the round must not end.
    fn estimate(&mut self, m: Dur, now: Option<Time>) {
        let m = i128::from(m.0);
        match self.state {
            None => {
                self.state = Some(self.first(m));
                // No previous measure: rtt_seq = snd_nxt, a round starts now.
                if let Some(now) = now {
                    self.round_start = now;
                }
                if self.una_after_rtt_seq.is_some() {
                    self.rtt_seq = self.snd_nxt;
                }
            }
            Some(s) => {
                self.state = Some(filter(s, m));
                if let Some(now) = now.filter(|&t| self.round_ended(t, m)) {
                    self.end_round(now);
                }
            }
        }
        // tcp_ack_update_rtt: "only reset backoff on valid RTT measurement".
        self.backoff = 0;
    }

    /// First sample: srtt = m, mdev = m/2, rttvar = max(mdev, rto_min), mdev_max = rttvar.
    fn first(&self, m: i128) -> Scaled {
        // tcp_rtt_estimator, no previous measure: srtt8 = 8m; mdev4 = 2m ("make sure
        // rto = 3*rtt"); rttvar4 = max(mdev4, rto_min); mdev_max4 = rttvar4.
        let rttvar4 = (2 * m).max(self.rto_min4());
        Scaled {
            srtt8: 8 * m,
            mdev4: 2 * m,
            mdev_max4: rttvar4,
            rttvar4,
        }
    }

    /// Whether the current round is over at this sample: snd_una after `rtt_seq`, or,
    /// without the sequence numbers, a sample sent at `now - m` (module docs).
    fn round_ended(&self, now: Time, m: i128) -> bool {
        if let Some(after) = self.una_after_rtt_seq {
            return after;
        }
        let sent = i128::from(now.0) - m;
        sent >= i128::from(self.round_start.0)
    }

    /// End of a round trip: rttvar decays towards mdev_max, mdev_max restarts.
    fn end_round(&mut self, now: Time) {
        let rto_min4 = self.rto_min4();
        if let Some(s) = self.state.as_mut() {
            // tcp_rtt_estimator, snd_una after rtt_seq: if mdev_max < rttvar,
            // rttvar -= (rttvar - mdev_max) / 4.
            if s.mdev_max4 < s.rttvar4 {
                s.rttvar4 -= (s.rttvar4 - s.mdev_max4) >> 2;
            }
            // rtt_seq = snd_nxt; mdev_max = tcp_rto_min.
            s.mdev_max4 = rto_min4;
        }
        self.round_start = now;
        if self.una_after_rtt_seq.is_some() {
            self.rtt_seq = self.snd_nxt;
        }
    }
}

/// tcp_rtt_estimator with a previous measure, up to (not including) the round check.
fn filter(s: Scaled, m: i128) -> Scaled {
    // err = m - srtt; srtt8 += err, i.e. SRTT <- 7/8 SRTT + 1/8 m.
    let err = m - (s.srtt8 >> 3);
    let gain = if err < 0 {
        // Below srtt: |err| - mdev; when positive (m < srtt - mdev) only 1/8 of it is
        // taken, so mdev moves with gain 1/32 instead of 1/4.
        let e = -err - (s.mdev4 >> 2);
        if e > 0 {
            e >> 3
        } else {
            e
        }
    } else {
        err - (s.mdev4 >> 2)
    };
    // mdev4 += gain, i.e. mdev <- 3/4 mdev + 1/4 |err| in the ordinary case.
    let mdev4 = s.mdev4 + gain;
    // A new round maximum raises mdev_max, and rttvar with it at once.
    let mdev_max4 = s.mdev_max4.max(mdev4);
    Scaled {
        srtt8: s.srtt8 + err,
        mdev4,
        mdev_max4,
        rttvar4: s.rttvar4.max(mdev_max4),
    }
}

/// `usecs_to_jiffies` of a time kept in nanoseconds, as the kernel keeps `srtt_us`
/// and `rttvar_us` in whole microseconds: the jiffies it spans, rounded up.
fn in_jiffies(d: Dur) -> Dur {
    let jiffies = usecs_to_jiffies(d.0 / 1000);
    Dur(jiffies * JIFFY.0)
}

/// A non-negative scaled value as a duration.
fn to_dur(v: i128) -> Dur {
    Dur(v.clamp(0, i128::from(u64::MAX)) as u64)
}

impl RtoEstimator for Linux {
    fn on_sequence(&mut self, snd_una: u64, snd_nxt: u64) {
        // Read before the sample it precedes, which alone may move `rtt_seq`.
        self.una_after_rtt_seq = Some(snd_una > self.rtt_seq);
        self.snd_nxt = snd_nxt;
    }

    fn on_syn_sample(&mut self, rtt: Dur) {
        if self.cfg.use_syn_sample && self.state.is_none() {
            self.estimate(rtt, None);
        }
    }

    fn on_rtt_sample(&mut self, sample: &RttSample) {
        self.estimate(sample.rtt, Some(sample.now));
    }

    fn on_timeout(&mut self) {
        // tcp_retransmit_timer: icsk_backoff++, icsk_rto = min(2*icsk_rto, TCP_RTO_MAX).
        self.backoff = self.backoff.saturating_add(1);
    }

    fn on_spurious_timeout_reseed(&mut self, rtt: Dur, _rule: ReseedRule) {
        self.estimate(rtt, None);
    }

    fn rto(&self) -> Dur {
        // __tcp_set_rto: RTO = srtt + rttvar4 ("srtt + 4*rttvar"); tcp_bound_rto: <= max.
        let base = self
            .state
            .map_or(self.cfg.initial_rto, |s| to_dur((s.srtt8 >> 3) + s.rttvar4));
        let base = match self.cfg.jiffies {
            true => in_jiffies(base),
            false => base,
        };
        backed_off(base, self.backoff, self.cfg.rto_max)
    }

    fn max_rto(&self) -> Option<Dur> {
        self.cfg.rto_max
    }

    fn backoff_count(&self) -> u32 {
        self.backoff
    }

    fn srtt(&self) -> Option<Dur> {
        self.state.map(|s| to_dur(s.srtt8 >> 3))
    }
}

impl Bounded for LinuxConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        let c = self;
        initial_rto(p, c.initial_rto)?;
        rto_range(p, ("rto_min", c.rto_min), ("rto_max", c.rto_max))
    }
}

impl Exports for LinuxConfig {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35 has no Linux timer",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing(
            "the kernel's own estimator (`tcp_rtt_estimator()`, `tcp_set_rto()`): nothing to set",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }
    fn msf(v: f64) -> Dur {
        Dur((v * 1e6).round() as u64)
    }
    /// A sample of `rtt` ms taken at `now` ms.
    fn at(now: u64, rtt: u64) -> RttSample {
        RttSample {
            now: Time(ms(now).0),
            rtt: ms(rtt),
            flight_segments: 1,
            from_timestamps: true,
        }
    }
    fn fresh() -> Linux {
        Linux::new(LinuxConfig::default())
    }

    #[test]
    fn stable_tiny_rtt_gives_the_200ms_minimum_above_srtt() {
        // m=1: SRTT=1, mdev=0.5 (mdev4=2), rttvar4=max(2, 200)=200 -> RTO=201. Each
        // later sample ends a round, mdev_max restarts at 200, rttvar stays 200.
        let mut e = fresh();
        for k in 1..=50 {
            e.on_rtt_sample(&at(k, 1));
            assert_eq!(e.rto(), ms(201), "sample {k}");
        }
    }

    /// `__tcp_set_rto` at HZ = 250: the 1 ms RTT's 201 ms is 50.25 jiffies, kept as
    /// 51 (204 ms), and a back-off doubles the jiffies (408 ms); 300 ms is 75 exactly.
    #[test]
    fn in_jiffies_the_rto_is_rounded_up_to_whole_4ms_jiffies() {
        let mut e = Linux::new(LinuxConfig {
            jiffies: true,
            ..LinuxConfig::default()
        });
        e.on_rtt_sample(&at(1, 1));
        assert_eq!(e.rto(), ms(204));
        e.on_timeout();
        assert_eq!(e.rto(), ms(408));
        e.on_rtt_sample(&at(500, 100));
        let mut e = Linux::new(LinuxConfig {
            jiffies: true,
            ..LinuxConfig::default()
        });
        e.on_rtt_sample(&at(100, 100));
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn stable_100ms_rtt_gives_three_rtts() {
        // m=100: mdev4=200, rttvar4=max(200, 200)=200 -> RTO=300, and it stays there.
        let mut e = fresh();
        for k in 1..=20 {
            e.on_rtt_sample(&at(100 * k, 100));
            assert_eq!(e.rto(), ms(300), "sample {k}");
        }
    }

    #[test]
    fn rttvar_decays_a_quarter_of_the_way_to_mdev_max_per_round() {
        // Stable 500 ms, one sample per round. Columns: mdev4, rttvar4, RTO (ms).
        let mut e = fresh();
        let table = [
            // First: mdev4=2*500=1000, rttvar4=mdev_max4=1000, RTO=500+1000=1500.
            (1000.0, 1000.0, 1500.0),
            // err=0: mdev4=1000-250=750; mdev_max4=max(1000, 750)=1000, no decay
            // (mdev_max4 == rttvar4); then mdev_max4 := 200. RTO=1500.
            (750.0, 1000.0, 1500.0),
            // mdev4=750-187.5=562.5=mdev_max4; end: rttvar4 -= (1000-562.5)/4=109.375
            // -> 890.625. RTO=1390.625.
            (562.5, 890.625, 1390.625),
            // mdev4=562.5-140.625=421.875; rttvar4 -= (890.625-421.875)/4=117.1875
            // -> 773.4375. RTO=1273.4375.
            (421.875, 773.4375, 1273.4375),
        ];
        for (k, (mdev4, rttvar4, rto)) in table.into_iter().enumerate() {
            e.on_rtt_sample(&at(500 * (k as u64 + 1), 500));
            assert_eq!(e.mdev(), Some(msf(mdev4 / 4.0)), "mdev, sample {k}");
            assert_eq!(e.rttvar(), Some(msf(rttvar4 / 4.0)), "rttvar, sample {k}");
            assert_eq!(e.rto(), msf(rto), "RTO, sample {k}");
        }
    }

    /// `tcp_rtt_estimator` ends a round only when snd_una passes `rtt_seq` (the
    /// snd_nxt at the round's start), not at the first sample of a segment sent after
    /// the round began: a duplicate ACK's SACK-based sample never ends one.
    /// Stable 500 ms samples; RTO = SRTT + rttvar4 (ms).
    #[test]
    fn a_round_ends_when_snd_una_passes_rtt_seq() {
        let mut e = fresh();
        // First sample: mdev4 = rttvar4 = mdev_max4 = 1000; rtt_seq = 10000.
        e.on_sequence(1000, 10_000);
        e.on_rtt_sample(&at(500, 500));
        assert_eq!(e.rto(), ms(1500));
        // Timed segments sent at 600 and 700 ms, after the round began (the time rule
        // would end it at the first), while snd_una (5000, then a duplicate ACK) is
        // below rtt_seq: mdev4 750, 562.5; mdev_max4 keeps the round's 1000.
        e.on_sequence(5000, 12_000);
        e.on_rtt_sample(&at(1100, 500));
        e.on_rtt_sample(&at(1200, 500));
        assert_eq!(e.rto(), ms(1500));
        // snd_una passes 10000: mdev4 421.875; the round ends with mdev_max4 = 1000 =
        // rttvar4, no decay (the time rule, its round ended at 1100 ms, would decay
        // rttvar4 to 1000 - (1000 - 562.5) / 4 = 890.625). rtt_seq = 14000.
        e.on_sequence(11_000, 14_000);
        e.on_rtt_sample(&at(1700, 500));
        assert_eq!(e.rto(), ms(1500));
        // Past 14000 the round ends again: mdev4 = mdev_max4 = 316.40625, rttvar4 -=
        // (1000 - 316.40625) / 4 (in whole ns, as the kernel's shift).
        e.on_sequence(14_001, 15_000);
        e.on_rtt_sample(&at(2300, 500));
        assert_eq!(e.rto(), Dur(1_329_101_563));
    }

    #[test]
    fn mdev_max_holds_the_rounds_peak_until_the_round_ends() {
        let mut e = fresh();
        // First m=100 at t=100: round starts at 100; mdev4=200=rttvar4; RTO=300.
        e.on_rtt_sample(&at(100, 100));
        // t=150, m=300 (sent before 100: same round): err=200, SRTT=100+25=125;
        // mdev4=200+(200-50)=350 = mdev_max4 = rttvar4. RTO=125+350=475.
        e.on_rtt_sample(&at(150, 300));
        assert_eq!(e.rto(), ms(475));
        // t=160, m=125 (same round): mdev4=350-87.5=262.5 but mdev_max4 stays 350.
        e.on_rtt_sample(&at(160, 125));
        assert_eq!((e.mdev_max(), e.rto()), (Some(msf(87.5)), ms(475)));
        // t=260, m=125 (sent 135 >= 100: round ends): mdev4=196.875; mdev_max4=350 is
        // not below rttvar4=350, no decay; mdev_max4 := 200. RTO=475.
        e.on_rtt_sample(&at(260, 125));
        assert_eq!((e.mdev_max(), e.rto()), (Some(ms(50)), ms(475)));
        // t=385, m=125 (sent 260 >= 260: ends): mdev4=147.65625 < mdev_max4=200;
        // rttvar4 -= (350-200)/4=37.5 -> 312.5. RTO=125+312.5=437.5.
        e.on_rtt_sample(&at(385, 125));
        assert_eq!(e.rto(), msf(437.5));
    }

    #[test]
    fn a_sample_far_below_srtt_raises_mdev_with_gain_1_32() {
        // m=100: SRTT=100, mdev=50 (mdev4=200). Then, in the same round:
        let start = || {
            let mut e = fresh();
            e.on_rtt_sample(&at(100, 100));
            e
        };
        // m=20 < SRTT - mdev = 50: err=-80; (80-50)/8=3.75 -> mdev4=203.75 = mdev_max4
        // > rttvar4=200 -> rttvar4=203.75; SRTT=90; RTO=90+203.75=293.75.
        // (RFC 6298 on the same samples: 90 + 4*(37.5+20) = 320.)
        let mut drop = start();
        drop.on_rtt_sample(&at(110, 20));
        assert_eq!(drop.mdev(), Some(msf(50.9375)));
        assert_eq!(drop.rto(), msf(293.75));
        // m=180, the mirror image: err=+80; mdev4=200+(80-50)=230; SRTT=110; RTO=340.
        let mut rise = start();
        rise.on_rtt_sample(&at(110, 180));
        assert_eq!(rise.rto(), ms(340));
        // m=70, below SRTT but within mdev: ordinary gain, mdev=3/4*50+1/4*30=45.
        let mut near = start();
        near.on_rtt_sample(&at(110, 70));
        assert_eq!(near.mdev(), Some(ms(45)));
    }

    #[test]
    fn syn_sample_initialises_and_backoff_doubles_to_120s() {
        let mut e = fresh();
        assert_eq!(e.rto(), ms(1000));
        // RTT_SYN=100: RTO=100+max(200, 200)=300.
        e.on_syn_sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        // 0.3, 0.6, ..., 76.8, then 120 (TCP_RTO_MAX).
        for n in 0..10u32 {
            let want = ms(300 * (1 << n)).min(Dur::from_secs(120));
            assert_eq!(e.rto(), want, "after {n} timeouts");
            e.on_timeout();
        }
        assert_eq!(e.rto(), Dur::from_secs(120));
        // A valid sample clears the back-off (tcp_ack_update_rtt).
        e.on_rtt_sample(&at(5000, 100));
        assert_eq!((e.backoff_count(), e.rto()), (0, ms(300)));
    }

    #[test]
    fn reseed_is_an_ordinary_sample() {
        // m=100 then delayed 1000 (err=900): SRTT=100+112.5=212.5;
        // mdev4=200+(900-50)=1050 -> rttvar4=1050; RTO=1262.5; back-off cleared.
        let mut e = fresh();
        e.on_rtt_sample(&at(100, 100));
        e.on_timeout();
        e.on_spurious_timeout_reseed(ms(1000), ReseedRule::Rfc4015);
        assert_eq!((e.backoff_count(), e.rto()), (0, msf(1262.5)));
    }
}
