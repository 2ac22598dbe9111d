//! Where table rows go: a CSV file ([`CsvWriter`]) or typed columns ([`Columns`]).
//!
//! The row builders call one method per cell, left to right, then
//! [`RowSink::end_row`]; the CSV sink formats each cell exactly as the CLI's files
//! always have, and the column sink keeps full-precision values for DataFrames.

use spikelab_core::Dur;
use spikelab_output::csv::CsvWriter;
use std::io::{self, Write};

/// A consumer of table rows, cell by cell.
pub trait RowSink {
    /// The column names; called once, before any row.
    fn header(&mut self, names: &[&str]) -> io::Result<()>;
    /// A count.
    fn u64(&mut self, v: u64) -> io::Result<()>;
    /// A real number (may be NaN).
    fn f64(&mut self, v: f64) -> io::Result<()>;
    /// A text.
    fn str(&mut self, v: &str) -> io::Result<()>;
    /// A duration, as seconds.
    fn dur(&mut self, d: Dur) -> io::Result<()>;
    /// A yes/no.
    fn bool(&mut self, v: bool) -> io::Result<()>;
    /// A value that does not exist (an empty CSV field, NaN in a column).
    fn missing(&mut self) -> io::Result<()>;
    /// Ends the row.
    fn end_row(&mut self) -> io::Result<()>;
}

impl<W: Write> RowSink for CsvWriter<W> {
    fn header(&mut self, names: &[&str]) -> io::Result<()> {
        self.row(names)
    }
    fn u64(&mut self, v: u64) -> io::Result<()> {
        self.field_u64(v)
    }
    fn f64(&mut self, v: f64) -> io::Result<()> {
        self.field_f64(v)
    }
    fn str(&mut self, v: &str) -> io::Result<()> {
        self.field_str(v)
    }
    fn dur(&mut self, d: Dur) -> io::Result<()> {
        self.field_dur(d)
    }
    fn bool(&mut self, v: bool) -> io::Result<()> {
        self.field_bool(v)
    }
    fn missing(&mut self) -> io::Result<()> {
        self.field_empty()
    }
    fn end_row(&mut self) -> io::Result<()> {
        CsvWriter::end_row(self)
    }
}

/// One column's values, typed by what was written into it.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Only missing values so far (their number).
    Missing(usize),
    /// Counts.
    U64(Vec<u64>),
    /// Reals and durations (seconds); missing values are NaN.
    F64(Vec<f64>),
    /// Texts.
    Str(Vec<String>),
    /// Yes/no values.
    Bool(Vec<bool>),
}

/// One cell on its way into a [`Column`].
enum Cell<'a> {
    U64(u64),
    F64(f64),
    Str(&'a str),
    Bool(bool),
    Missing,
}

impl Column {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Column::Missing(n) => *n,
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Bool(v) => v.len(),
        }
    }

    /// Whether the column has no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `cell`; counts become reals when a real or a missing value joins them.
    fn push(&mut self, cell: Cell<'_>) {
        match (&mut *self, cell) {
            (Column::U64(v), Cell::U64(x)) => v.push(x),
            (Column::F64(v), Cell::F64(x)) => v.push(x),
            (Column::F64(v), Cell::U64(x)) => v.push(x as f64),
            (Column::F64(v), Cell::Missing) => v.push(f64::NAN),
            (Column::Str(v), Cell::Str(x)) => v.push(x.to_owned()),
            (Column::Str(v), Cell::Missing) => v.push(String::new()),
            (Column::Bool(v), Cell::Bool(x)) => v.push(x),
            (Column::Missing(n), Cell::Missing) => *n += 1,
            (Column::Missing(n), cell) => {
                let n = *n;
                *self = match cell {
                    Cell::U64(_) if n == 0 => Column::U64(Vec::new()),
                    Cell::Bool(_) if n == 0 => Column::Bool(Vec::new()),
                    Cell::U64(_) | Cell::F64(_) => Column::F64(vec![f64::NAN; n]),
                    Cell::Str(_) => Column::Str(vec![String::new(); n]),
                    Cell::Bool(_) | Cell::Missing => {
                        panic!("a yes/no column cannot start with missing values")
                    }
                };
                self.push(cell);
            }
            (Column::U64(v), cell @ (Cell::F64(_) | Cell::Missing)) => {
                *self = Column::F64(v.iter().map(|&x| x as f64).collect());
                self.push(cell);
            }
            (col, _) => panic!("a table column mixes kinds of values: {col:?}"),
        }
    }
}

