//! `rocprof-rs export`: a dataset in the formats other tools read: rocprofv3's CSV files
//! ([`rocprofv3`]) and `results.json` ([`results_json`]), a Perfetto trace, and rocprofv3's
//! rocpd SQLite ([`rocpd`]).

mod agent_info;
mod agents;
pub mod madengine;
pub mod pc_sampling;
pub mod perfetto;
pub mod proto;
pub mod results_json;
pub mod rocpd;
pub mod rocprofv3;
mod runs;
mod staging;
mod symbols;
