//! Restoring the congestion-control state after a spurious timeout.
//!
//! [Gurtov & Ludwig 2003] III.B lists the options of the original Eifel paper
//! (Ludwig and Katz 2000) and adds a fourth:
//!
//! 1. ssthresh = ssthresh_old, cwnd = cwnd_old
//! 2. ssthresh = cwnd_old / 2, cwnd = ssthresh
//! 3. ssthresh = cwnd_old / 2, cwnd = 1 (in segments)
//! 4. ssthresh = cwnd_old, cwnd = ssthresh
//!
//! "The first option was used only after a single spurious timeout. The second option
//! was used after two subsequent timeouts, and the third option was used after three or
//! more timeouts" (III.B): that count-based rule is [`Restore::EifelOriginal`].
//! [Gurtov & Ludwig 2002] 3 describes the same response otherwise: after one timeout
//! ssthresh and cwnd are restored; after two "the slow start threshold is set to the
//! previous value of congestion window, which itself is left halved" (ssthresh =
//! cwnd_old, cwnd = cwnd_old / 2); "after three and more subsequent spurious timeouts
//! the congestion control state is not reversed at all". That is [`Restore::Eifel2002`]
//! (docs/src/reproduction-gprs-eifel.md: the two readings of the 2002 paper). RFC 4015
//! section 3.1 step (4) restores cwnd = FlightSize + min(bytes_acked, IW) and ssthresh =
//! pipe_prev, with pipe_prev = max(FlightSize, ssthresh) saved before the timeout
//! reduced them.
//!
//! The halvings floor at 2 SMSS (RFC 5681 equation (4)).

use crate::exports::{Exports, Kernel, Ns2Export};
use serde::{Deserialize, Serialize};

/// Which restoration rule applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Restore {
    /// Options 1, 2, 3 by the number of timeouts in the episode (1, 2, 3+).
    EifelOriginal,
    /// [Gurtov & Ludwig 2002] 3 by the number of timeouts in the episode: option 1
    /// after one; after two ssthresh = cwnd_old and cwnd = cwnd_old / 2; after three
    /// or more nothing reversed.
    Eifel2002,
    Option1,
    Option2,
    Option3,
    Option4,
    /// RFC 4015 section 3.1 step (4).
    Rfc4015,
    /// Leave ssthresh and cwnd as the timeout set them.
    None,
    /// The Linux kernel's `tcp_undo_cwnd_reduction` (net/ipv4/tcp_input.c) with Reno's
    /// `tcp_reno_undo_cwnd`: cwnd = max(cwnd, prior_cwnd), ssthresh = max(ssthresh,
    /// prior_ssthresh), where `tcp_enter_loss` saved prior_cwnd = cwnd and
    /// prior_ssthresh = `tcp_current_ssthresh` = max(ssthresh, 3/4 cwnd) (in whole
    /// segments, `(cwnd >> 1) + (cwnd >> 2)`).
    LinuxUndo,
}

impl Restore {
    /// Every rule, in declaration order.
    pub const ALL: &'static [Restore] = &[
        Restore::EifelOriginal,
        Restore::Eifel2002,
        Restore::Option1,
        Restore::Option2,
        Restore::Option3,
        Restore::Option4,
        Restore::Rfc4015,
        Restore::None,
        Restore::LinuxUndo,
    ];
}

/// ns-2.35 restores only by `TcpAgent::spurious_timeout()` (tcp/tcp.cc), called by its
/// F-RTO agents alone: `ssthresh_ = pipe_prev_` and, by `spurious_response_`, `cwnd_ =
/// t_seqno_ - prev_highest_ack_` (1), `ssthresh_` (2) or 1 (3). Response 1, the 2002
/// value, is what spikelab's ns-2 F-RTO agents run in place of `restore`
/// (`Ns2Switches::frto_spurious_response_1`); 2 and 3 halve from the reduced ssthresh
/// or slow-start from one packet and match none of these rules.
impl Exports for Restore {
    fn ns2(&self) -> Ns2Export {
        match self {
            Restore::EifelOriginal => Ns2Export::Native(
                "the default rule: ns-2.35's F-RTO agents restore by spurious_response_ 1 \
                 in its place, as spikelab's ns-2 agents do (ns2.frto_spurious_response_1)",
            ),
            _ => Ns2Export::Refused {
                field: Some("restore"),
                why: "ns-2.35 restores only by spurious_response_ (tcp.cc spurious_timeout(): \
                      ssthresh_ = pipe_prev_, cwnd_ = the packets outstanding, ssthresh_ or 1), \
                      which ns2.frto_spurious_response_1 models; no rule of its matches this one",
            },
        }
    }
    fn kernel(&self) -> Kernel {
        match self {
            Restore::LinuxUndo => Kernel::Nothing(
                "the kernel's own undo (tcp_undo_cwnd_reduction): no sysctl selects it",
            ),
            _ => Kernel::Nothing(
                "the kernel restores by its own undo (tcp_undo_cwnd_reduction); no sysctl \
                 selects another rule",
            ),
        }
    }
}

