//! A test tool for the simulated SDK that writes everything it receives as ground-truth rows
//! (see `rocprof_sim::truth`), so a test can compare it with what the driver emitted.
//!
//! Configured by environment (it is loaded by the SDK, not by a test harness):
//! - `ROCPROF_SIM_CHECK_OUT`: the CSV to write (required); `%rank%` in it becomes the process's
//!   `RANK`, so the ranks of one run (which share their environment) write a file each;
//! - `ROCPROF_SIM_CHECK_POLICY`: `lossless` (default) or `discard`;
//! - `ROCPROF_SIM_CHECK_BUFFER`: buffer bytes (default 1 MiB); the watermark is 7/8 of it;
//! - `ROCPROF_SIM_CHECK_COUNTERS`: counters to collect on every dispatch (comma-separated), through
//!   the buffer dispatch counting service into the same buffer;
//! - `ROCPROF_SIM_CHECK_PC_SAMPLING`: `host_trap:US` or `stochastic:CYCLES` (see [`pc`]);
//!   `ROCPROF_SIM_CHECK_PC_PROBE=1` adds the invalid configure calls;
//! - `ROCPROF_SIM_CHECK_RETAIN=1`: a deliberately broken tool that keeps record pointers and reads
//!   them one callback late, to show the simulator's poisoning catches it.
//!
//! It ends the file with `# drop_count=N`, the SDK's cumulative drop count at the last flush.

// Test fixtures driving C APIs: FFI sequences read better as one commented block per call site.
#![allow(clippy::multiple_unsafe_ops_per_block)]
#![allow(non_upper_case_globals)]

use std::ffi::{CStr, c_char, c_int, c_void};
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

mod counting;
mod pc;

use rocprof_sim::truth::{HEADER, Row, banner_line};
use rocprofiler_sdk_sys::sdk::Sdk;
use rocprofiler_sdk_sys::*;

struct State {
    sdk: Sdk,
    /// The output file (the PC-sample rows go beside it).
    path: std::path::PathBuf,
    out: Mutex<std::io::BufWriter<std::fs::File>>,
    buffer: Mutex<rocprofiler_buffer_id_t>,
    retain: bool,
    retained: Mutex<Vec<usize>>,
}

static STATE: std::sync::OnceLock<State> = std::sync::OnceLock::new();
static DROPS: AtomicU64 = AtomicU64::new(0);

fn state() -> &'static State {
    STATE.get().expect("the check tool is configured")
}

fn write(text: &str) {
    let _ = state().out.lock().unwrap().write_all(text.as_bytes());
}

fn op_name(buffer: bool, kind: u32, op: i32) -> &'static str {
    let api = state().sdk.api();
    let mut name: *const c_char = std::ptr::null();
    // SAFETY: SDK query with valid output pointers.
    let status = unsafe {
        if buffer {
            (api.rocprofiler_query_buffer_tracing_kind_operation_name)(kind, op, &mut name, std::ptr::null_mut())
        } else {
            (api.rocprofiler_query_callback_tracing_kind_operation_name)(kind, op, &mut name, std::ptr::null_mut())
        }
    };
    if status != ROCPROFILER_STATUS_SUCCESS || name.is_null() {
        return "UNKNOWN_OPERATION";
    }
    // SAFETY: the SDK's names are static NUL-terminated strings.
    unsafe { CStr::from_ptr(name) }.to_str().unwrap_or("NON_UTF8")
}

