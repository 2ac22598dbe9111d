//! Delay injection: the three methods, selection, and order.

use super::*;
use rand::SeedableRng;

const F: FlowId = FlowId(3);

fn seg(i: u64, timed: bool) -> Packet {
    let mut p = Packet::new(i, F, PacketKind::Data, Time::ZERO);
    p.seq = i * 1000;
    p.len = 1000;
    p.timed = timed;
    p
}

fn ack(i: u64) -> Packet {
    let mut p = Packet::new(10_000 + i, F, PacketKind::Ack, Time::ZERO);
    p.ack = i * 1000;
    p
}

fn at(ms: u64) -> Time {
    Time::ZERO + Dur::from_millis(ms)
}

fn boxed(cfg: DelayInjectionConfig) -> DelayInjector {
    DelayInjector::new(cfg, SimRng::seed_from_u64(11))
}

/// Feeds `pkts` one per millisecond; returns the injected delay of each (None: passed
/// at once).
fn delays(b: &mut DelayInjector, pkts: &[Packet]) -> Vec<Option<Dur>> {
    let mut out = MbOutput::new();
    pkts.iter()
        .enumerate()
        .map(|(i, p)| {
            out.clear();
            b.on_owned_packet(at(i as u64), *p, &mut out);
            match out.events.first().map(|e| e.kind) {
                Some(MbEventKind::Delayed { by }) => Some(by),
                _ => None,
            }
        })
        .collect()
}

fn cfg(method: InjectionMethod, n: u32) -> DelayInjectionConfig {
    DelayInjectionConfig {
        method,
        n,
        ..DelayInjectionConfig::default()
    }
}

#[test]
fn ftfd_delays_exactly_every_nth_tracked_packet_by_d0() {
    let mut b = boxed(cfg(InjectionMethod::Ftfd, 3));
    // Every other packet is tracked; tracked packets k = 3, 6 are packets 4 and 10.
    let pkts: Vec<_> = (0..12).map(|i| seg(i, i % 2 == 0)).collect();
    let d = delays(&mut b, &pkts);
    let delayed: Vec<usize> = (0..12).filter(|&i| d[i].is_some()).collect();
    assert_eq!(delayed, [4, 10]);
    assert!(d.iter().flatten().all(|&x| x == Dur::from_millis(100)));
    // Packet 4 arrived at 4 ms: it is released at 104 ms, not before.
    assert_eq!(b.next_wakeup(), Some(at(104)));
    let mut out = MbOutput::new();
    b.on_wakeup(at(103), &mut out);
    assert!(out.forward.is_empty());
    b.on_wakeup(at(104), &mut out);
    assert_eq!(out.forward, [pkts[4]]);
}

#[test]
fn rtfd_injects_into_about_one_in_n_tracked_packets() {
    let mut b = boxed(cfg(InjectionMethod::Rtfd, 4));
    let n = 20_000;
    let pkts: Vec<_> = (0..n).map(|i| seg(i, true)).collect();
    let d = delays(&mut b, &pkts);
    let hits = d.iter().flatten().count() as f64;
    assert!(d.iter().flatten().all(|&x| x == Dur::from_millis(100)));
    // Binomial(20000, 1/4): mean 5000, sd sqrt(20000 * 3/16) = 61.2; allow 4 sd.
    assert!((hits - 5000.0).abs() < 245.0, "{hits}");
}

#[test]
fn rtrd_delays_are_exponential_with_mean_d0() {
    let mut b = boxed(DelayInjectionConfig {
        d0: Dur::from_millis(80),
        ..cfg(InjectionMethod::Rtrd, 2)
    });
    let pkts: Vec<_> = (0..40_000).map(|i| seg(i, true)).collect();
    let d: Vec<f64> = delays(&mut b, &pkts)
        .into_iter()
        .flatten()
        .map(|x| x.as_millis_f64())
        .collect();
    // About 20 000 draws; sd of the mean = 80 / sqrt(20000) = 0.57 ms; allow 4 sd.
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    assert!((mean - 80.0).abs() < 2.3, "{mean}");
    assert!((d.len() as f64 - 20_000.0).abs() < 400.0);
}

