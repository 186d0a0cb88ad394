//! HIP and hiprtc function tables and their loaders.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::path::PathBuf;

use super::*;
use crate::dylib::{self, LoadError, OpenLibrary, Origin, dynamic_api};

/// HIP runtime SONAMEs, newest first: ROCm 7, ROCm 6, then HIP 5 (Debian).
pub const HIP_SONAMES: &[&str] = &["libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"];
/// hiprtc SONAMEs: a library of its own since ROCm 6, part of libamdhip64 before.
pub const HIPRTC_SONAMES: &[&str] = &["libhiprtc.so.7", "libhiprtc.so.6"];

dynamic_api! {
    /// The HIP runtime functions, one pointer each.
    pub struct HipApi;
    check = rocprofiler_sdk_sys_hip_bindgen, generated;

    fn hipInit(flags: c_uint) -> hipError_t;
    fn hipDriverGetVersion(driverVersion: *mut c_int) -> hipError_t;
    fn hipRuntimeGetVersion(runtimeVersion: *mut c_int) -> hipError_t;
    fn hipGetDeviceCount(count: *mut c_int) -> hipError_t;
    fn hipSetDevice(deviceId: c_int) -> hipError_t;
    fn hipGetDevice(deviceId: *mut c_int) -> hipError_t;
    fn hipDeviceGetAttribute(pi: *mut c_int, attr: hipDeviceAttribute_t, deviceId: c_int) -> hipError_t;
    fn hipDeviceGetName(name: *mut c_char, len: c_int, device: hipDevice_t) -> hipError_t;
    fn hipDeviceSynchronize() -> hipError_t;
    fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t;
    fn hipFree(ptr: *mut c_void) -> hipError_t;
    fn hipMemcpy(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind) -> hipError_t;
    fn hipMemcpyAsync(
        dst: *mut c_void,
        src: *const c_void,
        sizeBytes: usize,
        kind: hipMemcpyKind,
        stream: hipStream_t,
    ) -> hipError_t;
    fn hipMemset(dst: *mut c_void, value: c_int, sizeBytes: usize) -> hipError_t;
    fn hipModuleLoadData(module: *mut hipModule_t, image: *const c_void) -> hipError_t;
    fn hipModuleUnload(module: hipModule_t) -> hipError_t;
    fn hipModuleGetFunction(function: *mut hipFunction_t, module: hipModule_t, kname: *const c_char) -> hipError_t;
    fn hipModuleLaunchKernel(
        f: hipFunction_t,
        gridDimX: c_uint,
        gridDimY: c_uint,
        gridDimZ: c_uint,
        blockDimX: c_uint,
        blockDimY: c_uint,
        blockDimZ: c_uint,
        sharedMemBytes: c_uint,
        stream: hipStream_t,
        kernelParams: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> hipError_t;
    fn hipStreamCreate(stream: *mut hipStream_t) -> hipError_t;
    fn hipStreamDestroy(stream: hipStream_t) -> hipError_t;
    fn hipStreamSynchronize(stream: hipStream_t) -> hipError_t;
    fn hipEventCreate(event: *mut hipEvent_t) -> hipError_t;
    fn hipEventDestroy(event: hipEvent_t) -> hipError_t;
    fn hipEventRecord(event: hipEvent_t, stream: hipStream_t) -> hipError_t;
    fn hipEventSynchronize(event: hipEvent_t) -> hipError_t;
    fn hipEventElapsedTime(ms: *mut f32, start: hipEvent_t, stop: hipEvent_t) -> hipError_t;
    fn hipGetErrorName(hip_error: hipError_t) -> *const c_char;
    fn hipGetErrorString(hipError: hipError_t) -> *const c_char;
}

dynamic_api! {
    /// The hiprtc functions, one pointer each.
    pub struct HiprtcApi;
    check = rocprofiler_sdk_sys_hip_bindgen, generated;

    fn hiprtcCreateProgram(
        prog: *mut hiprtcProgram,
        src: *const c_char,
        name: *const c_char,
        numHeaders: c_int,
        headers: *mut *const c_char,
        includeNames: *mut *const c_char,
    ) -> hiprtcResult;
    fn hiprtcCompileProgram(prog: hiprtcProgram, numOptions: c_int, options: *mut *const c_char) -> hiprtcResult;
    fn hiprtcDestroyProgram(prog: *mut hiprtcProgram) -> hiprtcResult;
    fn hiprtcGetProgramLogSize(prog: hiprtcProgram, logSizeRet: *mut usize) -> hiprtcResult;
    fn hiprtcGetProgramLog(prog: hiprtcProgram, log: *mut c_char) -> hiprtcResult;
    fn hiprtcGetCodeSize(prog: hiprtcProgram, codeSizeRet: *mut usize) -> hiprtcResult;
    fn hiprtcGetCode(prog: hiprtcProgram, code: *mut c_char) -> hiprtcResult;
    fn hiprtcGetErrorString(result: hiprtcResult) -> *const c_char;
}

macro_rules! debug_by_count {
    ($($table:ident),*) => {
        $(
            impl std::fmt::Debug for $table {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.debug_struct(stringify!($table)).field("functions", &Self::SYMBOLS.len()).finish()
                }
            }
        )*
    };
}
debug_by_count!(HipApi, HiprtcApi);

