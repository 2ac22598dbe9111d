//! BBR v1 as Linux 6.x runs it (net/ipv4/tcp_bbr.c, `tcp_congestion_control = bbr`):
//! a model of the path, the windowed maximum delivery rate over 10 packet-timed
//! rounds (`bbr_update_bw`, lib/win_minmax.c) and the minimum RTT over 10 s of time
//! (`bbr_update_min_rtt`), from which the pacing rate (gain x bandwidth) and cwnd
//! (gain x bandwidth x min_rtt, at least 4 segments) follow on every ACK
//! (`bbr_main`, the module's `cong_control`: it replaces the kernel's slow start,
//! congestion avoidance and PRR, see [`super::CongestionControl::controls_cwnd`]).
//! The state machine STARTUP -> DRAIN -> PROBE_BW <-> PROBE_RTT is [`Mode`], each
//! state carrying its data; the long-term bandwidth estimate (`lt_bw`, token-bucket
//! policer detection) is [`LtBw`]; ACK aggregation (`extra_acked`) is
//! [`AckAggregation`].
//!
//! What a delay spike meets here: no packet-timed round ends during a stall, so the
//! bandwidth filter keeps its estimate through it; once 10 s pass without a lower RTT
//! sample, any sample not from a delayed ACK becomes min_rtt (so a post-spike RTT can);
//! a retransmission timeout ends a round and resets full-bandwidth detection
//! (`bbr_set_state`); an undo resets it and the long-term sampling (`bbr_undo_cwnd`).
//!
//! Units are the kernel's: segments (`mss_cache`), bandwidth in segments per
//! microsecond << 24 (`BW_SCALE`), gains in 1/256 (`BBR_SCALE`), `min_rtt` in
//! microseconds, its stamp and PROBE_RTT's end in jiffies of 1/HZ s (`tcp_jiffies32`,
//! HZ = 250: [`crate::linux_timer_wheel`]), the long-term sampling's stamp in ms
//! (`div_u64(tp->delivered_mstamp, USEC_PER_MSEC)`).
//! The random start phase of gain cycling (`prandom_u32_max(bbr_cycle_rand)`) is drawn
//! from the flow's seeded stream handed over at [`super::CongestionControl::on_init`],
//! after the draws a recorded kernel run made, where the scenario replays them
//! (`linux.bbr_cycle_draws`, [`super::CcRandom`]).
//!
//! Simplifications: no TSO hardware, but `bbr_tso_segs_goal` is computed from the
//! pacing rate as the kernel does (it ignores the device's GSO size) with
//! `MAX_TCP_HEADER` taken as 320 bytes (x86-64); `sk_max_pacing_rate` is unlimited
//! and `snd_cwnd_clamp` never binds.

use super::bbr_shared::*;
use super::{
    AckSample, CaState, CcRandom, CongestionControl, ConnView, Control, CwndView, Declared,
};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::rate::RateSample;
use spikelab_core::{Dur, RngStreams, Time};

/// `div_u64(tp->delivered_mstamp, USEC_PER_MSEC)`: the long-term sampling's clock
/// (`lt_last_stamp`, `bbr_lt_bw_sampling`) is milliseconds, not jiffies.
fn msecs(t: Time) -> u64 {
    t.0 / 1_000_000
}

/// `CYCLE_LEN`: phases of the PROBE_BW gain cycle.
const CYCLE_LEN: u8 = 8;
/// `bbr_bw_rtts`: the bandwidth filter spans CYCLE_LEN + 2 rounds.
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// `bbr_min_tso_rate` (bits/s).
const MIN_TSO_RATE: u64 = 1_200_000;
/// `bbr_high_gain` = 2/ln(2) (`bbr_drain_gain`, its inverse, is shared with v3).
const HIGH_GAIN: u64 = BBR_UNIT * 2885 / 1000 + 1;
/// `bbr_pacing_gain[]`: probe at 5/4, drain at 3/4, cruise at 1 for six phases.
const PACING_GAIN: [u64; CYCLE_LEN as usize] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// `bbr_cycle_rand`: the start phase is drawn over 7 phases.
const CYCLE_RAND: u8 = 7;
/// `bbr_lt_intvl_min_rtts`, `bbr_lt_loss_thresh` (50/256 = 20 %), `bbr_lt_bw_ratio`
/// (1/8), `bbr_lt_bw_diff` (4 kbit/s in bytes), `bbr_lt_bw_max_rtts`.
const LT_INTVL_MIN_RTTS: u8 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = BBR_UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u8 = 48;
/// `TCP_INIT_CWND`.
const TCP_INIT_CWND: u64 = 10;
/// `GSO_MAX_SIZE - 1 - MAX_TCP_HEADER` (see the module notes).
const GSO_BYTES_MAX: u64 = 65536 - 1 - 320;
/// `sk_gso_max_size`: `GSO_LEGACY_MAX_SIZE`, a device's default (the emulator's TUN).
const SK_GSO_MAX_SIZE: u64 = 65536;
/// `net.ipv4.tcp_tso_rtt_log` (default 9): `tcp_tso_autosize` adds
/// `sk_gso_max_size >> (tcp_min_rtt >> 9)` for paths of small min_rtt.
const TSO_RTT_LOG: u32 = 9;

