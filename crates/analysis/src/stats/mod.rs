//! `rocprof-rs stats`: per-name duration statistics of a dataset's kernels, HIP API calls,
//! memory copies and markers, streamed over row groups so a dataset larger than memory is
//! fine. The CSV form is rocprofv3's own stats files, column for column.

pub mod by_rank;
pub mod health;
pub mod render;
pub mod scan;
pub mod summary;

use parquet::file::metadata::RowGroupMetaData;
use parquet::file::statistics::Statistics;
use rocprof_rs_format::Table;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::sorted_rows::{Decode, SortedRows};
use crate::spill::{Key, Sorter};
use summary::Summary;

/// What `stats` summarises: each a table, the column naming its rows, and rocprofv3's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Kernel,
    HipApi,
    MemoryCopy,
    Marker,
}

impl Section {
    pub const ALL: [Section; 4] = [Section::Kernel, Section::HipApi, Section::MemoryCopy, Section::Marker];

    /// The table it reads.
    pub fn table(self) -> Table {
        match self {
            Section::Kernel => Table::KernelDispatch,
            Section::HipApi => Table::HipApi,
            Section::MemoryCopy => Table::MemoryCopy,
            Section::Marker => Table::Marker,
        }
    }

    /// The column that names a row.
    pub fn name_column(self) -> &'static str {
        match self {
            Section::Kernel => "kernel_name",
            Section::HipApi | Section::MemoryCopy => "operation",
            Section::Marker => "message",
        }
    }

    /// rocprofv3's stats file for it.
    pub fn rocprofv3_file(self) -> &'static str {
        match self {
            Section::Kernel => "kernel_stats.csv",
            Section::HipApi => "hip_api_stats.csv",
            Section::MemoryCopy => "memory_copy_stats.csv",
            Section::Marker => "marker_api_stats.csv",
        }
    }

    /// The `--section` name.
    pub fn name(self) -> &'static str {
        match self {
            Section::Kernel => "kernel",
            Section::HipApi => "hip_api",
            Section::MemoryCopy => "memory_copy",
            Section::Marker => "marker",
        }
    }

    /// The section named `name`.
    pub fn by_name(name: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One name's statistics.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Row {
    pub name: String,
    pub calls: u64,
    pub total_ns: u128,
    pub mean_ns: f64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Sample standard deviation (n − 1), as rocprofv3 reports it (computed without
    /// rocprofv3 1.0's 64-bit wrap-around beyond about 4.3 s of total time per name).
    pub stddev_ns: f64,
    pub p50_ns: u64,
    pub p95_ns: u64,
    pub p99_ns: u64,
    /// Share of the section's total duration.
    pub percent: f64,
}

/// One section's rows, largest total first.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SectionStats {
    pub section: Section,
    /// The rank whose rows these are, with `--by-rank` or `--rank` (absent: every row, or a
    /// process without a rank).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<i32>,
    pub rows: Rows,
    /// Names left out by `--top`.
    pub omitted: usize,
    /// What a reader of the figures must know: rows without timestamps.
    pub notes: Vec<String>,
    /// A windowed dataset's calls and time per name scaled to the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaled: Option<crate::windows::Scaled>,
}

/// Which rows, and how many.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only this process.
    pub pid: Option<u32>,
    /// Only this rank's rows.
    pub rank: Option<i32>,
    /// A section per rank (and one for rows without a rank), rather than one for all rows.
    pub by_rank: bool,
    /// Only the largest N names per section.
    pub top: Option<usize>,
    /// Threads to read with (0: one per core).
    pub threads: usize,
}

/// The statistics of every section `dir` has rows for. Memory stays bounded whatever the
/// number of rows or of distinct names: summaries and rows beyond a budget go through an
/// external sort ([`crate::spill`]), with the same figures.
pub fn compute(dir: &Path, sections: &[Section], options: &Options) -> Result<Vec<SectionStats>> {
    let threads = if options.threads == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        options.threads
    };
    let mut out = Vec::new();
    let windows = crate::windows::Windows::read(dir)?;
    for &section in sections {
        let files = rocprof_rs_format::dataset::table_files(dir, section.table())?;
        if files.is_empty() {
            continue;
        }
        let groups: Vec<(Option<i32>, Vec<PathBuf>)> = if options.by_rank || options.rank.is_some() {
            let mut groups = by_rank::group(&files)?;
            match options.rank {
                Some(rank) => groups.remove(&Some(rank)).map(|files| vec![(Some(rank), files)]).unwrap_or_default(),
                None => groups.into_iter().collect(),
            }
        } else {
            vec![(None, files)]
        };
        for (rank, files) in groups {
            let mut stats = section_stats(section, &files, options, threads)?;
            stats.rank = rank;
            if options.by_rank && rank.is_none() {
                stats.notes.push("rows without a rank: processes no launcher gave a rank to".into());
            }
            let whole = !(options.by_rank || options.rank.is_some() || options.pid.is_some());
            if whole {
                stats.notes.extend(by_rank::summed_note(&files));
            }
            if let Some(windows) = &windows {
                scale(&mut stats, windows, dir, section, whole)?;
            }
            out.push(stats);
        }
    }
    Ok(out)
}

