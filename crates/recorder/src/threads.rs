//! What every thread the tool starts in someone else's process has in common, and how the tool
//! writes where a write could raise a signal.
//!
//! - The signals the tool handles (SIGINT, SIGTERM) are kept off its threads, so the kernel
//!   delivers them to a thread whose handler can wait for the writer.
//! - The signals a write raises (SIGXFSZ beyond `ulimit -f`, SIGPIPE on a closed pipe) are
//!   blocked on its threads too. Both are sent to the writing thread; blocked, they stay
//!   pending there and the write fails with EFBIG or EPIPE instead, which disables the tool
//!   with one line. Unblocked, their default action would kill the application.
//! - A line the tool says on an application thread ([`say`]) blocks SIGPIPE for the write and
//!   takes back a SIGPIPE that write raised.

use std::ffi::c_int;

/// The signals the tool handles.
pub(crate) const HANDLED_SIGNALS: [c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// The signals a write or a file's growth raises.
const WRITE_SIGNALS: [c_int; 2] = [libc::SIGXFSZ, libc::SIGPIPE];

fn set_of(signals: &[c_int]) -> libc::sigset_t {
    // SAFETY: a zeroed sigset_t is a valid argument for sigemptyset, which initialises it.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, owned sigset_t.
    unsafe { libc::sigemptyset(&mut set) };
    for &signal in signals {
        // SAFETY: as above, with a valid signal number.
        unsafe { libc::sigaddset(&mut set, signal) };
    }
    set
}

/// Keeps the handled signals and the write signals off the calling thread, one of the tool's
/// own: see the module's documentation.
pub fn block_signals_of_tool_threads() {
    let set = set_of(&[HANDLED_SIGNALS.as_slice(), WRITE_SIGNALS.as_slice()].concat());
    // SAFETY: blocking signals on this thread only, with a valid set.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
}

/// Runs `write`, a write to a file or pipe on any thread (an application's included), with
/// SIGXFSZ and SIGPIPE blocked, and takes back either signal if the write raised it: the
/// write fails with EFBIG or EPIPE, and the application never sees the signal.
pub fn without_write_signals<T>(write: impl FnOnce() -> T) -> T {
    let signals = set_of(&WRITE_SIGNALS);
    // SAFETY: a zeroed sigset_t is a valid output buffer for pthread_sigmask.
    let mut previous: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: blocking the two signals on this thread, saving the previous mask in an owned
    // buffer.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &signals, &mut previous) };
    let already: Vec<c_int> = WRITE_SIGNALS.into_iter().filter(|&s| is_pending(s)).collect();
    let result = write();
    for signal in WRITE_SIGNALS {
        if !already.contains(&signal) && is_pending(signal) {
            let one = set_of(&[signal]);
            let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            // SAFETY: takes the pending, blocked signal this write raised, without waiting.
            unsafe { libc::sigtimedwait(&one, std::ptr::null_mut(), &zero) };
        }
    }
    // SAFETY: restoring the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut()) };
    result
}

/// Writes `line` and a newline to stderr, on any thread, without ever raising SIGPIPE in the
/// application (a closed stderr pipe, `app 2>&1 | head -1`); a failed write is ignored. The
/// line is escaped for the terminal: it may hold a path or a variable's name from the
/// environment, which must not clear or reorder the user's screen.
pub fn say(line: &str) {
    use std::io::Write;
    let line = rocprof_rs_format::terminal::escape(line);
    let mut text = String::with_capacity(line.len() + 1);
    text.push_str(&line);
    text.push('\n');
    let _ = without_write_signals(|| std::io::stderr().lock().write_all(text.as_bytes()));
}

fn is_pending(signal: c_int) -> bool {
    // SAFETY: a zeroed sigset_t is a valid output buffer for sigpending.
    let mut pending: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: sigpending fills an owned set.
    let filled = unsafe { libc::sigpending(&mut pending) } == 0;
    // SAFETY: sigismember reads the set filled above.
    filled && unsafe { libc::sigismember(&pending, signal) } == 1
}

/// `eprintln!` for the tool: one line to stderr through [`say`].
#[macro_export]
#[doc(hidden)]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::threads::say(&format!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHILD: &str = "THREADS_TEST_SAY_INTO_A_CLOSED_PIPE";

    #[test]
    fn a_closed_stderr_pipe_raises_no_sigpipe() {
        if std::env::var_os(CHILD).is_some() {
            // SAFETY: restoring SIGPIPE's default action (the harness ignores it), as a C
            // application has it.
            unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
            std::thread::sleep(std::time::Duration::from_millis(200));
            say("rocprof-rs: nobody reads this");
            return;
        }
        // This test again, in a child whose stderr is a pipe that nobody reads.
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "threads::tests::a_closed_stderr_pipe_raises_no_sigpipe", "--test-threads=1"])
            .env(CHILD, "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let status = child.wait().unwrap();
        assert!(status.success(), "the child died: {status:?}");
    }
}
