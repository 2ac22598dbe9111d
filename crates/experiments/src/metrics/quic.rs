//! The metrics of a QUIC sender's probe timeouts and loss declarations (RFC 9002 6,
//! judged by ground truth: docs/src/quic.md), and metrics that put a TCP sender's
//! retransmission timeouts and a QUIC sender's probe timeouts, and TCP's spurious-
//! timeout responses and QUIC's undos, in one column, so that one table compares both.
//! A TCP flow's QUIC counts are 0, and a QUIC flow's TCP timeout counts are 0.

use super::view::{RunMetric, RunView};
use spikelab_engine::FlowResult;

fn flow<'a>(v: &RunView<'a>) -> &'a FlowResult {
    &v.result.flows[v.flow]
}

/// A flow metric of the view's flow.
const fn of(name: &'static str, value: fn(&RunView) -> f64) -> RunMetric {
    RunMetric {
        name,
        over_flows: false,
        needs_rto: false,
        trace: None,
        value,
    }
}

/// The QUIC counts, and the TCP-or-QUIC ones.
pub const METRICS: &[RunMetric] = &[
    of("ptos", |v| flow(v).declarations.ptos as f64),
    of("spurious_ptos", |v| {
        flow(v).declarations.spurious_ptos as f64
    }),
    of("genuine_ptos", |v| genuine_ptos(flow(v)) as f64),
    of("loss_declarations", |v| {
        flow(v).declarations.loss_declarations as f64
    }),
    of("spurious_loss_declarations", |v| {
        flow(v).declarations.spurious_loss_declarations as f64
    }),
    of("persistent_congestion", |v| {
        flow(v).declarations.persistent_congestion as f64
    }),
    of("quic_undos", |v| flow(v).declarations.undos as f64),
    of("expiries", |v| expiries(flow(v)) as f64),
    of("spurious_expiries", |v| spurious_expiries(flow(v)) as f64),
    of("genuine_expiries", |v| genuine_expiries(flow(v)) as f64),
    of("undo_events", |v| undo_events(flow(v)) as f64),
];

/// TCP's retransmission timeouts and QUIC's probe timeouts.
pub fn expiries(f: &FlowResult) -> u64 {
    f.timeouts + f.declarations.ptos
}

/// Those of [`expiries`] that ground truth judged spurious.
pub fn spurious_expiries(f: &FlowResult) -> u64 {
    f.spurious_timeouts + f.declarations.spurious_ptos
}

/// Those of [`expiries`] that ground truth judged genuine.
pub fn genuine_expiries(f: &FlowResult) -> u64 {
    f.genuine_timeouts + genuine_ptos(f)
}

/// TCP's responses to a detected spurious timeout (a detector's, or the linux
/// profile's undo) and QUIC's undos of a congestion response after spurious loss
/// declarations.
pub fn undo_events(f: &FlowResult) -> u64 {
    f.spurious_responses + f.declarations.undos
}

/// Probe timeouts with nothing outstanding left in the network: every PTO not judged
/// spurious.
pub fn genuine_ptos(f: &FlowResult) -> u64 {
    f.declarations.ptos - f.declarations.spurious_ptos
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_engine::DeclarationCounts;

    #[test]
    fn a_tcp_timeout_and_a_quic_probe_timeout_count_alike_as_expiries() {
        let tcp = FlowResult {
            timeouts: 3,
            spurious_timeouts: 2,
            genuine_timeouts: 1,
            spurious_responses: 1,
            ..FlowResult::default()
        };
        let quic = FlowResult {
            declarations: DeclarationCounts {
                ptos: 5,
                spurious_ptos: 4,
                undos: 2,
                ..DeclarationCounts::default()
            },
            ..FlowResult::default()
        };
        assert_eq!((expiries(&tcp), expiries(&quic)), (3, 5));
        assert_eq!((spurious_expiries(&tcp), spurious_expiries(&quic)), (2, 4));
        assert_eq!((genuine_expiries(&tcp), genuine_expiries(&quic)), (1, 1));
        assert_eq!(genuine_ptos(&tcp), 0);
        assert_eq!((undo_events(&tcp), undo_events(&quic)), (1, 2));
    }
}
