//! What a callback hands to the writer: the SDK's records copied out of SDK-owned memory into
//! plain values, since that memory is reused the moment the callback returns.
//!
//! Names stay ids here (kind and operation, kernel id); the writer turns them into strings, so
//! the callback threads copy fixed-size values and nothing else. The two exceptions carry owned
//! text: a marker's message and a kernel symbol's name, both rare and bounded by the queue.

/// A kernel dispatch.
#[derive(Debug, Clone, Copy)]
pub struct Dispatch {
    pub thread_id: u64,
    pub correlation_id: u64,
    pub external_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub agent_id: u64,
    pub queue_id: u64,
    pub kernel_id: u64,
    pub dispatch_id: u64,
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub workgroup: [u32; 3],
    pub grid: [u32; 3],
    /// The hardware pipe (SDK 1.3 and later).
    pub pipe_id: Option<i32>,
}

/// A call of a traced API (HIP runtime, HSA, RCCL).
#[derive(Debug, Clone, Copy)]
pub struct Api {
    /// The buffer-tracing kind, which names the domain.
    pub kind: u32,
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub ancestor_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// A CUDA kernel, from CUPTI's CONCURRENT_KERNEL record, in CUDA's own terms (grid in blocks);
/// the writer converts to the table's work-item grid.
#[derive(Debug, Clone, Copy)]
pub struct CudaKernel {
    pub start_ns: u64,
    pub end_ns: u64,
    pub correlation_id: u64,
    /// `gridId`: unique per launch in the process, the dispatch id.
    pub grid_id: u64,
    pub graph_node_id: u64,
    /// The name pointer CUPTI shares among a kernel's records: the kernel's id.
    pub kernel_id: u64,
    pub device_id: u32,
    pub stream_id: u32,
    pub graph_id: u32,
    pub grid: [i32; 3],
    pub block: [i32; 3],
    pub cluster: [u32; 3],
    pub static_shared: i32,
    pub dynamic_shared: i32,
    pub local_per_thread: u32,
    pub registers: u16,
}

/// One edge of an NVTX range (start or end) or a mark, as CUPTI's MARKER record reports it:
/// the writer pairs starts with ends by id, since the two can arrive in different buffers.
#[derive(Debug, Clone)]
pub struct NvtxEdge {
    /// `CUPTI_ACTIVITY_FLAG_MARKER_*`: 1 instantaneous, 2 start, 4 end.
    pub flags: u32,
    pub id: u32,
    pub timestamp_ns: u64,
    pub thread_id: u64,
    /// Set on starts and marks; ends carry none.
    pub name: Option<Box<str>>,
    pub domain: Option<std::sync::Arc<str>>,
}

/// A GPU as CUPTI's DEVICE record describes it.
#[derive(Debug, Clone)]
pub struct Device {
    pub id: u32,
    pub name: Box<str>,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub threads_per_warp: u32,
    pub max_warps_per_multiprocessor: u32,
    pub shared_memory_per_multiprocessor: u32,
    pub core_clock_khz: u32,
    pub global_memory_bytes: u64,
}

/// An asynchronous memory copy.
#[derive(Debug, Clone, Copy)]
pub struct Copy {
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub src_agent_id: u64,
    pub dst_agent_id: u64,
    pub bytes: u64,
    pub src_address: u64,
    pub dst_address: u64,
    /// CUDA's stream; none on AMD.
    pub stream_id: Option<u32>,
}

/// A scratch-memory event.
#[derive(Debug, Clone, Copy)]
pub struct Scratch {
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub agent_id: u64,
    pub queue_id: u64,
    pub flags: u32,
    pub bytes: u64,
}

/// A device-memory allocation or free.
#[derive(Debug, Clone, Copy)]
pub struct Allocation {
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub agent_id: u64,
    pub address: u64,
    pub bytes: u64,
}

/// A ROCTx mark or range, complete.
#[derive(Debug, Clone)]
pub struct Marker {
    /// The `MARKER_CORE_RANGE_API` operation.
    pub operation: i32,
    pub thread_id: u64,
    pub correlation_id: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Nesting level of a thread range (0 = outermost); none for process ranges.
    pub depth: Option<i32>,
    pub message: Box<str>,
}

/// A kernel symbol's static facts, from the code-object callback.
#[derive(Debug, Clone)]
pub struct Symbol {
    pub kernel_id: u64,
    pub code_object_id: u64,
    /// Shared, so every dispatch row refers to one copy (see `tables::columns::Dict`).
    pub mangled: std::sync::Arc<str>,
    pub kernarg_size: u32,
    pub group_segment_size: u32,
    pub private_segment_size: u32,
    pub sgpr: u32,
    pub arch_vgpr: u32,
    pub accum_vgpr: u32,
}

impl Symbol {
    /// A symbol known only by its name (no code object, sizes or registers).
    pub fn named(kernel_id: u64, mangled: std::sync::Arc<str>) -> Symbol {
        Symbol {
            kernel_id,
            code_object_id: 0,
            mangled,
            kernarg_size: 0,
            group_segment_size: 0,
            private_segment_size: 0,
            sgpr: 0,
            arch_vgpr: 0,
            accum_vgpr: 0,
        }
    }
}

/// A counted dispatch, from the counting service's header record: how many value records
/// belong to it, and the kernel they are joined to.
#[derive(Debug, Clone, Copy)]
pub struct CounterDispatch {
    pub dispatch_id: u64,
    pub agent_id: u64,
    pub kernel_id: u64,
    pub correlation_id: u64,
    /// Value records (one per counter instance) the SDK reports for the dispatch.
    pub records: u64,
    /// Set where the counter records come before the kernel's own record (CUPTI): the
    /// correlation ids of the launch (the outermost API call's, then the driver call's), by
    /// which the writer finds the dispatch and kernel ids of its `kernel_dispatch` row.
    pub join: Option<[u64; 2]>,
    /// Where in the application the kernel was launched (CUPTI: its shape and the kernel
    /// launched before it, as the pass rotation balances them; 0 where unknown): the per-kernel
    /// mean weighs each site by its launches ([`crate::pipeline::sites`]).
    pub site: u64,
    /// The kernel and grid launched (CUPTI; 0 where unknown): a site never sampled by a counter
    /// takes its shape's mean there.
    pub shape: u64,
    /// The launches at `site` on this context so far, counted or not (0 where unknown): the
    /// site's weight, until the run's final counts ([`Record::CounterSites`]) come.
    pub site_launches: u64,
}

/// Kernel ids the tool gives the kernels of counted dispatches that ran with kernel activity off
/// (CUPTI's SASS passes): ids apart from CUPTI's name pointers, with no `kernel_dispatch` row.
pub const UNTRACED_KERNEL: u64 = 3 << 62;

/// Whether a counted dispatch's kernel is one of [`UNTRACED_KERNEL`]'s.
pub fn is_untraced(kernel_id: u64) -> bool {
    kernel_id & UNTRACED_KERNEL == UNTRACED_KERNEL
}

/// The counters one GPU collects, told to the writer once they are known (CUPTI knows them at
/// the first launch on a context, after the tables began).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterPlan {
    pub agent_id: u64,
    /// How messages name the GPU: `GPU 0 (GH100)`.
    pub label: String,
    /// The counters, indexed by the `counter_id` of its values.
    pub metrics: Vec<String>,
    /// The groups that each take one pass (one application run each, in whole-application mode).
    pub groups: Vec<Vec<String>>,
}

