//! PC sampling as SDK 1.0 offers it (`pc_sampling.cpp`, `pc_sampling/service.cpp`,
//! `pc_sampling/ioctl/ioctl_adapter.cpp`): which configurations each agent answers with, and the
//! checks `rocprofiler_configure_pc_sampling_service` makes, with the status of each refusal.
//!
//! - Both calls answer `ERROR_NOT_IMPLEMENTED` unless `ROCPROFILER_PC_SAMPLING_BETA_ENABLED` is
//!   set, as 1.0 does (rocprofv3's `--pc-sampling-beta-enabled` sets it).
//! - gfx90a offers host trap (microseconds, reported as `UNIT_TIME`); gfx94x offers host trap and
//!   stochastic (cycles, a power of two). Any other agent, CPUs included, has no PC sampling in
//!   the driver (`EOPNOTSUPP`), which 1.0 reports as `ERROR_NOT_AVAILABLE`.
//! - Configuration is only possible while the tool initializes; one context of the process may
//!   hold the service (another gets `ERROR`), once per agent (`ERROR_SERVICE_ALREADY_CONFIGURED`),
//!   never beside counter collection (`ERROR_CONTEXT_CONFLICT`). A method the agent does not offer
//!   is `ERROR_NOT_AVAILABLE`; a unit or interval the driver rejects (`EINVAL`) is
//!   `ERROR_INVALID_ARGUMENT`.

use std::sync::Mutex;

use rocprof_sim::hw::Arch;
use rocprofiler_sdk_sys::*;

use crate::agents::{self, Agent};
use crate::{buffer, context};

/// One agent's configured service.
#[derive(Clone, Copy)]
pub struct Service {
    pub agent: u64,
    pub method: rocprofiler_pc_sampling_method_t,
    /// In the method's unit (host trap: microseconds; stochastic: cycles).
    pub interval: u64,
    pub buffer: &'static buffer::Buffer,
}

/// The context that holds the process's PC sampling service, once one was configured.
static OWNER: Mutex<Option<u64>> = Mutex::new(None);

/// Host trap's interval range in microseconds, as the KFD reports it.
const HOST_TRAP_INTERVAL_US: (usize, usize) = (1, 1_000_000);
/// Stochastic sampling's range in cycles: powers of two from 2^8 to 2^20.
const STOCHASTIC_INTERVAL_CYCLES: (usize, usize) = (1 << 8, 1 << 20);

fn config(
    method: rocprofiler_pc_sampling_method_t,
    unit: rocprofiler_pc_sampling_unit_t,
    (min_interval, max_interval): (usize, usize),
    flags: rocprofiler_pc_sampling_configuration_flags_t,
) -> rocprofiler_pc_sampling_configuration_t {
    rocprofiler_pc_sampling_configuration_t {
        size: std::mem::size_of::<rocprofiler_pc_sampling_configuration_t>() as u64,
        method,
        unit,
        min_interval,
        max_interval,
        flags: u64::from(flags),
    }
}

/// What the driver answers for `agent`: its configurations, or the status 1.0 returns.
pub fn offered(agent: &Agent) -> Result<Vec<rocprofiler_pc_sampling_configuration_t>, rocprofiler_status_t> {
    let host_trap = config(
        ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP,
        ROCPROFILER_PC_SAMPLING_UNIT_TIME,
        HOST_TRAP_INTERVAL_US,
        ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_NONE,
    );
    let stochastic = config(
        ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC,
        ROCPROFILER_PC_SAMPLING_UNIT_CYCLES,
        STOCHASTIC_INTERVAL_CYCLES,
        ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_INTERVAL_POW2,
    );
    match agent.arch {
        Some(Arch::Gfx90a) => Ok(vec![host_trap]),
        Some(Arch::Gfx942) => Ok(vec![host_trap, stochastic]),
        Some(Arch::Gfx1151) | None => Err(ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE),
    }
}

/// Whether the beta switch 1.0 requires is on (its `get_env` reads booleans this way).
pub fn enabled() -> bool {
    std::env::var("ROCPROFILER_PC_SAMPLING_BETA_ENABLED").is_ok_and(|v| {
        matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "on" | "true" | "yes" | "y")
            || v.trim().parse::<i64>().is_ok_and(|n| n != 0)
    })
}

/// `rocprofiler_query_pc_sampling_agent_configurations`.
pub fn query(
    agent: u64,
    callback: rocprofiler_available_pc_sampling_configurations_cb_t,
    data: *mut std::ffi::c_void,
) -> rocprofiler_status_t {
    if !enabled() {
        return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    }
    let Some(agent) = agents::by_id(agent) else { return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND };
    let Some(callback) = callback else { return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT };
    match offered(agent) {
        // SAFETY: the tool's callback; the configurations live until it returns.
        Ok(configs) => unsafe { callback(configs.as_ptr(), configs.len(), data) },
        Err(status) => status,
    }
}

/// The arguments of `rocprofiler_configure_pc_sampling_service`.
pub struct Request {
    pub context: u64,
    pub agent: u64,
    pub method: rocprofiler_pc_sampling_method_t,
    pub unit: rocprofiler_pc_sampling_unit_t,
    pub interval: u64,
    pub buffer: u64,
}

/// `rocprofiler_configure_pc_sampling_service`, in 1.0's order of checks.
pub fn configure(request: &Request, configuring: bool) -> rocprofiler_status_t {
    if !enabled() {
        return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    }
    if !configuring {
        return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    }
    let Some(agent) = agents::by_id(request.agent) else { return ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND };
    let Some(ctx) = context::get(request.context) else { return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND };
    let Some(buffer) = buffer::get(request.buffer) else { return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND };
    ctx.configure(|services| {
        if services.counting.is_some() {
            return ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT;
        }
        if services.pc_sampling.iter().any(|s| s.agent == request.agent) {
            return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
        }
        let mut owner = OWNER.lock().unwrap();
        if owner.is_some_and(|c| c != request.context) {
            return ROCPROFILER_STATUS_ERROR;
        }
        if let Err(status) = check_against_offer(agent, request) {
            return status;
        }
        *owner = Some(request.context);
        services.pc_sampling.push(Service {
            agent: request.agent,
            method: request.method,
            interval: request.interval,
            buffer,
        });
        ROCPROFILER_STATUS_SUCCESS
    })
}

/// What the driver's create call decides: the method must be offered, the unit must be its
/// unit, the interval in range and, where flagged, a power of two.
fn check_against_offer(agent: &Agent, request: &Request) -> Result<(), rocprofiler_status_t> {
    if !(ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC..ROCPROFILER_PC_SAMPLING_METHOD_LAST).contains(&request.method)
        || !(ROCPROFILER_PC_SAMPLING_UNIT_INSTRUCTIONS..ROCPROFILER_PC_SAMPLING_UNIT_LAST).contains(&request.unit)
    {
        return Err(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    }
    let offered = offered(agent)?;
    let Some(offer) = offered.iter().find(|c| c.method == request.method) else {
        return Err(ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE);
    };
    let pow2 = offer.flags & u64::from(ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_INTERVAL_POW2) != 0;
    let in_range = (offer.min_interval as u64..=offer.max_interval as u64).contains(&request.interval);
    if offer.unit != request.unit || !in_range || (pow2 && !request.interval.is_power_of_two()) {
        return Err(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    }
    Ok(())
}

/// The service configured for `agent` in an active context, if any.
pub fn active_for(agent: u64) -> Option<Service> {
    context::active().find_map(|ctx| ctx.pc_sampling_for(agent))
}
