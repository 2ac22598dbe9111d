//! BBRv3 as google/bbr's v3 branch runs it (net/ipv4/tcp_bbr.c there, `BBR_VERSION 3`,
//! read at commit 001a430b3ddbbc6d9173061a74d8b580c757b91b; `tcp_congestion_control =
//! "bbr3"`). **No kernel on this machine runs it** (mainline Linux ships v1 as `bbr`), so
//! `spikelab emulate` refuses it ([`Exports::kernel`] says why) and this module is
//! checked against its source: the tests below follow the source's rules.
//!
//! What v3 adds to v1 ([`super::bbr`]), by the source's functions:
//!
//! * **Bounds on the model.** A long-term upper bound `inflight_hi` (and `bw_hi`, the
//!   max of the last two probe cycles' bandwidth samples: `bbr_take_max_bw_sample`,
//!   `bbr_advance_max_bw_filter`, replacing v1's 10-round windowed max) and short-term
//!   lower bounds `bw_lo`, `inflight_lo` (`bbr_adapt_lower_bounds`). The estimate is
//!   `min(bw_hi, bw_lo)` (`bbr_bw`); cwnd is capped by `inflight_hi` while probing
//!   and by `inflight_hi` less 15 % headroom while cruising or in PROBE_RTT, and
//!   always by `inflight_lo` (`bbr_bound_cwnd_for_inflight_model`).
//! * **The loss response.** Outside bandwidth probing, a round with a loss cuts
//!   `bw_lo` and `inflight_lo` to 70 % (`bbr_beta`), not below the last round's
//!   delivery (`bbr_loss_lower_bounds`); while probing, a loss rate above 2 % of the
//!   flight the sampled segment was sent into (`bbr_is_inflight_too_high`) sets
//!   `inflight_hi` to that flight (at least 70 % of the target) and ends the probe
//!   (`bbr_handle_inflight_too_high`). STARTUP also ends on six loss events in a
//!   recovery round above 2 % (`bbr_check_loss_too_high_in_startup`). An RTO
//!   (`bbr_set_state(TCP_CA_Loss)`) seeds `inflight_lo` with the pre-timeout cwnd
//!   when not probing.
//! * **The undo restores the bounds.** Entering recovery saves `bw_lo`,
//!   `inflight_lo`, `inflight_hi` (`bbr_ssthresh`); an undo takes the larger of
//!   each and the saved value and sets cwnd back to the saved cwnd
//!   (`bbr_undo_cwnd` returns `prior_cwnd`; v1 returns cwnd as it is).
//! * **PROBE_RTT every 5 s** (`bbr_probe_rtt_win_ms`, a separate `probe_rtt_min_us`
//!   filter; the 10 s `min_rtt` window stays) at half the BDP
//!   (`bbr_probe_rtt_cwnd_gain`) instead of 4 segments (`bbr_update_min_rtt`).
//! * **PROBE_BW phases** DOWN (pacing 0.91) -> CRUISE (1.0) -> REFILL (1.0, one
//!   round) -> UP (1.25, cwnd gain 2.25) -> DOWN (`bbr_update_cycle_phase`): probing
//!   starts after a random 2-3 s of wall-clock time or min(63, BDP) rounds
//!   (`bbr_pick_probe_wait`, `bbr_is_reno_coexistence_probe_time`); UP raises
//!   `inflight_hi` by a slope doubling each round (`bbr_probe_inflight_hi_upward`)
//!   and ends on a bandwidth plateau or on reaching a known-risky `inflight_hi`.
//!   v1 cycles eight phases of one min_rtt each at 1.25, 0.75, 1 x 6.
//! * **Other gains and rules.** STARTUP paces at 2.77 (v1: 2.89) with cwnd gain 2;
//!   full bandwidth is judged per sample with `full_bw_now` (`bbr_check_full_bw_reached`);
//!   no packet conservation in the first recovery round (v1's
//!   `bbr_set_cwnd_to_recover_or_restore` is gone; leaving the Loss state restores
//!   `prior_cwnd`, `bbr_exit_loss_recovery`); no long-term policer model (`lt_bw`);
//!   a TSO budget that grows at small min_rtt (`bbr_tso_segs_generic`); an
//!   app-limited fast path (`bbr_run_fast_path`).
//!
//! Not modelled, each inert here: the ECN response (`bbr_update_ecn_alpha`,
//! `bbr_ecn_lower_bounds`) and PLB need `bbr_can_use_ecn` (ECN negotiated on a route
//! marked `TCP_ECN_LOW`), which no spikelab connection has; the per-segment loss hook
//! `skb_marked_lost` and the TLP-repair event `CA_EVENT_TLP_RECOVERY` have no
//! counterpart in the sender's hooks, so a too-high loss rate is seen at the ACK that
//! marks it (`bbr_adapt_upper_bounds` with the ACK's `rs->lost`, `rs->tx_in_flight`)
//! rather than per lost segment. Units as in [`super::bbr`].

use super::bbr_shared::*;
use super::{CaState, CongestionControl, ConnView, Control, CwndView, Declared};
use crate::exports::{Exports, Kernel, Ns2Export};
use crate::rate::RateSample;
use rand::Rng;
use spikelab_core::{Dur, RngStreams, SimRng, Time};

/// The kernel's ~0U: a bound not set.
const UNSET: u64 = u32::MAX as u64;
/// `bbr_probe_rtt_win_ms` (5 s) in jiffies as `bbr_update_min_rtt` counts it:
/// `msecs_to_jiffies(bbr_probe_rtt_win_ms)` (1250 at HZ = 250).
const PROBE_RTT_WIN_J: u64 = crate::linux_timer_wheel::msecs_to_jiffies(5_000);
/// `bbr_probe_rtt_cwnd_gain` (0.5).
const PROBE_RTT_CWND_GAIN: u64 = BBR_UNIT / 2;
/// `bbr_tso_rtt_shift`, `GSO_LEGACY_MAX_SIZE`, `MAX_TCP_HEADER` (x86-64, as in
/// [`super::bbr`]), `sysctl_tcp_min_tso_segs`.
const TSO_RTT_SHIFT: u32 = 9;
const GSO_LEGACY_MAX_SIZE: u64 = 65536;
const MAX_TCP_HEADER: u64 = 320;
const MIN_TSO_SEGS: u64 = 2;
/// `bbr_startup_pacing_gain` (4 ln 2), `bbr_startup_cwnd_gain`,
/// `bbr_bw_probe_cwnd_gain` (in BBR_UNIT / 4).
const STARTUP_PACING_GAIN: u64 = BBR_UNIT * 277 / 100 + 1;
const STARTUP_CWND_GAIN: u64 = BBR_UNIT * 2;
const BW_PROBE_CWND_GAIN: u64 = 1;
/// `bbr_beta` (cut to 70 %), `bbr_loss_thresh` (2 %), `bbr_full_loss_cnt`,
/// `bbr_inflight_headroom` (15 %).
const BETA: u64 = BBR_UNIT * 30 / 100;
const LOSS_THRESH: u64 = BBR_UNIT * 2 / 100;
const FULL_LOSS_CNT: u8 = 6;
const INFLIGHT_HEADROOM: u64 = BBR_UNIT * 15 / 100;
/// `bbr_bw_probe_max_rounds`, `bbr_bw_probe_rand_rounds`, `bbr_bw_probe_base_us`,
/// `bbr_bw_probe_rand_us`.
const BW_PROBE_MAX_ROUNDS: u64 = 63;
const BW_PROBE_RAND_ROUNDS: u32 = 2;
const BW_PROBE_BASE_US: u64 = 2_000_000;
const BW_PROBE_RAND_US: u32 = 1_000_000;

