//! A dataset's agents as rocprofv3 numbers and names them, for its CSV and JSON exports.
//!
//! rocprofv3 names an agent in its files `Agent N` with N its *logical node id*: the SDK numbers
//! the agents it finds 0, 1, 2, ... in KFD node order (`agent.cpp`, `logical_node_id =
//! idcount++`), so the number is the agent's rank by node id among its process's agents. The
//! dataset keeps the node id, so the rank gives back the SDK's number; it differs from the node
//! id only where KFD's node ids have gaps.
//!
//! An agent that an importer only knew by the number other files gave it (type `UNKNOWN`, no
//! index: `rocprof-rs import` of CSV files without `agent_info.csv`) was never described, so
//! it takes no rank and keeps that number.

use std::collections::HashMap;
use std::path::Path;

use crate::error::Result;
use crate::rocpd::agent::AgentRow;

/// One agent with the numbers rocprofv3 gives it.
#[derive(Debug, Clone)]
pub(crate) struct Agent {
    pub row: AgentRow,
    /// `logical_node_id`: the rank by node id among the process's described agents, or the
    /// node id of an agent that was never described.
    pub logical: u32,
    /// Whether the dataset describes the agent (not only names it).
    pub described: bool,
}

/// Every agent of a dataset, by process and SDK handle.
#[derive(Debug, Default)]
pub(crate) struct Agents {
    by_handle: HashMap<(u32, u64), Agent>,
}

impl Agents {
    /// The dataset's agent table, numbered.
    pub fn read(dir: &Path) -> Result<Agents> {
        Ok(Agents::number(AgentRow::read_all(dir)?))
    }

    /// Numbers `rows` as the SDK numbers agents, process by process.
    pub fn number(rows: Vec<AgentRow>) -> Agents {
        let mut by_pid: HashMap<u32, Vec<AgentRow>> = HashMap::new();
        for row in rows {
            by_pid.entry(row.pid).or_default().push(row);
        }
        let mut by_handle = HashMap::new();
        for (pid, mut rows) in by_pid {
            rows.sort_by_key(|r| (r.node_id, r.agent_id));
            let mut rank = 0;
            for row in rows {
                let described = !(row.agent_type == "UNKNOWN" && row.logical_index < 0);
                let logical = if described { rank } else { row.node_id };
                rank += u32::from(described);
                by_handle.insert((pid, row.agent_id), Agent { row, logical, described });
            }
        }
        Agents { by_handle }
    }

    /// The agent with SDK handle `handle` in process `pid`.
    pub fn get(&self, pid: u32, handle: u64) -> Option<&Agent> {
        self.by_handle.get(&(pid, handle))
    }

    /// `"Agent N"`, quoted, as rocprofv3's CSV files name an agent; a handle the agent table
    /// does not know stands for itself.
    pub fn label(&self, pid: u32, handle: u64) -> String {
        let number = self.get(pid, handle).map_or(handle, |a| u64::from(a.logical));
        format!("\"Agent {number}\"")
    }

    /// The agents of process `pid` in node order; `described` keeps only those the dataset
    /// describes.
    pub fn of(&self, pid: u32, described: bool) -> Vec<&Agent> {
        let mut agents: Vec<&Agent> =
            self.by_handle.values().filter(|a| a.row.pid == pid && (a.described || !described)).collect();
        agents.sort_by_key(|a| (a.row.node_id, a.row.agent_id));
        agents
    }

    /// The processes that have agents.
    pub fn pids(&self) -> Vec<u32> {
        let mut pids: Vec<u32> = self.by_handle.keys().map(|&(pid, _)| pid).collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(id: u64, node: u32, kind: &str, logical_index: i32) -> AgentRow {
        AgentRow { agent_id: id, node_id: node, agent_type: kind.into(), logical_index, pid: 7, ..AgentRow::default() }
    }

    #[test]
    fn agents_are_numbered_by_node_order_without_the_gaps() {
        let agents = Agents::number(vec![agent(30, 4, "GPU", 1), agent(10, 0, "CPU", 0), agent(20, 2, "GPU", 0)]);
        assert_eq!(agents.label(7, 10), "\"Agent 0\"");
        assert_eq!(agents.label(7, 20), "\"Agent 1\"");
        assert_eq!(agents.label(7, 30), "\"Agent 2\"");
        assert_eq!(agents.label(7, 99), "\"Agent 99\"", "an unknown handle stands for itself");
        assert_eq!(agents.label(8, 10), "\"Agent 10\"", "another process's agents are its own");
        let order: Vec<u64> = agents.of(7, true).iter().map(|a| a.row.agent_id).collect();
        assert_eq!(order, [10, 20, 30]);
    }

    #[test]
    fn an_agent_known_only_by_its_number_keeps_it_and_takes_no_rank() {
        let agents = Agents::number(vec![agent(4, 4, "UNKNOWN", -1), agent(10, 0, "CPU", 0), agent(20, 7, "GPU", 0)]);
        assert_eq!(agents.label(7, 4), "\"Agent 4\"");
        assert_eq!(agents.label(7, 20), "\"Agent 1\"");
        assert_eq!(agents.of(7, true).len(), 2);
        assert_eq!(agents.of(7, false).len(), 3);
    }
}
