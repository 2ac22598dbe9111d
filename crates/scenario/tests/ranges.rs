//! Absurd numbers and cycles that cannot advance time are refused with a located error
//! naming the field (issue 14, items 2 and 4), and the small schema gaps of item 7 are
//! closed: RED's `{ packets = N }` limit, seeds above 2^63-1, non-UTF-8 files.

use spikelab_scenario::{load, parse};

/// A valid scenario with a SACK flow, a middlebox and a hiccup link.
const VALID: &str = r#"[run]
name = "t"
stop = "60s"

[[link]]
name = "l"
rate = "1Mbit/s"
latency = "10ms"

[[flow]]
name = "f"
route = ["l"]
tcp = { recovery = "reno-sack" }
workload = { kind = "bulk", bytes = "10KB" }
"#;

/// The error of `VALID` with `extra` appended (or `from` replaced by `to`).
fn error_of(text: &str) -> String {
    match parse(text, "bad.toml") {
        Ok(_) => panic!("loaded without error:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn with(extra: &str) -> String {
    error_of(&format!("{VALID}{extra}"))
}

fn replaced(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "{from}");
    error_of(&VALID.replace(from, to))
}

fn assert_has(msg: &str, parts: &[&str]) {
    assert!(!msg.contains('\n'), "not one line: {msg}");
    for p in parts {
        assert!(msg.contains(p), "`{p}` missing from: {msg}");
    }
}

// ----- item 2: cycles that cannot advance time --------------------------------------

fn hiccup(interval: &str, duration: &str) -> String {
    with(&format!(
        "\n[[link.spikes]]\nkind = \"hiccup\"\ninterval = {interval}\nduration = {duration}\n"
    ))
    .replace('\n', " ")
}

#[test]
fn a_hiccup_of_zero_interval_and_duration_is_refused() {
    let fixed0 = "{ dist = \"fixed\", value = \"0s\" }";
    let m = hiccup(fixed0, fixed0);
    assert_has(
        &m,
        &[
            "field `link[0].spikes[0].interval`",
            "a cycle needs at least 0.001000s",
        ],
    );
    let uniform0 = "{ dist = \"uniform\", min = \"0s\", max = \"0s\" }";
    let m = hiccup(uniform0, uniform0);
    assert_has(
        &m,
        &[
            "field `link[0].spikes[0].interval`",
            "simulated time advances",
        ],
    );
}

#[test]
fn a_hiccup_every_nanosecond_lasting_zero_is_refused() {
    let m = hiccup(
        "{ dist = \"fixed\", value = \"1ns\" }",
        "{ dist = \"fixed\", value = \"0s\" }",
    );
    assert_has(&m, &["field `link[0].spikes[0].interval`", "as short as"]);
}

#[test]
fn a_first_spike_after_segments_needs_a_count_and_no_other_placement() {
    let spike = |extra: &str| with(&format!("\n[[link.spikes]]\nkind = \"hiccup\"\n{extra}\n"));
    let at = "field `link[0].spikes[0].first_after_segments`";
    let m = spike("first_after_segments = 0");
    assert_has(&m, &[at, "must be between 1 and"]);
    let m = spike("first_after_segments = 2\nfirst = \"5s\"");
    assert_has(&m, &[at, "`first` places it otherwise"]);
    let m = spike("first_after_segments = 2\nstationary = true");
    assert_has(&m, &[at, "`stationary` places it otherwise"]);
    // Alone it loads.
    let ok = format!("{VALID}\n[[link.spikes]]\nkind = \"hiccup\"\nfirst_after_segments = 2\n");
    assert!(parse(&ok, "ok.toml").is_ok());
}

#[test]
fn a_bandwidth_oscillation_holding_zero_seconds_is_refused() {
    let m = with(
        "\n[[link.spikes]]\nkind = \"bandwidth-oscillation\"\nlevels = [{ rate = \"1Mbit/s\", hold = { dist = \"fixed\", value = \"0s\" } }, { rate = \"10kbit/s\", hold = { dist = \"uniform\", min = \"0s\", max = \"1s\" } }]\n",
    );
    assert_has(
        &m,
        &[
            "bad.toml:18:1: field `link[0].spikes[0].levels`",
            "simulated time advances",
        ],
    );
}

#[test]
fn an_outage_with_a_zero_period_or_outlasting_its_period_is_refused() {
    let m = with("\n[[link.spikes]]\nkind = \"outage\"\nperiod = \"0s\"\nduration = \"0s\"\n");
    assert_has(&m, &["field `link[0].spikes[0].period`"]);
    let m = with("\n[[link.spikes]]\nkind = \"outage\"\nperiod = \"1s\"\nduration = \"2s\"\n");
    assert_has(
        &m,
        &["field `link[0].spikes[0].duration`", "would never end"],
    );
}

// ----- item 4: absurd values --------------------------------------------------------

#[test]
fn a_duration_of_99999999999_hours_is_an_error_not_a_clamp() {
    let m = replaced("stop = \"60s\"", "stop = \"99999999999h\"");
    assert_has(
        &m,
        &[
            "bad.toml:3:1: field `run.stop`",
            "longer than the 1000000.000000s allowed",
        ],
    );
}

#[test]
fn a_flow_starting_after_the_stop_is_refused() {
    let m = replaced("route = [\"l\"]", "route = [\"l\"]\nstart = \"61s\"");
    assert_has(
        &m,
        &["field `flow[0].start`", "not before the run's stop time"],
    );
    let m = replaced(
        "route = [\"l\"]",
        "route = [\"l\"]\nstart = { min = \"0s\", max = \"2min\" }",
    );
    assert_has(&m, &["field `flow[0].start.max`"]);
}

fn middlebox(config: &str) -> String {
    with(&format!(
        "\n[[middlebox]]\nlink = \"l\"\nconfig = {config}\n"
    ))
}

#[test]
fn delay_injection_select_p_above_1_and_n_of_0_are_refused() {
    let m = middlebox("{ kind = \"delay-injection\", select = \"probability\", select_p = 2.5 }");
    assert_has(
        &m,
        &[
            "field `middlebox[0].config.select_p`",
            "2.5 is out of range: must be a probability in [0, 1]",
        ],
    );
    let m = middlebox("{ kind = \"delay-injection\", n = 0 }");
    assert_has(&m, &["field `middlebox[0].config.n`", "0 is out of range"]);
}

#[test]
fn std_proxy_negative_gain_nan_s_and_alpha_of_7_are_refused() {
    let m = middlebox("{ kind = \"std-proxy\", gain = -5.0 }");
    assert_has(
        &m,
        &[
            "field `middlebox[0].config.gain`",
            "-5 is out of range: must be finite and positive",
        ],
    );
    let m = middlebox("{ kind = \"std-proxy\", s = nan }");
    assert_has(
        &m,
        &["field `middlebox[0].config.s`", "NaN is out of range"],
    );
    let m = middlebox("{ kind = \"std-proxy\", alpha_n = 7.0 }");
    assert_has(&m, &["field `middlebox[0].config.alpha_n`", "[0, 1]"]);
}

#[test]
fn a_min_rto_above_the_max_rto_is_refused() {
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "tcp = { recovery = \"reno-sack\", rto = { kind = \"rfc6298\", min_rto = \"10s\", max_rto = \"1s\" } }",
    );
    assert_has(
        &m,
        &[
            "field `flow[0].tcp.rto.min_rto`",
            "min 10.000000s is larger than max 1.000000s (`max_rto`)",
        ],
    );
}