/// `enum bbr_pacing_gain_phase`: the PROBE_BW phases and their pacing gains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Push inflight up to probe for bandwidth (1.25).
    Up,
    /// Drain the queue the probe built (0.91).
    Down,
    /// Use the pipe with headroom (1.0).
    Cruise,
    /// Refill the pipe for one round before probing (1.0).
    Refill,
}

impl Phase {
    /// `bbr_pacing_gain[]`.
    fn pacing_gain(self) -> u64 {
        match self {
            Phase::Up => BBR_UNIT * 5 / 4,
            Phase::Down => BBR_UNIT * 91 / 100,
            Phase::Cruise | Phase::Refill => BBR_UNIT,
        }
    }
}

/// `enum bbr_mode`, each state with its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw(Phase),
    /// cwnd at half the BDP for 200 ms and a round (`probe_rtt_done_stamp`, in
    /// jiffies, `None` until inflight first falls to it; `probe_rtt_round_done`).
    ProbeRtt {
        done_stamp: Option<u64>,
        round_done: bool,
    },
}

impl Mode {
    /// `bbr->mode` without the phase (the fast path compares only this).
    fn id(self) -> u8 {
        match self {
            Mode::Startup => 0,
            Mode::Drain => 1,
            Mode::ProbeBw(_) => 2,
            Mode::ProbeRtt { .. } => 3,
        }
    }
}

/// `enum bbr_ack_phase`: what the incoming ACKs say about bandwidth probing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// The model's bounds (`bw_hi`, `bw_lo`, `inflight_hi`, `inflight_lo`) and the last
/// round's delivery (`bw_latest`, `inflight_latest`); [`UNSET`] where the kernel
/// has ~0U.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub bw_hi: [u64; 2],
    pub bw_lo: u64,
    pub inflight_hi: u64,
    pub inflight_lo: u64,
    bw_latest: u64,
    inflight_latest: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            bw_hi: [0, 0],
            bw_lo: UNSET,
            inflight_hi: UNSET,
            inflight_lo: UNSET,
            bw_latest: 0,
            inflight_latest: 0,
        }
    }
}

/// What `bbr_ssthresh` saves for an undo (`undo_bw_lo`, `undo_inflight_lo`,
/// `undo_inflight_hi`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct UndoBounds {
    bw_lo: u64,
    inflight_lo: u64,
    inflight_hi: u64,
}

/// Bandwidth probing in PROBE_BW: the `inflight_hi` growth and the probe's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Probe {
    /// `bw_probe_up_rounds`, `bw_probe_up_cnt`, `bw_probe_up_acks`.
    up_rounds: u32,
    up_cnt: u64,
    up_acks: u64,
    /// `probe_wait_us`, `rounds_since_probe`.
    wait_us: u64,
    rounds_since: u64,
    /// `bw_probe_samples`, `prev_probe_too_high`, `stopped_risky_probe`.
    samples: bool,
    prev_too_high: bool,
    stopped_risky: bool,
    ack_phase: AckPhase,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            up_rounds: 0,
            up_cnt: UNSET,
            up_acks: 0,
            wait_us: 0,
            rounds_since: 0,
            samples: false,
            prev_too_high: false,
            stopped_risky: false,
            ack_phase: AckPhase::Init,
        }
    }
}

/// Loss signals per round (`loss_round_delivered`, `loss_round_start`,
/// `loss_in_round`, `loss_in_cycle`, `loss_events_in_round`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LossRound {
    delivered: u64,
    start: bool,
    in_round: bool,
    in_cycle: bool,
    events: u8,
}

/// BBRv3 for one connection: its state, boxed (the state is larger than every other
/// controller's, and every flow's controller enum is as large as its largest member).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bbr3(Box<State>);

impl std::ops::Deref for Bbr3 {
    type Target = State;
    fn deref(&self) -> &State {
        &self.0
    }
}

impl std::ops::DerefMut for Bbr3 {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.0
    }
}

/// BBRv3's state for one connection (`struct bbr`) and the pacing rate it sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    mode: Mode,
    /// `cycle_mstamp`: the phase's start (wall clock).
    cycle_stamp: Time,
    /// `min_rtt_us` / `probe_rtt_min_us` (`None` is ~0U) and their stamps in jiffies.
    min_rtt_us: Option<u64>,
    min_rtt_stamp: u64,
    probe_rtt_min_us: Option<u64>,
    probe_rtt_min_stamp: u64,
    next_rtt_delivered: u64,
    prev_ca_state: CaState,
    round_start: bool,
    idle_restart: bool,
    has_seen_rtt: bool,
    try_fast_path: bool,
    init_cwnd: u64,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw_cnt: u8,
    full_bw: u64,
    prior_cwnd: u64,
    bounds: Bounds,
    undo: UndoBounds,
    probe: Probe,
    loss: LossRound,
    aggr: AckAggregation,
    /// `sk_pacing_rate` in bytes per second; `None` until `bbr_init`.
    pacing_rate: Option<u64>,
    mss: u64,
    /// `bbr_init` ran (`initialized`).
    initialized: bool,
    /// An undo happened in this ACK's processing: cwnd is `prior_cwnd` when
    /// `cong_control` runs (`tcp_undo_cwnd_reduction` sets `undo_cwnd`'s value).
    undo_pending: bool,
    /// Boxed as in [`super::bbr`]: the generator is the largest part of the state.
    rng: Box<SimRng>,
}

