//! The clock every timestamp is in: CLOCK_BOOTTIME nanoseconds, the tracing libraries' own,
//! so the tool's marker times and the libraries' record times share one axis.

/// Now, in CLOCK_BOOTTIME nanoseconds.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Now, in CLOCK_REALTIME nanoseconds since the Unix epoch: read beside [`now_ns`] at the
/// start, it places this host's boot-time clock against other hosts'.
pub fn unix_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}
