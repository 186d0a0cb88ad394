//! rocprof-rs's on-disk format. The tables: one folder of Parquet files per table, each table's columns declared
//! once here. These schemas are the format; [`FORMAT_VERSION`] changes whenever one does.
//!
//! Conventions, for every table:
//! - timestamps (`*_ns`) are the SDK's: CLOCK_BOOTTIME nanoseconds, as `int64`;
//! - ids (`*_id`) are the SDK's 64-bit handles and counters, as `uint64`; `agent_id` is the
//!   SDK's agent handle, and the `agent` table maps it to node ids and names;
//! - `pid` is the profiled process, so datasets from many processes can be read as one;
//! - every table ends with `host`, `rank`, `local_rank` and `world_size` ([`origin`]): the
//!   process's host and its place in a distributed job, null where no launcher said (format 3;
//!   files of formats 1 and 2 lack them);
//! - `vendor` says which backend wrote the row (`amd`: rocprofiler-sdk, `nvidia`: CUPTI), in
//!   the tables both backends fill. Format 1 files have no such column and are AMD's.
//!
//! One schema serves both vendors, so stats, analysis and exports need no second code path.
//! Where CUDA has a concept AMD lacks (graphs, clusters, streams, memset), the column is
//! added for both and AMD rows hold its neutral value; where the two name one thing
//! differently, the table keeps AMD's meaning: `grid_*` is in work-items, so a CUDA row's
//! grid is `gridDim * blockDim`, and blocks are `grid_x / block_x`.

pub mod chunk;
pub mod columns;
pub mod dataset;
pub mod device;
pub mod encoding;
pub mod error;
pub mod exports;
pub mod files;
pub mod footer;
pub mod input;
pub mod kernel_names;
pub mod keys;
pub mod launch;
pub mod origin;
pub mod panic;
pub mod pc_sample;
pub mod publish;
pub mod read;
pub mod terminal;
pub mod writer;

pub use error::{Error, Result};

use columns::columns;

/// The version of the on-disk format, written into every file's key-value metadata.
pub const FORMAT_VERSION: &str = "3";

/// The `vendor` column's values, one shared string each so a dictionary column holds one key.
pub mod vendor {
    use std::sync::{Arc, LazyLock};

    /// Rows from rocprofiler-sdk (and from imports of AMD tools' outputs).
    pub static AMD: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("amd"));
    /// Rows from CUPTI.
    pub static NVIDIA: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("nvidia"));
}

columns! {
    /// `kernel_dispatch`: one row per kernel dispatch. The first twelve columns are the
    /// original kernel schema; grid sizes are in work-items as the SDK reports them, so they are 64-bit.
    /// `stream_id` is CUDA's stream (null on AMD, where `queue_id` is the queue); `graph_id` and
    /// `graph_node_id` name the CUDA graph a kernel was replayed from (0 otherwise); `cluster_*`
    /// is a Hopper thread-block cluster's shape in blocks (0 without clusters, and on AMD).
    KernelDispatch / KernelDispatchRow {
        kernel_name: Dict,
        start_ns: I64,
        duration_ns: I64,
        grid_x: I64,
        grid_y: I64,
        grid_z: I64,
        block_x: I32,
        block_y: I32,
        block_z: I32,
        regs: I32,
        shared_mem: I32,
        stream_id: SameOptI32,
        end_ns: I64,
        dispatch_id: U64,
        correlation_id: U64,
        external_id: SameU64,
        kernel_id: U64,
        agent_id: U64,
        queue_id: U64,
        thread_id: U64,
        pid: SameU32,
        mangled_name: Dict,
        accum_vgpr: I32,
        sgpr: I32,
        scratch_size: I32,
        kernarg_size: I32,
        pipe_id: SameOptI32,
        vendor: Dict,
        graph_id: SameU32,
        graph_node_id: SameU64,
        cluster_x: SameI32,
        cluster_y: SameI32,
        cluster_z: SameI32,
    }
}