/// The congestion state saved when an episode's first timeout fired, before reducing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// RFC 4015 step (0): pipe_prev = max(FlightSize, ssthresh).
    pub pipe_prev: u64,
}

/// What the sender knows when it applies the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestoreInputs {
    pub mss: u64,
    /// Timeouts in the episode (1 for a single timeout).
    pub timeouts: u32,
    /// FlightSize after the ACK that revealed the spurious timeout.
    pub flight_size: u64,
    /// Bytes that ACK acknowledged.
    pub bytes_acked: u64,
    /// The initial window in bytes (RFC 4015's IW).
    pub initial_window: u64,
    /// ssthresh and cwnd as they are now (for [`Restore::None`]).
    pub ssthresh_now: u64,
    pub cwnd_now: u64,
}

/// The restored (ssthresh, cwnd), a pure function of the rule and the inputs.
pub fn restore(rule: Restore, old: Snapshot, i: RestoreInputs) -> (u64, u64) {
    let half = (old.cwnd / 2).max(2 * i.mss);
    match rule {
        Restore::EifelOriginal => match i.timeouts {
            0 | 1 => restore(Restore::Option1, old, i),
            2 => restore(Restore::Option2, old, i),
            _ => restore(Restore::Option3, old, i),
        },
        Restore::Eifel2002 => match i.timeouts {
            0 | 1 => restore(Restore::Option1, old, i),
            2 => (old.cwnd, half),
            _ => restore(Restore::None, old, i),
        },
        Restore::Option1 => (old.ssthresh, old.cwnd),
        Restore::Option2 => (half, half),
        Restore::Option3 => (half, i.mss),
        Restore::Option4 => (old.cwnd, old.cwnd),
        Restore::Rfc4015 => (
            old.pipe_prev,
            i.flight_size + i.bytes_acked.min(i.initial_window),
        ),
        Restore::None => (i.ssthresh_now, i.cwnd_now),
        Restore::LinuxUndo => {
            let c = old.cwnd / i.mss;
            let prior_ssthresh = old.ssthresh.max(((c >> 1) + (c >> 2)) * i.mss);
            (i.ssthresh_now.max(prior_ssthresh), i.cwnd_now.max(old.cwnd))
        }
    }
}

/// The state ns-2.35's `TcpAgent::spurious_timeout()` reads for `spurious_response_` 1
/// (switch `Ns2Switches::frto_spurious_response_1`), kept in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2SpuriousResponse {
    /// `pipe_prev_`, set by `TcpAgent::timeout()` at every expiry.
    pipe_prev: u64,
    /// `prev_highest_ack_` as snd_una: set by `TcpAgent::newack()` to the cumulative
    /// ACK point before the last new ACK.
    prev_una: u64,
}

impl Ns2SpuriousResponse {
    /// `TcpAgent::timeout()`, before `slowdown()`: `pipe_prev_ = (window() >
    /// ssthresh_) ? window() : ssthresh_`, `window()` = min(cwnd_, wnd_) in whole packets.
    pub fn on_timeout(&mut self, cwnd: u64, rwnd: u64, ssthresh: u64, mss: u64) {
        let window = cwnd.min(rwnd) / mss * mss;
        self.pipe_prev = window.max(ssthresh);
    }

    /// `TcpAgent::newack()`: `prev_highest_ack_ = highest_ack_` before the new ACK.
    pub fn on_new_ack(&mut self, snd_una_before: u64) {
        self.prev_una = snd_una_before;
    }

