//! From a deserialised [`ScenarioFile`] to the engine's [`SimConfig`]: presets
//! expanded, flows replicated, names resolved to indices, and every rule the types
//! cannot express checked on the way. Resolution *is* validation: there is one walk
//! over the file, and each problem is an [`Invalid`] naming the field it concerns.
//!
//! Links come in this order: the `[[link]]` tables, then (for a dumbbell) the
//! bottleneck, then `access-src-<i>`, `access-dst-<i>` for each pair i. Flows come in
//! file order, each entry's replicas together.

use crate::error::{FieldPath, Invalid};
use crate::schema::{
    DropEntry, Dumbbell, FlowEntry, FlowKindName, Profile, Route, RunSection, ScenarioFile,
    Topology, DEFAULT_CBR_PAYLOAD,
};
use spikelab_engine::{DropRule, DropTarget, FlowKind, FlowSpec, Hop, MiddleboxSpec, SimConfig};
use spikelab_net::spike::SpikeConfig;
use spikelab_net::{Dir, FreezePoint, FrozenWire, LinkConfig, Schedule};
use spikelab_tcp::TcpConfig;
use std::collections::BTreeMap;
use std::sync::Arc;

type Check = Result<(), Invalid>;

fn fail<T>(path: FieldPath, message: impl Into<String>) -> Result<T, Invalid> {
    Err(Invalid::new(path, message))
}

/// Resolves and checks `file`. The result has tracing and pcap capture off.
pub fn resolve(file: &ScenarioFile) -> Result<SimConfig, Invalid> {
    check_run(&file.run)?;
    crate::bounds::check(file)?;
    let links = Links::build(file)?;
    let flows = resolve_flows(file, &links)?;
    let drops = file
        .drop
        .iter()
        .enumerate()
        .map(|(i, d)| resolve_drop(d, FieldPath::root("drop").index(i), &links, &flows))
        .collect::<Result<Vec<_>, _>>()?;
    let middleboxes = resolve_middleboxes(file, &links)?;
    Ok(SimConfig {
        links: links.configs,
        flows: flows.specs,
        drops,
        middleboxes,
        stop_at: file.run.stop,
        trace: spikelab_engine::TraceKinds::NONE,
        pcap: false,
        record_rto: false,
    })
}

/// `[[middlebox]]` entries: the link must exist and hold no other box.
fn resolve_middleboxes(file: &ScenarioFile, links: &Links) -> Result<Vec<MiddleboxSpec>, Invalid> {
    let mut specs: Vec<MiddleboxSpec> = Vec::new();
    for (i, m) in file.middlebox.iter().enumerate() {
        let path = FieldPath::root("middlebox").index(i);
        let Some(link) = links.index(&m.link) else {
            return fail(
                path.key("link"),
                format!("unknown link `{}` (links: {})", m.link, links.known()),
            );
        };
        if specs.iter().any(|s| s.link == link) {
            return fail(
                path.key("link"),
                format!("link `{}` already has a middlebox", m.link),
            );
        }
        specs.push(MiddleboxSpec {
            link,
            config: m.config.clone(),
        });
    }
    Ok(specs)
}

fn check_run(run: &RunSection) -> Check {
    let path = FieldPath::root("run");
    let name_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if run.name.is_empty() || !run.name.chars().all(name_ok) || run.name.starts_with('.') {
        return fail(
            path.key("name"),
            format!(
                "`{}` cannot name an output directory: use letters, digits, `-`, `_` and `.`",
                run.name
            ),
        );
    }
    Ok(())
}

// ----- links ------------------------------------------------------------------------

/// The resolved links, their names, and the dumbbell (if any) for `"pair"` routes.
struct Links<'f> {
    configs: Vec<LinkConfig>,
    by_name: BTreeMap<String, usize>,
    dumbbell: Option<&'f Dumbbell>,
}

