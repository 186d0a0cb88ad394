//! Every CUPTI struct the checked declarations carry, against the layout gcc 12 gives the CUPTI
//! headers on x86_64 LP64: size, alignment, and the offset and size of every field. The numbers
//! are copied from gdb `ptype /o` dumps of `nvidia-cuda-cupti` 13.0.85 (`CUPTI_API_VERSION`
//! 130001) and, for `CUpti_ActivityKernel9` and the 12.9 variants, `nvidia-cuda-cupti-cu12`
//! 12.9.79 (API 28). `CUpti_SubscriberParams` is not in the dumps; its numbers follow from its
//! four 8-byte members (cupti_callbacks.h 13.0, and `CUpti_SubscriberParams_STRUCT_SIZE` 32).
//! Nothing is read from outside the crate.
//!
//! Union members are checked through their views (`objectId.pt.threadId`); C unions that the
//! declarations flatten to one field (`cacheConfig`, `resourceHandle`) are checked as that field.

#![allow(non_snake_case)]

use rocprofiler_sdk_sys::cupti::*;

mod common;

#[test]
fn kernel9() {
    common::check_layout!(CUpti_ActivityKernel9, size = 208, align = 8, {
        kind: (0, 4),
        cacheConfig: (4, 1),
        sharedMemoryConfig: (5, 1),
        registersPerThread: (6, 2),
        partitionedGlobalCacheRequested: (8, 4),
        partitionedGlobalCacheExecuted: (12, 4),
        start: (16, 8),
        end: (24, 8),
        completed: (32, 8),
        deviceId: (40, 4),
        contextId: (44, 4),
        streamId: (48, 4),
        gridX: (52, 4),
        gridY: (56, 4),
        gridZ: (60, 4),
        blockX: (64, 4),
        blockY: (68, 4),
        blockZ: (72, 4),
        staticSharedMemory: (76, 4),
        dynamicSharedMemory: (80, 4),
        localMemoryPerThread: (84, 4),
        localMemoryTotal: (88, 4),
        correlationId: (92, 4),
        gridId: (96, 8),
        name: (104, 8),
        reserved0: (112, 8),
        queued: (120, 8),
        submitted: (128, 8),
        launchType: (136, 1),
        isSharedMemoryCarveoutRequested: (137, 1),
        sharedMemoryCarveoutRequested: (138, 1),
        padding: (139, 1),
        sharedMemoryExecuted: (140, 4),
        graphNodeId: (144, 8),
        shmemLimitConfig: (152, 4),
        graphId: (156, 4),
        pAccessPolicyWindow: (160, 8),
        channelID: (168, 4),
        channelType: (172, 4),
        clusterX: (176, 4),
        clusterY: (180, 4),
        clusterZ: (184, 4),
        clusterSchedulingPolicy: (188, 4),
        localMemoryTotal_v2: (192, 8),
        maxPotentialClusterSize: (200, 4),
        maxActiveClusters: (204, 4),
    });
}

#[test]
fn kernel10() {
    common::check_layout!(CUpti_ActivityKernel10, size = 216, align = 8, {
        kind: (0, 4),
        cacheConfig: (4, 1),
        sharedMemoryConfig: (5, 1),
        registersPerThread: (6, 2),
        partitionedGlobalCacheRequested: (8, 4),
        partitionedGlobalCacheExecuted: (12, 4),
        start: (16, 8),
        end: (24, 8),
        completed: (32, 8),
        deviceId: (40, 4),
        contextId: (44, 4),
        streamId: (48, 4),
        gridX: (52, 4),
        gridY: (56, 4),
        gridZ: (60, 4),
        blockX: (64, 4),
        blockY: (68, 4),
        blockZ: (72, 4),
        staticSharedMemory: (76, 4),
        dynamicSharedMemory: (80, 4),
        localMemoryPerThread: (84, 4),
        localMemoryTotal: (88, 4),
        correlationId: (92, 4),
        gridId: (96, 8),
        name: (104, 8),
        reserved0: (112, 8),
        queued: (120, 8),
        submitted: (128, 8),
        launchType: (136, 1),
        isSharedMemoryCarveoutRequested: (137, 1),
        sharedMemoryCarveoutRequested: (138, 1),
        padding: (139, 1),
        sharedMemoryExecuted: (140, 4),
        graphNodeId: (144, 8),
        shmemLimitConfig: (152, 4),
        graphId: (156, 4),
        pAccessPolicyWindow: (160, 8),
        channelID: (168, 4),
        channelType: (172, 4),
        clusterX: (176, 4),
        clusterY: (180, 4),
        clusterZ: (184, 4),
        clusterSchedulingPolicy: (188, 4),
        localMemoryTotal_v2: (192, 8),
        maxPotentialClusterSize: (200, 4),
        maxActiveClusters: (204, 4),
        isDeviceLaunched: (208, 1),
        padding3: (209, 7),
    });
}

