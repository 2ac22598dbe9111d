//! The TCP simulation of [Klein et al. 2004] IV (Figs. 4-8) as engine configurations:
//! `scenarios/delay-injection.toml` with the path's delay trace attached (see
//! [`super::path`]) and the injector's method, D0, N and packet selection varied.

use super::path::ping_delay_trace;
use super::synthetic::{gprs_like_trace, GprsLikeConfig};
use rand::SeedableRng;
use spikelab_core::{Dur, SimRng};
use spikelab_engine::{MiddleboxSpec, SimConfig};
use spikelab_net::middlebox::{DelayInjectionConfig, InjectionMethod, InjectionOrder, Selection};
use spikelab_net::{MiddleboxConfig, TraceRef};

/// The scenario file (one cell: FTFD, D0 = 100 ms, N = 3, oracle).
pub const SCENARIO: &str = include_str!("../../../../scenarios/delay-injection.toml");

/// The link whose data direction replays the trace, and where the box sits.
pub const RADIO: &str = "radio";

/// Seed of the synthetic trace the path replays (the paper had one measured trace).
pub const TRACE_SEED: u64 = 2003;

/// Samples in the trace: the paper's "the ping utility issues 10,000 messages".
pub const TRACE_LEN: usize = 10_000;

/// The path's ping trace (ms).
pub fn path_trace() -> Vec<f64> {
    gprs_like_trace(
        &GprsLikeConfig::default(),
        TRACE_LEN,
        &mut SimRng::seed_from_u64(TRACE_SEED),
    )
}

/// How the box picks the packets it may delay (the paper's oracle, or blind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pick {
    /// The segments the sender times (footnote 2; the paper's simulator).
    Oracle,
    /// Blind: every data packet is a candidate, the method counts them (FTFD: every
    /// N-th packet of the flow).
    EveryNth,
    /// Blind: each data packet is a candidate with probability 1/N and gets D0 (the
    /// same mean delay per packet as every-nth).
    Probability,
    /// The oracle, but a delayed packet holds back the packets behind it (FIFO) instead
    /// of letting them pass: no reordering, hence no duplicate ACKs.
    OracleFifo,
}

impl Pick {
    /// A label for files and legends.
    pub fn label(self) -> &'static str {
        match self {
            Pick::Oracle => "oracle",
            Pick::EveryNth => "every-nth",
            Pick::Probability => "probability",
            Pick::OracleFifo => "oracle-fifo",
        }
    }
}

/// One injector setting; `None` in a cell means no delay jitter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Injection {
    /// FTFD, RTFD or RTRD.
    pub method: InjectionMethod,
    /// D0 in ms.
    pub d0_ms: u64,
    /// The jitter period N (p = 1/N).
    pub n: u32,
    /// How the box selects candidate packets.
    pub pick: Pick,
}

impl Injection {
    /// The box's configuration, the scenario's other fields (direction, order) kept.
    pub fn config(&self, base: &DelayInjectionConfig) -> DelayInjectionConfig {
        let (select, select_every, select_p, n) = match self.pick {
            Pick::Oracle | Pick::OracleFifo => (Selection::Oracle, 1, 1.0, self.n),
            Pick::EveryNth => (Selection::EveryNth, 1, 1.0, self.n),
            Pick::Probability => (Selection::Probability, 1, 1.0 / self.n as f64, 1),
        };
        DelayInjectionConfig {
            method: self.method,
            d0: Dur::from_millis(self.d0_ms),
            n,
            p: None,
            select,
            select_every,
            select_p,
            order: match self.pick {
                Pick::OracleFifo => InjectionOrder::Fifo,
                _ => base.order,
            },
            ..base.clone()
        }
    }
}

/// The scenario with the path's delay trace attached.
pub fn base() -> anyhow::Result<SimConfig> {
    let s = spikelab_scenario::parse(SCENARIO, "scenarios/delay-injection.toml")
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut cfg = s.to_sim();
    let radio = radio_index(&cfg);
    let trace = TraceRef::with_data("synthetic-gprs-like", ping_delay_trace(&path_trace()));
    cfg.links[radio].forward.delay_trace = Some(trace);
    Ok(cfg)
}

/// The index of the radio link.
pub fn radio_index(cfg: &SimConfig) -> usize {
    cfg.links
        .iter()
        .position(|l| l.name == RADIO)
        .expect("scenarios/delay-injection.toml names its link `radio`")
}

/// The scenario's injector configuration (method, order, direction as written).
fn scenario_box(cfg: &SimConfig) -> DelayInjectionConfig {
    cfg.middleboxes
        .iter()
        .find_map(|m| match &m.config {
            MiddleboxConfig::DelayInjection(c) => Some(c.clone()),
            MiddleboxConfig::StdProxy(_) => None,
        })
        .unwrap_or_default()
}

/// `base` with injection `inj` (or none).
pub fn configure(base: &SimConfig, inj: Option<Injection>) -> SimConfig {
    let mut cfg = base.clone();
    let written = scenario_box(&cfg);
    let link = radio_index(&cfg);
    cfg.middleboxes = inj
        .map(|i| MiddleboxSpec {
            link,
            config: MiddleboxConfig::DelayInjection(i.config(&written)),
        })
        .into_iter()
        .collect();
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_net::middlebox::InjectDirection;

    #[test]
    fn the_scenario_file_is_the_papers_best_timeout_cell() {
        let b = base().unwrap();
        let c = scenario_box(&b);
        assert_eq!(
            (c.method, c.d0, c.n),
            (InjectionMethod::Ftfd, Dur::from_millis(100), 3)
        );
        assert_eq!(
            (c.direction, c.order),
            (InjectDirection::Data, InjectionOrder::Reorder)
        );
        assert!(b.links[radio_index(&b)].forward.delay_trace.is_some());
    }

    #[test]
    fn blind_probability_selection_delays_each_packet_with_one_in_n() {
        let inj = Injection {
            method: InjectionMethod::Ftfd,
            d0_ms: 60,
            n: 4,
            pick: Pick::Probability,
        };
        let c = inj.config(&DelayInjectionConfig::default());
        assert_eq!(
            (c.select, c.select_p, c.n),
            (Selection::Probability, 0.25, 1)
        );
        let none = configure(&base().unwrap(), None);
        assert!(none.middleboxes.is_empty());
    }
}
