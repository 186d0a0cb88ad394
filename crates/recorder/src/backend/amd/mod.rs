//! The AMD backend: rocprofiler-sdk loads this library and calls [`rocprofiler_configure`];
//! its initialize callback sets up the tracing and counting contexts ([`session`],
//! [`counting`]) and starts the pipeline; its buffer callbacks decode records into the queue
//! ([`ingest`]).

pub mod avail;
pub mod catalog;
mod code_objects;
pub mod counting;
mod fork;
/// Public for the fuzz target of its record decoder only.
#[doc(hidden)]
pub mod ingest;
pub mod operations;
mod pc_choice;
pub mod pc_decode;
mod pc_sampling;
pub mod sdk;
pub mod session;
mod symbols;

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use rocprofiler_sdk_sys as sys;

use crate::config::Config;
use crate::error::{Error, Result, Status};
use crate::lifecycle::{self, Backend, Receiving, disable, trampoline};
use crate::pipeline::rows::Tables;
use crate::pipeline::run::Seed;
use rocprof_rs_format::pc_sample::SampleMethod;
use session::Session;

/// The SDK's contexts, once initialize set them up.
#[derive(Debug)]
pub(crate) struct Amd {
    session: Session,
    /// Leave the tracing context stopped until the application starts collecting.
    paused: bool,
    /// Each GPU's PCI location and agent id.
    gpus: Vec<(u64, u64)>,
}

static AMD: OnceLock<Amd> = OnceLock::new();

impl Backend for Amd {
    fn start(&self) -> Result<()> {
        if self.paused { Ok(()) } else { self.set_collecting(true) }
    }

    /// Starts or stops the tracing context (the code-object context stays on throughout).
    fn set_collecting(&self, on: bool) -> Result<()> {
        session::set_tracing(sdk::sdk()?.api(), &self.session, on)
    }

    fn flush(&self) {
        if let Ok(sdk) = sdk::sdk() {
            let _ = session::flush(sdk.api(), &self.session);
        }
    }

    fn finish(&self) {
        if let Ok(sdk) = sdk::sdk() {
            let _ = session::set_tracing(sdk.api(), &self.session, false);
            let _ = session::flush(sdk.api(), &self.session);
        }
    }

    fn telemetry(&self) -> crate::telemetry::Vendor {
        crate::telemetry::Vendor::Amd(self.gpus.clone())
    }

    /// Hands the crate's own `rocprofiler_configure` to the SDK through
    /// `rocprofiler_force_configure`, which configures and initializes the tool at once: only
    /// before the first HIP or HSA call (after it the SDK is locked, [`Error::TooLate`]).
    fn start_in_process(config: Config, paused: bool, library: Option<&std::path::Path>) -> Result<()> {
        let sdk = match library {
            Some(path) => sdk::sdk_from(path)?,
            None => sdk::sdk()?,
        };
        sdk::compat::abi_checked_version(sdk)?;
        *PRESET.lock() = Some(Preset { config, paused });
        // The SDK calls our configure (and initialize) before returning.
        let configured = sdk::calls::force_configure(sdk.api(), Some(rocprofiler_configure));
        let unused = PRESET.lock().take();
        match configured {
            Ok(()) => {}
            Err(Error::Sdk { status: Status::ConfigurationLocked, .. }) => {
                return Err(Error::TooLate(Status::ConfigurationLocked));
            }
            Err(e) => return Err(e),
        }
        if unused.is_some() {
            // The SDK took the call but never asked us to configure.
            return Err(Error::Disabled("rocprofiler-sdk did not call the tool's configure".into()));
        }
        Ok(())
    }
}

/// The SDK's contexts, if this process runs the AMD backend.
fn amd() -> Option<&'static Amd> {
    AMD.get()
}

impl Amd {
    /// The PC samples' buffer, where any agent samples.
    fn pc_samples(&self) -> Option<sdk::handles::BufferId> {
        self.session.pc_samples
    }
}

/// The SDK's entry point: decides whether this process is profiled.
///
/// # Safety
/// Called by rocprofiler-sdk with its documented arguments.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprofiler_configure(
    version: u32,
    _runtime_version: *const c_char,
    _priority: u32,
    client: *mut sys::rocprofiler_client_id_t,
) -> *mut sys::rocprofiler_tool_configure_result_t {
    trampoline("rocprofiler_configure", std::ptr::null_mut(), || configure(version, client))
}

