//! libcupti's functions, resolved at run time.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::PathBuf;

use super::pc_sampling::PcSamplingApi;
use super::profiler::RangeProfilerApi;
use super::records::CUpti_SubscriberParams;
use crate::dylib::{self, LoadError, OpenLibrary, Origin, dynamic_api};

/// The SONAMEs tried, newest first. Python wheels ship no unversioned `libcupti.so`.
pub const SONAMES: [&str; 2] = ["libcupti.so.13", "libcupti.so.12"];

/// `CUptiResult`: 0 is success; see the `CUPTI_ERROR_*` constants.
pub type CUptiResult = u32;

/// `CUpti_SubscriberHandle`.
pub type CUpti_SubscriberHandle = *mut c_void;
/// `CUpti_CallbackFunc`: `(userdata, domain, cbid, const void *cbdata)`.
pub type CUpti_CallbackFunc = Option<unsafe extern "C" fn(*mut c_void, u32, u32, *const c_void)>;
/// `CUpti_BuffersCallbackRequestFunc`: `(uint8_t **buffer, size_t *size, size_t *maxNumRecords)`.
pub type CUpti_BuffersCallbackRequestFunc = Option<unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize)>;
/// `CUpti_BuffersCallbackCompleteFunc`: `(CUcontext, uint32_t streamId, uint8_t *buffer, size_t
/// size, size_t validSize)`.
pub type CUpti_BuffersCallbackCompleteFunc = Option<unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize, usize)>;
/// `CUpti_TimestampCallbackFunc`.
pub type CUpti_TimestampCallbackFunc = Option<unsafe extern "C" fn() -> u64>;

dynamic_api! {
    /// The CUPTI functions every supported release (12.x, 13.x) has.
    pub struct CuptiApi;
    check = any(), unused;

    fn cuptiGetVersion(version: *mut u32) -> CUptiResult;
    fn cuptiGetResultString(result: CUptiResult, text: *mut *const c_char) -> CUptiResult;
    fn cuptiSubscribe(
        subscriber: *mut CUpti_SubscriberHandle,
        callback: CUpti_CallbackFunc,
        userdata: *mut c_void,
    ) -> CUptiResult;
    fn cuptiEnableCallback(enable: u32, subscriber: CUpti_SubscriberHandle, domain: u32, cbid: u32) -> CUptiResult;
    fn cuptiActivityEnable(kind: u32) -> CUptiResult;
    fn cuptiActivityDisable(kind: u32) -> CUptiResult;
    fn cuptiActivityRegisterCallbacks(
        request: CUpti_BuffersCallbackRequestFunc,
        complete: CUpti_BuffersCallbackCompleteFunc,
    ) -> CUptiResult;
    fn cuptiActivityGetNextRecord(buffer: *mut u8, valid_size: usize, record: *mut *mut u32) -> CUptiResult;
    fn cuptiActivityGetNumDroppedRecords(context: *mut c_void, stream_id: u32, dropped: *mut usize) -> CUptiResult;
    fn cuptiActivityFlushAll(flag: u32) -> CUptiResult;
    fn cuptiActivityRegisterTimestampCallback(callback: CUpti_TimestampCallbackFunc) -> CUptiResult;
    fn cuptiSetThreadIdType(kind: u32) -> CUptiResult;
    /// The CUDA device of a context (`CUcontext`).
    fn cuptiGetDeviceId(context: *mut c_void, device: *mut u32) -> CUptiResult;
}

/// `cuptiSubscribe_v2` (13.0 and later): names the client already holding the subscriber slot.
pub type SubscribeV2 = unsafe extern "C" fn(
    *mut CUpti_SubscriberHandle,
    CUpti_CallbackFunc,
    *mut c_void,
    *mut CUpti_SubscriberParams,
) -> CUptiResult;

/// libcupti's NVTX injection entry, which NVTX calls with its export-table getter.
pub type InitializeInjectionNvtx2 = unsafe extern "C" fn(*const c_void) -> c_int;

