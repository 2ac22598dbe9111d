//! Each common mistake in a scenario file gives one line naming the file, the line, the
//! field and what is wrong. Every case starts from the same small valid file.

use spikelab_scenario::parse;

/// A valid scenario; line numbers below refer to it (edits keep them where noted).
const VALID: &str = r#"[run]
name = "t"

[[link]]
name = "l"
rate = "1Mbit/s"
latency = "10ms"

[[flow]]
name = "f"
route = ["l"]
workload = { kind = "bulk", bytes = "10KB" }
"#;

/// Applies `edit` (from, to) to [`VALID`], asserts the load fails, returns the message.
fn error_after(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "`{from}` is not in the valid file");
    let text = VALID.replacen(from, to, 1);
    match parse(&text, "bad.toml") {
        Ok(_) => panic!("loaded without error:\n{text}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "not one line: {msg}");
            msg
        }
    }
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "`{p}` missing from: {msg}");
    }
}

#[test]
fn the_valid_file_loads() {
    let s = parse(VALID, "t.toml").unwrap();
    assert_eq!(s.flow_names(), ["f"]);
}

#[test]
fn unknown_key() {
    let m = error_after("latency = \"10ms\"", "latency = \"10ms\"\nspeed = 3");
    assert_has(
        &m,
        &["bad.toml:8:1: field `link[0].speed`: unknown field `speed`"],
    );
}

#[test]
fn misspelt_enum_variant() {
    let m = error_after(
        "route = [\"l\"]",
        "route = [\"l\"]\ntcp = { recovery = \"renoo\" }",
    );
    assert_has(
        &m,
        &[
            "bad.toml:12:9: field `flow[0].tcp.recovery`",
            "unknown variant `renoo`, expected one of `reno`, `new-reno`",
        ],
    );
}

#[test]
fn wrong_unit() {
    let m = error_after("\"10ms\"", "\"5 fortnights\"");
    assert_has(
        &m,
        &[
            "bad.toml:7:1: field `link[0].latency`",
            "unknown duration unit `fortnights`",
        ],
    );
}

#[test]
fn negative_number() {
    let m = error_after("name = \"t\"", "name = \"t\"\nreps = -2");
    assert_has(&m, &["bad.toml:3:1: field `run.reps`", "integer `-2`"]);
}

#[test]
fn missing_required_rate_points_at_the_link_table() {
    let m = error_after("rate = \"1Mbit/s\"\n", "");
    assert_has(&m, &["bad.toml:4:1: field `link[0]`: missing field `rate`"]);
}

#[test]
fn unknown_link_in_route() {
    let m = error_after("[\"l\"]", "[\"l\", \"m\"]");
    assert_has(
        &m,
        &["bad.toml:11:15: field `flow[0].route[1]`: unknown link `m` (links: `l`)"],
    );
}

#[test]
fn duplicate_link_names() {
    let m = error_after(
        "[[flow]]",
        "[[link]]\nname = \"l\"\nrate = \"1Mbit/s\"\nlatency = \"1ms\"\n\n[[flow]]",
    );
    assert_has(
        &m,
        &["bad.toml:10:1: field `link[1].name`: duplicate link name `l`"],
    );
}

#[test]
fn duplicate_flow_names() {
    let extra =
        "\n[[flow]]\nname = \"f\"\nroute = [\"l\"]\nworkload = { kind = \"bulk\", bytes = 1 }\n";
    let text = format!("{VALID}{extra}");
    let m = parse(&text, "bad.toml").unwrap_err().to_string();
    assert_has(
        &m,
        &["bad.toml:15:1: field `flow[1].name`: duplicate flow name `f`"],
    );
}

#[test]
fn zero_repetitions() {
    let m = error_after("name = \"t\"", "name = \"t\"\nreps = 0");
    assert_has(
        &m,
        &["bad.toml:3:1: field `run.reps`: 0 is out of range: must be between 1"],
    );
}

#[test]
fn start_min_after_max() {
    let m = error_after(
        "route = [\"l\"]",
        "route = [\"l\"]\nstart = { min = \"5s\", max = \"1s\" }",
    );
    assert_has(
        &m,
        &["bad.toml:12:11: field `flow[0].start.min`: min 5.000000s is larger"],
    );
}

