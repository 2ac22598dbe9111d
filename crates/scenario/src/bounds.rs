//! Range checks of every numeric field of a scenario: each number a user can write is
//! checked here against the range in which the model means something, and an absurd
//! value is an [`Invalid`] naming its field, never a silent clamp.
//!
//! The rules, in general:
//!
//! * every duration is at most [`MAX_DUR`] (10^6 s, about 11.6 days): "99999999999h"
//!   is an error, not 584 years;
//! * rates are 1 bit/s to [`MAX_RATE`]; sizes and counts of bytes 1 to [`MAX_BYTES`];
//! * counts (repetitions, flows, segments, thresholds) are at least 1;
//! * probabilities lie in [0, 1], EWMA weights in their paper's interval, gains are
//!   finite and positive; NaN and infinities are refused everywhere;
//! * a minimum never exceeds its maximum (uniform distributions, `min_rto`/`max_rto`,
//!   RED thresholds, a flow's start window);
//! * a cycle of a spike schedule lasts at least [`MIN_CYCLE`], so that simulated time
//!   advances (hiccups of interval and duration 0 or 1 ns, oscillations holding 0 s).
//!
//! `run.seed` and a generated delay trace's `seed` are the numbers without a range:
//! every u64 is a seed.
//!
//! The test `every_numeric_field_of_the_reference_has_a_range_check` (tests/ranges.rs)
//! sets every number of `scenarios/reference.toml` to absurd values in turn and fails if
//! one is accepted, so a new numeric field needs its check here.

use crate::error::FieldPath;
use crate::schema::{DropEntry, FlowEntry, KernelEntry, MiddleboxEntry, ScenarioFile, Topology};
pub use spikelab_core::bounds::{
    bytes, dur, dur_in, fail, gain, int, ordered, positive, probability, rate, real, Bounded,
    Check, MAX_BYTES, MAX_DUR, MAX_INITIAL_WINDOW, MAX_PACKETS, MAX_PACKET_BYTES, MAX_PING_SAMPLES,
    MAX_RATE, MAX_REPS, MAX_THRESHOLD, MAX_WINDOW, MIN_CYCLE, MIN_RTO_CEILING,
};
use spikelab_core::Dur;
use spikelab_engine::{StartTime, Workload};
use spikelab_net::leo_trace::{LeoReconfiguration, MAX_SLOTS};
use spikelab_net::ping_trace::{PingTrace, Uniform};
use spikelab_net::spike::{
    BandwidthOscillationConfig, HiccupConfig, IntervalFrom, OutageConfig, SpikeAt,
};
use spikelab_net::{
    DelayGenerator, DelaySource, DirOverride, Distribution, LinkConfig, SpikeConfig,
};
use spikelab_tcp::{LinuxSysctls, TcpConfig};

/// Largest TCP payload per segment: 65535 minus 20 bytes of IPv4 and 20 of TCP header.
pub const MAX_MSS: u32 = 65_495;
/// Largest CBR payload: 65535 minus 20 bytes of IPv4 and 8 of UDP header.
pub const MAX_CBR_PAYLOAD: u64 = 65_507;
/// Most flows (or dumbbell pairs) one entry may stand for.
pub const MAX_COUNT: u32 = 100_000;

/// Checks every number in `file`.
pub fn check(file: &ScenarioFile) -> Check {
    let run = FieldPath::root("run");
    int(
        &run.key("reps"),
        u64::from(file.run.reps),
        1,
        u64::from(MAX_REPS),
        "",
    )?;
    positive(&run.key("stop"), file.run.stop)?;
    for (i, l) in file.link.iter().enumerate() {
        link(l, &FieldPath::root("link").index(i))?;
    }
    if let Some(Topology::Dumbbell(d)) = &file.topology {
        let p = FieldPath::root("topology");
        int(
            &p.key("pairs"),
            u64::from(d.pairs),
            1,
            u64::from(MAX_COUNT),
            "",
        )?;
        link(&d.access, &p.key("access"))?;
        link(&d.bottleneck, &p.key("bottleneck"))?;
    }
    for (i, f) in file.flow.iter().enumerate() {
        flow(f, &FieldPath::root("flow").index(i), file.run.stop)?;
    }
    for (i, d) in file.drop.iter().enumerate() {
        drop_rule(d, &FieldPath::root("drop").index(i))?;
    }
    for (i, m) in file.middlebox.iter().enumerate() {
        middlebox(m, &FieldPath::root("middlebox").index(i))?;
    }
    Ok(())
}

