//! The PC Sampling API's declarations against CUPTI 13.0's `cupti_pcsampling.h` and
//! `cupti_callbacks.h`, as gcc lays them out on x86_64 (offsets taken from the header with
//! `offsetof`; the header is not committed).

use std::mem::{offset_of, size_of};

use rocprofiler_sdk_sys::cupti::*;

#[test]
fn pc_data_is_laid_out_as_the_packed_aligned_header_struct() {
    type P = CUpti_PCSamplingPCData;
    assert_eq!(size_of::<CUpti_PCSamplingStallReason>(), 8);
    assert_eq!(std::mem::align_of::<CUpti_PCSamplingStallReason>(), 8);
    assert_eq!(size_of::<P>(), 64);
    let offsets = [
        offset_of!(P, cubinCrc),
        offset_of!(P, pcOffset),
        offset_of!(P, functionIndex),
        offset_of!(P, functionName),
        offset_of!(P, stallReasonCount),
        offset_of!(P, stallReason),
        offset_of!(P, correlationId),
    ];
    assert_eq!(offsets, [8, 16, 24, 32, 40, 48, 56]);
}

#[test]
fn sampling_data_is_laid_out_as_the_header_struct() {
    type D = CUpti_PCSamplingData;
    assert_eq!(size_of::<D>(), 80);
    let offsets = [
        offset_of!(D, totalSamples),
        offset_of!(D, droppedSamples),
        offset_of!(D, totalNumPcs),
        offset_of!(D, remainingNumPcs),
        offset_of!(D, rangeId),
        offset_of!(D, pPcData),
        offset_of!(D, nonUsrKernelsTotalSamples),
        offset_of!(D, hardwareBufferFull),
    ];
    assert_eq!(offsets, [16, 24, 32, 40, 48, 56, 64, 72]);
}

#[test]
fn configuration_info_holds_its_union_in_three_words() {
    type C = CUpti_PCSamplingConfigurationInfo;
    assert_eq!(size_of::<C>(), 32);
    assert_eq!((offset_of!(C, attributeStatus), offset_of!(C, attributeData)), (4, 8));
}

#[test]
fn params_sizes_are_the_headers_struct_size_macro() {
    assert_eq!(CUpti_PCSamplingConfigurationInfoParamsSize, 40);
    assert_eq!(CUpti_PCSamplingGetDataParamsSize, 32);
    assert_eq!(CUpti_PCSamplingContextParamsSize, 24);
    assert_eq!(CUpti_PCSamplingGetNumStallReasonsParamsSize, 32);
    assert_eq!(CUpti_PCSamplingGetStallReasonsParamsSize, 48);
    assert_eq!(CUpti_GetSassToSourceCorrelationParamsSize, 64);
    assert_eq!(CUpti_GetCubinCrcParamsSize, 32);
    type S = CUpti_GetSassToSourceCorrelationParams;
    assert_eq!((offset_of!(S, lineNumber), offset_of!(S, pcOffset), offset_of!(S, fileName)), (32, 40, 48));
}

#[test]
fn module_resource_data_is_laid_out_as_the_header_struct() {
    type M = CUpti_ModuleResourceData;
    assert_eq!(size_of::<M>(), 24);
    assert_eq!((offset_of!(M, cubinSize), offset_of!(M, pCubin)), (8, 16));
}

#[test]
fn every_pc_sampling_symbol_is_declared() {
    assert_eq!(PcSamplingApi::SYMBOLS.len(), 8);
    assert!(PcSamplingApi::SYMBOLS.contains(&"cuptiPCSamplingGetData"));
}
