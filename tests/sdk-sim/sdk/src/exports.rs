//! The exported C functions: the SDK 1.0 API the tools call, then the `rocprofiler_sim_*`
//! runtime interface the driver calls. Each is a trampoline: check arguments and the lifecycle,
//! delegate, and never let a panic cross into C.
//!
//! [`_exports_have_the_sdk_signatures`] assigns every export to the sys crate's `SdkApi` table,
//! so a signature that differs from the declarations the project checks fails to compile.

use std::ffi::{CStr, c_char, c_int, c_void};

use rocprof_sim::runtime_abi::*;
use rocprofiler_sdk_sys::sdk::SdkApi;
use rocprofiler_sdk_sys::*;

use crate::context::Counting;
use crate::ffi::status;
use crate::{agents, buffer, clock, context, counters, dispatch, names, pc_sampling, registration, runtime, threads};

macro_rules! out {
    ($ptr:expr, $value:expr) => {{
        let ptr = $ptr;
        if ptr.is_null() {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: non-null output pointer the caller passed for this value, per the API.
        unsafe { ptr.write($value) };
    }};
}

fn locked() -> bool {
    !registration::configuring()
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_get_version(major: *mut u32, minor: *mut u32, patch: *mut u32) -> rocprofiler_status_t {
    status("rocprofiler_get_version", || {
        for (ptr, v) in [(major, 1), (minor, 0), (patch, 0)] {
            if !ptr.is_null() {
                // SAFETY: non-null output pointer.
                unsafe { ptr.write(v) };
            }
        }
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_get_version_triplet(info: *mut rocprofiler_version_triplet_t) -> rocprofiler_status_t {
    status("rocprofiler_get_version_triplet", || {
        out!(info, rocprofiler_version_triplet_t { major: 1, minor: 0, patch: 0 });
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_get_status_name(s: rocprofiler_status_t) -> *const c_char {
    crate::ffi::guard("rocprofiler_get_status_name", std::ptr::null(), || {
        names::status(s).map_or(std::ptr::null(), |n| n.0.as_ptr())
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_get_status_string(s: rocprofiler_status_t) -> *const c_char {
    crate::ffi::guard("rocprofiler_get_status_string", std::ptr::null(), || {
        names::status(s).map_or(std::ptr::null(), |n| n.1.as_ptr())
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_get_timestamp(ts: *mut rocprofiler_timestamp_t) -> rocprofiler_status_t {
    status("rocprofiler_get_timestamp", || {
        out!(ts, clock::now_ns());
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_get_thread_id(tid: *mut rocprofiler_thread_id_t) -> rocprofiler_status_t {
    status("rocprofiler_get_thread_id", || {
        out!(tid, clock::thread_id());
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_is_initialized(s: *mut c_int) -> rocprofiler_status_t {
    status("rocprofiler_is_initialized", || {
        out!(s, registration::init_status());
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_is_finalized(s: *mut c_int) -> rocprofiler_status_t {
    status("rocprofiler_is_finalized", || {
        out!(s, registration::fini_status());
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_force_configure(configure: rocprofiler_configure_func_t) -> rocprofiler_status_t {
    status("rocprofiler_force_configure", || registration::force(configure))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_create_context(id: *mut rocprofiler_context_id_t) -> rocprofiler_status_t {
    status("rocprofiler_create_context", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        if id.is_null() {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: non-null pointer to the tool's context id.
        if unsafe { id.read() }.handle != 0 {
            return ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO;
        }
        out!(id, rocprofiler_context_id_t { handle: context::create(registration::current_client()) });
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_start_context(id: rocprofiler_context_id_t) -> rocprofiler_status_t {
    status("rocprofiler_start_context", || {
        if registration::fini_status() != 0 {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        let Some(ctx) = context::get(id.handle) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
        ctx.set_active(true);
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_stop_context(id: rocprofiler_context_id_t) -> rocprofiler_status_t {
    status("rocprofiler_stop_context", || {
        let Some(ctx) = context::get(id.handle) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
        ctx.set_active(false);
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_context_is_active(id: rocprofiler_context_id_t, s: *mut c_int) -> rocprofiler_status_t {
    status("rocprofiler_context_is_active", || {
        let Some(ctx) = context::get(id.handle) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
        out!(s, c_int::from(ctx.is_active()));
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_context_is_valid(id: rocprofiler_context_id_t, s: *mut c_int) -> rocprofiler_status_t {
    status("rocprofiler_context_is_valid", || {
        out!(s, c_int::from(context::get(id.handle).is_some()));
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_create_buffer(
    ctx: rocprofiler_context_id_t,
    size: usize,
    watermark: usize,
    policy: rocprofiler_buffer_policy_t,
    callback: rocprofiler_buffer_tracing_cb_t,
    data: *mut c_void,
    id: *mut rocprofiler_buffer_id_t,
) -> rocprofiler_status_t {
    status("rocprofiler_create_buffer", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        if context::get(ctx.handle).is_none() {
            return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
        }
        if id.is_null() {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        match buffer::create(ctx.handle, size, watermark, policy, callback, data as usize) {
            Ok(handle) => {
                out!(id, rocprofiler_buffer_id_t { handle });
                ROCPROFILER_STATUS_SUCCESS
            }
            Err(e) => e,
        }
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_flush_buffer(id: rocprofiler_buffer_id_t) -> rocprofiler_status_t {
    status("rocprofiler_flush_buffer", || match buffer::get(id.handle) {
        Some(b) => b.flush(true),
        None => ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_destroy_buffer(id: rocprofiler_buffer_id_t) -> rocprofiler_status_t {
    status("rocprofiler_destroy_buffer", || match buffer::get(id.handle) {
        Some(b) => b.destroy(),
        None => ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_create_callback_thread(id: *mut rocprofiler_callback_thread_t) -> rocprofiler_status_t {
    status("rocprofiler_create_callback_thread", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        out!(id, rocprofiler_callback_thread_t { handle: threads::create() });
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_assign_callback_thread(
    id: rocprofiler_buffer_id_t,
    thread: rocprofiler_callback_thread_t,
) -> rocprofiler_status_t {
    status("rocprofiler_assign_callback_thread", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        if threads::get(thread.handle).is_none() {
            return ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND;
        }
        match buffer::get(id.handle) {
            Some(b) => {
                b.assign_thread(thread.handle);
                ROCPROFILER_STATUS_SUCCESS
            }
            None => ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
        }
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_configure_buffer_tracing_service(
    ctx: rocprofiler_context_id_t,
    kind: rocprofiler_buffer_tracing_kind_t,
    ops: *const rocprofiler_tracing_operation_t,
    count: usize,
    id: rocprofiler_buffer_id_t,
) -> rocprofiler_status_t {
    status("rocprofiler_configure_buffer_tracing_service", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        let Some(ctx) = context::get(ctx.handle) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
        let Some(buffer) = buffer::get(id.handle) else { return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND };
        if names::kind_name(true, kind).is_none() {
            return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
        }
        if !names::simulated(true, kind) {
            crate::ffi::log!("buffer tracing of {} is not simulated", names::BUFFER_KINDS[kind as usize]);
            return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
        }
        ctx.configure(|s| s.add_buffer(kind, context::operations(ops, count), buffer))
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_configure_callback_tracing_service(
    ctx: rocprofiler_context_id_t,
    kind: rocprofiler_callback_tracing_kind_t,
    ops: *const rocprofiler_tracing_operation_t,
    count: usize,
    callback: rocprofiler_callback_tracing_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_configure_callback_tracing_service", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        let Some(ctx) = context::get(ctx.handle) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
        if names::kind_name(false, kind).is_none() {
            return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
        }
        if callback.is_none() {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        if !names::simulated(false, kind) {
            crate::ffi::log!("callback tracing of {} is not simulated", names::CALLBACK_KINDS[kind as usize]);
            return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
        }
        ctx.configure(|s| s.add_callback(kind, context::operations(ops, count), callback, data as usize))
    })
}

fn name_out(name: &'static str, out: *mut *const c_char, len: *mut u64) -> rocprofiler_status_t {
    static INTERNED: std::sync::Mutex<Vec<(&'static str, &'static CStr)>> = std::sync::Mutex::new(Vec::new());
    let c_name = {
        let mut interned = INTERNED.lock().unwrap();
        match interned.iter().find(|(n, _)| *n == name) {
            Some((_, c)) => *c,
            None => {
                let c: &'static CStr = Box::leak(std::ffi::CString::new(name).unwrap().into_boxed_c_str());
                interned.push((name, c));
                c
            }
        }
    };
    if !out.is_null() {
        // SAFETY: non-null output pointer.
        unsafe { out.write(c_name.as_ptr()) };
    }
    if !len.is_null() {
        // SAFETY: non-null output pointer.
        unsafe { len.write(name.len() as u64) };
    }
    ROCPROFILER_STATUS_SUCCESS
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_buffer_tracing_kind_name(
    kind: rocprofiler_buffer_tracing_kind_t,
    name: *mut *const c_char,
    len: *mut u64,
) -> rocprofiler_status_t {
    status("rocprofiler_query_buffer_tracing_kind_name", || match names::kind_name(true, kind) {
        Some(n) => name_out(n, name, len),
        None => ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_buffer_tracing_kind_operation_name(
    kind: rocprofiler_buffer_tracing_kind_t,
    op: rocprofiler_tracing_operation_t,
    name: *mut *const c_char,
    len: *mut u64,
) -> rocprofiler_status_t {
    status("rocprofiler_query_buffer_tracing_kind_operation_name", || match names::operation_name(true, kind, op) {
        Ok(n) => name_out(n, name, len),
        Err(e) => e,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_callback_tracing_kind_name(
    kind: rocprofiler_callback_tracing_kind_t,
    name: *mut *const c_char,
    len: *mut u64,
) -> rocprofiler_status_t {
    status("rocprofiler_query_callback_tracing_kind_name", || match names::kind_name(false, kind) {
        Some(n) => name_out(n, name, len),
        None => ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_callback_tracing_kind_operation_name(
    kind: rocprofiler_callback_tracing_kind_t,
    op: rocprofiler_tracing_operation_t,
    name: *mut *const c_char,
    len: *mut u64,
) -> rocprofiler_status_t {
    status("rocprofiler_query_callback_tracing_kind_operation_name", || match names::operation_name(false, kind, op) {
        Ok(n) => name_out(n, name, len),
        Err(e) => e,
    })
}

type KindCallback = Option<unsafe extern "C" fn(u32, *mut c_void) -> c_int>;
type OperationCallback = Option<unsafe extern "C" fn(u32, rocprofiler_tracing_operation_t, *mut c_void) -> c_int>;

/// Calls `callback` for each kind below `count` until it returns non-zero.
fn iterate_kinds(count: usize, callback: KindCallback, data: *mut c_void) -> rocprofiler_status_t {
    let Some(callback) = callback else { return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT };
    for kind in 0..count as u32 {
        // SAFETY: the tool's iteration callback.
        if unsafe { callback(kind, data) } != 0 {
            break;
        }
    }
    ROCPROFILER_STATUS_SUCCESS
}

/// Calls `callback` for each operation of `kind` until it returns non-zero.
fn iterate_operations(buffer: bool, kind: u32, callback: OperationCallback, data: *mut c_void) -> rocprofiler_status_t {
    let Some(callback) = callback else { return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT };
    match names::operations(buffer, kind) {
        Ok(ops) => {
            for op in ops {
                // SAFETY: the tool's iteration callback.
                if unsafe { callback(kind, op, data) } != 0 {
                    break;
                }
            }
            ROCPROFILER_STATUS_SUCCESS
        }
        Err(e) => e,
    }
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_iterate_buffer_tracing_kinds(
    callback: rocprofiler_buffer_tracing_kind_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_iterate_buffer_tracing_kinds", || iterate_kinds(names::BUFFER_KINDS.len(), callback, data))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_iterate_buffer_tracing_kind_operations(
    kind: rocprofiler_buffer_tracing_kind_t,
    callback: rocprofiler_buffer_tracing_kind_operation_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_iterate_buffer_tracing_kind_operations", || iterate_operations(true, kind, callback, data))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_iterate_callback_tracing_kinds(
    callback: rocprofiler_callback_tracing_kind_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_iterate_callback_tracing_kinds", || iterate_kinds(names::CALLBACK_KINDS.len(), callback, data))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_iterate_callback_tracing_kind_operations(
    kind: rocprofiler_callback_tracing_kind_t,
    callback: rocprofiler_callback_tracing_kind_operation_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_iterate_callback_tracing_kind_operations", || iterate_operations(false, kind, callback, data))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_available_agents(
    version: rocprofiler_agent_version_t,
    callback: rocprofiler_query_available_agents_cb_t,
    agent_size: usize,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_query_available_agents", || {
        if version != ROCPROFILER_AGENT_INFO_VERSION_0 || agent_size > std::mem::size_of::<rocprofiler_agent_t>() {
            return ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI;
        }
        let Some(callback) = callback else { return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT };
        let mut pointers: Vec<*const c_void> =
            agents::all().iter().map(|a| (&a.info as *const rocprofiler_agent_t).cast()).collect();
        // SAFETY: the tool's callback, with an array of agent pointers valid during it.
        unsafe { callback(version, pointers.as_mut_ptr(), pointers.len(), data) }
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_iterate_agent_supported_counters(
    agent: rocprofiler_agent_id_t,
    callback: rocprofiler_available_counters_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_iterate_agent_supported_counters", || {
        let Some(info) = agents::by_id(agent.handle) else { return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND };
        let Some(callback) = callback else { return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT };
        match counters::supported(info) {
            // SAFETY: the tool's callback, with an id array valid during it.
            Ok(mut ids) => unsafe { callback(agent, ids.as_mut_ptr(), ids.len(), data) },
            Err(e) => e,
        }
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_counter_info(
    id: rocprofiler_counter_id_t,
    version: rocprofiler_counter_info_version_id_t,
    info: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_query_counter_info", || counters::query_info(id.handle, version, info))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_record_counter_id(
    id: rocprofiler_counter_instance_id_t,
    counter: *mut rocprofiler_counter_id_t,
) -> rocprofiler_status_t {
    status("rocprofiler_query_record_counter_id", || {
        out!(counter, rocprofiler_counter_id_t { handle: rocprof_sim::hw::decode_counter(id) });
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_record_dimension_position(
    id: rocprofiler_counter_instance_id_t,
    dim: rocprofiler_counter_dimension_id_t,
    pos: *mut usize,
) -> rocprofiler_status_t {
    status("rocprofiler_query_record_dimension_position", || match rocprof_sim::hw::decode_position(id, dim) {
        Some(p) => {
            out!(pos, p as usize);
            ROCPROFILER_STATUS_SUCCESS
        }
        None => ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_create_counter_config(
    agent: rocprofiler_agent_id_t,
    list: *mut rocprofiler_counter_id_t,
    count: usize,
    config: *mut rocprofiler_counter_config_id_t,
) -> rocprofiler_status_t {
    status("rocprofiler_create_counter_config", || {
        if config.is_null() || (list.is_null() && count > 0) {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        let ids: Vec<u64> = if count == 0 {
            Vec::new()
        } else {
            // SAFETY: the tool passes `count` ids at `list`.
            unsafe { std::slice::from_raw_parts(list, count) }.iter().map(|c| c.handle).collect()
        };
        // SAFETY: non-null pointer to the tool's config id (in: one to extend, or zero).
        let existing = unsafe { config.read() }.handle;
        match counters::create_config(agent.handle, &ids, existing) {
            Ok(handle) => {
                out!(config, rocprofiler_counter_config_id_t { handle });
                ROCPROFILER_STATUS_SUCCESS
            }
            Err(e) => e,
        }
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_destroy_counter_config(id: rocprofiler_counter_config_id_t) -> rocprofiler_status_t {
    status("rocprofiler_destroy_counter_config", || counters::destroy_config(id.handle))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_configure_buffer_dispatch_counting_service(
    ctx: rocprofiler_context_id_t,
    buffer_id: rocprofiler_buffer_id_t,
    callback: rocprofiler_dispatch_counting_service_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_configure_buffer_dispatch_counting_service", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        let Some(ctx) = context::get(ctx.handle) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
        let Some(buffer) = buffer::get(buffer_id.handle) else { return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND };
        set_counting(ctx, Counting::Buffer { buffer, callback, data: data as usize })
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_configure_callback_dispatch_counting_service(
    ctx: rocprofiler_context_id_t,
    callback: rocprofiler_dispatch_counting_service_cb_t,
    data: *mut c_void,
    record_callback: rocprofiler_dispatch_counting_record_cb_t,
    record_data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_configure_callback_dispatch_counting_service", || {
        if locked() {
            return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
        }
        let Some(ctx) = context::get(ctx.handle) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
        set_counting(
            ctx,
            Counting::Callback { callback, data: data as usize, record_callback, record_data: record_data as usize },
        )
    })
}

fn set_counting(ctx: &context::Context, counting: Counting) -> rocprofiler_status_t {
    ctx.configure(|s| {
        if s.counting.is_some() {
            return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
        }
        // 1.0 keeps PC sampling and counter collection out of one context, either order.
        if !s.pc_sampling.is_empty() {
            return ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT;
        }
        s.counting = Some(counting);
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_query_pc_sampling_agent_configurations(
    agent: rocprofiler_agent_id_t,
    callback: rocprofiler_available_pc_sampling_configurations_cb_t,
    data: *mut c_void,
) -> rocprofiler_status_t {
    status("rocprofiler_query_pc_sampling_agent_configurations", || pc_sampling::query(agent.handle, callback, data))
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_configure_pc_sampling_service(
    ctx: rocprofiler_context_id_t,
    agent: rocprofiler_agent_id_t,
    method: rocprofiler_pc_sampling_method_t,
    unit: rocprofiler_pc_sampling_unit_t,
    interval: u64,
    buffer: rocprofiler_buffer_id_t,
    _flags: c_int,
) -> rocprofiler_status_t {
    status("rocprofiler_configure_pc_sampling_service", || {
        let request = pc_sampling::Request {
            context: ctx.handle,
            agent: agent.handle,
            method,
            unit,
            interval,
            buffer: buffer.handle,
        };
        pc_sampling::configure(&request, !locked())
    })
}

// ---- The simulated runtime interface (not SDK API) ----

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_configure_machine(gpus: u32, consumer_gpu: u32) -> rocprofiler_status_t {
    status("rocprofiler_sim_configure_machine", || {
        agents::configure(gpus, consumer_gpu != 0);
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_configure_archs(archs: *const c_char) -> rocprofiler_status_t {
    status("rocprofiler_sim_configure_archs", || {
        if archs.is_null() {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: non-null, NUL-terminated list from the driver.
        let list = unsafe { CStr::from_ptr(archs) }.to_string_lossy();
        match rocprof_sim::hw::parse_archs(&list) {
            Ok(archs) => {
                agents::configure_archs(archs);
                ROCPROFILER_STATUS_SUCCESS
            }
            Err(e) => {
                crate::ffi::log!("{e}");
                ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT
            }
        }
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_register_runtime(name: *const c_char) -> rocprofiler_status_t {
    status("rocprofiler_sim_register_runtime", || {
        if name.is_null() {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: non-null, NUL-terminated runtime name from the driver.
        runtime::register(unsafe { CStr::from_ptr(name) })
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_gpu_count() -> u32 {
    crate::ffi::guard("rocprofiler_sim_gpu_count", 0, || agents::gpus().count() as u32)
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_gpu_agent(gpu: u32, agent: *mut rocprofiler_agent_id_t) -> rocprofiler_status_t {
    status("rocprofiler_sim_gpu_agent", || match agents::gpu(gpu) {
        Some(a) => {
            out!(agent, a.info.id);
            ROCPROFILER_STATUS_SUCCESS
        }
        None => ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_load_code_object(
    gpu: u32,
    uri: *const c_char,
    symbols: *const SimKernelSymbol,
    count: u64,
    kernel_ids: *mut u64,
) -> rocprofiler_status_t {
    status("rocprofiler_sim_load_code_object", || {
        if uri.is_null() || symbols.is_null() || kernel_ids.is_null() {
            return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: the driver passes `count` symbols and room for `count` ids.
        let (symbols, ids) = unsafe {
            (
                std::slice::from_raw_parts(symbols, count as usize),
                std::slice::from_raw_parts_mut(kernel_ids, count as usize),
            )
        };
        // SAFETY: non-null, NUL-terminated URI.
        runtime::load_code_object(gpu, unsafe { CStr::from_ptr(uri) }, symbols, ids)
    })
}

macro_rules! with_refs {
    ($entry:literal, $input:ident, $output:ident, $f:path) => {
        status($entry, || {
            if $input.is_null() || $output.is_null() {
                return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
            }
            // SAFETY: the driver passes valid, distinct input and output structs.
            let (input, output) = unsafe { (&*$input, &mut *$output) };
            $f(input, output)
        })
    };
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_api_enter(call: *const SimApiCall, span: *mut SimApiSpan) -> rocprofiler_status_t {
    with_refs!("rocprofiler_sim_api_enter", call, span, runtime::api_enter)
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_api_exit(call: *const SimApiCall, span: *mut SimApiSpan) -> rocprofiler_status_t {
    with_refs!("rocprofiler_sim_api_exit", call, span, runtime::api_exit)
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_dispatch(d: *const SimDispatch, r: *mut SimDispatchResult) -> rocprofiler_status_t {
    with_refs!("rocprofiler_sim_dispatch", d, r, dispatch::dispatch)
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_dispatch_end(dispatch_id: u64, end_ns: u64, end: *mut u64) -> rocprofiler_status_t {
    status("rocprofiler_sim_dispatch_end", || match dispatch::dispatch_end(dispatch_id, end_ns) {
        Ok(ended) => {
            out!(end, ended);
            ROCPROFILER_STATUS_SUCCESS
        }
        Err(e) => e,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_memory_copy(c: *const SimCopy, r: *mut SimCopyResult) -> rocprofiler_status_t {
    with_refs!("rocprofiler_sim_memory_copy", c, r, runtime::memory_copy)
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_memory_allocation(
    a: *const SimAllocation,
    r: *mut SimAllocationResult,
) -> rocprofiler_status_t {
    with_refs!("rocprofiler_sim_memory_allocation", a, r, runtime::memory_allocation)
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_synchronize() -> rocprofiler_status_t {
    status("rocprofiler_sim_synchronize", || {
        crate::gpu::drain();
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_buffer_drop_count(
    buffer: rocprofiler_buffer_id_t,
    count: *mut u64,
) -> rocprofiler_status_t {
    status("rocprofiler_sim_buffer_drop_count", || match crate::buffer::get(buffer.handle) {
        Some(b) => {
            out!(count, b.drop_count());
            ROCPROFILER_STATUS_SUCCESS
        }
        None => ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_pc_samples_dropped(
    dispatch_id: u64,
    indices: *mut u64,
    capacity: u64,
    count: *mut u64,
) -> rocprofiler_status_t {
    status("rocprofiler_sim_pc_samples_dropped", || {
        let dropped = crate::pc_samples::dropped(dispatch_id);
        if !indices.is_null() {
            let n = dropped.len().min(capacity as usize);
            // SAFETY: the driver passes room for `capacity` indices at `indices`.
            unsafe { std::ptr::copy_nonoverlapping(dropped.as_ptr(), indices, n) };
        }
        out!(count, dropped.len() as u64);
        ROCPROFILER_STATUS_SUCCESS
    })
}

#[unsafe(no_mangle)]
extern "C" fn rocprofiler_sim_stats(stats: *mut SimStats) -> rocprofiler_status_t {
    status("rocprofiler_sim_stats", || {
        out!(stats, crate::stats::snapshot());
        ROCPROFILER_STATUS_SUCCESS
    })
}

/// Never called: it only has to compile. Every SDK export must have the signature of the sys
/// crate's table (checked against the headers in bindgen builds), and every runtime export that
/// of the driver's table.
#[allow(dead_code)]
fn _exports_have_the_sdk_signatures() -> (SdkApi, SimRuntimeApi) {
    (
        SdkApi {
            rocprofiler_get_version,
            rocprofiler_get_version_triplet,
            rocprofiler_get_status_name,
            rocprofiler_get_status_string,
            rocprofiler_get_timestamp,
            rocprofiler_get_thread_id,
            rocprofiler_is_initialized,
            rocprofiler_is_finalized,
            rocprofiler_force_configure,
            rocprofiler_create_context,
            rocprofiler_start_context,
            rocprofiler_stop_context,
            rocprofiler_context_is_active,
            rocprofiler_context_is_valid,
            rocprofiler_create_buffer,
            rocprofiler_flush_buffer,
            rocprofiler_destroy_buffer,
            rocprofiler_create_callback_thread,
            rocprofiler_assign_callback_thread,
            rocprofiler_configure_buffer_tracing_service,
            rocprofiler_configure_callback_tracing_service,
            rocprofiler_query_buffer_tracing_kind_name,
            rocprofiler_query_buffer_tracing_kind_operation_name,
            rocprofiler_query_callback_tracing_kind_name,
            rocprofiler_query_callback_tracing_kind_operation_name,
            rocprofiler_iterate_buffer_tracing_kinds,
            rocprofiler_iterate_buffer_tracing_kind_operations,
            rocprofiler_iterate_callback_tracing_kinds,
            rocprofiler_iterate_callback_tracing_kind_operations,
            rocprofiler_query_available_agents,
            rocprofiler_iterate_agent_supported_counters,
            rocprofiler_query_counter_info,
            rocprofiler_query_record_counter_id,
            rocprofiler_query_record_dimension_position,
            rocprofiler_create_counter_config,
            rocprofiler_destroy_counter_config,
            rocprofiler_configure_buffer_dispatch_counting_service,
            rocprofiler_configure_callback_dispatch_counting_service,
            rocprofiler_query_pc_sampling_agent_configurations,
            rocprofiler_configure_pc_sampling_service,
        },
        SimRuntimeApi {
            rocprofiler_sim_configure_machine,
            rocprofiler_sim_configure_archs,
            rocprofiler_sim_register_runtime,
            rocprofiler_sim_gpu_count,
            rocprofiler_sim_gpu_agent,
            rocprofiler_sim_load_code_object,
            rocprofiler_sim_api_enter,
            rocprofiler_sim_api_exit,
            rocprofiler_sim_dispatch,
            rocprofiler_sim_dispatch_end,
            rocprofiler_sim_memory_copy,
            rocprofiler_sim_memory_allocation,
            rocprofiler_sim_synchronize,
            rocprofiler_sim_buffer_drop_count,
            rocprofiler_sim_pc_samples_dropped,
            rocprofiler_sim_stats,
        },
    )
}
