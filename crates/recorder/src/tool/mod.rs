//! The tool library: what the SDK loads, and its lifecycle.
//!
//! One [`Tool`] per process, in a `OnceLock`, and one atomic state that every entry checks
//! first:
//!
//! ```text
//! IDLE ──configure──▶ CONFIGURED ──initialize──▶ RUNNING ──finalize / SIGTERM──▶ FINISHED
//!                          │                        │
//!                          └────── error ───────────┴──▶ DISABLED (one stderr line)
//! ```
//!
//! Every `extern "C"` entry is a [`trampoline`]: a panic inside is caught, disables the tool
//! with one line, and never unwinds into the SDK or the application.

pub mod clock;
mod counter_rows;
pub mod counting;
pub mod cupti;
mod fork;
mod ingest;
pub mod names;
pub mod nvtx;
pub mod queue;
pub mod records;
pub mod rows;
pub mod session;
pub(crate) mod signals;
pub mod writer;

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use parquet::file::metadata::KeyValue;
use rocprofiler_sdk_sys as sys;

use crate::config::{Config, Fault};
use crate::error::{Error, Result};
use queue::Queue;
use session::Session;
use writer::{Summary, WriterGuard};

const IDLE: u8 = 0;
const CONFIGURED: u8 = 1;
const RUNNING: u8 = 2;
const DISABLED: u8 = 3;
pub(crate) const FINISHED: u8 = 4;
/// Finishing: callbacks still accept records while the SDK's buffer is flushed.
const FINISHING: u8 = 5;

static STATE: AtomicU8 = AtomicU8::new(IDLE);
static TOOL: OnceLock<Tool> = OnceLock::new();

/// The process's tool.
pub struct Tool {
    config: Config,
    /// The queue to the writer: one per process, so a forked child swaps in its own. The
    /// pointee is leaked (`Arc::into_raw`), so a reference to it lives as long as the process.
    queue: AtomicPtr<Queue>,
    writer: Mutex<Option<WriterGuard>>,
    session: OnceLock<Session>,
    /// What a forked child needs to start its own tables.
    seed: OnceLock<Seed>,
}

/// The tracing library behind a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// AMD's rocprofiler-sdk, at this version.
    RocprofilerSdk { version: (u32, u32, u32) },
    /// NVIDIA's CUPTI: its `CUPTI_API_VERSION` and the file it was loaded from.
    Cupti { api_version: u32, library: String },
}

impl Backend {
    /// The name `rocprof-rs run --backend` takes, and the metadata's `rocprof_rs.backend`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::RocprofilerSdk { .. } => "rocprofiler-sdk",
            Backend::Cupti { .. } => "cupti",
        }
    }

    /// The `vendor` column's value for this backend's rows.
    pub fn vendor(&self) -> &'static std::sync::Arc<str> {
        match self {
            Backend::RocprofilerSdk { .. } => &rocprof_rs_format::vendor::AMD,
            Backend::Cupti { .. } => &rocprof_rs_format::vendor::NVIDIA,
        }
    }
}

/// What the SDK told the tool during initialize that a forked child's tables need too.
#[derive(Debug, Clone)]
pub struct Seed {
    /// Operation names by buffer-tracing kind and operation, from the SDK's name queries.
    pub operations: rows::OperationNames,
    /// Which library traced, and its version, for the run metadata and the `vendor` column.
    pub backend: Backend,
    /// The counters collected, if any: names and groups.
    pub counters: Option<counting::CounterNames>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("output", &self.config.output_dir).finish()
    }
}

impl Tool {
    /// The queue to this process's writer.
    fn queue(&self) -> &'static Queue {
        // SAFETY: the pointer came from `Arc::into_raw` on a queue whose count is never given
        // back, so it stays valid for the process lifetime.
        unsafe { &*self.queue.load(Ordering::Acquire) }
    }

    /// Installs a new queue; returns the writer's handle to it.
    fn new_queue(&self) -> (Arc<Queue>, crossbeam_channel::Receiver<queue::Batch>) {
        let (queue, receiver) = Queue::new(self.config.queue_batches, self.config.policy);
        let queue = Arc::new(queue);
        self.queue.store(Arc::into_raw(queue.clone()).cast_mut(), Ordering::Release);
        (queue, receiver)
    }

    /// Where a deliberately injected fault fires (`ROCPROF_RS_TEST_FAULT`), for the tests that
    /// prove a fault in the ingest path cannot harm the application.
    fn fault_point(&self) {
        if self.config.fault == Some(Fault::PanicInIngest) {
            panic!("injected fault in the ingest path (ROCPROF_RS_TEST_FAULT=panic-in-ingest)");
        }
    }
}