// ----- links ------------------------------------------------------------------------

fn link(l: &LinkConfig, p: &FieldPath) -> Check {
    rate(&p.key("rate"), l.rate)?;
    dur(&p.key("latency"), l.latency)?;
    l.queue.bounds(&p.key("queue"))?;
    l.service.bounds(&p.key("service"))?;
    delay_trace(l.delay_trace.as_deref(), &p.key("delay_trace"))?;
    direction(&l.forward, &p.key("forward"))?;
    direction(&l.reverse, &p.key("reverse"))?;
    for (k, s) in l.spikes.iter().enumerate() {
        spike(s, &p.key("spikes").index(k))?;
    }
    Ok(())
}

fn direction(o: &DirOverride, p: &FieldPath) -> Check {
    if let Some(r) = o.rate {
        rate(&p.key("rate"), r)?;
    }
    if let Some(d) = o.latency {
        dur(&p.key("latency"), d)?;
    }
    if let Some(q) = &o.queue {
        q.bounds(&p.key("queue"))?;
    }
    if let Some(s) = &o.service {
        s.bounds(&p.key("service"))?;
    }
    delay_trace(o.delay_trace.as_deref(), &p.key("delay_trace"))
}

/// A generated delay trace's parameters (a file's are checked as it is read).
fn delay_trace(d: Option<&DelaySource>, p: &FieldPath) -> Check {
    match d {
        Some(DelaySource::Generated(g)) => match &g.generator {
            DelayGenerator::PingTrace(t) => ping_trace(t, p),
            DelayGenerator::LeoReconfiguration(l) => leo_reconfiguration(l, p),
        },
        Some(DelaySource::File(_) | DelaySource::Per10ms(_)) | None => Ok(()),
    }
}

fn leo_reconfiguration(l: &LeoReconfiguration, p: &FieldPath) -> Check {
    dur_in(&p.key("interval"), l.interval, Dur::from_millis(1), MAX_DUR)?;
    dur_in(&p.key("offset"), l.offset, Dur::ZERO, l.interval)?;
    uniform(&l.delay, &p.key("delay"))?;
    dur(&p.key("duration"), l.duration)?;
    int(
        &p.key("duration"),
        l.slots(),
        1,
        MAX_SLOTS,
        " slots of `interval`",
    )
}

fn ping_trace(t: &PingTrace, p: &FieldPath) -> Check {
    int(
        &p.key("samples"),
        t.samples as u64,
        1,
        MAX_PING_SAMPLES,
        " samples",
    )?;
    probability(&p.key("spike_probability"), t.spike_probability)?;
    uniform(&t.base, &p.key("base"))?;
    uniform(&t.spike, &p.key("spike"))
}

fn uniform(u: &Uniform, p: &FieldPath) -> Check {
    dur(&p.key("min"), u.min)?;
    dur(&p.key("max"), u.max)?;
    ordered(&p.key("min"), u.min, u.max, "")
}

// ----- spikes -----------------------------------------------------------------------

fn spike(s: &SpikeConfig, p: &FieldPath) -> Check {
    match s {
        SpikeConfig::Hiccup(h) => hiccup(h, p),
        SpikeConfig::Outage(o) => outage(o, p),
        SpikeConfig::BandwidthStep(b) => {
            if let Some(r) = b.from {
                rate(&p.key("from"), r)?;
            }
            rate(&p.key("to"), b.to)?;
            dur(&p.key("at"), b.at)
        }
        SpikeConfig::BandwidthOscillation(o) => oscillation(o, p),
    }
}

fn distribution(d: &Distribution, p: &FieldPath) -> Check {
    match *d {
        Distribution::Fixed { value } => dur(&p.key("value"), value),
        Distribution::Uniform { min, max } => {
            dur(&p.key("min"), min)?;
            dur(&p.key("max"), max)?;
            ordered(&p.key("min"), min, max, "")
        }
        Distribution::Exponential { mean } => dur(&p.key("mean"), mean),
    }
}

