//! Reads the few columns `ranks` needs of a table, a row group at a time on every core, as
//! `stats` reads its durations ([`crate::row_groups`]): only the named columns are decoded,
//! plus the origin's (`pid`, and `rank` and `host` where the file has them), and every row is
//! tagged with its rank's index. Memory stays at a batch of those columns per thread.

use std::path::PathBuf;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use rocprof_rs_format::read::Col;

use super::identity::{Hosts, Ranks};
use crate::error::Result;
use crate::row_groups::{RowGroups, file_error};

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
    let groups = RowGroups::of(files)?;
    let mut seen = Seen::default();
    for footer in groups.footers() {
        if footer.schema().column_with_name("rank").is_some() {
            seen.with_rank_column += 1;
        } else {
            seen.without_rank_column += 1;
        }
    }
    let required: Vec<&str> = columns.iter().map(|(name, _)| *name).chain(["pid"]).collect();
    groups.read(
        threads,
        &format!("reading {what}"),
        |_| Vec::new(),
        |rank, group| {
            let path = group.path;
            let host = hosts.of_file(path);
            group.batches(&required, &["rank", "host"], |batch| {
                ranks_of(batch, host, hosts, ranks, rank).map_err(|e| file_error(path, e))?;
                let columns = columns
                    .iter()
                    .map(|&(name, kind)| typed(batch, name).and_then(|c| checked(c, name, kind)))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|e| file_error(path, e))?;
                each(&RankedBatch { rank, columns })
            })
        },
        |_| Ok(()),
    )?;
    Ok(seen)
}

/// Each row's rank index into `out`, looked up once per run of rows of one process; `host` is
/// the one the metadata file names for the file's process, for rows with no `host`.
fn ranks_of(
    batch: &RecordBatch,
    host: Option<&str>,
    hosts: &Hosts,
    ranks: &Ranks,
    out: &mut Vec<u32>,
) -> std::result::Result<(), ColumnError> {
    let pids = typed(batch, "pid")?;
    let rank = batch.column_by_name("rank").map(|_| typed(batch, "rank")).transpose()?;
    let host_array = batch.column_by_name("host");
    let host_column = host_array.map(|_| typed(batch, "host")).transpose()?;
    out.clear();
    let mut last: Option<(Option<i32>, Option<&str>, u32, u32)> = None;
    for i in 0..batch.num_rows() {
        let pid = pids.u64(i) as u32;
        let r = rank.as_ref().and_then(|c| c.opt_i64(i)).and_then(|r| i32::try_from(r).ok());
        let row_host = match (&host_column, host_array) {
            (Some(h), Some(array)) if array.is_valid(i) => Some(h.text(i)).filter(|h| !h.is_empty()),
            _ => None,
        };
        let h = row_host.or(host).or_else(|| hosts.of_pid(pid));
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
