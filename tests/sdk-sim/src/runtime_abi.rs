//! The simulated runtime's side of the simulator: what `rocprof-sim` calls where a real
//! application would call HIP, and HIP would call into the SDK's intercept tables.
//!
//! The real SDK learns about API calls, dispatches and copies by wrapping the runtimes' dispatch
//! tables (`rocprofiler_set_api_table`). The simulator has no runtimes to wrap, so it exports
//! these `rocprofiler_sim_*` functions instead; each one is one intercepted runtime event. They
//! are not part of the SDK ABI and no tool ever sees them. Each returns what the SDK put in the
//! records it produced (correlation ids, timestamps, ids), so the driver can write the ground
//! truth without reading any record.

use std::ffi::c_char;

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
use rocprofiler_sdk_sys::{
    rocprofiler_agent_id_t, rocprofiler_buffer_id_t, rocprofiler_callback_tracing_kind_t, rocprofiler_status_t,
    rocprofiler_tracing_operation_t,
};

/// The base activity of one dispatch, from which every hardware counter's value is derived.
///
/// Counts are totals over the whole dispatch. [`crate::hw`] turns them into per-instance counter
/// values, which always sum back to the totals, so a tool's per-dispatch sums can be checked
/// exactly.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SimActivity {
    pub waves: u64,
    pub wave_cycles: u64,
    pub busy_cycles: u64,
    pub valu_insts: u64,
    pub salu_insts: u64,
    pub smem_insts: u64,
    pub vmem_read_insts: u64,
    pub vmem_write_insts: u64,
    pub lds_insts: u64,
    pub lds_bank_conflicts: u64,
    pub mfma_insts: u64,
    pub wait_cycles: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
    pub l2_atomics: u64,
    pub dram_read_32b: u64,
    pub dram_read_64b: u64,
    pub dram_write_64b: u64,
    pub dram_write_32b: u64,
}

/// One API call as the application makes it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SimApiCall {
    /// `ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API`, `..._MARKER_CORE_API` or `..._RCCL_API`.
    pub kind: rocprofiler_callback_tracing_kind_t,
    /// The function, as the SDK numbers it.
    pub operation: rocprofiler_tracing_operation_t,
    /// ROCTx message (`roctxMarkA`, `roctxRangePushA`, `roctxRangeStartA`); null otherwise.
    pub message: *const c_char,
    /// `roctxRangeStop`'s argument: the id `roctxRangeStartA` returned.
    pub range_id: u64,
}

/// What the SDK recorded for an API call. Filled by enter (ids, start) and exit (end).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SimApiSpan {
    pub correlation_id: u64,
    pub ancestor_id: u64,
    pub thread_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// `roctxRangeStartA`'s return value.
    pub range_id: u64,
    /// The simulator's own bookkeeping; leave it as enter wrote it.
    pub slot: u64,
}

/// A kernel symbol in a code object, as its kernel descriptor describes it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SimKernelSymbol {
    /// Mangled, NUL-terminated; must live until the code object is unloaded (process exit).
    pub name: *const c_char,
    pub kernarg_size: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
}

/// A kernel launch. Must happen between enter and exit of the launching API call.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SimDispatch {
    /// Index of the GPU agent, 0-based over GPU agents.
    pub gpu: u32,
    /// The application's stream on that GPU; each (thread, gpu, stream) is its own queue.
    pub stream: u32,
    pub kernel_id: u64,
    pub grid: [u32; 3],
    pub workgroup: [u32; 3],
    /// Runtime LDS bytes per workgroup (static plus dynamic).
    pub group_segment_size: u32,
    /// Runtime scratch bytes per work-item (static plus dynamic).
    pub private_segment_size: u32,
    /// How long the kernel runs on the simulated GPU (ignored with `open_end`).
    pub duration_ns: u64,
    pub activity: SimActivity,
    /// Non-zero: the kernel's end is not known when it is enqueued (a collective, which ends
    /// when its last peer arrives), so it waits for `rocprofiler_sim_dispatch_end`. Its start
    /// is decided here as for any kernel; its record is written once it has an end.
    pub open_end: u32,
}

/// The most counters one simulated counter config holds.
pub const MAX_CONFIG_COUNTERS: usize = 64;

