//! Where importers put rows: the dataset's own tables, written as Parquet files exactly as the
//! tool writes them (same schemas, same encodings, the format version in the metadata), so
//! every command reads an imported dataset as it reads a traced one.

use rocprof_rs_format::Table;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use parquet::file::metadata::KeyValue;

use crate::error::Result;
use rocprof_rs_format as tables;
use rocprof_rs_format::files::WriteOptions;
use rocprof_rs_format::keys;
use rocprof_rs_format::launch::{KernelFacts, KernelLaunch};
use rocprof_rs_format::writer::{AnyTableWriter, TableWriter};

/// Rows handed to a table's writer at a time.
const BATCH_ROWS: usize = 64 * 1024;

/// One kernel dispatch as an importer knows it: the launch, and what the row takes from its
/// kernel, which an import reads from the same line rather than from a symbol table. What it
/// does not know is zero or none.
#[derive(Debug, Default)]
pub struct DispatchRow {
    pub launch: KernelLaunch,
    pub name: Arc<str>,
    /// The mangled name where the source has one apart from `name`.
    pub mangled: Option<Arc<str>>,
    pub pid: u32,
    /// The row's `regs`: an import has no registers of the launch's own.
    pub vgpr: i32,
    pub accum_vgpr: i32,
    pub sgpr: i32,
    pub kernarg: i32,
}

/// One `kernel_symbol` row.
#[derive(Debug, Default)]
pub struct SymbolRow {
    pub kernel_id: u64,
    pub code_object_id: u64,
    pub name: String,
    pub mangled: String,
    pub kernarg: u32,
    pub lds: u32,
    pub scratch: u32,
    pub sgpr: u32,
    pub vgpr: u32,
    pub accum: u32,
    pub pid: u32,
}

/// One `counter` row as an importer knows it.
#[derive(Debug, Default)]
pub struct CounterRow {
    pub dispatch_id: u64,
    pub correlation_id: u64,
    pub agent_id: u64,
    pub kernel_id: u64,
    pub kernel: Arc<str>,
    pub counter: Arc<str>,
    pub value: f64,
    pub group: u32,
    pub instances: u32,
    pub instance: Option<i32>,
    pub pid: u32,
}

/// The tables being filled.
pub struct Sink {
    pub dispatch: TableWriter<tables::KernelDispatch>,
    pub hip_api: TableWriter<tables::ApiCall>,
    pub hsa_api: TableWriter<tables::ApiCall>,
    pub rccl_api: TableWriter<tables::ApiCall>,
    pub cuda_api: TableWriter<tables::ApiCall>,
    pub copy: TableWriter<tables::MemoryCopy>,
    pub marker: TableWriter<tables::Marker>,
    pub allocation: TableWriter<tables::MemoryAllocation>,
    pub scratch: TableWriter<tables::ScratchMemory>,
    pub counter: TableWriter<tables::Counter>,
    pub agent: TableWriter<tables::Agent>,
    pub symbol: TableWriter<tables::KernelSymbol>,
    pub kernel_counter: TableWriter<tables::KernelCounter>,
    process: TableWriter<tables::Process>,
    /// No import fills it yet (rocprofv3 samples no device); held so every table is written.
    device_sample: TableWriter<tables::DeviceSample>,
    /// rocprofv3's PC sampling CSVs, aggregated as the tool aggregates them.
    pub pc_sample: TableWriter<tables::PcSample>,
    /// Imports have no windows or graph launches; the tables are there, empty, as in any dataset.
    window: TableWriter<tables::Window>,
    graph_launch: TableWriter<tables::GraphLaunch>,
    /// The PC samples read so far, summed until [`Sink::finish`].
    pub(crate) pc_sums: super::rocprofv3_pc::PcSums,
    /// Each dispatch's kernel, for the PC samples that name only their dispatch.
    pub(crate) dispatch_kernels: super::rocprofv3_pc::DispatchKernels,
    /// What the import came from, for the process rows.
    source: String,
    /// (process, agent id) of every agent rows refer to, for the agent table.
    agents: BTreeSet<(u32, u64)>,
    /// (process, agent id) of the agents the source described, which need no made-up row.
    described: BTreeSet<(u32, u64)>,
    /// [`keys::MEASURED_ROOFS`]'s value, where the source measured its machine.
    measured_roofs: Option<serde_json::Value>,
    aggregates: super::aggregate::KernelCounters,
    /// (process, dispatch id) of every dispatch row written.
    pub dispatches: std::collections::HashSet<(u32, u64)>,
    /// One shared copy of each name, so dictionary columns hold it once.
    names: std::collections::HashMap<String, std::sync::Arc<str>>,
    /// Rows written per table.
    pub rows: Vec<(Table, u64)>,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink").field("agents", &self.agents).finish()
    }
}

