//! The PC Sampling API: per-context sampling switched on and configured, its buffers drained,
//! and the two questions asked of a module's cubin (its CRC, the source line of an offset).

use std::ffi::{CStr, c_char, c_void};

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti, PcSamplingApi};

use super::{Context, Failed, result};

/// The API's table, or why the library has none.
pub fn api(cupti: &Cupti) -> Option<&PcSamplingApi> {
    cupti.pc_sampling.as_ref()
}

fn context_params(context: Context) -> sys::CUpti_PCSamplingContextParams {
    sys::CUpti_PCSamplingContextParams {
        size: sys::CUpti_PCSamplingContextParamsSize,
        pPriv: std::ptr::null_mut(),
        ctx: context.raw(),
    }
}

/// Turns sampling on for `context`: from then on CUPTI collects for every kernel it runs.
pub fn enable(cupti: &Cupti, api: &PcSamplingApi, context: Context) -> Result<(), Failed> {
    let mut params = context_params(context);
    // SAFETY: a params struct of the size it declares, for a live context.
    let rc = unsafe { (api.cuptiPCSamplingEnable)(&mut params) };
    result(cupti, "cuptiPCSamplingEnable", rc)
}

/// Turns sampling off for `context`; CUPTI writes what it still holds into the context's
/// configured data buffer.
pub fn disable(cupti: &Cupti, api: &PcSamplingApi, context: Context) -> Result<(), Failed> {
    let mut params = context_params(context);
    // SAFETY: as in `enable`.
    let rc = unsafe { (api.cuptiPCSamplingDisable)(&mut params) };
    result(cupti, "cuptiPCSamplingDisable", rc)
}

/// The stall reasons `context`'s device samples: CUPTI's index and name of each.
pub fn stall_reasons(cupti: &Cupti, api: &PcSamplingApi, context: Context) -> Result<Vec<(u32, String)>, Failed> {
    let mut count = 0usize;
    let mut params = sys::CUpti_PCSamplingGetNumStallReasonsParams {
        size: sys::CUpti_PCSamplingGetNumStallReasonsParamsSize,
        pPriv: std::ptr::null_mut(),
        ctx: context.raw(),
        numStallReasons: &mut count,
    };
    // SAFETY: a params struct of the size it declares, with a valid out-pointer.
    let rc = unsafe { (api.cuptiPCSamplingGetNumStallReasons)(&mut params) };
    result(cupti, "cuptiPCSamplingGetNumStallReasons", rc)?;
    // More than any device has (40 on Hopper): a larger count is not to be believed.
    let count = count.min(1024);
    let mut indices = vec![0u32; count];
    let mut names = vec![[0 as c_char; sys::CUPTI_STALL_REASON_STRING_SIZE]; count];
    let mut pointers: Vec<*mut c_char> = names.iter_mut().map(|n| n.as_mut_ptr()).collect();
    let mut params = sys::CUpti_PCSamplingGetStallReasonsParams {
        size: sys::CUpti_PCSamplingGetStallReasonsParamsSize,
        pPriv: std::ptr::null_mut(),
        ctx: context.raw(),
        numStallReasons: count,
        stallReasonIndex: indices.as_mut_ptr(),
        stallReasons: pointers.as_mut_ptr(),
    };
    // SAFETY: `count` indices and `count` name buffers of the size the header asks for.
    let rc = unsafe { (api.cuptiPCSamplingGetStallReasons)(&mut params) };
    result(cupti, "cuptiPCSamplingGetStallReasons", rc)?;
    Ok(indices
        .into_iter()
        .zip(names.iter_mut())
        .map(|(index, name)| {
            name[sys::CUPTI_STALL_REASON_STRING_SIZE - 1] = 0;
            // SAFETY: NUL-terminated: its last byte was just forced to 0.
            (index, unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy().into_owned())
        })
        .collect())
}

/// Sets `attributes` on `context`, which must have sampling enabled. Pointers inside them
/// (stall reason indices, the data buffer) must outlive the context's sampling.
pub fn configure(
    cupti: &Cupti,
    api: &PcSamplingApi,
    context: Context,
    attributes: &mut [sys::CUpti_PCSamplingConfigurationInfo],
) -> Result<(), Failed> {
    let mut params = sys::CUpti_PCSamplingConfigurationInfoParams {
        size: sys::CUpti_PCSamplingConfigurationInfoParamsSize,
        pPriv: std::ptr::null_mut(),
        ctx: context.raw(),
        numAttributes: attributes.len(),
        pPCSamplingConfigurationInfo: attributes.as_mut_ptr(),
    };
    // SAFETY: a params struct of the size it declares and `attributes.len()` attributes.
    let rc = unsafe { (api.cuptiPCSamplingSetConfigurationAttribute)(&mut params) };
    result(cupti, "cuptiPCSamplingSetConfigurationAttribute", rc)
}

