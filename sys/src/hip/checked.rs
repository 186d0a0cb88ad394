//! The project's own declarations of the HIP runtime and hiprtc subset, in bindgen's shape.
//!
//! The enumerator values here are identical in HIP 5.2 (Debian's libamdhip64-dev), 6.x and 7.x;
//! `tests/hip_matches_headers.rs` compares them with generated bindings wherever HIP headers are
//! present, which CI arranges.

use std::os::raw::{c_int, c_uint, c_void};

/// A HIP runtime status.
pub type hipError_t = c_uint;
pub const hipSuccess: hipError_t = 0;
pub const hipErrorInvalidValue: hipError_t = 1;
pub const hipErrorOutOfMemory: hipError_t = 2;
pub const hipErrorNotInitialized: hipError_t = 3;
pub const hipErrorInsufficientDriver: hipError_t = 35;
pub const hipErrorNoDevice: hipError_t = 100;
pub const hipErrorInvalidDevice: hipError_t = 101;
pub const hipErrorNotFound: hipError_t = 500;

/// A device property readable with `hipDeviceGetAttribute`, the layout-stable alternative to
/// `hipDeviceProp_t` (whose layout changed in HIP 6).
pub type hipDeviceAttribute_t = c_uint;
pub const hipDeviceAttributeClockRate: hipDeviceAttribute_t = 5;
pub const hipDeviceAttributeL2CacheSize: hipDeviceAttribute_t = 19;
pub const hipDeviceAttributeComputeCapabilityMajor: hipDeviceAttribute_t = 23;
pub const hipDeviceAttributeMaxThreadsPerBlock: hipDeviceAttribute_t = 56;
pub const hipDeviceAttributeMaxThreadsPerMultiProcessor: hipDeviceAttribute_t = 57;
pub const hipDeviceAttributeMemoryBusWidth: hipDeviceAttribute_t = 59;
pub const hipDeviceAttributeMemoryClockRate: hipDeviceAttribute_t = 60;
pub const hipDeviceAttributeComputeCapabilityMinor: hipDeviceAttribute_t = 61;
pub const hipDeviceAttributeMultiprocessorCount: hipDeviceAttribute_t = 63;
pub const hipDeviceAttributePciBusId: hipDeviceAttribute_t = 67;
pub const hipDeviceAttributePciDeviceId: hipDeviceAttribute_t = 68;
pub const hipDeviceAttributeMaxRegistersPerBlock: hipDeviceAttribute_t = 71;
pub const hipDeviceAttributeMaxSharedMemoryPerBlock: hipDeviceAttribute_t = 74;
pub const hipDeviceAttributeSharedMemPerMultiprocessor: hipDeviceAttribute_t = 76;
pub const hipDeviceAttributeTotalConstantMemory: hipDeviceAttribute_t = 83;
pub const hipDeviceAttributeWarpSize: hipDeviceAttribute_t = 87;

/// The direction of a copy.
pub type hipMemcpyKind = c_uint;
pub const hipMemcpyHostToHost: hipMemcpyKind = 0;
pub const hipMemcpyHostToDevice: hipMemcpyKind = 1;
pub const hipMemcpyDeviceToHost: hipMemcpyKind = 2;
pub const hipMemcpyDeviceToDevice: hipMemcpyKind = 3;
pub const hipMemcpyDefault: hipMemcpyKind = 4;

/// A device ordinal.
pub type hipDevice_t = c_int;
/// A device address.
pub type hipDeviceptr_t = *mut c_void;

macro_rules! opaque {
    ($($(#[$doc:meta])* $inner:ident => $handle:ident),* $(,)?) => {
        $(
            #[repr(C)]
            #[derive(Debug)]
            #[doc(hidden)]
            pub struct $inner {
                _unused: [u8; 0],
            }
            $(#[$doc])*
            pub type $handle = *mut $inner;
        )*
    };
}

opaque! {
    /// A stream; null is the default stream.
    ihipStream_t => hipStream_t,
    /// A loaded code object.
    ihipModule_t => hipModule_t,
    /// A kernel in a loaded module.
    ihipModuleSymbol_t => hipFunction_t,
    /// An event, for timing.
    ihipEvent_t => hipEvent_t,
    /// A hiprtc program.
    _hiprtcProgram => hiprtcProgram,
}

/// A hiprtc status.
pub type hiprtcResult = c_uint;
pub const HIPRTC_SUCCESS: hiprtcResult = 0;
pub const HIPRTC_ERROR_OUT_OF_MEMORY: hiprtcResult = 1;
pub const HIPRTC_ERROR_PROGRAM_CREATION_FAILURE: hiprtcResult = 2;
pub const HIPRTC_ERROR_INVALID_INPUT: hiprtcResult = 3;
pub const HIPRTC_ERROR_INVALID_PROGRAM: hiprtcResult = 4;
pub const HIPRTC_ERROR_INVALID_OPTION: hiprtcResult = 5;
pub const HIPRTC_ERROR_COMPILATION: hiprtcResult = 6;
pub const HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE: hiprtcResult = 7;
pub const HIPRTC_ERROR_INTERNAL_ERROR: hiprtcResult = 11;
