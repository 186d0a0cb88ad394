//! Every enumeration of the rocprofiler-sdk 1.0 public headers that the project reads or passes.
//!
//! Written in the shape bindgen gives them with `EnumVariation::Consts` and
//! `prepend_enum_name(false)`: a `c_uint`/`c_int` alias plus one constant per enumerator, so code
//! written against these names compiles unchanged against generated bindings. Values are those
//! of SDK 1.0.0 (ROCm 7.0); `tests/abi_enums.rs` holds the same numbers and checks every one.
//! Later SDKs only insert enumerators before `*_LAST`, so readers must treat unknown kinds and
//! operations as opaque rather than as errors.

use std::os::raw::{c_int, c_uint};

/// `rocprofiler_status_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_status_t = c_uint;
pub const ROCPROFILER_STATUS_SUCCESS: rocprofiler_status_t = 0;
pub const ROCPROFILER_STATUS_ERROR: rocprofiler_status_t = 1;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND: rocprofiler_status_t = 2;
pub const ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND: rocprofiler_status_t = 3;
pub const ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND: rocprofiler_status_t = 4;
pub const ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND: rocprofiler_status_t = 5;
pub const ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND: rocprofiler_status_t = 6;
pub const ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND: rocprofiler_status_t = 7;
pub const ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND: rocprofiler_status_t = 8;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR: rocprofiler_status_t = 9;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID: rocprofiler_status_t = 10;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED: rocprofiler_status_t = 11;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT: rocprofiler_status_t = 12;
pub const ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO: rocprofiler_status_t = 13;
pub const ROCPROFILER_STATUS_ERROR_BUFFER_BUSY: rocprofiler_status_t = 14;
pub const ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED: rocprofiler_status_t = 15;
pub const ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED: rocprofiler_status_t = 16;
pub const ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED: rocprofiler_status_t = 17;
pub const ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI: rocprofiler_status_t = 18;
pub const ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT: rocprofiler_status_t = 19;
pub const ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT: rocprofiler_status_t = 20;
pub const ROCPROFILER_STATUS_ERROR_FINALIZED: rocprofiler_status_t = 21;
pub const ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED: rocprofiler_status_t = 22;
pub const ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND: rocprofiler_status_t = 23;
pub const ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND: rocprofiler_status_t = 24;
pub const ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED: rocprofiler_status_t = 25;
pub const ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND: rocprofiler_status_t = 26;
pub const ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD: rocprofiler_status_t = 27;
pub const ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL: rocprofiler_status_t = 28;
pub const ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES: rocprofiler_status_t = 29;
pub const ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND: rocprofiler_status_t = 30;
pub const ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT: rocprofiler_status_t = 31;
pub const ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT: rocprofiler_status_t = 32;
pub const ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED: rocprofiler_status_t = 33;
pub const ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE: rocprofiler_status_t = 34;
pub const ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS: rocprofiler_status_t = 35;
pub const ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH: rocprofiler_status_t = 36;
pub const ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE: rocprofiler_status_t = 37;
pub const ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT: rocprofiler_status_t = 38;
pub const ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED: rocprofiler_status_t = 39;
pub const ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED: rocprofiler_status_t = 40;
pub const ROCPROFILER_STATUS_LAST: rocprofiler_status_t = 41;

/// `rocprofiler_buffer_category_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_buffer_category_t = c_uint;
pub const ROCPROFILER_BUFFER_CATEGORY_NONE: rocprofiler_buffer_category_t = 0;
pub const ROCPROFILER_BUFFER_CATEGORY_TRACING: rocprofiler_buffer_category_t = 1;
pub const ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING: rocprofiler_buffer_category_t = 2;
pub const ROCPROFILER_BUFFER_CATEGORY_COUNTERS: rocprofiler_buffer_category_t = 3;
pub const ROCPROFILER_BUFFER_CATEGORY_LAST: rocprofiler_buffer_category_t = 4;

/// `rocprofiler_agent_type_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_agent_type_t = c_uint;
pub const ROCPROFILER_AGENT_TYPE_NONE: rocprofiler_agent_type_t = 0;
pub const ROCPROFILER_AGENT_TYPE_CPU: rocprofiler_agent_type_t = 1;
pub const ROCPROFILER_AGENT_TYPE_GPU: rocprofiler_agent_type_t = 2;
pub const ROCPROFILER_AGENT_TYPE_LAST: rocprofiler_agent_type_t = 3;

