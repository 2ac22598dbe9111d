//! The fix space `spikelab advise` sweeps, as data.
//!
//! A row of the answer is the user's path as given (the baseline) with one change: a
//! spurious-timeout detector with one response, another RTO estimator, another TCP
//! stack (sender side), QUIC in place of TCP, or a box in the network; or a combination
//! of one of each TCP dimension ([`combine`]). A fix is applied to every TCP flow of
//! the scenario (it is deployed at the server or in the path, not per connection).
//! Adding a fix is one line in one of the tables below; e.g. Linux with CUBIC is a line
//! of [`STACKS`], QUIC with msquic's undo one of [`QUIC`].

/// Which end deploys a fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// The TCP sender (a kernel or stack change).
    Sender,
    /// A box on the path (at the first endpoint of the spiking link).
    Network,
    /// A combination of a sender change and a network box.
    Both,
}

impl Side {
    /// The label used in tables and on the command line.
    pub fn label(self) -> &'static str {
        match self {
            Side::Sender => "sender",
            Side::Network => "network",
            Side::Both => "both",
        }
    }
}

/// The dimension a fix varies: combinations take at most one fix of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// A spurious-timeout detector and response (or none, or SACK alone).
    Detection,
    /// An RTO estimator.
    Estimator,
    /// A whole TCP stack (profile and congestion control).
    Stack,
    /// QUIC in place of TCP (docs/src/quic.md): not combined with the TCP fixes.
    Transport,
    /// A box in the network.
    Network,
    /// Fixes of several dimensions at once.
    Combination,
}

impl Group {
    /// What a fix of this group is, in the answer's words (plural).
    pub fn label(self) -> &'static str {
        match self {
            Group::Detection => "detection settings",
            Group::Estimator => "RTO estimators",
            Group::Stack => "TCP stacks",
            Group::Transport => "QUIC transports",
            Group::Network => "network boxes",
            Group::Combination => "combinations",
        }
    }
}

/// Sender-side detectors (`tcp.spurious.driver`), each with the per-flow keys it needs
/// to work at all (Eifel reads timestamps, RFC 3522 section 2; D-SACK detection reads
/// the receiver's D-SACK blocks, RFC 3708 section 2). SACK-F-RTO and D-SACK also need a
/// SACK recovery: see [`NEEDS_SACK`].
pub const DETECTORS: &[(&str, &[(&str, &str)])] = &[
    ("eifel", &[("timestamps", "true")]),
    ("frto", &[]),
    ("sack-frto", &[]),
    ("dsack", &[("dsack", "true")]),
    ("ack-timing", &[]),
];

/// Detectors that only work with SACK (spikelab_tcp's `SpuriousConfig::validate`): the
/// flow's recovery is switched to its SACK variant for them when it lacks SACK.
pub const NEEDS_SACK: &[&str] = &["sack-frto", "dsack"];

/// Congestion-control responses to a detected spurious timeout (`response.restore`,
/// [Gurtov & Ludwig 2003] III.B options 1-4, RFC 4015 section 3.1 step (4), none).
pub const RESTORES: &[&str] = &[
    "eifel-original",
    "option1",
    "option2",
    "option3",
    "option4",
    "rfc4015",
    "none",
];

/// RTO adaptations after a spurious timeout (`response.rto_adapt`, [Gurtov & Ludwig 2003]
/// III.C options 1-3, RFC 4015 section 3.1).
pub const RTO_ADAPTS: &[&str] = &[
    "none",
    "reseed",
    "keep-backoff",
    "min-rto-increase",
    "rfc4015",
];

