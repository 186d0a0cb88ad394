//! A process's `metadata` and `agents`.
//!
//! `metadata` takes the pid, the run's start and end (`init_time`, `fini_time`) and its
//! command line from the run's `*.metadata.json` where the dataset has one (0 and `[]`
//! otherwise); the command line is kept as one string there, so `command` is it split at
//! white space. The machine (`node`) and rocprofv3's own `config` are not recorded: `node`'s
//! fields are empty and `config` is `{}`.

use std::collections::HashMap;
use std::path::Path;

use rocprof_rs_format::keys;
use serde::Serialize;
use serde_json::Value;

use crate::export::agents::Agent;

/// What a run's metadata file says of its process.
#[derive(Debug, Default, Clone)]
pub(super) struct Run {
    command: Vec<String>,
    start: u64,
    end: u64,
}

/// The runs' metadata files of `dir`, by process; unreadable ones are skipped, as `stats`
/// skips them.
pub(super) fn runs(dir: &Path) -> HashMap<u32, Run> {
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
        let time = |k: &str| text(k).and_then(|t| t.parse().ok()).unwrap_or(0);
        let command = text(keys::COMMAND_LINE).unwrap_or_default().split_whitespace().map(str::to_owned).collect();
        runs.insert(pid, Run { command, start: time(keys::START_NS), end: time(keys::END_NS) });
    }
    runs
}

/// `metadata.node`: the machine, which the dataset does not record.
#[derive(Debug, Default, Serialize)]
struct Node {
    id: u64,
    hash: u64,
    machine_id: &'static str,
    system_name: &'static str,
    hostname: &'static str,
    release: &'static str,
    version: &'static str,
    hardware_name: &'static str,
    domain_name: &'static str,
}

#[derive(Debug, Serialize)]
pub(super) struct Metadata {
    node: Node,
    pid: u32,
    init_time: u64,
    fini_time: u64,
    command: Vec<String>,
    config: serde_json::Map<String, Value>,
}

/// Process `pid`'s `metadata`.
pub(super) fn metadata(pid: u32, run: Option<&Run>) -> Metadata {
    let run = run.cloned().unwrap_or_default();
    Metadata {
        node: Node::default(),
        pid,
        init_time: run.start,
        fini_time: run.end,
        command: run.command,
        config: serde_json::Map::new(),
    }
}

/// An `agents[]` entry: the complete `rocprofiler_agent_v0_t` object rocpd keeps as `extdata`
/// ([`crate::rocpd::agent::AgentRow::extdata`]), with the numbers rocprofv3 gives:
/// `logical_node_id` the agent's rank by node id, `logical_node_type_id` (and a GPU's
/// `gpu_index`) the dataset's `logical_index`, which the tool takes from the SDK's
/// `logical_node_type_id`, and a CPU's `cpu_cores_count` its `cu_count` (the SDK sets them
/// equal). Its keys are in name order, not the SDK's.
pub(super) fn agent(a: &Agent) -> Value {
    let mut object = a.row.extdata(i64::from(a.row.logical_index), !a.described);
    object["logical_node_id"] = Value::from(a.logical);
    if a.row.agent_type == "CPU" {
        object["cpu_cores_count"] = Value::from(a.row.cu_count);
    }
    object
}