columns! {
    /// `hip_api`, `hsa_api`, `rccl_api` and `cuda_api`: one row per API call, named by the SDK
    /// (CUDA: the launch calls CUPTI's callbacks report, named without their `_vNNNN` suffix).
    ApiCall / ApiCallRow {
        operation: Dict,
        start_ns: I64,
        end_ns: I64,
        duration_ns: I64,
        correlation_id: U64,
        ancestor_id: U64,
        thread_id: U64,
        pid: SameU32,
    }
}

columns! {
    /// `memory_copy`: one row per asynchronous copy; on NVIDIA, memsets too (`MEMORY_SET`,
    /// `bytes` set), as nsys counts them among memory operations. `stream_id` is CUDA's.
    MemoryCopy / MemoryCopyRow {
        operation: Str,
        start_ns: I64,
        end_ns: I64,
        duration_ns: I64,
        bytes: U64,
        src_agent_id: U64,
        dst_agent_id: U64,
        src_address: U64,
        dst_address: U64,
        correlation_id: U64,
        thread_id: U64,
        pid: SameU32,
        vendor: Dict,
        stream_id: OptI32,
    }
}

columns! {
    /// `scratch_memory`: scratch allocations, frees and reclaims.
    ScratchMemory / ScratchMemoryRow {
        operation: Str,
        start_ns: I64,
        end_ns: I64,
        duration_ns: I64,
        bytes: U64,
        flags: U32,
        agent_id: U64,
        queue_id: U64,
        correlation_id: U64,
        thread_id: U64,
        pid: SameU32,
    }
}

columns! {
    /// `memory_allocation`: device allocations and frees.
    MemoryAllocation / MemoryAllocationRow {
        operation: Str,
        start_ns: I64,
        end_ns: I64,
        duration_ns: I64,
        address: U64,
        bytes: U64,
        agent_id: U64,
        correlation_id: U64,
        thread_id: U64,
        pid: SameU32,
    }
}

columns! {
    /// `marker`: ROCTx and NVTX marks and ranges with their messages. Times are taken when the
    /// range opens and closes; `depth` is the thread-range nesting level (0 = outermost).
    /// `domain` is an NVTX domain's name (null for ROCTx and NVTX's default domain).
    Marker / MarkerRow {
        message: Str,
        operation: Str,
        start_ns: I64,
        end_ns: I64,
        duration_ns: I64,
        depth: OptI32,
        correlation_id: U64,
        thread_id: U64,
        pid: SameU32,
        vendor: Dict,
        domain: OptStr,
    }
}

columns! {
    /// `kernel_symbol`: each kernel the runtime registered, with its static resource use.
    KernelSymbol / KernelSymbolRow {
        kernel_id: U64,
        code_object_id: U64,
        kernel_name: Str,
        mangled_name: Str,
        kernarg_size: U32,
        lds_size: U32,
        scratch_size: U32,
        sgpr: U32,
        arch_vgpr: U32,
        accum_vgpr: U32,
        pid: SameU32,
    }
}

columns! {
    /// `agent`: one row per CPU or GPU agent the SDK reported.
    Agent / AgentRow {
        agent_id: U64,
        node_id: U32,
        logical_index: I32,
        agent_type: Str,
        name: Str,
        product_name: Str,
        vendor_name: Str,
        model_name: Str,
        gfx_target_version: U32,
        cu_count: U32,
        simd_count: U32,
        simd_per_cu: U32,
        wave_front_size: U32,
        max_waves_per_cu: U32,
        num_xcc: U32,
        lds_size_kb: U32,
        max_engine_clock_mhz: U32,
        local_mem_bytes: U64,
        device_id: U32,
        pid: SameU32,
    }
}

