//! `rocprof-rs stats`: per-name duration statistics of a dataset's kernels, HIP API calls,
//! memory copies and markers, streamed over row groups so a dataset larger than memory is
//! fine. The CSV form is rocprofv3's own stats files, column for column.

pub mod health;
pub mod render;
pub mod scan;
pub mod summary;

use rocprof_rs_format::Table;
use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use summary::Summary;

/// What `stats` summarises: each a table, the column naming its rows, and rocprofv3's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
pub struct SectionStats {
    pub section: Section,
    pub rows: Vec<Row>,
    /// Names left out by `--top`.
    pub omitted: usize,
}

/// Which rows, and how many.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only this process.
    pub pid: Option<u32>,
    /// Only the largest N names per section.
    pub top: Option<usize>,
    /// Threads to read with (0: one per core).
    pub threads: usize,
}

/// The statistics of every section `dir` has rows for.
pub fn compute(dir: &Path, sections: &[Section], options: &Options) -> Result<Vec<SectionStats>> {
    let threads = if options.threads == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        options.threads
    };
    let mut out = Vec::new();
    for &section in sections {
        let files = rocprof_rs_format::dataset::table_files(dir, section.table())?;
        if files.is_empty() {
            continue;
        }
        let by_name = scan::summarise(&files, section.name_column(), options.pid, threads)?;
        out.push(section_stats(section, by_name.into_iter().collect(), options.top));
    }
    Ok(out)
}

/// Rows from summaries, sorted by total (then name, so equal totals keep a stable order).
pub fn section_stats(section: Section, summaries: Vec<(String, Summary)>, top: Option<usize>) -> SectionStats {
    let total: u128 = summaries.iter().map(|(_, s)| s.sum).sum();
    let mut rows: Vec<Row> = summaries
        .into_iter()
        .filter(|(_, s)| s.count > 0)
        .map(|(name, s)| Row {
            calls: s.count,
            total_ns: s.sum,
            mean_ns: s.mean(),
            min_ns: s.min,
            max_ns: s.max,
            stddev_ns: s.sample_stddev(),
            p50_ns: s.quantile(0.50),
            p95_ns: s.quantile(0.95),
            p99_ns: s.quantile(0.99),
            percent: if total == 0 { 0.0 } else { s.sum as f64 / total as f64 * 100.0 },
            name,
        })
        .collect();
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    let omitted = top.map_or(0, |n| rows.len().saturating_sub(n));
    rows.truncate(rows.len() - omitted);
    SectionStats { section, rows, omitted }
}