/// A windowed dataset's section: its figures are the windows', and its calls and time are
/// scaled to the run where the section covers every process.
fn scale(
    stats: &mut SectionStats,
    windows: &crate::windows::Windows,
    dir: &Path,
    section: Section,
    whole: bool,
) -> Result<()> {
    let (n, share) = windows.coverage();
    let recorded = format!("recorded in {n} tracing windows, {:.2}% of the run", 100.0 * share);
    if !whole {
        stats
            .notes
            .push(format!("{recorded}: the figures are the windows' (scaled to the run only over every process)"));
        return Ok(());
    }
    stats.notes.push(format!(
        "{recorded}: calls and total are the windows'; scaled to the run (with 95% intervals) in --format json's `scaled`"
    ));
    let scaled = windows.scale(dir, section.table(), section.name_column())?;
    if scaled.queued_windows > 0 {
        stats.notes.push(format!(
            "{} of the windows ran behind a launch queue (their kernels started after they closed): \
             their rates are their kernels' GPU time's, the pace the queue keeps",
            scaled.queued_windows
        ));
    }
    stats.scaled = Some(scaled);
    Ok(())
}

/// One section's statistics over `files`.
fn section_stats(section: Section, files: &[PathBuf], options: &Options, threads: usize) -> Result<SectionStats> {
    let mut rows = RowsBuilder::default();
    scan::summarise_each(files, section.name_column(), options.pid, threads, |name, summary| {
        rows.push_summary(name, &summary)
    })?;
    let mut stats = rows.finish(section, options.top)?;
    if untimed(files)? {
        stats.notes.push(format!(
            "{}: no timestamps in these rows (every start and end is 0), so durations are unknown, not zero",
            section.table().name()
        ));
    }
    Ok(stats)
}

/// Whether every row of `files` has start and end 0, as a counters-only import writes them:
/// their durations are then unknown, not zero. Read from the files' column statistics (the
/// writer keeps the min and max of every `_ns` column), so no row is decoded; a row group
/// without them counts as timed, so the note never says more than the files show.
fn untimed(files: &[PathBuf]) -> Result<bool> {
    let mut rows = 0;
    for path in files {
        for group in rocprof_rs_format::read::footer(path)?.metadata().row_groups() {
            rows += group.num_rows();
            if !(all_zero(group, "start_ns") && all_zero(group, "end_ns")) {
                return Ok(false);
            }
        }
    }
    Ok(rows > 0)
}

/// Whether a row group's statistics show column `name` holding 0 and nothing else.
fn all_zero(group: &RowGroupMetaData, name: &str) -> bool {
    let column = group.columns().iter().find(|c| c.column_descr().name() == name);
    match column.and_then(|c| c.statistics()) {
        Some(Statistics::Int64(s)) => s.min_opt() == Some(&0) && s.max_opt() == Some(&0),
        _ => false,
    }
}

/// Collects rows and sorts them by total, largest first (then by name, so equal totals keep a
/// stable order).
#[derive(Debug, Default)]
pub struct RowsBuilder {
    sorter: Sorter,
    total: u128,
    len: usize,
    value: Vec<u8>,
    /// Names cut to their prefix and hash ([`crate::names`]).
    cut: u64,
}

/// A row's fixed fields in the sort, after its total and name in the key.
const ROW_VALUE_BYTES: usize = 8 * 8;

