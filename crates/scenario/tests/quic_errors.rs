//! Every key of a QUIC flow (`kind = "quic"`, `[flow.quic]`, docs/src/quic.md) given a
//! bad value is one line naming the file, the line, the field and why, as
//! `spikelab validate` prints it (exit code 2: crates/cli/tests/safety.rs). Every case
//! starts from one small valid file whose `[flow.quic]` table sits on line 15.

use spikelab_quic::QuicConfig;
use spikelab_scenario::parse;

/// A valid QUIC scenario; the `[flow.quic]` keys added go on line 15.
const VALID: &str = r#"[run]
name = "q"

[[link]]
name = "l"
rate = "1Mbit/s"
latency = "10ms"

[[flow]]
name = "f"
kind = "quic"
route = ["l"]
workload = { kind = "bulk", bytes = "10KB" }
[flow.quic]
cc = "new-reno"
"#;

/// [`VALID`] with `line` in place of its `cc` line (line 15), or its error message.
fn with_quic_line(line: &str) -> Result<(), String> {
    let text = VALID.replacen("cc = \"new-reno\"", line, 1);
    parse(&text, "bad.toml").map(|_| ()).map_err(|e| {
        let msg = e.to_string();
        assert!(!msg.contains('\n'), "not one line: {msg}");
        msg
    })
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "`{p}` missing from: {msg}");
    }
}

#[test]
fn the_valid_quic_file_loads() {
    with_quic_line("cc = \"cubic\"").unwrap();
}

/// One bad value per key of `[flow.quic]` and a fragment of the reason it gives.
const BAD: &[(&str, &str, &str)] = &[
    ("implementation", "\"quiche\"", "unknown variant `quiche`"),
    ("max_datagram_size", "1199", "1199"),
    ("max_datagram_size", "70000", "70000"),
    ("initial_rtt", "\"0s\"", "initial_rtt"),
    ("initial_rtt", "\"3 fortnights\"", "unknown duration unit"),
    ("initial_window", "1", "initial_window"),
    ("packet_threshold", "0", "packet_threshold"),
    (
        "persistent_congestion_threshold",
        "0",
        "persistent_congestion_threshold",
    ),
    ("max_ack_delay", "\"16384ms\"", "max_ack_delay"),
    ("ack_eliciting_threshold", "0", "ack_eliciting_threshold"),
    ("probe_packets", "3", "probe_packets"),
    ("pto_max", "\"0s\"", "pto_max"),
    ("cc", "\"bbr\"", "unknown variant `bbr`"),
    ("undo", "\"picoquicc\"", "unknown variant `picoquicc`"),
];

#[test]
fn every_quic_key_with_a_bad_value_is_located_at_its_line_and_field() {
    for key in QuicConfig::KEYS {
        assert!(
            BAD.iter().any(|(k, _, _)| *k == key),
            "no bad-value case for `{key}`"
        );
    }
    for (key, value, why) in BAD {
        let msg = with_quic_line(&format!("{key} = {value}"))
            .expect_err(&format!("{key} = {value} loaded"));
        assert_has(
            &msg,
            &["bad.toml:15:", &format!("field `flow[0].quic.{key}`"), why],
        );
    }
}

#[test]
fn an_unknown_quic_key_is_located() {
    let msg = with_quic_line("pto_cap = \"2s\"").unwrap_err();
    assert_has(
        &msg,
        &[
            "bad.toml:15:",
            "field `flow[0].quic.pto_cap`",
            "unknown field `pto_cap`",
        ],
    );
}

#[test]
fn quinn_refuses_each_key_it_fixes_at_that_key() {
    for (key, value) in [
        ("max_ack_delay", "\"40ms\""),
        ("ack_eliciting_threshold", "3"),
        ("probe_packets", "1"),
        ("pto_max", "\"2s\""),
        ("undo", "\"msquic\""),
    ] {
        let msg = with_quic_line(&format!("implementation = \"quinn\"\n{key} = {value}"))
            .expect_err(&format!("quinn took {key} = {value}"));
        assert_has(
            &msg,
            &[
                "bad.toml:",
                &format!("field `flow[0].quic.{key}`"),
                "quinn fixes it at",
            ],
        );
    }
    with_quic_line("implementation = \"quinn\"\ncc = \"cubic\"\ninitial_rtt = \"100ms\"").unwrap();
}

/// [`VALID`] with `from` replaced by `to`, or its error message.
fn error_after(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "`{from}` is not in the valid file");
    match parse(&VALID.replacen(from, to, 1), "bad.toml") {
        Ok(_) => panic!("loaded without error after {from} -> {to}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_quic_flow_refuses_each_tcp_or_cbr_key_at_that_key() {
    for (key, value) in [
        ("profile", "\"linux\""),
        ("tcp", "{ timestamps = true }"),
        ("rate", "\"1Mbit/s\""),
        ("payload", "\"100B\""),
        ("stop", "\"5s\""),
    ] {
        let msg = error_after(
            "route = [\"l\"]",
            &format!("route = [\"l\"]\n{key} = {value}"),
        );
        assert_has(
            &msg,
            &[
                "bad.toml:",
                &format!("field `flow[0].{key}`"),
                &format!("a QUIC flow has no `{key}`"),
            ],
        );
    }
}

#[test]
fn a_quic_table_on_a_tcp_flow_is_located() {
    let msg = error_after("kind = \"quic\"\n", "");
    assert_has(
        &msg,
        &[
            "bad.toml:",
            "field `flow[0].quic`",
            "a TCP flow has no `quic`",
        ],
    );
}

#[test]
fn a_quic_flow_without_a_workload_is_located() {
    let msg = error_after("workload = { kind = \"bulk\", bytes = \"10KB\" }\n", "");
    assert_has(&msg, &["bad.toml:", "field `flow[0]`", "a QUIC flow needs"]);
}

#[test]
fn a_misspelt_flow_kind_is_located() {
    let msg = error_after("kind = \"quic\"", "kind = \"qiuc\"");
    assert_has(
        &msg,
        &[
            "bad.toml:11:",
            "field `flow[0].kind`",
            "unknown variant `qiuc`",
        ],
    );
}
