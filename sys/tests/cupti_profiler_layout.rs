//! The range profiler's declarations (`cupti::profiler`) against the layout gcc 12 gives the
//! CUPTI 13.0 headers (`nvidia-cuda-cupti` 13.0.85, `CUPTI_API_VERSION` 130001) on x86_64 LP64:
//! size, alignment, the offset and size of every field, and each `*_STRUCT_SIZE`
//! (`CUPTI_PROFILER_STRUCT_SIZE`, evaluated by the compiler), printed by a C++ program built
//! against the headers. The 12.6.80, 12.8.90 and 12.9.79 headers give the same numbers. Also the
//! enumerators, the function table, and loading it.

#![allow(non_snake_case)]

use rocprofiler_sdk_sys::LoadError;
use rocprofiler_sdk_sys::cupti::*;

mod common;

#[test]
fn device_get_chip_name() {
    common::check_layout!(CUpti_Device_GetChipName_Params, size = 32, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        deviceIndex: (16, 8),
        pChipName: (24, 8),
    });
    assert_eq!(CUpti_Device_GetChipName_Params_STRUCT_SIZE, 32);
}

#[test]
fn profiler_initialize() {
    common::check_layout!(CUpti_Profiler_Initialize_Params, size = 16, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
    });
    assert_eq!(CUpti_Profiler_Initialize_Params_STRUCT_SIZE, 16);
}

#[test]
fn profiler_de_initialize() {
    common::check_layout!(CUpti_Profiler_DeInitialize_Params, size = 16, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
    });
    assert_eq!(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, 16);
}

#[test]
fn profiler_get_counter_availability() {
    common::check_layout!(CUpti_Profiler_GetCounterAvailability_Params, size = 40, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        ctx: (16, 8),
        counterAvailabilityImageSize: (24, 8),
        pCounterAvailabilityImage: (32, 8),
    });
    assert_eq!(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, 40);
}

#[test]
fn profiler_device_supported() {
    common::check_layout!(CUpti_Profiler_DeviceSupported_Params, size = 56, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        cuDevice: (16, 4),
        isSupported: (20, 4),
        architecture: (24, 4),
        sli: (28, 4),
        vGpu: (32, 4),
        confidentialCompute: (36, 4),
        cmp: (40, 4),
        wsl: (44, 4),
        api: (48, 4),
    });
    assert_eq!(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE, 52);
}

#[test]
fn range_profiler_set_config() {
    common::check_layout!(CUpti_RangeProfiler_SetConfig_Params, size = 96, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
        configSize: (24, 8),
        pConfig: (32, 8),
        counterDataImageSize: (40, 8),
        pCounterDataImage: (48, 8),
        range: (56, 4),
        replayMode: (60, 4),
        maxRangesPerPass: (64, 8),
        numNestingLevels: (72, 2),
        minNestingLevel: (74, 2),
        passIndex: (80, 8),
        targetNestingLevel: (88, 2),
    });
    assert_eq!(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE, 90);
}

#[test]
fn range_profiler_enable() {
    common::check_layout!(CUpti_RangeProfiler_Enable_Params, size = 32, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        ctx: (16, 8),
        pRangeProfilerObject: (24, 8),
    });
    assert_eq!(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, 32);
}

#[test]
fn range_profiler_disable() {
    common::check_layout!(CUpti_RangeProfiler_Disable_Params, size = 24, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
    });
    assert_eq!(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, 24);
}

#[test]
fn range_profiler_start() {
    common::check_layout!(CUpti_RangeProfiler_Start_Params, size = 24, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
    });
    assert_eq!(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, 24);
}

#[test]
fn range_profiler_stop() {
    common::check_layout!(CUpti_RangeProfiler_Stop_Params, size = 48, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
        passIndex: (24, 8),
        targetNestingLevel: (32, 8),
        isAllPassSubmitted: (40, 1),
    });
    assert_eq!(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, 41);
}

#[test]
fn range_profiler_push_range() {
    common::check_layout!(CUpti_RangeProfiler_PushRange_Params, size = 32, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
        pRangeName: (24, 8),
    });
    assert_eq!(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE, 32);
}

