//! Checked declarations of the CUPTI records, callback structs and constants the NVIDIA backend
//! uses, written by hand from the layout of the CUPTI headers (`nvidia-cuda-cupti` 13.0.85,
//! `CUPTI_API_VERSION` 130001, and `nvidia-cuda-cupti-cu12` 12.9.79, API 28; x86_64 LP64, as gcc
//! 12 lays them out). `sys/tests/cupti_layout.rs` pins every size, alignment and field offset to
//! those numbers. The headers themselves are never committed.
//!
//! The activity records are `__attribute__((packed, aligned(8)))` in C, but the headers insert
//! explicit pad fields so every field is naturally aligned; `#[repr(C, align(8))]` with the same
//! pad fields gives the same layout. Records carry no version or size: the libcupti loaded at run
//! time decides which struct each kind uses (see each struct's note), and the decoder reads only
//! the prefix that all of them share.
//!
//! Field names are the headers' own (camelCase). Enum-typed fields are `u32`; opaque handles
//! (`CUcontext`, `CUstream`, `CUaccessPolicyWindow *`) are `*mut c_void`.

use std::os::raw::{c_char, c_void};

// ---------------------------------------------------------------------------------------------
// Activity records
// ---------------------------------------------------------------------------------------------

/// `CUpti_ActivityKernel9` (208 B): CONCURRENT_KERNEL/KERNEL records of CUPTI 12.0–12.9 (API
/// 18–28). Kept because offsets 0–207 are shared by Kernel10 and later (0–199 from Kernel8 to
/// Kernel13), which is the prefix the decoder reads.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityKernel9 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL` or `..._KERNEL`.
    pub kind: u32,
    /// C: `union { uint8_t both; struct { uint8_t requested:4; uint8_t executed:4; } config; }`;
    /// `requested` is the low nibble, `executed` the high nibble.
    pub cacheConfig: u8,
    pub sharedMemoryConfig: u8,
    pub registersPerThread: u16,
    /// `CUpti_ActivityPartitionedGlobalCacheConfig`.
    pub partitionedGlobalCacheRequested: u32,
    /// `CUpti_ActivityPartitionedGlobalCacheConfig`.
    pub partitionedGlobalCacheExecuted: u32,
    pub start: u64,
    pub end: u64,
    pub completed: u64,
    pub deviceId: u32,
    pub contextId: u32,
    pub streamId: u32,
    pub gridX: i32,
    pub gridY: i32,
    pub gridZ: i32,
    pub blockX: i32,
    pub blockY: i32,
    pub blockZ: i32,
    pub staticSharedMemory: i32,
    pub dynamicSharedMemory: i32,
    pub localMemoryPerThread: u32,
    pub localMemoryTotal: u32,
    pub correlationId: u32,
    pub gridId: i64,
    pub name: *const c_char,
    pub reserved0: *mut c_void,
    pub queued: u64,
    pub submitted: u64,
    pub launchType: u8,
    pub isSharedMemoryCarveoutRequested: u8,
    pub sharedMemoryCarveoutRequested: u8,
    pub padding: u8,
    pub sharedMemoryExecuted: u32,
    pub graphNodeId: u64,
    /// `CUpti_FuncShmemLimitConfig`.
    pub shmemLimitConfig: u32,
    pub graphId: u32,
    /// `CUaccessPolicyWindow *`.
    pub pAccessPolicyWindow: *mut c_void,
    pub channelID: u32,
    /// `CUpti_ChannelType`.
    pub channelType: u32,
    pub clusterX: u32,
    pub clusterY: u32,
    pub clusterZ: u32,
    pub clusterSchedulingPolicy: u32,
    pub localMemoryTotal_v2: u64,
    pub maxPotentialClusterSize: u32,
    pub maxActiveClusters: u32,
}

