//! Starting the application and waiting for it, so that `run` outlives it and can report.
//!
//! The application stays in our process group: a terminal's Ctrl-C reaches it directly. We
//! ignore SIGINT ourselves meanwhile, so the interrupt ends the application but not the report,
//! and pass SIGTERM on, so a batch system stopping `run` does not leave the application running.
//! SIGUSR1 and SIGUSR2 are passed on too: `kill -USR2` of `run` asks the application's flight
//! recorder for a dump, where it would otherwise end `run` and orphan the application.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicI32, Ordering};

/// The running application's pid for the SIGTERM handler; 0 when there is none.
static CHILD: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward_to_child(signal: libc::c_int) {
    let pid = CHILD.load(Ordering::Relaxed);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe and takes plain integers.
        unsafe { libc::kill(pid, signal) };
    }
}

/// Runs `command` to completion; the pid is the application's, for its output's placeholders.
pub fn run(command: &mut Command) -> io::Result<(u32, ExitStatus)> {
    // spawn returns only once the exec has happened, so the application starts with the
    // signal dispositions we had, not the ones set below (an ignored signal survives exec).
    let mut child = command.spawn()?;
    let pid = child.id();
    CHILD.store(pid as i32, Ordering::Relaxed);
    // SAFETY: installing SIG_IGN for SIGINT has no preconditions.
    let before_int = unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
    let handler = forward_to_child as extern "C" fn(libc::c_int) as libc::sighandler_t;
    let forwarded = [libc::SIGTERM, libc::SIGUSR1, libc::SIGUSR2].map(|signal| {
        // SAFETY: the handler only reads an atomic and calls kill, both async-signal-safe.
        (signal, unsafe { libc::signal(signal, handler) })
    });
    // The application has ended but is not reaped: its pid cannot be another process's yet, so
    // a signal forwarded meanwhile reaches no one else.
    ended_unreaped(pid as libc::pid_t, true);
    // What follows (the exports, a next counter pass) runs under the dispositions `run` was
    // started with: Ctrl-C then ends a long export, and a next pass's application is not started
    // with SIGINT ignored. Signals wait while the pid is forgotten, the dispositions restored
    // and the application reaped, then arrive under the restored ones: none is lost to a
    // handler with no one to forward to, and none is forwarded to a reused pid.
    let held = Held::signals(&[libc::SIGINT, libc::SIGTERM, libc::SIGUSR1, libc::SIGUSR2]);
    CHILD.store(0, Ordering::Relaxed);
    for (signal, before) in [(libc::SIGINT, before_int)].into_iter().chain(forwarded) {
        if before != libc::SIG_ERR {
            // SAFETY: restoring a disposition signal() returned for the same signal.
            unsafe { libc::signal(signal, before) };
        }
    }
    let status = child.wait();
    drop(held);
    status.map(|status| (pid, status))
}

/// Whether `pid`, our child, has ended, leaving it to be reaped (`WNOWAIT`): its pid, and its
/// process group's id, stay its own meanwhile. With `block`, waits until it has. An error other
/// than an interruption (none is expected) counts as ended: `wait` then says what it is.
pub fn ended_unreaped(pid: libc::pid_t, block: bool) -> bool {
    let flags = libc::WEXITED | libc::WNOWAIT | if block { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: a zeroed siginfo_t is a valid value for waitid to fill.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a live siginfo_t; WNOWAIT leaves the child for `wait` to reap.
        let waited = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        if waited == 0 {
            // SAFETY: waitid filled `info`; under WNOHANG si_pid stays 0 while the child runs.
            return unsafe { info.si_pid() } != 0;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return true;
        }
    }
}

/// Signals blocked for the guard's life, then let through.
#[must_use]
struct Held {
    before: libc::sigset_t,
}

impl Held {
    fn signals(signals: &[libc::c_int]) -> Held {
        // SAFETY: zeroed sigset_t values are valid for sigemptyset and sigprocmask to fill.
        let (mut set, mut before): (libc::sigset_t, libc::sigset_t) = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a live sigset_t.
        unsafe { libc::sigemptyset(&mut set) };
        for signal in signals {
            // SAFETY: as above; the signals are valid numbers.
            unsafe { libc::sigaddset(&mut set, *signal) };
        }
        // SAFETY: `set` and `before` are live sigset_t values.
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut before) };
        Held { before }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        // SAFETY: restoring the mask pthread_sigmask returned on this thread.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.before, std::ptr::null_mut()) };
    }
}

/// The exit code `run` returns for the application's status, the shell's convention for a
/// signal (128 + N), and the line that says so.
pub fn outcome(app: &str, status: ExitStatus) -> (u8, Option<String>) {
    if let Some(code) = status.code() {
        return (code as u8, None);
    }
    let signal = status.signal().unwrap_or(0);
    let name = signal_name(signal).map(|n| format!(" ({n})")).unwrap_or_default();
    let core = if status.core_dumped() { ", core dumped" } else { "" };
    let line = format!("rocprof-rs: {app} was killed by signal {signal}{name}{core}");
    ((128 + signal) as u8, Some(line))
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => return None,
    })
}

/// The exit code and message for an application that could not be started: 127 when it does
/// not exist, 126 when it exists but cannot be run, as a shell reports them.
pub fn not_started(app: &str, error: &io::Error) -> (u8, String) {
    let code = if error.kind() == io::ErrorKind::NotFound { 127 } else { 126 };
    (code, format!("rocprof-rs: cannot run {app}: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_pass_through_and_signals_follow_the_shell() {
        assert_eq!(outcome("app", ExitStatus::from_raw(7 << 8)), (7, None));
        assert_eq!(outcome("app", ExitStatus::from_raw(0)), (0, None));
        let (code, line) = outcome("app", ExitStatus::from_raw(libc::SIGKILL));
        assert_eq!((code, line.as_deref()), (137, Some("rocprof-rs: app was killed by signal 9 (SIGKILL)")));
        let (code, line) = outcome("app", ExitStatus::from_raw(libc::SIGSEGV | 0x80));
        assert_eq!(
            (code, line.unwrap()),
            (139, "rocprof-rs: app was killed by signal 11 (SIGSEGV), core dumped".into())
        );
    }

    #[test]
    fn start_failures_follow_the_shell() {
        let missing = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(not_started("x", &missing).0, 127);
        assert_eq!(not_started("x", &io::Error::from(io::ErrorKind::PermissionDenied)).0, 126);
        assert!(not_started("./x", &missing).1.starts_with("rocprof-rs: cannot run ./x: "));
    }
}