fn configure(version: u32, client: *mut sys::rocprofiler_client_id_t) -> *mut sys::rocprofiler_tool_configure_result_t {
    if !sdk::compat::configure_version_supported(version) {
        crate::say!(
            "rocprof-rs: rocprofiler-sdk {}.{}.{} is older than 1.0 (ROCm 7.0); not profiling",
            version / 10000,
            version / 100 % 100,
            version % 100
        );
        return std::ptr::null_mut();
    }
    if !lifecycle::claim() {
        return std::ptr::null_mut();
    }
    let preset = PRESET.lock().take();
    let paused = preset.as_ref().is_some_and(|p| p.paused);
    START_PAUSED.store(paused, Ordering::Release);
    let config = match preset.map_or_else(Config::from_process_env, |p| Ok(p.config)) {
        Ok(config) => config,
        Err(e) => {
            disable(&e.to_string());
            return std::ptr::null_mut();
        }
    };
    let Some(tool) = lifecycle::install(config) else { return std::ptr::null_mut() };
    let (queue, receiver) = tool.new_queue();
    RECEIVER.lock().replace((queue, receiver));
    if !client.is_null() {
        // SAFETY: the SDK's client id, writable during configure.
        unsafe { (*client).name = c"rocprof-rs".as_ptr() };
    }
    static RESULT: OnceLock<usize> = OnceLock::new();
    let result = *RESULT.get_or_init(|| {
        Box::into_raw(Box::new(sys::rocprofiler_tool_configure_result_t {
            size: std::mem::size_of::<sys::rocprofiler_tool_configure_result_t>(),
            initialize: Some(tool_initialize),
            finalize: Some(tool_finalize),
            tool_data: std::ptr::null_mut(),
        })) as usize
    });
    result as *mut sys::rocprofiler_tool_configure_result_t
}

/// What an in-process [`crate::Profiler`] hands to `configure` in place of the environment.
#[derive(Debug)]
struct Preset {
    config: Config,
    /// Leave the tracing context stopped until the application starts collecting.
    paused: bool,
}

static PRESET: Mutex<Option<Preset>> = Mutex::new(None);
static START_PAUSED: AtomicBool = AtomicBool::new(false);

/// The queue's two ends, between configure and initialize.
static RECEIVER: Mutex<Option<Receiving>> = Mutex::new(None);

extern "C" fn tool_initialize(_finalize: sys::rocprofiler_client_finalize_t, _data: *mut c_void) -> c_int {
    trampoline("initialize", -1, || match initialize() {
        Ok(()) => 0,
        Err(e) => {
            disable(&e.to_string());
            -1
        }
    })
}

fn initialize() -> Result<()> {
    let Some(tool) = lifecycle::configured() else { return Ok(()) };
    let sdk = sdk::sdk()?;
    let api = sdk.api();
    let version = sdk::compat::abi_checked_version(sdk)?;
    let kinds = session::buffer_kinds(&tool.config);
    let operations = operations::operation_names(api, &kinds);
    let (agents, gpus) = session::agents(api)?;
    std::fs::create_dir_all(&tool.config.output_dir)
        .map_err(|e| Error::Io { path: tool.config.output_dir.display().to_string(), source: e })?;
    if tool.config.graph_trace == crate::config::window::GraphTrace::Graph {
        crate::say!(
            "rocprof-rs: graph-level tracing is CUDA's: rocprofiler-sdk 1.0 has no record per graph launch, so HIP graphs' kernels are traced one by one"
        );
    }
    let session = session::create(api, &tool.config)?;
    let counters = counting::setup(api, &tool.config, session.tracing, session.buffer)?;
    let seed = tool.seed.get_or_init(|| Seed { operations, library: operations::library(version), counters });
    let tables = Tables::new(tool.config.clone(), seed.clone(), agents, 0)?;
    let receiving = RECEIVER.lock().take().expect("configure stored the receiver");
    let paused = START_PAUSED.load(Ordering::Acquire) || !tool.config.starts_collecting();
    if session.pc_samples.is_some() {
        // Before the first dispatch: the names also turn on the writer's map of dispatches to
        // kernels, by which it places each sample.
        let queue = tool.queue();
        let mut batch = queue.batch();
        for method in [SampleMethod::HostTrap, SampleMethod::Stochastic] {
            queue.push(&mut batch, pc_decode::names(method));
        }
        queue.send(batch);
    }
    let amd = AMD.get_or_init(|| Amd { session, paused, gpus });
    lifecycle::start(tool, tables, receiving, amd)?;
    crate::signals::install();
    fork::install();
    Ok(())
}

extern "C" fn tool_finalize(_data: *mut c_void) {
    trampoline("finalize", (), || {
        lifecycle::finish();
    })
}
