//! What each agent offers, asked of the SDK: its properties, and the counters it supports with
//! their descriptions, whether each is derived, and how many hardware instances it spans.

use std::ffi::{CStr, c_char, c_void};

use rocprofiler_sdk_sys as sys;
use serde::Serialize;
use sys::sdk::SdkApi;

use super::sdk::calls;
use super::sdk::handles::{AgentId, CounterId};
use crate::counters::plan::NoCounters;
use crate::error::{Error, Result};
use crate::guard::Visit;

/// One counter of one agent.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CounterInfo {
    /// The SDK's id, valid on this agent only.
    pub id: u64,
    pub name: String,
    pub description: String,
    /// The hardware block of a base counter (`SQ`, `TCC`, ...); empty for a derived one.
    pub block: String,
    /// The expression of a derived counter; empty for a base one.
    pub expression: String,
    pub derived: bool,
    /// Hardware instances a dispatch reports values for (the product of its dimensions).
    pub instances: u64,
}

/// One agent and what it offers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgentInfo {
    pub id: u64,
    /// The KFD node id (`Agent N` in rocprofv3's files).
    pub node_id: u32,
    /// 0-based among agents of its type (the HIP device number for a GPU).
    pub index: u32,
    pub gpu: bool,
    /// `gfx942` for a GPU, the CPU's name otherwise.
    pub name: String,
    pub product: String,
    pub vendor: String,
    pub model: String,
    pub gfx_target_version: u32,
    pub device_id: u32,
    pub cu_count: u32,
    pub simd_count: u32,
    pub simd_per_cu: u32,
    pub max_waves_per_cu: u32,
    pub wave_front_size: u32,
    pub num_xcc: u32,
    pub max_engine_clock_mhz: u32,
    pub local_mem_bytes: u64,
    /// The PCI location as AMD SMI packs it (`amdsmi_bdf_t`): domain, then the KFD's
    /// `location_id` (bus, device, function).
    pub pci_bdf: u64,
    /// The largest level-2 cache the agent lists (per XCD on multi-XCD parts).
    pub l2_bytes: u64,
    pub lds_kb: u32,
    /// The supported counters, or why there are none (`AGENT_ARCH_NOT_SUPPORTED` on GPUs the
    /// SDK has no counter definitions for).
    #[serde(serialize_with = "counters_or_reason")]
    #[cfg_attr(feature = "schema", schemars(with = "CountersOrReason<'static>"))]
    pub counters: std::result::Result<Vec<CounterInfo>, NoCounters>,
}

/// How `counters` reads in JSON: the list, or `{"unavailable": why}`; its schema is this
/// type's, so the two cannot part.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
enum CountersOrReason<'a> {
    Counters(&'a [CounterInfo]),
    Unavailable { unavailable: String },
}

fn counters_or_reason<S: serde::Serializer>(
    value: &std::result::Result<Vec<CounterInfo>, NoCounters>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    match value {
        Ok(counters) => CountersOrReason::Counters(counters),
        Err(why) => CountersOrReason::Unavailable { unavailable: why.to_string() },
    }
    .serialize(serializer)
}

impl AgentInfo {
    /// How messages name the agent: `GPU 0 (gfx942)`.
    pub fn label(&self) -> String {
        format!("{} {} ({})", if self.gpu { "GPU" } else { "CPU" }, self.index, self.name)
    }

