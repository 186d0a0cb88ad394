//! What each run's `*.metadata.json` says of its process, for the exports that carry it:
//! the command line and the run's start and end. A file that cannot be read or parsed is
//! skipped, as `stats` skips it.

use std::collections::HashMap;
use std::path::Path;

use rocprof_rs_format::keys;
use serde_json::Value;

/// One process's run.
#[derive(Debug, Default, Clone)]
pub(crate) struct Run {
    /// As one string, as the tool recorded it.
    pub command: String,
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
}

/// The runs of the dataset `dir`, by process id.
pub(crate) fn read(dir: &Path) -> HashMap<u32, Run> {
    let mut runs = HashMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return runs };
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
        runs.insert(pid, Run { command, start_ns: time(keys::START_NS), end_ns: time(keys::END_NS) });
    }
    runs
}
