//! Every enumerator the checked declarations carry, with its SDK 1.0.0 value copied from the ABI
//! facts (gcc 12 compiling the headers at ROCm/rocm-systems 1b1610fc). Each enum is checked as a
//! whole: the type's width and signedness, and every value. Where the enum ends in `*_LAST`, the
//! list must also cover every value below it, so an enumerator cannot go unchecked.

use rocprofiler_sdk_sys::checked::*;

mod common;

#[test]
fn status() {
    common::check_enum!(rocprofiler_status_t, signed = false, sequential, {
        ROCPROFILER_STATUS_SUCCESS = 0,
        ROCPROFILER_STATUS_ERROR = 1,
        ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND = 2,
        ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND = 3,
        ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND = 4,
        ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND = 5,
        ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND = 6,
        ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND = 7,
        ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND = 8,
        ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR = 9,
        ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID = 10,
        ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED = 11,
        ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT = 12,
        ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO = 13,
        ROCPROFILER_STATUS_ERROR_BUFFER_BUSY = 14,
        ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED = 15,
        ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED = 16,
        ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED = 17,
        ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI = 18,
        ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT = 19,
        ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT = 20,
        ROCPROFILER_STATUS_ERROR_FINALIZED = 21,
        ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED = 22,
        ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND = 23,
        ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND = 24,
        ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED = 25,
        ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND = 26,
        ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD = 27,
        ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL = 28,
        ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES = 29,
        ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND = 30,
        ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT = 31,
        ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT = 32,
        ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED = 33,
        ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE = 34,
        ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS = 35,
        ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH = 36,
        ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE = 37,
        ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT = 38,
        ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED = 39,
        ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED = 40,
        ROCPROFILER_STATUS_LAST = 41,
    });
}

#[test]
fn buffer_category() {
    common::check_enum!(rocprofiler_buffer_category_t, signed = false, sequential, {
        ROCPROFILER_BUFFER_CATEGORY_NONE = 0,
        ROCPROFILER_BUFFER_CATEGORY_TRACING = 1,
        ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING = 2,
        ROCPROFILER_BUFFER_CATEGORY_COUNTERS = 3,
        ROCPROFILER_BUFFER_CATEGORY_LAST = 4,
    });
}

#[test]
fn agent_type() {
    common::check_enum!(rocprofiler_agent_type_t, signed = false, sequential, {
        ROCPROFILER_AGENT_TYPE_NONE = 0,
        ROCPROFILER_AGENT_TYPE_CPU = 1,
        ROCPROFILER_AGENT_TYPE_GPU = 2,
        ROCPROFILER_AGENT_TYPE_LAST = 3,
    });
}

#[test]
fn callback_phase() {
    common::check_enum!(rocprofiler_callback_phase_t, signed = false, sequential, {
        ROCPROFILER_CALLBACK_PHASE_NONE = 0,
        ROCPROFILER_CALLBACK_PHASE_ENTER = 1,
        ROCPROFILER_CALLBACK_PHASE_LOAD = 1,
        ROCPROFILER_CALLBACK_PHASE_EXIT = 2,
        ROCPROFILER_CALLBACK_PHASE_UNLOAD = 2,
        ROCPROFILER_CALLBACK_PHASE_LAST = 3,
    });
}

#[test]
fn callback_tracing_kind() {
    common::check_enum!(rocprofiler_callback_tracing_kind_t, signed = false, sequential, {
        ROCPROFILER_CALLBACK_TRACING_NONE = 0,
        ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API = 1,
        ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API = 2,
        ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API = 3,
        ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API = 4,
        ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API = 5,
        ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API = 6,
        ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API = 7,
        ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API = 8,
        ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API = 9,
        ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT = 10,
        ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY = 11,
        ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH = 12,
        ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY = 13,
        ROCPROFILER_CALLBACK_TRACING_RCCL_API = 14,
        ROCPROFILER_CALLBACK_TRACING_OMPT = 15,
        ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION = 16,
        ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION = 17,
        ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API = 18,
        ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API = 19,
        ROCPROFILER_CALLBACK_TRACING_HIP_STREAM = 20,
        ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API = 21,
        ROCPROFILER_CALLBACK_TRACING_LAST = 22,
    });
}

