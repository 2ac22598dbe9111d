//! A quinn client and server connected only through the datagrams the caller carries.
//!
//! [`QuinnPair`] owns both endpoints (quinn-proto's `Endpoint`) and both connections. The
//! client is the flow's sender, as a spikelab TCP flow's source opens the connection and
//! sends: each message the application writes goes on a unidirectional stream of its
//! own ([`crate::app`]); the server reads them. Every datagram quinn transmits is kept
//! here under an id and reported as a [`Datagram`] (id, sending end, UDP payload size,
//! the application bytes it carries); the caller moves it through its network and hands
//! the id back with [`QuinnPair::deliver`] when it arrives.
//!
//! Every call acts on one end only (the one a datagram reaches, whose timer fires, or
//! the client for the application's writes): the two connections share nothing but
//! datagrams, so an event at one never changes what the other would do.
//!
//! Time is the simulation's: quinn sees `base + t` for simulated time `t`, where `base` is
//! one `Instant` taken once per process. quinn only adds to and subtracts `Instant`s, so
//! `base` changes nothing it decides; no call below reads a clock.

use crate::app::{Reader, Writer};
use crate::config::QuinnConfig;
use crate::observe::{observe, Caught, PtoFired, Space, DATA};
use crate::seed::{FixedSystemTime, PairSeeds};
use crate::tls;
use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn_proto::{
    ClientConfig, Connection, ConnectionError, ConnectionHandle, ConnectionStats, DatagramEvent,
    Endpoint, EndpointConfig, Event, ServerConfig, StreamEvent,
};
use spikelab_core::Time;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// One end of the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum End {
    /// The flow's sender, which opens the connection.
    Client,
    /// The flow's receiver.
    Server,
}

impl End {
    pub fn peer(self) -> End {
        match self {
            End::Client => End::Server,
            End::Server => End::Client,
        }
    }
}

/// The application bytes a datagram's STREAM frames carry, as offsets in everything
/// the client's application wrote: `bytes` of them, none below `start` or from `end` on
/// (a datagram may carry the rest of a resent range and new data, so `end - start` can
/// exceed `bytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Carried {
    pub start: u64,
    pub end: u64,
    pub bytes: u64,
    /// Some of them went out before (QUIC resends data in new packets, RFC 9002 2).
    pub retx: bool,
}

/// A datagram quinn handed to the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// The key of its bytes in the pair, to hand back on arrival.
    pub id: u64,
    pub from: End,
    /// UDP payload bytes.
    pub size: u32,
    /// Sent before the sender's handshake completed (Initial and Handshake packets).
    pub handshake: bool,
    /// Stream bytes, if it carries any.
    pub data: Option<Carried>,
    /// Bytes the server's application had read when it was sent: a lower bound on what
    /// the server's ACK frames covered (0 for the client's datagrams).
    pub read: u64,
}

/// What a datagram was at its arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrived {
    pub to: End,
    /// It carried stream bytes the server's application had all read already.
    pub unnecessary: bool,
}

/// Something quinn decided that the caller's results count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A probe timeout (RFC 9002 6.2) fired at `end`.
    Pto { end: End, fired: PtoFired },
    /// `end` declared packet `pn` of `space` lost (RFC 9002 6.1); `datagram`: the
    /// datagram that carried it. `space` is `None` when quinn's loss timer declared it
    /// (no packet being received names the space; the application data space is
    /// assumed, then the handshake spaces).
    Lost {
        end: End,
        space: Option<Space>,
        pn: u64,
        datagram: Option<u64>,
    },
    /// `end`'s congestion controller responded to a loss (or an ECN mark): quinn's
    /// `path.congestion_events`.
    CongestionEvent { end: End },
    /// `end`'s connection closed, by the idle timeout or an error.
    Closed { end: End, timed_out: bool },
}

/// What became of a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Handed to the network, not (yet) delivered: in flight, or lost without word.
    Sent,
    Delivered,
    /// The caller said the network dropped it.
    Dropped,
}

/// The client's and server's addresses (documentation ranges, RFC 5737).
fn addr(end: End) -> SocketAddr {
    match end {
        End::Client => "192.0.2.1:50000".parse().expect("an address"),
        End::Server => "192.0.2.2:4433".parse().expect("an address"),
    }
}

/// The origin of quinn's clock: one `Instant`, taken the first time it is asked for.
fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

/// quinn's clock for a pair: simulated time from an origin.
#[derive(Clone, Copy, Debug)]
struct Clock(Instant);

