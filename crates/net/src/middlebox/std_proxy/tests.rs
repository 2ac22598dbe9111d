//! Hand-built packet sequences through the STD proxy, named by behaviour.
//!
//! Segments are 1000 bytes; `data(i)` is segment i (bytes i*1000 ..), `ack(i)` acks
//! up to segment i (next expected byte i*1000). wRTT is fixed at 600 ms (X_th = 300 ms)
//! unless a test measures it.

use super::*;
use crate::middlebox::{MbEventKind, MbOutput, Middlebox};
use spikelab_core::{Dur, FlowId, PacketKind, Time};

const MSS: u64 = 1000;
const F: FlowId = FlowId(7);

fn data(i: u64) -> Packet {
    let mut p = Packet::new(i, F, PacketKind::Data, Time::ZERO);
    p.seq = i * MSS;
    p.len = MSS as u32;
    p
}

fn ack(i: u64) -> Packet {
    let mut p = Packet::new(1000 + i, F, PacketKind::Ack, Time::ZERO);
    p.ack = i * MSS;
    p
}

fn at(ms: u64) -> Time {
    Time::ZERO + Dur::from_millis(ms)
}

struct Harness {
    proxy: StdProxy,
    out: MbOutput,
}

impl Harness {
    fn new() -> Harness {
        let cfg = StdProxyConfig {
            wrtt: Some(Dur::from_millis(600)),
            ..StdProxyConfig::default()
        };
        Harness {
            proxy: StdProxy::new(cfg),
            out: MbOutput::new(),
        }
    }

    /// Feeds `pkt` at `ms` (after any wake-up due by then); returns what continued.
    fn send(&mut self, ms: u64, pkt: Packet) -> Vec<Packet> {
        self.wake_until(ms);
        self.proxy.on_owned_packet(at(ms), pkt, &mut self.out);
        std::mem::take(&mut self.out.forward)
    }

    /// Fires the wake-ups due at or before `ms`, as an engine would.
    fn wake_until(&mut self, ms: u64) -> Vec<Packet> {
        while let Some(w) = self.proxy.next_wakeup().filter(|&w| w <= at(ms)) {
            self.proxy.on_wakeup(w, &mut self.out);
        }
        std::mem::take(&mut self.out.forward)
    }

    fn events(&mut self) -> Vec<MbEventKind> {
        self.out.events.drain(..).map(|e| e.kind).collect()
    }

    fn view(&self) -> FlowView {
        self.proxy.flow(F).expect("flow seen")
    }

    /// Segments 0..12 sent, ACKs for 1..=4 arriving every 40 ms from t = 600 ms: the
    /// average ACK inter-arrival time settles at 40 ms, so T = 80 ms.
    fn normal_period(&mut self) {
        for i in 0..8 {
            assert_eq!(self.send(i * 10, data(i)), [data(i)]);
        }
        for (k, i) in (1..=4).enumerate() {
            assert_eq!(self.send(600 + 40 * k as u64, ack(i)), [ack(i)]);
            self.send(601 + 40 * k as u64, data(7 + i));
        }
        assert_eq!(self.view().ack_interarrival, Some(Dur::from_millis(40)));
        assert_eq!(self.view().max_seq_end, 12 * MSS);
        self.events();
    }

    /// A delay spike after the normal period: the sender times out at 3 s and again at
    /// 6 s, retransmitting segment 4 both times; the first delayed ACK (for segment 4's
    /// original) reaches the proxy at 9 s.
    fn spike_with_two_timeouts(&mut self) {
        assert_eq!(self.send(3000, data(4)), [data(4)]);
        assert_eq!(self.send(6000, data(4)), [data(4)]);
        assert_eq!(self.send(9000, ack(5)), [ack(5)]);
        assert_eq!(
            self.events(),
            [
                MbEventKind::TimeoutDetected {
                    seq: 4000,
                    repeat: false
                },
                MbEventKind::TimeoutDetected {
                    seq: 4000,
                    repeat: true
                },
                MbEventKind::TimerStarted {
                    t: Dur::from_millis(80)
                },
            ]
        );
        assert_eq!(self.proxy.next_wakeup(), Some(at(9080)));
    }
}