/// The shortest value a cycle can take from `d`: the minimum of fixed and uniform
/// durations, the mean of an exponential one (whose minimum is 0 for any mean).
fn floor(d: &Distribution) -> Dur {
    match *d {
        Distribution::Fixed { value } => value,
        Distribution::Uniform { min, .. } => min,
        Distribution::Exponential { mean } => mean,
    }
}

fn cycle(p: &FieldPath, shortest: Dur, what: &str) -> Check {
    if shortest < MIN_CYCLE {
        return fail(
            p,
            format!(
                "{what} can be as short as {shortest}: a cycle needs at least {MIN_CYCLE} \
                 so that simulated time advances"
            ),
        );
    }
    Ok(())
}

fn listed(at: &[SpikeAt], p: &FieldPath) -> Check {
    for (k, s) in at.iter().enumerate() {
        dur(&p.index(k).key("start"), s.start)?;
        positive(&p.index(k).key("duration"), s.duration)?;
    }
    Ok(())
}

fn hiccup(h: &HiccupConfig, p: &FieldPath) -> Check {
    distribution(&h.interval, &p.key("interval"))?;
    distribution(&h.duration, &p.key("duration"))?;
    let (gap, len) = (floor(&h.interval), floor(&h.duration));
    // A spike follows the previous one's end after `gap`, or its start after
    // max(gap, len) (spikes never overlap), see spikelab_net::spike.
    let shortest = match h.interval_from {
        IntervalFrom::End => gap + len,
        IntervalFrom::Start => gap.max(len),
    };
    cycle(
        &p.key("interval"),
        shortest,
        "a hiccup cycle (interval and duration)",
    )?;
    if let Some(first) = h.first {
        dur(&p.key("first"), first)?;
    }
    if let Some(n) = h.first_after_segments {
        after_segments(h, n, &p.key("first_after_segments"))?;
    }
    listed(&h.at, &p.key("at"))
}

/// `first_after_segments = n`: a count of data segments, and the only placement of the
/// first spike.
fn after_segments(h: &HiccupConfig, n: u32, p: &FieldPath) -> Check {
    int(p, n.into(), 1, MAX_PACKETS, " data segments")?;
    let other = [
        (h.first.is_some(), "first"),
        (h.stationary, "stationary"),
        (!h.at.is_empty(), "at"),
    ];
    match other.iter().find(|(set, _)| *set) {
        Some((_, key)) => fail(
            p,
            format!(
                "places the first spike after {n} data segments, and `{key}` places it \
                 otherwise: set one of them"
            ),
        ),
        None => Ok(()),
    }
}

fn outage(o: &OutageConfig, p: &FieldPath) -> Check {
    if let Some(period) = o.period {
        dur(&p.key("period"), period)?;
        cycle(&p.key("period"), period, "an outage period")?;
    }
    if let Some(d) = o.duration {
        positive(&p.key("duration"), d)?;
        if let Some(period) = o.period.filter(|period| d > *period) {
            return fail(
                &p.key("duration"),
                format!("an outage of {d} cannot recur every {period}: it would never end"),
            );
        }
    }
    if let Some(first) = o.first {
        dur(&p.key("first"), first)?;
    }
    listed(&o.at, &p.key("at"))
}

fn oscillation(o: &BandwidthOscillationConfig, p: &FieldPath) -> Check {
    let mut shortest = Dur::ZERO;
    for (k, level) in o.levels.iter().enumerate() {
        let q = p.key("levels").index(k);
        rate(&q.key("rate"), level.rate)?;
        distribution(&level.hold, &q.key("hold"))?;
        shortest += floor(&level.hold);
    }
    if !o.levels.is_empty() {
        cycle(
            &p.key("levels"),
            shortest,
            "a cycle through the levels (their holds)",
        )?;
    }
    dur(&p.key("start"), o.start)
}

// ----- flows ------------------------------------------------------------------------

