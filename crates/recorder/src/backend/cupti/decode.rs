//! CUPTI activity records to [`Decoded`] values, and those to the pipeline's records: safe
//! code over bytes, so the same decoder runs on
//! CUPTI's live buffers and on real buffers captured on a GPU and committed as test fixtures.
//!
//! Records carry no version or size. What this reads is the prefix every supported release
//! shares (CUPTI 11.8's Kernel8 to 13.5's Kernel13 agree on their first 200 bytes; Memcpy5 and
//! 6, Memset4 and Marker2 likewise), at offsets taken from the checked declarations in
//! `rocprofiler-sdk-sys`, whose layout tests pin them to the headers. A field a release appended
//! is read only when [`record_size`] says the loaded release writes it.

use std::mem::offset_of;
use std::sync::Arc;

use rocprofiler_sdk_sys::cupti as sys;

use super::operations::COPY_KIND;
use crate::pipeline::records::{Copy, Device, GraphLaunch, Kernel, narrow_u16};

/// A CUDA kernel, from CUPTI's CONCURRENT_KERNEL record, in CUDA's own terms (grid in blocks).
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

impl CudaKernel {
    /// The launch in the pipeline's terms: the grid in work-items (blocks times their size),
    /// the stream as the queue, shared memory static and dynamic together.
    pub fn launch(&self) -> Kernel {
        let extent = |i: usize| u64::from(self.grid[i].max(0) as u32) * u64::from(self.block[i].max(0) as u32);
        let narrow = |v: i32| narrow_u16(v.max(0) as u32);
        Kernel {
            start_ns: self.start_ns,
            end_ns: self.end_ns,
            grid_x: extent(0),
            grid_yz: [1, 2].map(|i| u32::try_from(extent(i)).unwrap_or(u32::MAX)),
            block: self.block.map(narrow),
            registers: self.registers,
            has_registers: true,
            shared_mem: (self.static_shared.max(0) + self.dynamic_shared.max(0)) as u32,
            scratch_size: self.local_per_thread,
            queue_is_stream: true,
            dispatch_id: self.grid_id,
            correlation_id: self.correlation_id,
            external_id: 0,
            kernel_id: self.kernel_id,
            agent_id: u64::from(self.device_id),
            queue_id: u64::from(self.stream_id),
            thread_id: 0,
            pipe_id: 0,
            has_pipe: false,
            graph_id: self.graph_id,
            graph_node_id: self.graph_node_id,
            cluster: self.cluster.map(narrow_u16),
        }
    }

    /// Whether this is CUPTI's range profiler's own kernel rather than the application's: a
    /// `WaitNs` kernel of one thread that it runs inside each counted launch (~80 µs on an
    /// H100), under the launch's correlation id. It must neither be a row nor take the
    /// launch's counters.
    pub fn is_range_profilers(&self, name: Option<&str>) -> bool {
        self.grid == [1, 1, 1] && self.block == [1, 1, 1] && name == Some("WaitNs")
    }
}

/// One edge of an NVTX range (start or end) or a mark, as CUPTI's MARKER record reports it:
/// [`super::nvtx::Pairing`] pairs starts with ends by id, since the two can arrive in
/// different buffers.
#[derive(Debug, Clone)]
pub struct NvtxEdge {
    /// `CUPTI_ACTIVITY_FLAG_MARKER_*`: 1 instantaneous, 2 start, 4 end.
    pub flags: u32,
    pub id: u32,
    pub timestamp_ns: u64,
    pub thread_id: u64,
    /// Set on starts and marks; ends carry none.
    pub name: Option<Box<str>>,
    pub domain: Option<Arc<str>>,
}

