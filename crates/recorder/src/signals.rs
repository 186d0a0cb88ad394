//! SIGINT and SIGTERM: write out everything before the process goes, then let the signal do
//! what it would have done without us.
//!
//! A signal handler may do almost nothing, so ours only writes one byte to a pipe and waits (up
//! to a bound) for the byte that says the work is done. A named thread, which blocks both
//! signals so the kernel never picks it to run the handler, reads the pipe and does the work:
//! - if the signal would have terminated the process (no handler before ours), it finishes the
//!   run, then the handler restores the default action and re-raises, so the process still dies
//!   by that signal and the parent sees the same status;
//! - if the application has its own handler, the run is flushed but goes on, and the
//!   application's handler is called;
//! - if the signal was ignored, nothing happens at all.

use std::ffi::c_int;
use std::sync::atomic::{AtomicPtr, Ordering};

/// How long a handler waits for the run to be written before letting the signal proceed.
const WAIT_MS: c_int = 20_000;

struct Installed {
    previous: [libc::sigaction; 2],
    request: c_int,
    done: c_int,
}

// SAFETY: plain C data (sigaction structs and file descriptors), written once before the
// handlers are installed and only read afterwards.
unsafe impl Sync for Installed {}
// SAFETY: as above.
unsafe impl Send for Installed {}

/// The handlers' state: set once by `install`, replaced in a forked child. Old values are
/// leaked, never freed, since a handler may be reading one.
static INSTALLED: AtomicPtr<Installed> = AtomicPtr::new(std::ptr::null_mut());

fn installed() -> Option<&'static Installed> {
    // SAFETY: null or a leaked `Installed`, never freed.
    unsafe { INSTALLED.load(Ordering::Acquire).as_ref() }
}

/// Starts the pipes and the serving thread; the handlers use them once `INSTALLED` points here.
fn serve_with(previous: [libc::sigaction; 2]) -> Option<&'static Installed> {
    let (Some((request_r, request_w)), Some((done_r, done_w))) = (pipe(), pipe()) else {
        crate::say!("rocprof-rs: cannot create the signal pipes; a SIGINT or SIGTERM will lose unwritten records");
        return None;
    };
    let served = std::thread::Builder::new().name("rocprof-rs-signals".into()).spawn(move || serve(request_r, done_w));
    if served.is_err() {
        crate::say!("rocprof-rs: cannot start the signal thread; a SIGINT or SIGTERM will lose unwritten records");
        return None;
    }
    Some(Box::leak(Box::new(Installed { previous, request: request_w, done: done_r })))
}

/// In a forked child: the parent's signal thread is not here, and the pipes are shared with
/// the parent, whose thread would answer the child's signals. New pipes and a new thread.
#[allow(clippy::multiple_unsafe_ops_per_block)]
pub fn restart_in_child() {
    let Some(old) = installed() else { return };
    let Some(new) = serve_with(old.previous) else { return };
    INSTALLED.store(std::ptr::from_ref(new).cast_mut(), Ordering::Release);
    // SAFETY: the child's copies of the parent's pipe ends; no thread here uses them any more.
    unsafe {
        libc::close(old.request);
        libc::close(old.done);
    }
}

fn pipe() -> Option<(c_int, c_int)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors.
    (unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0).then_some((fds[0], fds[1]))
}

/// Installs the handlers and starts the thread that serves them. Failing to do so only costs
/// the signal guarantee, so it is reported and the run goes on.
// Signal plumbing is a sequence of libc calls under one safety argument each block states.
#[allow(clippy::multiple_unsafe_ops_per_block)]
pub fn install() {
    if installed().is_some() {
        return;
    }
    // SAFETY: zeroed sigaction structs are valid out-parameters.
    let mut previous: [libc::sigaction; 2] = unsafe { std::mem::zeroed() };
    for (i, &signal) in crate::threads::HANDLED_SIGNALS.iter().enumerate() {
        // SAFETY: querying the current action into a valid struct.
        unsafe { libc::sigaction(signal, std::ptr::null(), &mut previous[i]) };
    }
    let Some(installed) = serve_with(previous) else { return };
    INSTALLED.store(std::ptr::from_ref(installed).cast_mut(), Ordering::Release);
    for &signal in &crate::threads::HANDLED_SIGNALS {
        // SAFETY: a zeroed sigaction is valid; we fill in the handler and flags.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_signal as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        // SAFETY: the mask is a valid sigset.
        unsafe { libc::sigemptyset(&mut action.sa_mask) };
        // SAFETY: installing a valid action for a catchable signal.
        unsafe { libc::sigaction(signal, &action, std::ptr::null_mut()) };
    }
}

