//! Middleboxes: a box at the first endpoint of a link sees every packet entering the
//! link forward and leaving it in reverse; what it releases goes on along its route.

use super::{InvariantViolation, Sim};
use crate::arena::Slot;
use crate::events::{Event, TimerSlot};
use crate::route::{self, AfterBox};
use crate::transport::Transport;
use spikelab_core::Packet;
use spikelab_net::link::same_instant::Lead;
use spikelab_net::{Dir, Mb, MbEventKind, MbOutput, Middlebox};

/// The middleboxes of the run.
pub(super) struct Boxes {
    pub(super) list: Vec<BoxState>,
    /// Per link, the index of the middlebox at its first endpoint.
    pub(super) at: Vec<Option<usize>>,
    /// What a box released, taken out while the world moves the packets.
    pub(super) out: MbOutput,
}

/// A middlebox placed at the first endpoint of `link`.
pub(super) struct BoxState {
    pub(super) link: usize,
    pub(super) mb: Mb,
    pub(super) slot: TimerSlot,
    /// The detector the box runs ([`Middlebox::detector`]), by the name it reports.
    pub(super) detector: Option<&'static str>,
}

impl<L: Lead, T: Transport> Sim<L, T> {
    /// Box `b` sees `p`, which is not in the arena (it comes from an endpoint).
    pub(super) fn through_box(&mut self, b: usize, p: Packet) -> Result<(), InvariantViolation> {
        let mut out = std::mem::take(&mut self.boxes.out);
        self.boxes.list[b].mb.on_owned_packet(self.now, p, &mut out);
        self.after_box(b, out, None)
    }

    /// Box `b` sees the packet in slot `s`, where it reads it; if the box passes it,
    /// it continues from that slot ([`MbOutput::pass`]), so a packet crossing a box is
    /// not copied out of the arena and back.
    #[inline(never)]
    pub(super) fn through_box_slot(&mut self, b: usize, s: Slot) -> Result<(), InvariantViolation> {
        // The box writes into the world's output in place: it is taken out (to be
        // walked while the world moves packets) only when there is more than a pass.
        self.boxes.list[b]
            .mb
            .on_packet(self.now, self.net.arena.get(s), &mut self.boxes.out);
        if !self.boxes.out.only_passed() {
            let out = std::mem::take(&mut self.boxes.out);
            return self.after_box(b, out, Some(s));
        }
        // What a box does with almost every packet: [`Self::after_box`]'s steps for a
        // lone pass, in its order, without its walk over the output.
        self.boxes.out.clear();
        let result = self.leave_box_slot(b, s);
        self.rearm_box(b);
        result
    }

    pub(super) fn on_box_wake(&mut self, b: usize, gen: u32) -> Result<(), InvariantViolation> {
        if !self.boxes.list[b].slot.fire(gen) {
            return Ok(());
        }
        let mut out = std::mem::take(&mut self.boxes.out);
        self.boxes.list[b].mb.on_wakeup(self.now, &mut out);
        self.after_box(b, out, None)
    }

    /// Sends on what box `b` released, in order, the packet it was handed in slot
    /// `arrived` among them where the box passed it (its slot is freed if the box did
    /// not), notes its verdicts, re-arms its wake-up.
    pub(super) fn after_box(
        &mut self,
        b: usize,
        mut out: MbOutput,
        arrived: Option<Slot>,
    ) -> Result<(), InvariantViolation> {
        let mut result = Ok(());
        for e in &out.events {
            if let MbEventKind::Verdict { spurious } = e.kind {
                result = result.and_then(|_| self.note_box_verdict(b, e.flow, e.time, spurious));
            }
        }
        let passed = out.take_pass();
        debug_assert!(
            passed.is_none() || arrived.is_some(),
            "a pass without a packet handed in"
        );
        for i in 0..=out.forward.len() {
            if passed == Some(i) {
                let s = arrived.expect("checked above");
                result = match result {
                    Ok(()) => self.leave_box_slot(b, s),
                    Err(e) => {
                        self.net.arena.free(s);
                        Err(e)
                    }
                };
            }
            if i < out.forward.len() && result.is_ok() {
                result = self.leave_box(b, out.forward[i]);
            }
        }
        if let (Some(s), None) = (arrived, passed) {
            self.net.arena.free(s);
        }
        out.clear();
        self.boxes.out = out;
        self.rearm_box(b);
        result
    }

    /// Makes sure box `b` is woken at its next wake-up.
    pub(super) fn rearm_box(&mut self, b: usize) {
        let q = &mut self.q;
        let wake = self.boxes.list[b].mb.next_wakeup();
        let slot = &mut self.boxes.list[b].slot;
        slot.want(wake, |at, gen| {
            q.push(at, Event::MiddleboxWake { mb: b as u32, gen })
        });
    }

    /// [`Self::leave_box`] for the packet in slot `s`, which stays there.
    pub(super) fn leave_box_slot(&mut self, b: usize, s: Slot) -> Result<(), InvariantViolation> {
        let l = self.boxes.list[b].link;
        let p = self.net.arena.get(s);
        let r = &self.flows.list[p.flow.index()].route;
        match route::after_box(r, l, p.kind.is_forward()) {
            None => {
                self.net.arena.free(s);
                Ok(())
            }
            Some(AfterBox::Enter(hop)) => {
                self.net.arena.get_mut(s).hop = hop;
                self.enter_link_slot(l, Dir::Forward, s);
                Ok(())
            }
            Some(AfterBox::Continue(hop)) => {
                self.net.arena.get_mut(s).hop = hop;
                self.forward_slot(s)
            }
        }
    }

    /// A packet continues from box `b` at the first endpoint of its link: into the link
    /// if it crosses it forward, on along its route if it just crossed it in reverse.
    pub(super) fn leave_box(&mut self, b: usize, mut q: Packet) -> Result<(), InvariantViolation> {
        let l = self.boxes.list[b].link;
        let r = &self.flows.list[q.flow.index()].route;
        match route::after_box(r, l, q.kind.is_forward()) {
            None => Ok(()),
            Some(AfterBox::Enter(hop)) => {
                q.hop = hop;
                self.enter_link(l, Dir::Forward, &q);
                Ok(())
            }
            Some(AfterBox::Continue(hop)) => {
                q.hop = hop;
                self.forward(&q)
            }
        }
    }
}
