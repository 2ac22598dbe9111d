//! Plain serialisation: a packet occupies the transmitter for its wire bytes at the link
//! rate (`Dur::transmission`, rounded up to a nanosecond) and reaches the far end after
//! the link's latency, with no extra delay. The default service model.

use super::{Departure, TimedModel};
use crate::link::same_instant::Lead;
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{Bounded, Check, FieldPath};
use spikelab_core::{BitRate, Dur, SimRng, Time, Wire};

/// `{ kind = "rate" }`: no parameters (the link's `rate` is the rate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateConfig {}

impl Bounded for RateConfig {
    /// Nothing to check: the link's `rate` is checked with the link.
    fn bounds(&self, _at: &FieldPath) -> Check {
        Ok(())
    }
}

/// Serialisation at `rate`.
#[derive(Clone, Copy, Debug)]
pub struct Rate {
    rate: BitRate,
    /// The last wire size served and its transmission time at `rate`: a link's
    /// packets come in few sizes (full segments one way, ACKs the other), and the
    /// time is a 128-bit division otherwise computed again for every packet.
    memo: (u32, Dur),
}

impl Rate {
    /// A transmitter at `rate`.
    pub fn new(_cfg: &RateConfig, rate: BitRate) -> Rate {
        Rate {
            rate,
            memo: (0, Dur::transmission(0, rate.bps())),
        }
    }

    /// The transmission time of `bytes` at the rate (`Dur::transmission`).
    #[inline(always)]
    pub(crate) fn transmission(&mut self, bytes: u32) -> Dur {
        if self.memo.0 != bytes {
            self.memo = (bytes, Dur::transmission(bytes as u64, self.rate.bps()));
        }
        self.memo.1
    }
}

impl TimedModel for Rate {
    fn serve<P: Wire, L: Lead>(
        &mut self,
        start: Time,
        pkt: P,
        _rng: &mut SimRng,
    ) -> Departure<P, L> {
        let at = start + self.transmission(pkt.wire_bytes());
        Departure {
            pkt,
            at,
            extra: Dur::ZERO,
            lost: false,
            lead: L::of(at, start),
        }
    }

    fn set_rate(&mut self, rate: BitRate) {
        *self = Rate::new(&RateConfig {}, rate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use spikelab_core::{FlowId, Packet, PacketKind};

    fn packet(payload: u32) -> Packet {
        let mut p = Packet::new(0, FlowId(0), PacketKind::Data, Time::ZERO);
        p.len = payload;
        p
    }

    /// The transmission time `r` gives a segment of `payload` bytes, and the one
    /// `Dur::transmission` computes for it at `bps`.
    fn sent_and_computed(r: &mut Rate, payload: u32, bps: u64) -> (Dur, Dur) {
        let p = packet(payload);
        let want = Dur::transmission(p.wire_bytes() as u64, bps);
        let d: Departure<Packet, ()> = r.serve(Time::ZERO, p, &mut SimRng::seed_from_u64(0));
        (d.at - Time::ZERO, want)
    }

    #[test]
    fn remembered_transmission_times_follow_the_size_and_the_rate() {
        let mut r = Rate::new(&RateConfig {}, BitRate(3));
        for payload in [1000, 1000, 0, 7, 7, 1000] {
            let (got, want) = sent_and_computed(&mut r, payload, 3);
            assert_eq!(got, want);
        }
        r.set_rate(BitRate(2_000_000));
        let (got, want) = sent_and_computed(&mut r, 1000, 2_000_000);
        assert_eq!(got, want);
    }
}
