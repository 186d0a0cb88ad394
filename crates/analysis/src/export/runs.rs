//! What each run's `*.metadata.json` says of its process, for the exports that carry it:
//! the command line, the run's start and end, and (format 3) its host and ranks. A file that
//! cannot be read or parsed is skipped, as `stats` skips it.

use std::collections::HashMap;
use std::path::Path;

use rocprof_rs_format::keys;

use crate::error::{Error, Result};
use serde_json::Value;

/// One process's run.
#[derive(Debug, Default, Clone)]
pub(crate) struct Run {
    /// As one string, as the tool recorded it.
    pub command: String,
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    /// CLOCK_REALTIME at `start_ns`: what places the run's clock on the calendar.
    pub start_unix_ns: Option<i64>,
    /// The machine it ran on, where the tool recorded it.
    pub host: Option<String>,
    /// Its place in a distributed job, where the launcher's variables gave it.
    pub rank: Option<i32>,
    pub local_rank: Option<i32>,
    pub world_size: Option<i32>,
}

impl Run {
    /// Its rank, local rank and world size as JSON fields (none where there are none).
    pub fn origin_fields(&self) -> serde_json::Map<String, Value> {
        [("rank", self.rank), ("local_rank", self.local_rank), ("world_size", self.world_size)]
            .into_iter()
            .filter_map(|(key, value)| Some((key.to_owned(), Value::from(value?))))
            .collect()
    }
}

/// The runs of the dataset `dir`, by process id. Two processes of one pid on two hosts are an
/// error: the exports (as rocprofv3's outputs) know a process by its pid alone, and would
/// merge them.
pub(crate) fn read(dir: &Path) -> Result<HashMap<u32, Run>> {
    let mut runs: HashMap<u32, Run> = HashMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(runs) };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().ends_with(keys::METADATA_FILE_SUFFIX) {
            continue;
        }
        let Some(meta) = rocprof_rs_format::input::read_bytes(&entry.path(), rocprof_rs_format::input::JSON_LIMIT)
            .ok()
            .and_then(|t| serde_json::from_slice::<Value>(&t).ok())
        else {
            continue;
        };
        let text = |k: &str| meta.get(k).and_then(Value::as_str);
        let Some(pid) = text(keys::PID).and_then(|p| p.parse().ok()) else { continue };
        let time = |k: &str| text(k).and_then(|t| t.parse().ok());
        let command = text(keys::COMMAND_LINE).unwrap_or_default().to_owned();
        let number = |k: &str| text(k).and_then(|t| t.parse().ok());
        let host = text(keys::HOST).filter(|h| !h.is_empty()).map(str::to_owned);
        let rank: Option<i32> = number(keys::RANK);
        // One process may write several runs (sessions of the in-process API); two of one pid
        // on two hosts, or as two ranks (pid namespaces of containers on one host), are two.
        if let Some(other) = runs.get(&pid).filter(|other| other.host != host || other.rank != rank) {
            let name = |h: &Option<String>, r: Option<i32>| {
                let host = h.clone().unwrap_or_else(|| "an unknown host".into());
                r.map_or(host.clone(), |r| format!("{host} as rank {r}"))
            };
            return Err(Error::Invalid(format!(
                "{}: process {pid} ran on {} and on {}: exports name a process by its pid alone, so export each \
                 host's (or rank's) runs from a dataset of their own",
                dir.display(),
                name(&other.host, other.rank),
                name(&host, rank)
            )));
        }
        runs.insert(
            pid,
            Run {
                command,
                start_ns: time(keys::START_NS),
                end_ns: time(keys::END_NS),
                start_unix_ns: time(keys::START_UNIX_NS),
                host,
                rank,
                local_rank: number(keys::LOCAL_RANK),
                world_size: number(keys::WORLD_SIZE),
            },
        );
    }
    Ok(runs)
}
