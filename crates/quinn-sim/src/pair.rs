//! A quinn client and server connected only through the datagrams the caller carries.
//!
//! [`QuinnPair`] owns both endpoints (quinn-proto's `Endpoint`) and both connections. The
//! client is the flow's sender, as a spikelab TCP flow's source opens the connection and
//! sends: it opens one unidirectional stream and writes the application's bytes on it;
//! the server reads them. Every datagram quinn transmits is kept here under an id and
//! reported as a [`Datagram`] (id, sending end, UDP payload size); the caller moves it
//! through its network and hands the id back with [`QuinnPair::deliver`] when it arrives.
//!
//! Time is the simulation's: quinn sees `base + t` for simulated time `t`, where `base` is
//! one `Instant` taken once per process. quinn only adds to and subtracts `Instant`s, so
//! `base` changes nothing it decides; no call below reads a clock.

use crate::config::QuinnConfig;
use crate::observe::{observe, Caught, PtoFired, Space, DATA};
use crate::seed::{FixedSystemTime, PairSeeds};
use crate::tls;
use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn_proto::{
    ClientConfig, Connection, ConnectionError, ConnectionHandle, ConnectionStats, DatagramEvent,
    Dir, Endpoint, EndpointConfig, Event, ServerConfig, StreamEvent, StreamId,
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

/// A datagram quinn handed to the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// The key of its bytes in the pair, to hand back on arrival.
    pub id: u64,
    pub from: End,
    /// UDP payload bytes.
    pub size: u32,
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

/// One endpoint and its connection, once it has one.
struct Side {
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
    /// The connection's statistics when last looked at (losses are reported as changes).
    seen: ConnectionStats,
}

/// The client's stream: what the application wrote, what quinn took, what was acknowledged.
#[derive(Default)]
struct Sending {
    stream: Option<StreamId>,
    written: u64,
    taken: u64,
    finish: bool,
    /// quinn reported the finished stream acknowledged in full.
    acked: bool,
}

/// The two endpoints of one quinn connection and the datagrams between them.
pub struct QuinnPair {
    client: Side,
    server: Side,
    client_config: ClientConfig,
    sending: Sending,
    /// The server's end of the stream once accepted, the bytes it has read, and whether
    /// it has read the stream's end.
    recv_stream: Option<StreamId>,
    received: u64,
    received_end: bool,
    in_flight: BTreeMap<u64, (End, Vec<u8>)>,
    /// Every datagram's fate, by id (ids count from 0).
    fates: Vec<Fate>,
    /// The datagram that carried each packet an end sent, by (space, packet number).
    carried: [BTreeMap<(Space, u64), u64>; 2],
    /// Packets each end was caught declaring lost, to check against its statistics.
    lost_caught: [u64; 2],
    decisions: Vec<Decision>,
    buf: Vec<u8>,
}

impl QuinnPair {
    pub fn new(cfg: &QuinnConfig, seeds: PairSeeds) -> QuinnPair {
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
            client: Side::new(&seeds, false, None, cfg.mtu_discovery),
            server: Side::new(&seeds, true, Some(server_config), cfg.mtu_discovery),
            client_config,
            sending: Sending::default(),
            recv_stream: None,
            received: 0,
            received_end: false,
            in_flight: BTreeMap::new(),
            fates: Vec::new(),
            carried: [BTreeMap::new(), BTreeMap::new()],
            lost_caught: [0; 2],
            decisions: Vec::new(),
            buf: Vec::new(),
        }
    }

    fn instant(t: Time) -> Instant {
        base() + Duration::from_nanos(t.0)
    }

    fn time(i: Instant) -> Time {
        Time(i.saturating_duration_since(base()).as_nanos() as u64)
    }

    fn side(&mut self, end: End) -> &mut Side {
        match end {
            End::Client => &mut self.client,
            End::Server => &mut self.server,
        }
    }

    /// The client opens the connection.
    pub fn start(&mut self, now: Time, out: &mut Vec<Datagram>) {
        let at = Self::instant(now);
        let cfg = self.client_config.clone();
        let conn = self
            .client
            .endpoint
            .connect(at, cfg, addr(End::Server), tls::SERVER_NAME)
            .expect("a valid remote address and fresh connection ids");
        self.client.conn = Some(conn);
        self.pump(now, out);
    }

    /// The application writes `bytes` more.
    pub fn write(&mut self, now: Time, bytes: u64, out: &mut Vec<Datagram>) {
        self.sending.written += bytes;
        self.pump(now, out);
    }

    /// The application will write nothing more: the stream ends after what it wrote.
    pub fn finish(&mut self, now: Time, out: &mut Vec<Datagram>) {
        self.sending.finish = true;
        self.pump(now, out);
    }

    /// Datagram `id` arrives at its destination; `None` if it is not this pair's.
    pub fn deliver(&mut self, now: Time, id: u64, out: &mut Vec<Datagram>) -> Option<End> {
        let (from, bytes) = self.in_flight.remove(&id)?;
        self.fates[id as usize] = Fate::Delivered;
        let to = from.peer();
        let at = Self::instant(now);
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let side = self.side(to);
        let event = side.endpoint.handle(
            at,
            addr(from),
            None,
            None,
            bytes.as_slice().into(),
            &mut buf,
        );
        match event {
            Some(DatagramEvent::ConnectionEvent(h, ev)) => {
                if let Some((_, c)) = side.conn.as_mut().filter(|(ch, _)| *ch == h) {
                    let ((), caught) = observe(|| c.handle_event(ev));
                    self.caught(to, caught, None);
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                match side.endpoint.accept(incoming, at, &mut buf, None) {
                    Ok(conn) => side.conn = Some(conn),
                    Err(e) => {
                        if let Some(t) = e.response {
                            self.emit(to, &buf[..t.size], out);
                        }
                    }
                }
            }
            Some(DatagramEvent::Response(t)) => {
                self.emit(to, &buf[..t.size], out);
            }
            None => {}
        }
        self.buf = buf;
        self.pump(now, out);
        Some(to)
    }

    /// When `end`'s connection next wants [`QuinnPair::on_timeout`], if it does.
    pub fn deadline(&mut self, end: End) -> Option<Time> {
        let (_, c) = self.side(end).conn.as_mut()?;
        c.poll_timeout().map(Self::time)
    }

    /// `end`'s timers fire at `now`.
    pub fn on_timeout(&mut self, end: End, now: Time, out: &mut Vec<Datagram>) {
        let at = Self::instant(now);
        if let Some((_, c)) = self.side(end).conn.as_mut() {
            let ((), caught) = observe(|| c.handle_timeout(at));
            self.caught(end, caught, None);
        }
        self.pump(now, out);
    }

    /// Everything the application wrote, and the stream's end, acknowledged.
    pub fn all_acked(&self) -> bool {
        self.sending.acked
    }

    /// Bytes the application has written.
    pub fn written(&self) -> u64 {
        self.sending.written
    }

    /// Bytes the server's application has read.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The server has read the stream to its end.
    pub fn received_all(&self) -> bool {
        self.received_end
    }

    /// quinn's statistics of `end`'s connection.
    pub fn stats(&mut self, end: End) -> Option<ConnectionStats> {
        self.side(end).conn.as_ref().map(|(_, c)| c.stats())
    }

    /// `end`'s connection is closed (or was never opened).
    pub fn closed(&mut self, end: End) -> bool {
        self.side(end)
            .conn
            .as_ref()
            .is_none_or(|(_, c)| c.is_closed())
    }

    /// Drains the decisions quinn made since the last call.
    pub fn take_decisions(&mut self) -> Vec<Decision> {
        std::mem::take(&mut self.decisions)
    }

    /// The bytes of a datagram still in the network.
    pub fn datagram_bytes(&self, id: u64) -> Option<&[u8]> {
        self.in_flight.get(&id).map(|(_, b)| b.as_slice())
    }

    /// Forgets a datagram the network dropped.
    pub fn dropped(&mut self, id: u64) {
        if self.in_flight.remove(&id).is_some() {
            self.fates[id as usize] = Fate::Dropped;
        }
    }

    /// What became of datagram `id`, if there was one.
    pub fn fate(&self, id: u64) -> Option<Fate> {
        self.fates.get(id as usize).copied()
    }

    /// The datagram that carried packet `pn` of `space` from `end`.
    fn carrier(&self, end: End, space: Option<Space>, pn: u64) -> Option<u64> {
        let spaces = space.map_or([DATA, 1, 0], |s| [s, s, s]);
        let carried = &self.carried[end as usize];
        spaces.iter().find_map(|&s| carried.get(&(s, pn)).copied())
    }

    /// Records what quinn reported during one call at `end`; `datagram`: the datagram
    /// the call built, if it built one.
    fn caught(&mut self, end: End, caught: Vec<Caught>, datagram: Option<u64>) {
        for c in caught {
            match c {
                Caught::Pto(fired) => self.decisions.push(Decision::Pto { end, fired }),
                Caught::Built { space, pn } => {
                    let id = datagram.expect("packets are built only into datagrams");
                    self.carried[end as usize].insert((space, pn), id);
                }
                Caught::Lost { space, pns } => {
                    self.lost_caught[end as usize] += pns.len() as u64;
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
            }
        }
    }

    fn emit(&mut self, from: End, bytes: &[u8], out: &mut Vec<Datagram>) -> u64 {
        let id = self.fates.len() as u64;
        self.fates.push(Fate::Sent);
        self.in_flight.insert(id, (from, bytes.to_vec()));
        let size = bytes.len() as u32;
        out.push(Datagram { id, from, size });
        id
    }

    /// Lets both connections act on what changed until neither has more to do: endpoint
    /// bookkeeping, application events, the stream's reads and writes, transmissions.
    fn pump(&mut self, now: Time, out: &mut Vec<Datagram>) {
        let at = Self::instant(now);
        loop {
            let mut busy = false;
            for end in [End::Client, End::Server] {
                busy |= self.side(end).endpoint_events();
                self.app_events(end);
                self.stream_io(end);
                busy |= self.transmit(end, at, out);
                self.congestion(end);
            }
            if !busy {
                break;
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
                Event::Connected if end == End::Client => {
                    let (_, c) = self.client.conn.as_mut().expect("connected");
                    self.sending.stream = c.streams().open(Dir::Uni);
                }
                Event::Stream(StreamEvent::Finished { .. }) if end == End::Client => {
                    self.sending.acked = true;
                }
                Event::ConnectionLost { reason } => {
                    let timed_out = matches!(reason, ConnectionError::TimedOut);
                    self.decisions.push(Decision::Closed { end, timed_out });
                }
                _ => {}
            }
        }
    }

    fn stream_io(&mut self, end: End) {
        match end {
            End::Client => self.write_stream(),
            End::Server => self.read_stream(),
        }
    }

    /// Hands quinn as much of the application's bytes as its send buffer takes, and the
    /// stream's end once all are taken and the application finished.
    fn write_stream(&mut self) {
        const ZEROS: [u8; 16384] = [0; 16384];
        let s = &mut self.sending;
        let (Some(id), Some((_, c))) = (s.stream, self.client.conn.as_mut()) else {
            return;
        };
        let mut stream = c.send_stream(id);
        while s.taken < s.written {
            let n = (s.written - s.taken).min(ZEROS.len() as u64) as usize;
            match stream.write(&ZEROS[..n]) {
                Ok(0) | Err(_) => break,
                Ok(k) => s.taken += k as u64,
            }
        }
        if s.finish && s.taken == s.written && stream.finish().is_ok() {
            s.finish = false;
        }
    }

    /// Reads whatever the server's stream holds.
    fn read_stream(&mut self) {
        let Some((_, c)) = self.server.conn.as_mut() else {
            return;
        };
        if self.recv_stream.is_none() {
            self.recv_stream = c.streams().accept(Dir::Uni);
        }
        let Some(id) = self.recv_stream else {
            return;
        };
        let mut stream = c.recv_stream(id);
        let Ok(mut chunks) = stream.read(true) else {
            return;
        };
        loop {
            match chunks.next(usize::MAX) {
                Ok(Some(chunk)) => self.received += chunk.bytes.len() as u64,
                Ok(None) => {
                    self.received_end = true;
                    break;
                }
                Err(_) => break,
            }
        }
        let _ = chunks.finalize();
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
                self.caught(end, caught, None);
                break;
            };
            let id = self.emit(end, &buf[..t.size], out);
            self.caught(end, caught, Some(id));
            sent = true;
        }
        self.buf = buf;
        sent
    }

    /// Reports the congestion events `end` had since last looked at, and checks that
    /// the losses caught from quinn's trace are the ones its statistics count.
    fn congestion(&mut self, end: End) {
        let lost = self.lost_caught[end as usize];
        let side = self.side(end);
        let Some((_, c)) = side.conn.as_ref() else {
            return;
        };
        let now = c.stats();
        let events = now.path.congestion_events - side.seen.path.congestion_events;
        let counted = now.path.lost_packets;
        side.seen = now;
        assert_eq!(
            lost, counted,
            "quinn's \"packets lost\" trace event and its statistics disagree: is \
             quinn-proto still 0.11.19 (observe::LOSS_LINE)?"
        );
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
        assert_eq!(
            pair.deliver(Time(1_000_000), d.id, &mut back),
            Some(End::Server)
        );
        assert!(!back.is_empty(), "the server answers the Initial");
        assert_eq!(pair.deliver(Time(2_000_000), d.id, &mut back), None);
    }
}