/// A table kept as named, typed columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    /// Column names, in order.
    pub names: Vec<String>,
    /// Values of each column, in the order of `names`.
    pub columns: Vec<Column>,
    next: usize,
}

impl Columns {
    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Column::len)
    }

    fn cell(&mut self, cell: Cell<'_>) -> io::Result<()> {
        let col = self.columns.get_mut(self.next).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidData, "row longer than the header")
        })?;
        col.push(cell);
        self.next += 1;
        Ok(())
    }
}

impl RowSink for Columns {
    fn header(&mut self, names: &[&str]) -> io::Result<()> {
        self.names = names.iter().map(|n| n.to_string()).collect();
        self.columns = vec![Column::Missing(0); names.len()];
        Ok(())
    }
    fn u64(&mut self, v: u64) -> io::Result<()> {
        self.cell(Cell::U64(v))
    }
    fn f64(&mut self, v: f64) -> io::Result<()> {
        self.cell(Cell::F64(v))
    }
    fn str(&mut self, v: &str) -> io::Result<()> {
        self.cell(Cell::Str(v))
    }
    /// Seconds as the nearest double to the exact decimal the CSV file prints.
    fn dur(&mut self, d: Dur) -> io::Result<()> {
        self.cell(Cell::F64(d.0 as f64 / 1e9))
    }
    fn bool(&mut self, v: bool) -> io::Result<()> {
        self.cell(Cell::Bool(v))
    }
    fn missing(&mut self) -> io::Result<()> {
        self.cell(Cell::Missing)
    }
    fn end_row(&mut self) -> io::Result<()> {
        if self.next != self.columns.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "row shorter than the header",
            ));
        }
        self.next = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(w: &mut impl RowSink) {
        w.header(&["n", "x", "d", "name", "yes"]).unwrap();
        w.u64(3).unwrap();
        w.missing().unwrap();
        w.dur(Dur(1_500_000_001)).unwrap();
        w.str("a,b").unwrap();
        w.bool(true).unwrap();
        w.end_row().unwrap();
        w.u64(4).unwrap();
        w.f64(0.25).unwrap();
        w.dur(Dur(0)).unwrap();
        w.str("c").unwrap();
        w.bool(false).unwrap();
        w.end_row().unwrap();
    }

    #[test]
    fn the_csv_sink_writes_the_csv_writers_formats() {
        let mut w = CsvWriter::new(Vec::new());
        fill(&mut w);
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(
            text,
            "n,x,d,name,yes\n3,,1.500000001,\"a,b\",1\n4,0.250000,0.000000000,c,0\n"
        );
    }

    #[test]
    fn columns_keep_full_precision_and_missing_values_become_nan() {
        let mut c = Columns::default();
        fill(&mut c);
        assert_eq!(c.rows(), 2);
        assert_eq!(c.columns[0], Column::U64(vec![3, 4]));
        let Column::F64(x) = &c.columns[1] else {
            panic!("a real column: {:?}", c.columns[1])
        };
        assert!(x[0].is_nan() && x[1] == 0.25);
        assert_eq!(c.columns[2], Column::F64(vec![1.500000001, 0.0]));
        assert_eq!(c.columns[3], Column::Str(vec!["a,b".into(), "c".into()]));
        assert_eq!(c.columns[4], Column::Bool(vec![true, false]));
    }

    #[test]
    fn counts_joined_by_a_real_become_reals() {
        let mut c = Columns::default();
        c.header(&["v"]).unwrap();
        for v in [Cell::U64(2), Cell::F64(0.5)] {
            c.cell(v).unwrap();
            c.end_row().unwrap();
        }
        assert_eq!(c.columns[0], Column::F64(vec![2.0, 0.5]));
    }

    #[test]
    fn a_row_of_the_wrong_length_is_an_error() {
        let mut c = Columns::default();
        c.header(&["a", "b"]).unwrap();
        c.u64(1).unwrap();
        assert!(c.end_row().is_err());
        c.u64(2).unwrap();
        assert!(c.u64(3).is_err());
    }
}
