//! Kind and operation names, as the SDK's query and iterate functions return them: kind names
//! are the enumerator without its prefix, operation names are the function name (APIs) or the
//! enumerator without `ROCPROFILER_` (everything else). Strings are static, as in the SDK.
//!
//! HIP runtime operations are limited to the functions the simulated runtime calls (the real
//! table has about 470); their numbers are those of SDK 1.0. RCCL's table is complete.

use rocprof_sim::ops::{HIP_OPERATIONS, MARKER_CORE, MEMORY_COPY, RCCL_API};
use rocprofiler_sdk_sys::*;

/// Buffer-tracing kind names, indexed by kind.
pub const BUFFER_KINDS: [&str; 33] = [
    "NONE",
    "HSA_CORE_API",
    "HSA_AMD_EXT_API",
    "HSA_IMAGE_EXT_API",
    "HSA_FINALIZE_EXT_API",
    "HIP_RUNTIME_API",
    "HIP_COMPILER_API",
    "MARKER_CORE_API",
    "MARKER_CONTROL_API",
    "MARKER_NAME_API",
    "MEMORY_COPY",
    "KERNEL_DISPATCH",
    "SCRATCH_MEMORY",
    "CORRELATION_ID_RETIREMENT",
    "RCCL_API",
    "OMPT",
    "MEMORY_ALLOCATION",
    "RUNTIME_INITIALIZATION",
    "ROCDECODE_API",
    "ROCJPEG_API",
    "HIP_STREAM",
    "HIP_RUNTIME_API_EXT",
    "HIP_COMPILER_API_EXT",
    "ROCDECODE_API_EXT",
    "KFD_EVENT_PAGE_MIGRATE",
    "KFD_EVENT_PAGE_FAULT",
    "KFD_EVENT_QUEUE",
    "KFD_EVENT_UNMAP_FROM_GPU",
    "KFD_EVENT_DROPPED_EVENTS",
    "KFD_PAGE_MIGRATE",
    "KFD_PAGE_FAULT",
    "KFD_QUEUE",
    "MARKER_CORE_RANGE_API",
];

/// Callback-tracing kind names, indexed by kind.
pub const CALLBACK_KINDS: [&str; 22] = [
    "NONE",
    "HSA_CORE_API",
    "HSA_AMD_EXT_API",
    "HSA_IMAGE_EXT_API",
    "HSA_FINALIZE_EXT_API",
    "HIP_RUNTIME_API",
    "HIP_COMPILER_API",
    "MARKER_CORE_API",
    "MARKER_CONTROL_API",
    "MARKER_NAME_API",
    "CODE_OBJECT",
    "SCRATCH_MEMORY",
    "KERNEL_DISPATCH",
    "MEMORY_COPY",
    "RCCL_API",
    "OMPT",
    "MEMORY_ALLOCATION",
    "RUNTIME_INITIALIZATION",
    "ROCDECODE_API",
    "ROCJPEG_API",
    "HIP_STREAM",
    "MARKER_CORE_RANGE_API",
];

const MARKER_CONTROL: &[&str] = &["roctxProfilerPause", "roctxProfilerResume"];
const MARKER_NAME: &[&str] = &["roctxNameOsThread", "roctxNameHsaAgent", "roctxNameHipDevice", "roctxNameHipStream"];
const MARKER_RANGE: &[&str] = &["roctxMarkA", "roctxThreadRangeA", "roctxProcessRangeA", "roctxGetThreadId"];
const MEMORY_ALLOCATION: &[&str] = &[
    "MEMORY_ALLOCATION_NONE",
    "MEMORY_ALLOCATION_ALLOCATE",
    "MEMORY_ALLOCATION_VMEM_ALLOCATE",
    "MEMORY_ALLOCATION_FREE",
    "MEMORY_ALLOCATION_VMEM_FREE",
];
const SCRATCH: &[&str] =
    &["SCRATCH_MEMORY_NONE", "SCRATCH_MEMORY_ALLOC", "SCRATCH_MEMORY_FREE", "SCRATCH_MEMORY_ASYNC_RECLAIM"];
