//! PAWS, as the Linux receiver applies it to a data segment (RFC 7323 section 5.3,
//! R1; net/ipv4/tcp_input.c `tcp_validate_incoming` -> `tcp_paws_discard`, Linux 6.x).
//!
//! A segment whose TSval lags `ts_recent` by more than `TCP_PAWS_WINDOW` (one tick of
//! the peer's timestamp clock) is taken for an old duplicate: it is dropped before
//! its sequence numbers are looked at, and answered by `tcp_send_dupack` (an
//! immediate ACK; with a D-SACK block and quick-ACK mode when it lies below
//! `rcv_nxt`). `ts_recent` moves only with segments at or below the last ACK sent,
//! so a segment held back on the path (a delay box, a link-layer retransmission)
//! while the sender's retransmission of an earlier hole arrives and is acknowledged
//! comes in with a TSval older than the retransmission's and is discarded although
//! the receiver never had its bytes (`TcpExtPAWSEstab`): 16 of them in one kernel run
//! on the delay-injection path, whose sender then resent them.
//!
//! `tcp_disordered_ack`'s exemption concerns pure ACKs only; a `ts_recent` of 0
//! (nothing seen yet) never rejects (`tcp_paws_check`); the 24-day staleness rule
//! (`TCP_PAWS_WRAP`) cannot apply within a run.

/// `TCP_PAWS_WINDOW` (include/net/tcp.h): the lag in ticks PAWS tolerates.
const PAWS_WINDOW: u64 = 1;

/// Whether PAWS discards a data segment carrying `tsval` when the receiver holds
/// `ts_recent` (both in the peer's clock ticks).
pub fn rejects(ts_recent: u64, tsval: u64) -> bool {
    ts_recent != 0 && ts_recent > tsval.saturating_add(PAWS_WINDOW)
}

#[cfg(test)]
mod tests {
    use super::rejects;

    #[test]
    fn a_segment_more_than_one_tick_older_than_ts_recent_is_discarded() {
        // (ts_recent, tsval, rejected)
        let table = [
            (100, 100, false), // the same tick
            (100, 105, false), // newer
            (100, 99, false),  // one tick older: within TCP_PAWS_WINDOW
            (100, 98, true),   // two ticks older
            (100, 1, true),
            (0, 1, false), // nothing recorded yet
        ];
        for (recent, val, rejected) in table {
            assert_eq!(
                rejects(recent, val),
                rejected,
                "ts_recent {recent}, TSval {val}"
            );
        }
    }
}