    /// The names of its counters (none if it has none).
    pub fn counter_names(&self) -> Vec<&str> {
        self.counters.as_ref().map(|c| c.iter().map(|c| c.name.as_str()).collect()).unwrap_or_default()
    }
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: SDK strings are NUL-terminated and live as long as the SDK.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Every agent, CPUs and GPUs, with each GPU's counters; `on_panic` is told of a panic in
/// the SDK's callbacks.
pub fn agents(api: &SdkApi, on_panic: fn(&str)) -> Result<Vec<AgentInfo>> {
    let mut out = agents_only(api, on_panic)?;
    for agent in out.iter_mut() {
        agent.counters = if agent.gpu { counters(api, agent.id, on_panic) } else { Err(NoCounters::Cpu) };
    }
    Ok(out)
}

/// Every agent, CPUs and GPUs, without asking for counters (`counters` says so).
// One visitor under one safety argument.
#[allow(clippy::multiple_unsafe_ops_per_block)]
pub fn agents_only(api: &SdkApi, on_panic: fn(&str)) -> Result<Vec<AgentInfo>> {
    unsafe extern "C" fn visit(
        _version: sys::rocprofiler_agent_version_t,
        agents: *mut *const c_void,
        count: usize,
        data: *mut c_void,
    ) -> sys::rocprofiler_status_t {
        if agents.is_null() || count == 0 {
            return sys::ROCPROFILER_STATUS_SUCCESS;
        }
        // SAFETY: `data` is the `Visit` below, alive for the query.
        let visit = unsafe { &mut *data.cast::<Visit<AgentInfo>>() };
        crate::guard::catch_panic("the agent query", sys::ROCPROFILER_STATUS_ERROR, visit.on_panic, || {
            let out = &mut visit.items;
            // SAFETY: the SDK passes `count` live agents of at least the 1.0 size asked for.
            let agents = unsafe { std::slice::from_raw_parts(agents, count) };
            for &agent in agents {
                // SAFETY: as above.
                let a = unsafe { &*agent.cast::<sys::rocprofiler_agent_v0_t>() };
                let caches: &[sys::rocprofiler_agent_cache_t] = if a.caches.is_null() {
                    &[]
                } else {
                    // SAFETY: the agent lists `caches_count` caches.
                    unsafe { std::slice::from_raw_parts(a.caches, a.caches_count as usize) }
                };
                out.push(AgentInfo {
                    id: a.id.handle,
                    node_id: a.node_id,
                    index: a.logical_node_type_id.max(0) as u32,
                    gpu: a.type_ == sys::ROCPROFILER_AGENT_TYPE_GPU,
                    name: text(a.name),
                    product: text(a.product_name),
                    vendor: text(a.vendor_name),
                    model: text(a.model_name),
                    gfx_target_version: a.gfx_target_version,
                    device_id: u32::from(a.device_id),
                    cu_count: a.cu_count,
                    simd_count: a.simd_count,
                    simd_per_cu: a.simd_per_cu,
                    max_waves_per_cu: a.max_waves_per_cu,
                    wave_front_size: a.wave_front_size,
                    num_xcc: a.num_xcc,
                    max_engine_clock_mhz: a.max_engine_clk_fcompute,
                    local_mem_bytes: a.local_mem_size,
                    pci_bdf: (u64::from(a.domain) << 16) | u64::from(a.location_id & 0xffff),
                    l2_bytes: caches.iter().filter(|c| c.level == 2).map(|c| c.size).max().unwrap_or(0),
                    lds_kb: a.lds_size_in_kb,
                    counters: Err(NoCounters::NotAsked),
                });
            }
            sys::ROCPROFILER_STATUS_SUCCESS
        })
    }
    let mut out = Visit::<AgentInfo>::new(on_panic);
    // SAFETY: a visitor that cannot unwind, and a collection that outlives the call.
    unsafe {
        calls::query_available_agents(
            api,
            sys::ROCPROFILER_AGENT_INFO_VERSION_0,
            Some(visit),
            super::sdk::compat::AGENT_SIZE_1_0,
            (&mut out as *mut Visit<AgentInfo>).cast(),
        )?;
    }
    Ok(out.items)
}

/// The counters of GPU `agent`, or why it has none.
fn counters(api: &SdkApi, agent: u64, on_panic: fn(&str)) -> std::result::Result<Vec<CounterInfo>, NoCounters> {
    unsafe extern "C" fn collect(
        _agent: sys::rocprofiler_agent_id_t,
        ids: *mut sys::rocprofiler_counter_id_t,
        count: usize,
        data: *mut c_void,
    ) -> sys::rocprofiler_status_t {
        if ids.is_null() || count == 0 {
            return sys::ROCPROFILER_STATUS_SUCCESS;
        }
        // SAFETY: `data` is the `Visit` below, alive for the query.
        let visit = unsafe { &mut *data.cast::<Visit<u64>>() };
        crate::guard::catch_panic("the counter query", sys::ROCPROFILER_STATUS_ERROR, visit.on_panic, || {
            // SAFETY: the SDK passes `count` ids, checked non-null above.
            let ids = unsafe { std::slice::from_raw_parts(ids, count) };
            visit.items.extend(ids.iter().map(|id| id.handle));
            sys::ROCPROFILER_STATUS_SUCCESS
        })
    }
    let mut visit = Visit::<u64>::new(on_panic);
    // SAFETY: a visitor that cannot unwind, and a collection that outlives the call.
    let listed = unsafe {
        calls::iterate_agent_supported_counters(
            api,
            AgentId::from_raw(agent),
            Some(collect),
            (&mut visit as *mut Visit<u64>).cast(),
        )
    };
    let ids = visit.items;
    match listed {
        Ok(()) => {}
        Err(Error::Sdk { status, .. }) => {
            return Err(NoCounters::Refused(status.name().map_or_else(
                || status.to_string(),
                |n| n.trim_start_matches("ROCPROFILER_STATUS_ERROR_").to_owned(),
            )));
        }
        Err(other) => return Err(NoCounters::Unreadable(other.to_string())),
    }
    if ids.is_empty() {
        return Err(NoCounters::NoneListed);
    }
    ids.into_iter().map(|id| info(api, id).map_err(|e| NoCounters::Unreadable(e.to_string()))).collect()
}

/// One counter's description, from `rocprofiler_query_counter_info` (version 1, which adds the
/// dimensions; a newer SDK writes a larger struct, hence the roomy buffer).
fn info(api: &SdkApi, id: u64) -> Result<CounterInfo> {
    let mut buffer = [0u64; 64];
    // SAFETY: a zeroed buffer larger than any v1 struct, 8-byte aligned.
    unsafe {
        calls::query_counter_info(
            api,
            CounterId::from_raw(id),
            sys::ROCPROFILER_COUNTER_INFO_VERSION_1,
            buffer.as_mut_ptr().cast(),
        )?;
    }
    // SAFETY: the SDK filled a v1 struct at the buffer's start.
    let v1 = unsafe { &*buffer.as_ptr().cast::<sys::rocprofiler_counter_info_v1_t>() };
    let dimensions: &[*const sys::rocprofiler_counter_record_dimension_info_t] = if v1.dimensions.is_null() {
        &[]
    } else {
        // SAFETY: the SDK lists `dimensions_count` dimension pointers.
        unsafe { std::slice::from_raw_parts(v1.dimensions, v1.dimensions_count as usize) }
    };
    let instances = dimensions
        .iter()
        .filter(|d| !d.is_null())
        // SAFETY: each non-null pointer is a dimension the SDK owns.
        .map(|&d| unsafe { &*d }.instance_size.max(1) as u64)
        .product();
    let name = text(v1.name);
    if name.is_empty() {
        return Err(Error::Counters(format!("counter id {id} has no name")));
    }
    Ok(CounterInfo {
        id,
        name,
        description: text(v1.description),
        block: text(v1.block),
        expression: text(v1.expression),
        derived: v1.is_derived() != 0,
        instances,
    })
}
