//! The simulated GPUs' completion path: the stand-in for HSA's signal-handler thread.
//!
//! Dispatches and copies are timed when they are enqueued (queue order plus the modeled run
//! time), then handed to one completion thread that writes their records in batches ordered by
//! end time. Records therefore reach buffers out of enqueue and correlation order, from an SDK
//! thread, as with the real SDK.
//!
//! At most [`IN_FLIGHT`] completions wait: an application that enqueues faster than the
//! completion path keeps up then blocks, as it would on a full AQL queue, instead of growing the
//! process without bound.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

/// Work whose records are written when it completes.
pub struct Completion {
    pub end_ns: u64,
    pub deliver: Box<dyn FnOnce() + Send>,
}

/// Completions waiting for the completion thread, at most.
pub const IN_FLIGHT: usize = 16_384;

static SENDER: Mutex<Option<SyncSender<Completion>>> = Mutex::new(None);
static PENDING: AtomicU64 = AtomicU64::new(0);

/// Moves a record (plain C data whose pointers are agent names or handles) to the completion
/// thread.
pub struct Plain<T>(pub T);

// SAFETY: used only for SDK records, whose raw pointers point to process-lifetime data.
unsafe impl<T> Send for Plain<T> {}

impl<T> Plain<T> {
    /// Takes the value out; a method, so closures capture the whole wrapper.
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// Per-agent timeline tail, for dispatches that counter collection serializes.
pub static AGENT_TAIL: [AtomicU64; 16] = [const { AtomicU64::new(0) }; 16];

/// Hands `completion` to the completion thread.
pub fn complete(completion: Completion) {
    PENDING.fetch_add(1, Ordering::AcqRel);
    // Cloned out of the lock, so a sender blocked on a full queue does not hold it.
    let sender = SENDER
        .lock()
        .unwrap()
        .get_or_insert_with(|| {
            let (tx, rx) = sync_channel(IN_FLIGHT);
            std::thread::Builder::new()
                .name("rocprofiler-sim-signals".into())
                .spawn(move || run(rx))
                .expect("cannot spawn the simulated signal thread");
            tx
        })
        .clone();
    if let Err(e) = sender.send(completion) {
        PENDING.fetch_sub(1, Ordering::AcqRel);
        drop(e);
    }
}

fn run(rx: Receiver<Completion>) {
    let mut batch: Vec<Completion> = Vec::with_capacity(256);
    while let Ok(first) = rx.recv() {
        batch.push(first);
        while batch.len() < 256 {
            match rx.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        batch.sort_by_key(|c| c.end_ns);
        let n = batch.len() as u64;
        for completion in batch.drain(..) {
            (completion.deliver)();
        }
        PENDING.fetch_sub(n, Ordering::AcqRel);
    }
}

/// After `fork`, in the child: the completion thread did not survive, and the parent's pending
/// work is the parent's. The next completion starts a new thread.
pub fn reset_after_fork() {
    std::mem::forget(SENDER.lock().unwrap().take());
    PENDING.store(0, Ordering::Release);
}

/// Waits until every completion handed over so far has written its records.
pub fn drain() {
    while PENDING.load(Ordering::Acquire) > 0 {
        std::thread::sleep(Duration::from_micros(50));
    }
}
