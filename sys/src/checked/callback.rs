//! Callback-tracing payloads (`callback_tracing.h`): what `record.payload` points to, by kind.
//! Valid only during the callback.

use std::os::raw::{c_char, c_int};

use super::{
    hsa_agent_t, rocprofiler_address_t, rocprofiler_agent_id_t, rocprofiler_code_object_storage_type_t,
    rocprofiler_kernel_dispatch_info_t, rocprofiler_timestamp_t, zeroed_default,
};

/// A code object was loaded onto an agent (operation `CODE_OBJECT_LOAD`, 88 bytes).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_load_data_t {
    pub size: u64,
    /// Unique per load.
    pub code_object_id: u64,
    pub __bindgen_anon_1: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1,
    pub hsa_agent: hsa_agent_t,
    /// `file://path#offset=..&size=..` or `memory://pid#offset=..&size=..`.
    pub uri: *const c_char,
    pub load_base: u64,
    pub load_size: u64,
    pub load_delta: i64,
    pub storage_type: rocprofiler_code_object_storage_type_t,
    pub __bindgen_anon_2: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_2,
}

/// The agent the code object was loaded on (`rocp_agent` is the pre-0.6 name).
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1 {
    pub rocp_agent: rocprofiler_agent_id_t,
    pub agent_id: rocprofiler_agent_id_t,
}

/// Where the code object lives: a file descriptor or a memory range, by `storage_type`.
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_2 {
    pub __bindgen_anon_1: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_2__bindgen_ty_1,
    pub __bindgen_anon_2: rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_2__bindgen_ty_2,
}

/// `storage_type == FILE`.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_2__bindgen_ty_1 {
    pub storage_file: c_int,
}

/// `storage_type == MEMORY`.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_2__bindgen_ty_2 {
    pub memory_base: u64,
    pub memory_size: u64,
}

/// A kernel symbol of a loaded code object (operation `DEVICE_KERNEL_SYMBOL_REGISTER`, 88 bytes).
/// Register counts are the SDK's decoding of the kernel descriptor.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t {
    pub size: u64,
    /// Equals `dispatch_info.kernel_id` of this kernel's dispatches.
    pub kernel_id: u64,
    pub code_object_id: u64,
    /// Mangled, NUL-terminated; may be null.
    pub kernel_name: *const c_char,
    pub kernel_object: u64,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_alignment: u32,
    /// Static LDS bytes.
    pub group_segment_size: u32,
    /// Static scratch bytes per work-item.
    pub private_segment_size: u32,
    pub sgpr_count: u32,
    pub arch_vgpr_count: u32,
    pub accum_vgpr_count: u32,
    pub kernel_code_entry_byte_offset: i64,
    pub kernel_address: rocprofiler_address_t,
}

/// Payload of callback kind `KERNEL_DISPATCH` (152 bytes).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_callback_tracing_kernel_dispatch_data_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dispatch_info: rocprofiler_kernel_dispatch_info_t,
}

/// Payload of callback kind `MEMORY_COPY`; timestamps are set only at exit.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_memory_copy_data_t {
    pub size: u64,
    pub start_timestamp: rocprofiler_timestamp_t,
    pub end_timestamp: rocprofiler_timestamp_t,
    pub dst_agent_id: rocprofiler_agent_id_t,
    pub src_agent_id: rocprofiler_agent_id_t,
    pub bytes: u64,
    pub dst_address: rocprofiler_address_t,
    pub src_address: rocprofiler_address_t,
}

zeroed_default!(
    rocprofiler_callback_tracing_code_object_load_data_t,
    rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_1,
    rocprofiler_callback_tracing_code_object_load_data_t__bindgen_ty_2,
    rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t,
    rocprofiler_callback_tracing_kernel_dispatch_data_t,
    rocprofiler_callback_tracing_memory_copy_data_t,
);

/// `roctx_range_id_t`: the id `roctxRangeStartA` returns.
pub type roctx_range_id_t = u64;
/// `roctx_thread_id_t`: an OS thread id as ROCTx reports it.
pub type roctx_thread_id_t = u64;

/// HIP's opaque stream type; only ever behind a pointer.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ihipStream_t {
    _unused: [u8; 0],
}

