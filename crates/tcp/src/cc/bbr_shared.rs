//! What BBR v1 (`cc/bbr.rs`) and BBRv3 (`cc/bbr3.rs`) of Linux's
//! net/ipv4/tcp_bbr.c have in common, written once: the fixed-point units and the
//! tunables both versions give the same value, and the formulas both compute the same
//! way (each named after its kernel function). Where the versions differ (a margin, a
//! floor, the window of the ACK-aggregation filter) the caller passes it in. Neither
//! controller imports the other; both import this.

use super::{CaState, ConnView};
use crate::linux_timer_wheel::{msecs_to_jiffies, HZ};
use spikelab_core::{Dur, Time};

/// `BBR_SCALE`, `BBR_UNIT`: gains in units of 1/256.
pub(super) const BBR_SCALE: u32 = 8;
pub(super) const BBR_UNIT: u64 = 1 << BBR_SCALE;
/// `BW_SCALE`, `BW_UNIT`: bandwidth in packets per microsecond, scaled by 2^24.
pub(super) const BW_SCALE: u32 = 24;
pub(super) const BW_UNIT: u64 = 1 << BW_SCALE;
/// `bbr_cwnd_gain` (2) and `bbr_drain_gain` (1/2.885).
pub(super) const CWND_GAIN: u64 = BBR_UNIT * 2;
pub(super) const DRAIN_GAIN: u64 = BBR_UNIT * 1000 / 2885;
/// `bbr_cwnd_min_target`.
pub(super) const CWND_MIN_TARGET: u64 = 4;
/// `bbr_full_bw_thresh` (x1.25) and `bbr_full_bw_cnt` (3 rounds).
pub(super) const FULL_BW_THRESH: u64 = BBR_UNIT * 5 / 4;
pub(super) const FULL_BW_CNT: u8 = 3;
/// `bbr_extra_acked_gain`, `bbr_extra_acked_win_rtts`,
/// `bbr_ack_epoch_acked_reset_thresh`, `bbr_extra_acked_max_us`.
pub(super) const EXTRA_ACKED_GAIN: u64 = BBR_UNIT;
pub(super) const EXTRA_ACKED_WIN_RTTS: u8 = 5;
pub(super) const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
pub(super) const EXTRA_ACKED_MAX_US: u64 = 100 * 1000;
/// `bbr_min_rtt_win_sec` (10 s) and `bbr_probe_rtt_mode_ms` (200 ms), in jiffies of
/// 1/HZ s as `bbr_update_min_rtt` counts them: `bbr_min_rtt_win_sec * HZ` (2500) and
/// `msecs_to_jiffies(bbr_probe_rtt_mode_ms)` (50 at HZ = 250).
pub(super) const MIN_RTT_WIN_J: u64 = 10 * HZ;
pub(super) const PROBE_RTT_MODE_J: u64 = msecs_to_jiffies(200);
/// The pacing rate's margin below the bandwidth estimate (`bbr_pacing_margin_percent`).
pub(super) const PACING_MARGIN_PERCENT: u64 = 1;
/// `sk_pacing_shift` (10: about 1 ms of data per TSO burst).
pub(super) const PACING_SHIFT: u32 = 10;

/// Microseconds (the kernel's `tcp_mstamp` unit).
pub(super) fn us(d: Dur) -> u64 {
    d.0 / 1000
}

/// `tcp_jiffies32`: the timer wheel's jiffies (1/HZ s, HZ = 250, time 0 at jiffy 0),
/// the clock of `min_rtt_stamp`, `probe_rtt_min_stamp` and `probe_rtt_done_stamp`.
pub(super) use crate::linux_timer_wheel::jiffies;

/// `bbr_rate_bytes_per_sec`: `rate` (packets per microsecond << 24) with `gain`, in
/// bytes per second, `margin` percent below.
pub(super) fn rate_bytes_per_sec(rate: u64, mss: u64, gain: u64, margin: u64) -> u64 {
    let r = ((rate * mss * gain) >> BBR_SCALE) * (1_000_000 / 100) * (100 - margin);
    r >> BW_SCALE
}

/// `bbr_init_pacing_rate_from_rtt`'s bandwidth: cwnd over srtt (1 ms without one),
/// and whether an RTT was seen.
pub(super) fn bw_from_rtt(c: &ConnView) -> (u64, bool) {
    let (rtt_us, seen) = match c.srtt {
        Some(s) => (us(s).max(1), true),
        None => (1000, false),
    };
    (c.cwnd * BW_UNIT / rtt_us, seen)
}

/// `bbr_save_cwnd`: the last good cwnd, kept through recovery and PROBE_RTT.
pub(super) fn saved_cwnd(prior: u64, cwnd: u64, prev_ca_state: CaState, probe_rtt: bool) -> u64 {
    if prev_ca_state < CaState::Recovery && !probe_rtt {
        cwnd
    } else {
        prior.max(cwnd)
    }
}

/// `bbr_bdp`: ceil(bw x min_rtt x gain), or `None` before any RTT.
pub(super) fn bdp(bw: u64, min_rtt_us: Option<u64>, gain: u64) -> Option<u64> {
    min_rtt_us.map(|m| ((bw * m * gain) >> BBR_SCALE).div_ceil(BW_UNIT))
}

