//! Counter collection for the check tool: on every GPU agent, a config with the counters named
//! in `ROCPROF_SIM_CHECK_COUNTERS`, found through the SDK's own queries; per dispatch, the value
//! records summed over their instances into one `counter` row per counter.
//!
//! An agent whose counters cannot be listed or configured is reported as a comment line
//! (`# check-tool: counters on gfx1151: ...`), which is what tests look for.

use std::collections::HashMap;
use std::ffi::{CStr, c_void};
use std::sync::{Mutex, OnceLock};

use rocprof_sim::truth::Row;
use rocprofiler_sdk_sys::sdk::SdkApi;
use rocprofiler_sdk_sys::*;

use crate::{state, write};

/// Agent handle → its counter config.
static CONFIGS: OnceLock<HashMap<u64, rocprofiler_counter_config_id_t>> = OnceLock::new();

/// GPU agents with their names.
fn gpu_agents(api: &SdkApi) -> Vec<(rocprofiler_agent_id_t, String)> {
    unsafe extern "C" fn collect(
        _version: rocprofiler_agent_version_t,
        agents: *mut *const c_void,
        count: usize,
        data: *mut c_void,
    ) -> rocprofiler_status_t {
        crate::guarded("collect agents", ROCPROFILER_STATUS_ERROR, || {
            // SAFETY: `data` is the Vec passed below; the SDK passes `count` v0 agent pointers.
            let (out, agents) = unsafe {
                (&mut *data.cast::<Vec<(rocprofiler_agent_id_t, String)>>(), std::slice::from_raw_parts(agents, count))
            };
            for &agent in agents {
                // SAFETY: each pointer is a live `rocprofiler_agent_t` of at least the size we asked for.
                let agent = unsafe { &*agent.cast::<rocprofiler_agent_t>() };
                if agent.type_ == ROCPROFILER_AGENT_TYPE_GPU {
                    // SAFETY: agent names are NUL-terminated strings the SDK owns.
                    out.push((agent.id, unsafe { CStr::from_ptr(agent.name) }.to_string_lossy().into_owned()));
                }
            }
            ROCPROFILER_STATUS_SUCCESS
        })
    }
    let mut out: Vec<(rocprofiler_agent_id_t, String)> = Vec::new();
    // SAFETY: a valid callback and user data that outlives the call.
    let status = unsafe {
        (api.rocprofiler_query_available_agents)(
            ROCPROFILER_AGENT_INFO_VERSION_0,
            Some(collect),
            std::mem::size_of::<rocprofiler_agent_t>(),
            (&mut out as *mut Vec<(rocprofiler_agent_id_t, String)>).cast(),
        )
    };
    crate::check("query_available_agents", status);
    out
}

/// The name of counter `id`.
pub fn counter_name(api: &SdkApi, id: rocprofiler_counter_id_t) -> Option<&'static str> {
    let mut info = rocprofiler_counter_info_v0_t::default();
    // SAFETY: a v0 info struct for version 0.
    let status = unsafe {
        (api.rocprofiler_query_counter_info)(
            id,
            ROCPROFILER_COUNTER_INFO_VERSION_0,
            (&mut info as *mut rocprofiler_counter_info_v0_t).cast(),
        )
    };
    if status != ROCPROFILER_STATUS_SUCCESS || info.name.is_null() {
        return None;
    }
    // SAFETY: counter names are static NUL-terminated strings.
    unsafe { CStr::from_ptr(info.name) }.to_str().ok()
}

/// The ids of `agent`'s counters named in `wanted`.
fn pick(
    api: &SdkApi,
    agent: rocprofiler_agent_id_t,
    wanted: &[String],
) -> Result<Vec<rocprofiler_counter_id_t>, String> {
    unsafe extern "C" fn collect(
        _agent: rocprofiler_agent_id_t,
        counters: *mut rocprofiler_counter_id_t,
        count: usize,
        data: *mut c_void,
    ) -> rocprofiler_status_t {
        crate::guarded("collect counters", ROCPROFILER_STATUS_ERROR, || {
            // SAFETY: `data` is the Vec passed below; the SDK passes `count` ids.
            unsafe {
                (*data.cast::<Vec<rocprofiler_counter_id_t>>())
                    .extend_from_slice(std::slice::from_raw_parts(counters, count))
            };
            ROCPROFILER_STATUS_SUCCESS
        })
    }
    let mut all: Vec<rocprofiler_counter_id_t> = Vec::new();
    // SAFETY: a valid callback and user data that outlives the call.
    let status = unsafe {
        (api.rocprofiler_iterate_agent_supported_counters)(
            agent,
            Some(collect),
            (&mut all as *mut Vec<rocprofiler_counter_id_t>).cast(),
        )
    };
    if status != ROCPROFILER_STATUS_SUCCESS {
        return Err(format!("iterate_agent_supported_counters: {}", status_name(api, status)));
    }
    Ok(all.into_iter().filter(|&id| counter_name(api, id).is_some_and(|n| wanted.iter().any(|w| w == n))).collect())
}

