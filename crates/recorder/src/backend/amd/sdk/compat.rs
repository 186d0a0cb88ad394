//! Living with SDKs newer than the 1.0 ABI this build was written against.
//!
//! Since 1.0 the SDK has grown only by appending: struct fields at the end (`pipe_id` after the
//! dispatch info, `firmware_info` after the agent, `spm_support` after counter info v1) and
//! enumerators before `*_LAST`. So the rules are:
//! - pass the **1.0 size** wherever the SDK asks for a struct size ([`AGENT_SIZE_1_0`]): an older
//!   SDK answers `INCOMPATIBLE_ABI` to anything larger;
//! - read a record's own `size` before any field past the 1.0 layout ([`trailing_field`]);
//! - hand the SDK **over-allocated** output structs ([`OutputSlot`]), since a newer SDK writes
//!   its newer trailing fields too;
//! - refuse SDK 0.x at configure time ([`configure_version_supported`]): its ABI differs.

use std::mem::{MaybeUninit, size_of};

use rocprofiler_sdk_sys as sys;

use crate::error::{Error, Result, Status};

/// `sizeof(rocprofiler_agent_v0_t)` in SDK 1.0: what `rocprofiler_query_available_agents` is given.
pub const AGENT_SIZE_1_0: usize = 312;
/// `sizeof(rocprofiler_buffer_tracing_kernel_dispatch_record_t)` in SDK 1.0.
pub const KERNEL_DISPATCH_RECORD_SIZE_1_0: usize = 184;
/// Where 1.3 puts `int32_t pipe_id` in a kernel-dispatch record.
pub const KERNEL_DISPATCH_PIPE_ID_OFFSET: usize = 184;
/// Room left after an output struct for fields a newer SDK appends.
pub const OUTPUT_SLACK: usize = 256;

const _: () = assert!(size_of::<sys::rocprofiler_agent_v0_t>() == AGENT_SIZE_1_0);
const _: () =
    assert!(size_of::<sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t>() == KERNEL_DISPATCH_RECORD_SIZE_1_0);

/// Whether `rocprofiler_configure`'s `version` argument (`10000 * major + 100 * minor + patch`)
/// is an SDK this ABI can talk to: 1.x or later.
pub const fn configure_version_supported(version: u32) -> bool {
    version >= sys::sdk::MIN_VERSION
}

/// A field at `offset` in a record whose own `size` says how many bytes the SDK wrote: `None`
/// when the record is too short to contain it (an older SDK).
///
/// # Safety
/// `record` must point to at least `record_size` readable bytes, as the SDK guarantees for the
/// payload of a record during its callback, and `T` must be plain data valid for any bytes.
pub unsafe fn trailing_field<T: Copy>(record: *const u8, record_size: usize, offset: usize) -> Option<T> {
    let end = offset.checked_add(size_of::<T>())?;
    if end > record_size {
        return None;
    }
    // SAFETY: `offset + size_of::<T>() <= record_size` and the caller vouches for `record_size`
    // readable bytes; the read is unaligned because the SDK promises no alignment for appended
    // fields, and `T` accepts any bytes.
    Some(unsafe { record.wrapping_add(offset).cast::<T>().read_unaligned() })
}

/// The `pipe_id` of a kernel-dispatch record, if the SDK that wrote it (1.3 and later) has one.
pub fn kernel_dispatch_pipe_id(record: &sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t) -> Option<i32> {
    let size = usize::try_from(record.size).ok()?;
    // SAFETY: the SDK wrote `size` bytes at `record` (it is the record's own size field).
    unsafe { trailing_field::<i32>(std::ptr::from_ref(record).cast::<u8>(), size, KERNEL_DISPATCH_PIPE_ID_OFFSET) }
}

/// An output struct with [`OUTPUT_SLACK`] zeroed bytes after it, for the SDK to fill. A newer SDK
/// writes its appended fields into the slack instead of past the end of our allocation.
#[repr(C)]
pub struct OutputSlot<T> {
    value: MaybeUninit<T>,
    slack: [u8; OUTPUT_SLACK],
}

