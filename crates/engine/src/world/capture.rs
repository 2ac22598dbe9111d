//! Capture: the trace records a run keeps (`--trace`) and the packets seen at each
//! flow's endpoints (`--pcap`). Passive: a run's results are the same with and
//! without either.

use super::Sim;
use crate::results::{Captured, Endpoint};
use crate::trace::Tracer;
use crate::transport::Transport;
use spikelab_core::trace::TraceEvent;
use spikelab_core::{Packet, Time};
use spikelab_net::link::same_instant::Lead;

/// The run's trace and, with `pcap`, per flow the packets seen at its endpoints.
pub(super) struct Capture {
    pub(super) tracer: Tracer,
    pub(super) pcap: Option<Vec<Vec<Captured>>>,
}

impl Capture {
    /// Records `p` for pcap files as seen at `now` by the endpoint of flow `f` that
    /// sends it (`sending`) or receives it. A method of the capture alone, so that it
    /// can be called while the packet is borrowed from the arena.
    #[inline(always)]
    pub(super) fn packet(&mut self, now: Time, f: usize, p: &Packet, sending: bool) {
        if let Some(c) = &mut self.pcap {
            let at = if p.kind.is_forward() == sending {
                Endpoint::Sender
            } else {
                Endpoint::Receiver
            };
            c[f].push(Captured {
                time: now,
                packet: *p,
                at,
            });
        }
    }
}

impl<L: Lead, T: Transport> Sim<L, T> {
    /// A packet was lost in link `l` (its queue, a freeze, a drop rule).
    pub(super) fn note_drop(&mut self, l: usize, p: &Packet) {
        let is_ack = !p.kind.is_forward();
        let ev = TraceEvent::Drop {
            seq: if is_ack { p.ack } else { p.seq },
            len: p.len,
            is_ack,
            link: l as u32,
        };
        self.capture.tracer.record(self.now, p.flow, ev);
    }
}
