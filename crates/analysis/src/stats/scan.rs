//! Reads one table's names and durations from a dataset, a row group at a time, on every core.
//!
//! Only the three columns needed are decoded (name, `duration_ns`, `pid`), and a dictionary
//! column's names are looked up once per batch rather than once per row, so memory stays at a
//! few batches per thread whatever the dataset's size.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};

use rocprof_rs_format::input::open_regular;
use rocprof_rs_format::read::contained;

use super::summary::Summary;
use crate::error::{Error, Result};

/// Summaries by name.
pub type ByName = HashMap<String, Summary>;

fn format_error(path: &Path, e: impl std::fmt::Display) -> rocprof_rs_format::Error {
    rocprof_rs_format::Error::Io { path: path.display().to_string(), source: std::io::Error::other(e.to_string()) }
}

fn parquet_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { path: path.display().to_string(), source: std::io::Error::other(e.to_string()) }
}

/// Summarises `duration_ns` by the `name` column of every file, keeping rows of `pid` only if
/// given. Work is split by row group over `threads` threads.
pub fn summarise(files: &[PathBuf], name: &str, pid: Option<u32>, threads: usize) -> Result<ByName> {
    // Each file's footer is read once, here, and shared by the threads reading its row groups.
    let mut footers: Vec<ArrowReaderMetadata> = Vec::new();
    let mut work: Vec<(usize, usize)> = Vec::new();
    for (f, path) in files.iter().enumerate() {
        let file = open_regular(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        let footer = contained(path, || {
            ArrowReaderMetadata::load(&file, ArrowReaderOptions::default()).map_err(|e| format_error(path, e))
        })?;
        work.extend((0..footer.metadata().num_row_groups()).map(|g| (f, g)));
        footers.push(footer);
    }
    let next = AtomicUsize::new(0);
    let progress = crate::progress::bar(work.len() as u64, &format!("reading {name}"));
    let results: Vec<Result<ByName>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, work.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = ByName::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(f, group)) = work.get(i) else { return Ok(mine) };
                        row_group(&files[f], &footers[f], group, name, pid, &mut mine)?;
                        progress.inc(1);
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Invalid("a stats thread panicked".into()))))
            .collect()
    });
    progress.finish_and_clear();
    let mut all = ByName::new();
    for result in results {
        for (name, summary) in result? {
            all.entry(name).or_default().merge(&summary);
        }
    }
    Ok(all)
}

fn row_group(
    path: &Path,
    footer: &ArrowReaderMetadata,
    group: usize,
    name: &str,
    pid: Option<u32>,
    out: &mut ByName,
) -> Result<()> {
    let file = open_regular(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, footer.clone());
    let schema = builder.parquet_schema();
    let wanted: Vec<&str> = if pid.is_some() { vec![name, "duration_ns", "pid"] } else { vec![name, "duration_ns"] };
    let indices: Vec<usize> = wanted
        .iter()
        .map(|w| {
            schema.columns().iter().position(|c| c.name() == *w).ok_or_else(|| {
                parquet_error(
                    path,
                    format!("no column {w} (is this a rocprof-rs dataset? `rocprof-rs import` converts others)"),
                )
            })
        })
        .collect::<Result<_>>()?;
    let mask = ProjectionMask::leaves(schema, indices);
    let mut reader = contained(path, || {
        builder
            .with_projection(mask)
            .with_row_groups(vec![group])
            .with_batch_size(64 * 1024)
            .build()
            .map_err(|e| format_error(path, e))
    })?;
    let mut slots: HashMap<String, usize> = HashMap::new();
    let mut summaries: Vec<Summary> = Vec::new();
    while let Some(batch) = contained(path, || reader.next().transpose().map_err(|e| format_error(path, e)))? {
        add_batch(&batch, name, pid, &mut slots, &mut summaries).map_err(|e| parquet_error(path, e))?;
    }
    for (name, slot) in slots {
        out.entry(name).or_default().merge(&summaries[slot]);
    }
    Ok(())
}

/// A batch whose columns are not what a table's are.
#[derive(Debug, thiserror::Error)]
enum ColumnError {
    #[error("no column {0}")]
    Missing(String),
    #[error("{column} is not {expected}")]
    Type { column: &'static str, expected: &'static str },
    #[error("dictionary of non-strings")]
    DictionaryValues,
    #[error("{column} is {found}, not text")]
    NotText { column: String, found: DataType },
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> std::result::Result<&'a ArrayRef, ColumnError> {
    batch.column_by_name(name).ok_or_else(|| ColumnError::Missing(name.to_owned()))
}

fn add_batch(
    batch: &RecordBatch,
    name: &str,
    pid: Option<u32>,
    slots: &mut HashMap<String, usize>,
    summaries: &mut Vec<Summary>,
) -> std::result::Result<(), ColumnError> {
    let durations = column(batch, "duration_ns")?;
    let durations = durations
        .as_primitive_opt::<Int64Type>()
        .ok_or(ColumnError::Type { column: "duration_ns", expected: "int64" })?;
    let keep: Option<Vec<bool>> = match pid {
        None => None,
        Some(want) => {
            let pids = column(batch, "pid")?
                .as_primitive_opt::<UInt32Type>()
                .ok_or(ColumnError::Type { column: "pid", expected: "uint32" })?;
            Some(pids.values().iter().map(|p| *p == want).collect())
        }
    };
    let mut slot_of = |text: &str| -> usize {
        if let Some(&slot) = slots.get(text) {
            return slot;
        }
        summaries.push(Summary::default());
        slots.insert(text.to_owned(), summaries.len() - 1);
        summaries.len() - 1
    };
    let names = column(batch, name)?;
    // One slot per row, resolved per distinct name where the column is a dictionary.
    let row_slots: Vec<usize> = match names.data_type() {
        DataType::Dictionary(key, _) if **key == DataType::Int32 => {
            let dict = names.as_dictionary::<Int32Type>();
            let values = dict.values().as_string_opt::<i32>().ok_or(ColumnError::DictionaryValues)?;
            let per_key: Vec<usize> = (0..values.len()).map(|i| slot_of(values.value(i))).collect();
            dict.keys().values().iter().map(|&k| per_key[k as usize]).collect()
        }
        DataType::Utf8 => {
            let strings = names.as_string::<i32>();
            (0..strings.len()).map(|i| slot_of(strings.value(i))).collect()
        }
        other => return Err(ColumnError::NotText { column: name.to_owned(), found: other.clone() }),
    };
    for (i, (&slot, &duration)) in row_slots.iter().zip(durations.values().iter()).enumerate() {
        if keep.as_ref().is_none_or(|k| k[i]) && durations.is_valid(i) {
            summaries[slot].add(duration.max(0) as u64);
        }
    }
    Ok(())
}