/// The windowed max filter of lib/win_minmax.c (Kathleen Nichols' algorithm): the
/// best, second and third best samples, widely spaced in the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MinMax {
    /// (time, value), best first.
    s: [(u64, u64); 3],
}

impl MinMax {
    /// `minmax_reset`.
    fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [(t, v); 3];
        v
    }

    fn get(&self) -> u64 {
        self.s[0].1
    }

    /// `minmax_running_max`.
    fn running_max(&mut self, win: u64, t: u64, v: u64) -> u64 {
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        self.subwin_update(win, (t, v))
    }

    /// `minmax_subwin_update`: as time advances, the second and third choices move up.
    fn subwin_update(&mut self, win: u64, val: (u64, u64)) -> u64 {
        let dt = val.0 - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if val.0 - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].1
    }
}

/// `enum bbr_mode`, each state with its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up at high gain until the bandwidth stops growing.
    Startup,
    /// Drain the queue STARTUP built.
    Drain,
    /// Cycle the pacing gain around the estimate: `cycle_idx` and the phase's start
    /// (`cycle_mstamp`, a delivery time).
    ProbeBw { cycle_idx: u8, cycle_stamp: Time },
    /// cwnd at 4 segments for 200 ms and a round (`probe_rtt_done_stamp`, 0 until
    /// inflight first falls to 4, and `probe_rtt_round_done`).
    ProbeRtt {
        done_stamp: Option<u64>,
        round_done: bool,
    },
}

/// Long-term bandwidth sampling (`lt_*`): two lossy intervals of consistent rate
/// mean a policer, whose rate is then used for 48 rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LtBw {
    is_sampling: bool,
    use_bw: bool,
    rtt_cnt: u8,
    bw: u64,
    last_delivered: u64,
    /// `lt_last_stamp`, in ms.
    last_stamp: u64,
    last_lost: u64,
}

/// BBR's state for one connection (`struct bbr`) and the pacing rate it sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bbr {
    mode: Mode,
    /// `min_rtt_us` (`None` is ~0U: no sample yet) and its stamp in jiffies.
    min_rtt_us: Option<u64>,
    min_rtt_stamp: u64,
    bw: MinMax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    has_seen_rtt: bool,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_cnt: u8,
    full_bw: u64,
    prior_cwnd: u64,
    lt: LtBw,
    aggr: AckAggregation,
    /// `sk_pacing_rate` in bytes per second; `None` until `bbr_init`.
    pacing_rate: Option<u64>,
    /// `mss_cache`.
    mss: u64,
    /// An undo happened since the last ACK's [`Self::main`]: the long-term sampling
    /// restarts from that ACK's counters (see [`CongestionControl::on_undo`]).
    lt_reset_pending: bool,
    /// The `delivered_mstamp` the last ACK left (the undo's reset reads it).
    last_delivered_mstamp: Time,
    /// Boxed: the generator is larger than the rest of the state, and every flow's
    /// controller enum is as large as its largest member.
    rng: Box<CcRandom>,
}

impl Default for Bbr {
    /// The state before `bbr_init` runs at connection setup.
    fn default() -> Self {
        Bbr {
            mode: Mode::Startup,
            min_rtt_us: None,
            min_rtt_stamp: 0,
            bw: MinMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            has_seen_rtt: false,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0,
            prior_cwnd: 0,
            lt: LtBw::default(),
            aggr: AckAggregation::default(),
            pacing_rate: None,
            mss: 1460,
            lt_reset_pending: false,
            last_delivered_mstamp: Time::ZERO,
            rng: Box::new(RngStreams::new(0).stream("bbr", 0).into()),
        }
    }
}

/// What `bbr_main` changes in the socket besides the pacing rate.
#[derive(Clone, Copy, Debug)]
struct Tp {
    cwnd: u64,
    ssthresh: Option<u64>,
    app_limited: bool,
}

impl Bbr {
    /// The mode (for tests and traces).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// `bbr_max_bw`: the windowed max delivery rate.
    fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// `bbr_bw`: the long-term rate while policed, else the max filter's.
    fn bw(&self) -> u64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    /// The bandwidth estimate in bytes per second (for traces and tests).
    pub fn bandwidth(&self) -> u64 {
        self.rate_bytes_per_sec(self.bw(), BBR_UNIT) * 100 / (100 - PACING_MARGIN_PERCENT)
    }

