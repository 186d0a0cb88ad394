//! Everything the tool creates in the SDK during `initialize`, the one window the SDK allows:
//! a code-object context (always on, so kernel names are known even for dispatches traced
//! later), a tracing context with one buffer and its callback thread, and the agent table.

use std::ffi::CStr;

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::ingest;
use crate::config::{Config, Domain, Policy};
use crate::error::{Result, check};
use crate::pipeline::rows::API_KINDS;
use rocprof_rs_format as tables;

/// The SDK objects of one run.
#[derive(Debug, Clone, Copy)]
pub struct Session {
    /// The context that traces; started and stopped around regions.
    pub tracing: sys::rocprofiler_context_id_t,
    /// The always-on code-object context.
    pub code_objects: sys::rocprofiler_context_id_t,
    /// The record buffer.
    pub buffer: sys::rocprofiler_buffer_id_t,
}

/// The buffer-tracing kinds `config` asks for.
pub fn buffer_kinds(config: &Config) -> Vec<u32> {
    let mut kinds = Vec::new();
    for domain in config.domains.iter() {
        match domain {
            Domain::Kernel => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH),
            Domain::MemoryCopy => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY),
            Domain::HipApi => kinds.extend_from_slice(API_KINDS[0].1),
            Domain::HsaApi => kinds.extend_from_slice(API_KINDS[1].1),
            Domain::RcclApi => kinds.extend_from_slice(API_KINDS[2].1),
            Domain::ScratchMemory => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY),
            Domain::MemoryAllocation => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION),
            Domain::Marker | Domain::CudaApi => {}
        }
    }
    kinds
}

/// Creates the contexts, buffer and services. The tracing context is left stopped.
// The SDK set-up is one sequence of calls under one safety argument.
#[allow(clippy::multiple_unsafe_ops_per_block)]
pub fn create(api: &SdkApi, config: &Config) -> Result<Session> {
    let mut code_objects = sys::rocprofiler_context_id_t { handle: 0 };
    let mut tracing = sys::rocprofiler_context_id_t { handle: 0 };
    let mut buffer = sys::rocprofiler_buffer_id_t { handle: 0 };
    let mut thread = sys::rocprofiler_callback_thread_t { handle: 0 };
    let policy = match config.policy {
        Policy::Lossless => sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS,
        Policy::Drop => sys::ROCPROFILER_BUFFER_POLICY_DISCARD,
    };
    // SAFETY: SDK calls inside initialize, with valid output pointers and our own callbacks,
    // which have the SDK's signatures.
    unsafe {
        check("rocprofiler_create_context", (api.rocprofiler_create_context)(&mut code_objects))?;
        check(
            "rocprofiler_configure_callback_tracing_service",
            (api.rocprofiler_configure_callback_tracing_service)(
                code_objects,
                sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                std::ptr::null(),
                0,
                Some(ingest::on_code_object),
                std::ptr::null_mut(),
            ),
        )?;
        check("rocprofiler_create_context", (api.rocprofiler_create_context)(&mut tracing))?;
        check(
            "rocprofiler_create_buffer",
            (api.rocprofiler_create_buffer)(
                tracing,
                config.buffer_bytes,
                config.buffer_bytes / 8 * 7,
                policy,
                Some(ingest::on_buffer),
                std::ptr::null_mut(),
                &mut buffer,
            ),
        )?;
        check("rocprofiler_create_callback_thread", (api.rocprofiler_create_callback_thread)(&mut thread))?;
        check("rocprofiler_assign_callback_thread", (api.rocprofiler_assign_callback_thread)(buffer, thread))?;
        for kind in buffer_kinds(config) {
            let status = (api.rocprofiler_configure_buffer_tracing_service)(tracing, kind, std::ptr::null(), 0, buffer);
            if let Err(e) = check("rocprofiler_configure_buffer_tracing_service", status) {
                // One kind the SDK cannot trace (an HSA extension table it lacks, say) must
                // not cost the others.
                eprintln!("rocprof-rs: not tracing {}: {e}", kind_name(api, kind));
            }
        }
        if config.domains.contains(Domain::Marker) {
            check(
                "rocprofiler_configure_callback_tracing_service",
                (api.rocprofiler_configure_callback_tracing_service)(
                    tracing,
                    sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                    std::ptr::null(),
                    0,
                    Some(ingest::on_marker),
                    std::ptr::null_mut(),
                ),
            )?;
        }
        check("rocprofiler_start_context", (api.rocprofiler_start_context)(code_objects))?;
    }
    Ok(Session { tracing, code_objects, buffer })
}

/// The agent table, from `rocprofiler_query_available_agents` (1.0 struct size).
pub fn agents(api: &SdkApi) -> Result<tables::Agent> {
    let mut table = tables::Agent::default();
    for a in crate::counters::catalog::agents_only(api)? {
        table.push(rocprof_rs_format::AgentRow {
            agent_id: a.id,
            node_id: a.node_id,
            logical_index: a.index as i32,
            agent_type: if a.gpu { "GPU" } else { "CPU" },
            name: &a.name,
            product_name: &a.product,
            vendor_name: &a.vendor,
            model_name: &a.model,
            gfx_target_version: a.gfx_target_version,
            cu_count: a.cu_count,
            simd_count: a.simd_count,
            simd_per_cu: a.simd_per_cu,
            wave_front_size: a.wave_front_size,
            max_waves_per_cu: a.max_waves_per_cu,
            num_xcc: a.num_xcc,
            lds_size_kb: a.lds_kb,
            max_engine_clock_mhz: a.max_engine_clock_mhz,
            local_mem_bytes: a.local_mem_bytes,
            device_id: a.device_id,
            pid: std::process::id(),
        });
    }
    Ok(table)
}

fn kind_name(api: &SdkApi, kind: u32) -> String {
    let mut name: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: valid output pointers; the length is optional.
    let status = unsafe { (api.rocprofiler_query_buffer_tracing_kind_name)(kind, &mut name, std::ptr::null_mut()) };
    if status != sys::ROCPROFILER_STATUS_SUCCESS || name.is_null() {
        return format!("buffer-tracing kind {kind}");
    }
    // SAFETY: a static NUL-terminated name.
    unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
}

/// Starts or stops the tracing context.
#[allow(clippy::multiple_unsafe_ops_per_block)]
pub fn set_tracing(api: &SdkApi, session: &Session, on: bool) -> Result<()> {
    // SAFETY: our own context, created during initialize.
    unsafe {
        if on {
            check("rocprofiler_start_context", (api.rocprofiler_start_context)(session.tracing))
        } else {
            check("rocprofiler_stop_context", (api.rocprofiler_stop_context)(session.tracing))
        }
    }
}

/// Flushes the record buffer synchronously.
pub fn flush(api: &SdkApi, session: &Session) -> Result<()> {
    // SAFETY: our own buffer.
    check("rocprofiler_flush_buffer", unsafe { (api.rocprofiler_flush_buffer)(session.buffer) })
}