/// `CUpti_ActivityKernel10` (216 B): CONCURRENT_KERNEL/KERNEL records of CUPTI 13.0 (API
/// 130001). Kept as the current layout; decoding reads only the prefix common to Kernel8..Kernel13
/// (offsets 0–199), plus `isDeviceLaunched` when the API version is at least 130001.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityKernel10 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL` or `..._KERNEL`.
    pub kind: u32,
    /// C: `union { uint8_t both; struct { uint8_t requested:4; uint8_t executed:4; } config; }`;
    /// `requested` is the low nibble, `executed` the high nibble.
    pub cacheConfig: u8,
    pub sharedMemoryConfig: u8,
    pub registersPerThread: u16,
    /// `CUpti_ActivityPartitionedGlobalCacheConfig`.
    pub partitionedGlobalCacheRequested: u32,
    /// `CUpti_ActivityPartitionedGlobalCacheConfig`.
    pub partitionedGlobalCacheExecuted: u32,
    pub start: u64,
    pub end: u64,
    pub completed: u64,
    pub deviceId: u32,
    pub contextId: u32,
    pub streamId: u32,
    pub gridX: i32,
    pub gridY: i32,
    pub gridZ: i32,
    pub blockX: i32,
    pub blockY: i32,
    pub blockZ: i32,
    pub staticSharedMemory: i32,
    pub dynamicSharedMemory: i32,
    pub localMemoryPerThread: u32,
    pub localMemoryTotal: u32,
    pub correlationId: u32,
    pub gridId: i64,
    pub name: *const c_char,
    pub reserved0: *mut c_void,
    pub queued: u64,
    pub submitted: u64,
    pub launchType: u8,
    pub isSharedMemoryCarveoutRequested: u8,
    pub sharedMemoryCarveoutRequested: u8,
    pub padding: u8,
    pub sharedMemoryExecuted: u32,
    pub graphNodeId: u64,
    /// `CUpti_FuncShmemLimitConfig`.
    pub shmemLimitConfig: u32,
    pub graphId: u32,
    /// `CUaccessPolicyWindow *`.
    pub pAccessPolicyWindow: *mut c_void,
    pub channelID: u32,
    /// `CUpti_ChannelType`.
    pub channelType: u32,
    pub clusterX: u32,
    pub clusterY: u32,
    pub clusterZ: u32,
    pub clusterSchedulingPolicy: u32,
    pub localMemoryTotal_v2: u64,
    pub maxPotentialClusterSize: u32,
    pub maxActiveClusters: u32,
    pub isDeviceLaunched: u8,
    pub padding3: [u8; 7],
}

/// `CUpti_ActivityMemcpy6` (96 B), the 13.0 variant: MEMCPY records of CUPTI 12.8–13.0 (API 26,
/// 28, 130001; 12.x has `uint32_t pad2` where 13.0 has `isDeviceLaunched` + `pad2[3]`). Kept for
/// its offsets; decoding reads the prefix shared with Memcpy5 (0–87), plus `copyCount` (API ≥ 26)
/// and `isDeviceLaunched` (API ≥ 130001).
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityMemcpy6 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_MEMCPY`.
    pub kind: u32,
    /// `CUpti_ActivityMemcpyKind`.
    pub copyKind: u8,
    /// `CUpti_ActivityMemoryKind`.
    pub srcKind: u8,
    /// `CUpti_ActivityMemoryKind`.
    pub dstKind: u8,
    /// `CUpti_ActivityFlag` bits (`CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC`).
    pub flags: u8,
    pub bytes: u64,
    pub start: u64,
    pub end: u64,
    pub deviceId: u32,
    pub contextId: u32,
    pub streamId: u32,
    pub correlationId: u32,
    pub runtimeCorrelationId: u32,
    pub pad: u32,
    pub reserved0: *mut c_void,
    pub graphNodeId: u64,
    pub graphId: u32,
    pub channelID: u32,
    /// `CUpti_ChannelType`.
    pub channelType: u32,
    pub isDeviceLaunched: u8,
    pub pad2: [u8; 3],
    pub copyCount: u64,
}

/// `CUpti_ActivityMemcpyPtoP4` (96 B): MEMCPY2 (peer-to-peer) records of CUPTI 12.0–13.0 (API
/// 18–130001). Kept for its offsets; the decoder reads its fields up to `channelType`.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityMemcpyPtoP4 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_MEMCPY2`.
    pub kind: u32,
    /// `CUpti_ActivityMemcpyKind`.
    pub copyKind: u8,
    /// `CUpti_ActivityMemoryKind`.
    pub srcKind: u8,
    /// `CUpti_ActivityMemoryKind`.
    pub dstKind: u8,
    /// `CUpti_ActivityFlag` bits.
    pub flags: u8,
    pub bytes: u64,
    pub start: u64,
    pub end: u64,
    pub deviceId: u32,
    pub contextId: u32,
    pub streamId: u32,
    pub srcDeviceId: u32,
    pub srcContextId: u32,
    pub dstDeviceId: u32,
    pub dstContextId: u32,
    pub correlationId: u32,
    pub reserved0: *mut c_void,
    pub graphNodeId: u64,
    pub graphId: u32,
    pub channelID: u32,
    /// `CUpti_ChannelType`. Followed by 4 bytes of tail padding (no field in the header).
    pub channelType: u32,
}