#[test]
fn memcpy6() {
    common::check_layout!(CUpti_ActivityMemcpy6, size = 96, align = 8, {
        kind: (0, 4),
        copyKind: (4, 1),
        srcKind: (5, 1),
        dstKind: (6, 1),
        flags: (7, 1),
        bytes: (8, 8),
        start: (16, 8),
        end: (24, 8),
        deviceId: (32, 4),
        contextId: (36, 4),
        streamId: (40, 4),
        correlationId: (44, 4),
        runtimeCorrelationId: (48, 4),
        pad: (52, 4),
        reserved0: (56, 8),
        graphNodeId: (64, 8),
        graphId: (72, 4),
        channelID: (76, 4),
        channelType: (80, 4),
        isDeviceLaunched: (84, 1),
        pad2: (85, 3),
        copyCount: (88, 8),
    });
}

#[test]
fn memcpy_ptop4() {
    common::check_layout!(CUpti_ActivityMemcpyPtoP4, size = 96, align = 8, {
        kind: (0, 4),
        copyKind: (4, 1),
        srcKind: (5, 1),
        dstKind: (6, 1),
        flags: (7, 1),
        bytes: (8, 8),
        start: (16, 8),
        end: (24, 8),
        deviceId: (32, 4),
        contextId: (36, 4),
        streamId: (40, 4),
        srcDeviceId: (44, 4),
        srcContextId: (48, 4),
        dstDeviceId: (52, 4),
        dstContextId: (56, 4),
        correlationId: (60, 4),
        reserved0: (64, 8),
        graphNodeId: (72, 8),
        graphId: (80, 4),
        channelID: (84, 4),
        channelType: (88, 4),
    });
}

#[test]
fn memset4() {
    common::check_layout!(CUpti_ActivityMemset4, size = 88, align = 8, {
        kind: (0, 4),
        value: (4, 4),
        bytes: (8, 8),
        start: (16, 8),
        end: (24, 8),
        deviceId: (32, 4),
        contextId: (36, 4),
        streamId: (40, 4),
        correlationId: (44, 4),
        flags: (48, 2),
        memoryKind: (50, 2),
        pad: (52, 4),
        reserved0: (56, 8),
        graphNodeId: (64, 8),
        graphId: (72, 4),
        channelID: (76, 4),
        channelType: (80, 4),
        isDeviceLaunched: (84, 1),
        pad2: (85, 3),
    });
}

#[test]
fn graph_trace2() {
    common::check_layout!(CUpti_ActivityGraphTrace2, size = 56, align = 8, {
        kind: (0, 4),
        correlationId: (4, 4),
        start: (8, 8),
        end: (16, 8),
        deviceId: (24, 4),
        graphId: (28, 4),
        contextId: (32, 4),
        streamId: (36, 4),
        reserved: (40, 8),
        endDeviceId: (48, 4),
        endContextId: (52, 4),
    });
}

#[test]
fn marker2() {
    common::check_layout!(CUpti_ActivityMarker2, size = 56, align = 8, {
        kind: (0, 4),
        flags: (4, 4),
        timestamp: (8, 8),
        id: (16, 4),
        objectKind: (20, 4),
        objectId: (24, 12),
        objectId.pt.processId: (24, 4),
        objectId.pt.threadId: (28, 4),
        objectId.dcs.deviceId: (24, 4),
        objectId.dcs.contextId: (28, 4),
        objectId.dcs.streamId: (32, 4),
        pad: (36, 4),
        name: (40, 8),
        domain: (48, 8),
    });
}