/// `rocprofiler_callback_phase_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_callback_phase_t = c_uint;
pub const ROCPROFILER_CALLBACK_PHASE_NONE: rocprofiler_callback_phase_t = 0;
pub const ROCPROFILER_CALLBACK_PHASE_ENTER: rocprofiler_callback_phase_t = 1;
pub const ROCPROFILER_CALLBACK_PHASE_LOAD: rocprofiler_callback_phase_t = 1;
pub const ROCPROFILER_CALLBACK_PHASE_EXIT: rocprofiler_callback_phase_t = 2;
pub const ROCPROFILER_CALLBACK_PHASE_UNLOAD: rocprofiler_callback_phase_t = 2;
pub const ROCPROFILER_CALLBACK_PHASE_LAST: rocprofiler_callback_phase_t = 3;

/// `rocprofiler_callback_tracing_kind_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_callback_tracing_kind_t = c_uint;
pub const ROCPROFILER_CALLBACK_TRACING_NONE: rocprofiler_callback_tracing_kind_t = 0;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API: rocprofiler_callback_tracing_kind_t = 1;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API: rocprofiler_callback_tracing_kind_t = 2;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API: rocprofiler_callback_tracing_kind_t = 3;
pub const ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API: rocprofiler_callback_tracing_kind_t = 4;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API: rocprofiler_callback_tracing_kind_t = 5;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API: rocprofiler_callback_tracing_kind_t = 6;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API: rocprofiler_callback_tracing_kind_t = 7;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API: rocprofiler_callback_tracing_kind_t = 8;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API: rocprofiler_callback_tracing_kind_t = 9;
pub const ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT: rocprofiler_callback_tracing_kind_t = 10;
pub const ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY: rocprofiler_callback_tracing_kind_t = 11;
pub const ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH: rocprofiler_callback_tracing_kind_t = 12;
pub const ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY: rocprofiler_callback_tracing_kind_t = 13;
pub const ROCPROFILER_CALLBACK_TRACING_RCCL_API: rocprofiler_callback_tracing_kind_t = 14;
pub const ROCPROFILER_CALLBACK_TRACING_OMPT: rocprofiler_callback_tracing_kind_t = 15;
pub const ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION: rocprofiler_callback_tracing_kind_t = 16;
pub const ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION: rocprofiler_callback_tracing_kind_t = 17;
pub const ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API: rocprofiler_callback_tracing_kind_t = 18;
pub const ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API: rocprofiler_callback_tracing_kind_t = 19;
pub const ROCPROFILER_CALLBACK_TRACING_HIP_STREAM: rocprofiler_callback_tracing_kind_t = 20;
pub const ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API: rocprofiler_callback_tracing_kind_t = 21;
pub const ROCPROFILER_CALLBACK_TRACING_LAST: rocprofiler_callback_tracing_kind_t = 22;

/// `rocprofiler_buffer_tracing_kind_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_buffer_tracing_kind_t = c_uint;
pub const ROCPROFILER_BUFFER_TRACING_NONE: rocprofiler_buffer_tracing_kind_t = 0;
pub const ROCPROFILER_BUFFER_TRACING_HSA_CORE_API: rocprofiler_buffer_tracing_kind_t = 1;
pub const ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API: rocprofiler_buffer_tracing_kind_t = 2;
pub const ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API: rocprofiler_buffer_tracing_kind_t = 3;
pub const ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API: rocprofiler_buffer_tracing_kind_t = 4;
pub const ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API: rocprofiler_buffer_tracing_kind_t = 5;
pub const ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API: rocprofiler_buffer_tracing_kind_t = 6;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API: rocprofiler_buffer_tracing_kind_t = 7;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API: rocprofiler_buffer_tracing_kind_t = 8;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API: rocprofiler_buffer_tracing_kind_t = 9;
pub const ROCPROFILER_BUFFER_TRACING_MEMORY_COPY: rocprofiler_buffer_tracing_kind_t = 10;
pub const ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH: rocprofiler_buffer_tracing_kind_t = 11;
pub const ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY: rocprofiler_buffer_tracing_kind_t = 12;
pub const ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT: rocprofiler_buffer_tracing_kind_t = 13;
pub const ROCPROFILER_BUFFER_TRACING_RCCL_API: rocprofiler_buffer_tracing_kind_t = 14;
pub const ROCPROFILER_BUFFER_TRACING_OMPT: rocprofiler_buffer_tracing_kind_t = 15;
pub const ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION: rocprofiler_buffer_tracing_kind_t = 16;
pub const ROCPROFILER_BUFFER_TRACING_RUNTIME_INITIALIZATION: rocprofiler_buffer_tracing_kind_t = 17;
pub const ROCPROFILER_BUFFER_TRACING_ROCDECODE_API: rocprofiler_buffer_tracing_kind_t = 18;
pub const ROCPROFILER_BUFFER_TRACING_ROCJPEG_API: rocprofiler_buffer_tracing_kind_t = 19;
pub const ROCPROFILER_BUFFER_TRACING_HIP_STREAM: rocprofiler_buffer_tracing_kind_t = 20;
pub const ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT: rocprofiler_buffer_tracing_kind_t = 21;
pub const ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API_EXT: rocprofiler_buffer_tracing_kind_t = 22;
pub const ROCPROFILER_BUFFER_TRACING_ROCDECODE_API_EXT: rocprofiler_buffer_tracing_kind_t = 23;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_MIGRATE: rocprofiler_buffer_tracing_kind_t = 24;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_FAULT: rocprofiler_buffer_tracing_kind_t = 25;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_QUEUE: rocprofiler_buffer_tracing_kind_t = 26;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_UNMAP_FROM_GPU: rocprofiler_buffer_tracing_kind_t = 27;
pub const ROCPROFILER_BUFFER_TRACING_KFD_EVENT_DROPPED_EVENTS: rocprofiler_buffer_tracing_kind_t = 28;
pub const ROCPROFILER_BUFFER_TRACING_KFD_PAGE_MIGRATE: rocprofiler_buffer_tracing_kind_t = 29;
pub const ROCPROFILER_BUFFER_TRACING_KFD_PAGE_FAULT: rocprofiler_buffer_tracing_kind_t = 30;
pub const ROCPROFILER_BUFFER_TRACING_KFD_QUEUE: rocprofiler_buffer_tracing_kind_t = 31;
pub const ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API: rocprofiler_buffer_tracing_kind_t = 32;
pub const ROCPROFILER_BUFFER_TRACING_LAST: rocprofiler_buffer_tracing_kind_t = 33;

