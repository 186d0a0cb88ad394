//! `rocprof-rs export`: a dataset in the formats other tools read: rocprofv3's CSV files and a
//! Perfetto trace; rocpd SQLite follows (issue 6).

pub mod perfetto;
pub mod proto;
pub mod read;
pub mod rocprofv3;