/// The case property testing found: with three duplicate ACKs standing, a segment sent
/// again and again (the sender's backed-off timeouts) is anticipated as a fast
/// retransmission once; its later copies are repeated timeouts, passed on, and the proxy
/// does not hold one copy per send.
#[test]
fn one_duplicate_ack_series_anticipates_one_fast_retransmission() {
    use MbEventKind::*;
    let mut h = Harness::new();
    assert_eq!(h.send(1, data(23)), [data(23)]);
    assert_eq!(h.send(2, data(0)), [data(0)]);
    for ms in 3..7 {
        assert_eq!(h.send(ms, ack(23)), [ack(23)]);
    }
    h.events();
    // The fast retransmission the duplicates anticipate is held pending the verdict.
    assert!(h.send(7, data(0)).is_empty());
    assert_eq!(h.events(), [HeldPendingVerdict { seq: 0 }]);
    for ms in 8..12 {
        assert_eq!(h.send(ms, data(0)), [data(0)], "copy sent at {ms} ms");
        let repeat = TimeoutDetected {
            seq: 0,
            repeat: true,
        };
        assert_eq!(h.events(), [repeat]);
    }
    let mut held = 0;
    h.proxy.for_each_held(&mut |_| held += 1);
    assert_eq!(held, 1);
}

#[test]
fn spurious_timeout_is_recognised_and_go_back_n_retransmissions_are_absorbed() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    // Go-back-N on ACK 5: segment 5 retransmitted, held pending the verdict.
    assert!(h.send(9010, data(5)).is_empty());
    // The next delayed ACK advances the window 30 ms after the first: before T.
    assert_eq!(h.send(9030, ack(6)), [ack(6)]);
    assert_eq!(h.view().phase, StdPhase::Responding);
    assert_eq!(h.view().sp_tout_max_seq_end, Some(12 * MSS));
    // The rest of the go-back-N retransmissions never reach the wireless link.
    for (k, i) in (6..12).enumerate() {
        assert!(h.send(9040 + k as u64, data(i)).is_empty(), "segment {i}");
    }
    // New data passes at once.
    assert_eq!(h.send(9050, data(12)), [data(12)]);
    assert_eq!(h.view().buffered, 6);
    for (k, i) in (7..=12).enumerate() {
        assert_eq!(h.send(9060 + 10 * k as u64, ack(i)), [ack(i)]);
    }
    use MbEventKind::*;
    let ev = h.events();
    assert_eq!(ev[0], HeldPendingVerdict { seq: 5000 });
    assert_eq!(ev[1], Verdict { spurious: true });
    assert_eq!(
        ev[2],
        Discarded { seq: 5000 },
        "segment 5 was acked by ACK 6"
    );
    assert!(ev.contains(&Buffered { seq: 11_000 }));
    assert!(ev.contains(&Released {
        ack: 7000,
        count: 1
    }));
    assert_eq!(
        ev.last(),
        Some(&FullAck {
            ack: 12_000,
            to_remove: 2
        })
    );
    assert_eq!(h.view().phase, StdPhase::RemovingDupAcks);
    assert_eq!(h.view().buffered, 0);
}

#[test]
fn duplicate_acks_of_the_timeout_retransmissions_are_removed_after_the_full_ack() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    assert_eq!(h.send(9030, ack(12)), [ack(12)]); // spurious and full at once
    h.events();
    // The two retransmissions of segment 4 reached the receiver: two duplicates.
    assert!(h.send(9040, ack(12)).is_empty());
    assert!(h.send(9041, ack(12)).is_empty());
    // A third duplicate is not the timeout's doing: the sender must see it.
    assert_eq!(h.send(9042, ack(12)), [ack(12)]);
    use MbEventKind::*;
    assert_eq!(
        h.events(),
        [AckRemoved { ack: 12_000 }, AckRemoved { ack: 12_000 }]
    );
    assert_eq!(h.view().phase, StdPhase::Normal);
}

#[test]
fn duplicate_ack_removal_stops_at_a_new_ack() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9030, ack(12));
    assert!(h.send(9040, ack(12)).is_empty());
    assert_eq!(h.send(9050, ack(13)), [ack(13)]);
    assert_eq!(h.send(9060, ack(13)), [ack(13)]);
    assert_eq!(h.view().phase, StdPhase::Normal);
}

#[test]
fn duplicate_ack_removal_can_be_turned_off() {
    let mut h = Harness::new();
    h.proxy = StdProxy::new(StdProxyConfig {
        remove_dup_acks: false,
        ..h.proxy.config().clone()
    });
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9030, ack(12));
    assert_eq!(h.send(9040, ack(12)), [ack(12)]);
}

