//! CUPTI's range profiler (CUDA 12.6 and later): the per-kernel metrics path of the NVIDIA
//! backend. Declared by hand, since `cupti_profiler_host.h` is C++-only (it includes
//! `<string>`), and resolved at run time from the libcupti [`Cupti`](super::Cupti) opened, as
//! [`Cupti::profiler`](super::Cupti::profiler).
//!
//! - **Declarations** are the layouts of CUPTI 13.0's headers (`nvidia-cuda-cupti` 13.0.85,
//!   `CUPTI_API_VERSION` 130001; x86_64 LP64 as gcc 12 lays them out): `cupti_profiler_target.h`
//!   and `cupti_target.h` (initialisation, device support, counter availability, chip name),
//!   `cupti_range_profiler.h` (the per-context range profiler) and `cupti_profiler_host.h`
//!   (metrics, config images, evaluation). `sys/tests/cupti_profiler_layout.rs` pins every size,
//!   alignment, field offset and `*_STRUCT_SIZE`. The headers themselves are never committed.
//! - **Calls.** Every function takes one params struct and returns a `CUptiResult`. Zero the
//!   struct, set `structSize` to its `*_STRUCT_SIZE` and leave `pPriv` null. `*_STRUCT_SIZE` is
//!   the header's `CUPTI_PROFILER_STRUCT_SIZE`, `offsetof(last field) + sizeof(last field)`:
//!   less than `size_of` where the last field is followed by padding (DeviceSupported 52 of 56,
//!   SetConfig 90 of 96, Stop 41 of 48, GetMetricProperties 60 of 64).
//! - **CUPTI 12.x.** The 12.6.80, 12.8.90 and 12.9.79 headers (API 24, 26, 28) give every struct
//!   here the same layout and `STRUCT_SIZE` as 13.0, so nothing is gated on the version. The
//!   version cannot tell whether the range profiler exists either: CUPTI 12.6.37 and 12.6.68
//!   (API 24 as well) have the host API but no `cupti_range_profiler.h` and no
//!   `cuptiRangeProfiler*` symbols, so [`RangeProfilerApi`] is resolved symbol by symbol and is
//!   `None` there. 12.6.37 also lacks [`CUPTI_PROFILER_PM_SAMPLING`] (its `UNKNOWN` is 3), and
//!   12.6.80 lacks the result codes 43–45. Behaviour differs where layouts do not: on an H200
//!   with driver 580.159.04 (CUDA 13.0), libcupti 12.9.79 and 12.6.80 ran every call here and
//!   gave right values for user ranges, but an auto-range session decoded 0 ranges (13.0: one
//!   per launch).
//! - **Later releases** only append fields, and CUPTI reads only what `structSize` covers, so the
//!   13.0 sizes stay valid: 13.1 appends `bAllowDeviceLevelCounters` to GetCounterAvailability
//!   (not in any 12.x or in 13.0), `sku` to DeviceSupported and `metricCollectionScope` to
//!   GetMetricProperties; 13.2 `pSinglePassMetricSetName` to Host_Initialize; 13.4
//!   `cacheControlMode` to RangeProfiler_Enable. The functions 13.2+ add (single-pass metric
//!   sets, device partition info) are not declared.

/// `CUPTI_PROFILER_STRUCT_SIZE(type_, lastfield_)`: `offsetof(type_, lastfield_) +
/// sizeof(lastfield_)`, with the field's size taken from the declaration itself.
macro_rules! struct_size {
    ($ty:ty, $last:ident) => {
        core::mem::offset_of!($ty, $last) + $crate::cupti::profiler::field_size(|s: &$ty| &s.$last)
    };
}

mod host;
mod range;
mod target;

pub use host::*;
pub use range::*;
pub use target::*;

use super::CUptiResult;
use crate::dylib::dynamic_api;

/// The size of the field a projection returns; the projection is never called.
pub(crate) const fn field_size<S, F>(_project: fn(&S) -> &F) -> usize {
    core::mem::size_of::<F>()
}

// `CUptiResult` values the profiler functions document (cupti_result.h), beyond those in
// `records`.
/// No such device.
pub const CUPTI_ERROR_INVALID_DEVICE: CUptiResult = 2;
/// No such context, or not a valid one.
pub const CUPTI_ERROR_INVALID_CONTEXT: CUptiResult = 3;
/// Called in the wrong state, such as `cuptiRangeProfilerStart` before `Enable`.
pub const CUPTI_ERROR_INVALID_OPERATION: CUptiResult = 7;
/// CUPTI could not allocate, creating a range profiler say.
pub const CUPTI_ERROR_OUT_OF_MEMORY: CUptiResult = 8;
/// A metric name the chip does not have.
pub const CUPTI_ERROR_INVALID_METRIC_NAME: CUptiResult = 17;
/// Profiling is not supported on this vGPU.
pub const CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED: CUptiResult = 33;
/// Confidential computing is enabled.
pub const CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED: CUptiResult = 41;
/// NVIDIA Crypto Mining Processors.
pub const CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: CUptiResult = 42;
/// A MIG instance. Not in the 12.6.80 header.
pub const CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED: CUptiResult = 43;
/// SLI is enabled. Not in the 12.6.80 header.
pub const CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED: CUptiResult = 44;
/// Under WSL. Not in the 12.6.80 header.
pub const CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: CUptiResult = 45;