#[test]
fn range_profiler_pop_range() {
    common::check_layout!(CUpti_RangeProfiler_PopRange_Params, size = 24, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
    });
    assert_eq!(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, 24);
}

#[test]
fn range_profiler_decode_data() {
    common::check_layout!(CUpti_RangeProfiler_DecodeData_Params, size = 32, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
        numOfRangeDropped: (24, 8),
    });
    assert_eq!(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, 32);
}

#[test]
fn range_profiler_get_counter_data_size() {
    common::check_layout!(CUpti_RangeProfiler_GetCounterDataSize_Params, size = 64, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
        pMetricNames: (24, 8),
        numMetrics: (32, 8),
        maxNumOfRanges: (40, 8),
        maxNumRangeTreeNodes: (48, 4),
        counterDataSize: (56, 8),
    });
    assert_eq!(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE, 64);
}

#[test]
fn range_profiler_counter_data_image_initialize() {
    common::check_layout!(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, size = 40, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pRangeProfilerObject: (16, 8),
        counterDataSize: (24, 8),
        pCounterData: (32, 8),
    });
    assert_eq!(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, 40);
}

#[test]
fn range_profiler_get_counter_data_info() {
    common::check_layout!(CUpti_RangeProfiler_GetCounterDataInfo_Params, size = 40, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pCounterDataImage: (16, 8),
        counterDataImageSize: (24, 8),
        numTotalRanges: (32, 8),
    });
    assert_eq!(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE, 40);
}

#[test]
fn range_profiler_counter_data_get_range_info() {
    common::check_layout!(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params, size = 56, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pCounterDataImage: (16, 8),
        counterDataImageSize: (24, 8),
        rangeIndex: (32, 8),
        rangeDelimiter: (40, 8),
        rangeName: (48, 8),
    });
    assert_eq!(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE, 56);
}

#[test]
fn profiler_host_initialize() {
    common::check_layout!(CUpti_Profiler_Host_Initialize_Params, size = 48, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        profilerType: (16, 4),
        pChipName: (24, 8),
        pCounterAvailabilityImage: (32, 8),
        pHostObject: (40, 8),
    });
    assert_eq!(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, 48);
}

#[test]
fn profiler_host_deinitialize() {
    common::check_layout!(CUpti_Profiler_Host_Deinitialize_Params, size = 24, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
    });
    assert_eq!(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, 24);
}

#[test]
fn profiler_host_get_supported_chips() {
    common::check_layout!(CUpti_Profiler_Host_GetSupportedChips_Params, size = 32, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        numChips: (16, 8),
        ppChipNames: (24, 8),
    });
    assert_eq!(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE, 32);
}

#[test]
fn profiler_host_get_base_metrics() {
    common::check_layout!(CUpti_Profiler_Host_GetBaseMetrics_Params, size = 48, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
        metricType: (24, 4),
        ppMetricNames: (32, 8),
        numMetrics: (40, 8),
    });
    assert_eq!(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE, 48);
}

#[test]
fn profiler_host_get_sub_metrics() {
    common::check_layout!(CUpti_Profiler_Host_GetSubMetrics_Params, size = 56, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
        metricType: (24, 4),
        pMetricName: (32, 8),
        numOfSubmetrics: (40, 8),
        ppSubMetrics: (48, 8),
    });
    assert_eq!(CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE, 56);
}

#[test]
fn profiler_host_get_metric_properties() {
    common::check_layout!(CUpti_Profiler_Host_GetMetricProperties_Params, size = 64, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
        pMetricName: (24, 8),
        pDescription: (32, 8),
        pHwUnit: (40, 8),
        pDimUnit: (48, 8),
        metricType: (56, 4),
    });
    assert_eq!(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE, 60);
}

#[test]
fn profiler_host_evaluate_to_gpu_values() {
    common::check_layout!(CUpti_Profiler_Host_EvaluateToGpuValues_Params, size = 72, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
        pCounterDataImage: (24, 8),
        counterDataImageSize: (32, 8),
        rangeIndex: (40, 8),
        ppMetricNames: (48, 8),
        numMetrics: (56, 8),
        pMetricValues: (64, 8),
    });
    assert_eq!(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE, 72);
}

