//! Reads one table's names and durations from a dataset, a row group at a time, on every core.
//!
//! Only the three columns needed are decoded (name, `duration_ns`, `pid`), and a dictionary
//! column's names are looked up once per batch rather than once per row, so memory stays at a
//! few batches per thread whatever the dataset's size.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;

use super::summary::Summary;
use crate::error::{Error, Result};
use crate::row_groups::{RowGroup, RowGroups, file_error};
use crate::spill::Sorter;

/// Summaries by name.
pub type ByName = HashMap<String, Summary>;

/// A name's bytes in a thread's map beside its text and its summary's own: the table's slot
/// (a hash table is up to half empty, so two), and the allocator's header on the name.
const ENTRY_BYTES: usize = 2 * std::mem::size_of::<(String, Summary)>() + 16;

/// One thread's summaries, spilled to a shared external sort when they pass their share.
struct Collector<'a> {
    by_name: ByName,
    bytes: usize,
    limit: usize,
    spill: &'a Mutex<Sorter>,
}

impl Collector<'_> {
    fn merge(&mut self, name: String, summary: Summary) -> Result<()> {
        match self.by_name.get_mut(&name) {
            Some(known) => {
                let before = known.footprint();
                known.merge(&summary);
                self.bytes += known.footprint().saturating_sub(before);
            }
            None => {
                self.bytes += name.len() + ENTRY_BYTES + summary.footprint();
                self.by_name.insert(name, summary);
            }
        }
        if self.bytes >= self.limit { self.spill() } else { Ok(()) }
    }

    fn spill(&mut self) -> Result<()> {
        self.bytes = 0;
        let mut sorter = self.spill.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut bytes = Vec::new();
        for (name, summary) in self.by_name.drain() {
            bytes.clear();
            summary.encode(&mut bytes);
            sorter.push(name.as_bytes(), &bytes)?;
        }
        Ok(())
    }
}

/// Summarises `duration_ns` by the `name` column of every file, keeping rows of `pid` only if
/// given, and hands each name's summary to `each` in the order of the names' bytes. Work is
/// split by row group over `threads` threads; memory is bounded whatever the number of
/// distinct names (half of `--memory` for summaries, a quarter for the sort; [`Budget`]), and the figures are the same either way.
pub fn summarise_each(
    files: &[PathBuf],
    name: &str,
    pid: Option<u32>,
    threads: usize,
    each: impl FnMut(&str, Summary) -> Result<()>,
) -> Result<()> {
    summarise_within(files, name, pid, threads, Budget::default(), each)
}

/// The memory [`summarise_within`] may hold before it spills.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Summaries held by the reading threads together.
    pub summaries: usize,
    /// The external sort's buffer.
    pub sort: usize,
}

impl Default for Budget {
    /// Half the memory set for post-processing for the summaries, a quarter for the sort: the
    /// rows' sort that follows takes the last quarter.
    fn default() -> Self {
        Budget { summaries: crate::spill::share(2), sort: crate::spill::share(4) }
    }
}

/// [`summarise_each`] within a given budget.
pub fn summarise_within(
    files: &[PathBuf],
    name: &str,
    pid: Option<u32>,
    threads: usize,
    budget: Budget,
    mut each: impl FnMut(&str, Summary) -> Result<()>,
) -> Result<()> {
    let spill = Mutex::new(Sorter::with_budget(budget.sort));
    RowGroups::of(files)?.read(
        threads,
        &format!("reading {name}"),
        |threads| Collector { by_name: ByName::new(), bytes: 0, limit: budget.summaries / threads, spill: &spill },
        |mine, group| row_group(group, name, pid, mine),
        |mut mine| mine.spill(),
    )?;
    let sorted = spill.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()).finish()?;
    let mut sorted = sorted.reader()?;
    let mut current: Option<(String, Summary)> = None;
    while let Some((key, value)) = sorted.next()? {
        let summary = Summary::decode(value)
            .ok_or_else(|| Error::Invalid("stats: a summary did not come back from the external sort".into()))?;
        let key = std::str::from_utf8(key)
            .map_err(|_| Error::Invalid("stats: a name did not come back from the external sort".into()))?;
        match &mut current {
            Some((name, known)) if name == key => known.merge(&summary),
            _ => {
                if let Some((name, done)) = current.replace((key.to_owned(), summary)) {
                    each(&name, done)?;
                }
            }
        }
    }
    if let Some((name, done)) = current {
        each(&name, done)?;
    }
    Ok(())
}