impl Sink {
    /// Tables under `dir`, files named `<stem>-NNNNN.parquet`, with `source` in their metadata.
    pub fn new(dir: &Path, stem: &str, source: &str) -> Result<Sink> {
        let options = WriteOptions::new(dir, stem);
        let kv = |k: &str, v: &str| KeyValue::new(k.to_owned(), v.to_owned());
        let metadata = vec![
            kv(keys::FORMAT_VERSION, tables::FORMAT_VERSION),
            kv(keys::TOOL_VERSION, env!("CARGO_PKG_VERSION")),
            kv(keys::CLOCK, "as the imported profiler recorded it (rocprofiler-sdk: CLOCK_BOOTTIME nanoseconds)"),
            kv(keys::IMPORTED_FROM, source),
        ];
        Ok(Sink {
            dispatch: TableWriter::new(&options, Table::KernelDispatch, metadata.clone()),
            hip_api: TableWriter::new(&options, Table::HipApi, metadata.clone()),
            hsa_api: TableWriter::new(&options, Table::HsaApi, metadata.clone()),
            rccl_api: TableWriter::new(&options, Table::RcclApi, metadata.clone()),
            cuda_api: TableWriter::new(&options, Table::CudaApi, metadata.clone()),
            copy: TableWriter::new(&options, Table::MemoryCopy, metadata.clone()),
            marker: TableWriter::new(&options, Table::Marker, metadata.clone()),
            allocation: TableWriter::new(&options, Table::MemoryAllocation, metadata.clone()),
            scratch: TableWriter::new(&options, Table::ScratchMemory, metadata.clone()),
            counter: TableWriter::new(&options, Table::Counter, metadata.clone()),
            agent: TableWriter::new(&options, Table::Agent, metadata.clone()),
            symbol: TableWriter::new(&options, Table::KernelSymbol, metadata.clone()),
            kernel_counter: TableWriter::new(&options, Table::KernelCounter, metadata.clone()),
            process: TableWriter::new(&options, Table::Process, metadata.clone()),
            device_sample: TableWriter::new(&options, Table::DeviceSample, metadata.clone()),
            pc_sample: TableWriter::new(&options, Table::PcSample, metadata.clone()),
            window: TableWriter::new(&options, Table::Window, metadata.clone()),
            graph_launch: TableWriter::new(&options, Table::GraphLaunch, metadata.clone()),
            pc_sums: Default::default(),
            dispatch_kernels: Default::default(),
            source: source.to_owned(),
            agents: BTreeSet::new(),
            described: BTreeSet::new(),
            measured_roofs: None,
            aggregates: Default::default(),
            dispatches: Default::default(),
            names: Default::default(),
            rows: Vec::new(),
        })
    }

    /// The shared copy of `text`.
    pub fn name(&mut self, text: &str) -> std::sync::Arc<str> {
        if let Some(name) = self.names.get(text) {
            return name.clone();
        }
        let name: std::sync::Arc<str> = text.into();
        self.names.insert(text.to_owned(), name.clone());
        name
    }

    /// Notes that rows of `pid` refer to agent `id`, so the agent table describes it.
    pub fn agent_seen(&mut self, pid: u32, id: u64) {
        self.agents.insert((pid, id));
    }