#[test]
fn profiler_host_config_add_metrics() {
    common::check_layout!(CUpti_Profiler_Host_ConfigAddMetrics_Params, size = 40, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
        ppMetricNames: (24, 8),
        numMetrics: (32, 8),
    });
    assert_eq!(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, 40);
}

#[test]
fn profiler_host_get_config_image_size() {
    common::check_layout!(CUpti_Profiler_Host_GetConfigImageSize_Params, size = 32, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
        configImageSize: (24, 8),
    });
    assert_eq!(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, 32);
}

#[test]
fn profiler_host_get_config_image() {
    common::check_layout!(CUpti_Profiler_Host_GetConfigImage_Params, size = 40, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        pHostObject: (16, 8),
        configImageSize: (24, 8),
        pConfigImage: (32, 8),
    });
    assert_eq!(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, 40);
}

#[test]
fn profiler_host_get_num_of_passes() {
    common::check_layout!(CUpti_Profiler_Host_GetNumOfPasses_Params, size = 40, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        configImageSize: (16, 8),
        pConfigImage: (24, 8),
        numOfPasses: (32, 8),
    });
    assert_eq!(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE, 40);
}

#[test]
fn profiler_host_get_max_num_hardware_metrics_per_pass() {
    common::check_layout!(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params, size = 48, align = 8, {
        structSize: (0, 8),
        pPriv: (8, 8),
        profilerType: (16, 4),
        pChipName: (24, 8),
        pCounterAvailabilityImage: (32, 8),
        maxMetricsPerPass: (40, 8),
    });
    assert_eq!(CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE, 48);
}

#[test]
fn enums() {
    common::check_enum!(CUpti_ProfilerRange, signed = false, sparse, {
        CUPTI_Range_INVALID = 0,
        CUPTI_AutoRange = 1,
        CUPTI_UserRange = 2,
        CUPTI_Range_COUNT = 3,
    });
    common::check_enum!(CUpti_ProfilerReplayMode, signed = false, sparse, {
        CUPTI_Replay_INVALID = 0,
        CUPTI_ApplicationReplay = 1,
        CUPTI_KernelReplay = 2,
        CUPTI_UserReplay = 3,
        CUPTI_Replay_COUNT = 4,
    });
    common::check_enum!(CUpti_Profiler_Support_Level, signed = false, sparse, {
        CUPTI_PROFILER_CONFIGURATION_UNKNOWN = 0,
        CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED = 1,
        CUPTI_PROFILER_CONFIGURATION_DISABLED = 2,
        CUPTI_PROFILER_CONFIGURATION_SUPPORTED = 3,
    });
    common::check_enum!(CUpti_Profiler_API, signed = false, sparse, {
        CUPTI_PROFILER_RANGE_PROFILING = 0,
        CUPTI_PROFILER_PC_SAMPLING = 1,
        CUPTI_PROFILER_SASS_METRICS = 2,
        CUPTI_PROFILER_PM_SAMPLING = 3,
        CUPTI_PROFILER_UNKNOWN = 4,
    });
    common::check_enum!(CUpti_MetricType, signed = false, sparse, {
        CUPTI_METRIC_TYPE_COUNTER = 0,
        CUPTI_METRIC_TYPE_RATIO = 1,
        CUPTI_METRIC_TYPE_THROUGHPUT = 2,
        CUPTI_METRIC_TYPE__COUNT = 3,
    });
    common::check_enum!(CUpti_ProfilerType, signed = false, sparse, {
        CUPTI_PROFILER_TYPE_RANGE_PROFILER = 0,
        CUPTI_PROFILER_TYPE_PM_SAMPLING = 1,
        CUPTI_PROFILER_TYPE_PROFILER_INVALID = 2,
    });
}

#[test]
fn result_codes() {
    common::check_enum!(CUptiResult, signed = false, sparse, {
        CUPTI_ERROR_INVALID_DEVICE = 2,
        CUPTI_ERROR_INVALID_CONTEXT = 3,
        CUPTI_ERROR_INVALID_OPERATION = 7,
        CUPTI_ERROR_OUT_OF_MEMORY = 8,
        CUPTI_ERROR_INVALID_METRIC_NAME = 17,
        CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED = 33,
        CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED = 41,
        CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED = 42,
        CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED = 43,
        CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED = 44,
        CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED = 45,
    });
}