#[test]
fn mahimahi_opportunities_of_zero_bytes_are_refused() {
    let m = replaced(
        "latency = \"10ms\"",
        "latency = \"10ms\"\nservice = { kind = \"mahimahi\", trace = \"x.down\", opportunity_bytes = 0 }",
    );
    assert_has(
        &m,
        &[
            "field `link[0].service.opportunity_bytes`",
            "0 is out of range",
        ],
    );
}

#[test]
fn a_zero_initial_ssthresh_and_zero_sack_blocks_with_sack_recovery_are_refused() {
    let m = replaced(
        "{ recovery = \"reno-sack\" }",
        "{ recovery = \"reno-sack\", initial_ssthresh = 0 }",
    );
    assert_has(
        &m,
        &["field `flow[0].tcp.initial_ssthresh`", "0 is out of range"],
    );
    let m = replaced(
        "{ recovery = \"reno-sack\" }",
        "{ recovery = \"reno-sack\", max_sack_blocks = 0 }",
    );
    assert_has(
        &m,
        &[
            "field `flow[0].tcp.max_sack_blocks`",
            "must be between 1 and 4",
        ],
    );
    // RFC 2018 3: four blocks fill the 40 option bytes; a fifth does not fit.
    let m = replaced(
        "{ recovery = \"reno-sack\" }",
        "{ recovery = \"reno-sack\", max_sack_blocks = 5 }",
    );
    assert_has(
        &m,
        &[
            "field `flow[0].tcp.max_sack_blocks`",
            "must be between 1 and 4",
        ],
    );
    let ok = VALID.replace(
        "{ recovery = \"reno-sack\" }",
        "{ recovery = \"reno-sack\", timestamps = false, max_sack_blocks = 4 }",
    );
    parse(&ok, "ok.toml").unwrap_or_else(|e| panic!("four blocks without timestamps: {e}"));
    let ok = VALID.replace(
        "{ recovery = \"reno-sack\" }",
        "{ recovery = \"new-reno\", max_sack_blocks = 0 }",
    );
    parse(&ok, "ok.toml").unwrap_or_else(|e| panic!("no SACK, no blocks needed: {e}"));
}

