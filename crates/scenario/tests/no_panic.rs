//! The loader never panics: random bytes and random edits of valid files give `Ok` or
//! `Err`, nothing else.

use proptest::prelude::*;
use spikelab_scenario::parse;

const QUICKSTART: &str = include_str!("../../../scenarios/quickstart.toml");

const DUMBBELL: &str = r#"
[run]
reps = 2
stop = "10s"
[topology]
kind = "dumbbell"
pairs = 3
access = { rate = "10Mbit/s", latency = "1ms" }
bottleneck = { rate = "2Mbit/s", latency = "20ms", queue = { kind = "drop-tail", limit = { packets = 30 } } }
[[flow]]
name = "bulk"
route = "pair"
count = 3
start = { min = "0s", max = "1s" }
profile = "ns2-2002"
tcp = { timestamps = true, rto = { kind = "rfc6298", min_rto = "200ms" } }
workload = { kind = "bulk", bytes = "100KB" }
[[flow]]
name = "cross"
kind = "cbr"
route = ["access-src-0", "bottleneck", "access-dst-1:forward"]
rate = "500kbit/s"
[[drop]]
link = "bottleneck"
flow = "bulk#1"
segments = [3, 5]
which = "every"
"#;

/// Characters that make interesting TOML: structure, numbers, units, quotes.
const ALPHABET: &[u8] = b"[]{}=,.\"'#\n :-_019eEkMsmbit/BKnafrupq\\";

fn mutate(text: &str, edits: &[(usize, u8, usize, Vec<u8>)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for (pos, op, len, insert) in edits {
        let at = pos % (bytes.len() + 1);
        let end = (at + len).min(bytes.len());
        let insert: Vec<u8> = insert
            .iter()
            .map(|b| ALPHABET[*b as usize % ALPHABET.len()])
            .collect();
        match op % 3 {
            0 => {
                bytes.drain(at..end);
            }
            1 => {
                bytes.splice(at..at, insert);
            }
            _ => {
                bytes.splice(at..end, insert);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, usize, Vec<u8>)>> {
    prop::collection::vec(
        (
            any::<usize>(),
            any::<u8>(),
            0usize..12,
            prop::collection::vec(any::<u8>(), 0..10),
        ),
        1..5,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse(&String::from_utf8_lossy(&bytes), "fuzz.toml");
    }

    #[test]
    fn edited_quickstart_never_panics(e in edits()) {
        let text = mutate(QUICKSTART, &e);
        if let Ok(s) = parse(&text, "fuzz.toml") {
            let _ = s.to_sim();
        }
    }

    #[test]
    fn edited_dumbbell_never_panics(e in edits()) {
        let text = mutate(DUMBBELL, &e);
        if let Ok(s) = parse(&text, "fuzz.toml") {
            let _ = s.to_sim();
        }
    }
}

#[test]
fn the_unedited_files_load() {
    parse(QUICKSTART, "q.toml").unwrap();
    let s = parse(DUMBBELL, "d.toml").unwrap();
    assert_eq!(s.flow_names(), ["bulk#0", "bulk#1", "bulk#2", "cross"]);
}

#[test]
fn huge_integer_durations_are_errors_not_panics() {
    let text = QUICKSTART.replace("stop = \"60s\"", "stop = 99999999999999999");
    let e = parse(&text, "q.toml").unwrap_err().to_string();
    assert!(
        e.contains("q.toml:11:1: field `run.stop`: 99999999999999999 s is out of range"),
        "{e}"
    );
}