/// A counter's value for a dispatch: the sum of `instances` consecutive instance records, or
/// one instance's value (`instance` set) when per-instance values are kept.
#[derive(Debug, Clone, Copy)]
pub struct CounterValue {
    pub dispatch_id: u64,
    pub agent_id: u64,
    pub counter_id: u64,
    pub value: f64,
    pub instances: u32,
    /// The group (pass) that collected it.
    pub group: u32,
    pub instance: Option<u32>,
}

/// Which management library a device sample came from: it names the `library` column and
/// says what the throttle bits mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TelemetryLibrary {
    /// NVIDIA's NVML.
    Nvml,
    /// AMD SMI.
    AmdSmi,
}

impl TelemetryLibrary {
    /// The `library` column's value.
    pub fn name(self) -> &'static str {
        match self {
            TelemetryLibrary::Nvml => "nvml",
            TelemetryLibrary::AmdSmi => "amd-smi",
        }
    }
}

/// A GPU the device sampler reads, told to the writer once before its first sample.
#[derive(Debug, Clone)]
pub struct SampledDevice {
    /// The library's index of the GPU, which its samples carry.
    pub index: u32,
    /// The library's name for the GPU (NVML's UUID, AMD SMI's PCI address).
    pub uuid: Box<str>,
    pub library: TelemetryLibrary,
    /// The GPU's agent, where the process uses it.
    pub agent_id: Option<u64>,
}