/// Reads one record into `text` as a row.
///
/// # Safety
/// `header` must point to a live record header from the SDK.
unsafe fn row_of(header: *const rocprofiler_record_header_t, text: &mut String) {
    // SAFETY: per the contract.
    let header = unsafe { &*header };
    // SAFETY: every header's first union member is the category/kind pair.
    let (category, kind) =
        unsafe { (header.__bindgen_anon_1.__bindgen_anon_1.category, header.__bindgen_anon_1.__bindgen_anon_1.kind) };
    if category != ROCPROFILER_BUFFER_CATEGORY_TRACING {
        return;
    }
    let p = header.payload;
    match kind {
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API
        | ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API
        | ROCPROFILER_BUFFER_TRACING_RCCL_API => {
            // SAFETY: API records share this layout.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_hip_api_record_t) };
            Row {
                record: match kind {
                    ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => "hip_api",
                    ROCPROFILER_BUFFER_TRACING_RCCL_API => "rccl_api",
                    _ => "marker_api",
                },
                thread_id: Some(r.thread_id),
                correlation_id: Some(r.correlation_id.internal),
                ancestor_id: Some(r.correlation_id.ancestor),
                operation: Some(op_name(true, kind, r.operation)),
                start_ns: Some(r.start_timestamp),
                end_ns: Some(r.end_timestamp),
                ..Row::default()
            }
            .write_to(text);
        }
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => {
            // SAFETY: kind says so.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_kernel_dispatch_record_t) };
            let i = &r.dispatch_info;
            Row {
                record: "kernel_dispatch",
                thread_id: Some(r.thread_id),
                correlation_id: Some(r.correlation_id.internal),
                agent_id: Some(i.agent_id.handle),
                queue_id: Some(i.queue_id.handle),
                kernel_id: Some(i.kernel_id),
                dispatch_id: Some(i.dispatch_id),
                start_ns: Some(r.start_timestamp),
                end_ns: Some(r.end_timestamp),
                grid: Some([i.grid_size.x, i.grid_size.y, i.grid_size.z]),
                workgroup: Some([i.workgroup_size.x, i.workgroup_size.y, i.workgroup_size.z]),
                lds_bytes: Some(u64::from(i.group_segment_size)),
                scratch_bytes: Some(u64::from(i.private_segment_size)),
                ..Row::default()
            }
            .write_to(text);
        }
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => {
            // SAFETY: kind says so.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_memory_copy_record_t) };
            // SAFETY: addresses are plain integers in every union member.
            let (src, dst) = unsafe { (r.src_address.value, r.dst_address.value) };
            Row {
                record: "memory_copy",
                thread_id: Some(r.thread_id),
                correlation_id: Some(r.correlation_id.internal),
                operation: Some(op_name(true, kind, r.operation as i32)),
                start_ns: Some(r.start_timestamp),
                end_ns: Some(r.end_timestamp),
                bytes: Some(r.bytes),
                src_agent_id: Some(r.src_agent_id.handle),
                dst_agent_id: Some(r.dst_agent_id.handle),
                src_address: Some(src),
                dst_address: Some(dst),
                ..Row::default()
            }
            .write_to(text);
        }
        ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION => {
            // SAFETY: kind says so.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_memory_allocation_record_t) };
            Row {
                record: "memory_allocation",
                thread_id: Some(r.thread_id),
                correlation_id: Some(r.correlation_id.internal),
                operation: Some(op_name(true, kind, r.operation as i32)),
                agent_id: Some(r.agent_id.handle),
                start_ns: Some(r.start_timestamp),
                end_ns: Some(r.end_timestamp),
                bytes: Some(r.allocation_size),
                // SAFETY: plain integer.
                dst_address: Some(unsafe { r.address.value }),
                ..Row::default()
            }
            .write_to(text);
        }
        ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY => {
            // SAFETY: kind says so.
            let r = unsafe { &*(p as *const rocprofiler_buffer_tracing_scratch_memory_record_t) };
            Row {
                record: "scratch_memory",
                thread_id: Some(r.thread_id),
                correlation_id: Some(r.correlation_id.internal),
                operation: Some(op_name(true, kind, r.operation as i32)),
                agent_id: Some(r.agent_id.handle),
                queue_id: Some(r.queue_id.handle),
                start_ns: Some(r.start_timestamp),
                end_ns: Some(r.end_timestamp),
                bytes: Some(r.allocation_size),
                ..Row::default()
            }
            .write_to(text);
        }
        _ => {}
    }
}

