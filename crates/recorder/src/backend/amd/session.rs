//! Everything the tool creates in the SDK during `initialize`, the one window the SDK allows:
//! a code-object context (always on, so kernel names are known even for dispatches traced
//! later), a tracing context with one buffer and its callback thread, and the agent table.

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::ingest;
use super::operations::api_kinds;
use super::sdk::calls;
use super::sdk::handles::{BufferId, CallbackThreadId, ContextId};
use crate::config::pc_sampling::PcSampling;
use crate::config::{Config, Domain, Policy};
use crate::error::Result;
use rocprof_rs_format as tables;
use rocprof_rs_format::Table;

/// The SDK objects of one run.
#[derive(Debug, Clone, Copy)]
pub struct Session {
    /// The context that traces; started and stopped around regions.
    pub tracing: ContextId,
    /// The always-on code-object context.
    pub code_objects: ContextId,
    /// The record buffer.
    pub buffer: BufferId,
    /// The PC samples' buffer, where any agent samples.
    pub pc_samples: Option<BufferId>,
}

/// The buffer-tracing kinds `config` asks for.
pub fn buffer_kinds(config: &Config) -> Vec<u32> {
    let mut kinds = Vec::new();
    for domain in config.domains.iter() {
        match domain {
            Domain::Kernel => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH),
            Domain::MemoryCopy => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_MEMORY_COPY),
            Domain::HipApi => kinds.extend(api_kinds(Table::HipApi)),
            Domain::HsaApi => kinds.extend(api_kinds(Table::HsaApi)),
            Domain::RcclApi => kinds.extend(api_kinds(Table::RcclApi)),
            Domain::ScratchMemory => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY),
            Domain::MemoryAllocation => kinds.push(sys::ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION),
            Domain::Marker | Domain::CudaApi => {}
        }
    }
    // A PC sample names its dispatch, not its kernel: the dispatch's record says which.
    let dispatches = sys::ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
    if config.pc_sampling.is_some() && !kinds.contains(&dispatches) {
        kinds.push(dispatches);
    }
    kinds
}

/// Creates the contexts, buffer and services. The tracing context is left stopped.
pub fn create(api: &SdkApi, config: &Config) -> Result<Session> {
    let policy = match config.policy {
        Policy::Lossless => sys::ROCPROFILER_BUFFER_POLICY_LOSSLESS,
        Policy::Drop => sys::ROCPROFILER_BUFFER_POLICY_DISCARD,
    };
    let code_objects = calls::create_context(api)?;
    // SAFETY: the ingest callbacks have the SDK's signatures, are trampolines that cannot
    // unwind, and take no data (null).
    unsafe {
        calls::configure_callback_tracing_service(
            api,
            code_objects,
            sys::ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
            Some(ingest::on_code_object),
            std::ptr::null_mut(),
        )?;
    }
    let tracing = calls::create_context(api)?;
    let buffer = record_buffer(api, config, tracing, policy)?;
    let thread = calls::create_callback_thread(api)?;
    calls::assign_callback_thread(api, buffer, thread)?;
    for kind in buffer_kinds(config) {
        if let Err(e) = calls::configure_buffer_tracing_service(api, tracing, kind, buffer) {
            // One kind the SDK cannot trace (an HSA extension table it lacks, say) must not
            // cost the others.
            crate::say!("rocprof-rs: not tracing {}: {e}", kind_name(api, kind));
        }
    }
    if config.domains.contains(Domain::Marker) {
        // SAFETY: as above.
        unsafe {
            calls::configure_callback_tracing_service(
                api,
                tracing,
                sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                Some(ingest::on_marker),
                std::ptr::null_mut(),
            )?;
        }
    }
    let pc_samples = match &config.pc_sampling {
        Some(request) => pc_sampling_buffer(api, config, tracing, thread, request)?,
        None => None,
    };
    calls::start_context(api, code_objects)?;
    Ok(Session { tracing, code_objects, buffer, pc_samples })
}

/// A buffer of the configured size in `context`, handed to [`ingest::on_buffer`] when seven
/// eighths full.
fn record_buffer(
    api: &SdkApi,
    config: &Config,
    context: ContextId,
    policy: sys::rocprofiler_buffer_policy_t,
) -> Result<BufferId> {
    // SAFETY: the callback has the SDK's signature, is a trampoline that cannot unwind, and
    // takes no data (null).
    unsafe {
        calls::create_buffer(
            api,
            context,
            config.buffer_bytes,
            config.buffer_bytes / 8 * 7,
            policy,
            Some(ingest::on_buffer),
            std::ptr::null_mut(),
        )
    }
}

/// A buffer for PC samples, with the service configured on every GPU agent that offers what
/// `request` asks; none where no agent does.
fn pc_sampling_buffer(
    api: &SdkApi,
    config: &Config,
    tracing: ContextId,
    thread: CallbackThreadId,
    request: &PcSampling,
) -> Result<Option<BufferId>> {
    // Samples are never worth stalling the GPU for: a full buffer drops, counted.
    let buffer = record_buffer(api, config, tracing, sys::ROCPROFILER_BUFFER_POLICY_DISCARD)?;
    calls::assign_callback_thread(api, buffer, thread)?;
    let agents = super::catalog::agents_only(api, crate::lifecycle::disable)?;
    let sampling = super::pc_sampling::configure(api, tracing, buffer, &agents, request);
    Ok((sampling > 0).then_some(buffer))
}

/// The agents, from `rocprofiler_query_available_agents` (1.0 struct size), and each GPU's
/// PCI location with its agent id, by which the device sampler names AMD SMI's GPUs.
pub fn agents(api: &SdkApi) -> Result<(crate::pipeline::rows::Agents, Vec<(u64, u64)>)> {
    let agents = super::catalog::agents_only(api, crate::lifecycle::disable)?;
    let gpus = agents.iter().filter(|a| a.gpu).map(|a| (a.pci_bdf, a.id)).collect();
    Ok((std::sync::Arc::new(move || agent_table(&agents)), gpus))
}

/// The agent table of `agents`.
fn agent_table(agents: &[super::catalog::AgentInfo]) -> tables::Agent {
    let mut table = tables::Agent::default();
    for a in agents {
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
    table
}

fn kind_name(api: &SdkApi, kind: u32) -> String {
    calls::buffer_tracing_kind_name(api, kind)
        .map_or_else(|_| format!("buffer-tracing kind {kind}"), |name| name.to_string_lossy().into_owned())
}

/// Starts or stops the tracing context.
pub fn set_tracing(api: &SdkApi, session: &Session, on: bool) -> Result<()> {
    if on { calls::start_context(api, session.tracing) } else { calls::stop_context(api, session.tracing) }
}

/// Flushes the record buffers synchronously.
pub fn flush(api: &SdkApi, session: &Session) -> Result<()> {
    if let Some(samples) = session.pc_samples {
        calls::flush_buffer(api, samples)?;
    }
    calls::flush_buffer(api, session.buffer)
}