#[test]
fn buffer_tracing_kind() {
    common::check_enum!(rocprofiler_buffer_tracing_kind_t, signed = false, sequential, {
        ROCPROFILER_BUFFER_TRACING_NONE = 0,
        ROCPROFILER_BUFFER_TRACING_HSA_CORE_API = 1,
        ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API = 2,
        ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API = 3,
        ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API = 4,
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API = 5,
        ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API = 6,
        ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API = 7,
        ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API = 8,
        ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API = 9,
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY = 10,
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH = 11,
        ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY = 12,
        ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT = 13,
        ROCPROFILER_BUFFER_TRACING_RCCL_API = 14,
        ROCPROFILER_BUFFER_TRACING_OMPT = 15,
        ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION = 16,
        ROCPROFILER_BUFFER_TRACING_RUNTIME_INITIALIZATION = 17,
        ROCPROFILER_BUFFER_TRACING_ROCDECODE_API = 18,
        ROCPROFILER_BUFFER_TRACING_ROCJPEG_API = 19,
        ROCPROFILER_BUFFER_TRACING_HIP_STREAM = 20,
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT = 21,
        ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API_EXT = 22,
        ROCPROFILER_BUFFER_TRACING_ROCDECODE_API_EXT = 23,
        ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_MIGRATE = 24,
        ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_FAULT = 25,
        ROCPROFILER_BUFFER_TRACING_KFD_EVENT_QUEUE = 26,
        ROCPROFILER_BUFFER_TRACING_KFD_EVENT_UNMAP_FROM_GPU = 27,
        ROCPROFILER_BUFFER_TRACING_KFD_EVENT_DROPPED_EVENTS = 28,
        ROCPROFILER_BUFFER_TRACING_KFD_PAGE_MIGRATE = 29,
        ROCPROFILER_BUFFER_TRACING_KFD_PAGE_FAULT = 30,
        ROCPROFILER_BUFFER_TRACING_KFD_QUEUE = 31,
        ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API = 32,
        ROCPROFILER_BUFFER_TRACING_LAST = 33,
    });
}

#[test]
fn code_object_operation() {
    common::check_enum!(rocprofiler_code_object_operation_t, signed = false, sequential, {
        ROCPROFILER_CODE_OBJECT_NONE = 0,
        ROCPROFILER_CODE_OBJECT_LOAD = 1,
        ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER = 2,
        ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER = 3,
        ROCPROFILER_CODE_OBJECT_LAST = 4,
    });
}

#[test]
fn hip_stream_operation() {
    common::check_enum!(rocprofiler_hip_stream_operation_t, signed = false, sequential, {
        ROCPROFILER_HIP_STREAM_NONE = 0,
        ROCPROFILER_HIP_STREAM_CREATE = 1,
        ROCPROFILER_HIP_STREAM_DESTROY = 2,
        ROCPROFILER_HIP_STREAM_SET = 3,
        ROCPROFILER_HIP_STREAM_LAST = 4,
    });
}

#[test]
fn memory_copy_operation() {
    common::check_enum!(rocprofiler_memory_copy_operation_t, signed = false, sequential, {
        ROCPROFILER_MEMORY_COPY_NONE = 0,
        ROCPROFILER_MEMORY_COPY_HOST_TO_HOST = 1,
        ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE = 2,
        ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST = 3,
        ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE = 4,
        ROCPROFILER_MEMORY_COPY_LAST = 5,
    });
}

#[test]
fn memory_allocation_operation() {
    common::check_enum!(rocprofiler_memory_allocation_operation_t, signed = false, sequential, {
        ROCPROFILER_MEMORY_ALLOCATION_NONE = 0,
        ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE = 1,
        ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE = 2,
        ROCPROFILER_MEMORY_ALLOCATION_FREE = 3,
        ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE = 4,
        ROCPROFILER_MEMORY_ALLOCATION_LAST = 5,
    });
}

#[test]
fn kernel_dispatch_operation() {
    common::check_enum!(rocprofiler_kernel_dispatch_operation_t, signed = false, sequential, {
        ROCPROFILER_KERNEL_DISPATCH_NONE = 0,
        ROCPROFILER_KERNEL_DISPATCH_ENQUEUE = 1,
        ROCPROFILER_KERNEL_DISPATCH_COMPLETE = 2,
        ROCPROFILER_KERNEL_DISPATCH_LAST = 3,
    });
}

#[test]
fn pc_sampling_method() {
    common::check_enum!(rocprofiler_pc_sampling_method_t, signed = false, sequential, {
        ROCPROFILER_PC_SAMPLING_METHOD_NONE = 0,
        ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC = 1,
        ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP = 2,
        ROCPROFILER_PC_SAMPLING_METHOD_LAST = 3,
    });
}