#[test]
fn device5() {
    common::check_layout!(CUpti_ActivityDevice5, size = 184, align = 8, {
        kind: (0, 4),
        flags: (4, 4),
        globalMemoryBandwidth: (8, 8),
        globalMemorySize: (16, 8),
        constantMemorySize: (24, 4),
        l2CacheSize: (28, 4),
        numThreadsPerWarp: (32, 4),
        coreClockRate: (36, 4),
        numMemcpyEngines: (40, 4),
        numMultiprocessors: (44, 4),
        maxIPC: (48, 4),
        maxWarpsPerMultiprocessor: (52, 4),
        maxBlocksPerMultiprocessor: (56, 4),
        maxSharedMemoryPerMultiprocessor: (60, 4),
        maxRegistersPerMultiprocessor: (64, 4),
        maxRegistersPerBlock: (68, 4),
        maxSharedMemoryPerBlock: (72, 4),
        maxThreadsPerBlock: (76, 4),
        maxBlockDimX: (80, 4),
        maxBlockDimY: (84, 4),
        maxBlockDimZ: (88, 4),
        maxGridDimX: (92, 4),
        maxGridDimY: (96, 4),
        maxGridDimZ: (100, 4),
        computeCapabilityMajor: (104, 4),
        computeCapabilityMinor: (108, 4),
        id: (112, 4),
        eccEnabled: (116, 4),
        uuid: (120, 16),
        name: (136, 8),
        isCudaVisible: (144, 1),
        isMigEnabled: (145, 1),
        reserved: (146, 6),
        gpuInstanceId: (152, 4),
        computeInstanceId: (156, 4),
        migUuid: (160, 16),
        isNumaNode: (176, 4),
        numaId: (180, 4),
    });
}

#[test]
fn api() {
    common::check_layout!(CUpti_ActivityAPI, size = 40, align = 8, {
        kind: (0, 4),
        cbid: (4, 4),
        start: (8, 8),
        end: (16, 8),
        processId: (24, 4),
        threadId: (28, 4),
        correlationId: (32, 4),
        returnValue: (36, 4),
    });
}

#[test]
fn callback_data() {
    common::check_layout!(CUpti_CallbackData, size = 72, align = 8, {
        callbackSite: (0, 4),
        functionName: (8, 8),
        functionParams: (16, 8),
        functionReturnValue: (24, 8),
        symbolName: (32, 8),
        context: (40, 8),
        contextUid: (48, 4),
        correlationData: (56, 8),
        correlationId: (64, 4),
    });
}

#[test]
fn resource_data() {
    common::check_layout!(CUpti_ResourceData, size = 24, align = 8, {
        context: (0, 8),
        resourceHandle: (8, 8),
        resourceDescriptor: (16, 8),
    });
}

#[test]
fn subscriber_params() {
    common::check_layout!(CUpti_SubscriberParams, size = 32, align = 8, {
        structSize: (0, 8),
        subscriberName: (8, 8),
        oldSubscriberName: (16, 8),
        oldSubscriberSize: (24, 8),
    });
    assert_eq!(CUpti_SubscriberParams_STRUCT_SIZE, 32);
}

/// CUPTI 12.9 (API 28) writes the same `Memcpy6` and `Memset4` sizes and offsets as 13.0 except
/// at 84, where 12.9 has `uint32_t pad2` and 13.0 has `uint8_t isDeviceLaunched` + `pad2[3]`.
#[test]
fn memcpy6_and_memset4_match_cupti_12_9_outside_offset_84() {
    use std::mem::offset_of;

    assert_eq!(std::mem::size_of::<CUpti_ActivityMemcpy6>(), 96, "sizeof(Memcpy6) in 12.9");
    assert_eq!(offset_of!(CUpti_ActivityMemcpy6, channelType), 80);
    assert_eq!(offset_of!(CUpti_ActivityMemcpy6, isDeviceLaunched), 84);
    assert_eq!(offset_of!(CUpti_ActivityMemcpy6, copyCount), 88);
    assert_eq!(offset_of!(CUpti_ActivityMemcpy6, isDeviceLaunched) + 1 + 3, 88, "12.9 pad2: (84, 4)");

    assert_eq!(std::mem::size_of::<CUpti_ActivityMemset4>(), 88, "sizeof(Memset4) in 12.9");
    assert_eq!(offset_of!(CUpti_ActivityMemset4, channelType), 80);
    assert_eq!(offset_of!(CUpti_ActivityMemset4, isDeviceLaunched), 84);
    assert_eq!(offset_of!(CUpti_ActivityMemset4, isDeviceLaunched) + 1 + 3, 88, "12.9 pad2: (84, 4)");
}

/// The decoder reads one prefix for every kernel struct: Kernel10's offsets up to
/// `maxActiveClusters` are Kernel9's.
#[test]
fn kernel10_extends_kernel9() {
    use std::mem::offset_of;

    macro_rules! same {
        ($($field:ident),* $(,)?) => {
            $(assert_eq!(
                offset_of!(CUpti_ActivityKernel9, $field),
                offset_of!(CUpti_ActivityKernel10, $field),
                stringify!($field)
            );)*
        };
    }
    same! {
        kind, cacheConfig, registersPerThread, start, end, deviceId, contextId, streamId, gridX, gridY, gridZ, blockX,
        blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, correlationId, gridId, name,
        launchType, graphNodeId, graphId, clusterX, clusterY, clusterZ, localMemoryTotal_v2, maxPotentialClusterSize,
        maxActiveClusters,
    }
    assert_eq!(std::mem::size_of::<CUpti_ActivityKernel9>(), offset_of!(CUpti_ActivityKernel10, isDeviceLaunched));
}