/// The tool, if it is running.
fn running() -> Option<&'static Tool> {
    match STATE.load(Ordering::Acquire) {
        RUNNING | FINISHING => TOOL.get(),
        _ => None,
    }
}

/// Runs an entry's body; a panic disables the tool and yields `fallback`.
pub(crate) fn trampoline<R>(entry: &str, fallback: R, body: impl FnOnce() -> R) -> R {
    crate::guard::catch_panic(entry, fallback, disable, body)
}

/// Turns the tool off with one line on stderr; the application runs on unprofiled.
pub(crate) fn disable(reason: &str) {
    let previous = STATE.swap(DISABLED, Ordering::AcqRel);
    if matches!(previous, IDLE | CONFIGURED | RUNNING | FINISHING) {
        DISABLED_BECAUSE.lock().get_or_insert_with(|| reason.to_owned());
        eprintln!("rocprof-rs: {reason}; profiling is off, the application continues");
    } else {
        STATE.store(previous, Ordering::Release);
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
    if !crate::compat::configure_version_supported(version) {
        eprintln!(
            "rocprof-rs: rocprofiler-sdk {}.{}.{} is older than 1.0 (ROCm 7.0); not profiling",
            version / 10000,
            version / 100 % 100,
            version % 100
        );
        return std::ptr::null_mut();
    }
    if STATE.compare_exchange(IDLE, CONFIGURED, Ordering::AcqRel, Ordering::Acquire).is_err() {
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
    let tool = Tool {
        queue: AtomicPtr::new(std::ptr::null_mut()),
        writer: Mutex::new(None),
        session: OnceLock::new(),
        seed: OnceLock::new(),
        config,
    };
    if TOOL.set(tool).is_err() {
        return std::ptr::null_mut();
    }
    let Some(tool) = TOOL.get() else { return std::ptr::null_mut() };
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
pub(crate) struct Preset {
    pub config: Config,
    /// Leave the tracing context stopped until the application starts collecting.
    pub paused: bool,
}

pub(crate) static PRESET: Mutex<Option<Preset>> = Mutex::new(None);
static START_PAUSED: AtomicBool = AtomicBool::new(false);

/// Why the tool turned itself off, for an in-process caller to report.
static DISABLED_BECAUSE: Mutex<Option<String>> = Mutex::new(None);

/// Whether the tool runs (configured, initialized and not yet finished or disabled).
pub(crate) fn is_running() -> bool {
    STATE.load(Ordering::Acquire) == RUNNING
}

/// Whether nothing has configured the tool in this process yet.
pub(crate) fn is_idle() -> bool {
    STATE.load(Ordering::Acquire) == IDLE
}

/// The reason the tool disabled itself, if it did.
pub(crate) fn disabled_because() -> Option<String> {
    DISABLED_BECAUSE.lock().clone()
}

/// Starts or stops the tracing context (the code-object context stays on throughout).
pub(crate) fn set_collecting(on: bool) -> Result<()> {
    let tool = running().ok_or(Error::NotRunning)?;
    let session = tool.session.get().ok_or(Error::NotRunning)?;
    session::set_tracing(crate::sdk::sdk()?.api(), session, on)
}

/// The queue's receiving end, between configure and initialize.
type Receiving = (Arc<Queue>, crossbeam_channel::Receiver<queue::Batch>);
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
    let Some(tool) = TOOL.get() else { return Ok(()) };
    if STATE.load(Ordering::Acquire) != CONFIGURED {
        return Ok(());
    }
    let sdk = crate::sdk::sdk()?;
    let api = sdk.api();
    let version = crate::compat::abi_checked_version(sdk)?;
    let kinds = session::buffer_kinds(&tool.config);
    let operations = names::operation_names(api, &kinds);
    let agents = session::agents(api)?;
    std::fs::create_dir_all(&tool.config.output_dir)
        .map_err(|e| Error::Io { path: tool.config.output_dir.display().to_string(), source: e })?;
    let session = session::create(api, &tool.config)?;
    let _ = tool.session.set(session);
    let counters = counting::setup(api, &tool.config, session.tracing, session.buffer)?;
    let seed = tool.seed.get_or_init(|| Seed { operations, backend: Backend::RocprofilerSdk { version }, counters });
    let tables = rows::Tables::new(tool.config.clone(), seed.clone(), agents, 0);
    let (queue, receiver) = RECEIVER.lock().take().expect("configure stored the receiver");
    *tool.writer.lock() = Some(start_writer(tables, queue, receiver)?);
    STATE.store(RUNNING, Ordering::Release);
    if !START_PAUSED.load(Ordering::Acquire) {
        session::set_tracing(api, &session, true)?;
    }
    signals::install();
    fork::install();
    Ok(())
}

fn start_writer(
    tables: rows::Tables,
    queue: Arc<Queue>,
    receiver: crossbeam_channel::Receiver<queue::Batch>,
) -> Result<WriterGuard> {
    WriterGuard::start(tables, receiver, queue, Box::new(|e| disable(&e.to_string())))
        .map_err(|e| Error::Io { path: "the writer thread".into(), source: e })
}

pub(crate) fn run_metadata(config: &Config, backend: &Backend) -> Vec<KeyValue> {
    let command_line = std::fs::read("/proc/self/cmdline")
        .map(|raw| {
            raw.split(|b| *b == 0).filter(|a| !a.is_empty()).map(String::from_utf8_lossy).collect::<Vec<_>>().join(" ")
        })
        .unwrap_or_default();
    let kv = |k: &str, v: String| KeyValue::new(format!("rocprof_rs.{k}"), v);
    let versions = match backend {
        Backend::RocprofilerSdk { version: (major, minor, patch) } => {
            vec![kv("sdk_version", format!("{major}.{minor}.{patch}"))]
        }
        Backend::Cupti { api_version, library } => {
            vec![kv("cupti_api_version", api_version.to_string()), kv("cupti_library", library.clone())]
        }
    };
    let mut metadata = vec![
        kv("format_version", rocprof_rs_format::FORMAT_VERSION.into()),
        kv("tool_version", env!("CARGO_PKG_VERSION").into()),
        kv("backend", backend.name().into()),
        kv("vendor", backend.vendor().to_string()),
        kv("command_line", command_line),
        kv("pid", std::process::id().to_string()),
        kv("clock", clock::CLOCK_NAME.into()),
        kv("start_ns", clock::now_ns().to_string()),
        kv("policy", format!("{:?}", config.policy).to_lowercase()),
        kv("domains", config.domains.iter().map(|d| d.name()).collect::<Vec<_>>().join(",")),
    ];
    metadata.extend(versions);
    metadata
}

extern "C" fn tool_finalize(_data: *mut c_void) {
    trampoline("finalize", (), || {
        finish();
    })
}

/// Flushes the SDK's buffer into the queue and the queue into completed files, keeping the
/// tool running (an application that handles SIGINT itself goes on after it).
pub(crate) fn flush() -> bool {
    let Some(tool) = running() else { return false };
    if let (Ok(sdk), Some(session)) = (crate::sdk::sdk(), tool.session.get()) {
        let _ = session::flush(sdk.api(), session);
    }
    if cupti::active() {
        cupti::flush(true);
    }
    tool.writer.lock().as_ref().is_some_and(|w| w.flush(Duration::from_secs(30)))
}

/// Ends the run: everything the SDK holds is flushed and written, files are completed, and the
/// summary printed. Later calls do nothing.
pub(crate) fn finish() -> Option<Summary> {
    let tool = TOOL.get()?;
    let previous = loop {
        let state = STATE.load(Ordering::Acquire);
        if state == FINISHED || state == FINISHING {
            return None;
        }
        let next = if state == RUNNING { FINISHING } else { FINISHED };
        if STATE.compare_exchange(state, next, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            break state;
        }
    };
    if previous == RUNNING
        && let (Ok(sdk), Some(session)) = (crate::sdk::sdk(), tool.session.get())
    {
        // Nothing new is traced for a run that has ended (the application may go on, as an
        // in-process one does); records still in the SDK's buffer reach the queue before the
        // writer stops.
        let _ = session::set_tracing(sdk.api(), session, false);
        let _ = session::flush(sdk.api(), session);
    }
    if previous == RUNNING && cupti::active() {
        cupti::finish();
    }
    let summary = tool.writer.lock().take()?.stop();
    // A fault while finishing has already said its one line; the summary would be a second.
    let clean = STATE.compare_exchange(FINISHING, FINISHED, Ordering::AcqRel, Ordering::Acquire).is_ok();
    if previous == RUNNING && clean && summary.error.is_none() && tool.config.summary {
        eprintln!("{}", summary_line(&tool.config, &summary));
    }
    Some(summary)
}

fn summary_line(config: &Config, summary: &Summary) -> String {
    let dropped = summary.total_dropped();
    let tables: Vec<String> = summary.rows.iter().filter(|(_, n)| *n > 0).map(|(t, n)| format!("{t} {n}")).collect();
    format!(
        "rocprof-rs: {} records ({}) in {} files under {}; {}",
        summary.total_rows(),
        if tables.is_empty() { "none".into() } else { tables.join(", ") },
        summary.files,
        config.output_dir.display(),
        if dropped == 0 {
            "nothing dropped".to_owned()
        } else {
            format!(
                "DROPPED {dropped} (queue {}, SDK {}, after an I/O error {})",
                summary.queue_dropped, summary.sdk_dropped, summary.discarded
            )
        }
    )
}
