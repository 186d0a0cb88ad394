//! Where importers put rows: the dataset's own tables, written as Parquet files exactly as the
//! tool writes them (same schemas, same encodings, the format version in the metadata), so
//! every command reads an imported dataset as it reads a traced one.

use std::collections::BTreeSet;
use std::path::Path;

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
}

/// The tables being filled.
pub struct Sink {
    pub dispatch: (tables::KernelDispatch, TableFiles),
    pub hip_api: (tables::ApiCall, TableFiles),
    pub hsa_api: (tables::ApiCall, TableFiles),
    pub copy: (tables::MemoryCopy, TableFiles),
    pub marker: (tables::Marker, TableFiles),
    pub allocation: (tables::MemoryAllocation, TableFiles),
    pub scratch: (tables::ScratchMemory, TableFiles),
    pub counter: (tables::Counter, TableFiles),
    pub agent: (tables::Agent, TableFiles),
    /// Agent ids seen, for the agent table.
    pub agents: BTreeSet<u64>,
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
        $m!($self.copy, "memory_copy");
        $m!($self.marker, "marker");
        $m!($self.allocation, "memory_allocation");
        $m!($self.scratch, "scratch_memory");
        $m!($self.counter, "counter");
        $m!($self.agent, "agent");
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
            copy: (Default::default(), files("memory_copy", tables::MemoryCopy::schema())),
            marker: (Default::default(), files("marker", tables::Marker::schema())),
            allocation: (Default::default(), files("memory_allocation", tables::MemoryAllocation::schema())),
            scratch: (Default::default(), files("scratch_memory", tables::ScratchMemory::schema())),
            counter: (Default::default(), files("counter", tables::Counter::schema())),
            agent: (Default::default(), files("agent", tables::Agent::schema())),
            agents: BTreeSet::new(),
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

    /// Adds a `kernel_dispatch` row.
    pub fn push_dispatch(&mut self, r: DispatchRow) {
        use crate::tables::columns::Column as _;
        self.agents.insert(r.agent_id);
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
        d.external_id.push(0);
        d.kernel_id.push(r.kernel_id);
        d.agent_id.push(r.agent_id);
        d.queue_id.push(r.queue_id);
        d.thread_id.push(r.thread_id);
        d.pid.push(r.pid);
        d.mangled_name.push(&r.name);
        d.accum_vgpr.push(r.accum_vgpr);
        d.sgpr.push(r.sgpr);
        d.scratch_size.push(r.scratch);
        d.kernarg_size.push(0);
        d.pipe_id.push(None);
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

    /// Adds the agent rows, writes everything and completes the files.
    pub fn finish(mut self) -> Result<Vec<(&'static str, u64)>> {
        let pid = 0;
        for &id in &self.agents {
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