impl Clock {
    fn instant(self, t: Time) -> Instant {
        self.0 + Duration::from_nanos(t.0)
    }

    fn time(self, i: Instant) -> Time {
        Time(i.saturating_duration_since(self.0).as_nanos() as u64)
    }
}

/// One endpoint and its connection, once it has one.
struct Side {
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
    /// The connection's statistics when last looked at (congestion events are
    /// reported as changes).
    seen: ConnectionStats,
    /// The datagram that carried each packet this end sent, by (space, packet number).
    carried: BTreeMap<(Space, u64), u64>,
    /// Packets this end was caught declaring lost, to check against its statistics.
    lost: u64,
    /// quinn's `poll_timeout` after the last call (it takes `&mut self`).
    deadline: Option<Time>,
}

/// The two endpoints of one quinn connection and the datagrams between them.
pub struct QuinnPair {
    clock: Clock,
    client: Side,
    server: Side,
    client_config: ClientConfig,
    writer: Writer,
    reader: Reader,
    /// The highest application byte sent so far (for [`Carried::retx`]).
    sent_end: u64,
    in_flight: BTreeMap<u64, (End, Vec<u8>)>,
    /// Every datagram's fate, and the stream bytes it carried, by id (from 0).
    fates: Vec<(Fate, Option<Carried>)>,
    decisions: Vec<Decision>,
    buf: Vec<u8>,
}

impl QuinnPair {
    pub fn new(cfg: &QuinnConfig, seeds: PairSeeds) -> QuinnPair {
        QuinnPair::with_origin(cfg, seeds, base())
    }

