//! What quinn decides that its public API does not report, read from its `tracing`
//! call sites.
//!
//! quinn-proto keeps the PTO count private (`Connection::pto_count`), and its statistics
//! (`ConnectionStats`) count lost packets (`path.lost_packets`, `lost_bytes`) and
//! congestion events but neither PTOs nor which packets were declared lost. Four call
//! sites of quinn-proto 0.11.19 (quinn-proto/src/connection/) say more:
//!
//! - `on_loss_detection_timeout`'s event "PTO fired" (`count`: probe timeouts before
//!   this one, `in_flight`, `space`);
//! - `detect_lost_packets`' event "packets lost: [pn, ...], bytes lost: n"
//!   (mod.rs line [`LOSS_LINE`]; its fields are only a message, so the line tells it
//!   apart);
//! - the span `send` (packet_builder.rs: `space`, `pn`) around every packet built, so
//!   the packets of each datagram are known;
//! - the event "STREAM" (streams/state.rs: `id`, `off`, `len`, `fin`) for every STREAM
//!   frame written into a packet, so the stream bytes of each datagram are known;
//! - the span `recv` (`space`) around every packet received, in which the losses an
//!   ACK reveals are declared: it names their packet number space.
//!
//! A subscriber interested in these alone catches them; every other call site of quinn
//! gets `Interest::never`, so tracing costs it nothing. None of this is quinn's semver
//! API, which is why the version is pinned exactly; `pair.rs` checks every catch
//! of lost packets against `ConnectionStats` and the freeze tests count PTOs, so a
//! quinn update that moves them fails the tests.

use std::cell::RefCell;
use std::sync::OnceLock;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};

/// The line of the "packets lost" event in quinn-proto 0.11.19's connection/mod.rs.
pub const LOSS_LINE: u32 = 1771;

/// A packet number space (RFC 9000 12.3): 0 Initial, 1 Handshake, 2 Application data.
pub type Space = u8;
pub const DATA: Space = 2;

/// One probe timeout quinn reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtoFired {
    /// Probe timeouts before this one since an acknowledgement last reset the count.
    pub count: u64,
    /// Bytes in flight when it fired.
    pub in_flight: u64,
    pub space: Space,
}

/// What one call into quinn reported, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caught {
    Pto(PtoFired),
    /// A packet was built (into the datagram being assembled).
    Built {
        space: Space,
        pn: u64,
    },
    /// A STREAM frame of the `stream`-th stream (by index among its initiator's streams
    /// of its direction) carrying bytes `off..off + len` went into that packet.
    Stream {
        stream: u64,
        off: u64,
        len: u64,
    },
    /// Packets declared lost; `space` is `None` when no received packet was being
    /// processed (the loss timer fired).
    Lost {
        space: Option<Space>,
        pns: Vec<u64>,
    },
}

/// The call sites of interest.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Site {
    Pto,
    Stream,
    Loss,
    Send,
    Recv,
}

fn site(m: &Metadata<'_>) -> Option<Site> {
    if !m.target().starts_with("quinn_proto") {
        return None;
    }
    let f = m.fields();
    let has = |name| f.field(name).is_some();
    if m.is_span() {
        return match m.name() {
            "send" if has("pn") => Some(Site::Send),
            "recv" => Some(Site::Recv),
            _ => None,
        };
    }
    if has("count") && has("in_flight") && has("space") {
        return Some(Site::Pto);
    }
    if has("id") && has("off") && has("len") && has("fin") {
        return Some(Site::Stream);
    }
    let file = m.file().unwrap_or("");
    let loss = file.ends_with("mod.rs") && file.contains("connection") && f.len() == 1;
    (loss && m.line() == Some(LOSS_LINE)).then_some(Site::Loss)
}

#[derive(Default)]
struct Local {
    caught: Vec<Caught>,
    /// Open `recv` spans (id, space) and the spaces of those entered, innermost last.
    recv: Vec<(u64, Space)>,
    entered: Vec<Space>,
    next_id: u64,
}

thread_local! {
    static LOCAL: RefCell<Local> = RefCell::new(Local::default());
}