impl<'f> Links<'f> {
    fn build(file: &'f ScenarioFile) -> Result<Links<'f>, Invalid> {
        let mut links = Links {
            configs: Vec::new(),
            by_name: BTreeMap::new(),
            dumbbell: None,
        };
        for (i, l) in file.link.iter().enumerate() {
            links.add(l.clone(), FieldPath::root("link").index(i))?;
        }
        if let Some(Topology::Dumbbell(d)) = &file.topology {
            links.add_dumbbell(d)?;
        }
        Ok(links)
    }

    fn add(&mut self, link: LinkConfig, path: FieldPath) -> Check {
        check_link(&link, &path)?;
        if link.name.is_empty() || link.name.contains(':') {
            return fail(
                path.key("name"),
                "a link name must be non-empty without `:`",
            );
        }
        if self.by_name.contains_key(&link.name) {
            return fail(
                path.key("name"),
                format!("duplicate link name `{}`", link.name),
            );
        }
        self.by_name.insert(link.name.clone(), self.configs.len());
        self.configs.push(link);
        Ok(())
    }

    fn add_dumbbell(&mut self, d: &'f Dumbbell) -> Check {
        let path = FieldPath::root("topology");
        // Exactly the dumbbell's links: a doubling vector would hold up to twice the
        // room for the rest of the run (10 000 pairs: 32 768 slots for 20 001 links).
        self.configs.reserve_exact(1 + 2 * d.pairs as usize);
        self.add(d.bottleneck.clone(), path.key("bottleneck"))?;
        for i in 0..d.pairs {
            for side in ["src", "dst"] {
                let mut l = d.access.clone();
                l.name = access_name(d, side, i);
                self.add(l, path.key("access"))?;
            }
        }
        self.dumbbell = Some(d);
        Ok(())
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// "`a`, `b`, `c`" (at most eight names) for error messages.
    fn known(&self) -> String {
        let names: Vec<String> = self
            .by_name
            .keys()
            .take(8)
            .map(|n| format!("`{n}`"))
            .collect();
        let more = if self.by_name.len() > 8 { ", ..." } else { "" };
        format!("{}{more}", names.join(", "))
    }
}

fn access_name(d: &Dumbbell, side: &str, pair: u32) -> String {
    format!("{}-{side}-{pair}", d.access.name)
}

/// Rules of a link beyond the ranges of its numbers ([`crate::bounds`]): every spike
/// schedule must be buildable (explicit spikes in order, outages complete).
fn check_link(l: &LinkConfig, path: &FieldPath) -> Check {
    for (k, s) in l.spikes.iter().enumerate() {
        let path = path.key("spikes").index(k);
        Schedule::new(s).map_err(|e| Invalid::new(path.clone(), e.to_string()))?;
        check_freeze(s, &path)?;
    }
    Ok(())
}

/// A before-queue freeze leaves the wire running, so `wire` has nothing to hold.
fn check_freeze(s: &SpikeConfig, path: &FieldPath) -> Check {
    let freeze = match s {
        SpikeConfig::Hiccup(h) => Some((h.freeze_at, h.wire)),
        SpikeConfig::Outage(o) => Some((o.freeze_at, o.wire)),
        _ => None,
    };
    if let Some((FreezePoint::BeforeQueue, FrozenWire::Delivered)) = freeze {
        return fail(
            path.key("wire"),
            "`wire` applies only with freeze_at = \"after-queue\": in front of the queue the wire keeps running",
        );
    }
    Ok(())
}

// ----- flows ------------------------------------------------------------------------

/// The resolved flows and the index of each final name.
struct Flows {
    specs: Vec<FlowSpec>,
    by_name: BTreeMap<String, usize>,
    /// Base names of entries with `count > 1`, for drop-rule hints.
    counted: BTreeMap<String, u32>,
}

fn resolve_flows(file: &ScenarioFile, links: &Links) -> Result<Flows, Invalid> {
    if file.flow.is_empty() {
        return fail(
            FieldPath::default(),
            "no [[flow]]: a scenario needs traffic",
        );
    }
    let mut flows = Flows {
        // Exactly the replicas (a doubling vector would keep up to twice the room).
        specs: Vec::with_capacity(file.flow.iter().map(|e| e.count as usize).sum()),
        by_name: BTreeMap::new(),
        counted: BTreeMap::new(),
    };
    let mut next_pair = 0u64;
    for (i, entry) in file.flow.iter().enumerate() {
        let path = FieldPath::root("flow").index(i);
        let kind = check_flow(entry, &path)?;
        if flows.by_name.contains_key(&entry.name) || flows.counted.contains_key(&entry.name) {
            return fail(
                path.key("name"),
                format!("duplicate flow name `{}`", entry.name),
            );
        }
        if entry.count > 1 {
            flows.counted.insert(entry.name.clone(), entry.count);
        }
        for r in 0..entry.count {
            let route = resolve_route(&entry.route, &path.key("route"), links, &mut next_pair)?;
            let name = replica_name(&entry.name, entry.count, r);
            flows.by_name.insert(name.clone(), flows.specs.len());
            flows.specs.push(FlowSpec {
                name,
                route,
                start: entry.start,
                kind: kind.clone(),
            });
        }
    }
    Ok(flows)
}

/// `name` for a single flow, `name#r` for replica r of a counted one.
pub fn replica_name(name: &str, count: u32, r: u32) -> String {
    if count == 1 {
        name.to_owned()
    } else {
        format!("{name}#{r}")
    }
}

/// Checks one entry and returns the engine's description of its traffic.
fn check_flow(e: &FlowEntry, path: &FieldPath) -> Result<FlowKind, Invalid> {
    if e.name.is_empty() || e.name.contains(['#', ':']) {
        return fail(
            path.key("name"),
            "a flow name must be non-empty without `#` or `:` (replicas are named `name#i`)",
        );
    }
    match e.kind {
        FlowKindName::Tcp => tcp_kind(e, path),
        FlowKindName::Quic => quic_kind(e, path),
        FlowKindName::Cbr => cbr_kind(e, path),
    }
}

/// Fails at the first of `keys` that `present` says the entry has.
fn refuse_keys(path: &FieldPath, kind: &str, keys: &[(&str, bool)]) -> Check {
    match keys.iter().find(|(_, present)| *present) {
        Some((key, _)) => fail(
            path.key(key),
            format!("a {kind} flow has no `{key}` (see the schema of [[flow]])"),
        ),
        None => Ok(()),
    }
}

fn tcp_kind(e: &FlowEntry, path: &FieldPath) -> Result<FlowKind, Invalid> {
    let keys = [
        ("rate", e.rate.is_some()),
        ("payload", e.payload.is_some()),
        ("stop", e.stop.is_some()),
        ("quic", e.quic.is_some()),
    ];
    refuse_keys(path, "TCP", &keys)?;
    let mut tcp = e
        .tcp
        .clone()
        .unwrap_or_else(|| e.profile.unwrap_or_default().config());
    // `tcp.linux` makes the host a Linux one: its keys belong to that profile only
    // (under another, a `modern` or `ns2-2002` flow would silently run Linux's stack).
    let profile = e.profile.unwrap_or_default();
    if tcp.linux.is_some() && profile != Profile::Linux {
        return fail(
            path.key("tcp").key("linux"),
            "`tcp.linux` keys need profile = \"linux\": under another profile they would make the host a Linux one",
        );
    }
    // The `linux` profile's sysctls decide the fields they name.
    if let Some(sysctls) = tcp.linux.clone() {
        sysctls.apply(&mut tcp);
    }
    check_tcp(&tcp, &path.key("tcp"))?;
    let Some(workload) = e.workload else {
        return fail(
            path.clone(),
            "missing field `workload`: a TCP flow needs e.g. workload = { kind = \"bulk\", bytes = \"5MB\" }",
        );
    };
    Ok(FlowKind::Tcp {
        tcp: Arc::new(tcp),
        workload,
    })
}

/// Rules of a TCP configuration beyond the ranges of its numbers ([`crate::bounds`]).
fn check_tcp(t: &TcpConfig, path: &FieldPath) -> Check {
    if let Err(why) = t.spurious.validate(t.timestamps, t.sack_enabled()) {
        return fail(path.key("spurious"), why);
    }
    Ok(())
}

fn quic_kind(e: &FlowEntry, path: &FieldPath) -> Result<FlowKind, Invalid> {
    let keys = [
        ("profile", e.profile.is_some()),
        ("tcp", e.tcp.is_some()),
        ("rate", e.rate.is_some()),
        ("payload", e.payload.is_some()),
        ("stop", e.stop.is_some()),
        ("kernel", e.kernel.is_some()),
    ];
    refuse_keys(path, "QUIC", &keys)?;
    let quic = e.quic.clone().unwrap_or_default();
    let Some(workload) = e.workload else {
        return fail(
            path.clone(),
            "missing field `workload`: a QUIC flow needs e.g. workload = { kind = \"bulk\", bytes = \"5MB\" }",
        );
    };
    Ok(FlowKind::Quic {
        quic: Box::new(quic),
        workload,
    })
}

fn cbr_kind(e: &FlowEntry, path: &FieldPath) -> Result<FlowKind, Invalid> {
    let keys = [
        ("profile", e.profile.is_some()),
        ("tcp", e.tcp.is_some()),
        ("quic", e.quic.is_some()),
        ("workload", e.workload.is_some()),
        ("kernel", e.kernel.is_some()),
    ];
    refuse_keys(path, "CBR", &keys)?;
    let Some(rate) = e.rate else {
        return fail(
            path.clone(),
            "missing field `rate`: a CBR flow needs a rate",
        );
    };
    let payload = e.payload.map_or(DEFAULT_CBR_PAYLOAD, |p| p.0);
    Ok(FlowKind::Cbr {
        rate,
        payload_bytes: payload as u32,
        stop: e.stop,
    })
}

fn resolve_route(
    route: &Route,
    path: &FieldPath,
    links: &Links,
    next_pair: &mut u64,
) -> Result<Vec<Hop>, Invalid> {
    match route {
        Route::Links(names) if names.is_empty() => {
            fail(path.clone(), "the route is empty: name at least one link")
        }
        Route::Links(names) => names
            .iter()
            .enumerate()
            .map(|(k, n)| resolve_hop(n, &path.index(k), links))
            .collect(),
        Route::AnyPair => {
            let pair = pair_route(path, links, None)?;
            let pairs = links.dumbbell.map_or(1, |d| d.pairs as u64);
            let k = (*next_pair % pairs) as u32;
            *next_pair += 1;
            pair(k)
        }
        Route::Pair(k) => pair_route(path, links, Some(*k))?(*k),
    }
}

/// A function from pair index to the dumbbell route, once the dumbbell is known to
/// exist (and `fixed`, if given, to be one of its pairs).
fn pair_route<'l>(
    path: &FieldPath,
    links: &'l Links,
    fixed: Option<u32>,
) -> Result<impl Fn(u32) -> Result<Vec<Hop>, Invalid> + 'l, Invalid> {
    let Some(d) = links.dumbbell else {
        return fail(
            path.clone(),
            "a \"pair\" route needs a [topology] with kind = \"dumbbell\"",
        );
    };
    if let Some(k) = fixed.filter(|k| *k >= d.pairs) {
        return fail(
            path.key("pair"),
            format!(
                "pair {k} does not exist: the dumbbell has pairs 0 to {}",
                d.pairs - 1
            ),
        );
    }
    let path = path.clone();
    Ok(move |k: u32| {
        [
            access_name(d, "src", k),
            d.bottleneck.name.clone(),
            access_name(d, "dst", k),
        ]
        .iter()
        .map(|n| resolve_hop(n, &path, links))
        .collect()
    })
}

