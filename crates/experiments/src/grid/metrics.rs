//! The per-run metrics a table can report, by name.

use spikelab_engine::FlowResult;

/// Every metric name an experiment file may use.
pub const NAMES: [&str; 15] = [
    "download_time_s",
    "throughput_kbps",
    "goodput",
    "data_segments_sent",
    "retransmissions",
    "unnecessary_retransmissions",
    "fast_retransmits",
    "timeouts",
    "spurious_timeouts",
    "genuine_timeouts",
    "timeout_episodes",
    "spurious_timeout_episodes",
    "genuine_timeout_episodes",
    "spurious_responses",
    "completed",
];

/// The value of metric `name` for one flow of one run (NaN when undefined, e.g. the
/// download time of a transfer the run did not finish).
pub fn value(name: &str, f: &FlowResult) -> f64 {
    let n = |v: u64| v as f64;
    match name {
        "download_time_s" => f.download_time().unwrap_or(f64::NAN),
        "throughput_kbps" => f.throughput_bps().map_or(f64::NAN, |t| t / 1000.0),
        "goodput" => f.goodput(),
        "data_segments_sent" => n(f.data_segments_sent),
        "retransmissions" => n(f.retransmissions),
        "unnecessary_retransmissions" => n(f.unnecessary_retransmissions),
        "fast_retransmits" => n(f.fast_retransmits),
        "timeouts" => n(f.timeouts),
        "spurious_timeouts" => n(f.spurious_timeouts),
        "genuine_timeouts" => n(f.genuine_timeouts),
        "timeout_episodes" => n(f.timeout_episodes),
        "spurious_timeout_episodes" => n(f.spurious_timeout_episodes),
        "genuine_timeout_episodes" => n(f.genuine_timeout_episodes),
        "spurious_responses" => n(f.spurious_responses),
        "completed" => n(f.completed.is_some() as u64),
        _ => f64::NAN,
    }
}

/// Every metric of `f`, in the order of [`NAMES`].
pub fn all(f: &FlowResult) -> [f64; NAMES.len()] {
    NAMES.map(|n| value(n, f))
}

/// The position of metric `name` in [`NAMES`].
pub fn index(name: &str) -> Option<usize> {
    NAMES.iter().position(|n| *n == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spikelab_core::Time;

    #[test]
    fn every_name_has_a_value_and_an_unfinished_download_has_no_time_nor_goodput() {
        let f = FlowResult {
            min_segments: 10,
            data_segments_sent: 12,
            ..FlowResult::default()
        };
        let v = all(&f);
        assert!(v[0].is_nan());
        assert!(v[index("goodput").unwrap()].is_nan());
        let spike = FlowResult {
            timeouts: 3,
            timeout_episodes: 1,
            spurious_timeout_episodes: 1,
            ..f.clone()
        };
        assert_eq!(value("timeouts", &spike), 3.0);
        assert_eq!(value("timeout_episodes", &spike), 1.0);
        assert_eq!(value("spurious_timeout_episodes", &spike), 1.0);
        assert_eq!(value("genuine_timeout_episodes", &spike), 0.0);
        let done = FlowResult {
            completed: Some(Time::from_secs_f64(2.0)),
            bytes: 1000,
            ..f
        };
        assert_eq!(value("download_time_s", &done), 2.0);
        assert_eq!(value("throughput_kbps", &done), 4.0);
        assert_eq!(value("goodput", &done), 10.0 / 12.0);
    }
}
