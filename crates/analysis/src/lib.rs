//! rocprof-rs's post-processing: everything done with a dataset after the run, never inside
//! the profiled process.
//!
//! - [`stats`]: per-kernel and per-API summaries, streamed a row group at a time;
//! - [`analyze`]: the roofline, bottleneck classes, occupancy, `diff` and `score`;
//! - [`ranks`]: a distributed job's ranks compared: busy and idle time, stragglers, collectives;
//! - [`import`]: rocprofv3's CSV and JSON, rocprof v1's CSV and JSON, and rocpd databases, into
//!   the dataset's own tables;
//! - [`report`]: one self-contained HTML page of a dataset;
//! - [`export`] and [`rocpd`]: rocprofv3's CSV, Perfetto and rocpd SQLite.
//!
//! It reads and writes the tables through [`rocprof_rs_format`], as the recorder writes them.

pub mod analyze;
pub mod error;
pub mod export;
pub mod grouped;
pub mod import;
pub mod names;
pub mod progress;
pub mod ranks;
pub mod read;
pub mod report;
pub mod rocpd;
pub mod spill;
pub mod stats;
pub mod telemetry;

pub use error::{Error, Result};
