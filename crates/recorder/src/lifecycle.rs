//! The tool's lifecycle in the profiled process, whichever library feeds it.
//!
//! One [`Tool`] per process, in a `OnceLock`, and one atomic state that every entry checks
//! first:
//!
//! ```text
//! IDLE ──claim──▶ CONFIGURED ──start──▶ RUNNING ──finish (exit, finalize, SIGTERM)──▶ FINISHED
//!                      │                   │
//!                      └───── error ───────┴──▶ DISABLED (one stderr line)
//! ```
//!
//! A backend ([`crate::backend`]) claims the process, installs the tool with its settings,
//! sets up its library and hands a [`Backend`] to [`start`]; from then on the lifecycle asks
//! it to flush and finish through that trait alone. Every `extern "C"` entry is a
//! [`trampoline`]: a panic inside is caught, disables the tool with one line, and never
//! unwinds into the SDK or the application.

use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;

use crate::config::{Config, Fault};
use crate::error::{Error, Result};
use crate::pipeline::queue::{self, Queue};
use crate::pipeline::rows::Tables;
use crate::pipeline::run::Seed;
use crate::pipeline::summary::Summary;
use crate::pipeline::writer::WriterGuard;

const IDLE: u8 = 0;
const CONFIGURED: u8 = 1;
const RUNNING: u8 = 2;
const DISABLED: u8 = 3;
const FINISHED: u8 = 4;
/// Finishing: callbacks still accept records while the library's buffers are flushed.
const FINISHING: u8 = 5;

static STATE: AtomicU8 = AtomicU8::new(IDLE);
static TOOL: OnceLock<Tool> = OnceLock::new();

/// The process's tool.
pub struct Tool {
    pub(crate) config: Config,
    /// The queue to the writer: one per process, so a forked child swaps in its own. The
    /// pointee is leaked (`Arc::into_raw`), so a reference to it lives as long as the process.
    queue: AtomicPtr<Queue>,
    pub(crate) writer: Mutex<Option<WriterGuard>>,
    /// The device sampler, where asked for and its library opened.
    sampler: Mutex<Option<crate::telemetry::SamplerGuard>>,
    /// The thread that opens and closes tracing windows, where asked for.
    windows: Mutex<Option<crate::windows::WindowsGuard>>,
    /// The library feeding the queue, once it started.
    backend: OnceLock<&'static dyn Backend>,
    /// What a forked child needs to start its own tables.
    pub(crate) seed: OnceLock<Seed>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("output", &self.config.output_dir).finish()
    }
}

impl Tool {
    /// The queue to this process's writer.
    pub(crate) fn queue(&self) -> &'static Queue {
        // SAFETY: the pointer came from `Arc::into_raw` on a queue whose count is never given
        // back, so it stays valid for the process lifetime.
        unsafe { &*self.queue.load(Ordering::Acquire) }
    }

    /// Installs a new queue; returns the writer's handle to it.
    pub(crate) fn new_queue(&self) -> (Arc<Queue>, crossbeam_channel::Receiver<queue::Batch>) {
        let (queue, receiver) = Queue::new(self.config.queue_batches, self.config.policy);
        let queue = Arc::new(queue);
        self.queue.store(Arc::into_raw(queue.clone()).cast_mut(), Ordering::Release);
        (queue, receiver)
    }

    /// Where a deliberately injected fault fires (`ROCPROF_RS_TEST_FAULT`), for the tests that
    /// prove a fault in the ingest path cannot harm the application.
    pub(crate) fn fault_point(&self) {
        if self.config.fault == Some(Fault::PanicInIngest) {
            panic!("injected fault in the ingest path (ROCPROF_RS_TEST_FAULT=panic-in-ingest)");
        }
    }
}

/// What the lifecycle asks of the library behind a run.
pub(crate) trait Backend: Send + Sync {
    /// Begins collecting, once the writer runs.
    fn start(&self) -> Result<()>;
    /// Starts or stops collecting, for an in-process region.
    fn set_collecting(&self, on: bool) -> Result<()>;
    /// Moves every record the library holds into the queue, the run going on.
    fn flush(&self);
    /// At the end of the run, before the writer stops: stops collecting and moves every record
    /// the library still holds into the queue.
    fn finish(&self);
    /// Whose management library samples this backend's GPUs.
    fn telemetry(&self) -> crate::telemetry::Vendor;
    /// Whether the backend moves its library's records to the queue on a schedule of its own.
    fn flushes_itself(&self) -> bool {
        false
    }

    /// Sets the library up from inside the process, for the in-process profiler: with
    /// `config` in place of the environment, collecting nothing until asked where `paused`, the
    /// vendor's library loaded from `library` where given. Returns once the run has started or
    /// the tool has turned itself off ([`disabled_because`] then says why).
    fn start_in_process(config: Config, paused: bool, library: Option<&std::path::Path>) -> Result<()>
    where
        Self: Sized;
}

