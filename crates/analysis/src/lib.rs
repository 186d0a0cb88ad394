//! rocprof-rs's post-processing: everything done with a dataset after the run, never inside
//! the profiled process.
//!
//! - [`stats`]: per-kernel and per-API summaries, streamed a row group at a time;
//! - [`analyze`]: the roofline, bottleneck classes, occupancy, `diff` and `score`;
//! - [`hotspots`]: PC samples per kernel and instruction, with their stall mix;
//! - [`ranks`]: a distributed job's ranks compared: busy and idle time, stragglers, collectives;
//! - [`import`]: rocprofv3's CSV and JSON, rocprof v1's CSV and JSON, and rocpd databases, into
//!   the dataset's own tables;
//! - [`report`]: one self-contained HTML page of a dataset;
//! - [`export`] and [`rocpd`]: rocprofv3's CSV, Perfetto and rocpd SQLite;
//! - [`terminal`]: text escaped on its way to a terminal.
//!
//! It reads and writes the tables through [`rocprof_rs_format`], as the recorder writes them.

pub mod analyze;
pub mod csv_field;
pub mod error;
pub mod export;
pub mod grouped;
pub mod hotspots;
pub mod import;
pub mod names;
pub mod progress;
pub mod ranks;
pub mod read;
pub mod report;
pub mod rocpd;
pub mod row_groups;
pub mod sorted_rows;
pub mod spill;
pub mod sqlite;
pub mod stats;
pub mod telemetry;
pub mod terminal;
pub mod units;
pub mod windows;

pub use error::{Error, Result};

/// Gives the memory one pass freed back to the system before the next: glibc keeps what a
/// pass's reading threads freed in their arenas, which a later pass on other threads does not
/// reuse, so without this the passes' peaks (`score`'s and `report`'s scan, then their
/// analysis) add up in the process's resident memory.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system; no live allocation moves.
    unsafe {
        libc::malloc_trim(0);
    }
}