fn flow(e: &FlowEntry, p: &FieldPath, stop: Dur) -> Check {
    int(
        &p.key("count"),
        u64::from(e.count),
        1,
        u64::from(MAX_COUNT),
        "",
    )?;
    let after_stop = |t: Dur| {
        format!("{t} is not before the run's stop time {stop}: the flow would never start")
    };
    let earliest = match e.start {
        StartTime::At(t) if t >= stop => return fail(&p.key("start"), after_stop(t)),
        StartTime::At(t) => t,
        StartTime::Uniform { min, max } => {
            ordered(&p.key("start").key("min"), min, max, "")?;
            if max > stop {
                return fail(&p.key("start").key("max"), after_stop(max));
            }
            min
        }
    };
    if let Some(tcp) = &e.tcp {
        tcp_config(tcp, &p.key("tcp"))?;
    }
    if let Some(quic) = &e.quic {
        quic.bounds(&p.key("quic"))?;
    }
    if let Some(w) = &e.workload {
        workload(w, &p.key("workload"))?;
    }
    if let Some(r) = e.rate {
        rate(&p.key("rate"), r)?;
    }
    if let Some(b) = e.payload {
        bytes(&p.key("payload"), b, MAX_CBR_PAYLOAD)?;
    }
    if let Some(s) = e.stop {
        dur_in(&p.key("stop"), s, earliest + Dur(1), MAX_DUR)?;
    }
    if let Some(k) = &e.kernel {
        kernel(k, &p.key("kernel"))?;
    }
    Ok(())
}

/// `[flow.kernel]`: sysctls within the values the kernel accepts, a receive buffer
/// the kernel's `int` holds (it doubles `SO_RCVBUF`), a module name that fits
/// `TCP_CA_NAME_MAX` (16 bytes with its NUL).
fn kernel(k: &KernelEntry, p: &FieldPath) -> Check {
    for (name, v, max) in k.sysctls() {
        int(&p.key(name), u64::from(v), 0, u64::from(max), "")?;
    }
    if let Some(b) = k.rcvbuf {
        bytes(&p.key("rcvbuf"), b, i32::MAX as u64 / 2)?;
    }
    if let Some(c) = &k.congestion {
        let ok = !c.is_empty()
            && c.len() < 16
            && c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        if !ok {
            return fail(
                &p.key("congestion"),
                format!("`{c}` is not a congestion-control module name (letters, digits, `_`, at most 15)"),
            );
        }
    }
    Ok(())
}

fn workload(w: &Workload, p: &FieldPath) -> Check {
    match *w {
        Workload::Bulk { bytes: b } => bytes(&p.key("bytes"), b, MAX_BYTES),
        Workload::PingPong { packets, bytes: b } => {
            int(&p.key("packets"), packets, 1, MAX_PACKETS, " messages")?;
            bytes(&p.key("bytes"), b, MAX_BYTES)
        }
    }
}

fn tcp_config(t: &TcpConfig, p: &FieldPath) -> Check {
    let mss = u64::from(t.mss);
    int(&p.key("mss"), mss, 1, u64::from(MAX_MSS), " bytes")?;
    int(
        &p.key("initial_window"),
        u64::from(t.initial_window),
        1,
        MAX_INITIAL_WINDOW,
        " segments",
    )?;
    int(
        &p.key("receiver_window"),
        t.receiver_window,
        mss,
        MAX_WINDOW,
        " bytes (one segment to 2^30)",
    )?;
    // RFC 5681 (4): ssthresh never goes below 2 SMSS; "arbitrarily high" is the default.
    int(
        &p.key("initial_ssthresh"),
        t.initial_ssthresh,
        2 * mss,
        u64::MAX,
        " bytes (2 MSS up)",
    )?;
    int(
        &p.key("dupack_threshold"),
        u64::from(t.dupack_threshold),
        1,
        MAX_THRESHOLD,
        "",
    )?;
    // RFC 7323 5.4: a timestamp clock ticks between once per 1 ms and once per 1 s.
    dur_in(
        &p.key("timestamp_tick"),
        t.timestamp_tick,
        Dur(1),
        Dur::from_secs(1),
    )?;
    let da = p.key("delayed_ack");
    int(
        &da.key("every"),
        u64::from(t.delayed_ack.every),
        1,
        MAX_THRESHOLD,
        " segments",
    )?;
    // RFC 5681 4.2: the delay "MUST be less than 0.5 seconds".
    dur_in(
        &da.key("timeout"),
        t.delayed_ack.timeout,
        Dur::ZERO,
        Dur::from_millis(500) - Dur(1),
    )?;
    // RFC 2018 3: at most 4 SACK blocks fit the options; a SACK sender needs one.
    let least = u64::from(t.sack_enabled());
    int(
        &p.key("max_sack_blocks"),
        u64::from(t.max_sack_blocks),
        least,
        4,
        " blocks",
    )?;
    if let Some(l) = &t.linux {
        linux_sysctls(l, &p.key("linux"))?;
    }
    t.rto.bounds(&p.key("rto"))
}