#[test]
fn bad_toml_syntax_has_the_parser_line() {
    let m = error_after("name = \"f\"", "name = \"f");
    assert_has(&m, &["bad.toml:10:", "TOML syntax"]);
}

#[test]
fn string_where_a_number_belongs() {
    let m = error_after("name = \"t\"", "name = \"t\"\nseed = \"one\"");
    assert_has(
        &m,
        &["bad.toml:3:1: field `run.seed`: invalid value: string \"one\", expected a seed from 0 to 18446744073709551615"],
    );
}

#[test]
fn unknown_profile() {
    let m = error_after("route = [\"l\"]", "route = [\"l\"]\nprofile = \"ns3\"");
    assert_has(
        &m,
        &["bad.toml:12:1: field `flow[0].profile`: unknown variant `ns3`, expected one of `modern`, `ns2-2002`, `linux`"],
    );
}

#[test]
fn zero_count() {
    let m = error_after("route = [\"l\"]", "route = [\"l\"]\ncount = 0");
    assert_has(
        &m,
        &["bad.toml:12:1: field `flow[0].count`: 0 is out of range: must be between 1"],
    );
}

#[test]
fn drop_rule_with_an_empty_segment_range() {
    let text = format!("{VALID}\n[[drop]]\nlink = \"l\"\nflow = \"f\"\nsegments = [5, 5]\n");
    let m = parse(&text, "bad.toml").unwrap_err().to_string();
    assert_has(
        &m,
        &["bad.toml:17:1: field `drop[0].segments`: [5, 5) is empty"],
    );
}

#[test]
fn drop_rule_naming_a_counted_flow_suggests_a_replica() {
    let text = format!("{VALID}\n[[drop]]\nlink = \"l\"\nflow = \"f\"\nsegments = [1, 2]\n")
        .replace("route = [\"l\"]", "route = [\"l\"]\ncount = 3");
    let m = parse(&text, "bad.toml").unwrap_err().to_string();
    assert_has(
        &m,
        &["field `drop[0].flow`", "name one replica, `f#0` to `f#2`"],
    );
}

#[test]
fn zero_rate() {
    let m = error_after("rate = \"1Mbit/s\"", "rate = 0");
    assert_has(
        &m,
        &["bad.toml:6:1: field `link[0].rate`: the rate must be positive"],
    );
}

#[test]
fn zero_queue_limit() {
    let m = error_after(
        "latency = \"10ms\"",
        "latency = \"10ms\"\nqueue = { kind = \"drop-tail\", limit = { packets = 0 } }",
    );
    assert_has(
        &m,
        &["bad.toml:8:31: field `link[0].queue.limit`: a queue limit of 0"],
    );
}

#[test]
fn overlapping_explicit_spikes() {
    let spikes = "\n[[link.spikes]]\nkind = \"hiccup\"\nat = [{ start = \"5s\", duration = \"3s\" }, { start = \"6s\", duration = \"1s\" }]";
    let m = error_after("latency = \"10ms\"", &format!("latency = \"10ms\"{spikes}"));
    assert_has(
        &m,
        &["bad.toml:8:1: field `link[0].spikes[0]`: explicit spike 1 (start 6.000000s) begins before"],
    );
}

#[test]
fn a_freeze_in_front_of_the_queue_cannot_choose_what_happens_on_the_wire() {
    let spikes =
        "\n[[link.spikes]]\nkind = \"hiccup\"\nfreeze_at = \"before-queue\"\nwire = \"delivered\"";
    let m = error_after("latency = \"10ms\"", &format!("latency = \"10ms\"{spikes}"));
    assert_has(&m, &["field `link[0].spikes[0].wire`: `wire` applies only"]);
    let typo = "\n[[link.spikes]]\nkind = \"outage\"\nperiod = \"5s\"\nduration = \"1s\"\narrivals = \"lost\"";
    let m = error_after("latency = \"10ms\"", &format!("latency = \"10ms\"{typo}"));
    assert_has(
        &m,
        &["bad.toml:8:1: field `link[0].spikes[0]`: unknown variant `lost`, expected `queued` or `dropped`"],
    );
}

