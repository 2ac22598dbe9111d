//! A tiny deterministic path for driving a [`QuinnPair`] on its own: per direction a
//! FIFO link of fixed rate and propagation delay, a drop pattern (the n-th datagram an
//! end sends is lost), and a freeze that holds every datagram entering a link during it
//! until it ends (a delay spike: nothing is lost, everything is late), or, as an outage,
//! loses them.

use crate::config::QuinnConfig;
use crate::pair::{Carried, Datagram, Decision, End, Fate, QuinnPair};
use crate::seed::PairSeeds;
use quinn_proto::ConnectionStats;
use spikelab_core::{Dur, Time};
use std::collections::BTreeMap;

/// IPv4 (20) and UDP (8) header bytes on the wire around each datagram.
pub const IP_UDP_HEADERS: u32 = 28;

/// An interval during which the links hold what enters them (or lose it, `outage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Freeze {
    pub start: Time,
    pub len: Dur,
    pub outage: bool,
}

impl Freeze {
    pub fn end(&self) -> Time {
        self.start + self.len
    }

    /// When a transmission wanting to start at `t` starts: at `t`, or when the freeze
    /// ends; `None` when an outage loses it.
    fn start_at(&self, t: Time) -> Option<Time> {
        match (t >= self.start && t < self.end(), self.outage) {
            (false, _) => Some(t),
            (true, false) => Some(self.end()),
            (true, true) => None,
        }
    }
}

/// The path between the client and the server, the same in both directions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipe {
    /// One-way propagation delay.
    pub delay: Dur,
    pub rate_bps: u64,
    /// `(end, n)`: the `n`-th datagram (from 0) `end` sends is lost.
    pub drops: Vec<(End, u64)>,
    pub freeze: Option<Freeze>,
}

/// A datagram as the pipe saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    pub at: Time,
    pub from: End,
    /// UDP payload bytes.
    pub size: u32,
    pub data: Option<Carried>,
    pub dropped: bool,
}

/// A decision quinn made, when, and for a loss declaration what had become of the
/// datagram that carried the packet: delivered or still in the pipe (the declaration
/// was spurious) or dropped (genuine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    pub at: Time,
    pub decision: Decision,
    pub fate: Option<Fate>,
}

impl Judged {
    fn lost_by(&self, end: End) -> bool {
        matches!(self.decision, Decision::Lost { end: e, .. } if e == end)
    }
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Run {
    pub sent: Vec<Sent>,
    pub decisions: Vec<Judged>,
    /// When the client learnt that all its bytes and the stream's end were acknowledged.
    pub completed: Option<Time>,
    /// When the run stopped (completion, a closed connection, or the limit).
    pub ended: Time,
    pub received: u64,
    pub client: Option<ConnectionStats>,
    pub server: Option<ConnectionStats>,
}

impl Run {
    /// The PTOs an end's connection fired.
    pub fn ptos(&self, end: End) -> usize {
        let pto = |j: &&Judged| matches!(j.decision, Decision::Pto { end: e, .. } if e == end);
        self.decisions.iter().filter(pto).count()
    }

    /// The packets an end declared lost.
    pub fn lost(&self, end: End) -> usize {
        self.decisions.iter().filter(|j| j.lost_by(end)).count()
    }

    /// The packets an end declared lost that the pipe had delivered or still held.
    pub fn spurious_losses(&self, end: End) -> usize {
        let spurious = |j: &&Judged| j.lost_by(end) && j.fate != Some(Fate::Dropped);
        self.decisions.iter().filter(spurious).count()
    }

    /// How an end's connection closed, if it did: `Some(true)` by the idle timeout.
    pub fn closed(&self, end: End) -> Option<(Time, bool)> {
        self.decisions.iter().find_map(|j| match j.decision {
            Decision::Closed { end: e, timed_out } if e == end => Some((j.at, timed_out)),
            _ => None,
        })
    }
}

/// The pipe's state while a run goes on.
struct Links<'a> {
    pipe: &'a Pipe,
    /// When each direction's link is next free: client to server, server to client.
    free: [Time; 2],
    count: [u64; 2],
    /// Arrivals by time, then order of sending.
    arrivals: BTreeMap<(Time, u64), (u64, End)>,
    order: u64,
    sent: Vec<Sent>,
}