/// A GPU as CUPTI's DEVICE record describes it.
#[derive(Debug, Clone)]
pub struct CudaDevice {
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

impl CudaDevice {
    /// The GPU as the agent table describes it: `sm_90`, compute capability `9.0`.
    pub fn device(&self) -> Device {
        let (major, minor) = self.compute_capability;
        Device {
            agent_id: u64::from(self.id),
            index: self.id,
            architecture: format!("sm_{major}{minor}").into(),
            product_name: self.name.clone(),
            vendor_name: "NVIDIA",
            model_name: format!("{major}.{minor}").into(),
            compute_units: self.multiprocessors,
            lanes_per_wave: self.threads_per_warp,
            max_waves_per_compute_unit: self.max_warps_per_multiprocessor,
            shared_memory_per_compute_unit_bytes: self.shared_memory_per_multiprocessor,
            max_clock_mhz: self.core_clock_khz / 1000,
            memory_bytes: self.global_memory_bytes,
        }
    }
}

/// A decoded activity record of a kind the backend traces.
#[derive(Debug, Clone)]
pub enum Decoded {
    Kernel(CudaKernel),
    /// A copy or a set, already in the pipeline's terms.
    Copy(Copy),
    NvtxEdge(Box<NvtxEdge>),
    Device(Box<CudaDevice>),
    /// A graph launch, already in the pipeline's terms.
    Graph(GraphLaunch),
}

/// Where a record's pointer fields (kernel, marker, domain and device names) are read: CUPTI's
/// own strings in a live process, a fixture's sidecar in a test.
pub trait Names {
    /// The text a name pointer of the current record points at; `None` for a null pointer or
    /// one the source cannot read.
    fn name(&mut self, pointer: u64) -> Option<Arc<str>>;
}

/// One decoded activity record.
#[derive(Debug)]
pub enum Activity {
    /// A record for the tables, and for a kernel, the name its `kernel_id` stands for.
    Record(Decoded, Option<Arc<str>>),
    /// A kernel, copy or set whose timestamps CUPTI could not fill (`start` or `end` 0, or
    /// `end < start`, cupti_activity.h's documented failure): counted, never written.
    BadTimestamps,
    /// A kind this backend does not enable, or a record shorter than its kind's prefix.
    Skipped(u32),
}

/// The size CUPTI `version` (`CUPTI_API_VERSION`) writes records of `kind` at; `None` for a
/// kind or version this decoder does not know. CUPTI's `cuptiActivityGetNextRecord` walks live
/// buffers; this walks captured ones, and tests check that both agree.
pub fn record_size(kind: u32, version: u32) -> Option<usize> {
    let cuda13 = version >= 130_000;
    Some(match kind {
        sys::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL | sys::CUPTI_ACTIVITY_KIND_KERNEL => match version {
            130_001 => size_of::<sys::CUpti_ActivityKernel10>(),
            v if v >= 130_000 => return None,
            v if v >= 18 => size_of::<sys::CUpti_ActivityKernel9>(),
            _ => return None,
        },
        sys::CUPTI_ACTIVITY_KIND_MEMCPY if cuda13 || version >= 26 => size_of::<sys::CUpti_ActivityMemcpy6>(),
        sys::CUPTI_ACTIVITY_KIND_MEMCPY if version >= 18 => 88,
        sys::CUPTI_ACTIVITY_KIND_MEMCPY2 => size_of::<sys::CUpti_ActivityMemcpyPtoP4>(),
        sys::CUPTI_ACTIVITY_KIND_MEMSET => size_of::<sys::CUpti_ActivityMemset4>(),
        sys::CUPTI_ACTIVITY_KIND_MARKER => size_of::<sys::CUpti_ActivityMarker2>(),
        sys::CUPTI_ACTIVITY_KIND_DEVICE if cuda13 || version >= 20 => size_of::<sys::CUpti_ActivityDevice5>(),
        sys::CUPTI_ACTIVITY_KIND_RUNTIME | sys::CUPTI_ACTIVITY_KIND_DRIVER => size_of::<sys::CUpti_ActivityAPI>(),
        sys::CUPTI_ACTIVITY_KIND_GRAPH_TRACE if cuda13 => size_of::<sys::CUpti_ActivityGraphTrace2>(),
        sys::CUPTI_ACTIVITY_KIND_GRAPH_TRACE if version >= 18 => GRAPH_PREFIX + size_of::<u64>(),
        _ => return None,
    })
}

/// The kind of the record at the start of `bytes`.
pub fn kind(bytes: &[u8]) -> Option<u32> {
    read_u32(bytes, 0)
}

/// Decodes the record at the start of `bytes`, which holds at most that record.
pub fn decode(bytes: &[u8], names: &mut dyn Names) -> Activity {
    let Some(kind) = kind(bytes) else { return Activity::Skipped(0) };
    let decoded = match kind {
        sys::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL | sys::CUPTI_ACTIVITY_KIND_KERNEL => kernel(bytes, names),
        sys::CUPTI_ACTIVITY_KIND_MEMCPY => memcpy(bytes),
        sys::CUPTI_ACTIVITY_KIND_MEMCPY2 => peer_copy(bytes),
        sys::CUPTI_ACTIVITY_KIND_MEMSET => memset(bytes),
        sys::CUPTI_ACTIVITY_KIND_MARKER => marker(bytes, names),
        sys::CUPTI_ACTIVITY_KIND_DEVICE => device(bytes, names),
        sys::CUPTI_ACTIVITY_KIND_GRAPH_TRACE => graph(bytes),
        _ => None,
    };
    decoded.unwrap_or(Activity::Skipped(kind))
}

/// The graph-trace prefix common to CUPTI 12's record and 13's: up to `reserved`.
const GRAPH_PREFIX: usize = offset_of!(sys::CUpti_ActivityGraphTrace2, reserved);

fn graph(b: &[u8]) -> Option<Activity> {
    type G = sys::CUpti_ActivityGraphTrace2;
    if b.len() < GRAPH_PREFIX {
        return None;
    }
    let (start_ns, end_ns) = (read_u64(b, offset_of!(G, start))?, read_u64(b, offset_of!(G, end))?);
    if !valid(start_ns, end_ns) {
        return Some(Activity::BadTimestamps);
    }
    let launch = GraphLaunch {
        graph_id: read_u32(b, offset_of!(G, graphId))?,
        // As the kernel rows' `stream_id` holds it, so the two join.
        stream_id: read_u32(b, offset_of!(G, streamId))? as i32,
        start_ns,
        end_ns,
        correlation_id: u64::from(read_u32(b, offset_of!(G, correlationId))?),
        agent_id: u64::from(read_u32(b, offset_of!(G, deviceId))?),
    };
    Some(Activity::Record(Decoded::Graph(launch), None))
}

/// The first 200 bytes: the kernel prefix common to Kernel8 through Kernel13.
const KERNEL_PREFIX: usize = offset_of!(sys::CUpti_ActivityKernel9, maxPotentialClusterSize);

fn kernel(b: &[u8], names: &mut dyn Names) -> Option<Activity> {
    type K = sys::CUpti_ActivityKernel9;
    if b.len() < KERNEL_PREFIX {
        return None;
    }
    let (start_ns, end_ns) = (read_u64(b, offset_of!(K, start))?, read_u64(b, offset_of!(K, end))?);
    if !valid(start_ns, end_ns) {
        return Some(Activity::BadTimestamps);
    }
    let xyz = |x, y, z| Some([read_i32(b, x)?, read_i32(b, y)?, read_i32(b, z)?]);
    let pointer = read_u64(b, offset_of!(K, name))?;
    let record = CudaKernel {
        start_ns,
        end_ns,
        correlation_id: u64::from(read_u32(b, offset_of!(K, correlationId))?),
        grid_id: read_u64(b, offset_of!(K, gridId))?,
        graph_node_id: read_u64(b, offset_of!(K, graphNodeId))?,
        kernel_id: pointer,
        device_id: read_u32(b, offset_of!(K, deviceId))?,
        stream_id: read_u32(b, offset_of!(K, streamId))?,
        graph_id: read_u32(b, offset_of!(K, graphId))?,
        grid: xyz(offset_of!(K, gridX), offset_of!(K, gridY), offset_of!(K, gridZ))?,
        block: xyz(offset_of!(K, blockX), offset_of!(K, blockY), offset_of!(K, blockZ))?,
        cluster: [
            read_u32(b, offset_of!(K, clusterX))?,
            read_u32(b, offset_of!(K, clusterY))?,
            read_u32(b, offset_of!(K, clusterZ))?,
        ],
        static_shared: read_i32(b, offset_of!(K, staticSharedMemory))?,
        dynamic_shared: read_i32(b, offset_of!(K, dynamicSharedMemory))?,
        local_per_thread: read_u32(b, offset_of!(K, localMemoryPerThread))?,
        registers: read_u16(b, offset_of!(K, registersPerThread))?,
    };
    Some(Activity::Record(Decoded::Kernel(record), names.name(pointer)))
}

/// A copy's operation id in the `memory_copy` table: CUPTI's `copyKind`, offset so it cannot be
/// taken for one of the SDK's operations. [`super::operations::operations`] names them.
pub const COPY_OPERATION_BASE: i32 = 0x100;
/// The operation id of a memset.
pub const MEMSET_OPERATION: i32 = 0x200;

/// Where a copy-like record keeps the fields a `memory_copy` row needs: the three kinds differ
/// only in offsets (and a memset has no copy kind).
struct CopyLayout {
    /// Bytes the record must have: its prefix common to every supported release.
    prefix: usize,
    start: usize,
    end: usize,
    bytes: usize,
    correlation: usize,
    stream: usize,
    src_device: usize,
    dst_device: usize,
    /// The `copyKind` byte; none for a memset.
    copy_kind: Option<usize>,
}

fn memcpy(b: &[u8]) -> Option<Activity> {
    type M = sys::CUpti_ActivityMemcpy6;
    copy(
        b,
        &CopyLayout {
            prefix: offset_of!(M, copyCount),
            start: offset_of!(M, start),
            end: offset_of!(M, end),
            bytes: offset_of!(M, bytes),
            correlation: offset_of!(M, correlationId),
            stream: offset_of!(M, streamId),
            src_device: offset_of!(M, deviceId),
            dst_device: offset_of!(M, deviceId),
            copy_kind: Some(offset_of!(M, copyKind)),
        },
    )
}

fn peer_copy(b: &[u8]) -> Option<Activity> {
    type P = sys::CUpti_ActivityMemcpyPtoP4;
    copy(
        b,
        &CopyLayout {
            prefix: offset_of!(P, reserved0),
            start: offset_of!(P, start),
            end: offset_of!(P, end),
            bytes: offset_of!(P, bytes),
            correlation: offset_of!(P, correlationId),
            stream: offset_of!(P, streamId),
            src_device: offset_of!(P, srcDeviceId),
            dst_device: offset_of!(P, dstDeviceId),
            copy_kind: Some(offset_of!(P, copyKind)),
        },
    )
}

fn memset(b: &[u8]) -> Option<Activity> {
    type S = sys::CUpti_ActivityMemset4;
    copy(
        b,
        &CopyLayout {
            prefix: offset_of!(S, channelID),
            start: offset_of!(S, start),
            end: offset_of!(S, end),
            bytes: offset_of!(S, bytes),
            correlation: offset_of!(S, correlationId),
            stream: offset_of!(S, streamId),
            src_device: offset_of!(S, deviceId),
            dst_device: offset_of!(S, deviceId),
            copy_kind: None,
        },
    )
}

fn copy(b: &[u8], at: &CopyLayout) -> Option<Activity> {
    if b.len() < at.prefix {
        return None;
    }
    let (start_ns, end_ns) = (read_u64(b, at.start)?, read_u64(b, at.end)?);
    if !valid(start_ns, end_ns) {
        return Some(Activity::BadTimestamps);
    }
    let operation = match at.copy_kind {
        Some(kind) => COPY_OPERATION_BASE + i32::from(*b.get(kind)?),
        None => MEMSET_OPERATION,
    };
    Some(Activity::Record(
        Decoded::Copy(Copy {
            kind: COPY_KIND,
            operation,
            thread_id: 0,
            correlation_id: u64::from(read_u32(b, at.correlation)?),
            start_ns,
            end_ns,
            src_agent_id: u64::from(read_u32(b, at.src_device)?),
            dst_agent_id: u64::from(read_u32(b, at.dst_device)?),
            bytes: read_u64(b, at.bytes)?,
            src_address: 0,
            dst_address: 0,
            stream_id: Some(read_u32(b, at.stream)?),
        }),
        None,
    ))
}

fn marker(b: &[u8], names: &mut dyn Names) -> Option<Activity> {
    type M = sys::CUpti_ActivityMarker2;
    if b.len() < size_of::<M>() {
        return None;
    }
    let object = offset_of!(M, objectId);
    // objectId is a union; for the thread object kinds NVTX reports, it holds processId then
    // threadId (CUpti_ActivityObjectKindId.pt).
    let thread_id = read_u32(b, object + offset_of!(sys::CUpti_ActivityObjectKindId_pt, threadId))?;
    let name = names.name(read_u64(b, offset_of!(M, name))?);
    let domain = names.name(read_u64(b, offset_of!(M, domain))?);
    Some(Activity::Record(
        Decoded::NvtxEdge(Box::new(NvtxEdge {
            flags: read_u32(b, offset_of!(M, flags))?,
            id: read_u32(b, offset_of!(M, id))?,
            timestamp_ns: read_u64(b, offset_of!(M, timestamp))?,
            thread_id: u64::from(thread_id),
            name: name.map(|n| n.as_ref().into()),
            domain,
        })),
        None,
    ))
}

fn device(b: &[u8], names: &mut dyn Names) -> Option<Activity> {
    type D = sys::CUpti_ActivityDevice5;
    if b.len() < offset_of!(D, isCudaVisible) {
        return None;
    }
    let name = names.name(read_u64(b, offset_of!(D, name))?);
    Some(Activity::Record(
        Decoded::Device(Box::new(CudaDevice {
            id: read_u32(b, offset_of!(D, id))?,
            name: name.as_deref().unwrap_or("NVIDIA GPU").into(),
            compute_capability: (
                read_u32(b, offset_of!(D, computeCapabilityMajor))?,
                read_u32(b, offset_of!(D, computeCapabilityMinor))?,
            ),
            multiprocessors: read_u32(b, offset_of!(D, numMultiprocessors))?,
            threads_per_warp: read_u32(b, offset_of!(D, numThreadsPerWarp))?,
            max_warps_per_multiprocessor: read_u32(b, offset_of!(D, maxWarpsPerMultiprocessor))?,
            shared_memory_per_multiprocessor: read_u32(b, offset_of!(D, maxSharedMemoryPerMultiprocessor))?,
            core_clock_khz: read_u32(b, offset_of!(D, coreClockRate))?,
            global_memory_bytes: read_u64(b, offset_of!(D, globalMemorySize))?,
        })),
        None,
    ))
}

/// CUPTI's documented marks of a timestamp it could not take.
fn valid(start: u64, end: u64) -> bool {
    start != 0 && end != 0 && end >= start
}

fn read_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_i32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn read_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Walks a captured buffer record by record, with [`record_size`]'s strides: what
/// `cuptiActivityGetNextRecord` does in a live process.
#[derive(Debug)]
pub struct Walker<'a> {
    bytes: &'a [u8],
    version: u32,
    at: usize,
}

impl<'a> Walker<'a> {
    /// A walk over `bytes`, written by CUPTI `version`.
    pub fn new(bytes: &'a [u8], version: u32) -> Walker<'a> {
        Walker { bytes, version, at: 0 }
    }
}

impl<'a> Iterator for Walker<'a> {
    /// The record's offset and bytes; `Err(offset)` at a kind whose size is unknown, which ends
    /// the walk, since the next record's start is then unknown too.
    type Item = Result<(usize, &'a [u8]), usize>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.bytes.get(self.at..).filter(|r| r.len() >= 4)?;
        let Some(size) = kind(rest).and_then(|k| record_size(k, self.version)).filter(|s| *s <= rest.len()) else {
            let at = self.at;
            self.at = self.bytes.len();
            return Some(Err(at));
        };
        let at = self.at;
        self.at += size;
        Some(Ok((at, &rest[..size])))
    }
}
