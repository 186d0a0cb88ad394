//! Where importers put rows: the dataset's own tables, written as Parquet files exactly as the
//! tool writes them (same schemas, same encodings, the format version in the metadata), so
//! every command reads an imported dataset as it reads a traced one.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use parquet::file::metadata::KeyValue;

use crate::config::{Config, Placeholders};
use crate::error::{Error, Result};
use crate::tables::files::TableFiles;
use crate::tables::{self};

/// Rows handed to a table's writer at a time.
const BATCH_ROWS: usize = 64 * 1024;

/// One kernel dispatch as an importer knows it; what it does not know is zero or none.
#[derive(Debug, Default)]
pub struct DispatchRow {
    pub name: std::sync::Arc<str>,
    pub start_ns: i64,
    pub end_ns: i64,
    pub grid: [i64; 3],
    pub workgroup: [i32; 3],
    pub vgpr: i32,
    pub lds: i32,
    pub stream: Option<i32>,
    pub dispatch_id: u64,
    pub correlation_id: u64,
    pub kernel_id: u64,
    pub agent_id: u64,
    pub queue_id: u64,
    pub thread_id: u64,
    pub pid: u32,
    pub accum_vgpr: i32,
    pub sgpr: i32,
    pub scratch: i32,
    /// The mangled name where the source has one apart from `name`.
    pub mangled: Option<Arc<str>>,
    pub external_id: u64,
    pub kernarg: i32,
    pub pipe: Option<i32>,
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
    pub dispatch: (tables::KernelDispatch, TableFiles),
    pub hip_api: (tables::ApiCall, TableFiles),
    pub hsa_api: (tables::ApiCall, TableFiles),
    pub rccl_api: (tables::ApiCall, TableFiles),
    pub copy: (tables::MemoryCopy, TableFiles),
    pub marker: (tables::Marker, TableFiles),
    pub allocation: (tables::MemoryAllocation, TableFiles),
    pub scratch: (tables::ScratchMemory, TableFiles),
    pub counter: (tables::Counter, TableFiles),
    pub agent: (tables::Agent, TableFiles),
    pub symbol: (tables::KernelSymbol, TableFiles),
    pub kernel_counter: (tables::KernelCounter, TableFiles),
    /// (process, agent id) of every agent rows refer to, for the agent table.
    agents: BTreeSet<(u32, u64)>,
    /// (process, agent id) of the agents the source described, which need no made-up row.
    described: BTreeSet<(u32, u64)>,
    aggregates: super::aggregate::KernelCounters,
    /// (process, dispatch id) of every dispatch row written.
    pub dispatches: std::collections::HashSet<(u32, u64)>,
    /// One shared copy of each name, so dictionary columns hold it once.
    names: std::collections::HashMap<String, std::sync::Arc<str>>,
    /// Rows written per table.
    pub rows: Vec<(&'static str, u64)>,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink").field("agents", &self.agents).finish()
    }
}

macro_rules! each_table {
    ($self:ident, $m:ident) => {
        $m!($self.dispatch, "kernel_dispatch");
        $m!($self.hip_api, "hip_api");
        $m!($self.hsa_api, "hsa_api");
        $m!($self.rccl_api, "rccl_api");
        $m!($self.copy, "memory_copy");
        $m!($self.marker, "marker");
        $m!($self.allocation, "memory_allocation");
        $m!($self.scratch, "scratch_memory");
        $m!($self.counter, "counter");
        $m!($self.agent, "agent");
        $m!($self.symbol, "kernel_symbol");
        $m!($self.kernel_counter, "kernel_counter");
    };
}

