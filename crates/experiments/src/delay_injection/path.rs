//! The path of [Klein et al. 2004] IV's TCP simulation, built from a ping trace.
//!
//! The paper's TCP simulator ran over the path its GPRS ping trace measured (scaled by
//! 1/5, footnote 3), whose trace is not public; we use the synthetic GPRS-like trace of
//! [`super::synthetic`] and replay it as a one-way delay of the data direction
//! ([`spikelab_net::delay`]): the pings were sent one after the other ("When the reply is
//! received or the maximum wait time expires, the next ping request message is sent"),
//! so sample k describes the path from the time ping k was sent, t_k = RTT\[0\] + ... +
//! RTT\[k-1\], until the next ping left. A data segment whose transmission ends in
//! \[t_k, t_{k+1}) gets RTT\[k\] of extra delay; the link keeps FIFO order, so a
//! segment sent just after a spike waits behind the delayed ones, as on a stalled
//! radio link. The ACK direction adds only its transmission time. A TCP sender that
//! times one segment per round trip thus draws RTT samples from the same process the
//! pings did, which is what the paper's trace-mode analysis (Figs. 1-2) assumes.

use spikelab_core::{Dur, Time};
use spikelab_net::delay::DelayTrace;

/// The delay trace replaying `rtts` (ms) as laid out in time by a sequential pinger.
pub fn ping_delay_trace(rtts: &[f64]) -> DelayTrace {
    let mut t = Time::ZERO;
    let points = rtts
        .iter()
        .map(|&ms| {
            let d = Dur::from_nanos((ms * 1e6).round() as u64);
            let p = (t, d);
            t += d;
            p
        })
        .collect();
    DelayTrace::from_points(points)
}

/// The trace as the text of a delay-trace file (`time,delay` per line, seconds).
pub fn delay_trace_text(rtts: &[f64]) -> String {
    let mut t = 0u64;
    let mut out = String::from(
        "# [Klein et al. 2004] IV path: the synthetic GPRS-like ping trace (scaled, ms) \
         replayed as a one-way delay; time,delay in seconds\n",
    );
    for &ms in rtts {
        let d = (ms * 1e6).round() as u64;
        out.push_str(&format!("{},{}\n", secs(t), secs(d)));
        t += d;
    }
    out
}

fn secs(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sample_holds_for_its_own_duration() {
        let tr = ping_delay_trace(&[100.0, 500.0, 80.0]);
        let at = |ms| tr.delay_at(Time::ZERO + Dur::from_millis(ms));
        assert_eq!(at(0), Dur::from_millis(100));
        assert_eq!(at(99), Dur::from_millis(100));
        assert_eq!(at(100), Dur::from_millis(500));
        assert_eq!(at(599), Dur::from_millis(500));
        assert_eq!(at(600), Dur::from_millis(80));
        let text = delay_trace_text(&[100.0, 500.0, 80.0]);
        assert_eq!(DelayTrace::parse(&text).unwrap(), tr);
    }
}