/// `rocprofiler_code_object_operation_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_code_object_operation_t = c_uint;
pub const ROCPROFILER_CODE_OBJECT_NONE: rocprofiler_code_object_operation_t = 0;
pub const ROCPROFILER_CODE_OBJECT_LOAD: rocprofiler_code_object_operation_t = 1;
pub const ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER: rocprofiler_code_object_operation_t = 2;
pub const ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER: rocprofiler_code_object_operation_t = 3;
pub const ROCPROFILER_CODE_OBJECT_LAST: rocprofiler_code_object_operation_t = 4;

/// `rocprofiler_hip_stream_operation_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_hip_stream_operation_t = c_uint;
pub const ROCPROFILER_HIP_STREAM_NONE: rocprofiler_hip_stream_operation_t = 0;
pub const ROCPROFILER_HIP_STREAM_CREATE: rocprofiler_hip_stream_operation_t = 1;
pub const ROCPROFILER_HIP_STREAM_DESTROY: rocprofiler_hip_stream_operation_t = 2;
pub const ROCPROFILER_HIP_STREAM_SET: rocprofiler_hip_stream_operation_t = 3;
pub const ROCPROFILER_HIP_STREAM_LAST: rocprofiler_hip_stream_operation_t = 4;

/// `rocprofiler_memory_copy_operation_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_memory_copy_operation_t = c_uint;
pub const ROCPROFILER_MEMORY_COPY_NONE: rocprofiler_memory_copy_operation_t = 0;
pub const ROCPROFILER_MEMORY_COPY_HOST_TO_HOST: rocprofiler_memory_copy_operation_t = 1;
pub const ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE: rocprofiler_memory_copy_operation_t = 2;
pub const ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST: rocprofiler_memory_copy_operation_t = 3;
pub const ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE: rocprofiler_memory_copy_operation_t = 4;
pub const ROCPROFILER_MEMORY_COPY_LAST: rocprofiler_memory_copy_operation_t = 5;

/// `rocprofiler_memory_allocation_operation_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_memory_allocation_operation_t = c_uint;
pub const ROCPROFILER_MEMORY_ALLOCATION_NONE: rocprofiler_memory_allocation_operation_t = 0;
pub const ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE: rocprofiler_memory_allocation_operation_t = 1;
pub const ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE: rocprofiler_memory_allocation_operation_t = 2;
pub const ROCPROFILER_MEMORY_ALLOCATION_FREE: rocprofiler_memory_allocation_operation_t = 3;
pub const ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE: rocprofiler_memory_allocation_operation_t = 4;
pub const ROCPROFILER_MEMORY_ALLOCATION_LAST: rocprofiler_memory_allocation_operation_t = 5;

/// `rocprofiler_kernel_dispatch_operation_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_kernel_dispatch_operation_t = c_uint;
pub const ROCPROFILER_KERNEL_DISPATCH_NONE: rocprofiler_kernel_dispatch_operation_t = 0;
pub const ROCPROFILER_KERNEL_DISPATCH_ENQUEUE: rocprofiler_kernel_dispatch_operation_t = 1;
pub const ROCPROFILER_KERNEL_DISPATCH_COMPLETE: rocprofiler_kernel_dispatch_operation_t = 2;
pub const ROCPROFILER_KERNEL_DISPATCH_LAST: rocprofiler_kernel_dispatch_operation_t = 3;

