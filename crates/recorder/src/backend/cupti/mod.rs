//! The NVIDIA backend: CUPTI by injection, into the same queue, writer and tables as the AMD
//! backend.
//!
//! libcuda calls [`InitializeInjection`] once, inside the first `cuInit`, when
//! `CUDA_INJECTION64_PATH` names this library. From there:
//!
//! 1. libcupti is loaded (the process's own copy if torch brought one: two copies break NVTX);
//! 2. the single subscriber slot is claimed first, so a later torch.profiler fails cleanly and
//!    our data stays whole; if someone holds it already, the tool turns off with their name;
//! 3. records are stamped with CLOCK_BOOTTIME, the AMD tables' clock, through CUPTI's timestamp
//!    callback, and thread ids are the OS's;
//! 4. the writer starts, then the activity kinds and launch callbacks are enabled;
//! 5. a named thread flushes CUPTI every second, so records do not wait in CUPTI's buffers for
//!    a file to rotate (`ROCPROF_RS_ROTATE_SECONDS`); exit, SIGINT/SIGTERM and a context's
//!    destruction force a flush. A process that ends without exit handlers (`os._exit`,
//!    SIGKILL) loses what is not yet in a completed file, as on AMD.
//!
//! The in-process profiler runs the same set-up at once, through
//! [`Backend::start_in_process`], before the application's first CUDA call.
//!
//! After `fork`, CUDA and CUPTI are unusable in the child (a flush there hangs: CUPTI's worker
//! thread did not come along), so the child never calls CUPTI and writes nothing; a child that
//! execs, or was forked before `cuInit`, injects itself afresh.

pub mod api;
mod buffers;
mod callbacks;
pub mod counting;
pub mod decode;
pub mod error;
mod flush;
pub mod nvtx;
pub mod operations;
pub mod pc_sampling;
mod switching;

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use api::activity;
use api::callback::Subscriber;
pub use api::load::load_for_listing;
use api::load::{cupti, load};

use crate::config::window::GraphTrace;
use crate::config::{Config, Domain};
use crate::error::Error;
use crate::lifecycle::{self, Backend, disable, trampoline};
use crate::pipeline::clock;
use crate::pipeline::records::Record;
use crate::pipeline::rows::Tables;
use crate::pipeline::run::Seed;
use error::CuptiError;

/// What the backend holds while it runs.
pub(crate) struct Cuda {
    subscriber: Subscriber,
    /// The process that initialised CUPTI: any other (a forked child) must never call it.
    pid: u32,
    /// Serialises `cuptiActivityFlushAll`, which deadlocks when called concurrently.
    flush: Mutex<()>,
    buffers: buffers::Pool,
    /// Kernels, copies and sets CUPTI could not time.
    bad_timestamps: AtomicU64,
}

static CUDA: OnceLock<Cuda> = OnceLock::new();

/// libcuda's injection entry (`CUDA_INJECTION64_PATH`). Always returns 1: what the driver does
/// with anything else is undocumented, and the application must run on regardless.
#[unsafe(no_mangle)]
pub extern "C" fn InitializeInjection() -> c_int {
    trampoline("InitializeInjection", 1, || {
        if let Err(reason) = initialize() {
            disable(&reason.to_string());
        }
        1
    })
}

/// NVTX's injection entry (`NVTX_INJECTION64_PATH`), forwarded to libcupti's: NVTX binds to the
/// first injection it finds, and pointing it at another libcupti file than the one loaded maps
/// a second copy that never records a range.
///
/// # Safety
/// Called by NVTX with its export-table getter.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn InitializeInjectionNvtx2(get_export_table: *const c_void) -> c_int {
    trampoline("InitializeInjectionNvtx2", 0, || {
        let Ok(cupti) = load() else { return 0 };
        // SAFETY: the argument NVTX gave us.
        unsafe { api::load::forward_nvtx_injection(cupti, get_export_table) }
    })
}

fn initialize() -> Result<(), CuptiError> {
    if !lifecycle::claim() {
        return Ok(());
    }
    set_up(Config::from_process_env()?)
}

