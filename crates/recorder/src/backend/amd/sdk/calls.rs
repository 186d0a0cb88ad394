//! The rocprofiler-sdk calls the tool makes, each wrapped once (cudarc's result layer over its
//! sys layer): typed handles in and out, and the status turned into a [`Result`] that names
//! the call. Nothing above this module calls the SDK's function table itself.
//!
//! The wrappers keep the SDK's rules of order (most set-up calls are valid only inside the
//! tool's `initialize`); those that hand the SDK a callback and a data pointer are `unsafe`,
//! since the SDK calls back with that pointer for as long as the service lives.

use std::ffi::{CStr, c_char, c_void};

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::handles::{AgentId, BufferId, CallbackThreadId, ContextId, CounterConfigId, CounterId};
use crate::error::{Result, check};
use crate::guard::Visit;

/// A new context, stopped.
pub fn create_context(api: &SdkApi) -> Result<ContextId> {
    let mut id = sys::rocprofiler_context_id_t { handle: 0 };
    // SAFETY: a valid out-pointer.
    check("rocprofiler_create_context", unsafe { (api.rocprofiler_create_context)(&mut id) })?;
    Ok(id.into())
}

/// Starts `context`'s services.
pub fn start_context(api: &SdkApi, context: ContextId) -> Result<()> {
    // SAFETY: a plain handle; the SDK checks that it names a context.
    check("rocprofiler_start_context", unsafe { (api.rocprofiler_start_context)(context.into()) })
}

/// Stops `context`'s services.
pub fn stop_context(api: &SdkApi, context: ContextId) -> Result<()> {
    // SAFETY: a plain handle; the SDK checks that it names a context.
    check("rocprofiler_stop_context", unsafe { (api.rocprofiler_stop_context)(context.into()) })
}

/// A record buffer of `bytes` in `context`, handed to `callback` with `data` when `watermark`
/// bytes are full or it is flushed.
///
/// # Safety
/// The SDK calls `callback` on its threads with `data` for as long as the buffer lives: `data`
/// must stay valid (or be null) and `callback` must not unwind.
pub unsafe fn create_buffer(
    api: &SdkApi,
    context: ContextId,
    bytes: usize,
    watermark: usize,
    policy: sys::rocprofiler_buffer_policy_t,
    callback: sys::rocprofiler_buffer_tracing_cb_t,
    data: *mut c_void,
) -> Result<BufferId> {
    let mut id = sys::rocprofiler_buffer_id_t { handle: 0 };
    // SAFETY: a valid out-pointer; the callback and data are the caller's promise.
    let status =
        unsafe { (api.rocprofiler_create_buffer)(context.into(), bytes, watermark, policy, callback, data, &mut id) };
    check("rocprofiler_create_buffer", status)?;
    Ok(id.into())
}

/// Hands `buffer`'s records to its callback now, and waits until it has returned.
pub fn flush_buffer(api: &SdkApi, buffer: BufferId) -> Result<()> {
    // SAFETY: a plain handle; the SDK checks that it names a buffer.
    check("rocprofiler_flush_buffer", unsafe { (api.rocprofiler_flush_buffer)(buffer.into()) })
}

/// A new thread of the SDK's to run buffer callbacks on.
pub fn create_callback_thread(api: &SdkApi) -> Result<CallbackThreadId> {
    let mut id = sys::rocprofiler_callback_thread_t { handle: 0 };
    // SAFETY: a valid out-pointer.
    check("rocprofiler_create_callback_thread", unsafe { (api.rocprofiler_create_callback_thread)(&mut id) })?;
    Ok(id.into())
}

/// Runs `buffer`'s callbacks on `thread`.
pub fn assign_callback_thread(api: &SdkApi, buffer: BufferId, thread: CallbackThreadId) -> Result<()> {
    // SAFETY: plain handles; the SDK checks them.
    let status = unsafe { (api.rocprofiler_assign_callback_thread)(buffer.into(), thread.into()) };
    check("rocprofiler_assign_callback_thread", status)
}

/// Records every operation of buffer-tracing `kind` into `buffer`, while `context` runs.
pub fn configure_buffer_tracing_service(api: &SdkApi, context: ContextId, kind: u32, buffer: BufferId) -> Result<()> {
    // SAFETY: plain handles; no operation list (all operations).
    let status = unsafe {
        (api.rocprofiler_configure_buffer_tracing_service)(context.into(), kind, std::ptr::null(), 0, buffer.into())
    };
    check("rocprofiler_configure_buffer_tracing_service", status)
}