/// `bbr_packets_in_net_at_edt`: inflight less what the path delivers at `bw` until the
/// next segment's earliest departure time, plus a TSO burst (`tso_segs`) while the
/// pacing gain is above 1.
pub(super) fn packets_in_net_at_edt(
    inflight_now: u64,
    bw: u64,
    pacing_gain: u64,
    tso_segs: u64,
    c: &ConnView,
) -> u64 {
    let interval_us = us(c.wstamp.max(c.now).saturating_since(c.now));
    let interval_delivered = (bw * interval_us) >> BW_SCALE;
    let mut at_edt = inflight_now;
    if pacing_gain > BBR_UNIT {
        at_edt += tso_segs;
    }
    at_edt.saturating_sub(interval_delivered)
}

/// ACK-aggregation estimate (`ack_epoch_*`, `extra_acked*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckAggregation {
    epoch_stamp: Time,
    epoch_acked: u64,
    extra_acked: [u64; 2],
    win_rtts: u8,
    win_idx: usize,
}

impl AckAggregation {
    /// `bbr_update_ack_aggregation`'s estimate: data ACKed beyond `bw` x time in an
    /// epoch, the max over a filter window that moves every `win_rtts` rounds.
    pub(super) fn update(
        &mut self,
        round_start: bool,
        win_rtts: u8,
        bw: u64,
        acked: u64,
        c: &ConnView,
    ) {
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1F);
            if self.win_rtts >= win_rtts {
                self.win_rtts = 0;
                self.win_idx ^= 1;
                self.extra_acked[self.win_idx] = 0;
            }
        }
        let epoch_us = us(c.delivered_mstamp.saturating_since(self.epoch_stamp));
        let mut expected = bw * epoch_us / BW_UNIT;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.epoch_acked = 0;
            self.epoch_stamp = c.delivered_mstamp;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(0xFFFFF);
        let extra = (self.epoch_acked - expected).min(c.cwnd);
        self.extra_acked[self.win_idx] = self.extra_acked[self.win_idx].max(extra);
    }

    /// The estimate of a connection whose first epoch starts at `now` (`bbr_init`).
    pub(super) fn starting(now: Time) -> AckAggregation {
        AckAggregation {
            epoch_stamp: now,
            ..AckAggregation::default()
        }
    }

    /// A new ACK epoch at `now` (`bbr_cwnd_event` on restarting from idle).
    pub(super) fn restart_epoch(&mut self, now: Time) {
        self.epoch_stamp = now;
        self.epoch_acked = 0;
    }

    /// `bbr_ack_aggregation_cwnd`'s room: the filtered extra, at most 100 ms at `bw`.
    pub(super) fn cwnd(&self, bw: u64) -> u64 {
        let max_aggr = bw * EXTRA_ACKED_MAX_US / BW_UNIT;
        let extra = self.extra_acked[0].max(self.extra_acked[1]);
        ((EXTRA_ACKED_GAIN * extra) >> BBR_SCALE).min(max_aggr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tcp_bbr.c `bbr_save_cwnd`: outside recovery and PROBE_RTT the cwnd is saved as
    /// it is; inside, only a larger one replaces the saved one.
    #[test]
    fn the_saved_cwnd_only_grows_in_recovery_or_probe_rtt() {
        assert_eq!(saved_cwnd(50, 20, CaState::Open, false), 20);
        assert_eq!(saved_cwnd(50, 20, CaState::Recovery, false), 50);
        assert_eq!(saved_cwnd(50, 80, CaState::Loss, false), 80);
        assert_eq!(saved_cwnd(50, 20, CaState::Open, true), 50);
    }

    /// `bbr_bdp`: ceil(bw x min_rtt x gain / BW_UNIT / BBR_UNIT); none before an RTT.
    #[test]
    fn the_bdp_rounds_up_and_waits_for_an_rtt() {
        let bw = BW_UNIT / 100; // 0.01 packets per us
        assert_eq!(bdp(bw, None, BBR_UNIT), None);
        assert_eq!(bdp(bw, Some(10_000), BBR_UNIT), Some(100));
        assert_eq!(bdp(bw, Some(10_050), BBR_UNIT), Some(101));
        assert_eq!(bdp(bw, Some(10_000), CWND_GAIN), Some(200));
    }

    /// `bbr_rate_bytes_per_sec`: 1 one-byte packet per microsecond is 1 MB/s; the margin
    /// takes 1 % off, the gain multiplies.
    #[test]
    fn a_rate_in_bytes_per_second_keeps_the_margin_below() {
        let one = BBR_UNIT;
        assert_eq!(rate_bytes_per_sec(BW_UNIT, 1, one, 0), 1_000_000);
        assert_eq!(
            rate_bytes_per_sec(BW_UNIT, 1, one, PACING_MARGIN_PERCENT),
            990_000
        );
        assert_eq!(rate_bytes_per_sec(BW_UNIT, 1, 2 * one, 0), 2_000_000);
    }
}