/// `CUpti_ActivityGraphTrace2` (56 B): GRAPH_TRACE records of CUPTI 13.0 (one per graph
/// launch: when its first node started and its last ended). CUPTI 12's `CUpti_ActivityGraphTrace`
/// (48 B, deprecated and no longer filled in 13.0) is the same up to `reserved`, the prefix the
/// decoder reads.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityGraphTrace2 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_GRAPH_TRACE`.
    pub kind: u32,
    /// The graph launch call's.
    pub correlationId: u32,
    pub start: u64,
    pub end: u64,
    /// The device the graph's first node ran on.
    pub deviceId: u32,
    pub graphId: u32,
    pub contextId: u32,
    pub streamId: u32,
    pub reserved: *mut c_void,
    /// The device and context the graph's last node ran on (a graph can span devices).
    pub endDeviceId: u32,
    pub endContextId: u32,
}

/// `CUpti_ActivityMemset4` (88 B): MEMSET records of CUPTI 12.0–13.0 (API 18–130001; 12.x has
/// `uint32_t pad2` where 13.0 has `isDeviceLaunched` + `pad2[3]`). Kept for its offsets; the
/// decoder reads the common prefix (0–83), plus `isDeviceLaunched` on API ≥ 130001.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityMemset4 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_MEMSET`.
    pub kind: u32,
    pub value: u32,
    pub bytes: u64,
    pub start: u64,
    pub end: u64,
    pub deviceId: u32,
    pub contextId: u32,
    pub streamId: u32,
    pub correlationId: u32,
    /// `CUpti_ActivityFlag` bits (`CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC`).
    pub flags: u16,
    /// `CUpti_ActivityMemoryKind`.
    pub memoryKind: u16,
    pub pad: u32,
    pub reserved0: *mut c_void,
    pub graphNodeId: u64,
    pub graphId: u32,
    pub channelID: u32,
    /// `CUpti_ChannelType`.
    pub channelType: u32,
    pub isDeviceLaunched: u8,
    pub pad2: [u8; 3],
}

/// The `pt` view of [`CUpti_ActivityObjectKindId`]: a process and thread.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityObjectKindId_pt {
    pub processId: u32,
    pub threadId: u32,
}

/// The `dcs` view of [`CUpti_ActivityObjectKindId`]: a device, context and stream.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityObjectKindId_dcs {
    pub deviceId: u32,
    pub contextId: u32,
    pub streamId: u32,
}

/// `CUpti_ActivityObjectKindId` (12 B): which object a record is about; the view is chosen by the
/// record's `objectKind` (PROCESS/THREAD use `pt`, DEVICE/CONTEXT/STREAM use `dcs`).
#[repr(C)]
#[derive(Clone, Copy)]
#[allow(missing_debug_implementations)]
pub union CUpti_ActivityObjectKindId {
    pub pt: CUpti_ActivityObjectKindId_pt,
    pub dcs: CUpti_ActivityObjectKindId_dcs,
}