/// Calls `callback` with `data` at every operation of callback-tracing `kind`, while
/// `context` runs.
///
/// # Safety
/// As [`create_buffer`]: `data` stays valid while the service lives, and `callback` does not
/// unwind.
pub unsafe fn configure_callback_tracing_service(
    api: &SdkApi,
    context: ContextId,
    kind: u32,
    callback: sys::rocprofiler_callback_tracing_cb_t,
    data: *mut c_void,
) -> Result<()> {
    // SAFETY: no operation list (all operations); the callback and data are the caller's promise.
    let status = unsafe {
        (api.rocprofiler_configure_callback_tracing_service)(context.into(), kind, std::ptr::null(), 0, callback, data)
    };
    check("rocprofiler_configure_callback_tracing_service", status)
}

/// Counts hardware counters at each dispatch in `context`, the configuration chosen per
/// dispatch by `callback` (with `data`), the values written into `buffer`.
///
/// # Safety
/// As [`create_buffer`].
pub unsafe fn configure_buffer_dispatch_counting_service(
    api: &SdkApi,
    context: ContextId,
    buffer: BufferId,
    callback: sys::rocprofiler_dispatch_counting_service_cb_t,
    data: *mut c_void,
) -> Result<()> {
    // SAFETY: plain handles; the callback and data are the caller's promise.
    let status = unsafe {
        (api.rocprofiler_configure_buffer_dispatch_counting_service)(context.into(), buffer.into(), callback, data)
    };
    check("rocprofiler_configure_buffer_dispatch_counting_service", status)
}

/// A counter configuration of `counters` on `agent`: what one dispatch collects in one pass.
/// An `Error::Sdk` says why the set does not fit.
pub fn create_counter_config(api: &SdkApi, agent: AgentId, counters: &[CounterId]) -> Result<CounterConfigId> {
    let mut ids: Vec<sys::rocprofiler_counter_id_t> = counters.iter().map(|&c| c.into()).collect();
    let mut config = sys::rocprofiler_counter_config_id_t { handle: 0 };
    // SAFETY: `ids` holds `ids.len()` counter ids (the SDK takes the list as mutable but only
    // reads it); `config` is a valid out-pointer.
    let status =
        unsafe { (api.rocprofiler_create_counter_config)(agent.into(), ids.as_mut_ptr(), ids.len(), &mut config) };
    check("rocprofiler_create_counter_config", status)?;
    Ok(config.into())
}

/// Releases a configuration no dispatch will use.
pub fn destroy_counter_config(api: &SdkApi, config: CounterConfigId) -> Result<()> {
    // SAFETY: a plain handle; the SDK checks it.
    check("rocprofiler_destroy_counter_config", unsafe { (api.rocprofiler_destroy_counter_config)(config.into()) })
}

/// The counter a counter record's instance id belongs to.
pub fn record_counter_id(api: &SdkApi, instance: sys::rocprofiler_counter_instance_id_t) -> Result<CounterId> {
    let mut counter = sys::rocprofiler_counter_id_t { handle: 0 };
    // SAFETY: a valid out-pointer.
    check("rocprofiler_query_record_counter_id", unsafe {
        (api.rocprofiler_query_record_counter_id)(instance, &mut counter)
    })?;
    Ok(counter.into())
}

/// Fills `out` with counter `counter`'s description, as struct version `version`.
///
/// # Safety
/// `out` points to writable, 8-byte aligned memory at least as large as the SDK's struct of
/// that version (a newer SDK's is larger).
pub unsafe fn query_counter_info(api: &SdkApi, counter: CounterId, version: u32, out: *mut c_void) -> Result<()> {
    // SAFETY: the caller's promise on `out`.
    check("rocprofiler_query_counter_info", unsafe {
        (api.rocprofiler_query_counter_info)(counter.into(), version, out)
    })
}

/// Calls `visit` with `data` and the counters `agent` supports.
///
/// # Safety
/// `data` is valid for the call, and `visit` does not unwind.
pub unsafe fn iterate_agent_supported_counters(
    api: &SdkApi,
    agent: AgentId,
    visit: sys::rocprofiler_available_counters_cb_t,
    data: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's promise on `visit` and `data`.
    let status = unsafe { (api.rocprofiler_iterate_agent_supported_counters)(agent.into(), visit, data) };
    check("rocprofiler_iterate_agent_supported_counters", status)
}