/// `rocprofiler_pc_sampling_method_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_pc_sampling_method_t = c_uint;
pub const ROCPROFILER_PC_SAMPLING_METHOD_NONE: rocprofiler_pc_sampling_method_t = 0;
pub const ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC: rocprofiler_pc_sampling_method_t = 1;
pub const ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP: rocprofiler_pc_sampling_method_t = 2;
pub const ROCPROFILER_PC_SAMPLING_METHOD_LAST: rocprofiler_pc_sampling_method_t = 3;

/// `rocprofiler_pc_sampling_unit_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_pc_sampling_unit_t = c_uint;
pub const ROCPROFILER_PC_SAMPLING_UNIT_NONE: rocprofiler_pc_sampling_unit_t = 0;
pub const ROCPROFILER_PC_SAMPLING_UNIT_INSTRUCTIONS: rocprofiler_pc_sampling_unit_t = 1;
pub const ROCPROFILER_PC_SAMPLING_UNIT_CYCLES: rocprofiler_pc_sampling_unit_t = 2;
pub const ROCPROFILER_PC_SAMPLING_UNIT_TIME: rocprofiler_pc_sampling_unit_t = 3;
pub const ROCPROFILER_PC_SAMPLING_UNIT_LAST: rocprofiler_pc_sampling_unit_t = 4;

/// `rocprofiler_buffer_policy_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_buffer_policy_t = c_uint;
pub const ROCPROFILER_BUFFER_POLICY_NONE: rocprofiler_buffer_policy_t = 0;
pub const ROCPROFILER_BUFFER_POLICY_DISCARD: rocprofiler_buffer_policy_t = 1;
pub const ROCPROFILER_BUFFER_POLICY_LOSSLESS: rocprofiler_buffer_policy_t = 2;
pub const ROCPROFILER_BUFFER_POLICY_LAST: rocprofiler_buffer_policy_t = 3;

/// `rocprofiler_scratch_memory_operation_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_scratch_memory_operation_t = c_uint;
pub const ROCPROFILER_SCRATCH_MEMORY_NONE: rocprofiler_scratch_memory_operation_t = 0;
pub const ROCPROFILER_SCRATCH_MEMORY_ALLOC: rocprofiler_scratch_memory_operation_t = 1;
pub const ROCPROFILER_SCRATCH_MEMORY_FREE: rocprofiler_scratch_memory_operation_t = 2;
pub const ROCPROFILER_SCRATCH_MEMORY_ASYNC_RECLAIM: rocprofiler_scratch_memory_operation_t = 3;
pub const ROCPROFILER_SCRATCH_MEMORY_LAST: rocprofiler_scratch_memory_operation_t = 4;

/// `rocprofiler_runtime_library_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_runtime_library_t = c_uint;
pub const ROCPROFILER_LIBRARY: rocprofiler_runtime_library_t = 1;
pub const ROCPROFILER_HSA_LIBRARY: rocprofiler_runtime_library_t = 2;
pub const ROCPROFILER_HIP_LIBRARY: rocprofiler_runtime_library_t = 4;
pub const ROCPROFILER_MARKER_LIBRARY: rocprofiler_runtime_library_t = 8;
pub const ROCPROFILER_RCCL_LIBRARY: rocprofiler_runtime_library_t = 16;
pub const ROCPROFILER_ROCDECODE_LIBRARY: rocprofiler_runtime_library_t = 32;
pub const ROCPROFILER_ROCJPEG_LIBRARY: rocprofiler_runtime_library_t = 64;
pub const ROCPROFILER_LIBRARY_LAST: rocprofiler_runtime_library_t = 64;

/// `rocprofiler_intercept_table_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_intercept_table_t = c_uint;
pub const ROCPROFILER_HSA_TABLE: rocprofiler_intercept_table_t = 1;
pub const ROCPROFILER_HIP_RUNTIME_TABLE: rocprofiler_intercept_table_t = 2;
pub const ROCPROFILER_HIP_COMPILER_TABLE: rocprofiler_intercept_table_t = 4;
pub const ROCPROFILER_MARKER_CORE_TABLE: rocprofiler_intercept_table_t = 8;
pub const ROCPROFILER_MARKER_CONTROL_TABLE: rocprofiler_intercept_table_t = 16;
pub const ROCPROFILER_MARKER_NAME_TABLE: rocprofiler_intercept_table_t = 32;
pub const ROCPROFILER_RCCL_TABLE: rocprofiler_intercept_table_t = 64;
pub const ROCPROFILER_ROCDECODE_TABLE: rocprofiler_intercept_table_t = 128;
pub const ROCPROFILER_ROCJPEG_TABLE: rocprofiler_intercept_table_t = 256;
pub const ROCPROFILER_TABLE_LAST: rocprofiler_intercept_table_t = 256;