/// The values each sysctl takes in the kernel (Documentation/networking/ip-sysctl.rst):
/// booleans 0/1, `tcp_timestamps` and `tcp_frto` 0 to 2, `tcp_recovery` a mask of
/// bits 1, 2, 4, `tcp_early_retrans` 0 to 4, `tcp_rmem` min <= default <= max;
/// `so_rcvbuf` (a socket option) 1 to 2^30; `tcp_rto_max_ms` 1000 to 120000 and
/// `tcp_rto_min_us` at least 1 (Linux 6.15+).
fn linux_sysctls(l: &LinuxSysctls, p: &FieldPath) -> Check {
    let flags = [
        ("tcp_timestamps", l.tcp_timestamps, 2),
        ("tcp_sack", l.tcp_sack, 1),
        ("tcp_dsack", l.tcp_dsack, 1),
        ("tcp_frto", l.tcp_frto, 2),
        ("tcp_recovery", l.tcp_recovery, 7),
        ("tcp_early_retrans", l.tcp_early_retrans, 4),
    ];
    for (name, v, hi) in flags {
        int(&p.key(name), u64::from(v), 0, hi, "")?;
    }
    let [min, default, max] = l.tcp_rmem;
    let rmem = p.key("tcp_rmem");
    int(&rmem.index(0), min, 1, default, " bytes (1 to the default)")?;
    int(&rmem.index(1), default, min, max, " bytes (min to max)")?;
    int(
        &rmem.index(2),
        max,
        default,
        MAX_WINDOW,
        " bytes (default to 2^30)",
    )?;
    if let Some(v) = l.so_rcvbuf {
        int(&p.key("so_rcvbuf"), v, 1, MAX_WINDOW, " bytes (1 to 2^30)")?;
    }
    // net/ipv4/sysctl_net_ipv4.c: tcp_rto_max_ms from SYSCTL_ONE_THOUSAND to
    // tcp_rto_max_max (TCP_RTO_MAX_SEC * MSEC_PER_SEC), tcp_rto_min_us from SYSCTL_ONE
    // (an int).
    if let Some(v) = l.tcp_rto_max_ms {
        let p = p.key("tcp_rto_max_ms");
        int(&p, u64::from(v), 1000, 120_000, " ms (1000 to 120000)")?;
    }
    bbr_cycle_draws(l, p)?;
    if let Some(v) = l.tcp_rto_min_us {
        let hi = i32::MAX as u64;
        int(
            &p.key("tcp_rto_min_us"),
            u64::from(v),
            1,
            hi,
            " us (1 to 2^31 - 1)",
        )?;
    }
    Ok(())
}

/// `bbr_cycle_draws` replays BBR v1's draws from `0..bbr_cycle_rand` (7), so only
/// with `tcp_congestion_control = "bbr"`.
fn bbr_cycle_draws(l: &LinuxSysctls, p: &FieldPath) -> Check {
    let Some(draws) = &l.bbr_cycle_draws else {
        return Ok(());
    };
    let p = p.key("bbr_cycle_draws");
    if l.tcp_congestion_control.name() != "bbr" {
        let why = format!(
            "replays BBR's gain-cycle draws; this flow runs `{}`",
            l.tcp_congestion_control.name()
        );
        return fail(&p, why);
    }
    for (i, &d) in draws.iter().enumerate() {
        int(&p.index(i), u64::from(d), 0, 6, " (a draw of 0 to 6)")?;
    }
    Ok(())
}

// ----- drops and middleboxes --------------------------------------------------------

fn drop_rule(d: &DropEntry, p: &FieldPath) -> Check {
    dur(&p.key("after"), d.after)?;
    if let Some(u) = d.until {
        dur(&p.key("until"), u)?;
    }
    Ok(())
}

fn middlebox(m: &MiddleboxEntry, p: &FieldPath) -> Check {
    let p = p.key("config");
    m.config.bounds(&p)
}
