//! CUPTI's PC Sampling API (`cupti_pcsampling.h`, CUDA 11.3 and later): per-context sampling of
//! warp program counters with their stall reasons, the NVIDIA half of the `pc_sample` table.
//! Declared by hand from CUPTI 13.0's header and resolved at run time, symbol by symbol, from
//! the libcupti [`Cupti`](super::Cupti) opened, as [`Cupti::pc_sampling`](super::Cupti).
//!
//! - **Layouts.** The header marks the data structs `PACKED_ALIGNMENT` (packed, then aligned to
//!   8). Every field of theirs already sits at its natural alignment, so packing changes no
//!   offset and `#[repr(C)]` lays them out the same; `sys/tests/cupti_pc_sampling_layout.rs`
//!   pins every size and offset (`CUpti_PCSamplingPCData` 64 B, `CUpti_PCSamplingData` 80 B).
//! - **Calls.** Every function takes one params struct whose `size` is the header's
//!   `CUPTI_PCSAMPLING_STRUCT_SIZE(type, last field)`; `pPriv` stays null.
//! - **Ownership.** `CUpti_PCSamplingPCData::functionName` is allocated by CUPTI with `malloc`
//!   and may be shared by several records, of this call and later ones: the client frees each
//!   distinct pointer once, after the last record naming it.
//! - **A full hardware buffer** makes `cuptiPCSamplingGetData` return
//!   `CUPTI_ERROR_OUT_OF_MEMORY` (declared with the range profiler's results).

use std::ffi::{c_char, c_void};

use super::CUptiResult;
use crate::dylib::dynamic_api;

/// `CUPTI_PCSAMPLING_STRUCT_SIZE(type_, lastfield_)`.
macro_rules! pc_struct_size {
    ($ty:ty, $last:ident) => {
        core::mem::offset_of!($ty, $last) + crate::cupti::profiler::field_size(|s: &$ty| &s.$last)
    };
}

/// `CUPTI_STALL_REASON_STRING_SIZE`: the bytes of each stall reason name's buffer.
pub const CUPTI_STALL_REASON_STRING_SIZE: usize = 128;

// `CUpti_PCSamplingCollectionMode`.
pub const CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS: u32 = 1;
pub const CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED: u32 = 2;

// `CUpti_PCSamplingOutputDataFormat`.
pub const CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED: u32 = 1;

// `CUpti_PCSamplingConfigurationAttributeType`.
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD: u32 = 1;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON: u32 = 2;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE: u32 = 3;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE: u32 = 4;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE: u32 = 5;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL: u32 = 6;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT: u32 = 7;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER: u32 = 8;
pub const CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN: u32 = 9;

/// The smallest and largest `samplingPeriod`: the period is `2^samplingPeriod` SM cycles.
pub const CUPTI_PC_SAMPLING_PERIOD_MIN: u32 = 5;
pub const CUPTI_PC_SAMPLING_PERIOD_MAX: u32 = 31;

/// `CUPTI_CBID_RESOURCE_MODULE_LOADED`: `resourceDescriptor` is a [`CUpti_ModuleResourceData`].
pub const CUPTI_CBID_RESOURCE_MODULE_LOADED: u32 = 6;
pub const CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING: u32 = 7;

/// `CUpti_ModuleResourceData` (24 B): the module a MODULE_* resource callback is about.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_ModuleResourceData {
    pub moduleId: u32,
    pub cubinSize: usize,
    pub pCubin: *const c_char,
}

/// `CUpti_PCSamplingStallReason` (8 B, aligned to 8 as the header's `PACKED_ALIGNMENT` asks).
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy, Default)]
pub struct CUpti_PCSamplingStallReason {
    pub pcSamplingStallReasonIndex: u32,
    pub samples: u32,
}

/// `CUpti_PCSamplingPCData` (64 B): one PC and its samples per stall reason.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_PCSamplingPCData {
    pub size: usize,
    pub cubinCrc: u64,
    /// From the start of the function.
    pub pcOffset: u64,
    pub functionIndex: u32,
    pub pad: u32,
    pub functionName: *mut c_char,
    /// In: the capacity of `stallReason`; out: the entries filled.
    pub stallReasonCount: usize,
    pub stallReason: *mut CUpti_PCSamplingStallReason,
    /// 0 in continuous mode.
    pub correlationId: u32,
}

/// `CUpti_PCSamplingData` (80 B): a buffer of PC records and what the hardware counted.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_PCSamplingData {
    pub size: usize,
    pub collectNumPcs: usize,
    pub totalSamples: u64,
    pub droppedSamples: u64,
    pub totalNumPcs: usize,
    pub remainingNumPcs: usize,
    pub rangeId: u64,
    pub pPcData: *mut CUpti_PCSamplingPCData,
    pub nonUsrKernelsTotalSamples: u64,
    pub hardwareBufferFull: u8,
}

