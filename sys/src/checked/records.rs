//! Buffer-tracing records (`buffer_tracing.h`), as the SDK writes them into a buffer.
//!
//! Each starts with `size`, the record's size in the SDK that wrote it. Newer SDKs append fields
//! (1.3 adds `pipe_id` after the dispatch info), so readers check `size` before touching anything
//! past the 1.0 layout declared here.

use super::{
    rocprofiler_address_t, rocprofiler_agent_id_t, rocprofiler_async_correlation_id_t,
    rocprofiler_buffer_tracing_kind_t, rocprofiler_correlation_id_t, rocprofiler_kernel_dispatch_info_t,
    rocprofiler_kernel_dispatch_operation_t, rocprofiler_memory_allocation_operation_t,
    rocprofiler_memory_copy_operation_t, rocprofiler_queue_id_t, rocprofiler_runtime_initialization_operation_t,
    rocprofiler_scratch_alloc_flag_t, rocprofiler_scratch_memory_operation_t, rocprofiler_thread_id_t,
    rocprofiler_timestamp_t, rocprofiler_tracing_operation_t, zeroed_default,
};

/// A completed kernel dispatch (kind `KERNEL_DISPATCH`, 184 bytes in 1.0).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_kernel_dispatch_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    /// Always `ROCPROFILER_KERNEL_DISPATCH_COMPLETE`.
    pub operation: rocprofiler_kernel_dispatch_operation_t,
    /// `internal` is the correlation id of the API call that launched the kernel.
    pub correlation_id: rocprofiler_async_correlation_id_t,
    /// The thread that enqueued the dispatch.
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}

macro_rules! api_record {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            #[repr(C)]
            #[derive(Copy, Clone)]
            pub struct $name {
                pub size: u64,
                pub kind: rocprofiler_buffer_tracing_kind_t,
                /// The API function; its name comes from the SDK's operation-name query.
                pub operation: rocprofiler_tracing_operation_t,
                pub correlation_id: rocprofiler_correlation_id_t,
                pub start_timestamp: rocprofiler_timestamp_t,
                pub end_timestamp: rocprofiler_timestamp_t,
                pub thread_id: rocprofiler_thread_id_t,
            }
        )*
    };
}

api_record! {
    /// One HIP runtime or compiler API call (64 bytes in 1.0).
    rocprofiler_buffer_tracing_hip_api_record_t,
    /// One HSA API call (core, AMD extension, image or finalizer).
    rocprofiler_buffer_tracing_hsa_api_record_t,
    /// One ROCTx call. The message is not here: it is only available through callback tracing.
    rocprofiler_buffer_tracing_marker_api_record_t,
    /// One RCCL API call.
    rocprofiler_buffer_tracing_rccl_api_record_t,
}

/// One asynchronous memory copy (kind `MEMORY_COPY`, 96 bytes in 1.0).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_memory_copy_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    /// The direction.
    pub operation: rocprofiler_memory_copy_operation_t,
    pub correlation_id: rocprofiler_async_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
    pub dst_address: rocprofiler_address_t,
    pub src_address: rocprofiler_address_t,
}

/// One allocation or free (kind `MEMORY_ALLOCATION`, 88 bytes in 1.0).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_memory_allocation_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_memory_allocation_operation_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub agent_id: rocprofiler_agent_id_t,
    pub address: rocprofiler_address_t,
    /// Zero for frees.
    pub allocation_size: u64,
}

/// One scratch-memory event (kind `SCRATCH_MEMORY`, 96 bytes in 1.0).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_scratch_memory_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_scratch_memory_operation_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub flags: rocprofiler_scratch_alloc_flag_t,
    pub allocation_size: u64,
}

/// The last record that can name an internal correlation id has been delivered.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_buffer_tracing_correlation_id_retirement_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub timestamp: rocprofiler_timestamp_t,
    pub internal_correlation_id: u64,
}

/// A runtime (HSA, HIP, ROCTx, ...) finished initializing.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_buffer_tracing_runtime_initialization_record_t {
    pub size: u64,
    pub kind: rocprofiler_buffer_tracing_kind_t,
    pub operation: rocprofiler_runtime_initialization_operation_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub timestamp: rocprofiler_timestamp_t,
    /// `10000 * major + 100 * minor + patch` of the runtime.
    pub version: u64,
    pub instance: u64,
}

zeroed_default!(
    rocprofiler_buffer_tracing_kernel_dispatch_record_t,
    rocprofiler_buffer_tracing_hip_api_record_t,
    rocprofiler_buffer_tracing_hsa_api_record_t,
    rocprofiler_buffer_tracing_marker_api_record_t,
    rocprofiler_buffer_tracing_rccl_api_record_t,
    rocprofiler_buffer_tracing_memory_copy_record_t,
    rocprofiler_buffer_tracing_memory_allocation_record_t,
    rocprofiler_buffer_tracing_scratch_memory_record_t,
    rocprofiler_buffer_tracing_runtime_initialization_record_t,
);