    /// Roofs measured on the machine the rows ran on, by agent id: kept in the process rows'
    /// metadata for `analyze`.
    pub fn set_measured_roofs(
        &mut self,
        source: &str,
        roofs: std::collections::BTreeMap<u64, crate::analyze::measured::Roofs>,
    ) {
        if !roofs.is_empty() {
            self.measured_roofs = Some(crate::analyze::measured::metadata_value(source, &roofs));
        }
    }

    /// Adds an agent the source describes.
    pub fn push_agent(&mut self, a: &crate::rocpd::agent::AgentRow) {
        self.described.insert((a.pid, a.agent_id));
        let t = &mut self.agent.rows;
        t.push(rocprof_rs_format::AgentRow {
            agent_id: a.agent_id,
            node_id: a.node_id,
            logical_index: a.logical_index,
            agent_type: &a.agent_type,
            name: &a.name,
            product_name: &a.product_name,
            vendor_name: &a.vendor_name,
            model_name: &a.model_name,
            gfx_target_version: a.gfx_target_version,
            cu_count: a.cu_count,
            simd_count: a.simd_count,
            simd_per_cu: a.simd_per_cu,
            wave_front_size: a.wave_front_size,
            max_waves_per_cu: a.max_waves_per_cu,
            num_xcc: a.num_xcc,
            lds_size_kb: a.lds_size_kb,
            max_engine_clock_mhz: a.max_engine_clock_mhz,
            local_mem_bytes: a.local_mem_bytes,
            device_id: a.device_id,
            pid: a.pid,
        });
    }

    /// Adds a `kernel_symbol` row.
    pub fn push_symbol(&mut self, r: &SymbolRow) {
        let t = &mut self.symbol.rows;
        t.push(rocprof_rs_format::KernelSymbolRow {
            kernel_id: r.kernel_id,
            code_object_id: r.code_object_id,
            kernel_name: &r.name,
            mangled_name: &r.mangled,
            kernarg_size: r.kernarg,
            lds_size: r.lds,
            scratch_size: r.scratch,
            sgpr: r.sgpr,
            arch_vgpr: r.vgpr,
            accum_vgpr: r.accum,
            pid: r.pid,
        });
    }

    /// Adds a `counter` row (and its share of `kernel_counter`).
    pub fn push_counter(&mut self, r: CounterRow) {
        self.agents.insert((r.pid, r.agent_id));
        let key = (r.kernel.clone(), r.agent_id, r.counter.clone(), r.group);
        self.aggregates.value(r.pid, r.dispatch_id, key, r.value);
        let c = &mut self.counter.rows;
        c.push(rocprof_rs_format::CounterRow {
            dispatch_id: r.dispatch_id,
            correlation_id: r.correlation_id,
            agent_id: r.agent_id,
            kernel_id: r.kernel_id,
            kernel_name: &r.kernel,
            counter: &r.counter,
            value: r.value,
            counter_group: r.group,
            instances: r.instances,
            instance: r.instance,
            pid: r.pid,
        });
    }

    /// Adds a `kernel_dispatch` row.
    pub fn push_dispatch(&mut self, r: DispatchRow) {
        let launch = &r.launch;
        self.agents.insert((r.pid, launch.agent_id));
        self.aggregates.dispatch(r.pid, &r.name, launch.agent_id);
        self.dispatches.insert((r.pid, launch.dispatch_id));
        let kernel = (r.name.clone(), launch.kernel_id, launch.agent_id);
        self.dispatch_kernels.insert((r.pid, launch.dispatch_id), kernel);
        let kernel = KernelFacts {
            name: &r.name,
            mangled: r.mangled.as_ref().unwrap_or(&r.name),
            vgpr: r.vgpr,
            accum_vgpr: r.accum_vgpr,
            sgpr: r.sgpr,
            kernarg_size: r.kernarg,
        };
        self.dispatch.rows.push(launch.row(kernel, r.pid, &rocprof_rs_format::vendor::AMD));
    }

    /// Writes tables that have a batch's worth of rows.
    pub fn write_full(&mut self) -> Result<()> {
        self.write(BATCH_ROWS)
    }

