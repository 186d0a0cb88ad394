//! `cupti_profiler_target.h` and `cupti_target.h`: profiler initialisation, device support,
//! counter availability and the chip name. The deprecated session API of the same header
//! (`cuptiProfilerBeginSession` and the rest) is left out: the range profiler replaces it.

use std::ffi::{c_char, c_int, c_void};

// ---------------------------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------------------------

/// `CUpti_ProfilerRange`: what one range of counter data covers.
pub type CUpti_ProfilerRange = u32;
/// Not a valid mode.
pub const CUPTI_Range_INVALID: CUpti_ProfilerRange = 0;
/// One range per kernel launch, made by CUPTI.
pub const CUPTI_AutoRange: CUpti_ProfilerRange = 1;
/// Ranges pushed and popped by the client (`cuptiRangeProfilerPushRange`).
pub const CUPTI_UserRange: CUpti_ProfilerRange = 2;
/// The number of modes.
pub const CUPTI_Range_COUNT: CUpti_ProfilerRange = 3;

/// `CUpti_ProfilerReplayMode`: who replays the work when a configuration needs several passes.
pub type CUpti_ProfilerReplayMode = u32;
/// Not a valid mode.
pub const CUPTI_Replay_INVALID: CUpti_ProfilerReplayMode = 0;
/// The client reruns the whole application once per pass.
pub const CUPTI_ApplicationReplay: CUpti_ProfilerReplayMode = 1;
/// CUPTI replays each kernel itself (saving and restoring device memory).
pub const CUPTI_KernelReplay: CUpti_ProfilerReplayMode = 2;
/// The client replays the work within the process, between `Start` and `Stop`.
pub const CUPTI_UserReplay: CUpti_ProfilerReplayMode = 3;
/// The number of modes.
pub const CUPTI_Replay_COUNT: CUpti_ProfilerReplayMode = 4;

/// `CUpti_Profiler_Support_Level`: the answer in each field of
/// [`CUpti_Profiler_DeviceSupported_Params`].
pub type CUpti_Profiler_Support_Level = u32;
/// CUPTI could not tell.
pub const CUPTI_PROFILER_CONFIGURATION_UNKNOWN: CUpti_Profiler_Support_Level = 0;
/// Profiling does not work with this device or configuration.
pub const CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: CUpti_Profiler_Support_Level = 1;
/// Profiling would work but the system disabled it (a vGPU without profiling, say).
pub const CUPTI_PROFILER_CONFIGURATION_DISABLED: CUpti_Profiler_Support_Level = 2;
/// Profiling works.
pub const CUPTI_PROFILER_CONFIGURATION_SUPPORTED: CUpti_Profiler_Support_Level = 3;

/// `CUpti_Profiler_API`: which profiling API `cuptiProfilerDeviceSupported` asks about.
pub type CUpti_Profiler_API = u32;
/// Range profiling (`cuptiRangeProfiler*`, and the deprecated `cuptiProfiler*` sessions).
pub const CUPTI_PROFILER_RANGE_PROFILING: CUpti_Profiler_API = 0;
/// PC sampling (`cuptiPcSampling*`).
pub const CUPTI_PROFILER_PC_SAMPLING: CUpti_Profiler_API = 1;
/// SASS metrics (`cuptiSassMetrics*`).
pub const CUPTI_PROFILER_SASS_METRICS: CUpti_Profiler_API = 2;
/// PM sampling (`cuptiPmSampling*`). Absent from CUPTI 12.6.37, whose `UNKNOWN` is 3.
pub const CUPTI_PROFILER_PM_SAMPLING: CUpti_Profiler_API = 3;
/// Past the last API.
pub const CUPTI_PROFILER_UNKNOWN: CUpti_Profiler_API = 4;

// ---------------------------------------------------------------------------------------------
// Params structs
// ---------------------------------------------------------------------------------------------

