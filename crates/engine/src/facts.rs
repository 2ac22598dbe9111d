//! The facts ground truth rests on, and the class of a timeout they give: a leaf of the
//! crate, shared by the ground truth's ledger, the results and the transports that state
//! the facts.

use serde::{Deserialize, Serialize};

/// What really happened to the segment a retransmission timer fired for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Truth {
    /// A transmission of the segment was still in the network: only delayed.
    SpuriousDataDelayed,
    /// The receiver had the segment and an ACK for it was in the network or held by
    /// the delayed-ACK timer: only the ACK was late.
    SpuriousAckDelayed,
    /// The receiver had the segment but every ACK covering it was lost.
    GenuineAckLost,
    /// No copy of the segment was left in the network and the receiver lacked it.
    GenuineDataLost,
}

impl Truth {
    /// Was the timeout spurious: would the ACK have come without the retransmission?
    pub fn is_spurious(self) -> bool {
        matches!(self, Truth::SpuriousDataDelayed | Truth::SpuriousAckDelayed)
    }

    /// A short label for CSV files.
    pub fn label(self) -> &'static str {
        match self {
            Truth::SpuriousDataDelayed => "spurious-data-delayed",
            Truth::SpuriousAckDelayed => "spurious-ack-delayed",
            Truth::GenuineAckLost => "genuine-ack-lost",
            Truth::GenuineDataLost => "genuine-data-lost",
        }
    }
}

/// What the network held for the timed-out segment (snd_una) when the timer fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The receiver has the segment.
    pub receiver_holds: bool,
    /// An ACK covering it is on its way (in a link, a box, or the delayed-ACK timer).
    pub ack_alive: bool,
    /// A transmission of the segment is still in a link or a box.
    pub data_alive: bool,
}

/// The timeout's truth from the facts: spurious when the ACK would have come anyway.
pub fn classify(f: Facts) -> Truth {
    match (f.receiver_holds, f.ack_alive, f.data_alive) {
        (true, true, _) => Truth::SpuriousAckDelayed,
        (true, false, _) => Truth::GenuineAckLost,
        (false, _, true) => Truth::SpuriousDataDelayed,
        (false, _, false) => Truth::GenuineDataLost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_receiver_holding_the_segment_makes_it_a_question_of_the_ack() {
        let f = |receiver_holds, ack_alive, data_alive| {
            classify(Facts {
                receiver_holds,
                ack_alive,
                data_alive,
            })
        };
        assert_eq!(f(true, true, false), Truth::SpuriousAckDelayed);
        assert_eq!(f(true, false, true), Truth::GenuineAckLost);
        assert_eq!(f(false, true, true), Truth::SpuriousDataDelayed);
        assert_eq!(f(false, true, false), Truth::GenuineDataLost);
    }
}
