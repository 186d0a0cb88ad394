//! The SDK's clock and thread ids: CLOCK_BOOTTIME nanoseconds and `gettid`.

use std::cell::Cell;

/// Nanoseconds of CLOCK_BOOTTIME, the domain of every SDK timestamp.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

thread_local! {
    static TID: Cell<u64> = const { Cell::new(0) };
}

/// `syscall(SYS_gettid)`, cached per thread.
pub fn thread_id() -> u64 {
    TID.with(|tid| {
        if tid.get() == 0 {
            // SAFETY: gettid takes no arguments and cannot fail.
            tid.set(unsafe { libc::syscall(libc::SYS_gettid) } as u64);
        }
        tid.get()
    })
}

/// CPU time of the calling thread, in nanoseconds: what a callback cost, whatever else the
/// machine was running meanwhile.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec for the calling thread's CPU clock.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
