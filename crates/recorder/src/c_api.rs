//! The tool library's C entry points for in-process profiling from another language (the
//! Python package's `rocprof_rs.profile` calls them through ctypes): start a [`Profiler`],
//! open and close collection regions, finish. The same profiler a Rust program gets from
//! [`Profiler::builder`], so the same rules: start before the first HIP or HSA call.
//!
//! Each entry is a trampoline that catches panics, returns 0 on success and otherwise writes the
//! error's text, NUL-terminated and cut to fit, into the caller's buffer.

use std::ffi::{CStr, c_char, c_int};
use std::os::unix::ffi::OsStrExt;

use parking_lot::Mutex;

use crate::profiler::{Backend, Profiler};

/// The process's in-process profiler, between start and finish.
static PROFILER: Mutex<Option<Profiler>> = Mutex::new(None);

/// Why an in-process profile could not start, switch or finish: the text goes to the caller.
#[derive(Debug, thiserror::Error)]
enum ProfileError {
    #[error("setting {0:?}: expected NAME=VALUE")]
    Setting(String),
    #[error("a profile is already running in this process")]
    AlreadyRunning,
    #[error("no profile is running in this process (on NVIDIA, the tool starts at the first CUDA call)")]
    NotRunning,
    #[error("the tool turned itself off: {0}")]
    TurnedOff(String),
    #[error("this run has no flight recorder (ROCPROF_RS_FLIGHT_RECORDER) to dump")]
    NoFlightRecorder,
    #[error("the flight recorder's dump failed: {0}")]
    DumpFailed(#[source] crate::Error),
    #[error("the flight recorder did not answer within {0} ms; the dump may still be written")]
    DumpLate(u64),
    #[error(transparent)]
    Tool(#[from] crate::Error),
    /// A panic inside an entry, said as the tool says it.
    #[error("{0}")]
    Internal(String),
}

/// Writes `message` into `buffer` (`capacity` bytes), cut to fit and NUL-terminated.
fn tell(message: &str, buffer: *mut c_char, capacity: usize) {
    if buffer.is_null() || capacity == 0 {
        return;
    }
    let bytes = message.as_bytes();
    let n = bytes.len().min(capacity - 1);
    // SAFETY: the caller gives `capacity` writable bytes at `buffer`; `n + 1 <= capacity`, and
    // the text is ours, not the caller's.
    let out = unsafe { std::slice::from_raw_parts_mut(buffer.cast::<u8>(), n + 1) };
    out[..n].copy_from_slice(&bytes[..n]);
    out[n] = 0;
}

/// Runs `body`, catching a panic, which turns the tool off with one line as in every entry; an
/// error's text goes to the caller's buffer.
fn entry(name: &str, buffer: *mut c_char, capacity: usize, body: impl FnOnce() -> Result<(), ProfileError>) -> c_int {
    let panicked = std::cell::RefCell::new(None);
    let on_panic = |message: &str| {
        crate::lifecycle::disable(message);
        *panicked.borrow_mut() = Some(message.to_owned());
    };
    let outcome = crate::guard::catch_panic(name, Err(ProfileError::Internal(String::new())), on_panic, body)
        .map_err(|e| panicked.borrow_mut().take().map_or(e, ProfileError::Internal));
    match outcome {
        Ok(()) => 0,
        Err(error) => {
            tell(&error.to_string(), buffer, capacity);
            -1
        }
    }
}

/// A C string, or `None` for null.
///
/// # Safety
/// `text` is null or a NUL-terminated string that outlives the call.
unsafe fn bytes<'a>(text: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: as the caller promises.
    (!text.is_null()).then(|| unsafe { CStr::from_ptr(text) }.to_bytes())
}

/// A `NAME=VALUE` setting as text: one that is not UTF-8 is refused naming its variable, as
/// the environment's are.
fn setting(raw: &[u8]) -> Result<(&str, &str), ProfileError> {
    let text = std::str::from_utf8(raw).map_err(|_| {
        let lossy = String::from_utf8_lossy(raw);
        let (variable, value) = lossy.split_once('=').unwrap_or((&lossy, ""));
        crate::Error::NotUtf8 { variable: variable.to_owned(), value: value.to_owned() }
    })?;
    text.split_once('=').ok_or_else(|| ProfileError::Setting(text.to_owned()))
}

/// Starts the in-process profiler with `count` settings `NAME=VALUE` (the `ROCPROF_RS_*`
/// variables), paused where `paused` is non-zero, loading the SDK from `sdk_path` where it is
/// not null. Returns 0, or -1 with the reason in `error`.
///
/// # Safety
/// `settings` points to `count` NUL-terminated strings (or is null with `count` 0); `sdk_path`
/// is null or NUL-terminated; `error` has `error_capacity` writable bytes (or is null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprof_rs_profile_start(
    settings: *const *const c_char,
    count: usize,
    sdk_path: *const c_char,
    paused: c_int,
    error: *mut c_char,
    error_capacity: usize,
) -> c_int {
    entry("rocprof_rs_profile_start", error, error_capacity, || {
        // rocprofiler-sdk only: the Python package reaches CUPTI through CUDA's injection, which
        // starts the same set-up at the driver's first call.
        let mut builder = Profiler::builder().backend(Backend::RocprofilerSdk);
        let pointers: &[*const c_char] = if count == 0 || settings.is_null() {
            &[]
        } else {
            // SAFETY: `settings` holds `count` pointers, as the caller promises.
            unsafe { std::slice::from_raw_parts(settings, count) }
        };
        for &pointer in pointers {
            // SAFETY: each is a NUL-terminated string, as the caller promises.
            let (name, value) = setting(unsafe { bytes(pointer) }.unwrap_or_default())?;
            builder = builder.var(name, value);
        }
        // SAFETY: as the caller promises. A path is the file system's bytes, UTF-8 or not.
        if let Some(path) = unsafe { bytes(sdk_path) } {
            builder = builder.sdk_library(std::path::Path::new(std::ffi::OsStr::from_bytes(path)));
        }
        if paused != 0 {
            builder = builder.start_paused();
        }
        let mut slot = PROFILER.lock();
        if slot.is_some() {
            return Err(ProfileError::AlreadyRunning);
        }
        *slot = Some(builder.start()?);
        Ok(())
    })
}