    /// The min_rtt estimate.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt_us.map(Dur::from_micros)
    }

    /// `bbr_rate_bytes_per_sec`: a rate with a gain, 1 % below (the pacing margin).
    fn rate_bytes_per_sec(&self, rate: u64, gain: u64) -> u64 {
        rate_bytes_per_sec(rate, self.mss, gain, PACING_MARGIN_PERCENT)
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain x cwnd / srtt (1 ms without one).
    fn init_pacing_rate_from_rtt(&mut self, c: &ConnView) {
        let (bw, seen) = bw_from_rtt(c);
        self.has_seen_rtt |= seen;
        self.pacing_rate = Some(self.rate_bytes_per_sec(bw, HIGH_GAIN));
    }

    /// `bbr_set_pacing_rate`: only upwards until the pipe is full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u64, c: &ConnView) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && c.srtt.is_some() {
            self.init_pacing_rate_from_rtt(c);
        }
        if self.full_bw_reached || self.pacing_rate.is_none_or(|p| rate > p) {
            self.pacing_rate = Some(rate);
        }
    }

    /// `bbr_min_tso_segs`: 1 below 1.2 Mbit/s of pacing, else 2.
    fn min_tso_segs(&self) -> u64 {
        let rate = self.pacing_rate.unwrap_or(u64::MAX);
        if rate < MIN_TSO_RATE >> 3 {
            1
        } else {
            2
        }
    }

    /// `bbr_tso_segs_goal` with `bbr_min_tso_segs`.
    fn tso_segs_goal(&self) -> u64 {
        let rate = self.pacing_rate.unwrap_or(u64::MAX);
        let bytes = (rate >> PACING_SHIFT).min(GSO_BYTES_MAX);
        (bytes / self.mss).max(self.min_tso_segs()).min(0x7F)
    }

    /// `bbr_save_cwnd`: the last good cwnd, kept through recovery and PROBE_RTT.
    fn save_cwnd(&mut self, cwnd: u64) {
        let probe_rtt = matches!(self.mode, Mode::ProbeRtt { .. });
        self.prior_cwnd = saved_cwnd(self.prior_cwnd, cwnd, self.prev_ca_state, probe_rtt);
    }

    /// `bbr_bdp`: ceil(bw x min_rtt x gain), the initial window before any RTT.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        bdp(bw, self.min_rtt_us, gain).unwrap_or(TCP_INIT_CWND)
    }

    /// `bbr_quantization_budget`: room for TSO bursts, even, +2 in the probing phase.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let cwnd = (cwnd + 3 * self.tso_segs_goal() + 1) & !1;
        match self.mode {
            Mode::ProbeBw { cycle_idx: 0, .. } => cwnd + 2,
            _ => cwnd,
        }
    }

    /// `bbr_inflight`.
    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: inflight less what the path delivers until the
    /// next segment's earliest departure time.
    fn packets_in_net_at_edt(&self, inflight_now: u64, c: &ConnView) -> u64 {
        let tso = self.tso_segs_goal();
        packets_in_net_at_edt(inflight_now, self.bw(), self.pacing_gain, tso, c)
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u64 {
        match self.full_bw_reached {
            true => self.aggr.cwnd(self.bw()),
            false => 0,
        }
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: packet conservation in the first round
    /// of recovery, the saved cwnd back when recovery ends. Returns the cwnd and
    /// whether conservation decides it.
    fn recover_or_restore(
        &mut self,
        rs: &RateSample,
        acked: u64,
        c: &ConnView,
        cwnd: u64,
    ) -> (u64, bool) {
        let (state, prev) = (c.ca_state, self.prev_ca_state);
        let mut cwnd = cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            // "Starting 1st round of Recovery, so do packet conservation."
            self.packet_conservation = true;
            self.next_rtt_delivered = c.delivered;
            cwnd = c.in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            // "Exiting loss recovery; restore cwnd saved before recovery."
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(c.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow start toward the target (bw x min_rtt x gain plus the
    /// aggregation allowance), or down to it once the pipe was full; 4 in PROBE_RTT.
    fn set_cwnd(&mut self, rs: &RateSample, bw: u64, c: &ConnView, cwnd: u64) -> u64 {
        let acked = rs.acked_sacked;
        let mut cwnd = cwnd;
        if acked > 0 {
            let (w, conserving) = self.recover_or_restore(rs, acked, c, cwnd);
            cwnd = w;
            if !conserving {
                let target = self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd();
                let target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || c.delivered < TCP_INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        if matches!(self.mode, Mode::ProbeRtt { .. }) {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        cwnd
    }

    /// `bbr_is_next_cycle_phase`: a phase lasts min_rtt; probing also waits for
    /// inflight to reach its target (or a loss), draining ends early at the BDP.
    fn is_next_cycle_phase(&self, rs: &RateSample, c: &ConnView, cycle_stamp: Time) -> bool {
        let elapsed = us(c.delivered_mstamp.saturating_since(cycle_stamp));
        let is_full_length = self.min_rtt_us.is_some_and(|m| elapsed > m);
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight, c);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, cycle_idx: u8, c: &ConnView) {
        self.mode = Mode::ProbeBw {
            cycle_idx: (cycle_idx + 1) & (CYCLE_LEN - 1),
            cycle_stamp: c.delivered_mstamp,
        };
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample, c: &ConnView) {
        if let Mode::ProbeBw {
            cycle_idx,
            cycle_stamp,
        } = self.mode
        {
            if self.is_next_cycle_phase(rs, c, cycle_stamp) {
                self.advance_cycle_phase(cycle_idx, c);
            }
        }
    }

    /// `bbr_reset_probe_bw_mode`: a random start phase other than the drain phase.
    fn reset_probe_bw_mode(&mut self, c: &ConnView) {
        let draw = self.rng.below(CYCLE_RAND);
        self.advance_cycle_phase(CYCLE_LEN - 1 - draw, c);
    }

    /// `bbr_reset_mode`: STARTUP until the pipe was full, PROBE_BW after.
    fn reset_mode(&mut self, c: &ConnView) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(c);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_interval(&mut self, delivered_mstamp: Time, delivered: u64, lost: u64) {
        self.lt.last_stamp = msecs(delivered_mstamp);
        self.lt.last_delivered = delivered;
        self.lt.last_lost = lost;
        self.lt.rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt(&mut self, delivered_mstamp: Time, delivered: u64, lost: u64) {
        self.lt.bw = 0;
        self.lt.use_bw = false;
        self.lt.is_sampling = false;
        self.reset_lt_interval(delivered_mstamp, delivered, lost);
    }

    fn reset_lt_now(&mut self, c: &ConnView) {
        self.reset_lt(c.delivered_mstamp, c.delivered, c.lost);
    }

    /// `bbr_lt_bw_interval_done`: a second interval within 1/8 (or 4 kbit/s) of the
    /// first means a policer.
    fn lt_interval_done(&mut self, bw: u64, c: &ConnView) {
        if self.lt.bw != 0 {
            let diff = bw.abs_diff(self.lt.bw);
            let close = diff * BBR_UNIT <= LT_BW_RATIO * self.lt.bw
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF;
            if close {
                self.lt.bw = (bw + self.lt.bw) >> 1;
                self.lt.use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_interval(c.delivered_mstamp, c.delivered, c.lost);
    }

    /// `bbr_lt_bw_sampling`: intervals of 4..16 rounds from a loss to a loss with a
    /// loss rate of 20 % or more.
    fn lt_sampling(&mut self, rs: &RateSample, c: &ConnView) {
        if self.lt.use_bw {
            if matches!(self.mode, Mode::ProbeBw { .. }) && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_now(c);
                    self.reset_probe_bw_mode(c);
                }
            }
            return;
        }
        if !self.lt.is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_interval(c.delivered_mstamp, c.delivered, c.lost);
            self.lt.is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt_now(c);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt += 1;
        }
        if self.lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_now(c);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = c.lost.saturating_sub(self.lt.last_lost);
        let delivered = c.delivered.saturating_sub(self.lt.last_delivered);
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t = msecs(c.delivered_mstamp) as i64 - self.lt.last_stamp as i64;
        if t < 1 {
            return;
        }
        if t as u64 >= u32::MAX as u64 / 1000 {
            self.reset_lt_now(c);
            return;
        }
        self.lt_interval_done(delivered * BW_UNIT / (t as u64 * 1000), c);
    }

    /// `bbr_update_bw`: round accounting and the max filter (app-limited samples only
    /// when they raise it).
    fn update_bw(&mut self, rs: &RateSample, c: &ConnView) {
        self.round_start = false;
        let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
            return;
        };
        let interval_us = us(interval);
        if interval_us == 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = c.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(rs, c);
        let bw = delivered * BW_UNIT / interval_us;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: data ACKed beyond bw x time in an epoch.
    fn update_ack_aggregation(&mut self, rs: &RateSample, c: &ConnView) {
        let valid = rs.delivered.is_some() && rs.interval.is_some_and(|i| us(i) > 0);
        if rs.acked_sacked == 0 || !valid {
            return;
        }
        let bw = self.bw();
        let win = EXTRA_ACKED_WIN_RTTS;
        self.aggr
            .update(self.round_start, win, bw, rs.acked_sacked, c);
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25 % growth.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`: STARTUP -> DRAIN (ssthresh = the BDP's inflight), DRAIN ->
    /// PROBE_BW once inflight is down to it.
    fn check_drain(&mut self, c: &ConnView, tp: &mut Tp) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tp.ssthresh = Some(self.inflight(self.max_bw(), BBR_UNIT));
        }
        let bdp_inflight = self.inflight(self.max_bw(), BBR_UNIT);
        if self.mode == Mode::Drain && self.packets_in_net_at_edt(c.in_flight, c) <= bdp_inflight {
            self.reset_probe_bw_mode(c);
        }
    }

    /// `bbr_check_probe_rtt_done`: 200 ms (and a round) over: min_rtt's stamp renewed,
    /// the saved cwnd back.
    fn check_probe_rtt_done(&mut self, c: &ConnView, cwnd: &mut u64) {
        let Mode::ProbeRtt {
            done_stamp: Some(done),
            ..
        } = self.mode
        else {
            return;
        };
        if jiffies(c.now) <= done {
            return;
        }
        self.min_rtt_stamp = jiffies(c.now);
        *cwnd = (*cwnd).max(self.prior_cwnd);
        self.reset_mode(c);
    }

    /// `bbr_update_min_rtt`: the 10 s min filter (an expired one takes any sample not
    /// from a delayed ACK) and PROBE_RTT.
    fn update_min_rtt(&mut self, rs: &RateSample, c: &ConnView, tp: &mut Tp) {
        let now_j = jiffies(c.now);
        let expired = now_j > self.min_rtt_stamp + MIN_RTT_WIN_J;
        if let Some(rtt) = rs.rtt.map(us) {
            // "rs->rtt_us < bbr->min_rtt_us": strictly lower, so an equal sample does
            // not renew the stamp (the stable kernels' fix of the earlier `<=`).
            let lower = self.min_rtt_us.is_none_or(|m| rtt < m);
            if lower || (expired && !rs.is_ack_delayed) {
                self.min_rtt_us = Some(rtt);
                self.min_rtt_stamp = now_j;
            }
        }
        let in_probe_rtt = matches!(self.mode, Mode::ProbeRtt { .. });
        if expired && !self.idle_restart && !in_probe_rtt {
            self.mode = Mode::ProbeRtt {
                done_stamp: None,
                round_done: false,
            };
            self.save_cwnd(tp.cwnd);
        }
        if let Mode::ProbeRtt {
            done_stamp,
            round_done,
        } = self.mode
        {
            // "Ignore low rate samples during this mode."
            tp.app_limited = true;
            if done_stamp.is_none() && c.in_flight <= CWND_MIN_TARGET {
                self.mode = Mode::ProbeRtt {
                    done_stamp: Some(now_j + PROBE_RTT_MODE_J),
                    round_done: false,
                };
                self.next_rtt_delivered = c.delivered;
            } else if done_stamp.is_some() {
                let round_done = round_done || self.round_start;
                self.mode = Mode::ProbeRtt {
                    done_stamp,
                    round_done,
                };
                if round_done {
                    self.check_probe_rtt_done(c, &mut tp.cwnd);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw { .. } if self.lt.use_bw => (BBR_UNIT, CWND_GAIN),
            Mode::ProbeBw { cycle_idx, .. } => (PACING_GAIN[cycle_idx as usize], CWND_GAIN),
            Mode::ProbeRtt { .. } => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_update_model`.
    fn update_model(&mut self, rs: &RateSample, c: &ConnView, tp: &mut Tp) {
        self.update_bw(rs, c);
        self.update_ack_aggregation(rs, c);
        self.update_cycle_phase(rs, c);
        self.check_full_bw_reached(rs);
        self.check_drain(c, tp);
        self.update_min_rtt(rs, c, tp);
        self.update_gains();
    }

    /// `bbr_main`: the model, then the pacing rate and cwnd.
    fn main(&mut self, rs: &RateSample, c: &ConnView) -> Control {
        self.mss = c.mss;
        if std::mem::take(&mut self.lt_reset_pending) {
            // bbr_undo_cwnd ran inside this ACK's processing, before its losses were
            // marked and its deliveries stamped.
            let lost = c.lost.saturating_sub(rs.losses);
            self.reset_lt(self.last_delivered_mstamp, c.delivered, lost);
        }
        let mut tp = Tp {
            cwnd: c.cwnd,
            ssthresh: None,
            app_limited: false,
        };
        self.update_model(rs, c, &mut tp);
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, c);
        tp.cwnd = self.set_cwnd(rs, bw, c, tp.cwnd);
        self.last_delivered_mstamp = c.delivered_mstamp;
        Control {
            cwnd: tp.cwnd,
            ssthresh: tp.ssthresh,
            mark_app_limited: tp.app_limited,
        }
    }
}

impl CongestionControl for Bbr {
    /// Not called for growth: [`Self::on_cong_control`] sets cwnd on every ACK.
    fn on_ack(&mut self, ack: &AckSample) -> u64 {
        ack.w.cwnd
    }

    /// `bbr_ssthresh`: entering recovery saves cwnd; ssthresh stays (the window's
    /// `SsthreshRule::Kept`).
    fn on_congestion_event(&mut self, w: &CwndView) {
        self.save_cwnd(w.cwnd / w.mss);
    }

    /// `bbr_undo_cwnd`: "spurious slow-down; reset full pipe detection", and the
    /// long-term sampling; cwnd stays what it is.
    fn on_undo(&mut self, _w: &CwndView) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.lt_reset_pending = true;
    }

    fn controls_cwnd(&self) -> bool {
        true
    }

    /// `bbr_init`.
    fn on_init(&mut self, c: &ConnView, rng: &CcRandom) {
        *self = Bbr {
            mss: c.mss,
            min_rtt_us: c.min_rtt.map(us),
            min_rtt_stamp: jiffies(c.now),
            rng: Box::new(rng.clone()),
            aggr: AckAggregation::starting(c.now),
            last_delivered_mstamp: c.delivered_mstamp,
            ..Bbr::default()
        };
        self.init_pacing_rate_from_rtt(c);
        self.reset_lt_now(c);
    }

    fn on_cong_control(&mut self, rs: &RateSample, c: &ConnView) -> Control {
        self.main(rs, c)
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)` when sending resumes after idle while
    /// application-limited: pace at the estimate in PROBE_BW, or end PROBE_RTT if due.
    fn on_tx_start(&mut self, c: &ConnView, app_limited: bool) -> u64 {
        let mut cwnd = c.cwnd;
        if !app_limited {
            return cwnd;
        }
        self.idle_restart = true;
        self.aggr.restart_epoch(c.now);
        match self.mode {
            Mode::ProbeBw { .. } => self.set_pacing_rate(self.bw(), BBR_UNIT, c),
            Mode::ProbeRtt { .. } => self.check_probe_rtt_done(c, &mut cwnd),
            _ => {}
        }
        cwnd
    }

    /// `bbr_set_state(TCP_CA_Loss)`: "treat RTO like end of a round", full-bandwidth
    /// growth measured afresh, a loss for the long-term sampling.
    fn on_enter_loss(&mut self, c: &ConnView) {
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        let rs = RateSample {
            losses: 1,
            ..RateSample::default()
        };
        self.lt_sampling(&rs, c);
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.pacing_rate
    }

    /// `tcp_tso_segs`: mainline's v1 has no `tso_segs` hook, so the kernel's
    /// `tcp_tso_autosize` (about 1 ms of the pacing rate, plus `sk_gso_max_size >>
    /// (tcp_min_rtt >> 9)`, at most `sk_gso_max_size`) with `bbr_min_tso_segs` as the
    /// floor: 2-segment skbs on a 2 Mbit/s path, as the kernel's pcaps show.
    fn tso_segs(&self, c: &ConnView) -> u64 {
        let mut bytes = self.pacing_rate.unwrap_or(u64::MAX) >> PACING_SHIFT;
        let r = c.min_rtt.map_or(u64::MAX, us) >> TSO_RTT_LOG;
        if r < 32 {
            bytes = bytes.saturating_add(SK_GSO_MAX_SIZE >> r);
        }
        let bytes = bytes.min(SK_GSO_MAX_SIZE);
        (bytes / c.mss.max(1)).max(self.min_tso_segs())
    }

    fn estimates(&self) -> Option<super::ModelEstimates> {
        Some(super::ModelEstimates {
            bw: self.bandwidth(),
            min_rtt: self.min_rtt(),
            pacing_rate: self.pacing_rate.unwrap_or(0),
        })
    }
}

impl Declared for Bbr {
    const LINUX_MODULE: Option<&'static str> = Some("bbr");
}

impl Exports for Bbr {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35's 2002 agents have neither delivery-rate sampling nor pacing",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Sysctls(&[("tcp_congestion_control", "bbr")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn view(now: Time, cwnd: u64, in_flight: u64, delivered: u64) -> ConnView {
        ConnView {
            now,
            mss: MSS,
            cwnd,
            in_flight,
            delivered,
            delivered_mstamp: now,
            lost: 0,
            ca_state: CaState::Open,
            srtt: Some(Dur::from_millis(100)),
            min_rtt: Some(Dur::from_millis(100)),
            wstamp: now,
            is_cwnd_limited: false,
        }
    }

    fn started() -> Bbr {
        let mut b = Bbr::default();
        b.on_init(
            &view(ms(0), 10, 0, 0),
            &RngStreams::new(7).stream("t", 0).into(),
        );
        b
    }

    /// One ACK per round delivering `per_round` segments over 100 ms: a rate sample
    /// of per_round / 100 ms that ends a round. Returns the last control.
    fn rounds(b: &mut Bbr, from: u64, n: u64, per_round: u64, delivered: &mut u64) -> Control {
        let mut out = None;
        let mut cwnd = 10;
        for r in 0..n {
            let now = ms((from + r + 1) * 100);
            let rs = RateSample {
                prior_delivered: *delivered,
                delivered: Some(per_round),
                interval: Some(Dur::from_millis(100)),
                acked_sacked: per_round,
                prior_in_flight: per_round,
                rtt: Some(Dur::from_millis(100)),
                ..RateSample::default()
            };
            *delivered += per_round;
            let c = b.on_cong_control(&rs, &view(now, cwnd, 0, *delivered));
            cwnd = c.cwnd;
            out = Some(c);
        }
        out.expect("at least one round")
    }

    #[test]
    fn the_windowed_max_keeps_the_best_sample_for_ten_rounds_then_forgets_it() {
        let mut m = MinMax::default();
        m.running_max(10, 0, 100);
        for t in 1..=10 {
            assert_eq!(m.running_max(10, t, 50), 100, "round {t}");
        }
        assert_eq!(m.running_max(10, 11, 50), 50);
    }

    #[test]
    fn startup_ends_after_three_rounds_without_a_quarter_more_bandwidth() {
        let mut b = started();
        let mut d = 0;
        rounds(&mut b, 0, 3, 10, &mut d);
        assert_eq!(b.mode(), Mode::Startup);
        let c = rounds(&mut b, 3, 3, 10, &mut d);
        assert!(b.full_bw_reached);
        // DRAIN at once drains to PROBE_BW here: nothing is in flight.
        assert!(matches!(b.mode(), Mode::ProbeBw { cycle_idx, .. } if cycle_idx != 1));
        // 10 segments per 100 ms, min_rtt 100 ms: BDP 10 x cwnd_gain 2, plus up to the
        // 10 segments an ACK delivered at once (extra_acked), plus the quantization
        // budget (3 x 1 segment at this rate), even, +2 in the probing phase.
        assert_eq!(b.bdp(b.bw(), CWND_GAIN), 20);
        assert!((24..=36).contains(&c.cwnd), "{}", c.cwnd);
        // 100 kB/s, less the truncation of BW_SCALE (1677 / 2^24 segments per us).
        assert_eq!(b.bandwidth(), 99_956);
    }

    #[test]
    fn no_round_ends_during_a_stall_so_the_bandwidth_estimate_survives_it() {
        let mut b = started();
        let mut d = 0;
        rounds(&mut b, 0, 8, 10, &mut d);
        let before = b.bandwidth();
        // A 5 s freeze: one ACK at its end, a sample spanning the freeze but from a
        // segment sent before the round's end: prior_delivered < next_rtt_delivered.
        let rs = RateSample {
            prior_delivered: d - 1,
            delivered: Some(1),
            interval: Some(Dur::from_secs(5)),
            acked_sacked: 1,
            rtt: Some(Dur::from_secs(5)),
            ..RateSample::default()
        };
        d += 1;
        b.on_cong_control(&rs, &view(ms(5_900), 20, 10, d));
        assert_eq!(b.bandwidth(), before);
        assert_eq!(b.min_rtt(), Some(Dur::from_millis(100)));
    }

    /// Eight 100 ms rounds of 10 segments, then at `at_ms` one more ACK of 10 whose
    /// sample has an RTT of `rtt_ms`, from a delayed ACK or not.
    fn after_eight_rounds_one_more_at(at_ms: u64, rtt_ms: u64, delayed: bool) -> Bbr {
        let mut b = started();
        let mut d = 0;
        rounds(&mut b, 0, 8, 10, &mut d);
        let rs = RateSample {
            prior_delivered: d,
            delivered: Some(10),
            interval: Some(Dur::from_millis(100)),
            acked_sacked: 10,
            rtt: Some(Dur::from_millis(rtt_ms)),
            is_ack_delayed: delayed,
            ..RateSample::default()
        };
        b.on_cong_control(&rs, &view(ms(at_ms), 20, 20, d + 10));
        b
    }

    /// Samples equal to min_rtt leave its stamp where the first one set it: eight
    /// rounds of exactly 100 ms after the 100 ms initial min_rtt (stamped at 0), and
    /// a sample 10.004 s in (past 2 500 jiffies) finds the filter expired; renewed by
    /// each equal sample (the old `<=`) it would run until 10.8 s.
    #[test]
    fn an_rtt_equal_to_min_rtt_does_not_renew_its_stamp() {
        let b = after_eight_rounds_one_more_at(10_004, 100, false);
        assert!(matches!(b.mode(), Mode::ProbeRtt { .. }), "{:?}", b.mode());
    }

    #[test]
    fn an_expired_min_rtt_takes_a_post_spike_sample_unless_the_ack_was_delayed() {
        for delayed in [false, true] {
            let b = after_eight_rounds_one_more_at(10_901, 900, delayed);
            let expect = if delayed { 100 } else { 900 };
            assert_eq!(
                b.min_rtt(),
                Some(Dur::from_millis(expect)),
                "delayed {delayed}"
            );
            // Expired: PROBE_RTT either way.
            assert!(matches!(b.mode(), Mode::ProbeRtt { .. }));
        }
    }

    #[test]
    fn probe_rtt_holds_four_segments_for_200_ms_and_a_round_then_restores_cwnd() {
        let mut b = started();
        let mut d = 0;
        let c = rounds(&mut b, 0, 8, 10, &mut d);
        let good = c.cwnd;
        let mut cwnd = good;
        let step = |b: &mut Bbr, at: u64, in_flight: u64, d: &mut u64, cwnd: &mut u64| {
            let rs = RateSample {
                prior_delivered: *d,
                delivered: Some(4),
                interval: Some(Dur::from_millis(100)),
                acked_sacked: 4,
                rtt: Some(Dur::from_millis(150)),
                ..RateSample::default()
            };
            *d += 4;
            let c = b.on_cong_control(&rs, &view(ms(at), *cwnd, in_flight, *d));
            *cwnd = c.cwnd;
            c
        };
        let c = step(&mut b, 10_901, 4, &mut d, &mut cwnd);
        assert_eq!(c.cwnd, 4);
        assert!(c.mark_app_limited);
        let c = step(&mut b, 11_000, 4, &mut d, &mut cwnd);
        assert_eq!(c.cwnd, 4, "200 ms not over");
        // 200 ms is msecs_to_jiffies(200) = 50 jiffies of 4 ms from jiffy 2725
        // (10 900..10 904 ms): done after jiffy 2775, i.e. from 11 104 ms on.
        let c = step(&mut b, 11_102, 4, &mut d, &mut cwnd);
        assert_eq!(c.cwnd, 4, "jiffy 2775 not over");
        let c = step(&mut b, 11_104, 4, &mut d, &mut cwnd);
        // The saved cwnd is back, and grows by the ACK's 4 toward the target.
        assert!(c.cwnd >= good, "{} < {good}", c.cwnd);
        assert!(matches!(b.mode(), Mode::ProbeBw { .. }));
        assert_eq!(b.min_rtt(), Some(Dur::from_millis(150)));
    }

    #[test]
    fn a_timeout_ends_a_round_and_restarts_full_bandwidth_growth() {
        let mut b = started();
        let mut d = 0;
        rounds(&mut b, 0, 8, 10, &mut d);
        assert_ne!(b.full_bw, 0);
        b.on_enter_loss(&view(ms(900), 1, 0, d));
        assert_eq!((b.full_bw, b.round_start), (0, true));
        assert_eq!(b.prev_ca_state, CaState::Loss);
        assert!(b.full_bw_reached, "the pipe stays known to be full");
    }

    #[test]
    fn an_undo_resets_full_pipe_detection_and_keeps_cwnd() {
        let mut b = started();
        let mut d = 0;
        rounds(&mut b, 0, 2, 10, &mut d);
        b.on_undo(&CwndView {
            cwnd: 7 * MSS,
            ssthresh: 5 * MSS,
            mss: MSS,
        });
        assert_eq!((b.full_bw, b.full_bw_cnt), (0, 0));
        assert!(b.lt_reset_pending);
    }

    #[test]
    fn recovery_starts_with_packet_conservation_and_its_end_restores_the_saved_cwnd() {
        let mut b = started();
        let mut d = 0;
        let good = rounds(&mut b, 0, 8, 10, &mut d).cwnd;
        b.on_congestion_event(&CwndView {
            cwnd: good * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        });
        let rs = RateSample {
            prior_delivered: d,
            delivered: Some(1),
            interval: Some(Dur::from_millis(100)),
            acked_sacked: 1,
            losses: 2,
            ..RateSample::default()
        };
        d += 1;
        let mut c = view(ms(900), good, 5, d);
        c.ca_state = CaState::Recovery;
        assert_eq!(b.on_cong_control(&rs, &c).cwnd, 6, "inflight + acked");
        c.ca_state = CaState::Open;
        c.cwnd = 6;
        // max(6, the saved cwnd), then at most the target: not 6 + 1.
        let restored = b.on_cong_control(&rs, &c).cwnd;
        assert!(restored + 2 >= good, "{restored} vs {good}");
    }

    #[test]
    fn the_gain_cycle_starts_at_a_seeded_random_phase_never_the_drain_phase() {
        let phases: Vec<u8> = (0..20)
            .map(|seed| {
                let mut b = Bbr::default();
                let rng = RngStreams::new(seed).stream("t", 0);
                b.on_init(&view(ms(0), 10, 0, 0), &rng.clone().into());
                b.reset_probe_bw_mode(&view(ms(0), 10, 0, 0));
                match b.mode() {
                    Mode::ProbeBw { cycle_idx, .. } => cycle_idx,
                    m => panic!("{m:?}"),
                }
            })
            .collect();
        assert!(phases.iter().all(|&p| p != 1));
        assert!(phases.iter().any(|&p| p != phases[0]));
        let again = {
            let mut b = Bbr::default();
            b.on_init(
                &view(ms(0), 10, 0, 0),
                &RngStreams::new(3).stream("t", 0).into(),
            );
            b.reset_probe_bw_mode(&view(ms(0), 10, 0, 0));
            b.mode()
        };
        assert!(matches!(again, Mode::ProbeBw { cycle_idx, .. } if cycle_idx == phases[3]));
    }

    #[test]
    fn replayed_draws_set_the_start_phases_in_order_then_the_stream_draws() {
        // Draw r starts the cycle at CYCLE_LEN - 1 - r, advanced once: r = 0 probes
        // (phase 0, gain 5/4) at once, r = 6 cruises through phases 2..7 first.
        let seeded = |replay: &[u8]| {
            let mut b = Bbr::default();
            let rng = RngStreams::new(3).stream("t", 0);
            b.on_init(&view(ms(0), 10, 0, 0), &CcRandom::new(rng, replay));
            (0..3)
                .map(|_| {
                    b.reset_probe_bw_mode(&view(ms(0), 10, 0, 0));
                    match b.mode() {
                        Mode::ProbeBw { cycle_idx, .. } => cycle_idx,
                        m => panic!("{m:?}"),
                    }
                })
                .collect::<Vec<u8>>()
        };
        let own = seeded(&[]);
        let replayed = seeded(&[0, 6]);
        assert_eq!(&replayed[..2], &[0, 2]);
        assert_eq!(
            replayed[2], own[0],
            "after the replay, the stream's first draw"
        );
    }

    #[test]
    fn the_initial_pacing_rate_is_high_gain_times_the_initial_window_over_srtt() {
        let b = started();
        // 10 segments of 1000 bytes per 100 ms x 2.89 x 0.99.
        let rate = b.pacing_rate().expect("set by bbr_init");
        assert!((285_000..=287_000).contains(&rate), "{rate}");
    }
}
