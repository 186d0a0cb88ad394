//! `cupti_range_profiler.h`: a range profiler object per context collects the metrics of a
//! config image into a counter data image, one range per kernel launch (auto range) or per
//! pushed range (user range).

use std::ffi::{c_char, c_void};

use super::target::{CUpti_ProfilerRange, CUpti_ProfilerReplayMode};

/// `CUpti_RangeProfiler_Object`: the range profiler of one context, made by
/// `cuptiRangeProfilerEnable` and destroyed by `cuptiRangeProfilerDisable`; only ever behind a
/// pointer.
#[repr(C)]
#[derive(Debug)]
pub struct CUpti_RangeProfiler_Object {
    _unused: [u8; 0],
}

/// `CUpti_RangeProfiler_Enable_Params` (32 B): for `cuptiRangeProfilerEnable`, which creates
/// the range profiler of a context. CUPTI 13.4 appends `cacheControlMode` (its `STRUCT_SIZE`
/// 36).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_Enable_Params {
    /// In: [`CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: `CUcontext`: the context to profile.
    pub ctx: *mut c_void,
    /// Out: the new range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
}
/// `CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE`: 32.
pub const CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject);

/// `CUpti_RangeProfiler_Disable_Params` (24 B): for `cuptiRangeProfilerDisable`, which disables
/// range profiling on the context and destroys the object.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_Disable_Params {
    /// In: [`CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler to destroy.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
}
/// `CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE`: 24.
pub const CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_Disable_Params, pRangeProfilerObject);

/// `CUpti_RangeProfiler_GetCounterDataSize_Params` (64 B): for
/// `cuptiRangeProfilerGetCounterDataSize`, the size of a counter data image for these metrics
/// and this many ranges.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_GetCounterDataSize_Params {
    /// In: [`CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
    /// In: `const char **`: the names of the metrics to collect, `numMetrics` of them.
    pub pMetricNames: *mut *const c_char,
    /// In: the number of metric names.
    pub numMetrics: usize,
    /// In: the most ranges the image is to hold.
    pub maxNumOfRanges: usize,
    /// In: the most range-tree nodes; at least `maxNumOfRanges`.
    pub maxNumRangeTreeNodes: u32,
    /// Out: the counter data image's size in bytes.
    pub counterDataSize: usize,
}
/// `CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE`: 64.
pub const CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize);

/// `CUpti_RangeProfiler_CounterDataImage_Initialize_Params` (40 B): for
/// `cuptiRangeProfilerCounterDataImageInitialize`, which lays out a client-allocated counter
/// data image.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_CounterDataImage_Initialize_Params {
    /// In: [`CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
    /// In: the image's size, from `cuptiRangeProfilerGetCounterDataSize`.
    pub counterDataSize: usize,
    /// In: the image to initialise, `counterDataSize` bytes.
    pub pCounterData: *mut u8,
}
/// `CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE`: 40.
pub const CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pCounterData);

/// `CUpti_RangeProfiler_SetConfig_Params` (96 B, `STRUCT_SIZE` 90): for
/// `cuptiRangeProfilerSetConfig`, which binds a config image and a counter data image and sets
/// the range and replay modes for the next `Start`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_SetConfig_Params {
    /// In: [`CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
    /// In: the config image's size.
    pub configSize: usize,
    /// In: the config image, from `cuptiProfilerHostGetConfigImage`.
    pub pConfig: *const u8,
    /// In: the counter data image's size.
    pub counterDataImageSize: usize,
    /// In: the initialised counter data image that receives the values.
    pub pCounterDataImage: *mut u8,
    /// In: [`CUpti_ProfilerRange`]: auto (per kernel) or user ranges.
    pub range: CUpti_ProfilerRange,
    /// In: [`CUpti_ProfilerReplayMode`].
    pub replayMode: CUpti_ProfilerReplayMode,
    /// In: the most ranges one pass records.
    pub maxRangesPerPass: usize,
    /// In: the number of nesting levels to profile; 1 for auto range.
    pub numNestingLevels: u16,
    /// In: the lowest nesting level to profile.
    pub minNestingLevel: u16,
    /// In: the pass to collect, for replay.
    pub passIndex: usize,
    /// In: the nesting level to collect, for replay.
    pub targetNestingLevel: u16,
}
/// `CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE`: 90, short of the 96-byte struct.
pub const CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel);

