//! The SDK's internal callback threads ("task groups"): buffer flushes run on them, one at a
//! time per thread, so a buffer's callback never runs concurrently with itself.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Condvar, Mutex};
use std::thread::JoinHandle;

type Task = Box<dyn FnOnce() + Send>;

/// One callback thread and the tasks queued on it.
pub struct TaskGroup {
    sender: Mutex<Option<Sender<Task>>>,
    pending: Mutex<u64>,
    idle: Condvar,
    /// The kernel thread id of the group's thread (0 until it runs); a new one after `fork`.
    thread: AtomicI64,
    handle: Mutex<Option<JoinHandle<()>>>,
}

static GROUPS: Mutex<Vec<&'static TaskGroup>> = Mutex::new(Vec::new());

/// Creates a thread; returns its handle (0 is the default thread every buffer starts on).
pub fn create() -> u64 {
    let (sender, receiver) = channel::<Task>();
    let group: &'static TaskGroup = Box::leak(Box::new(TaskGroup {
        sender: Mutex::new(Some(sender)),
        pending: Mutex::new(0),
        idle: Condvar::new(),
        thread: AtomicI64::new(0),
        handle: Mutex::new(None),
    }));
    let mut groups = GROUPS.lock().unwrap();
    let index = groups.len();
    spawn(index, group, receiver);
    groups.push(group);
    index as u64
}

fn spawn(index: usize, group: &'static TaskGroup, receiver: Receiver<Task>) {
    let handle = std::thread::Builder::new()
        .name(format!("rocprofiler-sim-cb{index}"))
        .spawn(move || run(group, receiver))
        .expect("cannot spawn a simulated SDK callback thread");
    *group.handle.lock().unwrap() = Some(handle);
}

fn gettid() -> i64 {
    // SAFETY: gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) }
}

fn run(group: &'static TaskGroup, receiver: Receiver<Task>) {
    group.thread.store(gettid(), Ordering::Release);
    for task in receiver {
        task();
        let mut pending = group.pending.lock().unwrap();
        *pending -= 1;
        if *pending == 0 {
            group.idle.notify_all();
        }
    }
}

/// After `fork`, in the child: the callback threads did not survive, so each group gets a new
/// one, as 1.0's `create_forked_callback_threads` does. Tasks queued in the parent stay there.
pub fn recreate_after_fork() {
    let groups: Vec<&'static TaskGroup> = GROUPS.lock().unwrap().clone();
    for (index, group) in groups.into_iter().enumerate() {
        let (sender, receiver) = channel::<Task>();
        // The parent's thread and channel are not this process's to join or drop.
        std::mem::forget(group.sender.lock().unwrap().replace(sender));
        std::mem::forget(group.handle.lock().unwrap().take());
        *group.pending.lock().unwrap() = 0;
        group.thread.store(0, Ordering::Release);
        spawn(index, group, receiver);
    }
}

/// The thread `handle`, if it exists.
pub fn get(handle: u64) -> Option<&'static TaskGroup> {
    GROUPS.lock().unwrap().get(handle as usize).copied()
}

impl TaskGroup {
    /// Queues `task`; runs it inline when called from this group's own thread (a buffer callback
    /// that flushes), where queueing would deadlock a waiting caller.
    pub fn exec(&self, task: Task) {
        if self.is_current() {
            task();
            return;
        }
        *self.pending.lock().unwrap() += 1;
        let sent = self.sender.lock().unwrap().as_ref().map(|s| s.send(task));
        if !matches!(sent, Some(Ok(()))) {
            *self.pending.lock().unwrap() -= 1;
        }
    }

    /// Waits until every queued task has run.
    pub fn wait(&self) {
        if self.is_current() {
            return;
        }
        let mut pending = self.pending.lock().unwrap();
        while *pending > 0 {
            pending = self.idle.wait(pending).unwrap();
        }
    }

    /// Whether the caller is this group's thread.
    pub fn is_current(&self) -> bool {
        self.thread.load(Ordering::Acquire) == gettid()
    }
}

/// Drains and joins every callback thread (finalization).
pub fn shutdown() {
    let groups: Vec<&'static TaskGroup> = GROUPS.lock().unwrap().clone();
    for group in groups {
        group.wait();
        group.sender.lock().unwrap().take();
        if let Some(handle) = group.handle.lock().unwrap().take() {
            let _ = handle.join();
        }
    }
}