#[test]
fn genuine_timeout_lets_retransmissions_through() {
    let mut h = Harness::new();
    h.normal_period();
    // Segment 4 was lost: the timeout's retransmission repairs it, and the first ACK
    // after the timeout is the answer to that retransmission.
    assert_eq!(h.send(3000, data(4)), [data(4)]);
    assert_eq!(h.send(3600, ack(5)), [ack(5)]);
    assert_eq!(h.proxy.next_wakeup(), Some(at(3680)));
    assert!(h.send(3610, data(5)).is_empty(), "held pending the verdict");
    assert!(h.send(3620, data(6)).is_empty());
    // T expires with no new ACK: genuine; the held retransmissions continue.
    assert_eq!(h.wake_until(3680), [data(5), data(6)]);
    assert_eq!(h.view().phase, StdPhase::Normal);
    // Later retransmissions of the go-back-N are forwarded at once.
    assert_eq!(h.send(4200, ack(6)), [ack(6)]);
    assert_eq!(h.send(4210, data(7)), [data(7)]);
    use MbEventKind::*;
    let ev = h.events();
    assert!(ev.contains(&Verdict { spurious: false }));
    assert!(!ev.contains(&Verdict { spurious: true }));
}

#[test]
fn an_ack_exactly_at_the_deadline_is_too_late() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9080, ack(6));
    assert!(h
        .events()
        .contains(&MbEventKind::Verdict { spurious: false }));
}

#[test]
fn local_retransmission_on_three_duplicate_acks() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9030, ack(6)); // spurious
    assert!(h.send(9040, data(6)).is_empty()); // buffered
    assert!(h.send(9041, data(7)).is_empty());
    // Segment 6's original was lost in the spike: the receiver repeats ACK 6.
    assert_eq!(h.send(9050, ack(6)), [ack(6)]);
    assert_eq!(h.send(9051, ack(6)), [ack(6)]);
    assert_eq!(h.send(9052, ack(6)), [data(6), ack(6)]);
    // Once per hole.
    assert_eq!(h.send(9053, ack(6)), [ack(6)]);
    let ev = h.events();
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, MbEventKind::LocalRetransmit { seq: 6000 }))
            .count(),
        1
    );
    assert_eq!(h.view().buffered, 2, "the local copy stays buffered");
}

#[test]
fn a_segment_buffered_after_its_duplicate_acks_is_retransmitted_at_once() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9030, ack(6));
    for k in 0..3 {
        h.send(9040 + k, ack(6));
    }
    assert_eq!(h.send(9050, data(6)), [data(6)]);
}

#[test]
fn a_new_timeout_while_responding_starts_a_new_episode_and_is_forwarded() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9030, ack(6));
    assert!(h.send(9040, data(6)).is_empty());
    assert!(h.send(9041, data(7)).is_empty());
    // The sender times out again and goes back to segment 6.
    assert_eq!(h.send(12_000, data(6)), [data(6)]);
    assert_eq!(h.view().phase, StdPhase::Investigating);
    assert!(h.events().contains(&MbEventKind::TimeoutDetected {
        seq: 6000,
        repeat: false
    }));
}

#[test]
fn fast_retransmission_after_three_duplicate_acks_is_not_a_timeout() {
    let mut h = Harness::new();
    h.normal_period();
    for k in 0..3 {
        h.send(800 + k, ack(4));
    }
    assert_eq!(h.send(810, data(4)), [data(4)]);
    // NewReno: the partial ACK brings the retransmission of the next hole.
    h.send(900, ack(6));
    assert_eq!(h.send(901, data(6)), [data(6)]);
    assert!(h.events().is_empty());
    assert_eq!(h.view().phase, StdPhase::Normal);
    // A retransmission that goes back inside the recovery is a timeout.
    h.send(3000, data(6));
    assert_eq!(h.view().phase, StdPhase::Investigating);
}

#[test]
fn held_and_buffered_packets_are_reported_alive() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9010, data(5));
    let mut held = Vec::new();
    h.proxy.for_each_held(&mut |p| held.push(p.seq));
    assert_eq!(held, [5000]);
    h.send(9030, ack(5)); // a duplicate: no verdict yet
    h.send(9031, ack(7)); // spurious
    h.send(9040, data(7));
    h.send(9041, data(8));
    held.clear();
    h.proxy.for_each_held(&mut |p| held.push(p.seq));
    assert_eq!(held, [7000, 8000]);
}

