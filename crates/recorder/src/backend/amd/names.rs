//! Operation names, from the SDK's own iteration and name queries: an SDK newer than this
//! build names its new operations correctly, and no operation id is hard-coded here.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::Arc;

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use crate::pipeline::records::MARKER_RANGE_KIND;
use crate::pipeline::rows::OperationNames;

/// Every operation name of the buffer-tracing `kinds` and of the ROCTx range callbacks.
pub fn operation_names(api: &SdkApi, kinds: &[u32]) -> OperationNames {
    let mut names = OperationNames::new();
    for &kind in kinds {
        for op in operations(api, kind, false) {
            if let Some(name) = name(api, kind, op, false) {
                names.insert((kind, op), name);
            }
        }
    }
    let range = sys::ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API;
    for op in operations(api, range, true) {
        if let Some(name) = name(api, range, op, true) {
            names.insert((MARKER_RANGE_KIND, op), name);
        }
    }
    names
}

// One commented block per FFI call sequence reads better than one per pointer operation.
#[allow(clippy::multiple_unsafe_ops_per_block)]
fn operations(api: &SdkApi, kind: u32, callback: bool) -> Vec<i32> {
    unsafe extern "C" fn visit(_kind: u32, op: i32, data: *mut c_void) -> c_int {
        // Zero continues the iteration; the SDK stops at the first non-zero.
        crate::lifecycle::trampoline("the operation iteration", 1, || {
            // SAFETY: `data` is the Vec below, alive for the iteration.
            unsafe { (*data.cast::<Vec<i32>>()).push(op) };
            0
        })
    }
    let mut ops: Vec<i32> = Vec::new();
    let data = (&mut ops as *mut Vec<i32>).cast::<c_void>();
    // SAFETY: a valid visitor and data pointer that outlive the call.
    unsafe {
        if callback {
            (api.rocprofiler_iterate_callback_tracing_kind_operations)(kind, Some(visit), data);
        } else {
            (api.rocprofiler_iterate_buffer_tracing_kind_operations)(kind, Some(visit), data);
        }
    }
    ops
}

#[allow(clippy::multiple_unsafe_ops_per_block)]
fn name(api: &SdkApi, kind: u32, op: i32, callback: bool) -> Option<Arc<str>> {
    let mut ptr: *const c_char = std::ptr::null();
    // SAFETY: valid output pointers; the length output is optional.
    let status = unsafe {
        if callback {
            (api.rocprofiler_query_callback_tracing_kind_operation_name)(kind, op, &mut ptr, std::ptr::null_mut())
        } else {
            (api.rocprofiler_query_buffer_tracing_kind_operation_name)(kind, op, &mut ptr, std::ptr::null_mut())
        }
    };
    if status != sys::ROCPROFILER_STATUS_SUCCESS || ptr.is_null() {
        return None;
    }
    // SAFETY: the SDK's names are static NUL-terminated strings.
    Some(unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into())
}