/// `CUpti_ActivityMarker2` (56 B): MARKER (NVTX) records of CUPTI 12.0–13.0 (API 18–130001,
/// identical throughout). Kept for its offsets; the decoder reads the whole record.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
#[allow(missing_debug_implementations)]
pub struct CUpti_ActivityMarker2 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_MARKER`.
    pub kind: u32,
    /// `CUpti_ActivityFlag`: `CUPTI_ACTIVITY_FLAG_MARKER_*`.
    pub flags: u32,
    pub timestamp: u64,
    pub id: u32,
    /// `CUpti_ActivityObjectKind`.
    pub objectKind: u32,
    pub objectId: CUpti_ActivityObjectKindId,
    pub pad: u32,
    /// The message; NULL on an END record.
    pub name: *const c_char,
    /// The NVTX domain; NULL for the default domain.
    pub domain: *const c_char,
}

/// `CUpti_ActivityDevice5` (184 B): DEVICE records of CUPTI 12.2–13.0 (12.0–12.1 write Device4, whose
/// prefix is not checked). Kept for its offsets; the decoder reads the fields up to `isMigEnabled`.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityDevice5 {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_DEVICE`.
    pub kind: u32,
    /// `CUpti_ActivityFlag`.
    pub flags: u32,
    pub globalMemoryBandwidth: u64,
    pub globalMemorySize: u64,
    pub constantMemorySize: u32,
    pub l2CacheSize: u32,
    pub numThreadsPerWarp: u32,
    pub coreClockRate: u32,
    pub numMemcpyEngines: u32,
    pub numMultiprocessors: u32,
    pub maxIPC: u32,
    pub maxWarpsPerMultiprocessor: u32,
    pub maxBlocksPerMultiprocessor: u32,
    pub maxSharedMemoryPerMultiprocessor: u32,
    pub maxRegistersPerMultiprocessor: u32,
    pub maxRegistersPerBlock: u32,
    pub maxSharedMemoryPerBlock: u32,
    pub maxThreadsPerBlock: u32,
    pub maxBlockDimX: u32,
    pub maxBlockDimY: u32,
    pub maxBlockDimZ: u32,
    pub maxGridDimX: u32,
    pub maxGridDimY: u32,
    pub maxGridDimZ: u32,
    pub computeCapabilityMajor: u32,
    pub computeCapabilityMinor: u32,
    pub id: u32,
    pub eccEnabled: u32,
    /// `CUuuid` (`char bytes[16]`).
    pub uuid: [u8; 16],
    pub name: *const c_char,
    pub isCudaVisible: u8,
    pub isMigEnabled: u8,
    pub reserved: [u8; 6],
    pub gpuInstanceId: u32,
    pub computeInstanceId: u32,
    /// `CUuuid` (`char bytes[16]`).
    pub migUuid: [u8; 16],
    pub isNumaNode: u32,
    pub numaId: u32,
}

/// `CUpti_ActivityAPI` (40 B): DRIVER/RUNTIME records of CUPTI 12.0–13.0 (API 18–130001,
/// identical throughout). Kept in case RUNTIME/DRIVER activity is ever enabled; the plan takes
/// API rows from callbacks instead.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ActivityAPI {
    /// `CUpti_ActivityKind`: `CUPTI_ACTIVITY_KIND_DRIVER` or `..._RUNTIME`.
    pub kind: u32,
    /// `CUpti_CallbackId`.
    pub cbid: u32,
    pub start: u64,
    pub end: u64,
    pub processId: u32,
    pub threadId: u32,
    pub correlationId: u32,
    pub returnValue: u32,
}

// ---------------------------------------------------------------------------------------------
// Callback-side structs (not packed; natural C layout)
// ---------------------------------------------------------------------------------------------

/// `CUpti_CallbackData` (72 B): the `cbdata` of DRIVER_API and RUNTIME_API callbacks, the same
/// in CUPTI 12.x and 13.0. Valid only during the callback.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_CallbackData {
    /// `CUpti_ApiCallbackSite`: [`CUPTI_API_ENTER`] or [`CUPTI_API_EXIT`].
    pub callbackSite: u32,
    pub functionName: *const c_char,
    pub functionParams: *const c_void,
    pub functionReturnValue: *mut c_void,
    pub symbolName: *const c_char,
    /// `CUcontext`.
    pub context: *mut c_void,
    pub contextUid: u32,
    /// A slot shared by the ENTER and EXIT callbacks of one call.
    pub correlationData: *mut u64,
    pub correlationId: u32,
}

/// `CUpti_SubscriberParams` (32 B in 13.0): the parameters of `cuptiSubscribe_v2` (CUPTI 13.0
/// and later). Set `structSize` to [`CUpti_SubscriberParams_STRUCT_SIZE`]; later CUPTIs append
/// fields and read only what `structSize` covers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_SubscriberParams {
    pub structSize: usize,
    /// At most [`CUPTI_SUBSCRIBER_NAME_MAX_LEN`] bytes; may be NULL.
    pub subscriberName: *const c_char,
    /// On `CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED`, receives the other client's name; at
    /// least [`CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN`] bytes; may be NULL.
    pub oldSubscriberName: *mut c_char,
    pub oldSubscriberSize: usize,
}