#[test]
fn oracle_delays_only_timed_packets_and_blind_modes_do_not_know_them() {
    // The sender times one packet in four (one per window of 4).
    let pkts: Vec<_> = (0..40).map(|i| seg(i, i % 4 == 1)).collect();
    let which = |c: DelayInjectionConfig| -> Vec<usize> {
        let d = delays(&mut boxed(c), &pkts);
        (0..40).filter(|&i| d[i].is_some()).collect()
    };
    let oracle = which(cfg(InjectionMethod::Ftfd, 1));
    assert_eq!(oracle, (0..40).filter(|i| i % 4 == 1).collect::<Vec<_>>());
    let every = which(DelayInjectionConfig {
        select: Selection::EveryNth,
        ..cfg(InjectionMethod::Ftfd, 4)
    });
    // Blind every-4th lands on packets 3, 7, ...: never a timed one.
    assert_eq!(every, (0..40).filter(|i| i % 4 == 3).collect::<Vec<_>>());
    let every2 = which(DelayInjectionConfig {
        select: Selection::EveryNth,
        select_every: 2,
        ..cfg(InjectionMethod::Ftfd, 1)
    });
    assert_eq!(every2.len(), 20);
    let prob = which(DelayInjectionConfig {
        select: Selection::Probability,
        select_p: 0.5,
        ..cfg(InjectionMethod::Ftfd, 1)
    });
    assert!(prob.len() > 8 && prob.len() < 32, "{}", prob.len());
    assert!(
        prob.iter().any(|i| i % 4 != 1),
        "blind picks untimed packets"
    );
}

#[test]
fn oracle_in_the_ack_direction_delays_the_ack_that_ends_a_measurement() {
    let mut b = boxed(DelayInjectionConfig {
        direction: InjectDirection::Ack,
        ..cfg(InjectionMethod::Ftfd, 1)
    });
    // Segment 2 (bytes 2000..3000) is timed; ACK 3 covers it, ACKs 1, 2, 4 do not
    // end a measurement.
    let pkts = [
        seg(0, false),
        seg(1, false),
        seg(2, true),
        seg(3, false),
        ack(1),
        ack(2),
        ack(4),
        ack(4),
    ];
    let d = delays(&mut b, &pkts);
    let delayed: Vec<usize> = (0..pkts.len()).filter(|&i| d[i].is_some()).collect();
    assert_eq!(delayed, [6]);
}

#[test]
fn a_retransmission_ends_the_oracles_memory_of_a_timed_segment() {
    let mut b = boxed(DelayInjectionConfig {
        direction: InjectDirection::Ack,
        ..cfg(InjectionMethod::Ftfd, 1)
    });
    let mut rx = seg(0, false);
    rx.retx = true;
    let d = delays(&mut b, &[seg(0, false), seg(1, true), rx, ack(2)]);
    assert!(d.iter().all(Option::is_none));
}

#[test]
fn by_default_a_delayed_packet_is_overtaken() {
    let mut b = boxed(cfg(InjectionMethod::Ftfd, 1));
    let mut out = MbOutput::new();
    b.on_owned_packet(at(0), seg(0, true), &mut out);
    b.on_owned_packet(at(1), seg(1, false), &mut out);
    assert_eq!(out.forward, [seg(1, false)]);
    let mut held = Vec::new();
    b.for_each_held(&mut |p| held.push(p.seq));
    assert_eq!(held, [0]);
}

#[test]
fn in_fifo_order_later_packets_wait_behind_the_delayed_one() {
    let mut b = boxed(DelayInjectionConfig {
        order: InjectionOrder::Fifo,
        ..cfg(InjectionMethod::Ftfd, 1)
    });
    let mut out = MbOutput::new();
    b.on_owned_packet(at(0), seg(0, true), &mut out);
    b.on_owned_packet(at(1), seg(1, false), &mut out);
    // ACKs travel the other way and are not held.
    b.on_owned_packet(at(2), ack(1), &mut out);
    assert_eq!(out.forward, [ack(1)]);
    assert_eq!(
        out.events[1].kind,
        MbEventKind::HeldBehind {
            by: Dur::from_millis(99)
        }
    );
    out.clear();
    b.on_wakeup(at(100), &mut out);
    assert_eq!(out.forward, [seg(0, true), seg(1, false)]);
    assert_eq!(b.next_wakeup(), None);
}

#[test]
fn injector_ftfd_with_n_one_delays_every_packet_and_p_defaults_to_one_over_n() {
    let mut rng = SimRng::seed_from_u64(1);
    let mut inj = Injector::new(InjectionMethod::Ftfd, Dur::from_millis(5), 1, None);
    assert!((0..10).all(|_| inj.next_delay(&mut rng) == Dur::from_millis(5)));
    let rtfd = Injector::new(InjectionMethod::Rtfd, Dur::ZERO, 5, None);
    assert_eq!(rtfd.probability(), 0.2);
    let set = Injector::new(InjectionMethod::Rtfd, Dur::ZERO, 5, Some(0.5));
    assert_eq!(set.probability(), 0.5);
}