#[test]
fn pc_sampling_unit() {
    common::check_enum!(rocprofiler_pc_sampling_unit_t, signed = false, sequential, {
        ROCPROFILER_PC_SAMPLING_UNIT_NONE = 0,
        ROCPROFILER_PC_SAMPLING_UNIT_INSTRUCTIONS = 1,
        ROCPROFILER_PC_SAMPLING_UNIT_CYCLES = 2,
        ROCPROFILER_PC_SAMPLING_UNIT_TIME = 3,
        ROCPROFILER_PC_SAMPLING_UNIT_LAST = 4,
    });
}

#[test]
fn buffer_policy() {
    common::check_enum!(rocprofiler_buffer_policy_t, signed = false, sequential, {
        ROCPROFILER_BUFFER_POLICY_NONE = 0,
        ROCPROFILER_BUFFER_POLICY_DISCARD = 1,
        ROCPROFILER_BUFFER_POLICY_LOSSLESS = 2,
        ROCPROFILER_BUFFER_POLICY_LAST = 3,
    });
}

#[test]
fn scratch_memory_operation() {
    common::check_enum!(rocprofiler_scratch_memory_operation_t, signed = false, sequential, {
        ROCPROFILER_SCRATCH_MEMORY_NONE = 0,
        ROCPROFILER_SCRATCH_MEMORY_ALLOC = 1,
        ROCPROFILER_SCRATCH_MEMORY_FREE = 2,
        ROCPROFILER_SCRATCH_MEMORY_ASYNC_RECLAIM = 3,
        ROCPROFILER_SCRATCH_MEMORY_LAST = 4,
    });
}

#[test]
fn runtime_library() {
    common::check_enum!(rocprofiler_runtime_library_t, signed = false, sparse, {
        ROCPROFILER_LIBRARY = 1,
        ROCPROFILER_HSA_LIBRARY = 2,
        ROCPROFILER_HIP_LIBRARY = 4,
        ROCPROFILER_MARKER_LIBRARY = 8,
        ROCPROFILER_RCCL_LIBRARY = 16,
        ROCPROFILER_ROCDECODE_LIBRARY = 32,
        ROCPROFILER_ROCJPEG_LIBRARY = 64,
        ROCPROFILER_LIBRARY_LAST = 64,
    });
}

#[test]
fn intercept_table() {
    common::check_enum!(rocprofiler_intercept_table_t, signed = false, sparse, {
        ROCPROFILER_HSA_TABLE = 1,
        ROCPROFILER_HIP_RUNTIME_TABLE = 2,
        ROCPROFILER_HIP_COMPILER_TABLE = 4,
        ROCPROFILER_MARKER_CORE_TABLE = 8,
        ROCPROFILER_MARKER_CONTROL_TABLE = 16,
        ROCPROFILER_MARKER_NAME_TABLE = 32,
        ROCPROFILER_RCCL_TABLE = 64,
        ROCPROFILER_ROCDECODE_TABLE = 128,
        ROCPROFILER_ROCJPEG_TABLE = 256,
        ROCPROFILER_TABLE_LAST = 256,
    });
}

#[test]
fn runtime_initialization_operation() {
    common::check_enum!(rocprofiler_runtime_initialization_operation_t, signed = false, sequential, {
        ROCPROFILER_RUNTIME_INITIALIZATION_NONE = 0,
        ROCPROFILER_RUNTIME_INITIALIZATION_HSA = 1,
        ROCPROFILER_RUNTIME_INITIALIZATION_HIP = 2,
        ROCPROFILER_RUNTIME_INITIALIZATION_MARKER = 3,
        ROCPROFILER_RUNTIME_INITIALIZATION_RCCL = 4,
        ROCPROFILER_RUNTIME_INITIALIZATION_ROCDECODE = 5,
        ROCPROFILER_RUNTIME_INITIALIZATION_ROCJPEG = 6,
        ROCPROFILER_RUNTIME_INITIALIZATION_LAST = 7,
    });
}

#[test]
fn counter_info_version_id() {
    common::check_enum!(rocprofiler_counter_info_version_id_t, signed = false, sequential, {
        ROCPROFILER_COUNTER_INFO_VERSION_NONE = 0,
        ROCPROFILER_COUNTER_INFO_VERSION_0 = 1,
        ROCPROFILER_COUNTER_INFO_VERSION_1 = 2,
        ROCPROFILER_COUNTER_INFO_VERSION_LAST = 3,
    });
}

#[test]
fn counter_record_kind() {
    common::check_enum!(rocprofiler_counter_record_kind_t, signed = false, sequential, {
        ROCPROFILER_COUNTER_RECORD_NONE = 0,
        ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER = 1,
        ROCPROFILER_COUNTER_RECORD_VALUE = 2,
        ROCPROFILER_COUNTER_RECORD_LAST = 3,
    });
}