fn resolve_hop(text: &str, path: &FieldPath, links: &Links) -> Result<Hop, Invalid> {
    let (name, dir) = match text.split_once(':') {
        None => (text, Dir::Forward),
        Some((n, "forward")) => (n, Dir::Forward),
        Some((n, "reverse")) => (n, Dir::Reverse),
        Some((_, d)) => {
            return fail(
                path.clone(),
                format!("unknown direction `{d}` in `{text}`: use `:forward` or `:reverse`"),
            )
        }
    };
    match links.index(name) {
        Some(link) => Ok(Hop { link, dir }),
        None => fail(
            path.clone(),
            format!("unknown link `{name}` (links: {})", links.known()),
        ),
    }
}

// ----- drops ------------------------------------------------------------------------

fn resolve_drop(
    d: &DropEntry,
    path: FieldPath,
    links: &Links,
    flows: &Flows,
) -> Result<DropRule, Invalid> {
    let Some(link) = links.index(&d.link) else {
        return fail(
            path.key("link"),
            format!("unknown link `{}` (links: {})", d.link, links.known()),
        );
    };
    let flow = drop_flow(d, &path, flows)?;
    let spec = &flows.specs[flow];
    if spec.kind.connection().is_none() {
        return fail(
            path.key("flow"),
            "only TCP and QUIC flows have segments to drop",
        );
    }
    if !spec.route.iter().any(|h| h.link == link) {
        return fail(
            path.key("link"),
            format!("flow `{}` does not cross link `{}`", spec.name, d.link),
        );
    }
    let target = match (d.segments, d.acks) {
        (Some(_), true) | (None, false) => {
            return fail(
                path.key("segments"),
                "give either `segments = [from, to]` or `acks = true`",
            );
        }
        (None, true) => DropTarget::Acks,
        (Some([from, to]), false) if from >= to => {
            return fail(
                path.key("segments"),
                format!("[{from}, {to}) is empty: write [first, one past the last]"),
            );
        }
        (Some([from, to]), false) => DropTarget::Segments {
            from,
            to,
            which: d.which,
        },
    };
    if d.until.is_some_and(|u| u <= d.after) {
        return fail(path.key("until"), "must be later than `after`");
    }
    Ok(DropRule {
        link,
        flow,
        target,
        after: d.after,
        until: d.until,
    })
}

fn drop_flow(d: &DropEntry, path: &FieldPath, flows: &Flows) -> Result<usize, Invalid> {
    if let Some(i) = flows.by_name.get(&d.flow) {
        return Ok(*i);
    }
    let message = match flows.counted.get(&d.flow) {
        Some(n) => format!(
            "flow `{0}` has count = {n}: name one replica, `{0}#0` to `{0}#{1}`",
            d.flow,
            n - 1
        ),
        None => format!("unknown flow `{}`", d.flow),
    };
    fail(path.key("flow"), message)
}
