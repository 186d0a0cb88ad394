//! `rocprof-rs avail`: the agents, their counters, and which presets each runs in full.
//!
//! The SDK answers counter queries only once it is initialized, so this does what rocprofv3's
//! own listing tool does: it hands the SDK a configure function of its own through
//! `rocprofiler_force_configure` and asks its questions from that tool's `initialize`.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;
use serde::Serialize;
use sys::sdk::Sdk;

use super::catalog::{self, AgentInfo};
use super::sdk::calls;
use crate::counters::presets::{PRESETS, Resolved};
use crate::error::{Error, Result, Status};

/// Everything `avail` reports.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Inventory {
    /// The SDK's version, `major.minor.patch`.
    pub sdk_version: String,
    pub agents: Vec<AgentInfo>,
    pub presets: Vec<PresetReport>,
}

/// One preset on every GPU.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PresetReport {
    pub name: &'static str,
    pub about: &'static str,
    pub agents: Vec<PresetOnAgent>,
}

/// One preset on one GPU.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PresetOnAgent {
    pub agent: String,
    /// Runs in full: every required entry has a counter.
    pub complete: bool,
    pub counters: Vec<String>,
    /// Required entries without a counter here.
    pub missing: Vec<&'static str>,
    /// Why the GPU has no counters at all, if it has none.
    pub unavailable: Option<String>,
}

/// What the forced configure's initialize found, for [`inventory`] to take.
static ANSWER: Mutex<Option<Result<Vec<AgentInfo>>>> = Mutex::new(None);

/// Asks `sdk` for the inventory.
pub fn inventory(sdk: &Sdk) -> Result<Inventory> {
    let api = sdk.api();
    let version = super::sdk::compat::abi_checked_version(sdk)?;
    let configured = calls::force_configure(api, Some(configure));
    let agents = match ANSWER.lock().take() {
        Some(answer) => answer?,
        None => match configured {
            // Already initialized (another tool in this process): ask directly.
            Ok(()) | Err(Error::Sdk { status: Status::ConfigurationLocked, .. }) => {
                catalog::agents(api, crate::guard::report_panic)?
            }
            Err(e) => return Err(e),
        },
    };
    let presets = PRESETS
        .iter()
        .map(|preset| PresetReport {
            name: preset.name,
            about: preset.about,
            agents: agents
                .iter()
                .filter(|a| a.gpu)
                .map(|a| {
                    let names = a.counter_names();
                    let Resolved { counters, missing } = preset.resolve(|n| names.contains(&n));
                    PresetOnAgent {
                        agent: a.label(),
                        complete: a.counters.is_ok() && missing.is_empty(),
                        counters,
                        missing,
                        unavailable: a.counters.as_ref().err().map(ToString::to_string),
                    }
                })
                .collect(),
        })
        .collect();
    Ok(Inventory { sdk_version: format!("{}.{}.{}", version.0, version.1, version.2), agents, presets })
}

unsafe extern "C" fn configure(
    _version: u32,
    _runtime_version: *const c_char,
    _priority: u32,
    client: *mut sys::rocprofiler_client_id_t,
) -> *mut sys::rocprofiler_tool_configure_result_t {
    static RESULT: OnceLock<usize> = OnceLock::new();
    if !client.is_null() {
        // SAFETY: the SDK's client id, writable during configure.
        unsafe { (*client).name = c"rocprof-rs avail".as_ptr() };
    }
    // A panic must not unwind into the SDK: no tool is as good as a broken one here.
    let result = crate::guard::catch_panic("the avail configure", 0, crate::guard::report_panic, || {
        *RESULT.get_or_init(|| {
            Box::into_raw(Box::new(sys::rocprofiler_tool_configure_result_t {
                size: std::mem::size_of::<sys::rocprofiler_tool_configure_result_t>(),
                initialize: Some(initialize),
                finalize: None,
                tool_data: std::ptr::null_mut(),
            })) as usize
        })
    });
    result as *mut sys::rocprofiler_tool_configure_result_t
}

extern "C" fn initialize(_finalize: sys::rocprofiler_client_finalize_t, _data: *mut c_void) -> c_int {
    let answer = crate::guard::catch_panic(
        "the avail initialize",
        Err(Error::Internal("the agent query panicked")),
        crate::guard::report_panic,
        || match super::sdk::loaded() {
            Some(sdk) => catalog::agents(sdk.api(), crate::guard::report_panic),
            None => Err(Error::Internal("the SDK called initialize, yet it is not loaded")),
        },
    );
    *ANSWER.lock() = Some(answer);
    0
}
