//! The process's one rocprofiler-sdk, loaded once and kept for the process lifetime. The lowest
//! layer of the crate: it knows loading, not what a failure means to its caller.

use std::sync::OnceLock;

use rocprofiler_sdk_sys as sys;
use sys::sdk::Sdk;

static SDK: OnceLock<Sdk> = OnceLock::new();

/// The SDK: the one already in the process if there is one (the SDK that loaded our tool), else
/// the one the dynamic loader finds by SONAME. Loaded on first success and kept; a failure is
/// not remembered, so a caller may try again elsewhere ([`sdk_from`]).
pub fn sdk() -> Result<&'static Sdk, sys::LoadError> {
    load_with(Sdk::load)
}

/// The SDK at `path` (a ROCm install's `lib/librocprofiler-sdk.so.1`, say), unless one is loaded
/// already: a process can hold only one, and the one in use wins.
pub fn sdk_from(path: &std::path::Path) -> Result<&'static Sdk, sys::LoadError> {
    load_with(|| Sdk::load_from(path))
}

fn load_with(load: impl FnOnce() -> Result<Sdk, sys::LoadError>) -> Result<&'static Sdk, sys::LoadError> {
    if let Some(sdk) = SDK.get() {
        return Ok(sdk);
    }
    let sdk = load()?;
    // Two threads may both have loaded it: the same library, so either copy serves.
    let sdk = SDK.get_or_init(|| sdk);
    crate::error::use_sdk_text(|status| loaded()?.status_string(status));
    Ok(sdk)
}

/// The SDK if it has already been loaded; never loads it. Used where loading would be wrong,
/// such as formatting an error.
pub fn loaded() -> Option<&'static Sdk> {
    SDK.get()
}