extern "C" fn on_buffer(
    _ctx: rocprofiler_context_id_t,
    _buffer: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    count: usize,
    _data: *mut c_void,
    drop_count: u64,
) {
    guarded("on_buffer", (), || {
        DROPS.fetch_max(drop_count, Ordering::Relaxed);
        let state = state();
        let mut text = String::with_capacity(count * 120);
        // SAFETY: the SDK passes `count` header pointers.
        let headers = unsafe { std::slice::from_raw_parts(headers, count) };
        if state.retain {
            // The broken tool: report the previous callback's records through pointers it kept.
            let mut retained = state.retained.lock().unwrap();
            for &ptr in retained.iter() {
                // SAFETY: deliberately unsound: this is the bug the poisoning must expose. The
                // memory is still mapped (the simulator keeps its arenas), so reading it is only
                // wrong, not a crash.
                unsafe { row_of(ptr as *const _, &mut text) };
            }
            *retained = headers.iter().map(|h| *h as usize).collect();
        } else {
            let mut group = counting::Group::default();
            for &header in headers {
                // SAFETY: live during this callback.
                let h = unsafe { &*header };
                // SAFETY: every header's first union member is the category/kind pair.
                let (category, kind) =
                    unsafe { (h.__bindgen_anon_1.__bindgen_anon_1.category, h.__bindgen_anon_1.__bindgen_anon_1.kind) };
                if category != ROCPROFILER_BUFFER_CATEGORY_COUNTERS {
                    // SAFETY: live during this callback.
                    unsafe { row_of(header, &mut text) };
                } else if kind == ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER {
                    // SAFETY: the kind names the payload type.
                    group.header(unsafe { &*h.payload.cast() }, &mut text);
                } else if kind == ROCPROFILER_COUNTER_RECORD_VALUE {
                    // SAFETY: the kind names the payload type.
                    group.value(unsafe { &*h.payload.cast() }, &mut text);
                }
            }
            group.finish(&mut text);
        }
        write(&text);
    })
}

extern "C" fn on_callback(
    record: rocprofiler_callback_tracing_record_t,
    user_data: *mut rocprofiler_user_data_t,
    _data: *mut c_void,
) {
    guarded("on_callback", (), || {
        let mut text = String::new();
        match record.kind {
            ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API => {
                // SAFETY: the SDK passes a valid user-data slot that persists enter to exit.
                let slot = unsafe { &mut *user_data };
                if record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER {
                    slot.value = record.correlation_id.internal;
                    return;
                }
                // SAFETY: plain integer.
                let kept = unsafe { slot.value };
                Row {
                    record: if kept == record.correlation_id.internal {
                        "hip_api_callback"
                    } else {
                        "hip_api_callback_user_data_lost"
                    },
                    thread_id: Some(record.thread_id),
                    correlation_id: Some(record.correlation_id.internal),
                    ancestor_id: Some(record.correlation_id.ancestor),
                    operation: Some(op_name(false, record.kind, record.operation)),
                    ..Row::default()
                }
                .write_to(&mut text);
            }
            ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API => {
                if record.phase != ROCPROFILER_CALLBACK_PHASE_EXIT {
                    return;
                }
                // SAFETY: marker payload, valid during the callback.
                let data = unsafe { &*(record.payload as *const rocprofiler_callback_tracing_marker_api_data_t) };
                // SAFETY: every message-carrying member has the message first.
                let message = unsafe { data.args.roctxMarkA.message };
                let message = if message.is_null() {
                    String::new()
                } else {
                    // SAFETY: NUL-terminated, valid during the callback.
                    unsafe { CStr::from_ptr(message) }.to_string_lossy().into_owned()
                };
                Row {
                    record: "marker_range",
                    correlation_id: Some(record.correlation_id.internal),
                    operation: Some(op_name(false, record.kind, record.operation)),
                    name: Some(&message),
                    ..Row::default()
                }
                .write_to(&mut text);
            }
            ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT if record.phase == ROCPROFILER_CALLBACK_PHASE_LOAD => {
                if record.operation == ROCPROFILER_CODE_OBJECT_LOAD as i32 {
                    // SAFETY: payload for this operation.
                    let data =
                        unsafe { &*(record.payload as *const rocprofiler_callback_tracing_code_object_load_data_t) };
                    // SAFETY: URI is NUL-terminated; agent union members alias.
                    let (uri, agent) =
                        unsafe { (CStr::from_ptr(data.uri).to_string_lossy(), data.__bindgen_anon_1.agent_id.handle) };
                    Row {
                        record: "code_object",
                        agent_id: Some(agent),
                        object_id: Some(data.code_object_id),
                        name: Some(&uri),
                        ..Row::default()
                    }
                    .write_to(&mut text);
                } else {
                    // SAFETY: payload for this operation.
                    let s = unsafe {
                        &*(record.payload
                            as *const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t)
                    };
                    // SAFETY: names are NUL-terminated.
                    let name = unsafe { CStr::from_ptr(s.kernel_name) }.to_string_lossy();
                    Row {
                        record: "kernel_symbol",
                        object_id: Some(s.code_object_id),
                        kernel_id: Some(s.kernel_id),
                        lds_bytes: Some(u64::from(s.group_segment_size)),
                        scratch_bytes: Some(u64::from(s.private_segment_size)),
                        name: Some(&name),
                        ..Row::default()
                    }
                    .write_to(&mut text);
                }
            }
            _ => {}
        }
        write(&text);
    })
}