/// What the SDK recorded for a dispatch.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SimDispatchResult {
    pub dispatch_id: u64,
    pub agent_id: u64,
    pub queue_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Whether a dispatch-counting service asked for counters, and got them.
    pub counters_collected: u32,
    /// The counters collected (ids as [`crate::hw::counter_id`] numbers them), the first
    /// `counter_count` entries: what the ground truth has values for.
    pub counter_ids: [u64; MAX_CONFIG_COUNTERS],
    pub counter_count: u32,
    /// The scratch allocation this dispatch triggered (0: none).
    pub scratch_bytes: u64,
    pub scratch_start_ns: u64,
    pub scratch_end_ns: u64,
    /// The PC sampling method of the dispatch's agent (`ROCPROFILER_PC_SAMPLING_METHOD_NONE`:
    /// not sampled) and its interval; the samples themselves follow from
    /// [`crate::pc_model::samples`].
    pub pc_sampling_method: u32,
    pub pc_sampling_interval: u64,
    /// The kernel's code object and the offset of its code there.
    pub code_object_id: u64,
    pub kernel_offset: u64,
}

impl Default for SimDispatchResult {
    fn default() -> Self {
        SimDispatchResult {
            dispatch_id: 0,
            agent_id: 0,
            queue_id: 0,
            correlation_id: 0,
            start_ns: 0,
            end_ns: 0,
            counters_collected: 0,
            counter_ids: [0; MAX_CONFIG_COUNTERS],
            counter_count: 0,
            scratch_bytes: 0,
            scratch_start_ns: 0,
            scratch_end_ns: 0,
            pc_sampling_method: 0,
            pc_sampling_interval: 0,
            code_object_id: 0,
            kernel_offset: 0,
        }
    }
}

/// An asynchronous copy. `src_gpu`/`dst_gpu` are GPU indices, or [`SIM_HOST`] for host memory.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SimCopy {
    pub src_gpu: u32,
    pub dst_gpu: u32,
    pub stream: u32,
    pub bytes: u64,
    pub src_address: u64,
    pub dst_address: u64,
    pub duration_ns: u64,
}

/// Agent index meaning "host memory": the first CPU agent.
pub const SIM_HOST: u32 = u32::MAX;

/// What the SDK recorded for a copy.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SimCopyResult {
    /// `rocprofiler_memory_copy_operation_t`.
    pub operation: u32,
    pub src_agent_id: u64,
    pub dst_agent_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// A device allocation or free.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SimAllocation {
    /// `rocprofiler_memory_allocation_operation_t`.
    pub operation: u32,
    pub gpu: u32,
    pub address: u64,
    /// Zero for frees.
    pub size: u64,
}

/// What the SDK recorded for an allocation.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SimAllocationResult {
    pub agent_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// What the simulated SDK did so far, for benchmarks: how much application work it saw, and how
/// long tools spent in their buffer callbacks (the SDK's callback thread is blocked meanwhile,
/// and under LOSSLESS so is every producer).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SimStats {
    pub api_calls: u64,
    pub dispatches: u64,
    pub buffer_callbacks: u64,
    pub buffer_callback_records: u64,
    /// Wall time inside buffer callbacks.
    pub buffer_callback_ns: u64,
    /// The callback thread's CPU time inside buffer callbacks.
    pub buffer_callback_cpu_ns: u64,
    /// Wall time producers (application threads, the completion thread) spent placing records
    /// in buffers, waits for a flush in progress included.
    pub emplace_ns: u64,
    /// Records the buffers dropped (DISCARD), whether or not a callback reported them: the SDK
    /// reports its cumulative count only with a callback, so drops after the last one with
    /// records never reach a tool.
    pub buffer_drops: u64,
}