/// `rocprofiler_runtime_initialization_operation_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_runtime_initialization_operation_t = c_uint;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_NONE: rocprofiler_runtime_initialization_operation_t = 0;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_HSA: rocprofiler_runtime_initialization_operation_t = 1;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_HIP: rocprofiler_runtime_initialization_operation_t = 2;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_MARKER: rocprofiler_runtime_initialization_operation_t = 3;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_RCCL: rocprofiler_runtime_initialization_operation_t = 4;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_ROCDECODE: rocprofiler_runtime_initialization_operation_t = 5;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_ROCJPEG: rocprofiler_runtime_initialization_operation_t = 6;
pub const ROCPROFILER_RUNTIME_INITIALIZATION_LAST: rocprofiler_runtime_initialization_operation_t = 7;

/// `rocprofiler_counter_info_version_id_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_counter_info_version_id_t = c_uint;
pub const ROCPROFILER_COUNTER_INFO_VERSION_NONE: rocprofiler_counter_info_version_id_t = 0;
pub const ROCPROFILER_COUNTER_INFO_VERSION_0: rocprofiler_counter_info_version_id_t = 1;
pub const ROCPROFILER_COUNTER_INFO_VERSION_1: rocprofiler_counter_info_version_id_t = 2;
pub const ROCPROFILER_COUNTER_INFO_VERSION_LAST: rocprofiler_counter_info_version_id_t = 3;

/// `rocprofiler_counter_record_kind_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_counter_record_kind_t = c_uint;
pub const ROCPROFILER_COUNTER_RECORD_NONE: rocprofiler_counter_record_kind_t = 0;
pub const ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER: rocprofiler_counter_record_kind_t = 1;
pub const ROCPROFILER_COUNTER_RECORD_VALUE: rocprofiler_counter_record_kind_t = 2;
pub const ROCPROFILER_COUNTER_RECORD_LAST: rocprofiler_counter_record_kind_t = 3;

/// `rocprofiler_counter_flag_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_counter_flag_t = c_uint;
pub const ROCPROFILER_COUNTER_FLAG_NONE: rocprofiler_counter_flag_t = 0;
pub const ROCPROFILER_COUNTER_FLAG_ASYNC: rocprofiler_counter_flag_t = 1;
pub const ROCPROFILER_COUNTER_FLAG_APPEND_DEFINITION: rocprofiler_counter_flag_t = 2;
pub const ROCPROFILER_COUNTER_FLAG_LAST: rocprofiler_counter_flag_t = 3;

/// `rocprofiler_pc_sampling_record_kind_t` from `rocprofiler-sdk/fwd.h`.
pub type rocprofiler_pc_sampling_record_kind_t = c_uint;
pub const ROCPROFILER_PC_SAMPLING_RECORD_NONE: rocprofiler_pc_sampling_record_kind_t = 0;
pub const ROCPROFILER_PC_SAMPLING_RECORD_INVALID_SAMPLE: rocprofiler_pc_sampling_record_kind_t = 1;
pub const ROCPROFILER_PC_SAMPLING_RECORD_HOST_TRAP_V0_SAMPLE: rocprofiler_pc_sampling_record_kind_t = 2;
pub const ROCPROFILER_PC_SAMPLING_RECORD_STOCHASTIC_V0_SAMPLE: rocprofiler_pc_sampling_record_kind_t = 3;
pub const ROCPROFILER_PC_SAMPLING_RECORD_LAST: rocprofiler_pc_sampling_record_kind_t = 4;

/// `rocprofiler_agent_version_t` from `rocprofiler-sdk/agent.h`.
pub type rocprofiler_agent_version_t = c_uint;
pub const ROCPROFILER_AGENT_INFO_VERSION_NONE: rocprofiler_agent_version_t = 0;
pub const ROCPROFILER_AGENT_INFO_VERSION_0: rocprofiler_agent_version_t = 1;
pub const ROCPROFILER_AGENT_INFO_VERSION_LAST: rocprofiler_agent_version_t = 2;

/// `rocprofiler_code_object_storage_type_t` from `rocprofiler-sdk/callback_tracing.h`.
pub type rocprofiler_code_object_storage_type_t = c_uint;
pub const ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_NONE: rocprofiler_code_object_storage_type_t = 0;
pub const ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE: rocprofiler_code_object_storage_type_t = 1;
pub const ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY: rocprofiler_code_object_storage_type_t = 2;
pub const ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_LAST: rocprofiler_code_object_storage_type_t = 3;

