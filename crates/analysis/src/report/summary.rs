//! The report's summary: the run's processes, its GPUs and how busy each was, its wall time,
//! and what it collected and lost.
//!
//! Processes come from the `process` table (imports and runs since format 3) or, for older
//! runs, from their metadata files. A GPU's busy time is the union of its kernels' intervals:
//! the dispatches go through the external sort ([`crate::spill`]) in order of their starts, so
//! memory stays bounded on any trace.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rocprof_rs_format::Table;
use serde::Serialize;

use crate::error::Result;
use crate::ranks::intervals::Union;
use crate::read::batches;
use crate::spill::{Key, Sorter, unbiased};

use super::timeline::{Dispatch, Hosts};

/// One process of the run.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct ProcessInfo {
    pub pid: u32,
    pub command_line: String,
    pub backend: String,
    pub vendor: String,
    pub host: Option<String>,
    pub rank: Option<i32>,
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    pub records: u64,
    pub dropped: u64,
}

/// One GPU as a process saw it.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct GpuInfo {
    pub host: Option<String>,
    pub pid: u32,
    pub agent_id: u64,
    /// The agent's logical index among the process's agents (the SDK's, or CUDA's ordinal).
    pub index: i32,
    pub name: String,
    pub compute_units: u32,
    pub memory_bytes: u64,
    /// Every dispatch, timed or not.
    pub dispatches: u64,
    /// The union of its kernels' intervals.
    pub busy_ns: i64,
    /// From its first kernel's start to its last kernel's end.
    pub span_ns: i64,
}

/// One table's rows.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TableRows {
    pub table: &'static str,
    pub rows: u64,
}

/// The summary section.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub processes: Vec<ProcessInfo>,
    pub gpus: Vec<GpuInfo>,
    /// From the first process's start to the last one's end (else the records' extent).
    pub wall_ns: Option<i64>,
    pub records: u64,
    pub dropped: u64,
    pub tables: Vec<TableRows>,
    /// Distinct hardware counters collected.
    pub counters: Vec<String>,
    /// Files skipped as incomplete.
    pub incomplete_files: usize,
    /// Whether the GPUs' busy times were measured: the timeline's pass over the kernels
    /// completed.
    pub busy_known: bool,
}

impl Summary {
    /// Every GPU's busy time, summed.
    pub fn gpu_busy_ns(&self) -> i64 {
        self.gpus.iter().fold(0i64, |sum, g| sum.saturating_add(g.busy_ns))
    }

    /// Whether its processes are told apart by host as well as by pid.
    pub fn several_hosts(&self) -> bool {
        self.processes.iter().any(|p| p.host != self.processes[0].host)
    }
}

/// Reads the processes, agents, tables and counters of `dir`; the GPUs' busy times come later
/// from [`BusyTimes`].
pub fn read(dir: &Path) -> Result<Summary> {
    let mut summary = Summary { processes: processes(dir)?, ..Summary::default() };
    summary.gpus = gpus(dir)?;
    for &table in Table::ALL {
        let listing = rocprof_rs_format::dataset::list(dir, table)?;
        summary.incomplete_files += listing.incomplete.len();
        let mut rows = 0u64;
        for path in &listing.files {
            let footer = rocprof_rs_format::read::footer(path)?;
            rows += footer.metadata().row_groups().iter().map(|g| g.num_rows() as u64).sum::<u64>();
        }
        if rows > 0 {
            summary.tables.push(TableRows { table: table.name(), rows });
        }
    }
    // Hostile metadata may hold any count: sums saturate rather than wrap or panic.
    let sum = |values: &mut dyn Iterator<Item = u64>| values.fold(0u64, u64::saturating_add);
    summary.records = sum(&mut summary.processes.iter().map(|p| p.records));
    summary.dropped = sum(&mut summary.processes.iter().map(|p| p.dropped));
    if summary.records == 0 {
        // Imports say nothing of records: the tables' rows are the records.
        summary.records = sum(&mut summary.tables.iter().map(|t| t.rows));
    }
    // The per-kernel table names every counter; the long form is read only without it.
    let mut counters = std::collections::BTreeSet::new();
    for table in [Table::KernelCounter, Table::Counter] {
        if !counters.is_empty() {
            break;
        }
        batches(dir, table, |b| {
            let c = b.col("counter")?;
            counters.extend((0..b.rows()).map(|i| c.text(i).to_owned()));
            Ok(())
        })?;
    }
    summary.counters = counters.into_iter().collect();
    let starts = summary.processes.iter().filter_map(|p| p.start_ns).min();
    let ends = summary.processes.iter().filter_map(|p| p.end_ns).max();
    summary.wall_ns = starts.zip(ends).map(|(s, e)| e.saturating_sub(s)).filter(|&w| w > 0);
    Ok(summary)
}

