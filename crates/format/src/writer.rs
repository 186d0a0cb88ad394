//! A table being written: its buffered rows and its files, one type for every table and every
//! producer (the recorder's writer thread, the importers), so rows reach Parquet one way.

use arrow_array::RecordBatch;
use parquet::file::metadata::KeyValue;

use crate::Table;
use crate::columns::Rows;
use crate::error::{Error, Result};
use crate::files::{TableFiles, WriteOptions};

/// Rows of one table and the files they go to.
#[derive(Debug)]
pub struct TableWriter<T> {
    table: Table,
    /// The rows not yet handed to the files: producers push here.
    pub rows: T,
    files: TableFiles,
}

impl<T: Rows> TableWriter<T> {
    /// `table`'s writer under `options`, with `metadata` in every file.
    pub fn new(options: &WriteOptions, table: Table, metadata: Vec<KeyValue>) -> TableWriter<T> {
        TableWriter { table, rows: T::default(), files: TableFiles::new(options, table, metadata) }
    }

    /// `table`'s writer, starting with `rows`.
    pub fn with_rows(options: &WriteOptions, table: Table, metadata: Vec<KeyValue>, rows: T) -> TableWriter<T> {
        TableWriter { rows, ..TableWriter::new(options, table, metadata) }
    }
}

/// What is done with any table's writer, whatever its rows' type.
pub trait AnyTableWriter: std::fmt::Debug {
    /// The table.
    fn table(&self) -> Table;
    /// Hands the buffered rows to the files if there are at least `at_least` of them;
    /// returns how many were written. `closing` gives the metadata of a file completed on the
    /// way.
    fn write_if(&mut self, at_least: usize, closing: &dyn Fn() -> Vec<KeyValue>) -> Result<u64>;
    /// The table's files.
    fn files(&self) -> &TableFiles;
    /// The table's files, to complete or rotate.
    fn files_mut(&mut self) -> &mut TableFiles;
    /// Forgets the buffered rows (after a failed write); returns how many there were.
    fn discard(&mut self) -> u64;
    /// The writer as `Any`, so a producer that knows the table's row type finds its rows
    /// ([`rows_of`]).
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// The row buffer of `writer`, if its rows are `T`s: how a producer that holds a table's
/// writer by its [`Table`] alone pushes rows into it.
pub fn rows_of<T: Rows + 'static>(writer: &mut dyn AnyTableWriter) -> Option<&mut T> {
    writer.as_any_mut().downcast_mut::<TableWriter<T>>().map(|w| &mut w.rows)
}

impl<T: Rows + 'static> AnyTableWriter for TableWriter<T> {
    fn table(&self) -> Table {
        self.table
    }

    fn write_if(&mut self, at_least: usize, closing: &dyn Fn() -> Vec<KeyValue>) -> Result<u64> {
        let rows = self.rows.len();
        if rows == 0 || rows < at_least {
            return Ok(0);
        }
        let mut columns = self.rows.finish();
        columns.extend(self.files.origin().arrays(rows));
        let batch = RecordBatch::try_new(self.files.schema(), columns).map_err(|e| Error::Io {
            path: format!("a record batch of {}", self.table),
            source: std::io::Error::other(e),
        })?;
        self.files.write(&batch, closing)?;
        Ok(rows as u64)
    }

    fn files(&self) -> &TableFiles {
        &self.files
    }

    fn files_mut(&mut self) -> &mut TableFiles {
        &mut self.files
    }

    fn discard(&mut self) -> u64 {
        let rows = self.rows.len() as u64;
        self.rows = T::default();
        rows
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
