//! Running an exported script in ns-2.35 and reading what it wrote: the `done` and
//! `counters` lines on stdout, the first-hop queue trace (`queue.tr`, one `+`/`d` line
//! per packet entering the flow's first link: its send time) and the agents' traced
//! variables (`vars.tr`: cwnd_, ssthresh_, and `backoff_`, `srtt_`, `rttvar_`, `rtt_`: the Tcl names
//! of t_backoff_, t_srtt_, t_rttvar_, t_rtt_).

use crate::export::Script;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The `ns` binary: `$SPIKELAB_NS` or `ns` on the PATH.
pub fn ns_binary() -> String {
    std::env::var("SPIKELAB_NS").unwrap_or_else(|_| "ns".into())
}

/// The ns-2 binary with spikelab's link freeze: `$SPIKELAB_NS_FREEZE`, or the cached
/// build of tools/ns2/build.sh (built on first use; the script's last stdout line is
/// the binary). `Err` says why there is none: build.sh's exit status 3 means the build
/// is impossible on this machine, which callers report as SKIPPED.
pub fn freeze_ns_binary() -> Result<String, FreezeUnavailable> {
    static BINARY: std::sync::OnceLock<Result<String, FreezeUnavailable>> =
        std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            if let Ok(ns) = std::env::var("SPIKELAB_NS_FREEZE") {
                return Ok(ns);
            }
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/ns2/build.sh");
            let out = Command::new("bash").arg(&script).output().map_err(|e| {
                FreezeUnavailable::Failed(format!("bash {}: {e}", script.display()))
            })?;
            let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
            match out.status.code() {
                Some(0) => String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .last()
                    .map(|l| l.trim().to_string())
                    .ok_or_else(|| FreezeUnavailable::Failed("build.sh printed no binary".into())),
                Some(3) => Err(FreezeUnavailable::Impossible(stderr)),
                _ => Err(FreezeUnavailable::Failed(stderr)),
            }
        })
        .clone()
}

/// Why the patched ns-2 is not available.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FreezeUnavailable {
    /// tools/ns2/build.sh says the build cannot work on this machine (exit 3).
    #[error("the patched ns-2 cannot be built here: {0}")]
    Impossible(String),
    /// The build failed.
    #[error("tools/ns2/build.sh failed: {0}")]
    Failed(String),
}

/// Whether an ns-2 binary can be run here.
pub fn ns_available() -> bool {
    Command::new(ns_binary())
        .arg("/dev/null")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One data-packet transmission as ns-2 traced it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ns2Send {
    /// Seconds.
    pub time: f64,
    /// ns-2 packet sequence number.
    pub seqno: u64,
}

/// One traced variable change: time, name, value.
#[derive(Clone, Debug, PartialEq)]
pub struct VarChange {
    pub time: f64,
    pub name: String,
    pub value: f64,
}

/// What ns-2 reports for one TCP flow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ns2Flow {
    /// When the last packet was acknowledged (the agent's `done`), seconds.
    pub completed: Option<f64>,
    /// Every packet the agent sent into its first link, SYN included, in order.
    pub sends: Vec<Ns2Send>,
    /// `nrexmit_`: retransmission timeouts (the SYN's included).
    pub nrexmit: u64,
    /// `ncwndcuts1_`: calls of slowdown() on a loss (timeouts and fast retransmits).
    pub ncwndcuts: u64,
    /// The agent's traced variables.
    pub vars: Vec<VarChange>,
}

/// Runs `script` in `dir` (which must exist) and parses the results per TCP flow, in
/// the order of [`Script::tcp_flows`].
pub fn run(script: &Script, dir: &Path) -> Result<Vec<Ns2Flow>, String> {
    let file = dir.join("run.tcl");
    std::fs::write(&file, &script.tcl).map_err(|e| format!("{}: {e}", file.display()))?;
    let ns = if script.needs_freeze {
        freeze_ns_binary().map_err(|e| e.to_string())?
    } else {
        ns_binary()
    };
    let out = Command::new(ns)
        .arg("run.tcl")
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run ns: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "ns failed ({}): {}{}",
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut flows: Vec<Ns2Flow> = script
        .tcp_flows
        .iter()
        .map(|_| Ns2Flow::default())
        .collect();
    let index = |f: usize| script.tcp_flows.iter().position(|t| t.flow == f);
    for line in stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["done", f, t] => {
                if let (Some(i), Ok(t)) = (f.parse().ok().and_then(index), t.parse()) {
                    flows[i].completed.get_or_insert(t);
                }
            }
            ["counters", f, _ndata, _nrexpack, nrexmit, cuts] => {
                if let Some(i) = f.parse().ok().and_then(index) {
                    flows[i].nrexmit = nrexmit.parse().unwrap_or(0);
                    flows[i].ncwndcuts = cuts.parse().unwrap_or(0);
                }
            }
            _ => {}
        }
    }
    let qtr =
        std::fs::read_to_string(dir.join("queue.tr")).map_err(|e| format!("queue.tr: {e}"))?;
    read_queue_trace(script, &qtr, &mut flows);
    let vtr = std::fs::read_to_string(dir.join("vars.tr")).map_err(|e| format!("vars.tr: {e}"))?;
    read_vars(script, &vtr, &mut flows);
    Ok(flows)
}

/// `+`/`d` lines of tcp packets on each flow's first hop: the first event of each
/// packet id is its send time (a packet an error model drops at the link's head shows
/// only as `d`).
fn read_queue_trace(script: &Script, text: &str, flows: &mut [Ns2Flow]) {
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 12 || !(w[0] == "+" || w[0] == "d") || w[4] != "tcp" {
            continue;
        }
        let (Ok(time), Ok(from), Ok(to), Ok(fid), Ok(seqno), Ok(uid)) = (
            w[1].parse::<f64>(),
            w[2].parse::<usize>(),
            w[3].parse::<usize>(),
            w[7].parse::<usize>(),
            w[10].parse::<u64>(),
            w[11].parse::<u64>(),
        ) else {
            continue;
        };
        let Some(i) = script
            .tcp_flows
            .iter()
            .position(|t| t.fid == fid && t.first_hop == (from, to))
        else {
            continue;
        };
        if seen.insert(uid) {
            flows[i].sends.push(Ns2Send { time, seqno });
        }
    }
}

/// Lines `time src_addr src_port dst_addr dst_port name value` written by
/// `$tcp trace name` (the agent's address identifies the flow).
fn read_vars(script: &Script, text: &str, flows: &mut [Ns2Flow]) {
    // Agents are attached in flow order; ns-2 numbers their ports per node, so match
    // by the order in which distinct (addr, port) pairs first appear per flow is not
    // reliable: with one TCP flow per script (the differential suite) all lines belong
    // to it. With several, the variables are attributed to the first flow only.
    let Some(first) = flows.first_mut() else {
        return;
    };
    let _ = script;
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 7 {
            continue;
        }
        if let (Ok(time), Ok(value)) = (w[0].parse::<f64>(), w[6].parse::<f64>()) {
            first.vars.push(VarChange {
                time,
                name: w[5].to_string(),
                value,
            });
        }
    }
}
