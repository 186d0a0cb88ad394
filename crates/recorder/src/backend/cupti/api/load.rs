//! The process's libcupti, loaded once by whichever of the two injection entries comes first
//! (the process's own copy if torch brought one: two copies break NVTX), and kept.

use std::ffi::{c_int, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;

use rocprofiler_sdk_sys::LoadError;
use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::super::error::CuptiError;

static CUPTI: OnceLock<Result<Cupti, LoadError>> = OnceLock::new();

/// The process's libcupti, if it has been loaded.
pub fn cupti() -> Option<&'static Cupti> {
    CUPTI.get().and_then(|c| c.as_ref().ok())
}

/// The process's libcupti, loaded on first use; a failure is kept, since both injection entries
/// ask.
pub fn load() -> Result<&'static Cupti, CuptiError> {
    CUPTI.get_or_init(|| Cupti::load(&library_paths())).as_ref().map_err(CuptiError::Load)
}

/// The process's libcupti for a command-line tool (`avail`): loaded as the injection loads it,
/// and with `libnvperf_host.so` from its own directory mapped first, which CUPTI's profiler
/// opens by bare name (a pip wheel's directory is on no search path).
pub fn load_for_listing() -> Result<&'static Cupti, CuptiError> {
    let cupti = load()?;
    if let Some(dir) = cupti.path().as_deref().and_then(std::path::Path::parent)
        && let Ok(host) = std::ffi::CString::new(dir.join("libnvperf_host.so").display().to_string())
    {
        // SAFETY: a NUL-terminated path; NVIDIA's library, whose initialisers need nothing, is
        // left loaded for the process (its handle is not closed).
        unsafe { libc::dlopen(host.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    }
    Ok(cupti)
}

/// Where libcupti is looked for after the process's own copy and the SONAMEs: the CLI's pick,
/// then the toolkit's two layouts (the H100 image has it only under `targets/`).
fn library_paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::env::var_os(crate::config::CUPTI_LIBRARY).map(PathBuf::from).into_iter().collect();
    let homes = [std::env::var_os("CUDA_HOME").map(PathBuf::from), Some(PathBuf::from("/usr/local/cuda"))];
    for home in homes.into_iter().flatten() {
        for dir in ["extras/CUPTI/lib64", "targets/x86_64-linux/lib", "lib64"] {
            for soname in sys::SONAMES {
                paths.push(home.join(dir).join(soname));
            }
        }
    }
    paths
}

/// Hands NVTX's export-table getter to libcupti's own NVTX injection entry, where it has one;
/// 0 where it has none.
///
/// # Safety
/// `get_export_table` is what NVTX passed to our `InitializeInjectionNvtx2`.
pub unsafe fn forward_nvtx_injection(cupti: &Cupti, get_export_table: *const c_void) -> c_int {
    match cupti.nvtx_injection {
        // SAFETY: libcupti's own entry, with the argument NVTX gave us (the caller's promise).
        Some(forward) => unsafe { forward(get_export_table) },
        None => 0,
    }
}