/// `CUpti_PCSamplingConfigurationInfo` (32 B): one attribute; `attributeData` is the header's
/// union, of which every member fits the first of these three words.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct CUpti_PCSamplingConfigurationInfo {
    pub attributeType: u32,
    pub attributeStatus: CUptiResult,
    pub attributeData: [u64; 3],
}

/// `CUpti_PCSamplingConfigurationInfoParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_PCSamplingConfigurationInfoParams {
    pub size: usize,
    pub pPriv: *mut c_void,
    pub ctx: *mut c_void,
    pub numAttributes: usize,
    pub pPCSamplingConfigurationInfo: *mut CUpti_PCSamplingConfigurationInfo,
}
pub const CUpti_PCSamplingConfigurationInfoParamsSize: usize =
    pc_struct_size!(CUpti_PCSamplingConfigurationInfoParams, pPCSamplingConfigurationInfo);

/// `CUpti_PCSamplingGetDataParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_PCSamplingGetDataParams {
    pub size: usize,
    pub pPriv: *mut c_void,
    pub ctx: *mut c_void,
    pub pcSamplingData: *mut c_void,
}
pub const CUpti_PCSamplingGetDataParamsSize: usize = pc_struct_size!(CUpti_PCSamplingGetDataParams, pcSamplingData);

/// `CUpti_PCSamplingEnableParams`, `CUpti_PCSamplingDisableParams`, `..StartParams` and
/// `..StopParams`: the same three fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_PCSamplingContextParams {
    pub size: usize,
    pub pPriv: *mut c_void,
    pub ctx: *mut c_void,
}
pub const CUpti_PCSamplingContextParamsSize: usize = pc_struct_size!(CUpti_PCSamplingContextParams, ctx);

/// `CUpti_PCSamplingGetNumStallReasonsParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_PCSamplingGetNumStallReasonsParams {
    pub size: usize,
    pub pPriv: *mut c_void,
    pub ctx: *mut c_void,
    pub numStallReasons: *mut usize,
}
pub const CUpti_PCSamplingGetNumStallReasonsParamsSize: usize =
    pc_struct_size!(CUpti_PCSamplingGetNumStallReasonsParams, numStallReasons);

/// `CUpti_PCSamplingGetStallReasonsParams`: `stallReasons` points at `numStallReasons`
/// buffers of [`CUPTI_STALL_REASON_STRING_SIZE`] bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_PCSamplingGetStallReasonsParams {
    pub size: usize,
    pub pPriv: *mut c_void,
    pub ctx: *mut c_void,
    pub numStallReasons: usize,
    pub stallReasonIndex: *mut u32,
    pub stallReasons: *mut *mut c_char,
}
pub const CUpti_PCSamplingGetStallReasonsParamsSize: usize =
    pc_struct_size!(CUpti_PCSamplingGetStallReasonsParams, stallReasons);

/// `CUpti_GetSassToSourceCorrelationParams`: `fileName` and `dirName` come back `malloc`ed,
/// for the caller to free.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_GetSassToSourceCorrelationParams {
    pub size: usize,
    pub cubin: *const c_void,
    pub functionName: *const c_char,
    pub cubinSize: usize,
    pub lineNumber: u32,
    pub pcOffset: u64,
    pub fileName: *mut c_char,
    pub dirName: *mut c_char,
}
pub const CUpti_GetSassToSourceCorrelationParamsSize: usize =
    pc_struct_size!(CUpti_GetSassToSourceCorrelationParams, dirName);

/// `CUpti_GetCubinCrcParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUpti_GetCubinCrcParams {
    pub size: usize,
    pub cubinSize: usize,
    pub cubin: *const c_void,
    pub cubinCrc: u64,
}
pub const CUpti_GetCubinCrcParamsSize: usize = pc_struct_size!(CUpti_GetCubinCrcParams, cubinCrc);

dynamic_api! {
    /// The PC Sampling API's functions (every CUPTI since 11.3).
    pub struct PcSamplingApi;
    check = any(), unused;

    fn cuptiPCSamplingEnable(params: *mut CUpti_PCSamplingContextParams) -> CUptiResult;
    fn cuptiPCSamplingDisable(params: *mut CUpti_PCSamplingContextParams) -> CUptiResult;
    fn cuptiPCSamplingSetConfigurationAttribute(params: *mut CUpti_PCSamplingConfigurationInfoParams) -> CUptiResult;
    fn cuptiPCSamplingGetData(params: *mut CUpti_PCSamplingGetDataParams) -> CUptiResult;
    fn cuptiPCSamplingGetNumStallReasons(params: *mut CUpti_PCSamplingGetNumStallReasonsParams) -> CUptiResult;
    fn cuptiPCSamplingGetStallReasons(params: *mut CUpti_PCSamplingGetStallReasonsParams) -> CUptiResult;
    fn cuptiGetSassToSourceCorrelation(params: *mut CUpti_GetSassToSourceCorrelationParams) -> CUptiResult;
    fn cuptiGetCubinCrc(params: *mut CUpti_GetCubinCrcParams) -> CUptiResult;
}
