//! The one trampoline every exported function goes through: a panic inside the simulator must
//! not unwind into C, so it becomes an error status and one line on stderr.

use std::panic::{AssertUnwindSafe, catch_unwind};

use rocprofiler_sdk_sys::{ROCPROFILER_STATUS_ERROR, rocprofiler_status_t};

/// Runs `f`; a panic returns `fallback` after reporting `entry`.
pub fn guard<R>(entry: &str, fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        eprintln!("rocprofiler-sdk-sim [SIMULATED]: internal panic in {entry}; returning an error");
        fallback
    })
}

/// [`guard`] for functions returning a status.
pub fn status(entry: &str, f: impl FnOnce() -> rocprofiler_status_t) -> rocprofiler_status_t {
    guard(entry, ROCPROFILER_STATUS_ERROR, f)
}

/// One line on stderr, tagged as the simulator's.
macro_rules! log {
    ($($arg:tt)*) => {
        eprintln!("rocprofiler-sdk-sim [SIMULATED]: {}", format_args!($($arg)*))
    };
}
pub(crate) use log;