/// `rocprofiler_scratch_alloc_flag_t` from `rocprofiler-sdk/hsa/scratch_memory_id.h`.
pub type rocprofiler_scratch_alloc_flag_t = c_uint;
pub const ROCPROFILER_SCRATCH_ALLOC_FLAG_NONE: rocprofiler_scratch_alloc_flag_t = 0;
pub const ROCPROFILER_SCRATCH_ALLOC_FLAG_USE_ONCE: rocprofiler_scratch_alloc_flag_t = 1;
pub const ROCPROFILER_SCRATCH_ALLOC_FLAG_ALT: rocprofiler_scratch_alloc_flag_t = 2;

/// `rocprofiler_kfd_event_page_migrate_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_event_page_migrate_operation_t = c_int;
pub const ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_NONE: rocprofiler_kfd_event_page_migrate_operation_t = -1;
pub const ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_PREFETCH: rocprofiler_kfd_event_page_migrate_operation_t = 0;
pub const ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_PAGEFAULT_GPU: rocprofiler_kfd_event_page_migrate_operation_t = 1;
pub const ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_PAGEFAULT_CPU: rocprofiler_kfd_event_page_migrate_operation_t = 2;
pub const ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_TTM_EVICTION: rocprofiler_kfd_event_page_migrate_operation_t = 3;
pub const ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_END: rocprofiler_kfd_event_page_migrate_operation_t = 4;
pub const ROCPROFILER_KFD_EVENT_PAGE_MIGRATE_LAST: rocprofiler_kfd_event_page_migrate_operation_t = 5;

/// `rocprofiler_kfd_event_page_fault_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_event_page_fault_operation_t = c_int;
pub const ROCPROFILER_KFD_EVENT_PAGE_FAULT_NONE: rocprofiler_kfd_event_page_fault_operation_t = -1;
pub const ROCPROFILER_KFD_EVENT_PAGE_FAULT_START: rocprofiler_kfd_event_page_fault_operation_t = 0;
pub const ROCPROFILER_KFD_EVENT_PAGE_FAULT_START_READ_FAULT: rocprofiler_kfd_event_page_fault_operation_t = 1;
pub const ROCPROFILER_KFD_EVENT_PAGE_FAULT_START_WRITE_FAULT: rocprofiler_kfd_event_page_fault_operation_t = 2;
pub const ROCPROFILER_KFD_EVENT_PAGE_FAULT_END_PAGE_MIGRATED: rocprofiler_kfd_event_page_fault_operation_t = 3;
pub const ROCPROFILER_KFD_EVENT_PAGE_FAULT_END_PAGE_UPDATED: rocprofiler_kfd_event_page_fault_operation_t = 4;
pub const ROCPROFILER_KFD_EVENT_PAGE_FAULT_LAST: rocprofiler_kfd_event_page_fault_operation_t = 5;

/// `rocprofiler_kfd_event_queue_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_event_queue_operation_t = c_int;
pub const ROCPROFILER_KFD_EVENT_QUEUE_NONE: rocprofiler_kfd_event_queue_operation_t = -1;
pub const ROCPROFILER_KFD_EVENT_QUEUE_EVICT_SVM: rocprofiler_kfd_event_queue_operation_t = 0;
pub const ROCPROFILER_KFD_EVENT_QUEUE_EVICT_USERPTR: rocprofiler_kfd_event_queue_operation_t = 1;
pub const ROCPROFILER_KFD_EVENT_QUEUE_EVICT_TTM: rocprofiler_kfd_event_queue_operation_t = 2;
pub const ROCPROFILER_KFD_EVENT_QUEUE_EVICT_SUSPEND: rocprofiler_kfd_event_queue_operation_t = 3;
pub const ROCPROFILER_KFD_EVENT_QUEUE_EVICT_CRIU_CHECKPOINT: rocprofiler_kfd_event_queue_operation_t = 4;
pub const ROCPROFILER_KFD_EVENT_QUEUE_EVICT_CRIU_RESTORE: rocprofiler_kfd_event_queue_operation_t = 5;
pub const ROCPROFILER_KFD_EVENT_QUEUE_RESTORE_RESCHEDULED: rocprofiler_kfd_event_queue_operation_t = 6;
pub const ROCPROFILER_KFD_EVENT_QUEUE_RESTORE: rocprofiler_kfd_event_queue_operation_t = 7;
pub const ROCPROFILER_KFD_EVENT_QUEUE_LAST: rocprofiler_kfd_event_queue_operation_t = 8;

/// `rocprofiler_kfd_event_unmap_from_gpu_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_event_unmap_from_gpu_operation_t = c_int;
pub const ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_NONE: rocprofiler_kfd_event_unmap_from_gpu_operation_t = -1;
pub const ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_MMU_NOTIFY: rocprofiler_kfd_event_unmap_from_gpu_operation_t = 0;
pub const ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_MMU_NOTIFY_MIGRATE: rocprofiler_kfd_event_unmap_from_gpu_operation_t = 1;
pub const ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_UNMAP_FROM_CPU: rocprofiler_kfd_event_unmap_from_gpu_operation_t = 2;
pub const ROCPROFILER_KFD_EVENT_UNMAP_FROM_GPU_LAST: rocprofiler_kfd_event_unmap_from_gpu_operation_t = 3;

