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
//! After `fork`, CUDA and CUPTI are unusable in the child (a flush there hangs: CUPTI's worker
//! thread did not come along), so the child never calls CUPTI and writes nothing; a child that
//! execs, or was forked before `cuInit`, injects itself afresh.

mod buffers;
mod callbacks;
pub mod counting;
pub mod decode;
pub mod error;
mod flush;
pub mod nvtx;
pub mod operations;

use std::ffi::{c_int, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use crate::config::{Config, Domain};
use crate::error::Error;
use crate::lifecycle::{self, Backend, disable, trampoline};
use crate::pipeline::clock;
use crate::pipeline::records::Record;
use crate::pipeline::rows::Tables;
use crate::pipeline::run::Seed;
use error::CuptiError;
use rocprof_rs_format as tables;
use rocprofiler_sdk_sys::LoadError;

/// The process's CUPTI, once loaded: by whichever of the two injection entries comes first.
static CUPTI: OnceLock<Result<Cupti, LoadError>> = OnceLock::new();

/// What the backend holds while it runs.
struct Cuda {
    subscriber: usize,
    /// The process that initialised CUPTI: any other (a forked child) must never call it.
    pid: u32,
    /// Serialises `cuptiActivityFlushAll`, which deadlocks when called concurrently.
    flush: Mutex<()>,
    buffers: buffers::Pool,
    /// Kernels, copies and sets CUPTI could not time.
    bad_timestamps: AtomicU64,
}

static CUDA: OnceLock<Cuda> = OnceLock::new();

fn cupti() -> Option<&'static Cupti> {
    CUPTI.get().and_then(|c| c.as_ref().ok())
}

fn load() -> Result<&'static Cupti, CuptiError> {
    CUPTI.get_or_init(|| Cupti::load(&library_paths())).as_ref().map_err(CuptiError::Load)
}

/// The process's libcupti for a command-line tool (`avail`): loaded as the injection loads it,
/// and with `libnvperf_host.so` from its own directory mapped first, which CUPTI's profiler
/// opens by bare name (a pip wheel's directory is on no search path).
pub fn load_for_listing() -> Result<&'static Cupti, CuptiError> {
    let cupti = load()?;
    if let Some(dir) = cupti.path().as_deref().and_then(std::path::Path::parent)
        && let Ok(host) = std::ffi::CString::new(dir.join("libnvperf_host.so").display().to_string())
    {
        // SAFETY: a NUL-terminated path; NVIDIA's library, whose initialisers need nothing, is
        // left loaded for the process (its handle is not closed).
        unsafe { libc::dlopen(host.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    }
    Ok(cupti)
}

/// Where libcupti is looked for after the process's own copy and the SONAMEs: the CLI's pick,
/// then the toolkit's two layouts (the H100 image has it only under `targets/`).
fn library_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::env::var_os(crate::config::CUPTI_LIBRARY).map(PathBuf::from).into_iter().collect();
    let homes = [std::env::var_os("CUDA_HOME").map(PathBuf::from), Some(PathBuf::from("/usr/local/cuda"))];
    for home in homes.into_iter().flatten() {
        for dir in ["extras/CUPTI/lib64", "targets/x86_64-linux/lib", "lib64"] {
            for soname in sys::SONAMES {
                paths.push(home.join(dir).join(soname));
            }
        }
    }
    paths
}

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
        match cupti.nvtx_injection {
            // SAFETY: libcupti's own entry, with the argument NVTX gave us.
            Some(forward) => unsafe { forward(get_export_table) },
            None => 0,
        }
    })
}