/// What a management library reported of one GPU at one time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeviceSample {
    pub time_ns: u64,
    pub index: u32,
    pub readings: rocprof_rs_format::device::Readings,
}

/// One record on its way to the writer.
#[derive(Debug, Clone)]
pub enum Record {
    Dispatch(Dispatch),
    Api(Api),
    Copy(Copy),
    Scratch(Scratch),
    Allocation(Allocation),
    Marker(Box<Marker>),
    Symbol(Box<Symbol>),
    CounterDispatch(CounterDispatch),
    CounterValue(CounterValue),
    CounterPlan(Box<CounterPlan>),
    /// At the end of a run: each launch site's launches, counted or not, as (agent, site,
    /// launches): the final weights, which count the launches after a site's last counted one
    /// ([`crate::pipeline::sites`]).
    CounterSites(Box<Vec<(u64, u64, u64)>>),
    CudaKernel(CudaKernel),
    NvtxEdge(Box<NvtxEdge>),
    Device(Box<Device>),
    SampledDevice(Box<SampledDevice>),
    DeviceSample(Box<DeviceSample>),
}

impl Record {
    /// Whether the drop policy must still deliver this record: it names what other records
    /// refer to (a kernel symbol, a device), and there are few of them (one per kernel or
    /// device, sent when code is loaded). Dropped, a run's dispatches would lose their names.
    /// (The libraries' drop counts never travel as records: see [`super::queue::Queue`].)
    pub fn must_keep(&self) -> bool {
        matches!(
            self,
            Record::Symbol(_)
                | Record::Device(_)
                | Record::CounterPlan(_)
                | Record::CounterSites(_)
                | Record::SampledDevice(_)
        )
    }

    /// Whether this record is traced activity, which becomes a row (or half of one, for an
    /// NVTX edge), rather than a name: what a drop count counts.
    pub fn is_activity(&self) -> bool {
        !self.must_keep()
    }

    /// When the activity began, for records of one.
    pub fn start_ns(&self) -> Option<u64> {
        match self {
            Record::Dispatch(r) => Some(r.start_ns),
            Record::Api(r) => Some(r.start_ns),
            Record::Copy(r) => Some(r.start_ns),
            Record::Scratch(r) => Some(r.start_ns),
            Record::Allocation(r) => Some(r.start_ns),
            Record::Marker(r) => Some(r.start_ns),
            Record::CudaKernel(r) => Some(r.start_ns),
            Record::NvtxEdge(r) => Some(r.timestamp_ns),
            Record::DeviceSample(r) => Some(r.time_ns),
            Record::Symbol(_)
            | Record::CounterDispatch(_)
            | Record::CounterValue(_)
            | Record::CounterPlan(_)
            | Record::CounterSites(_)
            | Record::Device(_)
            | Record::SampledDevice(_) => None,
        }
    }
}

/// The key under which callback-tracing ROCTx range operations are stored, apart from the
/// buffer-tracing kinds (whose numbering it cannot collide with).
pub const MARKER_RANGE_KIND: u32 =
    0x8000_0000 | rocprofiler_sdk_sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API;

#[cfg(test)]
mod tests {
    /// Batches are vectors of records; a small record keeps a batch's memory small.
    #[test]
    fn a_record_stays_small() {
        assert!(std::mem::size_of::<super::Record>() <= 136, "{}", std::mem::size_of::<super::Record>());
    }
}
