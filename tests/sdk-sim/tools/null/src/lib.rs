//! The floor for benchmarks: a tool that configures the same services as a real tracer on the
//! simulated SDK, and discards every record and callback.
//!
//! `ROCPROF_SIM_NULL_DOMAINS` narrows the services to those a compared tool traces, with the
//! names of `ROCPROF_RS_DOMAINS` (kernel, hip_api, memory_copy, scratch_memory,
//! memory_allocation, marker; default: all). The buffer is 8 MiB with a 7/8 watermark, as
//! rocprof-rs's default.
//!
//! With `ROCPROF_SIM_NULL_READ=1` the buffer callback reads every word of every record and
//! keeps nothing: the cost of touching the SDK's records at all, which any tool that decodes
//! them pays (memory traffic more than instructions).

// Test fixtures driving C APIs: FFI sequences read better as one commented block per call site.
#![allow(clippy::multiple_unsafe_ops_per_block)]
#![allow(non_upper_case_globals)]

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rocprofiler_sdk_sys::sdk::Sdk;
use rocprofiler_sdk_sys::*;

static SDK: OnceLock<Sdk> = OnceLock::new();
static BUFFER: OnceLock<rocprofiler_buffer_id_t> = OnceLock::new();
static READ: OnceLock<bool> = OnceLock::new();
/// Where the words read go, so the reads cannot be optimised away.
static SINK: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_buffer(
    _: rocprofiler_context_id_t,
    _: rocprofiler_buffer_id_t,
    headers: *mut *mut rocprofiler_record_header_t,
    count: usize,
    _: *mut c_void,
    _: u64,
) {
    if !*READ.get_or_init(|| std::env::var_os("ROCPROF_SIM_NULL_READ").is_some_and(|v| v == "1")) || headers.is_null() {
        return;
    }
    let mut sum = 0u64;
    // SAFETY: the SDK passes `count` live headers; every tracing record starts with its size
    // in bytes, a multiple of 8, and the payload lives until the callback returns.
    unsafe {
        for &header in std::slice::from_raw_parts(headers, count) {
            let payload = (*header).payload.cast::<u64>();
            if payload.is_null() {
                continue;
            }
            let words = (*payload as usize) / 8;
            for i in 0..words {
                sum = sum.wrapping_add(payload.add(i).read());
            }
        }
    }
    SINK.fetch_add(sum, Ordering::Relaxed);
}

extern "C" fn on_callback(_: rocprofiler_callback_tracing_record_t, _: *mut rocprofiler_user_data_t, _: *mut c_void) {}

/// The `ROCPROF_RS_DOMAINS` name of a buffer-tracing kind.
fn buffer_domain(kind: rocprofiler_buffer_tracing_kind_t) -> &'static str {
    match kind {
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API => "hip_api",
        ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH => "kernel",
        ROCPROFILER_BUFFER_TRACING_MEMORY_COPY => "memory_copy",
        ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION => "memory_allocation",
        ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY => "scratch_memory",
        ROCPROFILER_BUFFER_TRACING_RCCL_API => "rccl_api",
        _ => "marker",
    }
}

/// Whether `ROCPROF_SIM_NULL_DOMAINS` (all when unset) includes `domain`.
fn wanted(domain: &str) -> bool {
    std::env::var("ROCPROF_SIM_NULL_DOMAINS").map_or(true, |d| d.split(',').any(|w| w.trim() == domain))
}

extern "C" fn tool_init(_: rocprofiler_client_finalize_t, _: *mut c_void) -> c_int {
    let Some(api) = SDK.get().map(Sdk::api) else { return -1 };
    let mut ctx = rocprofiler_context_id_t { handle: 0 };
    let mut buffer = rocprofiler_buffer_id_t { handle: 0 };
    // SAFETY: SDK calls inside initialize, with valid pointers and our own callbacks.
    unsafe {
        (api.rocprofiler_create_context)(&mut ctx);
        (api.rocprofiler_create_buffer)(
            ctx,
            8 << 20,
            7 << 20,
            ROCPROFILER_BUFFER_POLICY_LOSSLESS,
            Some(on_buffer),
            std::ptr::null_mut(),
            &mut buffer,
        );
        for kind in rocprof_sim::ops::BUFFER_KINDS.into_iter().filter(|&k| wanted(buffer_domain(k))) {
            (api.rocprofiler_configure_buffer_tracing_service)(ctx, kind, std::ptr::null(), 0, buffer);
        }
        let markers = wanted("marker").then_some(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API);
        for kind in markers.into_iter().chain([ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT]) {
            (api.rocprofiler_configure_callback_tracing_service)(
                ctx,
                kind,
                std::ptr::null(),
                0,
                Some(on_callback),
                std::ptr::null_mut(),
            );
        }
        (api.rocprofiler_start_context)(ctx);
    }
    let _ = BUFFER.set(buffer);
    0
}

extern "C" fn tool_fini(_: *mut c_void) {
    if let (Some(sdk), Some(buffer)) = (SDK.get(), BUFFER.get()) {
        // SAFETY: flushing our own buffer during finalize.
        unsafe { (sdk.api().rocprofiler_flush_buffer)(*buffer) };
    }
}

/// The SDK's entry point into the tool.
///
/// # Safety
/// Called by the SDK.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprofiler_configure(
    version: u32,
    _: *const c_char,
    _: u32,
    _: *mut rocprofiler_client_id_t,
) -> *mut rocprofiler_tool_configure_result_t {
    if version < 10000 {
        return std::ptr::null_mut();
    }
    match Sdk::load() {
        Ok(sdk) => {
            let _ = SDK.set(sdk);
        }
        Err(e) => {
            eprintln!("rocprof-sim-null-tool: {e}");
            return std::ptr::null_mut();
        }
    }
    static RESULT: OnceLock<usize> = OnceLock::new();
    *RESULT.get_or_init(|| {
        Box::into_raw(Box::new(rocprofiler_tool_configure_result_t {
            size: std::mem::size_of::<rocprofiler_tool_configure_result_t>(),
            initialize: Some(tool_init),
            finalize: Some(tool_fini),
            tool_data: std::ptr::null_mut(),
        })) as usize
    }) as *mut rocprofiler_tool_configure_result_t
}