/// `CUpti_SubscriberParams_STRUCT_SIZE`: `offsetof(oldSubscriberSize) + sizeof(size_t)`, 32.
pub const CUpti_SubscriberParams_STRUCT_SIZE: usize =
    core::mem::offset_of!(CUpti_SubscriberParams, oldSubscriberSize) + core::mem::size_of::<usize>();

/// `CUpti_ResourceData` (24 B): the `cbdata` of RESOURCE-domain callbacks, the same in CUPTI
/// 12.x and 13.0. Valid only during the callback.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ResourceData {
    /// `CUcontext`.
    pub context: *mut c_void,
    /// C: `union { CUstream stream; }`: the stream for stream callbacks.
    pub resourceHandle: *mut c_void,
    pub resourceDescriptor: *mut c_void,
}

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

// `CUptiResult` (cupti_result.h).
pub const CUPTI_SUCCESS: u32 = 0;
pub const CUPTI_ERROR_INVALID_PARAMETER: u32 = 1;
/// Returned by `cuptiActivityGetNextRecord` at the end of a buffer.
pub const CUPTI_ERROR_MAX_LIMIT_REACHED: u32 = 12;
pub const CUPTI_ERROR_NOT_COMPATIBLE: u32 = 14;
/// Among other causes, a libcupti that does not match the driver.
pub const CUPTI_ERROR_NOT_INITIALIZED: u32 = 15;
/// Returned by `cuptiActivityGetNextRecord` for an incomplete record.
pub const CUPTI_ERROR_INVALID_KIND: u32 = 21;
pub const CUPTI_ERROR_NOT_SUPPORTED: u32 = 27;
pub const CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: u32 = 35;
/// Another client already holds the subscriber slot.
pub const CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: u32 = 39;
pub const CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES: u32 = 40;
pub const CUPTI_ERROR_UNKNOWN: u32 = 999;

// `CUpti_ActivityKind` (cupti_activity.h).
pub const CUPTI_ACTIVITY_KIND_MEMCPY: u32 = 1;
pub const CUPTI_ACTIVITY_KIND_MEMSET: u32 = 2;
/// Serialises kernels; the backend enables [`CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL`] instead.
pub const CUPTI_ACTIVITY_KIND_KERNEL: u32 = 3;
pub const CUPTI_ACTIVITY_KIND_DRIVER: u32 = 4;
pub const CUPTI_ACTIVITY_KIND_RUNTIME: u32 = 5;
pub const CUPTI_ACTIVITY_KIND_DEVICE: u32 = 8;
pub const CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: u32 = 10;
pub const CUPTI_ACTIVITY_KIND_MARKER: u32 = 12;
/// Peer-to-peer copies ([`CUpti_ActivityMemcpyPtoP4`]).
pub const CUPTI_ACTIVITY_KIND_MEMCPY2: u32 = 22;
/// One record per graph launch ([`CUpti_ActivityGraphTrace2`]); with it enabled, a graph's
/// kernels, copies and sets have no records of their own.
pub const CUPTI_ACTIVITY_KIND_GRAPH_TRACE: u32 = 51;

// `CUpti_ActivityAttribute` (cupti_activity.h).
pub const CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE: u32 = 0;
pub const CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT: u32 = 2;
pub const CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER: u32 = 5;
pub const CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE: u32 = 6;
pub const CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED: u32 = 8;
/// Must be set before `cuptiActivityRegisterCallbacks`; 1 by default in 13.0.
pub const CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER: u32 = 9;
pub const CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS: u32 = 10;

// `CUpti_ActivityFlag` (cupti_activity.h).
/// `cuptiActivityFlushAll` flag: also return buffers holding incomplete records.
pub const CUPTI_ACTIVITY_FLAG_FLUSH_FORCED: u32 = 1;
pub const CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS: u32 = 1;
pub const CUPTI_ACTIVITY_FLAG_MARKER_START: u32 = 2;
pub const CUPTI_ACTIVITY_FLAG_MARKER_END: u32 = 4;
/// `CUpti_ActivityMemcpy6::flags` bit: an asynchronous copy.
pub const CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC: u32 = 1;
/// `CUpti_ActivityMemset4::flags` bit: an asynchronous set.
pub const CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC: u32 = 1;