impl Default for State {
    fn default() -> Self {
        State {
            mode: Mode::Startup,
            cycle_stamp: Time::ZERO,
            min_rtt_us: None,
            min_rtt_stamp: 0,
            probe_rtt_min_us: None,
            probe_rtt_min_stamp: 0,
            next_rtt_delivered: 0,
            prev_ca_state: CaState::Open,
            round_start: false,
            idle_restart: false,
            has_seen_rtt: false,
            try_fast_path: false,
            init_cwnd: 10,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw_cnt: 0,
            full_bw: 0,
            prior_cwnd: 0,
            bounds: Bounds::default(),
            undo: UndoBounds::default(),
            probe: Probe::default(),
            loss: LossRound::default(),
            aggr: AckAggregation::default(),
            pacing_rate: None,
            mss: 1460,
            initialized: false,
            undo_pending: false,
            rng: Box::new(RngStreams::new(0).stream("bbr3", 0)),
        }
    }
}

/// One ACK's inputs and the cwnd `bbr_main` works on (`struct bbr_context` plus the
/// socket's `snd_cwnd` and `snd_ssthresh`).
struct Ctx<'a> {
    rs: &'a RateSample,
    c: &'a ConnView,
    sample_bw: u64,
    cwnd: u64,
    ssthresh: Option<u64>,
    app_limited: bool,
}

impl State {
    /// The mode (for tests and traces).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The model's bounds (for tests and traces).
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// The bandwidth estimate in bytes per second (`bbr_bw_bytes_per_sec(bbr_bw)`).
    pub fn bandwidth(&self) -> u64 {
        self.rate_bytes_per_sec(self.bw(), BBR_UNIT, 0)
    }

