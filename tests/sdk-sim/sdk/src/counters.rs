//! Counters: the supported sets per agent, counter info (v0 and v1 with dimensions), counter
//! configs with the per-pass hardware limit, and per-dispatch values in 1.0 instance-id encoding.
//!
//! Ids are per (architecture, counter), as the SDK's metric tables are per architecture, so a
//! config built from another agent's ids fails with `METRIC_NOT_VALID_FOR_AGENT`.

use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Mutex, OnceLock};

use rocprof_sim::hw::{self, Arch, Counter};
use rocprof_sim::runtime_abi::SimActivity;
use rocprofiler_sdk_sys::*;

use crate::agents::{self, Agent};

/// The counter with id `id`.
pub fn by_id(id: u64) -> Option<(Arch, Counter)> {
    hw::counter_by_id(id)
}

/// `rocprofiler_iterate_agent_supported_counters`.
pub fn supported(agent: &Agent) -> Result<Vec<rocprofiler_counter_id_t>, rocprofiler_status_t> {
    let arch = agent.arch.ok_or(ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED)?;
    let ids: Vec<_> =
        (0..hw::supported(arch).len()).map(|i| rocprofiler_counter_id_t { handle: hw::counter_id(arch, i) }).collect();
    if ids.is_empty() {
        return Err(ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED);
    }
    Ok(ids)
}

fn leak(s: &str) -> *const std::ffi::c_char {
    CString::new(s).unwrap().into_raw()
}

struct Info {
    v1: rocprofiler_counter_info_v1_t,
}

// SAFETY: the info points only at leaked, immutable data.
unsafe impl Send for Info {}

fn info(id: u64) -> Option<rocprofiler_counter_info_v1_t> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Info>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    if let Some(info) = cache.get(&id) {
        return Some(info.v1);
    }
    let (arch, counter) = by_id(id)?;
    let mut v1 = rocprofiler_counter_info_v1_t {
        size: std::mem::size_of::<rocprofiler_counter_info_v1_t>() as u64,
        id: rocprofiler_counter_id_t { handle: id },
        name: leak(counter.name()),
        ..Default::default()
    };
    let (block, description, expression, derived) = match counter {
        Counter::Base(b) => (b.block.name, b.description, "", 0),
        Counter::Derived(d) => ("", d.description, d.expression, 1),
    };
    v1.block = leak(block);
    v1.description = leak(description);
    v1.expression = leak(expression);
    v1.set_is_derived(derived);
    let dims = hw::counter_dims(counter, arch);
    let dim_infos: Vec<*const rocprofiler_counter_record_dimension_info_t> = dims
        .iter()
        .map(|&(dim, size)| {
            &*Box::leak(Box::new(rocprofiler_counter_record_dimension_info_t {
                name: leak(dim.name()),
                instance_size: size as usize,
                id: dim as u64,
            })) as *const _
        })
        .collect();
    v1.dimensions_count = dim_infos.len() as u64;
    v1.dimensions = if dim_infos.is_empty() { std::ptr::null_mut() } else { dim_infos.leak().as_mut_ptr() };
    let instances: Vec<*const rocprofiler_counter_record_dimension_instance_info_t> =
        hw::instance_values(counter, arch, &SimActivity::default(), 0)
            .into_iter()
            .filter(|(positions, _)| !positions.is_empty())
            .map(|(positions, _)| {
                let dims: Vec<*const rocprofiler_counter_dimension_info_t> = positions
                    .iter()
                    .map(|&(dim, pos)| {
                        &*Box::leak(Box::new(rocprofiler_counter_dimension_info_t {
                            size: std::mem::size_of::<rocprofiler_counter_dimension_info_t>() as u64,
                            dimension_name: leak(dim.name()),
                            index: pos as usize,
                        })) as *const _
                    })
                    .collect();
                &*Box::leak(Box::new(rocprofiler_counter_record_dimension_instance_info_t {
                    size: std::mem::size_of::<rocprofiler_counter_record_dimension_instance_info_t>() as u64,
                    instance_id: hw::encode_instance(id, &positions),
                    counter_id: id,
                    dimensions_count: dims.len() as u64,
                    dimensions: dims.leak().as_mut_ptr(),
                })) as *const _
            })
            .collect();
    v1.dimensions_instances_count = instances.len() as u64;
    v1.dimensions_instances = if instances.is_empty() { std::ptr::null_mut() } else { instances.leak().as_mut_ptr() };
    cache.insert(id, Info { v1 });
    Some(v1)
}