/// Stand-in for an empty C argument struct, which is one byte in C++ and zero in C.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_marker_api_no_args {
    pub empty: c_char,
}

/// What a ROCTx call returned, by function.
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_marker_api_retval_t {
    pub int32_t_retval: i32,
    pub int64_t_retval: i64,
    pub roctx_range_id_t_retval: roctx_range_id_t,
}

macro_rules! marker_args {
    ($($ty:ident { $($field:ident: $fty:ty),* }),* $(,)?) => {$(
        #[repr(C)]
        #[derive(Copy, Clone)]
        pub struct $ty {
            $(pub $field: $fty,)*
        }
    )*};
}

marker_args! {
    rocprofiler_marker_api_args_t__bindgen_ty_1 { message: *const c_char },
    rocprofiler_marker_api_args_t__bindgen_ty_2 { message: *const c_char },
    rocprofiler_marker_api_args_t__bindgen_ty_3 { no_args: rocprofiler_marker_api_no_args },
    rocprofiler_marker_api_args_t__bindgen_ty_4 { message: *const c_char },
    rocprofiler_marker_api_args_t__bindgen_ty_5 { id: roctx_range_id_t },
    rocprofiler_marker_api_args_t__bindgen_ty_6 { tid: *mut roctx_thread_id_t },
    rocprofiler_marker_api_args_t__bindgen_ty_7 { tid: roctx_thread_id_t },
    rocprofiler_marker_api_args_t__bindgen_ty_8 { tid: roctx_thread_id_t },
    rocprofiler_marker_api_args_t__bindgen_ty_9 { name: *const c_char },
    rocprofiler_marker_api_args_t__bindgen_ty_10 { name: *const c_char, agent: *const hsa_agent_t },
    rocprofiler_marker_api_args_t__bindgen_ty_11 { name: *const c_char, device_id: c_int },
    rocprofiler_marker_api_args_t__bindgen_ty_12 { name: *const c_char, stream: *const ihipStream_t },
    rocprofiler_marker_api_args_t__bindgen_ty_13 { message: *const c_char },
    rocprofiler_marker_api_args_t__bindgen_ty_14 { message: *const c_char },
}

/// The arguments of a ROCTx call, by function. Message pointers belong to the application and
/// are valid only during the callback.
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_marker_api_args_t {
    pub roctxMarkA: rocprofiler_marker_api_args_t__bindgen_ty_1,
    pub roctxRangePushA: rocprofiler_marker_api_args_t__bindgen_ty_2,
    pub roctxRangePop: rocprofiler_marker_api_args_t__bindgen_ty_3,
    pub roctxRangeStartA: rocprofiler_marker_api_args_t__bindgen_ty_4,
    pub roctxRangeStop: rocprofiler_marker_api_args_t__bindgen_ty_5,
    pub roctxGetThreadId: rocprofiler_marker_api_args_t__bindgen_ty_6,
    pub roctxProfilerPause: rocprofiler_marker_api_args_t__bindgen_ty_7,
    pub roctxProfilerResume: rocprofiler_marker_api_args_t__bindgen_ty_8,
    pub roctxNameOsThread: rocprofiler_marker_api_args_t__bindgen_ty_9,
    pub roctxNameHsaAgent: rocprofiler_marker_api_args_t__bindgen_ty_10,
    pub roctxNameHipDevice: rocprofiler_marker_api_args_t__bindgen_ty_11,
    pub roctxNameHipStream: rocprofiler_marker_api_args_t__bindgen_ty_12,
    pub roctxThreadRangeA: rocprofiler_marker_api_args_t__bindgen_ty_13,
    pub roctxProcessRangeA: rocprofiler_marker_api_args_t__bindgen_ty_14,
}

/// Payload of the marker callback kinds (`MARKER_CORE_API`, `MARKER_CORE_RANGE_API`, ...), 32
/// bytes. The only place ROCTx messages are available: buffer records carry no text.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_marker_api_data_t {
    pub size: u64,
    pub args: rocprofiler_marker_api_args_t,
    pub retval: rocprofiler_marker_api_retval_t,
}

zeroed_default!(
    rocprofiler_marker_api_retval_t,
    rocprofiler_marker_api_args_t,
    rocprofiler_callback_tracing_marker_api_data_t,
);
