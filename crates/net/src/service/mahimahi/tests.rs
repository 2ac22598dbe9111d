//! Mahimahi replay: deliveries at the trace's opportunities, byte accounting as in
//! mm-link, and parse errors.

use super::*;
use crate::config::LinkDirConfig;
use crate::link::tests::{data, drive, link, ms, Input};
use crate::service::ServiceConfig;
use spikelab_core::BitRate;

fn mm_link(trace: &str, opportunity_bytes: u32) -> crate::LinkDir {
    let cfg = LinkDirConfig {
        service: ServiceConfig::Mahimahi(MahimahiConfig {
            trace: TraceRef::with_data("test", MahimahiTrace::parse(trace).unwrap()),
            opportunity_bytes,
        }),
        ..LinkDirConfig::new(BitRate(1), Dur::ZERO)
    };
    link(&cfg)
}

fn sends(at: Time, payloads: &[u32]) -> Vec<(Time, Input)> {
    let each = payloads.iter().enumerate();
    each.map(|(uid, &len)| (at, Input::Send(data(uid as u64, len))))
        .collect()
}

fn times(out: &crate::link::tests::Outcome) -> Vec<Time> {
    out.delivered.iter().map(|d| d.1).collect()
}

#[test]
fn full_size_packets_leave_one_per_opportunity_with_repeats_and_wrap_around() {
    // Period 20 ms: opportunities at 5, 10, 10, 20, then 25, 30, 30, 40, ...
    let mut l = mm_link("5\n10\n10\n20\n", 1500);
    let out = drive(&mut l, &sends(Time::ZERO, &[1460; 8]));
    let want: Vec<Time> = [5, 10, 10, 20, 25, 30, 30, 40]
        .into_iter()
        .map(ms)
        .collect();
    assert_eq!(times(&out), want);
}

#[test]
fn an_arrival_cannot_use_an_opportunity_at_its_own_timestamp() {
    let mut l = mm_link("5\n10\n10\n20\n", 1500);
    let out = drive(&mut l, &sends(ms(10), &[1460]));
    assert_eq!(times(&out), vec![ms(20)]);
}

#[test]
fn unused_opportunities_are_not_banked() {
    let mut l = mm_link("5\n10\n10\n20\n", 1500);
    let out = drive(&mut l, &sends(ms(31), &[1460, 1460]));
    assert_eq!(times(&out), vec![ms(40), ms(45)]);
}

#[test]
fn small_packets_share_an_opportunity_and_large_ones_span_several() {
    // 3 x 500 wire bytes fit one 1500-byte opportunity.
    let mut l = mm_link("1\n2\n3\n4\n", 1500);
    let out = drive(&mut l, &sends(Time::ZERO, &[460, 460, 460, 460]));
    assert_eq!(times(&out), vec![ms(1), ms(1), ms(1), ms(2)]);
    // 1000-byte opportunities: a 1500-byte packet needs two; the second's spare 500
    // bytes carry the next 500-byte packet.
    let mut l = mm_link("1\n2\n3\n4\n", 1000);
    let out = drive(&mut l, &sends(Time::ZERO, &[1460, 460, 1460]));
    assert_eq!(times(&out), vec![ms(2), ms(2), ms(4)]);
}

#[test]
fn opportunities_during_a_suspension_are_lost() {
    let mut l = mm_link("5\n10\n10\n20\n", 1500);
    let mut inputs = vec![(ms(1), Input::Suspend)];
    inputs.extend(sends(ms(2), &[1460, 1460]));
    inputs.push((ms(12), Input::Resume));
    let out = drive(&mut l, &inputs);
    assert_eq!(times(&out), vec![ms(20), ms(25)]);
}

#[test]
fn malformed_traces_name_the_line_and_the_reason() {
    let cases = [
        (
            "1\nabc\n",
            Some(2),
            "`abc` is not a whole number of milliseconds",
        ),
        ("1\n-3\n", Some(2), "`-3` is not a whole number"),
        (
            "5\n7\n3\n",
            Some(3),
            "timestamp 3 is before the previous one (7)",
        ),
        ("1\n\n2\n", Some(2), "empty line"),
        ("", None, "empty trace"),
        ("0\n0\n", Some(2), "must last a nonzero time"),
    ];
    for (text, line, reason) in cases {
        let e = MahimahiTrace::parse(text).unwrap_err();
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.reason.contains(reason), "{text:?}: {e}");
    }
    let shown = MahimahiTrace::parse("1\nx\n").unwrap_err().to_string();
    assert!(shown.starts_with("line 2: "), "{shown}");
}