/// RTO estimators tried in place of the flow's own (`tcp.rto`, TOML): RFC 6298 with
/// its 1 s minimum, with the 200 ms minimum of Linux, with FreeBSD's minimum of the
/// last sample plus 2G ([Ekström & Ludwig 2004] II.A), Peak-Hopper, and the Linux timer.
pub const RTO_ESTIMATORS: &[(&str, &str)] = &[
    (
        "rfc6298",
        r#"{ kind = "rfc6298", min_rto = "1s", min_rto_mode = "standard" }"#,
    ),
    (
        "rfc6298-min200ms",
        r#"{ kind = "rfc6298", min_rto = "200ms", min_rto_mode = "standard" }"#,
    ),
    (
        "rfc6298-last-sample-2g",
        r#"{ kind = "rfc6298", min_rto_mode = "last_sample_plus_2g" }"#,
    ),
    ("peak-hopper", r#"{ kind = "peak-hopper" }"#),
    ("linux-rto", r#"{ kind = "linux" }"#),
];

/// Whole TCP stacks tried in place of the flow's: (label, profile, Linux congestion
/// control). The flow's own `tcp` keys still apply on top, as in any scenario; a stack
/// the flow's keys do not fit (e.g. `tcp.linux` keys under `modern`) is left out with
/// the reason.
pub const STACKS: &[(&str, &str, Option<&str>)] = &[
    ("modern", "modern", None),
    ("linux-reno", "linux", Some("reno")),
    ("linux-cubic", "linux", Some("cubic")),
    ("linux-bbr", "linux", Some("bbr")),
];

/// QUIC in place of TCP: the flow becomes a QUIC connection with the same route, start
/// and workload, and this `[flow.quic]` table (TOML). The RFC 9002 model with CUBIC
/// (quinn's default controller, and the one quinn's and msquic's undo restore) under
/// each spurious-loss undo rule (none: RFC 9002 itself; quinn-proto's; msquic's), each
/// also with a 2 s ceiling on the backed-off PTO (picoquic's
/// `PICOQUIC_LARGE_RETRANSMIT_TIMER`); and real quinn-proto 0.11.19
/// (docs/src/quinn.md), which has no undo and no cap.
pub const QUIC: &[(&str, &str)] = &[
    ("quic-none", r#"{ cc = "cubic", undo = "none" }"#),
    ("quic-quinn", r#"{ cc = "cubic", undo = "quinn" }"#),
    ("quic-msquic", r#"{ cc = "cubic", undo = "msquic" }"#),
    (
        "quic-none-cap2s",
        r#"{ cc = "cubic", undo = "none", pto_max = "2s" }"#,
    ),
    (
        "quic-quinn-cap2s",
        r#"{ cc = "cubic", undo = "quinn", pto_max = "2s" }"#,
    ),
    (
        "quic-msquic-cap2s",
        r#"{ cc = "cubic", undo = "msquic", pto_max = "2s" }"#,
    ),
    ("quinn", r#"{ implementation = "quinn", cc = "cubic" }"#),
];

fn quic() -> Vec<Fix> {
    QUIC.iter()
        .map(|(label, table)| Fix {
            label: label.to_string(),
            side: Side::Sender,
            group: Group::Transport,
            changes: vec![Change::Quic(value(table))],
            columns: vec![("stack", label.to_string())],
        })
        .collect()
}

/// Network boxes (`[[middlebox]] config`, TOML): the STD proxy with the paper's
/// parameters ([Kim & Cho 2003] III.C) and the three delay-injection methods with
/// [Klein et al. 2004]'s best setting for timeouts (D0 = 100 ms, N = 3, section IV) and
/// the blind selection a real box can deploy (every packet of the flow is a candidate;
/// the paper's oracle selection needs the sender's timing state, IV).
pub const NETWORK: &[(&str, &str)] = &[
    ("std-proxy", r#"{ kind = "std-proxy" }"#),
    (
        "delay-ftfd",
        r#"{ kind = "delay-injection", method = "ftfd", d0 = "100ms", n = 3, direction = "data", select = "every-nth", select_every = 1 }"#,
    ),
    (
        "delay-rtfd",
        r#"{ kind = "delay-injection", method = "rtfd", d0 = "100ms", n = 3, direction = "data", select = "every-nth", select_every = 1 }"#,
    ),
    (
        "delay-rtrd",
        r#"{ kind = "delay-injection", method = "rtrd", d0 = "100ms", n = 3, direction = "data", select = "every-nth", select_every = 1 }"#,
    ),
];

/// What a fix changes, before it is placed into a particular scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Per-TCP-flow keys (dotted paths below `flow.<i>.`), and whether the flow needs a
    /// SACK recovery.
    Flow {
        keys: Vec<(String, toml::Value)>,
        needs_sack: bool,
    },
    /// A middlebox `config` on the spiking link.
    Middlebox(toml::Value),
    /// The flow as a QUIC connection with this `[flow.quic]` table: its TCP-only keys
    /// (profile, tcp, kernel) dropped, the rest kept.
    Quic(toml::Value),
}

/// One fix: its label, side, dimension, what it changes, and its descriptive columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub label: String,
    pub side: Side,
    pub group: Group,
    /// One change, or one per dimension of a combination.
    pub changes: Vec<Change>,
    /// Descriptive columns (detector, restore, rto_adapt, rto, profile, box).
    pub columns: Vec<(&'static str, String)>,
}

/// A TOML value written as inline text in the tables above.
fn value(text: &str) -> toml::Value {
    let doc: toml::Table = format!("v = {text}")
        .parse()
        .unwrap_or_else(|e| panic!("a fix table holds bad TOML `{text}`: {e}"));
    doc["v"].clone()
}

fn flow_fix(
    label: String,
    group: Group,
    keys: Vec<(String, toml::Value)>,
    needs_sack: bool,
) -> Fix {
    Fix {
        label,
        side: Side::Sender,
        group,
        changes: vec![Change::Flow { keys, needs_sack }],
        columns: Vec::new(),
    }
}

/// The explicit "no detection" row: the spurious-timeout settings cleared.
fn no_detection() -> Fix {
    let mut f = flow_fix(
        "no-detection".into(),
        Group::Detection,
        vec![("tcp.spurious".into(), value("{}"))],
        false,
    );
    f.columns.push(("detector", "none".into()));
    f
}

/// SACK recovery alone (no detection): the row that separates SACK's own gain from
/// the SACK detectors' (it is the baseline itself when the flow has SACK already).
fn sack_only() -> Fix {
    let mut f = flow_fix("sack-recovery".into(), Group::Detection, Vec::new(), true);
    f.columns.push(("detector", "none".into()));
    f
}

/// Every detector with every response and RTO adaptation.
fn detections() -> Vec<Fix> {
    let mut out = Vec::new();
    for (det, needs) in DETECTORS {
        for restore in RESTORES {
            for adapt in RTO_ADAPTS {
                let spurious = format!(
                    r#"{{ driver = "{det}", response = {{ restore = "{restore}", rto_adapt = "{adapt}" }} }}"#
                );
                let mut keys = vec![("tcp.spurious".to_string(), value(&spurious))];
                keys.extend(needs.iter().map(|(k, v)| (format!("tcp.{k}"), value(v))));
                let mut f = flow_fix(
                    format!("{det}:{restore}:{adapt}"),
                    Group::Detection,
                    keys,
                    NEEDS_SACK.contains(det),
                );
                f.columns = vec![
                    ("detector", det.to_string()),
                    ("restore", restore.to_string()),
                    ("rto_adapt", adapt.to_string()),
                ];
                out.push(f);
            }
        }
    }
    out
}

fn estimators() -> Vec<Fix> {
    RTO_ESTIMATORS
        .iter()
        .map(|(label, rto)| {
            let mut f = flow_fix(
                label.to_string(),
                Group::Estimator,
                vec![("tcp.rto".into(), value(rto))],
                false,
            );
            f.columns.push(("rto", label.to_string()));
            f
        })
        .collect()
}

fn stacks() -> Vec<Fix> {
    STACKS
        .iter()
        .map(|(label, profile, cc)| {
            let mut keys = vec![("profile".into(), toml::Value::String(profile.to_string()))];
            if let Some(cc) = cc {
                keys.push((
                    "tcp.linux.tcp_congestion_control".into(),
                    toml::Value::String(cc.to_string()),
                ));
            }
            let mut f = flow_fix(label.to_string(), Group::Stack, keys, false);
            f.columns.push(("stack", label.to_string()));
            f
        })
        .collect()
}

fn network() -> Vec<Fix> {
    NETWORK
        .iter()
        .map(|(label, config)| Fix {
            label: label.to_string(),
            side: Side::Network,
            group: Group::Network,
            changes: vec![Change::Middlebox(value(config))],
            columns: vec![("box", label.to_string())],
        })
        .collect()
}

/// The whole fix space, sender side first, in a fixed order; `only` keeps one side.
pub fn all(only: Option<Side>) -> Vec<Fix> {
    let mut out = vec![no_detection(), sack_only()];
    out.extend(detections());
    out.extend(estimators());
    out.extend(stacks());
    out.extend(quic());
    out.extend(network());
    out.retain(|f| only.is_none_or(|s| f.side == s));
    out
}

/// One fix of each of `parts` (of different groups) at once: the label joins theirs
/// with `+`, the changes and columns are theirs together.
pub fn combine(parts: &[&Fix]) -> Fix {
    let sides: Vec<Side> = parts.iter().map(|f| f.side).collect();
    let side = if sides.iter().all(|s| *s == sides[0]) {
        sides[0]
    } else {
        Side::Both
    };
    Fix {
        label: parts
            .iter()
            .map(|f| f.label.as_str())
            .collect::<Vec<_>>()
            .join("+"),
        side,
        group: Group::Combination,
        changes: parts.iter().flat_map(|f| f.changes.clone()).collect(),
        columns: parts.iter().flat_map(|f| f.columns.clone()).collect(),
    }
}

/// The descriptive column names, in table order.
pub const COLUMNS: [&str; 6] = ["detector", "restore", "rto_adapt", "rto", "stack", "box"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_space_crosses_every_detector_with_every_response_and_adaptation() {
        let fixes = all(None);
        let detections = fixes
            .iter()
            .filter(|f| {
                f.columns
                    .iter()
                    .any(|(k, v)| *k == "detector" && v != "none")
            })
            .count();
        assert_eq!(
            detections,
            DETECTORS.len() * RESTORES.len() * RTO_ADAPTS.len()
        );
        let mut labels: Vec<&str> = fixes.iter().map(|f| f.label.as_str()).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), fixes.len(), "labels are unique");
        assert!(labels.iter().all(|l| !l.contains('/') && !l.contains(',')));
    }

    #[test]
    fn only_keeps_one_side() {
        assert!(all(Some(Side::Network))
            .iter()
            .all(|f| matches!(f.changes[..], [Change::Middlebox(_)])));
        assert_eq!(all(Some(Side::Network)).len(), NETWORK.len());
        assert!(all(Some(Side::Sender))
            .iter()
            .all(|f| f.side == Side::Sender));
    }

    #[test]
    fn eifel_turns_timestamps_on_and_dsack_needs_sack() {
        let fixes = all(None);
        let get = |l: &str| fixes.iter().find(|f| f.label == l).unwrap().clone();
        let [Change::Flow { keys, needs_sack }] = &get("eifel:option1:none").changes[..] else {
            panic!()
        };
        assert!(keys.contains(&("tcp.timestamps".into(), toml::Value::Boolean(true))));
        assert!(!needs_sack);
        let [Change::Flow { needs_sack, .. }] = get("dsack:rfc4015:reseed").changes[..] else {
            panic!()
        };
        assert!(needs_sack);
    }

    #[test]
    fn quic_rows_carry_each_undo_rule_with_and_without_a_cap_and_real_quinn() {
        let fixes = all(Some(Side::Sender));
        let quic: Vec<&Fix> = fixes
            .iter()
            .filter(|f| f.group == Group::Transport)
            .collect();
        assert_eq!(quic.len(), QUIC.len());
        for undo in ["none", "quinn", "msquic"] {
            for label in [format!("quic-{undo}"), format!("quic-{undo}-cap2s")] {
                let f = quic.iter().find(|f| f.label == label).expect("a row");
                let [Change::Quic(t)] = &f.changes[..] else {
                    panic!("{label}: not a QUIC change")
                };
                assert_eq!(t.get("undo").and_then(|u| u.as_str()), Some(undo));
                assert_eq!(t.get("pto_max").is_some(), label.ends_with("cap2s"));
            }
        }
        assert!(fixes
            .iter()
            .any(|f| f.label == "linux-bbr" && f.group == Group::Stack));
    }

    #[test]
    fn a_combination_carries_every_part_and_names_both_sides() {
        let fixes = all(None);
        let get = |l: &str| fixes.iter().find(|f| f.label == l).unwrap();
        let c = combine(&[
            get("eifel:option1:none"),
            get("std-proxy"),
            get("linux-cubic"),
        ]);
        assert_eq!(c.label, "eifel:option1:none+std-proxy+linux-cubic");
        assert_eq!((c.side, c.group), (Side::Both, Group::Combination));
        assert_eq!(c.changes.len(), 3);
        assert!(c.columns.contains(&("stack", "linux-cubic".into())));
        let s = combine(&[get("peak-hopper"), get("modern")]);
        assert_eq!(s.side, Side::Sender);
    }
}