/// The fields the call sites carry.
#[derive(Default)]
struct Fields {
    count: u64,
    in_flight: u64,
    space: Space,
    pn: u64,
    off: u64,
    len: u64,
    stream: u64,
    message: String,
}

impl Visit for Fields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "count" => self.count = value,
            "in_flight" => self.in_flight = value,
            "pn" => self.pn = value,
            "off" => self.off = value,
            "len" => self.len = value,
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "space" => {
                self.space = match format!("{value:?}").as_str() {
                    "Initial" => 0,
                    "Handshake" => 1,
                    _ => DATA,
                }
            }
            "message" => self.message = format!("{value:?}"),
            // StreamId's Display: "client unidirectional stream 3".
            "id" => {
                let shown = format!("{value:?}");
                let index = shown.rsplit(' ').next().and_then(|n| n.parse().ok());
                self.stream = index.unwrap_or(u64::MAX);
            }
            _ => {}
        }
    }
}

/// The packet numbers listed in "packets lost: [3, 4], bytes lost: 2400".
fn lost_pns(message: &str) -> Vec<u64> {
    let list = message.split_once('[').and_then(|(_, r)| r.split_once(']'));
    let list = list.map_or("", |(l, _)| l);
    list.split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect()
}

struct Catcher;

impl Subscriber for Catcher {
    fn register_callsite(&self, m: &'static Metadata<'static>) -> Interest {
        if site(m).is_some() {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, m: &Metadata<'_>) -> bool {
        site(m).is_some()
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut f = Fields::default();
        attrs.record(&mut f);
        let kind = site(attrs.metadata());
        LOCAL.with(|l| {
            let mut l = l.borrow_mut();
            l.next_id += 1;
            let id = l.next_id;
            match kind {
                Some(Site::Send) => l.caught.push(Caught::Built {
                    space: f.space,
                    pn: f.pn,
                }),
                Some(Site::Recv) => l.recv.push((id, f.space)),
                _ => {}
            }
            Id::from_u64(id)
        })
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, e: &Event<'_>) {
        let mut f = Fields::default();
        e.record(&mut f);
        let caught = match site(e.metadata()) {
            Some(Site::Pto) => Caught::Pto(PtoFired {
                count: f.count,
                in_flight: f.in_flight,
                space: f.space,
            }),
            Some(Site::Stream) => Caught::Stream {
                stream: f.stream,
                off: f.off,
                len: f.len,
            },
            Some(Site::Loss) => Caught::Lost {
                space: LOCAL.with(|l| l.borrow().entered.last().copied()),
                pns: lost_pns(&f.message),
            },
            _ => return,
        };
        LOCAL.with(|l| l.borrow_mut().caught.push(caught));
    }

    fn enter(&self, id: &Id) {
        LOCAL.with(|l| {
            let mut l = l.borrow_mut();
            if let Some(&(_, space)) = l.recv.iter().find(|(i, _)| *i == id.into_u64()) {
                l.entered.push(space);
            }
        });
    }

    fn exit(&self, id: &Id) {
        LOCAL.with(|l| {
            let mut l = l.borrow_mut();
            if l.recv.iter().any(|(i, _)| *i == id.into_u64()) {
                l.entered.pop();
            }
        });
    }

    fn try_close(&self, id: Id) -> bool {
        LOCAL.with(|l| l.borrow_mut().recv.retain(|(i, _)| *i != id.into_u64()));
        true
    }
}

/// Runs `f` (one call into quinn) and returns what quinn reported during it.
pub fn observe<R>(f: impl FnOnce() -> R) -> (R, Vec<Caught>) {
    static DISPATCH: OnceLock<Dispatch> = OnceLock::new();
    let d = DISPATCH.get_or_init(|| Dispatch::new(Catcher));
    let r = tracing::dispatcher::with_default(d, f);
    let caught = LOCAL.with(|l| std::mem::take(&mut l.borrow_mut().caught));
    (r, caught)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lost_packet_numbers_are_read_from_quinns_message() {
        assert_eq!(
            lost_pns("packets lost: [3, 4, 17], bytes lost: 3600"),
            [3, 4, 17]
        );
        assert_eq!(lost_pns("packets lost: [9], bytes lost: 34"), [9]);
        assert!(lost_pns("something else").is_empty());
    }
}
