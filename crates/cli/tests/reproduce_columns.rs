//! Every CSV file `spikelab reproduce` writes, and every column of its header, has an
//! entry on the book's page `docs/src/reproduction-outputs.md`: a `## ` section naming
//! the file, and in it a table row starting with the backquoted column name. The names
//! come from the files a real (one-repetition) reproduce writes, not from the source
//! that writes them, so the check holds however the reproductions are implemented.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// Every `.csv` file under `dir`, as paths relative to it with `/`, sorted.
fn csv_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "csv") {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy();
                out.push(rel.replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// The `## ` sections of `page` as (heading, body up to the next `## `).
fn sections(page: &str) -> Vec<(&str, &str)> {
    let starts: Vec<usize> = page.match_indices("\n## ").map(|(i, _)| i + 1).collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).copied().unwrap_or(page.len());
            let text = &page[s..end];
            let nl = text.find('\n').unwrap_or(text.len());
            (&text[3..nl], &text[nl..])
        })
        .collect()
}

/// The section documenting `rel` (`paper/file.csv`): its heading names the file as
/// `` `paper/file.csv` `` or, after a first `` `paper/...` `` of the same folder, as
/// `` `file.csv` ``.
fn section_of<'p>(secs: &[(&'p str, &'p str)], rel: &str) -> Option<&'p str> {
    let (folder, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    secs.iter()
        .find(|(h, _)| {
            h.contains(&format!("`{rel}`"))
                || (h.starts_with(&format!("`{folder}/")) && h.contains(&format!("`{file}`")))
        })
        .map(|(_, body)| *body)
}

/// The header's column names: the first line, unless it is a `#` comment (a file
/// without a header line, whose section documents its columns in prose names).
fn header(path: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap_or_default();
    (!first.starts_with('#')).then(|| first.split(',').map(str::to_owned).collect())
}

#[test]
fn every_csv_of_reproduce_and_every_column_has_an_entry_in_the_book() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let run = Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .args(["reproduce", "--reps", "1", "--out"])
        .arg(&out)
        .output()
        .expect("the spikelab binary runs");
    assert!(
        run.status.success(),
        "reproduce failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The studies beyond the five papers run only when named: each once more, into a
    // folder of its own.
    let studies = tmp.path().join("s");
    let run = Command::new(env!("CARGO_BIN_EXE_spikelab"))
        .args(["reproduce", "quic-spikes", "--reps", "1", "--out"])
        .arg(&studies)
        .output()
        .expect("the spikelab binary runs");
    assert!(
        run.status.success(),
        "reproduce quic-spikes failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let page = std::fs::read_to_string(repo("docs/src/reproduction-outputs.md")).unwrap();
    let secs = sections(&page);
    let mut files = csv_files(&out);
    files.extend(csv_files(&studies));
    let written = |rel: &str| match out.join(rel).exists() {
        true => out.join(rel),
        false => studies.join(rel),
    };
    // Every reproduction writes at least one CSV file.
    for paper in [
        "gprs-eifel",
        "eifel-response",
        "peak-hopper",
        "std-proxy",
        "delay-injection",
    ] {
        assert!(
            files.iter().any(|f| f.starts_with(&format!("{paper}/"))),
            "{paper} wrote no CSV file: {files:?}"
        );
    }
    let mut missing = Vec::new();
    for rel in &files {
        let Some(body) = section_of(&secs, rel) else {
            missing.push(format!("{rel}: no section"));
            continue;
        };
        let cols = header(&written(rel)).unwrap_or_default();
        for c in cols
            .iter()
            .filter(|c| !body.contains(&format!("| `{c}` |")))
        {
            missing.push(format!("{rel}: {c}"));
        }
    }
    assert!(
        missing.is_empty(),
        "not documented in docs/src/reproduction-outputs.md: {missing:?}"
    );
    let stale: Vec<String> = documented_files(&secs)
        .into_iter()
        .filter(|f| !files.contains(f))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/src/reproduction-outputs.md documents files reproduce did not write: {stale:?}"
    );
}

/// The files the section headings name: the first backquoted name is `paper/file.csv`,
/// later ones in the same heading are files of the same folder.
fn documented_files(secs: &[(&str, &str)]) -> Vec<String> {
    let mut out = Vec::new();
    for (h, _) in secs {
        let names: Vec<&str> = h.split('`').skip(1).step_by(2).collect();
        let Some((folder, _)) = names.first().and_then(|n| n.rsplit_once('/')) else {
            out.push(format!("(a heading without `paper/file.csv`: {h})"));
            continue;
        };
        for n in names {
            out.push(if n.contains('/') {
                n.to_owned()
            } else {
                format!("{folder}/{n}")
            });
        }
    }
    out
}
