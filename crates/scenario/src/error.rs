//! Scenario errors that say where: `FILE:LINE:COL: field `flow[1].tcp.recovery`: why`.
//!
//! A [`FieldPath`] names a value by the keys and array indices that lead to it, as a
//! user would write them. [`Locator`] maps a path to a line and column through the
//! document's spans (toml_edit): the span of the deepest key on the path that exists in
//! the file. So an unknown or mistyped key points at itself, and a missing required key
//! points at the table that lacks it.

pub use spikelab_core::bounds::{FieldPath, Invalid, Seg};
use std::fmt;
use std::ops::Range;
use toml_edit::{ImDocument, InlineTable, Item, Table, Value};

/// A problem with a scenario file, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    /// The file as the user named it.
    pub file: String,
    /// 1-based line; 0 when the problem is not inside the file (it cannot be read).
    pub line: usize,
    /// 1-based column (characters); 0 with `line`.
    pub col: usize,
    /// The field concerned, if any (`flow[1].tcp.recovery`).
    pub field: Option<String>,
    /// What is wrong, in one line.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.col)?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", one_line(&self.message))
    }
}

/// Joins a multi-line message into one line.
fn one_line(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Maps field paths and byte offsets of one file to lines and columns.
pub struct Locator<'a> {
    file: &'a str,
    text: &'a str,
    doc: Option<&'a ImDocument<&'a str>>,
}

impl<'a> Locator<'a> {
    /// A locator for `text`, named `file`, whose parsed document is `doc`.
    pub fn new(file: &'a str, text: &'a str, doc: Option<&'a ImDocument<&'a str>>) -> Self {
        Locator { file, text, doc }
    }

    /// An error at byte `offset` without a field.
    pub fn at_offset(&self, offset: usize, message: impl Into<String>) -> ScenarioError {
        let (line, col) = line_col(self.text, offset);
        ScenarioError {
            file: self.file.to_owned(),
            line,
            col,
            field: None,
            message: message.into(),
        }
    }

    /// The error for `invalid`, located at its field.
    pub fn locate(&self, invalid: Invalid) -> ScenarioError {
        let offset = self
            .doc
            .and_then(|d| span_of(d.as_table(), &invalid.path.0))
            .map_or(0, |r| r.start);
        let mut e = self.at_offset(offset, invalid.message);
        e.field = (!invalid.path.is_empty()).then(|| invalid.path.to_string());
        e
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// A node of the document while walking a path.
enum Node<'d> {
    Table(&'d Table),
    Inline(&'d InlineTable),
    Item(&'d Item),
    Value(&'d Value),
}

/// The span of the deepest existing key or element on `path`, from `root`.
fn span_of(root: &Table, path: &[Seg]) -> Option<Range<usize>> {
    let mut node = Node::Table(root);
    let mut best = None;
    for seg in path {
        let Some((span, next)) = step(node, seg) else {
            break;
        };
        best = span.or(best);
        node = next;
    }
    best
}

/// One step down from `node`: the span of what `seg` names, and that node.
fn step<'d>(node: Node<'d>, seg: &Seg) -> Option<(Option<Range<usize>>, Node<'d>)> {
    match (node, seg) {
        (Node::Table(t), Seg::Key(k)) => {
            let (key, item) = t.get_key_value(k)?;
            Some((key.span().or_else(|| item.span()), Node::Item(item)))
        }
        (Node::Inline(t), Seg::Key(k)) => {
            let (key, item) = t.get_key_value(k)?;
            Some((key.span().or_else(|| item.span()), Node::Item(item)))
        }
        (Node::Item(Item::Table(t)), seg) => step(Node::Table(t), seg),
        (Node::Item(Item::Value(v)), seg) => step(Node::Value(v), seg),
        (Node::Item(Item::ArrayOfTables(a)), Seg::Index(i)) => {
            let t = a.get(*i)?;
            Some((t.span(), Node::Table(t)))
        }
        (Node::Value(Value::InlineTable(t)), seg) => step(Node::Inline(t), seg),
        (Node::Value(Value::Array(a)), Seg::Index(i)) => {
            let v = a.get(*i)?;
            Some((v.span(), Node::Value(v)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[run]\nseed = 3\n\n[[flow]]\nname = \"a\"\ntcp = { mss = 0 }\nroute = [\"x\", \"y\"]\n\n[[flow]]\nname = \"b\"\n";

    fn locate(path: FieldPath) -> (usize, usize) {
        let doc = ImDocument::parse(TEXT).unwrap();
        let e = Locator::new("f.toml", TEXT, Some(&doc)).locate(Invalid::new(path, "bad"));
        (e.line, e.col)
    }

    #[test]
    fn paths_print_as_written_in_toml() {
        let p = FieldPath::root("flow").index(1).key("tcp").key("recovery");
        assert_eq!(p.to_string(), "flow[1].tcp.recovery");
    }

    #[test]
    fn keys_inline_tables_and_array_elements_are_located() {
        assert_eq!(locate(FieldPath::root("run").key("seed")), (2, 1));
        let flow0 = FieldPath::root("flow").index(0);
        assert_eq!(locate(flow0.key("tcp").key("mss")), (6, 9));
        assert_eq!(locate(flow0.key("route").index(1)), (7, 15));
    }

    #[test]
    fn a_missing_key_points_at_the_table_that_lacks_it() {
        let flow1 = FieldPath::root("flow").index(1);
        assert_eq!(locate(flow1.key("route")), (9, 1));
    }

    #[test]
    fn the_message_is_one_line_with_file_line_and_field() {
        let e = ScenarioError {
            file: "a.toml".into(),
            line: 3,
            col: 7,
            field: Some("run.reps".into()),
            message: "must be\n  at least 1".into(),
        };
        assert_eq!(
            e.to_string(),
            "a.toml:3:7: field `run.reps`: must be at least 1"
        );
    }

    #[test]
    fn line_col_counts_characters_not_bytes() {
        assert_eq!(line_col("é = 1\nab", 8), (2, 2));
        assert_eq!(line_col("ab", 99), (1, 3));
    }
}