/// Claims the process for a backend: the first to claim it profiles it, any later claim (a
/// second library, a second configure) is refused.
pub(crate) fn claim() -> bool {
    STATE.compare_exchange(IDLE, CONFIGURED, Ordering::AcqRel, Ordering::Acquire).is_ok()
}

/// Installs the process's tool with `config`, once claimed.
pub(crate) fn install(config: Config) -> Option<&'static Tool> {
    let tool = Tool {
        queue: AtomicPtr::new(std::ptr::null_mut()),
        writer: Mutex::new(None),
        sampler: Mutex::new(None),
        windows: Mutex::new(None),
        backend: OnceLock::new(),
        seed: OnceLock::new(),
        config,
    };
    TOOL.set(tool).ok()?;
    TOOL.get()
}

/// The tool, while it is claimed and not yet started.
pub(crate) fn configured() -> Option<&'static Tool> {
    (STATE.load(Ordering::Acquire) == CONFIGURED).then(|| TOOL.get()).flatten()
}

/// Starts the writer over `tables`, records `backend` as the library feeding it, marks the
/// tool running and lets the backend begin collecting.
pub(crate) fn start(
    tool: &'static Tool,
    tables: Tables,
    (queue, receiver): Receiving,
    backend: &'static dyn Backend,
) -> Result<()> {
    *tool.writer.lock() = Some(start_writer(tables, queue, receiver)?);
    let _ = tool.backend.set(backend);
    STATE.store(RUNNING, Ordering::Release);
    start_sampler(tool, backend.telemetry());
    backend.start()?;
    if let Some(flight) = &tool.config.flight_recorder {
        if let Some(signal) = flight.signal {
            crate::signals::install_dump_signal(signal);
        }
        if !backend.flushes_itself() {
            start_library_flushes(tool, backend);
        }
    }
    start_windows(tool, backend)
}

/// A flight recorder holds only what reached the writer: a thread moves the library's records
/// there every `ROCPROF_RS_FLUSH_MS`, for a backend that does not already. It lives as long as
/// the process; once the run is over it has nothing to flush.
fn start_library_flushes(tool: &'static Tool, backend: &'static dyn Backend) {
    let every = Duration::from_millis(tool.config.flush_ms);
    let started = std::thread::Builder::new().name("rocprof-rs-flush".into()).spawn(move || {
        crate::threads::block_signals_of_tool_threads();
        let mut next = std::time::Instant::now() + every;
        while is_running() {
            std::thread::sleep(every.min(Duration::from_millis(20)));
            let wanted = crate::pipeline::flight::take_flush_wanted();
            if !wanted && std::time::Instant::now() < next {
                continue;
            }
            next = std::time::Instant::now() + every;
            let started = crate::pipeline::clock::now_ns();
            if is_running() {
                crate::guard::catch_panic("the flush thread", (), disable, || backend.flush());
            }
            crate::pipeline::flight::flushed(started);
        }
    });
    if let Err(e) = started {
        crate::say!("rocprof-rs: flight recorder: no flush thread ({e}); dumps hold only full buffers");
    }
}

/// Starts the window thread where the run asks for windows; the backend started with
/// collection off ([`Config::starts_collecting`]), and the first window opens at once.
fn start_windows(tool: &'static Tool, backend: &'static dyn Backend) -> Result<()> {
    let Some(window) = tool.config.window else { return Ok(()) };
    let windows = crate::windows::WindowsGuard::start(tool, backend, window)
        .map_err(|e| Error::Io { path: "the window thread".into(), source: e })?;
    *tool.windows.lock() = Some(windows);
    Ok(())
}

/// Starts the device sampler where the run asks for one. A library that cannot be had costs
/// the run its samples, said in one line, and nothing else.
fn start_sampler(tool: &'static Tool, vendor: crate::telemetry::Vendor) {
    let interval_ms = tool.config.device_sample_ms;
    if interval_ms == 0 {
        return;
    }
    let started = crate::telemetry::SamplerGuard::start(
        vendor,
        tool.config.device_sample_library.clone(),
        Duration::from_millis(interval_ms),
        move |batch| {
            tool.queue().send(batch);
        },
        move || tool.queue().batch(),
    );
    match started {
        Ok(sampler) => *tool.sampler.lock() = Some(sampler),
        Err(e) => crate::say!("rocprof-rs: no device samples: the sampler's thread could not start: {e}"),
    }
}

/// A queue's two ends, between the tool's installation and its writer's start.
pub(crate) type Receiving = (Arc<Queue>, crossbeam_channel::Receiver<queue::Batch>);

/// The tool, if it is running.
pub(crate) fn running() -> Option<&'static Tool> {
    match STATE.load(Ordering::Acquire) {
        RUNNING | FINISHING => TOOL.get(),
        _ => None,
    }
}

