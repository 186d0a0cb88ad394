//! Basic types, handles and the tool entry (`fwd.h`, `registration.h`, `buffer.h`,
//! `callback_tracing.h`, `agent.h`, `internal_threading.h`).

use std::os::raw::{c_char, c_int, c_void};

use super::{
    rocprofiler_agent_version_t, rocprofiler_buffer_tracing_kind_t, rocprofiler_callback_phase_t,
    rocprofiler_callback_tracing_kind_t, rocprofiler_runtime_library_t, rocprofiler_status_t, zeroed_default,
};

/// Nanoseconds of `CLOCK_BOOTTIME`; every SDK timestamp, GPU ones included, is in this domain.
pub type rocprofiler_timestamp_t = u64;
/// `syscall(SYS_gettid)` of the thread concerned.
pub type rocprofiler_thread_id_t = u64;
/// An operation within a tracing kind. Its values depend on the runtime's API table version, so
/// the project maps them to names at run time and never hard-codes them.
pub type rocprofiler_tracing_operation_t = i32;
/// One id per (code object load, kernel symbol); starts at 1.
pub type rocprofiler_kernel_id_t = u64;
/// Unique per dispatch.
pub type rocprofiler_dispatch_id_t = u64;
/// Encodes a counter id and its dimension positions; decode only through the SDK.
pub type rocprofiler_counter_instance_id_t = u64;
/// A counter dimension (XCC, SE, ...).
pub type rocprofiler_counter_dimension_id_t = u64;

/// Tool-owned data carried through the SDK.
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_user_data_t {
    pub value: u64,
    pub ptr: *mut c_void,
}

/// A device or host address.
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_address_t {
    pub handle: u64,
    pub value: u64,
    pub ptr: *const c_void,
}

/// A device UUID; 16 bytes since 1.0 (0.6 had an 8-byte union here).
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_uuid_t {
    pub bytes: [u8; 16],
}

/// `{major, minor, patch}` of the loaded SDK.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_version_triplet_t {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

macro_rules! handle {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            #[repr(C)]
            #[derive(Debug, Default, Copy, Clone)]
            pub struct $name {
                pub handle: u64,
            }
        )*
    };
}

handle! {
    /// A context: a set of services that start and stop together. Zero is "none".
    rocprofiler_context_id_t,
    /// The SDK's handle of an HSA queue (not a HIP stream).
    rocprofiler_queue_id_t,
    /// A HIP stream as the SDK names it.
    rocprofiler_stream_id_t,
    /// A buffer that batches records for a buffer-tracing callback.
    rocprofiler_buffer_id_t,
    /// A CPU or GPU agent.
    rocprofiler_agent_id_t,
    /// A hardware or derived counter.
    rocprofiler_counter_id_t,
    /// A set of counters to collect together on one agent.
    rocprofiler_counter_config_id_t,
    /// A thread the SDK delivers buffer callbacks on.
    rocprofiler_callback_thread_t,
}

/// Correlation of a synchronous API record (24 bytes since 1.0; 0.x had 16).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_correlation_id_t {
    pub internal: u64,
    pub external: rocprofiler_user_data_t,
    pub ancestor: u64,
}

/// Correlation of an asynchronous record (kernel, copy): the launching API call's ids.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_async_correlation_id_t {
    pub internal: u64,
    pub external: rocprofiler_user_data_t,
}

/// Three extents, as in a grid or workgroup size.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_dim3_t {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// The `{category, kind}` pair of a record header, overlaid by its 64-bit hash.
#[repr(C)]
#[derive(Copy, Clone)]
pub union rocprofiler_record_header_t__bindgen_ty_1 {
    pub __bindgen_anon_1: rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1,
    pub hash: u64,
}

/// `category` is a `rocprofiler_buffer_category_t`; `kind` depends on it.
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct rocprofiler_record_header_t__bindgen_ty_1__bindgen_ty_1 {
    pub category: u32,
    pub kind: u32,
}

/// One record in a buffer callback. `payload` is valid only during the callback.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_record_header_t {
    pub __bindgen_anon_1: rocprofiler_record_header_t__bindgen_ty_1,
    pub payload: *mut c_void,
}

/// A callback-tracing event, passed by value (64 bytes since 1.0).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rocprofiler_callback_tracing_record_t {
    pub context_id: rocprofiler_context_id_t,
    pub thread_id: rocprofiler_thread_id_t,
    pub correlation_id: rocprofiler_correlation_id_t,
    pub kind: rocprofiler_callback_tracing_kind_t,
    pub operation: rocprofiler_tracing_operation_t,
    pub phase: rocprofiler_callback_phase_t,
    pub payload: *mut c_void,
}

/// The stable 128-byte description of a dispatch shared by every dispatch record.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_kernel_dispatch_info_t {
    pub size: u64,
    pub agent_id: rocprofiler_agent_id_t,
    pub queue_id: rocprofiler_queue_id_t,
    pub kernel_id: rocprofiler_kernel_id_t,
    pub dispatch_id: rocprofiler_dispatch_id_t,
    /// Scratch bytes per work-item at run time (static and dynamic).
    pub private_segment_size: u32,
    /// LDS bytes per work-group at run time (static and dynamic).
    pub group_segment_size: u32,
    pub workgroup_size: rocprofiler_dim3_t,
    /// Total work-items, not work-groups.
    pub grid_size: rocprofiler_dim3_t,
    pub reserved_padding: [u8; 56],
}