// ----- item 7: schema gaps ----------------------------------------------------------

#[test]
fn red_takes_the_drop_tail_form_of_a_packet_limit() {
    let text = VALID.replace(
        "latency = \"10ms\"",
        "latency = \"10ms\"\nqueue = { kind = \"red\", limit = { packets = 1 } }",
    );
    let s = parse(&text, "red.toml").unwrap_or_else(|e| panic!("{e}"));
    match &s.sim().links[0].queue {
        spikelab_net::QueueConfig::Red(r) => assert_eq!(r.limit, 1),
        other => panic!("{other:?}"),
    }
}

#[test]
fn seeds_above_2_63_are_written_as_decimal_or_hex_strings() {
    for seed in ["\"18446744073709551615\"", "\"0xffffffffffffffff\""] {
        let text = VALID.replace("stop = \"60s\"", &format!("stop = \"60s\"\nseed = {seed}"));
        let s = parse(&text, "seed.toml").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.run().seed, u64::MAX);
        let back = toml::to_string(s.file()).unwrap();
        assert!(back.contains("seed = \"18446744073709551615\""), "{back}");
    }
    let m = replaced(
        "stop = \"60s\"",
        "stop = \"60s\"\nseed = \"18446744073709551616\"",
    );
    assert_has(
        &m,
        &[
            "bad.toml:4:1: field `run.seed`",
            "expected a seed from 0 to",
        ],
    );
}

#[test]
fn a_file_that_is_not_utf8_names_the_line_of_the_bad_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("latin1.toml");
    let mut bytes = VALID.as_bytes().to_vec();
    let at = VALID.find("name = \"f\"").unwrap() + 8;
    bytes.insert(at, 0xe9); // "é" in Latin-1
    std::fs::write(&path, bytes).unwrap();
    let m = load(&path).unwrap_err().to_string();
    assert_has(&m, &["latin1.toml:11:9: not UTF-8 text: byte 0xe9"]);
}

// ----- the linux profile's sysctls -------------------------------------------------

#[test]
fn a_linux_sysctl_outside_the_kernels_range_is_refused_at_its_field() {
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "profile = \"linux\"\ntcp = { linux = { tcp_frto = 3 } }",
    );
    assert_has(
        &m,
        &["bad.toml:14:", "tcp.linux.tcp_frto", "between 0 and 2"],
    );
}

