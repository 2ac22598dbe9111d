//! Linux's `TCP_CA_Disorder` state: while segments are SACKed or marked lost, or a
//! retransmission is outstanding, the kernel treats every ACK as dubious and runs
//! `tcp_fastretrans_alert` on it (and with it RACK's loss detection), not only ACKs
//! that carry duplicate or SACK information.
//!
//! `tcp_ack_is_dubious` (net/ipv4/tcp_input.c): `!(flag & FLAG_NOT_DUP) ||
//! (flag & FLAG_CA_ALERT) || icsk_ca_state != TCP_CA_Open`. The state leaves Open
//! for Disorder in `tcp_try_keep_open` / `tcp_try_to_open`: `tcp_left_out(tp)`
//! (`sacked_out + lost_out`) or `tcp_any_retrans_done(sk)` (`retrans_out`, or the
//! head of the retransmission queue `TCPCB_EVER_RETRANS`). An ACK that only
//! advances snd_una while Disorder therefore still lets RACK mark a segment lost that
//! a later-sent one overtook.

/// What the sender holds when an ACK arrives, in the kernel's terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outstanding {
    /// `sacked_out > 0`.
    pub sacked: bool,
    /// `lost_out > 0`.
    pub lost: bool,
    /// A segment still unacknowledged was retransmitted (it is in `retrans_out`, or
    /// it is in `lost_out`, or it is the head with `TCPCB_EVER_RETRANS`).
    pub retransmitted: bool,
}

impl Outstanding {
    /// `tcp_left_out(tp) || tcp_any_retrans_done(sk)`: the state is Disorder, not Open.
    pub fn is_disorder(&self) -> bool {
        self.sacked || self.lost || self.retransmitted
    }
}

/// `tcp_ack_is_dubious`: the ACK is a duplicate or carries SACK / D-SACK news
/// (`dubious_flags`), or the connection is not Open.
pub fn ack_is_dubious(dubious_flags: bool, before: Outstanding) -> bool {
    dubious_flags || before.is_disorder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_cumulative_ack_of_a_clean_flight_is_not_dubious() {
        assert!(!ack_is_dubious(false, Outstanding::default()));
    }

    #[test]
    fn a_cumulative_ack_while_sacked_data_is_outstanding_is_dubious() {
        let o = Outstanding {
            sacked: true,
            ..Outstanding::default()
        };
        assert!(ack_is_dubious(false, o));
    }

    #[test]
    fn an_outstanding_retransmission_keeps_the_state_disorder() {
        let o = Outstanding {
            retransmitted: true,
            ..Outstanding::default()
        };
        assert!(o.is_disorder());
    }

    #[test]
    fn duplicate_or_sack_news_is_dubious_in_any_state() {
        assert!(ack_is_dubious(true, Outstanding::default()));
    }
}
