//! The Linux receiver's own RTT estimate from its handshake: what the passive side's
//! `icsk_rto` and `srtt_us` are once the ACK of its SYN-ACK arrives. Its delayed-ACK
//! clock reads both ([`crate::linux_receiver`]: the RTO decides whether a gap between
//! segments re-enters quick-ACK mode, the smoothed RTT bounds `ato`).
//!
//! The ACK completing the handshake (the bare third segment, or the first data segment
//! when that was lost) gives one sample, in this order (Linux 6.x):
//!
//! 1. `tcp_check_req` -> `tcp_synack_rtt_meas(child, req)`: the time since the SYN-ACK
//!    went out, if it went out once (`!req->num_retrans`: Karn; answering a
//!    retransmitted SYN, `inet_rtx_syn_ack`, counts as a retransmission);
//! 2. else `tcp_rcv_state_process` (`TCP_SYN_RECV`: `if (!tp->srtt_us)
//!    tcp_synack_rtt_meas(sk, req)` with no request, so `tcp_ack_update_rtt` falls to
//!    its RTTM rule): with timestamps, the ACK's TSecr against the TS clock,
//!    `tcp_rtt_tsopt_us(tp, 1)`: whole ticks, at least one;
//! 3. else none: `tcp_init_metrics` sets the RTO to `TCP_TIMEOUT_FALLBACK` (3 s) with
//!    no smoothed RTT (no cached metrics: each emulated run is a fresh host).
//!
//! Before the handshake ends the RTO is `TCP_TIMEOUT_INIT` (1 s).
//!
//! Not modelled: the request socket's own SYN-ACK retransmission timer
//! (`reqsk_timer_handler`); a receiver here sends a SYN-ACK only in answer to a SYN.

use crate::rto::{Rto, RtoEstimator};
use spikelab_core::{Dur, Time};

/// `TCP_TIMEOUT_INIT`.
const TIMEOUT_INIT: Dur = Dur::from_secs(1);
/// `TCP_TIMEOUT_FALLBACK`.
const TIMEOUT_FALLBACK: Dur = Dur::from_secs(3);

/// The receiver's RTT estimate through the handshake and after it.
#[derive(Clone, Debug, Default)]
pub enum OwnRtt {
    /// No SYN answered yet.
    #[default]
    Listening,
    /// SYN-ACKs sent (`1 + req->num_retrans`), the last at `last`; not acknowledged yet.
    Handshake { syn_acks: u32, last: Time },
    /// The handshake ended without a sample (`TCP_TIMEOUT_FALLBACK`).
    Fallback,
    /// The handshake's sample, and the estimator it seeded (boxed: 160 bytes that
    /// every receiver kept, and only a `linux` host's handshake fills).
    Measured(Box<Rto>),
}

/// What the ACK completing the handshake carried: its arrival, and with timestamps its
/// TSecr and the receiver's TS clock then (reading and tick).
#[derive(Clone, Copy, Debug)]
pub struct HandshakeAck {
    pub now: Time,
    pub echo: Option<TsEcho>,
}

/// The TS clock's reading at the ACK's arrival, the ACK's TSecr, and the clock's tick.
#[derive(Clone, Copy, Debug)]
pub struct TsEcho {
    pub now_ts: u64,
    pub ecr: u64,
    pub tick: Dur,
}

/// The sample the handshake gives (steps 1 and 2 above), if any.
pub fn synack_sample(syn_acks: u32, last: Time, ack: &HandshakeAck) -> Option<Dur> {
    if syn_acks == 1 {
        return Some(ack.now.saturating_since(last));
    }
    // RTTM: a TSecr of 0 echoes nothing (`tp->rx_opt.rcv_tsecr`).
    let e = ack.echo.filter(|e| e.ecr != 0)?;
    let ticks = e.now_ts.checked_sub(e.ecr)?.max(1);
    Some(Dur(e.tick.0.saturating_mul(ticks)))
}