    fn write(&mut self, at_least: usize) -> Result<()> {
        let mut written = Vec::new();
        for writer in self.writers_mut() {
            let rows = writer.write_if(at_least, &Vec::new)?;
            if rows > 0 {
                written.push((writer.table(), rows));
            }
        }
        for (table, rows) in written {
            match self.rows.iter_mut().find(|(t, _)| *t == table) {
                Some((_, n)) => *n += rows,
                None => self.rows.push((table, rows)),
            }
        }
        Ok(())
    }

    /// Every table, in the order the import's report lists them.
    fn writers_mut(&mut self) -> [&mut dyn AnyTableWriter; 18] {
        [
            &mut self.dispatch,
            &mut self.hip_api,
            &mut self.hsa_api,
            &mut self.rccl_api,
            &mut self.cuda_api,
            &mut self.copy,
            &mut self.marker,
            &mut self.allocation,
            &mut self.scratch,
            &mut self.counter,
            &mut self.agent,
            &mut self.symbol,
            &mut self.kernel_counter,
            &mut self.process,
            &mut self.device_sample,
            &mut self.pc_sample,
            &mut self.window,
            &mut self.graph_launch,
        ]
    }

    /// A row per process the rows came from: all an import knows of it is its id and the
    /// source (no host, rank, command line or clocks).
    fn push_processes(&mut self) {
        let pids: BTreeSet<u32> = self.agents.iter().chain(&self.described).map(|&(pid, _)| pid).collect();
        let mut metadata = serde_json::json!({ keys::IMPORTED_FROM: self.source });
        if let Some(roofs) = &self.measured_roofs {
            metadata[keys::MEASURED_ROOFS] = roofs.clone();
        }
        let metadata = metadata.to_string();
        for pid in pids {
            self.process.rows.push(rocprof_rs_format::ProcessRow {
                pid,
                command_line: "",
                tool_version: env!("CARGO_PKG_VERSION"),
                format_version: tables::FORMAT_VERSION,
                backend: "import",
                vendor: "",
                start_ns: 0,
                end_ns: 0,
                start_unix_ns: 0,
                records: 0,
                dropped: 0,
                metadata: &metadata,
            });
        }
    }

    /// Adds an agent row for every agent referred to and not described (its name is all the
    /// source said: `Agent N`), the kernel-counter aggregates, writes everything and completes
    /// the files.
    pub fn finish(mut self) -> Result<Vec<(Table, u64)>> {
        std::mem::take(&mut self.aggregates).finish(&mut self.kernel_counter.rows);
        std::mem::take(&mut self.pc_sums).finish(&mut self.pc_sample.rows);
        self.push_processes();
        let undescribed: Vec<(u32, u64)> = self.agents.difference(&self.described).copied().collect();
        for (pid, id) in undescribed {
            let t = &mut self.agent.rows;
            t.push(rocprof_rs_format::AgentRow {
                agent_id: id,
                node_id: id as u32,
                logical_index: -1,
                agent_type: "UNKNOWN",
                name: &format!("Agent {id}"),
                product_name: "",
                vendor_name: "",
                model_name: "",
                gfx_target_version: 0,
                cu_count: 0,
                simd_count: 0,
                simd_per_cu: 0,
                wave_front_size: 0,
                max_waves_per_cu: 0,
                num_xcc: 0,
                lds_size_kb: 0,
                max_engine_clock_mhz: 0,
                local_mem_bytes: 0,
                device_id: 0,
                pid,
            });
        }
        self.write(1)?;
        for writer in self.writers_mut() {
            writer.files_mut().close(Vec::new())?;
        }
        Ok(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sink_writes_every_table_of_the_format() {
        let dir = std::env::temp_dir().join(format!("rocprof-rs-sink-tables-{}", std::process::id()));
        let mut sink = Sink::new(&dir, "t", "a test").unwrap();
        let mut held: Vec<Table> = sink.writers_mut().iter().map(|w| w.table()).collect();
        held.sort();
        assert_eq!(held, Table::ALL, "a table of the format the importers cannot fill");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