/// The loaded HIP runtime, and hiprtc where it can be had.
#[derive(Debug)]
pub struct Hip {
    api: HipApi,
    rtc: Option<HiprtcApi>,
    library: OpenLibrary,
    // Keeps a separately opened hiprtc loaded for as long as `rtc` points into it.
    _rtc_library: Option<OpenLibrary>,
}

impl Hip {
    /// The HIP runtime already in the process, else the newest one the loader finds by SONAME.
    /// hiprtc comes from libhiprtc (ROCm 6+) or, failing that, from the runtime itself (HIP 5).
    pub fn load() -> Result<Self, LoadError> {
        let library = dylib::open_first("the HIP runtime (libamdhip64)", HIP_SONAMES)?;
        // SAFETY: opened by a libamdhip64 SONAME, whose exports have the declared signatures;
        // `library` is stored next to the table.
        let api = unsafe { HipApi::resolve(&library.library, &library.name) }?;
        let (rtc, rtc_library) = match dylib::open_first("hiprtc", HIPRTC_SONAMES) {
            // SAFETY: opened by a libhiprtc SONAME; the library is stored next to the table.
            Ok(rtc_lib) => match unsafe { HiprtcApi::resolve(&rtc_lib.library, &rtc_lib.name) } {
                Ok(rtc) => (Some(rtc), Some(rtc_lib)),
                Err(_) => (None, None),
            },
            // SAFETY: HIP 5 exports hiprtc from libamdhip64 itself, with the same signatures.
            Err(_) => (unsafe { HiprtcApi::resolve(&library.library, &library.name) }.ok(), None),
        };
        Ok(Self { api, rtc, library, _rtc_library: rtc_library })
    }

    /// The runtime's functions.
    pub fn api(&self) -> &HipApi {
        &self.api
    }

    /// hiprtc's functions, if hiprtc was found.
    pub fn rtc(&self) -> Option<&HiprtcApi> {
        self.rtc.as_ref()
    }

    /// The SONAME the runtime was opened by.
    pub fn soname(&self) -> &str {
        &self.library.name
    }

    /// Whether the runtime was already loaded or opened by us.
    pub fn origin(&self) -> Origin {
        self.library.origin
    }

    /// The file the runtime was loaded from.
    pub fn path(&self) -> Option<PathBuf> {
        dylib::file_of(self.api.hipRuntimeGetVersion as usize)
    }

    /// The runtime's version number (`HIP_VERSION`: major * 10^7 + minor * 10^5 + patch).
    pub fn runtime_version(&self) -> Result<i32, hipError_t> {
        let mut version = 0;
        // SAFETY: a valid out-pointer; the call needs no device.
        let status = unsafe { (self.api.hipRuntimeGetVersion)(&mut version) };
        if status == hipSuccess { Ok(version) } else { Err(status) }
    }

    /// HIP's own name for `status`.
    pub fn error_name(&self, status: hipError_t) -> String {
        // SAFETY: accepts any value; returns a static string or null.
        let ptr = unsafe { (self.api.hipGetErrorName)(status) };
        if ptr.is_null() {
            return format!("hipError {status}");
        }
        // SAFETY: non-null, NUL-terminated static string.
        unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
    }
}