/// Starts (`on` non-zero) or stops collecting: the in-process profiler's, or (CUPTI, where the
/// driver loaded this library as its injection) the running tool's. Returns 0, or -1 with the
/// reason in `error`.
///
/// # Safety
/// `error` has `error_capacity` writable bytes (or is null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprof_rs_profile_collect(on: c_int, error: *mut c_char, error_capacity: usize) -> c_int {
    entry("rocprof_rs_profile_collect", error, error_capacity, || {
        let slot = PROFILER.lock();
        let changed = match slot.as_ref() {
            Some(profiler) => {
                if on != 0 {
                    profiler.resume()
                } else {
                    profiler.pause()
                }
            }
            None => crate::lifecycle::set_collecting(on != 0),
        };
        changed.map_err(|e| match (e, crate::lifecycle::disabled_because()) {
            (crate::Error::NotRunning, Some(why)) => ProfileError::TurnedOff(why),
            (crate::Error::NotRunning, None) => ProfileError::NotRunning,
            (other, _) => ProfileError::Tool(other),
        })
    })
}

/// Ends the profile (the in-process profiler's, or the running tool's): every record written,
/// every file complete. Returns 0, or -1 with the reason in `error`.
///
/// # Safety
/// `error` has `error_capacity` writable bytes (or is null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprof_rs_profile_finish(error: *mut c_char, error_capacity: usize) -> c_int {
    entry("rocprof_rs_profile_finish", error, error_capacity, || {
        // Taken out first: the lock is not held through the finish.
        let taken = PROFILER.lock().take();
        if let Some(profiler) = taken {
            return Ok(profiler.finish().map(|_| ())?);
        }
        let summary = crate::lifecycle::finish().ok_or(ProfileError::NotRunning)?;
        summary.error.map_or(Ok(()), |why| Err(ProfileError::TurnedOff(why)))
    })
}