/// `rocprofiler_query_counter_info`.
pub fn query_info(
    id: u64,
    version: rocprofiler_counter_info_version_id_t,
    out: *mut std::ffi::c_void,
) -> rocprofiler_status_t {
    let Some(v1) = info(id) else { return ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND };
    if out.is_null() {
        return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    }
    match version {
        ROCPROFILER_COUNTER_INFO_VERSION_0 => {
            let mut v0 = rocprofiler_counter_info_v0_t {
                id: v1.id,
                name: v1.name,
                description: v1.description,
                block: v1.block,
                expression: v1.expression,
                ..Default::default()
            };
            v0.set_is_derived(v1.is_derived());
            // SAFETY: the caller passes a v0 struct for version 0.
            unsafe { out.cast::<rocprofiler_counter_info_v0_t>().write(v0) };
        }
        ROCPROFILER_COUNTER_INFO_VERSION_1 => {
            // SAFETY: the caller passes a v1 struct for version 1.
            unsafe { out.cast::<rocprofiler_counter_info_v1_t>().write(v1) };
        }
        _ => return ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI,
    }
    ROCPROFILER_STATUS_SUCCESS
}

/// A counter config: an agent and the counters to read on it.
pub struct Config {
    pub agent: u64,
    pub arch: Arch,
    pub counters: Vec<(u64, Counter)>,
}

static CONFIGS: Mutex<Vec<Option<&'static Config>>> = Mutex::new(Vec::new());
const CONFIG_OFFSET: u64 = 0x7700;

/// `rocprofiler_create_counter_config`.
pub fn create_config(agent: u64, ids: &[u64], existing: u64) -> Result<u64, rocprofiler_status_t> {
    let agent_info = agents::by_id(agent).ok_or(ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND)?;
    let arch = agent_info.arch.ok_or(ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED)?;
    let mut counters: Vec<(u64, Counter)> = Vec::new();
    for &id in ids {
        let (counter_arch, counter) = by_id(id).ok_or(ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND)?;
        if counter_arch != arch {
            return Err(ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT);
        }
        if !counters.iter().any(|(i, _)| *i == id) {
            counters.push((id, counter));
        }
    }
    if let Some(old) = (existing != 0).then(|| config(existing)).flatten() {
        for entry in &old.counters {
            if !counters.iter().any(|(i, _)| *i == entry.0) {
                counters.push(*entry);
            }
        }
    }
    if counters.len() > rocprof_sim::runtime_abi::MAX_CONFIG_COUNTERS {
        crate::ffi::log!("counter config of {} counters: the simulator models at most 64", counters.len());
        return Err(ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT);
    }
    let plain: Vec<Counter> = counters.iter().map(|(_, c)| *c).collect();
    // No log line: tools probe with oversized sets (rocprof-rs packs its groups by trying).
    if hw::fits_one_pass(&plain).is_err() {
        return Err(ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT);
    }
    let mut configs = CONFIGS.lock().unwrap();
    configs.push(Some(Box::leak(Box::new(Config { agent, arch, counters }))));
    Ok(CONFIG_OFFSET + configs.len() as u64 - 1)
}

/// The config with handle `id`.
pub fn config(id: u64) -> Option<&'static Config> {
    let index = id.checked_sub(CONFIG_OFFSET)?;
    CONFIGS.lock().unwrap().get(index as usize).copied().flatten()
}

/// `rocprofiler_destroy_counter_config`.
pub fn destroy_config(id: u64) -> rocprofiler_status_t {
    let Some(index) = id.checked_sub(CONFIG_OFFSET) else { return ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND };
    match CONFIGS.lock().unwrap().get_mut(index as usize) {
        Some(slot @ Some(_)) => {
            *slot = None;
            ROCPROFILER_STATUS_SUCCESS
        }
        _ => ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND,
    }
}

/// The value records of one dispatch under `config`.
pub fn records(
    config: &Config,
    activity: &SimActivity,
    dispatch_id: u64,
    user_data: rocprofiler_user_data_t,
) -> Vec<rocprofiler_counter_record_t> {
    let mut out = Vec::new();
    for &(id, counter) in &config.counters {
        for (positions, value) in hw::instance_values(counter, config.arch, activity, dispatch_id) {
            out.push(rocprofiler_counter_record_t {
                id: hw::encode_instance(id, &positions),
                counter_value: value,
                dispatch_id,
                user_data,
                agent_id: rocprofiler_agent_id_t { handle: config.agent },
            });
        }
    }
    out
}
