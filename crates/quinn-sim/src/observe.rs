//! What quinn decides that its public API does not report: its probe timeouts.
//!
//! quinn-proto keeps the PTO count private (`Connection::pto_count`) and its statistics
//! (`ConnectionStats`) count losses (`path.lost_packets`, `path.lost_bytes`) and
//! congestion events but no PTOs. The one place a PTO shows is the `tracing` event
//! `on_loss_detection_timeout` emits (quinn-proto/src/connection/mod.rs, "PTO fired",
//! fields `in_flight`, `count` = probe timeouts before this one, `space`). A subscriber
//! interested in that call site alone catches it: every other call site of quinn gets
//! `Interest::never`, so tracing costs it nothing. The event's wording is not part of
//! quinn's semver API; the freeze tests in `pipe.rs` fail if a quinn update
//! changes it (they count the PTOs caught).

use std::cell::RefCell;
use std::sync::OnceLock;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};

/// One probe timeout quinn reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtoFired {
    /// Probe timeouts before this one since the last acknowledgement reset the count.
    pub count: u64,
    /// Bytes in flight when it fired.
    pub in_flight: u64,
    /// The packet number space: 0 Initial, 1 Handshake, 2 Data.
    pub space: u8,
}

thread_local! {
    /// What the current call into quinn reported, drained by [`observe`].
    static CAUGHT: RefCell<Vec<PtoFired>> = const { RefCell::new(Vec::new()) };
}

/// The "PTO fired" call site: an event with exactly these fields besides its message.
fn is_pto_event(m: &Metadata<'_>) -> bool {
    let f = m.fields();
    m.is_event()
        && m.target().starts_with("quinn_proto")
        && f.field("count").is_some()
        && f.field("in_flight").is_some()
        && f.field("space").is_some()
}

struct PtoCatcher;

impl Subscriber for PtoCatcher {
    fn register_callsite(&self, m: &'static Metadata<'static>) -> Interest {
        if is_pto_event(m) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, m: &Metadata<'_>) -> bool {
        is_pto_event(m)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, e: &Event<'_>) {
        let mut v = PtoFired::default();
        e.record(&mut v);
        CAUGHT.with(|c| c.borrow_mut().push(v));
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

impl Visit for PtoFired {
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "count" => self.count = value,
            "in_flight" => self.in_flight = value,
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "space" {
            self.space = match format!("{value:?}").as_str() {
                "Initial" => 0,
                "Handshake" => 1,
                _ => 2,
            };
        }
    }
}

/// Runs `f` (one call into quinn) and returns what it did with the PTOs it fired.
pub fn observe<R>(f: impl FnOnce() -> R) -> (R, Vec<PtoFired>) {
    static DISPATCH: OnceLock<Dispatch> = OnceLock::new();
    let d = DISPATCH.get_or_init(|| Dispatch::new(PtoCatcher));
    let r = tracing::dispatcher::with_default(d, f);
    let caught = CAUGHT.with(|c| std::mem::take(&mut *c.borrow_mut()));
    (r, caught)
}