#[test]
fn an_unknown_congestion_control_is_refused() {
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "profile = \"linux\"\ntcp = { linux = { tcp_congestion_control = \"vegas\" } }",
    );
    assert_has(&m, &["tcp_congestion_control", "bbr"]);
}

#[test]
fn tcp_rto_max_ms_takes_the_sysctls_range_only() {
    for bad in ["999", "120001"] {
        let m = replaced(
            "tcp = { recovery = \"reno-sack\" }",
            &format!("profile = \"linux\"\ntcp = {{ linux = {{ tcp_rto_max_ms = {bad} }} }}"),
        );
        assert_has(&m, &["tcp.linux.tcp_rto_max_ms", "1000 to 120000"]);
    }
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "profile = \"linux\"\ntcp = { linux = { tcp_rto_min_us = 0 } }",
    );
    assert_has(&m, &["tcp.linux.tcp_rto_min_us"]);
}

#[test]
fn bbr_cycle_draws_take_0_to_6_and_only_with_bbr() {
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "profile = \"linux\"\ntcp = { linux = { tcp_congestion_control = \"bbr\", bbr_cycle_draws = [2, 7] } }",
    );
    assert_has(&m, &["tcp.linux.bbr_cycle_draws[1]", "0 to 6"]);
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "profile = \"linux\"\ntcp = { linux = { tcp_congestion_control = \"cubic\", bbr_cycle_draws = [2] } }",
    );
    assert_has(&m, &["tcp.linux.bbr_cycle_draws", "runs `cubic`"]);
}

#[test]
fn tcp_rmem_must_be_ordered_min_default_max() {
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "profile = \"linux\"\ntcp = { linux = { tcp_rmem = [4096, 8192, 6000] } }",
    );
    assert_has(&m, &["tcp.linux.tcp_rmem"]);
}

#[test]
fn so_rcvbuf_must_be_positive() {
    let m = replaced(
        "tcp = { recovery = \"reno-sack\" }",
        "profile = \"linux\"\ntcp = { linux = { so_rcvbuf = 0 } }",
    );
    assert_has(&m, &["tcp.linux.so_rcvbuf"]);
}

// ----- generated delay traces --------------------------------------------------------

fn ping_trace(samples: &str, min: &str, max: &str) -> String {
    format!(
        "delay_trace = {{ generator = \"ping-trace\", seed = 1, samples = {samples}, \
         base = {{ min = \"{min}\", max = \"{max}\" }}, spike_probability = 0.01, \
         spike = {{ min = \"100ms\", max = \"500ms\" }} }}\n"
    )
}

#[test]
fn a_generated_delay_trace_is_generated_from_its_parameters() {
    let text = VALID.replace(
        "latency = \"10ms\"\n",
        &format!("latency = \"10ms\"\n{}", ping_trace("3", "60ms", "140ms")),
    );
    let s = parse(&text, "ok.toml").unwrap();
    let trace = s.to_sim().links[0].delay_trace.clone().unwrap();
    let first = trace.loaded().delay_at(spikelab_core::Time::ZERO);
    assert!(
        (60..=640).contains(&(first.0 / 1_000_000)),
        "{first} is not a 60-140 ms ping plus at most a 500 ms spike"
    );
}

#[test]
fn bad_generator_parameters_are_refused_at_their_field() {
    let at = |samples: &str, min: &str, max: &str| {
        replaced(
            "latency = \"10ms\"\n",
            &format!("latency = \"10ms\"\n{}", ping_trace(samples, min, max)),
        )
    };
    assert_has(
        &at("0", "60ms", "140ms"),
        &["bad.toml:", "link[0].delay_trace.samples", "between 1 and"],
    );
    assert_has(
        &at("10", "200ms", "140ms"),
        &["link[0].delay_trace.base.min", "larger than max"],
    );
    assert_has(
        &at("10", "60ms", "99999999999h"),
        &["link[0].delay_trace.base.max", "longer than"],
    );
}
