//! Reads the few columns `ranks` needs of a table, a row group at a time on every core, as
//! `stats` reads its durations ([`crate::stats::scan`]): only the named columns are decoded,
//! plus the origin's (`pid`, and `rank` and `host` where the file has them), and every row is
//! tagged with its rank's index. Memory stays at a batch of those columns per thread.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use rocprof_rs_format::input::open_regular;
use rocprof_rs_format::read::{Col, contained};

use super::identity::{Hosts, Ranks};
use crate::error::{Error, Result};

/// One batch of a table: the asked columns and each row's rank.
#[derive(Debug)]
pub struct RankedBatch<'a> {
    /// Each row's rank, an index into [`Ranks`].
    pub rank: &'a [u32],
    /// The asked columns, in the order asked.
    pub columns: Vec<Col<'a>>,
}

/// What a column asked for must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An integer (timestamps).
    Integer,
    /// Text, plain or a dictionary (names, messages).
    Text,
}

/// What the files of one table tell `ranks`, besides their rows.
#[derive(Debug, Default, Clone, Copy)]
pub struct Seen {
    /// Files with a `rank` column (format 3).
    pub with_rank_column: usize,
    /// Files without one.
    pub without_rank_column: usize,
}

impl Seen {
    /// Counts another table's files too.
    pub fn add(&mut self, other: Seen) {
        self.with_rank_column += other.with_rank_column;
        self.without_rank_column += other.without_rank_column;
    }
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { path: path.display().to_string(), source: std::io::Error::other(e.to_string()) }
}

fn format_error(path: &Path, e: impl std::fmt::Display) -> rocprof_rs_format::Error {
    rocprof_rs_format::Error::Io { path: path.display().to_string(), source: std::io::Error::other(e.to_string()) }
}

/// Calls `each` with every batch of `files` (one table's), reading `columns` and the origin
/// columns, on `threads` threads: `each` runs on several at once.
pub fn scan(
    files: &[PathBuf],
    columns: &[(&str, Kind)],
    hosts: &Hosts,
    ranks: &Ranks,
    threads: usize,
    what: &str,
    each: impl Fn(&RankedBatch<'_>) -> Result<()> + Sync,
) -> Result<Seen> {
    // Each file's footer is read once, here, and shared by the threads reading its row groups.
    let mut footers: Vec<ArrowReaderMetadata> = Vec::new();
    let mut work: Vec<(usize, usize)> = Vec::new();
    let mut seen = Seen::default();
    for (f, path) in files.iter().enumerate() {
        let footer = rocprof_rs_format::read::footer(path)?;
        if footer.schema().column_with_name("rank").is_some() {
            seen.with_rank_column += 1;
        } else {
            seen.without_rank_column += 1;
        }
        work.extend((0..footer.metadata().num_row_groups()).map(|g| (f, g)));
        footers.push(footer);
    }
    let threads = threads.clamp(1, work.len().max(1));
    let next = AtomicUsize::new(0);
    let progress = crate::progress::bar(work.len() as u64, &format!("reading {what}"));
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(f, group)) = work.get(i) else { return Ok(()) };
                        let file =
                            RowGroup { path: &files[f], footer: &footers[f], group, host: hosts.of_file(&files[f]) };
                        file.read(columns, hosts, ranks, &each)?;
                        progress.inc(1);
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Invalid(format!("a thread reading {what} panicked")))))
            .collect()
    });
    progress.finish_and_clear();
    results.into_iter().collect::<Result<Vec<()>>>()?;
    Ok(seen)
}

/// One row group to read.
struct RowGroup<'a> {
    path: &'a Path,
    footer: &'a ArrowReaderMetadata,
    group: usize,
    /// The host the metadata file names for the file's process, for rows with no `host`.
    host: Option<&'a str>,
}

