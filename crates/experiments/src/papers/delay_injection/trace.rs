//! Reading user RTT traces (e.g. ping logs) for the trace mode.
//!
//! Two formats:
//!
//! * **one value per line** (`column = None`): each non-blank line that does not start
//!   with `#` is one RTT in milliseconds (`103.2`).
//! * **CSV with a named column** (`column = Some("rtt_ms")`): the first non-blank,
//!   non-`#` line is a comma-separated header; every later line is a row, and the RTT
//!   in milliseconds is read from the named column.
//!
//! RTTs must be finite and non-negative. Errors name the 1-based line and the reason
//! ([`TraceError`]); [`load_rtt_trace`] adds the file.

use spikelab_net::{TraceError, TraceLoadError};
use std::path::Path;

/// Parses the text of an RTT trace (see the module docs).
pub fn parse_rtt_trace(text: &str, column: Option<&str>) -> Result<Vec<f64>, TraceError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let col = match column {
        None => None,
        Some(name) => Some(header_index(lines.next(), name)?),
    };
    let rtts = lines
        .map(|(n, l)| parse_line(l, col).map_err(|r| TraceError::at(n, r)))
        .collect::<Result<Vec<f64>, TraceError>>()?;
    if rtts.is_empty() {
        return Err(TraceError::whole("empty RTT trace: no samples"));
    }
    Ok(rtts)
}

/// Reads and parses the RTT trace at `path`.
pub fn load_rtt_trace(path: &Path, column: Option<&str>) -> Result<Vec<f64>, TraceLoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| TraceLoadError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_rtt_trace(&text, column).map_err(|source| TraceLoadError::Parse {
        path: path.to_owned(),
        source,
    })
}

/// (index of the column named `name`, number of columns) in the header line.
fn header_index(header: Option<(usize, &str)>, name: &str) -> Result<(usize, usize), TraceError> {
    let Some((n, line)) = header else {
        return Err(TraceError::whole(format!(
            "no header line naming column `{name}`"
        )));
    };
    let cols: Vec<&str> = line.split(',').map(str::trim).collect();
    match cols.iter().position(|c| *c == name) {
        Some(i) => Ok((i, cols.len())),
        None => Err(TraceError::at(
            n,
            format!(
                "no column `{name}` in the header (found: {})",
                cols.join(", ")
            ),
        )),
    }
}

fn parse_line(line: &str, col: Option<(usize, usize)>) -> Result<f64, String> {
    let field = match col {
        None => line,
        Some((i, n)) => {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() != n {
                return Err(format!("expected {n} fields, found {}", fields.len()));
            }
            fields[i]
        }
    };
    let v: f64 = field
        .parse()
        .map_err(|_| format!("`{field}` is not an RTT in milliseconds"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!(
            "RTT `{field}` must be a finite, non-negative number"
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_line_skips_blanks_and_comments() {
        let t = "# ping log\n100\n\n 97.5 \n# spike\n1200\n";
        assert_eq!(parse_rtt_trace(t, None).unwrap(), [100.0, 97.5, 1200.0]);
    }

    #[test]
    fn csv_reads_the_named_column() {
        let t = "seq, rtt_ms ,ttl\n1,100,64\n2, 250.5 ,64\n";
        assert_eq!(parse_rtt_trace(t, Some("rtt_ms")).unwrap(), [100.0, 250.5]);
    }

    #[test]
    fn errors_name_the_line_and_the_reason() {
        let e = parse_rtt_trace("100\nabc\n", None).unwrap_err();
        assert_eq!(e.to_string(), "line 2: `abc` is not an RTT in milliseconds");
        let e = parse_rtt_trace("# c\n\n100\n-3\n", None).unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.reason.contains("non-negative"), "{e}");
        let e = parse_rtt_trace("seq,rtt\n1,100\n2\n", Some("rtt")).unwrap_err();
        assert_eq!(e.to_string(), "line 3: expected 2 fields, found 1");
        let e = parse_rtt_trace("# h\nseq,time\n1,100\n", Some("rtt")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2: no column `rtt` in the header (found: seq, time)"
        );
        assert_eq!(parse_rtt_trace("# none\n", None).unwrap_err().line, None);
        assert_eq!(parse_rtt_trace("", Some("rtt")).unwrap_err().line, None);
        assert!(parse_rtt_trace("NaN\n", None).is_err());
    }

    #[test]
    fn loading_names_the_file() {
        let dir = std::env::temp_dir().join(format!("spikelab-rtt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.txt");
        std::fs::write(&path, "1\nx\n").unwrap();
        let e = load_rtt_trace(&path, None).unwrap_err().to_string();
        assert!(e.contains("bad.txt") && e.contains("line 2"), "{e}");
        let e = load_rtt_trace(&dir.join("missing.txt"), None).unwrap_err();
        assert!(matches!(e, TraceLoadError::Io { .. }));
        std::fs::write(&path, "1\n2\n").unwrap();
        assert_eq!(load_rtt_trace(&path, None).unwrap(), [1.0, 2.0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