fn initialize() -> Result<(), CuptiError> {
    if !lifecycle::claim() {
        return Ok(());
    }
    let config = Config::from_process_env()?;
    let cupti = load()?;
    let counting = match counting::setup(cupti, &config) {
        Ok(on) => on,
        Err(e) => {
            crate::say!("rocprof-rs: NVIDIA counters are off: {e}; tracing goes on");
            false
        }
    };
    let version = cupti.version();
    let subscriber = callbacks::subscribe(cupti)?;
    let api = cupti.api();
    // SAFETY: plain enum arguments. Thread ids then are gettid()s, as the AMD tables' are.
    check(cupti, unsafe { (api.cuptiSetThreadIdType)(sys::CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) }, "thread ids")?;
    // SAFETY: a plain `extern "C" fn() -> u64`, registered once, before any kind is enabled
    // (re-registering later corrupts records).
    check(cupti, unsafe { (api.cuptiActivityRegisterTimestampCallback)(Some(timestamp)) }, "the clock")?;
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
    // SAFETY: two `extern "C"` trampolines of the declared signatures.
    let rc = unsafe { (api.cuptiActivityRegisterCallbacks)(Some(buffers::requested), Some(buffers::completed)) };
    check(cupti, rc, "buffers")?;
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
    let tables = Tables::new(tool.config.clone(), seed, tables::Agent::default(), 0)?;
    let cuda = CUDA.get().ok_or(CuptiError::AlreadySetUp)?;
    Ok(lifecycle::start(tool, tables, receiving, cuda)?)
}

impl Backend for Cuda {
    /// The activity kinds and callbacks (the collected kinds not yet where the run starts
    /// paused), then the thread that flushes CUPTI every second.
    fn start(&self) -> crate::Result<()> {
        let paused = lifecycle::installed().is_some_and(|t| t.config.start_paused);
        if let Some(cupti) = cupti() {
            enable(cupti, self.subscriber, !paused);
        }
        flush::start_thread();
        Ok(())
    }

    /// Enables or disables the collected activity kinds, as torch.profiler does around its
    /// window: CUPTI records a kernel if its kind was enabled when it was launched, so a region
    /// holds exactly the work launched inside it. Launch calls stop making rows likewise.
    fn set_collecting(&self, on: bool) -> crate::Result<()> {
        let cupti = cupti().ok_or(Error::NotRunning)?;
        let mut refused = Vec::new();
        for (name, kind) in collected_kinds() {
            let switch = if on { cupti.api().cuptiActivityEnable } else { cupti.api().cuptiActivityDisable };
            // SAFETY: a plain enum argument.
            let rc = unsafe { switch(kind) };
            if rc != sys::CUPTI_SUCCESS {
                refused.push(format!("{name} ({})", cupti.result_text(rc)));
            }
        }
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

/// The activity kinds and callbacks the configuration asks for (the collected kinds only where
/// `collecting`). DEVICE always: it fills the agent table, which analysis needs to find the
/// GPU's specs.
fn enable(cupti: &Cupti, subscriber: usize, collecting: bool) {
    let domains = lifecycle::installed().map(|t| t.config.domains).unwrap_or_default();
    let mut kinds = vec![("DEVICE", sys::CUPTI_ACTIVITY_KIND_DEVICE)];
    if collecting {
        kinds.extend(collected_kinds());
    }
    callbacks::set_collecting(collecting);
    for (name, kind) in kinds {
        // SAFETY: a plain enum argument.
        let rc = unsafe { (cupti.api().cuptiActivityEnable)(kind) };
        if rc != sys::CUPTI_SUCCESS {
            crate::say!("rocprof-rs: CUPTI cannot trace {name} activity ({}); tracing the rest", cupti.result_text(rc));
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
    let Some(_guard) = guard else { return };
    let flag = if forced { sys::CUPTI_ACTIVITY_FLAG_FLUSH_FORCED } else { 0 };
    // SAFETY: a plain flag; calls are serialised by `flush`.
    unsafe { (cupti.api().cuptiActivityFlushAll)(flag) };
}

/// At the end of the run, before the writer stops: stops the flush thread, stops the launch
/// callbacks, and forces every record out of CUPTI.
pub(super) fn finish() {
    let Some(cuda) = CUDA.get() else { return };
    if std::process::id() != cuda.pid {
        return;
    }
    flush::stop_thread();
    if let Some(cupti) = cupti() {
        callbacks::disable(cupti, cuda.subscriber);
        // An in-process run can end long before the process: nothing more is traced.
        for (_, kind) in collected_kinds() {
            // SAFETY: a plain enum argument.
            unsafe { (cupti.api().cuptiActivityDisable)(kind) };
        }
    }
    counting::finish();
    flush(true);
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

fn check(cupti: &Cupti, rc: sys::CUptiResult, what: &'static str) -> Result<(), CuptiError> {
    if rc == sys::CUPTI_SUCCESS { Ok(()) } else { Err(CuptiError::Refused { what, text: cupti.result_text(rc) }) }
}