/// Who a tool is, as the SDK sees it; `name` may be set by the tool during configure.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_client_id_t {
    pub size: usize,
    pub name: *const c_char,
    pub handle: u32,
}

/// Ends this client's profiling early (the SDK passes the client id by value).
pub type rocprofiler_client_finalize_t = Option<unsafe extern "C" fn(arg1: rocprofiler_client_id_t)>;

/// Called once after configure; the only window in which services may be set up. The SDK
/// ignores the returned int.
pub type rocprofiler_tool_initialize_t =
    Option<unsafe extern "C" fn(finalize_func: rocprofiler_client_finalize_t, tool_data: *mut c_void) -> c_int>;

/// Called exactly once, from the SDK's atexit handler or through the finalize function.
pub type rocprofiler_tool_finalize_t = Option<unsafe extern "C" fn(tool_data: *mut c_void)>;

/// What `rocprofiler_configure` returns; the SDK copies it.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct rocprofiler_tool_configure_result_t {
    pub size: usize,
    pub initialize: rocprofiler_tool_initialize_t,
    pub finalize: rocprofiler_tool_finalize_t,
    pub tool_data: *mut c_void,
}

/// The signature of `rocprofiler_configure`, as passed to `rocprofiler_force_configure`.
pub type rocprofiler_configure_func_t = Option<
    unsafe extern "C" fn(
        version: u32,
        runtime_version: *const c_char,
        priority: u32,
        client_id: *mut rocprofiler_client_id_t,
    ) -> *mut rocprofiler_tool_configure_result_t,
>;

/// Receives a batch of buffered records and the buffer's cumulative drop count.
pub type rocprofiler_buffer_tracing_cb_t = Option<
    unsafe extern "C" fn(
        context: rocprofiler_context_id_t,
        buffer_id: rocprofiler_buffer_id_t,
        headers: *mut *mut rocprofiler_record_header_t,
        num_headers: usize,
        data: *mut c_void,
        drop_count: u64,
    ),
>;

/// Receives one callback-tracing event; `user_data` persists from enter to exit.
pub type rocprofiler_callback_tracing_cb_t = Option<
    unsafe extern "C" fn(
        record: rocprofiler_callback_tracing_record_t,
        user_data: *mut rocprofiler_user_data_t,
        callback_data: *mut c_void,
    ),
>;

/// Visits one buffer-tracing kind; return 0 to continue (the SDK stops at the first non-zero).
pub type rocprofiler_buffer_tracing_kind_cb_t =
    Option<unsafe extern "C" fn(kind: rocprofiler_buffer_tracing_kind_t, data: *mut c_void) -> c_int>;

/// Visits one operation of a buffer-tracing kind; return 0 to continue (the SDK stops at the first non-zero).
pub type rocprofiler_buffer_tracing_kind_operation_cb_t = Option<
    unsafe extern "C" fn(
        kind: rocprofiler_buffer_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        data: *mut c_void,
    ) -> c_int,
>;

/// Visits one callback-tracing kind; return 0 to continue (the SDK stops at the first non-zero).
pub type rocprofiler_callback_tracing_kind_cb_t =
    Option<unsafe extern "C" fn(kind: rocprofiler_callback_tracing_kind_t, data: *mut c_void) -> c_int>;

/// Visits one operation of a callback-tracing kind; return 0 to continue (the SDK stops at the first non-zero).
pub type rocprofiler_callback_tracing_kind_operation_cb_t = Option<
    unsafe extern "C" fn(
        kind: rocprofiler_callback_tracing_kind_t,
        operation: rocprofiler_tracing_operation_t,
        data: *mut c_void,
    ) -> c_int,
>;

/// Receives the agents: `agents` is an array of `const rocprofiler_agent_v0_t*`.
pub type rocprofiler_query_available_agents_cb_t = Option<
    unsafe extern "C" fn(
        version: rocprofiler_agent_version_t,
        agents: *mut *const c_void,
        num_agents: usize,
        user_data: *mut c_void,
    ) -> rocprofiler_status_t,
>;

/// Runs before or after the SDK creates one of its internal threads.
pub type rocprofiler_internal_thread_library_cb_t =
    Option<unsafe extern "C" fn(arg1: rocprofiler_runtime_library_t, arg2: *mut c_void)>;

zeroed_default!(
    rocprofiler_user_data_t,
    rocprofiler_address_t,
    rocprofiler_correlation_id_t,
    rocprofiler_async_correlation_id_t,
    rocprofiler_record_header_t__bindgen_ty_1,
    rocprofiler_record_header_t,
    rocprofiler_callback_tracing_record_t,
    rocprofiler_kernel_dispatch_info_t,
    rocprofiler_client_id_t,
    rocprofiler_tool_configure_result_t,
);
