//! The Activity API: which kinds are recorded, the buffers records go into, the clock and
//! thread ids they carry, and the flushes that hand them over.

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::{Context, Failed, result};

/// Thread ids become the OS's (`gettid()`), as the AMD tables' are.
pub fn use_system_thread_ids(cupti: &Cupti) -> Result<(), Failed> {
    // SAFETY: a plain enum argument.
    let rc = unsafe { (cupti.api().cuptiSetThreadIdType)(sys::CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) };
    result(cupti, "cuptiSetThreadIdType", rc)
}

/// Stamps records with `clock`.
///
/// # Safety
/// Once per process, before any kind is enabled (re-registering later corrupts records);
/// `clock` does not unwind.
pub unsafe fn register_timestamp_callback(cupti: &Cupti, clock: unsafe extern "C" fn() -> u64) -> Result<(), Failed> {
    // SAFETY: a function of the declared signature, at the moment the caller vouches for.
    let rc = unsafe { (cupti.api().cuptiActivityRegisterTimestampCallback)(Some(clock)) };
    result(cupti, "cuptiActivityRegisterTimestampCallback", rc)
}

/// Records go into buffers `requested` hands out; `completed` receives each full one.
///
/// # Safety
/// Both follow CUPTI's buffer contract (a requested buffer stays valid until it comes back
/// completed) and do not unwind.
pub unsafe fn register_buffer_callbacks(
    cupti: &Cupti,
    requested: unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize),
    completed: unsafe extern "C" fn(*mut std::ffi::c_void, u32, *mut u8, usize, usize),
) -> Result<(), Failed> {
    // SAFETY: two functions of the declared signatures, which the caller vouches for.
    let rc = unsafe { (cupti.api().cuptiActivityRegisterCallbacks)(Some(requested), Some(completed)) };
    result(cupti, "cuptiActivityRegisterCallbacks", rc)
}

/// Starts recording activity `kind` (`CUPTI_ACTIVITY_KIND_*`).
pub fn enable(cupti: &Cupti, kind: u32) -> Result<(), Failed> {
    // SAFETY: a plain enum argument; CUPTI refuses a kind it does not know.
    result(cupti, "cuptiActivityEnable", unsafe { (cupti.api().cuptiActivityEnable)(kind) })
}

/// Stops recording activity `kind`.
pub fn disable(cupti: &Cupti, kind: u32) -> Result<(), Failed> {
    // SAFETY: as above.
    result(cupti, "cuptiActivityDisable", unsafe { (cupti.api().cuptiActivityDisable)(kind) })
}

/// Hands every buffer with records to the completion callback; `forced` also those still being
/// written. CUPTI deadlocks when this is called concurrently: callers serialise it.
pub fn flush_all(cupti: &Cupti, forced: bool) -> Result<(), Failed> {
    let flag = if forced { sys::CUPTI_ACTIVITY_FLAG_FLUSH_FORCED } else { 0 };
    // SAFETY: a plain flag.
    result(cupti, "cuptiActivityFlushAll", unsafe { (cupti.api().cuptiActivityFlushAll)(flag) })
}

/// Records CUPTI dropped in the whole process so far.
pub fn dropped_records(cupti: &Cupti) -> Result<usize, Failed> {
    let mut dropped = 0usize;
    // SAFETY: a valid out-pointer; a null context and stream 0 ask for the whole process.
    let rc = unsafe { (cupti.api().cuptiActivityGetNumDroppedRecords)(std::ptr::null_mut(), 0, &mut dropped) };
    result(cupti, "cuptiActivityGetNumDroppedRecords", rc).map(|()| dropped)
}

/// Where each record of a completed buffer starts, as CUPTI itself walks it: it alone knows its
/// release's record sizes.
///
/// # Safety
/// `buffer` is a buffer CUPTI completed, with `valid` bytes of records, still ours.
pub unsafe fn record_offsets(cupti: &Cupti, buffer: *mut u8, valid: usize) -> Vec<usize> {
    let mut offsets = Vec::new();
    let mut record: *mut u32 = std::ptr::null_mut();
    loop {
        // SAFETY: the buffer CUPTI completed, its valid length, and the cursor CUPTI advances.
        let rc = unsafe { (cupti.api().cuptiActivityGetNextRecord)(buffer, valid, &mut record) };
        if rc != sys::CUPTI_SUCCESS || record.is_null() {
            break;
        }
        let at = (record as usize).wrapping_sub(buffer as usize);
        if at >= valid {
            break;
        }
        offsets.push(at);
    }
    offsets
}

/// The CUDA device of `context`.
pub fn device_of(cupti: &Cupti, context: Context) -> Result<u32, Failed> {
    let mut device = 0u32;
    // SAFETY: a context CUPTI reported, alive (the handle's promise), and a valid out-pointer.
    let rc = unsafe { (cupti.api().cuptiGetDeviceId)(context.raw(), &mut device) };
    result(cupti, "cuptiGetDeviceId", rc).map(|()| device)
}