/// Runs a callback body; a panic must not unwind into the SDK, so it is reported and swallowed.
fn guarded<R>(entry: &str, fallback: R, f: impl FnOnce() -> R) -> R {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        eprintln!("rocprof-sim-check-tool: panic in {entry}; continuing");
        fallback
    })
}

/// A context and a buffer of `size` bytes (its watermark at 7/8) that `on_buffer` drains;
/// `label` tells apart the calls' failure lines.
fn buffered_context(
    api: &rocprofiler_sdk_sys::sdk::SdkApi,
    label: &str,
    size: usize,
    policy: rocprofiler_buffer_policy_t,
    on_buffer: rocprofiler_buffer_tracing_cb_t,
) -> (rocprofiler_context_id_t, rocprofiler_buffer_id_t) {
    let mut ctx = rocprofiler_context_id_t { handle: 0 };
    let mut buffer = rocprofiler_buffer_id_t { handle: 0 };
    // SAFETY: SDK calls inside initialize, with valid out-pointers and a callback of the
    // buffer's signature.
    unsafe {
        check(&format!("create_context{label}"), (api.rocprofiler_create_context)(&mut ctx));
        let status = (api.rocprofiler_create_buffer)(
            ctx,
            size,
            size / 8 * 7,
            policy,
            on_buffer,
            std::ptr::null_mut(),
            &mut buffer,
        );
        check(&format!("create_buffer{label}"), status);
    }
    (ctx, buffer)
}

fn check(call: &str, status: rocprofiler_status_t) {
    if status != ROCPROFILER_STATUS_SUCCESS {
        write(&format!("# check-tool: {call} failed with status {status}\n"));
    }
}

extern "C" fn tool_init(_fini: rocprofiler_client_finalize_t, _data: *mut c_void) -> c_int {
    guarded("tool_init", -1, || {
        let api = state().sdk.api();
        let env = |k: &str| std::env::var(k).ok();
        let size: usize = env("ROCPROF_SIM_CHECK_BUFFER").and_then(|v| v.parse().ok()).unwrap_or(1 << 20);
        let policy = if env("ROCPROF_SIM_CHECK_POLICY").as_deref() == Some("discard") {
            ROCPROFILER_BUFFER_POLICY_DISCARD
        } else {
            ROCPROFILER_BUFFER_POLICY_LOSSLESS
        };
        let (ctx, buffer) = buffered_context(api, "", size, policy, Some(on_buffer));
        // SAFETY: SDK calls inside initialize, with valid pointers and our own callbacks.
        unsafe {
            let mut thread = rocprofiler_callback_thread_t { handle: 0 };
            check("create_callback_thread", (api.rocprofiler_create_callback_thread)(&mut thread));
            check("assign_callback_thread", (api.rocprofiler_assign_callback_thread)(buffer, thread));
            for kind in rocprof_sim::ops::BUFFER_KINDS {
                check(
                    "configure_buffer_tracing_service",
                    (api.rocprofiler_configure_buffer_tracing_service)(ctx, kind, std::ptr::null(), 0, buffer),
                );
            }
            for kind in [
                ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
            ] {
                check(
                    "configure_callback_tracing_service",
                    (api.rocprofiler_configure_callback_tracing_service)(
                        ctx,
                        kind,
                        std::ptr::null(),
                        0,
                        Some(on_callback),
                        std::ptr::null_mut(),
                    ),
                );
            }
            if let Some(names) = env("ROCPROF_SIM_CHECK_COUNTERS") {
                let wanted: Vec<String> = names.split(',').map(str::to_owned).collect();
                counting::configure(ctx, buffer, &wanted);
            }
            check("start_context", (api.rocprofiler_start_context)(ctx));
            if let Some(spec) = env("ROCPROF_SIM_CHECK_PC_SAMPLING") {
                let probe = env("ROCPROF_SIM_CHECK_PC_PROBE").as_deref() == Some("1");
                pc::configure(api, &spec, &state().path, size, policy, probe);
            }
        }
        *state().buffer.lock().unwrap() = buffer;
        0
    })
}