/// The tool, whatever its state, once installed.
pub(crate) fn installed() -> Option<&'static Tool> {
    TOOL.get()
}

/// In a forked child whose library cannot run there: the run is over here, and the parent's
/// writer, which did not come along, is forgotten, never joined.
pub(crate) fn end_in_forked_child() {
    STATE.store(FINISHED, Ordering::Release);
    if let Some(tool) = TOOL.get() {
        std::mem::forget(tool.writer.lock().take());
        forget_sampler_in_forked_child(tool);
    }
}

/// In a forked child: the parent's sampler thread did not come along, so its guard is
/// forgotten, never stopped (stopping would wait for a thread that is not there). The parent's
/// samples cover the GPUs.
pub(crate) fn forget_sampler_in_forked_child(tool: &Tool) {
    std::mem::forget(tool.sampler.lock().take());
    std::mem::forget(tool.windows.lock().take());
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
        crate::say!("rocprof-rs: {reason}; profiling is off, the application continues");
    } else {
        STATE.store(previous, Ordering::Release);
    }
}

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

/// Starts or stops collection, for an in-process region.
pub(crate) fn set_collecting(on: bool) -> Result<()> {
    let tool = running().ok_or(Error::NotRunning)?;
    if tool.config.window.is_some() {
        return Err(Error::Windowed);
    }
    tool.backend.get().ok_or(Error::NotRunning)?.set_collecting(on)
}

/// The writer thread over `receiver`, whose first I/O error disables the tool.
pub(crate) fn start_writer(
    tables: Tables,
    queue: Arc<Queue>,
    receiver: crossbeam_channel::Receiver<queue::Batch>,
) -> Result<WriterGuard> {
    WriterGuard::start(tables, receiver, queue, Box::new(|e| disable(&e.to_string())))
        .map_err(|e| Error::Io { path: "the writer thread".into(), source: e })
}

/// Moves every record the library holds into the queue, for a dump asked for from the
/// application's side.
pub(crate) fn flush_library() {
    if let Some(backend) = running().and_then(|tool| tool.backend.get()) {
        backend.flush();
    }
}

/// Flushes the library's buffers into the queue and the queue into completed files, keeping
/// the tool running (an application that handles SIGINT itself goes on after it).
pub(crate) fn flush() -> bool {
    let Some(tool) = running() else { return false };
    if let Some(backend) = tool.backend.get() {
        backend.flush();
    }
    tool.writer.lock().as_ref().is_some_and(|w| w.flush(Duration::from_secs(30)))
}

/// Ends the run: everything the library holds is flushed and written, files are completed,
/// and the summary printed. Later calls do nothing.
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
    if let Some(sampler) = tool.sampler.lock().take() {
        sampler.stop();
    }
    if let Some(windows) = tool.windows.lock().take() {
        // The last window closes at the end and is recorded while the writer still runs.
        windows.stop();
    }
    if previous == RUNNING
        && let Some(backend) = tool.backend.get()
    {
        // Nothing new is traced for a run that has ended (the application may go on, as an
        // in-process one does); records still in the library's buffers reach the queue before
        // the writer stops.
        backend.finish();
    }
    let summary = tool.writer.lock().take()?.stop();
    // A fault while finishing has already said its one line; the summary would be a second.
    let clean = STATE.compare_exchange(FINISHING, FINISHED, Ordering::AcqRel, Ordering::Acquire).is_ok();
    if previous == RUNNING && clean && summary.error.is_none() && tool.config.summary {
        crate::say!("{}", summary_line(&tool.config, &summary));
    }
    Some(summary)
}

fn summary_line(config: &Config, summary: &Summary) -> String {
    if config.flight_recorder.is_some() {
        return format!(
            "rocprof-rs: flight recorder: {} dumps under {}; {}",
            summary.dumps,
            config.output_dir.display(),
            match summary.total_dropped() {
                0 => "nothing dropped".to_owned(),
                dropped =>
                    format!("DROPPED {dropped} (queue {}, library {})", summary.queue_dropped, summary.library_dropped),
            }
        );
    }
    let dropped = summary.total_dropped();
    let tables: Vec<String> = summary.rows.iter().filter(|(_, n)| *n > 0).map(|(t, n)| format!("{t} {n}")).collect();
    let taken = if summary.stem.is_empty() || summary.stem == config.output_name {
        String::new()
    } else {
        format!(" as {} ({} was taken)", summary.stem, config.output_name)
    };
    format!(
        "rocprof-rs: {} records ({}) in {} files under {}{taken}; {}",
        summary.total_rows(),
        if tables.is_empty() { "none".into() } else { tables.join(", ") },
        summary.files,
        config.output_dir.display(),
        if dropped == 0 {
            "nothing dropped".to_owned()
        } else {
            format!(
                "DROPPED {dropped} (queue {}, SDK {}, after an I/O error {})",
                summary.queue_dropped, summary.library_dropped, summary.discarded
            )
        }
    )
}
