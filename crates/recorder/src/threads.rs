//! What every thread the tool starts in someone else's process has in common: the signals
//! the tool handles (SIGINT, SIGTERM) are kept off it, so the kernel delivers them to a thread
//! whose handler can wait for the writer.

/// The signals the tool handles.
pub(crate) const HANDLED_SIGNALS: [std::ffi::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// Keeps SIGINT and SIGTERM off the calling thread, so the kernel delivers them to a thread
/// whose handler can wait for this one.
#[allow(clippy::multiple_unsafe_ops_per_block)]
pub fn block_handled_signals() {
    // SAFETY: blocking the two signals on this thread only, with a valid set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &signal in &HANDLED_SIGNALS {
            libc::sigaddset(&mut set, signal);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}