columns! {
    /// `counter`: hardware counter values in long form, one row per counted dispatch and
    /// counter (the sum over the counter's hardware instances), or per instance when
    /// `ROCPROF_RS_COUNTER_INSTANCES=1` keeps them (`instance` is then its 0-based index in
    /// the SDK's order). `counter_group` is the pass that collected the value; `instances` is
    /// how many instance values the row sums. Join to `kernel_dispatch` on `dispatch_id` and
    /// `pid`.
    Counter / CounterRow {
        dispatch_id: U64,
        correlation_id: U64,
        agent_id: U64,
        kernel_id: U64,
        kernel_name: Dict,
        counter: Dict,
        value: F64,
        counter_group: U32,
        instances: U32,
        instance: OptI32,
        pid: SameU32,
    }
}

columns! {
    /// `kernel_counter`: per kernel (display name), agent and counter, the values over the
    /// dispatches that collected it. `samples` of `dispatches` is the coverage: with groups
    /// rotating over a kernel's dispatches, each counter sees a share of them. `mean` is per
    /// dispatch; where the tool knows the sites a kernel was launched from (CUPTI: the kernel
    /// launched before it), each site's mean weighted by the site's launches, so a
    /// counter that sampled one layer more often than another still means over the calls.
    /// `sum` is the samples' sum.
    KernelCounter / KernelCounterRow {
        kernel_name: Str,
        agent_id: U64,
        counter: Str,
        counter_group: U32,
        samples: U64,
        dispatches: U64,
        sum: F64,
        mean: F64,
        min: F64,
        max: F64,
        pid: SameU32,
    }
}

columns! {
    /// `process`: one row per process that wrote into the dataset (its origin, `host` and
    /// `rank`, in the columns every table ends with), so a run of many ranks is described by a
    /// table like the others rather than by one JSON file per process. `start_ns` and `end_ns`
    /// are on the tables' clock; `start_unix_ns` is CLOCK_REALTIME read at `start_ns`, what
    /// aligns the clocks of hosts. `records` and `dropped` are the totals of the metadata
    /// file's objects, which `metadata` holds whole.
    Process / ProcessRow {
        pid: U32,
        command_line: Str,
        tool_version: Str,
        format_version: Str,
        backend: Str,
        vendor: Str,
        start_ns: I64,
        end_ns: I64,
        start_unix_ns: I64,
        records: U64,
        dropped: U64,
        metadata: Str,
    }
}

columns! {
    /// `device_sample`: one row per GPU and sample of the device sampler (off unless asked
    /// for): what the vendor's management library (NVML, AMD SMI) reported at `time_ns`, on
    /// the tables' clock. `agent_id` is the GPU's agent where the process uses it (null for a
    /// GPU the library sees but the process does not); `device_index` is the library's own
    /// numbering and `device_uuid` its name for the GPU. Each reading is null where the GPU
    /// or library does not report it. `power_w` is the power now (NVML's instant power field,
    /// or `nvmlDeviceGetPowerUsage` where the driver lacks it; AMD SMI's current socket power),
    /// `power_average_w` the library's averaged reading (NVML's one-second average, which
    /// `nvidia-smi` shows; AMD SMI's average socket power). `energy_j` is the GPU's energy
    /// counter, from an arbitrary origin, so only its differences mean anything; reading it
    /// costs NVML milliseconds, so it is read every 100 ms (and at the run's first and last
    /// samples), null between.
    /// `throttle_reasons` is the library's bit mask, `throttle` the same as names.
    DeviceSample / DeviceSampleRow {
        time_ns: I64,
        agent_id: OptU64,
        device_index: U32,
        device_uuid: Dict,
        library: Dict,
        /// A GPU's readings, each `None` where the GPU or its library does not report it:
        /// what the recorder's samplers fill and the readers of the table take back whole.
        ..readings: Readings {
            power_w: OptF64,
            power_average_w: OptF64,
            energy_j: OptF64,
            sm_clock_mhz: OptU32,
            memory_clock_mhz: OptU32,
            memory_used_bytes: OptU64,
            memory_total_bytes: OptU64,
            gpu_busy_pct: OptU32,
            memory_busy_pct: OptU32,
            temperature_c: OptI32,
            throttle_reasons: OptU64,
        }
        throttle: OptStr,
        pid: SameU32,
    }
}