#[test]
fn counter_flag() {
    common::check_enum!(rocprofiler_counter_flag_t, signed = false, sequential, {
        ROCPROFILER_COUNTER_FLAG_NONE = 0,
        ROCPROFILER_COUNTER_FLAG_ASYNC = 1,
        ROCPROFILER_COUNTER_FLAG_APPEND_DEFINITION = 2,
        ROCPROFILER_COUNTER_FLAG_LAST = 3,
    });
}

#[test]
fn pc_sampling_record_kind() {
    common::check_enum!(rocprofiler_pc_sampling_record_kind_t, signed = false, sequential, {
        ROCPROFILER_PC_SAMPLING_RECORD_NONE = 0,
        ROCPROFILER_PC_SAMPLING_RECORD_INVALID_SAMPLE = 1,
        ROCPROFILER_PC_SAMPLING_RECORD_HOST_TRAP_V0_SAMPLE = 2,
        ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE = 3,
        ROCPROFILER_PC_SAMPLING_RECORD_LAST = 4,
    });
}

#[test]
fn agent_version() {
    common::check_enum!(rocprofiler_agent_version_t, signed = false, sequential, {
        ROCPROFILER_AGENT_INFO_VERSION_NONE = 0,
        ROCPROFILER_AGENT_INFO_VERSION_0 = 1,
        ROCPROFILER_AGENT_INFO_VERSION_LAST = 2,
    });
}

#[test]
fn code_object_storage_type() {
    common::check_enum!(rocprofiler_code_object_storage_type_t, signed = false, sequential, {
        ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE = 0,
        ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE = 1,
        ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY = 2,
        ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_LAST = 3,
    });
}

#[test]
fn scratch_alloc_flag() {
    common::check_enum!(rocprofiler_scratch_alloc_flag_t, signed = false, sparse, {
        ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE = 0,
        ROCPROFILER_SCRATCH_ALLOC_FLAG_USE_ONCE = 1,
        ROCPROFILER_SCRATCH_ALLOC_FLAG_ALT = 2,
    });
}

#[test]
fn kfd_event_page_migrate_operation() {
    common::check_enum!(rocprofiler_kfd_event_page_migrate_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_NONE = -1,
        ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_PREFETCH = 0,
        ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_PAGEFAULT_GPU = 1,
        ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_PAGEFAULT_CPU = 2,
        ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_TTM_EVICTION = 3,
        ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_END = 4,
        ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_LAST = 5,
    });
}

#[test]
fn kfd_event_page_fault_operation() {
    common::check_enum!(rocprofiler_kfd_event_page_fault_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_EVENT_PAGE_FAULT_NONE = -1,
        ROCPROFILER_KFD_EVENT_PAGE_FAULT_START = 0,
        ROCPROFILER_KFD_EVENT_PAGE_FAULT_START_READ_FAULT = 1,
        ROCPROFILER_KFD_EVENT_PAGE_FAULT_START_WRITE_FAULT = 2,
        ROCPROFILER_KFD_EVENT_PAGE_FAULT_END_PAGE_MIGRATED = 3,
        ROCPROFILER_KFD_EVENT_PAGE_FAULT_END_PAGE_UPDATED = 4,
        ROCPROFILER_KFD_EVENT_PAGE_FAULT_LAST = 5,
    });
}

#[test]
fn kfd_event_queue_operation() {
    common::check_enum!(rocprofiler_kfd_event_queue_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_EVENT_QUEUE_NONE = -1,
        ROCPROFILER_KFD_EVENT_QUEUE_EVICT_SVM = 0,
        ROCPROFILER_KFD_EVENT_QUEUE_EVICT_USERPTR = 1,
        ROCPROFILER_KFD_EVENT_QUEUE_EVICT_TTM = 2,
        ROCPROFILER_KFD_EVENT_QUEUE_EVICT_SUSPEND = 3,
        ROCPROFILER_KFD_EVENT_QUEUE_EVICT_CRIU_CHECKPOINT = 4,
        ROCPROFILER_KFD_EVENT_QUEUE_EVICT_CRIU_RESTORE = 5,
        ROCPROFILER_KFD_EVENT_QUEUE_RESTORE_RESCHEDULED = 6,
        ROCPROFILER_KFD_EVENT_QUEUE_RESTORE = 7,
        ROCPROFILER_KFD_EVENT_QUEUE_LAST = 8,
    });
}