fn status_name(api: &SdkApi, status: rocprofiler_status_t) -> String {
    // SAFETY: returns a static string or null.
    let name = unsafe { (api.rocprofiler_get_status_name)(status) };
    if name.is_null() {
        return status.to_string();
    }
    // SAFETY: a static NUL-terminated string.
    unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
}

/// Creates the per-agent configs and the counting service on `ctx`, writing into `buffer`.
pub fn configure(ctx: rocprofiler_context_id_t, buffer: rocprofiler_buffer_id_t, wanted: &[String]) {
    let api = state().sdk.api();
    let mut configs = HashMap::new();
    for (agent, name) in gpu_agents(api) {
        let mut ids = match pick(api, agent, wanted) {
            Ok(ids) if !ids.is_empty() => ids,
            Ok(_) => continue,
            Err(why) => {
                write(&format!("# check-tool: counters on {name}: {why}\n"));
                continue;
            }
        };
        let mut config = rocprofiler_counter_config_id_t { handle: 0 };
        // SAFETY: `ids` holds `ids.len()` counter ids of this agent.
        let status =
            unsafe { (api.rocprofiler_create_counter_config)(agent, ids.as_mut_ptr(), ids.len(), &mut config) };
        if status == ROCPROFILER_STATUS_SUCCESS {
            configs.insert(agent.handle, config);
        } else {
            write(&format!("# check-tool: counters on {name}: create_counter_config: {}\n", status_name(api, status)));
        }
    }
    let _ = CONFIGS.set(configs);
    // SAFETY: our callback, inside initialize.
    crate::check("configure_buffer_dispatch_counting_service", unsafe {
        (api.rocprofiler_configure_buffer_dispatch_counting_service)(ctx, buffer, Some(choose), std::ptr::null_mut())
    });
}

extern "C" fn choose(
    data: rocprofiler_dispatch_counting_service_data_t,
    config: *mut rocprofiler_counter_config_id_t,
    _user_data: *mut rocprofiler_user_data_t,
    _args: *mut c_void,
) {
    crate::guarded("choose", (), || {
        if let Some(&chosen) = CONFIGS.get().and_then(|c| c.get(&data.dispatch_info.agent_id.handle)) {
            // SAFETY: the SDK's output slot for this dispatch.
            unsafe { config.write(chosen) };
        }
    })
}

/// One dispatch's counter records as the buffer delivers them: the header, then its values.
#[derive(Default)]
pub struct Group {
    pending: u64,
    agent: u64,
    dispatch: u64,
    correlation: u64,
    sums: Vec<(rocprofiler_counter_id_t, f64)>,
}

impl Group {
    /// A dispatch header: `num_records` value records follow in the same callback.
    pub fn header(&mut self, header: &rocprofiler_dispatch_counting_service_record_t, text: &mut String) {
        self.finish(text);
        self.pending = header.num_records;
        self.agent = header.dispatch_info.agent_id.handle;
        self.dispatch = header.dispatch_info.dispatch_id;
        self.correlation = header.correlation_id.internal;
    }

    /// One instance's value.
    pub fn value(&mut self, record: &rocprofiler_counter_record_t, text: &mut String) {
        let api = state().sdk.api();
        let mut id = rocprofiler_counter_id_t { handle: 0 };
        // SAFETY: a valid output pointer.
        let status = unsafe { (api.rocprofiler_query_record_counter_id)(record.id, &mut id) };
        if status != ROCPROFILER_STATUS_SUCCESS || self.pending == 0 || record.dispatch_id != self.dispatch {
            text.push_str("counter_record_out_of_place\n");
            return;
        }
        match self.sums.iter_mut().find(|(c, _)| c.handle == id.handle) {
            Some((_, sum)) => *sum += record.counter_value,
            None => self.sums.push((id, record.counter_value)),
        }
        self.pending -= 1;
        if self.pending == 0 {
            self.finish(text);
        }
    }

    /// Writes the finished dispatch's rows; a group cut short is reported, not hidden.
    pub fn finish(&mut self, text: &mut String) {
        if self.pending > 0 {
            text.push_str("counter_group_incomplete\n");
        }
        let names = names();
        let api = state().sdk.api();
        for (id, sum) in self.sums.drain(..) {
            let mut names = names.lock().unwrap();
            let name = *names.entry(id.handle).or_insert_with(|| counter_name(api, id).unwrap_or("UNKNOWN_COUNTER"));
            Row {
                record: "counter",
                correlation_id: Some(self.correlation),
                agent_id: Some(self.agent),
                dispatch_id: Some(self.dispatch),
                value: Some(sum),
                name: Some(name),
                ..Row::default()
            }
            .write_to(text);
        }
        self.pending = 0;
    }
}

fn names() -> &'static Mutex<HashMap<u64, &'static str>> {
    static NAMES: OnceLock<Mutex<HashMap<u64, &'static str>>> = OnceLock::new();
    NAMES.get_or_init(Default::default)
}
