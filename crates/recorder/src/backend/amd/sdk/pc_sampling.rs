//! The SDK's PC sampling calls (`rocprofiler-sdk/pc_sampling.h`), each wrapped once as in
//! [`super::calls`].

use std::ffi::c_void;

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::handles::{AgentId, BufferId, ContextId};
use crate::error::{Result, check};
use crate::guard::Visit;

/// The PC sampling configurations `agent` offers; `on_panic` is told of a panic in the
/// visitor. An agent without PC sampling answers with a failure status, which names it.
pub fn agent_configurations(
    api: &SdkApi,
    agent: AgentId,
    on_panic: fn(&str),
) -> Result<Vec<sys::rocprofiler_pc_sampling_configuration_t>> {
    unsafe extern "C" fn visit(
        configs: *const sys::rocprofiler_pc_sampling_configuration_t,
        count: usize,
        data: *mut c_void,
    ) -> sys::rocprofiler_status_t {
        // SAFETY: `data` is the `Visit` below, alive for the query.
        let visit = unsafe { &mut *data.cast::<Visit<sys::rocprofiler_pc_sampling_configuration_t>>() };
        crate::guard::catch_panic("the PC sampling query", sys::ROCPROFILER_STATUS_ERROR, visit.on_panic, || {
            if !configs.is_null() {
                // SAFETY: the SDK passes `count` configurations, live for the callback.
                let configs = unsafe { std::slice::from_raw_parts(configs, count) };
                visit.items.extend_from_slice(configs);
            }
            sys::ROCPROFILER_STATUS_SUCCESS
        })
    }
    let mut found = Visit::new(on_panic);
    // SAFETY: `visit` cannot unwind, and `found` outlives the query, which calls it before
    // returning.
    let status = unsafe {
        (api.rocprofiler_query_pc_sampling_agent_configurations)(agent.into(), Some(visit), (&raw mut found).cast())
    };
    check("rocprofiler_query_pc_sampling_agent_configurations", status)?;
    Ok(found.items)
}

/// Samples `agent`'s waves by `method` every `interval` `unit`s into `buffer`, while `context`
/// runs. Valid only during the tool's `initialize`, once per agent.
pub fn configure_service(
    api: &SdkApi,
    context: ContextId,
    agent: AgentId,
    method: sys::rocprofiler_pc_sampling_method_t,
    unit: sys::rocprofiler_pc_sampling_unit_t,
    interval: u64,
    buffer: BufferId,
) -> Result<()> {
    // SAFETY: plain handles and values; the SDK checks each.
    let status = unsafe {
        (api.rocprofiler_configure_pc_sampling_service)(
            context.into(),
            agent.into(),
            method,
            unit,
            interval,
            buffer.into(),
            0,
        )
    };
    check("rocprofiler_configure_pc_sampling_service", status)
}