#[test]
fn kfd_event_unmap_from_gpu_operation() {
    common::check_enum!(rocprofiler_kfd_event_unmap_from_gpu_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_NONE = -1,
        ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_MMU_NOTIFY = 0,
        ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_MMU_NOTIFY_MIGRATE = 1,
        ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_UNMAP_FROM_CPU = 2,
        ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_LAST = 3,
    });
}

#[test]
fn kfd_event_dropped_events_operation() {
    common::check_enum!(rocprofiler_kfd_event_dropped_events_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_EVENT_DROPPED_EVENTS_NONE = -1,
        ROCPROFILER_KFD_EVENT_DROPPED_EVENTS = 0,
        ROCPROFILER_KFD_EVENT_DROPPED_EVENTS_LAST = 1,
    });
}

#[test]
fn kfd_page_migrate_operation() {
    common::check_enum!(rocprofiler_kfd_page_migrate_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_PAGE_MIGRATE_NONE = -1,
        ROCPROFILER_KFD_PAGE_MIGRATE_PREFETCH = 0,
        ROCPROFILER_KFD_PAGE_MIGRATE_PAGEFAULT_GPU = 1,
        ROCPROFILER_KFD_PAGE_MIGRATE_PAGEFAULT_CPU = 2,
        ROCPROFILER_KFD_PAGE_MIGRATE_TTM_EVICTION = 3,
        ROCPROFILER_KFD_PAGE_MIGRATE_LAST = 4,
    });
}

#[test]
fn kfd_page_fault_operation() {
    common::check_enum!(rocprofiler_kfd_page_fault_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_PAGE_FAULT_NONE = -1,
        ROCPROFILER_KFD_PAGE_FAULT_READ_FAULT_MIGRATED = 0,
        ROCPROFILER_KFD_PAGE_FAULT_READ_FAULT_UPDATED = 1,
        ROCPROFILER_KFD_PAGE_FAULT_WRITE_FAULT_MIGRATED = 2,
        ROCPROFILER_KFD_PAGE_FAULT_WRITE_FAULT_UPDATED = 3,
        ROCPROFILER_KFD_PAGE_FAULT_LAST = 4,
    });
}

#[test]
fn kfd_queue_operation() {
    common::check_enum!(rocprofiler_kfd_queue_operation_t, signed = true, sequential, {
        ROCPROFILER_KFD_QUEUE_NONE = -1,
        ROCPROFILER_KFD_QUEUE_EVICT_SVM = 0,
        ROCPROFILER_KFD_QUEUE_EVICT_USERPTR = 1,
        ROCPROFILER_KFD_QUEUE_EVICT_TTM = 2,
        ROCPROFILER_KFD_QUEUE_EVICT_SUSPEND = 3,
        ROCPROFILER_KFD_QUEUE_EVICT_CRIU_CHECKPOINT = 4,
        ROCPROFILER_KFD_QUEUE_EVICT_CRIU_RESTORE = 5,
        ROCPROFILER_KFD_QUEUE_LAST = 6,
    });
}

#[test]
fn marker_core_api_id() {
    common::check_enum!(rocprofiler_marker_core_api_id_t, signed = true, sequential, {
        ROCPROFILER_MARKER_CORE_API_ID_NONE = -1,
        ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA = 0,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA = 1,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop = 2,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA = 3,
        ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop = 4,
        ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId = 5,
        ROCPROFILER_MARKER_CORE_API_ID_LAST = 6,
    });
}

#[test]
fn marker_control_api_id() {
    common::check_enum!(rocprofiler_marker_control_api_id_t, signed = true, sequential, {
        ROCPROFILER_MARKER_CONTROL_API_ID_NONE = -1,
        ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause = 0,
        ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume = 1,
        ROCPROFILER_MARKER_CONTROL_API_ID_LAST = 2,
    });
}

#[test]
fn marker_name_api_id() {
    common::check_enum!(rocprofiler_marker_name_api_id_t, signed = true, sequential, {
        ROCPROFILER_MARKER_NAME_API_ID_NONE = -1,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread = 0,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent = 1,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice = 2,
        ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream = 3,
        ROCPROFILER_MARKER_NAME_API_ID_LAST = 4,
    });
}

#[test]
fn marker_core_range_api_id() {
    common::check_enum!(rocprofiler_marker_core_range_api_id_t, signed = true, sequential, {
        ROCPROFILER_MARKER_CORE_RANGE_API_ID_NONE = -1,
        ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA = 0,
        ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA = 1,
        ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA = 2,
        ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId = 3,
        ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST = 4,
    });
}
