//! One table's files read a row group at a time on every core: how `stats` reads its names and
//! durations ([`crate::stats::scan`]) and `ranks` its intervals ([`crate::ranks::read`]). Each
//! file's footer is read once and shared by the threads reading its row groups; a thread takes
//! the next row group when done with one, so one large file spreads over the cores as many small
//! ones do. Only the columns asked for are decoded, a batch at a time.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::RecordBatch;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use rocprof_rs_format::input::open_regular;
use rocprof_rs_format::read::contained;

use crate::error::{Error, Result};

/// Rows a batch holds: a few of them per thread is what reading costs in memory.
const BATCH_ROWS: usize = 64 * 1024;

/// An error of the file at `path` that is no I/O error of the system's: a column it lacks, one
/// of the wrong type, a page parquet could not decode.
pub fn file_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { path: path.display().to_string(), source: std::io::Error::other(e.to_string()) }
}

fn format_error(path: &Path, e: impl std::fmt::Display) -> rocprof_rs_format::Error {
    rocprof_rs_format::Error::Io { path: path.display().to_string(), source: std::io::Error::other(e.to_string()) }
}

/// Every row group of one table's files, their footers read.
#[derive(Debug)]
pub struct RowGroups<'a> {
    files: &'a [PathBuf],
    footers: Vec<ArrowReaderMetadata>,
    /// (file, row group) in the files' order.
    work: Vec<(usize, usize)>,
}

impl<'a> RowGroups<'a> {
    /// The row groups of `files`, whose footers are read here.
    pub fn of(files: &'a [PathBuf]) -> Result<RowGroups<'a>> {
        let mut footers = Vec::with_capacity(files.len());
        let mut work = Vec::new();
        for (f, path) in files.iter().enumerate() {
            let footer = rocprof_rs_format::read::footer(path)?;
            work.extend((0..footer.metadata().num_row_groups()).map(|g| (f, g)));
            footers.push(footer);
        }
        Ok(RowGroups { files, footers, work })
    }

    /// Each file's footer, in the files' order.
    pub fn footers(&self) -> &[ArrowReaderMetadata] {
        &self.footers
    }

    /// Reads every row group on up to `threads` threads, under a progress bar labelled `label`:
    /// each thread makes its state with `start` (given how many threads there are), hands it
    /// every row group it takes to `each`, and gives it to `end` once none is left.
    pub fn read<S>(
        &self,
        threads: usize,
        label: &str,
        start: impl Fn(usize) -> S + Sync,
        each: impl Fn(&mut S, &RowGroup<'_>) -> Result<()> + Sync,
        end: impl Fn(S) -> Result<()> + Sync,
    ) -> Result<()> {
        let threads = threads.clamp(1, self.work.len().max(1));
        let next = AtomicUsize::new(0);
        let progress = crate::progress::bar(self.work.len() as u64, label);
        let results: Vec<Result<()>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut state = start(threads);
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&(f, index)) = self.work.get(i) else { return end(state) };
                            let group = RowGroup { path: &self.files[f], footer: &self.footers[f], index };
                            each(&mut state, &group)?;
                            progress.inc(1);
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Invalid(format!("a thread {label} panicked")))))
                .collect()
        });
        progress.finish_and_clear();
        results.into_iter().collect::<Result<Vec<()>>>()?;
        Ok(())
    }
}

/// One row group to read.
#[derive(Debug)]
pub struct RowGroup<'a> {
    /// Its file.
    pub path: &'a Path,
    footer: &'a ArrowReaderMetadata,
    index: usize,
}

impl RowGroup<'_> {
    /// Hands `each` the row group's batches of the columns `required`, and of those of
    /// `optional` that its file has; a file without one of `required` is an error naming it.
    pub fn batches(
        &self,
        required: &[&str],
        optional: &[&str],
        mut each: impl FnMut(&RecordBatch) -> Result<()>,
    ) -> Result<()> {
        let path = self.path;
        let file = open_regular(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.footer.clone());
        let schema = builder.parquet_schema();
        let position = |name: &str| schema.columns().iter().position(|c| c.name() == name);
        let mut indices: Vec<usize> = required
            .iter()
            .map(|name| {
                position(name).ok_or_else(|| {
                    file_error(
                        path,
                        format!("no column {name} (is this a rocprof-rs dataset? `rocprof-rs import` converts others)"),
                    )
                })
            })
            .collect::<Result<_>>()?;
        indices.extend(optional.iter().filter_map(|name| position(name)));
        let mask = ProjectionMask::leaves(schema, indices);
        let mut reader = contained(path, || {
            builder
                .with_projection(mask)
                .with_row_groups(vec![self.index])
                .with_batch_size(BATCH_ROWS)
                .build()
                .map_err(|e| format_error(path, e))
        })?;
        while let Some(batch) = contained(path, || reader.next().transpose().map_err(|e| format_error(path, e)))? {
            each(&batch)?;
        }
        Ok(())
    }
}