/// Asks the flight recorder for a dump, with `reason` (a NUL-terminated string, or null). With
/// `wait_ms` > 0, waits that long for the dump and writes its folder into `path`
/// (`path_capacity` bytes); with 0, returns at once. Returns 0, or -1 with the reason in
/// `error`. Never stops the run.
///
/// # Safety
/// `reason` is null or NUL-terminated; `path` and `error` have their capacities in writable
/// bytes (or are null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rocprof_rs_dump(
    reason: *const c_char,
    wait_ms: u64,
    path: *mut c_char,
    path_capacity: usize,
    error: *mut c_char,
    error_capacity: usize,
) -> c_int {
    entry("rocprof_rs_dump", error, error_capacity, || {
        let tool = crate::lifecycle::running().ok_or(ProfileError::NotRunning)?;
        if tool.config.flight_recorder.is_none() {
            return Err(ProfileError::NoFlightRecorder);
        }
        // The dump holds what reached the writer: the library's buffers go first.
        crate::lifecycle::flush_library();
        let reason = if reason.is_null() {
            "api".to_owned()
        } else {
            // SAFETY: the caller vouches for a NUL-terminated string.
            unsafe { CStr::from_ptr(reason) }.to_string_lossy().into_owned()
        };
        if wait_ms == 0 {
            crate::pipeline::flight::request(reason, None);
            return Ok(());
        }
        let (reply, answer) = crossbeam_channel::bounded(1);
        crate::pipeline::flight::request(reason, Some(reply));
        match answer.recv_timeout(std::time::Duration::from_millis(wait_ms)) {
            Ok(Ok(dir)) => {
                tell(&dir.display().to_string(), path, path_capacity);
                Ok(())
            }
            Ok(Err(why)) => Err(ProfileError::DumpFailed(why)),
            Err(_) => Err(ProfileError::DumpLate(wait_ms)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_cut_to_the_callers_buffer_and_a_null_buffer_is_skipped() {
        let mut buffer = [0x55 as c_char; 6];
        tell("a long message", buffer.as_mut_ptr(), buffer.len());
        // SAFETY: `tell` NUL-terminated what it wrote inside the buffer.
        assert_eq!(unsafe { CStr::from_ptr(buffer.as_ptr()) }.to_str(), Ok("a lon"));
        tell("nothing", std::ptr::null_mut(), 10);
        tell("nothing", buffer.as_mut_ptr(), 0);
    }

    #[test]
    fn collect_and_finish_without_a_profile_say_so() {
        let mut buffer = [0 as c_char; 128];
        // SAFETY: a valid buffer of its length.
        assert_eq!(unsafe { rocprof_rs_profile_collect(1, buffer.as_mut_ptr(), buffer.len()) }, -1);
        // SAFETY: as above.
        let message = unsafe { CStr::from_ptr(buffer.as_ptr()) }.to_string_lossy().into_owned();
        assert!(message.contains("no profile is running"), "{message}");
        // SAFETY: as above.
        assert_eq!(unsafe { rocprof_rs_profile_finish(buffer.as_mut_ptr(), buffer.len()) }, -1);
    }

    #[test]
    fn a_setting_without_a_value_is_refused_before_anything_starts() {
        let settings = [c"ROCPROF_RS_DOMAINS".as_ptr()];
        let mut buffer = [0 as c_char; 128];
        // SAFETY: one NUL-terminated setting, no SDK path, a valid buffer.
        let started = unsafe {
            rocprof_rs_profile_start(settings.as_ptr(), 1, std::ptr::null(), 1, buffer.as_mut_ptr(), buffer.len())
        };
        assert_eq!(started, -1);
        // SAFETY: as above.
        let message = unsafe { CStr::from_ptr(buffer.as_ptr()) }.to_string_lossy().into_owned();
        assert!(message.contains("expected NAME=VALUE"), "{message}");
    }

    #[test]
    fn a_setting_that_is_not_utf8_is_refused_by_name() {
        let message = setting(b"ROCPROF_RS_POLICY=drop\xff").unwrap_err().to_string();
        assert!(message.contains("ROCPROF_RS_POLICY=\"drop\u{fffd}\"") && message.contains("UTF-8"), "{message}");
        assert_eq!(setting(b"ROCPROF_RS_POLICY=drop").unwrap(), ("ROCPROF_RS_POLICY", "drop"));
    }
}