impl Sink {
    /// Tables under `dir`, files named `<stem>-NNNNN.parquet`, with `source` in their metadata.
    pub fn new(dir: &Path, stem: &str, source: &str) -> Result<Sink> {
        let vars = [
            (crate::config::OUTPUT_DIR.to_owned(), dir.display().to_string()),
            (crate::config::OUTPUT_NAME.to_owned(), stem.to_owned()),
        ]
        .into_iter()
        .collect();
        let placeholders = Placeholders::of_this_process(&vars);
        let config = Config::from_vars(&vars, &placeholders)?;
        let kv = |k: &str, v: &str| KeyValue::new(format!("rocprof_rs.{k}"), v.to_owned());
        let metadata = vec![
            kv("format_version", tables::FORMAT_VERSION),
            kv("tool_version", env!("CARGO_PKG_VERSION")),
            kv("clock", "as the imported profiler recorded it (rocprofiler-sdk: CLOCK_BOOTTIME nanoseconds)"),
            kv("imported_from", source),
        ];
        let files = |name: &str, schema| TableFiles::new(&config, name, schema, metadata.clone());
        Ok(Sink {
            dispatch: (Default::default(), files("kernel_dispatch", tables::KernelDispatch::schema())),
            hip_api: (Default::default(), files("hip_api", tables::ApiCall::schema())),
            hsa_api: (Default::default(), files("hsa_api", tables::ApiCall::schema())),
            rccl_api: (Default::default(), files("rccl_api", tables::ApiCall::schema())),
            copy: (Default::default(), files("memory_copy", tables::MemoryCopy::schema())),
            marker: (Default::default(), files("marker", tables::Marker::schema())),
            allocation: (Default::default(), files("memory_allocation", tables::MemoryAllocation::schema())),
            scratch: (Default::default(), files("scratch_memory", tables::ScratchMemory::schema())),
            counter: (Default::default(), files("counter", tables::Counter::schema())),
            agent: (Default::default(), files("agent", tables::Agent::schema())),
            symbol: (Default::default(), files("kernel_symbol", tables::KernelSymbol::schema())),
            kernel_counter: (Default::default(), files("kernel_counter", tables::KernelCounter::schema())),
            agents: BTreeSet::new(),
            described: BTreeSet::new(),
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

    /// Adds an agent the source describes.
    pub fn push_agent(&mut self, a: &crate::rocpd::agent::AgentRow) {
        use crate::tables::columns::Column as _;
        self.described.insert((a.pid, a.agent_id));
        let t = &mut self.agent.0;
        t.agent_id.push(a.agent_id);
        t.node_id.push(a.node_id);
        t.logical_index.push(a.logical_index);
        t.agent_type.push(&a.agent_type);
        t.name.push(&a.name);
        t.product_name.push(&a.product_name);
        t.vendor_name.push(&a.vendor_name);
        t.model_name.push(&a.model_name);
        t.gfx_target_version.push(a.gfx_target_version);
        t.cu_count.push(a.cu_count);
        t.simd_count.push(a.simd_count);
        t.simd_per_cu.push(a.simd_per_cu);
        t.wave_front_size.push(a.wave_front_size);
        t.max_waves_per_cu.push(a.max_waves_per_cu);
        t.num_xcc.push(a.num_xcc);
        t.lds_size_kb.push(a.lds_size_kb);
        t.max_engine_clock_mhz.push(a.max_engine_clock_mhz);
        t.local_mem_bytes.push(a.local_mem_bytes);
        t.device_id.push(a.device_id);
        t.pid.push(a.pid);
        t.end_row();
    }

    /// Adds a `kernel_symbol` row.
    pub fn push_symbol(&mut self, r: &SymbolRow) {
        use crate::tables::columns::Column as _;
        let t = &mut self.symbol.0;
        t.kernel_id.push(r.kernel_id);
        t.code_object_id.push(r.code_object_id);
        t.kernel_name.push(&r.name);
        t.mangled_name.push(&r.mangled);
        t.kernarg_size.push(r.kernarg);
        t.lds_size.push(r.lds);
        t.scratch_size.push(r.scratch);
        t.sgpr.push(r.sgpr);
        t.arch_vgpr.push(r.vgpr);
        t.accum_vgpr.push(r.accum);
        t.pid.push(r.pid);
        t.end_row();
    }

    /// Adds a `counter` row (and its share of `kernel_counter`).
    pub fn push_counter(&mut self, r: CounterRow) {
        use crate::tables::columns::Column as _;
        self.agents.insert((r.pid, r.agent_id));
        let key = (r.kernel.clone(), r.agent_id, r.counter.clone(), r.group);
        self.aggregates.value(r.pid, r.dispatch_id, key, r.value);
        let c = &mut self.counter.0;
        c.dispatch_id.push(r.dispatch_id);
        c.correlation_id.push(r.correlation_id);
        c.agent_id.push(r.agent_id);
        c.kernel_id.push(r.kernel_id);
        c.kernel_name.push(&r.kernel);
        c.counter.push(&r.counter);
        c.value.push(r.value);
        c.counter_group.push(r.group);
        c.instances.push(r.instances);
        c.instance.push(r.instance);
        c.pid.push(r.pid);
        c.end_row();
    }

    /// Adds a `kernel_dispatch` row.
    pub fn push_dispatch(&mut self, r: DispatchRow) {
        use crate::tables::columns::Column as _;
        self.agents.insert((r.pid, r.agent_id));
        self.aggregates.dispatch(r.pid, &r.name, r.agent_id);
        self.dispatches.insert((r.pid, r.dispatch_id));
        let d = &mut self.dispatch.0;
        d.kernel_name.push(&r.name);
        d.start_ns.push(r.start_ns);
        d.duration_ns.push(r.end_ns - r.start_ns);
        d.grid_x.push(r.grid[0]);
        d.grid_y.push(r.grid[1]);
        d.grid_z.push(r.grid[2]);
        d.block_x.push(r.workgroup[0]);
        d.block_y.push(r.workgroup[1]);
        d.block_z.push(r.workgroup[2]);
        d.regs.push(r.vgpr);
        d.shared_mem.push(r.lds);
        d.stream_id.push(r.stream);
        d.end_ns.push(r.end_ns);
        d.dispatch_id.push(r.dispatch_id);
        d.correlation_id.push(r.correlation_id);
        d.external_id.push(r.external_id);
        d.kernel_id.push(r.kernel_id);
        d.agent_id.push(r.agent_id);
        d.queue_id.push(r.queue_id);
        d.thread_id.push(r.thread_id);
        d.pid.push(r.pid);
        d.mangled_name.push(r.mangled.as_ref().unwrap_or(&r.name));
        d.accum_vgpr.push(r.accum_vgpr);
        d.sgpr.push(r.sgpr);
        d.scratch_size.push(r.scratch);
        d.kernarg_size.push(r.kernarg);
        d.pipe_id.push(r.pipe);
        d.vendor.push(&crate::tables::vendor::AMD);
        d.graph_id.push(0);
        d.graph_node_id.push(0);
        d.cluster_x.push(0);
        d.cluster_y.push(0);
        d.cluster_z.push(0);
        d.end_row();
    }

    /// Writes tables that have a batch's worth of rows.
    pub fn write_full(&mut self) -> Result<()> {
        self.write(BATCH_ROWS)
    }

    fn write(&mut self, at_least: usize) -> Result<()> {
        macro_rules! write_one {
            ($t:expr, $name:literal) => {
                if $t.0.len() >= at_least {
                    let rows = $t.0.len() as u64;
                    let batch = RecordBatch::try_new($t.1.schema(), $t.0.finish())
                        .map_err(|e| Error::Io { path: $name.into(), source: std::io::Error::other(e) })?;
                    $t.1.write(&batch, Vec::new)?;
                    match self.rows.iter_mut().find(|(n, _)| *n == $name) {
                        Some((_, n)) => *n += rows,
                        None => self.rows.push(($name, rows)),
                    }
                }
            };
        }
        each_table!(self, write_one);
        Ok(())
    }

    /// Adds an agent row for every agent referred to and not described (its name is all the
    /// source said: `Agent N`), the kernel-counter aggregates, writes everything and completes
    /// the files.
    pub fn finish(mut self) -> Result<Vec<(&'static str, u64)>> {
        std::mem::take(&mut self.aggregates).finish(&mut self.kernel_counter.0);
        let undescribed: Vec<(u32, u64)> = self.agents.difference(&self.described).copied().collect();
        for (pid, id) in undescribed {
            let t = &mut self.agent.0;
            use crate::tables::columns::Column as _;
            t.agent_id.push(id);
            t.node_id.push(id as u32);
            t.logical_index.push(-1);
            t.agent_type.push("UNKNOWN");
            t.name.push(&format!("Agent {id}"));
            t.product_name.push("");
            t.vendor_name.push("");
            t.model_name.push("");
            t.gfx_target_version.push(0);
            t.cu_count.push(0);
            t.simd_count.push(0);
            t.simd_per_cu.push(0);
            t.wave_front_size.push(0);
            t.max_waves_per_cu.push(0);
            t.num_xcc.push(0);
            t.lds_size_kb.push(0);
            t.max_engine_clock_mhz.push(0);
            t.local_mem_bytes.push(0);
            t.device_id.push(0);
            t.pid.push(pid);
            t.end_row();
        }
        self.write(1)?;
        macro_rules! close {
            ($t:expr, $name:literal) => {
                $t.1.close(Vec::new())?;
            };
        }
        each_table!(self, close);
        Ok(self.rows)
    }
}
