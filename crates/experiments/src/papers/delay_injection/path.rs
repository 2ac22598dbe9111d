//! The path of [Klein et al. 2004] IV's TCP simulation as a trace file: the ping trace
//! laid out in time as [`spikelab_net::ping_trace`] replays it (the scenario generates
//! the same trace from its parameters; this file is for reading and for tools that
//! want a file).

use spikelab_net::ping_trace::ping_layout_text;

/// The trace as the text of a delay-trace file (`time,delay` per line, seconds).
pub fn delay_trace_text(rtts: &[f64]) -> String {
    ping_layout_text(
        rtts,
        "[Klein et al. 2004] IV path: the synthetic GPRS-like ping trace (scaled, ms) \
         replayed as a one-way delay; time,delay in seconds",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_net::ping_trace::ping_layout;
    use spikelab_net::DelayTrace;

    #[test]
    fn the_file_is_the_trace_the_scenario_replays() {
        let rtts = [100.0, 500.0, 80.0];
        let text = delay_trace_text(&rtts);
        assert!(text.starts_with("# [Klein et al. 2004] IV path"));
        assert_eq!(DelayTrace::parse(&text).unwrap(), ping_layout(&rtts));
    }
}