/// `rocprofiler_kfd_event_dropped_events_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_event_dropped_events_operation_t = c_int;
pub const ROCPROFILER_KFD_EVENT_DROPPED_EVENTS_NONE: rocprofiler_kfd_event_dropped_events_operation_t = -1;
pub const ROCPROFILER_KFD_EVENT_DROPPED_EVENTS: rocprofiler_kfd_event_dropped_events_operation_t = 0;
pub const ROCPROFILER_KFD_EVENT_DROPPED_EVENTS_LAST: rocprofiler_kfd_event_dropped_events_operation_t = 1;

/// `rocprofiler_kfd_page_migrate_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_page_migrate_operation_t = c_int;
pub const ROCPROFILER_KFD_PAGE_MIGRATE_NONE: rocprofiler_kfd_page_migrate_operation_t = -1;
pub const ROCPROFILER_KFD_PAGE_MIGRATE_PREFETCH: rocprofiler_kfd_page_migrate_operation_t = 0;
pub const ROCPROFILER_KFD_PAGE_MIGRATE_PAGEFAULT_GPU: rocprofiler_kfd_page_migrate_operation_t = 1;
pub const ROCPROFILER_KFD_PAGE_MIGRATE_PAGEFAULT_CPU: rocprofiler_kfd_page_migrate_operation_t = 2;
pub const ROCPROFILER_KFD_PAGE_MIGRATE_TTM_EVICTION: rocprofiler_kfd_page_migrate_operation_t = 3;
pub const ROCPROFILER_KFD_PAGE_MIGRATE_LAST: rocprofiler_kfd_page_migrate_operation_t = 4;

/// `rocprofiler_kfd_page_fault_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_page_fault_operation_t = c_int;
pub const ROCPROFILER_KFD_PAGE_FAULT_NONE: rocprofiler_kfd_page_fault_operation_t = -1;
pub const ROCPROFILER_KFD_PAGE_FAULT_READ_FAULT_MIGRATED: rocprofiler_kfd_page_fault_operation_t = 0;
pub const ROCPROFILER_KFD_PAGE_FAULT_READ_FAULT_UPDATED: rocprofiler_kfd_page_fault_operation_t = 1;
pub const ROCPROFILER_KFD_PAGE_FAULT_WRITE_FAULT_MIGRATED: rocprofiler_kfd_page_fault_operation_t = 2;
pub const ROCPROFILER_KFD_PAGE_FAULT_WRITE_FAULT_UPDATED: rocprofiler_kfd_page_fault_operation_t = 3;
pub const ROCPROFILER_KFD_PAGE_FAULT_LAST: rocprofiler_kfd_page_fault_operation_t = 4;

/// `rocprofiler_kfd_queue_operation_t` from `rocprofiler-sdk/kfd/kfd_id.h`.
pub type rocprofiler_kfd_queue_operation_t = c_int;
pub const ROCPROFILER_KFD_QUEUE_NONE: rocprofiler_kfd_queue_operation_t = -1;
pub const ROCPROFILER_KFD_QUEUE_EVICT_SVM: rocprofiler_kfd_queue_operation_t = 0;
pub const ROCPROFILER_KFD_QUEUE_EVICT_USERPTR: rocprofiler_kfd_queue_operation_t = 1;
pub const ROCPROFILER_KFD_QUEUE_EVICT_TTM: rocprofiler_kfd_queue_operation_t = 2;
pub const ROCPROFILER_KFD_QUEUE_EVICT_SUSPEND: rocprofiler_kfd_queue_operation_t = 3;
pub const ROCPROFILER_KFD_QUEUE_EVICT_CRIU_CHECKPOINT: rocprofiler_kfd_queue_operation_t = 4;
pub const ROCPROFILER_KFD_QUEUE_EVICT_CRIU_RESTORE: rocprofiler_kfd_queue_operation_t = 5;
pub const ROCPROFILER_KFD_QUEUE_LAST: rocprofiler_kfd_queue_operation_t = 6;

/// `rocprofiler_marker_core_api_id_t` from `rocprofiler-sdk/marker/api_id.h`.
pub type rocprofiler_marker_core_api_id_t = c_int;
pub const ROCPROFILER_MARKER_CORE_API_ID_NONE: rocprofiler_marker_core_api_id_t = -1;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA: rocprofiler_marker_core_api_id_t = 0;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA: rocprofiler_marker_core_api_id_t = 1;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop: rocprofiler_marker_core_api_id_t = 2;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA: rocprofiler_marker_core_api_id_t = 3;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop: rocprofiler_marker_core_api_id_t = 4;
pub const ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId: rocprofiler_marker_core_api_id_t = 5;
pub const ROCPROFILER_MARKER_CORE_API_ID_LAST: rocprofiler_marker_core_api_id_t = 6;

