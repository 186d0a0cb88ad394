//! `cupti_profiler_host.h`: metric lists and properties, config images and pass counts, and
//! evaluating a decoded counter data image into metric values. None of it needs a GPU or a
//! context: only the chip name and a counter availability image. The header is C++-only (it
//! includes `<string>`), but its functions are `extern "C"`.

use std::ffi::{c_char, c_void};

// ---------------------------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------------------------

/// `CUpti_MetricType`: a metric's kind, which decides its sub-metrics (rollups).
pub type CUpti_MetricType = u32;
/// A counter: `.sum`, `.avg`, `.min`, `.max` and the like.
pub const CUPTI_METRIC_TYPE_COUNTER: CUpti_MetricType = 0;
/// A ratio: `.ratio`, `.pct`, `.max_rate`.
pub const CUPTI_METRIC_TYPE_RATIO: CUpti_MetricType = 1;
/// A throughput: `.pct_of_peak_sustained_elapsed` and the like.
pub const CUPTI_METRIC_TYPE_THROUGHPUT: CUpti_MetricType = 2;
/// The number of metric types.
pub const CUPTI_METRIC_TYPE__COUNT: CUpti_MetricType = 3;

/// `CUpti_ProfilerType`: which profiler a host object serves.
pub type CUpti_ProfilerType = u32;
/// The range profiler (`cuptiRangeProfiler*`).
pub const CUPTI_PROFILER_TYPE_RANGE_PROFILER: CUpti_ProfilerType = 0;
/// PM sampling (`cuptiPmSampling*`).
pub const CUPTI_PROFILER_TYPE_PM_SAMPLING: CUpti_ProfilerType = 1;
/// Not a valid type.
pub const CUPTI_PROFILER_TYPE_PROFILER_INVALID: CUpti_ProfilerType = 2;

/// `CUpti_Profiler_Host_Object`: the metric catalogue of one chip, and the metrics added to it
/// for a config image; made by `cuptiProfilerHostInitialize`, destroyed by
/// `cuptiProfilerHostDeinitialize`; only ever behind a pointer.
#[repr(C)]
#[derive(Debug)]
pub struct CUpti_Profiler_Host_Object {
    _unused: [u8; 0],
}

// ---------------------------------------------------------------------------------------------
// Params structs
// ---------------------------------------------------------------------------------------------

/// `CUpti_Profiler_Host_Initialize_Params` (48 B): for `cuptiProfilerHostInitialize`. CUPTI 13.2
/// appends `pSinglePassMetricSetName` (its `STRUCT_SIZE` 56).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_Initialize_Params {
    /// In: [`CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: [`CUpti_ProfilerType`]: [`CUPTI_PROFILER_TYPE_RANGE_PROFILER`] here.
    pub profilerType: CUpti_ProfilerType,
    /// In: the chip name, from `cuptiDeviceGetChipName`; chips released after this CUPTI are
    /// refused.
    pub pChipName: *const c_char,
    /// In: the counter availability image, from `cuptiProfilerGetCounterAvailability`; may be
    /// null, but chips released after this CUPTI need it.
    pub pCounterAvailabilityImage: *const u8,
    /// Out: the new host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
}
/// `CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE`: 48.
pub const CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_Initialize_Params, pHostObject);

/// `CUpti_Profiler_Host_Deinitialize_Params` (24 B): for `cuptiProfilerHostDeinitialize`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_Deinitialize_Params {
    /// In: [`CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object to destroy.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
}
/// `CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE`: 24.
pub const CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_Deinitialize_Params, pHostObject);

/// `CUpti_Profiler_Host_GetSupportedChips_Params` (32 B): for
/// `cuptiProfilerHostGetSupportedChips`, the chip names this CUPTI knows.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetSupportedChips_Params {
    /// In: [`CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// Out: the number of chip names.
    pub numChips: usize,
    /// Out: `const char *const *`: the chip names.
    pub ppChipNames: *const *const c_char,
}
/// `CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE`: 32.
pub const CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetSupportedChips_Params, ppChipNames);

/// `CUpti_Profiler_Host_GetBaseMetrics_Params` (48 B): for `cuptiProfilerHostGetBaseMetrics`,
/// the chip's base metric names (without rollup) of one type.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetBaseMetrics_Params {
    /// In: [`CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
    /// In: [`CUpti_MetricType`]: the type to list.
    pub metricType: CUpti_MetricType,
    /// Out: `const char **`: the metric names.
    pub ppMetricNames: *mut *const c_char,
    /// Out: the number of metric names.
    pub numMetrics: usize,
}
/// `CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE`: 48.
pub const CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetBaseMetrics_Params, numMetrics);

/// `CUpti_Profiler_Host_GetSubMetrics_Params` (56 B): for `cuptiProfilerHostGetSubMetrics`, the
/// rollups and sub-metrics of one metric (`.sum`, `.max`, `.pct_of_peak_sustained_elapsed`, ...).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetSubMetrics_Params {
    /// In: [`CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
    /// In: [`CUpti_MetricType`]: the metric's type.
    pub metricType: CUpti_MetricType,
    /// In: the metric, with or without a rollup or sub-metric suffix.
    pub pMetricName: *const c_char,
    /// Out: the number of sub-metrics.
    pub numOfSubmetrics: usize,
    /// Out: `const char **`: the metric's sub-metrics.
    pub ppSubMetrics: *mut *const c_char,
}
/// `CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE`: 56.
pub const CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetSubMetrics_Params, ppSubMetrics);

