//! Every `[flow.quic]` key issue 42 added (the undo rules `quiche` and `picoquic`,
//! `framing`, `pacing`, `ack_order`, `idle_timeout`) is read from a scenario file, and
//! a bad value is refused with the file, line, field and why.

use spikelab_scenario::parse;

/// A one-flow QUIC scenario whose `[flow.quic]` table is `quic`; the table's first
/// key is on line 12.
fn scenario(quic: &str) -> String {
    format!(
        r#"[[link]]
name = "l"
rate = "2Mbit/s"
latency = "150ms"

[[flow]]
name = "q"
kind = "quic"
route = ["l"]
workload = {{ kind = "bulk", bytes = "100KB" }}
[flow.quic]
{quic}
"#
    )
}

#[test]
fn the_new_keys_are_read() {
    let text = scenario(
        "undo = \"picoquic\"\nframing = \"quinn\"\npacing = \"quinn\"\n\
         ack_order = \"acked-first\"\nidle_timeout = \"30s\"",
    );
    assert!(parse(&text, "q.toml").is_ok());
    assert!(parse(&scenario("undo = \"quiche\""), "q.toml").is_ok());
}

#[test]
fn a_bad_value_names_the_file_line_and_field() {
    for (line, why) in [
        ("undo = \"quic-go\"", "unknown variant"),
        ("framing = \"smallest\"", "unknown variant"),
        ("pacing = \"bbr\"", "unknown variant"),
        ("ack_order = \"rfc\"", "unknown variant"),
        ("idle_timeout = \"0s\"", "idle_timeout"),
    ] {
        let e = parse(&scenario(line), "q.toml").expect_err(line);
        let key = line.split(' ').next().unwrap();
        assert_eq!((e.file.as_str(), e.line), ("q.toml", 12), "{line}: {e}");
        assert_eq!(
            e.field.as_deref(),
            Some(&*format!("flow[0].quic.{key}")),
            "{e}"
        );
        assert!(e.to_string().contains(why), "{line}: {e}");
    }
}

#[test]
fn quinn_refuses_an_idle_timeout_other_than_its_own() {
    let text = scenario("implementation = \"quinn\"\nidle_timeout = \"5s\"");
    let e = parse(&text, "q.toml").expect_err("quinn keeps 30 s");
    assert_eq!(e.line, 13, "{e}");
    assert!(e.to_string().contains("30 s"), "{e}");
    let same = scenario("implementation = \"quinn\"\nidle_timeout = \"30s\"");
    assert!(parse(&same, "q.toml").is_ok());
}
