//! NVIDIA's safe layer, as `backend::amd::sdk` is AMD's: every CUPTI, profiler-host (nvperf)
//! and CUDA driver call the backend makes, each wrapped once, with typed handles in and out and
//! a failure turned into an error that names the call and carries CUPTI's own text. Nothing else
//! in `backend::cupti` calls through these libraries' function pointers.
//!
//! - [`load`]: the process's libcupti, and the NVTX injection forwarded to it;
//! - [`activity`]: the Activity API (kinds, buffers, the clock, thread ids, flushes);
//! - [`callback`]: the Callback API's subscriber and its callbacks;
//! - [`profiler`], [`range`]: the range profiler, its host objects and its per-context sessions;
//! - [`pc_sampling`]: the PC Sampling API (per-context sampling, its buffers, cubin CRCs and
//!   source lines);
//! - [`driver`]: the CUDA driver's device count.
//!
//! What CUPTI calls into us (the buffer, clock and launch trampolines) stays with the code that
//! decodes it; these wrappers only hand those functions over.

/// A zeroed params struct of CUPTI's profiler API with its `structSize` set.
macro_rules! params {
    ($ty:ident, $size:ident) => {{
        // SAFETY: the profiler's params structs hold integers and raw pointers only, for which
        // all-zero is a valid value (and what the headers ask callers to start from).
        let mut p: rocprofiler_sdk_sys::cupti::$ty = unsafe { std::mem::zeroed() };
        p.structSize = rocprofiler_sdk_sys::cupti::$size;
        p
    }};
}

pub mod activity;
pub mod callback;
pub mod driver;
pub mod load;
pub mod pc_sampling;
pub mod profiler;
pub mod range;

use std::ffi::c_void;

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::error::CuptiError;

/// A CUPTI call that did not succeed: which one, its result and CUPTI's text for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call}: {text}")]
pub struct Failed {
    /// The CUPTI function.
    pub call: &'static str,
    /// What it returned.
    pub result: sys::CUptiResult,
    /// CUPTI's text for the result.
    pub text: String,
}

impl Failed {
    /// The failure as the backend's error for setting up `what`.
    pub fn setting_up(self, what: &'static str) -> CuptiError {
        CuptiError::Call { what, failed: self }
    }
}

/// `result` of `call` as a `Result`.
fn result(cupti: &Cupti, call: &'static str, result: sys::CUptiResult) -> Result<(), Failed> {
    if result == sys::CUPTI_SUCCESS { Ok(()) } else { Err(Failed { call, result, text: cupti.result_text(result) }) }
}

/// `rc` of `call`, made while setting up `what`, as the backend's error.
fn check(cupti: &Cupti, call: &'static str, rc: sys::CUptiResult, what: &'static str) -> Result<(), CuptiError> {
    result(cupti, call, rc).map_err(|failed| failed.setting_up(what))
}

/// A CUDA context (`CUcontext`) as CUPTI reported it: handed back to CUPTI, never read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Context(*mut c_void);

impl Context {
    /// The context at `raw`.
    ///
    /// # Safety
    /// `raw` is a context CUPTI reported (a launch callback's `context`) that is still alive
    /// wherever the handle is used.
    pub unsafe fn from_raw(raw: *mut c_void) -> Context {
        Context(raw)
    }

    /// The raw `CUcontext`.
    pub fn raw(self) -> *mut c_void {
        self.0
    }

    /// Its address, which tells contexts apart.
    pub fn addr(self) -> usize {
        self.0 as usize
    }
}

// SAFETY: a context is a process-wide driver object that CUDA lets any thread name; the handle
// only carries it back to CUPTI.
unsafe impl Send for Context {}