impl RowGroup<'_> {
    fn read(
        &self,
        columns: &[(&str, Kind)],
        hosts: &Hosts,
        ranks: &Ranks,
        each: &impl Fn(&RankedBatch<'_>) -> Result<()>,
    ) -> Result<()> {
        let path = self.path;
        let file = open_regular(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.footer.clone());
        let schema = builder.parquet_schema();
        let position = |name: &str| schema.columns().iter().position(|c| c.name() == name);
        let mut indices: Vec<usize> = columns
            .iter()
            .map(|(name, _)| *name)
            .chain(["pid"])
            .map(|name| {
                position(name).ok_or_else(|| {
                    io_error(
                        path,
                        format!("no column {name} (is this a rocprof-rs dataset? `rocprof-rs import` converts others)"),
                    )
                })
            })
            .collect::<Result<_>>()?;
        indices.extend(["rank", "host"].into_iter().filter_map(position));
        let mask = ProjectionMask::leaves(schema, indices);
        let mut reader = contained(path, || {
            builder
                .with_projection(mask)
                .with_row_groups(vec![self.group])
                .with_batch_size(64 * 1024)
                .build()
                .map_err(|e| format_error(path, e))
        })?;
        let mut rank = Vec::new();
        while let Some(batch) = contained(path, || reader.next().transpose().map_err(|e| format_error(path, e)))? {
            self.ranks_of(&batch, hosts, ranks, &mut rank).map_err(|e| io_error(path, e))?;
            let columns = columns
                .iter()
                .map(|&(name, kind)| typed(&batch, name).and_then(|c| checked(c, name, kind)))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|e| io_error(path, e))?;
            each(&RankedBatch { rank: &rank, columns })?;
        }
        Ok(())
    }

    /// Each row's rank index into `out`, looked up once per run of rows of one process.
    fn ranks_of(
        &self,
        batch: &RecordBatch,
        hosts: &Hosts,
        ranks: &Ranks,
        out: &mut Vec<u32>,
    ) -> std::result::Result<(), ColumnError> {
        let pids = typed(batch, "pid")?;
        let rank = batch.column_by_name("rank").map(|_| typed(batch, "rank")).transpose()?;
        let host_array = batch.column_by_name("host");
        let host = host_array.map(|_| typed(batch, "host")).transpose()?;
        out.clear();
        let mut last: Option<(Option<i32>, Option<&str>, u32, u32)> = None;
        for i in 0..batch.num_rows() {
            let pid = pids.u64(i) as u32;
            let r = rank.as_ref().and_then(|c| c.opt_i64(i)).and_then(|r| i32::try_from(r).ok());
            let row_host = match (&host, host_array) {
                (Some(h), Some(array)) if array.is_valid(i) => Some(h.text(i)).filter(|h| !h.is_empty()),
                _ => None,
            };
            let h = row_host.or(self.host).or_else(|| hosts.of_pid(pid));
            let index = match last {
                Some((lr, lh, lp, index)) if lr == r && lh == h && lp == pid => index,
                _ => {
                    let index = ranks.index(r, h, pid);
                    last = Some((r, h, pid, index));
                    index
                }
            };
            out.push(index);
        }
        Ok(())
    }
}

/// A batch whose columns are not what a table's are.
#[derive(Debug, thiserror::Error)]
enum ColumnError {
    #[error("no column {0}")]
    Missing(String),
    #[error("column {column} has type {found}")]
    Type { column: String, found: DataType },
    #[error("column {column} is not {expected}")]
    Expected { column: String, expected: &'static str },
}

/// `col`, if it holds what `kind` says.
fn checked<'a>(col: Col<'a>, name: &str, kind: Kind) -> std::result::Result<Col<'a>, ColumnError> {
    let text = matches!(col, Col::Text(_) | Col::Dict(..));
    let integer = matches!(col, Col::U64(_) | Col::I64(_) | Col::U32(_) | Col::I32(_));
    match kind {
        Kind::Text if text => Ok(col),
        Kind::Integer if integer => Ok(col),
        Kind::Text => Err(ColumnError::Expected { column: name.to_owned(), expected: "text" }),
        Kind::Integer => Err(ColumnError::Expected { column: name.to_owned(), expected: "an integer" }),
    }
}

/// The column `name` of `batch`, typed as the format reader types it.
fn typed<'a>(batch: &'a RecordBatch, name: &str) -> std::result::Result<Col<'a>, ColumnError> {
    let array: &ArrayRef = batch.column_by_name(name).ok_or_else(|| ColumnError::Missing(name.to_owned()))?;
    Col::of(array).ok_or_else(|| ColumnError::Type { column: name.to_owned(), found: array.data_type().clone() })
}