const DISPATCH: &[&str] = &["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE", "KERNEL_DISPATCH_COMPLETE"];
const CODE_OBJECT: &[&str] = &[
    "CODE_OBJECT_NONE",
    "CODE_OBJECT_LOAD",
    "CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER",
    "CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER",
];

/// Operations of a kind: a dense table (numbered from 0, or 1 when 0 is a `NONE`) or HIP's list.
enum Table {
    Dense { names: &'static [&'static str], first: i32 },
    Hip,
    Unsimulated,
}

fn buffer_table(kind: rocprofiler_buffer_tracing_kind_t) -> Table {
    match kind {
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API | ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT => Table::Hip,
        ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API => Table::Dense { names: MARKER_CORE, first: 0 },
        ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API => Table::Dense { names: MARKER_CONTROL, first: 0 },
        ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API => Table::Dense { names: MARKER_NAME, first: 0 },
        ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API => Table::Dense { names: MARKER_RANGE, first: 0 },
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => Table::Dense { names: MEMORY_COPY, first: 1 },
        ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION => Table::Dense { names: MEMORY_ALLOCATION, first: 1 },
        ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY => Table::Dense { names: SCRATCH, first: 1 },
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => Table::Dense { names: DISPATCH, first: 1 },
        ROCPROFILER_BUFFER_TRACING_RCCL_API => Table::Dense { names: RCCL_API, first: 0 },
        _ => Table::Unsimulated,
    }
}

fn callback_table(kind: rocprofiler_callback_tracing_kind_t) -> Table {
    match kind {
        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API => Table::Hip,
        ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API => Table::Dense { names: MARKER_CORE, first: 0 },
        ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API => Table::Dense { names: MARKER_CONTROL, first: 0 },
        ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API => Table::Dense { names: MARKER_NAME, first: 0 },
        ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API => Table::Dense { names: MARKER_RANGE, first: 0 },
        ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT => Table::Dense { names: CODE_OBJECT, first: 1 },
        ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY => Table::Dense { names: MEMORY_COPY, first: 1 },
        ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION => Table::Dense { names: MEMORY_ALLOCATION, first: 1 },
        ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY => Table::Dense { names: SCRATCH, first: 1 },
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH => Table::Dense { names: DISPATCH, first: 1 },
        ROCPROFILER_CALLBACK_TRACING_RCCL_API => Table::Dense { names: RCCL_API, first: 0 },
        _ => Table::Unsimulated,
    }
}

impl Table {
    fn name(&self, op: i32) -> Option<&'static str> {
        match self {
            Table::Dense { names, first } => {
                if op < *first {
                    None
                } else {
                    names.get(op as usize).copied()
                }
            }
            Table::Hip => rocprof_sim::ops::hip_name(op),
            Table::Unsimulated => None,
        }
    }

    fn operations(&self) -> Vec<i32> {
        match self {
            Table::Dense { names, first } => (*first..names.len() as i32).collect(),
            Table::Hip => HIP_OPERATIONS.iter().map(|(id, _)| *id).collect(),
            Table::Unsimulated => Vec::new(),
        }
    }
}

/// A kind's name.
pub fn kind_name(buffer: bool, kind: u32) -> Option<&'static str> {
    if kind == 0 {
        return None;
    }
    if buffer { BUFFER_KINDS.get(kind as usize).copied() } else { CALLBACK_KINDS.get(kind as usize).copied() }
}

/// An operation's name.
pub fn operation_name(buffer: bool, kind: u32, op: i32) -> Result<&'static str, rocprofiler_status_t> {
    kind_name(buffer, kind).ok_or(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND)?;
    let table = if buffer { buffer_table(kind) } else { callback_table(kind) };
    table.name(op).ok_or(ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND)
}