impl Links<'_> {
    fn send(&mut self, now: Time, d: Datagram, pair: &mut QuinnPair) {
        let dir = d.from as usize;
        let n = self.count[dir];
        self.count[dir] += 1;
        let wanted = now.max(self.free[dir]);
        let start = self
            .pipe
            .freeze
            .map_or(Some(wanted), |f| f.start_at(wanted));
        let dropped = start.is_none() || self.pipe.drops.contains(&(d.from, n));
        self.sent.push(Sent {
            at: now,
            from: d.from,
            size: d.size,
            data: d.data,
            dropped,
        });
        match start.filter(|_| !dropped) {
            None => pair.dropped(d.id),
            Some(start) => {
                let wire = u64::from(d.size + IP_UDP_HEADERS);
                let done = start + Dur::transmission(wire, self.pipe.rate_bps);
                self.free[dir] = done;
                self.arrivals
                    .insert((done + self.pipe.delay, self.order), (d.id, d.from.peer()));
                self.order += 1;
            }
        }
    }
}

/// What happens next: an arrival, or an end's timer.
enum Next {
    Arrival(u64, End),
    Timer(End),
}

/// Runs `messages` (their sizes in bytes) from the client to the server over `pipe`,
/// each written when the one before is acknowledged (one message: a bulk transfer),
/// until the client has them all acknowledged, a connection closes, or `limit`.
pub fn run(cfg: &QuinnConfig, seeds: PairSeeds, pipe: &Pipe, messages: &[u64], limit: Time) -> Run {
    run_pair(QuinnPair::new(cfg, seeds), pipe, messages, limit)
}

/// [`run`] with a pair built by the caller.
pub fn run_pair(mut pair: QuinnPair, pipe: &Pipe, messages: &[u64], limit: Time) -> Run {
    let mut links = Links {
        pipe,
        free: [Time::ZERO; 2],
        count: [0; 2],
        arrivals: BTreeMap::new(),
        order: 0,
        sent: Vec::new(),
    };
    let mut decisions = Vec::new();
    let mut out = Vec::new();
    let mut now = Time::ZERO;
    pair.start(now, &mut out);
    let mut messages = messages.iter();
    let mut completed = None;
    let mut taken = Vec::new();
    loop {
        for d in out.drain(..) {
            links.send(now, d, &mut pair);
        }
        pair.take_decisions(&mut taken);
        for decision in taken.drain(..) {
            let fate = match decision {
                Decision::Lost { datagram, .. } => datagram.and_then(|id| pair.fate(id)),
                _ => None,
            };
            decisions.push(Judged {
                at: now,
                decision,
                fate,
            });
        }
        if pair.all_acked() {
            match messages.next() {
                Some(&bytes) => pair.write(now, bytes, &mut out),
                None => {
                    completed = Some(now);
                    break;
                }
            }
            continue;
        }
        if pair.closed(End::Client) || pair.closed(End::Server) {
            break;
        }
        let Some((at, next)) = next_event(&mut pair, &links) else {
            break;
        };
        if at > limit {
            break;
        }
        now = now.max(at);
        match next {
            Next::Arrival(id, to) => {
                links.arrivals.pop_first();
                pair.deliver(now, id, to, &mut out);
            }
            Next::Timer(end) => pair.on_timeout(end, now, &mut out),
        }
    }
    Run {
        sent: links.sent,
        decisions,
        completed,
        ended: now,
        received: pair.received().0,
        client: pair.stats(End::Client),
        server: pair.stats(End::Server),
    }
}