    /// A pair whose clock starts at `origin` (any `Instant`: nothing quinn decides
    /// depends on it, which a test checks).
    pub fn with_origin(cfg: &QuinnConfig, seeds: PairSeeds, origin: Instant) -> QuinnPair {
        let transport = Arc::new(cfg.transport());
        let crypto = QuicClientConfig::try_from(tls::client()).expect("TLS 1.3 with AES-128-GCM");
        let mut client_config = ClientConfig::new(Arc::new(crypto));
        client_config
            .transport_config(transport.clone())
            .initial_dst_cid_provider(Arc::new(seeds.initial_dst_cid()));
        let crypto = QuicServerConfig::try_from(tls::server()).expect("TLS 1.3 with AES-128-GCM");
        let mut server_config = ServerConfig::new(Arc::new(crypto), Arc::new(seeds.token_key()));
        server_config
            .transport_config(transport)
            .time_source(Arc::new(FixedSystemTime));
        QuinnPair {
            clock: Clock(origin),
            client: Side::new(&seeds, false, None, cfg.mtu_discovery),
            server: Side::new(&seeds, true, Some(server_config), cfg.mtu_discovery),
            client_config,
            writer: Writer::default(),
            reader: Reader::default(),
            sent_end: 0,
            in_flight: BTreeMap::new(),
            fates: Vec::new(),
            decisions: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn side(&mut self, end: End) -> &mut Side {
        match end {
            End::Client => &mut self.client,
            End::Server => &mut self.server,
        }
    }

    /// The client opens the connection.
    pub fn start(&mut self, now: Time, out: &mut Vec<Datagram>) {
        let cfg = self.client_config.clone();
        let conn = self
            .client
            .endpoint
            .connect(
                self.clock.instant(now),
                cfg,
                addr(End::Server),
                tls::SERVER_NAME,
            )
            .expect("a valid remote address and fresh connection ids");
        self.client.conn = Some(conn);
        self.pump(End::Client, now, out);
    }

    /// The client's application writes a message of `bytes` (on a stream of its own).
    pub fn write(&mut self, now: Time, bytes: u64, out: &mut Vec<Datagram>) {
        self.writer.message(bytes);
        self.pump(End::Client, now, out);
    }

    /// Datagram `id` arrives at `to`; `None` if it is not a datagram of this pair still
    /// travelling towards `to` (a packet a network box made, a copy, a second arrival).
    pub fn deliver(
        &mut self,
        now: Time,
        id: u64,
        to: End,
        out: &mut Vec<Datagram>,
    ) -> Option<Arrived> {
        if self
            .in_flight
            .get(&id)
            .is_none_or(|(from, _)| from.peer() != to)
        {
            return None;
        }
        let (from, bytes) = self.in_flight.remove(&id)?;
        let (fate, data) = &mut self.fates[id as usize];
        *fate = Fate::Delivered;
        let read_before = self.reader.read;
        let unnecessary = data.is_some_and(|d| d.end <= read_before);
        let to = from.peer();
        let at = self.clock.instant(now);
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let side = self.side(to);
        let data = bytes.as_slice().into();
        match side
            .endpoint
            .handle(at, addr(from), None, None, data, &mut buf)
        {
            Some(DatagramEvent::ConnectionEvent(h, ev)) => {
                if let Some((_, c)) = side.conn.as_mut().filter(|(ch, _)| *ch == h) {
                    let ((), caught) = observe(|| c.handle_event(ev));
                    self.caught(to, caught);
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                match side.endpoint.accept(incoming, at, &mut buf, None) {
                    Ok(conn) => side.conn = Some(conn),
                    Err(e) => {
                        if let Some(t) = e.response {
                            self.emit(to, &buf[..t.size], Vec::new(), out);
                        }
                    }
                }
            }
            Some(DatagramEvent::Response(t)) => {
                self.emit(to, &buf[..t.size], Vec::new(), out);
            }
            None => {}
        }
        self.buf = buf;
        self.pump(to, now, out);
        Some(Arrived { to, unnecessary })
    }

    /// When `end`'s connection next wants [`QuinnPair::on_timeout`], if it does.
    pub fn deadline(&self, end: End) -> Option<Time> {
        let side = match end {
            End::Client => &self.client,
            End::Server => &self.server,
        };
        side.deadline
    }

    /// `end`'s timers fire at `now`.
    pub fn on_timeout(&mut self, end: End, now: Time, out: &mut Vec<Datagram>) {
        let at = self.clock.instant(now);
        if let Some((_, c)) = self.side(end).conn.as_mut() {
            let ((), caught) = observe(|| c.handle_timeout(at));
            self.caught(end, caught);
        }
        self.pump(end, now, out);
    }

    /// Every message the application wrote is acknowledged, stream end included.
    pub fn all_acked(&self) -> bool {
        self.writer.all_acked()
    }

    /// Bytes the application has written.
    pub fn written(&self) -> u64 {
        self.writer.written()
    }

    /// Bytes of the messages quinn reported acknowledged in full.
    pub fn acked_bytes(&self) -> u64 {
        self.writer.acked_bytes()
    }

    /// The end of the highest stream byte the client has sent.
    pub fn sent_end(&self) -> u64 {
        self.sent_end
    }

    /// Bytes the server's application has read, and the streams it read to their end.
    pub fn received(&self) -> (u64, u64) {
        (self.reader.read, self.reader.ended)
    }

    /// quinn's statistics of `end`'s connection.
    pub fn stats(&self, end: End) -> Option<ConnectionStats> {
        let side = match end {
            End::Client => &self.client,
            End::Server => &self.server,
        };
        side.conn.as_ref().map(|(_, c)| c.stats())
    }

    /// `end`'s connection was opened and is closed.
    pub fn closed(&mut self, end: End) -> bool {
        self.side(end)
            .conn
            .as_ref()
            .is_some_and(|(_, c)| c.is_closed())
    }

    /// `end`'s connection is still in its handshake (or not yet opened).
    pub fn handshaking(&mut self, end: End) -> bool {
        self.side(end)
            .conn
            .as_ref()
            .is_none_or(|(_, c)| c.is_handshaking())
    }

    /// quinn's smoothed RTT estimate at `end` (its initial RTT before a sample).
    pub fn rtt(&self, end: End) -> Option<Duration> {
        let side = match end {
            End::Client => &self.client,
            End::Server => &self.server,
        };
        side.conn.as_ref().map(|(_, c)| c.rtt())
    }

    /// Drains the decisions quinn made since the last call.
    pub fn take_decisions(&mut self, into: &mut Vec<Decision>) {
        into.append(&mut self.decisions);
    }

    /// The bytes of a datagram still in the network.
    pub fn datagram_bytes(&self, id: u64) -> Option<&[u8]> {
        self.in_flight.get(&id).map(|(_, b)| b.as_slice())
    }

    /// Forgets a datagram the network dropped.
    pub fn dropped(&mut self, id: u64) {
        if self.in_flight.remove(&id).is_some() {
            self.fates[id as usize].0 = Fate::Dropped;
        }
    }

    /// What became of datagram `id`, if there was one.
    pub fn fate(&self, id: u64) -> Option<Fate> {
        self.fates.get(id as usize).map(|f| f.0)
    }

    /// The datagram that carried packet `pn` of `space` from `end`.
    fn carrier(&self, end: End, space: Option<Space>, pn: u64) -> Option<u64> {
        let spaces = space.map_or([DATA, 1, 0], |s| [s, s, s]);
        let side = match end {
            End::Client => &self.client,
            End::Server => &self.server,
        };
        spaces
            .iter()
            .find_map(|&s| side.carried.get(&(s, pn)).copied())
    }

    /// Records the probe timeouts and loss declarations quinn reported during one call
    /// at `end`.
    fn caught(&mut self, end: End, caught: Vec<Caught>) {
        for c in caught {
            match c {
                Caught::Pto(fired) => self.decisions.push(Decision::Pto { end, fired }),
                Caught::Lost { space, pns } => {
                    self.side(end).lost += pns.len() as u64;
                    for pn in pns {
                        let datagram = self.carrier(end, space, pn);
                        let lost = Decision::Lost {
                            end,
                            space,
                            pn,
                            datagram,
                        };
                        self.decisions.push(lost);
                    }
                }
                Caught::Built { .. } | Caught::Stream { .. } => {}
            }
        }
    }

    /// Keeps a datagram `from` sent, with what quinn reported building it.
    fn emit(&mut self, from: End, bytes: &[u8], built: Vec<Caught>, out: &mut Vec<Datagram>) {
        let id = self.fates.len() as u64;
        let data = self.carried(&built);
        for c in &built {
            if let Caught::Built { space, pn } = *c {
                self.side(from).carried.insert((space, pn), id);
            }
        }
        self.caught(from, built);
        self.fates.push((Fate::Sent, data));
        self.in_flight.insert(id, (from, bytes.to_vec()));
        out.push(Datagram {
            id,
            from,
            size: bytes.len() as u32,
            handshake: self.handshaking(from),
            data,
            read: if from == End::Server {
                self.reader.read
            } else {
                0
            },
        });
    }

    /// The application bytes of the STREAM frames quinn wrote into one datagram.
    fn carried(&mut self, built: &[Caught]) -> Option<Carried> {
        let mut carried: Option<Carried> = None;
        for c in built {
            let Caught::Stream { stream, off, len } = *c else {
                continue;
            };
            let Some(first) = self.writer.start(stream) else {
                continue;
            };
            let (start, end) = (first + off, first + off + len);
            let d = carried.get_or_insert(Carried {
                start,
                end,
                bytes: 0,
                retx: false,
            });
            (d.start, d.end, d.bytes) = (d.start.min(start), d.end.max(end), d.bytes + len);
        }
        let d = carried.as_mut()?;
        d.retx = d.start < self.sent_end;
        self.sent_end = self.sent_end.max(d.end);
        carried
    }

    /// Lets `end`'s connection act on what changed until it has nothing more to do:
    /// endpoint bookkeeping, application events, the application's reads or writes,
    /// transmissions.
    fn pump(&mut self, end: End, now: Time, out: &mut Vec<Datagram>) {
        self.settle(end, now, out);
        let clock = self.clock;
        let side = self.side(end);
        side.deadline = side
            .conn
            .as_mut()
            .and_then(|(_, c)| c.poll_timeout().map(|i| clock.time(i)));
    }

    fn settle(&mut self, end: End, now: Time, out: &mut Vec<Datagram>) {
        let at = self.clock.instant(now);
        loop {
            let mut busy = self.side(end).endpoint_events();
            self.app_events(end);
            match end {
                End::Client => match self.client.conn.as_mut() {
                    Some((_, c)) => self.writer.write(c),
                    None => return,
                },
                End::Server => match self.server.conn.as_mut() {
                    Some((_, c)) => self.reader.read(c),
                    None => return,
                },
            }
            busy |= self.transmit(end, at, out);
            self.congestion(end);
            if !busy {
                return;
            }
        }
    }

    fn app_events(&mut self, end: End) {
        let Some((_, c)) = self.side(end).conn.as_mut() else {
            return;
        };
        let mut events = Vec::new();
        while let Some(e) = c.poll() {
            events.push(e);
        }
        for e in events {
            match e {
                Event::Stream(StreamEvent::Finished { .. }) if end == End::Client => {
                    self.writer.on_finished();
                }
                Event::ConnectionLost { reason } => {
                    let timed_out = matches!(reason, ConnectionError::TimedOut);
                    self.decisions.push(Decision::Closed { end, timed_out });
                }
                _ => {}
            }
        }
    }

    /// Collects every datagram `end` wants to send now; whether it sent any.
    fn transmit(&mut self, end: End, at: Instant, out: &mut Vec<Datagram>) -> bool {
        let mut buf = std::mem::take(&mut self.buf);
        let mut sent = false;
        loop {
            buf.clear();
            let Some((_, c)) = self.side(end).conn.as_mut() else {
                break;
            };
            let (t, caught) = observe(|| c.poll_transmit(at, 1, &mut buf));
            let Some(t) = t else {
                self.caught(end, caught);
                break;
            };
            self.emit(end, &buf[..t.size], caught, out);
            sent = true;
        }
        self.buf = buf;
        sent
    }

    /// Reports the congestion events `end` had since last looked at, and checks that
    /// the losses caught from quinn's trace are the ones its statistics count.
    fn congestion(&mut self, end: End) {
        let side = self.side(end);
        let Some((_, c)) = side.conn.as_ref() else {
            return;
        };
        let now = c.stats();
        let events = now.path.congestion_events - side.seen.path.congestion_events;
        assert_eq!(
            side.lost, now.path.lost_packets,
            "quinn's \"packets lost\" trace event and its statistics disagree: is \
             quinn-proto still 0.11.19 (observe::LOSS_LINE)?"
        );
        side.seen = now;
        let events = (0..events).map(|_| Decision::CongestionEvent { end });
        self.decisions.extend(events);
    }
}

impl Side {
    fn new(seeds: &PairSeeds, server: bool, cfg: Option<ServerConfig>, mtud: bool) -> Side {
        let mut ep = EndpointConfig::new(Arc::new(seeds.reset_key(server)));
        ep.rng_seed(Some(seeds.endpoint(server)))
            .cid_generator(seeds.cids(server));
        Side {
            endpoint: Endpoint::new(Arc::new(ep), cfg.map(Arc::new), mtud, None),
            conn: None,
            seen: ConnectionStats::default(),
            carried: BTreeMap::new(),
            lost: 0,
            deadline: None,
        }
    }

    /// Passes the connection's messages to its endpoint and the answers back; whether
    /// there were any.
    fn endpoint_events(&mut self) -> bool {
        let Some((h, c)) = self.conn.as_mut() else {
            return false;
        };
        let mut any = false;
        while let Some(ev) = c.poll_endpoint_events() {
            any = true;
            if let Some(back) = self.endpoint.handle_event(*h, ev) {
                c.handle_event(back);
            }
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::rng::RngStreams;

    /// The client's first Initial datagram (the ClientHello) of a fresh pair.
    fn first_initial(seed: u64) -> Vec<u8> {
        let mut pair = QuinnPair::new(
            &QuinnConfig::default(),
            PairSeeds::new(RngStreams::new(seed), 0),
        );
        let mut out = Vec::new();
        pair.start(Time::ZERO, &mut out);
        let first = out.first().expect("the client sends its Initial");
        pair.datagram_bytes(first.id)
            .expect("kept until delivered")
            .to_vec()
    }

    #[test]
    fn what_stays_random_is_the_key_share_not_the_size_or_the_header() {
        let (a, b) = (first_initial(3), first_initial(3));
        assert_eq!(a.len(), 1200, "RFC 9000 14.1 pads the client's Initial");
        assert_eq!(a.len(), b.len());
        // The long header up to the packet number (RFC 9000 17.2.2: flags, version,
        // the seeded connection ids, token and length) is the same; the protected
        // payload carries rustls' X25519 share from ring's system RNG, so it differs.
        let header = 1 + 4 + 1 + 8 + 1 + 8 + 1 + 2;
        assert_eq!(a[1..header], b[1..header]);
        assert_ne!(a[header..], b[header..]);
    }

    #[test]
    fn a_datagram_is_handed_back_by_id_once() {
        let mut pair = QuinnPair::new(
            &QuinnConfig::default(),
            PairSeeds::new(RngStreams::new(1), 0),
        );
        let mut out = Vec::new();
        pair.start(Time::ZERO, &mut out);
        let d = out[0];
        let mut back = Vec::new();
        let arrived = pair.deliver(Time(1_000_000), d.id, End::Server, &mut back);
        assert_eq!(arrived.map(|a| a.to), Some(End::Server));
        assert!(!back.is_empty(), "the server answers the Initial");
        assert_eq!(
            pair.deliver(Time(2_000_000), d.id, End::Server, &mut back),
            None
        );
    }
}
