//! `rocprof-rs export`: a dataset in the formats other tools read: rocprofv3's CSV files and a
//! Perfetto trace, and rocprofv3's rocpd SQLite ([`rocpd`]).

pub mod perfetto;
pub mod proto;
pub mod rocpd;
pub mod rocprofv3;