#[test]
fn result_codes() {
    assert_eq!(CUPTI_SUCCESS, 0);
    assert_eq!(CUPTI_ERROR_INVALID_PARAMETER, 1);
    assert_eq!(CUPTI_ERROR_MAX_LIMIT_REACHED, 12);
    assert_eq!(CUPTI_ERROR_NOT_COMPATIBLE, 14);
    assert_eq!(CUPTI_ERROR_NOT_INITIALIZED, 15);
    assert_eq!(CUPTI_ERROR_INVALID_KIND, 21);
    assert_eq!(CUPTI_ERROR_NOT_SUPPORTED, 27);
    assert_eq!(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, 35);
    assert_eq!(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, 39);
    assert_eq!(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES, 40);
    assert_eq!(CUPTI_ERROR_UNKNOWN, 999);
}

#[test]
fn activity_constants() {
    assert_eq!(CUPTI_ACTIVITY_KIND_MEMCPY, 1);
    assert_eq!(CUPTI_ACTIVITY_KIND_MEMSET, 2);
    assert_eq!(CUPTI_ACTIVITY_KIND_KERNEL, 3);
    assert_eq!(CUPTI_ACTIVITY_KIND_DRIVER, 4);
    assert_eq!(CUPTI_ACTIVITY_KIND_RUNTIME, 5);
    assert_eq!(CUPTI_ACTIVITY_KIND_DEVICE, 8);
    assert_eq!(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 10);
    assert_eq!(CUPTI_ACTIVITY_KIND_MARKER, 12);
    assert_eq!(CUPTI_ACTIVITY_KIND_MEMCPY2, 22);

    assert_eq!(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, 0);
    assert_eq!(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, 2);
    assert_eq!(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, 5);
    assert_eq!(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, 6);
    assert_eq!(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, 8);
    assert_eq!(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, 9);
    assert_eq!(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS, 10);

    assert_eq!(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, 1);
    assert_eq!(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1);
    assert_eq!(CUPTI_ACTIVITY_FLAG_MARKER_START, 2);
    assert_eq!(CUPTI_ACTIVITY_FLAG_MARKER_END, 4);
    assert_eq!(CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC, 1);
    assert_eq!(CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC, 1);
    assert_eq!(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM, 1);
    assert_eq!(CUPTI_TIMESTAMP_UNKNOWN, 0);
}

#[test]
fn callback_constants() {
    assert_eq!(CUPTI_CB_DOMAIN_DRIVER_API, 1);
    assert_eq!(CUPTI_CB_DOMAIN_RUNTIME_API, 2);
    assert_eq!(CUPTI_CB_DOMAIN_RESOURCE, 3);
    assert_eq!(CUPTI_CB_DOMAIN_NVTX, 5);
    assert_eq!(CUPTI_CB_DOMAIN_STATE, 6);
    assert_eq!(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, 1);
    assert_eq!(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, 2);
    assert_eq!(CUPTI_API_ENTER, 0);
    assert_eq!(CUPTI_API_EXIT, 1);
    assert_eq!(CUPTI_SUBSCRIBER_NAME_MAX_LEN, 53);
    assert_eq!(CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN, 64);
}

#[test]
fn launch_cbids() {
    assert_eq!(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, 164);
    assert_eq!(
        RUNTIME_LAUNCH_CBIDS,
        &[
            (211, "cudaLaunchKernel"),
            (214, "cudaLaunchKernel_ptsz"),
            (430, "cudaLaunchKernelExC"),
            (431, "cudaLaunchKernelExC_ptsz"),
            (269, "cudaLaunchCooperativeKernel"),
            (270, "cudaLaunchCooperativeKernel_ptsz"),
            (311, "cudaGraphLaunch"),
            (312, "cudaGraphLaunch_ptsz"),
            (505, "__cudaLaunchKernel"),
            (506, "__cudaLaunchKernel_ptsz"),
        ]
    );
    assert_eq!(
        DRIVER_LAUNCH_CBIDS,
        &[
            (307, "cuLaunchKernel"),
            (442, "cuLaunchKernel_ptsz"),
            (652, "cuLaunchKernelEx"),
            (653, "cuLaunchKernelEx_ptsz"),
            (477, "cuLaunchCooperativeKernel"),
            (478, "cuLaunchCooperativeKernel_ptsz"),
            (514, "cuGraphLaunch"),
            (515, "cuGraphLaunch_ptsz"),
        ]
    );
}