fn row_group(group: &RowGroup<'_>, name: &str, pid: Option<u32>, out: &mut Collector<'_>) -> Result<()> {
    let wanted: Vec<&str> = if pid.is_some() { vec![name, "duration_ns", "pid"] } else { vec![name, "duration_ns"] };
    let mut slots: HashMap<String, usize> = HashMap::new();
    let mut summaries: Vec<Summary> = Vec::new();
    group.batches(&wanted, &[], |batch| {
        add_batch(batch, name, pid, &mut slots, &mut summaries).map_err(|e| file_error(group.path, e))?;
        // Folded into the thread's summaries at the row group's end, or sooner when the row
        // group's own hold many names or many dense histograms, so they stay within a part of
        // the thread's share.
        let dense = summaries.iter().filter(|s| s.is_dense()).count();
        if slots.len() >= FOLD_NAMES || dense * DENSE_BYTES >= out.limit / 4 {
            fold(&mut slots, &mut summaries, out)?;
        }
        Ok(())
    })?;
    fold(&mut slots, &mut summaries, out)
}

/// Names a row group collects before they are folded into its thread's summaries.
const FOLD_NAMES: usize = 1 << 14;

/// A dense histogram's usual bytes (its small array and two or three powers of two).
const DENSE_BYTES: usize = 8 << 10;

/// Moves a row group's summaries into its thread's.
fn fold(slots: &mut HashMap<String, usize>, summaries: &mut Vec<Summary>, out: &mut Collector<'_>) -> Result<()> {
    for (name, slot) in slots.drain() {
        out.merge(name, std::mem::take(&mut summaries[slot]))?;
    }
    summaries.clear();
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
        // A name past the bound is kept as its prefix and hash (crate::names), here where it
        // first enters memory, so no map, sort or row holds it whole.
        let text = crate::names::bounded(text);
        if let Some(&slot) = slots.get(text.as_ref()) {
            return slot;
        }
        summaries.push(Summary::default());
        slots.insert(text.into_owned(), summaries.len() - 1);
        summaries.len() - 1
    };
    let names = column(batch, name)?;
    // One slot per row, resolved per distinct name where the column is a dictionary.
    let row_slots: Vec<usize> = match names.data_type() {
        DataType::Dictionary(key, _) if **key == DataType::Int32 => {
            let dict = names.as_dictionary::<Int32Type>();
            let values = dict.values().as_string_opt::<i32>().ok_or(ColumnError::DictionaryValues)?;
            let keys = dict.keys().values();
            if values.len() <= keys.len() {
                let per_key: Vec<usize> = (0..values.len()).map(|i| slot_of(values.value(i))).collect();
                keys.iter().map(|&k| per_key[k as usize]).collect()
            } else {
                // A dictionary larger than the batch (a row group of many distinct names): only
                // the names this batch uses are looked up, so a batch holds a batch's names.
                let mut used: HashMap<i32, usize> = HashMap::with_capacity(keys.len().min(1 << 12));
                keys.iter().map(|&k| *used.entry(k).or_insert_with(|| slot_of(values.value(k as usize)))).collect()
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::sink::Sink;
    use std::path::Path;

    /// A marker table of `rows` rows over `names` distinct messages, in two files.
    fn markers(dir: &Path, rows: u64, names: u64) -> Vec<PathBuf> {
        for stem in ["a", "b"] {
            let mut sink = Sink::new(dir, stem, "test").unwrap();
            for i in 0..rows / 2 {
                let message = format!("step {}", (i * 7_919) % names);
                let duration = 1_000 + (i as i64 * 104_729) % 5_000_000;
                sink.marker.rows.push(rocprof_rs_format::MarkerRow {
                    message: &message,
                    operation: "range",
                    start_ns: i as i64,
                    end_ns: i as i64 + duration,
                    duration_ns: duration,
                    depth: None,
                    correlation_id: i,
                    thread_id: 1,
                    pid: 7,
                    vendor: &rocprof_rs_format::vendor::AMD,
                    domain: None,
                });
            }
            sink.finish().unwrap();
        }
        rocprof_rs_format::dataset::table_files(dir, rocprof_rs_format::Table::Marker).unwrap()
    }

    fn summaries(files: &[PathBuf], threads: usize, budget: Budget) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        summarise_within(files, "message", None, threads, budget, |name, summary| {
            let mut bytes = Vec::new();
            summary.encode(&mut bytes);
            out.push((name.to_owned(), bytes));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn names_beyond_the_budget_spill_and_merge_to_the_same_figures() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-scan-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = markers(&dir, 60_000, 9_000);
        let roomy = summaries(&files, 2, Budget::default());
        assert_eq!(roomy.len(), 9_000);
        assert!(roomy.windows(2).all(|w| w[0].0 < w[1].0), "names in byte order, each once");
        // A few kilobytes of summaries and of sort buffer: hundreds of spills and runs.
        let tight = summaries(&files, 3, Budget { summaries: 8 << 10, sort: 16 << 10 });
        assert_eq!(tight, roomy);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