/// The `process` table's rows, and for processes it lacks, their metadata files; a process is
/// its host and pid (containers on several hosts reuse pids).
fn processes(dir: &Path) -> Result<Vec<ProcessInfo>> {
    let mut by_pid: BTreeMap<(Option<String>, u32), ProcessInfo> = BTreeMap::new();
    batches(dir, Table::Process, |b| {
        let (pid, command, backend, vendor) =
            (b.col("pid")?, b.col("command_line")?, b.col("backend")?, b.col("vendor")?);
        let (start, end, records, dropped) =
            (b.col("start_ns")?, b.col("end_ns")?, b.col("records")?, b.col("dropped")?);
        let (host, rank) = (b.col_opt("host")?, b.col_opt("rank")?);
        for i in 0..b.rows() {
            let host = host.as_ref().and_then(|h| h.opt_text(i)).map(str::to_owned);
            let p = by_pid.entry((host.clone(), pid.u64(i) as u32)).or_default();
            p.pid = pid.u64(i) as u32;
            p.host = host;
            p.command_line = command.text(i).to_owned();
            p.backend = backend.text(i).to_owned();
            p.vendor = vendor.text(i).to_owned();
            p.rank = rank.as_ref().and_then(|r| r.opt_i64(i)).map(|r| r as i32);
            p.start_ns = start.opt_i64(i).filter(|&t| t > 0);
            p.end_ns = end.opt_i64(i).filter(|&t| t > 0);
            p.records = p.records.saturating_add(records.u64(i));
            p.dropped = p.dropped.saturating_add(dropped.u64(i));
        }
        Ok(())
    })?;
    // The metadata file is completed last, at exit: where the table's row was written before
    // the totals and the end were known, the file's are the ones.
    for info in metadata_files(dir) {
        let process = by_pid.entry((info.host.clone(), info.pid)).or_insert_with(|| info.clone());
        process.records = process.records.max(info.records);
        process.dropped = process.dropped.max(info.dropped);
        process.end_ns = process.end_ns.max(info.end_ns);
    }
    Ok(by_pid.into_values().collect())
}

/// The processes the metadata files of `dir` describe (runs before the `process` table).
fn metadata_files(dir: &Path) -> Vec<ProcessInfo> {
    let mut out = Vec::new();
    for json in crate::stats::health::metadata_files(dir) {
        let text = |key: &str| json.get(format!("rocprof_rs.{key}")).and_then(|v| v.as_str()).unwrap_or("").to_owned();
        let number = |key: &str| text(key).parse::<i64>().ok().filter(|&t| t > 0);
        let Ok(pid) = text("pid").parse::<u32>() else { continue };
        out.push(ProcessInfo {
            pid,
            command_line: text("command_line"),
            backend: text("backend"),
            vendor: text("vendor"),
            host: Some(text("host")).filter(|h| !h.is_empty()),
            rank: None,
            start_ns: number("start_ns"),
            end_ns: number("end_ns"),
            records: crate::stats::health::total(&json, "records"),
            dropped: crate::stats::health::total(&json, "dropped"),
        });
    }
    out
}

/// The GPU agents, by process and agent id.
fn gpus(dir: &Path) -> Result<Vec<GpuInfo>> {
    let mut out = Vec::new();
    batches(dir, Table::Agent, |b| {
        let (pid, agent, kind, index) =
            (b.col("pid")?, b.col("agent_id")?, b.col("agent_type")?, b.col("logical_index")?);
        let (product, name, cus, memory) =
            (b.col("product_name")?, b.col("name")?, b.col("cu_count")?, b.col("local_mem_bytes")?);
        let host = b.col_opt("host")?;
        for i in 0..b.rows() {
            // Imports may not know an agent's type: every agent but a CPU may have run kernels.
            if kind.text(i).eq_ignore_ascii_case("cpu") {
                continue;
            }
            let label = [product.text(i), name.text(i)].into_iter().find(|s| !s.is_empty()).unwrap_or("GPU");
            out.push(GpuInfo {
                host: host.as_ref().and_then(|h| h.opt_text(i)).map(str::to_owned),
                pid: pid.u64(i) as u32,
                agent_id: agent.u64(i),
                index: index.i64(i) as i32,
                // A product name is the dataset's: any length, and shown in every GPU's row.
                name: crate::names::ellipsised(label, 120).into_owned(),
                compute_units: cus.u64(i) as u32,
                memory_bytes: memory.u64(i),
                ..GpuInfo::default()
            });
        }
        Ok(())
    })?;
    // One row per agent, whatever index a duplicate row gives it.
    out.sort_by(|a, b| (&a.host, a.pid, a.agent_id).cmp(&(&b.host, b.pid, b.agent_id)));
    out.dedup_by(|a, b| (&a.host, a.pid, a.agent_id) == (&b.host, b.pid, b.agent_id));
    out.sort_by(|a, b| (&a.host, a.pid, a.index, a.agent_id).cmp(&(&b.host, b.pid, b.index, b.agent_id)));
    Ok(out)
}