columns! {
    /// `pc_sample`: program-counter samples, aggregated as they arrive: one row per kernel,
    /// PC and reason (and agent, method and instruction type) per flush of the writer, with
    /// `samples` the count, so a long run stays small; a PC's rows over a run are summed by
    /// the readers. `code_object_id` and `pc_offset` (bytes from the code object's start; on
    /// NVIDIA, the function's cubin and the offset in its SASS) place the instruction;
    /// `instruction` is its text and `source_file` and `source_line` where it came from, each
    /// null when unknown. `reason` is the vendor's own name for what the wave (warp) was
    /// doing (CUPTI's stall reason, the SDK's not-issued reason; null where the method
    /// reports none, as host-trap does), `category` its one name for both vendors
    /// ([`pc_sample::ReasonCategory`], mapped by [`pc_sample::VENDOR_REASONS`]);
    /// `instruction_type` is the SDK's (null elsewhere); `method` is `host_trap`,
    /// `stochastic` or `cupti` ([`pc_sample::SampleMethod`]). `dispatch_id` and
    /// `correlation_id` are those of the first sample of the row (0 where unknown): a
    /// dispatch of the kernel, not the only one. The run's metadata file says how many
    /// samples were taken (`pc_samples`) and lost (`pc_samples_dropped`).
    PcSample / PcSampleRow {
        kernel_name: Dict,
        kernel_id: U64,
        agent_id: U64,
        dispatch_id: U64,
        correlation_id: U64,
        code_object_id: U64,
        pc_offset: U64,
        instruction: OptStr,
        source_file: OptStr,
        source_line: OptU32,
        reason: OptStr,
        category: Str,
        instruction_type: OptStr,
        method: Str,
        samples: U64,
        pid: SameU32,
        vendor: Dict,
    }
}

columns! {
    /// `window`: one row per tracing window of a windowed run (`ROCPROF_RS_WINDOW`). The
    /// backend recorded everything launched between `opened_ns` (its collection was on) and
    /// `closing_ns` (it was about to be switched off), and nothing launched outside `start_ns`
    /// (read before switching on) and `end_ns` (read after switching off); the switches take
    /// microseconds, unless the thread is preempted. A row of any other table belongs to the
    /// window with the greatest `start_ns` at or before its own start: work launched inside a
    /// window can start and end after it closes, never before it opened (this places a row
    /// right as long as its work starts less than the gap between windows after its launch).
    /// `window` counts from 0 in the process. An unwindowed run writes no rows here.
    Window / WindowRow {
        window: U32,
        start_ns: I64,
        end_ns: I64,
        opened_ns: I64,
        closing_ns: I64,
        pid: SameU32,
    }
}

columns! {
    /// `graph_launch`: one row per launch of a CUDA graph, from CUPTI's graph-level activity
    /// (`--graph-trace graph`): the graph, the stream it was launched into, and when its first
    /// node started and its last ended. `correlation_id` is the launch call's, which the
    /// `cuda_api` row of the call shares. AMD's SDK 1.0 has no graph-level record; there this
    /// table stays empty.
    GraphLaunch / GraphLaunchRow {
        graph_id: U32,
        stream_id: I32,
        start_ns: I64,
        end_ns: I64,
        duration_ns: I64,
        correlation_id: U64,
        agent_id: U64,
        pid: SameU32,
        vendor: Dict,
    }
}