fn serve(request: c_int, done: c_int) {
    crate::threads::block_signals_of_tool_threads();
    let mut byte = [0u8; 1];
    loop {
        // SAFETY: reading into a one-byte buffer from our pipe.
        let n = unsafe { libc::read(request, byte.as_mut_ptr().cast(), 1) };
        if n == 1 {
            let _ = std::panic::catch_unwind(|| {
                if byte[0] == b'T' {
                    crate::lifecycle::finish();
                } else {
                    crate::lifecycle::flush();
                }
            });
            // SAFETY: writing one byte to our pipe.
            unsafe { libc::write(done, byte.as_ptr().cast(), 1) };
        } else if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        } else {
            return;
        }
    }
}

/// The handler: async-signal-safe calls only (write, poll, read, sigaction, raise). Unlike the
/// other C entries it has no `catch_unwind`: unwinding is not async-signal-safe, and nothing here
/// can panic (no allocation, no formatting, no indexing that can fail).
#[allow(clippy::multiple_unsafe_ops_per_block)]
extern "C" fn on_signal(signal: c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let Some(installed) = installed() else { return };
    let Some(previous) =
        crate::threads::HANDLED_SIGNALS.iter().position(|&s| s == signal).and_then(|i| installed.previous.get(i))
    else {
        return;
    };
    if previous.sa_sigaction == libc::SIG_IGN {
        return;
    }
    let terminates = previous.sa_sigaction == libc::SIG_DFL;
    let byte = [if terminates { b'T' } else { b'F' }];
    // SAFETY: write(2), poll(2) and read(2) on our own pipes are async-signal-safe.
    unsafe {
        if libc::write(installed.request, byte.as_ptr().cast(), 1) == 1 {
            let mut fd = libc::pollfd { fd: installed.done, events: libc::POLLIN, revents: 0 };
            if libc::poll(&mut fd, 1, WAIT_MS) == 1 {
                let mut ack = [0u8; 1];
                libc::read(installed.done, ack.as_mut_ptr().cast(), 1);
            }
        }
    }
    if terminates {
        // SAFETY: restoring the default action and re-raising; the signal is blocked while this
        // handler runs, so it is delivered, with its default effect, when the handler returns.
        unsafe {
            libc::sigaction(signal, previous, std::ptr::null_mut());
            libc::raise(signal);
        }
    } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the application's three-argument handler, called as the kernel would have.
        let handler: extern "C" fn(c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(previous.sa_sigaction) };
        handler(signal, info, context);
    } else {
        // SAFETY: the application's one-argument handler.
        let handler: extern "C" fn(c_int) = unsafe { std::mem::transmute(previous.sa_sigaction) };
        handler(signal);
    }
}

/// The dump signal's action before ours (`sa_sigaction`, and whether it takes three
/// arguments), called after ours so an application that handles the signal still does.
static DUMP_PREVIOUS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(libc::SIG_DFL);
static DUMP_PREVIOUS_SIGINFO: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes `signal` ask the flight recorder for a dump. The signal's default action (ending the
/// process, for SIGUSR1 and SIGUSR2) is replaced: a dump never ends the application. A
/// handler the application installed before runs after ours.
#[allow(clippy::multiple_unsafe_ops_per_block)]
pub fn install_dump_signal(signal: c_int) {
    // SAFETY: a zeroed sigaction is a valid out-parameter.
    let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: querying the current action into a valid struct.
    unsafe { libc::sigaction(signal, std::ptr::null(), &mut previous) };
    if previous.sa_sigaction != on_dump_signal as *const () as usize {
        DUMP_PREVIOUS.store(previous.sa_sigaction, Ordering::Release);
        DUMP_PREVIOUS_SIGINFO.store(previous.sa_flags & libc::SA_SIGINFO != 0, Ordering::Release);
    }
    // SAFETY: a zeroed sigaction is valid; we fill in the handler and flags.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_dump_signal as *const () as usize;
    action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
    // SAFETY: the mask is a valid sigset, and the action a valid one for a catchable signal.
    unsafe {
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut());
    }
}

/// The dump signal's handler: an atomic store, then the application's own handler if it had
/// one. Async-signal-safe, and nothing here can panic.
extern "C" fn on_dump_signal(signal: c_int, info: *mut libc::siginfo_t, context: *mut std::ffi::c_void) {
    crate::pipeline::flight::signalled();
    let previous = DUMP_PREVIOUS.load(Ordering::Acquire);
    if previous == libc::SIG_DFL || previous == libc::SIG_IGN {
        return;
    }
    if DUMP_PREVIOUS_SIGINFO.load(Ordering::Acquire) {
        // SAFETY: the application installed this three-argument handler (SA_SIGINFO) for the
        // signal; it gets the arguments the kernel gave us.
        let handler: extern "C" fn(c_int, *mut libc::siginfo_t, *mut std::ffi::c_void) =
            unsafe { std::mem::transmute(previous) };
        handler(signal, info, context);
    } else {
        // SAFETY: as above, a one-argument handler.
        let handler: extern "C" fn(c_int) = unsafe { std::mem::transmute(previous) };
        handler(signal);
    }
}
