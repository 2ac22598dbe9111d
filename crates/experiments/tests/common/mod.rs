//! What the experiment tests share: reading a written CSV file back.
#![allow(dead_code)] // each test file uses its own part

use std::collections::BTreeMap;
use std::path::Path;

/// A CSV file's header and its rows as column -> value maps.
pub fn table(path: &Path) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect();
    (header, rows)
}

/// A CSV file's rows as column -> value maps.
pub fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    table(path).1
}

/// A cell as a number; NaN when it is not one (an empty cell), so a comparison fails.
pub fn num(row: &BTreeMap<String, String>, col: &str) -> f64 {
    row[col].parse().unwrap_or(f64::NAN)
}
