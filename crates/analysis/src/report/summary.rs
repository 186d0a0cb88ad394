//! The report's summary: the run's processes, its GPUs and how busy each was, its wall time,
//! and what it collected and lost.
//!
//! Processes come from the `process` table (imports and runs since format 3) or, for older
//! runs, from their metadata files. A GPU's busy time is the union of its kernels' intervals:
//! the dispatches go through the external sort ([`crate::spill`]) in order of their starts, so
//! memory stays bounded on any trace.

use std::collections::BTreeMap;
use std::path::Path;

use rocprof_rs_format::Table;
use rocprof_rs_format::input::{JSON_LIMIT, read_text};
use rocprof_rs_format::keys::METADATA_FILE_SUFFIX;
use serde::Serialize;

use crate::error::Result;
use crate::ranks::intervals::Union;
use crate::read::batches;
use crate::spill::{Key, Sorter};

/// One process of the run.
#[derive(Debug, Clone, Default, Serialize)]
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
#[derive(Debug, Clone, Default, Serialize)]
pub struct GpuInfo {
    pub pid: u32,
    pub agent_id: u64,
    /// The agent's logical index among the process's agents (the SDK's, or CUDA's ordinal).
    pub index: i32,
    pub name: String,
    pub compute_units: u32,
    pub memory_bytes: u64,
    pub dispatches: u64,
    /// The union of its kernels' intervals.
    pub busy_ns: i64,
    /// From its first kernel's start to its last kernel's end.
    pub span_ns: i64,
}

/// One table's rows.
#[derive(Debug, Clone, Serialize)]
pub struct TableRows {
    pub table: &'static str,
    pub rows: u64,
}

/// The summary section.
#[derive(Debug, Clone, Default, Serialize)]
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
}

impl Summary {
    /// Every GPU's busy time, summed.
    pub fn gpu_busy_ns(&self) -> i64 {
        self.gpus.iter().map(|g| g.busy_ns).sum()
    }

    pub fn dispatches(&self) -> u64 {
        self.gpus.iter().map(|g| g.dispatches).sum()
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
            rows +=
                crate::stats::footer(path)?.metadata().row_groups().iter().map(|g| g.num_rows() as u64).sum::<u64>();
        }
        if rows > 0 {
            summary.tables.push(TableRows { table: table.name(), rows });
        }
    }
    summary.records = summary.processes.iter().map(|p| p.records).sum();
    summary.dropped = summary.processes.iter().map(|p| p.dropped).sum();
    if summary.records == 0 {
        // Imports say nothing of records: the tables' rows are the records.
        summary.records = summary.tables.iter().map(|t| t.rows).sum();
    }
    let mut counters = std::collections::BTreeSet::new();
    batches(dir, Table::KernelCounter, |b| {
        let c = b.col("counter")?;
        (0..b.rows()).for_each(|i| {
            counters.insert(c.text(i).to_owned());
        });
        Ok(())
    })?;
    if counters.is_empty() {
        batches(dir, Table::Counter, |b| {
            let c = b.col("counter")?;
            (0..b.rows()).for_each(|i| {
                counters.insert(c.text(i).to_owned());
            });
            Ok(())
        })?;
    }
    summary.counters = counters.into_iter().collect();
    let starts = summary.processes.iter().filter_map(|p| p.start_ns).min();
    let ends = summary.processes.iter().filter_map(|p| p.end_ns).max();
    summary.wall_ns = starts.zip(ends).map(|(s, e)| e - s).filter(|&w| w > 0);
    Ok(summary)
}

/// The `process` table's rows, and for processes it lacks, their metadata files.
fn processes(dir: &Path) -> Result<Vec<ProcessInfo>> {
    let mut by_pid: BTreeMap<u32, ProcessInfo> = BTreeMap::new();
    batches(dir, Table::Process, |b| {
        let (pid, command, backend, vendor) =
            (b.col("pid")?, b.col("command_line")?, b.col("backend")?, b.col("vendor")?);
        let (start, end, records, dropped) =
            (b.col("start_ns")?, b.col("end_ns")?, b.col("records")?, b.col("dropped")?);
        let (host, rank) = (b.col_opt("host")?, b.col_opt("rank")?);
        for i in 0..b.rows() {
            let p = by_pid.entry(pid.u64(i) as u32).or_default();
            p.pid = pid.u64(i) as u32;
            p.command_line = command.text(i).to_owned();
            p.backend = backend.text(i).to_owned();
            p.vendor = vendor.text(i).to_owned();
            p.host = host.as_ref().and_then(|h| h.opt_text(i)).map(str::to_owned);
            p.rank = rank.as_ref().and_then(|r| r.opt_i64(i)).map(|r| r as i32);
            p.start_ns = start.opt_i64(i).filter(|&t| t > 0);
            p.end_ns = end.opt_i64(i).filter(|&t| t > 0);
            p.records += records.u64(i);
            p.dropped += dropped.u64(i);
        }
        Ok(())
    })?;
    // The metadata file is completed last, at exit: where the table's row was written before
    // the totals were known, the file's are the ones.
    for (pid, info) in metadata_files(dir) {
        let process = by_pid.entry(pid).or_insert_with(|| info.clone());
        process.records = process.records.max(info.records);
        process.dropped = process.dropped.max(info.dropped);
    }
    Ok(by_pid.into_values().collect())
}