/// `CUpti_Profiler_Host_GetMetricProperties_Params` (64 B, `STRUCT_SIZE` 60): for
/// `cuptiProfilerHostGetMetricProperties`, a metric's description, units and type. CUPTI 13.1
/// appends `metricCollectionScope` in the trailing padding (offset 60; its `STRUCT_SIZE` 64).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetMetricProperties_Params {
    /// In: [`CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
    /// In: the metric, with or without a rollup or sub-metric suffix.
    pub pMetricName: *const c_char,
    /// Out: A short description.
    pub pDescription: *const c_char,
    /// Out: the hardware unit the metric counts in (`"dram"`, `"sm"`).
    pub pHwUnit: *const c_char,
    /// Out: the dimension of its values (`"byte"`, `"inst"`).
    pub pDimUnit: *const c_char,
    /// Out: [`CUpti_MetricType`]: counter, ratio or throughput.
    pub metricType: CUpti_MetricType,
}
/// `CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE`: 60, short of the 64-byte
/// struct.
pub const CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetMetricProperties_Params, metricType);

/// `CUpti_Profiler_Host_ConfigAddMetrics_Params` (40 B): for
/// `cuptiProfilerHostConfigAddMetrics`, which adds metrics to the host object's next config
/// image. Metrics accumulate: a fresh host object is needed for a different set.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_ConfigAddMetrics_Params {
    /// In: [`CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
    /// In: `const char **`: the full metric names (with rollup), `numMetrics` of them.
    pub ppMetricNames: *mut *const c_char,
    /// In: the number of metric names.
    pub numMetrics: usize,
}
/// `CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE`: 40.
pub const CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);

/// `CUpti_Profiler_Host_GetConfigImageSize_Params` (32 B): for
/// `cuptiProfilerHostGetConfigImageSize`, the size of the config image for the metrics added.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetConfigImageSize_Params {
    /// In: [`CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
    /// Out: the config image's size in bytes, for the client to allocate.
    pub configImageSize: usize,
}
/// `CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE`: 32.
pub const CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);

/// `CUpti_Profiler_Host_GetConfigImage_Params` (40 B): for `cuptiProfilerHostGetConfigImage`,
/// which writes the config image (the metrics' pass schedule) into the client's buffer.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetConfigImage_Params {
    /// In: [`CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
    /// In: the buffer's size.
    pub configImageSize: usize,
    /// Out: the buffer receiving the config image.
    pub pConfigImage: *mut u8,
}
/// `CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE`: 40.
pub const CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);

/// `CUpti_Profiler_Host_GetNumOfPasses_Params` (40 B): for `cuptiProfilerHostGetNumOfPasses`,
/// the passes a config image needs; needs no host object.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetNumOfPasses_Params {
    /// In: [`CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the config image's size.
    pub configImageSize: usize,
    /// In: the config image (`uint8_t *`, though only read).
    pub pConfigImage: *mut u8,
    /// Out: the number of passes its metrics need.
    pub numOfPasses: usize,
}
/// `CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE`: 40.
pub const CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses);

/// `CUpti_Profiler_Host_EvaluateToGpuValues_Params` (72 B): for
/// `cuptiProfilerHostEvaluateToGpuValues`, the values of some metrics in one range of a decoded
/// counter data image. Any host object of the chip evaluates any image: no metrics need adding.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_EvaluateToGpuValues_Params {
    /// In: [`CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the host object.
    pub pHostObject: *mut CUpti_Profiler_Host_Object,
    /// In: the decoded counter data image.
    pub pCounterDataImage: *const u8,
    /// In: the image's size.
    pub counterDataImageSize: usize,
    /// In: the range, below `numTotalRanges`.
    pub rangeIndex: usize,
    /// In: `const char **`: the full metric names, `numMetrics` of them.
    pub ppMetricNames: *mut *const c_char,
    /// In: the number of metric names.
    pub numMetrics: usize,
    /// Out: `numMetrics` doubles, the values in the order of the names.
    pub pMetricValues: *mut f64,
}
/// `CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE`: 72.
pub const CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);

/// `CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params` (48 B): for
/// `cuptiProfilerHostGetMaxNumHardwareMetricsPerPass`, an upper bound on the hardware (non-SASS)
/// metrics one pass can hold; `GetNumOfPasses` gives the real count for a set.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params {
    /// In: [`CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: [`CUpti_ProfilerType`].
    pub profilerType: CUpti_ProfilerType,
    /// In: the chip name, from `cuptiDeviceGetChipName`.
    pub pChipName: *const c_char,
    /// In: the counter availability image (`uint8_t *`, though only read); needed for chips
    /// released after this CUPTI.
    pub pCounterAvailabilityImage: *mut u8,
    /// Out: the most hardware metrics one pass can schedule.
    pub maxMetricsPerPass: usize,
}
/// `CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE`: 48.
pub const CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, maxMetricsPerPass);