    /// `TcpAgent::spurious_timeout()`, case 1: (ssthresh, cwnd) = (`pipe_prev_`,
    /// `t_seqno_ - prev_highest_ack_`). ns-2 numbers packets from `highest_ack_` (the
    /// last one acknowledged), so the difference is the data outstanding from
    /// prev_una up to `snd_nxt` plus one packet.
    pub fn response(&self, snd_nxt: u64, mss: u64) -> (u64, u64) {
        (self.pipe_prev, snd_nxt - self.prev_una + mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: Snapshot = Snapshot {
        cwnd: 20_000,
        ssthresh: 64_000,
        pipe_prev: 64_000,
    };

    fn inputs(timeouts: u32) -> RestoreInputs {
        RestoreInputs {
            mss: 1000,
            timeouts,
            flight_size: 18_000,
            bytes_acked: 1000,
            initial_window: 2000,
            ssthresh_now: 10_000,
            cwnd_now: 2000,
        }
    }

    #[test]
    fn each_option_gives_its_formulas_values() {
        let cases = [
            (Restore::Option1, (64_000, 20_000)),
            (Restore::Option2, (10_000, 10_000)),
            (Restore::Option3, (10_000, 1000)),
            (Restore::Option4, (20_000, 20_000)),
            // pipe_prev; FlightSize 18000 + min(1000, 2000).
            (Restore::Rfc4015, (64_000, 19_000)),
            (Restore::None, (10_000, 2000)),
            // max(10000, max(64000, 15 segments)); max(2000, 20000).
            (Restore::LinuxUndo, (64_000, 20_000)),
        ];
        for (rule, want) in cases {
            assert_eq!(restore(rule, OLD, inputs(1)), want, "{rule:?}");
        }
    }

    #[test]
    fn original_eifel_picks_the_option_by_the_number_of_timeouts() {
        assert_eq!(
            restore(Restore::EifelOriginal, OLD, inputs(1)),
            (64_000, 20_000)
        );
        assert_eq!(
            restore(Restore::EifelOriginal, OLD, inputs(2)),
            (10_000, 10_000)
        );
        assert_eq!(
            restore(Restore::EifelOriginal, OLD, inputs(3)),
            (10_000, 1000)
        );
        assert_eq!(
            restore(Restore::EifelOriginal, OLD, inputs(7)),
            (10_000, 1000)
        );
    }

    #[test]
    fn the_2002_rule_keeps_the_old_window_as_ssthresh_after_two_timeouts() {
        assert_eq!(
            restore(Restore::Eifel2002, OLD, inputs(1)),
            (64_000, 20_000)
        );
        // ssthresh = cwnd_old, cwnd = cwnd_old / 2 (option 2 would give both 10000).
        assert_eq!(
            restore(Restore::Eifel2002, OLD, inputs(2)),
            (20_000, 10_000)
        );
        // As the timeouts left them.
        assert_eq!(restore(Restore::Eifel2002, OLD, inputs(3)), (10_000, 2000));
    }

    #[test]
    fn ns2_response_1_reverts_to_the_flight_before_the_last_new_ack_plus_one() {
        let mut n = Ns2SpuriousResponse::default();
        // Timeout with cwnd 13.8 packets, wnd_ 20, ssthresh_ 5: window() = 13.
        n.on_timeout(13_800, 20_000, 5000, 1000);
        n.on_new_ack(100_000);
        // t_seqno_ 114 packets past prev_highest_ack_: cwnd_ = 15 (14 + 1).
        assert_eq!(n.response(114_000, 1000), (13_000, 15_000));
    }

    #[test]
    fn ns2_pipe_prev_is_taken_at_every_expiry_and_bounded_by_the_advertised_window() {
        let mut n = Ns2SpuriousResponse::default();
        n.on_timeout(30_000, 8000, 2000, 1000);
        assert_eq!(n.response(0, 1000).0, 8000);
        // The second expiry of an episode: cwnd 1 packet, ssthresh halved to 4.
        n.on_timeout(1000, 8000, 4000, 1000);
        assert_eq!(n.response(0, 1000).0, 4000);
    }

    #[test]
    fn halving_a_tiny_window_floors_at_two_segments() {
        let tiny = Snapshot {
            cwnd: 2000,
            ssthresh: 64_000,
            pipe_prev: 64_000,
        };
        assert_eq!(restore(Restore::Option2, tiny, inputs(1)), (2000, 2000));
    }
}