extern "C" fn tool_fini(_data: *mut c_void) {
    guarded("tool_fini", (), || {
        let state = state();
        let buffer = *state.buffer.lock().unwrap();
        // SAFETY: flushing our own buffer during finalize, as the SDK allows.
        check("flush_buffer", unsafe { (state.sdk.api().rocprofiler_flush_buffer)(buffer) });
        pc::finish(state.sdk.api());
        let mut late = rocprofiler_context_id_t { handle: 0 };
        // SAFETY: configuration is locked after initialize; the SDK must refuse this.
        let status = unsafe { (state.sdk.api().rocprofiler_create_context)(&mut late) };
        if status != ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED {
            write(&format!("lifecycle_violation,,,,create_context after initialize returned {status}\n"));
        }
        write(&format!("# drop_count={}\n", DROPS.load(Ordering::Relaxed)));
        // The simulator's full count, including drops after the last callback that the SDK
        // never reports.
        if let Ok(sim) = rocprof_sim::runtime_abi::SimRuntimeApi::in_process() {
            let mut all = 0u64;
            // SAFETY: simulator query with a valid output pointer.
            if unsafe { (sim.rocprofiler_sim_buffer_drop_count)(buffer, &mut all) } == ROCPROFILER_STATUS_SUCCESS {
                write(&format!("# sim_drop_count={all}\n"));
            }
        }
        let _ = state.out.lock().unwrap().flush();
    })
}

/// The SDK's entry point into the tool.
///
/// # Safety
/// Called by the SDK with a valid client id.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprofiler_configure(
    version: u32,
    _runtime_version: *const c_char,
    _priority: u32,
    client: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    if version < 10000 {
        return std::ptr::null_mut();
    }
    let Some(path) = std::env::var_os("ROCPROF_SIM_CHECK_OUT") else {
        eprintln!("rocprof-sim-check-tool: ROCPROF_SIM_CHECK_OUT is not set; not tracing");
        return std::ptr::null_mut();
    };
    let rank = std::env::var("RANK").unwrap_or_default();
    let path = std::path::PathBuf::from(path.to_string_lossy().replace("%rank%", &rank));
    let sdk = match Sdk::load() {
        Ok(sdk) => sdk,
        Err(e) => {
            eprintln!("rocprof-sim-check-tool: {e}");
            return std::ptr::null_mut();
        }
    };
    let file = match std::fs::File::create(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rocprof-sim-check-tool: cannot create {}: {e}", path.display());
            return std::ptr::null_mut();
        }
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let _ = writeln!(out, "{}{HEADER}", banner_line());
    let retain = std::env::var("ROCPROF_SIM_CHECK_RETAIN").is_ok_and(|v| v == "1");
    let _ = STATE.set(State {
        sdk,
        path: path.clone(),
        out: Mutex::new(out),
        buffer: Mutex::new(rocprofiler_buffer_id_t { handle: 0 }),
        retain,
        retained: Mutex::new(Vec::new()),
    });
    if !client.is_null() {
        // SAFETY: the SDK's mutable client id.
        unsafe { (*client).name = c"rocprof-sim-check-tool".as_ptr() };
    }
    static RESULT: Mutex<Option<usize>> = Mutex::new(None);
    let mut slot = RESULT.lock().unwrap();
    let result = slot.get_or_insert_with(|| {
        Box::into_raw(Box::new(rocprofiler_tool_configure_result_t {
            size: std::mem::size_of::<rocprofiler_tool_configure_result_t>(),
            initialize: Some(tool_init),
            finalize: Some(tool_fini),
            tool_data: std::ptr::null_mut(),
        })) as usize
    });
    *result as *mut rocprofiler_tool_configure_result_t
}
