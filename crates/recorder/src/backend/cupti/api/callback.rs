//! The Callback API: the process's one subscriber slot, and the callbacks turned on under it.

use std::ffi::{CStr, c_char, c_void};

use rocprofiler_sdk_sys::cupti::{self as sys, Cupti};

use super::{Failed, result};

/// The subscriber handle CUPTI gave us: the slot is ours while it lives (for the process).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subscriber(usize);

impl Subscriber {
    fn raw(self) -> sys::CUpti_SubscriberHandle {
        self.0 as sys::CUpti_SubscriberHandle
    }
}

/// Why CUPTI would not take us as its subscriber.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSubscribed {
    /// `cuptiSubscribe`'s result.
    pub result: sys::CUptiResult,
    /// CUPTI's text for it.
    pub text: String,
    /// The client holding the slot, as CUPTI 13's `cuptiSubscribe_v2` names it; empty where it
    /// does not.
    pub holder: String,
}

/// Claims CUPTI's single subscriber slot, with `callback` for every callback turned on later.
/// Asks `cuptiSubscribe_v2` where the release has it, which names a client already there.
///
/// # Safety
/// `callback` accepts any domain and callback id CUPTI gives it, and does not unwind.
pub unsafe fn subscribe(
    cupti: &Cupti,
    callback: unsafe extern "C" fn(*mut c_void, u32, u32, *const c_void),
) -> Result<Subscriber, NotSubscribed> {
    let mut handle: sys::CUpti_SubscriberHandle = std::ptr::null_mut();
    let mut other = [0 as c_char; 64];
    let rc = match cupti.subscribe_v2 {
        Some(subscribe_v2) => {
            let mut params = sys::CUpti_SubscriberParams {
                structSize: sys::CUpti_SubscriberParams_STRUCT_SIZE,
                subscriberName: c"rocprof-rs".as_ptr(),
                oldSubscriberName: other.as_mut_ptr(),
                oldSubscriberSize: other.len(),
            };
            // SAFETY: valid out-pointers, a params struct of the size it declares, and a
            // callback the caller vouches for.
            unsafe { subscribe_v2(&mut handle, Some(callback), std::ptr::null_mut(), &mut params) }
        }
        // SAFETY: a valid out-pointer and a callback the caller vouches for.
        None => unsafe { (cupti.api().cuptiSubscribe)(&mut handle, Some(callback), std::ptr::null_mut()) },
    };
    if rc == sys::CUPTI_SUCCESS {
        return Ok(Subscriber(handle as usize));
    }
    other[63] = 0;
    // SAFETY: NUL-terminated: zeroed, and its last byte forced to 0.
    let holder = unsafe { CStr::from_ptr(other.as_ptr()) }.to_string_lossy().into_owned();
    Err(NotSubscribed { result: rc, text: cupti.result_text(rc), holder })
}

/// Turns callback `cbid` of `domain` on or off for `subscriber`. An id this release lacks is
/// refused with `INVALID_PARAMETER`.
pub fn enable_callback(cupti: &Cupti, subscriber: Subscriber, on: bool, domain: u32, cbid: u32) -> Result<(), Failed> {
    // SAFETY: our subscriber handle and plain ids.
    let rc = unsafe { (cupti.api().cuptiEnableCallback)(u32::from(on), subscriber.raw(), domain, cbid) };
    result(cupti, "cuptiEnableCallback", rc)
}