/// A kind's operations.
pub fn operations(buffer: bool, kind: u32) -> Result<Vec<i32>, rocprofiler_status_t> {
    kind_name(buffer, kind).ok_or(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT)?;
    Ok(if buffer { buffer_table(kind) } else { callback_table(kind) }.operations())
}

/// The kinds the simulator produces records or callbacks for.
pub fn simulated(buffer: bool, kind: u32) -> bool {
    if buffer {
        rocprof_sim::ops::BUFFER_KINDS.contains(&kind)
    } else {
        rocprof_sim::ops::CALLBACK_KINDS.contains(&kind)
    }
}

/// `rocprofiler_get_status_name` and `_string`: SDK 1.0's texts.
pub fn status(status: rocprofiler_status_t) -> Option<(&'static std::ffi::CStr, &'static std::ffi::CStr)> {
    const TABLE: [(&std::ffi::CStr, &std::ffi::CStr); 41] = [
        (c"ROCPROFILER_STATUS_SUCCESS", c"Success"),
        (c"ROCPROFILER_STATUS_ERROR", c"General error"),
        (c"ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND", c"Context ID not found"),
        (c"ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND", c"Buffer ID not found"),
        (c"ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND", c"Kind ID not found"),
        (c"ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND", c"Operation ID not found"),
        (c"ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND", c"Thread ID not found"),
        (c"ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND", c"Agent ID not found"),
        (c"ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND", c"HW counter not found"),
        (c"ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR", c"General context error"),
        (c"ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID", c"Context configuration is not valid"),
        (c"ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED", c"Context failed to start"),
        (c"ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT", c"Context has a conflict with another context"),
        (c"ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO", c"Context ID should be initialized to zero"),
        (c"ROCPROFILER_STATUS_ERROR_BUFFER_BUSY", c"Buffer operation failed because it is currently busy handling another request"),
        (c"ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED", c"Service configuration request would overwrite existing service configuration values"),
        (c"ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED", c"Configuration request occurred outside of valid rocprofiler configuration period"),
        (c"ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED", c"API function is defined but not implemented"),
        (c"ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI", c"Data structure provided by user has a incompatible binary interface with this version of rocprofiler"),
        (c"ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT", c"Function invoked with one or more invalid arguments"),
        (c"ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT", c"Metric is not valid for the agent"),
        (c"ROCPROFILER_STATUS_ERROR_FINALIZED", c"Invalid request because rocprofiler has finalized"),
        (c"ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED", c"Function call requires that HSA is loaded"),
        (c"ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND", c"Dimension is not found for counter"),
        (c"ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND", c"Profile could not find counter for GPU"),
        (c"ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED", c"AST could not be generated correctly"),
        (c"ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND", c"AST was not found"),
        (c"ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD", c"AQL Profiler was not able to find event coordinates for defined counters"),
        (c"ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL", c"A service depends on a newer version of KFD (amdgpu kernel driver)"),
        (c"ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES", c"The given resources are insufficient to complete operation"),
        (c"ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND", c"Could not find counter profile"),
        (c"ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT", c"Cannot have both an agent counter collection and a dispatch counter in the same context"),
        (c"ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT", c"No context has agent profiling enabled, error generally not returned to tools"),
        (c"ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED", c"A sample is in progress and a new sample cannot be started"),
        (c"ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE", c"No profile queue is available for this agent"),
        (c"ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS", c"Counter set does not include any hardware counters"),
        (c"ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH", c"Counter profile agent does not match the agent in the context"),
        (c"ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE", c"The service is not available. Please refer to API functions that return this status code for more information."),
        (c"ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT", c"Request exceeds the capabilities of the hardware to collect"),
        (c"ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED", c"Agent HW architecture is not supported, no counter metrics found."),
        (c"ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED", c"Required permission (CAP_PERFMON) is not set, permission denied"),
    ];
    TABLE.get(status as usize).copied()
}