/// An open libcupti and its functions.
#[allow(missing_debug_implementations)]
pub struct Cupti {
    api: CuptiApi,
    /// `cuptiSubscribe_v2`, where the release has it.
    pub subscribe_v2: Option<SubscribeV2>,
    /// libcupti's own `InitializeInjectionNvtx2`, which a tool that is also NVTX's injection
    /// library forwards to.
    pub nvtx_injection: Option<InitializeInjectionNvtx2>,
    /// The range profiler's functions (CUPTI 12.6.80 and later); `None` where the library
    /// lacks any of them.
    pub profiler: Option<RangeProfilerApi>,
    /// The PC Sampling API's functions; `None` where the library lacks any of them.
    pub pc_sampling: Option<PcSamplingApi>,
    version: u32,
    library: OpenLibrary,
}

impl Cupti {
    /// Takes the libcupti already in the process, else the first of the SONAMEs and then of
    /// `paths` that opens.
    pub fn load(paths: &[PathBuf]) -> Result<Cupti, LoadError> {
        let mut names: Vec<String> = SONAMES.iter().map(|s| (*s).to_owned()).collect();
        names.extend(paths.iter().map(|p| p.display().to_string()));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        Self::from_library(dylib::open_first("libcupti (CUPTI 12 or 13)", &names)?)
    }

    fn from_library(library: OpenLibrary) -> Result<Cupti, LoadError> {
        // SAFETY: a libcupti of release 12 or 13, whose symbols have the declared signatures
        // (the same in both); the library stays open as long as the table (both are in `Self`).
        let api = unsafe { CuptiApi::resolve(&library.library, &library.name)? };
        // SAFETY: as above, for an optional symbol with the declared signature.
        let subscribe_v2 = unsafe { library.library.get::<SubscribeV2>(b"cuptiSubscribe_v2\0") }.ok().map(|s| *s);
        // SAFETY: as above.
        let nvtx_injection =
            unsafe { library.library.get::<InitializeInjectionNvtx2>(b"InitializeInjectionNvtx2\0") }.ok().map(|s| *s);
        // SAFETY: as above: the range profiler's symbols have the declared signatures in every
        // release that has them (12.6.80 to 13.x), and a release without one gives `None`.
        let profiler = unsafe { RangeProfilerApi::resolve(&library.library, &library.name) }.ok();
        // SAFETY: as above, for the PC Sampling API's symbols (the same signatures since 11.3).
        let pc_sampling = unsafe { PcSamplingApi::resolve(&library.library, &library.name) }.ok();
        let mut version = 0;
        // SAFETY: a valid out-pointer.
        let result = unsafe { (api.cuptiGetVersion)(&mut version) };
        if result != super::CUPTI_SUCCESS {
            version = 0;
        }
        Ok(Cupti { api, subscribe_v2, nvtx_injection, profiler, pc_sampling, version, library })
    }

    /// The functions.
    pub fn api(&self) -> &CuptiApi {
        &self.api
    }

    /// `CUPTI_API_VERSION` of the loaded library (130001 for CUDA 13.0, 28 for 12.9); 0 if it
    /// would not say.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The file the library was loaded from.
    pub fn path(&self) -> Option<PathBuf> {
        dylib::file_of(self.api.cuptiGetVersion as usize)
    }

    /// Whether the library was already in the process.
    pub fn origin(&self) -> Origin {
        self.library.origin
    }

    /// CUPTI's text for a result code.
    pub fn result_text(&self, result: CUptiResult) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: a valid out-pointer; CUPTI returns a static string or leaves it null.
        let rc = unsafe { (self.api.cuptiGetResultString)(result, &mut text) };
        if rc != super::CUPTI_SUCCESS || text.is_null() {
            return format!("CUPTI error {result}");
        }
        // SAFETY: a NUL-terminated static string from CUPTI.
        unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
    }
}
