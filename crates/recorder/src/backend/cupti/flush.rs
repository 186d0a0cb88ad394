//! Getting records out of CUPTI: a flush every second, a forced flush at exit, and fork
//! handlers that keep a child away from CUPTI. Also the fixture dump, which writes buffers as
//! CUPTI completed them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

use super::CUDA;
use crate::lifecycle::{self, trampoline};

/// How often the flush thread hands CUPTI's buffers to the writer: with file rotation by time
/// (`ROCPROF_RS_ROTATE_SECONDS`), this bounds how stale the completed files are, and so what a
/// process that ends without exit handlers (`os._exit`, SIGKILL) loses.
fn period() -> Duration {
    Duration::from_millis(crate::lifecycle::installed().map_or(1000, |tool| tool.config.flush_ms))
}

/// How often the flush thread looks for a dump's wish to flush.
const WISH_POLL: Duration = Duration::from_millis(20);

/// The flush thread and the sender that stops it.
static FLUSHER: Mutex<Option<(Sender<()>, JoinHandle<()>)>> = Mutex::new(None);

pub(super) fn start_thread() {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let period = period();
    let spawned = std::thread::Builder::new().name("rocprof-rs-cupti-flush".into()).spawn(move || {
        crate::threads::block_signals_of_tool_threads();
        // Any message, or the sender's drop, ends the loop. A flight recorder's dump wants its
        // flush at once (and forced: a buffer being filled holds the newest records), so the
        // thread looks every `WISH_POLL`.
        let mut next = std::time::Instant::now() + period;
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(WISH_POLL.min(period)) {
            if crate::pipeline::flight::take_flush_wanted() {
                let started = crate::pipeline::clock::now_ns();
                trampoline("the CUPTI flush thread", (), || super::flush(true));
                crate::pipeline::flight::flushed(started);
            }
            if std::time::Instant::now() < next {
                continue;
            }
            next += period;
            trampoline("the CUPTI flush thread", (), || {
                super::flush(false);
                super::pc_sampling::describe_after_flush();
            });
        }
    });
    match spawned {
        Ok(handle) => *FLUSHER.lock() = Some((stop, handle)),
        Err(e) => crate::say!(
            "rocprof-rs: cannot start the CUPTI flush thread ({e}); records are written when buffers fill and at exit"
        ),
    }
}

pub(super) fn stop_thread() {
    if let Some((stop, handle)) = FLUSHER.lock().take() {
        let _ = stop.send(());
        let _ = handle.join();
    }
}

/// Registered with `atexit` at `cuInit`, after the CUDA runtime's own handlers, so it runs
/// before CUDA tears down.
pub(super) extern "C" fn at_exit() {
    trampoline("the exit handler", (), || {
        if CUDA.get().is_some_and(|c| c.pid == std::process::id()) {
            crate::lifecycle::finish();
        }
    });
}

pub(super) fn install_fork_handlers() {
    // SAFETY: three plain `extern "C" fn()` handlers.
    let rc = unsafe { libc::pthread_atfork(Some(prepare), Some(in_parent), Some(in_child)) };
    if rc != 0 {
        crate::say!("rocprof-rs: cannot register fork handlers; a forked child may hang at exit");
    }
}

/// Takes the locks a child must find free, so no other thread holds them at the fork. Held
/// across the fork, released on both sides (`release`); taken outside the trampoline, since a
/// guard it dropped on a panic would leave `release` unlocking a lock nobody holds.
extern "C" fn prepare() {
    if let Some(cuda) = CUDA.get() {
        std::mem::forget(cuda.flush.lock());
    }
    if let Some(tool) = lifecycle::installed() {
        std::mem::forget(tool.writer.lock());
    }
}

fn release() {
    if let Some(cuda) = CUDA.get() {
        // SAFETY: `prepare` locked it and forgot the guard; this thread (or its image in the
        // child) owns it.
        unsafe { cuda.flush.force_unlock() };
    }
    if let Some(tool) = lifecycle::installed() {
        // SAFETY: as above.
        unsafe { tool.writer.force_unlock() };
    }
}

extern "C" fn in_parent() {
    trampoline("the fork parent handler", (), release);
}

/// The child traces nothing: CUDA is unusable in a child of an initialised parent, and CUPTI's
/// worker thread is gone. The parent's writer and flush thread are not here either, so they
/// are forgotten, never joined.
extern "C" fn in_child() {
    trampoline("the fork child handler", (), || {
        release();
        lifecycle::end_in_forked_child();
        std::mem::forget(FLUSHER.lock().take());
    });
}

/// `ROCPROF_RS_CUPTI_DUMP=<dir>`: every completed buffer as `<pid>-<seq>.bin` (its valid bytes)
/// and `<pid>-<seq>.json` (the CUPTI version, each record's offset and kind as CUPTI walked
/// them, and the text behind every name pointer), the format of the committed fixtures.
pub(super) struct Dump {
    dir: PathBuf,
    version: u32,
    /// `ROCPROF_RS_CUPTI_BUFFER_RECORDS`: records per buffer, for small fixtures (0: no cap).
    pub(super) records_per_buffer: usize,
    /// `ROCPROF_RS_CUPTI_DUMP_MAX` bytes at most, in all (default 1 MiB).
    budget: AtomicU64,
    sequence: AtomicU64,
}

impl Dump {
    pub(super) fn from_config(config: &crate::config::Config, version: u32) -> Option<Dump> {
        let dir = config.cupti_dump.clone()?;
        if let Err(e) = std::fs::create_dir_all(&dir) {
            crate::say!("rocprof-rs: cannot create the CUPTI dump directory {}: {e}", dir.display());
            return None;
        }
        Some(Dump {
            dir,
            version,
            records_per_buffer: config.cupti_buffer_records as usize,
            budget: AtomicU64::new(config.cupti_dump_max),
            sequence: AtomicU64::new(0),
        })
    }

    pub(super) fn write(&self, bytes: &[u8], offsets: &[usize], names: &[(u64, std::sync::Arc<str>)]) {
        let size = bytes.len() as u64;
        if self.budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(size)).is_err() {
            return;
        }
        let stem = format!("{}-{:04}", std::process::id(), self.sequence.fetch_add(1, Ordering::Relaxed));
        let records: Vec<serde_json::Value> = offsets
            .iter()
            .map(|&at| serde_json::json!({"offset": at, "kind": super::decode::kind(&bytes[at..]).unwrap_or(0)}))
            .collect();
        let names: serde_json::Map<String, serde_json::Value> =
            names.iter().map(|(p, n)| (format!("{p:#x}"), serde_json::Value::from(&**n))).collect();
        let sidecar = serde_json::json!({
            "cupti_api_version": self.version,
            "bytes": bytes.len(),
            "records": records,
            "names": names,
        });
        let written = std::fs::write(self.dir.join(format!("{stem}.bin")), bytes)
            .and_then(|()| std::fs::write(self.dir.join(format!("{stem}.json")), sidecar.to_string()));
        if let Err(e) = written {
            crate::say!("rocprof-rs: cannot write the CUPTI dump in {}: {e}", self.dir.display());
        }
    }
}