/// Declares the [`Table`] enum from one list: each table's variant, folder name and row
/// buffers (several tables may share a schema, as the API tables do).
macro_rules! tables {
    ($($(#[$doc:meta])* $variant:ident => $name:literal, $rows:ident;)*) => {
        /// Every table of the format: the one list of them. A table's folder name, schema and
        /// row type all follow from its variant.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Table {
            $($(#[$doc])* $variant,)*
        }

        impl Table {
            /// Every table, in the order the metadata lists them.
            pub const ALL: &'static [Table] = &[$(Table::$variant,)*];

            /// The table's folder name in a dataset.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Table::$variant => $name,)*
                }
            }

            /// The table's Arrow schema.
            pub fn schema(self) -> arrow_schema::Schema {
                match self {
                    $(Table::$variant => $rows::schema(),)*
                }
            }

            /// A writer of the table under `options`, with `metadata` in every file: for a
            /// producer that holds writers by their table ([`writer::rows_of`] finds the rows).
            pub fn writer(
                self,
                options: &files::WriteOptions,
                metadata: Vec<parquet::file::metadata::KeyValue>,
            ) -> Box<dyn writer::AnyTableWriter + Send> {
                match self {
                    $(Table::$variant => Box::new(writer::TableWriter::<$rows>::new(options, self, metadata)),)*
                }
            }
        }
    };
}

tables! {
    /// `kernel_dispatch`: [`KernelDispatch`].
    KernelDispatch => "kernel_dispatch", KernelDispatch;
    /// `hip_api`: [`ApiCall`].
    HipApi => "hip_api", ApiCall;
    /// `hsa_api`: [`ApiCall`].
    HsaApi => "hsa_api", ApiCall;
    /// `rccl_api`: [`ApiCall`].
    RcclApi => "rccl_api", ApiCall;
    /// `cuda_api`: [`ApiCall`].
    CudaApi => "cuda_api", ApiCall;
    /// `memory_copy`: [`MemoryCopy`].
    MemoryCopy => "memory_copy", MemoryCopy;
    /// `scratch_memory`: [`ScratchMemory`].
    ScratchMemory => "scratch_memory", ScratchMemory;
    /// `memory_allocation`: [`MemoryAllocation`].
    MemoryAllocation => "memory_allocation", MemoryAllocation;
    /// `marker`: [`Marker`].
    Marker => "marker", Marker;
    /// `kernel_symbol`: [`KernelSymbol`].
    KernelSymbol => "kernel_symbol", KernelSymbol;
    /// `agent`: [`Agent`].
    Agent => "agent", Agent;
    /// `counter`: [`Counter`].
    Counter => "counter", Counter;
    /// `kernel_counter`: [`KernelCounter`].
    KernelCounter => "kernel_counter", KernelCounter;
    /// `process`: [`Process`].
    Process => "process", Process;
    /// `device_sample`: [`DeviceSample`].
    DeviceSample => "device_sample", DeviceSample;
    /// `pc_sample`: [`PcSample`].
    PcSample => "pc_sample", PcSample;
    /// `window`: [`Window`].
    Window => "window", Window;
    /// `graph_launch`: [`GraphLaunch`].
    GraphLaunch => "graph_launch", GraphLaunch;
}

impl Table {
    /// The table whose folder is called `name`.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// The tables of API calls ([`ApiCall`] rows), one per traced API family.
    pub const API_CALLS: [Table; 4] = [Table::HipApi, Table::HsaApi, Table::RcclApi, Table::CudaApi];

    /// Whether the table's rows are the whole run's catalog (kernels, agents) rather than its
    /// events: a process writes them even when it records nothing else.
    pub const fn is_catalog(self) -> bool {
        matches!(self, Table::KernelSymbol | Table::Agent | Table::Process)
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_has_one_name_and_a_schema() {
        for &table in Table::ALL {
            assert_eq!(Table::from_name(table.name()), Some(table));
            assert!(!table.schema().fields().is_empty(), "{table}");
        }
        let names: std::collections::BTreeSet<_> = Table::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names.len(), Table::ALL.len());
        assert_eq!(Table::from_name("kernel_dispatches"), None);
    }
}