impl RowsBuilder {
    /// Adds a name's row from its summary; a name with no durations has none.
    pub fn push_summary(&mut self, name: &str, s: &Summary) -> Result<()> {
        if s.count == 0 {
            return Ok(());
        }
        self.push(&Row {
            name: name.to_owned(),
            calls: s.count,
            total_ns: s.sum,
            mean_ns: s.mean(),
            min_ns: s.min,
            max_ns: s.max,
            stddev_ns: s.sample_stddev(),
            p50_ns: s.quantile(0.50),
            p95_ns: s.quantile(0.95),
            p99_ns: s.quantile(0.99),
            percent: 0.0,
        })
    }

    /// Adds a row; its `percent` is worked out from the section's total when read.
    pub fn push(&mut self, row: &Row) -> Result<()> {
        self.total += row.total_ns;
        self.len += 1;
        self.cut += u64::from(crate::names::is_cut(&row.name));
        self.value.clear();
        for field in [row.calls, row.mean_ns.to_bits(), row.min_ns, row.max_ns, row.stddev_ns.to_bits()] {
            self.value.extend_from_slice(&field.to_le_bytes());
        }
        for field in [row.p50_ns, row.p95_ns, row.p99_ns] {
            self.value.extend_from_slice(&field.to_le_bytes());
        }
        let key = Key::new().u128_descending(row.total_ns).text(&row.name);
        self.sorter.push(&key.0, &self.value)
    }

    /// The section's rows, the largest `top` only if given.
    pub fn finish(self, section: Section, top: Option<usize>) -> Result<SectionStats> {
        let shown = top.map_or(self.len, |n| n.min(self.len));
        let omitted = self.len - shown;
        let rows = SortedRows::new(self.sorter.finish()?, shown, omitted, RowDecoder { total: self.total });
        let notes = if self.cut > 0 { vec![crate::names::cut_note(self.cut)] } else { Vec::new() };
        Ok(SectionStats { section, rank: None, rows, omitted, notes, scaled: None })
    }
}

/// A section's rows, largest total first, in memory or in an external sort's runs: read them
/// with [`SortedRows::for_each`], as many times as needed.
pub type Rows = SortedRows<RowDecoder>;

/// A row from the sort: total and name from the key, the rest from the value, and its share of
/// the section's total.
#[derive(Debug)]
pub struct RowDecoder {
    total: u128,
}

impl Decode for RowDecoder {
    type Row = Row;

    fn decode(&self, key: &[u8], value: &[u8]) -> Result<Row> {
        let broken = || Error::Invalid("stats: a row did not come back from the external sort".into());
        if key.len() < 16 || value.len() != ROW_VALUE_BYTES {
            return Err(broken());
        }
        let total_ns = u128::MAX - u128::from_be_bytes(key[..16].try_into().expect("16 bytes"));
        let name = std::str::from_utf8(&key[16..]).map_err(|_| broken())?.to_owned();
        let field = |i: usize| u64::from_le_bytes(value[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        Ok(Row {
            name,
            calls: field(0),
            total_ns,
            mean_ns: f64::from_bits(field(1)),
            min_ns: field(2),
            max_ns: field(3),
            stddev_ns: f64::from_bits(field(4)),
            p50_ns: field(5),
            p95_ns: field(6),
            p99_ns: field(7),
            percent: if self.total == 0 { 0.0 } else { total_ns as f64 / self.total as f64 * 100.0 },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::sink::Sink;

    /// A marker table of three 0-ns ranges, at `start` (0: no timestamps).
    fn markers(dir: &Path, start: i64) {
        let mut sink = Sink::new(dir, "a", "test").unwrap();
        for i in 0..3 {
            sink.marker.rows.push(rocprof_rs_format::MarkerRow {
                message: "step",
                operation: "range",
                start_ns: start,
                end_ns: start,
                duration_ns: 0,
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

    /// Rows whose every start and end is 0 keep their figures, with a note that they are
    /// unknown; the same 0-ns rows at a real time get none.
    #[test]
    fn rows_without_timestamps_say_so() {
        let root = std::env::temp_dir().join(format!("rocprof-rs-stats-untimed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (start, noted) in [(0, true), (1_000, false)] {
            let dir = root.join(start.to_string());
            markers(&dir, start);
            let stats = compute(&dir, &[Section::Marker], &Options::default()).unwrap();
            let rows = stats[0].rows.to_vec().unwrap();
            assert_eq!((rows[0].calls, rows[0].total_ns), (3, 0));
            let expected: &[&str] = if noted {
                &["marker: no timestamps in these rows (every start and end is 0), so durations are unknown, not zero"]
            } else {
                &[]
            };
            assert_eq!(stats[0].notes, expected, "start {start}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
