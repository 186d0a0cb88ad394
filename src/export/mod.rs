//! `rocprof-rs export`: a dataset in the formats other tools read. rocprofv3's CSV files are
//! written today; Perfetto and rocpd SQLite follow (issue 6).

pub mod read;
pub mod rocprofv3;