/// Moves what CUPTI holds for `context` into `data`; `Err` with
/// [`sys::CUPTI_ERROR_OUT_OF_MEMORY`] where the hardware buffer filled (the data then says
/// `hardwareBufferFull`).
///
/// # Safety
/// `data` is a `CUpti_PCSamplingData` whose `pPcData` holds `collectNumPcs` records, each with
/// room for `stallReasonCount` reasons.
pub unsafe fn get_data(
    cupti: &Cupti,
    api: &PcSamplingApi,
    context: Context,
    data: *mut sys::CUpti_PCSamplingData,
) -> Result<(), Failed> {
    let mut params = sys::CUpti_PCSamplingGetDataParams {
        size: sys::CUpti_PCSamplingGetDataParamsSize,
        pPriv: std::ptr::null_mut(),
        ctx: context.raw(),
        pcSamplingData: data.cast::<c_void>(),
    };
    // SAFETY: a params struct of the size it declares; the caller vouches for the buffer.
    let rc = unsafe { (api.cuptiPCSamplingGetData)(&mut params) };
    result(cupti, "cuptiPCSamplingGetData", rc)
}

/// The CRC CUPTI names `cubin` by in its PC records.
pub fn cubin_crc(cupti: &Cupti, api: &PcSamplingApi, cubin: &[u8]) -> Result<u64, Failed> {
    let mut params = sys::CUpti_GetCubinCrcParams {
        size: sys::CUpti_GetCubinCrcParamsSize,
        cubinSize: cubin.len(),
        cubin: cubin.as_ptr().cast(),
        cubinCrc: 0,
    };
    // SAFETY: a params struct of the size it declares over a live byte slice.
    let rc = unsafe { (api.cuptiGetCubinCrc)(&mut params) };
    result(cupti, "cuptiGetCubinCrc", rc).map(|()| params.cubinCrc)
}

/// Where in the source an instruction came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// The directory and file joined, as the line table names them.
    pub file: String,
    pub line: u32,
}

/// The source line of the instruction at `pc_offset` of `function` in `cubin`; `None` where
/// the cubin carries no line table (built without `-lineinfo` or `-G`) or CUPTI would not say.
pub fn source_line(api: &PcSamplingApi, cubin: &[u8], function: &CStr, pc_offset: u64) -> Option<SourceLine> {
    let mut params = sys::CUpti_GetSassToSourceCorrelationParams {
        size: sys::CUpti_GetSassToSourceCorrelationParamsSize,
        cubin: cubin.as_ptr().cast(),
        functionName: function.as_ptr(),
        cubinSize: cubin.len(),
        lineNumber: 0,
        pcOffset: pc_offset,
        fileName: std::ptr::null_mut(),
        dirName: std::ptr::null_mut(),
    };
    // SAFETY: a params struct of the size it declares, over a live cubin and name.
    let rc = unsafe { (api.cuptiGetSassToSourceCorrelation)(&mut params) };
    // SAFETY: CUPTI allocates both names with malloc and leaves the caller to free them.
    let file = unsafe { take_malloced(params.fileName) };
    // SAFETY: as above.
    let dir = unsafe { take_malloced(params.dirName) };
    if rc != sys::CUPTI_SUCCESS || params.lineNumber == 0 {
        return None;
    }
    let file = file.filter(|f| !f.is_empty())?;
    let file = match dir.filter(|d| !d.is_empty() && !file.starts_with('/')) {
        Some(dir) => format!("{}/{file}", dir.trim_end_matches('/')),
        None => file,
    };
    Some(SourceLine { file, line: params.lineNumber })
}

/// The text of a string CUPTI allocated with malloc, which is then freed.
///
/// # Safety
/// `text` is null or a NUL-terminated string from malloc that nothing else frees.
unsafe fn take_malloced(text: *mut c_char) -> Option<String> {
    if text.is_null() {
        return None;
    }
    // SAFETY: NUL-terminated, as the caller vouches.
    let owned = unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned();
    // SAFETY: from malloc, freed once, here.
    unsafe { libc::free(text.cast()) };
    Some(owned)
}
