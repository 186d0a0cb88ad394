//! What a run is: the tracing library behind it and what it told the tool at the start, and
//! the metadata every file of the run carries.

use std::sync::Arc;

use parquet::file::metadata::KeyValue;

use super::clock;
use crate::config::Config;
use rocprof_rs_format::{Table, keys};
use std::collections::HashMap;

/// Operation names by (the backend's kind, operation), as the backend named them when it started.
pub type OperationNames = HashMap<(u32, i32), Arc<str>>;

/// What the writer and the run metadata need to know of the counters.
#[derive(Debug, Clone, Default)]
pub struct CounterNames {
    /// Counter names by (agent, counter id): ids are the library's, per agent.
    pub names: HashMap<(u64, u64), Arc<str>>,
    /// The groups per agent label, as JSON for the run metadata.
    pub plan_json: String,
    /// The passes the largest plan needs.
    pub passes: usize,
    /// The names and plans come later, as [`super::records::CounterPlan`] records (where the library knows
    /// them only at the first launch on a context).
    pub deferred: bool,
    /// Counted dispatches name their launch by correlation id ([`super::records::CounterDispatch::join`]), so
    /// kernel records are kept a while for the join.
    pub join_launches: bool,
}

/// The tracing library behind a run, as its backend describes it when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Library {
    /// The name `rocprof-rs run --backend` takes, and the metadata's `rocprof_rs.backend`.
    pub backend: &'static str,
    /// The `vendor` column's value for this backend's rows.
    pub vendor: Arc<str>,
    /// What the run's metadata says of the library (its version, its file), as keys of
    /// [`rocprof_rs_format::keys`] and their values.
    pub versions: Vec<(&'static str, String)>,
    /// The API table each of the backend's API kinds fills ([`super::records::Api::kind`]);
    /// a call of a kind not listed has no row.
    pub api_tables: &'static [(u32, Table)],
}

/// What the backend told the pipeline when it started, which a forked child's tables need too.
#[derive(Debug, Clone)]
pub struct Seed {
    /// Operation names by the backend's kind and operation.
    pub operations: OperationNames,
    /// Which library traced, and its version, for the run metadata and the `vendor` column.
    pub library: Library,
    /// The counters collected, if any: names and groups.
    pub counters: Option<CounterNames>,
}

pub fn run_metadata(config: &Config, library: &Library) -> Vec<KeyValue> {
    let command_line = std::fs::read("/proc/self/cmdline")
        .map(|raw| {
            raw.split(|b| *b == 0).filter(|a| !a.is_empty()).map(String::from_utf8_lossy).collect::<Vec<_>>().join(" ")
        })
        .unwrap_or_default();
    let kv = |k: &str, v: String| KeyValue::new(k.to_owned(), v);
    let versions = library.versions.iter().map(|(key, value)| kv(key, value.clone()));
    // Both clocks at one instant: the real-time one says where this host's boot-time clock
    // stands against other hosts'.
    let (start_ns, start_unix_ns) = (clock::now_ns(), clock::unix_ns());
    let mut metadata = vec![
        kv(keys::FORMAT_VERSION, rocprof_rs_format::FORMAT_VERSION.into()),
        kv(keys::TOOL_VERSION, env!("CARGO_PKG_VERSION").into()),
        kv(keys::BACKEND, library.backend.into()),
        kv(keys::VENDOR, library.vendor.to_string()),
        kv(keys::COMMAND_LINE, command_line),
        kv(keys::PID, std::process::id().to_string()),
        kv(keys::CLOCK, keys::CLOCK_NAME.into()),
        kv(keys::START_NS, start_ns.to_string()),
        kv(keys::START_UNIX_NS, start_unix_ns.to_string()),
        kv(keys::HOST, config.origin.host.clone().unwrap_or_default()),
        kv(keys::POLICY, format!("{:?}", config.policy).to_lowercase()),
        kv(keys::DOMAINS, config.domains.iter().map(|d| d.name()).collect::<Vec<_>>().join(",")),
    ];
    metadata.extend(versions);
    let origin = &config.origin;
    for (key, value) in
        [(keys::RANK, origin.rank), (keys::LOCAL_RANK, origin.local_rank), (keys::WORLD_SIZE, origin.world_size)]
    {
        if let Some(value) = value {
            metadata.push(kv(key, value.to_string()));
        }
    }
    metadata
}