/// The earliest of the next arrival and the two ends' timers (arrivals first on a tie,
/// then the client's timer).
fn next_event(pair: &mut QuinnPair, links: &Links<'_>) -> Option<(Time, Next)> {
    let arrival = links
        .arrivals
        .first_key_value()
        .map(|(&(t, _), &(id, to))| (t, Next::Arrival(id, to)));
    let timers = [End::Client, End::Server]
        .into_iter()
        .filter_map(|e| Some((pair.deadline(e)?, Next::Timer(e))));
    arrival
        .into_iter()
        .chain(timers)
        .min_by_key(|(t, n)| (*t, !matches!(n, Next::Arrival(..))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::rng::RngStreams;

    const BYTES: u64 = 300_000;

    /// The papers' 2 Mbit/s, 150 ms round-trip path.
    fn path() -> Pipe {
        Pipe {
            delay: Dur::from_millis(75),
            rate_bps: 2_000_000,
            drops: Vec::new(),
            freeze: None,
        }
    }

    fn go(pipe: &Pipe, seed: u64) -> Run {
        let seeds = PairSeeds::new(RngStreams::new(seed), 0);
        let limit = Time::ZERO + Dur::from_secs(120);
        run(&QuinnConfig::default(), seeds, pipe, &[BYTES], limit)
    }

    fn freeze(secs: u64, outage: bool) -> Pipe {
        let start = Time::ZERO + Dur::from_millis(800);
        let len = Dur::from_secs(secs);
        Pipe {
            freeze: Some(Freeze { start, len, outage }),
            ..path()
        }
    }

    fn secs(t: Time) -> f64 {
        (t - Time::ZERO).as_secs_f64()
    }

    #[test]
    fn a_bulk_transfer_completes_with_every_byte_read_and_nothing_lost() {
        let r = go(&path(), 1);
        let done = r.completed.expect("the transfer completes");
        assert_eq!(r.received, BYTES);
        assert_eq!((r.lost(End::Client), r.ptos(End::Client)), (0, 0));
        // 300 kB at 2 Mbit/s is 1.2 s of serialisation, plus the handshake.
        assert!(secs(done) > 1.2 && secs(done) < 2.5, "done at {done}");
        let sizes = r.sent.iter().filter(|s| s.from == End::Client);
        assert!(sizes.map(|s| s.size).all(|n| n <= 1200));
        // The stream's bytes went out once each, in order, in the client's datagrams.
        let data: Vec<Carried> = r.sent.iter().filter_map(|s| s.data).collect();
        assert!(data.iter().all(|d| !d.retx));
        assert_eq!(data.iter().map(|d| d.bytes).sum::<u64>(), BYTES);
        assert!(data.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn ping_pong_messages_go_one_stream_each_after_the_last_is_acknowledged() {
        let seeds = PairSeeds::new(RngStreams::new(1), 0);
        let limit = Time::ZERO + Dur::from_secs(60);
        let r = run(&QuinnConfig::default(), seeds, &path(), &[500; 4], limit);
        assert_eq!(r.received, 2000);
        let data: Vec<Carried> = r.sent.iter().filter_map(|s| s.data).collect();
        let starts: Vec<u64> = data.iter().map(|d| d.start).collect();
        assert_eq!(starts, [0, 500, 1000, 1500]);
        // Each message waits for the previous one's acknowledgement: at least an RTT.
        let times: Vec<Time> = r
            .sent
            .iter()
            .filter(|s| s.data.is_some())
            .map(|s| s.at)
            .collect();
        assert!(times
            .windows(2)
            .all(|w| w[1] - w[0] >= Dur::from_millis(150)));
    }

    #[test]
    fn the_same_seed_gives_identical_timing_sizes_and_decisions_twice() {
        let mut pipe = freeze(3, false);
        pipe.drops = vec![(End::Client, 10), (End::Client, 11), (End::Server, 4)];
        let (a, b) = (go(&pipe, 7), go(&pipe, 7));
        assert!(a.completed.is_some());
        assert_eq!(a.sent, b.sent);
        assert_eq!(a.decisions, b.decisions);
        assert_eq!(a.completed, b.completed);
        assert!(a.lost(End::Client) > 0 && a.ptos(End::Client) > 0);
    }

    #[test]
    fn where_quinns_clock_starts_changes_nothing() {
        let mut pipe = freeze(3, true);
        pipe.drops = vec![(End::Client, 10), (End::Server, 4)];
        let seeds = PairSeeds::new(RngStreams::new(5), 0);
        let limit = Time::ZERO + Dur::from_secs(120);
        let cfg = QuinnConfig::default();
        let origin = std::time::Instant::now();
        let later = origin + std::time::Duration::from_secs(86_400);
        let a = run_pair(
            QuinnPair::with_origin(&cfg, seeds, origin),
            &pipe,
            &[BYTES],
            limit,
        );
        let b = run_pair(
            QuinnPair::with_origin(&cfg, seeds, later),
            &pipe,
            &[BYTES],
            limit,
        );
        assert!(a.completed.is_some());
        assert_eq!((a.sent, a.decisions), (b.sent, b.decisions));
    }

    #[test]
    fn a_dropped_datagram_is_declared_lost_and_resent() {
        let mut pipe = path();
        pipe.drops = vec![(End::Client, 20)];
        let r = go(&pipe, 1);
        assert_eq!(r.received, BYTES);
        assert_eq!(r.lost(End::Client), 1);
        assert_eq!(r.spurious_losses(End::Client), 0, "the dropped one");
        assert_eq!(r.ptos(End::Client), 0);
        // Its stream bytes went again, once, marked as sent before.
        let dropped = r.sent.iter().filter(|s| s.from == End::Client).nth(20);
        let lost = dropped.and_then(|s| s.data).expect("a data datagram");
        let again: Vec<&Sent> = r
            .sent
            .iter()
            .filter(|s| s.data.is_some_and(|d| d.retx))
            .collect();
        assert_eq!(again[0].data.map(|d| d.start), Some(lost.start));
        assert!(again
            .iter()
            .all(|s| s.data.is_some_and(|d| d.start < lost.end)));
    }

    #[test]
    fn a_5s_freeze_delays_completion_by_the_freeze_as_held_acks_end_it() {
        let base = go(&path(), 1).completed.expect("completes");
        let r = go(&freeze(5, false), 1);
        let late = secs(r.completed.expect("completes")) - secs(base);
        // The client probes with backed-off PTOs during the freeze; the ACKs the link
        // held reach it one propagation delay after the freeze, before its next probe
        // is due, so the back-off costs nothing: the freeze plus a fraction of an RTT.
        assert!(r.ptos(End::Client) >= 3, "{} PTOs", r.ptos(End::Client));
        assert_eq!(r.lost(End::Client), 0);
        assert!((5.0..5.15).contains(&late), "{late} s late");
    }

    #[test]
    fn a_5s_outage_delays_completion_by_the_outage_plus_the_backed_off_pto() {
        let base = go(&path(), 1).completed.expect("completes");
        let pipe = freeze(5, true);
        let r = go(&pipe, 1);
        let late = secs(r.completed.expect("completes")) - secs(base);
        let end = pipe.freeze.expect("an outage").end();
        // Nothing sent during the outage arrives: the first probe after it is the
        // first packet through (Huitema's case), at the backed-off PTO.
        let probe = r.decisions.iter().find_map(|j| match j.decision {
            Decision::Pto {
                end: End::Client, ..
            } if j.at >= end => Some(j.at),
            _ => None,
        });
        let wait = secs(probe.expect("a probe after the outage")) - secs(end);
        assert!(wait > 0.5, "the backed-off probe waits {wait} s");
        // Beyond the outage and the wait, the rest of the transfer is slower: everything
        // sent into the outage is declared lost on the probe's ACK, a loss span long
        // enough for persistent congestion (RFC 9002 7.6), so the window restarts small.
        let extra = late - 5.0 - wait;
        assert!((0.0..1.0).contains(&extra), "{late} s late, {wait} s wait");
        assert!(r.lost(End::Client) > 10);
        // Every declared loss is of a datagram the outage dropped (genuine).
        assert_eq!(r.spurious_losses(End::Client), 0);
        assert_eq!(r.spurious_losses(End::Server), 0);
    }

    #[test]
    fn a_freeze_longer_than_the_idle_timeout_ends_the_connection_by_timeout() {
        let r = go(&freeze(40, false), 1);
        assert_eq!(r.completed, None);
        let (at, timed_out) = r.closed(End::Client).expect("the client gives up");
        assert!(timed_out, "quinn reports ConnectionError::TimedOut");
        // The idle timeout (30 s) runs from the last packet the client received, just
        // after the freeze began.
        assert!((30.8..31.0).contains(&secs(at)), "closed at {at}");
    }
}
