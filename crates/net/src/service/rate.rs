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
}

impl Rate {
    /// A transmitter at `rate`.
    pub fn new(_cfg: &RateConfig, rate: BitRate) -> Rate {
        Rate { rate }
    }
}

impl TimedModel for Rate {
    fn serve<P: Wire, L: Lead>(
        &mut self,
        start: Time,
        pkt: P,
        _rng: &mut SimRng,
    ) -> Departure<P, L> {
        let at = start + Dur::transmission(pkt.wire_bytes() as u64, self.rate.bps());
        Departure {
            pkt,
            at,
            extra: Dur::ZERO,
            lost: false,
            lead: L::of(at, start),
        }
    }

    fn set_rate(&mut self, rate: BitRate) {
        self.rate = rate;
    }
}