#[test]
fn mss_out_of_range() {
    let m = error_after("route = [\"l\"]", "route = [\"l\"]\ntcp = { mss = 70000 }");
    assert_has(
        &m,
        &["bad.toml:12:9: field `flow[0].tcp.mss`: 70000 is out of range: must be between 1 and 65495"],
    );
}

#[test]
fn zero_initial_window() {
    let m = error_after("route = [\"l\"]", "route = [\"l\"]\ntcp.initial_window = 0");
    assert_has(
        &m,
        &["bad.toml:12:5: field `flow[0].tcp.initial_window`: 0 is out of range: must be between 1"],
    );
}

#[test]
fn an_initial_window_above_a_thousand_segments() {
    let m = error_after(
        "route = [\"l\"]",
        "route = [\"l\"]\ntcp.initial_window = 1001",
    );
    assert_has(
        &m,
        &["bad.toml:12:5: field `flow[0].tcp.initial_window`: 1001 is out of range: must be between 1 and 1000 segments"],
    );
}

#[test]
fn a_tcp_flow_without_workload_or_bytes() {
    let m = error_after("workload = { kind = \"bulk\", bytes = \"10KB\" }", "");
    assert_has(
        &m,
        &["bad.toml:9:1: field `flow[0]`: missing field `workload`"],
    );
    let m = error_after("bytes = \"10KB\"", "bytes = 0");
    assert_has(
        &m,
        &["bad.toml:12:29: field `flow[0].workload.bytes`: 0 is out of range: must be between 1"],
    );
}

#[test]
fn empty_route_and_unknown_direction() {
    let m = error_after("[\"l\"]", "[]");
    assert_has(
        &m,
        &["bad.toml:11:1: field `flow[0].route`: the route is empty"],
    );
    let m = error_after("[\"l\"]", "[\"l:backwards\"]");
    assert_has(
        &m,
        &["field `flow[0].route[0]`: unknown direction `backwards`"],
    );
}

#[test]
fn unknown_key_in_a_profile_merged_tcp_table_still_fails() {
    let m = error_after(
        "route = [\"l\"]",
        "route = [\"l\"]\nprofile = \"ns2-2002\"\ntcp = { timestamp = true }",
    );
    assert_has(
        &m,
        &["bad.toml:13:9: field `flow[0].tcp.timestamp`: unknown field `timestamp`"],
    );
}

#[test]
fn cbr_keys_on_a_tcp_flow_and_tcp_keys_on_a_cbr_flow() {
    let m = error_after("route = [\"l\"]", "route = [\"l\"]\nrate = \"1Mbit/s\"");
    assert_has(
        &m,
        &["bad.toml:12:1: field `flow[0].rate`: a TCP flow has no `rate`"],
    );
    let m = error_after(
        "route = [\"l\"]",
        "route = [\"l\"]\nkind = \"cbr\"\nrate = \"1Mbit/s\"",
    );
    assert_has(
        &m,
        &["bad.toml:14:1: field `flow[0].workload`: a CBR flow has no `workload`"],
    );
}

#[test]
fn pair_route_without_a_dumbbell() {
    let m = error_after("[\"l\"]", "\"pair\"");
    assert_has(
        &m,
        &["bad.toml:11:1: field `flow[0].route`: a \"pair\" route needs a [topology]"],
    );
}

#[test]
fn unreadable_file_names_the_file() {
    let e = spikelab_scenario::load("/nonexistent/x.toml").unwrap_err();
    assert_has(
        &e.to_string(),
        &["/nonexistent/x.toml: cannot read the scenario"],
    );
}