    /// The min_rtt estimate.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt_us.map(Dur::from_micros)
    }

    /// `bbr_max_bw`: the max of the last two cycles' samples.
    fn max_bw(&self) -> u64 {
        self.bounds.bw_hi[0].max(self.bounds.bw_hi[1])
    }

    /// `bbr_bw`: the max filter's, bounded below-term by `bw_lo`.
    fn bw(&self) -> u64 {
        self.max_bw().min(self.bounds.bw_lo)
    }

    /// `bbr_rate_bytes_per_sec` (v3 floors it at 1 byte per second).
    fn rate_bytes_per_sec(&self, rate: u64, gain: u64, margin: u64) -> u64 {
        rate_bytes_per_sec(rate, self.mss, gain, margin).max(1)
    }

    /// `bbr_bw_to_pacing_rate`.
    fn pacing_rate_for(&self, bw: u64, gain: u64) -> u64 {
        self.rate_bytes_per_sec(bw, gain, PACING_MARGIN_PERCENT)
    }

    /// `bbr_init_pacing_rate_from_rtt`: startup gain x cwnd / srtt (1 ms without one).
    fn init_pacing_rate_from_rtt(&mut self, c: &ConnView) {
        let (bw, seen) = bw_from_rtt(c);
        self.has_seen_rtt |= seen;
        self.pacing_rate = Some(self.pacing_rate_for(bw, STARTUP_PACING_GAIN));
    }

    /// `bbr_set_pacing_rate`: only upwards until the pipe is full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u64, c: &ConnView) {
        let rate = self.pacing_rate_for(bw, gain);
        if !self.has_seen_rtt && c.srtt.is_some() {
            self.init_pacing_rate_from_rtt(c);
        }
        if self.full_bw_reached || self.pacing_rate.is_none_or(|p| rate > p) {
            self.pacing_rate = Some(rate);
        }
    }

    /// `bbr_tso_segs_goal` (`bbr_tso_segs_generic` with the legacy GSO size): a
    /// rate-based burst plus 64 kB halved for every 512 us of min_rtt.
    fn tso_segs_goal(&self) -> u64 {
        let mut bytes = self.pacing_rate.unwrap_or(u64::MAX) >> PACING_SHIFT;
        let r = self.min_rtt_us.unwrap_or(UNSET) >> TSO_RTT_SHIFT;
        if r < 32 {
            bytes = bytes.saturating_add(GSO_LEGACY_MAX_SIZE >> r);
        }
        let bytes = bytes.min(GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER);
        (bytes / self.mss).max(MIN_TSO_SEGS)
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self, cwnd: u64) {
        let probe_rtt = matches!(self.mode, Mode::ProbeRtt { .. });
        self.prior_cwnd = saved_cwnd(self.prior_cwnd, cwnd, self.prev_ca_state, probe_rtt);
    }

    /// `bbr_bdp`: ceil(bw x min_rtt x gain); the initial cwnd before any RTT.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        bdp(bw, self.min_rtt_us, gain).unwrap_or(self.init_cwnd)
    }

    /// `bbr_quantization_budget`: at least three TSO bursts and 4 segments, +2 in UP.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let cwnd = cwnd.max(3 * self.tso_segs_goal()).max(CWND_MIN_TARGET);
        match self.mode {
            Mode::ProbeBw(Phase::Up) => cwnd + 2,
            _ => cwnd,
        }
    }

    /// `bbr_inflight`.
    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`.
    fn packets_in_net_at_edt(&self, inflight_now: u64, c: &ConnView) -> u64 {
        let tso = self.tso_segs_goal();
        packets_in_net_at_edt(inflight_now, self.bw(), self.pacing_gain, tso, c)
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u64 {
        self.aggr.cwnd(self.bw())
    }

    /// `bbr_probe_rtt_cwnd`: half the BDP, at least 4 segments.
    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp(self.bw(), PROBE_RTT_CWND_GAIN)
            .max(CWND_MIN_TARGET)
    }

    /// `bbr_target_inflight`: the BDP unless congestion cut cwnd.
    fn target_inflight(&self, cwnd: u64) -> u64 {
        self.inflight(self.bw(), BBR_UNIT).min(cwnd)
    }

    /// `bbr_is_probing_bandwidth`.
    fn is_probing_bandwidth(&self) -> bool {
        matches!(
            self.mode,
            Mode::Startup | Mode::ProbeBw(Phase::Refill) | Mode::ProbeBw(Phase::Up)
        )
    }

    /// `bbr_reset_full_bw`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// `bbr_set_cycle_idx`.
    fn set_phase(&mut self, phase: Phase) {
        self.mode = Mode::ProbeBw(phase);
        self.try_fast_path = false;
    }

    /// `bbr_inflight_with_headroom`: `inflight_hi` less 15 % (at least 4 segments).
    fn inflight_with_headroom(&self) -> u64 {
        let hi = self.bounds.inflight_hi;
        if hi == UNSET {
            return UNSET;
        }
        let headroom = ((hi * INFLIGHT_HEADROOM) >> BBR_SCALE).max(1);
        hi.saturating_sub(headroom).max(CWND_MIN_TARGET)
    }

    /// `bbr_is_inflight_too_high`: more than 2 % of the sampled flight lost (the ECN
    /// test needs `ecn_eligible`, never set here).
    fn is_inflight_too_high(rs: &RateSample) -> bool {
        rs.lost > 0 && rs.tx_in_flight > 0 && rs.lost > (rs.tx_in_flight * LOSS_THRESH) >> BBR_SCALE
    }
}

/// The model update, one source function each.
impl State {
    /// `bbr_update_round_start`.
    fn update_round_start(&mut self, x: &Ctx) {
        self.round_start = false;
        if x.rs.interval.is_some_and(|i| us(i) > 0)
            && x.rs.prior_delivered >= self.next_rtt_delivered
        {
            self.next_rtt_delivered = x.c.delivered;
            self.round_start = true;
        }
    }

    /// `bbr_calculate_bw_sample`: delivered / interval, rounded up.
    fn bw_sample(rs: &RateSample) -> u64 {
        match (rs.delivered, rs.interval.map(us)) {
            (Some(d), Some(i)) if i > 0 => (d * BW_UNIT).div_ceil(i),
            _ => 0,
        }
    }

    fn valid(rs: &RateSample) -> bool {
        rs.interval.is_some_and(|i| us(i) > 0) && rs.acked_sacked > 0
    }

    /// `bbr_update_latest_delivery_signals`.
    fn update_latest_delivery_signals(&mut self, x: &Ctx) {
        self.loss.start = false;
        if !Self::valid(x.rs) {
            return;
        }
        let b = &mut self.bounds;
        b.bw_latest = b.bw_latest.max(x.sample_bw);
        b.inflight_latest = b.inflight_latest.max(x.rs.delivered.unwrap_or(0));
        if x.rs.prior_delivered >= self.loss.delivered {
            self.loss.delivered = x.c.delivered;
            self.loss.start = true;
        }
    }

    /// `bbr_advance_latest_delivery_signals` (no TLP retransmission to persist for).
    fn advance_latest_delivery_signals(&mut self, x: &Ctx) {
        if self.loss.start {
            self.bounds.bw_latest = x.sample_bw;
            self.bounds.inflight_latest = x.rs.delivered.unwrap_or(0);
        }
    }

    /// `bbr_update_congestion_signals`: the max filter, and once per round the lower
    /// bounds.
    fn update_congestion_signals(&mut self, x: &Ctx) {
        if !Self::valid(x.rs) {
            return;
        }
        if !x.rs.is_app_limited || x.sample_bw >= self.max_bw() {
            self.bounds.bw_hi[1] = self.bounds.bw_hi[1].max(x.sample_bw);
        }
        self.loss.in_round |= x.rs.losses > 0;
        if !self.loss.start {
            return;
        }
        self.adapt_lower_bounds(x.cwnd);
        self.loss.in_round = false;
    }

    /// `bbr_adapt_lower_bounds` with `bbr_init_lower_bounds` and
    /// `bbr_loss_lower_bounds`: a lossy round outside probing cuts `bw_lo` and
    /// `inflight_lo` to 70 %, not below the last round's delivery.
    fn adapt_lower_bounds(&mut self, cwnd: u64) {
        if self.is_probing_bandwidth() || !self.loss.in_round {
            return;
        }
        let max_bw = self.max_bw();
        let b = &mut self.bounds;
        if b.bw_lo == UNSET {
            b.bw_lo = max_bw;
        }
        if b.inflight_lo == UNSET {
            b.inflight_lo = cwnd;
        }
        let cut = BBR_UNIT - BETA;
        b.bw_lo = b.bw_latest.max((b.bw_lo * cut) >> BBR_SCALE).max(1);
        b.inflight_lo = b.inflight_latest.max((b.inflight_lo * cut) >> BBR_SCALE);
    }

    /// `bbr_reset_lower_bounds`.
    fn reset_lower_bounds(&mut self) {
        self.bounds.bw_lo = UNSET;
        self.bounds.inflight_lo = UNSET;
    }

    /// `bbr_reset_congestion_signals`.
    fn reset_congestion_signals(&mut self) {
        self.loss.in_round = false;
        self.loss.in_cycle = false;
        self.bounds.bw_latest = 0;
        self.bounds.inflight_latest = 0;
    }

    /// `bbr_update_ack_aggregation` (a 1-round window until the pipe is full).
    fn update_ack_aggregation(&mut self, x: &Ctx) {
        if x.rs.delivered.is_none() || !Self::valid(x.rs) {
            return;
        }
        let thresh = if self.full_bw_reached {
            EXTRA_ACKED_WIN_RTTS
        } else {
            1
        };
        let bw = self.bw();
        let (round_start, acked) = (self.round_start, x.rs.acked_sacked);
        self.aggr.update(round_start, thresh, bw, acked, x.c);
    }

    /// `bbr_handle_queue_too_high_in_startup`.
    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        let bdp = self.inflight(self.max_bw(), BBR_UNIT);
        self.bounds.inflight_hi = bdp.max(self.bounds.inflight_latest);
    }

    /// `bbr_check_loss_too_high_in_startup`: six loss events in a recovery round
    /// with more than 2 % lost end STARTUP.
    fn check_loss_too_high_in_startup(&mut self, x: &Ctx) {
        if self.full_bw_reached {
            return;
        }
        if x.rs.losses > 0 && self.loss.events < 0xF {
            self.loss.events += 1;
        }
        if self.loss.start
            && x.c.ca_state == CaState::Recovery
            && self.loss.events >= FULL_LOSS_CNT
            && Self::is_inflight_too_high(x.rs)
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss.start {
            self.loss.events = 0;
        }
    }

    /// `bbr_check_full_bw_reached`: three rounds without a sample 25 % above.
    fn check_full_bw_reached(&mut self, x: &Ctx) {
        if self.full_bw_now || x.rs.is_app_limited {
            return;
        }
        if x.sample_bw >= (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE {
            self.reset_full_bw();
            self.full_bw = x.sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, x: &mut Ctx) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            x.ssthresh = Some(self.inflight(self.max_bw(), BBR_UNIT));
            self.reset_congestion_signals();
        }
        let target = self.inflight(self.max_bw(), BBR_UNIT);
        if self.mode == Mode::Drain && self.packets_in_net_at_edt(x.c.in_flight, x.c) <= target {
            self.mode = Mode::ProbeBw(Phase::Down);
            self.start_bw_probe_down(x.c);
        }
    }
}

/// The PROBE_BW state machine.
impl State {
    /// `bbr_pick_probe_wait`: 0-1 rounds and 2-3 s, drawn from the flow's stream.
    fn pick_probe_wait(&mut self) {
        self.probe.rounds_since = self.rng.random_range(0..BW_PROBE_RAND_ROUNDS) as u64;
        self.probe.wait_us = BW_PROBE_BASE_US + self.rng.random_range(0..BW_PROBE_RAND_US) as u64;
    }

    /// `bbr_start_bw_probe_refill`.
    fn start_bw_probe_refill(&mut self, c: &ConnView, up_rounds: u32) {
        self.reset_lower_bounds();
        self.probe.up_rounds = up_rounds;
        self.probe.up_acks = 0;
        self.probe.stopped_risky = false;
        self.probe.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = c.delivered;
        self.set_phase(Phase::Refill);
    }

    /// `bbr_start_bw_probe_up`.
    fn start_bw_probe_up(&mut self, x: &Ctx) {
        self.probe.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = x.c.delivered;
        self.cycle_stamp = x.c.now;
        self.reset_full_bw();
        self.full_bw = x.sample_bw;
        self.set_phase(Phase::Up);
        self.raise_inflight_hi_slope(x.cwnd);
    }

    /// `bbr_start_bw_probe_down`.
    fn start_bw_probe_down(&mut self, c: &ConnView) {
        self.reset_congestion_signals();
        self.probe.up_cnt = UNSET;
        self.pick_probe_wait();
        self.cycle_stamp = c.now;
        self.probe.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = c.delivered;
        self.set_phase(Phase::Down);
    }

    /// `bbr_start_bw_probe_cruise`.
    fn start_bw_probe_cruise(&mut self) {
        let b = &mut self.bounds;
        if b.inflight_lo != UNSET {
            b.inflight_lo = b.inflight_lo.min(b.inflight_hi);
        }
        self.set_phase(Phase::Cruise);
    }

    /// `bbr_raise_inflight_hi_slope`: each UP round doubles the growth.
    fn raise_inflight_hi_slope(&mut self, cwnd: u64) {
        let growth = 1u64 << self.probe.up_rounds;
        self.probe.up_rounds = (self.probe.up_rounds + 1).min(30);
        self.probe.up_cnt = (cwnd / growth).max(1);
    }

    /// `bbr_probe_inflight_hi_upward`: +1 per `up_cnt` segments ACKed while cwnd
    /// limited at `inflight_hi`.
    fn probe_inflight_hi_upward(&mut self, x: &Ctx) {
        if !x.c.is_cwnd_limited || x.cwnd < self.bounds.inflight_hi {
            return;
        }
        self.probe.up_acks += x.rs.acked_sacked;
        if self.probe.up_acks >= self.probe.up_cnt {
            let delta = self.probe.up_acks / self.probe.up_cnt;
            self.probe.up_acks -= delta * self.probe.up_cnt;
            self.bounds.inflight_hi += delta;
            self.try_fast_path = false;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(x.cwnd);
        }
    }

    /// `bbr_handle_inflight_too_high`: `inflight_hi` to the flight that lost too
    /// much (at least 70 % of the target), once per probe; UP ends.
    fn handle_inflight_too_high(&mut self, x: &Ctx) {
        self.probe.prev_too_high = true;
        self.probe.samples = false;
        if !x.rs.is_app_limited {
            let floor = (self.target_inflight(x.cwnd) * (BBR_UNIT - BETA)) >> BBR_SCALE;
            self.bounds.inflight_hi = x.rs.tx_in_flight.max(floor);
        }
        if self.mode == Mode::ProbeBw(Phase::Up) {
            self.start_bw_probe_down(x.c);
        }
    }

    /// `bbr_adapt_upper_bounds`: returns whether it decided a transition.
    fn adapt_upper_bounds(&mut self, x: &Ctx) -> bool {
        if self.probe.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.probe.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.probe.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.probe.samples = false;
            self.probe.ack_phase = AckPhase::Init;
            let probe_bw = matches!(self.mode, Mode::ProbeBw(_));
            if probe_bw && !x.rs.is_app_limited && self.bounds.bw_hi[1] != 0 {
                // bbr_advance_max_bw_filter
                self.bounds.bw_hi = [self.bounds.bw_hi[1], 0];
            }
            if probe_bw && self.probe.stopped_risky && !self.probe.prev_too_high {
                self.start_bw_probe_refill(x.c, 0);
                return true;
            }
        }
        if Self::is_inflight_too_high(x.rs) {
            if self.probe.samples {
                self.handle_inflight_too_high(x);
            }
            return false;
        }
        if self.bounds.inflight_hi == UNSET {
            return false;
        }
        self.bounds.inflight_hi = self.bounds.inflight_hi.max(x.rs.tx_in_flight);
        if self.mode == Mode::ProbeBw(Phase::Up) {
            self.probe_inflight_hi_upward(x);
        }
        false
    }

    /// `bbr_check_time_to_probe_bw` (the ECN re-probe needs ECN): after the random
    /// wall-clock wait or the Reno-coexistence rounds.
    fn check_time_to_probe_bw(&mut self, x: &Ctx) -> bool {
        let elapsed = x.c.now.saturating_since(self.cycle_stamp);
        let rounds = BW_PROBE_MAX_ROUNDS.min(self.target_inflight(x.cwnd));
        if us(elapsed) > self.probe.wait_us || self.probe.rounds_since >= rounds {
            self.start_bw_probe_refill(x.c, 0);
            return true;
        }
        false
    }

    /// `bbr_check_time_to_cruise`.
    fn check_time_to_cruise(&self, inflight: u64, bw: u64) -> bool {
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(bw, BBR_UNIT)
    }

    /// `bbr_update_cycle_phase`: DOWN -> CRUISE -> REFILL -> UP -> DOWN.
    fn update_cycle_phase(&mut self, x: &Ctx) {
        if !self.full_bw_reached || self.adapt_upper_bounds(x) {
            return;
        }
        let Mode::ProbeBw(phase) = self.mode else {
            return;
        };
        let inflight = self.packets_in_net_at_edt(x.rs.prior_in_flight, x.c);
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(x);
            }
            Phase::Refill => {
                if self.round_start {
                    self.probe.samples = true;
                    self.start_bw_probe_up(x);
                }
            }
            Phase::Up => self.check_probe_up_done(x, inflight),
            Phase::Down => {
                if !self.check_time_to_probe_bw(x)
                    && self.check_time_to_cruise(inflight, self.max_bw())
                {
                    self.start_bw_probe_cruise();
                }
            }
        }
    }

    /// PROBE_UP ends at a known-risky `inflight_hi` or on a bandwidth plateau while
    /// `inflight_hi` does not limit (the source's `case BBR_BW_PROBE_UP`).
    fn check_probe_up_done(&mut self, x: &Ctx, inflight: u64) {
        let mut done = false;
        if self.probe.prev_too_high && inflight >= self.bounds.inflight_hi {
            self.probe.stopped_risky = true;
            done = true;
        } else if x.c.is_cwnd_limited && x.cwnd >= self.bounds.inflight_hi {
            self.reset_full_bw();
            self.full_bw = x.sample_bw;
        } else if self.full_bw_now {
            done = true;
        }
        if done {
            self.probe.prev_too_high = false;
            self.start_bw_probe_down(x.c);
        }
    }
}

/// PROBE_RTT, gains, cwnd.
impl State {
    /// `bbr_exit_probe_rtt`: back to CRUISE (via DOWN's reset) or STARTUP.
    fn exit_probe_rtt(&mut self, c: &ConnView) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw(Phase::Down);
            self.start_bw_probe_down(c);
            self.start_bw_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_probe_rtt_done`.
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
        self.probe_rtt_min_stamp = jiffies(c.now);
        *cwnd = (*cwnd).max(self.prior_cwnd);
        self.exit_probe_rtt(c);
    }

    /// `bbr_update_min_rtt`: the 5 s `probe_rtt_min_us` filter feeds the 10 s
    /// `min_rtt`; PROBE_RTT once the 5 s one expires.
    fn update_min_rtt(&mut self, x: &mut Ctx) {
        let now_j = jiffies(x.c.now);
        let probe_expired = now_j > self.probe_rtt_min_stamp + PROBE_RTT_WIN_J;
        if let Some(rtt) = x.rs.rtt.map(us) {
            let lower = self.probe_rtt_min_us.is_none_or(|m| rtt < m);
            if lower || (probe_expired && !x.rs.is_ack_delayed) {
                self.probe_rtt_min_us = Some(rtt);
                self.probe_rtt_min_stamp = now_j;
            }
        }
        let min_expired = now_j > self.min_rtt_stamp + MIN_RTT_WIN_J;
        let probe_min = self.probe_rtt_min_us.unwrap_or(UNSET);
        if probe_min <= self.min_rtt_us.unwrap_or(UNSET) || min_expired {
            self.min_rtt_us = self.probe_rtt_min_us;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        let in_probe_rtt = matches!(self.mode, Mode::ProbeRtt { .. });
        if probe_expired && !self.idle_restart && !in_probe_rtt {
            self.mode = Mode::ProbeRtt {
                done_stamp: None,
                round_done: false,
            };
            self.save_cwnd(x.cwnd);
            self.probe.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = x.c.delivered;
        }
        self.hold_probe_rtt(x, now_j);
        if x.rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// In PROBE_RTT: app-limited samples, and inflight at most half the BDP for
    /// max(200 ms, a round).
    fn hold_probe_rtt(&mut self, x: &mut Ctx, now_j: u64) {
        let Mode::ProbeRtt {
            done_stamp,
            round_done,
        } = self.mode
        else {
            return;
        };
        x.app_limited = true;
        if done_stamp.is_none() && x.c.in_flight <= self.probe_rtt_cwnd() {
            self.mode = Mode::ProbeRtt {
                done_stamp: Some(now_j + PROBE_RTT_MODE_J),
                round_done: false,
            };
            self.next_rtt_delivered = x.c.delivered;
        } else if done_stamp.is_some() {
            let round_done = round_done || self.round_start;
            self.mode = Mode::ProbeRtt {
                done_stamp,
                round_done,
            };
            if round_done {
                let mut cwnd = x.cwnd;
                self.check_probe_rtt_done(x.c, &mut cwnd);
                x.cwnd = cwnd;
            }
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Mode::Drain => (DRAIN_GAIN, STARTUP_CWND_GAIN),
            Mode::ProbeBw(Phase::Up) => (
                Phase::Up.pacing_gain(),
                CWND_GAIN + BBR_UNIT * BW_PROBE_CWND_GAIN / 4,
            ),
            Mode::ProbeBw(p) => (p.pacing_gain(), CWND_GAIN),
            Mode::ProbeRtt { .. } => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_set_cwnd`: toward the target (bw x min_rtt x gain plus the aggregation
    /// allowance), down to it once the pipe was full; half the BDP in PROBE_RTT.
    fn set_cwnd(&mut self, x: &Ctx, bw: u64) -> u64 {
        let acked = x.rs.acked_sacked;
        let mut cwnd = x.cwnd;
        if acked > 0 {
            let target = self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd();
            let target = self.quantization_budget(target);
            self.try_fast_path = false;
            if self.full_bw_reached {
                cwnd += acked;
                if cwnd >= target {
                    cwnd = target;
                    self.try_fast_path = true;
                }
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            } else {
                self.try_fast_path = true;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        if matches!(self.mode, Mode::ProbeRtt { .. }) {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        cwnd
    }

    /// `bbr_bound_cwnd_for_inflight_model`.
    fn bound_cwnd(&self, cwnd: u64) -> u64 {
        if !self.initialized {
            return cwnd;
        }
        let cap = match self.mode {
            Mode::ProbeBw(Phase::Cruise) | Mode::ProbeRtt { .. } => self.inflight_with_headroom(),
            Mode::ProbeBw(_) => self.bounds.inflight_hi,
            _ => UNSET,
        };
        let cap = cap.min(self.bounds.inflight_lo).max(CWND_MIN_TARGET);
        cwnd.min(cap)
    }

    /// `bbr_update_model`.
    fn update_model(&mut self, x: &mut Ctx) {
        self.update_congestion_signals(x);
        self.update_ack_aggregation(x);
        self.check_loss_too_high_in_startup(x);
        self.check_full_bw_reached(x);
        self.check_drain(x);
        self.update_cycle_phase(x);
        self.update_min_rtt(x);
    }

    /// `bbr_run_fast_path`: an app-limited sample below the estimate, no loss:
    /// returns `Some(skip_model)` unless the full path must run, `None` to skip
    /// the control update too.
    fn run_fast_path(&mut self, x: &mut Ctx) -> Option<bool> {
        let eligible = self.try_fast_path
            && x.rs.is_app_limited
            && x.sample_bw < self.max_bw()
            && !self.loss.in_round;
        if !eligible {
            return Some(false);
        }
        let (mode, min_rtt) = (self.mode.id(), self.min_rtt_us);
        self.check_drain(x);
        self.update_cycle_phase(x);
        self.update_min_rtt(x);
        if self.mode.id() == mode && self.min_rtt_us == min_rtt && self.try_fast_path {
            return None;
        }
        Some(true)
    }

    /// `bbr_main`.
    fn main(&mut self, rs: &RateSample, c: &ConnView) -> Control {
        self.mss = c.mss;
        let mut cwnd = c.cwnd;
        if std::mem::take(&mut self.undo_pending) {
            cwnd = self.prior_cwnd;
        }
        if self.prev_ca_state == CaState::Loss && c.ca_state != CaState::Loss {
            // bbr_set_state leaving Loss: bbr_exit_loss_recovery.
            cwnd = cwnd.max(self.prior_cwnd);
            self.try_fast_path = false;
        }
        let mut x = Ctx {
            rs,
            c,
            sample_bw: Self::bw_sample(rs),
            cwnd,
            ssthresh: None,
            app_limited: false,
        };
        self.update_round_start(&x);
        if self.round_start {
            self.probe.rounds_since = (self.probe.rounds_since + 1).min(0xFF);
        }
        self.update_latest_delivery_signals(&x);
        if let Some(skip_model) = self.run_fast_path(&mut x) {
            if !skip_model {
                self.update_model(&mut x);
            }
            self.update_gains();
            let bw = self.bw();
            self.set_pacing_rate(bw, self.pacing_gain, c);
            x.cwnd = self.set_cwnd(&x, bw);
            x.cwnd = self.bound_cwnd(x.cwnd);
        }
        self.advance_latest_delivery_signals(&x);
        self.prev_ca_state = c.ca_state;
        self.loss.in_cycle |= rs.lost > 0;
        Control {
            cwnd: x.cwnd,
            ssthresh: x.ssthresh,
            mark_app_limited: x.app_limited,
        }
    }
}

impl CongestionControl for Bbr3 {
    /// Not called for growth: [`Self::on_cong_control`] sets cwnd on every ACK.
    fn on_ack(&mut self, ack: &super::AckSample) -> u64 {
        ack.w.cwnd
    }

    /// `bbr_ssthresh`: entering recovery saves cwnd and the bounds for an undo.
    fn on_congestion_event(&mut self, w: &CwndView) {
        self.save_cwnd(w.cwnd / w.mss);
        self.undo = UndoBounds {
            bw_lo: self.bounds.bw_lo,
            inflight_lo: self.bounds.inflight_lo,
            inflight_hi: self.bounds.inflight_hi,
        };
    }

    /// `bbr_undo_cwnd`: full-bandwidth detection reset, this round's loss forgotten,
    /// each bound at least what it was before the episode, cwnd back to the saved one.
    fn on_undo(&mut self, _w: &CwndView) {
        self.reset_full_bw();
        self.loss.in_round = false;
        let u = self.undo;
        let b = &mut self.bounds;
        b.bw_lo = b.bw_lo.max(u.bw_lo);
        b.inflight_lo = b.inflight_lo.max(u.inflight_lo);
        b.inflight_hi = b.inflight_hi.max(u.inflight_hi);
        self.try_fast_path = false;
        self.undo_pending = true;
    }

    fn controls_cwnd(&self) -> bool {
        true
    }

    /// `bbr_init`.
    fn on_init(&mut self, c: &ConnView, rng: &super::CcRandom) {
        let now_j = jiffies(c.now);
        *self.0 = State {
            initialized: true,
            init_cwnd: c.cwnd.min(0x7F),
            mss: c.mss,
            next_rtt_delivered: c.delivered,
            min_rtt_us: c.min_rtt.map(us),
            min_rtt_stamp: now_j,
            probe_rtt_min_us: c.min_rtt.map(us),
            probe_rtt_min_stamp: now_j,
            aggr: AckAggregation::starting(c.now),
            loss: LossRound {
                // "Start sampling ECN mark rate after first full flight is ACKed".
                delivered: c.delivered + 1,
                ..LossRound::default()
            },
            rng: Box::new(rng.stream.clone()),
            ..State::default()
        };
        self.init_pacing_rate_from_rtt(c);
    }

    fn on_cong_control(&mut self, rs: &RateSample, c: &ConnView) -> Control {
        self.main(rs, c)
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)`.
    fn on_tx_start(&mut self, c: &ConnView, app_limited: bool) -> u64 {
        let mut cwnd = c.cwnd;
        if !app_limited {
            return cwnd;
        }
        self.idle_restart = true;
        self.aggr.restart_epoch(c.now);
        match self.mode {
            Mode::ProbeBw(_) => {
                let bw = self.bw();
                self.set_pacing_rate(bw, BBR_UNIT, c)
            }
            Mode::ProbeRtt { .. } => self.check_probe_rtt_done(c, &mut cwnd),
            _ => {}
        }
        cwnd
    }

    /// `bbr_set_state(TCP_CA_Loss)`: full bandwidth measured afresh; outside
    /// probing, `inflight_lo` starts from the cwnd before the timeout.
    fn on_enter_loss(&mut self, c: &ConnView) {
        self.prev_ca_state = CaState::Loss;
        self.reset_full_bw();
        if !self.is_probing_bandwidth() && self.bounds.inflight_lo == UNSET {
            self.bounds.inflight_lo = c.cwnd.max(self.prior_cwnd);
        }
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.pacing_rate
    }

    fn estimates(&self) -> Option<super::ModelEstimates> {
        Some(super::ModelEstimates {
            bw: self.bandwidth(),
            min_rtt: self.min_rtt(),
            pacing_rate: self.pacing_rate.unwrap_or(0),
        })
    }
}

impl Declared for Bbr3 {
    const LINUX_MODULE: Option<&'static str> = Some("bbr3");
}

/// Why `spikelab emulate` refuses the controller.
pub const NO_KERNEL: &str = "no kernel here runs BBRv3: it lives on google/bbr's v3 branch, not in mainline Linux (whose `bbr` is v1); spikelab's bbr3 is checked against that source, not a kernel";

impl Exports for Bbr3 {
    fn ns2(&self) -> Ns2Export {
        Ns2Export::Refused {
            field: None,
            why: "ns-2.35's 2002 agents have neither delivery-rate sampling nor pacing",
        }
    }
    fn kernel(&self) -> Kernel {
        Kernel::Nothing(NO_KERNEL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(v: u64) -> Time {
        Time::ZERO + Dur::from_millis(v)
    }

    fn view(now: Time, cwnd: u64, delivered: u64) -> ConnView {
        ConnView {
            now,
            mss: MSS,
            cwnd,
            in_flight: 0,
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

    /// A flow driven one ACK per 100 ms round, each ACK delivering its round.
    struct Flow {
        b: Bbr3,
        t: u64,
        delivered: u64,
        cwnd: u64,
    }

    impl Flow {
        fn new() -> Flow {
            let mut b = Bbr3::default();
            b.on_init(
                &view(ms(0), 10, 0),
                &RngStreams::new(7).stream("t", 0).into(),
            );
            Flow {
                b,
                t: 0,
                delivered: 0,
                cwnd: 10,
            }
        }

        /// One round's ACK: `n` segments delivered over 100 ms, `losses` newly marked,
        /// `lost` of the sampled flight `tx_in_flight`.
        fn ack_with(&mut self, n: u64, losses: u64, lost: u64, tx_in_flight: u64) -> Control {
            self.t += 100;
            let rs = RateSample {
                prior_delivered: self.delivered,
                delivered: Some(n),
                interval: Some(Dur::from_millis(100)),
                acked_sacked: n,
                losses,
                lost,
                tx_in_flight,
                prior_in_flight: n,
                rtt: Some(Dur::from_millis(100)),
                ..RateSample::default()
            };
            self.delivered += n;
            let c = self
                .b
                .on_cong_control(&rs, &view(ms(self.t), self.cwnd, self.delivered));
            self.cwnd = c.cwnd;
            c
        }

        fn ack(&mut self) -> Control {
            self.ack_with(10, 0, 0, 10)
        }

        /// ACKs until the mode is `m` (at most `max`); panics otherwise.
        fn until(&mut self, m: Mode, max: usize) {
            for _ in 0..max {
                self.ack();
                if self.b.mode() == m {
                    return;
                }
            }
            panic!("never reached {m:?}: {:?}", self.b.mode());
        }
    }

    #[test]
    fn startup_drains_then_probe_bw_cycles_down_cruise_refill_up_down() {
        let mut f = Flow::new();
        let mut seen = vec![f.b.mode()];
        for _ in 0..40 {
            f.ack();
            if seen.last() != Some(&f.b.mode()) {
                seen.push(f.b.mode());
            }
        }
        use Phase::*;
        let want = [
            Mode::Startup,
            Mode::ProbeBw(Down),
            Mode::ProbeBw(Cruise),
            Mode::ProbeBw(Refill),
            Mode::ProbeBw(Up),
            Mode::ProbeBw(Down),
        ];
        assert_eq!(&seen[..want.len()], &want, "{seen:?}");
        // 10 segments per 100 ms: 100 kB/s (the sample is rounded up in BW_SCALE).
        assert!(
            (100_000..=100_100).contains(&f.b.bandwidth()),
            "{}",
            f.b.bandwidth()
        );
    }

    #[test]
    fn a_lossy_round_while_cruising_cuts_the_lower_bounds_to_70_percent_not_below_delivery() {
        let mut f = Flow::new();
        f.until(Mode::ProbeBw(Phase::Cruise), 30);
        let max_bw = f.b.max_bw();
        assert_eq!(f.b.bounds().bw_lo, UNSET);
        let cwnd = f.cwnd;
        f.ack_with(5, 0, 0, 10);
        f.ack_with(5, 2, 2, 10);
        let b = f.b.bounds();
        // bw_lo = max(bw_latest = 5 segments / 100 ms, 0.7 x max_bw).
        assert_eq!(b.bw_lo, (max_bw * 180) >> 8);
        assert_eq!(b.inflight_lo, 5u64.max((cwnd * 180) >> 8));
        assert_eq!(f.b.bw(), b.bw_lo, "the estimate is min(bw_hi, bw_lo)");
        // Not while probing: REFILL resets the lower bounds.
        f.until(Mode::ProbeBw(Phase::Refill), 30);
        assert_eq!(
            (f.b.bounds().bw_lo, f.b.bounds().inflight_lo),
            (UNSET, UNSET)
        );
    }

    #[test]
    fn an_undo_restores_the_bounds_saved_when_recovery_began_and_the_saved_cwnd() {
        let mut f = Flow::new();
        f.until(Mode::ProbeBw(Phase::Cruise), 30);
        let before = f.b.bounds();
        let saved = f.cwnd;
        f.b.on_congestion_event(&CwndView {
            cwnd: saved * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        });
        f.ack_with(5, 0, 0, 10);
        f.ack_with(5, 2, 2, 10);
        assert!(f.b.bounds().bw_lo < before.bw_lo);
        f.cwnd = 4;
        f.b.on_undo(&CwndView {
            cwnd: 4 * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        });
        let after = f.b.bounds();
        assert_eq!(
            (after.bw_lo, after.inflight_lo, after.inflight_hi),
            (before.bw_lo, before.inflight_lo, before.inflight_hi)
        );
        assert_eq!(
            (f.b.full_bw, f.b.full_bw_cnt, f.b.full_bw_now),
            (0, 0, false)
        );
        // bbr_undo_cwnd returns prior_cwnd: the next ACK starts from it, not from 4.
        let c = f.ack_with(10, 0, 0, 10);
        assert!(
            c.cwnd >= saved.min(f.b.bound_cwnd(u64::MAX)),
            "{} < {saved}",
            c.cwnd
        );
    }

    #[test]
    fn too_much_loss_while_probing_up_sets_inflight_hi_to_the_flight_and_ends_the_probe() {
        let mut f = Flow::new();
        f.until(Mode::ProbeBw(Phase::Up), 40);
        assert_eq!(f.b.bounds().inflight_hi, UNSET);
        // 3 of a flight of 20 lost: above 2 %.
        f.ack_with(10, 3, 3, 20);
        assert_eq!(f.b.bounds().inflight_hi, 20);
        assert_eq!(f.b.mode(), Mode::ProbeBw(Phase::Down));
        assert!(f.b.probe.prev_too_high);
        // 2 % or less is no signal: 0 of 20 (20 x 5 / 256 = 0).
        assert!(!State::is_inflight_too_high(&RateSample {
            lost: 0,
            tx_in_flight: 20,
            ..RateSample::default()
        }));
    }

    #[test]
    fn probe_rtt_comes_after_5_s_without_a_lower_rtt_at_half_the_bdp() {
        let mut f = Flow::new();
        let mut entered = None;
        for _ in 0..60 {
            let c = f.ack();
            if matches!(f.b.mode(), Mode::ProbeRtt { .. }) {
                entered.get_or_insert((f.t, c.cwnd, c.mark_app_limited));
            }
        }
        let (at, cwnd, app_limited) = entered.expect("PROBE_RTT");
        assert!((5_000..=5_100).contains(&at), "{at}");
        // bw 10 per 100 ms x min_rtt 100 ms x 0.5 = 5, rounded up twice (the
        // sample in bbr_calculate_bw_sample, the BDP in bbr_bdp): 6.
        assert_eq!(cwnd, 6);
        assert_eq!(cwnd, f.b.probe_rtt_cwnd());
        assert!(app_limited);
        // v1's window is 10 s (in ms here): its PROBE_RTT would not have started yet.
        assert!(at < MIN_RTT_WIN_J * 1000 / crate::linux_timer_wheel::HZ);
    }

    #[test]
    fn a_timeout_resets_full_bandwidth_detection_and_seeds_inflight_lo_outside_probing() {
        let mut f = Flow::new();
        f.until(Mode::ProbeBw(Phase::Cruise), 30);
        f.b.on_congestion_event(&CwndView {
            cwnd: 30 * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        });
        f.b.on_enter_loss(&view(ms(f.t), 1, f.delivered));
        assert_eq!(f.b.bounds().inflight_lo, 30);
        assert_eq!(f.b.prev_ca_state, CaState::Loss);
        assert_eq!(f.b.full_bw, 0);
    }

    #[test]
    fn the_kernel_refuses_it_plainly() {
        match Bbr3::default().kernel() {
            Kernel::Nothing(why) => assert!(why.contains("no kernel here runs BBRv3")),
            k => panic!("{k:?}"),
        }
    }
}