#[test]
fn wrtt_is_measured_from_data_to_covering_ack_when_not_configured() {
    let mut h = Harness::new();
    h.proxy = StdProxy::new(StdProxyConfig::default());
    h.send(0, data(0));
    h.send(500, ack(1));
    assert_eq!(h.view().wrtt, Some(Dur::from_millis(500)));
}

#[test]
fn flows_are_kept_apart() {
    let mut h = Harness::new();
    h.normal_period();
    let mut other = data(2);
    other.flow = FlowId(8);
    // Flow 8 has seen nothing: its segment 2 is new data, not a retransmission.
    assert_eq!(h.send(3000, other), [other]);
    assert_eq!(h.view().phase, StdPhase::Normal);
    assert_eq!(h.proxy.flow(FlowId(8)).unwrap().max_seq_end, 3000);
}

#[test]
fn stale_go_back_n_retransmissions_after_the_full_ack_are_absorbed_not_timeouts() {
    let mut h = Harness::new();
    h.normal_period();
    h.spike_with_two_timeouts();
    h.send(9030, ack(12)); // spurious and full at once
    h.events();
    // The sender sent these before the full ACK reached it.
    assert!(h.send(9035, data(5)).is_empty());
    assert!(h.send(9036, data(6)).is_empty());
    use MbEventKind::*;
    assert_eq!(
        h.events(),
        [Discarded { seq: 5000 }, Discarded { seq: 6000 }]
    );
    assert_eq!(h.view().phase, StdPhase::RemovingDupAcks);
    // A real timeout later (new data lost) is still detected.
    assert_eq!(h.send(9100, data(12)), [data(12)]);
    assert_eq!(h.send(12_000, data(12)), [data(12)]);
    assert_eq!(h.view().phase, StdPhase::Investigating);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Data(u64),
        Ack(u64),
        Wait(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u64..24).prop_map(Op::Data),
            3 => (0u64..24).prop_map(Op::Ack),
            1 => (1u64..400).prop_map(Op::Wait),
        ]
    }

    /// Whether an event of this call explains why `pkt` did not continue.
    fn explained(events: &[MbEventKind], pkt: &Packet) -> bool {
        use MbEventKind::*;
        events.iter().any(|e| match *e {
            HeldPendingVerdict { seq } | Buffered { seq } | Discarded { seq } => {
                pkt.kind == PacketKind::Data && seq == pkt.seq
            }
            AckRemoved { ack } => pkt.kind == PacketKind::Ack && ack == pkt.ack,
            _ => false,
        })
    }

    proptest! {
        #[test]
        fn every_packet_continues_or_is_accounted_for_and_new_data_is_never_delayed(
            ops in proptest::collection::vec(op(), 1..120),
        ) {
            let mut h = Harness::new();
            let mut ms = 0;
            for op in ops {
                ms += 1;
                let pkt = match op {
                    Op::Wait(d) => { ms += d; h.wake_until(ms); continue; }
                    Op::Data(i) => data(i),
                    Op::Ack(i) => ack(i),
                };
                let new_data = pkt.kind == PacketKind::Data
                    && h.proxy.flow(F).is_none_or(|v| pkt.seq >= v.max_seq_end);
                h.wake_until(ms);
                h.events();
                let fwd = h.send(ms, pkt);
                let events = h.events();
                let continued = fwd.contains(&pkt);
                prop_assert!(continued || explained(&events, &pkt), "{pkt:?} {events:?}");
                prop_assert!(!new_data || continued, "new data held: {events:?}");
                prop_assert!(h.proxy.next_wakeup().is_none_or(|w| w > at(ms)));
                let mut held = 0;
                h.proxy.for_each_held(&mut |_| held += 1);
                prop_assert!(held <= 24);
            }
        }
    }
}

#[test]
fn each_flow_keeps_its_own_state_whatever_order_flows_first_appear_in() {
    let mut h = Harness::new();
    let of = |flow: u32, mut p: Packet| {
        p.flow = FlowId(flow);
        p
    };
    let flows = [9u32, 3, 7, 5];
    for (k, &flow) in flows.iter().enumerate() {
        let i = k as u64 + 1;
        assert_eq!(h.send(i, of(flow, data(i))), [of(flow, data(i))]);
    }
    for (k, &flow) in flows.iter().enumerate() {
        let v = h.proxy.flow(FlowId(flow)).expect("flow seen");
        assert_eq!(v.max_seq_end, (k as u64 + 2) * MSS, "flow {flow}");
    }
    assert!(h.proxy.flow(FlowId(4)).is_none());
}
