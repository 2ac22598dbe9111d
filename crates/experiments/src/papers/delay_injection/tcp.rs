//! The TCP simulation of [Klein et al. 2004] IV (Figs. 4-8): its two scenario files
//! (`scenarios/delay-injection.toml`, whose link names the path's generated delay trace
//! ([`spikelab_net::ping_trace`]), and the paper mode's), and the names the report
//! gives a cell's injection and the ablation's variants. The cells themselves are the
//! grids of `experiments/delay-injection.toml`.

use spikelab_engine::SimConfig;
use spikelab_net::middlebox::InjectionMethod;
use spikelab_net::ping_trace::PingTrace;
use spikelab_net::{DelayGenerator, DelaySource};

/// The scenario file (one cell: FTFD, D0 = 100 ms, N = 3, oracle).
pub const SCENARIO: &str = include_str!("../../../../../scenarios/delay-injection.toml");

/// The paper's simulator as a scenario (per-packet RTT draws, samples kept, no fast
/// retransmit), every switch cited there.
pub const PAPER_SCENARIO: &str =
    include_str!("../../../../../scenarios/delay-injection-paper.toml");

/// Which TCP simulation: the realistic one, or the paper's simulator as its text and
/// numbers describe it. Both are scenario files; the mode only picks the file and the
/// trace its path replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// `scenarios/delay-injection.toml`: the trace replayed in time, Karn's rule, fast
    /// retransmit, the synthetic trace as argued from the paper's figures.
    Realistic,
    /// `scenarios/delay-injection-paper.toml`: one draw of the trace per packet, the
    /// injected samples reach the estimator, selective repeat without fast retransmit;
    /// the trace's spike rate and size fitted to the paper's no-jitter baseline
    /// (the generator's parameters in `scenarios/delay-injection-paper.toml`).
    Paper,
}

impl Mode {
    /// Both modes, realistic first.
    pub const ALL: [Mode; 2] = [Mode::Realistic, Mode::Paper];

    /// A label for files and tables.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Realistic => "realistic",
            Mode::Paper => "paper",
        }
    }

    /// The scenario file's text and name.
    fn scenario(self) -> (&'static str, &'static str) {
        match self {
            Mode::Realistic => (SCENARIO, "scenarios/delay-injection.toml"),
            Mode::Paper => (PAPER_SCENARIO, "scenarios/delay-injection-paper.toml"),
        }
    }

    /// The synthetic trace's parameters in this mode: the generator its scenario's
    /// radio link names.
    pub fn trace_config(self) -> anyhow::Result<PingTrace> {
        let cfg = base_of(self)?;
        let generator = match cfg.links[radio_index(&cfg)].forward.delay_trace.as_deref() {
            Some(DelaySource::Generated(g)) => Some(g.generator),
            _ => None,
        };
        match generator {
            Some(DelayGenerator::PingTrace(p)) => Ok(p),
            _ => Err(anyhow::anyhow!(
                "{}: the radio link's forward delay_trace is not a ping-trace generator",
                self.scenario().1
            )),
        }
    }
}

/// The link whose data direction replays the trace, and where the box sits.
pub const RADIO: &str = "radio";

/// The path's ping trace (ms) of the realistic mode, as its scenario generates it.
pub fn path_trace() -> anyhow::Result<Vec<f64>> {
    Ok(Mode::Realistic.trace_config()?.samples_ms())
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

/// The realistic scenario (its path's delay trace generated as the file says).
pub fn base() -> anyhow::Result<SimConfig> {
    base_of(Mode::Realistic)
}

/// `mode`'s scenario.
pub fn base_of(mode: Mode) -> anyhow::Result<SimConfig> {
    let (text, name) = mode.scenario();
    let s = spikelab_scenario::parse(text, name).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(s.to_sim())
}

/// `mode`'s scenario with the radio link's trace generated from `trace` instead.
pub fn base_with(mode: Mode, trace: PingTrace) -> anyhow::Result<SimConfig> {
    let mut cfg = base_of(mode)?;
    let radio = radio_index(&cfg);
    let source = DelaySource::generated(DelayGenerator::PingTrace(trace))
        .map_err(|e| anyhow::anyhow!("ping trace: {e}"))?;
    cfg.links[radio].forward.delay_trace = Some(Box::new(source));
    Ok(cfg)
}

/// The index of the radio link.
pub fn radio_index(cfg: &SimConfig) -> usize {
    cfg.links
        .iter()
        .position(|l| l.name == RADIO)
        .expect("scenarios/delay-injection.toml names its link `radio`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Dur;
    use spikelab_net::middlebox::{DelayInjectionConfig, InjectDirection, InjectionOrder};
    use spikelab_net::MiddleboxConfig;

    fn the_box(cfg: &SimConfig) -> DelayInjectionConfig {
        match cfg.middleboxes.as_slice() {
            [m] => match &m.config {
                MiddleboxConfig::DelayInjection(c) => c.clone(),
                MiddleboxConfig::StdProxy(_) => panic!("the box injects delay"),
            },
            _ => panic!("one box"),
        }
    }

    #[test]
    fn the_scenario_file_is_the_papers_best_timeout_cell() {
        let b = base().unwrap();
        let c = the_box(&b);
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
    fn the_paper_mode_draws_per_packet_keeps_samples_and_never_fast_retransmits() {
        let b = base_of(Mode::Paper).unwrap();
        let fwd = b.links[radio_index(&b)].dir(spikelab_net::Dir::Forward);
        assert_eq!(fwd.delay_sampling, spikelab_net::DelaySampling::PerPacket);
        let tcp_of = |c: &SimConfig| match &c.flows[0].kind {
            spikelab_engine::FlowKind::Tcp { tcp, .. } => tcp.clone(),
            _ => panic!("the transfer is TCP"),
        };
        let tcp = tcp_of(&b);
        assert!(!tcp.karn);
        assert!(!tcp.limited_transmit);
        // More duplicates than a window of receiver_window / mss segments can produce.
        assert!(u64::from(tcp.dupack_threshold) > tcp.receiver_window / u64::from(tcp.mss));
        assert_eq!(the_box(&b), the_box(&base().unwrap()));
        let real = base().unwrap();
        let rfwd = real.links[radio_index(&real)].dir(spikelab_net::Dir::Forward);
        assert_eq!(rfwd.delay_sampling, spikelab_net::DelaySampling::Time);
        assert!(tcp_of(&real).karn);
    }
}