impl<T> std::fmt::Debug for OutputSlot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSlot").field("type", &std::any::type_name::<T>()).finish_non_exhaustive()
    }
}

impl<T: Copy> OutputSlot<T> {
    /// An all-zero slot.
    pub fn zeroed() -> Box<Self> {
        // SAFETY: `OutputSlot` is `MaybeUninit<T>` plus bytes; all-zero is a valid
        // `MaybeUninit` and a valid byte array.
        unsafe { Box::new_zeroed().assume_init() }
    }

    /// Where the SDK writes.
    pub fn as_mut_ptr(&mut self) -> *mut std::ffi::c_void {
        (self as *mut Self).cast()
    }

    /// The value as the 1.0 layout sees it.
    ///
    /// # Safety
    /// The SDK must have filled the slot (the call returned success), so that every field of
    /// `T` holds a value of its type; all-zero also qualifies for plain C structs.
    pub unsafe fn assume_written(&self) -> T {
        // SAFETY: the caller vouches that the SDK wrote a `T` (or the zeroed bytes are valid).
        unsafe { self.value.assume_init() }
    }
}

/// The SDK's `(major, minor, patch)`, refusing anything older than the 1.x ABI.
pub fn abi_checked_version(sdk: &rocprofiler_sdk_sys::sdk::Sdk) -> Result<(u32, u32, u32)> {
    // `version` only fails with a non-zero status, so `from_raw` always yields one.
    let version = sdk.version().map_err(|raw| Error::Sdk {
        call: "rocprofiler_get_version",
        status: Status::from_raw(raw).unwrap_or(Status::Unknown(raw)),
    })?;
    if version.0 < sys::ABI_MAJOR {
        return Err(Error::SdkTooOld { found: format!("{}.{}.{}", version.0, version.1, version.2) });
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configure_refuses_sdk_0x() {
        assert!(!configure_version_supported(600));
        assert!(!configure_version_supported(9999));
        assert!(configure_version_supported(10000));
        assert!(configure_version_supported(10305));
    }

    #[test]
    fn a_1_0_dispatch_record_has_no_pipe_id_and_a_1_3_one_does() {
        #[repr(C)]
        struct Newer {
            base: sys::rocprofiler_buffer_tracing_kernel_dispatch_record_t,
            pipe_id: i32,
        }
        let mut newer = Newer { base: Default::default(), pipe_id: 3 };
        newer.base.size = KERNEL_DISPATCH_RECORD_SIZE_1_0 as u64;
        assert_eq!(kernel_dispatch_pipe_id(&newer.base), None);
        newer.base.size = size_of::<Newer>() as u64;
        assert_eq!(kernel_dispatch_pipe_id(&newer.base), Some(3));
    }

    #[test]
    fn trailing_fields_past_the_written_size_are_refused() {
        let bytes = [1u8, 0, 0, 0, 2, 0, 0, 0];
        // SAFETY: `bytes` has 8 readable bytes.
        let read = |size, offset| unsafe { trailing_field::<u32>(bytes.as_ptr(), size, offset) };
        assert_eq!(read(8, 4), Some(2));
        assert_eq!(read(7, 4), None);
        assert_eq!(read(8, usize::MAX), None);
    }

    #[test]
    fn output_slots_leave_room_for_appended_fields() {
        let mut slot = OutputSlot::<sys::rocprofiler_counter_info_v1_t>::zeroed();
        assert!(size_of::<OutputSlot<sys::rocprofiler_counter_info_v1_t>>() >= 88 + OUTPUT_SLACK);
        // A newer SDK writes 96 bytes (spm_support and padding after the 88 of 1.0).
        // SAFETY: the slot has 88 + 256 bytes; 96 are written.
        unsafe { std::ptr::write_bytes(slot.as_mut_ptr().cast::<u8>(), 0, 96) };
        // SAFETY: all-zero is a valid counter info.
        let info = unsafe { slot.assume_written() };
        assert_eq!(info.size, 0);
    }
}