/// `rocprofiler_marker_control_api_id_t` from `rocprofiler-sdk/marker/api_id.h`.
pub type rocprofiler_marker_control_api_id_t = c_int;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_NONE: rocprofiler_marker_control_api_id_t = -1;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause: rocprofiler_marker_control_api_id_t = 0;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume: rocprofiler_marker_control_api_id_t = 1;
pub const ROCPROFILER_MARKER_CONTROL_API_ID_LAST: rocprofiler_marker_control_api_id_t = 2;

/// `rocprofiler_marker_name_api_id_t` from `rocprofiler-sdk/marker/api_id.h`.
pub type rocprofiler_marker_name_api_id_t = c_int;
pub const ROCPROFILER_MARKER_NAME_API_ID_NONE: rocprofiler_marker_name_api_id_t = -1;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread: rocprofiler_marker_name_api_id_t = 0;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent: rocprofiler_marker_name_api_id_t = 1;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice: rocprofiler_marker_name_api_id_t = 2;
pub const ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream: rocprofiler_marker_name_api_id_t = 3;
pub const ROCPROFILER_MARKER_NAME_API_ID_LAST: rocprofiler_marker_name_api_id_t = 4;

/// `rocprofiler_marker_core_range_api_id_t` from `rocprofiler-sdk/marker/api_id.h`.
pub type rocprofiler_marker_core_range_api_id_t = c_int;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_NONE: rocprofiler_marker_core_range_api_id_t = -1;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA: rocprofiler_marker_core_range_api_id_t = 0;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA: rocprofiler_marker_core_range_api_id_t = 1;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA: rocprofiler_marker_core_range_api_id_t = 2;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId: rocprofiler_marker_core_range_api_id_t = 3;
pub const ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST: rocprofiler_marker_core_range_api_id_t = 4;

/// `rocprofiler_hip_runtime_api_id_t` from `rocprofiler-sdk/hip/runtime_api_id.h`: the HIP
/// runtime functions, numbered in HIP's dispatch-table order.
///
/// Only the functions the project names are declared (the enum has about 470); every other id is
/// valid and its name comes from `rocprofiler_query_*_tracing_kind_operation_name`.
pub type rocprofiler_hip_runtime_api_id_t = c_int;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_NONE: rocprofiler_hip_runtime_api_id_t = -1;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize: rocprofiler_hip_runtime_api_id_t = 66;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreate: rocprofiler_hip_runtime_api_id_t = 76;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventElapsedTime: rocprofiler_hip_runtime_api_id_t = 79;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord: rocprofiler_hip_runtime_api_id_t = 81;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipEventSynchronize: rocprofiler_hip_runtime_api_id_t = 82;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtLaunchKernel: rocprofiler_hip_runtime_api_id_t = 84;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFree: rocprofiler_hip_runtime_api_id_t = 90;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipFreeAsync: rocprofiler_hip_runtime_api_id_t = 92;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDevice: rocprofiler_hip_runtime_api_id_t = 102;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount: rocprofiler_hip_runtime_api_id_t = 103;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGetLastError: rocprofiler_hip_runtime_api_id_t = 109;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch: rocprofiler_hip_runtime_api_id_t = 166;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipHostMalloc: rocprofiler_hip_runtime_api_id_t = 197;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchCooperativeKernel: rocprofiler_hip_runtime_api_id_t = 211;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel: rocprofiler_hip_runtime_api_id_t = 214;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc: rocprofiler_hip_runtime_api_id_t = 215;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMallocAsync: rocprofiler_hip_runtime_api_id_t = 219;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpy: rocprofiler_hip_runtime_api_id_t = 259;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync: rocprofiler_hip_runtime_api_id_t = 268;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyHtoD: rocprofiler_hip_runtime_api_id_t = 278;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipMemsetAsync: rocprofiler_hip_runtime_api_id_t = 293;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLaunchKernel: rocprofiler_hip_runtime_api_id_t = 308;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipModuleLoadData: rocprofiler_hip_runtime_api_id_t = 310;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice: rocprofiler_hip_runtime_api_id_t = 327;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate: rocprofiler_hip_runtime_api_id_t = 334;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy: rocprofiler_hip_runtime_api_id_t = 337;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize: rocprofiler_hip_runtime_api_id_t = 346;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent: rocprofiler_hip_runtime_api_id_t = 348;
pub const ROCPROFILER_HIP_RUNTIME_API_ID_hipExtModuleLaunchKernel: rocprofiler_hip_runtime_api_id_t = 388;