// `CUpti_ActivityThreadIdType` (cupti_activity.h).
/// Thread ids from `gettid`, not `pthread_self`.
pub const CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM: u32 = 1;

/// `CUPTI_TIMESTAMP_UNKNOWN`: a timestamp CUPTI could not collect.
pub const CUPTI_TIMESTAMP_UNKNOWN: u64 = 0;

// `CUpti_CallbackDomain` (cupti_callbacks.h).
pub const CUPTI_CB_DOMAIN_DRIVER_API: u32 = 1;
pub const CUPTI_CB_DOMAIN_RUNTIME_API: u32 = 2;
pub const CUPTI_CB_DOMAIN_RESOURCE: u32 = 3;
pub const CUPTI_CB_DOMAIN_NVTX: u32 = 5;
pub const CUPTI_CB_DOMAIN_STATE: u32 = 6;

// `CUpti_CallbackIdResource` (cupti_callbacks.h).
pub const CUPTI_CBID_RESOURCE_CONTEXT_CREATED: u32 = 1;
pub const CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: u32 = 2;

// `CUpti_ApiCallbackSite` (cupti_callbacks.h).
pub const CUPTI_API_ENTER: u32 = 0;
pub const CUPTI_API_EXIT: u32 = 1;

/// The longest `CUpti_SubscriberParams::subscriberName` CUPTI keeps.
pub const CUPTI_SUBSCRIBER_NAME_MAX_LEN: u32 = 53;
/// The smallest `oldSubscriberName` buffer that is never truncated.
pub const CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN: u32 = 64;

// `CUpti_runtime_api_trace_cbid` (cupti_runtime_cbid.h, 13.0).
pub const CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020: u32 = 164;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: u32 = 211;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: u32 = 214;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000: u32 = 269;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000: u32 = 270;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000: u32 = 311;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000: u32 = 312;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060: u32 = 430;
pub const CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: u32 = 431;
/// New in 13.0; an older CUPTI rejects it with `CUPTI_ERROR_INVALID_PARAMETER`.
pub const CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000: u32 = 505;
/// New in 13.0; an older CUPTI rejects it with `CUPTI_ERROR_INVALID_PARAMETER`.
pub const CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000: u32 = 506;

// `CUpti_driver_api_trace_cbid` (cupti_driver_cbid.h, 13.0).
pub const CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: u32 = 307;
pub const CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: u32 = 442;
pub const CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: u32 = 477;
pub const CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: u32 = 478;
pub const CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch: u32 = 514;
pub const CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz: u32 = 515;
pub const CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: u32 = 652;
pub const CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: u32 = 653;

/// The RUNTIME_API launch callbacks (domain [`CUPTI_CB_DOMAIN_RUNTIME_API`]): cbid and the
/// name `cuptiGetCallbackName` gives, less its `_vNNNN` suffix (Kineto's spelling).
pub const RUNTIME_LAUNCH_CBIDS: &[(u32, &str)] = &[
    (CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel"),
    (CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000, "cudaLaunchKernel_ptsz"),
    (CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, "cudaLaunchKernelExC"),
    (CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060, "cudaLaunchKernelExC_ptsz"),
    (CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, "cudaLaunchCooperativeKernel"),
    (CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000, "cudaLaunchCooperativeKernel_ptsz"),
    (CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch"),
    (CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000, "cudaGraphLaunch_ptsz"),
    (CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel"),
    (CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000, "__cudaLaunchKernel_ptsz"),
];

/// The DRIVER_API launch callbacks (domain [`CUPTI_CB_DOMAIN_DRIVER_API`]), for Triton and other
/// driver-API launchers: cbid and name (driver cbid names carry no version suffix).
pub const DRIVER_LAUNCH_CBIDS: &[(u32, &str)] = &[
    (CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"),
    (CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, "cuLaunchKernel_ptsz"),
    (CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx"),
    (CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, "cuLaunchKernelEx_ptsz"),
    (CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel"),
    (CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, "cuLaunchCooperativeKernel_ptsz"),
    (CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch"),
    (CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, "cuGraphLaunch_ptsz"),
];