crate::sim_api! {
    /// Sets the simulated machine: `gpus` GPU agents (an MI300X-like gfx942, an MI210-like
    /// gfx90a, then more gfx942s) and, if `consumer_gpu` is non-zero, a gfx1151-like APU. Call it
    /// before anything else; agents are fixed at their first query.
    fn rocprofiler_sim_configure_machine(gpus: u32, consumer_gpu: u32) -> rocprofiler_status_t;
    /// Sets the GPUs' architectures in agent order (`gfx942,gfx90a`), replacing the default
    /// list; call it before `rocprofiler_sim_configure_machine`.
    fn rocprofiler_sim_configure_archs(archs: *const c_char) -> rocprofiler_status_t;
    /// Marks the runtime as loaded. The first call runs the SDK's initialization: client
    /// discovery, `rocprofiler_configure`, `initialize`.
    fn rocprofiler_sim_register_runtime(name: *const c_char) -> rocprofiler_status_t;
    /// Number of GPU agents.
    fn rocprofiler_sim_gpu_count() -> u32;
    /// The SDK handle of GPU `gpu`.
    fn rocprofiler_sim_gpu_agent(gpu: u32, agent: *mut rocprofiler_agent_id_t) -> rocprofiler_status_t;
    /// Loads a code object on GPU `gpu`; writes one kernel id per symbol to `kernel_ids`.
    fn rocprofiler_sim_load_code_object(
        gpu: u32,
        uri: *const c_char,
        symbols: *const SimKernelSymbol,
        count: u64,
        kernel_ids: *mut u64,
    ) -> rocprofiler_status_t;
    /// An API call begins on this thread.
    fn rocprofiler_sim_api_enter(call: *const SimApiCall, span: *mut SimApiSpan) -> rocprofiler_status_t;
    /// The API call `span` ends.
    fn rocprofiler_sim_api_exit(call: *const SimApiCall, span: *mut SimApiSpan) -> rocprofiler_status_t;
    /// A kernel launch inside the current API call.
    fn rocprofiler_sim_dispatch(dispatch: *const SimDispatch, result: *mut SimDispatchResult) -> rocprofiler_status_t;
    /// Ends a dispatch made with `open_end` at `end_ns` (at least 1 ns after its start), on
    /// the thread that made it, and writes the end it got to `end`. Until then its queue takes
    /// no other work (a dispatch or copy on that stream fails), and `rocprofiler_sim_synchronize`
    /// does not wait for it.
    fn rocprofiler_sim_dispatch_end(dispatch_id: u64, end_ns: u64, end: *mut u64) -> rocprofiler_status_t;
    /// An asynchronous copy inside the current API call.
    fn rocprofiler_sim_memory_copy(copy: *const SimCopy, result: *mut SimCopyResult) -> rocprofiler_status_t;
    /// An allocation or free inside the current API call.
    fn rocprofiler_sim_memory_allocation(
        allocation: *const SimAllocation,
        result: *mut SimAllocationResult,
    ) -> rocprofiler_status_t;
    /// Waits until every dispatch and copy issued so far has completed and its records are in
    /// their buffers (`hipDeviceSynchronize`).
    fn rocprofiler_sim_synchronize() -> rocprofiler_status_t;
    /// Every record buffer `buffer` has dropped so far. The SDK reports its count only in the
    /// next buffer callback, so drops after the last callback never reach a tool; a test reads
    /// the full count here to check that nothing is lost uncounted.
    fn rocprofiler_sim_buffer_drop_count(buffer: rocprofiler_buffer_id_t, count: *mut u64) -> rocprofiler_status_t;
    /// Which PC samples of dispatch `dispatch_id` its buffer dropped: their indices in
    /// [`crate::pc_model::samples`] order, the first `capacity` written to `indices`, the count
    /// to `count`. Valid once the dispatch completed (`rocprofiler_sim_synchronize`).
    fn rocprofiler_sim_pc_samples_dropped(
        dispatch_id: u64,
        indices: *mut u64,
        capacity: u64,
        count: *mut u64,
    ) -> rocprofiler_status_t;
    /// Counters of what the simulator did so far.
    fn rocprofiler_sim_stats(stats: *mut SimStats) -> rocprofiler_status_t;
}

impl SimRuntimeApi {
    /// Opens the simulator the way a runtime's `DT_NEEDED` would: global, so tools find it by
    /// SONAME, and resolves the runtime functions.
    pub fn open(path: &std::path::Path) -> Result<(Library, Self), String> {
        // SAFETY: the simulator's initialisers only set up its own statics.
        let library = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
            .map_err(|e| format!("cannot open the simulated SDK {}: {e}", path.display()))?;
        // SAFETY: the simulator exports these symbols with exactly these signatures (it builds
        // from the same declarations), and the library stays open for the process lifetime.
        let api = unsafe { Self::resolve(&library) }?;
        Ok((library, api))
    }

    /// Resolves the functions from the simulator already loaded in this process (a tool's view:
    /// the driver opened it `RTLD_GLOBAL`).
    pub fn in_process() -> Result<Self, String> {
        let this = Library::this();
        // SAFETY: global-scope lookups find the simulator's exports, which have these signatures;
        // the simulator stays loaded for the process lifetime.
        unsafe { Self::resolve(&this) }
    }
}
