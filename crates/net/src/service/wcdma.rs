//! A WCDMA-like radio bearer with link-layer (RLC acknowledged-mode) retransmissions.
//!
//! [Ekström & Ludwig 2004] Scenario B uses "a model of a WCDMA link implemented in the ns-2
//! simulator ... based on [PM01]" (Peisa & Meyer, "Analytical Model for TCP File
//! Transfers over UMTS", 2001) at nominal bit rates of 64 and 384 kbit/s; "when
//! calculating the transmission delay of an IP-packet, this model takes into account
//! delays caused by link layer block errors and the ensuing link layer
//! retransmissions". The paper gives no block size, error rate or delays; this model
//! makes them parameters with 3GPP-typical defaults:
//!
//! | parameter | default | source of the choice |
//! |---|---|---|
//! | `block_bytes` | 40 B | RLC AMD PDU of 336 bits = 320 payload bits + 16-bit header (3GPP TS 25.322), the PDU size commonly configured for packet bearers at 64 and 384 kbit/s (e.g. the TS 34.108 reference radio bearers) |
//! | `bler` | 10 % | the BLER target outer-loop power control is commonly set to for packet bearers |
//! | `retx_delay` | 100 ms | RLC status-report round trip (poll / status-prohibit timers plus Iub transport and TTI interleaving); 3GPP leaves it to configuration, so this is a documented choice of the order of several 10-20 ms TTIs |
//! | `max_retx` | 10 | RLC `MaxDAT` - 1: retransmissions of one PDU before its SDU is discarded (TS 25.322); at 10 % BLER a packet is lost with probability about n 10^-11, so the bearer is "otherwise lossless" as in the paper |
//!
//! ## The model
//! An IP packet of `W` wire bytes is split into `n = ceil(W / block_bytes)` radio blocks
//! (the last one padded). Each block is sent and, independently with probability
//! `bler`, lost; a lost block is sent again, at most `max_retx` times. Let `A_i` be the
//! number of transmissions of block `i` and `R = max_i A_i - 1` the number of
//! retransmission rounds the packet needed. Then
//! * the transmitter is busy for `S * T_b` with `S = sum_i A_i` (retransmitted blocks use
//!   radio capacity too), `T_b = block_bytes * 8 / rate`;
//! * the packet reaches the far end `R * retx_delay` after its last block (each round
//!   waits one status-report round trip), plus the link latency;
//! * if some block needs more than `1 + max_retx` transmissions, the whole packet is
//!   discarded at that point (it counts as lost in the link);
//! * packets reach the far end in order (RLC in-sequence delivery; the link's FIFO pipe
//!   holds a packet until the one before it has been delivered or discarded).
//!
//! Not modelled: TTI framing (blocks are sent back to back), transport-format changes,
//! and the transmitter sending later packets' blocks while it waits for a status report
//! is captured only through the busy time `S * T_b` (the next packet starts right after).
//!
//! ## Delay of an isolated packet, and its mean and variance
//! For a packet that finds the link idle and is delivered,
//! `T = T_b S + D R + L` with `D = retx_delay`, `L` the latency. Given delivery, the
//! `A_i` are i.i.d. truncated geometric on `1..=K` (`K = 1 + max_retx`, `p = bler`):
//! `P(A = a) = (1-p) p^(a-1) / (1 - p^K)`. With `M = max_i A_i`,
//! `P(M <= m) = F(m)^n`, `F(m) = (1 - p^m) / (1 - p^K)`, so
//! * `E[T] = T_b n E[A] + D (E[M] - 1) + L`;
//! * `Var[T] = T_b^2 n Var[A] + D^2 Var[M] + 2 T_b D n Cov(A_1, M)`, since
//!   `Var[S] = n Var[A]` and `Cov(S, M) = n Cov(A_1, M)` by symmetry;
//! * `Cov(A_1, M) = E[A_1 max(A_1, M')] - E[A] E[M]` with `M'` the maximum of the
//!   other `n - 1` blocks, `P(M' <= m) = F(m)^(n-1)`.
//!
//! The tests evaluate these finite sums exactly and compare them with simulation.

