//! A process's `metadata` and `agents`.
//!
//! `metadata` takes the pid, the run's start and end (`init_time`, `fini_time`) and its
//! command line from the run's `*.metadata.json` where the dataset has one (0 and `[]`
//! otherwise); the command line is kept as one string there, so `command` is it split at
//! white space. Of the machine (`node`), only the host name is recorded (format 3), and
//! rocprofv3's own `config` is not: `node`'s other fields are empty and `config` is `{}`.

use serde::Serialize;
use serde_json::Value;

use crate::export::agents::Agent;
use crate::export::runs::Run;

/// `metadata.node`: the machine, which the dataset does not record.
#[derive(Debug, Default, Serialize)]
struct Node {
    id: u64,
    hash: u64,
    machine_id: &'static str,
    system_name: &'static str,
    hostname: String,
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
    let time = |t: Option<i64>| t.map_or(0, |t| t.max(0) as u64);
    Metadata {
        node: Node { hostname: run.host.clone().unwrap_or_default(), ..Node::default() },
        pid,
        init_time: time(run.start_ns),
        fini_time: time(run.end_ns),
        command: run.command.split_whitespace().map(str::to_owned).collect(),
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