dynamic_api! {
    /// The range profiler's functions (`cupti_profiler_target.h`, `cupti_target.h`,
    /// `cupti_range_profiler.h`, `cupti_profiler_host.h`): all present from CUPTI 12.6.80 on,
    /// resolved apart from [`CuptiApi`](super::CuptiApi) because earlier releases lack them.
    pub struct RangeProfilerApi;
    check = any(), unused;

    /// Loads `libnvperf_host` and hooks the driver; once per process, once CUDA has a context.
    fn cuptiProfilerInitialize(params: *mut CUpti_Profiler_Initialize_Params) -> CUptiResult;
    fn cuptiProfilerDeInitialize(params: *mut CUpti_Profiler_DeInitialize_Params) -> CUptiResult;
    fn cuptiProfilerDeviceSupported(params: *mut CUpti_Profiler_DeviceSupported_Params) -> CUptiResult;
    /// Needs the context; fails while a profiling session is active on it.
    fn cuptiProfilerGetCounterAvailability(params: *mut CUpti_Profiler_GetCounterAvailability_Params) -> CUptiResult;
    fn cuptiDeviceGetChipName(params: *mut CUpti_Device_GetChipName_Params) -> CUptiResult;

    fn cuptiRangeProfilerEnable(params: *mut CUpti_RangeProfiler_Enable_Params) -> CUptiResult;
    fn cuptiRangeProfilerDisable(params: *mut CUpti_RangeProfiler_Disable_Params) -> CUptiResult;
    fn cuptiRangeProfilerGetCounterDataSize(params: *mut CUpti_RangeProfiler_GetCounterDataSize_Params) -> CUptiResult;
    fn cuptiRangeProfilerCounterDataImageInitialize(
        params: *mut CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
    ) -> CUptiResult;
    fn cuptiRangeProfilerSetConfig(params: *mut CUpti_RangeProfiler_SetConfig_Params) -> CUptiResult;
    fn cuptiRangeProfilerStart(params: *mut CUpti_RangeProfiler_Start_Params) -> CUptiResult;
    fn cuptiRangeProfilerStop(params: *mut CUpti_RangeProfiler_Stop_Params) -> CUptiResult;
    fn cuptiRangeProfilerPushRange(params: *mut CUpti_RangeProfiler_PushRange_Params) -> CUptiResult;
    fn cuptiRangeProfilerPopRange(params: *mut CUpti_RangeProfiler_PopRange_Params) -> CUptiResult;
    fn cuptiRangeProfilerDecodeData(params: *mut CUpti_RangeProfiler_DecodeData_Params) -> CUptiResult;
    fn cuptiRangeProfilerGetCounterDataInfo(params: *mut CUpti_RangeProfiler_GetCounterDataInfo_Params) -> CUptiResult;
    fn cuptiRangeProfilerCounterDataGetRangeInfo(
        params: *mut CUpti_RangeProfiler_CounterData_GetRangeInfo_Params,
    ) -> CUptiResult;

    fn cuptiProfilerHostInitialize(params: *mut CUpti_Profiler_Host_Initialize_Params) -> CUptiResult;
    fn cuptiProfilerHostDeinitialize(params: *mut CUpti_Profiler_Host_Deinitialize_Params) -> CUptiResult;
    fn cuptiProfilerHostGetSupportedChips(params: *mut CUpti_Profiler_Host_GetSupportedChips_Params) -> CUptiResult;
    fn cuptiProfilerHostGetBaseMetrics(params: *mut CUpti_Profiler_Host_GetBaseMetrics_Params) -> CUptiResult;
    fn cuptiProfilerHostGetSubMetrics(params: *mut CUpti_Profiler_Host_GetSubMetrics_Params) -> CUptiResult;
    fn cuptiProfilerHostGetMetricProperties(params: *mut CUpti_Profiler_Host_GetMetricProperties_Params) -> CUptiResult;
    fn cuptiProfilerHostConfigAddMetrics(params: *mut CUpti_Profiler_Host_ConfigAddMetrics_Params) -> CUptiResult;
    fn cuptiProfilerHostGetConfigImageSize(params: *mut CUpti_Profiler_Host_GetConfigImageSize_Params) -> CUptiResult;
    fn cuptiProfilerHostGetConfigImage(params: *mut CUpti_Profiler_Host_GetConfigImage_Params) -> CUptiResult;
    fn cuptiProfilerHostGetNumOfPasses(params: *mut CUpti_Profiler_Host_GetNumOfPasses_Params) -> CUptiResult;
    fn cuptiProfilerHostEvaluateToGpuValues(params: *mut CUpti_Profiler_Host_EvaluateToGpuValues_Params) -> CUptiResult;
    fn cuptiProfilerHostGetMaxNumHardwareMetricsPerPass(
        params: *mut CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params,
    ) -> CUptiResult;
}