/// Everything after the claim, the same for the injection and the in-process profiler.
fn set_up(config: Config) -> Result<(), CuptiError> {
    let cupti = load()?;
    let counting = match counting::setup(cupti, &config) {
        Ok(on) => on,
        Err(e) => {
            crate::say!("rocprof-rs: NVIDIA counters are off: {e}; tracing goes on");
            false
        }
    };
    let mut config = config;
    if pc_sampling::set_up(cupti, &config, counting) {
        // Samples name their kernel by function: the kernels' own records name them.
        config.domains.insert(Domain::Kernel);
    }
    let version = cupti.version();
    let subscriber = callbacks::subscribe(cupti)?;
    activity::use_system_thread_ids(cupti).map_err(|f| f.setting_up("thread ids"))?;
    // SAFETY: a trampoline that cannot unwind, registered once, before any kind is enabled.
    unsafe { activity::register_timestamp_callback(cupti, timestamp) }.map_err(|f| f.setting_up("the clock"))?;
    let pool = buffers::Pool::new(config.cupti_buffer_bytes, version, flush::Dump::from_config(&config, version));
    let cuda = Cuda {
        subscriber,
        pid: std::process::id(),
        flush: Mutex::new(()),
        buffers: pool,
        bad_timestamps: AtomicU64::new(0),
    };
    if CUDA.set(cuda).is_err() {
        return Ok(());
    }
    // SAFETY: two trampolines of the declared signatures that keep CUPTI's buffer contract
    // (`buffers`) and cannot unwind.
    unsafe { activity::register_buffer_callbacks(cupti, buffers::requested, buffers::completed) }
        .map_err(|f| f.setting_up("buffers"))?;
    std::fs::create_dir_all(&config.output_dir)
        .map_err(|source| CuptiError::OutputDir { path: config.output_dir.display().to_string(), source })?;
    let library = cupti.path().map(|p| p.display().to_string()).unwrap_or_default();
    let seed = Seed {
        operations: operations::operations(),
        library: operations::library(version, library),
        counters: counting.then(|| crate::pipeline::run::CounterNames {
            deferred: true,
            join_launches: true,
            ..Default::default()
        }),
    };
    start(config, seed)?;
    crate::signals::install();
    flush::install_fork_handlers();
    // SAFETY: a plain `extern "C" fn()`.
    if unsafe { libc::atexit(flush::at_exit) } != 0 {
        crate::say!("rocprof-rs: cannot register the exit handler; records of the last second may be lost");
    }
    Ok(())
}

/// The tool, its writer and its tables: the same as the AMD backend's, bar the seed.
fn start(config: Config, seed: Seed) -> Result<(), CuptiError> {
    let tool = lifecycle::install(config).ok_or(CuptiError::AlreadySetUp)?;
    let seed = tool.seed.get_or_init(|| seed).clone();
    let receiving = tool.new_queue();
    let tables = Tables::new(tool.config.clone(), seed, crate::pipeline::rows::no_agents(), 0)?;
    let cuda = CUDA.get().ok_or(CuptiError::AlreadySetUp)?;
    Ok(lifecycle::start(tool, tables, receiving, cuda)?)
}

impl Backend for Cuda {
    /// The activity kinds and callbacks (the collected kinds not yet where the run starts
    /// paused), then the thread that flushes CUPTI every second.
    fn start(&self) -> crate::Result<()> {
        let paused = lifecycle::installed().is_some_and(|t| !t.config.starts_collecting());
        if let Some(cupti) = cupti() {
            enable(cupti, self.subscriber, !paused);
        }
        flush::start_thread();
        Ok(())
    }

    /// Enables or disables the collected activity kinds, as torch.profiler does around its
    /// window: CUPTI records a kernel if its kind was enabled when it was launched, so a region
    /// holds exactly the work launched inside it. Launch calls stop making rows likewise. With
    /// graph-level tracing and windows, graph launches are traced whole between windows and
    /// node by node inside them.
    fn set_collecting(&self, on: bool) -> crate::Result<()> {
        let cupti = cupti().ok_or(Error::NotRunning)?;
        let refused = switching::set_collecting(cupti, on, &collected_kinds(), graph_level_between_windows());
        callbacks::set_collecting(on);
        if refused.is_empty() {
            Ok(())
        } else {
            Err(Error::Disabled(format!("CUPTI would not switch {}", refused.join(", "))))
        }
    }

    fn flush(&self) {
        flush(true);
    }

    fn finish(&self) {
        finish();
    }

    fn telemetry(&self) -> crate::telemetry::Vendor {
        crate::telemetry::Vendor::Nvidia
    }

    /// Its flush thread moves CUPTI's records every `ROCPROF_RS_FLUSH_MS`.
    fn flushes_itself(&self) -> bool {
        true
    }

    /// Sets CUPTI up at once, as the injection does inside the driver's first `cuInit`: CUPTI
    /// takes its subscriber and activity kinds before CUDA starts, so the profiler should start
    /// before the first CUDA call for every launch to be seen. libcupti is found as the
    /// injection finds it; `library` is rocprofiler-sdk's alone.
    fn start_in_process(mut config: Config, paused: bool, _library: Option<&std::path::Path>) -> crate::Result<()> {
        if !lifecycle::claim() {
            return Err(Error::AlreadyConfigured);
        }
        config.start_paused |= paused;
        if let Err(reason) = set_up(config) {
            disable(&reason.to_string());
        }
        Ok(())
    }
}

