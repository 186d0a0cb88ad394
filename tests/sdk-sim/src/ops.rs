//! Operation names and the kinds the simulator produces, shared by the simulated SDK (which
//! answers name queries with them) and the driver (which writes them into the ground truth).

#![allow(non_upper_case_globals)]

use rocprofiler_sdk_sys::*;

/// The simulated HIP runtime functions, by SDK 1.0 operation number.
pub const HIP_OPERATIONS: &[(i32, &str)] = &[
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize, "hipDeviceSynchronize"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreate, "hipEventCreate"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipEventElapsedTime, "hipEventElapsedTime"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord, "hipEventRecord"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipEventSynchronize, "hipEventSynchronize"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipExtLaunchKernel, "hipExtLaunchKernel"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipFree, "hipFree"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipFreeAsync, "hipFreeAsync"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDevice, "hipGetDevice"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount, "hipGetDeviceCount"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipGetLastError, "hipGetLastError"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch, "hipGraphLaunch"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc, "hipHostMalloc"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchCooperativeKernel, "hipLaunchCooperativeKernel"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel, "hipLaunchKernel"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, "hipMalloc"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocAsync, "hipMallocAsync"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy, "hipMemcpy"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync, "hipMemcpyAsync"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD, "hipMemcpyHtoD"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync, "hipMemsetAsync"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel, "hipModuleLaunchKernel"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoadData, "hipModuleLoadData"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice, "hipSetDevice"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate, "hipStreamCreate"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy, "hipStreamDestroy"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize, "hipStreamSynchronize"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent, "hipStreamWaitEvent"),
    (ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel, "hipExtModuleLaunchKernel"),
];

/// `MARKER_CORE_API` operations, by number.
pub const MARKER_CORE: &[&str] =
    &["roctxMarkA", "roctxRangePushA", "roctxRangePop", "roctxRangeStartA", "roctxRangeStop", "roctxGetThreadId"];
/// `MEMORY_COPY` operations, by number.
pub const MEMORY_COPY: &[&str] = &[
    "MEMORY_COPY_NONE",
    "MEMORY_COPY_HOST_TO_HOST",
    "MEMORY_COPY_HOST_TO_DEVICE",
    "MEMORY_COPY_DEVICE_TO_HOST",
    "MEMORY_COPY_DEVICE_TO_DEVICE",
];
/// `RCCL_API` operations, by number: SDK 1.0's `rocprofiler_rccl_api_id_t`, which starts at 0
/// (its `NONE` is -1). Every name is listed, so a tool's name queries see the SDK's full table,
/// though the simulated application calls only [`RCCL_COMM_INIT_RANK`] and [`RCCL_ALL_REDUCE`].
pub const RCCL_API: &[&str] = &[
    "ncclAllGather",
    "ncclAllReduce",
    "ncclAllToAll",
    "ncclAllToAllv",
    "ncclBroadcast",
    "ncclGather",
    "ncclReduce",
    "ncclReduceScatter",
    "ncclScatter",
    "ncclSend",
    "ncclRecv",
    "ncclRedOpCreatePreMulSum",
    "ncclRedOpDestroy",
    "ncclGroupStart",
    "ncclGroupEnd",
    "ncclGetVersion",
    "ncclGetUniqueId",
    "ncclCommInitRank",
    "ncclCommInitAll",
    "ncclCommInitRankConfig",
    "ncclCommFinalize",
    "ncclCommDestroy",
    "ncclCommAbort",
    "ncclCommSplit",
    "ncclGetErrorString",
    "ncclGetLastError",
    "ncclCommGetAsyncError",
    "ncclCommCount",
    "ncclCommCuDevice",
    "ncclCommUserRank",
    "ncclMemAlloc",
    "ncclMemFree",
    "mscclLoadAlgo",
    "mscclRunAlgo",
    "mscclUnloadAlgo",
    "ncclCommRegister",
    "ncclCommDeregister",
];
/// `ROCPROFILER_RCCL_API_ID_ncclAllReduce`.
pub const RCCL_ALL_REDUCE: i32 = 1;
/// `ROCPROFILER_RCCL_API_ID_ncclCommInitRank`.
pub const RCCL_COMM_INIT_RANK: i32 = 17;

/// The name of HIP runtime operation `op`, if the simulator models it.
pub fn hip_name(op: i32) -> Option<&'static str> {
    HIP_OPERATIONS.iter().find(|(id, _)| *id == op).map(|(_, n)| *n)
}

/// The buffer-tracing kinds the simulator produces records for.
pub const BUFFER_KINDS: [rocprofiler_buffer_tracing_kind_t; 7] = [
    ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API,
    ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API,
    ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
    ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION,
    ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
    // Only `rocprof-sim --ranks` makes RCCL calls; other runs emit no record of this kind.
    ROCPROFILER_BUFFER_TRACING_RCCL_API,
];

/// The callback-tracing kinds the simulator produces callbacks for.
pub const CALLBACK_KINDS: [rocprofiler_callback_tracing_kind_t; 4] = [
    ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
    ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
    ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
    ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rccl_operations_are_numbered_as_in_sdk_1_0() {
        assert_eq!(RCCL_API[RCCL_ALL_REDUCE as usize], "ncclAllReduce");
        assert_eq!(RCCL_API[RCCL_COMM_INIT_RANK as usize], "ncclCommInitRank");
        // ROCPROFILER_RCCL_API_ID_LAST.
        assert_eq!(RCCL_API.len(), 37);
    }
}