/// The processes the metadata files of `dir` describe (runs before the `process` table).
fn metadata_files(dir: &Path) -> Vec<(u32, ProcessInfo)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(METADATA_FILE_SUFFIX) || name.starts_with('.') {
            continue;
        }
        let Some(json) = read_text(&entry.path(), JSON_LIMIT)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        else {
            continue;
        };
        let text = |key: &str| json.get(format!("rocprof_rs.{key}")).and_then(|v| v.as_str()).unwrap_or("").to_owned();
        let number = |key: &str| text(key).parse::<i64>().ok().filter(|&t| t > 0);
        let sum = |key: &str| {
            json.get(key).and_then(|v| v.as_object()).map_or(0, |o| o.values().filter_map(|v| v.as_u64()).sum::<u64>())
        };
        let Ok(pid) = text("pid").parse::<u32>() else { continue };
        out.push((
            pid,
            ProcessInfo {
                pid,
                command_line: text("command_line"),
                backend: text("backend"),
                vendor: text("vendor"),
                host: None,
                rank: None,
                start_ns: number("start_ns"),
                end_ns: number("end_ns"),
                records: sum("records"),
                dropped: sum("dropped"),
            },
        ));
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
        for i in 0..b.rows() {
            // Imports may not know an agent's type: every agent but a CPU may have run kernels.
            if kind.text(i).eq_ignore_ascii_case("cpu") {
                continue;
            }
            let label = [product.text(i), name.text(i)].into_iter().find(|s| !s.is_empty()).unwrap_or("GPU");
            out.push(GpuInfo {
                pid: pid.u64(i) as u32,
                agent_id: agent.u64(i),
                index: index.i64(i) as i32,
                name: label.to_owned(),
                compute_units: cus.u64(i) as u32,
                memory_bytes: memory.u64(i),
                ..GpuInfo::default()
            });
        }
        Ok(())
    })?;
    out.sort_by_key(|g| (g.pid, g.index, g.agent_id));
    out.dedup_by_key(|g| (g.pid, g.agent_id));
    Ok(out)
}

/// One GPU's dispatches so far, in order of their starts.
#[derive(Debug)]
struct Running {
    gpu: (u32, u64),
    union: Union,
    first: i64,
    last: i64,
    dispatches: u64,
}

impl Running {
    fn new(gpu: (u32, u64), start: i64, end: i64) -> Running {
        let mut running = Running { gpu, union: Union::default(), first: start, last: end, dispatches: 0 };
        running.add(start, end);
        running
    }

    fn add(&mut self, start: i64, end: i64) {
        self.union.add(start, end);
        self.last = self.last.max(end);
        self.dispatches += 1;
    }

    /// (GPU, busy, span, dispatches).
    fn figures(self) -> ((u32, u64), i64, i64, u64) {
        (self.gpu, self.union.length(), self.last - self.first, self.dispatches)
    }
}

/// Each GPU's dispatches, fed in any order, made its busy time and span.
#[derive(Debug, Default)]
pub struct BusyTimes {
    sorter: Sorter,
}

impl BusyTimes {
    pub fn add(&mut self, pid: u32, agent: u64, start: i64, end: i64) -> Result<()> {
        // Starts are made unsigned with their order kept: flip the sign bit.
        let key = Key::new().u64(u64::from(pid)).u64(agent).u64((start as u64) ^ (1 << 63));
        self.sorter.push(&key.0, &end.to_le_bytes())
    }

    /// Sets the busy time, span and dispatches of each GPU in `summary`; a GPU its kernels name
    /// that the agent table lacks is added, unnamed.
    pub fn finish(self, summary: &mut Summary) -> Result<()> {
        let sorted = self.sorter.finish()?;
        let mut reader = sorted.reader()?;
        let mut current: Option<Running> = None;
        let mut done: Vec<((u32, u64), i64, i64, u64)> = Vec::new();
        while let Some((key, value)) = reader.next()? {
            let word = |at: usize| u64::from_be_bytes(key[at..at + 8].try_into().expect("8 bytes"));
            let gpu = (word(0) as u32, word(8));
            let start = (word(16) ^ (1 << 63)) as i64;
            let end = i64::from_le_bytes(value[..8].try_into().expect("8 bytes"));
            match &mut current {
                Some(running) if running.gpu == gpu => running.add(start, end),
                _ => {
                    done.extend(current.take().map(Running::figures));
                    current = Some(Running::new(gpu, start, end));
                }
            }
        }
        done.extend(current.take().map(Running::figures));
        for ((pid, agent), busy, span, dispatches) in done {
            let gpu = match summary.gpus.iter_mut().find(|g| g.pid == pid && g.agent_id == agent) {
                Some(gpu) => gpu,
                None => {
                    summary.gpus.push(GpuInfo {
                        pid,
                        agent_id: agent,
                        index: -1,
                        name: format!("agent {agent}"),
                        ..GpuInfo::default()
                    });
                    summary.gpus.last_mut().expect("pushed")
                }
            };
            gpu.busy_ns = busy;
            gpu.span_ns = span;
            gpu.dispatches = dispatches;
        }
        Ok(())
    }
}