/// Which GPU: host (as [`Hosts`] numbers it), process, agent.
type GpuKey = (u32, u32, u64);

/// One GPU's timed dispatches so far, in order of their starts.
#[derive(Debug)]
struct Running {
    gpu: GpuKey,
    union: Union,
    first: i64,
    last: i64,
}

impl Running {
    fn new(gpu: GpuKey, start: i64, end: i64) -> Running {
        let mut running = Running { gpu, union: Union::default(), first: start, last: end };
        running.add(start, end);
        running
    }

    fn add(&mut self, start: i64, end: i64) {
        self.union.add(start, end);
        self.last = self.last.max(end);
    }

    /// (GPU, busy, span).
    fn figures(self) -> (GpuKey, i64, i64) {
        (self.gpu, self.union.length(), self.last.saturating_sub(self.first))
    }
}

/// Each GPU's dispatches, fed in any order, made its dispatch count, busy time and span.
#[derive(Debug, Default)]
pub struct BusyTimes {
    sorter: Sorter,
    dispatches: HashMap<GpuKey, u64>,
}

impl BusyTimes {
    pub fn add(&mut self, d: Dispatch) -> Result<()> {
        *self.dispatches.entry((d.host, d.pid, d.agent)).or_default() += 1;
        let Some((start, end)) = d.span else { return Ok(()) };
        let key = Key::new().u64(u64::from(d.host)).u64(u64::from(d.pid)).u64(d.agent).i64(start);
        self.sorter.push(&key.0, &end.to_le_bytes())
    }

    /// Sets the dispatches, busy time and span of each GPU in `summary`; a GPU its kernels name
    /// that the agent table lacks is added, unnamed.
    pub fn finish(self, summary: &mut Summary, hosts: &Hosts) -> Result<()> {
        let sorted = self.sorter.finish()?;
        let mut reader = sorted.reader()?;
        let mut current: Option<Running> = None;
        let mut busy: HashMap<GpuKey, (i64, i64)> = HashMap::new();
        while let Some((key, value)) = reader.next()? {
            let word = |at: usize| u64::from_be_bytes(key[at..at + 8].try_into().expect("8 bytes"));
            let gpu = (word(0) as u32, word(8) as u32, word(16));
            let start = unbiased(word(24));
            let end = i64::from_le_bytes(value[..8].try_into().expect("8 bytes"));
            match &mut current {
                Some(running) if running.gpu == gpu => running.add(start, end),
                _ => {
                    busy.extend(current.take().map(Running::figures).map(|(g, b, s)| (g, (b, s))));
                    current = Some(Running::new(gpu, start, end));
                }
            }
        }
        busy.extend(current.take().map(Running::figures).map(|(g, b, s)| (g, (b, s))));
        let mut gpus: Vec<(GpuKey, u64)> = self.dispatches.into_iter().collect();
        gpus.sort_unstable();
        for ((host, pid, agent), dispatches) in gpus {
            let host_name = hosts.name(host);
            let found =
                summary.gpus.iter().position(|g| g.host.as_deref() == host_name && g.pid == pid && g.agent_id == agent);
            let gpu = match found {
                Some(at) => &mut summary.gpus[at],
                None => {
                    summary.gpus.push(GpuInfo {
                        host: host_name.map(str::to_owned),
                        pid,
                        agent_id: agent,
                        index: -1,
                        name: format!("agent {agent}"),
                        ..GpuInfo::default()
                    });
                    summary.gpus.last_mut().expect("pushed")
                }
            };
            let (busy_ns, span_ns) = busy.get(&(host, pid, agent)).copied().unwrap_or((0, 0));
            (gpu.dispatches, gpu.busy_ns, gpu.span_ns) = (dispatches, busy_ns, span_ns);
        }
        summary.busy_known = true;
        Ok(())
    }
}
