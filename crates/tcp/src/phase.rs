//! Where a sender is in its congestion-control cycle (RFC 5681 / RFC 6675 / RFC 6298),
//! read by the sender and by the stacks at their extension points.

/// Where the sender is in its congestion-control cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Slow start or congestion avoidance.
    Open,
    /// Fast recovery until `point` (snd_max at its start) is acknowledged.
    Recovery { point: u64 },
    /// After a retransmission timeout: slow start with go-back-N until `point`
    /// (snd_max when the timer fired) is acknowledged.
    Loss { point: u64 },
}