/// `CUpti_RangeProfiler_Start_Params` (24 B): for `cuptiRangeProfilerStart`, which begins a
/// pass.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_Start_Params {
    /// In: [`CUpti_RangeProfiler_Start_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
}
/// `CUpti_RangeProfiler_Start_Params_STRUCT_SIZE`: 24.
pub const CUpti_RangeProfiler_Start_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_Start_Params, pRangeProfilerObject);

/// `CUpti_RangeProfiler_Stop_Params` (48 B, `STRUCT_SIZE` 41): for `cuptiRangeProfilerStop`,
/// which ends a pass and says what the next one is.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_Stop_Params {
    /// In: [`CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
    /// Out: the pass index for the next replay.
    pub passIndex: usize,
    /// Out: the target nesting level for the next replay (a `size_t` here, `uint16_t` in
    /// SetConfig).
    pub targetNestingLevel: usize,
    /// Out: 1 once every pass has been submitted to the GPU, else 0.
    pub isAllPassSubmitted: u8,
}
/// `CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE`: 41, short of the 48-byte struct.
pub const CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted);

/// `CUpti_RangeProfiler_PushRange_Params` (32 B): for `cuptiRangeProfilerPushRange`, which
/// opens a named range (user range mode only).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_PushRange_Params {
    /// In: [`CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
    /// In: the range's name, NUL-terminated.
    pub pRangeName: *const c_char,
}
/// `CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE`: 32.
pub const CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_PushRange_Params, pRangeName);

/// `CUpti_RangeProfiler_PopRange_Params` (24 B): for `cuptiRangeProfilerPopRange`, which closes
/// the innermost pushed range.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_PopRange_Params {
    /// In: [`CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
}
/// `CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE`: 24.
pub const CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_PopRange_Params, pRangeProfilerObject);

/// `CUpti_RangeProfiler_DecodeData_Params` (32 B): for `cuptiRangeProfilerDecodeData`, which
/// decodes the hardware's data into the counter data image bound by SetConfig; call after
/// `Stop`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_DecodeData_Params {
    /// In: [`CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the range profiler.
    pub pRangeProfilerObject: *mut CUpti_RangeProfiler_Object,
    /// Out: ranges dropped because the image had no room for them.
    pub numOfRangeDropped: usize,
}
/// `CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE`: 32.
pub const CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped);

/// `CUpti_RangeProfiler_GetCounterDataInfo_Params` (40 B): for
/// `cuptiRangeProfilerGetCounterDataInfo`, the number of ranges in a decoded image; needs no
/// context or range profiler.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_GetCounterDataInfo_Params {
    /// In: [`CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the counter data image.
    pub pCounterDataImage: *const u8,
    /// In: the image's size.
    pub counterDataImageSize: usize,
    /// Out: the number of ranges in the image.
    pub numTotalRanges: usize,
}
/// `CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE`: 40.
pub const CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges);

/// `CUpti_RangeProfiler_CounterData_GetRangeInfo_Params` (56 B): for
/// `cuptiRangeProfilerCounterDataGetRangeInfo`, the name of one range of a decoded image.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_RangeProfiler_CounterData_GetRangeInfo_Params {
    /// In: [`CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE`].
    pub structSize: usize,
    /// In: null.
    pub pPriv: *mut c_void,
    /// In: the counter data image.
    pub pCounterDataImage: *const u8,
    /// In: the image's size.
    pub counterDataImageSize: usize,
    /// In: the range, below `numTotalRanges`.
    pub rangeIndex: usize,
    /// In: the separator between nested range names, such as `"/"`.
    pub rangeDelimiter: *const c_char,
    /// Out: the range's name, NUL-terminated: with auto ranges, the decimal number of the
    /// launch, counting every launch since `Enable`; with user ranges, the pushed names.
    pub rangeName: *const c_char,
}
/// `CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE`: 56.
pub const CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE: usize =
    struct_size!(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, rangeName);