/// `CUpti_Profiler_Initialize_Params` (16 B): for `cuptiProfilerInitialize`, which loads
/// `libnvperf_host` and hooks the driver; call once per process before anything else here.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Initialize_Params {
    /// In: [`CUpti_Profiler_Initialize_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
}
/// `CUpti_Profiler_Initialize_Params_STRUCT_SIZE`: 16.
pub const CUpti_Profiler_Initialize_Params_STRUCT_SIZE: usize = struct_size!(CUpti_Profiler_Initialize_Params, pPriv);

/// `CUpti_Profiler_DeInitialize_Params` (16 B): for `cuptiProfilerDeInitialize`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_DeInitialize_Params {
    /// In: [`CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
}
/// `CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE`: 16.
pub const CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_DeInitialize_Params, pPriv);

/// `CUpti_Profiler_GetCounterAvailability_Params` (40 B): for
/// `cuptiProfilerGetCounterAvailability`, called twice (null image for the size, then the
/// buffer). Fails while a profiling session is active on the context or its device. CUPTI 13.1
/// appends `uint8_t bAllowDeviceLevelCounters` (its `STRUCT_SIZE` 41); 13.0's 40 leaves it 0.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_GetCounterAvailability_Params {
    /// In: [`CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: `CUcontext`; null for the current context.
    pub ctx: *mut c_void,
    /// In and out: with a null image, receives the size needed; otherwise the buffer's size on the
    /// way in and the bytes written on the way out.
    pub counterAvailabilityImageSize: usize,
    /// In: the buffer receiving the counter availability image, or null to ask for its size.
    pub pCounterAvailabilityImage: *mut u8,
}
/// `CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE`: 40.
pub const CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_GetCounterAvailability_Params, pCounterAvailabilityImage);

/// `CUpti_Profiler_DeviceSupported_Params` (56 B, `STRUCT_SIZE` 52): for
/// `cuptiProfilerDeviceSupported`, whether `api` works on a device and, if not, why. Every
/// out field is a [`CUpti_Profiler_Support_Level`]. CUPTI 13.1 appends `sku` in the
/// trailing padding (offset 52; its `STRUCT_SIZE` 56).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_DeviceSupported_Params {
    /// In: [`CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: `CUdevice`: the device ordinal to ask about.
    pub cuDevice: c_int,
    /// Out: SUPPORTED only if every field below is.
    pub isSupported: CUpti_Profiler_Support_Level,
    /// Out: whether the architecture supports the API (compute capability 7.0 or later).
    pub architecture: CUpti_Profiler_Support_Level,
    /// Out: UNSUPPORTED when SLI is enabled.
    pub sli: CUpti_Profiler_Support_Level,
    /// Out: for a vGPU: SUPPORTED, DISABLED (profiling not enabled for it) or UNSUPPORTED.
    pub vGpu: CUpti_Profiler_Support_Level,
    /// Out: UNSUPPORTED when confidential compute is enabled.
    pub confidentialCompute: CUpti_Profiler_Support_Level,
    /// Out: UNSUPPORTED on NVIDIA Crypto Mining Processors.
    pub cmp: CUpti_Profiler_Support_Level,
    /// Out: whether profiling works under WSL.
    pub wsl: CUpti_Profiler_Support_Level,
    /// In: the [`CUpti_Profiler_API`] asked about: [`CUPTI_PROFILER_RANGE_PROFILING`] here.
    pub api: CUpti_Profiler_API,
}
/// `CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE`: 52, short of the 56-byte struct.
pub const CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_DeviceSupported_Params, api);

/// `CUpti_Device_GetChipName_Params` (32 B, `cupti_target.h`): for `cuptiDeviceGetChipName`,
/// the chip name (`"GH100"`) that the host API takes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Device_GetChipName_Params {
    /// In: [`CUpti_Device_GetChipName_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the CUDA device ordinal.
    pub deviceIndex: usize,
    /// Out: the chip name, NUL-terminated.
    pub pChipName: *const c_char,
}
/// `CUpti_Device_GetChipName_Params_STRUCT_SIZE`: 32.
pub const CUpti_Device_GetChipName_Params_STRUCT_SIZE: usize = struct_size!(CUpti_Device_GetChipName_Params, pChipName);