/// The activity kinds the configuration asks for, which a paused run turns off.
fn collected_kinds() -> Vec<(&'static str, u32)> {
    let domains = lifecycle::installed().map(|t| t.config.domains).unwrap_or_default();
    let mut kinds = Vec::new();
    if domains.contains(Domain::Kernel) {
        // Never KERNEL: it serialises every kernel launch.
        kinds.push(("CONCURRENT_KERNEL", sys::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    }
    if domains.contains(Domain::MemoryCopy) {
        kinds.push(("MEMCPY", sys::CUPTI_ACTIVITY_KIND_MEMCPY));
        kinds.push(("MEMCPY2", sys::CUPTI_ACTIVITY_KIND_MEMCPY2));
        kinds.push(("MEMSET", sys::CUPTI_ACTIVITY_KIND_MEMSET));
    }
    if domains.contains(Domain::Marker) {
        kinds.push(("MARKER", sys::CUPTI_ACTIVITY_KIND_MARKER));
    }
    kinds
}

/// Whether the run traces CUDA graphs at graph level.
fn graph_level() -> bool {
    lifecycle::installed().is_some_and(|t| t.config.graph_trace == GraphTrace::Graph)
}

/// Whether the run records in windows.
pub(super) fn windowed() -> bool {
    lifecycle::installed().is_some_and(|t| t.config.window.is_some())
}

/// Whether graph-level records are switched off inside each window and on between them.
fn graph_level_between_windows() -> bool {
    graph_level() && lifecycle::installed().is_some_and(|t| t.config.window.is_some())
}

/// The activity kinds and callbacks the configuration asks for (the collected kinds only where
/// `collecting`). DEVICE always: it fills the agent table, which analysis needs to find the
/// GPU's specs. GRAPH_TRACE from the start where graphs are traced at graph level: CUPTI
/// cannot trace a graph whole if the kind was off when the graph was instantiated.
fn enable(cupti: &Cupti, subscriber: Subscriber, collecting: bool) {
    let domains = lifecycle::installed().map(|t| t.config.domains).unwrap_or_default();
    let mut kinds = vec![("DEVICE", sys::CUPTI_ACTIVITY_KIND_DEVICE)];
    if graph_level() {
        kinds.push(("GRAPH_TRACE", sys::CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
    }
    if collecting {
        kinds.extend(collected_kinds());
    }
    callbacks::set_collecting(collecting);
    for (name, kind) in kinds {
        if let Err(failed) = activity::enable(cupti, kind) {
            crate::say!("rocprof-rs: CUPTI cannot trace {name} activity ({}); tracing the rest", failed.text);
        }
    }
    let unsupported =
        [domains.contains(Domain::HipApi), domains.contains(Domain::HsaApi), domains.contains(Domain::RcclApi)];
    if unsupported.iter().any(|on| *on) {
        crate::say!("rocprof-rs: HIP, HSA and RCCL API tracing are AMD's; on NVIDIA use --cuda-api-trace");
    }
    callbacks::enable(cupti, subscriber, domains.contains(Domain::CudaApi));
}

/// Flushes CUPTI into the queue: `forced` also hands over buffers with records still being
/// written, which is what the end of a run needs. Never in a process other than the one CUPTI
/// was set up in.
pub(super) fn flush(forced: bool) {
    let (Some(cuda), Some(cupti)) = (CUDA.get(), cupti()) else { return };
    if std::process::id() != cuda.pid {
        return;
    }
    let guard = if forced { cuda.flush.try_lock_for(std::time::Duration::from_secs(5)) } else { cuda.flush.try_lock() };
    let Some(guard) = guard else { return };
    // Serialised by `flush`, as CUPTI needs.
    let _ = activity::flush_all(cupti, forced);
    drop(guard);
    // After the kernels' records, which name the kernels the samples land in; outside the
    // lock, which a fork waits for.
    pc_sampling::collect();
}

/// At the end of the run, before the writer stops: stops the flush thread, stops the launch
/// callbacks, and forces every record out of CUPTI.
pub(super) fn finish() {
    let Some(cuda) = CUDA.get() else { return };
    if std::process::id() != cuda.pid {
        return;
    }
    flush::stop_thread();
    // PC sampling stops first, while a context's destruction still comes to its callback.
    flush(true);
    pc_sampling::finish();
    if let Some(cupti) = cupti() {
        callbacks::disable(cupti, cuda.subscriber);
        // An in-process run can end long before the process: nothing more is traced.
        for (_, kind) in collected_kinds() {
            let _ = activity::disable(cupti, kind);
        }
        if graph_level() {
            let _ = activity::disable(cupti, sys::CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
        }
    }
    counting::finish();
    flush(true);
    pc_sampling::describe_at_exit();
    if let Some(tool) = lifecycle::running() {
        let queue = tool.queue();
        let mut batch = queue.batch();
        queue.push(&mut batch, Record::Tally(buffers::unclosed_ranges(&cuda.buffers)));
        queue.send(batch);
    }
    let bad = cuda.bad_timestamps.load(Ordering::Relaxed);
    if bad > 0 {
        crate::say!(
            "rocprof-rs: CUPTI could not time {bad} kernels, copies or sets (start or end missing); they have no rows"
        );
    }
}

/// CUPTI's clock callback: CLOCK_BOOTTIME, the clock of every table.
extern "C" fn timestamp() -> u64 {
    trampoline("the CUPTI clock", 0, clock::now_ns)
}