/// Parses `VALID` plus `extra`, expecting an error; returns its message.
fn error_with(extra: &str) -> String {
    let text = format!("{VALID}\n{extra}");
    match parse(&text, "bad.toml") {
        Ok(_) => panic!("loaded without error:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_drop_needs_segments_or_acks_but_not_both() {
    let m = error_with("[[drop]]\nlink = \"l\"\nflow = \"f\"\n");
    assert_has(
        &m,
        &[
            "field `drop[0].segments`",
            "either `segments = [from, to]` or `acks = true`",
        ],
    );
    let m = error_with("[[drop]]\nlink = \"l\"\nflow = \"f\"\nacks = true\nsegments = [1, 2]\n");
    assert_has(&m, &["field `drop[0].segments`"]);
}

#[test]
fn a_drop_window_must_end_after_it_starts() {
    let m = error_with(
        "[[drop]]\nlink = \"l\"\nflow = \"f\"\nacks = true\nafter = \"5s\"\nuntil = \"2s\"\n",
    );
    assert_has(&m, &["field `drop[0].until`", "must be later than `after`"]);
}

#[test]
fn a_middlebox_on_an_unknown_link_or_a_second_box_on_a_link() {
    let m = error_with("[[middlebox]]\nlink = \"nope\"\nconfig = { kind = \"std-proxy\" }\n");
    assert_has(
        &m,
        &[
            "bad.toml:",
            "field `middlebox[0].link`",
            "unknown link `nope`",
        ],
    );
    let two = "[[middlebox]]\nlink = \"l\"\nconfig = { kind = \"std-proxy\" }\n\
               [[middlebox]]\nlink = \"l\"\nconfig = { kind = \"delay-injection\" }\n";
    let m = error_with(two);
    assert_has(
        &m,
        &["field `middlebox[1].link`", "already has a middlebox"],
    );
}

#[test]
fn a_misspelt_middlebox_kind() {
    let m = error_with("[[middlebox]]\nlink = \"l\"\nconfig = { kind = \"std-proxi\" }\n");
    assert_has(
        &m,
        &[
            "bad.toml:16:12: field `middlebox[0].config.kind`",
            "expected `std-proxy` or `delay-injection`",
        ],
    );
}

#[test]
fn eifel_without_timestamps_and_frto_as_an_observer_are_refused() {
    let m = error_after(
        "route = [\"l\"]",
        "route = [\"l\"]\ntcp = { timestamps = false, spurious = { driver = \"eifel\" } }",
    );
    assert_has(
        &m,
        &[
            "field `flow[0].tcp.spurious`",
            "`eifel` needs the timestamps option",
        ],
    );
    let m = error_after(
        "route = [\"l\"]",
        "route = [\"l\"]\ntcp = { spurious = { observe = [\"frto\"] } }",
    );
    assert_has(
        &m,
        &["field `flow[0].tcp.spurious`", "can only be the `driver`"],
    );
}

#[test]
fn linux_keys_under_another_profile_are_refused_at_their_key() {
    // They would make a `modern` (or `ns2-2002`) host run Linux's stack unannounced:
    // advise's `modern` rows on a Linux path did.
    for profile in ["", "profile = \"modern\"\n", "profile = \"ns2-2002\"\n"] {
        let m = error_after(
            "route = [\"l\"]",
            &format!("route = [\"l\"]\n{profile}tcp = {{ linux = {{ tcp_frto = 0 }} }}"),
        );
        assert_has(
            &m,
            &["field `flow[0].tcp.linux`", "need profile = \"linux\""],
        );
    }
    let linux = VALID.replacen(
        "route = [\"l\"]",
        "route = [\"l\"]\nprofile = \"linux\"\ntcp = { linux = { tcp_frto = 0 } }",
        1,
    );
    assert!(
        parse(&linux, "ok.toml").is_ok(),
        "the linux profile takes its keys"
    );
}

#[test]
fn a_valid_file_with_detectors_drops_and_a_middlebox_loads() {
    let extra =
        "[[drop]]\nlink = \"l\"\nflow = \"f\"\nacks = true\nafter = \"1s\"\nuntil = \"2s\"\n\
                 [[middlebox]]\nlink = \"l\"\nconfig = { kind = \"std-proxy\" }\n";
    let text = format!("{VALID}\n{extra}").replacen(
        "route = [\"l\"]",
        "route = [\"l\"]\ntcp = { spurious = { driver = \"eifel\", observe = [\"ack-timing\"] } }",
        1,
    );
    let s = parse(&text, "ok.toml").unwrap();
    let sim = s.to_sim();
    assert_eq!(sim.middleboxes.len(), 1);
    assert_eq!(sim.drops.len(), 1);
}