impl OwnRtt {
    /// A SYN-ACK went out at `now`.
    pub fn on_syn_ack_sent(&mut self, now: Time) {
        let syn_acks = match self {
            OwnRtt::Handshake { syn_acks, .. } => *syn_acks + 1,
            _ => 1,
        };
        *self = OwnRtt::Handshake {
            syn_acks,
            last: now,
        };
    }

    /// The ACK completing the handshake arrived; `estimator` is the RTO the sample
    /// seeds. Later ACKs change nothing.
    pub fn on_handshake_ack(&mut self, ack: &HandshakeAck, estimator: impl FnOnce() -> Rto) {
        let OwnRtt::Handshake { syn_acks, last } = *self else {
            return;
        };
        *self = match synack_sample(syn_acks, last, ack) {
            Some(rtt) => {
                let mut r = estimator();
                r.on_syn_sample(rtt);
                OwnRtt::Measured(Box::new(r))
            }
            None => OwnRtt::Fallback,
        };
    }

    /// `icsk_rto`.
    pub fn rto(&self) -> Dur {
        match self {
            OwnRtt::Listening | OwnRtt::Handshake { .. } => TIMEOUT_INIT,
            OwnRtt::Fallback => TIMEOUT_FALLBACK,
            OwnRtt::Measured(r) => r.rto(),
        }
    }

    /// `srtt_us`, if the handshake gave a sample.
    pub fn srtt(&self) -> Option<Dur> {
        match self {
            OwnRtt::Measured(r) => r.srtt(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(ms: u64, echo: Option<(u64, u64)>) -> HandshakeAck {
        HandshakeAck {
            now: Time(ms * 1_000_000),
            echo: echo.map(|(now_ts, ecr)| TsEcho {
                now_ts,
                ecr,
                tick: Dur::from_millis(1),
            }),
        }
    }

    #[test]
    fn a_syn_ack_sent_once_is_timed_from_its_sending() {
        let at = Time(1_668_000_000);
        let a = ack(1_700, Some((1_701, 2)));
        assert_eq!(synack_sample(1, at, &a), Some(Dur::from_millis(32)));
    }

    #[test]
    fn a_retransmitted_syn_ack_is_timed_by_the_acks_echo_only() {
        // The T-Mobile UMTS drive at 42 s: SYN-ACKs at 0 s and 1.029 s (and one for
        // the retransmitted SYN at 1.668 s); the ACK at 1.668 s echoes the first.
        let at = Time(1_668_000_000);
        let a = ack(1_668, Some((1_669, 1)));
        assert_eq!(synack_sample(3, at, &a), Some(Dur::from_millis(1_668)));
        // Within one tick: one tick (`tcp_rtt_tsopt_us(tp, 1)`).
        assert_eq!(
            synack_sample(2, at, &ack(1_668, Some((9, 9)))),
            Some(Dur::from_millis(1))
        );
        // No timestamps, or nothing echoed: no sample.
        assert_eq!(synack_sample(2, at, &ack(1_668, None)), None);
        assert_eq!(synack_sample(2, at, &ack(1_668, Some((9, 0)))), None);
    }

    #[test]
    fn the_rto_is_one_second_until_the_handshake_ends_then_three_without_a_sample() {
        let mut o = OwnRtt::default();
        assert_eq!(o.rto(), Dur::from_secs(1));
        o.on_syn_ack_sent(Time(0));
        o.on_syn_ack_sent(Time(1_000_000_000));
        assert_eq!(o.rto(), Dur::from_secs(1));
        o.on_handshake_ack(&ack(1_500, None), || panic!("no sample, no estimator"));
        assert_eq!((o.rto(), o.srtt()), (Dur::from_secs(3), None));
    }

    #[test]
    fn only_the_first_ack_after_the_syn_ack_times_it() {
        let cfg = crate::config::TcpConfig::default();
        let mut o = OwnRtt::default();
        o.on_syn_ack_sent(Time(0));
        o.on_handshake_ack(&ack(100, None), || Rto::new(&cfg.rto));
        let rto = o.rto();
        assert_eq!(o.srtt(), Some(Dur::from_millis(100)));
        o.on_handshake_ack(&ack(5_000, None), || panic!("timed once"));
        assert_eq!(o.rto(), rto);
    }
}