/// Every function of the brief, in table order; a function dropped from or added to the table
/// fails here.
#[test]
fn the_table_lists_every_function() {
    assert_eq!(
        RangeProfilerApi::SYMBOLS,
        &[
            "cuptiProfilerInitialize",
            "cuptiProfilerDeInitialize",
            "cuptiProfilerDeviceSupported",
            "cuptiProfilerGetCounterAvailability",
            "cuptiDeviceGetChipName",
            "cuptiRangeProfilerEnable",
            "cuptiRangeProfilerDisable",
            "cuptiRangeProfilerGetCounterDataSize",
            "cuptiRangeProfilerCounterDataImageInitialize",
            "cuptiRangeProfilerSetConfig",
            "cuptiRangeProfilerStart",
            "cuptiRangeProfilerStop",
            "cuptiRangeProfilerPushRange",
            "cuptiRangeProfilerPopRange",
            "cuptiRangeProfilerDecodeData",
            "cuptiRangeProfilerGetCounterDataInfo",
            "cuptiRangeProfilerCounterDataGetRangeInfo",
            "cuptiProfilerHostInitialize",
            "cuptiProfilerHostDeinitialize",
            "cuptiProfilerHostGetSupportedChips",
            "cuptiProfilerHostGetBaseMetrics",
            "cuptiProfilerHostGetSubMetrics",
            "cuptiProfilerHostGetMetricProperties",
            "cuptiProfilerHostConfigAddMetrics",
            "cuptiProfilerHostGetConfigImageSize",
            "cuptiProfilerHostGetConfigImage",
            "cuptiProfilerHostGetNumOfPasses",
            "cuptiProfilerHostEvaluateToGpuValues",
            "cuptiProfilerHostGetMaxNumHardwareMetricsPerPass",
        ]
    );
    // Nothing of the activity table is repeated.
    assert!(RangeProfilerApi::SYMBOLS.iter().all(|s| !CuptiApi::SYMBOLS.contains(s)));
}

#[test]
fn a_library_without_the_profiler_is_a_symbol_error() {
    // libc is always there and has none of CUPTI's functions.
    let libc = rocprofiler_sdk_sys::dylib::open_first("libc", &["libc.so.6"]).expect("libc");
    // SAFETY: resolution only looks symbols up; it fails before any could be called.
    match unsafe { RangeProfilerApi::resolve(&libc.library, &libc.name) } {
        Err(LoadError::MissingSymbol { library, symbol }) => {
            assert_eq!(library, "libc.so.6");
            assert_eq!(symbol, RangeProfilerApi::SYMBOLS[0]);
        }
        Err(other) => panic!("expected MissingSymbol, got {other}"),
        Ok(_) => panic!("libc resolved as CUPTI's range profiler"),
    }
}

/// With `ROCPROF_RS_CUPTI_LIBRARY` naming a libcupti (or one on the search path), the profiler
/// table resolves from the same file, and it is there from CUPTI 12.8 (API 26) on.
#[test]
fn cupti_loads_with_or_without_the_profiler_or_says_why() {
    let paths: Vec<std::path::PathBuf> =
        std::env::var_os("ROCPROF_RS_CUPTI_LIBRARY").map(Into::into).into_iter().collect();
    match Cupti::load(&paths) {
        Ok(cupti) => {
            if cupti.version() >= 26 {
                assert!(cupti.profiler.is_some(), "CUPTI API {} has the range profiler", cupti.version());
            }
            if let Some(profiler) = &cupti.profiler {
                let file = rocprofiler_sdk_sys::dylib::file_of(profiler.cuptiRangeProfilerEnable as usize);
                assert_eq!(file, cupti.path());
            }
        }
        Err(LoadError::LibraryNotFound { tried, .. }) => assert!(tried.iter().any(|n| n.starts_with("libcupti.so"))),
        Err(other) => panic!("unexpected error: {other}"),
    }
}