/// Calls `visit` with `data` and every agent, as structs of `struct_size` bytes of `version`.
///
/// # Safety
/// `data` is valid for the call, and `visit` does not unwind.
pub unsafe fn query_available_agents(
    api: &SdkApi,
    version: sys::rocprofiler_agent_version_t,
    visit: sys::rocprofiler_query_available_agents_cb_t,
    struct_size: usize,
    data: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's promise on `visit` and `data`.
    let status = unsafe { (api.rocprofiler_query_available_agents)(version, visit, struct_size, data) };
    check("rocprofiler_query_available_agents", status)
}

/// Which kind of tracing an operation belongs to: the SDK numbers each apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tracing {
    /// Records into a buffer.
    Buffer,
    /// A callback at the operation itself.
    Callback,
}

/// Every operation of `kind`; `on_panic` is told of a panic in the visitor. An iteration the
/// SDK refuses gives none, which a caller treats as a kind without names.
pub fn operations(api: &SdkApi, tracing: Tracing, kind: u32, on_panic: fn(&str)) -> Vec<i32> {
    unsafe extern "C" fn visit(_kind: u32, op: i32, data: *mut c_void) -> std::ffi::c_int {
        // SAFETY: `data` is the `Visit` below, alive for the iteration.
        let ops = unsafe { &mut *data.cast::<Visit<i32>>() };
        // Zero continues the iteration; the SDK stops at the first non-zero.
        crate::guard::catch_panic("the operation iteration", 1, ops.on_panic, || {
            ops.items.push(op);
            0
        })
    }
    let mut ops = Visit::<i32>::new(on_panic);
    let data = (&mut ops as *mut Visit<i32>).cast::<c_void>();
    let _ = match tracing {
        // SAFETY: a visitor that cannot unwind, and data that outlives the call.
        Tracing::Buffer => unsafe { (api.rocprofiler_iterate_buffer_tracing_kind_operations)(kind, Some(visit), data) },
        // SAFETY: as above.
        Tracing::Callback => unsafe {
            (api.rocprofiler_iterate_callback_tracing_kind_operations)(kind, Some(visit), data)
        },
    };
    ops.items
}

/// The name of operation `op` of `kind`: the SDK's, static.
pub fn operation_name(api: &SdkApi, tracing: Tracing, kind: u32, op: i32) -> Result<&'static CStr> {
    let mut name: *const c_char = std::ptr::null();
    let length = std::ptr::null_mut();
    let status = match tracing {
        // SAFETY: valid out-pointers; the length is optional.
        Tracing::Buffer => unsafe {
            (api.rocprofiler_query_buffer_tracing_kind_operation_name)(kind, op, &mut name, length)
        },
        // SAFETY: as above.
        Tracing::Callback => unsafe {
            (api.rocprofiler_query_callback_tracing_kind_operation_name)(kind, op, &mut name, length)
        },
    };
    check("rocprofiler_query_tracing_kind_operation_name", status)?;
    static_name(name)
}

/// The name of buffer-tracing `kind`: the SDK's, static.
pub fn buffer_tracing_kind_name(api: &SdkApi, kind: u32) -> Result<&'static CStr> {
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: valid out-pointers; the length is optional.
    let status = unsafe { (api.rocprofiler_query_buffer_tracing_kind_name)(kind, &mut name, std::ptr::null_mut()) };
    check("rocprofiler_query_buffer_tracing_kind_name", status)?;
    static_name(name)
}

fn static_name(name: *const c_char) -> Result<&'static CStr> {
    if name.is_null() {
        return Err(crate::Error::Sdk { call: "a name query", status: crate::Status::Error });
    }
    // SAFETY: the SDK's names are static NUL-terminated strings.
    Ok(unsafe { CStr::from_ptr(name) })
}

/// Configures the tool `configure` names now, outside the SDK's own tool discovery (the
/// in-process profiler, `avail`). Fails with `CONFIGURATION_LOCKED` once the SDK has
/// initialized.
pub fn force_configure(api: &SdkApi, configure: sys::rocprofiler_configure_func_t) -> Result<()> {
    // SAFETY: a configure function of the SDK's signature, valid for the process lifetime.
    check("rocprofiler_force_configure", unsafe { (api.rocprofiler_force_configure)(configure) })
}