use crate::link::same_instant::Lead;
use crate::service::{Departure, TimedModel};
use rand::Rng;
use serde::{Deserialize, Serialize};
use spikelab_core::bounds::{self, Bounded, Check, FieldPath, MAX_PACKET_BYTES, MAX_THRESHOLD};
use spikelab_core::{BitRate, ByteSize, Dur, SimRng, Time, Wire};

/// WCDMA bearer parameters (the nominal rate is the link's `rate`, e.g. "384kbps").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WcdmaConfig {
    /// Payload bytes per radio block (RLC PDU). Default: 40 B.
    #[serde(default = "default_block")]
    pub block_bytes: ByteSize,
    /// Probability that one block transmission fails. Default: 0.1.
    #[serde(default = "default_bler")]
    pub bler: f64,
    /// Extra delay per retransmission round (status-report round trip). Default: 100 ms.
    #[serde(default = "default_retx_delay")]
    pub retx_delay: Dur,
    /// Retransmissions of one block before the packet is discarded. Default: 10.
    #[serde(default = "default_max_retx")]
    pub max_retx: u32,
}

fn default_block() -> ByteSize {
    ByteSize(40)
}
fn default_bler() -> f64 {
    0.1
}
fn default_retx_delay() -> Dur {
    Dur::from_millis(100)
}
fn default_max_retx() -> u32 {
    10
}

impl Default for WcdmaConfig {
    fn default() -> Self {
        WcdmaConfig {
            block_bytes: default_block(),
            bler: default_bler(),
            retx_delay: default_retx_delay(),
            max_retx: default_max_retx(),
        }
    }
}

impl Bounded for WcdmaConfig {
    fn bounds(&self, p: &FieldPath) -> Check {
        bounds::bytes(&p.key("block_bytes"), self.block_bytes, MAX_PACKET_BYTES)?;
        bounds::probability(&p.key("bler"), self.bler)?;
        bounds::dur(&p.key("retx_delay"), self.retx_delay)?;
        let max_retx = u64::from(self.max_retx);
        bounds::int(&p.key("max_retx"), max_retx, 0, MAX_THRESHOLD, "")
    }
}

/// The bearer's state: its parameters and current block time.
#[derive(Clone, Debug)]
pub struct Wcdma {
    block_bytes: u64,
    bler: f64,
    retx_delay: Dur,
    max_retx: u32,
    block_time: Dur,
}

impl Wcdma {
    /// A bearer at `rate`.
    pub fn new(cfg: &WcdmaConfig, rate: BitRate) -> Wcdma {
        let block_bytes = cfg.block_bytes.bytes().max(1);
        Wcdma {
            block_bytes,
            bler: cfg.bler.clamp(0.0, 1.0),
            retx_delay: cfg.retx_delay,
            max_retx: cfg.max_retx,
            block_time: Dur::transmission(block_bytes, rate.bps()),
        }
    }

    /// Transmissions of one block until it gets through, and whether it did within
    /// `1 + max_retx` transmissions.
    fn block_attempts(&self, rng: &mut SimRng) -> (u32, bool) {
        let mut sent = 1;
        while rng.random::<f64>() < self.bler {
            if sent > self.max_retx {
                return (sent, false);
            }
            sent += 1;
        }
        (sent, true)
    }
}

impl TimedModel for Wcdma {
    /// Serves `pkt` from `start` (see the module docs for the model).
    fn serve<P: Wire, L: Lead>(
        &mut self,
        start: Time,
        pkt: P,
        rng: &mut SimRng,
    ) -> Departure<P, L> {
        let blocks = (pkt.wire_bytes() as u64).div_ceil(self.block_bytes);
        let (mut sent, mut max_attempts, mut lost) = (0u64, 1u32, false);
        for _ in 0..blocks {
            let (a, ok) = self.block_attempts(rng);
            sent += a as u64;
            max_attempts = max_attempts.max(a);
            lost |= !ok;
        }
        let at = start + self.block_time * sent;
        Departure {
            pkt,
            at,
            extra: self.retx_delay * (max_attempts - 1) as u64,
            lost,
            lead: L::of(at, start),
        }
    }

    fn set_rate(&mut self, rate: BitRate) {
        self.block_time = Dur::transmission(self.block_bytes, rate.bps());
    }
}

#[cfg(test)]
mod tests;
