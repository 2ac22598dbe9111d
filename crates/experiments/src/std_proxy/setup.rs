//! The cells of [Kim & Cho 2003] V's sweep, built from `scenarios/std-proxy.toml`: one
//! configuration per (receiver window, scheme, last-hop rate BW).

use spikelab_core::{BitRate, ByteSize};
use spikelab_engine::{FlowKind, SimConfig, Workload};
use spikelab_tcp::response::Restore;
use spikelab_tcp::spurious::DetectorKind;
use spikelab_tcp::TcpConfig;

/// The scenario file this reproduction varies (one cell: 50 kbit/s, 8 KB, STD).
pub const SCENARIO: &str = include_str!("../../../../scenarios/std-proxy.toml");

/// The name of the cellular link in [`SCENARIO`] (the box sits at its first endpoint).
pub const CELLULAR: &str = "cellular";

/// The four schemes of Figs. 8 and 9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scheme {
    /// "regular TCP", noted "none" (IV, footnote 7): Reno, no detection.
    Plain,
    /// Eifel detection with timestamps (II).
    Eifel,
    /// F-RTO (II); basic F-RTO since Reno has no SACK.
    Frto,
    /// Plain Reno with the STD proxy at the base station (III).
    Std,
}

impl Scheme {
    /// Every scheme, in the order of the figures' legends.
    pub const ALL: [Scheme; 4] = [Scheme::Plain, Scheme::Eifel, Scheme::Frto, Scheme::Std];

    /// The label used in CSV files and legends.
    pub fn label(self) -> &'static str {
        match self {
            Scheme::Plain => "TCP",
            Scheme::Eifel => "Eifel",
            Scheme::Frto => "F-RTO",
            Scheme::Std => "STD",
        }
    }

    /// Applies the scheme to a sender. Footnote 8: "In Eifel and F-RTO ... both
    /// congestion window and slow start threshold were reduced to the half of its
    /// congestion window value", i.e. restoration option 2; they resume with new data
    /// (the response's default). Eifel needs the timestamps option (II: its "12 bytes
    /// additional information").
    fn configure(self, tcp: &mut TcpConfig) {
        let driver = match self {
            Scheme::Plain | Scheme::Std => return,
            Scheme::Eifel => DetectorKind::Eifel,
            Scheme::Frto => DetectorKind::Frto,
        };
        tcp.timestamps = driver == DetectorKind::Eifel;
        tcp.spurious.driver = Some(driver);
        tcp.spurious.response.restore = Restore::Option2;
    }
}

/// What to sweep. [`Plan::paper`] is the reproduction; [`Plan::smoke`] a documented
/// reduction for tests.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Last-hop rates BW in kbit/s, increasing.
    pub rates_kbps: Vec<u64>,
    /// Receiver windows in bytes.
    pub windows: Vec<u64>,
    /// Transfer size; `None` keeps the scenario's 10 MB.
    pub bytes: Option<u64>,
}

impl Plan {
    /// V: BW from about 10 to 400 kbit/s (Figs. 8 and 9's x axes), windows of 8 KB and
    /// 64 KB (65 535 bytes, the largest window without window scaling).
    pub fn paper() -> Plan {
        Plan {
            rates_kbps: vec![
                10, 20, 30, 40, 50, 60, 70, 80, 100, 120, 150, 200, 250, 300, 400,
            ],
            windows: vec![8192, 65_535],
            bytes: None,
        }
    }

    /// A smoke setting for tests: two rates (20 and 200 kbit/s), both windows, and a
    /// 200 KB transfer (about seven hiccup cycles at 20 kbit/s, so spurious timeouts
    /// still happen).
    pub fn smoke() -> Plan {
        Plan {
            rates_kbps: vec![20, 200],
            windows: vec![8192, 65_535],
            bytes: Some(200_000),
        }
    }
}

/// One cell of the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub window: u64,
    pub scheme: Scheme,
    pub rate_kbps: u64,
}

/// The scenario file as the engine's configuration.
pub fn base() -> anyhow::Result<SimConfig> {
    let s = spikelab_scenario::parse(SCENARIO, "scenarios/std-proxy.toml")
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(s.to_sim())
}

/// The index of the cellular link in `cfg`.
pub fn cellular_index(cfg: &SimConfig) -> usize {
    cfg.links
        .iter()
        .position(|l| l.name == CELLULAR)
        .expect("scenarios/std-proxy.toml names its last hop `cellular`")
}

/// Every cell of `plan`, by window, then scheme, then rate.
pub fn cells(plan: &Plan) -> Vec<Cell> {
    let mut out = Vec::new();
    for &window in &plan.windows {
        for scheme in Scheme::ALL {
            for &rate_kbps in &plan.rates_kbps {
                out.push(Cell {
                    window,
                    scheme,
                    rate_kbps,
                });
            }
        }
    }
    out
}

/// The configuration of `cell`: the base with its rate, window, transfer size and
/// scheme; the STD proxy stays only for [`Scheme::Std`], which also records a trace
/// (for condition (3), see `metrics`).
pub fn configure(base: &SimConfig, plan: &Plan, cell: Cell) -> SimConfig {
    let mut cfg = base.clone();
    let cellular = cellular_index(&cfg);
    cfg.links[cellular].rate = BitRate(cell.rate_kbps * 1000);
    if cell.scheme != Scheme::Std {
        cfg.middleboxes.clear();
    }
    cfg.trace = cell.scheme == Scheme::Std;
    for flow in &mut cfg.flows {
        if let FlowKind::Tcp { tcp, workload } = &mut flow.kind {
            tcp.receiver_window = cell.window;
            cell.scheme.configure(tcp);
            if let (Some(b), Workload::Bulk { bytes }) = (plan.bytes, workload) {
                *bytes = ByteSize(b);
            }
        }
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_net::MiddleboxConfig;

    #[test]
    fn the_scenario_file_is_the_papers_std_cell() {
        let b = base().unwrap();
        let c = cellular_index(&b);
        assert_eq!(b.links[c].rate, BitRate(50_000));
        assert_eq!(b.middleboxes.len(), 1);
        assert_eq!(b.middleboxes[0].link, c);
        assert!(matches!(
            b.middleboxes[0].config,
            MiddleboxConfig::StdProxy(_)
        ));
        let FlowKind::Tcp { tcp, workload } = &b.flows[0].kind else {
            panic!("a TCP download")
        };
        assert_eq!((tcp.mss, tcp.receiver_window), (1460, 8192));
        assert_eq!(
            *workload,
            Workload::Bulk {
                bytes: ByteSize(10_000_000)
            }
        );
    }

    #[test]
    fn schemes_change_only_what_they_name() {
        let b = base().unwrap();
        let plan = Plan::paper();
        let cell = |scheme| Cell {
            window: 65_535,
            scheme,
            rate_kbps: 120,
        };
        let eifel = configure(&b, &plan, cell(Scheme::Eifel));
        let FlowKind::Tcp { tcp, .. } = &eifel.flows[0].kind else {
            panic!()
        };
        assert!(tcp.timestamps && tcp.spurious.driver == Some(DetectorKind::Eifel));
        assert_eq!(tcp.receiver_window, 65_535);
        assert!(eifel.middleboxes.is_empty());
        let std = configure(&b, &plan, cell(Scheme::Std));
        assert_eq!(std.middleboxes.len(), 1);
        assert_eq!(std.links[cellular_index(&std)].rate, BitRate(120_000));
        let FlowKind::Tcp { tcp, .. } = &std.flows[0].kind else {
            panic!()
        };
        assert!(!tcp.timestamps && tcp.spurious.driver.is_none());
    }
}
